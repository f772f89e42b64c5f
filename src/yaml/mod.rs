//! The only code that knows the YAML parser (granit-parser).
//!
//! Parser events become an arena tree per document, each node with its byte extent (lines
//! and columns are worked out when asked, [`NodeRef::span`]). Aliases stay
//! references to their anchor node (never copied), so alias bombs cost nothing.
//! Plain scalars are resolved the way Kubernetes reads YAML (go-yaml v2, YAML 1.1),
//! with the raw source text always reachable through the node's extent.

mod budget;
mod builder;
mod events;
mod fast;
mod lines;
mod load;
mod merge;
mod resolve;
mod split;
mod tree;

pub use budget::MemoryBudget;
pub use load::{
    load, load_file, load_granit_only, load_with, DuplicateKey, Limits, LoadedFile, SyntaxError,
};
pub use merge::TooComplex;
pub use resolve::resolve_plain;
pub use split::{load_split, Split};
pub use tree::{
    Children, Comment, Document, DocumentFile, Entry, Extent, Node, NodeId, NodeKind, NodeRef,
    Resolved, Scalar, Style,
};

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
    pub fn len(&self) -> usize {
        self.end.offset.saturating_sub(self.start.offset)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The source text the span covers.
    pub fn slice<'s>(&self, source: &'s str) -> &'s str {
        source.get(self.start.offset..self.end.offset).unwrap_or("")
    }
}

#[cfg(test)]
mod tests;
