//! Bad input to `lblint profile import`: not a dump, a dump of the wrong kind, cut-short YAML
//! and JSON, deep nesting, a file over the size limit: each a located error, never a panic.
//! And a big generated dump: read item by item, every node counted.

use super::import;
use crate::cli::tempdir;
use crate::{lblint, lblint_stdin, Run};

/// A kubectl-style `get nodes -o yaml` List of `n` nodes in two pools (items at column 0,
/// `kind: List` after them, as kubectl writes it).
fn nodes(n: usize) -> String {
    let mut out = String::from("apiVersion: v1\nitems:\n");
    for i in 0..n {
        out.push_str(&format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    labels:\n      \
             eks.amazonaws.com/nodegroup: group-{}\n      kubernetes.io/hostname: ip-{i}\n    \
             name: ip-{i}\n  spec:\n    providerID: aws:///us-east-1a/i-{i:017x}\n  status:\n    \
             nodeInfo:\n      kubeletVersion: v1.30.{}\n",
            i % 2,
            4 + i % 3
        ));
    }
    out + "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
}

/// `profile import` of `text` written to `dir/name`: it fails with status 2, no panic.
fn import_fails(dir: &std::path::Path, name: &str, text: &str) -> Run {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let run = lblint(&["profile", "import", path.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{name}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
    run
}

#[test]
fn bad_input_is_a_located_error() {
    let secrets = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    \
                   name: token\n  data:\n    token: c2VjcmV0\nkind: List\n";
    let whole = nodes(2);
    let cut_at_line = &whole[..whole.find("- apiVersion").unwrap() + 60];
    let cut_at_line = &cut_at_line[..cut_at_line.rfind('\n').unwrap() + 1];
    let deep_json = format!("{{\"items\": {}{}}}", "[".repeat(5000), "]".repeat(5000));
    let deep_yaml = format!(
        "kind: Node\nmetadata: {}{}\n",
        "[".repeat(1000),
        "]".repeat(1000)
    );
    // (file, text, where and what the error says)
    let cases: &[(&str, &str, &[&str])] = &[
        ("empty.yaml", "", &["not a kubectl dump"]),
        (
            "plain.yaml",
            "name: not a dump\nreplicas: 3\n",
            &["plain.yaml:1:1", "not a kubectl dump"],
        ),
        (
            "secrets.yaml",
            secrets,
            &[
                "secrets.yaml:3:1",
                "nothing to import: a dump of Secret objects",
            ],
        ),
        (
            "truncated.yaml",
            "apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n    metadata: {name: [a\n",
            &["truncated.yaml:5:"],
        ),
        (
            "cut.yaml",
            cut_at_line,
            &["cut.yaml:", "cut short: `items` without the `kind: List`"],
        ),
        (
            "cut.json",
            "{\"apiVersion\": \"v1\", \"items\": [{\"kind\": \"Node\",\n \"metadata\": {\"name\"",
            &["cut.json:2:", "EOF while parsing"],
        ),
        (
            "deep.json",
            &deep_json,
            &["deep.json:1:", "recursion limit exceeded"],
        ),
        (
            "deep.yaml",
            &deep_yaml,
            &["deep.yaml:2:", "nesting too deep"],
        ),
    ];
    let dir = tempdir("import-bad");
    for (name, text, expected) in cases {
        let run = import_fails(&dir, name, text);
        for part in *expected {
            assert!(run.stderr.contains(part), "{name}: {part}:\n{}", run.stderr);
        }
    }
    let run = lblint(&[
        "profile",
        "import",
        dir.join("missing.yaml").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing.yaml"), "{}", run.stderr);
    let run = lblint_stdin(&["profile", "import", "-"], Some(&[0xff, 0xfe, 0x00][..]));
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
}

/// A big dump is read item by item (memory stays near the file's size: bench/README.md);
/// over `--max-file-size` it is refused with the limit and the option that raises it.
#[test]
fn a_big_dump_is_streamed_or_refused_over_the_limit() {
    let dir = tempdir("import-big");
    let path = dir.join("nodes.yaml");
    std::fs::write(&path, nodes(4000)).unwrap();
    let path = path.to_str().unwrap();
    let (profile, _) = import(&[path]);
    for line in [
        "# from the providerID aws://… of 4000 node(s), and the provider's node labels",
        "# from the lowest status.nodeInfo.kubeletVersion of 4000 node(s)\n  kubernetesVersion: v1.30.4",
        "# 2000 node(s), grouped by label eks.amazonaws.com/nodegroup",
    ] {
        assert!(profile.contains(line), "{line}:\n{profile}");
    }
    assert!(!profile.contains("ip-1"), "{profile}");
    // The same dump, piped, as JSON-free YAML: same facts.
    let piped = lblint_stdin(&["profile", "import", "-"], Some(nodes(4000).as_bytes()));
    assert_eq!(
        piped.stdout.lines().skip(1).collect::<Vec<_>>(),
        profile.lines().skip(1).collect::<Vec<_>>()
    );
    let run = lblint(&["profile", "import", "--max-file-size", "100KB", path]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("over the limit of 100000 bytes (raise it with --max-file-size)"),
        "{}",
        run.stderr
    );
    let run = lblint_stdin(
        &["profile", "import", "--max-file-size", "100KB", "-"],
        Some(nodes(4000).as_bytes()),
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--max-file-size"), "{}", run.stderr);
}

/// Values the profile cannot hold are left out and said, never written (the importer
/// checks what it writes and would stop): an image tag that is no version, a status
/// address that is neither an IP nor a DNS name. Found by mutating the dumps.
#[test]
fn values_a_profile_cannot_hold_are_left_out() {
    let dump = "apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    \
                name: scaleway-cloud-controller-manager\n    namespace: kube-system\n  spec:\n    \
                template:\n      spec:\n        containers:\n        - name: ccm\n          \
                image: docker.io/scaleway/scaleway-cloud-controller-manager:{v0.36.0\n\
                - apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n    namespace: shop\n  \
                spec:\n    type: LoadBalancer\n  status:\n    loadBalancer:\n      ingress:\n      \
                - ip: not an address\nkind: List\n";
    let args = ["profile", "import", "--provider", "scaleway", "-"];
    let run = lblint_stdin(&args, Some(dump.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stdout.contains("cloudControllerManager: \""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "#   spec.addons.cloudControllerManager: Deployment/kube-system/scaleway-cloud-controller-manager \
             image docker.io/scaleway/scaleway-cloud-controller-manager:{v0.36.0 is `{v0.36.0`, not a \
             version lblint can compare: state it by hand"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("not an address"), "{}", run.stdout);
    let path = tempdir("import-unheld").join("cluster.yaml");
    std::fs::write(&path, &run.stdout).unwrap();
    let check = lblint(&["profile", "check", path.to_str().unwrap()]);
    assert_eq!(check.code, 0, "{}", check.stderr);
}

/// An error in or next to a Secret names its file, line and column but shows none of its
/// lines, in each shape that once quoted its values; a parser's message quoting the text
/// (an alias's name) is cut too. A Node's error keeps its snippet.
#[test]
fn errors_never_quote_a_secret() {
    const NOT_SHOWN: &str = " (its lines are not shown: they may be a Secret's)";
    let secret = "- apiVersion: v1\n  data:\n    password: c2VjcmV0LXZhbHVl\n  kind: Secret\n  \
                  metadata:\n    annotations:\n      kubectl.kubernetes.io/last-applied-configuration: |\n        \
                  {\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"stringData\":{\"pw\":\"hunter2\"}}\n    \
                  name: db\n  type: Opaque\n";
    let list =
        format!("apiVersion: v1\nitems:\n{secret}kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    let in_annotation = &list[..list.find("hunter2").unwrap() + 7];
    let in_data = &list[..list.find("c2VjcmV0").unwrap() + 8];
    let syntax = list.replace("  kind: Secret", "    pw: [hunter2\n  kind: Secret");
    let alias = list.replace("  kind: Secret", "    pw: *hunter2\n  kind: Secret");
    let nothing = "nothing to import: a dump of Secret objects, which say nothing a cluster \
                   profile holds";
    let cut = "cut short: `items` without the `kind: List` that kubectl writes after them";
    // (file, text, the error's heading)
    let cases: &[(&str, &str, String)] = &[
        (
            "jq.json",
            "{\"apiVersion\":\"v1\",\"data\":{\"password\":\"c2VjcmV0LXZhbHVl\"},\"kind\":\"Secret\",\
             \"metadata\":{\"name\":\"db\"},\"stringData\":{\"pw\":\"hunter2\"},\"type\":\"Opaque\"}\n",
            format!("jq.json:1:1: {nothing}"),
        ),
        (
            "flow.yaml",
            "{apiVersion: v1, kind: Secret, metadata: {name: db}, data: {password: \
             c2VjcmV0LXZhbHVl}, stringData: {pw: hunter2}}\n",
            format!("flow.yaml:1:1: {nothing}"),
        ),
        ("annotation.yaml", in_annotation, format!("annotation.yaml:10:71: {cut}")),
        ("data.yaml", in_data, format!("data.yaml:5:23: {cut}")),
        (
            "syntax.yaml",
            &syntax,
            "syntax.yaml:7:7: illegal placement of ':' indicator".to_string(),
        ),
        (
            "alias.yaml",
            &alias,
            "alias.yaml:6:9: unknown alias `…`: no anchor `…` before it in this document"
                .to_string(),
        ),
    ];
    let dir = tempdir("import-secret");
    for (name, text, heading) in cases {
        let run = import_fails(&dir, name, text);
        // miette wraps the heading (a `│` opens each next line): compared unwrapped.
        let words = run.stderr.split_whitespace().filter(|w| *w != "│");
        let flat = words.collect::<Vec<_>>().join(" ");
        let heading = format!("× {}{heading}{NOT_SHOWN}", dir.join("").display());
        assert!(flat.contains(&heading), "{name}: {heading}\n{}", run.stderr);
        for value in ["c2VjcmV0", "hunter2"] {
            assert!(!run.stdout.contains(value), "{name}: {}", run.stdout);
            assert!(!run.stderr.contains(value), "{name}: {}", run.stderr);
        }
    }
    // Not a Secret: the snippet shows the line.
    let node = "apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n    metadata: {name: [a\n";
    let run = lblint_stdin(&["profile", "import", "-"], Some(node.as_bytes()));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(" 5 │     metadata: {name: [a\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(NOT_SHOWN), "{}", run.stderr);
}

/// An alias bomb in a dump is said to be one, at the alias (it was reported as "not a
/// kubectl dump").
#[test]
fn an_alias_bomb_is_located_at_its_alias() {
    let dir = tempdir("import-alias-bomb");
    let mut text = String::from("a0: &a0 [x]\n");
    for i in 1..30 {
        let prev = format!("*a{}", i - 1);
        text.push_str(&format!("a{i}: &a{i} [{prev}, {prev}, {prev}, {prev}]\n"));
    }
    text.push_str("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: {x: *a29}\n");
    let run = import_fails(&dir, "bomb.yaml", &text);
    assert!(
        run.stderr
            .contains("a document is not read: its aliases expand to"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("bomb.yaml:35:15"), "{}", run.stderr);
}
