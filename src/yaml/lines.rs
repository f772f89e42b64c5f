//! Byte offsets to lines and columns, and small scans of the source text.

use super::tree::Extent;
use crate::source::{Pos, Span};

/// Converts byte offsets to line/column with the crate's one [`crate::source::LineIndex`]
/// (nodes keep offsets only; documents, comments and errors get lines and columns here).
pub(super) struct Positions<'s> {
    source: &'s str,
    index: &'s crate::source::LineIndex,
    /// Where the text the parser reads starts (a chunk of a split stream, at a line start):
    /// granit's markers count from there.
    base: usize,
}

impl<'s> Positions<'s> {
    /// With the line index of `source` (a [`crate::source::SourceFile`] keeps it).
    pub(super) fn new(source: &'s str, index: &'s crate::source::LineIndex) -> Self {
        Positions {
            source,
            index,
            base: 0,
        }
    }

    /// Markers count from `base`, the start of a line: the parser reads the text from there.
    pub(super) fn read_from(&mut self, base: usize) {
        self.base = base;
    }

    pub(super) fn pos(&self, offset: usize) -> Pos {
        self.index.pos(self.source, offset)
    }

    /// Byte offsets of a node, snapped to char boundaries as [`Positions::pos`] does.
    pub(super) fn extent(&self, start: usize, end: usize) -> Extent {
        let start = crate::source::char_floor(self.source, start);
        Extent::new(
            start,
            crate::source::char_floor(self.source, end.max(start)),
        )
    }

    pub(super) fn span(&self, start: usize, end: usize) -> Span {
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
