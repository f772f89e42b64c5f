//! TLS termination at the load balancer, per provider of the PROXY-protocol family (issue
//! 28 item 5): each controller's TLS trigger read as its code reads it (on, off, a refused
//! value), PROXY protocol winning where both are on (Oracle's OKE003 is in `oke_proxy.rs`). Each case lints a Service written here, whose status
//! reports the load balancer's IP, and a pod that calls `https://` that IP.

use super::{lint_text, one, profile_with as profile, Hit};

const MODERN: &str = "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n";
const IP: &str = "203.0.113.10";

/// MODERN with the provider's controller at `version`.
fn ccm(version: &str) -> String {
    format!("{MODERN}  addons:\n    cloudControllerManager: \"{version}\"\n")
}

/// A LoadBalancer Service `web` with `annotations` (one `key: value` per entry, the first on
/// line 7, column 5), `ports` (`(port, protocol)`), its status IP, and a pod that calls it.
pub(super) fn manifest(annotations: &[&str], ports: &[(u16, &str)]) -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n",
    );
    for a in annotations {
        text.push_str(&format!("    {a}\n"));
    }
    text.push_str("spec:\n  type: LoadBalancer\n  selector:\n    app: web\n  ports:\n");
    for (port, protocol) in ports {
        text.push_str(&format!(
            "    - name: p{port}\n      port: {port}\n      protocol: {protocol}\n"
        ));
    }
    text.push_str(&format!(
        "status:\n  loadBalancer:\n    ingress:\n      - ip: {IP}\n---\napiVersion: v1\nkind: Pod\n\
         metadata:\n  name: checkout\n  namespace: shop\nspec:\n  containers:\n    - name: checkout\n      \
         image: checkout:1\n      env:\n        - name: SHOP_URL\n          value: https://{IP}/api\n"
    ));
    text
}

/// The findings of rules starting with `prefix`, and the first message.
pub(super) fn lint(
    provider: &str,
    spec: &str,
    annotations: &[&str],
    ports: &[(u16, &str)],
    prefix: &str,
) -> (Vec<Hit>, String) {
    let text = manifest(annotations, ports);
    lint_text("tls.yaml", &text, &profile(provider, spec), prefix)
}

/// The help of the first finding of `prefix` on [`manifest`] with `profile`.
pub(super) fn help(
    profile: &lblint::profile::Profile,
    annotations: &[&str],
    ports: &[(u16, &str)],
    prefix: &str,
) -> String {
    crate::help_text("tls.yaml", &manifest(annotations, ports), profile, prefix)
}

/// The help of `provider`'s finding on a Service with `annotation` says it keeps `ipMode: VIP`.
fn assert_keeps_vip(provider: &str, spec: &str, annotation: &str, prefix: &str) {
    let why = help(&profile(provider, spec), &[annotation], HTTPS_443, prefix);
    assert!(why.contains("keeps `ipMode: VIP`"), "{why}");
}

/// The column of the value of the annotation line `a` (`key: value`), from column 5.
pub(super) fn value_column(a: &str) -> u32 {
    let key = a.split_once(": ").unwrap().0;
    5 + key.len() as u32 + 2
}

pub(super) const HTTPS_443: &[(u16, &str)] = &[(443, "TCP")];

// Hetzner: `load-balancer.hetzner.cloud/protocol` (hcops `hclbServiceOptsBuilder.extract`,
// annotation `validateServiceProtocol`).

const HZ_HTTPS: &str = "load-balancer.hetzner.cloud/protocol: https";
const HZ_CERT: &str = "load-balancer.hetzner.cloud/http-certificates: shop-cert";
const HZ_PROXY: &str = "load-balancer.hetzner.cloud/uses-proxyprotocol: \"true\"";

#[test]
fn hetzner_https_protocol_terminates_tls_and_keeps_vip() {
    let (found, message) = lint(
        "hetzner",
        &ccm("v1.22.0"),
        &[HZ_HTTPS, HZ_CERT],
        HTTPS_443,
        "HETZNER",
    );
    assert_eq!(found, one("HETZNER001", "error", 7, 5));
    assert!(message.contains("terminates TLS"), "{message}");
    let hetzner = profile("hetzner", &ccm("v1.22.0"));
    let why = help(&hetzner, &[HZ_HTTPS, HZ_CERT], HTTPS_443, "HETZNER");
    assert!(
        why.contains("only on PROXY-protocol load balancers"),
        "{why}"
    );
    // Any case: the controller lower-cases it.
    let upper = "load-balancer.hetzner.cloud/protocol: HTTPS";
    assert_eq!(
        lint(
            "hetzner",
            &ccm("v1.22.0"),
            &[upper, HZ_CERT],
            HTTPS_443,
            "HETZNER"
        )
        .0,
        one("HETZNER001", "error", 7, 5)
    );
    for off in [
        "load-balancer.hetzner.cloud/protocol: tcp",
        "load-balancer.hetzner.cloud/protocol: http",
    ] {
        assert_eq!(
            lint("hetzner", &ccm("v1.22.0"), &[off], HTTPS_443, "HETZNER").0,
            vec![],
            "{off}"
        );
    }
    // The hostname way out.
    let hostname = "load-balancer.hetzner.cloud/hostname: lb.example.com";
    assert_eq!(
        lint(
            "hetzner",
            &ccm("v1.22.0"),
            &[HZ_HTTPS, hostname],
            HTTPS_443,
            "HETZNER"
        )
        .0,
        vec![]
    );
    // Before v1.6.0 the controller does not read the protocol annotation.
    assert_eq!(
        lint("hetzner", &ccm("v1.5.0"), &[HZ_HTTPS], HTTPS_443, "HETZNER").0,
        vec![]
    );
}

#[test]
fn hetzner_proxy_protocol_wins_over_https_and_its_ip_mode_covers_both() {
    // From v1.21.0 PROXY protocol gets `ipMode: Proxy`, which also keeps TLS calls on the LB.
    assert_eq!(
        lint(
            "hetzner",
            &ccm("v1.22.0"),
            &[HZ_HTTPS, HZ_PROXY],
            HTTPS_443,
            "HETZNER"
        )
        .0,
        vec![]
    );
    let (found, message) = lint(
        "hetzner",
        &ccm("v1.20.0"),
        &[HZ_HTTPS, HZ_PROXY],
        HTTPS_443,
        "HETZNER",
    );
    assert_eq!(found, one("HETZNER001", "error", 8, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
}

#[test]
fn hetzner_refuses_an_unknown_protocol() {
    let bad = "load-balancer.hetzner.cloud/protocol: HTTP2";
    let (found, message) = lint("hetzner", &ccm("v1.22.0"), &[bad], HTTPS_443, "HETZNER");
    assert_eq!(found, one("HETZNER001", "error", 7, value_column(bad)));
    assert!(
        message.contains(
            "hcops/hclbServiceOptsBuilder.extract: annotation/Name.LBSvcProtocolFromService: \
             annotation/validateServiceProtocol: invalid: http2"
        ),
        "{message}"
    );
}

// Linode: an `https` port with its `tls-secret-name` (`getPortConfig`, `getPortProtocol`,
// `getTLSCertInfo`).

const LKE_PORT: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-443: \
                        '{\"protocol\":\"https\",\"tls-secret-name\":\"shop-tls\"}'";
const LKE_DEFAULT_HTTPS: &str =
    "service.beta.kubernetes.io/linode-loadbalancer-default-protocol: HTTPS";
const LKE_SECRET_ONLY: &str =
    "service.beta.kubernetes.io/linode-loadbalancer-port-443: '{\"tls-secret-name\":\"shop-tls\"}'";

#[test]
fn linode_https_port_with_its_secret_terminates_tls() {
    let (found, message) = lint("lke", MODERN, &[LKE_PORT], HTTPS_443, "LKE");
    assert_eq!(found, one("LKE001", "error", 7, 5));
    assert!(message.contains("terminates TLS"), "{message}");
    // The default protocol (any case) makes the port HTTPS; the finding points at it.
    assert_eq!(
        lint(
            "lke",
            MODERN,
            &[LKE_DEFAULT_HTTPS, LKE_SECRET_ONLY],
            HTTPS_443,
            "LKE"
        )
        .0,
        one("LKE001", "error", 7, 5)
    );
    // A port's own protocol wins over the default.
    let own_tcp =
        "service.beta.kubernetes.io/linode-loadbalancer-port-443: '{\"protocol\":\"tcp\"}'";
    assert_eq!(
        lint(
            "lke",
            MODERN,
            &[LKE_DEFAULT_HTTPS, own_tcp],
            HTTPS_443,
            "LKE"
        )
        .0,
        vec![]
    );
    let hostname_only =
        "service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress: \"true\"";
    assert_eq!(
        lint("lke", MODERN, &[LKE_PORT, hostname_only], HTTPS_443, "LKE").0,
        vec![]
    );
}

#[test]
fn linode_proxy_protocol_wins_over_https() {
    let proxy = "service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol: v2";
    let (found, message) = lint(
        "lke",
        MODERN,
        &[LKE_PORT, proxy],
        &[(443, "TCP"), (80, "TCP")],
        "LKE",
    );
    assert_eq!(found, one("LKE001", "error", 8, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
}

#[test]
fn linode_refuses_https_without_a_secret_and_an_unknown_protocol() {
    let (found, message) = lint("lke", MODERN, &[LKE_DEFAULT_HTTPS], HTTPS_443, "LKE");
    assert_eq!(
        found,
        one("LKE001", "error", 7, value_column(LKE_DEFAULT_HTTPS))
    );
    assert!(
        message.contains("\"TLS secret name for port 443 is not specified\""),
        "{message}"
    );
    let tls = "service.beta.kubernetes.io/linode-loadbalancer-default-protocol: TLS";
    let (found, message) = lint("lke", MODERN, &[tls], HTTPS_443, "LKE");
    assert_eq!(found, one("LKE001", "error", 7, value_column(tls)));
    assert!(
        message.contains("invalid protocol: \"tls\" specified"),
        "{message}"
    );
    let udp_secret =
        "service.beta.kubernetes.io/linode-loadbalancer-port-53: '{\"tls-secret-name\":\"dns\"}'";
    let (found, message) = lint("lke", MODERN, &[udp_secret], &[(53, "UDP")], "LKE");
    assert_eq!(found, one("LKE001", "error", 7, value_column(udp_secret)));
    assert!(
        message.contains("specifying TLS secret name is not supported for UDP"),
        "{message}"
    );
}

// Scaleway: a frontend with certificates (`getCertificateIDs`), unless its backend
// re-encrypts (`getSSLBridging`).

const SCW_CERT: &str = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids: \
                        fr-par-1/11111111-1111-1111-1111-111111111111";

#[test]
fn scaleway_frontend_certificate_terminates_tls_and_keeps_vip() {
    let spec = ccm("v0.33.0");
    let (found, message) = lint("scaleway", &spec, &[SCW_CERT], HTTPS_443, "SCALEWAY");
    assert_eq!(found, one("SCALEWAY001", "error", 7, 5));
    assert!(message.contains("terminates TLS"), "{message}");
    assert_keeps_vip("scaleway", &spec, SCW_CERT, "SCALEWAY");
    // Per-port certificates: only the listed ports terminate TLS.
    let on_443 = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids: 443:cert-a,cert-b";
    let on_8443 = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids: 8443:cert-a";
    assert_eq!(
        lint("scaleway", &spec, &[on_443], HTTPS_443, "SCALEWAY").0,
        one("SCALEWAY001", "error", 7, 5)
    );
    assert_eq!(
        lint("scaleway", &spec, &[on_8443], HTTPS_443, "SCALEWAY").0,
        vec![]
    );
    // The backend re-encrypts (SSL bridging): the backend speaks TLS itself.
    let bridging = "service.beta.kubernetes.io/scw-loadbalancer-http-backend-tls: \"true\"";
    assert_eq!(
        lint(
            "scaleway",
            &spec,
            &[SCW_CERT, bridging],
            HTTPS_443,
            "SCALEWAY"
        )
        .0,
        vec![]
    );
    // The ways out: ipMode Proxy asked for (v0.33.0+), or the hostname.
    let proxy_mode = "service.beta.kubernetes.io/scw-loadbalancer-ip-mode: Proxy";
    assert_eq!(
        lint(
            "scaleway",
            &spec,
            &[SCW_CERT, proxy_mode],
            HTTPS_443,
            "SCALEWAY"
        )
        .0,
        vec![]
    );
    let (found, _) = lint(
        "scaleway",
        &ccm("v0.32.0"),
        &[SCW_CERT, proxy_mode],
        HTTPS_443,
        "SCALEWAY",
    );
    assert_eq!(found, one("SCALEWAY001", "error", 7, 5));
    let hostname = "service.beta.kubernetes.io/scw-loadbalancer-use-hostname: \"true\"";
    assert_eq!(
        lint(
            "scaleway",
            &spec,
            &[SCW_CERT, hostname],
            HTTPS_443,
            "SCALEWAY"
        )
        .0,
        vec![]
    );
}

#[test]
fn scaleway_proxy_protocol_wins_over_the_certificate() {
    let proxy = "service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v2: \"*\"";
    assert_eq!(
        lint(
            "scaleway",
            &ccm("v0.33.0"),
            &[SCW_CERT, proxy],
            HTTPS_443,
            "SCALEWAY"
        )
        .0,
        vec![]
    );
    let (found, message) = lint(
        "scaleway",
        &ccm("v0.32.0"),
        &[SCW_CERT, proxy],
        HTTPS_443,
        "SCALEWAY",
    );
    assert_eq!(found, one("SCALEWAY001", "error", 8, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
}

#[test]
fn scaleway_refuses_bad_certificate_ids() {
    let spec = ccm("v0.33.0");
    let bad_id = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids: fr-par/x/y";
    let (found, message) = lint("scaleway", &spec, &[bad_id], HTTPS_443, "SCALEWAY");
    assert_eq!(found, one("SCALEWAY001", "error", 7, value_column(bad_id)));
    assert!(
        message.contains("\"unable to get certificate ID from fr-par/x/y\""),
        "{message}"
    );
    let bad_port = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids: 44x:cert-a";
    let (found, message) = lint("scaleway", &spec, &[bad_port], HTTPS_443, "SCALEWAY");
    assert_eq!(
        found,
        one("SCALEWAY001", "error", 7, value_column(bad_port))
    );
    assert!(
        message.contains("strconv.ParseInt: parsing \"44x\": invalid syntax"),
        "{message}"
    );
}

// OpenStack: `default-tls-container-ref` makes every listener TERMINATED_HTTPS
// (`getListenerProtocol`); `enable-ingress-hostname` and `ipMode: Proxy` are for PROXY only
// (`createLoadBalancerStatus`).

const OS_TLS: &str = "loadbalancer.openstack.org/default-tls-container-ref: \
                      https://barbican.example.com/v1/containers/0c8e1b2c";

/// The OCCM at `version` with `enable-ingress-hostname` stated.
fn occm(version: &str, ingress_hostname: bool) -> String {
    format!(
        "{}    cloudControllerManagerOptions:\n      enableIngressHostname: {ingress_hostname}\n",
        ccm(version)
    )
}

#[test]
fn openstack_tls_container_ref_terminates_tls_whatever_the_proxy_ways_out() {
    for spec in [
        occm("v1.31.0", false),
        occm("v1.31.0", true),
        ccm("v1.31.0"),
    ] {
        let (found, message) = lint("openstack", &spec, &[OS_TLS], HTTPS_443, "OPENSTACK");
        assert_eq!(found, one("OPENSTACK001", "error", 7, 5), "{spec}");
        assert!(message.contains("terminates TLS"), "{message}");
        assert_keeps_vip("openstack", &spec, OS_TLS, "OPENSTACK");
    }
    // An empty value is no TLS (it overrides the cloud config's default).
    let empty = "loadbalancer.openstack.org/default-tls-container-ref: \"\"";
    assert_eq!(
        lint(
            "openstack",
            &occm("v1.31.0", false),
            &[empty],
            HTTPS_443,
            "OPENSTACK"
        )
        .0,
        vec![]
    );
    // Before v1.21.0 the OCCM does not read it.
    assert_eq!(
        lint(
            "openstack",
            &occm("v1.20.0", false),
            &[OS_TLS],
            HTTPS_443,
            "OPENSTACK"
        )
        .0,
        vec![]
    );
    let hostname = "loadbalancer.openstack.org/hostname: lb.example.com";
    assert_eq!(
        lint(
            "openstack",
            &occm("v1.31.0", false),
            &[OS_TLS, hostname],
            HTTPS_443,
            "OPENSTACK"
        )
        .0,
        vec![]
    );
}

#[test]
fn openstack_proxy_protocol_wins_over_tls_and_takes_its_ways_out() {
    let proxy = "loadbalancer.openstack.org/proxy-protocol: v2";
    assert_eq!(
        lint(
            "openstack",
            &occm("v1.31.0", false),
            &[OS_TLS, proxy],
            HTTPS_443,
            "OPENSTACK"
        )
        .0,
        vec![]
    );
    let (found, message) = lint(
        "openstack",
        &occm("v1.29.0", false),
        &[
            OS_TLS,
            "loadbalancer.openstack.org/proxy-protocol: \"true\"",
        ],
        HTTPS_443,
        "OPENSTACK",
    );
    assert_eq!(found, one("OPENSTACK001", "error", 8, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
}
