//! granit-parser events → [`Document`] trees, with located syntax errors.
//!
//! The tree is built from the flat event stream with an explicit stack, so input nesting
//! depth never becomes Rust recursion. Positions come from granit's byte offsets and our own
//! line index (granit's char index is not a byte offset).

use std::collections::HashMap;

use granit_parser::{ErrorKind, Event, Options, Parser, ScalarStyle, ScanError, Tag};

use super::merge::{self, TooComplex};
use super::resolve::resolve_plain;
use super::tree::{Comment, Document, Entry, Node, NodeId, NodeKind, Resolved, Scalar, Style};
use super::{Pos, Span};

/// Bounds that keep hostile input cheap.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum nesting of collections.
    pub max_depth: usize,
    /// Maximum number of nodes in one file (all documents).
    pub max_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_nodes: 20_000_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// A key written twice in one mapping. Kubernetes (go-yaml v2) keeps the last value.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicateKey {
    /// Index into [`LoadedFile::documents`].
    pub document: usize,
    pub key: String,
    /// The earlier occurrence, whose value is discarded.
    pub first: Span,
    /// The later occurrence, whose value wins.
    pub second: Span,
}

/// Everything read from one file.
#[derive(Clone, Debug, Default)]
pub struct LoadedFile {
    /// Documents that parsed completely, in stream order.
    pub documents: Vec<Document>,
    /// Syntax errors; each abandons the document it is in, loading resumes at the next `---`.
    pub errors: Vec<SyntaxError>,
    /// Every comment in the file, in source order.
    pub comments: Vec<Comment>,
    /// Keys repeated within one mapping, in the documents that parsed, in source order.
    pub duplicate_keys: Vec<DuplicateKey>,
    /// Documents that parsed but are not kept: their aliases or merge keys expand too far
    /// (Kubernetes rejects them, or resolving them is over lblint's budget).
    pub too_complex: Vec<TooComplex>,
}

/// Check a finished document's alias expansion and index its merge keys (inline merges,
/// `<<: {a: 1}`, need no alias).
fn resolve_aliases(
    mut doc: Document,
    has_alias: bool,
    may_merge: bool,
) -> Result<Document, TooComplex> {
    if has_alias {
        if let Some(too_complex) = merge::check_aliasing(&doc) {
            return Err(too_complex);
        }
    }
    if may_merge {
        let budget = merge::merge_budget(&doc);
        merge::index_merges(&mut doc, budget)?;
    }
    Ok(doc)
}

/// After this many errors the file is hopeless; stop instead of reporting noise.
const MAX_ERRORS: usize = 100;

/// Parse a YAML stream (BOM already stripped). Never panics.
pub fn load(source: &str, limits: &Limits) -> LoadedFile {
    load_with(source, limits, &mut |doc| doc)
}

/// Like [`load`], handing each document to `finish` as soon as it is complete, so a caller
/// can slim it (or keep what it needs) before the next one is parsed: memory then follows
/// what is kept, not the whole stream.
pub fn load_with(
    source: &str,
    limits: &Limits,
    finish: &mut dyn FnMut(Document) -> Document,
) -> LoadedFile {
    let mut builder = Builder {
        finish_document: finish,
        source,
        limits,
        lines: LineIndex::new(source),
        out: LoadedFile::default(),
        doc: None,
        doc_count: 0,
        total_nodes: 0,
        last_node_end: 0,
        last_event_end: 0,
        comment_floors: Vec::new(),
    };
    builder.run();
    builder.finish()
}

/// Converts byte offsets to line/column. Columns count chars, so non-ASCII lines need a
/// scan; a cursor makes the mostly-increasing offsets of one long line (minified JSON) linear.
struct LineIndex<'s> {
    source: &'s str,
    /// Byte offset of each line start. `\r\n`, `\n` and a lone `\r` end a line, as in YAML.
    starts: Vec<usize>,
    ascii: Vec<bool>,
    /// (line, byte offset, 0-based column) of the last non-ASCII lookup.
    cursor: (usize, usize, usize),
}

impl<'s> LineIndex<'s> {
    fn new(source: &'s str) -> Self {
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

    fn pos(&mut self, offset: usize) -> Pos {
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

    fn span(&mut self, start: usize, end: usize) -> Span {
        Span {
            start: self.pos(start),
            end: self.pos(end.max(start)),
        }
    }

    /// Byte offset for a granit marker: its byte offset, else from its line and char column.
    fn marker_offset(&self, m: &granit_parser::Marker) -> usize {
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

enum FrameKind {
    Seq,
    Map { pending_key: Option<NodeId> },
}

/// An open collection.
struct Frame {
    id: NodeId,
    kind: FrameKind,
    flow: bool,
    /// End of the last non-empty child, which is where a block collection ends.
    last_end: usize,
}

struct DocState {
    doc: Document,
    stack: Vec<Frame>,
    /// granit anchor id → node, for this document only (anchors do not cross documents).
    anchors: HashMap<usize, NodeId>,
    /// Comments before this document's root must start at or after this offset.
    comment_floor: usize,
    /// Repeated keys found so far; kept only if the document completes.
    duplicates: Vec<DuplicateKey>,
    /// An alias was seen: the document's expansion must be checked.
    has_alias: bool,
    /// A plain `<<` scalar was seen: the document may have merge keys to index.
    may_merge: bool,
}

struct Builder<'s, 'l, 'f> {
    /// Receives each completed document (see [`load_with`]).
    finish_document: &'f mut dyn FnMut(Document) -> Document,
    source: &'s str,
    limits: &'l Limits,
    lines: LineIndex<'s>,
    out: LoadedFile,
    doc: Option<DocState>,
    doc_count: usize,
    total_nodes: usize,
    /// End of the last node built (any document, even an abandoned one).
    last_node_end: usize,
    /// End of the last content event, where scanning for a block scalar indicator starts.
    last_event_end: usize,
    /// `DocState::comment_floor` of each entry of `out.documents`.
    comment_floors: Vec<usize>,
}

/// Why the tree builder stopped a document early.
enum Abort {
    /// Skip to the next document.
    Document(SyntaxError),
    /// Stop reading the file.
    File(SyntaxError),
}

impl Builder<'_, '_, '_> {
    fn options(&self) -> Options {
        let mut o = Options::default();
        o.emit_comments = true;
        o.emit_anchor_events = true;
        // The default (96) turns a long commented-out block between entries into a syntax
        // error. Buffered comments are bounded by the input itself, so don't cap them.
        o.max_buffered_comment_events = usize::MAX;
        // One more than our own limit so our clearer "nesting too deep" error fires first.
        let granit_limit = self.limits.max_depth.saturating_add(1);
        o.block_nesting_limit = granit_limit;
        o.flow_nesting_limit = granit_limit;
        o
    }

    fn run(&mut self) {
        let mut parser = Parser::new_from_str_with_options(self.source, self.options());
        loop {
            if self.out.errors.len() >= MAX_ERRORS {
                return;
            }
            let abort = match parser.next_event() {
                None => return,
                Some(Ok((event, span))) => match self.event(event, span) {
                    Ok(()) => continue,
                    Err(abort) => abort,
                },
                Some(Err(err)) => Abort::Document(self.scan_error(&err)),
            };
            self.doc = None;
            match abort {
                Abort::File(e) => {
                    self.out.errors.push(e);
                    return;
                }
                Abort::Document(e) => {
                    self.out.errors.push(e);
                    if let Err(err) = parser.proceed_next_document() {
                        // Only input failures or comment-buffer overflow get here.
                        let e = self.scan_error(&err);
                        self.out.errors.push(e);
                        return;
                    }
                }
            }
        }
    }

    fn finish(mut self) -> LoadedFile {
        // granit may buffer comments; keep the documented source order.
        self.out.comments.sort_by_key(|c| c.span.start.offset);
        // Leading comments: after the previous document's last node (or what an earlier
        // empty document claimed), before the root. An empty document (a Helm template that
        // rendered to nothing) claims everything up to the next document.
        let mut claimed = 0;
        for i in 0..self.out.documents.len() {
            let doc = &self.out.documents[i];
            let ceiling = match doc.root {
                Some(root) => doc.nodes[root.0 as usize].span.start.offset,
                None => self
                    .out
                    .documents
                    .get(i + 1)
                    .map_or(self.source.len(), |next| next.span.start.offset),
            };
            let floor = self.comment_floors[i].max(claimed);
            // Comments are sorted: binary search keeps many-document files linear-ish.
            let comments = &self.out.comments;
            let first = comments.partition_point(|c| c.span.start.offset < floor);
            let leading = comments[first..]
                .iter()
                .take_while(|c| c.span.end.offset <= ceiling)
                .cloned()
                .collect();
            self.out.documents[i].leading_comments = leading;
            claimed = ceiling;
        }
        self.out
    }

    fn scan_error(&mut self, err: &ScanError) -> SyntaxError {
        let off = self.lines.marker_offset(err.marker());
        let mut message = err.info();
        let mut end = next_char_end(self.source, off);
        if matches!(err.kind(), ErrorKind::UnknownAnchor) {
            // granit only says "found unknown anchor"; name the alias.
            let rest = self.source.get(off..).unwrap_or("");
            if let Some(name) = rest.strip_prefix('*') {
                let len = name
                    .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                    .unwrap_or(name.len());
                let name = &name[..len];
                message = format!(
                    "unknown alias `*{name}`: no anchor `&{name}` before it in this document"
                );
                end = off + 1 + len;
            }
        } else if matches!(err.kind(), ErrorKind::RecursionLimitExceeded) {
            message = self.too_deep_message();
        }
        SyntaxError {
            span: self.lines.span(off, end),
            message,
        }
    }

    fn too_deep_message(&self) -> String {
        format!(
            "nesting too deep: more than {} nested collections",
            self.limits.max_depth
        )
    }

    fn error_at(&mut self, start: usize, end: usize, message: String) -> SyntaxError {
        SyntaxError {
            span: self.lines.span(start, end),
            message,
        }
    }

    fn event(&mut self, event: Event<'_>, span: granit_parser::Span) -> Result<(), Abort> {
        let start = self.lines.marker_offset(&span.start);
        let end = self.lines.marker_offset(&span.end).max(start);
        let prev_end = self.last_event_end;
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            // Comments and anchors are not tokens before content (see `scalar_extent`).
            Event::Comment(..) | Event::Anchor(..) => {}
            _ => self.last_event_end = self.last_event_end.max(end),
        }
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(..) => {
                let index = self.doc_count;
                self.doc_count += 1;
                let doc = Document {
                    span: self.lines.span(start, end),
                    index,
                    ..Document::default()
                };
                self.doc = Some(DocState {
                    doc,
                    stack: Vec::new(),
                    anchors: HashMap::new(),
                    comment_floor: self.last_node_end,
                    duplicates: Vec::new(),
                    has_alias: false,
                    may_merge: false,
                });
                self.last_event_end = end;
            }
            Event::DocumentEnd => {
                if let Some(mut state) = self.doc.take() {
                    drop_implicit_empty_root(&mut state.doc);
                    state.doc.nodes.shrink_to_fit();
                    state.doc.span.end = self.lines.pos(end);
                    let budget = merge::merge_budget(&state.doc);
                    let indexed = resolve_aliases(state.doc, state.has_alias, state.may_merge)
                        .map(|doc| (self.finish_document)(doc))
                        .and_then(|mut document| {
                            // Slimming renumbers nodes: index the kept part again, with the
                            // whole document's budget (a part never costs more).
                            if state.may_merge && document.merged.is_empty() {
                                merge::index_merges(&mut document, budget)?;
                            }
                            Ok(document)
                        });
                    let document = match indexed {
                        Ok(document) => document,
                        Err(too_complex) => {
                            self.out.too_complex.push(too_complex);
                            return Ok(());
                        }
                    };
                    self.comment_floors.push(state.comment_floor);
                    let index = self.out.documents.len();
                    for mut dup in state.duplicates {
                        dup.document = index;
                        self.out.duplicate_keys.push(dup);
                    }
                    self.out.documents.push(document);
                }
            }
            Event::Comment(text, _) => {
                let span = self.lines.span(start, end);
                self.out.comments.push(Comment {
                    span,
                    text: text.into_owned(),
                });
            }
            Event::Anchor(id, name) => {
                if let Some(state) = &mut self.doc {
                    if let Some(&node) = state.anchors.get(&id) {
                        state.doc.nodes[node.0 as usize].anchor = Some(name.into());
                    }
                }
            }
            Event::Alias(id) => {
                if let Some(state) = &mut self.doc {
                    state.has_alias = true;
                }
                let target = self.doc.as_ref().and_then(|s| s.anchors.get(&id).copied());
                let span = self.lines.span(start, end);
                self.add_node(span, NodeKind::Alias(target), None, 0)?;
                self.finish_node(end);
            }
            Event::UnresolvedAlias(_) => {
                // Not enabled in our options; treat like an alias to nothing if it ever comes.
                let span = self.lines.span(start, end);
                self.add_node(span, NodeKind::Alias(None), None, 0)?;
                self.finish_node(end);
            }
            Event::Scalar(value, style, anchor, tag) => {
                let (start, end) = self.scalar_extent(style, start, end, prev_end, &span);
                let plain_empty = style == ScalarStyle::Plain && start == end;
                let value = if plain_empty && tag.is_none() && value == "~" {
                    // granit spells an omitted value `~`; the source has nothing there.
                    String::new()
                } else {
                    value.into_owned()
                };
                let style = map_style(style);
                if style == Style::Plain && value == "<<" {
                    if let Some(state) = &mut self.doc {
                        state.may_merge = true;
                    }
                }
                let resolved = resolve_scalar(&value, style, tag.as_deref());
                let tag = tag.map(|t| t.original().into_boxed_str());
                let span = self.lines.span(start, end);
                let kind = NodeKind::Scalar(Scalar {
                    value,
                    style,
                    resolved,
                });
                self.add_node(span, kind, tag, anchor)?;
                self.finish_node(end);
            }
            Event::SequenceStart(style, anchor, tag) => {
                self.open(start, NodeKind::Sequence(Vec::new()), style, anchor, tag)?;
            }
            Event::MappingStart(style, anchor, tag) => {
                let kind = NodeKind::Mapping(Vec::new());
                self.open(start, kind, style, anchor, tag)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(end),
            // Future granit events carry no content we model.
            _ => {}
        }
        Ok(())
    }

    fn open(
        &mut self,
        start: usize,
        kind: NodeKind,
        style: granit_parser::StructureStyle,
        anchor: usize,
        tag: Option<std::borrow::Cow<'_, Tag>>,
    ) -> Result<(), Abort> {
        let depth = self.doc.as_ref().map_or(0, |s| s.stack.len());
        if depth >= self.limits.max_depth {
            let msg = self.too_deep_message();
            let end = next_char_end(self.source, start);
            return Err(Abort::Document(self.error_at(start, end, msg)));
        }
        let flow = style == granit_parser::StructureStyle::Flow;
        let is_seq = matches!(kind, NodeKind::Sequence(_));
        let span = self.lines.span(start, start);
        let id = self.add_node(span, kind, tag.map(|t| t.original().into()), anchor)?;
        if let Some(state) = &mut self.doc {
            state.stack.push(Frame {
                id,
                kind: if is_seq {
                    FrameKind::Seq
                } else {
                    FrameKind::Map { pending_key: None }
                },
                flow,
                last_end: start,
            });
        }
        Ok(())
    }

    fn close(&mut self, end: usize) {
        let Some(state) = &mut self.doc else { return };
        let Some(frame) = state.stack.pop() else {
            return;
        };
        // Flow collections end at their bracket; block ones at their last content char.
        let end = if frame.flow { end } else { frame.last_end };
        if matches!(frame.kind, FrameKind::Map { .. }) {
            find_duplicates(&state.doc, frame.id, &mut state.duplicates);
        }
        let node = &mut state.doc.nodes[frame.id.0 as usize];
        // Children lists are final now: drop the growth slack (big streams keep every tree).
        match &mut node.kind {
            NodeKind::Sequence(items) => items.shrink_to_fit(),
            NodeKind::Mapping(entries) => entries.shrink_to_fit(),
            _ => {}
        }
        let start = node.span.start.offset;
        node.span.end = self.lines.pos(end.max(start));
        self.finish_node(end);
    }

    /// Record that a node ending at `end` is complete: parents grow to cover it.
    fn finish_node(&mut self, end: usize) {
        if let Some(state) = &mut self.doc {
            if let Some(parent) = state.stack.last_mut() {
                parent.last_end = parent.last_end.max(end);
            }
        }
        self.last_node_end = self.last_node_end.max(end);
    }

    /// Allocate a node and link it into its parent (or as the root).
    fn add_node(
        &mut self,
        span: Span,
        kind: NodeKind,
        tag: Option<Box<str>>,
        anchor: usize,
    ) -> Result<NodeId, Abort> {
        if self.total_nodes >= self.limits.max_nodes {
            let msg = format!(
                "too many YAML nodes (more than {}); stopped loading this file",
                self.limits.max_nodes
            );
            let end = next_char_end(self.source, span.start.offset);
            return Err(Abort::File(self.error_at(span.start.offset, end, msg)));
        }
        let Some(state) = &mut self.doc else {
            // Content outside a document cannot happen with granit; ignore it.
            return Ok(NodeId(u32::MAX));
        };
        let Ok(raw) = u32::try_from(state.doc.nodes.len()) else {
            let msg = "document too large".to_string();
            return Err(Abort::File(self.error_at(
                span.start.offset,
                span.start.offset,
                msg,
            )));
        };
        self.total_nodes += 1;
        let id = NodeId(raw);
        state.doc.nodes.push(Node {
            span,
            kind,
            tag,
            anchor: None,
        });
        if anchor != 0 {
            state.anchors.insert(anchor, id);
        }
        match state.stack.last_mut() {
            None => {
                if state.doc.root.is_none() {
                    state.doc.root = Some(id);
                }
            }
            Some(frame) => {
                let parent = &mut state.doc.nodes[frame.id.0 as usize].kind;
                match (&mut frame.kind, parent) {
                    (FrameKind::Seq, NodeKind::Sequence(items)) => items.push(id),
                    (FrameKind::Map { pending_key }, NodeKind::Mapping(entries)) => {
                        match pending_key.take() {
                            None => *pending_key = Some(id),
                            Some(key) => entries.push(Entry { key, value: id }),
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(id)
    }

    /// Byte range of a scalar token. granit starts block scalars at their content and ends
    /// them after the final line break; we cover `|`/`>` through the last content char.
    fn scalar_extent(
        &self,
        style: ScalarStyle,
        start: usize,
        end: usize,
        prev_end: usize,
        span: &granit_parser::Span,
    ) -> (usize, usize) {
        if !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            return (start, end);
        }
        let mut from = prev_end.min(start);
        if let Some(tag) = span.tag_span() {
            let tag_end = self.lines.marker_offset(&tag.end);
            if tag_end <= start {
                from = from.max(tag_end);
            }
        }
        let indicator = find_block_indicator(self.source, from, start);
        let Some(begin) = indicator else {
            return (start, end);
        };
        let bytes = self.source.as_bytes();
        let mut stop = end.min(bytes.len());
        while stop > begin + 1 && matches!(bytes[stop - 1], b' ' | b'\t' | b'\r' | b'\n') {
            stop -= 1;
        }
        (begin, stop.max(begin + 1))
    }
}

/// Record the scalar keys of mapping `id` that repeat an earlier key (`<<` merge keys
/// excepted). Keys compare by value, so `name`, `"name"` and `'name'` are one key.
fn find_duplicates(doc: &Document, id: NodeId, out: &mut Vec<DuplicateKey>) {
    let NodeKind::Mapping(entries) = &doc.nodes[id.0 as usize].kind else {
        return;
    };
    if entries.len() < 2 {
        return;
    }
    let key_text = |e: &Entry| -> Option<(&str, Span)> {
        let node = &doc.nodes[e.key.0 as usize];
        match &node.kind {
            NodeKind::Scalar(s) if !(s.style == Style::Plain && s.value == "<<") => {
                Some((s.value.as_str(), node.span))
            }
            _ => None,
        }
    };
    let mut push = |text: &str, first: Span, second: Span| {
        out.push(DuplicateKey {
            document: 0,
            key: text.to_string(),
            first,
            second,
        });
    };
    if entries.len() <= 16 {
        // Small mappings (nearly all of them): no allocation.
        for (j, later) in entries.iter().enumerate().skip(1) {
            let Some((text, span)) = key_text(later) else {
                continue;
            };
            // A third occurrence is reported against the second.
            if let Some((_, first)) = entries[..j]
                .iter()
                .rev()
                .filter_map(key_text)
                .find(|(t, _)| *t == text)
            {
                push(text, first, span);
            }
        }
        return;
    }
    let mut seen: HashMap<&str, Span> = HashMap::with_capacity(entries.len());
    for entry in entries {
        let Some((text, span)) = key_text(entry) else {
            continue;
        };
        if let Some(first) = seen.insert(text, span) {
            push(text, first, span);
        }
    }
}

/// granit gives an empty document (`---` alone) a null scalar root; the source has none.
fn drop_implicit_empty_root(doc: &mut Document) {
    let Some(root) = doc.root else { return };
    let node = &doc.nodes[root.0 as usize];
    let implicit = node.span.is_empty()
        && node.tag.is_none()
        && node.anchor.is_none()
        && matches!(&node.kind, NodeKind::Scalar(s) if s.style == Style::Plain);
    if implicit && doc.nodes.len() == 1 {
        doc.nodes.clear();
        doc.root = None;
    }
}

/// Find the `|` or `>` that opens a block scalar, scanning the properties and indicators
/// (`:`, `-`, `?`, `&anchor`, `!tag`, comments) between the previous token and the content.
fn find_block_indicator(source: &str, from: usize, to: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = from;
    while i < to.min(bytes.len()) {
        match bytes[i] {
            b'|' | b'>' => return Some(i),
            b' ' | b'\t' | b'\r' | b'\n' | b':' | b'-' | b'?' => i += 1,
            b'&' | b'!' => {
                while i < to && !matches!(bytes[i], b' ' | b'\t' | b'\r' | b'\n') {
                    i += 1;
                }
            }
            b'#' => {
                while i < to && !matches!(bytes[i], b'\r' | b'\n') {
                    i += 1;
                }
            }
            _ => return None,
        }
    }
    None
}

/// End of the char starting at `off` (for one-char error spans); `off` itself at EOF.
fn next_char_end(source: &str, off: usize) -> usize {
    source
        .get(off..)
        .and_then(|rest| rest.chars().next())
        .map_or(off, |c| off + c.len_utf8())
}

fn map_style(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

/// Resolution of a scalar as go-yaml v2 reads it: untagged plain scalars by their text,
/// everything written quoted or as a block is a string, core-schema tags force a type.
fn resolve_scalar(value: &str, style: Style, tag: Option<&Tag>) -> Resolved {
    let Some(tag) = tag else {
        return if style == Style::Plain {
            resolve_plain(value)
        } else {
            Resolved::Str
        };
    };
    let by_text = resolve_plain(value);
    let core = |s: &str| tag.is_yaml_core_schema_tag(s);
    let ok = if core("int") {
        matches!(by_text, Resolved::Int(_))
    } else if core("bool") {
        matches!(by_text, Resolved::Bool(_))
    } else if core("null") {
        matches!(by_text, Resolved::Null)
    } else if core("float") {
        // v2 accepts an int for `!!float` and converts it.
        if let Resolved::Int(i) = by_text {
            return Resolved::Float(i as f64);
        }
        matches!(by_text, Resolved::Float(_))
    } else if tag
        .suffix_in_namespace("tag:yaml.org,2002:")
        .is_some_and(|name| name == "timestamp")
    {
        matches!(by_text, Resolved::Timestamp)
    } else {
        // `!!str`, `!`, `!!binary`, custom tags: the text.
        false
    };
    if ok {
        by_text
    } else {
        Resolved::Str
    }
}
