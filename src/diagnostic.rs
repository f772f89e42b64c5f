//! Diagnostics: what a rule found, where, and how to fix it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::source::{Location, ObjectRef, Span};
pub(crate) use fix::FixRef;
pub(crate) use text::Text;

use few::Few;
use fix::StoredFix;
use text::Place;

mod few;
mod fix;
mod text;

/// What a finding can be about: a Kubernetes object's identity and the template it was
/// rendered from. The object model implements it, so findings need not know objects.
pub(crate) trait Subject {
    fn identity(&self) -> &Arc<ObjectRef>;
    fn origin(&self) -> Option<&Arc<str>>;
}

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
    pub(crate) fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Note => Some(Severity::Note),
            FailOn::Never => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Related {
    pub location: Location,
    pub message: Text,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Applicability {
    /// Keeps the manifest's meaning apart from the finding itself; `--fix` applies it.
    Safe,
    /// Changes behaviour beyond the finding; needs `--unsafe-fixes`.
    Unsafe,
    /// Shown, never applied: a change to make by hand, or an alternative to the fix.
    DisplayOnly,
}

/// Replace the bytes of `span` in the diagnostic's file with `content` (empty span: insert).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Edit {
    pub span: Span,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fix {
    pub description: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A change to make by hand: described, with no edits (only ever a suggestion).
    pub(crate) fn manual(description: impl Into<String>) -> Fix {
        Fix {
            description: description.into(),
            applicability: Applicability::DisplayOnly,
            edits: Vec::new(),
        }
    }
}

/// A finding. What is the same across a rule's findings is shared, not copied: texts
/// keep only what differs from a recent text of the rule (`Text`), fixes only where
/// their edits go (`FixRef`), and the object's identity and template origin are the
/// object's own (`Arc`). What many findings lack (related locations, a fix) is one box,
/// and what few have (suggestions, an origin) a box in that. The fields are private so this can change: read them through
/// the accessors, build them with `with_*`. On a stream of 917,446 TKE001 findings that
/// took a finding from about 2.7 KB to about 0.3 KB.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    rule: &'static RuleName,
    severity: Severity,
    message: Text,
    location: Location,
    help: Option<Text>,
    object: Option<Arc<ObjectRef>>,
    rest: Option<Box<Rest>>,
}

/// A rule's id and name, one pointer in each finding.
#[derive(Debug, PartialEq, Eq)]
struct RuleName {
    id: &'static str,
    name: &'static str,
}

thread_local! {
    /// Each rule's [`RuleName`], made once per thread (a few dozen, never freed).
    static RULES: RefCell<HashMap<(&'static str, &'static str), &'static RuleName>> =
        RefCell::new(HashMap::new());
}

impl RuleName {
    fn of(id: &'static str, name: &'static str) -> &'static RuleName {
        RULES.with(|rules| {
            *rules
                .borrow_mut()
                .entry((id, name))
                .or_insert_with(|| Box::leak(Box::new(RuleName { id, name })))
        })
    }
}

/// The parts of a finding that many findings lack: one allocation for a finding with a
/// related location and a fix, the common case.
#[derive(Clone, Debug, Default, PartialEq)]
struct Rest {
    related: Few<Related>,
    fix: Option<StoredFix>,
    more: Option<Box<More>>,
}

/// What few findings have.
#[derive(Clone, Debug, Default, PartialEq)]
struct More {
    suggestions: Few<StoredFix>,
    origin: Option<Arc<str>>,
    /// The template `origin` names is not in the repository: the rendered file is fixed.
    template_absent: bool,
    /// A location is in a Secret's values: no report quotes the source around it.
    secret_text: bool,
}

impl Diagnostic {
    pub(crate) fn new(
        rule: &'static str,
        name: &'static str,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule: RuleName::of(rule, name),
            severity,
            message: Text::shared(rule, Place::Message, message.into()),
            location,
            help: None,
            object: None,
            rest: None,
        }
    }

    fn rest_mut(&mut self) -> &mut Rest {
        self.rest.get_or_insert_with(Box::default)
    }

    fn more_mut(&mut self) -> &mut More {
        self.rest_mut().more.get_or_insert_with(Box::default)
    }

    fn more(&self) -> Option<&More> {
        self.rest.as_deref()?.more.as_deref()
    }

    /// A location of this finding is in a Secret's values (a caller reads its address
    /// from one): reports name the places but quote no source text.
    pub(crate) fn with_secret_text(mut self) -> Self {
        self.more_mut().secret_text = true;
        self
    }

    pub(crate) fn shows_secret_text(&self) -> bool {
        self.more().is_some_and(|m| m.secret_text)
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(Text::shared(self.rule.id, Place::Help, help.into()));
        self
    }

    /// The object the finding is about: its identity for output and suppressions, and its
    /// template origin (Helm `# Source:`, kustomize origin) for people.
    pub(crate) fn on(mut self, object: &impl Subject) -> Self {
        self.object = Some(object.identity().clone());
        if object.origin().is_some() || self.more().is_some() {
            self.more_mut().origin = object.origin().cloned();
        }
        self
    }

    /// The object the finding is about, by identity only (no template origin).
    pub(crate) fn about(mut self, id: Arc<ObjectRef>) -> Self {
        self.object = Some(id);
        self
    }

    pub(crate) fn with_related(mut self, location: Location, message: impl Into<String>) -> Self {
        let related = Related {
            location,
            message: Text::shared(self.rule.id, Place::Related, message.into()),
        };
        let list = &mut self.rest_mut().related;
        list.insert(list.len(), related);
        self
    }

    /// The fix `--fix` may apply. Takes an `Option` too, since the edit helpers give `None`
    /// where the manifest's layout does not allow the edit: the finding then has no fix.
    pub(crate) fn with_fix(mut self, fix: impl Into<Option<Fix>>) -> Self {
        let fix = fix.into().map(|fix| StoredFix::new(self.rule.id, fix));
        if fix.is_some() || self.rest.is_some() {
            self.rest_mut().fix = fix;
        }
        self
    }

    pub(crate) fn with_suggestion(mut self, suggestion: Fix) -> Self {
        let suggestion = Fix {
            applicability: Applicability::DisplayOnly,
            ..suggestion
        };
        let stored = StoredFix::new(self.rule.id, suggestion);
        let list = &mut self.more_mut().suggestions;
        list.insert(list.len(), stored);
        self
    }

    /// The same finding at another place (a rendered object's finding, moved to the file
    /// that produced the object).
    pub(crate) fn relocated(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// Move related location `i`, if there is one.
    pub(crate) fn relocate_related(&mut self, i: usize, location: Location) {
        if let Some(rest) = self.rest.as_deref_mut() {
            if let Some(related) = rest.related.as_mut_slice().get_mut(i) {
                related.location = location;
            }
        }
    }

    /// Keep what the fix and the suggestions say and how safe they are, not their edits:
    /// those were planned on a rendered text that no file holds.
    pub(crate) fn drop_edits(&mut self) {
        let rule = self.rule.id;
        let Some(rest) = self.rest.as_deref_mut() else {
            return;
        };
        let bare = |stored: &StoredFix| {
            let fix = stored.as_ref();
            let said = Fix {
                description: fix.description().to_string(),
                applicability: fix.applicability(),
                edits: Vec::new(),
            };
            StoredFix::new(rule, said)
        };
        if let Some(fix) = &rest.fix {
            rest.fix = Some(bare(fix));
        }
        if let Some(more) = rest.more.as_deref_mut() {
            for suggestion in more.suggestions.as_mut_slice() {
                *suggestion = bare(suggestion);
            }
        }
    }

    /// The file to edit instead of the rendered text this finding is in.
    pub(crate) fn set_origin(&mut self, origin: Arc<str>) {
        self.more_mut().origin = Some(origin);
    }

    /// Tests: a template origin without an object to take it from.
    #[cfg(test)]
    pub(crate) fn with_origin(mut self, origin: &str) -> Self {
        self.more_mut().origin = Some(origin.into());
        self
    }

    /// Tests: the same finding with another message.
    #[cfg(test)]
    pub(crate) fn with_message(mut self, message: String) -> Self {
        self.message = Text::new(message);
        self
    }

    /// Another paragraph of help after the rule's own (or the only one).
    pub(crate) fn add_help(&mut self, more: &str) {
        let help = match &self.help {
            Some(help) => format!("{help}\n{more}"),
            None => more.to_owned(),
        };
        self.help = Some(Text::shared(self.rule.id, Place::Help, help));
    }

    /// The same finding at another severity (config levels).
    pub(crate) fn set_severity(&mut self, severity: Severity) {
        self.severity = severity;
    }

    /// Turn the fix and each suggestion that `refuse` gives a replacement for into that
    /// replacement (a by-hand suggestion): a refused fix becomes the first suggestion, so
    /// `--fix` never applies it.
    pub(crate) fn refuse_edits(&mut self, mut refuse: impl FnMut(FixRef<'_>) -> Option<Fix>) {
        let rule = self.rule.id;
        let Some(rest) = self.rest.as_deref_mut() else {
            return;
        };
        if let Some(more) = rest.more.as_deref_mut() {
            for suggestion in more.suggestions.as_mut_slice() {
                if let Some(manual) = refuse(suggestion.as_ref()) {
                    *suggestion = StoredFix::new(rule, manual);
                }
            }
        }
        let refused = rest.fix.as_ref().and_then(|fix| refuse(fix.as_ref()));
        if let Some(manual) = refused {
            rest.fix = None;
            let more = rest.more.get_or_insert_with(Box::default);
            more.suggestions.insert(0, StoredFix::new(rule, manual));
        }
    }

    /// Stable rule id, e.g. `TKE001`.
    pub fn rule(&self) -> &'static str {
        self.rule.id
    }

    /// Kebab-case rule name, e.g. `tke-l4-loopback`.
    pub(crate) fn name(&self) -> &'static str {
        self.rule.name
    }

    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// First sentence stands alone (SARIF and one-line formats show only it).
    pub fn message(&self) -> &Text {
        &self.message
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    pub(crate) fn related(&self) -> &[Related] {
        self.rest.as_deref().map_or(&[], |r| r.related.as_slice())
    }

    pub fn help(&self) -> Option<&Text> {
        self.help.as_ref()
    }

    /// The one fix `--fix` may apply (the vendor's documented fix for the finding).
    pub fn fix(&self) -> Option<FixRef<'_>> {
        self.rest.as_deref()?.fix.as_ref().map(StoredFix::as_ref)
    }

    /// Alternatives to the fix, shown in every report but never applied by `--fix`:
    /// applying two ways out of one problem at once changes the app twice. A suggestion
    /// may have no edits (a change lblint cannot make mechanically).
    pub fn suggestions(&self) -> impl ExactSizeIterator<Item = FixRef<'_>> + Clone {
        self.more()
            .map_or(&[][..], |m| m.suggestions.as_slice())
            .iter()
            .map(StoredFix::as_ref)
    }

    /// The object the finding is about, when it is about one.
    pub fn object(&self) -> Option<&ObjectRef> {
        self.object.as_deref()
    }

    /// Template the object was rendered from (Helm `# Source:`, kustomize origin).
    pub(crate) fn origin(&self) -> Option<&str> {
        self.more()?.origin.as_deref()
    }

    /// The template to edit instead of this finding's file: its origin, unless that
    /// template is not in the repository (then the rendered file is the one to fix).
    pub(crate) fn edit_elsewhere(&self) -> Option<&str> {
        self.origin().filter(|_| !self.template_absent())
    }

    /// Whether the template of the origin was looked for in the repository and not found.
    pub(crate) fn template_absent(&self) -> bool {
        self.more().is_some_and(|m| m.template_absent)
    }

    /// The origin's template is not in the repository: fix the rendered file.
    pub(crate) fn set_template_absent(&mut self) {
        self.more_mut().template_absent = true;
    }

    /// Deterministic output order: file, position, rule.
    pub(crate) fn sort_key(&self) -> (&str, usize, &'static str, &Text) {
        (
            &self.location.file,
            self.location.span.start.offset,
            self.rule.id,
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
    pub(crate) fn count(&mut self, severity: Severity) {
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
    use crate::source::Pos;

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
        .with_related(
            location.clone(),
            "the Service gets a cloud load balancer here",
        )
        .with_fix(Fix {
            description: "add annotation `prevent-loopback: \"true\"`".into(),
            applicability: Applicability::Unsafe,
            edits: vec![Edit {
                span: Span {
                    start: Pos {
                        offset: name.len(),
                        ..Pos::default()
                    },
                    ..Span::default()
                },
                content: "    prevent-loopback: \"true\"\n".into(),
            }],
        })
    }

    /// What a finding holds for itself: a stream of 917,446 findings multiplies it.
    #[test]
    fn findings_of_one_rule_share_their_texts_and_stay_small() {
        let (a, b) = (finding("ledger"), finding("payments-api"));
        assert!(b.message().shares_base_with(a.message()));
        let help = |d: &Diagnostic| d.help().cloned().unwrap_or_default();
        assert!(help(&b).shares_base_with(&help(&a)));
        assert!(b.related()[0]
            .message
            .shares_base_with(&a.related()[0].message));
        assert_eq!(
            b.message().to_string(),
            "Service `payments-api` may loop back in-cluster calls to its own address."
        );
        assert_eq!(b.related().len(), 1);
        let (fa, fb) = (a.fix().unwrap(), b.fix().unwrap());
        assert!(fb.shares_body_with(&fa));
        assert_eq!(fb.edits().next().unwrap().span.start.offset, 12);
        assert_eq!(
            fb.to_fix().edits[0].content,
            "    prevent-loopback: \"true\"\n"
        );
        assert!(std::mem::size_of::<Diagnostic>() <= 160);
        // A related location and a fix: one allocation of 144 bytes besides the record.
        assert!(std::mem::size_of::<Rest>() <= 144);
        assert!(std::mem::size_of::<Text>() <= 40);
    }
}
