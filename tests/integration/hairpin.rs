//! Family 1 (client-IP-preserving L4 hairpin) on Huawei CCE, and the Azure AKS / GKE
//! internal-LB advisories (rules/CCE001.md to CCE003.md, AKS001.md, GKE001.md). Each case
//! lints a fixture of testdata/hairpin/ (or a variant with one string replaced, keeping
//! its lines) against a profile written here, so every profile fact that decides a verdict
//! is tried on both sides.

use lblint::profile::{self, Profile};

use super::{lint_text, one, profile_with as profile, Hit};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("testdata/hairpin/{name}.yaml")).unwrap()
}

/// A one-string change to a fixture: (from, to).
type Edit = Option<(&'static str, &'static str)>;

/// The findings of rules whose id starts with `prefix` in testdata/hairpin/`name`.yaml,
/// with `edit` applied (its `from` must occur), and the first message.
fn lint_edited(name: &str, edit: Edit, profile: &Profile, prefix: &str) -> (Vec<Hit>, String) {
    let mut text = fixture(name);
    if let Some((from, to)) = edit {
        assert!(text.contains(from), "{name}: no `{from}`");
        text = text.replace(from, to);
    }
    lint_text(&format!("{name}.yaml"), &text, profile, prefix)
}

fn lint(name: &str, profile: &Profile, prefix: &str) -> (Vec<Hit>, String) {
    lint_edited(name, None, profile, prefix)
}

/// What the first finding says, lead and help: the lead fits two lines and the reasoning
/// (the vendor's words, the cause) opens the help (issue 29 item 3).
fn said(name: &str, profile: &Profile, prefix: &str) -> String {
    let (_, message) = lint(name, profile, prefix);
    let path = format!("{name}.yaml");
    let help = super::help_text(&path, &fixture(name), profile, prefix);
    format!("{message}\n{help}")
}

/// Each case `(fixture, edit, profile, severity)` yields exactly one finding of `rule`, at
/// `line:column` with that severity, or none.
fn verdicts(rule: &str, (line, column): (u32, u32), cases: &[(&str, Edit, Profile, Option<&str>)]) {
    for (name, edit, profile, severity) in cases {
        let found = lint_edited(name, *edit, profile, rule).0;
        let expected = severity.map_or_else(Vec::new, |s| one(rule, s, line, column));
        assert_eq!(found, expected, "{name} {edit:?} with {profile:?}");
    }
}

fn cce(spec: &str) -> Profile {
    profile("cce", spec)
}

fn aks(spec: &str) -> Profile {
    profile("aks", spec)
}

fn gke(spec: &str) -> Profile {
    profile("gke", spec)
}

const STANDARD: &str = "  cceFlavour: standard\n";
const TURBO: &str = "  cceFlavour: turbo\n";
const POOLS: &str = "  nodePools:\n    - name: default\n      type: regular\n";
const ELB_ID: &str = "kubernetes.io/elb.id: 0b5f4a5e-5ad7-4c55-9f3e-2a1f4c6d7e80";
const LOCAL: &str = "externalTrafficPolicy: Local";
const CLUSTER: Edit = Some((LOCAL, "externalTrafficPolicy: Cluster"));

fn mode(mode: &str) -> String {
    format!("  kubeProxy:\n    mode: {mode}\n")
}

fn ipvs(version: &str) -> String {
    format!("  kubeProxy:\n    mode: ipvs\n    version: \"{version}\"\n")
}

fn nftables(version: &str) -> String {
    format!("  kubeProxy:\n    mode: nftables\n    version: \"{version}\"\n")
}

fn with(a: &str, b: &str) -> String {
    format!("{a}{b}")
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "no `{part}` in: {message}");
    }
}

// CCE001: externalTrafficPolicy Local called in-cluster without pass-through.

#[test]
fn cce_local_policy_by_flavour_pass_through_and_dataplane() {
    let pass_through = |value| Some((ELB_ID, value));
    verdicts(
        "CCE001",
        (11, 26),
        &[
            // CCE Standard: every caller; CCE Turbo: node callers only. Without the
            // pass-through annotation, a warning: Huawei says CCE sets `onlyLocal` itself
            // with Local (cce_bestpractice_0301), for versions it does not name.
            ("cce-local", None, cce(STANDARD), Some("warning")),
            ("cce-local", None, cce(TURBO), None),
            ("cce-local-host", None, cce(TURBO), Some("warning")),
            ("cce-local-host", None, cce(STANDARD), Some("warning")),
            // Flavour unknown: pods hang on it, node callers do not.
            ("cce-local", None, cce(""), Some("warning")),
            ("cce-local-host", None, cce(""), Some("warning")),
            // No profile: the `kubernetes.io/elb.` annotation makes it Huawei's.
            ("cce-local", None, profile::generic(), Some("warning")),
            // Pass-through (`true`, or `onlyLocal` as CCE writes it) is the way out; `false` is not.
            (
                "cce-local",
                pass_through("kubernetes.io/elb.pass-through: \"true\""),
                cce(STANDARD),
                None,
            ),
            (
                "cce-local",
                pass_through("kubernetes.io/elb.pass-through: onlyLocal"),
                cce(STANDARD),
                None,
            ),
            (
                "cce-local",
                pass_through("kubernetes.io/elb.pass-through: \"false\""),
                cce(STANDARD),
                Some("error"),
            ),
            ("cce-local", CLUSTER, cce(STANDARD), None),
            // Huawei's text is about kube-proxy; Cilium's replacement serves these callers.
            ("cce-local", None, cce(&with(STANDARD, &mode("ebpf"))), None),
        ],
    );
    let message = said("cce-local", &cce(STANDARD), "CCE001");
    assert_mentions(
        &message,
        &[
            "\"if the node where the client runs does not have the corresponding backend pod, the access may fail\"",
            "Deployment/shop/checkout calls its ELB address 192.168.10.20",
        ],
    );
    let message = said("cce-local-host", &cce(TURBO), "CCE001");
    assert_mentions(
        &message,
        &["DaemonSet/ops/node-agent (hostNetwork)", "CCE Turbo"],
    );
    let (_, message) = lint("cce-local", &cce(""), "CCE001");
    assert_mentions(&message, &["`spec.cceFlavour`"]);
}

/// On CCE the vendor's verdict replaces upstream's: each Service is judged once.
#[test]
fn cce_local_policy_replaces_k8s013() {
    verdicts(
        "K8S013",
        (11, 26),
        &[
            ("cce-local", None, cce(STANDARD), None),
            ("cce-local-host", None, cce(&mode("ipvs")), None),
            ("cce-local", None, profile::generic(), None),
        ],
    );
}

// CCE002: pass-through with a dedicated ELB on CCE Standard and a co-located caller.

#[test]
fn cce_pass_through_beside_a_backend_by_flavour_and_placement() {
    let standard_pools = || cce(&with(STANDARD, POOLS));
    verdicts(
        "CCE002",
        (9, 5),
        &[
            ("cce-pass-through", None, standard_pools(), Some("warning")),
            // `kubernetes.io/elb.class: performance` is a dedicated ELB (cce_10_0385): an error
            // where the caller can share a node on CCE Standard; `union` (shared): nothing.
            (
                "cce-pass-through",
                Some((ELB_ID, "kubernetes.io/elb.class: performance")),
                standard_pools(),
                Some("error"),
            ),
            (
                "cce-pass-through",
                Some((ELB_ID, "kubernetes.io/elb.class: performance")),
                cce(POOLS),
                Some("warning"),
            ),
            (
                "cce-pass-through",
                Some((ELB_ID, "kubernetes.io/elb.class: union")),
                standard_pools(),
                None,
            ),
            // Placement unknown without node pools; flavour unknown: warnings.
            ("cce-pass-through", None, cce(STANDARD), Some("warning")),
            ("cce-pass-through", None, cce(POOLS), Some("warning")),
            ("cce-pass-through", None, cce(TURBO), None),
            // The caller keeps off the backends' nodes; no pass-through (CCE001's case).
            ("cce-pass-through-apart", None, standard_pools(), None),
            ("cce-local", None, standard_pools(), None),
        ],
    );
    let (_, message) = lint("cce-pass-through", &standard_pools(), "CCE002");
    assert_mentions(
        &message,
        &[
            "from a pod that can run on the same node as a backend pod",
            "whether the ELB is dedicated is not in these manifests",
        ],
    );
    let (_, message) = lint("cce-pass-through", &cce(STANDARD), "CCE002");
    assert_mentions(&message, &["`spec.nodePools`"]);
    let (_, message) = lint("cce-pass-through", &cce(POOLS), "CCE002");
    assert_mentions(&message, &["`spec.cceFlavour`"]);
}

// CCE003: Services on one ELB that disagree on pass-through, in IPVS mode.

#[test]
fn cce_mixed_pass_through_on_one_elb_by_kube_proxy_mode() {
    let both = |severity| {
        [
            one("CCE003", severity, 9, 5),
            one("CCE003", severity, 22, 5),
        ]
        .concat()
    };
    let (found, message) = lint("cce-shared-elb", &cce(&mode("ipvs")), "CCE");
    assert_eq!(found, both("error"));
    assert_mentions(
        &message,
        &["Service/backend/api: not set, Service/shop/web: \"true\""],
    );
    let (found, message) = lint("cce-shared-elb", &cce(""), "CCE");
    assert_eq!(found, both("warning"));
    assert_mentions(&message, &["`spec.kubeProxy.mode`"]);
    assert_eq!(
        lint("cce-shared-elb", &cce(&mode("iptables")), "CCE").0,
        vec![]
    );
    // The same setting on both: consistent.
    let consistent = Some((
        "  namespace: backend\n  annotations:\n",
        "  namespace: backend\n  annotations:\n    kubernetes.io/elb.pass-through: onlyLocal\n",
    ));
    let (found, _) = lint_edited("cce-shared-elb", consistent, &cce(&mode("ipvs")), "CCE");
    assert_eq!(found, vec![]);
}

/// A base and its overlay are one Service, not two Services on one ELB.
#[test]
fn cce_one_service_in_two_files_is_not_a_mixed_elb() {
    let base = fixture("cce-shared-elb");
    let web = &base[..base.find("---\n").unwrap()];
    let overlay = web.replace("    kubernetes.io/elb.pass-through: \"true\"\n", "");
    let outcome = lblint::check::check_sources(
        &[
            ("base.yaml".into(), web.as_bytes().to_vec()),
            ("overlay.yaml".into(), overlay.into_bytes()),
        ],
        &cce(&mode("ipvs")),
    );
    assert!(
        outcome.diagnostics.iter().all(|d| d.rule() != "CCE003"),
        "{:#?}",
        outcome.diagnostics
    );
}

// AKS001: internal Azure load balancer called in-cluster.

#[test]
fn aks_internal_lb_is_a_note_unless_kube_proxy_does_not_serve_the_call() {
    let public = Some((
        "azure-load-balancer-internal: \"true\"",
        "azure-load-balancer-internal: \"false\"",
    ));
    verdicts(
        "AKS001",
        (9, 5),
        &[
            // kube-proxy serves the call on the node: a note.
            ("aks-internal", None, aks(&mode("iptables")), Some("note")),
            (
                "aks-internal",
                None,
                aks(&nftables("v1.34.0")),
                Some("note"),
            ),
            // IPVS serves other pods from v1.24.0 (kubernetes/kubernetes#97081).
            (
                "aks-internal-pod",
                None,
                aks(&ipvs("v1.24.0")),
                Some("note"),
            ),
            (
                "aks-internal-pod",
                None,
                aks(&ipvs("v1.23.17")),
                Some("warning"),
            ),
            (
                "aks-internal-pod",
                None,
                aks(&mode("ipvs")),
                Some("warning"),
            ),
            ("aks-internal", CLUSTER, aks(&mode("ipvs")), Some("note")),
            // IPVS hostNetwork callers, nftables before the fix, mode unknown: a warning.
            ("aks-internal", None, aks(&mode("ipvs")), Some("warning")),
            (
                "aks-internal-pod",
                None,
                aks(&nftables("v1.33.5")),
                Some("warning"),
            ),
            (
                "aks-internal-pod",
                None,
                aks(&nftables("v1.33.6")),
                Some("note"),
            ),
            ("aks-internal", None, aks(""), Some("warning")),
            // A public load balancer: nothing.
            ("aks-internal", public, aks(&mode("ipvs")), None),
        ],
    );
    let message = said("aks-internal", &aks(&mode("iptables")), "AKS001");
    assert_mentions(
        &message,
        &[
            "\"Outbound flow from a backend VM to a frontend of an internal Load Balancer will fail.\"",
            "inferred",
        ],
    );
    let message = said("aks-internal", &aks(&mode("ipvs")), "AKS001");
    assert_mentions(
        &message,
        &[
            "DaemonSet/ops/node-agent (hostNetwork)",
            "kubernetes/kubernetes#93456",
        ],
    );
    let (_, message) = lint("aks-internal", &aks(""), "AKS001");
    assert_mentions(&message, &["`spec.kubeProxy.mode`"]);
    // No caller: nothing.
    let service = fixture("aks-internal");
    let service = &service[..service.find("---\n").unwrap()];
    assert_eq!(
        lint_text("svc.yaml", service, &aks(&mode("ipvs")), "AKS").0,
        vec![]
    );
}

// GKE001: node callers of an internal passthrough load balancer.

#[test]
fn gke_internal_lb_node_caller_is_a_note_unless_kube_proxy_does_not_serve_it() {
    let pod_only = Some(("      hostNetwork: true\n", "      dnsPolicy: Default\n"));
    let external = Some((
        "load-balancer-type: \"Internal\"",
        "load-balancer-type: \"External\"",
    ));
    verdicts(
        "GKE001",
        (9, 5),
        &[
            ("gke-internal", None, gke(&mode("iptables")), Some("note")),
            (
                "gke-internal",
                None,
                gke(&nftables("v1.34.1")),
                Some("note"),
            ),
            ("gke-internal", CLUSTER, gke(&mode("ipvs")), Some("note")),
            ("gke-internal", None, gke(&mode("ipvs")), Some("warning")),
            (
                "gke-internal",
                None,
                gke(&nftables("v1.32.4")),
                Some("warning"),
            ),
            ("gke-internal", None, gke(""), Some("warning")),
            // Only node callers count; an external load balancer is not this trap.
            ("gke-internal", pod_only, gke(&mode("ipvs")), None),
            ("gke-internal", external, gke(&mode("ipvs")), None),
        ],
    );
    let message = said("gke-internal", &gke(&mode("iptables")), "GKE001");
    assert_mentions(
        &message,
        &[
            "\"those requests are routed back to itself. This is the case regardless of the backend VM's health check state.\"",
            "No GKE document says that node clients fail",
        ],
    );
    let (_, message) = lint("gke-internal", &gke(""), "GKE001");
    assert_mentions(&message, &["`spec.kubeProxy.mode`"]);
    // The annotation GKE used before 1.17.
    assert_eq!(
        lint("gke-internal-legacy", &gke(&mode("ipvs")), "GKE001").0,
        one("GKE001", "warning", 8, 5)
    );
}

#[test]
fn gke_internal_class_marks_the_service_as_gkes() {
    // No profile: the class alone says GKE; eTP Cluster, so kube-proxy serves the call.
    let external = Some(("l4-regional-internal", "l4-regional-external"));
    verdicts(
        "GKE001",
        (9, 22),
        &[
            ("gke-internal-class", None, profile::generic(), Some("note")),
            ("gke-internal-class", external, profile::generic(), None),
        ],
    );
    let (_, message) = lint("gke-internal-class", &profile::generic(), "GKE001");
    assert_mentions(&message, &["networking.gke.io/l4-regional-internal"]);
}

/// The family's rules stay with their provider; on AKS and GKE, K8S013 still gives
/// upstream's verdict on the paths kube-proxy does not serve.
#[test]
fn hairpin_rules_stay_with_their_provider() {
    let tke = profile("tke", &mode("ipvs"));
    for (name, prefix) in [
        ("cce-local", "CCE"),
        ("aks-internal", "AKS"),
        ("gke-internal", "GKE"),
    ] {
        assert_eq!(lint(name, &tke, prefix).0, vec![], "{name}");
    }
    verdicts(
        "K8S013",
        (12, 26),
        &[
            ("aks-internal", None, aks(&mode("ipvs")), Some("error")),
            ("gke-internal", None, gke(&mode("ipvs")), Some("error")),
        ],
    );
}
