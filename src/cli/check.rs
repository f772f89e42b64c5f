//! `lblint check`: options from flags and the config file, --fix, the report, the exit
//! status.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::{
    fail, internal_failure, load_profile, notices, print_located_error, CheckArgs, FailOn,
    FormatArg, EXIT_FAILURE, EXIT_FINDINGS, EXIT_OK,
};
use crate::check::{check, CheckOptions};
use crate::config::{self, Config, FailOnLevel};
use crate::diagnostic::Severity;
use crate::panic::{self, InternalError};
use crate::report::{self, Format, ReportOptions};
use crate::rules;
use crate::walk::{RebasedGlobs, WalkOptions};

/// The config file of the run (`check` and `model`): `--config`, else discovery from the
/// working directory; none with `--no-config`.
pub(super) fn load_config(
    config: Option<&PathBuf>,
    no_config: bool,
    cwd: &Path,
) -> Result<Option<Config>, i32> {
    let path = match (config, no_config) {
        (_, true) => return Ok(None),
        (Some(path), _) => path.clone(),
        (None, false) => match config::discover(cwd) {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    config::load_config(&path, cwd).map(Some).map_err(|err| {
        print_located_error("invalid config file", &err);
        EXIT_FAILURE
    })
}

pub(super) fn run_check(args: CheckArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let config = match load_config(args.config.as_ref(), args.no_config, &cwd) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Flags win over the config file; the config's profile path is relative to its directory.
    let profile_path = args
        .profile
        .clone()
        .or_else(|| config.as_ref().and_then(|c| c.profile.clone()));
    let profile = match load_profile(profile_path.as_ref()) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let chart_roots = match chart_roots(&args.chart_root, config.as_ref(), &cwd) {
        Ok(roots) => roots,
        Err(message) => return fail(message),
    };
    if args.verbose {
        notices::settings(&args, config.as_ref(), &profile, &chart_roots);
    }
    let fail_on = args
        .fail_on
        .unwrap_or_else(|| match config.as_ref().and_then(|c| c.fail_on) {
            Some(FailOnLevel::Error) => FailOn::Error,
            Some(FailOnLevel::Note) => FailOn::Note,
            Some(FailOnLevel::Never) => FailOn::Never,
            Some(FailOnLevel::Warning) | None => FailOn::Warning,
        });
    let format = match args.format {
        FormatArg::Human => Format::Human,
        FormatArg::Compact => Format::Compact,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
        FormatArg::Github => Format::Github,
    };
    if args.statistics && matches!(format, Format::Sarif | Format::Github) {
        return fail("--statistics prints text or JSON: use --format human, compact or json");
    }
    let flags = notices::Flags::of(&args);
    let options = CheckOptions {
        paths: args.paths,
        stdin_filename: args.stdin_filename,
        walk: WalkOptions {
            include: args.include,
            exclude: args.exclude,
            follow_links: args.follow_links,
            max_file_size: args.max_file_size,
            rebased: config.as_ref().map(|c| RebasedGlobs {
                base: c.dir.clone(),
                include: c.include.clone(),
                exclude: c.exclude.clone(),
            }),
        },
        select: args.select,
        ignore: args.ignore,
        threads: args.threads,
        levels: config.as_ref().map(|c| c.rules.clone()).unwrap_or_default(),
        config_ignores: config.as_ref().map(|c| c.ignores(&cwd)),
        config_source: config.as_ref().map(|c| c.source.clone()),
        no_ignores: args.no_ignores,
        context: args.context,
        overlay: None,
    };
    let stdin = options.paths.iter().any(|p| notices::is_stdin(p));
    if args.diff && stdin {
        return fail("--diff previews fixes of files, not of standard input; lint files instead");
    }
    if args.fix && stdin {
        return fail("--fix cannot write back to standard input; lint files instead");
    }
    // --diff writes nothing, even beside --fix.
    if args.diff {
        return notices::run_diff(&flags, &options, &profile);
    }
    // A file --fix could not write is an error (exit 2), after the report of what remains.
    let mut fix_failed = false;
    if args.fix {
        match crate::fix::apply(&options, &profile, args.unsafe_fixes, false) {
            Ok(done) => fix_failed = notices::fixed(&done, &flags),
            Err(err) => return fail(err),
        }
    }
    // Rules are guarded one by one; this catches a crash anywhere else in the pipeline.
    let outcome = match panic::catch(|| check(&options, &profile)) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(err)) => return fail(err),
        Err(crash) => {
            return internal_failure(&[InternalError {
                what: "the check".to_string(),
                lost: "no report was written",
                crash,
            }])
        }
    };
    if args.verbose {
        notices::linted(&outcome.linted);
    }
    if args.quiet == 0 {
        notices::no_input(&outcome.linted, &outcome.diagnostics, &options);
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let report_options = ReportOptions {
        color: super::color::use_color_here(args.color, to_terminal),
        width: terminal_width(args.output.is_none()),
        rules: crate::check::enabled_rules(&options).unwrap_or_else(|_| rules::all_meta()),
        cwd: std::env::current_dir().ok(),
        show_fixes: args.show_fixes,
        unsafe_fixes: args.unsafe_fixes,
        quiet: args.quiet > 0,
        chart_roots,
    };
    let rendered = crate::report::render_report(format, |format, out| {
        let (diagnostics, summary) = (&outcome.diagnostics, &outcome.summary);
        if args.statistics {
            return report::statistics::write(format, diagnostics, summary, &report_options, out);
        }
        let sources = &outcome.sources;
        report::write_report(format, diagnostics, summary, sources, &report_options, out)
    });
    let (buffer, report_crash) = match rendered {
        Ok(rendered) => (rendered.bytes, rendered.crash),
        Err(err) => return fail(format!("cannot write the report: {err}")),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, &buffer)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        // -qq: nothing on stdout (a report asked for with --output is still written).
        None if args.quiet >= 2 => Ok(()),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&buffer)
                .and_then(|_| stdout.flush())
                .map_err(|e| e.to_string())
        }
    };
    if let Err(err) = written {
        return fail(err);
    }
    let crashes: Vec<InternalError> = outcome
        .internal_errors
        .iter()
        .cloned()
        .chain(report_crash)
        .collect();
    if !crashes.is_empty() {
        return internal_failure(&crashes);
    }
    if fix_failed {
        return EXIT_FAILURE;
    }
    if args.exit_zero {
        return EXIT_OK;
    }
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Note => Some(Severity::Note),
        FailOn::Never => None,
    };
    match (threshold, outcome.max_severity()) {
        (Some(threshold), Some(max)) if max >= threshold => EXIT_FINDINGS,
        _ => EXIT_OK,
    }
}

/// `--chart-root` (each must be a directory: a typo would quietly link nothing), then the
/// config file's `chartRoots`; absolute.
fn chart_roots(
    flags: &[PathBuf],
    config: Option<&Config>,
    cwd: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut roots = Vec::new();
    for root in flags {
        let abs = crate::walk::absolute(root, cwd);
        if !abs.is_dir() {
            let shown = crate::walk::os_text(root.as_os_str());
            return Err(format!("--chart-root {shown}: no such directory"));
        }
        roots.push(abs);
    }
    for root in config.iter().flat_map(|c| &c.chart_roots) {
        if !roots.contains(root) {
            roots.push(root.clone());
        }
    }
    Ok(roots)
}

/// The width the human report wraps at: $COLUMNS when set and valid, else the width of
/// the terminal the report goes to, else 100. Under 40 columns counts as not valid.
pub(super) fn terminal_width(to_stdout: bool) -> usize {
    let valid = |w: &usize| *w >= 40;
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let terminal = || {
        to_stdout
            .then(|| terminal_size::terminal_size_of(std::io::stdout()))
            .flatten()
            .map(|(terminal_size::Width(w), _)| usize::from(w))
    };
    columns
        .filter(valid)
        .or_else(|| terminal().filter(valid))
        .unwrap_or(100)
}
