//! Finding the render tools on PATH, and naming them with their versions (`-v`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::run::{run_one, Job, Ran};

/// The first executable file named `name` in a directory of `PATH`.
pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    // Only absolute entries: a relative one (`bin`, or the empty entry meaning `.`) would
    // find the linted repository's own `bin/kubectl`, a command of its choosing.
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file() || path.with_extension("exe").is_file()
}

/// `-v`'s line for a tool: its path and the version it reports (the first line of
/// `program args`), or why the version is unknown.
pub(super) fn describe(what: &str, program: &Path, args: &[&str]) -> String {
    let job = Job {
        program: program.to_path_buf(),
        args: args.iter().map(Into::into).collect(),
    };
    // A version is a line: a tool that prints more is stopped.
    let version = match run_one(&job, Duration::from_secs(10), 64 * 1024) {
        Ran::Done {
            code: Some(0),
            stdout,
            ..
        } => version_of(&String::from_utf8_lossy(&stdout)),
        _ => "version unknown".into(),
    };
    format!("render: {what} with {} ({version})", program.display())
}

/// The version lines of `kubectl version --client` or `helm version --short`, on one line.
fn version_of(out: &str) -> String {
    let lines: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.is_empty() {
        true => "version unknown".into(),
        false => lines.join(", "),
    }
}
