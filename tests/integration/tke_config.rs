//! TKE007–TKE014: TkeServiceConfig integrity and the trade-off notes (testdata/tke/config-*,
//! testdata/tke/tradeoff-*).

use crate::{check_json, f, findings};

const MINE: &str = "TKE007,TKE008,TKE009,TKE010,TKE011,TKE012,TKE013,TKE014";

fn lint(fixture: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let path = format!("testdata/tke/{fixture}.yaml");
    // TKE's rules at full severity need a TKE profile (with none, at most warnings).
    let mut args = vec![
        "--select",
        MINE,
        "--profile",
        "testdata/tke/profile-tke.yaml",
    ];
    args.extend_from_slice(extra);
    args.push(&path);
    check_json(&args)
}

fn file(fixture: &str) -> String {
    format!("testdata/tke/{fixture}.yaml")
}

/// (line, column, message) of a diagnostic's related locations.
fn related(d: &serde_json::Value) -> Vec<(u64, u64, String)> {
    d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["column"].as_u64().unwrap(),
                r["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn text<'a>(d: &'a serde_json::Value, key: &str) -> &'a str {
    d[key].as_str().unwrap_or_else(|| panic!("no {key}: {d}"))
}

#[test]
fn missing_config_is_a_note_and_another_namespace_an_error() {
    let (code, report) = lint("config-missing", &[]);
    let path = file("config-missing");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE007", "note", &path, 10, 51),
            f("TKE007", "error", &path, 24, 51),
            f("TKE007", "note", &path, 49, 51),
        ]
    );
    let ds = &report["diagnostics"];
    // The note names the namespace the config must be in; the object is the Service.
    assert!(text(&ds[0], "message").contains("must exist in namespace `shop`"));
    assert_eq!(ds[0]["object"]["kind"], "Service");
    assert_eq!(ds[0]["object"]["name"], "web");
    assert_eq!(ds[0]["end_column"], 58);
    // The error points at the config's namespace.
    assert!(text(&ds[1], "message").contains("is in namespace `infra`, not `shop`"));
    assert_eq!(
        related(&ds[1]),
        vec![(
            36,
            14,
            "TkeServiceConfig `api-clb` is in namespace `infra`".to_string()
        )]
    );
    assert!(text(&ds[1], "help").contains("set `metadata.namespace: shop`"));
    assert!(ds[1]["fix"].is_null());
    assert_eq!(ds[2]["object"]["kind"], "Ingress");
    assert!(text(&ds[2], "help").contains("457/37015"));
    // `cart` uses an auto config: the controller creates it, nothing to report.
    assert!(!report.to_string().contains("cart"));
}

#[test]
fn manual_and_auto_together_is_an_error_on_the_auto_key() {
    let (code, report) = lint("config-both", &[]);
    let path = file("config-both");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE008", "error", &path, 9, 5),
            f("TKE008", "error", &path, 34, 5)
        ]
    );
    let ds = &report["diagnostics"];
    assert_eq!(
        related(&ds[0]),
        vec![(8, 5, "the manual TkeServiceConfig reference".to_string())]
    );
    assert_eq!(
        related(&ds[1]),
        vec![(35, 5, "the manual TkeServiceConfig reference".to_string())]
    );
    assert!(text(&ds[0], "help").contains("`web-auto-service-config`"));
    assert!(text(&ds[1], "help").contains("`site-auto-ingress-config`"));
    assert!(ds[0]["fix"].is_null());
}

#[test]
fn reserved_suffix_on_a_manual_name_is_an_error() {
    let (code, report) = lint("config-reserved", &[]);
    let path = file("config-reserved");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE009", "error", &path, 8, 51),
            f("TKE009", "error", &path, 33, 51)
        ]
    );
    let ds = &report["diagnostics"];
    assert_eq!(
        related(&ds[0]),
        vec![(19, 9, "the TkeServiceConfig to rename".to_string())]
    );
    assert!(text(&ds[0], "help").contains("`web-config`"));
    // Either suffix is reserved, whichever kind of object names it.
    assert!(text(&ds[1], "message").contains("`-auto-ingress-config`"));
    assert!(text(&ds[1], "help").contains("`shared-config`"));
}

#[test]
fn unmatched_listener_sections_are_warnings_at_their_port_key() {
    let (code, report) = lint("config-unmatched", &[]);
    let path = file("config-unmatched");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            // TCP:8080 and UDP:443 match no port (80/TCP, 443/TCP); TCP:80 does.
            f("TKE010", "warning", &path, 31, 9),
            f("TKE010", "warning", &path, 33, 9),
            // HTTPS:8443: the Ingress with TLS has HTTP:80 and HTTPS:443 only.
            f("TKE010", "warning", &path, 65, 9),
            // HTTPS:443 on the auto config of an Ingress without TLS.
            f("TKE010", "warning", &path, 90, 9),
        ]
    );
    let ds = &report["diagnostics"];
    assert_eq!(ds[0]["object"]["kind"], "TkeServiceConfig");
    assert_eq!(ds[0]["object"]["name"], "web-clb");
    assert!(text(&ds[1], "message").contains("entry UDP:443"));
    assert!(text(&ds[1], "message").contains("(TCP:80, TCP:443)"));
    assert_eq!(
        related(&ds[0]),
        vec![
            (13, 3, "the ports of Service `web`".to_string()),
            (
                8,
                51,
                "Service `web` uses this TkeServiceConfig".to_string()
            ),
        ]
    );
    assert_eq!(
        related(&ds[2])[0],
        (
            43,
            3,
            "Ingress `site` gets the CLB listeners HTTP:80, HTTPS:443".to_string()
        )
    );
    assert!(text(&ds[3], "help").contains("HTTP:80"));
    assert!(text(&ds[3], "help").contains("457/37015"));
}

#[test]
fn unused_configs_are_notes_and_do_not_fail_by_default() {
    let (code, report) = lint("config-unused", &[]);
    let path = file("config-unused");
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE011", "note", &path, 5, 9),
            f("TKE011", "note", &path, 16, 9)
        ]
    );
    let ds = &report["diagnostics"];
    assert!(text(&ds[1], "message").contains("auto config of Service `old`"));
    let (code, _) = lint("config-unused", &["--fail-on", "note"]);
    assert_eq!(code, 1);
}

#[test]
fn clean_configs_have_no_finding_from_any_rule() {
    let (code, report) = check_json(&["--fail-on", "note", &file("config-clean")]);
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn udp_snat_is_a_note_and_tcp_snat_is_not_reported() {
    let (code, report) = lint("tradeoff-udp-snat", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![f("TKE012", "note", &file("tradeoff-udp-snat"), 35, 9)]
    );
    let d = &report["diagnostics"][0];
    assert!(text(d, "message").contains("UDP listener UDP:53"));
    assert!(text(d, "help").contains("Proxy Protocol"));
    assert!(text(d, "help").contains("prevent-loopback"));
    assert_eq!(
        related(d),
        vec![(
            9,
            51,
            "Service `dns` uses this TkeServiceConfig".to_string()
        )]
    );
}

#[test]
fn l7_snat_with_either_field_is_a_note() {
    let (code, report) = lint("tradeoff-l7-snat", &["--fail-on", "note"]);
    let path = file("tradeoff-l7-snat");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE013", "note", &path, 29, 9),
            f("TKE013", "note", &path, 32, 9)
        ]
    );
    let ds = &report["diagnostics"];
    assert!(text(&ds[0], "message").starts_with("`snatEnable: true`"));
    assert!(text(&ds[1], "message").starts_with("`keepaliveEnable: 1`"));
    assert!(text(&ds[0], "help").contains("X-Forwarded-For"));
    assert!(text(&ds[0], "help").contains("IP segment"));
}

#[test]
fn prevent_loopback_notes_the_clb_settings_it_bypasses() {
    let (code, report) = lint("tradeoff-prevent-loopback", &[]);
    assert_eq!(code, 0);
    // `billing` has its features turned off, `storefront` is a public CLB: not reported.
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE014",
            "note",
            &file("tradeoff-prevent-loopback"),
            9,
            5
        )]
    );
    let d = &report["diagnostics"][0];
    assert_eq!(d["object"]["name"], "orders");
    assert!(text(d, "message").contains("health check, scheduler, session persistence"));
    assert_eq!(
        related(d)
            .into_iter()
            .map(|(l, c, _)| (l, c))
            .collect::<Vec<_>>(),
        vec![(28, 9), (31, 9), (34, 9)]
    );
    assert!(text(d, "help").contains("snatEnable: true"));
}

#[test]
fn rules_stay_quiet_for_another_provider() {
    let path = file("config-missing");
    for profile in ["testdata/profile/vke.yaml", "testdata/profile/minimal.yaml"] {
        // Another cloud, and `provider: generic` (none of the named clouds).
        let (code, report) = check_json(&["--select", MINE, "--profile", profile, &path]);
        assert_eq!((code, findings(&report)), (0, vec![]), "{profile}");
    }
    // No profile: the TKE annotations say it is TKE's, at most a warning.
    let (_, report) = check_json(&["--select", MINE, &path]);
    let severities: Vec<String> = findings(&report).into_iter().map(|f| f.1).collect();
    assert_eq!(severities, ["note", "warning", "note"]);
    assert!(report.to_string().contains("no profile given"));
}

#[test]
fn unset_namespace_false_auto_and_other_ingress_classes_are_not_reported() {
    let (code, report) = lint("config-edge", &["--fail-on", "note"]);
    assert_eq!((code, findings(&report)), (0, vec![]));
}
