use std::collections::BTreeSet;

use serde_json::Value;

use super::model::Spec;
use super::*;

fn fixture(name: &str) -> (String, String) {
    let path = format!("testdata/profile/{name}");
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    (text, path)
}

fn ok(name: &str) -> Profile {
    let (text, path) = fixture(name);
    parse_profile(&text, &path).unwrap_or_else(|e| panic!("{name} should parse:\n{e}"))
}

fn err(name: &str) -> crate::settings::SettingsError {
    let (text, path) = fixture(name);
    match parse_profile(&text, &path) {
        Ok(p) => panic!("{name} should fail, got {p:?}"),
        Err(e) => e,
    }
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

mod providers;
mod schema;
mod template;

// ---- valid profiles -------------------------------------------------------------------

#[test]
fn tke_ipvs_profile() {
    let p = ok("tke-ipvs.yaml");
    assert_eq!(p.name.as_deref(), Some("prod-guangzhou"));
    assert_eq!(p.path.as_deref(), Some("testdata/profile/tke-ipvs.yaml"));
    let s = &p.spec;
    assert_eq!(s.provider, Provider::Tke);
    assert_eq!(s.kubernetes_version.as_deref(), Some("1.30.2"));
    let kp = s.kube_proxy.as_ref().unwrap();
    assert_eq!(kp.mode, Some(ProxyMode::Ipvs));
    assert_eq!(kp.lb_address_binding, Some(true));
    assert_eq!(
        version::parse_version(kp.version.as_deref().unwrap()),
        version::parse_version("v1.30.2-tke.3")
    );
    let pools = s.node_pools.as_ref().unwrap();
    assert_eq!(pools.len(), 2);
    assert_eq!(pools[0].node_type, Some(NodeType::Regular));
    assert_eq!(pools[0].taints.as_deref(), Some(&[][..]));
    assert_eq!(pools[1].node_type, Some(NodeType::Super));
    assert_eq!(
        pools[1].labels.as_ref().unwrap()["node.kubernetes.io/instance-type"],
        "eklet"
    );
    let taint = &pools[1].taints.as_ref().unwrap()[0];
    assert_eq!(
        taint.key.as_deref(),
        Some("eks.tke.cloud.tencent.com/eklet")
    );
    assert_eq!(taint.value, None);
    assert_eq!(taint.effect, Some(TaintEffect::NoSchedule));
    let al = s.allowlists.as_ref().unwrap();
    assert_eq!(
        (al.clb_l4_snat, al.clb_l7_snat, al.clb_keep_alive),
        (Some(true), Some(false), Some(false))
    );
    assert_eq!(
        s.addons.as_ref().unwrap().ingress_controller.as_deref(),
        Some("v2.9.1")
    );
    let lbs = s.load_balancers.as_ref().unwrap();
    assert_eq!(
        lbs[0].object,
        Some(ObjectKey {
            kind: "Service".into(),
            namespace: "istio-system".into(),
            name: "istio-ingressgateway".into()
        })
    );
    assert_eq!(
        lbs[0].addresses.as_deref().unwrap(),
        ["47.100.1.2", "gw.example.com"]
    );
    assert_eq!(
        lbs[1].object.as_ref().unwrap().to_string(),
        "Ingress/web/frontend"
    );
    // Unset facts stay unknown.
    assert_eq!(s.network.as_ref().unwrap().eni_direct, None);
    assert_eq!(s.addons.as_ref().unwrap().cloud_controller_manager, None);
}

#[test]
fn vke_profile() {
    let s = ok("vke.yaml").spec;
    assert_eq!(s.provider, Provider::Vke);
    let n = s.network.as_ref().unwrap();
    assert_eq!(n.pod_interface.as_deref(), Some("ipvlan"));
    assert_eq!(n.service_forwarding.as_deref(), Some("ebpf"));
    assert_eq!(s.kube_proxy.as_ref().unwrap().mode, Some(ProxyMode::Ebpf));
    assert_eq!(
        s.addons.unwrap().cloud_controller_manager.as_deref(),
        Some("v1.43.0")
    );
    assert_eq!(s.allowlists, None);
}

#[test]
fn ack_profile() {
    let s = ok("ack.yaml").spec;
    assert_eq!(s.provider, Provider::Ack);
    assert_eq!(s.network.as_ref().unwrap().eni_direct, Some(true));
    let taint = &s.node_pools.as_ref().unwrap()[0].taints.as_ref().unwrap()[0];
    assert_eq!(taint.value.as_deref(), Some("gateway"));
    assert_eq!(taint.effect, Some(TaintEffect::NoExecute));
    assert_eq!(
        s.load_balancers.unwrap()[0].object.as_ref().unwrap().kind,
        "IstioGateway"
    );
}

#[test]
fn minimal_profile_is_all_unknown() {
    let p = ok("minimal.yaml");
    assert_eq!(p.name, None);
    assert_eq!(p.spec, Spec::unknown(Provider::Generic));
}

#[test]
fn generic_profile_is_all_unknown() {
    let g = generic();
    assert_eq!(g.spec, Spec::unknown(Provider::Generic));
    assert_eq!((g.name, g.path), (None, None));
}

#[test]
fn yaml_11_booleans_are_accepted() {
    // Kubernetes (go-yaml v2) reads `yes`/`off` as booleans; so do we.
    let text = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: ack\n  \
                network: {eniDirect: yes}\n  allowlists: {clbL4Snat: off}\n";
    let s = parse_profile(text, "p.yaml").unwrap().spec;
    assert_eq!(s.network.unwrap().eni_direct, Some(true));
    assert_eq!(s.allowlists.unwrap().clb_l4_snat, Some(false));
}

#[test]
fn unquoted_versions_and_null_sections() {
    let text =
        "\u{FEFF}apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: tke\n  \
                kubernetesVersion: 1.30\n  addons:\n";
    let s = parse_profile(text, "p.yaml").unwrap().spec;
    // Kept as written, not as the float 1.3.
    assert_eq!(s.kubernetes_version.as_deref(), Some("1.30"));
    assert_eq!(s.addons, None);
}

// ---- errors ---------------------------------------------------------------------------

/// (fixture, line, column, snapshot name)
const ERRORS: &[(&str, usize, usize, &str)] = &[
    ("err-unknown-field.yaml", 5, 15, "profile_err_unknown_field"),
    (
        "err-unknown-top.yaml",
        3,
        1,
        "profile_err_unknown_top_field",
    ),
    ("err-bad-enum.yaml", 6, 11, "profile_err_bad_enum"),
    ("err-many.yaml", 6, 22, "profile_err_many"),
    ("err-bad-provider.yaml", 4, 13, "profile_err_bad_provider"),
    ("err-taint-effect.yaml", 8, 63, "profile_err_taint_effect"),
    (
        "err-node-pools-map.yaml",
        5,
        14,
        "profile_err_wrong_type_list",
    ),
    ("err-bool-maybe.yaml", 7, 23, "profile_err_wrong_type_bool"),
    ("err-object-format.yaml", 6, 15, "profile_err_object_format"),
    ("err-object-kind.yaml", 6, 15, "profile_err_object_kind"),
    ("err-api-version.yaml", 1, 13, "profile_err_api_version"),
    ("err-not-a-profile.yaml", 1, 13, "profile_err_not_a_profile"),
    ("err-kind.yaml", 2, 7, "profile_err_kind"),
    ("err-syntax.yaml", 5, 12, "profile_err_syntax"),
    (
        "err-missing-provider.yaml",
        4,
        3,
        "profile_err_missing_provider",
    ),
    ("err-missing-spec.yaml", 1, 1, "profile_err_missing_spec"),
    ("err-duplicate-key.yaml", 5, 3, "profile_err_duplicate_key"),
    ("err-empty.yaml", 1, 1, "profile_err_empty"),
    ("err-comments-only.yaml", 1, 1, "profile_err_comments_only"),
    ("err-not-mapping.yaml", 1, 1, "profile_err_not_mapping"),
    ("err-two-docs.yaml", 6, 1, "profile_err_two_documents"),
    ("err-cce-flavour.yaml", 5, 15, "profile_err_cce_flavour"),
    ("err-ccm-option.yaml", 8, 7, "profile_err_ccm_option"),
    ("err-webhook-type.yaml", 7, 30, "profile_err_webhook_type"),
];

#[test]
fn errors_are_located_and_snapshotted() {
    for &(file, line, column, snap) in ERRORS {
        let e = err(file);
        assert_eq!(
            (e.line, e.column),
            (line, column),
            "{file}: wrong place for\n{e}"
        );
        assert!(e.is_located());
        assert_eq!(e.path, format!("testdata/profile/{file}"));
        // The byte range agrees with line/column.
        let before = &e.source_text()[..e.offset];
        assert_eq!(
            before.matches('\n').count() + 1,
            line,
            "{file}: offset line"
        );
        snapshot!(snap, e.to_string());
    }
}

#[test]
fn every_error_fixture_is_covered() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/profile");
    let mut listed: BTreeSet<&str> = ERRORS.iter().map(|e| e.0).collect();
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with("err-") {
            assert!(listed.remove(name.as_str()), "{name} has no ERRORS entry");
        } else {
            ok(&name);
        }
    }
    assert!(listed.is_empty(), "missing fixtures: {listed:?}");
}

#[test]
fn error_spans_cover_the_offending_text() {
    let span = |file| {
        let e = err(file);
        e.source_text()[e.offset..e.offset + e.len].to_owned()
    };
    assert_eq!(span("err-unknown-field.yaml"), "mod");
    assert_eq!(span("err-bad-enum.yaml"), "ipvss");
    assert_eq!(span("err-bool-maybe.yaml"), "\"maybe\"");
    assert_eq!(
        span("err-object-kind.yaml"),
        "Servce/istio-system/istio-ingressgateway"
    );
    assert_eq!(span("err-api-version.yaml"), "lblint.dev/v1");
}

#[test]
fn miette_rendering() {
    let e = err("err-unknown-field.yaml");
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut out, &e.diagnostic())
        .unwrap();
    snapshot!("profile_err_unknown_field_miette", out);
}

#[test]
fn unreadable_file_is_an_error() {
    let e = load_profile(std::path::Path::new("testdata/profile/no-such-file.yaml")).unwrap_err();
    assert!(!e.is_located());
    let shown = e.to_string();
    assert!(
        shown.starts_with("testdata/profile/no-such-file.yaml: cannot read profile: "),
        "{shown}"
    );
    let dir = load_profile(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
    assert!(dir.message.starts_with("cannot read profile"), "{dir}");
}

#[test]
fn load_profile_reads_files() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/profile/vke.yaml");
    let p = load_profile(&path).unwrap();
    assert_eq!(p.spec.provider, Provider::Vke);
    // Shown relative to the working directory (the crate root under cargo test), as
    // every other file is.
    assert_eq!(p.path.as_deref(), Some("testdata/profile/vke.yaml"));
}

#[test]
fn hostile_profiles_are_refused_cheaply() {
    let head = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: tke\n";
    // Billion laughs: nine levels of ten aliases each.
    let mut bomb = String::from(head);
    bomb.push_str("  network:\n    cni: &a0 x\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        let refs = [prev.as_str(); 10].join(", ");
        bomb.push_str(&format!("x{i}: &a{i} [{refs}]\n"));
    }
    bomb.push_str("y: [*a9, *a9, *a9]\n");
    let started = std::time::Instant::now();
    let e = parse_profile(&bomb, "bomb.yaml").unwrap_err();
    assert!(e.message.contains("safety limits"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));

    let deep = format!(
        "{head}  labels: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = parse_profile(&deep, "deep.yaml").unwrap_err();
    assert!(e.is_located(), "{e}");
    assert_eq!(e.message, "profile is nested too deeply");

    let huge = format!("{head}#{}\n", "x".repeat(MAX_PROFILE_BYTES));
    let e = parse_profile(&huge, "huge.yaml").unwrap_err();
    assert!(e.message.contains("too large"), "{e}");
}

// ---- schema ---------------------------------------------------------------------------

pub(super) fn yaml_to_json(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("valid YAML")
}

/// Validate against the profile schema with a real draft-07 validator.
pub(super) fn check_schema(v: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(schema)
        .map_err(|e| format!("schema does not compile: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{at}{}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

#[test]
fn more_located_type_errors() {
    let head = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\n";
    let cases: &[(&str, usize, usize, &str)] = &[
        // A missing field is reported where its mapping starts, not at its last key.
        (
            "spec:\n  kubernetesVersion: \"1\"\n  addons: {}\n",
            4,
            3,
            "missing field `provider` in `spec`",
        ),
        (
            "spec:\n  provider: tke\n  network:\n    cni: [a]\n",
            6,
            10,
            "`cni` must be a string, found a list",
        ),
        (
            "spec:\n  provider: tke\n  kubeProxy: ipvs\n",
            5,
            14,
            "`kubeProxy` must be a mapping, found `ipvs`",
        ),
        ("spec: tke\n", 3, 7, "`spec` must be a mapping, found `tke`"),
        (
            "spec:\n  provider: tke\n  loadBalancers:\n  - object: 5\n",
            6,
            13,
            "invalid object `5`: expected `Kind/namespace/name` (1 part found)",
        ),
    ];
    for &(body, line, column, message) in cases {
        let e = parse_profile(&format!("{head}{body}"), "p.yaml").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (line, column, message),
            "{body}"
        );
    }
}

#[test]
fn a_fact_names_its_field_and_where_the_profile_states_it() {
    let text = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: tke\n  \
                kubeProxy:\n    mode: ipvs\n";
    let profile = parse_profile(text, "cluster.yaml").unwrap();
    let mode = profile.kube_proxy_mode();
    assert_eq!(mode.value, Some(ProxyMode::Ipvs));
    assert_eq!(mode.field(), "spec.kubeProxy.mode");
    assert_eq!(mode.at(), " (cluster.yaml:6)");
    assert_eq!(mode.location().map(|l| l.span.start.column), Some(11));
    let version = profile.kubernetes_version();
    assert_eq!(version.value, None);
    assert_eq!(version.at(), "");
    assert_eq!(
        version.unknown("needed for ipMode"),
        "`spec.kubernetesVersion` (needed for ipMode)"
    );
}
