//! Diagnostics the loader itself reports: input lblint could not read or lint. The
//! loader finds the facts (`load.rs`); the words are here, with the rules'.

use std::sync::Arc;

use super::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::Location;
use crate::source::{Pos, Span};
use crate::yaml::{DuplicateKey, LoadedFile};

pub(crate) use crate::catalog::meta::LBL001 as YAML_SYNTAX;

pub(crate) use crate::catalog::meta::LBL002 as UNRENDERED_TEMPLATE;

pub(crate) use crate::catalog::meta::LBL003 as FILE_SKIPPED;

pub(crate) use crate::catalog::meta::LBL004 as UNUSED_SUPPRESSION;

pub(crate) use crate::catalog::meta::LBL005 as DUPLICATE_KEY;

pub(crate) use crate::catalog::meta::LBL006 as EXCESSIVE_ALIASING;

pub(crate) use crate::catalog::meta::LBL008 as RENDER_FAILED;

pub(crate) use crate::catalog::meta::LBL009 as KUSTOMIZATION_NOT_RENDERED;

pub static ALL: [&RuleMeta; 8] = [
    &YAML_SYNTAX,
    &UNRENDERED_TEMPLATE,
    &FILE_SKIPPED,
    &UNUSED_SUPPRESSION,
    &DUPLICATE_KEY,
    &EXCESSIVE_ALIASING,
    &RENDER_FAILED,
    &KUSTOMIZATION_NOT_RENDERED,
];

/// `LBL003`: a file that is not linted, and why; at `pos`, else the file's start.
pub(crate) fn file_skipped(path: &str, reason: &str, pos: Option<Pos>) -> Diagnostic {
    let pos = pos.unwrap_or(Pos {
        line: 1,
        column: 1,
        offset: 0,
    });
    FILE_SKIPPED.diagnostic(
        Severity::Warning,
        Location {
            file: Arc::from(path),
            span: Span {
                start: pos,
                end: pos,
            },
        },
        format!("File not linted: {reason}."),
    )
}

/// `LBL002`: a Helm template's first `{{` action, at `span`.
pub(crate) fn unrendered_template(file: &Arc<str>, span: Span) -> Diagnostic {
    UNRENDERED_TEMPLATE
        .diagnostic(
            Severity::Note,
            Location {
                file: file.clone(),
                span,
            },
            "Unrendered Helm template skipped: `{{ ... }}` actions are not Kubernetes YAML.",
        )
        .with_help(
            "lint the rendered output instead: `helm template RELEASE CHART | lblint check -`",
        )
}

/// What loading `loaded` found wrong in file `file`: syntax errors (`LBL001`), documents
/// whose aliases or merge keys expand too far (`LBL006`), and keys written twice in a
/// document that `is_object` (`LBL005`; other YAML is skipped silently, like every other
/// finding).
pub(crate) fn loader_diagnostics(
    file: &Arc<str>,
    loaded: &LoadedFile,
    is_object: impl Fn(usize) -> bool,
) -> Vec<Diagnostic> {
    let at = |span: Span| Location {
        file: file.clone(),
        span,
    };
    let mut diagnostics = Vec::new();
    for error in &loaded.errors {
        diagnostics.push(
            YAML_SYNTAX
                .diagnostic(
                    Severity::Error,
                    at(error.span),
                    format!("YAML syntax error: {}.", error.message.trim_end_matches('.')),
                )
                .with_help("this document is not linted until the syntax error is fixed; other documents are"),
        );
    }
    for too_complex in &loaded.too_complex {
        let (severity, help) = if too_complex.rejected_by_kubernetes {
            (Severity::Error, "write the repeated content out, or merge fewer copies per level; `kubectl apply` fails on this document")
        } else {
            (Severity::Warning, "write the repeated content out, or merge fewer copies per level; this document is not linted")
        };
        diagnostics.push(
            EXCESSIVE_ALIASING
                .diagnostic(
                    severity,
                    at(too_complex.span),
                    format!("Document not linted: {}.", too_complex.message),
                )
                .with_help(help),
        );
    }
    let object_dups: Vec<&DuplicateKey> = loaded
        .duplicate_keys
        .iter()
        .filter(|d| is_object(d.document))
        .collect();
    let seams = seams(&object_dups);
    for dup in &object_dups {
        if seams.contains(&dup.document) && dup.root {
            continue;
        }
        diagnostics.push(
            DUPLICATE_KEY
                .diagnostic(
                    Severity::Warning,
                    at(dup.second),
                    format!(
                        "Duplicate key `{}`: Kubernetes keeps this value and silently drops the earlier one.",
                        dup.key
                    ),
                )
                .with_related(at(dup.first), "first written here; this value is discarded")
                .with_help("delete one of the two entries (or merge them) so the manifest says what is applied"),
        );
    }
    for &document in &seams {
        diagnostics.push(seam(&at, &object_dups, document));
    }
    diagnostics
}

/// The documents whose root mapping repeats `apiVersion` or `kind`: two objects pasted
/// without `---` between them, one cause however many keys they share.
fn seams(dups: &[&DuplicateKey]) -> Vec<usize> {
    let mut found: Vec<usize> = dups
        .iter()
        .filter(|d| d.root && matches!(d.key.as_str(), "apiVersion" | "kind"))
        .map(|d| d.document)
        .collect();
    found.dedup();
    found
}

/// `LBL005` once for a glued seam: at the first key written again (where the second object
/// starts), naming every repeated top-level key.
fn seam(at: &impl Fn(Span) -> Location, dups: &[&DuplicateKey], document: usize) -> Diagnostic {
    let mut repeated: Vec<&DuplicateKey> = dups
        .iter()
        .copied()
        .filter(|d| d.document == document && d.root)
        .collect();
    repeated.sort_by_key(|d| d.second.start.offset);
    let start = repeated[0];
    let keys: Vec<String> = repeated.iter().map(|d| format!("`{}`", d.key)).collect();
    DUPLICATE_KEY
        .diagnostic(
            Severity::Warning,
            at(start.second),
            format!(
                "Two objects pasted without `---` between them: {} are written again from here, \
                 so Kubernetes reads one object with the later values and the earlier object is lost.",
                list_and(&keys)
            ),
        )
        .with_related(at(start.first), format!("the earlier object's `{}`", start.key))
        .with_help(format!(
            "add a `---` line before line {} so each object is its own document",
            start.second.start.line
        ))
}

/// `a`, `a and b`, `a, b and c`.
fn list_and(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}
