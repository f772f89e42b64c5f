use super::*;
use crate::check::check_sources_with;
use crate::diagnostic::Severity;
use crate::rules::k8s::annotation_value_not_string::AnnotationValueNotString;
use crate::rules::RuleMeta;

static BROKEN: RuleMeta = RuleMeta {
    id: "TST901",
    name: "broken-rule",
    default_severity: Severity::Error,
    providers: &["any"],
    summary: "panics after reporting a finding",
    fix: crate::rules::FixAvailability::None,
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
                d.rule,
                d.location.span.start.line,
                d.location.span.start.column,
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
    assert!(location.starts_with("src/guard_tests.rs:"), "{location}");
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

#[test]
fn catch_returns_the_value_or_the_panic_message() {
    install_hook();
    assert_eq!(catch(|| 7), Ok(7));
    let crash = catch(|| -> u8 { panic!("bad {}", "input") }).unwrap_err();
    assert_eq!(crash.message, "bad input");
    assert!(crash
        .location
        .is_some_and(|l| l.starts_with("src/guard_tests.rs:")));
    // Nested guards each see their own crash; the outer one goes on.
    let outer = catch(|| {
        let inner = catch(|| -> () { panic!("inner") });
        assert_eq!(inner.unwrap_err().message, "inner");
        5
    });
    assert_eq!(outer, Ok(5));
    assert_eq!(DEPTH.with(Cell::get), 0, "every guard was left");
}

#[test]
fn an_internal_error_is_one_escaped_line() {
    let error = InternalError {
        what: "the human reporter".to_string(),
        lost: "no report was written",
        crash: Crash {
            message: "bad\nvalue \u{1b}[2J".to_string(),
            location: None,
        },
    };
    assert_eq!(
        error.to_string(),
        "internal error: the human reporter crashed (bad value \\u{1b}[2J); no report was \
         written. This is a bug in lblint: please report it"
    );
}

/// A reporter with a bug in the formats listed; the others write their name.
fn reporter(broken: &'static [Format]) -> impl FnMut(Format, &mut Vec<u8>) -> io::Result<()> {
    move |format, out| {
        out.extend_from_slice(b"partial ");
        if broken.contains(&format) {
            panic!("{format} is broken");
        }
        out.extend_from_slice(format.as_str().as_bytes());
        Ok(())
    }
}

#[test]
fn a_crashing_human_reporter_falls_back_to_compact_lines() {
    install_hook();
    let rendered = render_report(Format::Human, reporter(&[Format::Human])).unwrap();
    assert_eq!(rendered.bytes, b"partial compact");
    let crash = rendered.crash.unwrap();
    assert_eq!(crash.what, "the human reporter");
    assert_eq!(crash.crash.message, "human is broken");
    assert_eq!(
        crash.lost,
        "the findings are listed in the compact format instead"
    );
}

#[test]
fn a_crashing_machine_reporter_writes_nothing() {
    install_hook();
    for format in [Format::Json, Format::Sarif] {
        let rendered = render_report(format, reporter(&[Format::Json, Format::Sarif])).unwrap();
        assert!(rendered.bytes.is_empty(), "no half document");
        assert_eq!(rendered.crash.unwrap().lost, "no report was written");
    }
    let both = render_report(Format::Human, reporter(&[Format::Human, Format::Compact])).unwrap();
    assert!(both.bytes.is_empty());
    assert_eq!(both.crash.unwrap().lost, "no report was written");
}

#[test]
fn a_working_reporter_and_io_errors_pass_through() {
    let rendered = render_report(Format::Github, reporter(&[])).unwrap();
    assert_eq!(rendered.bytes, b"partial github");
    assert!(rendered.crash.is_none());
    let failing = render_report(Format::Human, |_, _| Err(io::Error::other("disk full")));
    assert_eq!(failing.unwrap_err().to_string(), "disk full");
}
