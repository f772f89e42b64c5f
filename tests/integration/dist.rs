//! Install and distribution files agree with each other and with Cargo.toml: the cheap
//! `release` profile and the heavy `dist` one, the maturin wheel, the Dockerfile and its
//! build context, the release and CI workflows, and README's pre-commit snippets. Building
//! the wheel and linting the workflows need the network: dist/check-wheel.sh and
//! dist/lint-ci.sh do that, outside `cargo test`.

use serde_json::{json, Value};
use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap()
}

/// The `key = value` lines of one `[section]` of a TOML file (no nested tables needed).
fn toml_section(text: &str, section: &str) -> Vec<(String, String)> {
    let header = format!("[{section}]");
    let mut lines = text.lines().skip_while(|l| l.trim() != header);
    assert!(lines.next().is_some(), "no {header}");
    lines
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| {
            let l = l.split(" #").next().unwrap().trim();
            let (k, v) = l.split_once('=')?;
            (!l.starts_with('#')).then(|| (k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

fn get<'a>(section: &'a [(String, String)], key: &str) -> Option<&'a str> {
    section
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// `cargo install` (and so the `language: rust` pre-commit hook) builds `release`: no
/// cross-crate LTO, cargo's 16 codegen units. The heavy settings live in `dist`.
#[test]
fn release_profile_is_cheap_and_dist_is_heavy() {
    let cargo = read("Cargo.toml");
    let release = toml_section(&cargo, "profile.release");
    assert!(
        matches!(get(&release, "lto"), None | Some("false")),
        "release must not use cross-crate LTO: {release:?}"
    );
    assert!(
        matches!(get(&release, "codegen-units"), None | Some("16")),
        "{release:?}"
    );
    let dist = toml_section(&cargo, "profile.dist");
    assert_eq!(get(&dist, "inherits"), Some("\"release\""));
    assert_eq!(get(&dist, "lto"), Some("\"fat\""));
    assert_eq!(get(&dist, "codegen-units"), Some("1"));
    assert_eq!(get(&dist, "strip"), Some("true"));
    // src/panic.rs catches a rule's panic: unwinding must stay on.
    assert_eq!(get(&dist, "panic"), None);
}

#[test]
fn pyproject_builds_a_bin_wheel_from_the_crate() {
    let py = read("pyproject.toml");
    let cargo = read("Cargo.toml");
    let build = toml_section(&py, "build-system");
    assert_eq!(get(&build, "requires"), Some(r#"["maturin>=1,<2"]"#));
    assert_eq!(get(&build, "build-backend"), Some("\"maturin\""));
    let project = toml_section(&py, "project");
    let package = toml_section(&cargo, "package");
    assert_eq!(get(&project, "name"), get(&package, "name"));
    assert_eq!(get(&project, "dynamic"), Some(r#"["version"]"#));
    assert_eq!(get(&project, "description"), get(&package, "description"));
    assert_eq!(get(&project, "readme"), get(&package, "readme"));
    let license = get(&package, "license").unwrap();
    assert_eq!(
        get(&project, "license"),
        Some(format!("{{ text = {license} }}").as_str())
    );
    assert!(get(&project, "requires-python").is_some());
    let maturin = toml_section(&py, "tool.maturin");
    assert_eq!(get(&maturin, "bindings"), Some("\"bin\""));
    assert_eq!(get(&maturin, "profile"), Some("\"dist\""));
    assert_eq!(get(&maturin, "locked"), Some("true"));
}

/// The builder stage builds `dist` from exactly the paths it copies, and .dockerignore
/// lets each of them into the build context.
#[test]
fn dockerfile_builds_dist_from_the_paths_dockerignore_keeps() {
    let docker = read("Dockerfile");
    assert!(docker.contains("cargo build --profile dist --locked"));
    let kept: Vec<String> = read(".dockerignore")
        .lines()
        .filter_map(|l| l.strip_prefix('!'))
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    let copied: Vec<&str> = docker
        .lines()
        .filter_map(|l| l.strip_prefix("COPY "))
        .filter(|l| !l.starts_with("--from"))
        .flat_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words[..words.len() - 1].to_vec()
        })
        .collect();
    let mut copied_sorted: Vec<String> = copied.iter().map(|s| s.to_string()).collect();
    copied_sorted.sort();
    let mut kept_sorted = kept.clone();
    kept_sorted.sort();
    assert_eq!(copied_sorted, kept_sorted);
    for needed in ["Cargo.toml", "Cargo.lock", "build.rs", "rules", "src"] {
        assert!(kept.iter().any(|k| k == needed), "{needed}");
    }
    // The runtime stage: a numeric non-root user, lblint as the entry point.
    let runtime = docker.rsplit("\nFROM ").next().unwrap();
    let user = runtime
        .lines()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER in the runtime stage");
    assert!(
        user.split(':')
            .all(|id| id.parse::<u32>().is_ok_and(|n| n > 0)),
        "{user}"
    );
    assert!(runtime.contains(r#"ENTRYPOINT ["lblint"]"#));
}

fn steps(job: &Value) -> Vec<&Value> {
    job["steps"].as_array().unwrap().iter().collect()
}

fn uses(job: &Value) -> Vec<&str> {
    steps(job)
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect()
}

fn runs(job: &Value) -> String {
    steps(job)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn release_workflow_builds_every_platform_and_publishes() {
    let wf = yaml(&read(".github/workflows/release.yml"));
    assert_eq!(wf["on"]["push"]["tags"], json!(["v*"]));
    let jobs = &wf["jobs"];
    let bins = &jobs["binaries"];
    let targets: Vec<&str> = bins["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["target"].as_str().unwrap())
        .collect();
    for t in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(targets.contains(&t), "no binary for {t}");
    }
    assert!(runs(bins).contains("cargo build --profile dist --locked --target"));
    assert!(uses(&jobs["wheels"]).contains(&"PyO3/maturin-action@v1"));
    assert!(uses(&jobs["sdist"]).contains(&"PyO3/maturin-action@v1"));
    let release = &jobs["github-release"];
    assert_eq!(release["permissions"]["contents"], "write");
    assert!(runs(release).contains("gh release create"));
    let pypi = &jobs["pypi"];
    assert_eq!(pypi["permissions"]["id-token"], "write");
    assert!(uses(pypi).contains(&"pypa/gh-action-pypi-publish@release/v1"));
    // Every action is pinned to at least a major version.
    for job in jobs.as_object().unwrap().values() {
        for u in uses(job) {
            assert!(u.contains('@'), "{u} is not pinned");
        }
    }
}

#[test]
fn ci_workflow_runs_the_ci_gate_and_the_dist_lints() {
    let wf = yaml(&read(".github/workflows/ci.yml"));
    assert!(runs(&wf["jobs"]["test"]).contains("bash .ci/run"));
    assert!(runs(&wf["jobs"]["lint-dist"]).contains("bash dist/lint-ci.sh"));
}

#[test]
fn dist_scripts_parse() {
    for script in ["dist/check-wheel.sh", "dist/lint-ci.sh"] {
        let out = Command::new("bash").args(["-n", script]).output().unwrap();
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The ```yaml blocks of README's pre-commit section, parsed.
fn readme_precommit_configs() -> Vec<Value> {
    let readme = read("README.md");
    let section = readme
        .split("\n## pre-commit\n")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    section
        .split("```yaml\n")
        .skip(1)
        .map(|block| yaml(block.split("```").next().unwrap()))
        .collect()
}

/// README's hooks name what .pre-commit-hooks.yaml defines; no `rev` names a tag, since
/// none has been pushed (the release workflow makes the first); the python hook runs
/// the same command on the same files as the repository's hook.
#[test]
fn readme_precommit_snippets_match_the_hooks() {
    let hooks = yaml(&read(".pre-commit-hooks.yaml"));
    let hook = |id: &str| {
        hooks
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["id"] == id)
            .unwrap()
            .clone()
    };
    // Every hook of this repository builds with cargo: a `language: python` hook here
    // would make pre-commit `pip install .` this repository, i.e. compile it with maturin.
    for h in hooks.as_array().unwrap() {
        assert_eq!(h["language"], "rust", "{h}");
    }
    let configs = readme_precommit_configs();
    assert_eq!(
        configs.len(),
        2,
        "README shows the rust and the python hook"
    );
    let remote = &configs[0]["repos"][0];
    assert_eq!(remote["repo"], "https://github.com/lblint/lblint");
    let rev = remote["rev"].as_str().unwrap();
    assert!(
        !rev.starts_with('v'),
        "README pins rev {rev}, a tag that does not exist yet"
    );
    for h in remote["hooks"].as_array().unwrap() {
        hook(h["id"].as_str().unwrap());
    }
    let local = &configs[1]["repos"][0];
    assert_eq!(local["repo"], "local");
    let py = &local["hooks"][0];
    let lint = hook("lblint");
    assert_eq!(py["language"], "python");
    for key in ["id", "entry", "types_or", "require_serial"] {
        assert_eq!(py[key], lint[key], "{key}");
    }
    let version = toml_section(&read("Cargo.toml"), "package")
        .into_iter()
        .find(|(k, _)| k == "version")
        .unwrap()
        .1;
    assert_eq!(
        py["additional_dependencies"],
        json!([format!("lblint=={}", version.trim_matches('"'))])
    );
}
