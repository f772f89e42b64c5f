//! `lblint profile import FILE...`: reads the dumps (files, or `-` for standard input), and
//! prints the imported profile, or writes it to `-o FILE`. Conflicts between dumps go to
//! standard error; the profile leaves those fields out.

use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use super::{print_located_error, EXIT_FAILURE, EXIT_OK};
use crate::profile::import::{import, Input};

/// Dumps of big clusters run to hundreds of MB; beyond this a file is refused, not read.
const MAX_DUMP_BYTES: u64 = 1 << 30;

pub fn run(files: &[std::path::PathBuf], output: Option<&Path>) -> i32 {
    let mut inputs = Vec::new();
    for path in files {
        match read(path) {
            Ok(text) => inputs.push(Input {
                name: path.display().to_string(),
                text: Arc::from(text),
            }),
            Err(message) => {
                eprintln!("lblint: error: {}: {message}", path.display());
                return EXIT_FAILURE;
            }
        }
    }
    let imported = match import(inputs) {
        Ok(imported) => imported,
        Err(err) => {
            print_located_error("cannot import a profile", &err);
            return EXIT_FAILURE;
        }
    };
    for conflict in &imported.conflicts {
        eprintln!("lblint: warning: {conflict} (left out of the profile)");
    }
    match output {
        Some(path) => match std::fs::write(path, &imported.profile) {
            Ok(()) => {
                eprintln!("lblint: wrote {}", path.display());
                EXIT_OK
            }
            Err(e) => {
                eprintln!("lblint: error: cannot write {}: {e}", path.display());
                EXIT_FAILURE
            }
        },
        None => {
            print!("{}", imported.profile);
            EXIT_OK
        }
    }
}

fn read(path: &Path) -> Result<String, String> {
    let bytes = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_DUMP_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if bytes.len() as u64 > MAX_DUMP_BYTES {
            return Err(format!("over {MAX_DUMP_BYTES} bytes"));
        }
        bytes
    } else {
        crate::read::read_regular(path, MAX_DUMP_BYTES).map_err(|e| e.to_string())?
    };
    let text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))?;
    Ok(text
        .strip_prefix('\u{FEFF}')
        .map(str::to_string)
        .unwrap_or(text))
}
