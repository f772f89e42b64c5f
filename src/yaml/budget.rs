//! A memory budget shared by every file of a run.
//!
//! Parse trees are most of lblint's memory, and the size limit is per file: five 20 MB
//! files of one-character list items would build trees of several GiB. Each file's loader
//! charges an estimate of what it builds (nodes, scalar text, source text) to one budget;
//! a file that would overdraw it is dropped whole, its charge released, and reported.

use std::sync::atomic::{AtomicU64, Ordering};

use super::tree::{Node, NodeKind};

#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    used: AtomicU64,
}

impl MemoryBudget {
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget {
            limit,
            used: AtomicU64::new(0),
        }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Take `bytes` from the budget, or nothing and `false` when that would overdraw it.
    pub fn charge(&self, bytes: u64) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            return false;
        }
        true
    }

    pub fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// Estimated heap cost of one node as built: the node, its id in the parent's list, and
/// its own allocations rounded up the way an allocator does.
pub(super) fn node_cost(kind: &NodeKind, tag: Option<&str>) -> u64 {
    let boxed = |len: usize| {
        if len == 0 {
            0
        } else {
            (len as u64).div_ceil(16) * 16 + 16
        }
    };
    let own = match kind {
        NodeKind::Scalar(s) => boxed(s.value.len()),
        _ => 0,
    };
    std::mem::size_of::<Node>() as u64 + 8 + own + tag.map_or(0, |t| boxed(t.len()))
}

/// [`node_cost`] of every node of a finished document.
pub(super) fn document_cost(nodes: &[Node]) -> u64 {
    nodes.iter().map(|n| node_cost(&n.kind, n.tag())).sum()
}
