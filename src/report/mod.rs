//! Report stage: turns sorted diagnostics into one of the output formats.
//!
//! Every format writes to a caller-supplied writer, so the CLI decides where
//! output goes and tests can capture it byte for byte.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Summary};
use crate::source::SourceMap;
use crate::text::escape::{escape, Keep};

mod compact;
mod github;
mod guarded;
mod human;
mod json;
pub(crate) mod model;
pub(crate) mod sarif;
pub(crate) use guarded::render_report;
pub(crate) mod statistics;

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod tests;

/// Output format selected with `--format`; each variant's doc is its `--help` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// Snippets, labels, help and fixes, then a summary line.
    Human,
    /// `path:line:col: severity[RULE] message`, one line each.
    Compact,
    /// One JSON object (a stable contract).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub fn all() -> &'static [Format] {
        <Format as clap::ValueEnum>::value_variants()
    }

    pub(crate) fn as_str(self) -> &'static str {
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

/// Presentation settings.
#[derive(Clone, Debug)]
pub(crate) struct ReportOptions {
    /// Emit ANSI colours (the CLI decides from the terminal, `NO_COLOR`, `--color`);
    /// human format only.
    pub color: bool,
    /// Terminal width the human format wraps text at.
    pub width: usize,
    /// The enabled rules, described in SARIF `tool.driver.rules` (diagnostics of a rule
    /// missing here still get a descriptor).
    pub rules: Vec<&'static RuleMeta>,
    /// Working directory the displayed paths are relative to; SARIF gives files
    /// outside it absolute `file://` URIs. `None`: `../` paths stay relative.
    pub cwd: Option<PathBuf>,
    /// `--show-fixes`: under each finding (human and compact), its fix and suggestions with
    /// their safety and the lines they change, then how many fixes are available.
    pub show_fixes: bool,
    /// `--unsafe-fixes`: whether `--fix` applies unsafe fixes in this run (what
    /// `--show-fixes` and `--statistics` say about them).
    pub unsafe_fixes: bool,
    /// `-q`: findings only, no summary lines.
    pub quiet: bool,
    /// Where SARIF looks first for the template of a Helm `# Source:` origin: chart
    /// directories, or directories holding charts (`--chart-root`, then the config's
    /// `chartRoots`; absolute).
    pub chart_roots: Vec<PathBuf>,
}

impl Default for ReportOptions {
    /// Every rule, no colour, width 100, no working directory, no chart roots.
    fn default() -> Self {
        ReportOptions {
            color: false,
            width: 100,
            rules: crate::catalog::all_meta().to_vec(),
            cwd: None,
            show_fixes: false,
            unsafe_fixes: false,
            quiet: false,
            chart_roots: Vec::new(),
        }
    }
}

/// Writes `diagnostics` (already in output order) and `summary` in `format`.
///
/// `sources` supplies the file texts the human format quotes (and SARIF and github
/// count UTF-16 columns and fingerprint spans in); a diagnostic whose
/// file is missing is still reported, without a snippet.
pub(crate) fn write_report(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::write(diagnostics, summary, sources, options, out),
        Format::Compact => compact::write(diagnostics, sources, options, out),
        Format::Json => json::write(diagnostics, summary, out),
        Format::Sarif => sarif::write(diagnostics, sources, options, out),
        Format::Github => github::write(diagnostics, sources, out),
    }
}

/// `--show-fixes` lines of one finding, escaped: each fix or suggestion heading, then the
/// lines it changes (indented two more).
fn fix_lines(diagnostic: &Diagnostic, sources: &SourceMap, unsafe_fixes: bool) -> Vec<String> {
    use crate::fix::preview::{edit_lines, fix_heading, suggestion_heading};
    let file = sources.get(&diagnostic.location().file);
    let fixes = diagnostic
        .fix()
        .map(|fix| (fix_heading(diagnostic, fix, unsafe_fixes), fix))
        .into_iter()
        .chain(diagnostic.suggestions().map(|s| (suggestion_heading(s), s)));
    let mut lines = Vec::new();
    for (heading, fix) in fixes {
        lines.push(escape(&heading, Keep::Nothing).into_owned());
        if let Some(file) = file {
            lines.extend(
                edit_lines(fix, file)
                    .into_iter()
                    .map(|row| format!("  {row}")),
            );
        }
    }
    lines
}

/// First line of a message: one-line formats must not break their line protocol.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("").trim_end_matches('\r')
}
