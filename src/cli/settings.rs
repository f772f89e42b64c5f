//! `lblint check`'s settings, resolved once: flags over the config file, checked for
//! combinations that cannot work, as ripgrep turns its parsed flags (low args) into what
//! the run uses (high args). The check command then only runs, reports and exits.

use std::path::{Path, PathBuf};

use super::{
    fail, notices, print_located_error, print_profile_error, CheckArgs, ColorArg, EXIT_FAILURE,
};
use crate::check::{CheckOptions, Inputs, Pipeline};
use crate::config::{self, Config};
use crate::diagnostic::FailOn;
use crate::profile::Profile;
use crate::report::Format;
use crate::walk::WalkOptions;

/// What one `lblint check` run does.
pub(super) struct Settings {
    pub(super) options: CheckOptions,
    pub(super) profile: Profile,
    pub(super) format: Format,
    pub(super) fail_on: FailOn,
    /// Absolute chart directories, flags first, then the config's.
    pub(super) chart_roots: Vec<PathBuf>,
    /// The flags the notices and `--diff` read.
    pub(super) flags: notices::Flags,
    pub(super) fix: bool,
    pub(super) diff: bool,
    pub(super) statistics: bool,
    pub(super) show_fixes: bool,
    pub(super) unsafe_fixes: bool,
    pub(super) exit_zero: bool,
    pub(super) quiet: u8,
    pub(super) verbose: bool,
    pub(super) color: ColorArg,
    pub(super) output: Option<PathBuf>,
}

impl Settings {
    /// Flags win over the config file. An unusable config, profile or flag combination is
    /// reported here, and its exit status returned.
    pub(super) fn resolve(args: CheckArgs, cwd: &Path) -> Result<Settings, i32> {
        let config::Resolved { config, profile } = resolve(
            args.config.as_deref(),
            args.no_config,
            args.profile.as_deref(),
            cwd,
        )?;
        let chart_roots = chart_roots(&args.chart_root, config.as_ref(), cwd).map_err(fail)?;
        if args.verbose {
            notices::settings(&args, config.as_ref(), &profile, &chart_roots);
        }
        let fail_on = args
            .fail_on
            .or_else(|| config.as_ref().and_then(|c| c.fail_on))
            .unwrap_or(FailOn::Warning);
        if args.statistics && matches!(args.format, Format::Sarif | Format::Github) {
            return Err(fail(
                "--statistics prints text or JSON: use --format human, compact or json",
            ));
        }
        let flags = notices::Flags::of(&args);
        let options = check_options(&args, config.as_ref(), cwd);
        let stdin = options.inputs.paths.iter().any(|p| notices::is_stdin(p));
        if args.diff && stdin {
            return Err(fail(
                "--diff previews fixes of files, not of standard input; lint files instead",
            ));
        }
        if args.fix && stdin {
            return Err(fail(
                "--fix cannot write back to standard input; lint files instead",
            ));
        }
        Ok(Settings {
            options,
            profile,
            format: args.format,
            fail_on,
            chart_roots,
            flags,
            fix: args.fix,
            diff: args.diff,
            statistics: args.statistics,
            show_fixes: args.show_fixes,
            unsafe_fixes: args.unsafe_fixes,
            exit_zero: args.exit_zero,
            quiet: args.quiet,
            verbose: args.verbose,
            color: args.color,
            output: args.output,
        })
    }
}

/// The run's config file and profile (`check` and `model`), by the one resolver the
/// language server uses too: `--config`, else discovery from the working directory, none
/// with `--no-config`; `--profile` over the config's. An unusable file is reported here.
pub(super) fn resolve(
    config: Option<&Path>,
    no_config: bool,
    profile: Option<&Path>,
    cwd: &Path,
) -> Result<config::Resolved, i32> {
    let choice = match (config, no_config) {
        (_, true) => config::ConfigChoice::Off,
        (Some(path), false) => config::ConfigChoice::Named(path),
        (None, false) => config::ConfigChoice::Discover(cwd),
    };
    config::resolve(choice, profile, cwd).map_err(|err| {
        match err {
            config::ResolveError::Config(err) => print_located_error("invalid config file", &err),
            config::ResolveError::Profile(err) => print_profile_error(&err),
        }
        EXIT_FAILURE
    })
}

/// What the check stage needs: paths and walk globs (the config's rebased to its
/// directory), rule selection and levels, suppressions, threads, context.
fn check_options(args: &CheckArgs, config: Option<&Config>, cwd: &Path) -> CheckOptions {
    let inputs = Inputs {
        paths: args.paths.clone(),
        stdin_filename: args.stdin_filename.clone(),
        walk: WalkOptions {
            include: args.include.clone(),
            exclude: args.exclude.clone(),
            follow_links: args.follow_links,
            max_file_size: args.max_file_size,
            rebased: None,
            unsaved: Vec::new(),
        },
        context: args.context.clone(),
        ..Inputs::default()
    };
    let pipeline = Pipeline {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        threads: args.threads,
        no_ignores: args.no_ignores,
        namespace: args.namespace.clone(),
        render: (!args.no_render && (args.render || config.is_some_and(|c| c.render.enabled)))
            .then(|| {
                let options = config.map(|c| c.render.options.clone()).unwrap_or_default();
                crate::render::RenderOptions {
                    verbose: args.verbose,
                    max_output: args.max_file_size,
                    ..options
                }
            }),
        ..Pipeline::default()
    };
    CheckOptions { inputs, pipeline }.configured(config, cwd)
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
