//! The fast path's scalars (plain and quoted on one line, literal and folded blocks) and
//! its one-line flow collections.

use std::borrow::Cow;

use granit_parser::{Event, ScalarStyle, StructureStyle};

use super::{quote_style, scalar, starts_plain, unsupported, Fast, FastParser};

/// A one-line plain scalar.
pub(super) struct Plain {
    /// End of its text (trailing spaces are not part of it).
    pub(super) text_end: usize,
    /// Where scanning stopped: a `:` that makes it a key, a comment, or the line's end.
    pub(super) stop: usize,
    /// It is a key: a `:` and a space (or the line's end) follow it.
    pub(super) colon: bool,
}

#[derive(Clone, Copy)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

impl<'s> FastParser<'s, '_> {
    /// A plain scalar in block context starting at `at`, which ends at the line's end, a
    /// comment, or the `:` of a key. A tab in it goes to granit.
    pub(super) fn plain(&self, at: usize) -> Fast<Plain> {
        let b = self.bytes;
        let mut i = at;
        let mut colon = false;
        while i < self.end {
            match b[i] {
                b'\n' => break,
                b':' if i + 1 >= self.end || matches!(b[i + 1], b' ' | b'\n') => {
                    colon = true;
                    break;
                }
                b'#' if b[i - 1] == b' ' => break,
                b'\t' => return Err(unsupported()),
                _ => i += 1,
            }
        }
        let mut text_end = i;
        while text_end > at && b[text_end - 1] == b' ' {
            text_end -= 1;
        }
        Ok(Plain {
            text_end,
            stop: i,
            colon,
        })
    }

    /// A single- or double-quoted scalar opening at `at`: its value and the offset after
    /// the closing quote. It may go on over lines more indented than `parent` (a block
    /// collection's indentation); with `None`, it must close on its line.
    pub(super) fn quoted(&self, at: usize, parent: Option<usize>) -> Fast<(Cow<'s, str>, usize)> {
        let b = self.bytes;
        let quote = b[at];
        let mut i = at + 1;
        let mut from = i;
        let mut owned: Option<String> = None;
        loop {
            let rest = &b[i..self.end];
            let hit = if quote == b'\'' {
                memchr::memchr2(b'\'', b'\n', rest)
            } else {
                memchr::memchr3(b'"', b'\\', b'\n', rest)
            };
            let j = i + hit.ok_or_else(unsupported)?;
            match b[j] {
                b'\n' => {
                    // A line break folds to a space, or to one `\n` per empty line.
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(self.src[from..j].trim_end_matches([' ', '\t']));
                    let (next, empty) = self.continuation(j + 1, parent)?;
                    if empty == 0 {
                        text.push(' ');
                    } else {
                        text.extend(std::iter::repeat_n('\n', empty));
                    }
                    (i, from) = (next, next);
                }
                b'\\' if b.get(j + 1) == Some(&b'\n') => {
                    // An escaped line break joins the lines as they are.
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.src[from..j]);
                    let (next, empty) = self.continuation(j + 2, parent)?;
                    text.extend(std::iter::repeat_n('\n', empty));
                    (i, from) = (next, next);
                }
                b'\\' => {
                    let (c, len) = escape(&b[j + 1..self.end])?;
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.src[from..j]);
                    text.push(c);
                    i = j + 1 + len;
                    from = i;
                }
                b'\'' if j + 1 < self.end && b[j + 1] == b'\'' => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.src[from..=j]);
                    i = j + 2;
                    from = i;
                }
                _ => {
                    let value = match owned {
                        Some(mut text) => {
                            text.push_str(&self.src[from..j]);
                            Cow::Owned(text)
                        }
                        None => Cow::Borrowed(&self.src[from..j]),
                    };
                    return Ok((value, j + 1));
                }
            }
        }
    }

    /// The line after a line break inside a quoted scalar, which must be indented more than
    /// `parent`: where its text starts, and how many empty lines came before it.
    fn continuation(&self, mut p: usize, parent: Option<usize>) -> Fast<(usize, usize)> {
        let parent = parent.ok_or_else(unsupported)?;
        let b = self.bytes;
        let mut empty = 0;
        loop {
            let q = self.skip_spaces(p);
            let spaces = q - p;
            if q >= self.end || b[q] == b'\t' {
                return Err(unsupported());
            }
            if b[q] != b'\n' {
                if spaces <= parent {
                    return Err(unsupported());
                }
                return Ok((q, empty));
            }
            empty += 1;
            p = q + 1;
        }
    }

    /// A plain scalar value starting at `at`, whose first line is `first`, over the lines
    /// after it that are indented more than `parent`: its value, where its text ends, and
    /// the start of the line after it.
    pub(super) fn plain_lines(
        &mut self,
        at: usize,
        first: Plain,
        parent: Option<usize>,
    ) -> Fast<(Cow<'s, str>, usize, usize)> {
        let b = self.bytes;
        let first_text = &self.src[at..first.text_end];
        let (Some(parent), true) = (parent, first.stop < self.end && b[first.stop] == b'\n') else {
            // A comment or the end of the text ends it.
            let next = self.rest_of_line(first.text_end)?;
            return Ok((Cow::Borrowed(first_text), first.text_end, next));
        };
        let mut value: Option<String> = None;
        let (mut text_end, mut next) = (first.text_end, first.stop + 1);
        let (mut p, mut empty) = (next, 0);
        while p < self.end {
            let q = self.skip_spaces(p);
            let spaces = q - p;
            if q >= self.end || matches!(b[q], b'#' | b'\t') || spaces <= parent && b[q] != b'\n' {
                break;
            }
            if b[q] == b'\n' {
                empty += 1;
                p = q + 1;
                continue;
            }
            // Indicators are text on a continuation line (granit agrees); a key is not.
            let line = self.plain(q)?;
            if line.colon {
                return Err(unsupported());
            }
            let text = value.get_or_insert_with(|| first_text.to_string());
            if empty == 0 {
                text.push(' ');
            } else {
                text.extend(std::iter::repeat_n('\n', empty));
            }
            text.push_str(&self.src[q..line.text_end]);
            (text_end, empty) = (line.text_end, 0);
            if line.stop >= self.end || b[line.stop] == b'#' {
                next = self.rest_of_line(line.text_end)?;
                break;
            }
            next = line.stop + 1;
            p = next;
        }
        let value = value.map_or(Cow::Borrowed(first_text), Cow::Owned);
        Ok((value, text_end, next))
    }

    /// A literal (`|`) or folded (`>`) block scalar whose indicator is at `at`, in a
    /// collection indented `parent`; returns the start of the line after it.
    pub(super) fn block_scalar(&mut self, at: usize, parent: Option<usize>) -> Fast<usize> {
        let b = self.bytes;
        let literal = b[at] == b'|';
        let BlockStart {
            chomp,
            first,
            indent,
            leading,
        } = self.block_start(at, parent)?;
        let mut p = first;
        let mut value = "\n".repeat(leading);
        let (mut blanks, mut any) = (0usize, false);
        // The next line's start, and its first token (where granit ends the scalar).
        let (next, end) = loop {
            if p >= self.end {
                break (self.end, self.end);
            }
            let limit = (p + indent).min(self.end);
            let mut q = p;
            while q < limit && b[q] == b' ' {
                q += 1;
            }
            if q < limit {
                if b[q] == b'\n' {
                    blanks += 1;
                    p = q + 1;
                    continue;
                }
                // Less indented content: the scalar ends at this line.
                break (p, q);
            }
            let eol = self.line_end(q);
            if eol >= self.end {
                // The text ends without a line break: chomping differs, granit's.
                return Err(unsupported());
            }
            let text = &self.src[q..eol];
            if text.is_empty() {
                blanks += 1;
                p = eol + 1;
                continue;
            }
            let spaced = matches!(text.as_bytes()[0], b' ' | b'\t');
            if spaced && (!literal || text.bytes().all(|c| c == b' ')) {
                // More-indented folded lines, or spaces beyond the indentation on a blank
                // line: rules this path does not implement.
                return Err(unsupported());
            }
            if any {
                if literal || blanks > 0 {
                    let breaks = if literal { blanks + 1 } else { blanks };
                    value.extend(std::iter::repeat_n('\n', breaks));
                } else {
                    value.push(' ');
                }
            }
            any = true;
            value.push_str(text);
            blanks = 0;
            p = eol + 1;
        };
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => value.push('\n'),
            Chomp::Keep => value.extend(std::iter::repeat_n('\n', blanks + 1)),
        }
        let style = if literal {
            ScalarStyle::Literal
        } else {
            ScalarStyle::Folded
        };
        self.push(scalar(Cow::Owned(value), style), first + indent, end)?;
        Ok(next)
    }

    /// The header of a block scalar whose indicator is at `at` (chomping), its leading
    /// blank lines, and the first content line, which sets the indentation.
    fn block_start(&mut self, at: usize, parent: Option<usize>) -> Fast<BlockStart> {
        let b = self.bytes;
        let mut i = at + 1;
        let chomp = match b.get(i) {
            Some(b'-') => Chomp::Strip,
            Some(b'+') => Chomp::Keep,
            _ => Chomp::Clip,
        };
        if !matches!(chomp, Chomp::Clip) {
            i += 1;
        }
        // An indentation indicator, or a block scalar at the root: granit's.
        let parent = parent.ok_or_else(unsupported)?;
        if i < self.end && b[i].is_ascii_digit() {
            return Err(unsupported());
        }
        let body = self.rest_of_line(i)?;
        // Leading blank lines, then the first content line sets the indentation.
        let (mut p, mut leading) = (body, 0usize);
        let indent = loop {
            let q = self.skip_spaces(p);
            let spaces = q - p;
            if q >= self.end {
                return Err(unsupported());
            }
            if b[q] != b'\n' {
                break spaces;
            }
            if spaces > 0 {
                // Spaces on a leading blank line: granit's rules about them are subtle.
                return Err(unsupported());
            }
            leading += 1;
            p = q + 1;
        };
        if indent <= parent || b[p + indent] == b'\t' {
            // Empty, or content that starts with a tab.
            return Err(unsupported());
        }
        Ok(BlockStart {
            chomp,
            first: p,
            indent,
            leading,
        })
    }

    /// A flow collection on one line, opening at `at`; returns the offset after it.
    pub(super) fn flow(&mut self, at: usize) -> Fast<usize> {
        self.enter(false)?;
        let b = self.bytes;
        let seq = b[at] == b'[';
        let (open, close, closing) = if seq {
            (
                Event::SequenceStart(StructureStyle::Flow, 0, None),
                b']',
                Event::SequenceEnd,
            )
        } else {
            (
                Event::MappingStart(StructureStyle::Flow, 0, None),
                b'}',
                Event::MappingEnd,
            )
        };
        self.push(open, at, at + 1)?;
        let mut i = self.skip_spaces(at + 1);
        if i < self.end && b[i] == close {
            self.push(closing, i, i + 1)?;
            self.depth -= 1;
            return Ok(i + 1);
        }
        loop {
            if !seq {
                let key = i;
                i = self.flow_scalar(i)?;
                // granit's 1024-character limit on implicit keys holds in flow too.
                if !(i + 1 < self.end && b[i] == b':' && b[i + 1] == b' ') || i - key > 1024 {
                    return Err(unsupported());
                }
                i = self.skip_spaces(i + 1);
            }
            i = self.flow_item(i)?;
            i = self.skip_spaces(i);
            match b.get(i) {
                Some(b',') if i < self.end => {
                    i = self.skip_spaces(i + 1);
                    if i < self.end && b[i] == close {
                        // A trailing comma.
                        return Err(unsupported());
                    }
                }
                Some(&c) if c == close && i < self.end => {
                    self.push(closing, i, i + 1)?;
                    self.depth -= 1;
                    return Ok(i + 1);
                }
                _ => return Err(unsupported()),
            }
        }
    }

    fn flow_item(&mut self, at: usize) -> Fast<usize> {
        match self.bytes.get(at) {
            Some(b'[' | b'{') if at < self.end => self.flow(at),
            _ => {
                let end = self.flow_scalar(at)?;
                if self.bytes.get(end) == Some(&b':') {
                    // A key inside a flow sequence, or `a: b: c`.
                    return Err(unsupported());
                }
                Ok(end)
            }
        }
    }

    /// A plain or quoted scalar inside a flow collection: pushes it, returns its end.
    fn flow_scalar(&mut self, at: usize) -> Fast<usize> {
        let b = self.bytes;
        if at >= self.end {
            return Err(unsupported());
        }
        if matches!(b[at], b'"' | b'\'') {
            let (value, end) = self.quoted(at, None)?;
            self.push(scalar(value, quote_style(b[at])), at, end)?;
            return Ok(end);
        }
        if !starts_plain(b[at], b.get(at + 1).copied()) {
            return Err(unsupported());
        }
        let mut i = at;
        while i < self.end {
            match b[i] {
                b'\n' | b',' | b']' | b'}' => break,
                b'[' | b'{' | b'\t' => return Err(unsupported()),
                b':' if i + 1 >= self.end
                    || matches!(b[i + 1], b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}') =>
                {
                    break
                }
                b'#' if b[i - 1] == b' ' => break,
                _ => i += 1,
            }
        }
        while i > at && b[i - 1] == b' ' {
            i -= 1;
        }
        let text = &self.src[at..i];
        self.push(scalar(Cow::Borrowed(text), ScalarStyle::Plain), at, i)?;
        Ok(i)
    }
}

/// A double-quoted escape after its `\`: the character and the bytes it takes.
fn escape(rest: &[u8]) -> Fast<(char, usize)> {
    let simple = match rest.first().ok_or_else(unsupported)? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(rest, 2),
        b'u' => return hex(rest, 4),
        b'U' => return hex(rest, 8),
        _ => return Err(unsupported()),
    };
    Ok((simple, 1))
}

fn hex(rest: &[u8], digits: usize) -> Fast<(char, usize)> {
    let code = rest.get(1..=digits).ok_or_else(unsupported)?;
    if !code.iter().all(u8::is_ascii_hexdigit) {
        return Err(unsupported());
    }
    let text = std::str::from_utf8(code).map_err(|_| unsupported())?;
    let value = u32::from_str_radix(text, 16).map_err(|_| unsupported())?;
    let c = char::from_u32(value).ok_or_else(unsupported)?;
    Ok((c, 1 + digits))
}

/// Where a block scalar's content starts: its chomping, first content line, indentation
/// and the blank lines before it.
struct BlockStart {
    chomp: Chomp,
    first: usize,
    indent: usize,
    leading: usize,
}
