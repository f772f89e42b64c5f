//! `path:line:col: severity[RULE] message`, one line per diagnostic.
//!
//! Nothing else goes to the writer (no summary): editors and pre-commit hooks
//! parse every line as a finding. Only `--show-fixes` adds lines, indented (never read as
//! `path:line:col:`), and a summary line.

use std::io;

use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;

use super::ReportOptions;
use crate::text::escape::{escape, Keep};

pub(super) fn write(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    for diagnostic in diagnostics {
        let start = diagnostic.location().span.start;
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            // Escaped: a newline in a file name must not forge a `path:line:col:` line.
            escape(&diagnostic.location().file, Keep::Nothing),
            start.line,
            start.column,
            diagnostic.severity(),
            diagnostic.rule(),
            escape(
                super::first_line(&diagnostic.message().as_cow()),
                Keep::Nothing
            ),
        )?;
        if options.show_fixes {
            for line in super::fix_lines(diagnostic, sources, options.unsafe_fixes) {
                writeln!(out, "    {line}")?;
            }
        }
    }
    if options.show_fixes && !options.quiet {
        writeln!(
            out,
            "{}",
            crate::fix::preview::FixCounts::of(diagnostics).summary_line()
        )?;
    }
    Ok(())
}
