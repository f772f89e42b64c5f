//! CLI conventions (README, "Usage"): --statistics, -q/-qq, -v, a warning when nothing is
//! found to lint, --exit-zero, completions, `model` reading the config file, sizes, help
//! for every option, and the colour environment variables.

use std::process::Command;

use crate::cli::tempdir;
use crate::{lblint, lblint_in};

const EXAMPLES: [&str; 4] = [
    "check",
    "examples/manifests",
    "--profile",
    "examples/profiles/tke-ipvs.yaml",
];

/// The bundled examples with `extra` arguments.
fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [&EXAMPLES[..], extra].concat()
}

const SUMMARY: &str = "Found 1 error, 1 warning and 0 notes in 3 files (8 objects).\n";

#[test]
fn statistics_count_each_rule_like_ruff() {
    let run = lblint(&with(&["--statistics"]));
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        format!("2  TKE001  [-] tke-l4-loopback\n{SUMMARY}")
    );
    let run = lblint(&with(&[
        "--statistics",
        "--format",
        "compact",
        "--unsafe-fixes",
    ]));
    assert_eq!(run.stdout, "2  TKE001  [*] tke-l4-loopback\n");
    let run = lblint(&with(&["--statistics", "--format", "json"]));
    let stats: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        stats,
        serde_json::json!([
            {"rule": "TKE001", "name": "tke-l4-loopback", "count": 2, "fixable": 0,
             "fixable_with_unsafe_fixes": 2},
        ])
    );
    for format in ["sarif", "github"] {
        let run = lblint(&with(&["--statistics", "--format", format]));
        assert_eq!(run.code, 2);
        assert_eq!(
            run.stderr,
            "lblint: error: --statistics prints text or JSON: use --format human, compact or json\n"
        );
    }
}

#[test]
fn quiet_drops_summaries_and_notices_and_qq_prints_nothing() {
    let full = lblint(&with(&[]));
    let quiet = lblint(&with(&["-q"]));
    assert_eq!(quiet.code, 1);
    assert_eq!(
        full.stdout.strip_suffix(SUMMARY),
        Some(quiet.stdout.as_str())
    );
    let run = lblint(&with(&["--quiet", "--format", "compact", "--show-fixes"]));
    assert!(!run.stdout.contains("Fixes available"), "{}", run.stdout);
    let run = lblint(&with(&["-qq"]));
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (1, "", "")
    );
    // A report asked for in a file is still written.
    let out = tempdir("quiet-output").join("report.json");
    let out = out.to_str().unwrap();
    let run = lblint(&with(&["-qq", "--format", "json", "--output", out]));
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert!(std::fs::read_to_string(out).unwrap().contains("\"TKE001\""));
    // Errors of lblint itself still show.
    let run = lblint(&["check", "-qq", "testdata/does-not-exist.yaml"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "lblint: error: path not found: testdata/does-not-exist.yaml\n"
    );
    // --fix notices are notices.
    let dir = tempdir("quiet-fix");
    std::fs::copy("testdata/tke/annotation-bool.yaml", dir.join("a.yaml")).unwrap();
    let run = lblint(&["check", "-q", "--fix", dir.to_str().unwrap()]);
    assert_eq!(run.stderr, "");
    assert_eq!(lblint(&["check", "-q", "-v", "testdata/tke"]).code, 2);
}

/// A project folder with a config file naming a profile and an exclude, one manifest
/// linted and one excluded, and an empty folder.
fn project(name: &str) -> String {
    let dir = tempdir(name);
    std::fs::create_dir_all(dir.join("k8s/skip")).unwrap();
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    std::fs::copy("examples/profiles/tke-ipvs.yaml", dir.join("profile.yaml")).unwrap();
    for file in ["k8s/svc.yaml", "k8s/skip/svc.yaml"] {
        std::fs::copy("testdata/tke/private-no-caller.yaml", dir.join(file)).unwrap();
    }
    std::fs::write(
        dir.join("lblint.yaml"),
        "profile: profile.yaml\nexclude: [\"**/skip/**\"]\n",
    )
    .unwrap();
    dir.to_str().unwrap().to_string()
}

#[test]
fn verbose_names_the_config_the_profile_and_the_files() {
    let dir = project("verbose");
    let run = lblint_in(&dir, &["check", "-v", "--format", "compact", "k8s"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "lblint: config: lblint.yaml\nlblint: profile: profile.yaml (provider tke)\n\
         lblint: linted 1 file:\nlblint:   k8s/svc.yaml\n"
    );
    let run = lblint_in(&dir, &["check", "--verbose", "--no-config", "k8s"]);
    assert_eq!(
        run.stderr,
        "lblint: config: none (--no-config)\n\
         lblint: profile: none (every cluster fact unknown; each object's annotations say \
         which cloud's rules judge it, at most as warnings)\n\
         lblint: linted 2 files:\nlblint:   k8s/skip/svc.yaml\nlblint:   k8s/svc.yaml\n"
    );
    // --diff says the same before its diff.
    let run = lblint_in(&dir, &["check", "-v", "--diff", "k8s"]);
    assert_eq!(
        run.stderr,
        "lblint: config: lblint.yaml\nlblint: profile: profile.yaml (provider tke)\n\
         lblint: linted 1 file:\nlblint:   k8s/svc.yaml\n\
         lblint: no fixes to apply (1 fix with --unsafe-fixes)\n"
    );
}

#[test]
fn no_input_is_a_warning_not_silence() {
    let dir = project("no-input");
    let run = lblint_in(&dir, &["check", "empty"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "No problems found in 0 files (0 objects).\n");
    assert_eq!(
        run.stderr,
        "lblint: warning: no files to lint in empty (include: *.yaml, *.yml, *.json; exclude: **/skip/**)\n"
    );
    let run = lblint_in(&dir, &["check", "--no-config", "--include", "*.yml", "k8s"]);
    assert_eq!(
        run.stderr,
        "lblint: warning: no files to lint in k8s (include: *.yml)\n"
    );
    assert_eq!(lblint_in(&dir, &["check", "-q", "empty"]).stderr, "");
    // A file that was found but skipped is reported as LBL003 instead: no warning.
    let run = lblint_in(&dir, &["check", "--max-file-size", "10", "k8s"]);
    assert_eq!(run.stderr, "");
    assert!(run.stdout.contains("LBL003"), "{}", run.stdout);
}

#[test]
fn exit_zero_with_findings_but_two_on_errors() {
    let run = lblint(&with(&["--exit-zero"]));
    assert_eq!(run.code, 0);
    assert!(run.stdout.ends_with(SUMMARY), "{}", run.stdout);
    assert_eq!(
        lblint(&["check", "--exit-zero", "testdata/does-not-exist.yaml"]).code,
        2
    );
    assert_eq!(
        lblint(&[
            "check",
            "--exit-zero",
            "--profile",
            "testdata/nope.yaml",
            "testdata/tke"
        ])
        .code,
        2
    );
}

#[test]
fn completions_for_each_shell() {
    let bash = lblint(&["completions", "bash"]);
    assert_eq!(bash.code, 0);
    assert!(bash.stdout.starts_with("_lblint() {\n"), "{}", bash.stdout);
    assert!(bash.stdout.contains("--show-fixes"));
    assert!(lblint(&["completions", "zsh"])
        .stdout
        .starts_with("#compdef lblint\n"));
    assert!(lblint(&["completions", "fish"])
        .stdout
        .contains("complete -c lblint -n \"__fish_lblint_needs_command\" -f -a \"check\""));
    assert_eq!(lblint(&["completions", "tcsh"]).code, 2);
    // The bash script loads and registers itself (where bash is installed).
    let script = tempdir("completions").join("lblint.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    let registered = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source '{}' && complete -p lblint",
            script.display()
        ))
        .output();
    if let Ok(out) = registered {
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "complete -o bashdefault -o default -o nosort -F _lblint lblint\n"
        );
    }
}

#[test]
fn model_reads_the_config_file_like_check() {
    let dir = project("model-config");
    // The config's profile (TKE, private CLB) and exclude (k8s/skip) apply.
    let run = lblint_in(&dir, &["model", "k8s"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("Service/shop/ledger (L4, tke, private)  k8s/svc.yaml:2:1\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("k8s/skip"), "{}", run.stdout);
    let run = lblint_in(&dir, &["model", "--no-config", "k8s"]);
    assert!(run.stdout.contains("k8s/skip/svc.yaml"), "{}", run.stdout);
    // --config names another file; a bad one is exit 2 like check's.
    let other = format!("{dir}/other.yaml");
    std::fs::write(&other, "exclude: [\"**/k8s/svc.yaml\"]\n").unwrap();
    let run = lblint_in(&dir, &["model", "--config", "other.yaml", "k8s"]);
    assert!(
        run.stdout.contains("k8s/skip/svc.yaml") && !run.stdout.contains("k8s/svc.yaml:"),
        "{}",
        run.stdout
    );
    std::fs::write(&other, "exclud: []\n").unwrap();
    let run = lblint_in(&dir, &["model", "--config", "other.yaml", "k8s"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("invalid config file"), "{}", run.stderr);
}

#[test]
fn max_file_size_takes_units() {
    let dir = tempdir("sizes");
    // 1010 bytes: over 1KB (1000), under 1KiB (1024).
    std::fs::write(dir.join("big.yaml"), "#".repeat(1010)).unwrap();
    let dir = dir.to_str().unwrap();
    let run = lblint(&[
        "check",
        "--format",
        "compact",
        "--max-file-size",
        "1KB",
        dir,
    ]);
    assert!(
        run.stdout
            .contains("over the size limit of 1000 bytes (raise it with --max-file-size)"),
        "{}",
        run.stdout
    );
    let run = lblint(&[
        "check",
        "--format",
        "compact",
        "--max-file-size",
        "1KiB",
        dir,
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    assert_eq!(lblint(&["check", "--max-file-size", "1010", dir]).code, 0);
    let run = lblint(&["check", "--max-file-size", "1M", dir]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("invalid value '1M' for '--max-file-size <SIZE>': `1M` has an unknown unit"),
        "{}",
        run.stderr
    );
    assert!(lblint(&["check", "--help"])
        .stdout
        .contains("[default: 64MiB]"));
}

/// Every argument of every subcommand says what it does in `--help`.
#[test]
fn every_option_has_help() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let builtin = matches!(arg.get_id().as_str(), "help" | "version");
            if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.get_about().is_none() && sub.get_name() != "help" {
                missing.push(format!("{path} {} (subcommand)", sub.get_name()));
            }
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&lblint::cli::Cli::command(), "lblint", &mut missing);
    assert_eq!(missing, Vec::<String>::new());
}

/// README's usage block names every flag `lblint check` and `lblint model` take.
#[test]
fn readme_usage_lists_every_flag() {
    use clap::CommandFactory;
    let readme = std::fs::read_to_string("README.md").unwrap();
    let usage = readme
        .split("## Usage")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    let cli = lblint::cli::Cli::command();
    for name in ["check", "model"] {
        let cmd = cli.find_subcommand(name).unwrap();
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long().filter(|l| !matches!(*l, "help" | "version")) {
                assert!(
                    usage.contains(&format!("--{long}")),
                    "README's usage lacks `lblint {name} --{long}`"
                );
            }
        }
    }
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        assert!(
            usage.contains(&format!("lblint {}", sub.get_name())),
            "README's usage lacks `lblint {}`",
            sub.get_name()
        );
    }
}

/// `lblint check` with these colour variables set and every other one unset; stdout is a
/// pipe, never a terminal.
fn colored(vars: &[(&str, &str)]) -> bool {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lblint"));
    command.args(with(&[]));
    for name in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        command.env_remove(name);
    }
    command.envs(vars.iter().copied()).env("COLUMNS", "100");
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    out.stdout.contains(&0x1b)
}

#[test]
fn colour_follows_no_color_force_color_and_clicolor_force() {
    assert!(!colored(&[]));
    assert!(colored(&[("FORCE_COLOR", "1")]));
    assert!(!colored(&[("FORCE_COLOR", "0")]));
    assert!(colored(&[("CLICOLOR_FORCE", "1")]));
    assert!(!colored(&[("CLICOLOR_FORCE", "0")]));
    // An empty NO_COLOR is no NO_COLOR; a set one beats forcing.
    assert!(colored(&[("NO_COLOR", ""), ("FORCE_COLOR", "1")]));
    assert!(!colored(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]));
}

/// Doc-tests are off (Cargo.toml: `doctest = false`) because no doc comment has a code
/// example; one added would never run, so it is refused here.
#[test]
fn no_doc_comment_holds_an_example_that_would_not_run() {
    let mut examples = Vec::new();
    for entry in walkdir::WalkDir::new("src") {
        let path = entry.unwrap().into_path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let doc = line.trim_start();
            let doc = doc.strip_prefix("///").or_else(|| doc.strip_prefix("//!"));
            if doc.is_some_and(|d| d.trim_start().starts_with("```")) {
                examples.push(format!("{}:{}", path.display(), i + 1));
            }
        }
    }
    assert_eq!(examples, Vec::<String>::new());
}
