//! What `lblint check` says on stderr beside its report, and `--diff`: the settings
//! (`-v`), no input found, fixes not applied to rendered output, what `--fix` fixed.
//! `-q` silences all of these but errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{fail, CheckArgs, EXIT_FAILURE, EXIT_FINDINGS, EXIT_OK};
use crate::check::CheckOptions;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::fix::preview::{committed_notice, rendered_notice, unified_diff};
use crate::fix::Applied;
use crate::profile::Profile;
use crate::text::escape::{escape, Keep};

/// The flags of `lblint check` that its notices and `--diff` read.
pub(super) struct Flags {
    quiet: u8,
    verbose: bool,
    show_fixes: bool,
    unsafe_fixes: bool,
    exit_zero: bool,
    output: Option<std::path::PathBuf>,
}

impl Flags {
    pub(super) fn of(args: &CheckArgs) -> Flags {
        Flags {
            quiet: args.quiet,
            verbose: args.verbose,
            show_fixes: args.show_fixes,
            unsafe_fixes: args.unsafe_fixes,
            exit_zero: args.exit_zero,
            output: args.output.clone(),
        }
    }
}

/// One stderr line of lblint's own, escaped (paths come from the repository).
fn say(line: &str) {
    eprintln!("lblint: {}", escape(line, Keep::Nothing));
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `-v` with `--render`: each tool that rendered, its path and version.
pub(super) fn rendered_with(tools: &[String]) {
    for tool in tools {
        say(tool);
    }
}

/// `-v`: the config file and the profile the run uses.
pub(super) fn settings(
    args: &CheckArgs,
    config: Option<&Config>,
    profile: &Profile,
    chart_roots: &[PathBuf],
) {
    match (config, args.no_config) {
        (Some(config), _) => say(&format!("config: {}", config.source.path)),
        (None, true) => say("config: none (--no-config)"),
        (None, false) => say(
            "config: none found (no lblint.yaml or .lblint.yaml in the working directory or \
             its parents up to the repository root)",
        ),
    }
    let cwd = std::env::current_dir().ok();
    match &profile.path {
        Some(path) => say(&format!(
            "profile: {} (provider {})",
            crate::walk::display_path(Path::new(path), cwd.as_deref()),
            profile.provider().as_str()
        )),
        None => say(
            "profile: none (every cluster fact unknown; each object's annotations say which \
             cloud's rules judge it, at most as warnings)",
        ),
    }
    if crate::yaml::Reader::of_process() == crate::yaml::Reader::Granit {
        say(&format!(
            "YAML: granit alone, without the fast path ({}=granit)",
            crate::yaml::READER_VARIABLE
        ));
    }
    if !chart_roots.is_empty() {
        let roots: Vec<String> = chart_roots
            .iter()
            .map(|root| {
                let shown = match cwd.as_deref() {
                    Some(cwd) => crate::walk::display_relative(root, cwd),
                    None => crate::walk::display_path(root, None),
                };
                let shown = if shown.is_empty() { ".".into() } else { shown };
                if root.is_dir() {
                    shown
                } else {
                    format!("{shown} (not found)")
                }
            })
            .collect();
        say(&format!("chart roots: {}", roots.join(", ")));
    }
}

/// `-v`: every file linted, in walk order.
pub(super) fn linted(files: &[Arc<str>]) {
    say(&format!("linted {}:", plural(files.len(), "file", "files")));
    for file in files {
        say(&format!("  {file}"));
    }
}

/// A warning when nothing was linted and nothing was skipped or failed to render: an empty
/// folder, or globs that match nothing, would otherwise pass in silence. A skipped file
/// (LBL003) or a failed render (LBL008, whose files it replaces) already says why.
pub(super) fn no_input(linted: &[Arc<str>], diagnostics: &[Diagnostic], options: &CheckOptions) {
    let said = |d: &Diagnostic| ["LBL003", "LBL008"].contains(&d.rule());
    if !linted.is_empty() || diagnostics.iter().any(said) {
        return;
    }
    let paths: Vec<String> = options
        .inputs
        .paths
        .iter()
        .map(|p| crate::walk::os_text(p.as_os_str()).into_owned())
        .collect();
    let walk = &options.inputs.walk;
    let rebased = walk.rebased.as_ref();
    let include = match (&walk.include, rebased) {
        (flags, _) if !flags.is_empty() => flags.join(", "),
        (_, Some(config)) if !config.include.is_empty() => config.include.join(", "),
        _ => "*.yaml, *.yml, *.json".to_string(),
    };
    let exclude: Vec<&str> = walk
        .exclude
        .iter()
        .chain(rebased.into_iter().flat_map(|c| &c.exclude))
        .map(String::as_str)
        .collect();
    let exclude = match exclude.is_empty() {
        true => String::new(),
        false => format!("; exclude: {}", exclude.join(", ")),
    };
    say(&format!(
        "warning: no files to lint in {} (include: {include}{exclude})",
        paths.join(" ")
    ));
}

/// `--fix`: what was fixed (each file and rule with `--show-fixes`), what could not be
/// written (errors, also under `-q`) and what was left because it is rendered output.
/// Whether a file could not be written.
/// Files whose fixes were dropped because they would break the file's YAML.
pub(super) fn not_fixed(done: &Applied) {
    for file in &done.breaking {
        say(&format!(
            "not fixing {file}: the edits would break its YAML"
        ));
    }
}

pub(super) fn fixed(done: &Applied, args: &Flags) -> bool {
    not_fixed(done);
    for (file, reason) in &done.failures {
        say(&format!(
            "error: cannot fix {file}: {reason}; it is left as it was"
        ));
    }
    if args.quiet == 0 {
        rendered(&done.rendered, &done.committed);
        if done.fixed > 0 {
            let colon = if args.show_fixes { ":" } else { "" };
            say(&format!(
                "fixed {}{colon}",
                plural(done.fixed, "problem", "problems")
            ));
        }
        if args.show_fixes {
            by_rule(done);
        }
    }
    !done.failures.is_empty()
}

fn by_rule(done: &Applied) {
    for (file, rules) in &done.by_file {
        for ((id, name), n) in rules {
            say(&format!("  {file}: {n} × {id} ({name})"));
        }
    }
}

/// The fixes left to a template, and those put into rendered output whose template is
/// not in the repository.
fn rendered(refused: &[Diagnostic], committed: &[Diagnostic]) {
    for d in refused {
        eprintln!("{}", escape(&rendered_notice(d), Keep::Nothing));
    }
    for d in committed {
        eprintln!("{}", escape(&committed_notice(d), Keep::Nothing));
    }
}

/// `--diff`: plan every round of `--fix` in memory, print the unified diff of each file it
/// would change, and write nothing. Exit 1 when there is something to change, as ruff's
/// `--diff` does (a CI step fails until the fixes are applied), else 0; `--exit-zero`
/// makes it 0 either way.
pub(super) fn run_diff(args: &Flags, options: &CheckOptions, profile: &Profile) -> i32 {
    let done = match crate::fix::apply(options, profile, args.unsafe_fixes, true) {
        Ok(done) => done,
        Err(err) => return fail(err),
    };
    not_fixed(&done);
    if args.verbose {
        linted(&done.linted);
    }
    let diff = unified_diff(&done.changes);
    let written = match (&args.output, args.quiet) {
        (Some(path), _) => {
            std::fs::write(path, &diff).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        (None, quiet) if quiet >= 2 => Ok(()),
        (None, _) => {
            use std::io::Write as _;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(diff.as_bytes())
                .and_then(|_| stdout.flush())
                .map_err(|e| e.to_string())
        }
    };
    if let Err(err) = written {
        return fail(err);
    }
    if args.quiet == 0 {
        no_input(&done.linted, &[], options);
        rendered(&done.rendered, &done.committed);
        say(&would_fix(&done, args.unsafe_fixes));
    }
    for (file, reason) in &done.failures {
        say(&format!(
            "error: cannot preview the fixes of {file}: {reason}"
        ));
    }
    match () {
        _ if !done.failures.is_empty() => EXIT_FAILURE,
        _ if args.exit_zero || done.changes.is_empty() => EXIT_OK,
        _ => EXIT_FINDINGS,
    }
}

/// `would fix 2 problems in 1 file (3 more fixes with --unsafe-fixes)`.
fn would_fix(done: &Applied, unsafe_fixes: bool) -> String {
    let more = if done.fixed > 0 { "more " } else { "" };
    let hidden = match done.available.unsafe_only {
        n if n > 0 && !unsafe_fixes => format!(
            " ({n} {more}{} with --unsafe-fixes)",
            if n == 1 { "fix" } else { "fixes" }
        ),
        _ => String::new(),
    };
    match done.fixed {
        0 => format!("no fixes to apply{hidden}"),
        n => format!(
            "would fix {} in {}{hidden}",
            plural(n, "problem", "problems"),
            plural(done.changes.len(), "file", "files")
        ),
    }
}

/// Whether `path` is standard input.
pub(super) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}
