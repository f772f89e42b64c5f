//! The PROXY-protocol family's triggers read the way each cloud controller reads its
//! annotations (issue 28; the audit's trigger rows T1-T20): Go's `strconv.ParseBool`,
//! lower-casing, deprecated keys, controller defaults by version, and the values a
//! controller refuses, which are located errors quoting the controller's message. Each case
//! edits a fixture of testdata/proxy/ and lints it against a profile written here.

use lblint::check::check_sources;

use super::{lint_text, one, profile_with as profile, Hit};

const MODERN: &str = "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n";

/// MODERN with the provider's controller at `version`.
fn ccm(version: &str) -> String {
    format!("{MODERN}  addons:\n    cloudControllerManager: \"{version}\"\n")
}

/// The findings of rules starting with `prefix` on testdata/proxy/`fixture`.yaml with each
/// `(from, to)` replaced (every `from` must occur), and the first message.
fn case(
    fixture: &str,
    edits: &[(&str, &str)],
    provider: &str,
    spec: &str,
    prefix: &str,
) -> (Vec<Hit>, String) {
    let path = format!("testdata/proxy/{fixture}.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{fixture}: {from}");
        text = text.replace(from, to);
    }
    lint_text(&path, &text, &profile(provider, spec), prefix)
}

/// The status block of the PROXY fixtures (testdata/proxy/*-proxy.yaml).
const STATUS_IP: &str = "status:\n  loadBalancer:\n    ingress:\n      - ip: 203.0.113.10\n";
const DO_PROXY: &str = "do-loadbalancer-enable-proxy-protocol: \"true\"";
const DO_PROTOCOL: &str = "    service.beta.kubernetes.io/do-loadbalancer-protocol: https\n";
const DO_CERT: &str = "do-loadbalancer-certificate-id: 29333fdc-733d-4523-8d79-31acc1544ee0";

/// T1: `getEnableProxyProtocol` is Go's ParseBool; another value stops the controller.
#[test]
fn doks_proxy_protocol_is_parse_bool_and_a_bad_value_is_refused() {
    for value in ["\"True\"", "\"1\"", "\"t\"", "\"TRUE\""] {
        let to = format!("do-loadbalancer-enable-proxy-protocol: {value}");
        let (found, _) = case(
            "doks-ingress-nginx",
            &[(DO_PROXY, &to)],
            "doks",
            MODERN,
            "DOKS",
        );
        assert_eq!(found, one("DOKS001", "error", 9, 5), "{value}");
    }
    let to = "do-loadbalancer-enable-proxy-protocol: \"0\"";
    assert_eq!(
        case(
            "doks-ingress-nginx",
            &[(DO_PROXY, to)],
            "doks",
            MODERN,
            "DOKS"
        )
        .0,
        vec![]
    );
    let to = "do-loadbalancer-enable-proxy-protocol: \"yes\"";
    let (found, message) = case(
        "doks-ingress-nginx",
        &[(DO_PROXY, to)],
        "doks",
        MODERN,
        "DOKS",
    );
    assert_eq!(found, one("DOKS001", "error", 9, 71));
    assert!(
        message.contains(
            "failed to get proxy protocol configuration setting: cannot convert value \"yes\" for annotation \
             \"service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol\" to bool: strconv.ParseBool: \
             parsing \"yes\": invalid syntax"
        ),
        "{message}"
    );
}

/// T2-T6: TLS as `buildForwardingRules` builds it, on a `REGIONAL` load balancer (the
/// default before v0.1.61).
#[test]
fn doks_tls_follows_build_forwarding_rules() {
    let old = ccm("v0.1.60");
    let doks = |edits: &[(&str, &str)], spec: &str| case("doks-tls", edits, "doks", spec, "DOKS");
    // T2: a certificate alone makes port 443 HTTPS.
    assert_eq!(
        doks(&[(DO_PROTOCOL, "")], &old).0,
        one("DOKS001", "error", 8, 5)
    );
    // T3: `protocol: http` with `tls-ports: "443"`.
    let http_tls = "    service.beta.kubernetes.io/do-loadbalancer-protocol: http\n    \
                    service.beta.kubernetes.io/do-loadbalancer-tls-ports: \"443\"\n";
    assert_eq!(
        doks(&[(DO_PROTOCOL, http_tls)], &old).0,
        one("DOKS001", "error", 10, 5)
    );
    // T4: the certificate by name.
    let by_name = "do-loadbalancer-certificate-name: shop-cert";
    assert_eq!(
        doks(&[(DO_CERT, by_name)], &old).0,
        one("DOKS001", "error", 9, 5)
    );
    // T6: passthrough ("True" is ParseBool's) with a certificate: the controller refuses.
    let passthrough = format!(
        "{DO_CERT}\n    service.beta.kubernetes.io/do-loadbalancer-tls-passthrough: \"True\""
    );
    let (found, message) = doks(&[(DO_CERT, &passthrough)], &old);
    assert_eq!(found, one("DOKS001", "error", 10, 65));
    assert!(
        message
            .contains("either certificate id should be set or tls pass through enabled, not both"),
        "{message}"
    );
    // The refusal names the annotation whose value it shows.
    assert!(
        message.contains(
            "sets `service.beta.kubernetes.io/do-loadbalancer-tls-passthrough` to `True`"
        ),
        "{message}"
    );
    // Passthrough alone: no termination.
    let only = "do-loadbalancer-tls-passthrough: \"True\"";
    assert_eq!(doks(&[(DO_CERT, only)], &old).0, vec![]);
    // An HTTPS port without a certificate: refused.
    let (found, message) = doks(&[(DO_CERT, "do-loadbalancer-size-unit: \"2\"")], &old);
    assert_eq!(found, one("DOKS001", "error", 8, 58));
    assert!(
        message.contains("must set certificate id or enable tls pass through"),
        "{message}"
    );
}

/// T5: `REGIONAL_NETWORK` passes TCP through; it is the default from v0.1.61, and unknown
/// without the controller version.
#[test]
fn doks_tls_needs_a_regional_load_balancer() {
    let doks = |edits: &[(&str, &str)], spec: &str| case("doks-tls", edits, "doks", spec, "DOKS");
    assert_eq!(doks(&[], &ccm("v0.1.61")).0, vec![]);
    assert_eq!(doks(&[], &ccm("v0.1.68")).0, vec![]);
    let (found, message) = doks(&[], MODERN);
    assert_eq!(found, one("DOKS001", "warning", 9, 5));
    let path = "testdata/proxy/doks-tls.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let why = crate::help_text(path, &text, &profile("doks", MODERN), "DOKS");
    assert!(
        why.contains("`service.beta.kubernetes.io/do-loadbalancer-type`"),
        "{why}"
    );
    assert!(
        message.contains("`spec.addons.cloudControllerManager`"),
        "{message}"
    );
    let typed = |t: &str| {
        format!("{DO_PROTOCOL}    service.beta.kubernetes.io/do-loadbalancer-type: {t}\n")
    };
    assert_eq!(
        doks(&[(DO_PROTOCOL, &typed("REGIONAL"))], MODERN).0,
        one("DOKS001", "error", 10, 5)
    );
    assert_eq!(
        doks(
            &[(DO_PROTOCOL, &typed("REGIONAL_NETWORK"))],
            &ccm("v0.1.60")
        )
        .0,
        vec![]
    );
    let (found, message) = doks(&[(DO_PROTOCOL, &typed("regional"))], MODERN);
    assert_eq!(found, one("DOKS001", "error", 9, 54));
    assert!(
        message.contains("\"only LB types supported are (REGIONAL, REGIONAL_NETWORK)\""),
        "{message}"
    );
}

const LKE_DEFAULT: &str = "linode-loadbalancer-default-proxy-protocol: v2";

/// T7-T10: `getPortProxyProtocol` lower-cases and reads the deprecated key; the Service's
/// hostname-only annotation is ParseBool and wins over the controller's env.
#[test]
fn lke_reads_proxy_protocol_and_hostname_only_as_the_controller_does() {
    let lke = |edits: &[(&str, &str)], spec: &str| case("lke-proxy", edits, "lke", spec, "LKE");
    let upper = "linode-loadbalancer-default-proxy-protocol: V2";
    assert_eq!(
        lke(&[(LKE_DEFAULT, upper)], "").0,
        one("LKE001", "error", 8, 5)
    );
    let deprecated = "linode-loadbalancer-proxy-protocol: v2";
    assert_eq!(
        lke(&[(LKE_DEFAULT, deprecated)], "").0,
        one("LKE001", "error", 8, 5)
    );
    let (found, message) = lke(
        &[(
            LKE_DEFAULT,
            "linode-loadbalancer-default-proxy-protocol: v3",
        )],
        "",
    );
    assert_eq!(found, one("LKE001", "error", 8, 76));
    assert!(
        message.contains("\"invalid NodeBalancer proxy protocol value 'v3'\""),
        "{message}"
    );
    let only = |v: &str| {
        format!("{LKE_DEFAULT}\n    service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress: {v}")
    };
    for (value, found) in [
        ("\"False\"", 1),
        ("\"0\"", 1),
        ("\"yes\"", 1),
        ("\"true\"", 0),
        ("\"1\"", 0),
    ] {
        assert_eq!(
            lke(&[(LKE_DEFAULT, &only(value))], "").0.len(),
            found,
            "{value}"
        );
    }
    let env = "  addons:\n    cloudControllerManagerOptions:\n      hostnameOnlyIngress: true\n";
    // The option gives every status a hostname; a status that reports the IP (an export)
    // shows it does not for this Service.
    assert_eq!(lke(&[(STATUS_IP, "")], env).0, vec![]);
    assert_eq!(lke(&[], env).0, one("LKE001", "error", 8, 5));
    assert_eq!(
        lke(&[(LKE_DEFAULT, &only("\"false\""))], env).0,
        one("LKE001", "error", 8, 5)
    );
    // A port's empty `proxy-protocol` falls back to the default.
    let port = format!("{LKE_DEFAULT}\n    service.beta.kubernetes.io/linode-loadbalancer-port-80: '{{\"proxy-protocol\": \"\"}}'");
    assert_eq!(
        lke(&[(LKE_DEFAULT, &port)], "").0,
        one("LKE001", "error", 8, 5)
    );
}

const HZ_PROXY: &str = "load-balancer.hetzner.cloud/uses-proxyprotocol: \"true\"";

/// T11, the env default (audit item 2 of the brief), and the refused value.
#[test]
fn hetzner_proxy_protocol_is_parse_bool_or_the_controller_default() {
    let hz = |edits: &[(&str, &str)], spec: &str| {
        case("hetzner-proxy", edits, "hetzner", spec, "HETZNER001")
    };
    let old = ccm("v1.20.1");
    let upper = "load-balancer.hetzner.cloud/uses-proxyprotocol: \"True\"";
    assert_eq!(
        hz(&[(HZ_PROXY, upper)], &old).0,
        one("HETZNER001", "error", 8, 5)
    );
    let (found, message) = hz(
        &[(
            HZ_PROXY,
            "load-balancer.hetzner.cloud/uses-proxyprotocol: \"yes\"",
        )],
        &old,
    );
    assert_eq!(found, one("HETZNER001", "error", 8, 53));
    assert!(
        message.contains(
            "\"hcops/hclbServiceOptsBuilder.extract: annotation/Name.BoolFromService: \
             load-balancer.hetzner.cloud/uses-proxyprotocol: strconv.ParseBool: parsing \"yes\": invalid syntax\""
        ),
        "{message}"
    );
    // HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL: the finding points at `type`, and the
    // hostname way out is still offered (by hand: there is no annotation to insert after).
    let env = format!("{old}    cloudControllerManagerOptions:\n      usesProxyProtocol: true\n");
    let location = "load-balancer.hetzner.cloud/location: hel1";
    assert_eq!(
        hz(&[(HZ_PROXY, location)], &env).0,
        one("HETZNER001", "error", 10, 9)
    );
    let path = "testdata/proxy/hetzner-proxy.yaml";
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace(HZ_PROXY, location);
    let outcome = check_sources(
        &[(path.into(), text.into_bytes())],
        &profile("hetzner", &env),
    );
    let d = outcome
        .diagnostics
        .iter()
        .find(|d| d.rule() == "HETZNER001")
        .unwrap();
    let suggestions: Vec<&str> = d.suggestions().map(|s| s.description()).collect();
    assert!(
        suggestions
            .iter()
            .any(|s| s.contains("load-balancer.hetzner.cloud/hostname: <name>")),
        "{suggestions:?}"
    );
    // The annotation's `false` wins over the env.
    let off = "load-balancer.hetzner.cloud/uses-proxyprotocol: \"false\"";
    assert_eq!(hz(&[(HZ_PROXY, off)], &env).0, vec![]);
}

/// T12: HETZNER002 only where `ipMode: Proxy` is honoured.
#[test]
fn hetzner_stale_hostname_needs_ip_mode_honoured() {
    let old_k8s =
        "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n  addons:\n    \
                   cloudControllerManager: \"v1.21.0\"\n";
    assert_eq!(
        case("hetzner-proxy-hostname", &[], "hetzner", old_k8s, "HETZNER").0,
        vec![]
    );
    assert_eq!(
        case(
            "hetzner-proxy-hostname",
            &[],
            "hetzner",
            &ccm("v1.21.0"),
            "HETZNER"
        )
        .0,
        one("HETZNER002", "note", 9, 5)
    );
}

const HZ_PRIVATE: &str = "load-balancer.hetzner.cloud/use-private-ip: \"true\"";

/// T13, T14: private ingress as `buildLoadBalancerStatusIngress` reports it.
#[test]
fn hetzner_private_ingress_follows_the_network_and_parse_bool() {
    let ipvs = "  kubeProxy:\n    mode: ipvs\n";
    let hz = |edits: &[(&str, &str)], spec: &str| {
        case("hetzner-private-ip", edits, "hetzner", spec, "HETZNER")
    };
    let disabled = |v: &str| {
        format!("{HZ_PRIVATE}\n    load-balancer.hetzner.cloud/disable-private-ingress: {v}")
    };
    assert_eq!(hz(&[(HZ_PRIVATE, &disabled("\"True\""))], ipvs).0, vec![]);
    assert_eq!(hz(&[(HZ_PRIVATE, &disabled("\"1\""))], ipvs).0, vec![]);
    let (found, message) = hz(&[(HZ_PRIVATE, &disabled("\"yes\""))], ipvs);
    assert_eq!(found, one("HETZNER003", "error", 9, 58));
    assert!(
        message.contains(
            "hcloud/loadBalancers.getLoadBalancerStatusIngress: annotation/Name.BoolFromService"
        ),
        "{message}"
    );
    // The annotation's `false` wins over the env.
    let env_off = format!(
        "{ipvs}  addons:\n    cloudControllerManagerOptions:\n      disablePrivateIngress: true\n"
    );
    assert_eq!(
        hz(&[(HZ_PRIVATE, &disabled("\"false\""))], &env_off).0,
        one("HETZNER003", "error", 8, 5)
    );
    // Without `use-private-ip`: attached whenever HCLOUD_NETWORK is set.
    let location = "load-balancer.hetzner.cloud/location: hel1";
    let network = |on: &str| {
        format!("{ipvs}  addons:\n    cloudControllerManagerOptions:\n      privateNetwork: {on}\n")
    };
    assert_eq!(
        hz(&[(HZ_PRIVATE, location)], &network("true")).0,
        one("HETZNER003", "error", 10, 9)
    );
    assert_eq!(hz(&[(HZ_PRIVATE, location)], &network("false")).0, vec![]);
    let (found, message) = hz(&[(HZ_PRIVATE, location)], ipvs);
    assert_eq!(found, one("HETZNER003", "warning", 10, 9));
    assert!(
        message.contains("`spec.addons.cloudControllerManagerOptions.privateNetwork`"),
        "{message}"
    );
}

const SCW_ALL: &str = "scw-loadbalancer-proxy-protocol-v2: \"80,443\"";

/// T15, the Service without ports (audit item 2 of the brief), and the refused values.
#[test]
fn scaleway_reads_ports_as_is_port_in_range_does() {
    let scw = |edits: &[(&str, &str)], spec: &str| {
        case("scaleway-all-ports", edits, "scaleway", spec, "SCALEWAY")
    };
    let upper = "scw-loadbalancer-proxy-protocol-v2: \"True\"";
    assert_eq!(
        scw(&[(SCW_ALL, upper)], &ccm("v0.32.4")).0,
        one("SCALEWAY001", "error", 8, 5)
    );
    assert_eq!(scw(&[(SCW_ALL, upper)], &ccm("v0.33.0")).0, vec![]);
    // `1` is port 1 for the -v1/-v2 annotations, not true.
    assert_eq!(
        scw(
            &[(SCW_ALL, "scw-loadbalancer-proxy-protocol-v2: \"1\"")],
            &ccm("v0.32.4")
        )
        .0,
        vec![]
    );
    // Node ports are not Service ports.
    let node_ports = "scw-loadbalancer-proxy-protocol-v2: \"30080,30443\"";
    assert_eq!(scw(&[(SCW_ALL, node_ports)], &ccm("v0.32.4")).0, vec![]);
    let (found, message) = scw(
        &[(SCW_ALL, "scw-loadbalancer-proxy-protocol-v2: \"80,abc\"")],
        &ccm("v0.33.0"),
    );
    assert_eq!(found, one("SCALEWAY001", "error", 8, 68));
    assert!(
        message.contains("strconv.ParseInt: parsing \"abc\": invalid syntax"),
        "{message}"
    );
    let both = format!(
        "{SCW_ALL}\n    service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v1: \"*\""
    );
    let (found, message) = scw(&[(SCW_ALL, &both)], &ccm("v0.33.0"));
    assert_eq!(found, one("SCALEWAY001", "error", 8, 68));
    assert!(
        message.contains("port 80 is in both v1 and v2 proxy protocols"),
        "{message}"
    );
    // No ports: no frontend speaks PROXY protocol.
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    \
                service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v2: \"*\"\nspec:\n  type: LoadBalancer\n\
                status:\n  loadBalancer:\n    ingress:\n      - ip: 203.0.113.10\n";
    let (found, _) = lint_text(
        "no-ports.yaml",
        text,
        &profile("scaleway", &ccm("v0.32.4")),
        "SCALEWAY",
    );
    assert_eq!(found, vec![]);
}

/// T18: the default `Proxy` and force-hostname come with controller 1.1.0; a refused
/// `ip-mode`.
#[test]
fn cloudscale_ip_mode_and_force_hostname_need_controller_1_1_0() {
    let cs = |edits: &[(&str, &str)], spec: &str| {
        case("cloudscale-proxy", edits, "cloudscale", spec, "CLOUDSCALE")
    };
    assert_eq!(
        cs(&[], &ccm("1.0.2")).0,
        one("CLOUDSCALE001", "error", 8, 5)
    );
    let pool = "k8s.cloudscale.ch/loadbalancer-pool-protocol: proxyv2";
    let forced =
        format!("{pool}\n    k8s.cloudscale.ch/loadbalancer-force-hostname: lb.example.com");
    assert_eq!(
        cs(&[(pool, &forced)], &ccm("1.0.2")).0,
        one("CLOUDSCALE001", "error", 8, 5)
    );
    assert_eq!(cs(&[(pool, &forced)], &ccm("1.1.0")).0, vec![]);
    // Unstated: whether the controller reads force-hostname hangs on its version.
    let (found, message) = cs(&[(pool, &forced)], MODERN);
    assert_eq!(found, one("CLOUDSCALE001", "warning", 8, 5));
    assert!(
        message.contains("`spec.addons.cloudControllerManager`"),
        "{message}"
    );
    assert_eq!(cs(&[], &ccm("1.1.0")).0, vec![]);
    let (found, message) = cs(&[], MODERN);
    assert_eq!(found, one("CLOUDSCALE001", "warning", 8, 5));
    assert!(
        message.contains("`spec.addons.cloudControllerManager`"),
        "{message}"
    );
    let lower = format!("{pool}\n    k8s.cloudscale.ch/loadbalancer-ip-mode: proxy");
    let (found, message) = cs(&[(pool, &lower)], &ccm("1.1.0"));
    assert_eq!(found, one("CLOUDSCALE001", "error", 9, 45));
    assert!(
        message.contains("\"unsupported IP mode: 'proxy', must be 'Proxy' or 'VIP'\""),
        "{message}"
    );
}

/// OCCM reads `v1`/`v2` as PROXY protocol from v1.31.0 (`getProxyProtocolFromServiceAnnotation`);
/// before, only `true` (`getBoolFromServiceAnnotation`). Unstated, the verdict hangs on the
/// version: a warning naming `spec.addons.cloudControllerManager`, not an error.
#[test]
fn openstack_v2_needs_occm_1_31_and_an_unstated_version_is_a_warning() {
    let v2 = [("proxy-protocol: \"true\"", "proxy-protocol: v2")];
    let old_k8s = "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n";
    let with_occm = |v: &str| format!("{old_k8s}  addons:\n    cloudControllerManager: \"{v}\"\n");
    let lint = |spec: &str| case("openstack-proxy", &v2, "openstack", spec, "OPENSTACK");
    assert_eq!(
        lint(&with_occm("v1.31.0")).0,
        one("OPENSTACK001", "error", 8, 5)
    );
    assert_eq!(lint(&with_occm("v1.30.2")).0, vec![]);
    let (found, message) = lint(old_k8s);
    assert_eq!(found, one("OPENSTACK001", "warning", 8, 5));
    assert!(
        message.contains("`web` may speak PROXY protocol"),
        "{message}"
    );
    assert!(
        message.contains(
            "set `spec.addons.cloudControllerManager` in the cluster profile to settle it"
        ),
        "{message}"
    );
    // `true` is read by every release: the unstated version changes nothing.
    assert_eq!(
        case("openstack-proxy", &[], "openstack", old_k8s, "OPENSTACK").0,
        one("OPENSTACK001", "error", 8, 5)
    );
}

/// `getPortConfigAnnotation` decodes a `port-<N>` annotation with Go's `json.Unmarshal`
/// before anything else; a text it cannot decode stops the controller, in Go's words where
/// lblint has them. Keys match case-insensitively, as Go matches struct fields.
#[test]
fn lke_port_annotations_are_decoded_as_go_decodes_them() {
    let lke = |port: &str| {
        let edit = format!(
            "{LKE_DEFAULT}\n    service.beta.kubernetes.io/linode-loadbalancer-port-80: '{port}'"
        );
        case("lke-proxy", &[(LKE_DEFAULT, &edit)], "lke", "", "LKE")
    };
    // Linode's own test case (Test_getPortConfigAnnotation): a cut-off object.
    let (found, message) = lke(r#"{ "tls-secret-name": "prod-app-tls" "#);
    assert_eq!(found, one("LKE001", "error", 9, 61));
    assert!(
        message.contains("fails with \"unexpected end of JSON input\""),
        "{message}"
    );
    let (found, message) = lke(r#"{"proxy-protocol": 2}"#);
    assert_eq!(found, one("LKE001", "error", 9, 61));
    assert!(
        message.contains(
            "\"json: cannot unmarshal number into Go struct field portConfigAnnotation.proxy-protocol of type string\""
        ),
        "{message}"
    );
    // `Protocol` is the same field to Go as `protocol`: its value is read, and refused.
    let (found, message) = lke(r#"{"Protocol": "sctp"}"#);
    assert_eq!(found, one("LKE001", "error", 9, 61));
    assert!(
        message.contains("\"invalid protocol: \"sctp\" specified\""),
        "{message}"
    );
}
