//! Hover: a rule's documentation (`lblint explain`'s text) over a finding, or over a rule
//! id or name inside a `# lblint: ignore[...]` comment.

use std::ops::Range;

use gen_lsp_types as lsp;
use serde_json::{json, Value};

use super::session::Server;
use super::{text, uri};
use crate::catalog::RuleMeta;
use crate::source::LineIndex;

pub(crate) fn hover(server: &Server, params: lsp::HoverParams) -> Value {
    let at = params.text_document_position_params;
    let Some(path) = uri::to_path(&at.text_document.uri.0) else {
        return Value::Null;
    };
    let Some(doc) = server.docs.get(&path) else {
        return Value::Null;
    };
    let encoding = server.client.encoding;
    let lines = LineIndex::new(&doc.text);
    let offset = text::offset(&doc.text, &lines, at.position, encoding);
    let range = |r: Range<usize>| {
        lsp::Range::new(
            text::position(&doc.text, &lines, r.start, encoding),
            text::position(&doc.text, &lines, r.end, encoding),
        )
    };
    if let Some((meta, key)) = rule_in_comment(&doc.text, offset) {
        return answer(&[meta], range(key));
    }
    // Findings' offsets are in the text the last lint read.
    if server.latest.versions.get(&path) != Some(&doc.version) {
        return Value::Null;
    }
    let Some(file) = server.latest.files.get(&path) else {
        return Value::Null;
    };
    let mut metas: Vec<&'static RuleMeta> = Vec::new();
    let mut span: Option<Range<usize>> = None;
    for d in &file.findings {
        let s = d.location().span;
        if s.start.offset <= offset && offset <= s.end.offset {
            if let Some(meta) = crate::catalog::lookup(d.rule()) {
                if !metas.iter().any(|m| m.id == meta.id) {
                    metas.push(meta);
                }
            }
            span.get_or_insert(s.start.offset..s.end.offset);
        }
    }
    match span {
        Some(span) => answer(&metas, range(span)),
        None => Value::Null,
    }
}

fn answer(metas: &[&'static RuleMeta], range: lsp::Range) -> Value {
    let value = metas
        .iter()
        .map(|m| explain(m))
        .collect::<Vec<_>>()
        .join("\n\n---\n\n");
    json!({"contents": {"kind": "markdown", "value": value}, "range": range})
}

/// The rule's page without its front matter, under a heading with its id, name and link.
pub(crate) fn explain(meta: &RuleMeta) -> String {
    let body = meta
        .doc
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(meta.doc, |(_, body)| body);
    format!(
        "**{}** `{}` ({})\n\n{}\n\n[Rule page]({})\n\n{}",
        meta.id,
        meta.name,
        meta.default_severity,
        meta.summary,
        meta.url(),
        body.trim_start()
    )
}

/// The rule named by the key under `offset` in a suppression comment on its line, with the
/// key's byte range.
fn rule_in_comment(text: &str, offset: usize) -> Option<(&'static RuleMeta, Range<usize>)> {
    let start = crate::source::line_start(text, offset);
    let end = text[start..]
        .find(['\n', '\r'])
        .map_or(text.len(), |e| start + e);
    let line = &text[start..end];
    let marker = line.find("lblint:")?;
    let open = marker + line[marker..].find("ignore[")? + "ignore[".len();
    let close = open + line[open..].find(']')?;
    let mut at = open;
    for key in line[open..close].split(',') {
        let trimmed = key.trim();
        let key_start = start + at + (key.len() - key.trim_start().len());
        let key_range = key_start..key_start + trimmed.len();
        if key_range.start <= offset && offset <= key_range.end {
            return crate::catalog::lookup(trimmed).map(|meta| (meta, key_range));
        }
        at += key.len() + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_keys_in_suppression_comments_are_found() {
        let text = "a: 1\n  x: y  # lblint: ignore[K8S001, tke-l4-loopback] why\n";
        let name = text.find("tke-l4").unwrap();
        let (meta, range) = rule_in_comment(text, name + 3).unwrap();
        assert_eq!(
            (meta.id, range),
            ("TKE001", name..name + "tke-l4-loopback".len())
        );
        let id = text.find("K8S001").unwrap();
        assert_eq!(rule_in_comment(text, id).unwrap().0.id, "K8S001");
        assert!(rule_in_comment(text, text.find("why").unwrap()).is_none());
        assert!(rule_in_comment(text, 1).is_none());
    }

    #[test]
    fn explain_drops_the_front_matter() {
        let meta = crate::catalog::lookup("TKE001").unwrap();
        let text = explain(meta);
        assert!(
            text.starts_with("**TKE001** `tke-l4-loopback` (warning)\n\n"),
            "{text}"
        );
        assert!(!text.contains("\nproviders: [tke]\n"), "{text}");
    }
}
