//! Slimming a document: a copy of the part a rule reads.

use super::tree::{is_merge_key, Children, Document, Entry, Node, NodeId, NodeKind, Rare};

impl Document {
    /// The document with its root mapping cut down to the entries whose key is in `keys`
    /// (their subtrees whole, extents unchanged). Each node is copied at most once, so aliases
    /// keep pointing at one copy and nothing is expanded.
    pub(crate) fn keep_top_level(self, keys: &[&str]) -> Document {
        let Some(root) = self.root else { return self };
        if !matches!(self.node(root).kind, NodeKind::Mapping(_)) {
            return self;
        }
        let kept: Vec<Entry> = self
            .mapping_entries(root)
            .iter()
            .copied()
            // Merge keys stay: what they merge may be one of the kept keys.
            .filter(|e| {
                is_merge_key(&self, e.key)
                    || self.at(e.key).as_str().is_some_and(|k| keys.contains(&k))
            })
            .collect();
        let mut copier = Copier {
            from: &self,
            map: vec![None; self.nodes.len()],
            nodes: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            rare: Rare::default(),
        };
        // The root first, so it keeps id 0 semantics simple; its entries are filled after.
        let placeholder = NodeKind::Mapping(Children::default());
        copier.push(root, placeholder);
        copier.map[root.0 as usize] = Some(NodeId(0));
        let new_entries: Vec<Entry> = kept
            .iter()
            .map(|e| Entry {
                key: copier.copy(e.key),
                value: copier.copy(e.value),
            })
            .collect();
        let root_entries = Children::append(&mut copier.entries, new_entries);
        copier.nodes[0].kind = NodeKind::Mapping(root_entries);
        let Copier {
            mut nodes,
            mut items,
            mut entries,
            mut rare,
            ..
        } = copier;
        nodes.shrink_to_fit();
        items.shrink_to_fit();
        entries.shrink_to_fit();
        rare.values.shrink_to_fit();
        rare.names.shrink_to_fit();
        Document {
            file: self.file,
            nodes,
            items,
            entries,
            // Node ids changed; the loader indexes the slim document's merges again.
            rare: rare.boxed(),
            root: Some(NodeId(0)),
            span: self.span,
            index: self.index,
            leading_comments: self.leading_comments,
        }
    }
}

/// Copies a subset of a document's arena into a new one, each node once.
struct Copier<'d> {
    from: &'d Document,
    map: Vec<Option<NodeId>>,
    nodes: Vec<Node>,
    items: Vec<NodeId>,
    entries: Vec<Entry>,
    /// The copies' values and names (merges are indexed again).
    rare: Rare,
}

impl Copier<'_> {
    /// A copy of node `id` of kind `kind`, with its extent, tag and anchor (ids are given
    /// in increasing order, so `names` stays in node order).
    fn push(&mut self, id: NodeId, kind: NodeKind) -> NodeId {
        let new_id = NodeId(self.nodes.len() as u32);
        let from = self.from;
        self.nodes.push(Node {
            extent: from.node(id).extent,
            kind,
        });
        if let Some(names) = from.names(id) {
            self.rare.names.push((new_id, names.clone()));
        }
        new_id
    }

    /// Copy a node and everything below it (the input's nesting is bounded by the loader's
    /// depth limit, so recursion here is bounded too).
    fn copy(&mut self, id: NodeId) -> NodeId {
        if let Some(done) = self.map[id.0 as usize] {
            return done;
        }
        let new_id = self.push(id, NodeKind::Alias(None));
        self.map[id.0 as usize] = Some(new_id);
        let from = self.from;
        let old = from.node(id);
        // Children are copied first (they append their own children), then appended
        // together: a collection's children stay contiguous.
        let kind = match &old.kind {
            NodeKind::Scalar(s) => NodeKind::Scalar(match s.stored() {
                None => *s,
                Some(index) => {
                    let value = from.values().get(index).cloned().unwrap_or_default();
                    self.rare.values.push(value);
                    s.stored_at(self.rare.values.len() - 1)
                }
            }),
            &NodeKind::Sequence(children) => {
                let copied: Vec<NodeId> = from
                    .items_of(children)
                    .iter()
                    .map(|&i| self.copy(i))
                    .collect();
                NodeKind::Sequence(Children::append(&mut self.items, copied))
            }
            &NodeKind::Mapping(children) => {
                let copied: Vec<Entry> = from
                    .entries_of(children)
                    .iter()
                    .map(|e| Entry {
                        key: self.copy(e.key),
                        value: self.copy(e.value),
                    })
                    .collect();
                NodeKind::Mapping(Children::append(&mut self.entries, copied))
            }
            NodeKind::Alias(target) => NodeKind::Alias(target.map(|t| self.copy(t))),
        };
        self.nodes[new_id.0 as usize].kind = kind;
        new_id
    }
}
