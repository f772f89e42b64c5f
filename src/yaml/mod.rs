//! The only code that knows the YAML parser (granit-parser).
//!
//! Parser events become an arena tree per document, each node with its byte extent (lines
//! and columns are worked out when asked, `NodeRef::span`). Aliases stay
//! references to their anchor node (never copied), so alias bombs cost nothing.
//! Plain scalars are resolved the way Kubernetes reads YAML (go-yaml v2, YAML 1.1),
//! with the raw source text always reachable through the node's extent.

mod budget;
mod builder;
mod comment;
mod copy;
mod events;
mod fast;
mod lines;
mod load;
mod merge;
mod resolve;
mod scalar;
mod split;
mod tree;
mod types;

pub(crate) mod go_json;
pub(crate) mod go_values;

pub(crate) use budget::MemoryBudget;
pub(crate) use comment::Comment;
pub(crate) use load::load_with;
pub use load::{load, load_file, load_granit_only};
pub(crate) use resolve::Resolved;
pub(crate) use split::{load_split, Split};
pub(crate) use tree::{Document, Extent, NodeId, NodeKind, NodeRef, Style};
pub use types::{DuplicateKey, Limits, LoadedFile, Reader, SyntaxError, READER_VARIABLE};

#[cfg(test)]
mod tests;
