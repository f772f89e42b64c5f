//! One verdict per cause (issue 29 item 3): a call that a rule judges is not noted again
//! by K8S001, whatever order the rules run in.

use crate::{check_json, f, findings};

const PROFILE: &str = "examples/profiles/tke-ipvs.yaml";
const CALLS: &str = "testdata/verdicts/one-verdict-per-call.yaml";

#[test]
fn a_judged_call_gets_one_finding_that_carries_the_rename() {
    let (_, report) = check_json(&["--profile", PROFILE, CALLS]);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", CALLS, 11, 5)]
    );
    let verdict = &report["diagnostics"][0];
    let suggestions = verdict["suggestions"].as_array().unwrap();
    // The way out by name, then its edit at the plain-HTTP call only.
    assert_eq!(suggestions.len(), 2, "{suggestions:?}");
    assert_eq!(
        suggestions[1],
        serde_json::json!({
            "description": "call `orders` instead of 10.0.1.30",
            "applicability": "display-only",
            "edits": [{"line": 40, "column": 30, "end_line": 40, "end_column": 39, "content": "orders"}],
        })
    );
    // The TLS call says why it gets no rename.
    let tls = verdict["related"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["line"] == 42)
        .unwrap();
    assert!(
        tls["message"]
            .as_str()
            .unwrap()
            .ends_with("; TLS, so no rename is offered (`orders` fails certificate verification unless the certificate names it)"),
        "{tls}"
    );
}

#[test]
fn k8s001_notes_the_calls_no_reported_rule_judges() {
    for args in [["--ignore", "TKE001"], ["--select", "K8S001"]] {
        let (_, report) = check_json(&[&args[..], &["--profile", PROFILE, CALLS]].concat());
        assert_eq!(
            findings(&report),
            vec![
                f("K8S001", "note", CALLS, 40, 30),
                f("K8S001", "note", CALLS, 42, 31),
            ],
            "{args:?}"
        );
    }
}

/// The pass that silences K8S001 runs after every rule: reversing the rules' order changes
/// nothing.
#[test]
fn the_verdict_does_not_depend_on_rule_order() {
    let files = [(CALLS.to_string(), std::fs::read(CALLS).unwrap())];
    let profile = lblint::profile::load_profile(std::path::Path::new(PROFILE)).unwrap();
    let forward = lblint::rules::registry();
    let mut backward = forward.clone();
    backward.reverse();
    let ids = |rules: &[&dyn lblint::rules::Rule]| {
        let mut found: Vec<_> = lblint::check::check_sources_with(&files, &profile, rules)
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.rule(),
                    d.location().span.start.line,
                    d.suggestions().len(),
                )
            })
            .collect();
        found.sort();
        found
    };
    assert_eq!(ids(&forward), vec![("TKE001", 11, 2)]);
    assert_eq!(ids(&backward), ids(&forward));
}

/// Two objects pasted without `---` (an excerpt of stackrox/kube-linter's
/// tests/checks/cel.yml): one LBL005 at the seam naming every repeated top-level key, not
/// one per key.
#[test]
fn a_glued_seam_is_one_duplicate_key_finding() {
    let file = "testdata/verdicts/glued-seam.yaml";
    let (_, report) = check_json(&["--no-config", file]);
    assert_eq!(findings(&report), vec![f("LBL005", "warning", file, 10, 1)]);
    let d = &report["diagnostics"][0];
    assert_eq!(
        d["message"],
        "Two objects pasted without `---` between them: `apiVersion`, `kind` and `metadata` are \
         written again from here, so Kubernetes reads one object with the later values and the \
         earlier object is lost."
    );
    assert_eq!(
        (&d["related"][0]["line"], &d["related"][0]["column"]),
        (&4.into(), &1.into())
    );
    assert_eq!(
        d["help"],
        "add a `---` line before line 10 so each object is its own document"
    );
}

/// Duplicates that are no seam keep one finding each: nested keys, and top-level keys of a
/// document that repeats neither `apiVersion` nor `kind`; a seam does not swallow a nested
/// duplicate beside it.
#[test]
fn other_duplicate_keys_are_reported_one_by_one() {
    let lines = |text: &str| -> Vec<(u32, u32)> {
        let (found, _) = crate::lint_text("dup.yaml", text, &lblint::profile::generic(), "LBL");
        assert!(
            found.iter().all(|h| h.0 == "LBL005" && h.1 == "warning"),
            "{found:?}"
        );
        found.iter().map(|h| (h.2, h.3)).collect()
    };
    let nested_and_spec =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\nspec: {}\nspec: {}\n";
    assert_eq!(lines(nested_and_spec), [(5, 3), (7, 1)]);
    let glued =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\napiVersion: v1\nkind: Service\n\
                 metadata:\n  name: b\n  name: c\n";
    assert_eq!(lines(glued), [(5, 1), (9, 3)]);
}

/// A LoadBalancer Service of `provider`'s, with `annotations` (each a `key: value` line) and
/// `spec` lines, that nothing in the manifests calls.
fn uncalled(annotations: &[&str], spec: &[&str]) -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n",
    );
    for a in annotations {
        text.push_str(&format!("    {a}\n"));
    }
    text.push_str(
        "spec:\n  type: LoadBalancer\n  selector: {app: web}\n  ports:\n    - port: 80\n",
    );
    for s in spec {
        text.push_str(&format!("  {s}\n"));
    }
    text
}

/// The no-caller case weighs the same in every provider's rule (DEVELOPERS.md, Severity):
/// a private load balancer in a configuration its vendor documents as breaking in-cluster
/// calls is a warning (its callers are in the cluster even if not in these files); a public
/// one is a note. Each row: provider, profile lines, rule, what makes the load balancer
/// private, what makes it public (the AWS Load Balancer Controller's default scheme is
/// internal), the annotations the configuration needs, spec lines.
#[test]
fn the_no_caller_case_weighs_the_same_in_every_rule() {
    let ipvs = "  kubeProxy:\n    mode: ipvs\n";
    type Row<'a> = (
        &'a str,
        &'a str,
        &'a str,
        &'a str,
        Option<&'a str>,
        &'a [&'a str],
        &'a [&'a str],
    );
    let rows: [Row<'_>; 5] = [
        (
            "ack",
            ipvs,
            "ACK001",
            "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type: intranet",
            None,
            &[],
            &["externalTrafficPolicy: Local"],
        ),
        (
            "cce",
            "  cceFlavour: standard\n  kubeProxy:\n    mode: ipvs\n",
            "CCE001",
            "service.beta.kubernetes.io/cce-load-balancer-internal-vpc: \"true\"",
            None,
            &["kubernetes.io/elb.class: performance"],
            &["externalTrafficPolicy: Local"],
        ),
        (
            "vke",
            "  kubernetesVersion: \"1.30.2\"\n",
            "VKE004",
            "service.beta.kubernetes.io/volcengine-loadbalancer-address-type: PRIVATE",
            None,
            &["service.beta.kubernetes.io/volcengine-loadbalancer-ip-mode: \"Proxy\""],
            &[],
        ),
        (
            "eks",
            "",
            "EKS001",
            "service.beta.kubernetes.io/aws-load-balancer-scheme: internal",
            Some("service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing"),
            &[
                "service.beta.kubernetes.io/aws-load-balancer-type: external",
                "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: instance",
            ],
            &[],
        ),
        (
            "oke",
            "  kubernetesVersion: \"1.31.1\"\n",
            "OKE",
            "service.beta.kubernetes.io/oci-load-balancer-internal: \"true\"",
            None,
            &["service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version: \"2\""],
            &[],
        ),
    ];
    for (provider, spec, rule, private, public, annotations, lines) in rows {
        let profile = crate::profile_with(provider, spec);
        let with = |extra: Option<&str>| {
            let all: Vec<&str> = annotations.iter().copied().chain(extra).collect();
            uncalled(&all, lines)
        };
        let (private, public) = (with(Some(private)), with(public));
        let severity = |text: &str| {
            let (found, message) = crate::lint_text("svc.yaml", text, &profile, rule);
            assert_eq!(found.len(), 1, "{provider} {found:?} {message}\n{text}");
            found[0].1.clone()
        };
        assert_eq!(severity(&private), "warning", "{provider} private");
        assert_eq!(severity(&public), "note", "{provider} public");
    }
    // TKE001 judges private CLBs only: a warning with no caller; a public CLB is not its case.
    let tke = crate::profile_with("tke", ipvs);
    let subnet = "service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-8a1b2c3d";
    let (found, _) = crate::lint_text("svc.yaml", &uncalled(&[subnet], &[]), &tke, "TKE001");
    assert_eq!(found, crate::one("TKE001", "warning", 7, 5));
}

/// The lead fits about two terminal lines; the reasoning is the help's (issue 29 item 3).
/// The first sentence of each finding of the rules that used to run to 400-970 characters,
/// on their fixtures: at most 260 characters (long object names and addresses included).
#[test]
fn leads_fit_about_two_lines() {
    let runs: [&[&str]; 7] = [
        &["--profile", PROFILE, "examples/manifests", CALLS],
        &[
            "--no-config",
            "testdata/eks/nlb-in-tree.yaml",
            "testdata/eks/nlb-instance.yaml",
        ],
        &["--no-config", "testdata/proxy"],
        &["--no-config", "testdata/model"],
        &[
            "--profile",
            "testdata/ack/profile-ack-ipvs.yaml",
            "testdata/ack",
        ],
        &[
            "--profile",
            "testdata/vke/profile-unknown.yaml",
            "testdata/vke",
        ],
        &["--no-config", "testdata/hairpin"],
    ];
    let shortened = [
        "TKE001",
        "EKS001",
        "DOKS001",
        "HETZNER001",
        "OPENSTACK001",
        "SCALEWAY001",
        "LKE001",
        "CLOUDSCALE001",
        "OKE003",
        "K8S001",
        "ACK001",
        "CCE001",
        "K8S013",
        "VKE003",
        "VKE004",
        "AKS001",
        "GKE001",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for args in runs {
        let (_, report) = check_json(&[args, &["--fail-on", "never"][..]].concat());
        for d in report["diagnostics"].as_array().unwrap() {
            let rule = d["rule"].as_str().unwrap();
            if !shortened.contains(&rule) {
                continue;
            }
            let message = d["message"].as_str().unwrap();
            let first = message.split(". ").next().unwrap();
            assert!(first.chars().count() <= 260, "{rule}: {message}");
            seen.insert(rule.to_string());
        }
    }
    assert!(seen.len() >= 10, "{seen:?}");
}

/// A host that two installs of ingress-nginx both serve (class nginx, each behind its own
/// private CLB): one K8S001 warning at the call naming both Services and
/// `spec.ingressControllers`, no TKE001 error charged to either; once the profile names
/// one, the call is that CLB's alone (TKE001 error) and K8S001 is silent.
#[test]
fn a_host_of_two_equal_load_balancers_is_reported_once_and_charged_to_none() {
    let file = "testdata/verdicts/two-ingress-nginx.yaml";
    let unstated = "testdata/model/controllers/profile-tke-ipvs.yaml";
    // Both CLBs are private: a TKE001 each, with the call (an error) only once stated.
    let clbs = |second: &str| {
        [
            f("TKE001", "warning", file, 13, 5),
            f("TKE001", second, file, 52, 5),
        ]
    };
    let (_, report) = check_json(&["--no-config", "--profile", unstated, file]);
    let once = f("K8S001", "warning", file, 142, 47);
    assert_eq!(findings(&report), [&clbs("warning")[..], &[once]].concat());
    let d = &report["diagnostics"][2];
    assert_eq!(
        d["message"],
        "Deployment/shop/billing calls api.corp.example.com, a host that \
         Service/ingress-nginx/ingress-nginx-controller and \
         Service/ingress-nginx-v2/ingress-nginx-controller both serve: the profile's \
         `spec.ingressControllers` says which load balancer it reaches."
    );
    let related = crate::related_at(d);
    assert_eq!(related, [(10, 9), (49, 9)]);
    // The evidence view still shows the call under each candidate.
    let model = crate::lblint(&["model", "--format", "json", "--profile", unstated, file]);
    let model: serde_json::Value = serde_json::from_str(&model.stdout).unwrap();
    let shown: Vec<usize> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["object"]["name"] == "ingress-nginx-controller")
        .map(|e| e["callers"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(shown, [1, 1]);
    let named = "testdata/verdicts/profile-names-controller.yaml";
    let (_, report) = check_json(&["--no-config", "--profile", named, file]);
    assert_eq!(findings(&report), clbs("error"));
}
