//! Scalar nodes: their style, what they resolve to, and where their value is.

use compact_str::CompactString;

use super::resolve::{resolve_plain, Resolved};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// Which [`Resolved`] a scalar is. Its number or boolean is read again from the text when
/// asked: numbers are rare, and every node of a big stream is 16 bytes smaller for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResolvedKind {
    Null,
    Bool,
    Int,
    Float,
    Timestamp,
    Str,
}

/// A scalar node. Its value is nearly always its text as written (a plain scalar's text, a
/// quoted one's between the quotes), and is then read from the file when asked; the others
/// (escapes, folded lines, block scalars) are kept in the document's values. A node is 16
/// bytes smaller for it (48 -> 32; 20 with its tag and anchor kept apart): a stream of
/// 917,446 Services of 28 nodes each holds 25.7 million nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    /// Index into the document's `values`, or [`AS_WRITTEN`].
    value: u32,
    pub style: Style,
    kind: ResolvedKind,
}

/// The value is the scalar's text as written.
const AS_WRITTEN: u32 = u32::MAX;

/// The value a scalar written as `written` has when it is that text as written.
pub(crate) fn as_written(written: &str, style: Style) -> Option<&str> {
    match style {
        Style::Plain => Some(written),
        Style::SingleQuoted | Style::DoubleQuoted => written.get(1..written.len().checked_sub(1)?),
        Style::Literal | Style::Folded => None,
    }
}

impl Scalar {
    /// A scalar in `style` which resolved to `resolved` (by its text, its style and its tag),
    /// its value at `stored` of the document's values, or ([`as_written`]) its text as written.
    pub(crate) fn new(style: Style, resolved: &Resolved, stored: Option<usize>) -> Scalar {
        let kind = match resolved {
            Resolved::Null => ResolvedKind::Null,
            Resolved::Bool(_) => ResolvedKind::Bool,
            Resolved::Int(_) => ResolvedKind::Int,
            Resolved::Float(_) => ResolvedKind::Float,
            Resolved::Timestamp => ResolvedKind::Timestamp,
            Resolved::Str => ResolvedKind::Str,
        };
        Scalar {
            value: AS_WRITTEN,
            style,
            kind,
        }
        .stored_at_or_written(stored)
    }

    /// The value, given the node's text as written and its document's `values`.
    pub(crate) fn value<'d>(&self, written: &'d str, values: &'d [CompactString]) -> &'d str {
        match self.stored() {
            None => as_written(written, self.style).unwrap_or_default(),
            Some(index) => values.get(index).map_or("", |v| v.as_str()),
        }
    }

    /// Where the value is in the document's `values`, if it is kept there.
    pub(crate) fn stored(&self) -> Option<usize> {
        (self.value != AS_WRITTEN).then_some(self.value as usize)
    }

    /// This scalar with its value at `index` of another document's `values`.
    pub(crate) fn stored_at(self, index: usize) -> Scalar {
        self.stored_at_or_written(Some(index))
    }

    fn stored_at_or_written(self, index: Option<usize>) -> Scalar {
        // A document has fewer values than nodes, and its node ids are `u32`s.
        let value = index.map_or(AS_WRITTEN, |i| u32::try_from(i).unwrap_or(AS_WRITTEN));
        Scalar { value, ..self }
    }

    /// The scalar with its value read: what [`super::NodeRef::scalar`] gives.
    pub(crate) fn read<'d>(
        &self,
        written: &'d str,
        values: &'d [CompactString],
    ) -> ScalarValue<'d> {
        ScalarValue {
            value: self.value(written, values),
            style: self.style,
            kind: self.kind,
        }
    }
}

/// A scalar's value, style and resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ScalarValue<'d> {
    /// The value after YAML escape processing and folding.
    pub value: &'d str,
    pub style: Style,
    kind: ResolvedKind,
}

impl ScalarValue<'_> {
    /// The value as Kubernetes reads it. A tag only ever confirms what the text resolves to
    /// (or makes a string of it), so the text alone gives the value back; `!!float` on an
    /// integer is that integer as a float.
    pub(crate) fn resolved(&self) -> Resolved {
        let by_text = || resolve_plain(self.value);
        match self.kind {
            ResolvedKind::Null => Resolved::Null,
            ResolvedKind::Timestamp => Resolved::Timestamp,
            ResolvedKind::Str => Resolved::Str,
            // Only these read the text again.
            ResolvedKind::Bool | ResolvedKind::Int => by_text(),
            ResolvedKind::Float => match by_text() {
                Resolved::Int(i) => Resolved::Float(i as f64),
                float => float,
            },
        }
    }

    /// Kubernetes reads it as a string.
    #[cfg(test)]
    pub(crate) fn is_str(&self) -> bool {
        self.kind == ResolvedKind::Str
    }

    pub(crate) fn is_null(&self) -> bool {
        self.kind == ResolvedKind::Null
    }
}
