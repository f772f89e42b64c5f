//! K8S002 annotation-value-not-string: an annotation or label value that YAML reads as
//! a boolean, number, null or timestamp. Kubernetes wants strings.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::objects::{Object, Workspace};
use crate::rules::{Context, Rule, RuleMeta};
use crate::views::pod_template;
use crate::yaml::{NodeRef, Resolved, Style};

pub use crate::rules::meta::K8S002 as META;

pub struct AnnotationValueNotString;

impl Rule for AnnotationValueNotString {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for object in &ws.objects {
            let mut maps = vec![
                ("annotation", ws.metadata(object, "annotations")),
                ("label", ws.metadata(object, "labels")),
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
    let target = value.resolved();
    if target.node().tag().is_some() || scalar.style != Style::Plain {
        return None;
    }
    let source = ws.source(object);
    let written = value.extent().slice(&source.text);
    let raw = target.extent().slice(&source.text);
    // An alias stands for its anchor's text: say what that is.
    let alias = (target.id != value.id).then(|| target.node().anchor().unwrap_or("?"));
    let shown = match alias {
        Some(anchor) => format!("`{written}` (the anchor `&{anchor}`: `{raw}`)"),
        None => format!("`{raw}`"),
    };
    let key_text = key.as_str().unwrap_or_default();
    let (severity, reading) = match scalar.resolved() {
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
    // `yes`, `on`, `y` quoted become the strings "yes", "on", "y": not the "true" that
    // Kubernetes reads today, and not what a controller parsing a boolean accepts.
    let meant = match scalar.resolved() {
        Resolved::Bool(b) if !raw.eq_ignore_ascii_case(&b.to_string()) => Some(b),
        _ => None,
    };
    let mut message = format!(
        "{what} `{key_text}: {written}` on {} is not a string: Kubernetes (YAML 1.1) reads {shown} as {reading}, and \
         {what} values must be strings{}.",
        object.id,
        if severity == Severity::Error { ", so the API server rejects the object" } else { "" }
    );
    if let Some(b) = meant {
        message.push_str(&format!(
            " Quoted, the value Kubernetes sees becomes the string \"{raw}\", not \"{b}\": \"{b}\" was probably meant."
        ));
    }
    let help = match (alias, meant) {
        (Some(anchor), _) => format!(
            "quote the value where the anchor `&{anchor}` is defined, if every alias of it should be a string"
        ),
        (None, Some(b)) => format!("write `{key_text}: \"{b}\"` (or `\"{raw}\"` if that string is meant)"),
        (None, None) => format!("quote the value: `{key_text}: \"{raw}\"`"),
    };
    let mut d = META
        .diagnostic(severity, ws.location(object, value.span()), message)
        .with_help(help);
    d = d.on(object);
    if let Some(anchor) = alias {
        // Never edit an alias: quoting `*on` would make the string "*on".
        d = d.with_suggestion(Fix::manual(format!(
            "quote `{raw}` by hand at its anchor `&{anchor}` (line {})",
            target.span().start.line
        )));
        return Some(d);
    }
    let edit = |content: String| Edit {
        span: value.span(),
        content,
    };
    d.fix = Some(Fix {
        description: match meant {
            Some(b) => {
                format!("quote `{raw}` (the value becomes the string \"{raw}\", not \"{b}\")")
            }
            None => format!("quote `{raw}`"),
        },
        // Quoting keeps the text the author wrote; for `true`, `1` or a date that is the
        // value Kubernetes means too. For `yes` it is not (see `meant`).
        applicability: if meant.is_some() {
            Applicability::Unsafe
        } else {
            Applicability::Safe
        },
        edits: vec![edit(format!("\"{raw}\""))],
    });
    if let Some(b) = meant {
        d = d.with_suggestion(Fix {
            description: format!("write \"{b}\" (the boolean Kubernetes reads `{raw}` as)"),
            applicability: Applicability::DisplayOnly,
            edits: vec![edit(format!("\"{b}\""))],
        });
    }
    Some(d)
}
