//! Byte offsets to lines and columns, and small scans of the source text.

use super::{Pos, Span};

/// Converts byte offsets to line/column. Columns count chars, so non-ASCII lines need a
/// scan; a cursor makes the mostly-increasing offsets of one long line (minified JSON) linear.
pub(super) struct LineIndex<'s> {
    source: &'s str,
    /// Byte offset of each line start. `\r\n`, `\n` and a lone `\r` end a line, as in YAML.
    starts: Vec<usize>,
    ascii: Vec<bool>,
    /// (line, byte offset, 0-based column) of the last non-ASCII lookup.
    cursor: (usize, usize, usize),
}

impl<'s> LineIndex<'s> {
    pub(super) fn new(source: &'s str) -> Self {
        let bytes = source.as_bytes();
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let brk = match b {
                b'\n' => Some(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => Some(i + 2),
                b'\r' => Some(i + 1),
                _ => None,
            };
            line_ascii &= b.is_ascii();
            if let Some(next) = brk {
                ascii.push(line_ascii);
                line_ascii = true;
                starts.push(next);
                i = next;
            } else {
                i += 1;
            }
        }
        ascii.push(line_ascii);
        LineIndex {
            source,
            starts,
            ascii,
            cursor: (usize::MAX, 0, 0),
        }
    }

    pub(super) fn pos(&mut self, offset: usize) -> Pos {
        let mut offset = offset.min(self.source.len());
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts[line];
        let col = if self.ascii[line] {
            offset - start
        } else {
            let (cl, cb, cc) = self.cursor;
            let col = if cl == line && cb <= offset {
                cc + self.source[cb..offset].chars().count()
            } else {
                self.source[start..offset].chars().count()
            };
            self.cursor = (line, offset, col);
            col
        };
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
        let line = m.line().saturating_sub(1).min(self.starts.len() - 1);
        let start = self.starts[line];
        self.source[start..]
            .char_indices()
            .nth(m.col())
            .map_or(self.source.len(), |(i, _)| start + i)
    }
}
