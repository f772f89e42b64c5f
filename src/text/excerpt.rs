//! The part of a file a snippet shows, built from the line index, escaped and clipped.
//!
//! miette is handed this excerpt, never the whole file: its `str` source rescans the text from
//! the start for every snippet (quadratic over a file with thousands of findings), and it
//! panics ("Formatting argument out of range") on columns past 65,535 (one-line JSON). An
//! excerpt holds only the lines the snippets show (each label's lines, at most
//! [`LABEL_LINES`], plus [`CONTEXT_LINES`] around them), each long line cut to windows around the labels with `…`
//! where text was left out, and terminal controls escaped (see [`super::escape`]). Label spans
//! are mapped into the excerpt; the gutter still shows the file's real line numbers.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::escape::{is_unsafe, push_escaped};

/// Lines around each label, as miette's default handler asks for.
pub(crate) const CONTEXT_LINES: usize = 1;
/// A label over more lines is drawn over its first this many.
const LABEL_LINES: usize = 8;
/// Lines up to this many bytes are shown whole (every line of an ordinary manifest).
const WHOLE_LINE_BYTES: usize = 256;
/// On a longer line: characters shown before a label's start and after its (shown) end...
const AROUND_CHARS: usize = 40;
/// ...of the label itself at most this many...
const LABEL_CHARS: usize = 80;
/// ...and of a line holding no label start or end, its first this many.
const HEAD_CHARS: usize = 80;
/// Marks text left out of a line.
const ELLIPSIS: &str = "…";

/// Snippet text for a set of labels in one file; a miette [`SourceCode`] whose offsets are
/// the excerpt's own (see [`Excerpt::new`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Excerpt {
    text: String,
    blocks: Vec<Block>,
}

/// A run of consecutive file lines in the excerpt.
#[derive(Clone, Debug)]
struct Block {
    /// Byte range in `Excerpt::text`.
    start: usize,
    end: usize,
    /// 0-based line number in the file of the block's first line.
    first_line: usize,
}

impl Excerpt {
    /// The excerpt of `text` (with its line `index`) for labels
    /// at the byte ranges `spans`, and each span mapped into it, in the same order. Spans are
    /// clamped to the text and to char boundaries. Work is proportional to the excerpt, not the
    /// file: lines are found by binary search and long lines are only walked near labels.
    pub(crate) fn new(
        text: &str,
        index: &crate::source::LineIndex,
        spans: &[(usize, usize)],
    ) -> (Excerpt, Vec<SourceSpan>) {
        let lines = Lines { text, index };
        let spans: Vec<(usize, usize)> = spans
            .iter()
            .map(|&(start, end)| {
                let start = floor_char(text, start.min(text.len()));
                let end = ceil_char(text, end.clamp(start, text.len()));
                // A label over a whole object is drawn over its first lines only.
                let last_shown = lines.line_of(start) + LABEL_LINES - 1;
                let end = match lines.index.start(last_shown + 1) {
                    Some(next) if end > next => lines.bounds(last_shown).1,
                    _ => end,
                };
                (start, end)
            })
            .collect();
        let mut ranges: Vec<(usize, usize)> = spans
            .iter()
            .map(|&(start, end)| {
                let first = lines.line_of(start);
                let last = if end > start {
                    lines.line_of(end - 1)
                } else {
                    first
                };
                (
                    first.saturating_sub(CONTEXT_LINES),
                    (last + CONTEXT_LINES).min(lines.count() - 1),
                )
            })
            .collect();
        ranges.sort_unstable();
        // Ranges that touch form one block, as miette merges their snippets.
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (first, last) in ranges {
            match merged.last_mut() {
                Some(block) if first <= block.1 + 1 => block.1 = block.1.max(last),
                _ => merged.push((first, last)),
            }
        }

        // Every span start and end, in file order, resolved to excerpt offsets as lines are
        // written.
        let mut points: Vec<(usize, usize)> = spans
            .iter()
            .enumerate()
            .flat_map(|(i, &(start, end))| [(start, 2 * i), (end, 2 * i + 1)])
            .collect();
        points.sort_unstable();
        let mut writer = Writer {
            out: String::new(),
            points: &points,
            next: 0,
            mapped: vec![0; points.len()],
        };
        let mut blocks = Vec::with_capacity(merged.len());
        for (first, last) in merged {
            let start = writer.out.len();
            for line in first..=last {
                write_line(&mut writer, &lines, line, &spans);
            }
            blocks.push(Block {
                start,
                end: writer.out.len(),
                first_line: first,
            });
        }
        writer.resolve_before(usize::MAX);
        let mapped = writer.mapped;
        let spans = (0..spans.len())
            .map(|i| {
                let (start, end) = (mapped[2 * i], mapped[2 * i + 1]);
                SourceSpan::new(start.into(), end.max(start) - start)
            })
            .collect();
        (
            Excerpt {
                text: writer.out,
                blocks,
            },
            spans,
        )
    }

    /// The excerpt's text (tests check its size and content).
    #[cfg(test)]
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Like [`SourceCode::read_span`], with a name for the snippet header.
    pub(crate) fn read_named<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
        name: Option<String>,
    ) -> Result<MietteSpanContents<'a>, MietteError> {
        let offset = span.offset();
        // A point where two blocks meet belongs to the one it starts.
        let block = self
            .blocks
            .iter()
            .find(|b| b.start <= offset && offset < b.end)
            .or_else(|| self.blocks.iter().find(|b| b.end == offset))
            .filter(|b| offset + span.len() <= b.end)
            .ok_or(MietteError::OutOfBounds)?;
        let local = &self.text[block.start..block.end];
        let inner = local.read_span(
            &SourceSpan::new((offset - block.start).into(), span.len()),
            context_lines_before,
            context_lines_after,
        )?;
        let data = inner.data();
        let span = SourceSpan::new((block.start + inner.span().offset()).into(), data.len());
        let line = block.first_line + inner.line();
        let (column, line_count) = (inner.column(), inner.line_count());
        Ok(match name {
            Some(name) => MietteSpanContents::new_named(name, data, span, line, column, line_count),
            None => MietteSpanContents::new(data, span, line, column, line_count),
        })
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.read_named(span, context_lines_before, context_lines_after, None)?;
        Ok(Box::new(contents))
    }
}

struct Lines<'a> {
    text: &'a str,
    index: &'a crate::source::LineIndex,
}

impl Lines<'_> {
    fn count(&self) -> usize {
        self.index.line_count().max(1)
    }

    fn line_of(&self, offset: usize) -> usize {
        self.index.line_of(offset)
    }

    /// Start, end of content (before `\r\n`, `\n` or `\r`), and end with the line break.
    fn bounds(&self, line: usize) -> (usize, usize, usize) {
        let start = self.index.start(line).unwrap_or(0);
        let end = self.index.start(line + 1).unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut content = end;
        if content > start && bytes[content - 1] == b'\n' {
            content -= 1;
        }
        if content > start && bytes[content - 1] == b'\r' {
            content -= 1;
        }
        (start, content, end)
    }
}

/// Builds the excerpt text and resolves span points as it passes them.
struct Writer<'a> {
    out: String,
    /// (file offset, index into `mapped`), sorted.
    points: &'a [(usize, usize)],
    next: usize,
    mapped: Vec<usize>,
}

impl Writer<'_> {
    /// Points before `offset` map to the current end of the excerpt.
    fn resolve_before(&mut self, offset: usize) {
        while let Some(&(at, slot)) = self.points.get(self.next) {
            if at >= offset {
                break;
            }
            self.mapped[slot] = self.out.len();
            self.next += 1;
        }
    }

    /// Leaves out `text[from..to]` (if not empty) for an ellipsis. A point where the cut
    /// starts ends the text before it; a point inside the cut (a label's end) maps after the
    /// ellipsis, so the label visibly runs on into the left-out text.
    fn cut(&mut self, from: usize, to: usize) {
        if to > from {
            self.resolve_before(from + 1);
            self.out.push_str(ELLIPSIS);
        }
        self.resolve_before(to);
    }

    /// Copies `text[from..to]` (char boundaries), escaped, mapping the points it passes.
    fn copy(&mut self, text: &str, from: usize, to: usize) {
        for (i, c) in text[from..to].char_indices() {
            self.resolve_before(from + i + 1);
            if is_unsafe(c) {
                push_escaped(&mut self.out, c);
            } else {
                self.out.push(c);
            }
        }
    }
}

fn write_line(writer: &mut Writer<'_>, lines: &Lines<'_>, line: usize, spans: &[(usize, usize)]) {
    let text = lines.text;
    let (start, content_end, end) = lines.bounds(line);
    let windows = if content_end - start <= WHOLE_LINE_BYTES {
        vec![(start, content_end)]
    } else {
        windows(text, start, content_end, spans)
    };
    let mut cursor = start;
    for (from, to) in windows {
        writer.cut(cursor, from);
        writer.copy(text, from, to);
        cursor = to;
    }
    writer.cut(cursor, content_end);
    // A span ending on the line break ends at the end of the shown line.
    writer.resolve_before(end);
    if end > content_end {
        writer.out.push('\n');
    }
}

/// The byte ranges of a long line to show: around each label's start (and its end, when the
/// label is short), or the line's head when no label starts or ends on it; sorted, merged.
fn windows(text: &str, start: usize, end: usize, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut windows: Vec<(usize, usize)> = spans
        .iter()
        .filter(|&&(from, to)| from <= end && to >= start)
        .filter(|&&(from, to)| from >= start || to <= end)
        .map(|&(from, to)| {
            let from = from.max(start);
            let to = to.min(end);
            let shown_end = to.min(forward(text, from, LABEL_CHARS, end));
            (
                back(text, from, AROUND_CHARS, start),
                forward(text, shown_end, AROUND_CHARS, end),
            )
        })
        .collect();
    if windows.is_empty() {
        windows.push((start, forward(text, start, HEAD_CHARS, end)));
    }
    windows.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
    for (from, to) in windows {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// The offset `chars` characters after `from`, at most `limit`.
fn forward(text: &str, from: usize, chars: usize, limit: usize) -> usize {
    text[from..limit]
        .char_indices()
        .nth(chars)
        .map_or(limit, |(i, _)| from + i)
}

/// The offset `chars` characters before `from`, at least `limit`.
fn back(text: &str, from: usize, chars: usize, limit: usize) -> usize {
    text[limit..from]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(limit, |(i, _)| limit + i)
}

fn floor_char(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn ceil_char(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

#[cfg(test)]
#[path = "excerpt_tests.rs"]
mod tests;
