//! The PROXY-protocol family, provider by provider (each provider's rules/<ID>.md), with
//! the upstream gates that decide whether `ipMode: Proxy` takes effect (KEP-1860, Cilium;
//! rules/K8S010.md). Each case lints a fixture of testdata/proxy/ against a profile written
//! here, so every fact that decides a verdict is tried on both sides.

use lblint::check::check_sources;
use lblint::profile::{self, Profile};

use super::{one, profile_with as profile, Hit};

/// (rule, severity, line, column) of the findings in testdata/proxy/`fixture`.yaml of rules
/// whose id starts with `prefix`, and the first message.
fn lint(fixture: &str, profile: &Profile, prefix: &str) -> (Vec<Hit>, String) {
    super::lint_file(&format!("testdata/proxy/{fixture}.yaml"), profile, prefix)
}

/// The fixture linted without its `status:` block (the live state an export would carry).
fn lint_without_status(fixture: &str, profile: &Profile, prefix: &str) -> Vec<Hit> {
    let path = format!("testdata/proxy/{fixture}.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let status = "status:\n  loadBalancer:\n    ingress:\n      - ip: 203.0.113.10\n";
    assert!(text.contains(status), "{fixture}");
    super::lint_text(&path, &text.replace(status, ""), profile, prefix).0
}

/// A live export's status is the controller's answer (issue: live state as evidence): an
/// IP with `ipMode: VIP` is short-circuited whatever the controller version suggests, and a
/// hostname-only status is not, whatever the annotations say.
#[test]
fn a_reported_status_outweighs_the_profile() {
    let path = "testdata/proxy/hetzner-proxy.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let new = profile(
        "hetzner",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v1.21.0\"\n"),
    );
    // v1.21.0 sets ipMode: Proxy, honoured on 1.31: no trap as the profile tells it ...
    assert_eq!(super::lint_text(path, &text, &new, "HETZNER").0, vec![]);
    // ... but the export shows VIP: the shortcut happens, and the message says where.
    let vip = text.replace(
        "      - ip: 203.0.113.10\n",
        "      - ip: 203.0.113.10\n        ipMode: VIP\n",
    );
    let (found, _) = super::lint_text(path, &vip, &new, "HETZNER");
    assert_eq!(found, one("HETZNER001", "error", 8, 5));
    let why = super::help_text(path, &vip, &new, "HETZNER");
    assert!(
        why.contains("its status (line 23) reports the IP 203.0.113.10 with `ipMode: VIP`"),
        "{why}"
    );
    // A hostname-only status: nothing to short-circuit, whatever the controller version.
    let old = profile(
        "hetzner",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v1.20.1\"\n"),
    );
    assert_eq!(
        super::lint_text(path, &text, &old, "HETZNER").0,
        one("HETZNER001", "error", 8, 5)
    );
    let hostname = text.replace(
        "      - ip: 203.0.113.10\n",
        "      - hostname: lb.example.com\n",
    );
    assert_eq!(super::lint_text(path, &hostname, &old, "HETZNER").0, vec![]);
}

const MODERN: &str = "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n";

#[test]
fn doks_proxy_protocol_behind_ingress_nginx_called_in_cluster_is_an_error() {
    let doks = profile("doks", MODERN);
    let (found, message) = lint("doks-ingress-nginx", &doks, "DOKS");
    assert_eq!(found, one("DOKS001", "error", 9, 5));
    assert!(
        message.contains("Deployment/shop/checkout calls shop.example.com"),
        "{message}"
    );
    // Without a profile the annotation marks the Service as DigitalOcean's, at most a
    // warning (the cluster may be another cloud); `provider: generic` runs no cloud's rules.
    let (found, _) = lint("doks-ingress-nginx", &profile::generic(), "DOKS");
    assert_eq!(found, one("DOKS001", "warning", 9, 5));
    let (found, _) = lint("doks-ingress-nginx", &profile("generic", MODERN), "DOKS");
    assert_eq!(found, vec![]);
    // The hostname way out: nothing to short-circuit; DOKS002 reminds of the DNS record.
    let (found, _) = lint("doks-ingress-nginx-hostname", &doks, "DOKS");
    assert_eq!(found, one("DOKS002", "note", 10, 5));
}

/// TLS termination needs a `REGIONAL` load balancer: the controller's default before
/// v0.1.61 (see tests/integration/proxy_controllers.rs for the rest).
#[test]
fn doks_tls_termination_is_the_same_trap() {
    let old = format!("{MODERN}  addons:\n    cloudControllerManager: \"v0.1.60\"\n");
    let (found, message) = lint("doks-tls", &profile("doks", &old), "DOKS");
    assert_eq!(found, one("DOKS001", "error", 9, 5));
    assert!(message.contains("terminates TLS"), "{message}");
}

#[test]
fn hetzner_needs_a_controller_that_sets_ip_mode_and_a_cluster_that_honours_it() {
    let case = |spec: &str| lint("hetzner-proxy", &profile("hetzner", spec), "HETZNER").0;
    let ccm = |v: &str| format!("  addons:\n    cloudControllerManager: \"{v}\"\n");
    // v1.21.0 sets ipMode: Proxy on Kubernetes 1.31 with iptables: no trap.
    assert_eq!(case(&format!("{MODERN}{}", ccm("v1.21.0"))), vec![]);
    // An older controller never sets it.
    assert_eq!(
        case(&format!("{MODERN}{}", ccm("v1.20.1"))),
        one("HETZNER001", "error", 8, 5)
    );
    // Kubernetes 1.29: the gate is off by default.
    let old_k8s = "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n";
    assert_eq!(
        case(&format!("{old_k8s}{}", ccm("v1.21.0"))),
        one("HETZNER001", "error", 8, 5)
    );
    // Cilium 1.18.0 ignores ipMode; 1.18.1 honours it; unstated, a warning.
    let cilium = |v: &str| {
        format!(
            "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: ebpf\n  addons:\n    \
             cloudControllerManager: \"v1.21.0\"\n{v}"
        )
    };
    assert_eq!(
        case(&cilium("    cilium: \"1.18.0\"\n")),
        one("HETZNER001", "error", 8, 5)
    );
    assert_eq!(case(&cilium("    cilium: \"1.18.1\"\n")), vec![]);
    assert_eq!(case(&cilium("")), one("HETZNER001", "warning", 8, 5));
    // Unknown facts: a warning that names the field.
    let (found, message) = lint("hetzner-proxy", &profile("hetzner", MODERN), "HETZNER");
    assert_eq!(found, one("HETZNER001", "warning", 8, 5));
    assert!(
        message.contains("`spec.addons.cloudControllerManager`"),
        "{message}"
    );
    let (found, message) = lint(
        "hetzner-proxy",
        &profile("hetzner", &ccm("v1.21.0")),
        "HETZNER001",
    );
    assert_eq!(found, one("HETZNER001", "warning", 8, 5));
    assert!(message.contains("`spec.kubernetesVersion`"), "{message}");
}

/// A status that reports `ipMode: Proxy` shows the controller sets it, whatever its version:
/// only the cluster's own gates (Kubernetes 1.30, the dataplane) remain.
#[test]
fn a_status_with_ip_mode_proxy_settles_the_controller_question() {
    let case = |spec: &str| lint("hetzner-proxy-status", &profile("hetzner", spec), "HETZNER").0;
    assert_eq!(case(MODERN), vec![]);
    let old_k8s = "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n";
    assert_eq!(case(old_k8s), one("HETZNER001", "error", 8, 5));
}

#[test]
fn hetzner_hostname_wins_and_is_stale_from_v1_21_0() {
    let new = profile(
        "hetzner",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v1.21.0\"\n"),
    );
    assert_eq!(
        lint("hetzner-proxy-hostname", &new, "HETZNER").0,
        one("HETZNER002", "note", 9, 5)
    );
    let old = profile(
        "hetzner",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v1.19.0\"\n"),
    );
    assert_eq!(lint("hetzner-proxy-hostname", &old, "HETZNER").0, vec![]);
}

#[test]
fn hetzner_private_ip_loops_ipvs_only() {
    let mode = |m: &str| profile("hetzner", &format!("  kubeProxy:\n    mode: {m}\n"));
    assert_eq!(
        lint("hetzner-private-ip", &mode("ipvs"), "HETZNER").0,
        one("HETZNER003", "error", 8, 5)
    );
    assert_eq!(
        lint("hetzner-private-ip", &mode("iptables"), "HETZNER").0,
        vec![]
    );
    assert_eq!(
        lint("hetzner-private-ip", &profile("hetzner", ""), "HETZNER").0,
        one("HETZNER003", "warning", 8, 5)
    );
    let disabled = profile(
        "hetzner",
        "  kubeProxy:\n    mode: ipvs\n  addons:\n    cloudControllerManagerOptions:\n      \
         disablePrivateIngress: true\n",
    );
    assert_eq!(lint("hetzner-private-ip", &disabled, "HETZNER").0, vec![]);
}

#[test]
fn scaleway_sets_ip_mode_only_when_every_port_speaks_proxy() {
    let scw = profile(
        "scaleway",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v0.33.0\"\n"),
    );
    let (found, _) = lint("scaleway-some-ports", &scw, "SCALEWAY");
    assert_eq!(found, one("SCALEWAY001", "error", 8, 5));
    let path = "testdata/proxy/scaleway-some-ports.yaml";
    let why = super::help_text(
        path,
        &std::fs::read_to_string(path).unwrap(),
        &scw,
        "SCALEWAY",
    );
    assert!(why.contains("only some of the Service's ports"), "{why}");
    assert_eq!(lint("scaleway-all-ports", &scw, "SCALEWAY").0, vec![]);
    assert_eq!(
        lint("scaleway-some-ports-proxy", &scw, "SCALEWAY").0,
        vec![]
    );
    assert_eq!(
        lint("scaleway-vip", &scw, "SCALEWAY").0,
        one("SCALEWAY001", "error", 8, 5)
    );
    let old = profile(
        "scaleway",
        &format!("{MODERN}  addons:\n    cloudControllerManager: \"v0.32.4\"\n"),
    );
    assert_eq!(
        lint("scaleway-all-ports", &old, "SCALEWAY").0,
        one("SCALEWAY001", "error", 8, 5)
    );
    assert_eq!(
        lint(
            "scaleway-all-ports",
            &profile("scaleway", MODERN),
            "SCALEWAY"
        )
        .0,
        one("SCALEWAY001", "warning", 8, 5)
    );
}

#[test]
fn openstack_ways_out_are_a_hostname_the_option_or_occm_v1_30() {
    let os = |spec: &str| profile("openstack", spec);
    let occm = |v: &str, eih: &str| {
        format!(
            "{MODERN}  addons:\n    cloudControllerManager: \"{v}\"\n    \
             cloudControllerManagerOptions:\n      enableIngressHostname: {eih}\n"
        )
    };
    assert_eq!(
        lint(
            "openstack-proxy",
            &os(&occm("v1.29.0", "false")),
            "OPENSTACK"
        )
        .0,
        one("OPENSTACK001", "error", 8, 5)
    );
    // enable-ingress-hostname gives every status a hostname, which the fixture's status
    // (an IP) contradicts; without a status the option decides.
    assert_eq!(
        lint(
            "openstack-proxy",
            &os(&occm("v1.29.0", "true")),
            "OPENSTACK"
        )
        .0,
        one("OPENSTACK001", "error", 8, 5)
    );
    assert_eq!(
        lint_without_status(
            "openstack-proxy",
            &os(&occm("v1.29.0", "true")),
            "OPENSTACK"
        ),
        vec![]
    );
    assert_eq!(
        lint(
            "openstack-proxy",
            &os(&occm("v1.30.0", "false")),
            "OPENSTACK"
        )
        .0,
        vec![]
    );
    assert_eq!(
        lint(
            "openstack-proxy-hostname",
            &os(&occm("v1.29.0", "false")),
            "OPENSTACK"
        )
        .0,
        vec![]
    );
    // An old OCCM whose option the profile does not state: a warning naming it, unless
    // the status already shows the IP (the option is off for this Service).
    let unstated = os(&format!(
        "{MODERN}  addons:\n    cloudControllerManager: \"v1.29.0\"\n"
    ));
    assert_eq!(
        lint("openstack-proxy", &unstated, "OPENSTACK").0,
        one("OPENSTACK001", "error", 8, 5)
    );
    let path = "testdata/proxy/openstack-proxy.yaml";
    let text = std::fs::read_to_string(path).unwrap().replace(
        "status:\n  loadBalancer:\n    ingress:\n      - ip: 203.0.113.10\n",
        "",
    );
    // No status: the pod's call of the IP names no known address, so no caller either:
    // a note (nothing visible calls a public load balancer) naming the field.
    let (found, message) = super::lint_text(path, &text, &unstated, "OPENSTACK");
    assert_eq!(found, one("OPENSTACK001", "note", 8, 5));
    assert!(message.contains("enableIngressHostname"), "{message}");
    // The address from the profile instead: a caller, and the option's default assumed.
    let addressed = os(&format!(
        "{MODERN}  addons:\n    cloudControllerManager: \"v1.29.0\"\n  loadBalancers:\n    - object: \
         Service/shop/web\n      addresses: [203.0.113.10]\n"
    ));
    let (found, message) = super::lint_text(path, &text, &addressed, "OPENSTACK");
    assert_eq!(found, one("OPENSTACK001", "error", 8, 5));
    assert!(
        message.ends_with(
            " Assuming the controller's default: OCCM's `[LoadBalancer] enable-ingress-hostname` is \
             false unless set; set `spec.addons.cloudControllerManagerOptions.enableIngressHostname` to \
             state it."
        ),
        "{message}"
    );
}

#[test]
fn cloudscale_defaults_to_proxy_from_kubernetes_1_30_unless_forced_to_vip() {
    let cs = |version: &str| {
        profile(
            "cloudscale",
            &format!(
                "  kubernetesVersion: \"{version}\"\n  kubeProxy:\n    mode: ipvs\n  addons:\n    \
                 cloudControllerManager: \"1.1.0\"\n"
            ),
        )
    };
    assert_eq!(
        lint("cloudscale-proxy", &cs("1.31.0"), "CLOUDSCALE").0,
        vec![]
    );
    assert_eq!(
        lint("cloudscale-proxy", &cs("1.29.9"), "CLOUDSCALE").0,
        one("CLOUDSCALE001", "error", 8, 5)
    );
    assert_eq!(
        lint("cloudscale-vip", &cs("1.31.0"), "CLOUDSCALE").0,
        one("CLOUDSCALE001", "error", 8, 5)
    );
}

#[test]
fn linode_per_port_settings_override_the_default() {
    let lke = profile("lke", MODERN);
    assert_eq!(
        lint("lke-proxy", &lke, "LKE").0,
        one("LKE001", "error", 8, 5)
    );
    assert_eq!(lint("lke-proxy-off-per-port", &lke, "LKE").0, vec![]);
    assert_eq!(
        lint("lke-proxy-one-port", &lke, "LKE").0,
        one("LKE001", "error", 8, 5)
    );
    assert_eq!(lint("lke-proxy-hostname-only", &lke, "LKE").0, vec![]);
    let env = profile(
        "lke",
        "  addons:\n    cloudControllerManagerOptions:\n      hostnameOnlyIngress: true\n",
    );
    // The fixture's status reports the IP: the option did not give this Service a hostname.
    assert_eq!(
        lint("lke-proxy", &env, "LKE").0,
        one("LKE001", "error", 8, 5)
    );
    assert_eq!(lint_without_status("lke-proxy", &env, "LKE"), vec![]);
}

#[test]
fn oracle_ip_mode_values_and_version_gate() {
    let oke = |version: &str| profile("oke", &format!("  kubernetesVersion: \"{version}\"\n"));
    assert_eq!(
        lint("oke-invalid", &oke("1.31.1"), "OKE").0,
        one("OKE001", "error", 8, 42)
    );
    assert_eq!(lint("oke-proxy", &oke("1.31.1"), "OKE").0, vec![]);
    assert_eq!(
        lint("oke-proxy", &oke("1.29.1"), "OKE").0,
        one("OKE002", "error", 8, 5)
    );
    assert_eq!(
        lint("oke-proxy", &profile("oke", ""), "OKE").0,
        one("OKE002", "warning", 8, 5)
    );
}

/// A provider's rules do not run on another provider's clusters, and K8S010 leaves the
/// PROXY family's load balancers to their rules.
#[test]
fn rules_stay_with_their_provider() {
    let tke = profile("tke", MODERN);
    assert_eq!(lint("hetzner-proxy", &tke, "HETZNER").0, vec![]);
    let (found, _) = lint("doks-ingress-nginx", &profile("doks", MODERN), "K8S010");
    assert_eq!(found, vec![]);
}

/// K8S013, upstream eTP Local gates (rules/K8S013.md): nftables dropped pod calls on
/// nodes without a backend until v1.34.0 (v1.33.6 on 1.33); eBPF dataplanes serve them.
#[test]
fn local_policy_follows_the_kube_proxy_version_in_nftables_mode() {
    let path = "testdata/ack/service-local-pod-caller.yaml";
    let verdict = |spec: &str| {
        let profile = profile("generic", spec);
        let outcome = check_sources(&[(path.into(), std::fs::read(path).unwrap())], &profile);
        outcome
            .diagnostics
            .iter()
            .filter(|d| d.rule() == "K8S013")
            .map(|d| d.severity().as_str())
            .collect::<Vec<_>>()
    };
    let nft = |version: &str| {
        format!(
            "  kubeProxy:\n    mode: nftables\n    version: \"{version}\"\n  nodePools:\n    - name: w\n      \
             type: regular\n"
        )
    };
    assert_eq!(verdict(&nft("v1.33.5")), ["error"]);
    assert_eq!(verdict(&nft("v1.33.6")), Vec::<&str>::new());
    assert_eq!(verdict(&nft("v1.32.9")), ["error"]);
    assert_eq!(verdict(&nft("v1.34.0")), Vec::<&str>::new());
    assert_eq!(
        verdict("  kubeProxy:\n    mode: ebpf\n"),
        Vec::<&str>::new()
    );
}

/// The calls the manifests imply without a pod writing them (README, "The cluster model"):
/// cert-manager's HTTP-01 self-check of a name whose issuer solves
/// HTTP-01 (an Ingress's tls hosts with the issuer annotation, or a Certificate), and
/// ingress-nginx's auth-url subrequest.
#[test]
fn cert_manager_self_checks_and_auth_url_subrequests_are_calls() {
    let doks = profile("doks", MODERN);
    let (found, message) = lint("doks-cert-manager", &doks, "DOKS");
    assert_eq!(found, one("DOKS001", "error", 12, 5));
    assert!(
        message.contains(
            "Deployment/cert-manager/cert-manager calls shop.example.com (cert-manager's HTTP-01 \
             self-check, ClusterIssuer/letsencrypt)"
        ),
        "{message}"
    );
    let (found, _) = lint("doks-certificate", &doks, "DOKS");
    assert_eq!(found, one("DOKS001", "error", 13, 5));
    // DNS-01: no HTTP call of the host, so no caller: a note on a public load balancer.
    let (found, _) = lint("doks-cert-manager-dns01", &doks, "DOKS");
    assert_eq!(found, one("DOKS001", "note", 13, 5));
    let (found, message) = lint("doks-auth-url", &doks, "DOKS");
    assert_eq!(found, one("DOKS001", "error", 9, 5));
    assert!(
        message.contains(
            "Ingress/shop/shop calls auth.example.com (the ingress controller's auth-url"
        ),
        "{message}"
    );
    // Alone, K8S001 notes the implied call without proposing an edit of the Ingress or
    // Certificate; with DOKS001, which judges it, it stays silent (one verdict per call).
    let path = "testdata/proxy/doks-cert-manager.yaml";
    let files = [(path.into(), std::fs::read(path).unwrap())];
    let outcome = check_sources(&files, &doks);
    assert!(outcome.diagnostics.iter().all(|d| d.rule() != "K8S001"));
    let alone = lblint::rules::k8s::lb_address_in_cluster::LbAddressInCluster;
    let outcome = lblint::check::check_sources_with(&files, &doks, &[&alone]);
    let note = &outcome.diagnostics[0];
    assert_eq!(note.location().span.start.line, 67);
    assert!(note.suggestions().len() == 0 && note.fix().is_none());
}

/// The vendor's way out as an edit where it fits in the manifest, with an
/// honest applicability: Linode's hostname-only switch and Scaleway's ipMode annotation are
/// unsafe fixes (the traffic path changes); a hostname needs a DNS name, so it is only shown.
#[test]
fn unsafe_fixes_add_the_vendor_switch_and_relint_clean() {
    let dir = crate::cli::tempdir("proxy-fix");
    let lke = dir.join("lke-proxy.yaml");
    std::fs::copy("testdata/proxy/lke-proxy.yaml", &lke).unwrap();
    let profile_path = dir.join("profile.yaml");
    std::fs::write(
        &profile_path,
        "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nmetadata:\n  name: t\nspec:\n  provider: lke\n",
    )
    .unwrap();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "check",
            "--select",
            "LKE001",
            "--profile",
            profile_path.to_str().unwrap(),
        ];
        a.extend_from_slice(extra);
        a.push(lke.to_str().unwrap());
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    // Safe fixes only: nothing changes.
    let run = crate::lblint_os(&args(&["--fix"]));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let original = std::fs::read_to_string("testdata/proxy/lke-proxy.yaml").unwrap();
    assert_eq!(std::fs::read_to_string(&lke).unwrap(), original);
    let run = crate::lblint_os(&args(&["--fix", "--unsafe-fixes"]));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let expected = original.replace(
        "    service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol: v2\n",
        "    service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol: v2\n    \
         service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress: \"true\"\n",
    );
    assert_eq!(std::fs::read_to_string(&lke).unwrap(), expected);
    // DigitalOcean: the hostname is a placeholder, so a suggestion, never applied.
    let path = "testdata/proxy/doks-ingress-nginx.yaml";
    let outcome = check_sources(
        &[(path.into(), std::fs::read(path).unwrap())],
        &profile("doks", MODERN),
    );
    let d = outcome
        .diagnostics
        .iter()
        .find(|d| d.rule() == "DOKS001")
        .unwrap();
    assert!(d.fix().is_none());
    let shown: Vec<&str> = d.suggestions().map(|s| s.description()).collect();
    assert!(
        shown[0].contains("do-loadbalancer-hostname: <name>"),
        "{shown:?}"
    );
    assert!(
        shown[1].contains("backend Service behind the Ingress rule"),
        "{shown:?}"
    );
}
