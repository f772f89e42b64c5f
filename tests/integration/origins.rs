//! SARIF locations that resolve (README, "Output formats"): where `%SRCROOT%` is, links to
//! related locations, and the template a rendered object came from (kustomize by its
//! overlay, Helm by its chart, in the chart roots named with `--chart-root` or `chartRoots`
//! first). Every log is validated against the SARIF 2.1.0 schema where a template is linked.

use serde_json::Value;

use crate::sarif::valid_sarif;

const PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/tke/profile-ipvs-regular.yaml"
);
const HELM: &str = "testdata/origins/helm/rendered.yaml";

/// The run says where `%SRCROOT%` is and which lblint wrote it; a result
/// links its related locations from the message (GitHub shows them only so); standard
/// input without `--stdin-filename` is no artifact.
#[test]
fn sarif_base_ids_version_links_and_stdin() {
    let input = std::fs::read("testdata/tke/private-with-caller.yaml").unwrap();
    let run = crate::lblint_stdin(
        &[
            "check",
            "--format",
            "sarif",
            "--profile",
            "testdata/tke/profile-ipvs-regular.yaml",
            "-",
        ],
        Some(&input),
    );
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    let root = run0["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        root.starts_with("file:///") && root.ends_with('/'),
        "{root}"
    );
    let rule = &run0["tool"]["driver"]["rules"][0]["helpUri"];
    assert!(
        rule.as_str()
            .unwrap()
            .contains(&format!("/blob/v{}/rules/", env!("CARGO_PKG_VERSION"))),
        "{rule}"
    );
    for result in run0["results"].as_array().unwrap() {
        assert!(
            result["locations"][0].get("physicalLocation").is_none(),
            "{result}"
        );
        let text = result["message"]["text"].as_str().unwrap();
        for related in result["relatedLocations"].as_array().into_iter().flatten() {
            let id = related["id"].as_u64().unwrap();
            assert!(text.contains(&format!("]({id})")), "{text}");
        }
        assert!(result["message"]["markdown"].is_string());
    }
}

/// A kustomize origin is relative to the overlay that rendered it; SARIF
/// resolves it by that kustomization to the file that exists, or leaves it out.
#[test]
fn sarif_resolves_kustomize_origins_by_their_overlay() {
    let run = crate::lblint(&[
        "check",
        "--format",
        "sarif",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "testdata/origins/rendered.yaml",
    ]);
    let log = valid_sarif(&run.stdout);
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "TKE001");
    assert_eq!(result["properties"]["origin"], "../../base/orders.yaml");
    let template = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["message"]["text"] == "rendered from this template")
        .expect("the template is linked");
    assert_eq!(
        template["physicalLocation"]["artifactLocation"]["uri"],
        "testdata/origins/base/orders.yaml"
    );
}

/// `lblint check --format sarif --profile PROFILE ARGS` in `dir`: the one TKE001 result,
/// from a log that validates.
fn helm_result(dir: &str, args: &[&str]) -> Value {
    let mut all = vec!["check", "--format", "sarif", "--profile", PROFILE];
    all.extend_from_slice(args);
    let run = crate::lblint_in(dir, &all);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    let log = valid_sarif(&run.stdout);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0]["ruleId"], "TKE001");
    assert_eq!(
        results[0]["properties"]["origin"],
        "orders/templates/service.yaml"
    );
    results[0].clone()
}

/// The template linked from `result` ("rendered from this template"), if any.
fn template(result: &Value) -> Option<&Value> {
    result["relatedLocations"]
        .as_array()?
        .iter()
        .find(|r| r["message"]["text"] == "rendered from this template")
        .map(|r| &r["physicalLocation"]["artifactLocation"])
}

/// The chart `orders` lives in `deploy/chart`, a directory the search by
/// chart name cannot tell from another (and `vendor/orders` is skipped by it): without a
/// chart root the template is left out; with one, the root is the chart itself (its
/// `Chart.yaml` names it) or holds a directory of the chart's name.
#[test]
fn helm_origins_resolve_in_the_chart_roots_named() {
    let without = helm_result(".", &[HELM]);
    assert_eq!(template(&without), None, "{without:#}");
    let relative = |uri: &str| serde_json::json!({"uri": uri, "uriBaseId": "%SRCROOT%"});
    let chart = "testdata/origins/helm/deploy/chart/templates/service.yaml";
    for (args, expected) in [
        (
            ["--chart-root", "testdata/origins/helm/deploy/chart"],
            chart,
        ),
        (
            ["--chart-root", "testdata/origins/helm/vendor"],
            "testdata/origins/helm/vendor/orders/templates/service.yaml",
        ),
        // `chartRoots` in the config, relative to the config file's directory.
        (
            ["--config", "testdata/origins/helm/chart-roots.yaml"],
            chart,
        ),
    ] {
        let result = helm_result(".", &[args[0], args[1], HELM]);
        assert_eq!(template(&result), Some(&relative(expected)), "{args:?}");
    }
    // `--chart-root` is tried before `chartRoots`; a root without the chart is passed by.
    let with = |flag: &str| {
        let config = "testdata/origins/helm/chart-roots.yaml";
        helm_result(".", &["--chart-root", flag, "--config", config, HELM])
    };
    let vendor = "testdata/origins/helm/vendor/orders/templates/service.yaml";
    let result = with("testdata/origins/helm/vendor");
    assert_eq!(template(&result), Some(&relative(vendor)));
    let result = with("testdata/origins");
    assert_eq!(template(&result), Some(&relative(chart)));
}

/// A chart outside the working directory is linked with an absolute `file://` URI, as any
/// file outside it is; `-v` names the chart roots; a `--chart-root` that is no directory is
/// an error (exit 2), a config's is passed by.
#[test]
fn helm_chart_roots_outside_the_working_directory_and_mistyped() {
    let result = helm_result(
        "testdata/tke",
        &[
            "--chart-root",
            "../origins/helm/deploy/chart",
            "../origins/helm/rendered.yaml",
        ],
    );
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    let expected = format!(
        "file://{}/testdata/origins/helm/deploy/chart/templates/service.yaml",
        root.display()
    );
    assert_eq!(
        template(&result),
        Some(&serde_json::json!({ "uri": expected }))
    );
    // -v names the roots; a config's root that is no directory is passed by, and said so.
    let dir = crate::cli::tempdir("chart-roots-gone");
    let config = dir.join("lblint.yaml");
    std::fs::write(&config, "chartRoots: [gone]\n").unwrap();
    let chart = "testdata/origins/helm/deploy/chart";
    let config = config.to_str().unwrap();
    let run = crate::lblint(&[
        "check",
        "-v",
        "--chart-root",
        chart,
        "--config",
        config,
        HELM,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let roots = run
        .stderr
        .lines()
        .find(|l| l.starts_with("lblint: chart roots: "));
    let roots = roots.unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(
        roots.starts_with(&format!("lblint: chart roots: {chart}, ")),
        "{roots}"
    );
    assert!(roots.ends_with("/gone (not found)"), "{roots}");
    std::fs::remove_dir_all(dir).unwrap();
    let run = crate::lblint(&["check", "--chart-root", "testdata/origins/nope", HELM]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "lblint: error: --chart-root testdata/origins/nope: no such directory\n"
    );
}
