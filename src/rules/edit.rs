//! Small text edits shared by rules: replace a scalar's value in place, keeping its quotes.

use crate::diagnostic::{Applicability, Edit, Fix, Span};
use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

/// Replace the text of a one-line scalar (plain, or quoted without escapes) with `new`,
/// keeping the quotes it was written with. `None` for anything else (block scalars,
/// escapes, aliases), where a mechanical edit could change more than the value.
pub fn replace_scalar(
    ws: &Workspace,
    object: &Object,
    node: NodeRef<'_>,
    new: &str,
    description: String,
    applicability: Applicability,
) -> Option<Fix> {
    let value = node.as_str()?;
    let source = ws.source(object);
    let span = node.span();
    let raw = span.slice(&source.text);
    if raw.contains('\n') {
        return None;
    }
    let inner = if raw == value {
        0
    } else if raw.len() == value.len() + 2
        && (raw.starts_with('"') || raw.starts_with('\''))
        && raw.get(1..raw.len() - 1) == Some(value)
    {
        1
    } else {
        return None;
    };
    let start = span.start.offset + inner;
    let end = start + value.len();
    Some(Fix {
        description,
        applicability,
        edits: vec![Edit {
            span: Span {
                start: source.pos_at(start),
                end: source.pos_at(end),
            },
            content: new.to_string(),
        }],
    })
}
