//! The cluster model end to end: `lblint model` and K8S001 on each kind of reference.

use crate::{check_json, f, findings, lblint, snapshot};

#[test]
fn every_kind_of_reference_is_a_caller_and_names_are_safe() {
    let (code, report) = check_json(&["testdata/model/callers.yaml"]);
    assert_eq!(code, 0, "notes only");
    assert_eq!(
        findings(&report),
        vec![
            // ConfigMap value consumed through envFrom, matching the Ingress wildcard host.
            f("K8S001", "note", "testdata/model/callers.yaml", 45, 22),
            // hostAliases maps a name to the LB IP.
            f("K8S001", "note", "testdata/model/callers.yaml", 60, 15),
            // external-dns hostname in an env URL.
            f("K8S001", "note", "testdata/model/callers.yaml", 70, 30),
        ]
    );
    let help = report["diagnostics"][2]["help"].as_str().unwrap();
    // Caller and Service are both in `edge`: the bare name reaches it.
    assert!(help.contains("call `gateway` instead"), "{help}");
    // An `https://` call renamed would fail certificate verification (issue 29 item 3):
    // no rewrite, and the help says why.
    assert!(report["diagnostics"][2]["fix"].is_null());
    assert!(report["diagnostics"][2]["suggestions"]
        .as_array()
        .is_none_or(Vec::is_empty));
    assert!(help.starts_with("this call is TLS"), "{help}");
}

#[test]
fn profile_addresses_find_callers() {
    let (_, report) = check_json(&[
        "--profile",
        "testdata/model/profile-addresses.yaml",
        "testdata/model/callers.yaml",
        "testdata/model/profile-callers.yaml",
    ]);
    let reporter: Vec<_> = findings(&report)
        .into_iter()
        .filter(|d| d.2.ends_with("profile-callers.yaml"))
        .collect();
    assert_eq!(
        reporter,
        vec![
            f(
                "K8S001",
                "note",
                "testdata/model/profile-callers.yaml",
                17,
                38
            ),
            f(
                "K8S001",
                "note",
                "testdata/model/profile-callers.yaml",
                17,
                74
            ),
        ]
    );
    // Without the profile, those addresses are unknown: no caller.
    let (_, report) = check_json(&[
        "testdata/model/callers.yaml",
        "testdata/model/profile-callers.yaml",
    ]);
    assert!(findings(&report)
        .iter()
        .all(|d| !d.2.ends_with("profile-callers.yaml")));
}

#[test]
fn model_subcommand_text_and_json() {
    let run = lblint(&["model", "testdata/model/callers.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    snapshot!("cli_model_callers", run.stdout);
    let run = lblint(&[
        "model",
        "--format",
        "json",
        "examples/manifests",
        "--profile",
        "examples/profiles/tke-ipvs.yaml",
    ]);
    let model: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let entries = model["entryPoints"].as_array().unwrap();
    let api = entries
        .iter()
        .find(|e| e["object"]["name"] == "shop-api")
        .unwrap();
    assert_eq!(api["network"], "private");
    assert_eq!(api["provider"], "tke");
    assert_eq!(api["addresses"][0]["value"], "10.0.1.25");
    assert_eq!(api["backends"][0]["object"]["name"], "shop-api");
    assert_eq!(api["backends"][0]["pools"]["general"], "yes");
    assert_eq!(api["callers"][0]["object"]["name"], "checkout");
    assert_eq!(api["callers"][0]["via"]["kind"], "env");
    assert_eq!(api["callers"][0]["location"]["line"], 63);
}

#[test]
fn one_object_in_several_files_is_one_entry_point_to_a_caller() {
    let (_, report) = check_json(&["--select", "K8S001", "testdata/model/overlays"]);
    assert_eq!(
        findings(&report),
        vec![f(
            "K8S001",
            "note",
            "testdata/model/overlays/base.yaml",
            32,
            29
        )]
    );
    // The related location is the copy in the caller's own file.
    assert_eq!(
        report["diagnostics"][0]["related"][0]["file"],
        "testdata/model/overlays/base.yaml"
    );
}

/// A mention is not a call. E-mail domains, comment
/// lines of an embedded file, ConfigMap keys a volume with `items:` does not mount, and
/// loopback or cluster-internal names are never calls; an address in a block scalar is
/// reported on its own line, not at the `|`.
#[test]
fn mentions_are_not_calls_and_block_scalar_calls_point_at_the_address() {
    let file = "testdata/model/evidence/mentions.yaml";
    let (code, report) = check_json(&[file]);
    assert_eq!(code, 0, "notes only");
    assert_eq!(
        findings(&report),
        vec![
            // `upstream api { server api.shop.example.com:443; }`, line 4 of the block.
            f("K8S001", "note", file, 39, 27),
            // A URL with user info is still a call.
            f("K8S001", "note", file, 60, 52),
        ]
    );
    let nginx = &report["diagnostics"][0];
    assert_eq!(
        nginx["end_column"],
        27 + "api.shop.example.com".len() as u64
    );
    // Port 443: a TLS call, so no by-hand rename (issue 29 item 3).
    assert!(nginx["suggestions"].as_array().is_none_or(Vec::is_empty));
}

/// Only a real call makes an error. A mention in free text makes
/// at most a warning that says so; the app's own public URL (and a CORS origin) is not a
/// caller at all, only a K8S001 note, and none on a backend naming its own Service's host.
#[test]
fn evidence_strength_decides_the_severity() {
    let file = "testdata/model/evidence/strength.yaml";
    let (code, report) = check_json(&[
        "--profile",
        "testdata/model/evidence/profile-tke-ipvs.yaml",
        file,
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "error", file, 14, 5),
            f("TKE001", "warning", file, 29, 5),
            f("TKE001", "warning", file, 44, 5),
            // The call (68) and the mention (69) are TKE001's to judge: no K8S001 beside them.
            f("K8S001", "note", file, 113, 60),
        ]
    );
    let message = |i: usize| {
        report["diagnostics"][i]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        message(1).contains("env BANNER only mentions the address in free text"),
        "{}",
        message(1)
    );
    assert!(
        message(2).contains("No in-cluster caller"),
        "{}",
        message(2)
    );
    assert!(
        message(3).contains("as its own public address (env CORS_ALLOWED_ORIGINS)"),
        "{}",
        message(3)
    );
    // Grafana's own GF_SERVER_ROOT_URL names the host of the Service in front of it: nothing.
    assert!(!report.to_string().contains("GF_SERVER_ROOT_URL"));

    let model = lblint(&[
        "model",
        "--format",
        "json",
        "--profile",
        "testdata/model/evidence/profile-tke-ipvs.yaml",
        file,
    ]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let evidence: Vec<&str> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["callers"].as_array().unwrap())
        .map(|c| c["evidence"].as_str().unwrap())
        .collect();
    // The evidence view shows every verdict, identities too (no rule counts those).
    assert_eq!(evidence, ["call", "mention", "identity"]);
}

/// An Ingress of class nginx is served by the in-cluster ingress-nginx
/// (IngressClass controller, the pods' --ingress-class, --publish-service with
/// $(POD_NAMESPACE)); its hosts are addresses of the controller's private CLB, so a pod
/// calling the host is a caller of that Service (TKE001 error). Another class is not.
#[test]
fn hosts_served_by_an_in_cluster_ingress_controller_reach_its_load_balancer() {
    let profile = "testdata/model/controllers/profile-tke-ipvs.yaml";
    let file = "testdata/model/controllers/ingress-nginx.yaml";
    let (code, report) = check_json(&["--profile", profile, file]);
    assert_eq!(code, 1);
    assert_eq!(findings(&report), vec![f("TKE001", "error", file, 11, 5)]);
    // The error is the call's one verdict: it says how the host reaches the controller's
    // load balancer, and offers no rename (the controller routes by the host).
    let verdict = &report["diagnostics"][0];
    let call = verdict["related"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["line"] == 101)
        .expect("the caller");
    let said = call["message"].as_str().unwrap();
    assert!(
        said.contains(
            "the host reaches it through Ingress/shop/api, class nginx (IngressClass controller \
             k8s.io/ingress-nginx), served by controller pods"
        ),
        "{said}"
    );
    assert!(!verdict["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["description"]
            .as_str()
            .unwrap()
            .contains("instead of api.corp")));
    let model = lblint(&["model", "--format", "json", "--profile", profile, file]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let service = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["object"]["name"] == "ingress-nginx-controller")
        .expect("the controller's Service");
    let served: Vec<&serde_json::Value> = service["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["source"] == "controller-ingress-host")
        .collect();
    assert_eq!(served.len(), 1, "{service:#}");
    assert_eq!(served[0]["value"], "api.corp.example.com");

    let other = "testdata/model/controllers/other-class.yaml";
    let (_, report) = check_json(&["--profile", profile, other]);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", other, 11, 5),
            f("K8S001", "note", other, 101, 47)
        ]
    );
}

/// Pod hostAliases that map the host elsewhere, and CoreDNS rewrites of the
/// host to an in-cluster name, keep calls inside the cluster; CoreDNS is never a caller.
#[test]
fn host_aliases_and_coredns_rewrites_keep_calls_inside() {
    let file = "testdata/model/evidence/aliases.yaml";
    let (_, report) = check_json(&[file]);
    assert_eq!(findings(&report), vec![f("K8S001", "note", file, 84, 48)]);
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("Deployment/shop/reports calls shop.example.com"));
}

/// Calling an ExternalName Service that aliases a load-balancer host
/// calls the load balancer; a plain Service name stays a safe call.
#[test]
fn an_external_name_alias_of_a_load_balancer_host_is_a_caller() {
    let file = "testdata/model/evidence/externalname.yaml";
    let (_, report) = check_json(&[file]);
    assert_eq!(
        findings(&report),
        vec![
            f("K8S001", "note", file, 39, 47),
            f("K8S001", "note", file, 40, 40)
        ]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "an ExternalName Service (Service/shop/api-external) that aliases the load-balancer \
             address of Service/shop/api"
        ),
        "{message}"
    );
    let model = lblint(&["model", "--format", "json", file]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let safe: Vec<&str> = model["safeCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["host"].as_str().unwrap())
        .collect();
    assert_eq!(safe, ["api"]);
}

/// An Istio ServiceEntry whose STATIC endpoint is a load-balancer address
/// makes its host a name of that load balancer; DNS resolution, or an endpoint that is no load
/// balancer of this cluster, does not. `lblint model` names the ServiceEntry.
#[test]
fn a_service_entry_with_a_static_load_balancer_endpoint_is_an_alias() {
    let file = "testdata/model/evidence/serviceentry.yaml";
    let (_, report) = check_json(&[file]);
    assert_eq!(findings(&report), vec![f("K8S001", "note", file, 65, 51)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Deployment/shop/web calls api.partner.example, a mesh host that \
             ServiceEntry/shop/partner-api sends to its STATIC endpoint, the load-balancer address \
             of Service/shop/api"
        ),
        "{message}"
    );
    let model = lblint(&["model", "--format", "json", file]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let callers = &model["entryPoints"][0]["callers"];
    assert_eq!(callers.as_array().unwrap().len(), 1, "{callers}");
    assert_eq!(callers[0]["alias"]["kind"], "ServiceEntry");
    assert_eq!(callers[0]["alias"]["name"], "partner-api");
}

/// `lblint model` shows how a served host reaches a load balancer: the Ingress, its class
/// and IngressClass controller, the controller pods and their --publish-service.
#[test]
fn the_model_names_the_objects_that_link_a_served_host() {
    let model = lblint(&[
        "model",
        "--format",
        "json",
        "testdata/model/controllers/ingress-nginx.yaml",
    ]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let links: Vec<&str> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["addresses"].as_array().unwrap())
        .filter_map(|a| a["link"].as_str())
        .collect();
    assert_eq!(
        links,
        ["Ingress/shop/api, class nginx (IngressClass controller k8s.io/ingress-nginx), served by \
          controller pods Deployment/ingress-nginx/ingress-nginx-controller \
          (--publish-service=ingress-nginx/ingress-nginx-controller)"]
    );
}

/// Secrets a pod reads (secretKeyRef, envFrom.secretRef, secret volumes
/// with their items) are searched, `data` decoded from base64; the finding points at the
/// Secret key's value and names the decoded address.
#[test]
fn secrets_a_pod_reads_are_searched_decoded() {
    let file = "testdata/model/evidence/secrets.yaml";
    let (_, report) = check_json(&[file]);
    assert_eq!(
        findings(&report),
        vec![
            f("K8S001", "note", file, 27, 15),
            f("K8S001", "note", file, 35, 8)
        ]
    );
    let message = report["diagnostics"][1]["message"].as_str().unwrap();
    assert!(
        message.contains("calls orders.shop.example.com")
            && message.contains("(Secret db key DSN, base64-decoded)"),
        "{message}"
    );
    // A base64 value cannot be edited in place: no rename suggestion with edits.
    assert!(report["diagnostics"][1]["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["edits"].as_array().unwrap().is_empty()));
}

/// A hostNetwork pod is a caller from the node, kept distinct (ACK001
/// and the upstream IPVS gap depend on it), and `lblint model` shows it.
#[test]
fn host_network_callers_are_kept_distinct() {
    let callers = |file: &str| -> Vec<(String, bool)> {
        let model = lblint(&["model", "--format", "json", file]);
        let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
        model["entryPoints"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|e| e["callers"].as_array().unwrap().clone())
            .map(|c| {
                (
                    c["object"]["name"].as_str().unwrap().to_string(),
                    c["hostNetwork"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        callers("testdata/ack/service-local-hostnetwork.yaml"),
        [("checker".to_string(), true)]
    );
    assert!(callers("testdata/model/evidence/strength.yaml")
        .iter()
        .all(|(_, node)| !node));
}

/// Istio and Gateway API: hosts of an Istio Gateway and of the
/// VirtualServices bound to it reach the LB Service in front of the gateway pods; a
/// Gateway API route's hostnames are addresses of the Gateway its parentRefs name.
#[test]
fn hosts_of_istio_gateways_and_gateway_api_routes_reach_their_load_balancers() {
    let profile = "testdata/model/controllers/profile-tke-ipvs.yaml";
    let istio = "testdata/model/controllers/istio-gateway.yaml";
    let (code, report) = check_json(&["--profile", profile, istio]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        // Both calls (67, 68) are the error's: no K8S001 beside it.
        vec![f("TKE001", "error", istio, 11, 5)]
    );
    let routes = "testdata/model/controllers/gateway-api.yaml";
    let (_, report) = check_json(&[routes]);
    assert_eq!(findings(&report), vec![f("K8S001", "note", routes, 47, 47)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("the load-balancer address of Gateway/infra/edge"),
        "{message}"
    );
}

/// Same-named objects in dev/ and prod/ of one namespace. A pod reads its
/// own folder's ConfigMap, so only prod's web calls the load balancer (dev's calls the
/// Service by name); the last definition does not win for both.
#[test]
fn same_named_objects_resolve_to_the_nearest_copy() {
    let (_, report) = check_json(&["testdata/model/same-names"]);
    assert_eq!(
        findings(&report),
        vec![f(
            "K8S001",
            "note",
            "testdata/model/same-names/prod/app.yaml",
            24,
            20
        )]
    );
    let model = lblint(&["model", "--format", "json", "testdata/model/same-names"]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let callers = model["entryPoints"][0]["callers"].as_array().unwrap();
    assert_eq!(callers.len(), 1, "{callers:#?}");
    let safe: Vec<&str> = model["safeCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["location"]["file"].as_str().unwrap())
        .collect();
    assert_eq!(safe, ["testdata/model/same-names/dev/app.yaml"]);
}

/// Profile link: with the controller's pods installed elsewhere, the
/// profile's `spec.ingressControllers` names the Service in front of class nginx; the
/// Ingress hosts reach it again. Its backends are not in the manifests, so whether the
/// caller shares their node is unknown: a warning that says so.
#[test]
fn the_profile_links_an_ingress_class_to_its_controller_service() {
    let file = "testdata/model/controllers/controller-elsewhere.yaml";
    let linked = "testdata/model/controllers/profile-controller-link.yaml";
    let (_, report) = check_json(&["--profile", linked, file]);
    assert_eq!(findings(&report), vec![f("TKE001", "warning", file, 11, 5)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("calls its address api.corp.example.com; whether it shares a node with a backend pod is unknown"), "{message}");
    let (_, report) = check_json(&[
        "--profile",
        "testdata/model/controllers/profile-tke-ipvs.yaml",
        file,
    ]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("No in-cluster caller"), "{message}");
}

/// A CoreDNS rewrite of the public host to an in-cluster name (the hairpin-proxy pattern)
/// keeps the implied caller (cert-manager's HTTP-01 self-check) inside, as it does a pod's
/// explicit call; so does the same rule in kube-system/coredns-custom (AKS, k3s). Without
/// the rewrite both call the PROXY-protocol load balancer.
#[test]
fn coredns_rewrites_keep_implied_and_explicit_callers_inside() {
    let path = "testdata/model/evidence/hairpin-proxy.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let doks = crate::profile_with(
        "doks",
        "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n",
    );
    let lint = |text: &str| crate::lint_text(path, text, &doks, "DOKS").0;
    // No caller left: the load balancer still speaks PROXY, a note without a caller.
    assert_eq!(lint(&text), crate::one("DOKS001", "note", 14, 5));
    let custom = text
        .replace("name: coredns\n", "name: coredns-custom\n")
        .replace("Corefile: |", "hairpin.override: |");
    assert_eq!(lint(&custom), crate::one("DOKS001", "note", 14, 5));
    let unrewritten = |text: &str| {
        text.replace(
            "rewrite name shop.example.com",
            "# rewrite name shop.example.com",
        )
    };
    let (found, message) = crate::lint_text(path, &unrewritten(&text), &doks, "DOKS");
    assert_eq!(found, crate::one("DOKS001", "error", 14, 5));
    assert!(
        message.contains("Deployment/shop/storefront calls"),
        "{message}"
    );
    // The implied caller alone: kept inside by the rewrite, a caller without it.
    let storefront = text
        .find("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: storefront")
        .unwrap();
    let implied_only = &text[..storefront];
    assert_eq!(lint(implied_only), crate::one("DOKS001", "note", 14, 5));
    let (found, message) = crate::lint_text(path, &unrewritten(implied_only), &doks, "DOKS");
    assert_eq!(found, crate::one("DOKS001", "error", 14, 5));
    assert!(
        message.contains("cert-manager's HTTP-01 self-check"),
        "{message}"
    );
}

/// The kubelet's image pull from a registry at the cluster's own load-balancer address is a
/// call from the node: the PROXY trap applies, and since the node resolves with its own DNS,
/// neither a CoreDNS rewrite nor the pod's hostAliases keep it inside, and K8S001 offers no
/// in-cluster name. Docker Hub and registry.k8s.io images call nothing.
#[test]
fn image_pulls_from_the_clusters_own_registry_call_from_the_node() {
    let path = "testdata/model/evidence/image-pull.yaml";
    let text = std::fs::read_to_string(path).unwrap();
    let doks = crate::profile_with(
        "doks",
        "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n",
    );
    let (found, message) = crate::lint_text(path, &text, &doks, "DOKS");
    assert_eq!(found, crate::one("DOKS001", "error", 12, 5));
    assert!(
        message.contains(
            "Deployment/shop/checkout calls harbor.example.com (the kubelet's image pull, from the node)"
        ),
        "{message}"
    );
    let rewritten = format!(
        "{text}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: \
         kube-system\ndata:\n  Corefile: |\n    .:53 {{\n        rewrite name harbor.example.com \
         harbor-core.harbor.svc.cluster.local\n    }}\n"
    );
    let aliased = text.replace(
        "      initContainers:",
        "      hostAliases:\n        - ip: 10.96.0.40\n          hostnames: [harbor.example.com]\n      initContainers:",
    );
    for variant in [&rewritten, &aliased] {
        assert_eq!(
            crate::lint_text(path, variant, &doks, "DOKS").0,
            crate::one("DOKS001", "error", 12, 5)
        );
    }
    let files = [(path.to_string(), text.into_bytes())];
    // DOKS001 judges the pull: it is the call's one verdict, with no rename to offer.
    let outcome = lblint::check::check_sources(&files, &doks);
    assert!(outcome.diagnostics.iter().all(|d| d.rule() != "K8S001"));
    let verdict = outcome.diagnostics.iter().find(|d| d.rule() == "DOKS001");
    assert!(verdict
        .unwrap()
        .suggestions()
        .all(|s| !s.description().contains("instead of harbor")));
    // Alone, K8S001 notes it, and says why no in-cluster name is a way out.
    let alone = lblint::rules::k8s::lb_address_in_cluster::LbAddressInCluster;
    let outcome = lblint::check::check_sources_with(&files, &doks, &[&alone]);
    let notes: Vec<_> = outcome.diagnostics.iter().collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(
        (
            notes[0].location().span.start.line,
            notes[0].location().span.start.column
        ),
        (98, 18)
    );
    let help = notes[0].help().as_ref().unwrap().to_string();
    assert!(
        help.starts_with("the kubelet pulls images from the node with the node's own DNS"),
        "{help}"
    );
}
