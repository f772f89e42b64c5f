//! Report stage: turns sorted diagnostics into one of the output formats.
//!
//! Every format writes to a caller-supplied writer, so the CLI decides where
//! output goes and tests can capture it byte for byte.

use std::fmt;
use std::io;
use std::str::FromStr;

use crate::diagnostic::{Diagnostic, Summary};
use crate::source::SourceMap;

mod compact;
mod human;
mod json;

#[cfg(test)]
mod tests;

/// Output format selected with `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Human,
    Compact,
    Json,
    Sarif,
    Github,
}

impl Format {
    /// Every format, in the order `--help` should list them.
    pub const ALL: [Format; 5] = [
        Format::Human,
        Format::Compact,
        Format::Json,
        Format::Sarif,
        Format::Github,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Compact => "compact",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown `--format` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFormatError(pub String);

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown output format `{}` (expected one of: human, compact, json, sarif, github)",
            self.0
        )
    }
}

impl std::error::Error for ParseFormatError {}

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.as_str() == text)
            .ok_or_else(|| ParseFormatError(text.to_string()))
    }
}

/// Presentation settings; only the human format uses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportOptions {
    /// Emit ANSI colours (the CLI decides from the terminal, `NO_COLOR`, `--color`).
    pub color: bool,
    /// Terminal width the human format wraps text at.
    pub width: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            color: false,
            width: 100,
        }
    }
}

/// Writes `diagnostics` (already in output order) and `summary` in `format`.
///
/// `sources` supplies the file texts the human format quotes; a diagnostic whose
/// file is missing is still reported, without a snippet.
/// Sarif and Github are accepted by the parser but fail here with
/// `ErrorKind::Unsupported` until they are implemented.
pub fn write_report(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::write(diagnostics, summary, sources, options, out),
        Format::Compact => compact::write(diagnostics, out),
        Format::Json => json::write(diagnostics, summary, out),
        Format::Sarif | Format::Github => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("output format `{format}` is not yet supported"),
        )),
    }
}

/// First line of a message: one-line formats must not break their line protocol.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("").trim_end_matches('\r')
}
