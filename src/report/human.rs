//! Human format: one miette graphical report per diagnostic, then a summary line.
//!
//! miette draws the header, snippet, labels and help; the lines miette has no
//! slot for (cross-file related locations, template origin, fix, rule name)
//! are appended as rustc-style `= note:` lines.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, SourceCode, SourceSpan,
    SpanContents,
};

use crate::diagnostic::{Applicability, Diagnostic, Severity, Summary};
use crate::source::Location;
use crate::source::Pos;
use crate::source::{SourceFile, SourceMap};

use super::ReportOptions;
use crate::text::escape::{escape, Keep};
use crate::text::excerpt::{Excerpt, CONTEXT_LINES};

pub(super) fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    sources: &SourceMap,
    options: &ReportOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let handler = handler(options);
    for diagnostic in diagnostics {
        let text = render(&handler, diagnostic, sources, options).map_err(io::Error::other)?;
        out.write_all(text.as_bytes())?;
        // Blank line between reports, as rustc does.
        out.write_all(b"\n")?;
    }
    if options.quiet {
        return Ok(());
    }
    writeln!(out, "{}", summary_line(summary))?;
    if options.show_fixes {
        let counts = crate::fix::preview::FixCounts::of(diagnostics);
        writeln!(out, "{}", counts.summary_line())?;
    }
    Ok(())
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
        // `Excerpt` holds exactly these context lines.
        .with_context_lines(CONTEXT_LINES)
        // miette counts the header column in bytes; our source names carry the
        // char-based `line:col` instead (see `NamedText`).
        .without_primary_span_start()
}

/// Columns miette draws left of a source line and its label (line number, bars, arrow).
const GUTTER: usize = 12;

/// Renders one diagnostic to text ending in a newline.
fn render(
    handler: &GraphicalReportHandler,
    diagnostic: &Diagnostic,
    sources: &SourceMap,
    options: &ReportOptions,
) -> Result<String, fmt::Error> {
    let file = sources.get(&diagnostic.location().file);
    let mut notes = Vec::new();
    let mut report = Report {
        header: format!(
            "{}[{}]: {}",
            diagnostic.severity(),
            diagnostic.rule(),
            escape(&diagnostic.message().as_cow(), Keep::Newlines)
        ),
        severity: match diagnostic.severity() {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        },
        help: diagnostic
            .help()
            .as_ref()
            .map(|help| escape(&help.as_cow(), Keep::Newlines).into_owned()),
        source: None,
        labels: Vec::new(),
    };

    match file {
        Some(file) if !diagnostic.shows_secret_text() => {
            quote_source(&mut report, &mut notes, diagnostic, file, options.width)
        }
        // A Secret's values are named by place, never quoted.
        Some(_) => {
            notes.push(format!(
                "at: {} (source not shown: a location is in a Secret's values)",
                position(diagnostic.location())
            ));
            for related in diagnostic.related() {
                notes.push(related_note(&related.location, &related.message.as_cow()));
            }
        }
        None => {
            // No text to quote (file-level problem, or the file was not kept):
            // the location still has to be visible somewhere.
            notes.push(format!("at: {}", position(diagnostic.location())));
            for related in diagnostic.related() {
                notes.push(related_note(&related.location, &related.message.as_cow()));
            }
        }
    }
    if let Some(origin) = diagnostic.origin() {
        notes.push(format!("note: template origin: {origin}"));
    }
    // --show-fixes lists them below, with the lines they change.
    let fixes = if options.show_fixes {
        super::fix_lines(diagnostic, sources, options.unsafe_fixes)
    } else {
        notes.extend(fix_notes(diagnostic));
        Vec::new()
    };
    let rule = format!("note: rule {} ({})", diagnostic.rule(), diagnostic.name());

    let mut text = String::new();
    handler.render_report(&mut text, &report)?;
    write_notes(&mut text, &notes, &fixes, &rule, options.width)?;
    Ok(text)
}

/// The primary location and the related ones in the same file from two lines above it on,
/// labelled in one excerpt of `file`; related locations elsewhere or further up (the
/// excerpt's first snippet is the finding's own line: the load balancer, not a caller
/// above it), and labels too long to fit, become notes.
fn quote_source<'a>(
    report: &mut Report<'a>,
    notes: &mut Vec<String>,
    diagnostic: &Diagnostic,
    file: &'a SourceFile,
    width: usize,
) {
    let primary = diagnostic.location();
    // Lines just above the primary share its snippet; further up they would open a
    // snippet of their own before it.
    let in_excerpt = |related: &&crate::diagnostic::Related| {
        related.location.file == primary.file
            && related.location.span.start.line + 2 >= primary.span.start.line
    };
    let same_file: Vec<_> = diagnostic.related().iter().filter(in_excerpt).collect();
    let locations: Vec<&Location> = std::iter::once(diagnostic.location())
        .chain(same_file.iter().map(|related| &related.location))
        .collect();
    let (source, spans) = NamedText::new(file, &locations);
    let mut spans = spans.into_iter();
    if let Some(primary) = spans.next() {
        report
            .labels
            .push(LabeledSpan::new_primary_with_span(None, primary));
    }
    for (related, span) in same_file.iter().zip(spans) {
        let message = escape(&related.message.as_cow(), Keep::Nothing).into_owned();
        // miette cannot wrap a label: one that would run past the width goes into the
        // notes (which wrap), and the span keeps a bare underline.
        let label_end =
            GUTTER + related.location.span.start.column as usize + message.chars().count();
        if label_end > width {
            notes.push(related_note(&related.location, &related.message.as_cow()));
            report.labels.push(LabeledSpan::new_with_span(None, span));
        } else {
            report
                .labels
                .push(LabeledSpan::new_with_span(Some(message), span));
        }
    }
    for related in diagnostic.related() {
        if !in_excerpt(&related) {
            notes.push(related_note(&related.location, &related.message.as_cow()));
        }
    }
    report.source = Some(source);
}

/// The notes under a rendered report: notes, `--show-fixes` lines, then the rule.
fn write_notes(
    text: &mut String,
    notes: &[String],
    fixes: &[String],
    rule: &str,
    width: usize,
) -> fmt::Result {
    // Notes wrap like miette's help: at spaces only, so paths and URLs stay whole.
    let wrap = textwrap::Options::new(width.max(40))
        .initial_indent("  = ")
        .subsequent_indent("    ")
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(false);
    let note = |text: &mut String, note: &str| -> fmt::Result {
        for line in textwrap::wrap(&escape(note, Keep::Nothing), &wrap) {
            writeln!(text, "{line}")?;
        }
        Ok(())
    };
    for n in notes {
        note(text, n)?;
    }
    for line in fixes {
        // Headings read as notes; the changed lines sit under them, never wrapped.
        match line.strip_prefix("  ") {
            Some(row) => writeln!(text, "      {row}")?,
            None => note(text, line)?,
        }
    }
    note(text, rule)
}

/// The fix and each suggestion as one note each: what `--fix` does with them.
fn fix_notes(diagnostic: &Diagnostic) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(fix) = diagnostic.fix() {
        let how = match (fix.applicability(), diagnostic.edit_elsewhere()) {
            (Applicability::DisplayOnly, _) => "shown only, never applied by --fix".to_string(),
            (_, Some(origin)) => format!(
                "not applied by --fix: {}",
                crate::fix::preview::rendered_reason(origin)
            ),
            (Applicability::Safe, None) => "safe, applied by --fix".to_string(),
            (Applicability::Unsafe, None) => {
                "unsafe, applied by --fix only with --unsafe-fixes".to_string()
            }
        };
        notes.push(format!(
            "note: fix available: {} ({how})",
            fix.description()
        ));
    }
    for suggestion in diagnostic.suggestions() {
        // A by-hand suggestion's description says so itself.
        let how = if !suggestion.has_edits() {
            ""
        } else {
            " (not applied by --fix)"
        };
        notes.push(format!(
            "note: suggestion: {}{how}",
            suggestion.description()
        ));
    }
    notes
}

fn related_note(location: &Location, message: &str) -> String {
    format!("related: {}: {}", position(location), message)
}

fn position(location: &Location) -> String {
    let start = location.span.start;
    format!("{}:{}:{}", location.file, start.line, start.column)
}

pub(super) fn summary_line(summary: &Summary) -> String {
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
    help: Option<String>,
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
            .as_ref()
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

/// A file's excerpt whose snippet headers read `path:line:col`.
///
/// miette derives the header column from bytes, which is wrong after non-ASCII
/// text; we name each span with the char-based position the diagnostic carries.
#[derive(Debug)]
pub(super) struct NamedText<'a> {
    /// Escaped for the terminal.
    path: Cow<'a, str>,
    excerpt: Excerpt,
    /// Start of every label in the excerpt, with its position in the file.
    positions: Vec<(usize, Pos)>,
}

impl<'a> NamedText<'a> {
    /// The excerpt of `file` for labels at `locations`, and each label's span in it. Spans
    /// are clamped to the text and to char boundaries so a stale or odd span still renders.
    pub(super) fn new(
        file: &'a SourceFile,
        locations: &[&Location],
    ) -> (NamedText<'a>, Vec<SourceSpan>) {
        let ranges: Vec<(usize, usize)> = locations
            .iter()
            .map(|l| (l.span.start.offset, l.span.end.offset))
            .collect();
        let (excerpt, spans) = Excerpt::new(&file.text, file.lines(), &ranges);
        let positions = locations
            .iter()
            .zip(&spans)
            .map(|(location, span)| {
                let pos = location.span.start;
                let fits = pos.line != 0
                    && pos.offset <= file.text.len()
                    && file.text.is_char_boundary(pos.offset);
                (
                    span.offset(),
                    if fits { pos } else { file.pos_at(pos.offset) },
                )
            })
            .collect();
        let text = NamedText {
            path: escape(&file.path, Keep::Nothing),
            excerpt,
            positions,
        };
        (text, spans)
    }

    /// What miette reads for this diagnostic's snippets: the excerpt, never the file.
    #[cfg(test)]
    pub(super) fn excerpt_text(&self) -> &str {
        self.excerpt.text()
    }

    fn name_at(&self, offset: usize) -> String {
        let pos = self
            .positions
            .iter()
            .find(|(start, _)| *start == offset)
            .map(|(_, pos)| *pos);
        match pos {
            Some(pos) => format!("{}:{}:{}", self.path, pos.line, pos.column),
            // Only a merged snippet starts elsewhere, and miette names it by its label.
            None => self.path.to_string(),
        }
    }
}

impl SourceCode for NamedText<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let contents = self.excerpt.read_named(
            span,
            context_lines_before,
            context_lines_after,
            Some(self.name_at(span.offset())),
        )?;
        Ok(Box::new(contents))
    }
}
