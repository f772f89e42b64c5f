//! Byte offsets to lines and columns, and small scans of the source text.

use super::{Pos, Span};

/// Converts byte offsets to line/column with the crate's one [`crate::source::LineIndex`];
/// a cursor makes the mostly-increasing offsets of one long non-ASCII line (minified JSON)
/// linear.
pub(super) struct LineIndex<'s> {
    source: &'s str,
    index: crate::source::LineIndex,
    /// (line, byte offset, 0-based column) of the last non-ASCII lookup.
    cursor: (usize, usize, usize),
}

impl<'s> LineIndex<'s> {
    pub(super) fn new(source: &'s str) -> Self {
        LineIndex {
            source,
            index: crate::source::LineIndex::new(source),
            cursor: (usize::MAX, 0, 0),
        }
    }

    pub(super) fn pos(&mut self, offset: usize) -> Pos {
        let offset = crate::source::char_floor(self.source, offset);
        let line = self.index.line_of(offset);
        if self.index.is_ascii(line) {
            return self.index.pos(self.source, offset);
        }
        let start = self.index.starts()[line];
        let (cl, cb, cc) = self.cursor;
        let col = if cl == line && cb <= offset {
            cc + self.source[cb..offset].chars().count()
        } else {
            self.source[start..offset].chars().count()
        };
        self.cursor = (line, offset, col);
        Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(col + 1).unwrap_or(u32::MAX),
            offset,
        }
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
            return b.min(self.source.len());
        }
        let starts = self.index.starts();
        let line = m.line().saturating_sub(1).min(starts.len() - 1);
        let start = starts[line];
        self.source[start..]
            .char_indices()
            .nth(m.col())
            .map_or(self.source.len(), |(i, _)| start + i)
    }
}
