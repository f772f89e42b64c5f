//! `check --render` review fixes (issue 32): findings on the right template document,
//! components never rendered alone, the pre-commit count of rendered files, the time
//! budget over a tool's children, and kustomize's messages in the user's paths.

use crate::render::{
    check_staged, compact_lines, crate_root, need_kubectl, render_compact, run_with_path, stand_in,
    PROFILE, TREE,
};

/// Several objects of one kind from one template: each finding lands in the document that
/// rendered its object (by order when the counts agree, by name under a `range`).
#[test]
fn findings_land_in_the_template_document_of_their_object() {
    let rendered = crate_root().join("testdata/render/helm-docs-rendered.yaml");
    let helm = stand_in(
        "helm",
        &format!(
            "[ \"$1\" = template ] || exit 0\n/bin/cat '{}'\n",
            rendered.display()
        ),
    );
    let args = ["--select", "K8S002", "testdata/render/helm-docs"];
    let run = render_compact(crate_root(), &[helm.path()], &args);
    let at = |file: &str, line: u32, name: &str| {
        format!("testdata/render/helm-docs/web/templates/{file}:{line}:5: error[K8S002] annotation `flag: true` on Service/{name} is not a string: Kubernetes (YAML 1.1) reads `true` as the boolean true, and annotation values must be strings, so the API server rejects the object.")
    };
    assert_eq!(
        compact_lines(&run),
        [
            at("range.yaml", 8, "release-name-a"),
            at("range.yaml", 8, "release-name-b"),
            at("range.yaml", 19, "release-name-edge"),
            at("svc.yaml", 16, "release-name-web"),
        ],
        "{}",
        run.stderr
    );
}

/// A `Component` no walked kustomization includes is not a root: kustomize cannot build
/// it alone, so it is not run, and its files are linted as they are.
#[test]
fn a_component_alone_is_not_rendered() {
    let never = stand_in("kubectl", "echo called >&2\nexit 99\n");
    let run = render_compact(
        crate_root(),
        &[never.path()],
        &["testdata/render/component"],
    );
    assert_eq!(
        compact_lines(&run),
        ["testdata/render/component/lb.yaml:7:11: error[K8S002] annotation `flag: yes` on Service/orders is not a string: Kubernetes (YAML 1.1) reads `yes` as the boolean true, and annotation values must be strings, so the API server rejects the object. Quoted, the value Kubernetes sees becomes the string \"yes\", not \"true\": \"true\" was probably meant."],
        "{}",
        run.stderr
    );
}

/// `check --render --context DIR FILE` (the lblint-render hook), FILE a base file that
/// every root replaces: `FILE`, not its roots, is the linted file, rendered or not.
#[test]
fn a_staged_file_that_a_render_replaces_counts_as_linted() {
    let failing = stand_in("kubectl", "echo 'error: boom' >&2\nexit 7\n");
    let (run, report) = check_staged(&[failing.path()], "base/orders.yaml");
    assert!(!run.stderr.contains("no files to lint"), "{}", run.stderr);
    assert_eq!(report["summary"]["files"], 1);
    let failures: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}", d["rule"], d["file"]))
        .collect();
    assert_eq!(
        failures,
        [
            format!("\"LBL008\" \"{TREE}/overlays/dev/kustomization.yaml\""),
            format!("\"LBL008\" \"{TREE}/overlays/prod/kustomization.yaml\""),
        ],
        "the roots the staged file feeds failed: said, not dropped"
    );
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let (run, report) = check_staged(&[kubectl.parent().unwrap()], "base/orders.yaml");
    assert!(!run.stderr.contains("no files to lint"), "{}", run.stderr);
    assert_eq!(report["summary"]["files"], 1);
    assert_eq!(report["diagnostics"].as_array().unwrap().len(), 2);
}

/// A kubectl wrapper that leaves `sleep 30` in the background, which would then write a
/// file: lblint does not wait for it (the render ends when the tool exits) and kills it
/// before it writes; a wrapper still running at the budget of 1 s is stopped with its
/// background child.
#[test]
fn a_tool_that_leaves_a_background_child_neither_blocks_nor_leaks_it() {
    let tmp = tempfile::tempdir().unwrap();
    let pid = tmp.path().join("pid");
    let config = tmp.path().join("lblint.yaml");
    std::fs::write(&config, "render:\n  timeout: 1\n").unwrap();
    let alive = || {
        let pid = std::fs::read_to_string(&pid).unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
        stat.is_ok_and(|s| !s.rsplit(')').next().unwrap().trim_start().starts_with('Z'))
    };
    for (tail, timed_out) in [("exit 0", false), ("exec /bin/sleep 30", true)] {
        let done = tmp.path().join("done");
        let script = format!(
            "(/bin/sleep 30 && : > '{}') &\necho $! > '{}'\n{tail}\n",
            done.display(),
            pid.display()
        );
        let kubectl = stand_in("kubectl", &script);
        let args = ["check", "--render", "--format", "compact", "--config"];
        let mut args = args.to_vec();
        args.extend([config.to_str().unwrap(), TREE]);
        let run = run_with_path(crate_root(), &[kubectl.path()], &args);
        let stopped = run.stdout.contains("ran over the time budget of 1 s");
        assert_eq!(stopped, timed_out, "{}", run.stdout);
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!alive(), "the background sleep outlived lblint ({tail})");
        assert!(
            !done.exists(),
            "lblint waited for the background sleep ({tail})"
        );
    }
}

/// kustomize's error names the root the way lblint's wrapper listed it; the message shows
/// it from the working directory instead (the wrapper is deleted), and the finding is at
/// the entry that names the missing file. Behaviour, not one kustomize's wording.
#[test]
fn kustomize_errors_quote_the_users_paths() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let root = "testdata/render/broken/ov";
    let run = render_compact(crate_root(), &[kubectl.parent().unwrap()], &[root]);
    let lines = compact_lines(&run);
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let at = format!("{root}/kustomization.yaml:2:3: error[LBL008] Kustomization not rendered: `kubectl kustomize` failed (exit code 1): ");
    assert!(lines[0].starts_with(&at), "{}", lines[0]);
    assert!(lines[0].contains(&format!("'{root}'")), "{}", lines[0]);
    let wrapper_view = format!("..{}/", crate_root().display());
    assert!(!lines[0].contains(&wrapper_view), "{}", lines[0]);
    assert!(lines[0].contains("'../missing.yaml'"), "{}", lines[0]);
}

/// A key the base lacks and an overlay's patch adds: the finding lands in the patch file,
/// and a suppression comment there holds for it.
#[test]
fn findings_on_keys_a_patch_adds_land_in_the_patch() {
    let Some(kubectl) = need_kubectl() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let copy = std::process::Command::new("cp")
        .args(["-r", "testdata/render/patched"])
        .arg(tmp.path())
        .current_dir(crate_root())
        .status()
        .unwrap();
    assert!(copy.success());
    let profile = crate_root().join(PROFILE);
    let bin = kubectl.parent().unwrap();
    let args = ["--profile", profile.to_str().unwrap(), "patched"];
    let run = render_compact(tmp.path(), &[bin], &args);
    assert_eq!(
        compact_lines(&run),
        ["patched/overlay/internal.yaml:7:5: warning[TKE001] Private-network CLB Service `prod-orders` will loop back in-cluster calls to its own address. No in-cluster caller of its address is visible in these manifests. The load balancer is private, so its callers are in this cluster even if not in these files: add `service.cloud.tencent.com/prevent-loopback: \"true\"` or SNAT on its layer-4 listeners (help), or, if nothing in the cluster calls it, suppress this with a reason (`# lblint: ignore[TKE001] <why nothing calls it>`)."],
        "{}",
        run.stderr
    );
    let patch = tmp.path().join("patched/overlay/internal.yaml");
    let text = std::fs::read_to_string(&patch).unwrap().replace(
        "    service.kubernetes.io/qcloud",
        "    # lblint: ignore[TKE001] only called through the VPN\n    service.kubernetes.io/qcloud",
    );
    std::fs::write(&patch, text).unwrap();
    let run = render_compact(tmp.path(), &[bin], &args);
    assert_eq!(compact_lines(&run), Vec::<&str>::new(), "{}", run.stderr);
}
