//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` line per
//! diagnostic, which the runner turns into annotations on the pull request.
//!
//! Nothing else goes to the writer: a clean run prints nothing. Columns are UTF-16
//! code units, like the SARIF report.

use std::io;

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceMap;

use super::sarif::utf16_column;
use crate::text::escape::{escape, Keep};

pub(super) fn write(
    diagnostics: &[Diagnostic],
    sources: &SourceMap,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    for d in diagnostics {
        let command = match d.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let text = sources.get(&d.location().file).map(|f| f.text.as_str());
        let span = d.location().span;
        let title = format!("{} {}", d.rule(), d.name());
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&d.location().file),
            span.start.line.max(1),
            utf16_column(span.start, text),
            span.end.line.max(span.start.line).max(1),
            utf16_column(span.end, text),
            escape_property(&title),
            escape_data(&d.message().as_cow()),
        )?;
    }
    Ok(())
}

/// Escaping of a command's message (`toCommandValue` + `escapeData` in @actions/core), after
/// terminal controls are made visible (the runner's log prints the command line as it is):
/// `\r` and `\n` are encoded, the runner decodes them into the annotation only.
pub(crate) fn escape_data(text: &str) -> String {
    escape(text, Keep::LineBreaks)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a command property value (`escapeProperty` in @actions/core).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
