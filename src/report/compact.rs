//! `path:line:col: severity[RULE] message`, one line per diagnostic.
//!
//! Nothing else goes to the writer (no summary): editors and pre-commit hooks
//! parse every line as a finding.

use std::io;

use crate::diagnostic::Diagnostic;

pub(super) fn write(diagnostics: &[Diagnostic], out: &mut dyn io::Write) -> io::Result<()> {
    for diagnostic in diagnostics {
        let start = diagnostic.location.span.start;
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            diagnostic.location.file,
            start.line,
            start.column,
            diagnostic.severity,
            diagnostic.rule,
            super::first_line(&diagnostic.message),
        )?;
    }
    Ok(())
}
