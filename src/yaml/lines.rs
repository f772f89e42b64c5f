//! Byte offsets to lines and columns, and small scans of the source text.

use super::tree::Extent;
use super::{Pos, Span};

/// Converts byte offsets to line/column with the crate's one [`crate::source::LineIndex`];
/// a cursor makes the mostly-increasing offsets of one long non-ASCII line (minified JSON)
/// linear.
pub(super) struct LineIndex<'s> {
    source: &'s str,
    index: &'s crate::source::LineIndex,
    /// (line, byte offset, 0-based column) of the last non-ASCII lookup.
    cursor: (usize, usize, usize),
    /// The line of the last lookup: offsets come mostly in order, so the next one is on
    /// that line or a few after, found without a binary search over every line.
    last_line: usize,
    /// Where the text the parser reads starts (a chunk of a split stream, at a line start):
    /// granit's markers count from there.
    base: usize,
}

impl<'s> LineIndex<'s> {
    /// With the line index of `source` (a [`crate::source::SourceFile`] keeps it).
    pub(super) fn new(source: &'s str, index: &'s crate::source::LineIndex) -> Self {
        LineIndex {
            source,
            index,
            cursor: (usize::MAX, 0, 0),
            last_line: 0,
            base: 0,
        }
    }

    /// Markers count from `base`, the start of a line: the parser reads the text from there.
    pub(super) fn read_from(&mut self, base: usize) {
        self.base = base;
    }

    /// The 0-based line holding `offset`.
    fn line_of(&mut self, offset: usize) -> usize {
        let index = self.index;
        let holds = |line: usize| {
            index.start(line).is_some_and(|start| start <= offset)
                && index.start(line + 1).is_none_or(|next| offset < next)
        };
        let lines = index.line_count();
        let near = (self.last_line..lines.min(self.last_line + 4)).find(|&l| holds(l));
        let line = near.unwrap_or_else(|| self.index.line_of(offset));
        self.last_line = line;
        line
    }

    pub(super) fn pos(&mut self, offset: usize) -> Pos {
        let offset = crate::source::char_floor(self.source, offset);
        let line = self.line_of(offset);
        let start = self.index.start(line).unwrap_or(0);
        let (cl, cb, cc) = self.cursor;
        let col = if self.index.is_ascii(line) {
            offset - start
        } else if cl == line && cb <= offset {
            cc + self.source[cb..offset].chars().count()
        } else {
            self.source[start..offset].chars().count()
        };
        if !self.index.is_ascii(line) {
            self.cursor = (line, offset, col);
        }
        Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(col + 1).unwrap_or(u32::MAX),
            offset,
        }
    }

    /// Byte offsets of a node, snapped to char boundaries as [`LineIndex::pos`] does.
    pub(super) fn extent(&self, start: usize, end: usize) -> Extent {
        let start = crate::source::char_floor(self.source, start);
        Extent::new(
            start,
            crate::source::char_floor(self.source, end.max(start)),
        )
    }

    pub(super) fn span(&mut self, start: usize, end: usize) -> Span {
        Span {
            start: self.pos(start),
            end: self.pos(end.max(start)),
        }
    }

    /// Byte offset for a granit marker: its byte offset, else from its line and char column.
    pub(super) fn marker_offset(&self, m: &granit_parser::Marker) -> usize {
        if let Some(b) = m.byte_offset() {
            return b.saturating_add(self.base).min(self.source.len());
        }
        // `base` starts a line, so only the line number shifts.
        let first = self.index.line_of(self.base);
        let line = (first + m.line().saturating_sub(1)).min(self.index.line_count() - 1);
        let start = self.index.start(line).unwrap_or(0);
        self.source[start..]
            .char_indices()
            .nth(m.col())
            .map_or(self.source.len(), |(i, _)| start + i)
    }
}
