//! The YAML test suite (testdata/yaml-test-suite/): the loader never panics, valid cases
//! load without a syntax error, invalid ones give at least one located error. Known
//! granit-parser disagreements are listed, with the reason, in `allowlist.txt`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use lblint::yaml::{load, Limits};

const SUITE: &str = "testdata/yaml-test-suite";

fn cases(dir: &Path, id: String, out: &mut Vec<(String, std::path::PathBuf)>) {
    if dir.join("in.yaml").exists() {
        out.push((id.clone(), dir.to_path_buf()));
    }
    let mut subs: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    for sub in subs {
        let name = sub.file_name().unwrap().to_string_lossy().into_owned();
        let id = if id.is_empty() {
            name
        } else {
            format!("{id}/{name}")
        };
        cases(&sub, id, out);
    }
}

/// `ID valid|invalid reason` lines.
fn allowlist() -> BTreeMap<String, bool> {
    fs::read_to_string(format!("{SUITE}/allowlist.txt"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let id = parts.next().unwrap().to_string();
            let valid = match parts.next() {
                Some("valid") => true,
                Some("invalid") => false,
                other => panic!("allowlist: `{l}`: expected valid|invalid, got {other:?}"),
            };
            assert!(parts.next().is_some(), "allowlist: `{l}` needs a reason");
            (id, valid)
        })
        .collect()
}

#[test]
fn every_case_loads_as_the_suite_says() {
    let mut all = Vec::new();
    cases(&Path::new(SUITE).join("data"), String::new(), &mut all);
    assert!(all.len() > 300, "suite not found: {}", all.len());
    let allowed = allowlist();
    let mut wrong = Vec::new();
    let mut allowed_but_fine = Vec::new();
    for (id, dir) in &all {
        let bytes = fs::read(dir.join("in.yaml")).unwrap();
        let text = String::from_utf8(bytes).unwrap_or_else(|e| panic!("{id}: not UTF-8: {e}"));
        let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
        let valid = !dir.join("error").exists();
        let loaded = std::panic::catch_unwind(|| load(text, &Limits::default()))
            .unwrap_or_else(|_| panic!("{id}: the loader panicked"));
        for e in &loaded.errors {
            assert!(
                e.span.start.line >= 1 && e.span.start.column >= 1,
                "{id}: unlocated error {e:?}"
            );
        }
        let agrees = if valid {
            loaded.errors.is_empty()
        } else {
            !loaded.errors.is_empty()
        };
        match (agrees, allowed.get(id)) {
            (true, None) => {}
            (true, Some(_)) => allowed_but_fine.push(id.clone()),
            (false, Some(&v)) if v == valid => {}
            (false, _) => wrong.push(format!(
                "{id} {}: {:?}",
                if valid { "valid" } else { "invalid" },
                loaded.errors.first().map(|e| &e.message)
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "disagreements not in allowlist.txt:\n{}",
        wrong.join("\n")
    );
    assert!(
        allowed_but_fine.is_empty(),
        "allowlisted but now agree (remove them): {allowed_but_fine:?}"
    );
    for id in allowed.keys() {
        assert!(
            all.iter().any(|(i, _)| i == id),
            "allowlist: unknown case {id}"
        );
    }
}
