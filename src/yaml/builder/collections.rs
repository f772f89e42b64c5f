//! Collections as they are built: a frame per open sequence or mapping, children kept on
//! the document's stacks until the collection closes and moves them to its arrays.

use granit_parser::Tag;

use super::{Abort, Builder};
use crate::yaml::budget;
use crate::yaml::events::{find_duplicates, next_char_end};
use crate::yaml::tree::{Children, Entry, Extent, Node, NodeId, NodeKind};

pub(super) enum FrameKind {
    Seq,
    Map { pending_key: Option<NodeId> },
}

/// An open collection.
pub(super) struct Frame {
    id: NodeId,
    kind: FrameKind,
    flow: bool,
    /// End of the last non-empty child, which is where a block collection ends.
    last_end: usize,
    /// Where its children start in `DocState::open_items` or `open_entries`.
    first_child: usize,
}

impl Builder<'_, '_, '_> {
    pub(super) fn open(
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
            let end = next_char_end(self.source(), start);
            return Err(Abort::Document(self.error_at(start, end, msg)));
        }
        let flow = style == granit_parser::StructureStyle::Flow;
        let is_seq = matches!(kind, NodeKind::Sequence(_));
        let extent = self.lines.extent(start, start);
        let id = self.add_node(extent, kind, 0, tag.map(|t| t.original().into()), anchor)?;
        if let Some(state) = &mut self.doc {
            let (kind, first_child) = if is_seq {
                (FrameKind::Seq, state.open_items.len())
            } else {
                (
                    FrameKind::Map { pending_key: None },
                    state.open_entries.len(),
                )
            };
            state.stack.push(Frame {
                id,
                kind,
                flow,
                last_end: start,
                first_child,
            });
        }
        Ok(())
    }

    pub(super) fn close(&mut self, end: usize) {
        let Some(state) = &mut self.doc else { return };
        let Some(frame) = state.stack.pop() else {
            return;
        };
        // Flow collections end at their bracket; block ones at their last content char.
        let end = if frame.flow { end } else { frame.last_end };
        let doc = &mut state.doc;
        let kind = match frame.kind {
            FrameKind::Seq => {
                let items = state.open_items.drain(frame.first_child..);
                NodeKind::Sequence(Children::append(&mut doc.items, items))
            }
            FrameKind::Map { .. } => {
                let entries = state.open_entries.drain(frame.first_child..);
                NodeKind::Mapping(Children::append(&mut doc.entries, entries))
            }
        };
        let node = &mut doc.nodes[frame.id.0 as usize];
        node.kind = kind;
        node.extent = self.lines.extent(node.extent.start(), end);
        if matches!(frame.kind, FrameKind::Map { .. }) {
            let root = state.stack.is_empty();
            find_duplicates(&state.doc, frame.id, root, &mut state.duplicates);
        }
        self.finish_node(end);
    }

    /// Record that a node ending at `end` is complete: parents grow to cover it.
    pub(super) fn finish_node(&mut self, end: usize) {
        if let Some(state) = &mut self.doc {
            if let Some(parent) = state.stack.last_mut() {
                parent.last_end = parent.last_end.max(end);
            }
        }
        self.progress.last_node_end = self.progress.last_node_end.max(end);
    }

    /// Allocate a node and link it into its parent (or as the root).
    /// A node; `value_len` is a scalar's value's length (what it is charged for).
    pub(super) fn add_node(
        &mut self,
        extent: Extent,
        kind: NodeKind,
        value_len: usize,
        tag: Option<Box<str>>,
        anchor: usize,
    ) -> Result<NodeId, Abort> {
        if self.progress.total_nodes >= self.limits.max_nodes {
            let msg = format!(
                "too many YAML nodes (more than {}); stopped loading this file",
                self.limits.max_nodes
            );
            let end = next_char_end(self.source(), extent.start());
            return Err(Abort::File(self.error_at(extent.start(), end, msg)));
        }
        let Some(state) = &mut self.doc else {
            // Content outside a document cannot happen with granit; ignore it.
            return Ok(NodeId(u32::MAX));
        };
        let Ok(raw) = u32::try_from(state.doc.nodes.len()) else {
            let msg = "document too large".to_string();
            let at = extent.start();
            return Err(Abort::File(self.error_at(at, at, msg)));
        };
        self.progress.total_nodes += 1;
        self.charge(budget::node_cost(&kind, value_len, tag.as_deref()))?;
        let Some(state) = &mut self.doc else {
            return Ok(NodeId(u32::MAX));
        };
        let id = NodeId(raw);
        state.doc.nodes.push(Node { extent, kind });
        if let Some(tag) = tag {
            state.doc.names_mut(id).tag = Some(tag);
        }
        if anchor != 0 {
            state.anchors.insert(anchor, id);
        }
        match state.stack.last_mut() {
            None => {
                if state.doc.root.is_none() {
                    state.doc.root = Some(id);
                }
            }
            Some(frame) => match &mut frame.kind {
                FrameKind::Seq => state.open_items.push(id),
                FrameKind::Map { pending_key } => match pending_key.take() {
                    None => *pending_key = Some(id),
                    Some(key) => state.open_entries.push(Entry { key, value: id }),
                },
            },
        }
        Ok(id)
    }
}
