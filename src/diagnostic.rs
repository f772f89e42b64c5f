//! Diagnostics: what a rule found, where, and how to fix it.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

pub use crate::objects::ObjectRef;
pub use crate::source::{Location, Span};
pub use text::Text;

use text::Place;

mod text;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The lowest severity that fails a run (exit 1): `--fail-on` and the config's `failOn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

impl FailOn {
    /// The severity at or above which a finding fails the run; `None` for `never`.
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Note => Some(Severity::Note),
            FailOn::Never => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub location: Location,
    pub message: Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Keeps the manifest's meaning apart from the finding itself; `--fix` applies it.
    Safe,
    /// Changes behaviour beyond the finding; needs `--unsafe-fixes`.
    Unsafe,
    /// Shown, never applied: a change to make by hand, or an alternative to the fix.
    DisplayOnly,
}

/// Replace the bytes of `span` in the diagnostic's file with `content` (empty span: insert).
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub span: Span,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub description: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A change to make by hand: described, with no edits (only ever a suggestion).
    pub fn manual(description: impl Into<String>) -> Fix {
        Fix {
            description: description.into(),
            applicability: Applicability::DisplayOnly,
            edits: Vec::new(),
        }
    }
}

/// A finding. What is the same across a rule's findings is shared, not copied: texts
/// keep only what differs from a recent text of the rule ([`Text`]), and the object's
/// identity and template origin are the object's own (`Arc`). On a stream of 917,446
/// TKE001 findings that took a finding from about 2.7 KB to about 0.6 KB.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Stable rule id, e.g. `TKE001`.
    pub rule: &'static str,
    /// Kebab-case rule name, e.g. `tke-l4-loopback`.
    pub name: &'static str,
    pub severity: Severity,
    /// First sentence stands alone (SARIF and one-line formats show only it).
    pub message: Text,
    pub location: Location,
    pub related: Vec<Related>,
    pub help: Option<Text>,
    /// The one fix `--fix` may apply (the vendor's documented fix for the finding).
    pub fix: Option<Fix>,
    /// Alternatives to `fix`, shown in every report but never applied by `--fix`:
    /// applying two ways out of one problem at once changes the app twice. A suggestion
    /// may have no edits (a change lblint cannot make mechanically).
    pub suggestions: Vec<Fix>,
    pub object: Option<Arc<ObjectRef>>,
    /// Template the object was rendered from (Helm `# Source:`, kustomize origin).
    pub origin: Option<Arc<str>>,
}

impl Diagnostic {
    pub fn new(
        rule: &'static str,
        name: &'static str,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule,
            name,
            severity,
            message: Text::shared(rule, Place::Message, message.into()),
            location,
            related: Vec::new(),
            help: None,
            fix: None,
            suggestions: Vec::new(),
            object: None,
            origin: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(Text::shared(self.rule, Place::Help, help.into()));
        self
    }

    /// The object the finding is about: its identity for output and suppressions, and its
    /// template origin (Helm `# Source:`, kustomize origin) for people.
    pub fn on(mut self, object: &crate::objects::Object) -> Self {
        self.object = Some(object.id.clone());
        self.origin = object.origin.clone();
        self
    }

    pub fn with_related(mut self, location: Location, message: impl Into<String>) -> Self {
        // Most findings have one related location: room for exactly one, not the four a
        // first push makes room for.
        self.related.reserve_exact(1);
        self.related.push(Related {
            location,
            message: Text::shared(self.rule, Place::Related, message.into()),
        });
        self
    }

    /// The fix `--fix` may apply. Takes an `Option` too, since the edit helpers give `None`
    /// where the manifest's layout does not allow the edit: the finding then has no fix.
    pub fn with_fix(mut self, fix: impl Into<Option<Fix>>) -> Self {
        self.fix = fix.into();
        self
    }

    pub fn with_suggestion(mut self, suggestion: Fix) -> Self {
        self.suggestions.push(Fix {
            applicability: Applicability::DisplayOnly,
            ..suggestion
        });
        self
    }

    /// Deterministic output order: file, position, rule.
    pub fn sort_key(&self) -> (&str, usize, &'static str, &Text) {
        (
            &self.location.file,
            self.location.span.start.offset,
            self.rule,
            &self.message,
        )
    }
}

/// Counts for the run, shown in every format.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub objects: usize,
    pub error: usize,
    pub warning: usize,
    pub note: usize,
    /// Findings hidden by suppressions (comments, annotations, config `ignore:`).
    pub suppressed: usize,
}

impl Summary {
    pub fn count(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.error += 1,
            Severity::Warning => self.warning += 1,
            Severity::Note => self.note += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(name: &str) -> Diagnostic {
        let location = Location {
            file: "svc.yaml".into(),
            span: Span::default(),
        };
        Diagnostic::new(
            "TST010",
            "test-rule",
            Severity::Warning,
            location.clone(),
            format!("Service `{name}` may loop back in-cluster calls to its own address."),
        )
        .with_help(format!(
            "add the annotation, or have in-cluster clients call `{name}` (`{name}.shop` from \
             other namespaces)"
        ))
        .with_related(location, "the Service gets a cloud load balancer here")
    }

    /// What a finding holds for itself: a stream of 917,446 findings multiplies it.
    #[test]
    fn findings_of_one_rule_share_their_texts_and_stay_small() {
        let (a, b) = (finding("ledger"), finding("payments-api"));
        assert!(b.message.shares_base_with(&a.message));
        let help = |d: &Diagnostic| d.help.clone().unwrap_or_default();
        assert!(help(&b).shares_base_with(&help(&a)));
        assert!(b.related[0].message.shares_base_with(&a.related[0].message));
        assert_eq!(
            b.message.to_string(),
            "Service `payments-api` may loop back in-cluster calls to its own address."
        );
        assert_eq!(b.related.capacity(), 1);
        assert!(std::mem::size_of::<Diagnostic>() <= 296);
        assert!(std::mem::size_of::<Text>() <= 40);
    }
}
