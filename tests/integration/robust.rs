//! Hostile input: every problem is reported at its location, the run goes on, the exit
//! status is 1, and the other files' findings are all still there.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{check_json, f, findings, lblint_stdin, Finding};

const HOSTILE: &str = "testdata/robust/hostile";

/// A fresh scratch directory under the target dir (never committed).
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The committed hostile files plus the generated big ones and the links.
fn hostile_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    for entry in fs::read_dir(HOSTILE).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "README.md" {
            fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    let deep = 200_000;
    fs::write(
        dir.join("deep-flow.yaml"),
        format!("{}{}\n", "[".repeat(deep), "]".repeat(deep)),
    )
    .unwrap();
    fs::write(
        dir.join("deep-block.yaml"),
        format!("{}x\n", "- ".repeat(deep)),
    )
    .unwrap();
    let mut deep_map = String::new();
    for i in 0..2_000 {
        deep_map.push_str(&" ".repeat(i));
        deep_map.push_str("k:\n");
    }
    fs::write(dir.join("deep-map.yaml"), deep_map).unwrap();
    fs::write(
        dir.join("long-line.yaml"),
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: long, name: longer}}\ndata: {{k: \"{}\"}}\n",
            "x".repeat(10 * 1024 * 1024)
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("loop-b.yaml", dir.join("loop-a.yaml")).unwrap();
        symlink("loop-a.yaml", dir.join("loop-b.yaml")).unwrap();
        symlink("missing.yaml", dir.join("dangling.yaml")).unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        symlink("..", dir.join("sub/up")).unwrap();
    }
    dir
}

/// Findings with the scratch directory prefix removed from file names. Paths under the
/// working directory (the crate root) are displayed relative to it.
pub(crate) fn relative(report: &serde_json::Value, dir: &Path) -> Vec<Finding> {
    let shown = dir.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(dir);
    let prefix = format!("{}/", shown.display());
    findings(report)
        .into_iter()
        .map(|(r, s, file, l, c)| (r, s, file.trim_start_matches(&prefix).to_string(), l, c))
        .collect()
}

fn message_of<'r>(report: &'r serde_json::Value, file_suffix: &str) -> Vec<&'r str> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].as_str().unwrap().ends_with(file_suffix))
        .map(|d| d["message"].as_str().unwrap())
        .collect()
}

#[test]
fn hostile_directory_keeps_every_other_finding() {
    let dir = hostile_dir("robust-hostile");
    let (code, report) = check_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let got = relative(&report, &dir);
    let expected = vec![
        f("LBL006", "error", "alias-bomb.yaml", 16, 14),
        f("LBL003", "warning", "binary.yaml", 1, 1),
        f("LBL001", "error", "deep-block.yaml", 1, 513),
        f("LBL001", "error", "deep-flow.yaml", 1, 258),
        f("LBL001", "error", "deep-map.yaml", 257, 257),
        f("LBL005", "warning", "duplicate-keys.yaml", 6, 3),
        f("LBL002", "note", "helm-template.yaml", 5, 1),
        f("LBL003", "warning", "latin1.yaml", 1, 1),
        f("LBL005", "warning", "long-line.yaml", 3, 24),
        f("LBL001", "error", "tabs.yaml", 4, 2),
        f("LBL005", "warning", "utf16be-bom.yaml", 6, 3),
        f("LBL005", "warning", "utf16le-bom.yaml", 6, 3),
        f("LBL003", "warning", "utf16le-nobom.yaml", 1, 1),
        f("TKE001", "warning", "zz-service.yaml", 8, 5),
    ];
    assert_eq!(got, expected, "{report:#}");
    // Every hostile file is counted; links are not followed by default.
    assert_eq!(report["summary"]["files"], 19, "{report:#}");
    for (suffix, words) in [
        ("deep-flow.yaml", "nesting too deep"),
        ("binary.yaml", "binary"),
        (
            "latin1.yaml",
            "not valid UTF-8 (first invalid byte on line 1)",
        ),
        (
            "utf16le-nobom.yaml",
            "UTF-16 encoded without a byte-order mark",
        ),
        ("duplicate-keys.yaml", "Duplicate key `name`"),
    ] {
        let messages = message_of(&report, suffix);
        assert!(
            messages.iter().any(|m| m.contains(words)),
            "{suffix}: {messages:?}"
        );
    }
}

#[test]
fn followed_links_loops_and_dangling_links_are_reported() {
    let dir = hostile_dir("robust-links");
    let (code, report) = check_json(&["--follow-links", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let got = relative(&report, &dir);
    assert!(got.contains(&f("TKE001", "warning", "zz-service.yaml", 8, 5)));
    for link in ["dangling.yaml", "loop-a.yaml", "loop-b.yaml", "sub/up"] {
        assert!(
            got.iter().any(|g| g.0 == "LBL003" && g.2 == link),
            "{link}: {got:?}"
        );
    }
    assert!(message_of(&report, "sub/up")[0].contains("symbolic link loop"));
}

#[test]
fn duplicate_key_points_at_the_second_and_relates_the_first() {
    let (code, report) = check_json(&["testdata/robust/hostile/duplicate-keys.yaml"]);
    assert_eq!(code, 1);
    let d = &report["diagnostics"][0];
    assert_eq!(d["rule"], "LBL005");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(6), Some(3))
    );
    assert_eq!(d["end_column"].as_u64(), Some(7));
    let related = &d["related"][0];
    assert_eq!(
        (related["line"].as_u64(), related["column"].as_u64()),
        (Some(4), Some(3))
    );
    assert!(
        d["message"].as_str().unwrap().contains("keeps this value"),
        "{report:#}"
    );
}

#[test]
fn empty_comment_only_and_null_documents_are_silent() {
    for name in [
        "empty.yaml",
        "comments-only.yaml",
        "dashes-only.yaml",
        "null-docs.yaml",
        "crlf-lone-cr.yaml",
    ] {
        let path = format!("{HOSTILE}/{name}");
        let (code, report) = check_json(&[&path]);
        assert_eq!((code, findings(&report)), (0, vec![]), "{name}");
    }
}

#[test]
fn oversized_files_are_reported_and_a_raised_limit_still_reads_them() {
    let dir = scratch("robust-oversize");
    let big = dir.join("big.yaml");
    // Sparse: 64 MiB + 1 byte of NULs costs no disk and no time to write.
    fs::File::create(&big)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    fs::copy(
        "testdata/tke/private-no-caller.yaml",
        dir.join("service.yaml"),
    )
    .unwrap();
    let (code, report) = check_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let got = relative(&report, &dir);
    assert_eq!(
        got,
        // Files skipped by the walk are listed after the linted ones.
        vec![
            f("TKE001", "warning", "service.yaml", 8, 5),
            f("LBL003", "warning", "big.yaml", 1, 1),
        ]
    );
    assert!(message_of(&report, "big.yaml")[0].contains("over the size limit of 67108864 bytes"));
    // Raised limit: read, then reported for what it is (NUL bytes), not parsed.
    let (code, report) = check_json(&["--max-file-size", "100000000", big.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        message_of(&report, "big.yaml")[0].contains("binary"),
        "{report:#}"
    );
}

#[test]
fn stdin_over_the_limit_is_reported_not_read_whole() {
    let run = lblint_stdin(
        &["check", "--format", "json", "--max-file-size", "100", "-"],
        Some("# padding\n".repeat(1000).as_bytes()),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        findings(&report),
        vec![f("LBL003", "warning", "<stdin>", 1, 1)]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn unreadable_file_is_reported() {
    // Tests may run as root, where chmod 000 does not deny reads. `/proc/self/mem` fails
    // to read (EIO at offset 0) for everyone. A file deleted between the walk and the read
    // is covered by the unit tests of `check::load_all`.
    let (code, report) = check_json(&["/proc/self/mem"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("LBL003", "warning", "/proc/self/mem", 1, 1)]
    );
    assert!(message_of(&report, "mem")[0].contains("cannot read"));
}

/// Every fuzz crasher (testdata/robust/crashers/) is linted without a panic, with both
/// fuzzed profiles.
#[test]
fn fuzz_crashers_do_not_panic() {
    let tke = lblint::profile::parse_profile(
        &fs::read_to_string("examples/profiles/tke-ipvs.yaml").unwrap(),
        "tke-ipvs.yaml",
    )
    .unwrap();
    let profiles = [lblint::profile::generic(), tke];
    let mut count = 0;
    for entry in fs::read_dir("testdata/robust/crashers").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let files = vec![(path.display().to_string(), fs::read(&path).unwrap())];
        for profile in &profiles {
            let outcome = lblint::check::check_sources(&files, profile);
            for d in &outcome.diagnostics {
                assert!(
                    d.location().span.start.line >= 1,
                    "{}: {d:?}",
                    path.display()
                );
            }
        }
        count += 1;
    }
    println!("{count} crashers linted");
}

/// The 300 MB stream, with a raised limit: must finish without blowing memory. Slow (a few
/// seconds in release, much more in debug), so run by hand:
/// `cargo test --release --test integration robust::huge -- --ignored --nocapture`.
#[test]
#[ignore]
fn huge_stream_with_raised_limit() {
    let dir = scratch("robust-huge");
    let path = dir.join("huge.yaml");
    let doc = fs::read_to_string("testdata/tke/private-no-caller.yaml").unwrap();
    let mut text = String::with_capacity(310 * 1024 * 1024);
    let mut i = 0;
    while text.len() < 300 * 1024 * 1024 {
        text.push_str("---\n");
        text.push_str(&doc.replace("name: ledger", &format!("name: ledger-{i}")));
        i += 1;
    }
    fs::write(&path, &text).unwrap();
    drop(text);
    let start = std::time::Instant::now();
    let time = Path::new("/usr/bin/time").exists();
    let mut cmd = std::process::Command::new(if time {
        "/usr/bin/time"
    } else {
        env!("CARGO_BIN_EXE_lblint")
    });
    if time {
        cmd.args(["-v", env!("CARGO_BIN_EXE_lblint")]);
    }
    let out = cmd
        .args([
            "check",
            "--format",
            "compact",
            "--max-file-size",
            "400000000",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .find(|l| l.contains("Maximum resident set size"))
        .unwrap_or("");
    println!("300 MB stream, {i} documents: {elapsed:?}; {}", rss.trim());
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().filter(|l| l.contains("TKE001")).count(), i);
}

#[test]
fn go_templates_inside_block_scalars_of_rendered_output_are_data() {
    let file = "testdata/robust/template-in-block-scalar.yaml";
    let (code, report) = check_json(&[file]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", file, 24, 5)],
        "{report:#}"
    );
}

#[test]
fn objects_no_rule_reads_are_slimmed_but_their_metadata_is_still_linted() {
    let dir = scratch("robust-slim");
    let mut text = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: big.example.com\n  annotations:\n    enabled: true\nspec:\n  versions:\n",
    );
    for i in 0..2000 {
        text.push_str(&format!("    - name: v{i}\n      schema: {{openAPIV3Schema: {{description: \"{{{{ x }}}}\"}}}}\n"));
    }
    fs::write(dir.join("crd.yaml"), text).unwrap();
    let (_, report) = check_json(&[dir.to_str().unwrap()]);
    let got = relative(&report, &dir);
    assert_eq!(got, vec![f("K8S002", "error", "crd.yaml", 6, 14)]);
}
