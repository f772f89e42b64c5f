//! Reports of hostile input: terminal controls in names and text, lines past column 65,535,
//! and files with thousands of findings.

use std::sync::Arc;

use super::human::NamedText;
use super::tests::{find, report, snapshot, sources};
use super::*;
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::source::Location;
use crate::source::SourceFile;

/// Characters that act on a terminal or reorder text, other than tab and newline. Written
/// independently of `crate::text::escape::is_unsafe`.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(
                    c,
                    '\u{61c}'
                        | '\u{200e}'
                        | '\u{200f}'
                        | '\u{2028}'
                        | '\u{2029}'
                        | '\u{202a}'..='\u{202e}'
                        | '\u{2066}'..='\u{2069}'
                )
        })
        .collect()
}

const EVIL_PATH: &str = "deploy/evil\nname.yaml";

/// The name line holds ESC[2J (clear screen), a lone CR, U+202E and U+2028 as they are.
const EVIL_TEXT: &str = "kind: Service
metadata:
  name: web\u{1b}[2J\r\u{202e}x\u{2028}
  annotations:
    scrape: true
";

fn evil_diagnostic() -> Diagnostic {
    Diagnostic::new(
        "K8S002",
        "annotation-value-not-string",
        Severity::Error,
        find(EVIL_PATH, EVIL_TEXT, "true", 0),
        "annotation on Service/web\u{1b}[2J\r\u{202e}x\u{2028} is not a string\n\
         \u{1b}]0;pwned\u{7}second line",
    )
    .with_help("quote \u{9b}31m it")
    .with_related(
        find(EVIL_PATH, EVIL_TEXT, "web", 0),
        "named \u{1b}[31mhere\u{2069}",
    )
    .with_related(
        find("other\rfile.yaml", "x: 1\n", "1", 0),
        "also\u{2066} there",
    )
    .with_fix(Fix {
        description: "quote \u{1b}[5m".to_string(),
        applicability: Applicability::Safe,
        edits: Vec::new(),
    })
    .with_origin("charts/\u{1b}[2J/service.yaml")
}

#[test]
fn every_text_format_escapes_terminal_controls() {
    let diagnostics = [evil_diagnostic()];
    let summary = Summary {
        files: 1,
        objects: 1,
        error: 1,
        ..Summary::default()
    };
    let map = sources(&[(EVIL_PATH, EVIL_TEXT)]);
    let render = |format| report(format, &diagnostics, &summary, &map);

    let compact = render(Format::Compact);
    assert_eq!(
        compact,
        "deploy/evil\\u{a}name.yaml:6:13: error[K8S002] annotation on \
         Service/web\\u{1b}[2J\\u{d}\\u{202e}x\\u{2028} is not a string\n"
    );

    let github = render(Format::Github);
    assert_eq!(raw_controls(&github), Vec::<char>::new());
    assert_eq!(github.lines().count(), 1);
    assert!(
        github.ends_with(
            "::annotation on Service/web\\u{1b}[2J%0D\\u{202e}x\\u{2028} is not a string%0A\
             \\u{1b}]0;pwned\\u{7}second line\n"
        ),
        "{github}"
    );
    assert!(github.contains("file=deploy/evil%0Aname.yaml,"), "{github}");

    let human = render(Format::Human);
    assert_eq!(raw_controls(&human), Vec::<char>::new());
    snapshot!("report_human_hostile_text", human);

    // JSON keeps the text as it is, escaped by serde.
    let json: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
    assert_eq!(json["diagnostics"][0]["file"], EVIL_PATH);
}

/// One-line JSON: the finding and its related location sit past column 65,535, where miette
/// used to panic ("Formatting argument out of range"), and the line is 100,000 characters.
#[test]
fn human_quotes_findings_past_column_65535() {
    let path = "svc.json";
    let text = format!(
        "{{\"kind\":\"Service\",\"pad\":\"{}\",\"spec\":{{\"type\":\"LoadBalancer\"}},\
         \"metadata\":{{\"annotations\":{{\"scrape\":true}}}}}}\n",
        "x".repeat(100_000)
    );
    let diagnostics = [Diagnostic::new(
        "K8S002",
        "annotation-value-not-string",
        Severity::Error,
        find(path, &text, "true", 0),
        "annotation `scrape: true` is not a string",
    )
    .with_related(find(path, &text, "LoadBalancer", 0), "load balancer here")
    .with_related(find(path, &text, "Service", 0), "kind")];
    assert!(diagnostics[0].location().span.start.column > 65_535);
    let summary = Summary {
        files: 1,
        objects: 1,
        error: 1,
        ..Summary::default()
    };
    let human = report(
        Format::Human,
        &diagnostics,
        &summary,
        &sources(&[(path, &text)]),
    );
    let longest = human.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 300, "a {longest}-character line");
    snapshot!("report_human_past_column_65535", human);
}

/// What miette reads for a snippet is the excerpt: its size is the same for a finding in a
/// small file and for the same finding at the end of a file of 4,000 documents, so rendering
/// N findings is O(N), not O(N × file).
#[test]
fn human_snippet_work_does_not_grow_with_the_file() {
    let doc = |i: usize| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc{i:04}\n  annotations:\n    \
             scrape: true\nspec:\n  ports:\n    - port: 80\n"
        )
    };
    let file_of = |docs: usize| {
        let text: Vec<String> = (0..docs).map(doc).collect();
        SourceFile::new("all.yaml", text.join("---\n"))
    };
    let excerpt_len = |file: &SourceFile, nth: usize| {
        let location: Location = find("all.yaml", &file.text, "true", nth);
        let (named, _) = NamedText::new(file, &[&location]);
        assert!(named.excerpt_text().contains("scrape: true"));
        named.excerpt_text().len()
    };
    let small = file_of(2);
    let big = file_of(4_000);
    assert!(big.text.len() > 400_000);
    let expected = "  annotations:\n    scrape: true\nspec:\n".len();
    assert_eq!(excerpt_len(&small, 1), expected);
    assert_eq!(excerpt_len(&big, 3_999), expected);
    assert_eq!(excerpt_len(&big, 2_000), expected);

    // The whole report, with the real line numbers of the last document.
    let diagnostics: Vec<Diagnostic> = big
        .text
        .match_indices("true")
        .map(|(at, _)| {
            let span = crate::source::Span {
                start: big.pos_at(at),
                end: big.pos_at(at + 4),
            };
            let location = Location {
                file: big.path.clone(),
                span,
            };
            Diagnostic::new(
                "K8S002",
                "annotation-value-not-string",
                Severity::Error,
                location,
                "not a string",
            )
        })
        .collect();
    assert_eq!(diagnostics.len(), 4_000);
    let mut map = SourceMap::default();
    map.insert(Arc::new(big));
    let human = report(Format::Human, &diagnostics, &Summary::default(), &map);
    assert_eq!(human.matches("error[K8S002]").count(), 4_000);
    assert!(
        human.contains("[all.yaml:39996:13]\n 39995 │   annotations:\n 39996 │     scrape: true\n"),
        "{}",
        &human[human.len() - 600..]
    );
}

/// A label over a whole 10,000-line object is drawn over its first lines, not all of them.
#[test]
fn human_draws_a_label_over_a_huge_object_over_its_first_lines() {
    let path = "big.yaml";
    let mut text = String::from("kind: ConfigMap\ndata:\n");
    for i in 0..10_000 {
        text.push_str(&format!("  k{i}: v\n"));
    }
    let diagnostics = [Diagnostic::new(
        "LB009",
        "whole-object",
        Severity::Warning,
        super::tests::span_at(path, &text, 0, text.len()),
        "about the whole object",
    )];
    let human = report(
        Format::Human,
        &diagnostics,
        &Summary::default(),
        &sources(&[(path, &text)]),
    );
    assert!(human.lines().count() < 30, "{human}");
    snapshot!("report_human_huge_label", human);
}
