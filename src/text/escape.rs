//! Terminal-safe text: manifests, file names and object names are untrusted, and the text
//! formats print them to terminals and CI logs.
//!
//! Every character that could act on the terminal or break a line protocol is shown as
//! `\u{XX}` (Rust's escape syntax, lower-case hex): C0 controls but tab (ESC sequences retitle
//! or clear the terminal, a lone CR overwrites the line), DEL, C1 controls, the Unicode line and
//! paragraph separators U+2028/2029, and the bidirectional controls U+061C, U+200E/200F,
//! U+202A–202E and U+2066–2069 (they reorder what is shown, "Trojan Source"). Tab stays: it
//! only moves the cursor forward. `\n` stays only where a format is multi-line by design.
//! JSON and SARIF do not use this: serde escapes controls, and their text must round-trip.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Which line breaks a context prints as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// One-line contexts (compact lines, file names, labels, notes): every break is escaped.
    Nothing,
    /// Human messages and help, multi-line by design: `\n` stays, a lone `\r` does not.
    Newlines,
    /// GitHub workflow commands: `\r` and `\n` stay for the `%0D`/`%0A` encoding, which the
    /// runner decodes back into the annotation (never into the log line).
    LineBreaks,
}

/// Whether `c` is shown escaped (see the module docs for the list and why).
pub(crate) fn is_unsafe(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{8}'
            | '\u{a}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

fn kept(c: char, keep: Keep) -> bool {
    match keep {
        Keep::Nothing => false,
        Keep::Newlines => c == '\n',
        Keep::LineBreaks => c == '\n' || c == '\r',
    }
}

/// `text` with every unsafe character (but those `keep` allows) escaped; borrowed when
/// there is none, which is nearly always.
pub(crate) fn escape(text: &str, keep: Keep) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !kept(c, keep)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) && !kept(c, keep) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Appends the visible form of `c`: `\u{1b}`.
pub(crate) fn push_escaped(out: &mut String, c: char) {
    // Writing to a String cannot fail.
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_shown_not_obeyed() {
        let hostile = "a\u{1b}[2Jb\rc\u{202e}d\u{2028}e\u{7}f\u{9b}g\u{2066}h\u{0}i";
        assert_eq!(
            escape(hostile, Keep::Nothing),
            "a\\u{1b}[2Jb\\u{d}c\\u{202e}d\\u{2028}e\\u{7}f\\u{9b}g\\u{2066}h\\u{0}i"
        );
    }

    #[test]
    fn line_breaks_stay_only_where_the_format_wants_them() {
        assert_eq!(escape("a\nb\r\nc", Keep::Nothing), "a\\u{a}b\\u{d}\\u{a}c");
        assert_eq!(escape("a\nb\r\nc", Keep::Newlines), "a\nb\\u{d}\nc");
        assert_eq!(escape("a\nb\r\nc", Keep::LineBreaks), "a\nb\r\nc");
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        let text = "Zoë ☕ 运维\tv1.20.6-tke.12 \\u{1b} `true`";
        assert!(matches!(escape(text, Keep::Nothing), Cow::Borrowed(t) if t == text));
    }
}
