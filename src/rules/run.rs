//! The rule loop: every rule runs under a panic guard, so a bug in one rule costs only its
//! own findings.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::panic::{catch, InternalError};
use crate::rules::{Context, Rule};

/// Runs every rule, each guarded: a rule that panics adds none of its findings (they may be
/// half-made) and one `InternalError` naming it; the other rules' findings are all kept.
///
/// Rules push straight into `out`, which is cut back to where it was when one crashes:
/// collecting each rule's findings apart and appending them kept two copies of the largest
/// rule's findings alive at once (917,446 TKE001 findings of 360 bytes: 330 MB more).
///
/// A rule that yields to other rules' verdicts runs after all the others (`claims.rs`).
pub(crate) fn run_rules(
    rules: &[&dyn Rule],
    cx: &Context<'_>,
    out: &mut Vec<Diagnostic>,
) -> Vec<InternalError> {
    let mut errors = Vec::new();
    let judges = rules.iter().filter(|r| !r.yields_to_verdicts());
    let yielding = rules.iter().filter(|r| r.yields_to_verdicts());
    for rule in judges.chain(yielding) {
        let before = out.len();
        match catch(|| rule.check(cx, out)) {
            Ok(()) => cap_unstated_provider(cx, rule.meta(), &mut out[before..]),
            Err(crash) => {
                out.truncate(before);
                let meta = rule.meta();
                errors.push(InternalError {
                    what: format!("rule {} ({})", meta.id, meta.name),
                    lost: "its findings are missing from this report",
                    crash,
                });
            }
        }
    }
    errors
}

/// With no profile, a cloud's rule judged an object by its annotations alone: the cluster
/// may be another cloud, so an error of that rule is at most a warning, and the help names
/// the field that settles it (DEVELOPERS.md, Severity). Applied to each rule's findings as
/// the rule returns them, by each finding's own rule's metadata.
fn cap_unstated_provider(cx: &Context<'_>, rule: &RuleMeta, findings: &mut [Diagnostic]) {
    if !cx.profile.is_absent() {
        return;
    }
    // Nearly every finding is the running rule's own: no catalog scan for those.
    let cloud_rule = |id: &str| {
        if id == rule.id {
            rule.is_cloud_rule()
        } else {
            crate::catalog::lookup(id).is_some_and(|m| m.is_cloud_rule())
        }
    };
    for d in findings.iter_mut() {
        if d.severity() == Severity::Error && cloud_rule(d.rule()) {
            d.set_severity(Severity::Warning);
            d.add_help(
                "no profile given: the object's annotations alone say which cloud runs it; a \
                 profile with `spec.provider` makes this an error on that cloud",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::RuleMeta;
    use crate::check::check_sources_with;
    use crate::diagnostic::Severity;
    use crate::panic::install_hook;
    use crate::rules::k8s::annotation_value_not_string::AnnotationValueNotString;

    static BROKEN: RuleMeta = RuleMeta {
        id: "TST901",
        name: "broken-rule",
        default_severity: Severity::Error,
        providers: crate::catalog::Providers::Any,
        summary: "panics after reporting a finding",
        fix: crate::catalog::FixAvailability::None,
        doc: "",
    };

    /// A rule with a bug: it reports something about the first object, then indexes out of range.
    struct Broken;

    impl Rule for Broken {
        fn meta(&self) -> &'static RuleMeta {
            &BROKEN
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            let object = &cx.ws.objects[0];
            let span = cx.ws.root(object).span();
            let location = cx.ws.location(object, span);
            out.push(BROKEN.diagnostic(Severity::Error, location, "half-made finding"));
            let empty: Vec<usize> = Vec::new();
            let _ = empty[cx.ws.objects.len()];
        }
    }

    const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    scrape: true
spec:
  ports:
    - port: 80
";

    #[test]
    fn a_crashing_rule_is_named_and_the_other_rules_still_report() {
        install_hook();
        let files = [("svc.yaml".to_string(), SERVICE.as_bytes().to_vec())];
        let outcome = check_sources_with(
            &files,
            &crate::profile::generic(),
            &[&Broken, &AnnotationValueNotString, &Broken],
        );
        let found: Vec<_> = outcome
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.rule(),
                    d.location().span.start.line,
                    d.location().span.start.column,
                )
            })
            .collect();
        // K8S002's finding is there; the broken rule's half-made one is not.
        assert_eq!(found, [("K8S002", 6, 13)]);
        assert_eq!(outcome.internal_errors.len(), 2);
        let error = &outcome.internal_errors[0];
        assert_eq!(error.what, "rule TST901 (broken-rule)");
        assert!(
            error.crash.message.starts_with("index out of bounds"),
            "{error:?}"
        );
        let location = error.crash.location.as_deref().unwrap_or_default();
        assert!(location.starts_with("src/rules/run.rs:"), "{location}");
        let line = error.to_string();
        assert!(
            line.starts_with("internal error: rule TST901 (broken-rule) crashed (index out of bounds")
                && line.ends_with(
                    "its findings are missing from this report. This is a bug in lblint: please report it"
                )
                && !line.contains('\n'),
            "{line}"
        );
    }
}
