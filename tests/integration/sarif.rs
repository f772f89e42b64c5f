//! `--format sarif` and `--format github` end to end. Every SARIF document a test
//! produces is validated against the official SARIF 2.1.0 schema (draft-04).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use crate::{lblint, lblint_stdin, snapshot, Run};

const PROFILE: &str = "examples/profiles/tke-ipvs.yaml";
const FP: &str = "lblint/v1";

/// The SARIF 2.1.0 schema (oasis-tcs/sarif-spec, see testdata/README.md), compiled
/// once, explicitly as draft-04 and with `format` checked (`uri`, `date-time`...).
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/report/sarif-schema-2.1.0.json"
        );
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(schema["$schema"], "http://json-schema.org/draft-04/schema#");
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(true)
            .build(&schema)
            .expect("SARIF schema compiles");
        assert_eq!(validator.draft(), jsonschema::Draft::Draft4);
        validator
    })
}

fn schema_errors(sarif: &Value) -> Vec<String> {
    validator()
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Parses a SARIF report and fails the test unless it validates.
pub fn valid_sarif(text: &str) -> Value {
    let value: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    let errors = schema_errors(&value);
    assert!(errors.is_empty(), "invalid SARIF: {errors:#?}\n{text}");
    value
}

/// `lblint check --format sarif ARGS` from the crate root.
fn sarif(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--format", "sarif"];
    all.extend_from_slice(args);
    let run = lblint(&all);
    assert_eq!(run.stderr, "", "stderr");
    (run.code, valid_sarif(&run.stdout))
}

/// `lblint ARGS` with `dir` (relative to the crate root) as working directory.
fn lblint_in(dir: &str, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_lblint"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run lblint");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn results(sarif: &Value) -> &Vec<Value> {
    sarif["runs"][0]["results"].as_array().unwrap()
}

fn artifact(result: &Value) -> &Value {
    &result["locations"][0]["physicalLocation"]["artifactLocation"]
}

fn region(result: &Value) -> &Value {
    &result["locations"][0]["physicalLocation"]["region"]
}

/// The snapshot text: the crate version redacted so a version bump keeps snapshots,
/// and each rule's help (its whole document, checked here exactly) shortened so a
/// documentation edit does not churn this snapshot.
fn redact(text: &str) -> String {
    let version = format!("\"semanticVersion\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version), "{text}");
    // %SRCROOT% is the working directory of the run: machine-specific.
    let root = format!(
        "\"uri\": \"file://{}/\"",
        env!("CARGO_MANIFEST_DIR").trim_end_matches('/')
    );
    assert!(text.contains(&root), "{text}");
    let text = text.replace(&root, "\"uri\": \"file:///[CWD]/\"");
    let mut text = text
        .replace(&version, "\"semanticVersion\": \"[VERSION]\"")
        .replace(
            &format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION")),
            "\"version\": \"[VERSION]\"",
        );
    for meta in lblint::catalog::all_meta() {
        let body = lblint::catalog::docs::body(meta.doc).trim_end();
        let url = meta.url();
        let help = [
            (format!("{body}\n\nDocumentation: {url}\n"), "text"),
            (
                format!("{body}\n\nDocumentation: [{}]({url})\n", meta.id),
                "markdown",
            ),
        ];
        for (expected, kind) in help {
            let json = serde_json::to_string(&expected).unwrap();
            assert!(
                text.contains(&json),
                "{} help.{kind} is the rule document",
                meta.id
            );
            text = text.replace(&json, &format!("\"[rules/{}.md body + link]\"", meta.id));
        }
    }
    // Descriptors are checked field by field in the tests; the snapshot keeps only the
    // rule ids, so adding a rule or editing its document does not churn it.
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let driver = &mut value["runs"][0]["tool"]["driver"];
    let ids: Vec<serde_json::Value> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    driver["rules"] = serde_json::Value::Array(ids);
    // ruleIndex shifts whenever a rule is added; its value is checked in the tests.
    for result in value["runs"][0]["results"].as_array_mut().unwrap() {
        result["ruleIndex"] = serde_json::json!("[index of ruleId]");
    }
    serde_json::to_string_pretty(&value).unwrap() + "\n"
}

const MULTI: &[&str] = &[
    "examples/manifests",
    "testdata/load/syntax-error.yaml",
    "testdata/load/template.yaml",
    "testdata/load/helm-rendered.yaml",
    "--profile",
    PROFILE,
];

#[test]
fn schema_rejects_broken_sarif() {
    let (_, good) = sarif(MULTI);
    assert!(schema_errors(&good).is_empty());

    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("version");
    assert!(!schema_errors(&bad).is_empty(), "missing version accepted");

    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!schema_errors(&bad).is_empty(), "unknown level accepted");

    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!schema_errors(&bad).is_empty(), "startLine 0 accepted");

    let mut bad = good.clone();
    bad["runs"][0]["tool"]["driver"]["unexpected"] = true.into();
    assert!(
        !schema_errors(&bad).is_empty(),
        "additional property accepted"
    );

    let mut bad = good;
    bad["runs"][0]["tool"]["driver"]["informationUri"] = "not a uri".into();
    assert!(
        !schema_errors(&bad).is_empty(),
        "format: uri is not checked"
    );
}

#[test]
fn sarif_examples_snapshot() {
    let mut args = vec!["check", "--format", "sarif"];
    args.extend_from_slice(MULTI);
    let run = lblint(&args);
    assert_eq!(run.code, 1);
    let value = valid_sarif(&run.stdout);
    snapshot!("sarif_examples", redact(&run.stdout));

    let run0 = &value["runs"][0];
    assert_eq!(
        value["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(value["version"], "2.1.0");
    assert_eq!(value["runs"].as_array().unwrap().len(), 1);
    assert_eq!(run0["columnKind"], "utf16CodeUnits");
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "lblint");
    assert_eq!(driver["semanticVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["informationUri"], "https://github.com/lblint/lblint");

    // Every rule is described, whether or not it fired.
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = lblint::catalog::all_meta().iter().map(|m| m.id).collect();
    assert_eq!(ids, expected);
    for rule in rules {
        let meta = lblint::catalog::lookup(rule["id"].as_str().unwrap()).unwrap();
        assert_eq!(rule["name"], meta.name);
        assert_eq!(rule["shortDescription"]["text"], meta.summary);
        let full = rule["fullDescription"]["text"].as_str().unwrap();
        assert!(!full.is_empty() && full.chars().count() <= 1024, "{full}");
        assert_eq!(rule["helpUri"], meta.url());
        let help = rule["help"]["text"].as_str().unwrap();
        assert!(help.contains(&meta.url()), "help names the doc URL");
        assert!(!help.starts_with("---"), "front matter stripped");
        assert!(rule["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## What it finds"));
        assert_eq!(
            rule["defaultConfiguration"]["level"],
            meta.default_severity.as_str()
        );
        assert!(rule["properties"]["tags"]
            .as_array()
            .unwrap()
            .contains(&"kubernetes".into()));
    }

    // ruleIndex points at the rule; every result has one location with a full region.
    let mut rules_seen = Vec::new();
    for result in results(&value) {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        rules_seen.push(result["ruleId"].as_str().unwrap());
        assert_eq!(result["locations"].as_array().unwrap().len(), 1);
        assert_eq!(artifact(result)["uriBaseId"], "%SRCROOT%");
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region(result)[key].as_u64().unwrap() >= 1, "{key}");
        }
        assert!(result["partialFingerprints"][FP].as_str().unwrap().len() == 16);
    }
    for rule in ["TKE001", "LBL001", "LBL002"] {
        assert!(rules_seen.contains(&rule), "{rule} fired");
    }

    // Helm-rendered: the rendered file stays primary. Its chart is not in this repository,
    // so the template is not linked (no such file); its path stays in the properties.
    let helm = results(&value)
        .iter()
        .find(|r| artifact(r)["uri"] == "testdata/load/helm-rendered.yaml")
        .expect("helm result");
    assert!(helm["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["message"]["text"] != "rendered from this template"));
    assert_eq!(helm["properties"]["origin"], "shop/templates/service.yaml");
    // Related locations are numbered.
    for (i, related) in helm["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(related["id"], i + 1);
    }

    // A fix becomes an artifact change with a replacement.
    let fixed = results(&value)
        .iter()
        .find(|r| r["fixes"].is_array())
        .expect("a result with a fix");
    let replacement = &fixed["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert!(replacement["deletedRegion"]["startLine"].is_u64());
    assert!(replacement["insertedContent"]["text"]
        .as_str()
        .unwrap()
        .contains("prevent-loopback"));
}

#[test]
fn github_examples_snapshot() {
    let mut args = vec!["check", "--format", "github"];
    args.extend_from_slice(MULTI);
    let run = lblint(&args);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "");
    for line in run.stdout.lines() {
        assert!(
            line.starts_with("::error file=")
                || line.starts_with("::warning file=")
                || line.starts_with("::notice file="),
            "{line}"
        );
    }
    snapshot!("github_examples", run.stdout);
}

#[test]
fn clean_input_has_empty_results() {
    let (code, value) = sarif(&["examples/manifests/fixed.yaml", "--profile", PROFILE]);
    assert_eq!(code, 0);
    assert_eq!(value["runs"][0]["results"], serde_json::json!([]));
    assert!(!value["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn github_clean_run_prints_nothing() {
    let run = lblint(&[
        "check",
        "--format",
        "github",
        "examples/manifests/fixed.yaml",
        "--profile",
        PROFILE,
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

#[test]
fn exit_codes_match_other_formats() {
    let cases: &[&[&str]] = &[
        &["examples/manifests", "--profile", PROFILE],
        &[
            "examples/manifests",
            "--profile",
            PROFILE,
            "--fail-on",
            "error",
        ],
        &[
            "examples/manifests/reports.yaml",
            "--profile",
            PROFILE,
            "--fail-on",
            "error",
        ],
        &[
            "examples/manifests",
            "--profile",
            PROFILE,
            "--fail-on",
            "never",
        ],
        &["examples/manifests/fixed.yaml", "--profile", PROFILE],
    ];
    for case in cases {
        let (json_code, _) = crate::check_json(case);
        let (sarif_code, _) = sarif(case);
        let mut github = vec!["check", "--format", "github"];
        github.extend_from_slice(case);
        let github_code = lblint(&github).code;
        assert_eq!(
            (sarif_code, github_code),
            (json_code, json_code),
            "{case:?}"
        );
    }
    // A run failure is still exit 2 with nothing on stdout.
    let run = lblint(&["check", "--format", "sarif", "no/such/path.yaml"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn output_file_is_the_same_report() {
    let dir = std::env::temp_dir().join(format!("lblint-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lblint.sarif");
    let run = lblint(&[
        "check",
        "--format",
        "sarif",
        "--output",
        path.to_str().unwrap(),
        "examples/manifests",
        "--profile",
        PROFILE,
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    let written = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let (_, direct) = sarif(&["examples/manifests", "--profile", PROFILE]);
    assert_eq!(valid_sarif(&written), direct);
}

/// URIs are relative to the working directory; a file outside it gets a `file://` URI.
#[test]
fn uris_relative_to_working_directory() {
    let run = lblint_in(
        "testdata",
        &[
            "check",
            "--format",
            "sarif",
            "load/helm-rendered.yaml",
            "../examples/manifests/shop-api.yaml",
            "--profile",
            "../examples/profiles/tke-ipvs.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let value = valid_sarif(&run.stdout);
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut uris = Vec::new();
    for result in results(&value) {
        let location = artifact(result);
        let uri = location["uri"].as_str().unwrap();
        if uri.starts_with("file://") {
            // Outside testdata/: absolute, no base id.
            assert!(location.get("uriBaseId").is_none(), "{location}");
            let expected = format!("file://{}/examples/manifests/shop-api.yaml", root.display());
            assert_eq!(uri, expected);
        } else {
            assert_eq!(location["uriBaseId"], "%SRCROOT%");
        }
        uris.push(uri.to_string());
    }
    assert!(
        uris.contains(&"load/helm-rendered.yaml".to_string()),
        "{uris:?}"
    );
    assert!(uris.iter().any(|u| u.starts_with("file:///")), "{uris:?}");

    // `..` that stays inside the working directory folds away.
    let (_, value) = sarif(&[
        "testdata/../examples/manifests/shop-api.yaml",
        "--profile",
        PROFILE,
    ]);
    assert_eq!(
        artifact(&results(&value)[0])["uri"],
        "examples/manifests/shop-api.yaml"
    );
}

#[test]
fn uris_are_percent_encoded() {
    let (code, value) = sarif(&["testdata/report/web svc #1.yaml", "--profile", PROFILE]);
    assert_eq!(code, 1);
    let result = &results(&value)[0];
    assert_eq!(
        artifact(result)["uri"],
        "testdata/report/web%20svc%20%231.yaml"
    );
    // The github format keeps the path as is (`,`/`:` would be escaped).
    let run = lblint(&[
        "check",
        "--format",
        "github",
        "testdata/report/web svc #1.yaml",
        "--profile",
        PROFILE,
    ]);
    assert!(
        run.stdout
            .starts_with("::warning file=testdata/report/web svc #1.yaml,line=8,col=5,"),
        "{}",
        run.stdout
    );
}

/// Columns are UTF-16 code units: the rocket (U+1F680) before the key counts twice.
#[test]
fn utf16_columns_after_non_bmp_character() {
    let args = ["testdata/report/emoji.yaml", "--profile", PROFILE];
    let (_, json) = crate::check_json(&args);
    let (_, value) = sarif(&args);
    let d = &json["diagnostics"][0];
    let r = region(&results(&value)[0]);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(8), Some(35))
    );
    assert_eq!(r["startLine"], 8);
    assert_eq!(r["startColumn"], 36, "one more than the char column");
    assert_eq!(r["endColumn"], d["end_column"].as_u64().unwrap() + 1);
    let run = lblint(&["check", "--format", "github", args[0], args[1], args[2]]);
    assert!(
        run.stdout
            .contains(",line=8,col=36,endLine=8,endColumn=95,"),
        "{}",
        run.stdout
    );
}

/// Fingerprints ignore line numbers: three blank lines on top move every finding
/// but keep every fingerprint.
#[test]
fn fingerprints_survive_line_moves() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/manifests/shop-api.yaml"
    ))
    .unwrap();
    let moved = format!("\n\n\n{text}");
    let lint = |input: &str| {
        let run = lblint_stdin(
            &[
                "check",
                "--format",
                "sarif",
                "--profile",
                PROFILE,
                "--stdin-filename",
                "k8s/shop-api.yaml",
                "-",
            ],
            Some(input.as_bytes()),
        );
        valid_sarif(&run.stdout)
    };
    let (before, after) = (lint(&text), lint(&moved));
    let (before, after) = (results(&before), results(&after));
    assert!(!before.is_empty());
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(after) {
        assert_eq!(b["partialFingerprints"], a["partialFingerprints"]);
        assert_eq!(
            region(a)["startLine"].as_u64().unwrap(),
            region(b)["startLine"].as_u64().unwrap() + 3
        );
        assert!(b.get("primaryLocationLineHash").is_none());
    }
    // And distinct findings get distinct fingerprints.
    let all = lint(&format!(
        "{text}---\n{}",
        text.replace("shop-api", "shop-web")
    ));
    let mut prints: Vec<&str> = results(&all)
        .iter()
        .map(|r| r["partialFingerprints"][FP].as_str().unwrap())
        .collect();
    let count = prints.len();
    prints.sort();
    prints.dedup();
    assert_eq!(prints.len(), count, "fingerprints collide");
}

#[test]
fn driver_rules_are_the_enabled_rules() {
    let ids = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["check", "--format", "sarif", "examples/manifests"];
        args.extend_from_slice(extra);
        let value = valid_sarif(&lblint(&args).stdout);
        value["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&["--select", "TKE001,K8S001"]),
        vec!["K8S001", "TKE001"]
    );
    let all = ids(&[]);
    let without = ids(&["--ignore", "K8S001"]);
    assert_eq!(without.len() + 1, all.len());
    assert!(!without.contains(&"K8S001".to_string()));
}
