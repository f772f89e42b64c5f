//! The linted repository is untrusted (issue 38): text it controls must not make lblint
//! read a file outside it into a report. A rendered object's kustomize origin annotation
//! and a Helm `# Source:` line name the file its findings map back to; one that resolves
//! outside the repository (`..`, an absolute path, a symbolic link out) is not read: the
//! findings stay in the rendered text and an LBL008 says why, naming the path, never its
//! content.

use std::path::Path;

use crate::render::{compact_lines, render_compact, stand_in};

/// The recognisable value of the file outside the repository: it must appear nowhere.
pub const SECRET: &str = "TOPSECRET-hunter2";

/// A render that pointed out of the repository: the secret is in neither output, and the
/// chart `shop` gets the LBL008 that says the path is outside the repository.
pub fn refused_at_the_chart(run: &crate::Run) {
    assert!(!run.stdout.contains(SECRET), "{}", run.stdout);
    assert!(!run.stderr.contains(SECRET), "{}", run.stderr);
    assert!(
        compact_lines(run)
            .iter()
            .any(|l| l.starts_with("shop/Chart.yaml:1:1: error[LBL008]")
                && l.contains("outside the repository")),
        "{}",
        run.stdout
    );
}

/// `tmp/outside/secret.yaml` (a Service with a recognisable value) and `tmp/repo/` (a git
/// checkout), with the path from the filesystem root to the secret, without its `/`.
fn outside_and_repo(tmp: &Path) -> (std::path::PathBuf, String) {
    let outside = tmp.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.yaml");
    std::fs::write(
        &secret,
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    \
             service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: {SECRET}\nspec:\n  \
             type: LoadBalancer\n"
        ),
    )
    .unwrap();
    let repo = tmp.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let real = std::fs::canonicalize(&secret).unwrap();
    (
        repo,
        real.to_string_lossy().trim_start_matches('/').to_string(),
    )
}

/// A chart `shop` under `root` (`Chart.yaml` and these templates): its folder.
pub fn chart(root: &Path, templates: &[(&str, &str)]) -> std::path::PathBuf {
    let chart = root.join("shop");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    )
    .unwrap();
    for (name, text) in templates {
        std::fs::write(chart.join("templates").join(name), text).unwrap();
    }
    chart
}

/// A rendered private-CLB Service whose metadata carries `origin` (kustomize's annotation).
fn rendered(origin: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    \
         config.kubernetes.io/origin: |\n      path: {origin}\n    \
         service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-12345678\nspec:\n  \
         type: LoadBalancer\n"
    )
}

#[test]
fn an_origin_annotation_outside_the_repository_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, secret) = outside_and_repo(tmp.path());
    std::fs::write(repo.join("kustomization.yaml"), "resources: [svc.yaml]\n").unwrap();
    std::fs::write(repo.join("svc.yaml"), "kind: Service\n").unwrap();
    // Enough `..` to reach `/` from any folder kustomize runs in, then the secret.
    let origin = format!("{}{secret}", "../".repeat(40));
    let output = tmp.path().join("out.yaml");
    std::fs::write(&output, rendered(&origin)).unwrap();
    let kubectl = stand_in("kubectl", &format!("/bin/cat '{}'\n", output.display()));
    for format in ["compact", "json", "sarif", "human"] {
        let run = crate::render::run_with_path(
            &repo,
            &[kubectl.path()],
            &["check", "--render", "--no-config", "--format", format, "."],
        );
        assert!(!run.stdout.contains(SECRET), "{format}: {}", run.stdout);
        assert!(!run.stderr.contains(SECRET), "{format}: {}", run.stderr);
    }
    let run = render_compact(&repo, &[kubectl.path()], &["."]);
    let lines = compact_lines(&run);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("kustomization.yaml:1:1: error[LBL008]")
                && l.contains("outside the repository: not read")),
        "{}",
        run.stdout
    );
    // The finding stays in the rendered text.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("error[TKE001]") || l.contains("warning[TKE001]")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_symbolic_link_out_of_the_repository_is_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = outside_and_repo(tmp.path());
    std::fs::write(repo.join("kustomization.yaml"), "resources: [svc.yaml]\n").unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("outside/secret.yaml"),
        repo.join("svc.yaml"),
    )
    .unwrap();
    let output = tmp.path().join("out.yaml");
    // The origin names the link, inside the repository; it resolves outside.
    let link = std::fs::canonicalize(&repo).unwrap().join("svc.yaml");
    let origin = format!(
        "{}{}",
        "../".repeat(40),
        link.to_string_lossy().trim_start_matches('/')
    );
    std::fs::write(&output, rendered(&origin)).unwrap();
    let kubectl = stand_in("kubectl", &format!("/bin/cat '{}'\n", output.display()));
    let run = render_compact(&repo, &[kubectl.path()], &["."]);
    assert!(!run.stdout.contains(SECRET), "{}", run.stdout);
    assert!(
        compact_lines(&run)
            .iter()
            .any(|l| l.contains("error[LBL008]") && l.contains("outside the repository")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_helm_source_line_outside_the_repository_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, secret) = outside_and_repo(tmp.path());
    chart(&repo, &[("svc.yaml", "kind: Service\n")]);
    let output = tmp.path().join("out.yaml");
    std::fs::write(
        &output,
        format!(
            "---\n# Source: shop/{}{secret}\n{}",
            "../".repeat(40),
            rendered("unused").replace(
                "    config.kubernetes.io/origin: |\n      path: unused\n",
                ""
            )
        ),
    )
    .unwrap();
    let helm = stand_in(
        "helm",
        &format!(
            "if [ \"$1\" = version ]; then echo v3.16.2+gstandin; exit 0; fi\n/bin/cat '{}'\n",
            output.display()
        ),
    );
    let run = render_compact(&repo, &[helm.path()], &["."]);
    refused_at_the_chart(&run);
}

/// A chart holding a symbolic link out of it is not rendered (helm would follow it into
/// `.Files.Get` or a template, as in Argo CD's CVE-2022-31036): LBL008, and helm is never run.
#[test]
fn a_chart_with_a_link_out_of_it_is_not_rendered() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = outside_and_repo(tmp.path());
    let chart = chart(&repo, &[("svc.yaml", "kind: Service\n")]);
    std::fs::create_dir_all(chart.join("files")).unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("outside/secret.yaml"),
        chart.join("files/key"),
    )
    .unwrap();
    let never = stand_in("helm", "echo called >&2\nexit 99\n");
    let run = render_compact(&repo, &[never.path()], &["."]);
    assert_eq!(
        compact_lines(&run),
        ["shop/Chart.yaml:1:1: error[LBL008] Chart not rendered: it holds a symbolic link, `files/key`, that leads outside the chart, and helm would follow it."],
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("called"), "{}", run.stderr);
    // A link inside the chart is fine: helm is run.
    std::fs::remove_file(chart.join("files/key")).unwrap();
    std::os::unix::fs::symlink("../templates/svc.yaml", chart.join("files/key")).unwrap();
    let run = render_compact(&repo, &[never.path()], &["."]);
    assert!(run.stdout.contains("exit code 99"), "{}", run.stdout);
}

/// A relative PATH entry (`bin`, as a CI job may set) never finds the repository's own
/// `bin/kubectl`: only absolute entries are searched.
#[test]
fn a_relative_path_entry_never_runs_the_repositorys_own_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    std::fs::write(repo.join("kustomization.yaml"), "resources: [svc.yaml]\n").unwrap();
    std::fs::write(repo.join("svc.yaml"), "kind: Service\n").unwrap();
    let planted = stand_in("kubectl", "echo planted-tool-ran >&2\nexit 7\n");
    std::fs::create_dir(repo.join("bin")).unwrap();
    std::fs::copy(planted.path().join("kubectl"), repo.join("bin/kubectl")).unwrap();
    let run = crate::render::run_with_path(
        repo,
        &[Path::new("bin")],
        &[
            "check",
            "--render",
            "--no-config",
            "--format",
            "compact",
            ".",
        ],
    );
    assert!(!run.stdout.contains("planted-tool-ran"), "{}", run.stdout);
    assert!(!run.stderr.contains("planted-tool-ran"), "{}", run.stderr);
    assert_eq!(
        compact_lines(&run),
        ["kustomization.yaml:1:1: error[LBL008] Kustomization not rendered: neither `kubectl` nor `kustomize` is on PATH."]
    );
}

/// Kustomizations that include themselves (`resources: [.]`) or each other were silently
/// never rendered (each is included, so none was a root): an LBL008 names the loop, and no
/// tool is run for it.
#[test]
fn include_loops_are_reported_not_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    std::fs::create_dir_all(repo.join("self")).unwrap();
    std::fs::write(repo.join("self/kustomization.yaml"), "resources:\n  - .\n").unwrap();
    for (dir, other) in [("a", "../b"), ("b", "../a")] {
        std::fs::create_dir_all(repo.join(dir)).unwrap();
        std::fs::write(
            repo.join(dir).join("kustomization.yaml"),
            format!("resources:\n  - svc.yaml\n  - {other}\n"),
        )
        .unwrap();
        std::fs::write(repo.join(dir).join("svc.yaml"), "kind: Service\n").unwrap();
    }
    let never = stand_in("kubectl", "echo called >&2\nexit 99\n");
    let run = render_compact(repo, &[never.path()], &["."]);
    assert_eq!(
        compact_lines(&run),
        [
            "a/kustomization.yaml:3:5: error[LBL008] Kustomization not rendered: it includes itself (a → b → a), which kustomize cannot build.",
            "self/kustomization.yaml:2:5: error[LBL008] Kustomization not rendered: it includes itself (self → self), which kustomize cannot build.",
        ],
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("called"), "{}", run.stderr);
}

/// Rendering never fetches: a kustomization whose OpenAPI schema or generator file is a URL
/// is refused (LBL008 at the line naming it) before the tool runs; a local listener at that
/// URL must receive nothing.
#[test]
fn urls_a_renderer_would_fetch_are_refused_and_nothing_is_fetched() {
    use std::net::TcpListener;
    let Some(kubectl) = crate::render::need_kubectl() else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    for (dir, text) in [
        (
            "schema",
            format!("resources: [svc.yaml]\nopenapi:\n  path: {url}/schema.json\n"),
        ),
        (
            "generator",
            format!(
                "configMapGenerator:\n  - name: app\n    files:\n      - {url}/app.properties\n"
            ),
        ),
    ] {
        std::fs::create_dir_all(repo.join(dir)).unwrap();
        std::fs::write(repo.join(dir).join("kustomization.yaml"), text).unwrap();
        std::fs::write(
            repo.join(dir).join("svc.yaml"),
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n",
        )
        .unwrap();
    }
    let run = render_compact(repo, &[kubectl.parent().unwrap()], &["."]);
    assert_eq!(
        compact_lines(&run),
        [
            format!("generator/kustomization.yaml:4:9: error[LBL008] Kustomization not rendered: `{url}/app.properties` is a remote resource, and lblint renders offline."),
            format!("schema/kustomization.yaml:3:9: error[LBL008] Kustomization not rendered: `{url}/schema.json` is a remote resource, and lblint renders offline."),
        ],
        "{}",
        run.stderr
    );
    assert!(listener.accept().is_err(), "a renderer connected to {url}");
}

/// helm fetches the remote `$ref`s of a chart's `values.schema.json`: such a chart is not
/// rendered (LBL008), and helm is never run.
#[test]
fn a_chart_schema_with_a_remote_ref_is_not_rendered() {
    let tmp = tempfile::tempdir().unwrap();
    let chart = chart(tmp.path(), &[("svc.yaml", "kind: Service\n")]);
    std::fs::write(
        chart.join("values.schema.json"),
        r#"{"properties": {"image": {"$ref": "http://127.0.0.1:9/image.json"}}}"#,
    )
    .unwrap();
    let never = stand_in("helm", "echo called >&2\nexit 99\n");
    let run = render_compact(tmp.path(), &[never.path()], &["."]);
    assert_eq!(
        compact_lines(&run),
        ["shop/Chart.yaml:1:1: error[LBL008] Chart not rendered: `values.schema.json` refers to `http://127.0.0.1:9/image.json`, which helm would fetch, and lblint renders offline."],
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("called"), "{}", run.stderr);
}

/// A render's output is capped at the `--max-file-size` budget: a tool that never ends its
/// output is stopped, and the root is an LBL008 saying so (it once read 6 GB in 5 s).
#[test]
fn endless_render_output_is_cut_at_the_file_size_budget() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("kustomization.yaml"),
        "resources: [svc.yaml]\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("svc.yaml"), "kind: Service\n").unwrap();
    let endless = stand_in("kubectl", "exec /usr/bin/yes 'kind: Service'\n");
    let run = render_compact(
        tmp.path(),
        &[endless.path()],
        &["--max-file-size", "1MiB", "."],
    );
    assert_eq!(
        compact_lines(&run),
        ["kustomization.yaml:1:1: error[LBL008] Kustomization not rendered: `kubectl kustomize` printed more than 1048576 bytes (the --max-file-size budget) and was stopped."],
        "{}",
        run.stderr
    );
}

/// SIGTERM (a cancelled CI job) during a render: the tool's process group is killed and the
/// temporary folder removed before lblint exits with 143. Before, the tool ran on and the
/// folder stayed behind.
#[test]
fn a_signal_during_a_render_stops_the_tool_and_removes_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let scratch = tmp.path().join("tmp");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(repo.join("kustomization.yaml"), "resources: [svc.yaml]\n").unwrap();
    std::fs::write(repo.join("svc.yaml"), "kind: Service\n").unwrap();
    let pid_file = tmp.path().join("tool.pid");
    let slow = stand_in(
        "kubectl",
        &format!("echo $$ > '{}'\nexec /bin/sleep 30\n", pid_file.display()),
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lblint"))
        .args(["check", "--render", "--no-config", "."])
        .current_dir(&repo)
        .env("PATH", slow.path())
        .env("TMPDIR", &scratch)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the tool to start (a guard against a hang, not a bound on speed).
    let started = std::time::Instant::now();
    while !pid_file.exists()
        || std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .is_empty()
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the tool never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let tool = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    // The tool is gone (or a zombie waiting for init), and no render folder is left.
    let stat = std::fs::read_to_string(format!("/proc/{tool}/stat")).unwrap_or_default();
    let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
    assert!(
        stat.is_empty() || state.starts_with('Z'),
        "tool {tool} still runs: {stat}"
    );
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A call read from a Secret is named by place (file, line, column, Secret and key), and no
/// report quotes the Secret's values: no source excerpt, no rewrite preview (issue 38).
#[test]
fn a_secret_value_is_named_never_quoted() {
    let file = "testdata/model/evidence/secrets.yaml";
    let profile = "testdata/model/evidence/profile-tke-ipvs.yaml";
    let values = [
        "aHR0cHM6Ly9vcmRlcnMuc2hvcC5leGFtcGxlLmNvbS9hcGk=",
        "cG9zdGdyZXM6Ly9hcHBAb3JkZXJzLnNob3AuZXhhbXBsZS5jb206NTQzMi9kYg==",
        "postgres://app@",
    ];
    for format in ["human", "compact", "json", "sarif", "github"] {
        for extra in [&[][..], &["--show-fixes"][..]] {
            let mut args = vec![
                "check",
                "--no-config",
                "--profile",
                profile,
                "--format",
                format,
            ];
            args.extend_from_slice(extra);
            args.push(file);
            let run = crate::lblint(&args);
            for value in values {
                assert!(
                    !run.stdout.contains(value),
                    "{format} {extra:?}: {}",
                    run.stdout
                );
            }
        }
    }
    let run = crate::lblint(&["check", "--no-config", "--profile", profile, file]);
    assert!(
        run.stdout.contains(&format!(
            "= at: {file}:27:15 (source not shown: a location is in a Secret's\n    values)"
        )),
        "{}",
        run.stdout
    );
}
