//! `check --render` with the real helm (`./test.sh` unpacks the pinned one into `.ci/helm`):
//! a chart rendered with its values and mapped back to its template, and the untrusted
//! repository's attacks on helm (issue 38): a symbolic link out of the chart read by
//! `.Files.Get` into a `fail` message, and a template that prints its own `# Source:` line
//! pointing out of the repository. The stand-in helm stays only where real helm cannot
//! produce the case (a tool that must never run, an endless output).

use crate::render::{compact_lines, crate_root, need_helm, render_compact, PROFILE};
use crate::untrusted::{chart, refused_at_the_chart, SECRET};

#[test]
fn a_chart_is_rendered_with_its_values_and_mapped_to_its_template() {
    let Some(helm) = need_helm() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let helm_dir = crate_root().join("testdata/render/helm");
    let copy = std::process::Command::new("cp")
        .args(["-r"])
        .arg(helm_dir.join("storefront"))
        .arg(helm_dir.join("values-prod.yaml"))
        .arg(tmp.path())
        .status()
        .unwrap();
    assert!(copy.success());
    std::fs::write(
        tmp.path().join("lblint.yaml"),
        "render:\n  enabled: true\n  helm:\n    values: [values-prod.yaml]\n",
    )
    .unwrap();
    let profile = crate_root().join(PROFILE);
    let args = [
        "check",
        "--format",
        "compact",
        "--profile",
        profile.to_str().unwrap(),
        "storefront",
    ];
    let run = crate::render::run_with_path(tmp.path(), &[helm.parent().unwrap()], &args);
    let lines = compact_lines(&run);
    assert_eq!(lines.len(), 1, "{}{}", run.stdout, run.stderr);
    assert!(
        lines[0].starts_with("storefront/templates/service.yaml:7:5: warning[TKE001] Private-network CLB Service `release-name-web`"),
        "{}",
        lines[0]
    );
}

/// Argo CD's CVE-2022-31036 with the real helm: a link out of the chart that a template
/// would read with `.Files.Get` into its `fail` message. The chart is refused before helm
/// runs, and the secret appears nowhere.
#[test]
fn a_link_out_of_the_chart_never_reaches_helm() {
    let Some(helm) = need_helm() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, SECRET).unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let chart = chart(
        &repo,
        &[("leak.yaml", "{{ fail (.Files.Get \"files/key\") }}\n")],
    );
    std::fs::create_dir_all(chart.join("files")).unwrap();
    std::os::unix::fs::symlink(&secret, chart.join("files/key")).unwrap();
    for format in ["compact", "json", "sarif", "github", "human"] {
        let args = ["check", "--render", "--no-config", "--format", format, "."];
        let run = crate::render::run_with_path(&repo, &[helm.parent().unwrap()], &args);
        assert!(!run.stdout.contains(SECRET), "{format}: {}", run.stdout);
        assert!(!run.stderr.contains(SECRET), "{format}: {}", run.stderr);
    }
    let run = render_compact(&repo, &[helm.parent().unwrap()], &["."]);
    assert_eq!(
        compact_lines(&run),
        ["shop/Chart.yaml:1:1: error[LBL008] Chart not rendered: it holds a symbolic link, `files/key`, that leads outside the chart, and helm would follow it."]
    );
}

/// A template that prints its own `# Source:` line pointing out of the repository: real
/// helm passes it through; lblint does not read the file it names.
#[test]
fn a_template_printing_its_own_source_line_is_not_followed_out() {
    let Some(helm) = need_helm() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.yaml");
    std::fs::write(
        &secret,
        format!("kind: Service\nmetadata:\n  name: web\n  annotations:\n    leak: {SECRET}\n"),
    )
    .unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let outside = std::fs::canonicalize(&secret).unwrap();
    let source = format!(
        "{}{}",
        "../".repeat(40),
        outside.to_string_lossy().trim_start_matches('/')
    );
    chart(
        &repo,
        &[(
            "svc.yaml",
            &format!(
                "# Source: shop/{source}\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    \
                 service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-12345678\nspec:\n  type: LoadBalancer\n"
            ),
        )],
    );
    let run = render_compact(&repo, &[helm.parent().unwrap()], &["."]);
    refused_at_the_chart(&run);
}
