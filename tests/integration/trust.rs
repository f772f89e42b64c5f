//! A repository's config file is untrusted input (a pull request can change it): it must
//! not make lblint read and print files outside the repository, and a config file planted
//! above the repository, or above the working directory outside one, is never used.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::robust::scratch;

fn run_in(dir: &Path, args: &[&str]) -> crate::Run {
    let out = Command::new(env!("CARGO_BIN_EXE_lblint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("LBLINT_TEST_SECRET", "hunter2-do-not-print")
        .output()
        .unwrap();
    crate::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A repository with one Service that has a TKE001 warning, and the given config.
fn repo(name: &str, config: &str) -> PathBuf {
    let dir = scratch(name);
    fs::create_dir(dir.join(".git")).unwrap();
    fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/tke/private-no-caller.yaml"
        ),
        dir.join("service.yaml"),
    )
    .unwrap();
    fs::write(dir.join("lblint.yaml"), config).unwrap();
    dir
}

#[test]
fn a_config_cannot_name_a_profile_outside_its_repository() {
    let dir = repo("trust-profile", "");
    fs::create_dir(dir.join("k8s")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", dir.join("k8s/cluster.yaml")).unwrap();
    let mut cases = vec![
        ("/etc/passwd", "/etc/passwd"),
        ("../../../../../../../../etc/passwd", "/etc/passwd"),
        ("/proc/self/environ", "/proc/"),
    ];
    if cfg!(unix) {
        cases.push(("k8s/cluster.yaml", "/etc/passwd"));
    }
    for (profile, resolved) in cases {
        fs::write(dir.join("lblint.yaml"), format!("profile: {profile}\n")).unwrap();
        let run = run_in(&dir, &["check", "service.yaml"]);
        assert_eq!(run.code, 2, "{profile}: {}", run.stderr);
        assert!(
            run.stderr.contains("outside the repository"),
            "{profile}: {}",
            run.stderr
        );
        assert!(run.stderr.contains(resolved), "{profile}: {}", run.stderr);
        for secret in ["root:", "hunter2", "PATH="] {
            assert!(!run.stderr.contains(secret), "{profile}: {}", run.stderr);
        }
        assert!(run.stdout.is_empty());
    }
    // Named on the command line, the same file is the user's choice: read (and rejected
    // as a profile, with its first line shown, as any invalid profile is).
    let run = run_in(
        &dir,
        &["check", "--no-config", "--profile", "k8s/cluster.yaml"],
    );
    assert_eq!(run.code, 2);
    assert!(!run.stderr.contains("outside the repository"));
}

/// A profile outside the repository is reported with the file's other
/// errors, in one run, still without reading it.
#[test]
fn a_profile_outside_is_reported_with_the_other_errors() {
    let dir = repo(
        "trust-profile-and-more",
        "failOn: warn\nprofile: /etc/passwd\nrules:\n  TKE001: loud\n",
    );
    let run = run_in(&dir, &["check", "service.yaml"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("(3 errors)"), "{}", run.stderr);
    for at in ["lblint.yaml:1:9", "lblint.yaml:2:10", "lblint.yaml:4:11"] {
        assert!(run.stderr.contains(at), "{at}: {}", run.stderr);
    }
    assert!(run.stderr.contains("outside the repository"));
    assert!(!run.stderr.contains("root:"), "{}", run.stderr);
}

#[test]
fn a_profile_inside_the_repository_is_read() {
    let dir = repo("trust-profile-inside", "profile: profiles/tke.yaml\n");
    fs::create_dir(dir.join("profiles")).unwrap();
    fs::write(
        dir.join("profiles/tke.yaml"),
        "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: tke\n  kubeProxy:\n    mode: iptables\n",
    )
    .unwrap();
    // iptables mode: the private CLB does not loop back, so no TKE001 at all.
    let run = run_in(&dir, &["check", "service.yaml"]);
    assert_eq!(
        (run.code, run.stdout.contains("TKE001")),
        (0, false),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// Outside any repository (the system temp folder, when it is not inside one).
fn outside_repository(name: &str) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("lblint-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("project")).unwrap();
    let dir = dir.canonicalize().unwrap();
    dir.ancestors()
        .all(|d| !d.join(".git").exists())
        .then_some(dir)
}

#[test]
fn outside_a_repository_only_the_working_directory_is_searched() {
    let Some(dir) = outside_repository("trust-discovery") else {
        eprintln!("skipped: the temp folder is inside a git repository");
        return;
    };
    // A planted config in the parent would pass everything.
    fs::write(dir.join("lblint.yaml"), "failOn: never\n").unwrap();
    let project = dir.join("project");
    fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/tke/private-no-caller.yaml"
        ),
        project.join("service.yaml"),
    )
    .unwrap();
    let run = run_in(&project, &["check", "--format", "compact", "service.yaml"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("warning[TKE001]"));
    // In the working directory itself, it is used.
    fs::write(project.join("lblint.yaml"), "failOn: never\n").unwrap();
    let run = run_in(&project, &["check", "service.yaml"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn inside_a_repository_discovery_stops_at_its_root() {
    let dir = scratch("trust-repo-root");
    // The planted file is above the repository root: never read.
    fs::write(dir.join("lblint.yaml"), "failOn: never\n").unwrap();
    let repo = dir.join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(repo.join("apps/web")).unwrap();
    fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/tke/private-no-caller.yaml"
        ),
        repo.join("apps/web/service.yaml"),
    )
    .unwrap();
    let web = repo.join("apps/web");
    let run = run_in(&web, &["check", "service.yaml"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // A config at the repository root applies from any folder below it.
    fs::write(repo.join("lblint.yaml"), "failOn: never\n").unwrap();
    let run = run_in(&web, &["check", "service.yaml"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

/// A fork's config cannot widen what rendering touches: Helm values files outside the
/// repository (`..`, absolute, `/dev/zero`) are located config errors, never handed to
/// helm; an absurd `render.timeout` is refused (it once panicked); `--no-render` turns
/// rendering off whatever the config says.
#[test]
fn a_config_cannot_feed_files_outside_the_repository_to_the_renderers() {
    let dir = repo("trust-values", "");
    let outside = dir.parent().unwrap().join("trust-values-outside.yaml");
    fs::write(&outside, "secret: hunter2-do-not-print\n").unwrap();
    for value in [
        "../trust-values-outside.yaml".to_string(),
        outside.to_string_lossy().into_owned(),
        "/dev/zero".to_string(),
    ] {
        let config = format!("render:\n  enabled: true\n  helm:\n    values: [ok.yaml, {value}]\n");
        fs::write(dir.join("lblint.yaml"), &config).unwrap();
        let run = run_in(&dir, &["check", "service.yaml"]);
        assert_eq!(run.code, 2, "{value}: {}", run.stderr);
        assert!(
            run.stderr.contains("the values file") && run.stderr.contains("outside the repository"),
            "{value}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("lblint.yaml:4:23"),
            "{value}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("hunter2"), "{}", run.stderr);
    }
    fs::write(
        dir.join("lblint.yaml"),
        "render:\n  timeout: 18446744073709551615\n",
    )
    .unwrap();
    let run = run_in(&dir, &["check", "service.yaml"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("over the limit of 3600"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn no_render_wins_over_the_config() {
    let dir = repo("trust-no-render", "render:\n  enabled: true\n");
    fs::write(
        dir.join("kustomization.yaml"),
        "resources: [service.yaml]\n",
    )
    .unwrap();
    let never = crate::render::stand_in("kubectl", "echo called >&2\nexit 99\n");
    let path = format!("{}:/usr/bin:/bin", never.path().display());
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_lblint"))
            .args(args)
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .env("PATH", &path)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // The config renders: the stand-in is run and fails.
    let (_, stdout) = run(&["check", "--format", "compact", "."]);
    assert!(stdout.contains("LBL008"), "{stdout}");
    // --no-render: never run; the raw files are linted.
    let (code, stdout) = run(&["check", "--no-render", "--format", "compact", "."]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!stdout.contains("LBL008"), "{stdout}");
    assert!(
        stdout.contains("service.yaml:8:5: warning[TKE001]"),
        "{stdout}"
    );
    let (code, _) = run(&["check", "--render", "--no-render", "."]);
    assert_eq!(code, Some(2));
}
