//! K8S002 annotation-value-not-string: an annotation or label value that YAML reads as
//! a boolean, number, null or timestamp. Kubernetes wants strings.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::objects::{pod_template, Object, Workspace};
use crate::rules::{Context, Rule, RuleMeta};
use crate::yaml::{NodeRef, Resolved, Style};

pub static META: RuleMeta = RuleMeta {
    id: "K8S002",
    name: "annotation-value-not-string",
    default_severity: Severity::Error,
    providers: &["any"],
    summary: "An unquoted annotation or label value is not a string (`true`, `1`, `yes`): the API server rejects it.",
    doc: include_str!("../../../rules/K8S002.md"),
};

pub struct AnnotationValueNotString;

impl Rule for AnnotationValueNotString {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for object in &ws.objects {
            let root = ws.root(object);
            let mut maps = vec![
                ("annotation", root.path(&["metadata", "annotations"])),
                ("label", root.path(&["metadata", "labels"])),
            ];
            if let Some(template) = pod_template(ws, object) {
                maps.push(("pod label", template.labels));
            }
            for (what, map) in maps {
                for (key, value) in map.into_iter().flat_map(NodeRef::entries) {
                    if let Some(d) = check_value(ws, object, what, key, value) {
                        out.push(d);
                    }
                }
            }
        }
    }
}

fn check_value(
    ws: &Workspace,
    object: &Object,
    what: &str,
    key: NodeRef<'_>,
    value: NodeRef<'_>,
) -> Option<Diagnostic> {
    let scalar = value.scalar()?;
    if value.node().tag.is_some() || scalar.style != Style::Plain {
        return None;
    }
    let source = ws.source(object);
    let raw = value.span().slice(&source.text);
    let key_text = key.as_str().unwrap_or_default();
    let (severity, reading) = match scalar.resolved {
        Resolved::Str => return None,
        Resolved::Bool(b) => (Severity::Error, format!("the boolean {b}")),
        Resolved::Int(i) => (Severity::Error, format!("the number {i}")),
        Resolved::Float(f) => (Severity::Error, format!("the number {f}")),
        // An empty value is null: the API server stores "", which is rarely what was meant.
        Resolved::Null if raw.is_empty() => return None,
        Resolved::Null => (
            Severity::Warning,
            "null (stored as an empty string)".to_string(),
        ),
        Resolved::Timestamp => (
            Severity::Warning,
            "a timestamp (re-encoded as RFC 3339)".to_string(),
        ),
    };
    let message = format!(
        "{what} `{key_text}: {raw}` on {} is not a string: Kubernetes (YAML 1.1) reads `{raw}` as {reading}, and \
         {what} values must be strings{}.",
        object.id,
        if severity == Severity::Error { ", so the API server rejects the object" } else { "" }
    );
    let mut d = META
        .diagnostic(severity, ws.location(object, value.span()), message)
        .with_help(format!("quote the value: `{key_text}: \"{raw}\"`"));
    d.object = Some(object.id.clone());
    d.origin = object.origin.clone();
    d.fix = Some(Fix {
        description: format!("quote `{raw}`"),
        // Quoting keeps the text the author wrote; it only makes YAML read it as a string.
        applicability: Applicability::Safe,
        edits: vec![Edit {
            span: value.span(),
            content: format!("\"{raw}\""),
        }],
    });
    Some(d)
}
