//! The config file: discovery, `--config`, `--no-config`, precedence over flags, rule
//! levels, `ignore:` entries, located errors, and the JSON Schemas.

use crate::{check_json, check_json_in, f, findings, lblint, lblint_in, snapshot};
use serde_json::Value;

const PROJECT: &str = "testdata/config/project";

#[test]
fn discovered_in_the_working_directory() {
    let (code, report) = check_json_in(PROJECT, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            // `profile: cluster.yaml` (IPVS, regular nodes) makes it an error.
            f("TKE001", "error", "apps/web.yaml", 8, 5),
            // `ignore:` suppressed the gateway Service only, not its neighbour.
            f("TKE001", "warning", "charts/gateway/rendered.yaml", 18, 5),
            // The entry whose glob matches linted files but no diagnostic.
            f("LBL004", "note", "lblint.yaml", 14, 5),
        ]
    );
    // vendor/ is excluded; the gateway finding is suppressed.
    assert_eq!(report["summary"]["files"], 4);
    assert_eq!(report["summary"]["suppressed"], 1);
}

#[test]
fn discovered_from_a_subdirectory_with_paths_relative_to_the_config() {
    let dir = format!("{PROJECT}/apps");
    let (code, report) = check_json_in(&dir, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "error", "web.yaml", 8, 5),
            f("LBL004", "note", "../lblint.yaml", 14, 5),
        ]
    );
    // From apps/, `..` is the project: the config's `exclude: [vendor]` and its
    // `ignore: path: charts/**` still hold, relative to the config file.
    let (_, report) = check_json_in(&dir, &[".."]);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "error", "../apps/web.yaml", 8, 5),
            f(
                "TKE001",
                "warning",
                "../charts/gateway/rendered.yaml",
                18,
                5
            ),
            f("LBL004", "note", "../lblint.yaml", 14, 5),
        ]
    );
    let run = lblint_in(&dir, &["check", "--format", "compact"]);
    assert!(
        run.stdout
            .contains("\n../lblint.yaml:14:5: note[LBL004] Unused suppression: no `TKE001` diagnostic in the files matching `apps/*.yaml` for `Service/shop/gone` to ignore.\n"),
        "{}",
        run.stdout
    );
    // A file named explicitly is excluded too (pre-commit passes files one by one).
    let (code, report) = check_json_in(&dir, &["../vendor/chart.yaml"]);
    assert_eq!((code, findings(&report)), (0, vec![]));
    assert_eq!(report["summary"]["files"], 0);
}

#[test]
fn no_config_ignores_discovery() {
    let (code, report) = check_json_in(PROJECT, &["--no-config"]);
    assert_eq!(code, 1);
    // No profile (all warnings), no exclude, no ignore entries.
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", "apps/web.yaml", 8, 5),
            f("TKE001", "warning", "charts/gateway/rendered.yaml", 8, 5),
            f("TKE001", "warning", "charts/gateway/rendered.yaml", 18, 5),
            f("TKE001", "warning", "vendor/chart.yaml", 8, 5),
        ]
    );
    assert_eq!(report["summary"]["suppressed"], 0);
}

#[test]
fn config_flag_names_the_file() {
    let (code, report) = check_json(&[
        "--config",
        "testdata/config/project/lblint.yaml",
        "testdata/config/project/charts",
    ]);
    // failOn: error from the config, and only a warning left.
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/config/project/charts/gateway/rendered.yaml",
            18,
            5
        )]
    );
    assert_eq!(report["summary"]["suppressed"], 1);
    let run = lblint(&[
        "check",
        "--config",
        "testdata/config/nope.yaml",
        "testdata/tke",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("testdata/config/nope.yaml: cannot read config:"),
        "{}",
        run.stderr
    );
    let run = lblint(&["check", "--config", "x.yaml", "--no-config"]);
    assert_eq!(run.code, 2);
}

#[test]
fn flags_win_over_the_config() {
    // --fail-on beats failOn: error.
    let (code, _) = check_json_in(PROJECT, &["--fail-on", "warning", "charts"]);
    assert_eq!(code, 1);
    // --profile beats `profile:` (an iptables cluster does not loop back at L4).
    let (_, report) = check_json_in(
        PROJECT,
        &[
            "--profile",
            "../../tke/profile-iptables-regular.yaml",
            "apps",
        ],
    );
    assert_eq!(
        findings(&report),
        vec![
            f("K8S001", "note", "apps/web.yaml", 35, 46),
            f("LBL004", "note", "lblint.yaml", 14, 5)
        ]
    );
    // --exclude adds to the config's exclude.
    let (_, report) = check_json_in(PROJECT, &["--exclude", "charts"]);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "error", "apps/web.yaml", 8, 5),
            f("LBL004", "note", "lblint.yaml", 14, 5),
        ]
    );
    // --include replaces the config's include (here: the default extensions).
    let (_, report) = check_json(&[
        "--config",
        "testdata/config/include-json.yaml",
        "testdata/config/project/apps",
    ]);
    assert_eq!(report["summary"]["files"], 0);
    let (_, report) = check_json(&[
        "--config",
        "testdata/config/include-json.yaml",
        "--include",
        "*.yaml",
        "testdata/config/project/apps",
    ]);
    assert_eq!(report["summary"]["files"], 1);
}

#[test]
fn rule_levels_override_severity_or_switch_rules_off() {
    let (code, report) = check_json(&[
        "--config",
        "testdata/config/levels.yaml",
        "testdata/tke/private-no-caller.yaml",
        "testdata/suppress/unused.yaml",
    ]);
    // TKE001 is a note now (below the default --fail-on warning); LBL004 is off.
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![
            f(
                "TKE001",
                "note",
                "testdata/tke/private-no-caller.yaml",
                8,
                5
            ),
            f("TKE001", "note", "testdata/suppress/unused.yaml", 24, 5),
        ]
    );
    let (code, report) = check_json(&[
        "--config",
        "testdata/config/off.yaml",
        "testdata/config/lbl004.yaml",
        "testdata/tke/private-no-caller.yaml",
        "testdata/suppress/comment-line.yaml",
    ]);
    assert_eq!(code, 0);
    // Off: not reported, not counted as suppressed, and its suppressions are not "unused".
    assert_eq!(findings(&report), vec![]);
    assert_eq!(report["summary"]["suppressed"], 0);
}

#[test]
fn an_lbl004_entry_hides_unused_suppression_notes() {
    let (code, report) = check_json(&[
        "--config",
        "testdata/config/lbl004.yaml",
        "testdata/config/project/apps",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/config/project/apps/web.yaml",
            8,
            5
        ),]
    );
    assert_eq!(report["summary"]["suppressed"], 1);
}

#[test]
fn config_errors_are_located_with_did_you_mean() {
    for name in [
        "unknown-key",
        "bad-fail-on",
        "unknown-rule",
        "bad-level",
        "unknown-ignore-rule",
        "unknown-ignore-key",
        "missing-reason",
        "bad-object",
        "bad-glob",
        "include-not-list",
    ] {
        let path = format!("testdata/config/errors/{name}.yaml");
        let run = lblint(&["check", "--config", &path, "testdata/tke"]);
        assert_eq!(run.code, 2, "{name}");
        assert_eq!(run.stdout, "", "{name}");
        snapshot!(format!("config_err_{}", name.replace('-', "_")), run.stderr);
    }
}

/// Every error of a config file in one run (a bad value, a bad level, a
/// wrong type, an unknown key in an entry, a missing field, an unknown top-level key), in
/// file order, each with its place and help, under the path relative to the working
/// directory.
#[test]
fn config_errors_are_all_reported_in_one_run() {
    let run = lblint(&[
        "check",
        "--config",
        "testdata/config/errors/many.yaml",
        "testdata/tke",
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .starts_with("lblint: error: invalid config file (6 errors)\n"),
        "{}",
        run.stderr
    );
    snapshot!("config_err_many", run.stderr);
    assert_eq!(
        crate::error_messages(&run.stderr),
        [
            "unknown value `warn` for `failOn`",
            "unknown level `loud` for a rule",
            "`include` must be a list of globs",
            "unknown field `objects` in an `ignore` entry",
            "missing field `reason` in an `ignore` entry",
            "unknown field `failon` at the top level",
        ]
    );
    let run = lblint_in(
        "testdata/tke",
        &["check", "--config", "../config/errors/many.yaml", "."],
    );
    assert_eq!(run.code, 2);
    let places: Vec<&str> = run
        .stderr
        .lines()
        .filter_map(|l| l.split_once("╭─[")?.1.strip_suffix(']'))
        .collect();
    assert_eq!(
        places,
        [
            "../config/errors/many.yaml:3:9",
            "../config/errors/many.yaml:6:11",
            "../config/errors/many.yaml:7:10",
            "../config/errors/many.yaml:11:5",
            "../config/errors/many.yaml:13:3",
            "../config/errors/many.yaml:15:1",
        ]
    );
    // `lblint model` reads the config the same way.
    let run = lblint(&[
        "model",
        "--config",
        "testdata/config/errors/many.yaml",
        "testdata/tke",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("(6 errors)"), "{}", run.stderr);
}

#[test]
fn the_example_config_suppresses_the_reports_warning() {
    let (code, report) = check_json_in("examples", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "error", "manifests/shop-api.yaml", 9, 5),]
    );
    assert_eq!(report["summary"]["suppressed"], 1);
}

// ---- schemas ---------------------------------------------------------------------------

fn schema(which: &str) -> Value {
    let run = lblint(&["schema", which]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn yaml(path: &str) -> Value {
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Validate against one of lblint's schemas with a real draft-07 validator.
fn validate(v: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(schema)
        .map_err(|e| format!("schema does not compile: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{at}{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

#[test]
fn examples_validate_against_the_schemas() {
    let profile = schema("profile");
    let mut profiles = 0;
    for entry in std::fs::read_dir("examples/profiles").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let path = path.to_str().unwrap();
            validate(&yaml(path), &profile, "$").unwrap_or_else(|e| panic!("{path}: {e}"));
            profiles += 1;
        }
    }
    assert!(profiles > 0);

    let config = schema("config");
    assert_eq!(config["$schema"], "http://json-schema.org/draft-07/schema#");
    for path in [
        "examples/lblint.yaml",
        "testdata/config/project/lblint.yaml",
        "testdata/config/levels.yaml",
        "testdata/config/off.yaml",
        "testdata/config/lbl004.yaml",
    ] {
        validate(&yaml(path), &config, "$").unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    // And it rejects what the loader rejects.
    for name in [
        "unknown-key",
        "bad-fail-on",
        "unknown-rule",
        "bad-level",
        "unknown-ignore-rule",
        "unknown-ignore-key",
        "missing-reason",
        "include-not-list",
        "many",
    ] {
        let path = format!("testdata/config/errors/{name}.yaml");
        assert!(
            validate(&yaml(&path), &config, "$").is_err(),
            "{name} should violate the config schema"
        );
    }
}

#[test]
fn schema_lists_every_rule_id_and_name() {
    let config = schema("config");
    let names = config["properties"]["rules"]["propertyNames"]["enum"]
        .as_array()
        .unwrap();
    for key in ["TKE001", "tke-l4-loopback", "LBL004", "unused-suppression"] {
        assert!(names.contains(&Value::String(key.into())), "{key}");
    }
    assert_eq!(lblint(&["schema", "nope"]).code, 2);
}
