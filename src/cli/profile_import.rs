//! `lblint profile import FILE...`: reads the dumps (files, or `-` for standard input), and
//! prints the imported profile, or writes it to `-o FILE`. Conflicts between dumps go to
//! standard error; the profile leaves those fields out.

use std::io::Read as _;
use std::path::Path;

use super::{print_located_error, EXIT_FAILURE, EXIT_OK};
use crate::profile::import::{import, Input};

/// `max_file_size`: dumps of big clusters run to hundreds of MB; beyond this a file is
/// refused, not read (`--max-file-size`).
pub(crate) fn run(
    files: &[std::path::PathBuf],
    output: Option<&Path>,
    max_file_size: u64,
    provider: Option<crate::profile::Provider>,
) -> i32 {
    let mut inputs = Vec::new();
    for path in files {
        match read(path, max_file_size) {
            Ok(text) => inputs.push(Input {
                name: path.display().to_string(),
                text,
            }),
            Err(message) => {
                eprintln!("lblint: error: {}: {message}", path.display());
                return EXIT_FAILURE;
            }
        }
    }
    let imported = match import(inputs, provider) {
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

fn read(path: &Path, limit: u64) -> Result<String, String> {
    let too_large = |len: String| {
        format!("{len}, over the limit of {limit} bytes (raise it with --max-file-size)")
    };
    let bytes = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        if bytes.len() as u64 > limit {
            return Err(too_large("standard input is longer".to_string()));
        }
        bytes
    } else {
        crate::read::read_regular(path, limit).map_err(|e| match e {
            crate::read::ReadError::TooLarge { len, .. } => too_large(format!("it is {len} bytes")),
            e => e.to_string(),
        })?
    };
    let mut text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))?;
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}
