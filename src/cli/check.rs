//! `lblint check`: options from flags and the config file, --fix, the report, the exit
//! status.

use std::io::{IsTerminal, Write};

use super::settings::Settings;
use super::{fail, internal_failure, notices, CheckArgs, EXIT_FAILURE, EXIT_FINDINGS, EXIT_OK};
use crate::catalog;
use crate::check::{check, CheckOutcome};
use crate::panic::{self, InternalError};
use crate::report::{self, ReportOptions};

pub(super) fn run_check(args: CheckArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_default();
    let settings = match Settings::resolve(args, &cwd) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    // --diff writes nothing, even beside --fix.
    if settings.diff {
        return notices::run_diff(&settings.flags, &settings.options, &settings.profile);
    }
    // A file --fix could not write is an error (exit 2), after the report of what remains.
    let mut fix_failed = false;
    if settings.fix {
        let (options, profile) = (&settings.options, &settings.profile);
        match crate::fix::apply(options, profile, settings.unsafe_fixes, false) {
            Ok(done) => fix_failed = notices::fixed(&done, &settings.flags),
            Err(err) => return fail(err),
        }
    }
    // Rules are guarded one by one; this catches a crash anywhere else in the pipeline.
    let outcome = match panic::catch(|| check(&settings.options, &settings.profile)) {
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
    if settings.verbose {
        notices::rendered_with(&outcome.render_tools);
        notices::linted(&outcome.linted);
    }
    if settings.quiet == 0 {
        notices::no_input(&outcome.linted, &outcome.diagnostics, &settings.options);
    }
    let report_crash = match write_report(&settings, &outcome) {
        Ok(crash) => crash,
        Err(err) => return fail(err),
    };
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
    if settings.exit_zero {
        return EXIT_OK;
    }
    match (settings.fail_on.threshold(), outcome.max_severity()) {
        (Some(threshold), Some(max)) if max >= threshold => EXIT_FINDINGS,
        _ => EXIT_OK,
    }
}

/// Renders the report under a guard and writes it to `--output` or stdout (nothing on
/// stdout with -qq). Returns the reporter's crash, if it crashed; an I/O error as text.
fn write_report(
    settings: &Settings,
    outcome: &CheckOutcome,
) -> Result<Option<InternalError>, String> {
    let to_terminal = settings.output.is_none() && std::io::stdout().is_terminal();
    let report_options = ReportOptions {
        color: super::color::use_color_here(settings.color, to_terminal),
        width: terminal_width(settings.output.is_none()),
        rules: crate::check::enabled_rules(&settings.options)
            .unwrap_or_else(|_| catalog::all_meta().to_vec()),
        cwd: std::env::current_dir().ok(),
        show_fixes: settings.show_fixes,
        unsafe_fixes: settings.unsafe_fixes,
        quiet: settings.quiet > 0,
        chart_roots: settings.chart_roots.clone(),
    };
    let rendered = crate::report::render_report(settings.format, |format, out| {
        let (diagnostics, summary) = (&outcome.diagnostics, &outcome.summary);
        if settings.statistics {
            return report::statistics::write(format, diagnostics, summary, &report_options, out);
        }
        let sources = &outcome.sources;
        report::write_report(format, diagnostics, summary, sources, &report_options, out)
    })
    .map_err(|err| format!("cannot write the report: {err}"))?;
    match &settings.output {
        Some(path) => std::fs::write(path, &rendered.bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        // -qq: nothing on stdout (a report asked for with --output is still written).
        None if settings.quiet >= 2 => {}
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&rendered.bytes)
                .and_then(|_| stdout.flush())
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(rendered.crash)
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
