//! A memory budget shared by every file of a run.
//!
//! Parse trees are most of lblint's memory, and the size limit is per file: five 20 MB
//! files of one-character list items would build trees of several GiB. Each file's loader
//! charges an estimate of what it builds (nodes, scalar text, source text) to one budget;
//! a file that would overdraw it is dropped whole, its charge released, and reported.

use std::sync::atomic::{AtomicU64, Ordering};

use super::tree::{Document, NodeId, NodeKind};

#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    used: AtomicU64,
}

impl MemoryBudget {
    pub(crate) fn new(limit: u64) -> MemoryBudget {
        MemoryBudget {
            limit,
            used: AtomicU64::new(0),
        }
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// Take `bytes` from the budget, or nothing and `false` when that would overdraw it.
    pub(crate) fn charge(&self, bytes: u64) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            return false;
        }
        true
    }

    pub(crate) fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// What a node is charged: 48 bytes, its id in the parent's list, and a scalar's value and
/// a tag as allocations rounded up the way an allocator does. That is what a node cost
/// before scalar values were read from the file and nodes took 32 bytes: the estimate is
/// kept, so a budget admits what it did (it bounds what the trees cost, from above).
pub(super) fn node_cost(kind: &NodeKind, value_len: usize, tag: Option<&str>) -> u64 {
    let boxed = |len: usize| {
        if len == 0 {
            0
        } else {
            (len as u64).div_ceil(16) * 16 + 16
        }
    };
    let own = match kind {
        NodeKind::Scalar(_) => boxed(value_len),
        _ => 0,
    };
    NODE_CHARGE + 8 + own + tag.map_or(0, |t| boxed(t.len()))
}

/// See [`node_cost`].
const NODE_CHARGE: u64 = 48;

/// [`node_cost`] of every node of a finished document.
pub(super) fn document_cost(doc: &Document) -> u64 {
    (0..doc.nodes.len())
        .map(|i| {
            let id = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
            let value_len = doc.scalar(id).map_or(0, |s| s.value.len());
            let node = doc.node(id);
            node_cost(&node.kind, value_len, doc.tag(id))
        })
        .sum()
}
