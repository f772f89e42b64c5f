//! A fast path for the block-style YAML that manifests are written in (README, "Performance").
//!
//! granit-parser is general and careful, and most of a large stream's run was spent in it.
//! Nearly every manifest uses a small part of YAML: block mappings and sequences, plain and
//! quoted scalars (over several lines too), literal and folded block scalars, one-line flow
//! collections, comments and `---` lines. This parser reads one document of that subset
//! and sends the tree builder the very events, with the same offsets, that granit produces
//! for it. At anything else (a tag, an anchor, a directive, a tab in the structure, a
//! control character, an error...) it gives up on the document: the builder forgets what
//! it was sent of it, and granit parses it. The fast path never decides what a document
//! means when it is unsure, and never reports an error. The `fast` fuzz target and the
//! tests check that a stream loads the same with it and with granit alone.

use std::borrow::Cow;

use granit_parser::{Event, Placement, ScalarStyle, StructureStyle};

mod printable;
mod scalars;
#[cfg(test)]
mod tests;

/// Receives the events of a document as they are read, with the byte offsets of their
/// source text (the tree builder). A document the fast path gives up on has sent some of
/// its events already: the sink forgets them ([`Doc::Unsupported`]).
pub(in crate::yaml) trait Sink<'s> {
    /// False: stop reading (the sink hit a limit).
    fn event(&mut self, event: Event<'s>, start: usize, end: usize) -> bool;
}

/// What reading one document gave.
#[derive(Debug, PartialEq)]
pub(in crate::yaml) enum Doc {
    /// Only comments (or nothing) before the end of the text.
    End,
    /// A document; the next one starts at `next` (a `---` line, or the end of the text).
    Parsed { next: usize },
    /// Outside the subset: granit must parse this document.
    Unsupported,
}

/// The document uses something the fast path does not read; where in this module that was
/// found (to see, when tuning, what sends documents to granit).
#[derive(Debug)]
pub(super) struct Unsupported(
    #[cfg_attr(not(test), allow(dead_code))] pub(super) &'static std::panic::Location<'static>,
);

#[track_caller]
pub(super) fn unsupported() -> Unsupported {
    Unsupported(std::panic::Location::caller())
}
pub(super) type Fast<T> = Result<T, Unsupported>;

/// Deeper documents go to granit (which also enforces the configured limit).
pub(in crate::yaml) const MAX_DEPTH: usize = 64;

/// Where the next line with content is.
#[derive(Clone, Copy, Debug)]
pub(super) enum Line {
    /// A token at byte `at`, in column `col` of its line.
    Content {
        at: usize,
        col: usize,
    },
    /// A `---` line starting at this byte.
    Marker(usize),
    Eof,
}

/// The context a node is read in.
#[derive(Clone, Copy)]
struct Place {
    /// Indentation of the enclosing block collection (`None` for the root).
    parent: Option<usize>,
    /// After `key: ` on the same line, where a block collection cannot start.
    after_key: bool,
}

pub(in crate::yaml) struct FastParser<'s, 'k> {
    src: &'s str,
    bytes: &'s [u8],
    /// End of the text the parser reads (a chunk of a split stream ends early).
    end: usize,
    sink: &'k mut dyn Sink<'s>,
    depth: usize,
    /// The document's root is a block collection.
    block_root: bool,
}

impl<'s, 'k> FastParser<'s, 'k> {
    pub(in crate::yaml) fn new(src: &'s str, end: usize, sink: &'k mut dyn Sink<'s>) -> Self {
        FastParser {
            src,
            bytes: src.as_bytes(),
            end: end.min(src.len()),
            sink,
            depth: 0,
            block_root: false,
        }
    }

    /// Read the document that starts at `at` (the start of the text, or of a `---` line)
    /// into the sink.
    pub(in crate::yaml) fn document(&mut self, at: usize) -> Doc {
        self.depth = 0;
        self.block_root = false;
        match self.read_document(at) {
            Ok(None) => Doc::End,
            Ok(Some(next)) => Doc::Parsed { next },
            Err(_) => Doc::Unsupported,
        }
    }

    /// Before a document ends: what was read, comments included, must hold only characters
    /// granit accepts.
    fn printable(&self, from: usize, to: usize) -> Fast<()> {
        if printable::all_printable(&self.src[from..to]) {
            Ok(())
        } else {
            Err(unsupported())
        }
    }

    fn read_document(&mut self, at: usize) -> Fast<Option<usize>> {
        let (first, col) = match self.skip_to_content(at)? {
            Line::Eof => {
                self.printable(at, self.end)?;
                return Ok(None);
            }
            Line::Marker(m) => {
                self.push(Event::DocumentStart(true, None), m, m + 3)?;
                let after = self.rest_of_line(m + 3)?;
                let next = match self.skip_to_content(after)? {
                    Line::Content { at, col } => Err((at, col)),
                    Line::Marker(next) => Ok(next),
                    Line::Eof => Ok(self.end),
                };
                match next {
                    Err(content) => content,
                    Ok(next) => {
                        // An empty document: granit places its null and its end after `---`.
                        self.printable(at, next)?;
                        self.push(null(), m + 3, m + 3)?;
                        self.push(Event::DocumentEnd, m + 3, m + 3)?;
                        return Ok(Some(next));
                    }
                }
            }
            // An implicit document only opens the stream, at the margin.
            Line::Content { at: first, col } => {
                if at != 0 || col != 0 || self.bytes[first] == b'%' {
                    return Err(unsupported());
                }
                self.push(Event::DocumentStart(false, None), first, first)?;
                (first, col)
            }
        };
        let root = Place {
            parent: None,
            after_key: false,
        };
        let after = self.node(first, col, root)?;
        // granit ends a document whose root is a scalar or a flow collection right after
        // it, and one whose root is a block collection at the next `---`: only the latter
        // are read here (the others are rare in manifests).
        if !self.block_root {
            return Err(unsupported());
        }
        let end = match after {
            Line::Marker(m) => m,
            Line::Eof => self.end,
            Line::Content { .. } => return Err(unsupported()),
        };
        self.printable(at, end)?;
        self.push(Event::DocumentEnd, end, end)?;
        Ok(Some(end))
    }

    fn push(&mut self, event: Event<'s>, start: usize, end: usize) -> Fast<()> {
        if self.sink.event(event, start, end) {
            Ok(())
        } else {
            Err(unsupported())
        }
    }

    /// Into a collection; a block one at the top is the document's root.
    fn enter(&mut self, block: bool) -> Fast<()> {
        if self.depth == 0 && block {
            self.block_root = true;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(unsupported());
        }
        Ok(())
    }

    /// From the start of a line, past blank and comment lines (pushing the comments).
    pub(super) fn skip_to_content(&mut self, mut p: usize) -> Fast<Line> {
        let b = self.bytes;
        loop {
            if p >= self.end {
                return Ok(Line::Eof);
            }
            let q = self.skip_spaces(p);
            if q >= self.end {
                return Err(unsupported());
            }
            match b[q] {
                b'\n' => p = q + 1,
                b'#' => p = self.comment(q)?,
                b'\t' => return Err(unsupported()),
                _ if q == p && self.starts_marker(p, b"---") => return Ok(Line::Marker(p)),
                _ if q == p && self.starts_marker(p, b"...") => return Err(unsupported()),
                _ => return Ok(Line::Content { at: q, col: q - p }),
            }
        }
    }

    fn starts_marker(&self, p: usize, marker: &[u8]) -> bool {
        self.bytes[p..self.end].starts_with(marker)
            && matches!(
                self.bytes.get(p + 3),
                None | Some(b' ' | b'\t' | b'\r' | b'\n')
            )
    }

    /// The comment at `at` (a `#`); returns the start of the next line.
    fn comment(&mut self, at: usize) -> Fast<usize> {
        let eol = self.line_end(at);
        let text = &self.src[at + 1..eol];
        self.push(
            Event::Comment(Cow::Borrowed(text), Placement::Free),
            at,
            eol,
        )?;
        Ok((eol + 1).min(self.end))
    }

    /// Past the spaces from `at`.
    pub(super) fn skip_spaces(&self, mut at: usize) -> usize {
        while at < self.end && self.bytes[at] == b' ' {
            at += 1;
        }
        at
    }

    /// End of the line `at` is on (its `\n`, or the end of the text).
    pub(super) fn line_end(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.bytes[at..self.end]).map_or(self.end, |n| at + n)
    }

    /// After a token: spaces, then a comment or the line's end. Returns the next line start.
    pub(super) fn rest_of_line(&mut self, from: usize) -> Fast<usize> {
        let p = self.skip_spaces(from);
        if p >= self.end {
            return Ok(self.end);
        }
        match self.bytes[p] {
            b'\n' => Ok(p + 1),
            b'#' if p > from => self.comment(p),
            _ => Err(unsupported()),
        }
    }

    /// Whether `at` holds a `-` that starts a block sequence entry.
    fn is_dash(&self, at: usize) -> bool {
        self.bytes[at] == b'-' && (at + 1 >= self.end || matches!(self.bytes[at + 1], b' ' | b'\n'))
    }

    /// Any node at `at` (column `col`); returns the next line with content after it.
    fn node(&mut self, at: usize, col: usize, place: Place) -> Fast<Line> {
        let b = self.bytes;
        match b[at] {
            b'-' if self.is_dash(at) => {
                if place.after_key {
                    return Err(unsupported());
                }
                self.sequence(at, col, false)
            }
            b'|' | b'>' => {
                let next = self.block_scalar(at, place.parent)?;
                self.skip_to_content(next)
            }
            b'[' | b'{' => {
                let after = self.flow(at)?;
                let next = self.rest_of_line(after)?;
                self.skip_to_content(next)
            }
            b'"' | b'\'' => {
                let (value, end) = self.quoted(at, place.parent)?;
                if self.is_colon(end) {
                    if place.after_key {
                        return Err(unsupported());
                    }
                    return self.mapping(at, col);
                }
                self.push(scalar(value, quote_style(b[at])), at, end)?;
                let next = self.rest_of_line(end)?;
                self.skip_to_content(next)
            }
            c if starts_plain(c, b.get(at + 1).copied()) => {
                let plain = self.plain(at)?;
                if plain.colon {
                    if place.after_key {
                        return Err(unsupported());
                    }
                    return self.mapping(at, col);
                }
                let (value, end, next) = self.plain_lines(at, plain, place.parent)?;
                self.push(scalar(value, ScalarStyle::Plain), at, end)?;
                self.skip_to_content(next)
            }
            _ => Err(unsupported()),
        }
    }

    /// `:` at `at`, followed by a space or the line's end: a key ends before it.
    fn is_colon(&self, at: usize) -> bool {
        at < self.end
            && self.bytes[at] == b':'
            && matches!(self.bytes.get(at + 1), None | Some(b' ' | b'\n'))
    }

    /// Where the value after an indicator ending at `after` (a key's `:`, an entry's `-`)
    /// starts on the same line; `None` when only a comment or the line's end follows.
    fn inline_value(&self, after: usize) -> Option<usize> {
        let v = self.skip_spaces(after);
        (v < self.end && !matches!(self.bytes[v], b'\n' | b'#')).then_some(v)
    }

    /// The value of an entry of a collection indented `indent` whose indicator ended its
    /// line at `after`: `Ok` with the line after it when the next line with content is
    /// indented more (the value is there), else `Err` with that line.
    fn value_below(&mut self, after: usize, indent: usize) -> Fast<Result<Line, Line>> {
        let next_line = self.rest_of_line(after)?;
        match self.skip_to_content(next_line)? {
            Line::Content { at, col } if col > indent => {
                let place = Place {
                    parent: Some(indent),
                    after_key: false,
                };
                Ok(Ok(self.node(at, col, place)?))
            }
            line => Ok(Err(line)),
        }
    }

    /// A block mapping whose first key is at `at`, in column `indent`.
    fn mapping(&mut self, at: usize, indent: usize) -> Fast<Line> {
        self.enter(true)?;
        self.push(Event::MappingStart(StructureStyle::Block, 0, None), at, at)?;
        let mut key = at;
        loop {
            let colon = self.key(key)?;
            let next = match self.inline_value(colon + 1) {
                Some(v) => {
                    let place = Place {
                        parent: Some(indent),
                        after_key: true,
                    };
                    self.node(v, indent + (v - key), place)?
                }
                None => match self.value_below(colon + 1, indent)? {
                    Ok(next) => next,
                    Err(Line::Content { at, col }) if col == indent && self.is_dash(at) => {
                        self.sequence(at, col, true)?
                    }
                    Err(line) => {
                        // granit places an omitted value at its key's colon.
                        self.push(null(), colon, colon)?;
                        line
                    }
                },
            };
            match next {
                Line::Content { at, col } if col == indent && !self.is_dash(at) => key = at,
                Line::Content { col, .. } if col >= indent => return Err(unsupported()),
                line => return self.close(Event::MappingEnd, line),
            }
        }
    }

    /// A key at `at` and its `:`: pushes the key, returns the colon's offset.
    fn key(&mut self, at: usize) -> Fast<usize> {
        let colon = self.key_and_colon(at)?;
        // YAML caps an implicit key at 1024 characters; granit decides about longer ones.
        if colon - at > 1024 {
            return Err(unsupported());
        }
        Ok(colon)
    }

    fn key_and_colon(&mut self, at: usize) -> Fast<usize> {
        let b = self.bytes;
        match b[at] {
            b'"' | b'\'' => {
                let (value, end) = self.quoted(at, None)?;
                if !self.is_colon(end) {
                    return Err(unsupported());
                }
                self.push(scalar(value, quote_style(b[at])), at, end)?;
                Ok(end)
            }
            c if starts_plain(c, b.get(at + 1).copied()) && !self.is_dash(at) => {
                let plain = self.plain(at)?;
                if !plain.colon {
                    return Err(unsupported());
                }
                let text = &self.src[at..plain.text_end];
                self.push(
                    scalar(Cow::Borrowed(text), ScalarStyle::Plain),
                    at,
                    plain.text_end,
                )?;
                Ok(plain.stop)
            }
            _ => Err(unsupported()),
        }
    }

    /// A block sequence whose first `-` is at `at`, in column `indent`. An indentless one
    /// (`key:` then `- item` at the key's column) ends at the next line without a `-`.
    fn sequence(&mut self, at: usize, indent: usize, indentless: bool) -> Fast<Line> {
        self.enter(true)?;
        let mut dash = at;
        let mut first = true;
        loop {
            let inline = self.inline_value(dash + 1);
            if first {
                // granit starts an indentless sequence at its first entry's content.
                let start = match (indentless, inline) {
                    (false, _) => dash,
                    (true, Some(v)) => v,
                    (true, None) => return Err(unsupported()),
                };
                self.push(
                    Event::SequenceStart(StructureStyle::Block, 0, None),
                    start,
                    start,
                )?;
                first = false;
            }
            let next = match inline {
                Some(v) => {
                    let place = Place {
                        parent: Some(indent),
                        after_key: false,
                    };
                    self.node(v, indent + (v - dash), place)?
                }
                None => match self.value_below(dash + 1, indent)? {
                    Ok(next) => next,
                    Err(line) => {
                        // granit places an empty entry at the end of its `-` line.
                        let eol = self.line_end(dash);
                        self.push(null(), eol, eol)?;
                        line
                    }
                },
            };
            match next {
                Line::Content { at, col } if col == indent && self.is_dash(at) => dash = at,
                Line::Content { col, .. } if col == indent && indentless => {
                    return self.close(Event::SequenceEnd, next)
                }
                Line::Content { col, .. } if col >= indent => return Err(unsupported()),
                line => return self.close(Event::SequenceEnd, line),
            }
        }
    }

    /// Close a block collection where the next token (or the end) is.
    fn close(&mut self, event: Event<'s>, next: Line) -> Fast<Line> {
        let at = match next {
            Line::Content { at, .. } | Line::Marker(at) => at,
            Line::Eof => self.end,
        };
        self.push(event, at, at)?;
        self.depth -= 1;
        Ok(next)
    }
}

/// granit's null for an omitted value.
fn null<'s>() -> Event<'s> {
    scalar(Cow::Borrowed("~"), ScalarStyle::Plain)
}

fn scalar(value: Cow<'_, str>, style: ScalarStyle) -> Event<'_> {
    Event::Scalar(value, style, 0, None)
}

fn quote_style(quote: u8) -> ScalarStyle {
    if quote == b'"' {
        ScalarStyle::DoubleQuoted
    } else {
        ScalarStyle::SingleQuoted
    }
}

/// Whether a plain scalar may start with `c` (followed by `next`) in the fast subset: no
/// indicator, and `-` only when it is not an entry (`-1`, `--flag`).
fn starts_plain(c: u8, next: Option<u8>) -> bool {
    match c {
        // granit also rejects `-` before a flow indicator.
        b'-' => !matches!(
            next,
            None | Some(b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}')
        ),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' | b'\t' | b'\n' | b'\r' => false,
        _ => true,
    }
}
