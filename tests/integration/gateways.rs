//! Gateway API Gateways whose implementation's LoadBalancer Service is not in the manifests
//! (issue 29 item 4): the Service's name comes from each implementation's naming code and
//! its annotations from the Gateway (`spec.infrastructure.annotations`; for Istio, the
//! Gateway's own annotations when that is unset), so the provider's rule judges it, saying
//! that the Service is inferred. testdata/model/gateway-impl/route-only.yaml: a Gateway of
//! class `eg` named only by its HTTPRoute, PROXY protocol asked for on DigitalOcean.

use crate::{check_json, f, findings, lblint_stdin};

const ROUTE_ONLY: &str = "testdata/model/gateway-impl/route-only.yaml";
const DOKS: &str = "testdata/gateways/profile-doks.yaml";

/// (rule, severity, line, column) of a finding.
type At = (String, String, u64, u64);

/// `lblint check` of `text` on standard input with the DOKS profile: (rule, severity, line,
/// column) and the messages.
fn lint(text: &str) -> (Vec<At>, Vec<String>) {
    lint_with(DOKS, text)
}

/// [`lint`] with another profile.
fn lint_with(profile: &str, text: &str) -> (Vec<At>, Vec<String>) {
    let run = lblint_stdin(
        &[
            "check",
            "--format",
            "json",
            "--no-config",
            "--profile",
            profile,
            "-",
        ],
        Some(text.as_bytes()),
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let found = diagnostics
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let messages = diagnostics
        .iter()
        .map(|d| format!("{}\n{}", d["message"], d["help"]))
        .collect();
    (found, messages)
}

fn route_only() -> String {
    std::fs::read_to_string(ROUTE_ONLY).unwrap()
}

fn one(rule: &str, severity: &str, line: u64, column: u64) -> Vec<At> {
    vec![(rule.into(), severity.into(), line, column)]
}

#[test]
fn envoy_gateways_inferred_service_speaks_proxy_protocol_to_a_caller() {
    let (code, report) = check_json(&["--no-config", "--profile", DOKS, ROUTE_ONLY]);
    assert_eq!(code, 1);
    // The error points at the annotation in spec.infrastructure; no K8S001 beside it.
    assert_eq!(
        findings(&report),
        vec![f("DOKS001", "error", ROUTE_ONLY, 12, 7)]
    );
    let d = &report["diagnostics"][0];
    let message = d["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "The DigitalOcean DOKS load balancer of Gateway `eg` (its Service \
             `envoy-web-eg-b1539bcd`, inferred) speaks PROXY protocol, but Deployment/web/worker \
             calls api.example.com"
        ),
        "{message}"
    );
    let help = d["help"].as_str().unwrap();
    assert!(
        help.starts_with(
            "The load balancer belongs to Service `envoy-web-eg-b1539bcd` in \
             `envoy-gateway-system`, which Envoy Gateway creates for it (inferred from the class \
             name `eg`; the GatewayClass is not in the manifests); it carries the Gateway's \
             `spec.infrastructure.annotations`."
        ),
        "{help}"
    );
    // The hostname way out goes into the same annotations, indented as they are.
    let edit = &d["suggestions"][0]["edits"][0];
    assert_eq!(
        (edit["line"].as_u64(), edit["column"].as_u64()),
        (Some(13), Some(1))
    );
    assert_eq!(
        edit["content"].as_str(),
        Some("      service.beta.kubernetes.io/do-loadbalancer-hostname: lb.example.com\n")
    );
}

#[test]
fn without_a_profile_the_copied_annotation_makes_it_doks_at_most_a_warning() {
    let (code, report) = check_json(&["--no-config", ROUTE_ONLY]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("DOKS001", "warning", ROUTE_ONLY, 12, 7)]
    );
}

#[test]
fn the_hostname_way_out_in_the_infrastructure_annotations_is_honoured() {
    let text = route_only().replace(
        "      service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n",
        "      service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n      \
         service.beta.kubernetes.io/do-loadbalancer-hostname: lb.example.com\n",
    );
    let (found, _) = lint(&text);
    assert_eq!(found, one("K8S001", "note", 48, 25));
}

#[test]
fn istio_copies_the_gateways_own_annotations_unless_infrastructure_ones_are_set() {
    // The annotation moved to metadata.annotations: Istio copies them, the others do not.
    let own = route_only().replace(
        "spec:\n  gatewayClassName: eg\n  infrastructure:\n    annotations:\n      \
         service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n",
        "  annotations:\n    service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \
         \"true\"\nspec:\n  gatewayClassName: istio\n",
    );
    assert_ne!(own, route_only());
    // With spec.infrastructure.annotations set, Istio copies those, not its own.
    let (found, messages) =
        lint(&route_only().replace("gatewayClassName: eg", "gatewayClassName: istio"));
    assert_eq!(found, one("DOKS001", "error", 12, 7));
    assert!(
        messages[0].contains("`spec.infrastructure.annotations`"),
        "{}",
        messages[0]
    );
    let (found, messages) = lint(&own);
    assert_eq!(found, one("DOKS001", "error", 9, 5), "{own}");
    assert!(
        messages[0].contains("its Service `eg-istio`, inferred"),
        "{}",
        messages[0]
    );
    assert!(messages[0].contains("it carries the Gateway's `metadata.annotations`"));
    // Envoy Gateway copies only spec.infrastructure: the same Gateway is no PROXY trap.
    let (found, _) = lint(&own.replace("gatewayClassName: istio", "gatewayClassName: eg"));
    assert_eq!(found, one("K8S001", "note", 46, 25));
    // A ClusterIP Service, by Istio's service-type annotation: no cloud load balancer.
    let cluster_ip = own.replace(
        "  annotations:\n",
        "  annotations:\n    networking.istio.io/service-type: ClusterIP\n",
    );
    let (found, _) = lint(&cluster_ip);
    assert!(found.iter().all(|(rule, ..)| rule == "K8S001"), "{found:?}");
}

#[test]
fn a_declared_gateway_class_names_the_implementation() {
    let class = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  \
                 name: edge\nspec:\n  controllerName: io.cilium/gateway-controller\n---\n";
    let text = format!(
        "{class}{}",
        route_only().replace("gatewayClassName: eg", "gatewayClassName: edge")
    );
    let (found, messages) = lint(&text);
    assert_eq!(found, one("DOKS001", "error", 19, 7));
    assert!(
        messages[0].contains(
            "Service `cilium-gateway-eg` in `web`, which Cilium creates for it \
                              (inferred from GatewayClass `edge`, controllerName \
                              `io.cilium/gateway-controller`)"
        ),
        "{}",
        messages[0]
    );
    // A controller lblint does not know (a cloud's own Gateway controller): no inferred
    // Service, so no provider verdict, only the call to the Gateway's address.
    let unknown = text.replace(
        "io.cilium/gateway-controller",
        "example.com/gateway-controller",
    );
    let (found, _) = lint(&unknown);
    assert_eq!(found, one("K8S001", "note", 54, 25));
}

/// Envoy Gateway's own quickstart (verbatim) with a pod calling its route's host: on
/// DigitalOcean without PROXY protocol the call only reaches the load balancer (K8S001);
/// with it, in the Gateway's infrastructure annotations, the inferred Service is the one
/// Envoy Gateway's documentation names for Gateway `default/eg`.
#[test]
fn envoy_gateways_quickstart_gets_its_documented_service_name() {
    let path = "testdata/gateways/envoy-gateway-quickstart.yaml";
    let (_, report) = check_json(&["--no-config", "--profile", DOKS, path]);
    assert_eq!(findings(&report), vec![f("K8S001", "note", path, 102, 49)]);
    let proxy = std::fs::read_to_string(path).unwrap().replace(
        "spec:\n  gatewayClassName: eg\n",
        "spec:\n  gatewayClassName: eg\n  infrastructure:\n    annotations:\n      \
         service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol: \"true\"\n",
    );
    // `lblint model` shows the inferred Service too.
    let model = lblint_stdin(&["model", "--no-config", path], None).stdout;
    assert!(
        model.contains(
            "  load balancer: Service `envoy-default-eg-e41e7b31` in `envoy-gateway-system`, which \
             Envoy Gateway creates for it (inferred from GatewayClass `eg`, controllerName \
             `gateway.envoyproxy.io/gatewayclass-controller`); annotations from the Gateway's \
             spec.infrastructure.annotations\n"
        ),
        "{model}"
    );
    let (found, messages) = lint(&proxy);
    assert_eq!(found, one("DOKS001", "error", 19, 7));
    assert!(
        messages[0].contains("(its Service `envoy-default-eg-e41e7b31`, inferred)"),
        "{}",
        messages[0]
    );
}

/// The inferred Service's ports are the Gateway's listener ports, so the rules that read
/// ports judge it: Linode's default PROXY protocol applies to each TCP port, and
/// DigitalOcean's `tls-ports` to the HTTPS listener's 443.
#[test]
fn rules_that_read_ports_see_the_listeners() {
    const LKE: &str = "testdata/gateways/profile-lke.yaml";
    let text = std::fs::read_to_string("testdata/gateways/envoy-gateway-quickstart.yaml").unwrap();
    let with = |annotations: &str, listener: &str| {
        text.replace(
            "spec:\n  gatewayClassName: eg\n",
            &format!(
                "spec:\n  gatewayClassName: eg\n  infrastructure:\n    annotations:\n{annotations}"
            ),
        )
        .replace(
            "      port: 8080\n",
            &format!("      port: 8080\n{listener}"),
        )
    };
    let lke = with(
        "      service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol: v2\n",
        "",
    );
    assert_eq!(lint_with(LKE, &lke).0, one("LKE001", "error", 19, 7));
    // A UDP listener: Envoy Gateway gives it a UDP port, where Linode refuses PROXY
    // protocol; Istio makes every port TCP, so there it is simply on.
    let udp = lke.replace(
        "    - name: http\n      protocol: HTTP\n      port: 8080\n",
        "    - name: dns\n      protocol: UDP\n      port: 53\n",
    );
    assert_ne!(udp, lke);
    let (_, refused) = lint_with(LKE, &udp);
    assert!(
        refused[0].contains("proxy protocol [v2] is not supported for UDP"),
        "{refused:?}"
    );
    let istio = udp.replace(
        "  controllerName: gateway.envoyproxy.io/gatewayclass-controller",
        "  controllerName: istio.io/gateway-controller",
    );
    let (_, on) = lint_with(LKE, &istio);
    assert!(on[0].contains("speaks PROXY protocol"), "{on:?}");
    // DigitalOcean: TLS on 443 only when a listener makes the Service a 443 port.
    let tls = "      service.beta.kubernetes.io/do-loadbalancer-tls-ports: \"443\"\n      \
               service.beta.kubernetes.io/do-loadbalancer-certificate-id: abc\n";
    let https = "    - name: https\n      protocol: HTTPS\n      port: 443\n";
    let (found, messages) = lint(&with(tls, https));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "DOKS001");
    assert!(messages[0].contains("terminates TLS"), "{}", messages[0]);
    let (found, _) = lint(&with(tls, ""));
    assert_eq!(found, one("K8S001", "note", 106, 49));
}

/// Hetzner's controller-wide PROXY default (`usesProxyProtocol`) applies to the Service an
/// implementation creates as to any other; the finding points at the Gateway's class.
#[test]
fn hetzners_controller_default_reaches_inferred_services() {
    let path = "testdata/gateways/envoy-gateway-quickstart.yaml";
    let profile = "testdata/gateways/profile-hetzner-proxy.yaml";
    let (_, report) = check_json(&["--no-config", "--profile", profile, path]);
    assert_eq!(
        findings(&report),
        vec![f("HETZNER001", "warning", path, 16, 21)]
    );
}

/// On EKS the AWS Load Balancer Controller's webhook makes the Service an implementation
/// creates an NLB like any other (v2.5.0+): EKS001 judges the inferred Service, on the
/// listener's port, and reads the Gateway's infrastructure annotations as the Service's.
#[test]
fn eks_judges_the_nlb_of_an_inferred_service() {
    let path = "testdata/gateways/envoy-gateway-quickstart.yaml";
    let profile = "testdata/gateways/profile-eks.yaml";
    let (_, report) = check_json(&["--no-config", "--profile", profile, path]);
    assert_eq!(findings(&report), vec![f("EKS001", "error", path, 18, 7)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Gateway `eg`'s Service `envoy-default-eg-e41e7b31` (inferred) gets an NLB with instance \
             targets, which keeps the client IP on port 8080"
        ),
        "{message}"
    );
    // Client IP preservation turned off in the Gateway's infrastructure annotations.
    let off = std::fs::read_to_string(path).unwrap().replace(
        "spec:\n  gatewayClassName: eg\n",
        "spec:\n  gatewayClassName: eg\n  infrastructure:\n    annotations:\n      \
         service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: \
         preserve_client_ip.enabled=false\n",
    );
    let (found, _) = lint_with(profile, &off);
    assert_eq!(found, one("K8S001", "note", 105, 49));
}
