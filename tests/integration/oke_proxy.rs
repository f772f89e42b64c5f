//! Oracle OKE's PROXY-protocol family rule (OKE003, issue 28 item 5): PROXY protocol on the
//! OCI load balancer (`oci-load-balancer-connection-proxy-protocol-version`) and network load
//! balancer (`is-ppv2-enabled`), TLS on SSL ports, read as the OCI controller reads them, and
//! the way out `oci.oraclecloud.com/ingress-ip-mode: proxy` on Kubernetes 1.29 vs 1.30+.
//! The manifests are `tls_termination`'s: a Service with the given annotations, its status
//! IP, and a pod that calls it.

use super::one;
use super::tls_termination::{lint, value_column, HTTPS_443};

const OKE_PROXY: &str =
    "service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version: \"2\"";
const OKE_SSL: &str = "service.beta.kubernetes.io/oci-load-balancer-ssl-ports: \"443\"";
const OKE_SECRET: &str = "service.beta.kubernetes.io/oci-load-balancer-tls-secret: shop/shop-tls";
const OKE_IP_MODE: &str = "oci.oraclecloud.com/ingress-ip-mode: proxy";

/// Kubernetes `version` with kube-proxy in iptables mode.
fn oke(version: &str) -> String {
    format!("  kubernetesVersion: \"{version}\"\n  kubeProxy:\n    mode: iptables\n")
}

#[test]
fn oke_load_balancer_proxy_protocol_and_the_ip_mode_way_out_from_1_30() {
    let (found, message) = lint("oke", &oke("1.31.1"), &[OKE_PROXY], HTTPS_443, "OKE");
    assert_eq!(found, one("OKE003", "error", 7, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
    let on_1_31 = super::profile_with("oke", &oke("1.31.1"));
    let why = super::tls_termination::help(&on_1_31, &[OKE_PROXY], HTTPS_443, "OKE");
    assert!(why.contains("leaves `ipMode` unset (VIP)"), "{why}");
    // `proxy` in any case is the way out on 1.30 or later.
    for mode in [OKE_IP_MODE, "oci.oraclecloud.com/ingress-ip-mode: Proxy"] {
        assert_eq!(
            lint("oke", &oke("1.31.1"), &[OKE_PROXY, mode], HTTPS_443, "OKE").0,
            vec![]
        );
    }
    // On 1.29 it does not take effect: OKE002 at the annotation, OKE003 at the trigger.
    let (found, _) = lint(
        "oke",
        &oke("1.29.1"),
        &[OKE_PROXY, OKE_IP_MODE],
        HTTPS_443,
        "OKE003",
    );
    assert_eq!(found, one("OKE003", "error", 7, 5));
    let on_1_29 = super::profile_with("oke", &oke("1.29.1"));
    let why =
        super::tls_termination::help(&on_1_29, &[OKE_PROXY, OKE_IP_MODE], HTTPS_443, "OKE003");
    assert!(why.contains("before 1.30"), "{why}");
    assert_eq!(
        lint(
            "oke",
            &oke("1.29.1"),
            &[OKE_PROXY, OKE_IP_MODE],
            HTTPS_443,
            "OKE002"
        )
        .0,
        one("OKE002", "error", 8, 5)
    );
    let vip = "oci.oraclecloud.com/ingress-ip-mode: VIP";
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[OKE_PROXY, vip], HTTPS_443, "OKE").0,
        one("OKE003", "error", 7, 5)
    );
    // A value `getIngressIpMode` refuses is OKE001's finding only.
    let bad = "oci.oraclecloud.com/ingress-ip-mode: direct";
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[OKE_PROXY, bad], HTTPS_443, "OKE").0,
        one("OKE001", "error", 8, value_column(bad))
    );
    // An HTTP listener is not counted; the version unstated is a warning naming it.
    let http = "service.beta.kubernetes.io/oci-load-balancer-backend-protocol: HTTP";
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[OKE_PROXY, http], HTTPS_443, "OKE").0,
        vec![]
    );
    let (found, message) = lint("oke", "", &[OKE_PROXY, OKE_IP_MODE], HTTPS_443, "OKE003");
    assert_eq!(found, one("OKE003", "warning", 7, 5));
    assert!(message.contains("kubernetesVersion"), "{message}");
}

#[test]
fn oke_network_load_balancer_ppv2() {
    let nlb = "oci.oraclecloud.com/load-balancer-type: NLB";
    let ppv2 = "oci-network-load-balancer.oraclecloud.com/is-ppv2-enabled: \"True\"";
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[nlb, ppv2], HTTPS_443, "OKE").0,
        one("OKE003", "error", 8, 5)
    );
    assert_eq!(
        lint(
            "oke",
            &oke("1.31.1"),
            &[nlb, ppv2, OKE_IP_MODE],
            HTTPS_443,
            "OKE"
        )
        .0,
        vec![]
    );
    let off = "oci-network-load-balancer.oraclecloud.com/is-ppv2-enabled: \"yes\"";
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[nlb, off], HTTPS_443, "OKE").0,
        vec![]
    );
    // The load balancer's PROXY annotation and SSL ports are not the NLB's.
    assert_eq!(
        lint(
            "oke",
            &oke("1.31.1"),
            &[nlb, OKE_PROXY, OKE_SSL, OKE_SECRET],
            HTTPS_443,
            "OKE"
        )
        .0,
        vec![]
    );
    // Without the type, the NLB's annotation is not read.
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[ppv2], HTTPS_443, "OKE").0,
        vec![]
    );
}

#[test]
fn oke_ssl_ports_with_the_listener_secret_terminate_tls() {
    let (found, message) = lint(
        "oke",
        &oke("1.31.1"),
        &[OKE_SSL, OKE_SECRET],
        HTTPS_443,
        "OKE",
    );
    assert_eq!(found, one("OKE003", "error", 7, 5));
    assert!(message.contains("terminates TLS"), "{message}");
    assert_eq!(
        lint(
            "oke",
            &oke("1.31.1"),
            &[OKE_SSL, OKE_SECRET, OKE_IP_MODE],
            HTTPS_443,
            "OKE"
        )
        .0,
        vec![]
    );
    // Not an SSL port, no listener secret, or a backend set that re-encrypts.
    let other = "service.beta.kubernetes.io/oci-load-balancer-ssl-ports: \"8443\"";
    assert_eq!(
        lint(
            "oke",
            &oke("1.31.1"),
            &[other, OKE_SECRET],
            HTTPS_443,
            "OKE"
        )
        .0,
        vec![]
    );
    assert_eq!(
        lint("oke", &oke("1.31.1"), &[OKE_SSL], HTTPS_443, "OKE").0,
        vec![]
    );
    let backend =
        "service.beta.kubernetes.io/oci-load-balancer-tls-backendset-secret: shop/backend-ca";
    assert_eq!(
        lint(
            "oke",
            &oke("1.31.1"),
            &[OKE_SSL, OKE_SECRET, backend],
            HTTPS_443,
            "OKE"
        )
        .0,
        vec![]
    );
    // PROXY protocol wins where both are on.
    let (found, message) = lint(
        "oke",
        &oke("1.31.1"),
        &[OKE_SSL, OKE_SECRET, OKE_PROXY],
        HTTPS_443,
        "OKE",
    );
    assert_eq!(found, one("OKE003", "error", 9, 5));
    assert!(message.contains("speaks PROXY protocol"), "{message}");
}

#[test]
fn oke_refuses_bad_ssl_ports_proxy_version_and_backend_protocol() {
    let spec = oke("1.31.1");
    let ports = "service.beta.kubernetes.io/oci-load-balancer-ssl-ports: 443, x";
    let (found, message) = lint("oke", &spec, &[ports, OKE_SECRET], HTTPS_443, "OKE");
    assert_eq!(found, one("OKE003", "error", 7, value_column(ports)));
    assert!(
        message.contains("parse SSL port: strconv.Atoi: parsing \"x\": invalid syntax"),
        "{message}"
    );
    let version =
        "service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version: v2";
    let (found, message) = lint("oke", &spec, &[version], HTTPS_443, "OKE");
    assert_eq!(found, one("OKE003", "error", 7, value_column(version)));
    assert!(
        message.contains(
            "error parsing service annotation: \
             service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version=v2"
        ),
        "{message}"
    );
    let protocol = "service.beta.kubernetes.io/oci-load-balancer-backend-protocol: UDP";
    let (found, message) = lint("oke", &spec, &[OKE_PROXY, protocol], HTTPS_443, "OKE");
    assert_eq!(found, one("OKE003", "error", 8, value_column(protocol)));
    assert!(
        message.contains("invalid backend protocol \"UDP\" requested for load balancer listener"),
        "{message}"
    );
}
