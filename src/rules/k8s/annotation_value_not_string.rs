//! K8S002 annotation-value-not-string: an annotation or label value that YAML reads as
//! a boolean, number, null or timestamp. Kubernetes wants strings.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::objects::{Object, Workspace};
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::views::pod_template;
use crate::views::Annotations;
use crate::yaml::{NodeRef, Resolved, Style};

use crate::catalog::meta::K8S002 as META;

pub(crate) struct AnnotationValueNotString;

impl Rule for AnnotationValueNotString {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for object in &ws.objects {
            let mut maps = vec![
                ("annotation", Annotations::of(ws, object).mapping()),
                ("label", ws.labels(object)),
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

/// How YAML reads a plain value that should be a string, before it is worded.
struct Reading<'w> {
    /// The value as written (an alias: `*name`).
    written: &'w str,
    /// The text YAML resolves (an alias: its anchor's).
    raw: &'w str,
    /// The anchor an alias stands for.
    alias: Option<&'w str>,
    /// Error for booleans and numbers (the API server rejects them), warning otherwise.
    severity: Severity,
    /// "the boolean true", "null (stored as an empty string)" …
    reading: String,
    /// A boolean written another way (`yes`, `on`): quoted, it becomes that string, not the
    /// "true" or "false" that was probably meant.
    meant: Option<bool>,
    /// Where the anchor's text is, for the by-hand suggestion.
    anchor_line: u32,
}

/// `None` for a string, a tagged or quoted value, or an empty one.
fn reading<'w>(ws: &'w Workspace, object: &Object, value: NodeRef<'w>) -> Option<Reading<'w>> {
    let scalar = value.scalar()?;
    let target = value.resolved();
    if target.node().tag().is_some() || scalar.style != Style::Plain {
        return None;
    }
    let source = ws.source(object);
    let raw = target.extent().slice(&source.text);
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
    Some(Reading {
        written: value.extent().slice(&source.text),
        raw,
        // An alias stands for its anchor's text: say what that is.
        alias: (target.id != value.id).then(|| target.node().anchor().unwrap_or("?")),
        severity,
        reading,
        meant,
        anchor_line: target.span().start.line,
    })
}

fn check_value(
    ws: &Workspace,
    object: &Object,
    what: &str,
    key: NodeRef<'_>,
    value: NodeRef<'_>,
) -> Option<Diagnostic> {
    let r = reading(ws, object, value)?;
    let (written, raw) = (r.written, r.raw);
    let shown = match r.alias {
        Some(anchor) => format!("`{written}` (the anchor `&{anchor}`: `{raw}`)"),
        None => format!("`{raw}`"),
    };
    let key_text = key.as_str().unwrap_or_default();
    let mut message = format!(
        "{what} `{key_text}: {written}` on {} is not a string: Kubernetes (YAML 1.1) reads {shown} as {}, and \
         {what} values must be strings{}.",
        object.id,
        r.reading,
        if r.severity == Severity::Error { ", so the API server rejects the object" } else { "" }
    );
    if let Some(b) = r.meant {
        message.push_str(&format!(
            " Quoted, the value Kubernetes sees becomes the string \"{raw}\", not \"{b}\": \"{b}\" was probably meant."
        ));
    }
    let help = match (r.alias, r.meant) {
        (Some(anchor), _) => format!(
            "quote the value where the anchor `&{anchor}` is defined, if every alias of it should be a string"
        ),
        (None, Some(b)) => format!("write `{key_text}: \"{b}\"` (or `\"{raw}\"` if that string is meant)"),
        (None, None) => format!("quote the value: `{key_text}: \"{raw}\"`"),
    };
    let d = META
        .diagnostic(r.severity, ws.location(object, value.span()), message)
        .with_help(help)
        .on(object);
    Some(with_fixes(d, &r, value.span()))
}

/// Quoting the value, as the fix (unsafe for a boolean written another way, with the meant
/// boolean as a suggestion); never an edit of an alias: quoting `*on` would make the
/// string "*on".
fn with_fixes(d: Diagnostic, r: &Reading<'_>, span: Span) -> Diagnostic {
    let raw = r.raw;
    if let Some(anchor) = r.alias {
        return d.with_suggestion(Fix::manual(format!(
            "quote `{raw}` by hand at its anchor `&{anchor}` (line {})",
            r.anchor_line
        )));
    }
    let edit = |content: String| Edit { span, content };
    let d = d.with_fix(Fix {
        description: match r.meant {
            Some(b) => {
                format!("quote `{raw}` (the value becomes the string \"{raw}\", not \"{b}\")")
            }
            None => format!("quote `{raw}`"),
        },
        // Quoting keeps the text the author wrote; for `true`, `1` or a date that is the
        // value Kubernetes means too. For `yes` it is not (see `meant`).
        applicability: if r.meant.is_some() {
            Applicability::Unsafe
        } else {
            Applicability::Safe
        },
        edits: vec![edit(format!("\"{raw}\""))],
    });
    match r.meant {
        Some(b) => d.with_suggestion(Fix {
            description: format!("write \"{b}\" (the boolean Kubernetes reads `{raw}` as)"),
            applicability: Applicability::DisplayOnly,
            edits: vec![edit(format!("\"{b}\""))],
        }),
        None => d,
    }
}
