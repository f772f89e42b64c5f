//! Fix preview (README, "Previewing fixes"): `--diff` prints what `--fix` would write and writes
//! nothing, `--show-fixes` lists each finding's fix, and a fix left out of rendered output
//! names the template to edit.

use crate::cli::tempdir;
use crate::{lblint, lblint_stdin, shown, snapshot};

const EXAMPLES: [&str; 4] = [
    "check",
    "examples/manifests",
    "--profile",
    "examples/profiles/tke-ipvs.yaml",
];

/// Copies of `fixtures` in a fresh folder: (folder as lblint shows it, each copy's path).
fn copies(name: &str, fixtures: &[&str]) -> (String, Vec<std::path::PathBuf>) {
    let dir = tempdir(name);
    let files = fixtures
        .iter()
        .map(|fixture| {
            let target = dir.join(std::path::Path::new(fixture).file_name().unwrap());
            std::fs::copy(fixture, &target).unwrap();
            target
        })
        .collect();
    (shown(&dir), files)
}

fn bytes(files: &[std::path::PathBuf]) -> Vec<Vec<u8>> {
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

const FIXTURES: [&str; 2] = [
    "testdata/tke/annotation-bool.yaml",
    "testdata/tke/private-no-caller.yaml",
];

#[test]
fn diff_prints_the_safe_fixes_and_writes_nothing() {
    let (dir, files) = copies("preview-diff", &FIXTURES);
    let before = bytes(&files);
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        &dir,
    ]);
    assert_eq!(
        run.stdout,
        format!(
            "--- a/{dir}/annotation-bool.yaml
+++ b/{dir}/annotation-bool.yaml
@@ -5,11 +5,11 @@
   name: api
   namespace: shop
   labels:
-    tier: 1
+    tier: \"1\"
   annotations:
     service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111
     service.cloud.tencent.com/prevent-loopback: yes
-    release-date: 2024-01-31
+    release-date: \"2024-01-31\"
 spec:
   type: LoadBalancer
   ports:
"
        )
    );
    // TKE001 in both files and K8S002 on `yes` are unsafe.
    assert_eq!(
        run.stderr,
        "lblint: would fix 2 problems in 1 file (3 more fixes with --unsafe-fixes)\n"
    );
    assert_eq!(run.code, 1);
    assert_eq!(bytes(&files), before, "--diff wrote to a file");
}

/// With --unsafe-fixes the diff is exactly what `--fix --unsafe-fixes` then writes, over
/// several rounds (TKE001 sets the `yes` that K8S002 would have quoted).
#[test]
fn diff_with_unsafe_fixes_is_what_fix_writes() {
    let (dir, files) = copies("preview-unsafe", &FIXTURES);
    let before = bytes(&files);
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        "--unsafe-fixes",
        "--fix",
        &dir,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(bytes(&files), before, "--diff beside --fix wrote to a file");
    assert_eq!(run.stderr, "lblint: would fix 4 problems in 2 files\n");
    assert_eq!(
        run.stdout,
        format!(
            "--- a/{dir}/annotation-bool.yaml
+++ b/{dir}/annotation-bool.yaml
@@ -5,11 +5,11 @@
   name: api
   namespace: shop
   labels:
-    tier: 1
+    tier: \"1\"
   annotations:
     service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111
-    service.cloud.tencent.com/prevent-loopback: yes
-    release-date: 2024-01-31
+    service.cloud.tencent.com/prevent-loopback: \"true\"
+    release-date: \"2024-01-31\"
 spec:
   type: LoadBalancer
   ports:
--- a/{dir}/private-no-caller.yaml
+++ b/{dir}/private-no-caller.yaml
@@ -6,6 +6,7 @@
   namespace: shop
   annotations:
     service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111
+    service.cloud.tencent.com/prevent-loopback: \"true\"
 spec:
   type: LoadBalancer
   selector:
"
        )
    );
    let original = String::from_utf8(before[0].clone()).unwrap();
    let expected = original
        .replace("tier: 1\n", "tier: \"1\"\n")
        .replace("prevent-loopback: yes\n", "prevent-loopback: \"true\"\n")
        .replace(
            "release-date: 2024-01-31\n",
            "release-date: \"2024-01-31\"\n",
        );
    // `git apply` takes the diff (where git is installed) and makes that text.
    let patch = tempdir("preview-unsafe-patch").join("fixes.diff");
    std::fs::write(&patch, &run.stdout).unwrap();
    let applied = std::process::Command::new("git")
        .args(["apply", "--unsafe-paths"])
        .arg(&patch)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status();
    if let Ok(status) = applied {
        assert!(status.success(), "git apply refused the diff");
        assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), expected);
        for (file, bytes) in files.iter().zip(&before) {
            std::fs::write(file, bytes).unwrap();
        }
    }
    let fix = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        &dir,
    ]);
    assert_eq!(fix.stderr, "lblint: fixed 4 problems\n");
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), expected);
    // Nothing is left to change: exit 0, no diff.
    let again = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        "--unsafe-fixes",
        &dir,
    ]);
    assert_eq!(
        (again.code, again.stdout.as_str(), again.stderr.as_str()),
        (0, "", "lblint: no fixes to apply\n")
    );
}

#[test]
fn diff_exit_zero_and_standard_input() {
    let (dir, _) = copies("preview-exit-zero", &FIXTURES);
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        "--exit-zero",
        &dir,
    ]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("--- a/"), "{}", run.stdout);
    // Only unsafe fixes: nothing to change without --unsafe-fixes, and it says so.
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        "testdata/tke/private-no-caller.yaml",
    ]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "",
            "lblint: no fixes to apply (1 fix with --unsafe-fixes)\n"
        )
    );
    let text = std::fs::read(FIXTURES[0]).unwrap();
    let run = lblint_stdin(
        &[
            "check",
            "--profile",
            "testdata/tke/profile-ipvs-regular.yaml",
            "--diff",
            "-",
        ],
        Some(&text),
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "lblint: error: --diff previews fixes of files, not of standard input; lint files instead\n"
    );
}

#[test]
fn diff_conflicts_with_listing_flags_and_unsafe_fixes_needs_a_fixing_flag() {
    for flag in ["--show-fixes", "--statistics"] {
        let run = lblint(&["check", "--diff", flag, "testdata/tke"]);
        assert_eq!(run.code, 2, "{flag}");
        assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    }
    let run = lblint(&["check", "--unsafe-fixes", "testdata/tke"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--fix") && run.stderr.contains("--show-fixes"),
        "{}",
        run.stderr
    );
}

/// A fix --fix would apply but for the object being rendered output: said on stderr with
/// the template to edit, under --fix and --diff alike, and the file is never written.
#[test]
fn rendered_output_names_the_template_to_edit() {
    let (dir, files) = copies(
        "preview-rendered",
        &[
            "testdata/load/helm-rendered.yaml",
            "testdata/load/kustomize-origin.yaml",
        ],
    );
    // The chart is in the repository: its template is the file to edit.
    crate::fix::repository_with_chart(std::path::Path::new(&dir), "shop", &["service.yaml"]);
    let before = bytes(&files);
    let helm = format!(
        "lblint: not fixing TKE001 at {dir}/helm-rendered.yaml:18:5: the object is rendered \
         from `shop/templates/service.yaml`; edit that file instead\n"
    );
    let kustomize = format!(
        "lblint: not fixing TKE001 at {dir}/kustomize-origin.yaml:8:5: the object is rendered \
         from `base/service.yaml`; edit that file instead\n"
    );
    let fix = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        "--format",
        "compact",
        &dir,
    ]);
    assert_eq!(fix.code, 1);
    assert_eq!(fix.stderr, format!("{helm}{kustomize}"));
    let diff = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--diff",
        "--unsafe-fixes",
        &dir,
    ]);
    assert_eq!(
        (diff.code, diff.stdout.as_str()),
        (0, ""),
        "nothing to change"
    );
    assert_eq!(
        diff.stderr,
        format!("{helm}{kustomize}lblint: no fixes to apply\n")
    );
    assert_eq!(bytes(&files), before);
    // Without --unsafe-fixes --fix would not apply these unsafe fixes anyway: no notice.
    let fix = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        &dir,
    ]);
    assert_eq!(fix.stderr, "");
    // The human report says so on the finding.
    let human = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        &files[0].to_string_lossy(),
    ]);
    // Notes wrap at the width: compare them joined.
    let joined = human.stdout.replace("\n    ", " ");
    assert!(
        joined.contains(
            "  = note: fix available: add annotation `service.cloud.tencent.com/prevent-loopback: \
             \"true\"` (not applied by --fix: the object is rendered from \
             `shop/templates/service.yaml`; edit that file instead)\n"
        ),
        "{}",
        human.stdout
    );
}

#[test]
fn show_fixes_compact_lists_each_fix_with_its_safety_and_lines() {
    let run = lblint(&[&EXAMPLES[..], &["--format", "compact", "--show-fixes"]].concat());
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| !l.starts_with("examples/"))
        .collect();
    assert_eq!(
        lines,
        vec![
            "    fix (unsafe, applied only with --unsafe-fixes): add annotation `service.cloud.tencent.com/prevent-loopback: \"true\"`",
            "          9 |+    service.cloud.tencent.com/prevent-loopback: \"true\"",
            "       9 10 | spec:",
            "    fix (unsafe, applied only with --unsafe-fixes): add annotation `service.cloud.tencent.com/prevent-loopback: \"true\"`",
            "         10 |+    service.cloud.tencent.com/prevent-loopback: \"true\"",
            "      10 11 | spec:",
            "    suggestion (display-only, never applied): have in-cluster clients call `shop-api` (`shop-api.shop` from other namespaces) instead of the load-balancer address, by hand",
            "    suggestion (display-only, never applied): call `shop-api` instead of 10.0.1.25",
            "      63    |-              value: \"-Xmx512m -Dshop.api=http://10.0.1.25:80\"",
            "         63 |+              value: \"-Xmx512m -Dshop.api=http://shop-api:80\"",
            "Fixes available: 0 with --fix, 2 with --fix --unsafe-fixes. 2 suggestions are shown only, never applied.",
        ]
    );
    // The finding lines themselves are the plain compact ones.
    let plain = lblint(&[&EXAMPLES[..], &["--format", "compact"]].concat());
    let findings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("examples/"))
        .collect();
    assert_eq!(findings, plain.stdout.lines().collect::<Vec<_>>());
    // With --unsafe-fixes the unsafe fixes are the ones this run applies.
    let run = lblint(
        &[
            &EXAMPLES[..],
            &["--format", "compact", "--show-fixes", "--unsafe-fixes"],
        ]
        .concat(),
    );
    assert!(
        run.stdout.contains(
            "    fix (unsafe, applied by --fix --unsafe-fixes): add annotation `service.cloud.tencent.com/prevent-loopback: \"true\"`\n"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn show_fixes_human() {
    let run = lblint(&[&EXAMPLES[..], &["--show-fixes"]].concat());
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "");
    snapshot!("cli_human_show_fixes", run.stdout);
}

/// `--fix --show-fixes` names what it fixed, per file and rule (ruff's enumeration).
#[test]
fn fix_with_show_fixes_lists_what_was_fixed() {
    let (dir, _) = copies("preview-fixed", &FIXTURES);
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        "--show-fixes",
        "--format",
        "json",
        &dir,
    ]);
    assert_eq!(
        run.stderr,
        format!(
            "lblint: fixed 4 problems:
lblint:   {dir}/annotation-bool.yaml: 2 × K8S002 (annotation-value-not-string)
lblint:   {dir}/annotation-bool.yaml: 1 × TKE001 (tke-l4-loopback)
lblint:   {dir}/private-no-caller.yaml: 1 × TKE001 (tke-l4-loopback)
"
        )
    );
    // The fix ends green: the profile's kube-proxy binds LB addresses, so prevent-loopback
    // works and nothing remains (before, TKE004 asked whether it could).
    assert_eq!(run.code, 0, "{}", run.stdout);
}
