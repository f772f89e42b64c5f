//! SARIF regions: 1-based lines, columns in UTF-16 code units (`run.columnKind`).

use super::log::Region;
use crate::source::Pos;

pub(super) fn region(start: Pos, end: Pos, text: Option<&str>) -> Region {
    let start_line = start.line.max(1);
    let start_column = utf16_column(start, text);
    let (end_line, end_column) = if (end.line, end.column) < (start.line, start.column) {
        (start_line, start_column)
    } else {
        (end.line.max(1), utf16_column(end, text))
    };
    Region {
        start_line,
        start_column,
        end_line,
        end_column,
    }
}

/// 1-based column of `pos` in UTF-16 code units. Uses the file text when it has the
/// offset; otherwise the char column (they differ only after non-BMP characters).
pub(crate) fn utf16_column(pos: Pos, text: Option<&str>) -> u32 {
    let column = text.and_then(|text| {
        let before = text.get(..pos.offset)?;
        let line_start = crate::source::line_start(text, pos.offset);
        Some(before[line_start..].encode_utf16().count() as u32 + 1)
    });
    column.unwrap_or(pos.column).max(1)
}
