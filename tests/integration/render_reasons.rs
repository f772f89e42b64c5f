//! `check --render` (issue 37, item 7): a finding lands in the file to change, and a
//! failed render keeps the tool's reason. A value an overlay's generator merges is shown in
//! that overlay's entry; LBL008 points at the entry that names the missing file the tool's
//! error names; the reason is one whole line in every format (klog's header dropped); a
//! failed render is not also "no files to lint".

use serde_json::Value;

use crate::render::{
    compact_lines, crate_root, need_kubectl, render_compact, run_with_path, stand_in, PROFILE,
};

const BROKEN: &str = "testdata/render/broken";

/// Three roots that name a missing file: in a `resources` entry, a patch entry (kustomize's
/// error then spans lines), and a generator's `files` in a base the root includes.
#[test]
fn a_missing_file_is_reported_at_the_entry_that_names_it() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let bin = kubectl.parent().unwrap();
    let run = render_compact(crate_root(), &[bin], &[BROKEN]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!run.stderr.contains("no files to lint"), "{}", run.stderr);
    let lines = compact_lines(&run);
    let failed =
        "error[LBL008] Kustomization not rendered: `kubectl kustomize` failed (exit code 1): ";
    let expected = [
        (
            "gen-base/kustomization.yaml:5:9",
            "gen-base/missing.properties",
        ),
        ("ov/kustomization.yaml:2:3", "broken/missing.yaml"),
        ("patch/kustomization.yaml:4:5", "patch/missing-patch.yaml"),
    ];
    assert_eq!(lines.len(), expected.len(), "{}", run.stdout);
    for (line, (at, missing)) in lines.iter().zip(expected) {
        assert!(
            line.starts_with(&format!("{BROKEN}/{at}: {failed}")),
            "{line}"
        );
        assert!(line.contains(missing), "{line}");
        assert!(line.contains("no such file or directory"), "{line}");
    }
    // kustomize's patch error quotes its configuration over several lines: the compact
    // line keeps what follows them.
    assert!(
        lines[2].contains("- missing-patch.yaml `: "),
        "{}",
        lines[2]
    );
    // The base's finding names the root that was being rendered.
    let args = ["check", "--render", "--format", "json", "--no-config"];
    let gen = format!("{BROKEN}/gen");
    let run = run_with_path(crate_root(), &[bin], &[&args[..], &[gen.as_str()]].concat());
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let related = &report["diagnostics"][0]["related"][0];
    assert_eq!(related["file"], format!("{gen}/kustomization.yaml"));
    assert_eq!(
        related["message"],
        format!("rendering `{gen}/kustomization.yaml`")
    );
}

/// kubectl 1.32 logs its error through klog (`E1206 ... run.go:72] "command failed"
/// err=<` and tab-indented lines): a stand-in that prints exactly that shape, naming the
/// root as lblint's wrapper lists it. The header goes, the text stays, on one line, with
/// the root shown from the working directory and the finding at the patch entry.
#[test]
fn klog_style_errors_keep_their_text_without_the_header() {
    let patch = crate_root().join(BROKEN).join("patch/missing-patch.yaml");
    let kubectl = stand_in(
        "kubectl",
        &format!(
            "root=$(/bin/sed -n 's/^- \"\\(.*\\)\"$/\\1/p' \"$2/kustomization.yaml\")\n\
             printf 'E1206 04:31:36.474555   24829 run.go:72] \"command failed\" err=<\\n\
             \\taccumulating resources from '\\''%s'\\'': trouble configuring builtin PatchStrategicMergeTransformer with config: `\\n\
             \\tpaths:\\n\\t- missing-patch.yaml\\n\\t`: lstat {}: no such file or directory\\n >\\n' \"$root\" >&2\n\
             exit 1\n",
            patch.display()
        ),
    );
    let root = format!("{BROKEN}/patch");
    let run = render_compact(crate_root(), &[kubectl.path()], &[&root]);
    assert_eq!(
        compact_lines(&run),
        [format!("{root}/kustomization.yaml:4:5: error[LBL008] Kustomization not rendered: `kubectl kustomize` failed (exit code 1): command failed: accumulating resources from '{root}': trouble configuring builtin PatchStrategicMergeTransformer with config: ` paths: - missing-patch.yaml `: lstat {}: no such file or directory.", patch.display())],
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("no files to lint"), "{}", run.stderr);
}

/// `testdata/render/merged`: the base's generator holds the Service's name; the staging
/// overlay's generator (`behavior: merge`) replaces it with the CLB address. The call is
/// shown in the staging entry that sets it, the file to change, not in the base's.
#[test]
fn a_value_an_overlay_generator_merges_is_shown_in_that_overlay() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let tree = "testdata/render/merged";
    let args = ["check", "--render", "--format", "json", "--no-config"];
    let args = [&args[..], &["--profile", PROFILE, tree]].concat();
    let run = run_with_path(crate_root(), &[kubectl.parent().unwrap()], &args);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["diagnostics"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{}", run.stdout);
    let d = &findings[0];
    let at = |v: &Value| {
        format!(
            "{}:{}:{}",
            v["file"].as_str().unwrap(),
            v["line"],
            v["column"]
        )
    };
    assert_eq!(
        (
            d["rule"].as_str().unwrap(),
            d["severity"].as_str().unwrap(),
            at(d)
        ),
        ("TKE001", "error", format!("{tree}/base/orders.yaml:7:5"))
    );
    let call = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["message"]
                .as_str()
                .unwrap()
                .contains("calls the CLB address")
        })
        .unwrap();
    assert_eq!(at(call), format!("{tree}/staging/kustomization.yaml:8:9"));
}
