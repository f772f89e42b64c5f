//! Positions between lblint's byte offsets and LSP's (line, character) in the negotiated
//! encoding, and the incremental edit applier of `didChange`.

use gen_lsp_types::{Position, Range, TextDocumentContentChangeEvent};

use crate::source::{LineIndex, SourceFile, Span};

/// How LSP characters are counted: UTF-8 bytes when the client offers it (no conversion
/// on lblint's side), else UTF-16 code units, the protocol's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    #[default]
    Utf16,
}

impl Encoding {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// The LSP position of byte `offset` of `text` (clamped into the text, onto a character).
pub(crate) fn position(
    text: &str,
    lines: &LineIndex,
    offset: usize,
    encoding: Encoding,
) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line = lines.line_of(offset);
    let start = lines.start(line).unwrap_or(0).min(offset);
    let before = &text[start..offset];
    let character = match encoding {
        Encoding::Utf8 => before.len(),
        Encoding::Utf16 => before.encode_utf16().count(),
    };
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

/// The LSP range of a span of `source`.
pub(crate) fn range(source: &SourceFile, span: Span, encoding: Encoding) -> Range {
    let (text, lines) = (&source.text, source.lines());
    Range::new(
        position(text, lines, span.start.offset, encoding),
        position(text, lines, span.end.offset, encoding),
    )
}

/// The byte offset of an LSP position. As the protocol says, a character past the end of
/// its line means the line's end; a line past the last means the end of the text. A
/// position inside a UTF-16 surrogate pair means the character's start.
pub(crate) fn offset(
    text: &str,
    lines: &LineIndex,
    position: Position,
    encoding: Encoding,
) -> usize {
    let line = position.line as usize;
    let Some(start) = lines.start(line) else {
        return text.len();
    };
    let next = lines.start(line + 1).unwrap_or(text.len());
    let content = text[start..next].trim_end_matches(['\n', '\r']);
    let wanted = position.character as usize;
    let mut counted = 0;
    for (at, c) in content.char_indices() {
        let units = encoding.units(c);
        if counted + units > wanted {
            return start + at;
        }
        counted += units;
    }
    start + content.len()
}

/// Apply `didChange` content changes to a document's text, in order; each range is in
/// the text as the changes before it left it.
pub(crate) fn apply_changes(
    text: &mut String,
    changes: Vec<TextDocumentContentChangeEvent>,
    encoding: Encoding,
) {
    for change in changes {
        match change {
            TextDocumentContentChangeEvent::TextDocumentContentChangeWholeDocument(whole) => {
                *text = whole.text;
            }
            TextDocumentContentChangeEvent::TextDocumentContentChangePartial(part) => {
                let lines = LineIndex::new(text);
                let a = offset(text, &lines, part.range.start, encoding);
                let b = offset(text, &lines, part.range.end, encoding);
                // A reversed range is a client bug; its text still goes between the two.
                let (start, end) = (a.min(b), a.max(b));
                text.replace_range(start..end, &part.text);
            }
        }
    }
}

/// One edit that turns `before` into `after`: the differing middle, common prefix and
/// suffix kept (a whole-file replacement would move the cursor and fold state).
pub(crate) fn minimal_edit(before: &str, after: &str) -> (usize, usize, String) {
    let mut prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !(before.is_char_boundary(prefix) && after.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let room = before.len().min(after.len()) - prefix;
    let mut suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !(before.is_char_boundary(before.len() - suffix)
        && after.is_char_boundary(after.len() - suffix))
    {
        suffix -= 1;
    }
    (
        prefix,
        before.len() - suffix,
        after[prefix..after.len() - suffix].to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gen_lsp_types::{TextDocumentContentChangePartial, TextDocumentContentChangeWholeDocument};

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    fn partial(start: Position, end: Position, text: &str) -> TextDocumentContentChangeEvent {
        #[allow(deprecated)]
        TextDocumentContentChangeEvent::TextDocumentContentChangePartial(
            TextDocumentContentChangePartial::new(Range::new(start, end), None, text.to_string()),
        )
    }

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        // 注释 is 2 chars, 6 bytes, 2 UTF-16 units; 🚀 is 4 bytes, 2 UTF-16 units.
        let text = "a: 1\n# 注释 🚀 x: y\r\nlast";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(position(text, &lines, x, Encoding::Utf16), pos(1, 8));
        assert_eq!(position(text, &lines, x, Encoding::Utf8), pos(1, 14));
        assert_eq!(offset(text, &lines, pos(1, 8), Encoding::Utf16), x);
        assert_eq!(offset(text, &lines, pos(1, 14), Encoding::Utf8), x);
        // Past the line end: the line end (before \r\n); past the last line: the end.
        assert_eq!(offset(text, &lines, pos(1, 99), Encoding::Utf16), x + 4);
        assert_eq!(offset(text, &lines, pos(9, 0), Encoding::Utf16), text.len());
        // Inside the emoji's surrogate pair: the emoji's start.
        let rocket = text.find('🚀').unwrap();
        assert_eq!(offset(text, &lines, pos(1, 6), Encoding::Utf16), rocket);
        assert_eq!(
            position(text, &lines, text.len(), Encoding::Utf16),
            pos(2, 4)
        );
        // An offset inside a character is moved onto its start.
        assert_eq!(
            position(text, &lines, rocket + 1, Encoding::Utf8),
            pos(1, 9)
        );
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut text = "kind: Service\nmetadata:\n  name: 注释\n".to_string();
        let changes = vec![
            // Replace `Service` with `Pod`.
            partial(pos(0, 6), pos(0, 13), "Pod"),
            // Then, in the new text, insert after 注释 (UTF-16 column 10).
            partial(pos(2, 10), pos(2, 10), "-x"),
            // Delete the line break between line 0 and 1.
            partial(pos(0, 9), pos(1, 0), " "),
        ];
        apply_changes(&mut text, changes, Encoding::Utf16);
        assert_eq!(text, "kind: Pod metadata:\n  name: 注释-x\n");
        let whole = TextDocumentContentChangeEvent::TextDocumentContentChangeWholeDocument(
            TextDocumentContentChangeWholeDocument::new("new".to_string()),
        );
        apply_changes(
            &mut text,
            vec![whole, partial(pos(0, 3), pos(0, 3), "!")],
            Encoding::Utf8,
        );
        assert_eq!(text, "new!");
        // A reversed range and one past the end are clamped, not a panic.
        apply_changes(
            &mut text,
            vec![partial(pos(0, 3), pos(0, 1), "")],
            Encoding::Utf8,
        );
        assert_eq!(text, "n!");
        apply_changes(
            &mut text,
            vec![partial(pos(5, 5), pos(9, 9), "?")],
            Encoding::Utf8,
        );
        assert_eq!(text, "n!?");
    }

    #[test]
    fn minimal_edit_keeps_common_ends() {
        assert_eq!(minimal_edit("abcdef", "abXef"), (2, 4, "X".to_string()));
        assert_eq!(minimal_edit("aaa", "aaaa"), (3, 3, "a".to_string()));
        assert_eq!(minimal_edit("注释", "注x释"), (3, 3, "x".to_string()));
        assert_eq!(minimal_edit("same", "same"), (4, 4, String::new()));
    }
}
