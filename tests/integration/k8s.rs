//! K8S001 for every provider, and K8S010–K8S012 (testdata/k8s/).

use crate::{check_json, f, findings};

fn lint(rules: &str, profile: Option<&str>, manifest: &str) -> (i32, serde_json::Value) {
    let manifest = format!("testdata/k8s/{manifest}.yaml");
    let mut args = vec!["--select", rules];
    let profile = profile.map(|p| format!("testdata/k8s/{p}.yaml"));
    if let Some(p) = &profile {
        args.extend(["--profile", p.as_str()]);
    }
    args.push(&manifest);
    check_json(&args)
}

fn file(manifest: &str) -> String {
    format!("testdata/k8s/{manifest}.yaml")
}

#[test]
fn k8s001_notes_vke_callers() {
    let (code, report) = check_json(&[
        "--select",
        "K8S001",
        "--profile",
        "testdata/vke/profile-ready.yaml",
        "testdata/vke/vip-with-caller.yaml",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![f(
            "K8S001",
            "note",
            "testdata/vke/vip-with-caller.yaml",
            54,
            29
        )]
    );
    assert!(report["diagnostics"][0]["help"]
        .as_str()
        .unwrap()
        .contains("call `web` instead"));
}

#[test]
fn ip_mode_proxy_with_a_caller_warns_that_hairpin_is_the_providers() {
    let (code, report) = lint("K8S010", Some("profile-one-pool"), "ipmode-proxy-caller");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("K8S010", "warning", &file("ipmode-proxy-caller"), 16, 17)]
    );
    let d = &report["diagnostics"][0];
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("`ipMode: Proxy`"));
    assert!(message.contains("Deployment/shop/worker calls 198.51.100.7"));
    assert!(message.contains("up to the provider"));
    assert_eq!(d["related"][0]["line"], 35);
}

#[test]
fn ip_mode_proxy_without_a_kubernetes_version_names_the_field() {
    let (_, report) = lint("K8S010", None, "ipmode-proxy-caller");
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("`spec.kubernetesVersion`"));
}

#[test]
fn ip_mode_is_not_honoured_before_kubernetes_1_30() {
    let (code, report) = lint("K8S010", Some("profile-k8s-1.28"), "ipmode-proxy-caller");
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn ip_mode_vip_is_short_circuited() {
    let (code, report) = lint("K8S010", None, "ipmode-vip-caller");
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn a_hostname_only_status_with_a_caller_warns() {
    for profile in [None, Some("profile-k8s-1.28")] {
        let (_, report) = lint("K8S010", profile, "hostname-only-caller");
        assert_eq!(
            findings(&report),
            vec![f(
                "K8S010",
                "warning",
                &file("hostname-only-caller"),
                15,
                19
            )]
        );
    }
}

#[test]
fn internal_traffic_policy_local_with_deployment_backends_drops_calls() {
    let (code, report) = lint("K8S011", Some("profile-one-pool"), "itp-local-deployment");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "error", &file("itp-local-deployment"), 8, 26)]
    );
    let d = &report["diagnostics"][0];
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("Deployment/infra/app calls it (node-cache.infra.svc.cluster.local)"));
    assert_eq!(d["related"][0]["line"], 46);
    assert_eq!(d["fix"]["edits"][0]["content"], "Cluster");
    assert_eq!(d["fix"]["applicability"], "unsafe");
}

#[test]
fn internal_traffic_policy_local_with_a_daemonset_on_every_pool_is_fine() {
    let (code, report) = lint("K8S011", Some("profile-one-pool"), "itp-local-daemonset");
    assert_eq!((code, findings(&report)), (0, vec![]));
    // Without node pools the DaemonSet's coverage is unknown.
    let (_, report) = lint("K8S011", None, "itp-local-daemonset");
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "warning", &file("itp-local-daemonset"), 8, 26)]
    );
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("`spec.nodePools`"));
}

#[test]
fn internal_traffic_policy_local_without_callers_is_a_warning() {
    let (_, report) = lint("K8S011", None, "itp-local-no-caller");
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "warning", &file("itp-local-no-caller"), 8, 26)]
    );
}

#[test]
fn load_balancer_class_makes_the_cloud_controller_ignore_its_annotations() {
    let (code, report) = lint("K8S012", None, "lbclass");
    assert_eq!(code, 1);
    let path = file("lbclass");
    // alibaba-cloud and legacy alicloud prefixes, and a VKE Service with a foreign class;
    // not the NLB class, VKE's own class, or a Service without a class.
    assert_eq!(
        findings(&report),
        vec![
            f("K8S012", "warning", &path, 11, 22),
            f("K8S012", "warning", &path, 23, 22),
            f("K8S012", "warning", &path, 59, 22)
        ]
    );
    let d = &report["diagnostics"][1];
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("`service.beta.kubernetes.io/alicloud-loadbalancer-address-type`"));
    assert_eq!(d["related"][0]["line"], 20);
    assert_eq!(d["related"][0]["column"], 5);
}

/// K8S014: a load balancer created outside Kubernetes, described in the profile, that keeps
/// the client IP: instance targets may pick the caller's node, IP targets the caller itself;
/// unstated facts make warnings that name the field, and K8S001 leaves it to K8S014.
#[test]
fn external_lb_keeping_the_client_ip_cannot_hairpin() {
    let path = "testdata/k8s/external-lb.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let verdict = |lb: &str, text: &str| {
        let spec = format!(
            "  loadBalancers:\n    - name: legacy-nlb\n      addresses: [api.example.com]\n      \
             targets: Service/shop/api\n{lb}"
        );
        let profile = crate::profile_with("eks", &spec);
        let (hits, message) = crate::lint_text(path, text, &profile, "K8S0");
        (hits, message)
    };
    let instance = "      targetType: instance\n";
    let (hits, message) = verdict(&format!("{instance}      preservesClientIp: true\n"), &text);
    assert_eq!(hits, crate::one("K8S014", "error", 32, 30));
    assert!(
        message.starts_with(
            "Deployment/shop/web calls api.example.com (env API_URL), the address of load balancer \
             `legacy-nlb` (profile `spec.loadBalancers[0]`) that forwards to Service/shop/api's \
             NodePort on the nodes and keeps the client IP"
        ),
        "{message}"
    );
    let (hits, message) = verdict(instance, &text);
    assert_eq!(hits, crate::one("K8S014", "warning", 32, 30));
    assert!(message.contains("`spec.loadBalancers[0].preservesClientIp` is not stated"));
    let (hits, _) = verdict(
        &format!("{instance}      preservesClientIp: false\n"),
        &text,
    );
    assert_eq!(hits, vec![]);
    let (hits, message) = verdict("      preservesClientIp: true\n", &text);
    assert_eq!(hits, crate::one("K8S014", "warning", 32, 30));
    assert!(message.contains("`spec.loadBalancers[0].targetType` is not stated"));
    // IP targets: only a caller that is itself a backend can be sent back to itself.
    let ip = "      targetType: ip\n      preservesClientIp: true\n";
    assert_eq!(verdict(ip, &text).0, vec![]);
    // The rename is offered only where it keeps the call working: not for the TLS call.
    let instance_kept = format!("{instance}      preservesClientIp: true\n");
    let suggestions = |text: &str| {
        let spec = format!(
            "  loadBalancers:\n    - name: legacy-nlb\n      addresses: [api.example.com]\n      \
             targets: Service/shop/api\n{instance_kept}"
        );
        let outcome = lblint::check::check_sources(
            &[(path.into(), text.as_bytes().to_vec())],
            &crate::profile_with("eks", &spec),
        );
        let d = outcome
            .diagnostics
            .iter()
            .find(|d| d.rule() == "K8S014")
            .unwrap();
        d.suggestions()
            .map(|s| s.description().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(suggestions(&text), Vec::<String>::new());
    let plain = text.replace("https://api.example.com", "http://api.example.com");
    assert_eq!(
        suggestions(&plain),
        ["call `api` instead of api.example.com"]
    );
    let backend = text.replace("{app: web}", "{app: api}");
    assert_eq!(
        verdict(ip, &backend).0,
        crate::one("K8S014", "error", 32, 30)
    );
}

/// K8S015: each controller's refusal, at the value, only on that controller's cluster (or
/// with no profile), and only where the controller reads the annotation.
#[test]
fn annotation_values_the_controllers_refuse() {
    let path = "testdata/k8s/annotation-rejected.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let lint = |provider: &str, spec: &str, text: &str| {
        let profile = crate::profile_with(provider, spec);
        crate::lint_text(path, text, &profile, "K8S015")
    };
    let hit =
        |severity: &str, line, column| ("K8S015".to_string(), severity.to_string(), line, column);
    let old_doks = "  addons:\n    cloudControllerManager: v0.1.50\n";
    let (found, message) = lint("doks", old_doks, &text);
    assert_eq!(found, vec![hit("error", 9, 58)]);
    assert!(
        message.contains(
            "it fails with `invalid protocol \"HTTPS\" specified in annotation \
             \"service.beta.kubernetes.io/do-loadbalancer-protocol\"`"
        ),
        "{message}"
    );
    // From v0.1.61 an unannotated load balancer is REGIONAL_NETWORK: no protocol is read.
    let new_doks = "  addons:\n    cloudControllerManager: v0.1.61\n";
    assert_eq!(lint("doks", new_doks, &text).0, vec![]);
    assert_eq!(lint("doks", "", &text).0, vec![hit("warning", 9, 58)]);
    let (found, message) = lint("eks", "", &text);
    assert_eq!(
        found,
        vec![
            hit("error", 23, 58),
            hit("error", 24, 66),
            hit("error", 62, 60),
            hit("error", 63, 75)
        ]
    );
    assert!(
        message.contains("it fails with `unknown scheme: public`"),
        "{message}"
    );
    let (found, message) = lint("oke", "", &text);
    assert_eq!(found, vec![hit("error", 36, 60)]);
    assert!(
        message.contains(
            "`invalid value: yes provided for annotation: \
             service.beta.kubernetes.io/oci-load-balancer-internal: strconv.ParseBool: parsing \
             \"yes\": invalid syntax`"
        ),
        "{message}"
    );
    // An OCI network load balancer reads its own key instead.
    let nlb = text.replace(
        "    service.beta.kubernetes.io/oci-load-balancer-internal: \"yes\"",
        "    oci.oraclecloud.com/load-balancer-type: nlb\n    service.beta.kubernetes.io/oci-load-balancer-internal: \"yes\"",
    );
    assert_eq!(lint("oke", "", &nlb).0, vec![]);
    let (found, message) = lint("hetzner", "", &text);
    assert_eq!(found, vec![hit("error", 48, 49)]);
    assert!(
        message.contains(
            "`annotation/Name.BoolFromService: load-balancer.hetzner.cloud/use-private-ip: \
             strconv.ParseBool: parsing \"yes\": invalid syntax`"
        ),
        "{message}"
    );
    // The in-tree AWS controller's Classic ELB refuses the same PROXY value in its words.
    let in_tree = text.replacen(
        "    service.beta.kubernetes.io/aws-load-balancer-type: external\n",
        "",
        1,
    );
    let (found, message) = lint("eks", "", &in_tree);
    assert_eq!(
        found,
        vec![
            hit("error", 23, 66),
            hit("error", 61, 60),
            hit("error", 62, 75)
        ]
    );
    assert!(
        message.contains("detected, but the only value supported currently is '*'"),
        "{message}"
    );
}
