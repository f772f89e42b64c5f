//! Writing back: the file must still hold what was linted, and keep its encoding.

use std::collections::HashSet;

use super::*;
use crate::check::{check, CheckOptions, Inputs};
use crate::fix::{plan_round, FileFix};

const UNQUOTED: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  annotations:\n    scrape: true\n";
const QUOTED: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  annotations:\n    scrape: \"true\"\n";

/// Lint `dir` and plan one round of safe fixes, as `--fix` does before writing.
fn planned(dir: &Path) -> Vec<FileFix> {
    let options = CheckOptions {
        inputs: Inputs {
            paths: vec![dir.to_path_buf()],
            ..Inputs::default()
        },
        ..CheckOptions::default()
    };
    let outcome = check(&options, &crate::profile::generic()).unwrap();
    plan_round(outcome, false, &mut HashSet::new(), &HashSet::new()).files
}

#[test]
fn a_file_saved_between_lint_and_write_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("svc.yaml");
    fs::write(&file, UNQUOTED).unwrap();
    let roots = Roots::of(&[dir.path().to_path_buf()]);
    let fixes = planned(dir.path());
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0].after, QUOTED);

    // Someone's editor saves the file after lint read it: their text wins.
    let edited = UNQUOTED.replace("name: api", "name: api-v2");
    fs::write(&file, &edited).unwrap();
    let fix = &fixes[0];
    let refused = write_back(&fix.path, &fix.before.text, &fix.after, &roots).unwrap_err();
    assert_eq!(
        refused,
        "it changed on disk since it was linted; run lblint again"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), edited);

    // Linted again, the edited file is fixed; no temporary file is left behind.
    let fix = &planned(dir.path())[0];
    write_back(&fix.path, &fix.before.text, &fix.after, &roots).unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        QUOTED.replace("name: api", "name: api-v2")
    );
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["svc.yaml"]);
}

#[test]
fn a_file_that_grew_or_is_now_a_folder_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("svc.yaml");
    fs::write(&file, UNQUOTED).unwrap();
    let roots = Roots::of(&[dir.path().to_path_buf()]);
    let fix = planned(dir.path()).remove(0);
    fs::write(&file, UNQUOTED.repeat(3)).unwrap();
    assert_eq!(
        write_back(&fix.path, &fix.before.text, &fix.after, &roots).unwrap_err(),
        changed()
    );
    fs::remove_file(&file).unwrap();
    fs::create_dir(&file).unwrap();
    assert_eq!(
        write_back(&fix.path, &fix.before.text, &fix.after, &roots).unwrap_err(),
        "it is no longer a regular file"
    );
}

#[test]
fn encodings_are_written_back_as_they_were_read() {
    for (encoding, first) in [
        (Encoding::Utf8, &b"ki"[..]),
        (Encoding::Utf8Bom, &[0xEF, 0xBB, 0xBF, b'k'][..]),
        (Encoding::Utf16Le, &[0xFF, 0xFE, b'k', 0][..]),
        (Encoding::Utf16Be, &[0xFE, 0xFF, 0, b'k'][..]),
    ] {
        let bytes = encoding.encode("kind: café\r\n");
        assert!(bytes.starts_with(first), "{encoding:?}: {bytes:?}");
        assert_eq!(Encoding::of(&bytes), encoding);
        assert_eq!(crate::load::decode(bytes).unwrap(), "kind: café\r\n");
    }
}

/// `check` also drops a UTF-8 BOM after a UTF-16 one: that file cannot be written back
/// byte for byte, so it is refused, not silently changed.
#[test]
fn a_text_that_does_not_round_trip_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("svc.yaml");
    let bytes: Vec<u8> = "\u{FEFF}\u{FEFF}"
        .chars()
        .chain(UNQUOTED.chars())
        .collect::<String>()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    fs::write(&file, &bytes).unwrap();
    let fix = planned(dir.path()).remove(0);
    let roots = Roots::of(&[dir.path().to_path_buf()]);
    assert_eq!(
        write_back(&fix.path, &fix.before.text, &fix.after, &roots).unwrap_err(),
        "its encoding would not be written back byte for byte"
    );
    assert_eq!(fs::read(&file).unwrap(), bytes);
}

#[test]
fn roots_are_named_folders_and_the_folders_of_named_files() {
    let dir = tempfile::tempdir().unwrap();
    let real = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir(real.join("sub")).unwrap();
    fs::write(real.join("sub/a.yaml"), "").unwrap();
    let roots = Roots::of(&[real.join("sub/a.yaml"), PathBuf::from("-")]);
    assert!(roots.contain(&real.join("sub/b.yaml")));
    assert!(!roots.contain(&real.join("b.yaml")));
    let roots = Roots::of(&[real.join("sub/../sub")]);
    assert!(roots.contain(&real.join("sub/a.yaml")));
    assert!(!roots.contain(&real.join("subway/a.yaml")));
}

#[test]
fn a_rewrite_that_would_break_the_yaml_is_dropped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("svc.yaml"), UNQUOTED).unwrap();
    let options = CheckOptions {
        inputs: Inputs {
            paths: vec![dir.path().to_path_buf()],
            ..Inputs::default()
        },
        ..CheckOptions::default()
    };
    let mut outcome = check(&options, &crate::profile::generic()).unwrap();
    // K8S002's quoting fix, made to leave an unterminated quote.
    let d = &mut outcome.diagnostics[0];
    let mut fix = d.fix().unwrap().to_fix();
    fix.edits[0].content = "\"true".to_string();
    *d = d.clone().with_fix(fix);
    let round = plan_round(outcome, false, &mut HashSet::new(), &HashSet::new());
    assert!(round.files.is_empty());
    assert_eq!(round.breaking.len(), 1);
    assert!(
        round.breaking[0].ends_with("svc.yaml"),
        "{:?}",
        round.breaking
    );
}
