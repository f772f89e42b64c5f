//! What loading a YAML stream takes and gives: the limits, and the result (documents,
//! syntax errors, repeated keys). Apart from the loader and the builder, so both depend
//! on these types one way.

use std::sync::Arc;

use super::budget::MemoryBudget;
use super::comment::Comment;
use super::merge::TooComplex;
use super::tree::{Document, NodeId};
use crate::source::Span;

/// Bounds that keep hostile input cheap.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum nesting of collections.
    pub max_depth: usize,
    /// Maximum number of nodes in one file (all documents).
    pub max_nodes: usize,
    /// The run's memory budget, shared by every file; `None`: unbounded.
    pub budget: Option<Arc<MemoryBudget>>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_nodes: 20_000_000,
            budget: None,
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
    /// In the document's root mapping (where two documents pasted without `---` repeat
    /// `apiVersion`, `kind` …).
    pub root: bool,
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
    /// The file would overdraw the run's memory budget (this many bytes): it was dropped
    /// whole, and everything else here is empty.
    pub over_budget: Option<u64>,
}

impl LoadedFile {
    /// Everything loaded, as text that is equal exactly when two loads are (maps sorted):
    /// what the split parse is checked against in tests and the fuzz target.
    #[doc(hidden)]
    pub fn canonical_text(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::new();
        for doc in &self.documents {
            let rare = doc.rare.as_deref().cloned().unwrap_or_default();
            let mut merged: Vec<_> = rare.merged.iter().collect();
            merged.sort_by_key(|(id, _)| **id);
            // Every scalar's value, wherever it is kept.
            let values: Vec<&str> = (0..doc.nodes.len())
                .filter_map(|i| doc.scalar(NodeId(u32::try_from(i).ok()?)))
                .map(|s| s.value)
                .collect();
            let _ = writeln!(
                text,
                "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                doc.index,
                doc.span,
                doc.root,
                doc.nodes,
                rare.names,
                values,
                doc.items,
                doc.entries,
                doc.leading_comments,
                merged
            );
        }
        let _ = write!(
            text,
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            self.errors, self.comments, self.duplicate_keys, self.too_complex, self.over_budget
        );
        text
    }
}

/// The environment variable that turns the fast path off for a run: `LBLINT_YAML=granit`.
/// For triage in the field: when a result looks wrong, the same run with granit alone tells
/// whether the fast path (which copies granit's offsets and quirks) is the cause.
pub const READER_VARIABLE: &str = "LBLINT_YAML";

/// Which parser reads the documents the fast path can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The fast path where it can, granit elsewhere (the default).
    Fast,
    /// granit alone (`LBLINT_YAML=granit`).
    Granit,
}

impl Reader {
    /// The reader a value of [`READER_VARIABLE`] asks for; unset, empty or anything else
    /// keeps the default.
    pub(crate) fn from_value(value: Option<&str>) -> Reader {
        match value.map(str::trim) {
            Some(v) if v.eq_ignore_ascii_case("granit") => Reader::Granit,
            _ => Reader::Fast,
        }
    }

    /// This process's reader, read from the environment once.
    pub(crate) fn of_process() -> Reader {
        static READER: std::sync::OnceLock<Reader> = std::sync::OnceLock::new();
        *READER.get_or_init(|| Reader::from_value(std::env::var(READER_VARIABLE).ok().as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::Reader;

    #[test]
    fn only_granit_turns_the_fast_path_off() {
        assert_eq!(Reader::from_value(Some("granit")), Reader::Granit);
        assert_eq!(Reader::from_value(Some(" GRANIT\n")), Reader::Granit);
        for other in [None, Some(""), Some("fast"), Some("0"), Some("granite")] {
            assert_eq!(Reader::from_value(other), Reader::Fast, "{other:?}");
        }
    }
}
