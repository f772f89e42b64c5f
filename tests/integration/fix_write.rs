//! `--fix` on disk: exact bytes (BOM, CRLF, UTF-16), permissions, links out of the tree,
//! names that are not UTF-8, and a write that fails half-way.
#![cfg(unix)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::cli::tempdir;
use crate::{findings, lblint, lblint_command, lblint_os, shown};

/// A Service with one safe fix (K8S002 quotes `true`) and, with --unsafe-fixes, one that
/// adds a line (TKE001 inserts prevent-loopback after the subnet annotation).
fn service(name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  annotations:\n    \
         service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111\n    \
         scrape: true\nspec:\n  type: LoadBalancer\n  ports:\n    - port: 80\n"
    )
}

fn quoted(name: &str) -> String {
    service(name).replace("scrape: true", "scrape: \"true\"")
}

fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn bom_crlf_and_utf16_files_keep_their_bytes() {
    let dir = tempdir("fixw-bytes");
    let bom = [&[0xEF, 0xBB, 0xBF][..], service("bom").as_bytes()].concat();
    fs::write(dir.join("bom.yaml"), &bom).unwrap();
    fs::write(dir.join("crlf.yaml"), crlf(&service("crlf"))).unwrap();
    let utf16 = |text: &str| -> Vec<u8> {
        std::iter::once(0xFEFF)
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect()
    };
    fs::write(dir.join("utf16.yaml"), utf16(&service("wide"))).unwrap();
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        "--select",
        "K8S002,TKE001",
        arg(&dir),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "lblint: fixed 6 problems\n");

    let added = |text: String| {
        text.replace(
            "subnet-11111111\n",
            "subnet-11111111\n    service.cloud.tencent.com/prevent-loopback: \"true\"\n",
        )
    };
    let want_bom = [&[0xEF, 0xBB, 0xBF][..], added(quoted("bom")).as_bytes()].concat();
    assert_eq!(fs::read(dir.join("bom.yaml")).unwrap(), want_bom);
    // The inserted line ends in CRLF like the others.
    assert_eq!(
        fs::read_to_string(dir.join("crlf.yaml")).unwrap(),
        crlf(&added(quoted("crlf")))
    );
    assert_eq!(
        fs::read(dir.join("utf16.yaml")).unwrap(),
        utf16(&added(quoted("wide")))
    );
}

#[test]
fn permissions_are_kept() {
    let dir = tempdir("fixw-mode");
    let file = dir.join("svc.yaml");
    fs::write(&file, service("api")).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let run = lblint(&["check", "--fix", arg(&file)]);
    assert_eq!(run.stderr, "lblint: fixed 1 problem\n");
    assert_eq!(fs::read_to_string(&file).unwrap(), quoted("api"));
    let mode = fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o640, "{mode:o}");
}

/// A link inside the linted folder that leads out of it is linted (--follow-links, or
/// named) but never written through; a link that stays inside writes its target once
/// (one problem fixed, linted under two names), and stays a link.
#[test]
fn links_out_of_the_linted_folder_are_not_written() {
    let dir = tempdir("fixw-links");
    let (tree, outside) = (dir.join("tree"), dir.join("outside"));
    fs::create_dir_all(tree.join("real")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.yaml"), service("outside")).unwrap();
    fs::write(tree.join("real/svc.yaml"), service("inside")).unwrap();
    std::os::unix::fs::symlink("../outside/secret.yaml", tree.join("out.yaml")).unwrap();
    std::os::unix::fs::symlink("real/svc.yaml", tree.join("in.yaml")).unwrap();

    let run = lblint(&[
        "check",
        "--fix",
        "--follow-links",
        "--format",
        "json",
        arg(&tree),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let shown = shown(&tree);
    let real = fs::canonicalize(&outside).unwrap();
    assert_eq!(
        run.stderr,
        format!(
            "lblint: error: cannot fix {shown}/out.yaml: it resolves to {}/secret.yaml, outside \
             the paths being linted; it is left as it was\nlblint: fixed 1 problem\n",
            real.display()
        )
    );
    assert_eq!(
        fs::read_to_string(outside.join("secret.yaml")).unwrap(),
        service("outside")
    );
    assert_eq!(
        fs::read_to_string(tree.join("real/svc.yaml")).unwrap(),
        quoted("inside")
    );
    assert!(fs::symlink_metadata(tree.join("in.yaml"))
        .unwrap()
        .file_type()
        .is_symlink());
    // The report still comes, with what is left: the finding in the file not written.
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let left: Vec<(String, String)> = findings(&report)
        .into_iter()
        .filter(|f| f.0 == "K8S002")
        .map(|f| (f.0, f.2))
        .collect();
    assert_eq!(left, vec![("K8S002".into(), format!("{shown}/out.yaml"))]);

    // Named on the command line, the link's root is its folder: still outside.
    let run = lblint(&["check", "--fix", arg(&tree.join("out.yaml"))]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("outside the paths being linted"),
        "{}",
        run.stderr
    );
    assert_eq!(
        fs::read_to_string(outside.join("secret.yaml")).unwrap(),
        service("outside")
    );
}

/// Both names displayed as `a\u{FFFD}.yaml` before: neither was fixed (the lossy name was
/// opened instead). Each gets its own fixed text.
#[test]
fn names_that_are_not_utf8_are_fixed_in_place() {
    let dir = tempdir("fixw-names");
    let ff = dir.join(OsStr::from_bytes(b"a\xff.yaml"));
    let fe = dir.join(OsStr::from_bytes(b"a\xfe.yaml"));
    fs::write(&ff, service("ff")).unwrap();
    fs::write(&fe, service("fe")).unwrap();
    let run = lblint_os(&[
        OsStr::new("check"),
        OsStr::new("--fix"),
        ff.as_os_str(),
        fe.as_os_str(),
    ]);
    assert_eq!(run.stderr, "lblint: fixed 2 problems\n");
    assert_eq!(fs::read_to_string(&ff).unwrap(), quoted("ff"));
    assert_eq!(fs::read_to_string(&fe).unwrap(), quoted("fe"));
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
}

/// A write that fails half-way, as on a full disk: here the file-size limit (`ulimit -f`,
/// 512 or 1024 bytes; it binds root too) stops the big file's new text. The old --fix
/// truncated first and left a cut file. Now the big file is untouched, the small one is
/// fixed, the report is printed, and the exit status is 2.
#[test]
fn a_failed_write_leaves_the_file_and_fixes_the_others() {
    let dir = tempdir("fixw-full");
    let big = dir.join("big.yaml");
    let small = dir.join("small.yaml");
    let padding = "# padding to pass the file-size limit\n".repeat(100);
    let big_text = format!("{padding}{}", service("big"));
    fs::write(&big, &big_text).unwrap();
    fs::write(&small, service("small")).unwrap();
    assert!(service("small").len() < 512 && big_text.len() > 2048);

    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg("ulimit -f 1 && trap '' XFSZ && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_lblint"));
    let run = lblint_command(
        ".",
        &["check", "--fix", "--format", "compact", arg(&dir)],
        None,
        limited,
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let shown = shown(&dir);
    assert!(
        run.stderr.starts_with(&format!(
            "lblint: error: cannot fix {shown}/big.yaml: cannot write the fixed text: "
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("; it is left as it was\nlblint: fixed 1 problem\n"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(&big).unwrap(), big_text);
    assert_eq!(fs::read_to_string(&small).unwrap(), quoted("small"));
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        2,
        "a temporary file was left"
    );
    assert!(
        run.stdout
            .contains(&format!("{shown}/big.yaml:107:13: error[K8S002]")),
        "{}",
        run.stdout
    );
}
