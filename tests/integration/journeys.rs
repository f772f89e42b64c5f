//! The user's path, end to end (issue 37), on each cloud: read-only kubectl dumps of a
//! cluster (testdata/journeys/<cloud>/cluster: vendor version suffixes, node pools, other
//! teams' load balancers) and an application repository nobody wrote for lblint
//! (repo/: upstream manifests without a namespace, applied with `kubectl -n`). Each step is
//! the README's: import the profile, check, fix, check again; then the same with the nodes
//! dump left out (app teams often may not list nodes). Findings and exit codes are asserted
//! at every step.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::tempdir;
use crate::{check_json, lblint};

/// (rule, severity, line, column) of a finding at warning or above in the repository file.
type Seen = (&'static str, &'static str, u64, u64);
type Found = (String, String, u64, u64);

fn owned(seen: &[Seen]) -> Vec<Found> {
    seen.iter()
        .map(|(r, s, l, c)| (r.to_string(), s.to_string(), *l, *c))
        .collect()
}

struct Journey {
    cloud: &'static str,
    /// The namespace the team applies the manifests to.
    namespace: &'static str,
    file: &'static str,
    provider: &'static str,
    /// Lines the imported profile must hold.
    imported: &'static [&'static str],
    /// With the full profile.
    check: &'static [Seen],
    /// After `--fix --unsafe-fixes`, and after the by-hand edit the help gives (if any).
    fixed: &'static [Seen],
    by_hand: Option<(&'static str, &'static str)>,
    /// With the profile imported without nodes.yaml.
    without_nodes: &'static [Seen],
}

const JOURNEYS: &[Journey] = &[
    Journey {
        cloud: "tke",
        namespace: "otel-demo",
        file: "opentelemetry-demo.yaml",
        provider: "tke",
        imported: &[
            "    version: v1.30.0-tke.11\n",
            "    lbAddressBinding: true\n",
            "      type: regular\n",
            "      type: super\n",
            "      imported: true\n",
        ],
        check: &[("TKE001", "error", 38, 5)],
        fixed: &[],
        by_hand: None,
        // Unknown is never "no": without pools the private CLB stays a warning naming them.
        without_nodes: &[("TKE001", "warning", 38, 5)],
    },
    Journey {
        cloud: "eks",
        namespace: "otel-demo",
        file: "opentelemetry-demo.yaml",
        provider: "eks",
        imported: &["    awsLoadBalancerController: v2.8.2\n", "      imported: true\n"],
        check: &[("EKS001", "error", 52, 7)],
        fixed: &[],
        by_hand: None,
        without_nodes: &[("EKS001", "error", 52, 7)],
    },
    Journey {
        cloud: "doks",
        namespace: "sock-shop",
        file: "complete-demo.yaml",
        provider: "doks",
        imported: &["    mode: ebpf\n", "      imported: true\n"],
        check: &[("DOKS001", "error", 63, 9)],
        // The hostname way out needs a DNS record: a suggestion, applied here by hand.
        fixed: &[("DOKS001", "error", 63, 9)],
        by_hand: Some((
            "        service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n",
            "        service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n        \
             service.beta.kubernetes.io/do-loadbalancer-hostname: lb.example.com\n",
        )),
        without_nodes: &[("DOKS001", "error", 63, 9)],
    },
    Journey {
        cloud: "ack",
        namespace: "sock-shop",
        file: "complete-demo.yaml",
        provider: "ack",
        imported: &["    mode: ipvs\n", "      imported: true\n"],
        check: &[("ACK001", "error", 69, 26)],
        fixed: &[],
        by_hand: None,
        without_nodes: &[("ACK001", "error", 69, 26)],
    },
];

fn dumps(cloud: &str, nodes: bool) -> Vec<String> {
    let dir = format!("testdata/journeys/{cloud}/cluster");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| nodes || !p.ends_with("nodes.yaml"))
        .collect();
    out.sort();
    out
}

/// `lblint profile import` of the cloud's dumps into `dir`: the profile's path and text.
fn import(journey: &Journey, dir: &Path, nodes: bool) -> (PathBuf, String) {
    let path = dir.join(if nodes {
        "cluster.yaml"
    } else {
        "cluster-no-nodes.yaml"
    });
    let mut args = vec!["profile".to_string(), "import".to_string()];
    args.extend(dumps(journey.cloud, nodes));
    args.extend(["-o".to_string(), path.to_string_lossy().into_owned()]);
    let run = lblint(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 0, "{}: {}", journey.cloud, run.stderr);
    let text = std::fs::read_to_string(&path).unwrap();
    let provider = format!("\n  provider: {}\n", journey.provider);
    assert!(text.contains(&provider), "{}:\n{text}", journey.cloud);
    (path, text)
}

/// Findings at warning or above in the repository's file, and the exit code.
fn check(journey: &Journey, profile: &Path, repo: &Path) -> (i32, Vec<Found>, Value) {
    let (code, report) = check_json(&[
        "--no-config",
        "--profile",
        profile.to_str().unwrap(),
        "--namespace",
        journey.namespace,
        repo.to_str().unwrap(),
    ]);
    let seen = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "note")
        .map(|d| {
            assert!(
                d["file"].as_str().unwrap().ends_with(journey.file),
                "{}: {d:#}",
                journey.cloud
            );
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    (code, seen, report)
}

fn exit_for<T>(seen: &[T]) -> i32 {
    i32::from(!seen.is_empty())
}

#[test]
fn import_check_fix_check_on_every_cloud() {
    for journey in JOURNEYS {
        let dir = tempdir(&format!("journey-{}", journey.cloud));
        let (profile, text) = import(journey, &dir, true);
        for line in journey.imported {
            assert!(
                text.contains(line),
                "{}: {line:?} in\n{text}",
                journey.cloud
            );
        }
        let repo = dir.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        let original = format!("testdata/journeys/{}/repo/{}", journey.cloud, journey.file);
        let file = repo.join(journey.file);
        std::fs::copy(&original, &file).unwrap();

        let (code, seen, _) = check(journey, &profile, &repo);
        assert_eq!(seen, owned(journey.check), "{}: check", journey.cloud);
        assert_eq!(code, exit_for(&seen), "{}", journey.cloud);

        let run = lblint(&[
            "check",
            "--no-config",
            "--profile",
            profile.to_str().unwrap(),
            "--namespace",
            journey.namespace,
            "--fix",
            "--unsafe-fixes",
            repo.to_str().unwrap(),
        ]);
        if let Some((find, replace)) = journey.by_hand {
            let (code, seen, _) = check(journey, &profile, &repo);
            assert_eq!(
                seen,
                owned(journey.fixed),
                "{}: after --fix\n{}",
                journey.cloud,
                run.stderr
            );
            assert_eq!(code, exit_for(&seen));
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(text.contains(find), "{}", journey.cloud);
            std::fs::write(&file, text.replacen(find, replace, 1)).unwrap();
        } else {
            assert_eq!(
                run.code,
                exit_for(journey.fixed),
                "{}: {}",
                journey.cloud,
                run.stderr
            );
        }
        // The fix ends green: nothing at warning or above is left, and nothing new came.
        let (code, seen, _) = check(journey, &profile, &repo);
        assert_eq!(
            seen,
            Vec::<Found>::new(),
            "{}: after the fix",
            journey.cloud
        );
        assert_eq!(code, 0, "{}", journey.cloud);
    }
}

#[test]
fn without_the_nodes_dump_the_cloud_is_still_known() {
    for journey in JOURNEYS {
        let dir = tempdir(&format!("journey-no-nodes-{}", journey.cloud));
        let (profile, text) = import(journey, &dir, false);
        assert!(
            text.contains("#   spec.nodePools: add `kubectl get nodes -o yaml`"),
            "{text}"
        );
        let repo = format!("testdata/journeys/{}/repo", journey.cloud);
        let (code, seen, _) = check(journey, &profile, Path::new(&repo));
        assert_eq!(
            seen,
            owned(journey.without_nodes),
            "{}: without nodes",
            journey.cloud
        );
        assert_eq!(code, exit_for(&seen), "{}", journey.cloud);
    }
}

/// The imported profile lists every team's load balancers: without `--namespace` only the
/// repository's own (its manifests leave the namespace to apply time) is reported, with the
/// flag that places it; other teams' are not this repository's problem.
#[test]
fn other_teams_load_balancers_are_not_reported() {
    for journey in JOURNEYS {
        let dir = tempdir(&format!("journey-others-{}", journey.cloud));
        let (profile, text) = import(journey, &dir, true);
        assert!(text.matches("imported: true").count() >= 3, "{text}");
        let repo = format!("testdata/journeys/{}/repo", journey.cloud);
        let (_, report) =
            check_json(&["--no-config", "--profile", profile.to_str().unwrap(), &repo]);
        let missing: Vec<&Value> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "LBL007")
            .collect();
        assert_eq!(missing.len(), 1, "{}: {missing:#?}", journey.cloud);
        let help = missing[0]["help"].as_str().unwrap();
        let flag = format!("`--namespace {}`", journey.namespace);
        assert!(help.contains(&flag), "{}: {help}", journey.cloud);
    }
}
