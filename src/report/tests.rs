//! Snapshot tests over hand-built diagnostics: the snapshots are the format contract.

use std::sync::Arc;

use super::*;
use crate::diagnostic::{Applicability, Edit, Fix, Location, ObjectRef, Severity};
use crate::source::SourceFile;
use crate::yaml::{Pos, Span};

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

/// Computes positions independently of the code under test.
fn pos(text: &str, offset: usize) -> Pos {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: before.matches('\n').count() as u32 + 1,
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
    let error = Diagnostic {
        object: Some(ObjectRef {
            api_version: "v1".to_string(),
            kind: "Service".to_string(),
            namespace: Some("default".to_string()),
            name: "web".to_string(),
        }),
        origin: Some("charts/web/templates/service.yaml".to_string()),
        ..error
    };

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
        applicability: Applicability::Unsafe,
        edits: vec![Edit {
            span: value.span,
            content: "\"false\"".to_string(),
        }],
    })
    .with_suggestion(Fix::manual("enable SNAT on the CLB listeners, by hand"));
    let warning = Diagnostic {
        object: Some(ObjectRef {
            api_version: "v1".to_string(),
            kind: "Service".to_string(),
            namespace: Some("shop".to_string()),
            name: "api".to_string(),
        }),
        ..warning
    };

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
                "message": diagnostics[0].message,
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
                        "applicability": "unsafe",
                        "edits": [{"line": 7, "column": 49, "end_line": 7, "end_column": 54, "content": "\"false\""}]
                    },
                    {"description": "enable SNAT on the CLB listeners, by hand", "applicability": "unsafe", "edits": []}
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
fn format_parsing() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>(), Ok(format));
    }
    assert!("xml".parse::<Format>().is_err());
}

/// The SARIF 2.1.0 schema (draft-04), as the integration tests use it.
fn sarif_validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/report/sarif-schema-2.1.0.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn valid_sarif(text: &str) -> serde_json::Value {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{text}");
    value
}

fn sarif_text(diagnostics: &[Diagnostic], map: &SourceMap) -> String {
    let text = report(Format::Sarif, diagnostics, &Summary::default(), map);
    // Only the version changes between releases; the rule documents have their own tests.
    text.replace(
        &format!("\"semanticVersion\": \"{}\"", env!("CARGO_PKG_VERSION")),
        "\"semanticVersion\": \"[VERSION]\"",
    )
}

/// Hand-built diagnostics with no registered rule, a cross-file related location,
/// a template origin, safe and unsafe fixes and a zero-length span; only the rules
/// that fired are described, so the snapshot stays small.
#[test]
fn sarif_basic() {
    let (diagnostics, _, map) = basic();
    let options = ReportOptions {
        rules: Vec::new(),
        ..ReportOptions::default()
    };
    let mut out = Vec::new();
    write_report(
        Format::Sarif,
        &diagnostics,
        &Summary::default(),
        &map,
        &options,
        &mut out,
    )
    .unwrap();
    let mut text = String::from_utf8(out)
        .unwrap()
        .replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    let value = valid_sarif(&text);
    // The registered rule's help is its whole document: checked, then shortened.
    let meta = crate::rules::lookup("TKE001").unwrap();
    let body = crate::rules::docs::body(meta.doc).trim_end();
    for help in [
        format!("{body}\n\nDocumentation: {}\n", meta.url()),
        format!("{body}\n\nDocumentation: [TKE001]({})\n", meta.url()),
    ] {
        let json = serde_json::to_string(&help).unwrap();
        assert!(text.contains(&json));
        text = text.replace(&json, "\"[rules/TKE001.md body + link]\"");
    }
    let results = value["runs"][0]["results"].as_array().unwrap();
    let rules = value["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), 3, "one descriptor per rule that fired");
    for result in results {
        assert_eq!(
            rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
            result["ruleId"]
        );
    }
    // The fix first, then the suggestion with edits, marked; the by-hand one is left out.
    let fixes = results[1]["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 2);
    assert!(fixes[0]["properties"].get("suggestion").is_none());
    assert_eq!(fixes[1]["properties"]["suggestion"], true);
    assert_eq!(
        fixes[1]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
        "\"false\""
    );
    // Origin becomes the last related location.
    let related = results[0]["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 3);
    assert_eq!(related[2]["message"]["text"], "rendered from this template");
    assert_eq!(
        related[2]["physicalLocation"]["artifactLocation"]["uri"],
        "charts/web/templates/service.yaml"
    );
    snapshot!("report_sarif_basic", text);
}

#[test]
fn sarif_empty() {
    let text = sarif_text(&[], &SourceMap::default());
    let value = valid_sarif(&text);
    assert_eq!(value["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        value["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        crate::rules::all_meta().len()
    );
}

/// Identical (rule, file, object, span text) tuples differ only by occurrence.
#[test]
fn sarif_fingerprint_occurrences() {
    let path = "dup.yaml";
    let text = "a: x\nb: x\n";
    let make = |nth| {
        Diagnostic::new(
            "LB009",
            "dup",
            Severity::Warning,
            find(path, text, "x", nth),
            "same",
        )
    };
    let map = sources(&[(path, text)]);
    let value = valid_sarif(&sarif_text(&[make(0), make(1)], &map));
    let prints: Vec<&str> = value["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["lblint/v1"].as_str().unwrap())
        .collect();
    assert_ne!(prints[0], prints[1]);
    // Same input, same fingerprints: no randomized hashing.
    let again = valid_sarif(&sarif_text(&[make(0), make(1)], &map));
    assert_eq!(
        again["runs"][0]["results"][1]["partialFingerprints"]["lblint/v1"],
        prints[1]
    );
}

#[test]
fn fnv1a_known_values() {
    let hash = |s: &str| {
        let mut h = sarif::Fnv1a::new();
        h.write(s.as_bytes());
        h.0
    };
    assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn sarif_uri_encoding() {
    use sarif::{artifact_location, encode_path};
    use std::path::Path;
    assert_eq!(
        encode_path("k8s/web svc #1/100% ü.yaml"),
        "k8s/web%20svc%20%231/100%25%20%C3%BC.yaml"
    );
    assert_eq!(encode_path("a:b?c&d.yaml"), "a%3Ab%3Fc%26d.yaml");
    let cwd = Some(Path::new("/work/repo"));
    let rel = artifact_location("k8s/a b.yaml", cwd);
    assert_eq!(
        (rel.uri.as_str(), rel.uri_base_id),
        ("k8s/a%20b.yaml", Some("%SRCROOT%"))
    );
    let folded = artifact_location("k8s/../svc.yaml", cwd);
    assert_eq!(folded.uri, "svc.yaml");
    let outside = artifact_location("../other/svc.yaml", cwd);
    assert_eq!(
        (outside.uri.as_str(), outside.uri_base_id),
        ("file:///work/other/svc.yaml", None)
    );
    let absolute = artifact_location("/etc/k8s/Ä.yaml", cwd);
    assert_eq!(absolute.uri, "file:///etc/k8s/%C3%84.yaml");
    let inside = artifact_location("/work/repo/k8s/x.yaml", cwd);
    assert_eq!(inside.uri, "k8s/x.yaml");
    // Without a working directory a `../` path stays relative.
    assert_eq!(artifact_location("../x.yaml", None).uri, "../x.yaml");
    assert_eq!(artifact_location("<stdin>", cwd).uri, "%3Cstdin%3E");
}

#[test]
fn sarif_utf16_columns() {
    let text = "k: \"😀é\" v\n";
    let offset = text.find('v').unwrap();
    let pos = pos(text, offset);
    assert_eq!(pos.column, 9, "chars");
    assert_eq!(sarif::utf16_column(pos, Some(text)), 10, "UTF-16 units");
    assert_eq!(sarif::utf16_column(pos, None), 9, "no text: char column");
}

#[test]
fn sarif_full_description() {
    let body = "# X\n\n## What it finds\n\nA thing\n**bold**:\n\n- one\n- two\n\nMore.\n\n## Why\n";
    assert_eq!(
        sarif::full_description(body).as_deref(),
        Some("A thing bold: one two")
    );
    let long = format!("## What it finds\n\n{}\n", "word ".repeat(400));
    let text = sarif::full_description(&long).unwrap();
    assert!(
        text.chars().count() <= 1024 && text.ends_with('…'),
        "{text}"
    );
    assert_eq!(sarif::full_description("# no section\n"), None);
}

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
