//! Declares every rule once: the front matter of `rules/<ID>.md` (id, name, severity,
//! providers, summary, fix availability) becomes the rule's `RuleMeta` static in
//! `$OUT_DIR/rule_meta.rs`, included by `src/catalog/meta.rs`. A malformed document fails the
//! build with its path and field.

// A build script reports a malformed rule document by panicking with its path.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::Path;

struct Declared {
    id: String,
    name: String,
    severity: String,
    providers: Vec<String>,
    summary: String,
    fix: String,
}

fn field<'a>(front: &'a str, key: &str, path: &Path) -> &'a str {
    front
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{}: front matter has no `{key}:`", path.display()))
}

fn declared(path: &Path) -> Declared {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    let front = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(front, _)| front)
        .unwrap_or_else(|| panic!("{}: no `---` front matter", path.display()));
    let one_of = |key: &str, allowed: &[&str]| {
        let value = field(front, key, path);
        assert!(
            allowed.contains(&value),
            "{}: `{key}: {value}` is not one of {allowed:?}",
            path.display()
        );
        value.to_string()
    };
    let summary = field(front, "summary", path);
    Declared {
        id: field(front, "id", path).to_string(),
        name: field(front, "name", path).to_string(),
        severity: one_of("severity", &["error", "warning", "note"]),
        providers: field(front, "providers", path)
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        // A YAML double-quoted string with only `\"` and `\\` escapes: valid JSON too.
        summary: serde_json::from_str(summary).unwrap_or_else(|e| {
            panic!(
                "{}: `summary:` must be a double-quoted string: {e}",
                path.display()
            )
        }),
        fix: one_of("fix", &["none", "sometimes", "always"]),
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let rules = Path::new(&root).join("rules");
    println!("cargo:rerun-if-changed=rules");
    let mut paths: Vec<_> = std::fs::read_dir(&rules)
        .expect("rules/ is readable")
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    paths.sort();
    let mut out = String::new();
    let mut ids = Vec::new();
    for path in &paths {
        println!("cargo:rerun-if-changed={}", path.display());
        let rule = declared(path);
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        assert_eq!(
            stem,
            rule.id,
            "{}: `id:` must match the file name",
            path.display()
        );
        let providers = if rule.providers == ["any"] {
            "Providers::Any".to_string()
        } else {
            assert!(
                !rule.providers.is_empty() && !rule.providers.iter().any(|p| p == "any"),
                "{}: `providers:` is `[any]` or a list of profile provider names",
                path.display()
            );
            let clouds: Vec<String> = rule
                .providers
                .iter()
                .map(|p| format!("Provider::{}", capitalized(p)))
                .collect();
            format!("Providers::Only(&[{}])", clouds.join(", "))
        };
        writeln!(
            out,
            "pub static {id}: RuleMeta = RuleMeta {{\n    id: {id:?},\n    name: {name:?},\n    \
             default_severity: Severity::{severity},\n    providers: {providers},\n    \
             summary: {summary:?},\n    fix: FixAvailability::{fix},\n    \
             doc: include_str!({doc:?}),\n}};\n",
            id = rule.id,
            name = rule.name,
            severity = capitalized(&rule.severity),
            providers = providers,
            summary = rule.summary,
            fix = capitalized(&rule.fix),
            doc = path.display().to_string(),
        )
        .expect("writing to a String cannot fail");
        ids.push(rule.id);
    }
    writeln!(
        out,
        "/// Every documented rule, by id.\npub static DOCUMENTED: [&RuleMeta; {}] = [{}];",
        ids.len(),
        ids.iter()
            .map(|id| format!("&{id}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .expect("writing to a String cannot fail");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("rule_meta.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
