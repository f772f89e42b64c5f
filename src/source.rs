//! Source files as read by the walk, shared by every later stage.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use compact_str::CompactString;
use serde::Serialize;

/// A position in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in Unicode scalar values (chars) from the line start.
    pub column: u32,
    /// 0-based byte offset into the (BOM-stripped) source text.
    pub offset: usize,
}

/// A half-open source range `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl Span {
    pub(crate) fn len(&self) -> usize {
        self.end.offset.saturating_sub(self.start.offset)
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The source text the span covers.
    pub(crate) fn slice<'s>(&self, source: &'s str) -> &'s str {
        source.get(self.start.offset..self.end.offset).unwrap_or("")
    }
}

/// Identity of the Kubernetes object a diagnostic is about. Its parts are nearly always
/// under 24 bytes, and then live inline, with no allocation each.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectRef {
    pub api_version: CompactString,
    pub kind: CompactString,
    pub namespace: Option<CompactString>,
    pub name: CompactString,
}

impl Serialize for ObjectRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut out = serializer.serialize_struct("ObjectRef", 4)?;
        out.serialize_field("apiVersion", self.api_version.as_str())?;
        out.serialize_field("kind", self.kind.as_str())?;
        out.serialize_field("namespace", &self.namespace.as_deref())?;
        out.serialize_field("name", self.name.as_str())?;
        out.end()
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{}/{}", self.kind, ns, self.name),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

/// A place in a file: `file` is the path as shown to the user (relative, `/`-separated).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: Arc<str>,
    pub span: Span,
}

/// One input file's text (BOM stripped, otherwise as on disk).
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    /// Path as shown to the user: relative to the working directory when possible, `/`-separated.
    pub path: Arc<str>,
    pub text: String,
    /// The line index, built on the first [`SourceFile::pos_at`]; leave it empty
    /// (`Default::default()`, or use [`SourceFile::new`]).
    lines: OnceLock<LineIndex>,
}

/// Texts by displayed path, for reporters that print snippets.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: BTreeMap<Arc<str>, Arc<SourceFile>>,
}

impl SourceMap {
    pub(crate) fn insert(&mut self, file: Arc<SourceFile>) {
        self.files.insert(file.path.clone(), file);
    }

    pub(crate) fn get(&self, path: &str) -> Option<&Arc<SourceFile>> {
        self.files.get(path)
    }
}

impl SourceFile {
    pub(crate) fn new(path: impl Into<Arc<str>>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            path: path.into(),
            text: text.into(),
            lines: OnceLock::new(),
        }
    }

    /// The file's line index, built once on first use: every later position lookup and
    /// snippet is a binary search, never a rescan.
    pub(crate) fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Line and column (1-based, column in chars) of a byte offset. O(log lines), plus up
    /// to a KB of counting on a long non-ASCII line: every node's position is worked out
    /// here when asked, and a stream can hold hundreds of thousands of findings.
    pub(crate) fn pos_at(&self, offset: usize) -> Pos {
        self.lines().pos(&self.text, offset)
    }
}

/// Where each line of a text starts, and which lines are ASCII: the one line index every
/// stage uses (the YAML loader, rule positions, snippets, SARIF columns, profile and config
/// errors), so a position means the same everywhere. A line ends at `\r\n`, `\n` or a lone
/// `\r`, as in YAML and SARIF.
#[derive(Clone, Debug, Default)]
pub(crate) struct LineIndex {
    /// Byte offset of each line start, as u32: a 50 MB stream has a million lines, and
    /// files over 4 GiB are refused (`--max-file-size`).
    starts: Vec<u32>,
    /// One bit a line: all ASCII (its columns are byte counts).
    ascii: Vec<u64>,
    /// On long non-ASCII lines, (byte offset, 0-based column) every [`CHECKPOINT_STRIDE`]
    /// bytes or so, in offset order: a column is counted from the nearest one, so a
    /// position on a 50 MB minified JSON line costs a KB of counting at most, not the line.
    checkpoints: Vec<(u32, u32)>,
}

/// Bytes between column checkpoints on a long non-ASCII line.
const CHECKPOINT_STRIDE: usize = 1024;

/// Where each line of `bytes` starts: after each `\n`, and after each `\r` not followed
/// by one. memchr searches for one byte several times faster than for two, and lone `\r`
/// are rare, so they are found apart and merged in.
fn line_starts(bytes: &[u8]) -> Vec<u32> {
    let at = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
    let lone_cr: Vec<u32> = memchr::memchr_iter(b'\r', bytes)
        .filter(|&i| bytes.get(i + 1) != Some(&b'\n'))
        .map(|i| at(i + 1))
        .collect();
    // Sized once: a second pass of memchr costs less than growing a million entries.
    let breaks = memchr::memchr_iter(b'\n', bytes).count() + lone_cr.len();
    let mut starts = Vec::with_capacity(breaks + 1);
    starts.push(0);
    let after_lf = memchr::memchr_iter(b'\n', bytes).map(|i| at(i + 1));
    if lone_cr.is_empty() {
        starts.extend(after_lf);
        return starts;
    }
    let mut lone_cr = lone_cr.into_iter().peekable();
    for start in after_lf {
        while let Some(cr) = lone_cr.next_if(|&cr| cr < start) {
            starts.push(cr);
        }
        starts.push(start);
    }
    starts.extend(lone_cr);
    starts
}

/// Offset of the first byte over 0x7f: a block at a time by the standard library's word
/// test, then the byte in the block that has one (a byte-wise fold was 3 instructions a
/// byte, the line index's largest cost).
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut base = 0;
    for block in bytes.chunks(256) {
        if !block.is_ascii() {
            return block.iter().position(|&b| b >= 0x80).map(|i| base + i);
        }
        base += block.len();
    }
    None
}

/// Chars in UTF-8 `bytes` (that start and end on char boundaries).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Checkpoints of the non-ASCII line `start..end` of `text`, appended to `out`.
fn add_checkpoints(text: &str, start: usize, end: usize, out: &mut Vec<(u32, u32)>) {
    let (mut at, mut column) = (start, 0);
    while at + CHECKPOINT_STRIDE < end {
        let next = char_floor(text, at + CHECKPOINT_STRIDE);
        if next <= at {
            break;
        }
        column += count_chars(&text.as_bytes()[at..next]);
        at = next;
        out.push((
            u32::try_from(at).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        ));
    }
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let starts = line_starts(bytes);
        // Every line ASCII, then each line holding a byte over 0x7f is cleared: most
        // manifests have few, and the search for them runs a word at a time.
        let lines = starts.len();
        let mut ascii = vec![u64::MAX; lines.div_ceil(64)];
        let mut checkpoints = Vec::new();
        let mut from = 0;
        while let Some(found) = first_non_ascii(&bytes[from..]) {
            let at = from + found;
            let line = starts.partition_point(|&s| s as usize <= at) - 1;
            ascii[line / 64] &= !(1 << (line % 64));
            let start = starts[line] as usize;
            let end = starts.get(line + 1).map_or(bytes.len(), |&s| s as usize);
            if end - start > CHECKPOINT_STRIDE {
                add_checkpoints(text, start, end, &mut checkpoints);
            }
            from = end;
        }
        LineIndex {
            starts,
            ascii,
            checkpoints,
        }
    }

    /// Byte offset of the start of 0-based `line`: 0, then one past every line break.
    pub(crate) fn start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).map(|&s| s as usize)
    }

    /// How many lines (one more than line breaks).
    pub(crate) fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s as usize <= offset)
            .saturating_sub(1)
    }

    /// Whether the 0-based `line` is all ASCII (its columns are byte counts).
    pub(crate) fn is_ascii(&self, line: usize) -> bool {
        line < self.starts.len()
            && self
                .ascii
                .get(line / 64)
                .is_some_and(|word| word >> (line % 64) & 1 == 1)
    }

    /// Where to count a column from: the last checkpoint at or before `offset` on the line
    /// starting at `line_start`, else the line start (byte offset, 0-based column).
    fn counted_before(&self, line_start: usize, offset: usize) -> (usize, usize) {
        let nearest = self
            .checkpoints
            .partition_point(|&(at, _)| at as usize <= offset)
            .checked_sub(1)
            .map(|i| self.checkpoints[i])
            .filter(|&(at, _)| at as usize >= line_start);
        nearest.map_or((line_start, 0), |(at, column)| {
            (at as usize, column as usize)
        })
    }

    /// Line and column (1-based, column in chars) of byte `offset` in `text` (the text this
    /// index was built from), clamped to the text and snapped to a char boundary.
    pub(crate) fn pos(&self, text: &str, offset: usize) -> Pos {
        let offset = char_floor(text, offset);
        let line = self.line_of(offset);
        let start = self.start(line).unwrap_or(0);
        let column = if self.is_ascii(line) {
            offset - start
        } else {
            let (from, column) = self.counted_before(start, offset);
            column + count_chars(&text.as_bytes()[from..offset])
        };
        Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
            offset,
        }
    }
}

/// `offset` clamped to `text` and moved back to a char boundary.
pub(crate) fn char_floor(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Start of the line holding byte `offset`, for one-off lookups that do not warrant a
/// [`LineIndex`]; same line breaks (`\r\n`, `\n`, lone `\r`).
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    let offset = char_floor(text, offset);
    let Some(i) = text[..offset].rfind(['\n', '\r']) else {
        return 0;
    };
    let bytes = text.as_bytes();
    if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
        // `offset` is on the `\n` of a `\r\n` (a later `\n` would have been found first):
        // still the line that break ends.
        return line_start(text, i);
    }
    i + 1
}

/// How many line breaks (`\r\n`, `\n`, lone `\r`) `bytes` holds: the 0-based line of the
/// byte after them, for text that is not (yet) valid UTF-8.
pub(crate) fn line_breaks(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line starts and ASCII lines, the slow way: YAML's and SARIF's line breaks.
    fn naive(text: &str) -> (Vec<usize>, Vec<bool>) {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 2;
                    continue;
                }
                b'\r' | b'\n' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        let ascii = (0..starts.len())
            .map(|l| {
                let end = starts.get(l + 1).copied().unwrap_or(bytes.len());
                bytes[starts[l]..end].is_ascii()
            })
            .collect();
        (starts, ascii)
    }

    /// Every mix of line breaks and non-ASCII text gives the lines the slow way gives.
    #[test]
    fn line_starts_and_ascii_lines_match_a_byte_by_byte_scan() {
        let pieces = [
            "a", "\n", "\r", "\r\n", "\u{e9}", "\u{4e2d}", "bc", "\n\n", "\r\r",
        ];
        // A fixed pseudo-random sequence: the same texts on every run.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for round in 0..2000 {
            let mut text = String::new();
            for _ in 0..(round % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            // Long lines too, past the 32-byte blocks of the non-ASCII search.
            if round % 7 == 0 {
                text.push_str(&"x".repeat(70));
                text.push('\u{e9}');
            }
            let index = LineIndex::new(&text);
            let (starts, ascii) = naive(&text);
            let got: Vec<usize> = (0..index.line_count())
                .map(|l| index.start(l).unwrap())
                .collect();
            assert_eq!(got, starts, "{text:?}");
            let got: Vec<bool> = (0..index.line_count()).map(|l| index.is_ascii(l)).collect();
            assert_eq!(got, ascii, "{text:?}");
        }
    }

    /// A position on a long non-ASCII line (minified JSON) counts its column from a
    /// checkpoint at most one stride back, and gets the same column as counting the line.
    #[test]
    fn columns_on_long_non_ascii_lines_count_from_a_near_checkpoint() {
        // Multi-byte chars of every width straddle the strides; a second long line and a
        // short one follow, so no checkpoint is used across lines.
        let long: String = "ab\u{e9}c\u{4e2d}d\u{1f600}".repeat(3000);
        let text = format!("{long}\n{long}\nshort \u{e9}\nend");
        let index = LineIndex::new(&text);
        assert!(index.checkpoints.len() > 2 * long.len() / CHECKPOINT_STRIDE - 4);
        let second = long.len() + 1;
        let mut checked = 0;
        for offset in (0..text.len())
            .step_by(37)
            .chain([second, second + 1, text.len()])
        {
            let offset = char_floor(&text, offset);
            let line = index.line_of(offset);
            let start = index.start(line).unwrap();
            let naive = text[start..offset].chars().count() + 1;
            assert_eq!(
                index.pos(&text, offset).column as usize,
                naive,
                "at {offset}"
            );
            let (from, _) = index.counted_before(start, offset);
            assert!(
                from >= start && offset - from <= CHECKPOINT_STRIDE + 4,
                "at {offset}"
            );
            checked += 1;
        }
        assert!(checked > 1000);
    }

    #[test]
    fn lone_cr_crlf_and_lf_all_end_lines() {
        let text = "a\rb\r\nc\nd\u{e9}\re";
        let index = LineIndex::new(text);
        let starts: Vec<_> = (0..index.line_count())
            .filter_map(|l| index.start(l))
            .collect();
        assert_eq!(starts, [0, 2, 5, 7, 11]);
        let at = |offset| {
            let p = index.pos(text, offset);
            (p.line, p.column)
        };
        assert_eq!(at(0), (1, 1));
        assert_eq!(at(2), (2, 1));
        assert_eq!(at(3), (2, 2), "the CR of a CRLF is on its line");
        assert_eq!(at(4), (2, 3), "so is its LF");
        assert_eq!(at(5), (3, 1));
        assert_eq!(
            at(10),
            (4, 3),
            "columns count chars: the e-acute is one of two bytes"
        );
        assert_eq!(at(11), (5, 1));
        assert_eq!(at(99), (5, 2), "clamped to the end");
        assert_eq!(line_breaks(text.as_bytes()), 4);
        for offset in 0..=text.len() {
            if text.is_char_boundary(offset) {
                let line = index.line_of(offset);
                assert_eq!(
                    line_start(text, offset),
                    index.start(line).unwrap(),
                    "offset {offset}"
                );
            }
        }
    }

    #[test]
    fn a_source_file_and_the_loader_agree_on_positions() {
        let text = "kind: Service\rmetadata:\r  name: caf\u{e9}\r\n  namespace: x\n";
        let loaded = crate::yaml::load(text, &crate::yaml::Limits::default());
        let file = SourceFile::new("m.yaml", text);
        let root = loaded.documents[0].root().expect("a root");
        let namespace = root.path(&["metadata", "namespace"]).expect("namespace");
        let span = namespace.span();
        assert_eq!((span.start.line, span.start.column), (4, 14));
        assert_eq!(file.pos_at(span.start.offset), span.start);
    }

    #[test]
    fn ascii_lines_are_told_apart_across_many_lines() {
        // 200 lines, every seventh with a two-byte char before `x`: the bits of the ascii
        // set span four words.
        let text: String = (0..200)
            .map(|i| if i % 7 == 0 { "éx\n" } else { "ax\n" })
            .collect();
        let index = LineIndex::new(&text);
        for line in 0..200 {
            assert_eq!(index.is_ascii(line), line % 7 != 0, "line {line}");
            let x = index.start(line).unwrap() + if line % 7 == 0 { 2 } else { 1 };
            assert_eq!(index.pos(&text, x).column, 2, "line {line}");
        }
        assert!(index.is_ascii(200), "the empty last line");
        assert!(!index.is_ascii(201));
    }
}
