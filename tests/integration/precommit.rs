//! The pre-commit hook, with the real `pre-commit` tool (tests/precommit.sh). CI installs
//! pre-commit (`.ci/run`); under CI=true a missing pre-commit fails the test, elsewhere the
//! test says it is skipped.

use std::process::Command;

fn on_path(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn hook_fails_on_risky_manifests_and_passes_clean_ones() {
    let found = on_path("pre-commit").then(|| "pre-commit".into());
    if crate::render::need("pre-commit", found, "python3 -m pip install pre-commit").is_none() {
        return;
    }
    let out = Command::new("bash")
        .arg("tests/precommit.sh")
        .arg(env!("CARGO_BIN_EXE_lblint"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tests/precommit.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for step in [
        "ok: non-Kubernetes YAML and JSON are ignored",
        "ok: a risky manifest fails",
        "ok: a clean manifest passes",
        "ok: an excluded path passed explicitly is still excluded",
        "ok: an unrelated staged file does not report the repository's other findings",
        "ok: a staged caller of a load balancer in another file fails",
    ] {
        assert!(stdout.contains(step), "{stdout}");
    }
}

#[test]
fn hooks_file_declares_every_hook() {
    let text = std::fs::read_to_string(".pre-commit-hooks.yaml").unwrap();
    let hooks: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let hooks = hooks.as_array().unwrap();
    let by_id = |id: &str| {
        hooks
            .iter()
            .find(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("no hook {id}"))
    };
    let lint = by_id("lblint");
    assert_eq!(lint["name"], "lblint");
    assert_eq!(lint["language"], "rust");
    assert_eq!(lint["entry"], "lblint check --context");
    assert_eq!(lint["types_or"], serde_json::json!(["yaml", "json"]));
    assert_eq!(lint["require_serial"], true);
    assert!(lint["description"].as_str().is_some_and(|d| !d.is_empty()));
    let fix = by_id("lblint-fix");
    assert_eq!(fix["entry"], "lblint check --context --fix");
    assert!(fix["description"].as_str().unwrap().contains("safe fixes"));
    assert_eq!(fix["require_serial"], true);
    let render = by_id("lblint-render");
    assert_eq!(render["entry"], "lblint check --context --render");
    assert!(render["description"].as_str().unwrap().contains("Slower"));
    assert_eq!(render["require_serial"], true);
}
