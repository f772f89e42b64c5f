//! `path:line:col: severity[RULE] message`, one line per diagnostic.
//!
//! Nothing else goes to the writer (no summary): editors and pre-commit hooks
//! parse every line as a finding.

use std::io;

use crate::diagnostic::Diagnostic;

use super::escape::{escape, Keep};

pub(super) fn write(diagnostics: &[Diagnostic], out: &mut dyn io::Write) -> io::Result<()> {
    for diagnostic in diagnostics {
        let start = diagnostic.location.span.start;
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            // Escaped: a newline in a file name must not forge a `path:line:col:` line.
            escape(&diagnostic.location.file, Keep::Nothing),
            start.line,
            start.column,
            diagnostic.severity,
            diagnostic.rule,
            escape(super::first_line(&diagnostic.message), Keep::Nothing),
        )?;
    }
    Ok(())
}
