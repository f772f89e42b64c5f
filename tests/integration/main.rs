//! One integration-test binary (one link step): the CLI end to end, loader positions,
//! provider verdicts, and the examples in every rule document.

// By-hand measurements and skipped-test notes print.
#![allow(clippy::print_stdout, clippy::print_stderr)]
// A failed unwrap is a failed test, with its message; clippy.toml's allow-*-in-tests
// covers #[test] functions only, not the helpers beside them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ack;
mod cli;
mod config;
mod context;
mod controllers;
mod conventions;
mod dist;
mod docs;
mod docs_fixes;
mod eks;
mod evidence_corpus;
mod fix;
mod fix_choice;
mod fix_write;
mod gateways;
mod hairpin;
mod hostile_output;
mod journeys;
mod k8s;
mod kube_proxy_gates;
mod layers;
mod limits;
mod load;
mod model;
mod namespaces;
mod oke_proxy;
mod origins;
mod output;
mod owners;
mod paths;
mod precommit;
mod preview;
mod profile_import;
mod proxy_controllers;
mod proxy_family;
mod proxy_protocol;
mod render;
mod render_fixes;
mod render_helm;
mod render_reasons;
mod robust;
mod sarif;
mod server;
mod suppress;
mod tke;
mod tke_config;
mod tls_termination;
mod trust;
mod unknown_facts;
mod untrusted;
mod variants;
mod verdicts;
mod versions;
mod vke;
mod yaml_suite;

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the built binary from the crate root with a scrubbed, colourless environment.
pub fn lblint(args: &[&str]) -> Run {
    lblint_stdin(args, None)
}

pub fn lblint_stdin(args: &[&str], stdin: Option<&[u8]>) -> Run {
    lblint_at(".", args, stdin)
}

/// Run the binary in `dir` (relative to the crate root).
pub fn lblint_in(dir: &str, args: &[&str]) -> Run {
    lblint_at(dir, args, None)
}

/// [`lblint`] with arguments that need not be UTF-8 (file names are any bytes on Unix).
pub fn lblint_os<S: AsRef<OsStr>>(args: &[S]) -> Run {
    lblint_at(".", args, None)
}

fn lblint_at<S: AsRef<OsStr>>(dir: &str, args: &[S], stdin: Option<&[u8]>) -> Run {
    lblint_command(dir, args, stdin, Command::new(env!("CARGO_BIN_EXE_lblint")))
}

/// Run `command` (the binary, or a wrapper that execs it) with `args` the way [`lblint`]
/// does: from `dir` under the crate root, with a scrubbed, colourless environment.
pub fn lblint_command<S: AsRef<OsStr>>(
    dir: &str,
    args: &[S],
    stdin: Option<&[u8]>,
    mut command: Command,
) -> Run {
    let mut child = command
        .args(args)
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lblint");
    if let Some(bytes) = stdin {
        // lblint may exit before reading (bad arguments): a broken pipe is not a test failure.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    let out = with_watchdog(child.id(), || child.wait_with_output().unwrap());
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A hang (the bug several tests guard against) fails the test instead of stalling CI: the
/// child is killed after two minutes, far above any run here, and exits by signal (-1).
fn with_watchdog<T>(pid: u32, wait: impl FnOnce() -> T) -> T {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            for _ in 0..2400 {
                std::thread::sleep(std::time::Duration::from_millis(50));
                if done.load(Ordering::Relaxed) {
                    return;
                }
            }
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        })
    };
    let result = wait();
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    result
}

/// The messages of the located errors (profile, config) miette drew on stderr, in order.
pub fn error_messages(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("× "))
        .collect()
}

/// `lblint check --format json ARGS`: exit status and parsed report.
pub fn check_json(args: &[&str]) -> (i32, serde_json::Value) {
    check_json_in(".", args)
}

/// [`check_json`] run in `dir` (relative to the crate root).
pub fn check_json_in(dir: &str, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let run = lblint_in(dir, &all);
    let value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", run.stdout, run.stderr));
    (run.code, value)
}

/// (rule, severity, file, line, column) of one diagnostic.
pub type Finding = (String, String, String, u64, u64);

/// Every diagnostic of a JSON report, in output order.
pub fn findings(report: &serde_json::Value) -> Vec<Finding> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// (line, column) of each related location of a JSON diagnostic.
pub fn related_at(d: &serde_json::Value) -> Vec<(u64, u64)> {
    d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect()
}

pub fn f(
    rule: &str,
    severity: &str,
    file: &str,
    line: u64,
    column: u64,
) -> (String, String, String, u64, u64) {
    (rule.into(), severity.into(), file.into(), line, column)
}

/// `path` as lblint shows it when run from the crate root: relative when under it.
pub fn shown(path: &std::path::Path) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A profile for `provider` with these extra `spec:` lines (two-space indented YAML).
pub fn profile_with(provider: &str, spec: &str) -> lblint::profile::Profile {
    let text = format!(
        "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nmetadata:\n  name: t\nspec:\n  \
         provider: {provider}\n{spec}"
    );
    lblint::profile::parse_profile(&text, "profile.yaml")
        .unwrap_or_else(|e| panic!("bad test profile: {e}\n{text}"))
}

/// (rule, severity, line, column) of a finding.
pub type Hit = (String, String, u32, u32);

/// The findings of rules whose id starts with `prefix` when `text` is linted as `path`
/// with `profile`, and the first one's message.
pub fn lint_text(
    path: &str,
    text: &str,
    profile: &lblint::profile::Profile,
    prefix: &str,
) -> (Vec<Hit>, String) {
    let outcome =
        lblint::check::check_sources(&[(path.to_string(), text.as_bytes().to_vec())], profile);
    let hits: Vec<_> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.rule().starts_with(prefix))
        .collect();
    let message = hits
        .first()
        .map(|d| d.message().to_string())
        .unwrap_or_default();
    let found = hits
        .iter()
        .map(|d| {
            let start = d.location().span.start;
            (
                d.rule().to_string(),
                d.severity().as_str().to_string(),
                start.line,
                start.column,
            )
        })
        .collect();
    (found, message)
}

/// The help of the first finding [`lint_text`] gives: the reasoning a lead message leaves
/// out (issue 29 item 3: the lead fits two lines).
pub fn help_text(
    path: &str,
    text: &str,
    profile: &lblint::profile::Profile,
    prefix: &str,
) -> String {
    let outcome =
        lblint::check::check_sources(&[(path.to_string(), text.as_bytes().to_vec())], profile);
    outcome
        .diagnostics
        .iter()
        .find(|d| d.rule().starts_with(prefix))
        .and_then(|d| d.help())
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// [`lint_text`] on the file at `path`.
pub fn lint_file(
    path: &str,
    profile: &lblint::profile::Profile,
    prefix: &str,
) -> (Vec<Hit>, String) {
    lint_text(
        path,
        &std::fs::read_to_string(path).unwrap(),
        profile,
        prefix,
    )
}

/// One expected finding.
pub fn one(rule: &str, severity: &str, line: u32, column: u32) -> Vec<Hit> {
    vec![(rule.into(), severity.into(), line, column)]
}

/// Snapshots live in the top-level `snapshots/` folder.
#[macro_export]
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

pub const SUBNET_KEY: &str = "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid";
