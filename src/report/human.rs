//! Human format: one miette graphical report per diagnostic, then a summary line.
//!
//! miette draws the header, snippet, labels and help; the lines miette has no
//! slot for (cross-file related locations, template origin, fix, rule name)
//! are appended as rustc-style `= note:` lines.

use std::fmt::{self, Write as _};
use std::io;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use crate::diagnostic::{Applicability, Diagnostic, Location, Severity, Summary};
use crate::source::SourceMap;
use crate::yaml::Pos;

use super::ReportOptions;

pub(super) fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let handler = handler(options);
    for diagnostic in diagnostics {
        let text = render(&handler, diagnostic, sources).map_err(io::Error::other)?;
        out.write_all(text.as_bytes())?;
        // Blank line between reports, as rustc does.
        out.write_all(b"\n")?;
    }
    writeln!(out, "{}", summary_line(summary))
}

fn handler(options: &ReportOptions) -> GraphicalReportHandler {
    let theme = if options.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(options.width)
        // No OSC 8 hyperlinks: we set no url, and escape codes must never leak when colour is off.
        .with_links(false)
        // Wrap at spaces only: URLs and versions such as v1.20.6-tke.12 must stay whole.
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_break_words(false)
        .without_syntax_highlighting()
        // miette counts the header column in bytes; our source names carry the
        // char-based `line:col` instead (see `NamedText`).
        .without_primary_span_start()
}

/// Renders one diagnostic to text ending in a newline.
fn render(
    handler: &GraphicalReportHandler,
    diagnostic: &Diagnostic,
    sources: &SourceMap,
) -> Result<String, fmt::Error> {
    let file = sources.get(&diagnostic.location.file);
    let mut notes = Vec::new();
    let mut report = Report {
        header: format!(
            "{}[{}]: {}",
            diagnostic.severity, diagnostic.rule, diagnostic.message
        ),
        severity: match diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        },
        help: diagnostic.help.as_deref(),
        source: None,
        labels: Vec::new(),
    };

    match file {
        Some(file) => {
            let mut source = NamedText {
                path: &file.path,
                text: &file.text,
                positions: Vec::new(),
            };
            let primary = source.span(&diagnostic.location);
            report
                .labels
                .push(LabeledSpan::new_primary_with_span(None, primary));
            for related in &diagnostic.related {
                if related.location.file == diagnostic.location.file {
                    let span = source.span(&related.location);
                    report.labels.push(LabeledSpan::new_with_span(
                        Some(related.message.clone()),
                        span,
                    ));
                } else {
                    notes.push(related_note(&related.location, &related.message));
                }
            }
            report.source = Some(source);
        }
        None => {
            // No text to quote (file-level problem, or the file was not kept):
            // the location still has to be visible somewhere.
            notes.push(format!("at: {}", position(&diagnostic.location)));
            for related in &diagnostic.related {
                notes.push(related_note(&related.location, &related.message));
            }
        }
    }
    if let Some(origin) = &diagnostic.origin {
        notes.push(format!("note: template origin: {origin}"));
    }
    if let Some(fix) = &diagnostic.fix {
        let how = match fix.applicability {
            Applicability::Safe => "safe, applied by --fix",
            Applicability::Unsafe => "unsafe, applied by --fix only with --unsafe-fixes",
        };
        notes.push(format!("note: fix available: {} ({how})", fix.description));
    }
    notes.push(format!(
        "note: rule {} ({})",
        diagnostic.rule, diagnostic.name
    ));

    let mut text = String::new();
    handler.render_report(&mut text, &report)?;
    for note in notes {
        writeln!(text, "  = {note}")?;
    }
    Ok(text)
}

fn related_note(location: &Location, message: &str) -> String {
    format!("related: {}: {}", position(location), message)
}

fn position(location: &Location) -> String {
    let start = location.span.start;
    format!("{}:{}:{}", location.file, start.line, start.column)
}

fn summary_line(summary: &Summary) -> String {
    let files = plural(summary.files, "file", "files");
    let objects = plural(summary.objects, "object", "objects");
    let suppressed = match summary.suppressed {
        0 => String::new(),
        n => format!(" ({n} suppressed)"),
    };
    if summary.error + summary.warning + summary.note == 0 {
        format!("No problems found{suppressed} in {files} ({objects}).")
    } else {
        format!(
            "Found {}, {} and {}{suppressed} in {files} ({objects}).",
            plural(summary.error, "error", "errors"),
            plural(summary.warning, "warning", "warnings"),
            plural(summary.note, "note", "notes"),
        )
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The miette view of one diagnostic.
#[derive(Debug)]
struct Report<'a> {
    header: String,
    severity: miette::Severity,
    help: Option<&'a str>,
    source: Option<NamedText<'a>>,
    labels: Vec<LabeledSpan>,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.header)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .map(|help| Box::new(help) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|source| source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// A source text whose snippet headers read `path:line:col`.
///
/// miette derives the header column from bytes, which is wrong after non-ASCII
/// text; we name each span with the char-based position the diagnostic carries.
#[derive(Debug)]
struct NamedText<'a> {
    path: &'a str,
    text: &'a str,
    /// Start offset of every label, with its position as the loader computed it.
    positions: Vec<(usize, Pos)>,
}

impl NamedText<'_> {
    /// The miette span for `location`, clamped to the text and to char
    /// boundaries so a stale or odd span still renders instead of erroring.
    fn span(&mut self, location: &Location) -> SourceSpan {
        let text = self.text;
        let mut start = location.span.start.offset.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = location.span.end.offset.clamp(start, text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let mut pos = location.span.start;
        if pos.offset != start || pos.line == 0 {
            pos = position_of(text, start);
        }
        self.positions.push((start, pos));
        SourceSpan::new(start.into(), end - start)
    }

    fn name_at(&self, offset: usize) -> String {
        let pos = self
            .positions
            .iter()
            .find(|(start, _)| *start == offset)
            .map(|(_, pos)| *pos)
            .unwrap_or_else(|| position_of(self.text, offset));
        format!("{}:{}:{}", self.path, pos.line, pos.column)
    }
}

/// Line and char column of a byte offset (for spans we had to move).
fn position_of(text: &str, offset: usize) -> Pos {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: before.matches('\n').count() as u32 + 1,
        column: before[line_start..].chars().count() as u32 + 1,
        offset,
    }
}

impl SourceCode for NamedText<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let inner = self
            .text
            .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name_at(span.offset()),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}
