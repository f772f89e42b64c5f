//! granit-parser events → [`Document`] trees, with located syntax errors.
//!
//! The tree is built from the flat event stream with an explicit stack, so input nesting
//! depth never becomes Rust recursion. Positions come from granit's byte offsets and our own
//! line index (granit's char index is not a byte offset).

use std::collections::HashMap;

use granit_parser::{ErrorKind, Event, Options, Parser, ScalarStyle, ScanError};

use super::budget;
use super::events::{
    drop_implicit_empty_root, find_block_indicator, map_style, next_char_end, resolve_scalar,
};
use super::lines::Positions;
use super::merge;
use super::types::{DuplicateKey, Limits, LoadedFile, SyntaxError};

mod charge;
mod collections;
mod comments;
mod hybrid;

use super::comment::{Comment, CommentText};
use super::scalar::as_written;
use super::tree::{Children, Document, DocumentFile, Entry, NodeId, NodeKind, Scalar, Style};
use crate::source::SourceFile;
use collections::Frame;
pub(in crate::yaml) use comments::assign_leading_comments;

/// After this many errors the file is hopeless; stop instead of reporting noise.
pub(super) const MAX_ERRORS: usize = 100;

struct DocState {
    doc: Document,
    stack: Vec<Frame>,
    /// Children of the open collections, innermost last: a collection's move to the
    /// document's arrays when it closes, so each one's are contiguous there.
    open_items: Vec<NodeId>,
    open_entries: Vec<Entry>,
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

/// The counters building a document moves forward. Kept in one value so that the fast path
/// saves them before each document and restores them whole when it gives up on it part way
/// (`hybrid.rs`): a counter added here cannot leak from an abandoned document.
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    doc_count: usize,
    total_nodes: usize,
    /// End of the last node built (any document, even an abandoned one).
    last_node_end: usize,
    /// End of the last content event, where scanning for a block scalar indicator starts.
    last_event_end: usize,
}

pub(super) struct Builder<'s, 'l, 'f> {
    /// Receives each completed document (see [`load_with`]).
    finish_document: &'f mut dyn FnMut(Document) -> Document,
    /// The file the documents keep, to resolve their nodes' offsets.
    file: &'s std::sync::Arc<SourceFile>,
    limits: &'l Limits,
    lines: Positions<'s>,
    out: LoadedFile,
    doc: Option<DocState>,
    progress: Progress,
    /// `DocState::comment_floor` of each entry of `out.documents`.
    comment_floors: Vec<usize>,
    /// Bytes taken from the run's memory budget for this file, and not yet taken (charged
    /// in chunks, so the shared counter is touched rarely).
    charged: u64,
    pending: u64,
    /// Estimated bytes of the document being built.
    doc_cost: u64,
    /// The part of `source` the parser reads (all of it unless the stream is split).
    read: Chunk,
    /// The document start at `read.stop_at` was seen: the chunk ended where it should.
    reached_stop: bool,
    /// Loading stopped before the end of the text (too many errors or nodes).
    cut_short: bool,
    /// Documents in the fast subset are read by [`crate::yaml::fast`] (see `hybrid.rs`).
    use_fast: bool,
    /// The fast path met a case where its result could differ from granit's: the text must
    /// be parsed again by granit alone.
    needs_granit: bool,
}

/// The text one builder parses: `start..end` of the source. A chunk of a split stream also
/// names the offset where the next chunk's first document starts: the builder stops there,
/// and confirms that the whole-stream parse starts a document at that very offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct Chunk {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) stop_at: Option<usize>,
}

impl Chunk {
    /// All of a text `len` bytes long.
    pub(super) fn whole(len: usize) -> Chunk {
        Chunk {
            start: 0,
            end: len,
            stop_at: None,
        }
    }
}

/// What one builder produced, before the leading comments are assigned (they may come
/// from the previous chunk of a split stream).
pub(super) struct Part {
    pub(super) out: LoadedFile,
    /// `DocState::comment_floor` of each entry of `out.documents`.
    pub(super) comment_floors: Vec<usize>,
    /// Documents started, kept or not (the next chunk's indexes continue from here).
    pub(super) doc_count: usize,
    pub(super) last_node_end: usize,
    pub(super) total_nodes: usize,
    pub(super) reached_stop: bool,
    pub(super) cut_short: bool,
    /// Bytes this part holds in the run's memory budget.
    pub(super) charged: u64,
}

impl<'s, 'l, 'f> Builder<'s, 'l, 'f> {
    pub(super) fn new(
        file: &'s std::sync::Arc<SourceFile>,
        limits: &'l Limits,
        finish_document: &'f mut dyn FnMut(Document) -> Document,
        read: Chunk,
    ) -> Self {
        let mut lines = Positions::new(&file.text, file.lines());
        lines.read_from(read.start);
        Builder {
            finish_document,
            file,
            limits,
            lines,
            out: LoadedFile::default(),
            doc: None,
            progress: Progress::default(),
            comment_floors: Vec::new(),
            charged: 0,
            pending: 0,
            doc_cost: 0,
            read,
            reached_stop: false,
            cut_short: false,
            use_fast: super::types::Reader::of_process() == super::types::Reader::Fast,
            needs_granit: false,
        }
    }

    /// The whole text of the file (a chunk's parser reads `read.start..read.end` of it).
    fn source(&self) -> &'s str {
        &self.file.text
    }
}

/// Why the tree builder stopped a document early.
enum Abort {
    /// Skip to the next document.
    Document(SyntaxError),
    /// Stop reading the file.
    File(SyntaxError),
    /// Over the run's memory budget: drop the whole file.
    Budget,
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

    /// Parse `self.read` with granit alone.
    fn run_granit(&mut self) {
        self.lines.read_from(self.read.start);
        let text = &self.source()[self.read.start..self.read.end];
        let mut parser = Parser::new_from_str_with_options(text, self.options());
        loop {
            if self.out.errors.len() >= MAX_ERRORS {
                self.cut_short = true;
                return;
            }
            let abort = match parser.next_event() {
                None => return,
                Some(Ok((event, span))) if self.reached_stop => {
                    self.after_stop(&event, &span);
                    continue;
                }
                Some(Ok((event, span))) => match self.event(event, span) {
                    Ok(()) => continue,
                    Err(abort) => abort,
                },
                // Past the stop is the next chunk's text.
                Some(Err(_)) if self.reached_stop => return,
                Some(Err(err)) => Abort::Document(self.scan_error(&err)),
            };
            self.doc = None;
            let dropped = std::mem::take(&mut self.doc_cost);
            self.uncharge(dropped);
            match abort {
                Abort::Budget => return self.drop_over_budget(),
                Abort::File(e) => {
                    self.out.errors.push(e);
                    self.cut_short = true;
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

    pub(super) fn finish(self) -> LoadedFile {
        let source_len = self.source().len();
        let mut part = self.finish_part();
        assign_leading_comments(&mut part.out, &part.comment_floors, source_len);
        part.out
    }

    pub(super) fn finish_part(mut self) -> Part {
        if self.flush_charge().is_err() {
            self.drop_over_budget();
        }
        // granit may buffer comments; keep the documented source order.
        self.out.comments.sort_by_key(|c| c.span.start.offset);
        self.out.comments.shrink_to_fit();
        self.out.documents.shrink_to_fit();
        Part {
            out: self.out,
            comment_floors: self.comment_floors,
            doc_count: self.progress.doc_count,
            last_node_end: self.progress.last_node_end,
            total_nodes: self.progress.total_nodes,
            reached_stop: self.reached_stop,
            cut_short: self.cut_short,
            charged: self.charged,
        }
    }

    /// Past the stop, only comments before it still belong to this chunk (granit may
    /// hand a comment over after the event that follows it).
    fn after_stop(&mut self, event: &Event<'_>, span: &granit_parser::Span) {
        let (Event::Comment(text, _), Some(stop)) = (event, self.read.stop_at) else {
            return;
        };
        let start = self.lines.marker_offset(&span.start);
        if start < stop {
            let end = self.lines.marker_offset(&span.end).clamp(start, stop);
            let span = self.lines.span(start, end);
            self.out.comments.push(Comment {
                span,
                text: CommentText::new(self.file, start + 1, text),
            });
        }
    }

    fn scan_error(&mut self, err: &ScanError) -> SyntaxError {
        let off = self.lines.marker_offset(err.marker());
        let mut message = err.info();
        let mut end = next_char_end(self.source(), off);
        if matches!(err.kind(), ErrorKind::UnknownAnchor) {
            // granit only says "found unknown anchor"; name the alias.
            let rest = self.source().get(off..).unwrap_or("");
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
        let tag_end = span
            .tag_span()
            .map(|tag| self.lines.marker_offset(&tag.end));
        self.event_at(event, start, end, tag_end)
    }

    /// One event, its source text at `start..end` (and where its tag ends, if it has one):
    /// from granit, or from the fast path, which gives offsets directly.
    fn event_at(
        &mut self,
        event: Event<'_>,
        start: usize,
        end: usize,
        tag_end: Option<usize>,
    ) -> Result<(), Abort> {
        let prev_end = self.progress.last_event_end;
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            // Comments and anchors are not tokens before content (see `scalar_extent`).
            Event::Comment(..) | Event::Anchor(..) => {}
            _ => self.progress.last_event_end = self.progress.last_event_end.max(end),
        }
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            // The `---` at the stop (granit may start an implicit document at the very same
            // offset, as after an empty root block scalar: that one is still this chunk's).
            Event::DocumentStart(true, _) if self.read.stop_at == Some(start) => {
                self.reached_stop = true;
            }
            Event::DocumentStart(..) => self.start_document(start, end),
            Event::DocumentEnd => self.end_document(end),
            Event::Comment(text, _) => {
                let span = self.lines.span(start, end);
                self.out.comments.push(Comment {
                    span,
                    text: CommentText::new(self.file, start + 1, &text),
                });
            }
            Event::Anchor(id, name) => {
                if let Some(state) = &mut self.doc {
                    if let Some(&node) = state.anchors.get(&id) {
                        state.doc.names_mut(node).anchor = Some(name.into());
                    }
                }
            }
            Event::Alias(id) => {
                if let Some(state) = &mut self.doc {
                    state.has_alias = true;
                }
                let target = self.doc.as_ref().and_then(|s| s.anchors.get(&id).copied());
                let extent = self.lines.extent(start, end);
                self.add_node(extent, NodeKind::Alias(target), 0, None, 0)?;
                self.finish_node(end);
            }
            Event::UnresolvedAlias(_) => {
                // Not enabled in our options; treat like an alias to nothing if it ever comes.
                let extent = self.lines.extent(start, end);
                self.add_node(extent, NodeKind::Alias(None), 0, None, 0)?;
                self.finish_node(end);
            }
            Event::Scalar(value, style, anchor, tag) => {
                let token = (start, end, prev_end, tag_end);
                self.scalar(value, style, anchor, tag, token)?;
            }
            Event::SequenceStart(style, anchor, tag) => {
                let kind = NodeKind::Sequence(Children::default());
                self.open(start, kind, style, anchor, tag)?;
            }
            Event::MappingStart(style, anchor, tag) => {
                let kind = NodeKind::Mapping(Children::default());
                self.open(start, kind, style, anchor, tag)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(end),
            // Future granit events carry no content we model.
            _ => {}
        }
        Ok(())
    }

    /// A new document: its state, and the counters it moves.
    fn start_document(&mut self, start: usize, end: usize) {
        let index = self.progress.doc_count;
        self.progress.doc_count += 1;
        // Every field written: `Document::default()` would allocate an empty file.
        let doc = Document {
            file: DocumentFile(self.file.clone()),
            nodes: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            root: None,
            span: self.lines.span(start, end),
            index,
            leading_comments: Vec::new(),
            rare: None,
        };
        self.doc = Some(DocState {
            doc,
            stack: Vec::new(),
            open_items: Vec::new(),
            open_entries: Vec::new(),
            anchors: HashMap::new(),
            comment_floor: self.progress.last_node_end,
            duplicates: Vec::new(),
            has_alias: false,
            may_merge: false,
        });
        self.progress.last_event_end = end;
    }

    /// A document complete: its aliases resolved, handed to `finish_document` (slimmed),
    /// its merges indexed, and kept with its repeated keys; or set aside as too complex.
    fn end_document(&mut self, end: usize) {
        if let Some(mut state) = self.doc.take() {
            drop_implicit_empty_root(&mut state.doc);
            state.doc.nodes.shrink_to_fit();
            state.doc.items.shrink_to_fit();
            state.doc.entries.shrink_to_fit();
            if let Some(rare) = &mut state.doc.rare {
                rare.values.shrink_to_fit();
                rare.names.shrink_to_fit();
            }
            state.doc.span.end = self.lines.pos(end);
            let budget = merge::merge_budget(&state.doc);
            let indexed = merge::resolve_aliases(state.doc, state.has_alias, state.may_merge)
                .map(|doc| (self.finish_document)(doc))
                .and_then(|mut document| {
                    // Slimming renumbers nodes: index the kept part again, with the
                    // whole document's budget (a part never costs more).
                    if state.may_merge && document.rare.as_ref().is_none_or(|r| r.merged.is_empty())
                    {
                        merge::index_merges(&mut document, budget)?;
                    }
                    Ok(document)
                });
            let full_cost = std::mem::take(&mut self.doc_cost);
            let document = match indexed {
                Ok(document) => document,
                Err(too_complex) => {
                    self.uncharge(full_cost);
                    self.out.too_complex.push(too_complex);
                    return;
                }
            };
            // Slimming dropped most of some documents: only what is kept counts.
            let kept = budget::document_cost(&document);
            self.uncharge(full_cost.saturating_sub(kept));
            self.comment_floors.push(state.comment_floor);
            let index = self.out.documents.len();
            for mut dup in state.duplicates {
                dup.document = index;
                self.out.duplicate_keys.push(dup);
            }
            self.out.documents.push(document);
        }
    }

    /// A scalar node. `token` is the event's `start`, `end`, the previous event's end
    /// and the tag's end, from which the scalar's own extent is worked out.
    #[inline]
    fn scalar(
        &mut self,
        value: std::borrow::Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<std::borrow::Cow<'_, granit_parser::Tag>>,
        token: (usize, usize, usize, Option<usize>),
    ) -> Result<(), Abort> {
        let (start, end, prev_end, tag_end) = token;
        let (start, end) = self.scalar_extent(style, start, end, prev_end, tag_end);
        let plain_empty = style == ScalarStyle::Plain && start == end;
        // granit spells an omitted value `~`; the source has nothing there.
        let value: &str = if plain_empty && tag.is_none() && value == "~" {
            ""
        } else {
            &value
        };
        let style = map_style(style);
        if style == Style::Plain && value == "<<" {
            if let Some(state) = &mut self.doc {
                state.may_merge = true;
            }
        }
        let resolved = resolve_scalar(value, style, tag.as_deref());
        let tag = tag.map(|t| t.original().into_boxed_str());
        let extent = self.lines.extent(start, end);
        let written = extent.slice(self.source());
        let stored = match &mut self.doc {
            Some(state) if as_written(written, style) != Some(value) => {
                let values = &mut state.doc.rare_mut().values;
                values.push(compact_str::CompactString::new(value));
                Some(values.len() - 1)
            }
            // As written; or outside a document, which cannot happen with granit (`add_node`).
            _ => None,
        };
        let kind = NodeKind::Scalar(Scalar::new(style, &resolved, stored));
        self.add_node(extent, kind, value.len(), tag, anchor)?;
        self.finish_node(end);
        Ok(())
    }

    /// Byte range of a scalar token. granit starts block scalars at their content and ends
    /// them after the final line break; we cover `|`/`>` through the last content char.
    fn scalar_extent(
        &self,
        style: ScalarStyle,
        start: usize,
        end: usize,
        prev_end: usize,
        tag_end: Option<usize>,
    ) -> (usize, usize) {
        if !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            return (start, end);
        }
        let mut from = prev_end.min(start);
        if let Some(tag_end) = tag_end {
            if tag_end <= start {
                from = from.max(tag_end);
            }
        }
        let indicator = find_block_indicator(self.source(), from, start);
        let Some(begin) = indicator else {
            return (start, end);
        };
        let bytes = self.source().as_bytes();
        let mut stop = end.min(bytes.len());
        while stop > begin + 1 && matches!(bytes[stop - 1], b' ' | b'\t' | b'\r' | b'\n') {
            stop -= 1;
        }
        (begin, stop.max(begin + 1))
    }
}
