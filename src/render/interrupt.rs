//! SIGINT or SIGTERM while rendering (a cancelled CI job, Ctrl-C): the tools' process
//! groups are killed and the temporary folders removed before lblint exits (130 or 143, as
//! a shell reports a signal), as when a render ends normally. Without this the tool kept
//! running and the folder stayed behind.

use std::path::PathBuf;
use std::sync::{Mutex, Once, PoisonError};

/// The process groups of the tools running now (each tool leads its own).
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// The temporary folders of the renders running now.
static SCRATCH: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Watch for SIGINT and SIGTERM from the first render on (a thread that waits for them).
pub(super) fn install() {
    INSTALL.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
                return;
            };
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    clean_up();
                    std::process::exit(128 + signal);
                }
            });
        }
    });
}

pub(super) fn started(group: u32) {
    lock(&RUNNING).push(group);
}

pub(super) fn finished(group: u32) {
    lock(&RUNNING).retain(|g| *g != group);
}

pub(super) fn scratch_made(dir: PathBuf) {
    lock(&SCRATCH).push(dir);
}

pub(super) fn scratch_gone(dir: &std::path::Path) {
    lock(&SCRATCH).retain(|d| d != dir);
}

/// Kill the process group `group` leads: a tool that ended or ran over its budget
/// (`run.rs`), or every running one on a signal.
pub(super) fn kill_group_of(group: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(group)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = group;
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking render thread must not stop the clean-up.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn clean_up() {
    for group in lock(&RUNNING).iter() {
        kill_group_of(*group);
    }
    for dir in lock(&SCRATCH).iter() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
