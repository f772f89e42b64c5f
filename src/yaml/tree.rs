//! Arena tree of one YAML document.

use std::collections::HashMap;
use std::sync::Arc;

use compact_str::CompactString;

use super::comment::Comment;
use super::resolve::Resolved;
pub(crate) use super::scalar::{Scalar, ScalarValue, Style};
use crate::source::SourceFile;
use crate::source::Span;

/// Index of a node in its document's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// A plain `<<` key: the YAML 1.1 merge key (a quoted one is an ordinary key).
pub(super) fn is_merge_key(doc: &Document, key: NodeId) -> bool {
    doc.scalar(key)
        .is_some_and(|s| s.style == Style::Plain && s.value == "<<")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: NodeId,
    pub value: NodeId,
}

/// A collection's children: `len` of them from `start` in its document's `items` (a
/// sequence) or `entries` (a mapping). One array per document, not one per collection: a
/// big stream has a hundred thousand collections, and an allocation each cost about 2 MB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Children {
    start: u32,
    len: u32,
}

impl Children {
    /// Append `children` to `arena`: they are the new collection's.
    pub(crate) fn append<T>(arena: &mut Vec<T>, children: impl IntoIterator<Item = T>) -> Children {
        let start = arena.len();
        arena.extend(children);
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Children {
            start: at(start),
            len: at(arena.len() - start),
        }
    }

    fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start + self.len as usize
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    /// Items in [`Document::items`].
    Sequence(Children),
    /// Entries in [`Document::entries`].
    Mapping(Children),
    /// `*name`: refers to the anchored node, which is not copied.
    Alias(Option<NodeId>),
}

/// Where a node is written: byte offsets `[start, end)` into its file. Lines and columns are
/// worked out only when asked ([`NodeRef::span`]): a node is 24 bytes smaller than with two
/// [`crate::source::Pos`], and a big stream keeps hundreds of thousands of nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extent {
    pub start: u32,
    pub end: u32,
}

impl Extent {
    /// Offsets past 4 GiB saturate: larger files are refused before they are parsed
    /// (`--max-file-size`).
    pub(crate) fn new(start: usize, end: usize) -> Extent {
        let at = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        Extent {
            start: at(start),
            end: at(end.max(start)),
        }
    }

    pub(crate) fn start(self) -> usize {
        self.start as usize
    }

    pub(crate) fn end(self) -> usize {
        self.end as usize
    }

    pub(crate) fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// The source text the extent covers.
    pub(crate) fn slice(self, source: &str) -> &str {
        source.get(self.start()..self.end()).unwrap_or("")
    }
}

/// A node: 20 bytes. Its tag and anchor, which few nodes have, are its document's
/// ([`Document::names`]); [`NodeRef::node`] gives them with the node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub extent: Extent,
    pub kind: NodeKind,
}

/// A node's tag and anchor, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    pub tag: Option<Box<str>>,
    pub anchor: Option<Box<str>>,
}

/// A node with its tag and anchor: what [`NodeRef::node`] gives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeView<'d> {
    node: &'d Node,
    names: Option<&'d Names>,
}

impl<'d> NodeView<'d> {
    /// Explicit tag as written (`!!str`, `!custom`), if any.
    pub(crate) fn tag(&self) -> Option<&'d str> {
        self.names?.tag.as_deref()
    }

    pub(crate) fn anchor(&self) -> Option<&'d str> {
        self.names?.anchor.as_deref()
    }
}

impl std::ops::Deref for NodeView<'_> {
    type Target = Node;

    fn deref(&self) -> &Node {
        self.node
    }
}

/// The file a document was read from, which its nodes' offsets are resolved against.
#[derive(Clone, Default)]
pub struct DocumentFile(pub Arc<SourceFile>);

impl std::fmt::Debug for DocumentFile {
    /// The path only: the text may be 50 MB.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0.path)
    }
}

/// One document of a stream.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub file: DocumentFile,
    pub nodes: Vec<Node>,
    /// The items of every sequence, each sequence's together ([`Children`]).
    pub items: Vec<NodeId>,
    /// The entries of every mapping, each mapping's together.
    pub entries: Vec<Entry>,
    /// `None` for an empty document (`---` alone, comments only).
    pub root: Option<NodeId>,
    /// From the document start (or `---`) to its end.
    pub span: Span,
    /// 0-based position of the document in its stream.
    pub index: usize,
    /// Comments between the previous document's last node and this document's root node
    /// (where Helm writes `# Source: ...`).
    pub leading_comments: Vec<Comment>,
    /// What few documents have: 8 bytes a document instead of 96.
    pub rare: Option<Box<Rare>>,
}

/// The parts of a document that few documents have.
#[derive(Clone, Debug, Default)]
pub struct Rare {
    /// The values of the scalars whose value is not their text as written ([`Scalar`]).
    pub values: Vec<CompactString>,
    /// The tags and anchors of the nodes that have one, in node order: without a pointer
    /// to its own, a node is 20 bytes instead of 32.
    pub names: Vec<(NodeId, Names)>,
    /// For each mapping with `<<` merge keys, the entries merged into it, one per key, in
    /// lookup order (see `merge::index_merges`; the loader fills it).
    pub merged: HashMap<NodeId, Box<[Entry]>>,
}

impl Rare {
    /// `Some` when there is anything in it.
    pub(crate) fn boxed(self) -> Option<Box<Rare>> {
        let empty = self.values.is_empty() && self.names.is_empty() && self.merged.is_empty();
        (!empty).then(|| Box::new(self))
    }
}

impl Document {
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The rare parts, made on first use.
    pub(crate) fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// The values kept apart from the text ([`Scalar`]).
    pub(crate) fn values(&self) -> &[CompactString] {
        self.rare.as_ref().map_or(&[], |r| &r.values)
    }

    /// The entries `<<` merge keys bring into mapping `id`, if it has any.
    pub(crate) fn merged(&self, id: NodeId) -> Option<&[Entry]> {
        Some(&self.rare.as_ref()?.merged.get(&id)?[..])
    }

    /// The tag and anchor of node `id`, if it has either.
    pub(crate) fn names(&self, id: NodeId) -> Option<&Names> {
        let names = &self.rare.as_ref()?.names;
        let at = names.binary_search_by_key(&id, |(of, _)| *of).ok()?;
        Some(&names[at].1)
    }

    /// The tag and anchor of node `id`, to set: kept in node order.
    pub(crate) fn names_mut(&mut self, id: NodeId) -> &mut Names {
        let names = &mut self.rare_mut().names;
        let at = match names.binary_search_by_key(&id, |(of, _)| *of) {
            Ok(at) => at,
            Err(at) => {
                names.insert(at, (id, Names::default()));
                at
            }
        };
        &mut names[at].1
    }

    /// Node `id`'s tag, as written.
    pub(crate) fn tag(&self, id: NodeId) -> Option<&str> {
        self.names(id)?.tag.as_deref()
    }

    /// Node `id`'s anchor.
    pub(crate) fn anchor(&self, id: NodeId) -> Option<&str> {
        self.names(id)?.anchor.as_deref()
    }

    /// Node `id` when it is a scalar, with its value (aliases not followed).
    pub(crate) fn scalar(&self, id: NodeId) -> Option<ScalarValue<'_>> {
        let node = self.node(id);
        match &node.kind {
            NodeKind::Scalar(s) => {
                Some(s.read(node.extent.slice(&self.file.0.text), self.values()))
            }
            _ => None,
        }
    }

    /// Items of a sequence of this document.
    pub(crate) fn items_of(&self, children: Children) -> &[NodeId] {
        debug_assert!(children.range().end <= self.items.len(), "{children:?}");
        self.items.get(children.range()).unwrap_or(&[])
    }

    /// Entries of a mapping of this document.
    pub(crate) fn entries_of(&self, children: Children) -> &[Entry] {
        debug_assert!(children.range().end <= self.entries.len(), "{children:?}");
        self.entries.get(children.range()).unwrap_or(&[])
    }

    /// Entries of node `id` as written (empty unless it is a mapping; aliases not followed).
    pub(crate) fn mapping_entries(&self, id: NodeId) -> &[Entry] {
        match self.node(id).kind {
            NodeKind::Mapping(children) => self.entries_of(children),
            _ => &[],
        }
    }

    /// Items of node `id` (empty unless it is a sequence; aliases not followed).
    pub(crate) fn sequence_items(&self, id: NodeId) -> &[NodeId] {
        match self.node(id).kind {
            NodeKind::Sequence(children) => self.items_of(children),
            _ => &[],
        }
    }

    /// Lines and columns of an extent of this document's file.
    pub(crate) fn span_of(&self, extent: Extent) -> Span {
        let file = &self.file.0;
        Span {
            start: file.pos_at(extent.start()),
            end: file.pos_at(extent.end()),
        }
    }

    /// Line and column of a node as written (for an alias: the `*name` token).
    pub(crate) fn node_span(&self, id: NodeId) -> Span {
        self.span_of(self.node(id).extent)
    }

    pub(crate) fn root(&self) -> Option<NodeRef<'_>> {
        self.root.map(|id| NodeRef { doc: self, id })
    }

    pub(crate) fn at(&self, id: NodeId) -> NodeRef<'_> {
        NodeRef { doc: self, id }
    }
}

/// A cheap handle to a node with navigation helpers. Aliases are followed transparently.
#[derive(Clone, Copy, Debug)]
pub struct NodeRef<'d> {
    pub doc: &'d Document,
    pub id: NodeId,
}

impl<'d> NodeRef<'d> {
    /// The node, with its tag and anchor.
    pub(crate) fn node(&self) -> NodeView<'d> {
        NodeView {
            node: self.doc.node(self.id),
            names: self.doc.names(self.id),
        }
    }

    /// The node this one stands for: the anchor target for an alias, else itself.
    pub(crate) fn resolved(self) -> NodeRef<'d> {
        match self.node().kind {
            NodeKind::Alias(Some(target)) => NodeRef {
                doc: self.doc,
                id: target,
            },
            _ => self,
        }
    }

    /// Span of this node as written (for an alias: the `*name` token), with its lines and
    /// columns.
    pub(crate) fn span(&self) -> Span {
        self.doc.node_span(self.id)
    }

    /// Byte offsets of this node as written: cheaper than [`NodeRef::span`] when no line
    /// or column is needed.
    pub(crate) fn extent(&self) -> Extent {
        self.node().extent
    }

    pub(crate) fn scalar(&self) -> Option<ScalarValue<'d>> {
        let node = self.resolved();
        node.doc.scalar(node.id)
    }

    /// The scalar's text, whatever its resolved type (Kubernetes coerces into string fields).
    pub(crate) fn as_str(&self) -> Option<&'d str> {
        self.scalar().map(|s| s.value)
    }

    /// A scalar that Kubernetes reads as a string (quoted, block, or plain that resolves to str).
    #[cfg(test)]
    pub(crate) fn as_string_value(&self) -> Option<&'d str> {
        self.scalar().filter(|s| s.is_str()).map(|s| s.value)
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self.scalar()?.resolved() {
            Resolved::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self.scalar()?.resolved() {
            Resolved::Int(i) => Some(i),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        self.scalar().is_some_and(|s| s.is_null())
    }

    /// A `|` or `>` block scalar.
    pub(crate) fn is_block_scalar(&self) -> bool {
        self.scalar()
            .is_some_and(|s| matches!(s.style, Style::Literal | Style::Folded))
    }

    pub(crate) fn is_mapping(&self) -> bool {
        matches!(self.resolved().node().kind, NodeKind::Mapping(_))
    }

    pub(crate) fn is_sequence(&self) -> bool {
        matches!(self.resolved().node().kind, NodeKind::Sequence(_))
    }

    /// Sequence items (empty for anything else).
    pub(crate) fn items(self) -> impl Iterator<Item = NodeRef<'d>> + 'd {
        let doc = self.doc;
        let ids: &'d [NodeId] = doc.sequence_items(self.resolved().id);
        ids.iter().map(move |&id| NodeRef { doc, id })
    }

    /// Mapping entries as written, including `<<` merge keys (empty for anything else).
    pub(crate) fn written_entries(
        self,
    ) -> impl DoubleEndedIterator<Item = (NodeRef<'d>, NodeRef<'d>)> + 'd {
        let doc = self.doc;
        let entries: &'d [Entry] = doc.mapping_entries(self.resolved().id);
        entries
            .iter()
            .map(move |e| (NodeRef { doc, id: e.key }, NodeRef { doc, id: e.value }))
    }

    /// Mapping entries as Kubernetes sees them: the mapping's own entries (without `<<`
    /// keys), then those merged in with `<<` that it does not set itself (spans point where
    /// they are written, usually an anchor). Empty for anything else.
    pub(crate) fn entries(self) -> impl Iterator<Item = (NodeRef<'d>, NodeRef<'d>)> + 'd {
        let doc = self.doc;
        let id = self.resolved().id;
        let merged: &'d [Entry] = doc.merged(id).unwrap_or_default();
        self.written_entries()
            .filter(move |(k, _)| !is_merge_key(doc, k.id))
            .chain(
                merged
                    .iter()
                    .map(move |e| (NodeRef { doc, id: e.key }, NodeRef { doc, id: e.value })),
            )
    }

    /// Look up a key the way Kubernetes does: the last duplicate wins, and keys merged
    /// in with `<<` count when the mapping does not set them itself.
    pub(crate) fn get_entry(self, key: &str) -> Option<(NodeRef<'d>, NodeRef<'d>)> {
        let doc = self.doc;
        // From the end: the last duplicate wins, and a lookup stops at it.
        let own = self
            .written_entries()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key) && !is_merge_key(doc, k.id));
        own.or_else(|| {
            let merged = doc.merged(self.resolved().id)?;
            merged
                .iter()
                .find(|e| doc.at(e.key).as_str() == Some(key))
                .map(|e| (doc.at(e.key), doc.at(e.value)))
        })
    }

    pub(crate) fn get(self, key: &str) -> Option<NodeRef<'d>> {
        self.get_entry(key).map(|(_, v)| v)
    }

    /// Follow a path of mapping keys.
    pub(crate) fn path(self, keys: &[&str]) -> Option<NodeRef<'d>> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }
}
