//! Snapshot tests over hand-built diagnostics: the snapshots are the format contract.

use std::sync::Arc;

use super::*;
use crate::diagnostic::{Applicability, Edit, Fix, Severity};
use crate::source::SourceFile;
use crate::source::{Location, ObjectRef};
use crate::source::{Pos, Span};

const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-1234
spec:
  type: LoadBalancer
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
";

const SECOND: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
  annotations:
    service.cloud.tencent.com/prevent-loopback: \"yes\"
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
";

/// Computes positions independently of the code under test (lines end at `\r\n`, `\n` or
/// a lone `\r`, as in YAML).
fn pos(text: &str, offset: usize) -> Pos {
    let before = &text[..offset];
    let breaks = before.replace("\r\n", "\n").replace('\r', "\n");
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    Pos {
        line: breaks.matches('\n').count() as u32 + 1,
        column: before[line_start..].chars().count() as u32 + 1,
        offset,
    }
}

/// Location of the `nth` (0-based) occurrence of `needle` in `text`.
pub(super) fn find(file: &str, text: &str, needle: &str, nth: usize) -> Location {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} not in {file}"))
        .0;
    span_at(file, text, start, start + needle.len())
}

pub(super) fn span_at(file: &str, text: &str, start: usize, end: usize) -> Location {
    Location {
        file: Arc::from(file),
        span: Span {
            start: pos(text, start),
            end: pos(text, end),
        },
    }
}

pub(super) fn sources(files: &[(&str, &str)]) -> SourceMap {
    let mut map = SourceMap::default();
    for (path, text) in files {
        map.insert(Arc::new(SourceFile::new(
            Arc::from(*path),
            text.to_string(),
        )));
    }
    map
}

fn basic() -> (Vec<Diagnostic>, Summary, SourceMap) {
    let svc = "deploy/web-svc.yaml";
    let second = "deploy/api-svc.yaml";
    let client = find(
        "deploy/web-client.yaml",
        "kind: Pod\nspec:\n  host: 10.0.0.7\n",
        "10.0.0.7",
        0,
    );
    let key = find(
        svc,
        SERVICE,
        "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid",
        0,
    );
    let insert_at = Span {
        start: key.span.start,
        end: key.span.start,
    };
    let error = Diagnostic::new(
        "TKE001",
        "tke-l4-loopback",
        Severity::Error,
        key,
        "Service default/web gets an internal CLB that loops in-cluster traffic back to its own node.\n\
         Pods on the backend node that call the CLB address time out.",
    )
    .with_related(
        find(svc, SERVICE, "LoadBalancer", 0),
        "load balancer requested here",
    )
    .with_related(client, "in-cluster client calls the CLB address")
    .with_help("add `service.cloud.tencent.com/prevent-loopback: \"true\"` to the annotations")
    .with_fix(Fix {
        description: "add prevent-loopback annotation".to_string(),
        applicability: Applicability::Safe,
        edits: vec![Edit {
            span: insert_at,
            content: "service.cloud.tencent.com/prevent-loopback: \"true\"\n    ".to_string(),
        }],
    });
    let error = error
        .about(Arc::new(ObjectRef {
            api_version: "v1".into(),
            kind: "Service".into(),
            namespace: Some("default".into()),
            name: "web".into(),
        }))
        .with_origin("charts/web/templates/service.yaml");

    let value = find(second, SECOND, "\"yes\"", 0);
    let warning = Diagnostic::new(
        "TST002",
        "tke-prevent-loopback-value",
        Severity::Warning,
        value.clone(),
        "prevent-loopback is \"yes\"; TKE only honours \"true\"",
    )
    .with_fix(Fix {
        description: "set the annotation to \"true\"".to_string(),
        applicability: Applicability::Unsafe,
        edits: vec![Edit {
            span: value.span,
            content: "\"true\"".to_string(),
        }],
    })
    // Alternatives: one with an edit, one by hand (no edits: absent from SARIF).
    .with_suggestion(Fix {
        description: "remove the annotation's effect with \"false\"".to_string(),
        applicability: Applicability::DisplayOnly,
        edits: vec![Edit {
            span: value.span,
            content: "\"false\"".to_string(),
        }],
    })
    .with_suggestion(Fix::manual("enable SNAT on the CLB listeners, by hand"));
    let warning = warning.about(Arc::new(ObjectRef {
        api_version: "v1".into(),
        kind: "Service".into(),
        namespace: Some("shop".into()),
        name: "api".into(),
    }));

    // Zero-length span at the end of the `spec:` line: where a key is missing.
    let spec_end = SECOND.find("spec:").unwrap() + "spec:".len();
    let note = Diagnostic::new(
        "LB001",
        "local-traffic-policy",
        Severity::Note,
        span_at(second, SECOND, spec_end, spec_end),
        "externalTrafficPolicy: Local drops traffic on nodes without a ready endpoint",
    );

    let diagnostics = vec![error, warning, note];
    let summary = Summary {
        files: 3,
        objects: 3,
        error: 1,
        warning: 1,
        note: 1,
        suppressed: 0,
    };
    (
        diagnostics,
        summary,
        sources(&[(svc, SERVICE), (second, SECOND)]),
    )
}

pub(super) fn report(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    map: &SourceMap,
) -> String {
    report_with(format, diagnostics, summary, map, &ReportOptions::default())
}

fn report_with(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    map: &SourceMap,
    options: &ReportOptions,
) -> String {
    let mut out = Vec::new();
    write_report(format, diagnostics, summary, map, options, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, $text)
        })
    };
}
pub(super) use snapshot;

#[test]
fn human_basic() {
    let (diagnostics, summary, map) = basic();
    let text = report(Format::Human, &diagnostics, &summary, &map);
    assert!(!text.contains('\x1b'), "no ANSI codes without colour");
    snapshot!("report_human_basic", text);
}

#[test]
fn compact_basic() {
    let (diagnostics, summary, map) = basic();
    snapshot!(
        "report_compact_basic",
        report(Format::Compact, &diagnostics, &summary, &map)
    );
}

#[test]
fn json_basic() {
    let (diagnostics, summary, map) = basic();
    snapshot!(
        "report_json_basic",
        report(Format::Json, &diagnostics, &summary, &map)
    );
}

fn empty_summary() -> Summary {
    Summary {
        files: 3,
        objects: 12,
        ..Summary::default()
    }
}

#[test]
fn human_empty() {
    let text = report(Format::Human, &[], &empty_summary(), &SourceMap::default());
    snapshot!("report_human_empty", text);
}

#[test]
fn compact_empty() {
    let text = report(
        Format::Compact,
        &[],
        &empty_summary(),
        &SourceMap::default(),
    );
    assert_eq!(text, "");
    snapshot!("report_compact_empty", text);
}

#[test]
fn json_empty() {
    let text = report(Format::Json, &[], &empty_summary(), &SourceMap::default());
    snapshot!("report_json_empty", text);
}

/// CRLF line ends, and a tab before the span (tabs expand to 4 columns).
#[test]
fn human_crlf_and_tab() {
    let path = "win/svc.yaml";
    let text =
        "apiVersion: v1\r\nkind: Service\r\nspec:\r\n  type:\tLoadBalancer\r\n  ports: []\r\n";
    let location = find(path, text, "LoadBalancer", 0);
    assert_eq!(
        (location.span.start.line, location.span.start.column),
        (4, 9)
    );
    let diagnostics = vec![Diagnostic::new(
        "TKE001",
        "tke-l4-loopback",
        Severity::Error,
        location,
        "load balancer loops back",
    )
    .with_related(find(path, text, "Service", 0), "object kind")];
    let summary = Summary {
        files: 1,
        objects: 1,
        error: 1,
        ..Summary::default()
    };
    let map = sources(&[(path, text)]);
    let human = report(Format::Human, &diagnostics, &summary, &map);
    assert!(!human.contains('\r'), "CR must not reach the terminal");
    snapshot!("report_human_crlf", human);
    snapshot!(
        "report_compact_crlf",
        report(Format::Compact, &diagnostics, &summary, &map)
    );
}

/// Non-ASCII (and double-width) text before the span on the same line.
#[test]
fn human_unicode() {
    let path = "intl/svc.yaml";
    let text = "kind: Service\nmetadata:\n  labels: {team: \"Zoë ☕ 运维\", tier: web}\nspec: {}\n";
    let location = find(path, text, "tier", 0);
    // 1-based char column: `  labels: {team: "Zoë ☕ 运维", ` is 29 chars.
    assert_eq!(
        (location.span.start.line, location.span.start.column),
        (3, 30)
    );
    assert_ne!(
        location.span.start.offset + 1,
        30,
        "bytes and chars differ here"
    );
    let diagnostics = vec![Diagnostic::new(
        "LB002",
        "label-check",
        Severity::Warning,
        location,
        "label after non-ASCII text",
    )];
    let summary = Summary {
        files: 1,
        objects: 1,
        warning: 1,
        ..Summary::default()
    };
    let map = sources(&[(path, text)]);
    snapshot!(
        "report_human_unicode",
        report(Format::Human, &diagnostics, &summary, &map)
    );
    snapshot!(
        "report_compact_unicode",
        report(Format::Compact, &diagnostics, &summary, &map)
    );
}

/// A diagnostic whose file has no text in the map, plus a zero-length span at EOF.
#[test]
fn human_without_source_and_eof() {
    let missing = Diagnostic::new(
        "LB000",
        "syntax",
        Severity::Error,
        span_at("broken.yaml", "x", 0, 0),
        "file is not valid YAML",
    )
    .with_help("run a YAML formatter");
    let eof_text = "kind: Service\nspec:";
    let eof = Diagnostic::new(
        "LB003",
        "missing-ports",
        Severity::Note,
        span_at("eof.yaml", eof_text, eof_text.len(), eof_text.len()),
        "spec has no ports",
    );
    let summary = Summary {
        files: 2,
        objects: 1,
        error: 1,
        note: 1,
        ..Summary::default()
    };
    let map = sources(&[("eof.yaml", eof_text)]);
    let text = report(Format::Human, &[missing, eof], &summary, &map);
    assert!(!text.contains("Failed to read"), "{text}");
    snapshot!("report_human_no_source", text);
}

#[test]
fn human_color_and_width() {
    let (diagnostics, summary, map) = basic();
    let options = ReportOptions {
        color: true,
        width: 60,
        ..ReportOptions::default()
    };
    let text = report_with(Format::Human, &diagnostics, &summary, &map, &options);
    assert!(text.contains('\x1b'), "colour requested");
    assert!(!text.contains("\x1b]8;"), "no hyperlinks");
}

#[test]
fn json_parses_back() {
    let (diagnostics, summary, map) = basic();
    let text = report(Format::Json, &diagnostics, &summary, &map);
    assert!(text.ends_with("}\n"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let expected = serde_json::json!({
        "version": 1,
        "diagnostics": [
            {
                "rule": "TKE001",
                "name": "tke-l4-loopback",
                "severity": "error",
                "message": diagnostics[0].message(),
                "file": "deploy/web-svc.yaml",
                "line": 6, "column": 5, "end_line": 6, "end_column": 64,
                "object": {"apiVersion": "v1", "kind": "Service", "namespace": "default", "name": "web"},
                "related": [
                    {"file": "deploy/web-svc.yaml", "line": 8, "column": 9, "message": "load balancer requested here"},
                    {"file": "deploy/web-client.yaml", "line": 3, "column": 9, "message": "in-cluster client calls the CLB address"}
                ],
                "help": "add `service.cloud.tencent.com/prevent-loopback: \"true\"` to the annotations",
                "fix": {
                    "description": "add prevent-loopback annotation",
                    "applicability": "safe",
                    "edits": [{"line": 6, "column": 5, "end_line": 6, "end_column": 5,
                               "content": "service.cloud.tencent.com/prevent-loopback: \"true\"\n    "}]
                },
                "suggestions": [],
                "origin": "charts/web/templates/service.yaml"
            },
            {
                "rule": "TST002",
                "name": "tke-prevent-loopback-value",
                "severity": "warning",
                "message": "prevent-loopback is \"yes\"; TKE only honours \"true\"",
                "file": "deploy/api-svc.yaml",
                "line": 7, "column": 49, "end_line": 7, "end_column": 54,
                "object": {"apiVersion": "v1", "kind": "Service", "namespace": "shop", "name": "api"},
                "related": [],
                "help": null,
                "fix": {
                    "description": "set the annotation to \"true\"",
                    "applicability": "unsafe",
                    "edits": [{"line": 7, "column": 49, "end_line": 7, "end_column": 54, "content": "\"true\""}]
                },
                "suggestions": [
                    {
                        "description": "remove the annotation's effect with \"false\"",
                        "applicability": "display-only",
                        "edits": [{"line": 7, "column": 49, "end_line": 7, "end_column": 54, "content": "\"false\""}]
                    },
                    {"description": "enable SNAT on the CLB listeners, by hand", "applicability": "display-only", "edits": []}
                ],
                "origin": null
            },
            {
                "rule": "LB001",
                "name": "local-traffic-policy",
                "severity": "note",
                "message": "externalTrafficPolicy: Local drops traffic on nodes without a ready endpoint",
                "file": "deploy/api-svc.yaml",
                "line": 8, "column": 6, "end_line": 8, "end_column": 6,
                "object": null,
                "related": [],
                "help": null,
                "fix": null,
                "suggestions": [],
                "origin": null
            }
        ],
        "summary": {"files": 3, "objects": 3, "error": 1, "warning": 1, "note": 1, "suppressed": 0}
    });
    assert_eq!(value, expected);
}

#[test]
fn json_field_order() {
    let (diagnostics, summary, map) = basic();
    let text = report(Format::Json, &diagnostics[..1], &summary, &map);
    let keys = [
        "\"rule\"",
        "\"name\"",
        "\"severity\"",
        "\"message\"",
        "\"file\"",
        "\"line\"",
        "\"column\"",
        "\"end_line\"",
        "\"end_column\"",
        "\"object\"",
        "\"related\"",
        "\"help\"",
        "\"fix\"",
        "\"suggestions\"",
        "\"origin\"",
        "\"summary\"",
    ];
    let offsets: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn format_names_are_the_flag_values() {
    use clap::ValueEnum;
    for format in Format::value_variants() {
        let value = format.to_possible_value().unwrap();
        assert_eq!(value.get_name(), format.as_str());
        assert_eq!(Format::from_str(format.as_str(), false), Ok(*format));
    }
    assert!(Format::from_str("xml", false).is_err());
}

/// The SARIF 2.1.0 schema (draft-04), as the integration tests use it.
#[test]
fn github_basic() {
    let (diagnostics, summary, map) = basic();
    let text = report(Format::Github, &diagnostics, &summary, &map);
    assert_eq!(text.lines().count(), 3);
    snapshot!("report_github_basic", text);
}

#[test]
fn github_escaping() {
    let path = "odd,dir/a:b%.yaml";
    let text = "x: 1\n";
    let diagnostic = Diagnostic::new(
        "LB004",
        "odd",
        Severity::Note,
        find(path, text, "1", 0),
        "50% done: a, b\r\nnext line",
    );
    let out = report(
        Format::Github,
        &[diagnostic],
        &Summary::default(),
        &sources(&[(path, text)]),
    );
    assert_eq!(
        out,
        "::notice file=odd%2Cdir/a%3Ab%25.yaml,line=1,col=4,endLine=1,endColumn=5,\
         title=LB004 odd::50%25 done: a, b%0D%0Anext line\n"
    );
    assert_eq!(
        report(
            Format::Github,
            &[],
            &Summary::default(),
            &SourceMap::default()
        ),
        ""
    );
}

mod sarif;
