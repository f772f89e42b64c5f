//! Fixes as a finding keeps them: what is the same across a rule's fixes (the description,
//! the applicability, the text each edit writes) shared by reference count, and only where
//! each edit goes kept per finding.
//!
//! A rule builds a [`Fix`] with plain strings and hands it to the finding's builder; on a
//! stream of 917,446 TKE001 findings each fix was a 90-byte description, an edit list and
//! an 80-byte inserted line, alike but for where the line goes: 240 bytes a finding, now 48.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::few::Few;
#[cfg(test)]
use super::Edit;
use super::{Applicability, Fix};
use crate::source::Span;

/// What a fix says and writes, shared by the findings whose fixes say and write the same.
#[derive(Debug, PartialEq, Eq)]
struct Body {
    description: Box<str>,
    applicability: Applicability,
    /// The text of each edit, in the fix's order.
    contents: Box<[Box<str>]>,
}

/// A fix as a finding holds it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct StoredFix {
    body: Arc<Body>,
    /// Where each edit goes: inline for one edit (most fixes).
    spans: Few<Span>,
}

/// Recent bodies kept per rule: a rule's fixes come in a few wordings.
const BODIES: usize = 4;

thread_local! {
    /// A cache only: which body a fix shares changes what memory it uses, never what it
    /// says.
    static RECENT: RefCell<HashMap<&'static str, Vec<Arc<Body>>>> = RefCell::new(HashMap::new());
}

impl StoredFix {
    /// `fix`, given by `rule`: its body shared with a recent fix of the rule that says and
    /// writes the same.
    pub(super) fn new(rule: &'static str, fix: Fix) -> StoredFix {
        let (contents, spans): (Vec<Box<str>>, Vec<Span>) = fix
            .edits
            .into_iter()
            .map(|e| (e.content.into_boxed_str(), e.span))
            .unzip();
        let spans = Few::from_vec(spans);
        let body = Body {
            description: fix.description.into_boxed_str(),
            applicability: fix.applicability,
            contents: contents.into_boxed_slice(),
        };
        let body = RECENT.with(|recent| {
            let mut recent = recent.borrow_mut();
            let bodies = recent.entry(rule).or_default();
            if let Some(i) = bodies.iter().position(|b| **b == body) {
                bodies[..=i].rotate_right(1);
                return bodies[0].clone();
            }
            let body = Arc::new(body);
            bodies.insert(0, body.clone());
            bodies.truncate(BODIES);
            body
        });
        StoredFix { body, spans }
    }

    pub(super) fn as_ref(&self) -> FixRef<'_> {
        FixRef {
            body: &self.body,
            spans: self.spans.as_slice(),
        }
    }
}

/// A finding's fix or suggestion, as reports and `--fix` read it.
#[derive(Clone, Copy, Debug)]
pub struct FixRef<'d> {
    body: &'d Body,
    spans: &'d [Span],
}

/// One edit of a fix: replace the bytes of `span` with `content` (empty span: insert).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EditRef<'d> {
    pub span: Span,
    pub content: &'d str,
}

impl<'d> FixRef<'d> {
    pub fn description(&self) -> &'d str {
        &self.body.description
    }

    pub(crate) fn applicability(&self) -> Applicability {
        self.body.applicability
    }

    /// The edits, in the order the rule gave them.
    pub(crate) fn edits(&self) -> impl ExactSizeIterator<Item = EditRef<'d>> + Clone + 'd {
        self.spans
            .iter()
            .zip(self.body.contents.iter())
            .map(|(&span, content)| EditRef { span, content })
    }

    /// Whether lblint can make the change (a fix with no edits is made by hand).
    pub(crate) fn has_edits(&self) -> bool {
        !self.spans.is_empty()
    }

    /// Whether both share what they say and write (tests: the sharing is there).
    #[cfg(test)]
    pub(crate) fn shares_body_with(&self, other: &FixRef<'_>) -> bool {
        std::ptr::eq(self.body, other.body)
    }

    /// The fix as a rule builds it (tests; `Fix` values to change and give back).
    #[cfg(test)]
    pub(crate) fn to_fix(self) -> Fix {
        Fix {
            description: self.description().to_string(),
            applicability: self.applicability(),
            edits: self
                .edits()
                .map(|e| Edit {
                    span: e.span,
                    content: e.content.to_string(),
                })
                .collect(),
        }
    }
}
