//! Running the render tools: one process per root, several at a time, each stopped when it
//! runs over the time budget with everything it started; stdout and stderr captured whole.

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// One process to run.
#[derive(Clone, Debug)]
pub(super) struct Job {
    pub(super) program: PathBuf,
    pub(super) args: Vec<OsString>,
}

/// How it ended.
#[derive(Debug)]
pub(super) enum Ran {
    /// It exited (`code` is `None` when a signal ended it).
    Done {
        code: Option<i32>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    /// It ran over the budget and was killed.
    TimedOut,
    /// It printed more than this many bytes (the `--max-file-size` budget) and was killed.
    TooLarge(u64),
    /// It could not be started.
    NotStarted(std::io::Error),
}

/// Run every job, `threads` at a time; results in job order.
pub(super) fn run_all(
    jobs: &[Job],
    timeout: Duration,
    max_output: u64,
    threads: usize,
) -> Vec<Ran> {
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, jobs.len().max(1));
    let mut done: Vec<(usize, Ran)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        done.push((i, run_one(job, timeout, max_output)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, ran)| ran).collect()
}

/// Run one job: its output read on two threads (a full pipe would stall it), its exit
/// polled until the deadline, with a short first wait (most renders take 0.1 s). The tool
/// runs in a process group of its own, killed whole when it ends or runs over the budget:
/// nothing it started in the background outlives it or holds its pipes open. Its output is
/// read up to `max_output` bytes (stderr up to a tenth of that): past it the tool is
/// stopped, so a render that never ends its output costs no more memory than a file lblint
/// would read.
pub(super) fn run_one(job: &Job, timeout: Duration, max_output: u64) -> Ran {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(&job.program);
    command
        .args(&job.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return Ran::NotStarted(e),
    };
    super::interrupt::started(child.id());
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stdout = child
        .stdout
        .take()
        .map(|o| reader(o, max_output, over.clone()));
    let stderr = child
        .stderr
        .take()
        .map(|e| reader(e, max_output / 10, over.clone()));
    let code = wait(&mut child, deadline, &over);
    kill_group(&child);
    super::interrupt::finished(child.id());
    // The group is gone, so the pipes close at once; a process that left the group (setsid)
    // may still hold them, and is waited for no longer than the budget.
    let until = deadline.max(Instant::now() + Duration::from_millis(200));
    let collect = |r: Option<Receiver<Vec<u8>>>| match r {
        None => Some(Vec::new()),
        Some(r) => match r.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(bytes) => Some(bytes),
            Err(RecvTimeoutError::Disconnected) => Some(Vec::new()),
            Err(RecvTimeoutError::Timeout) => None,
        },
    };
    if over.load(Ordering::Relaxed) {
        return Ran::TooLarge(max_output);
    }
    let Some(code) = code else {
        return Ran::TimedOut;
    };
    match (collect(stdout), collect(stderr)) {
        (Some(stdout), Some(stderr)) => Ran::Done {
            code,
            stdout,
            stderr,
        },
        _ => Ran::TimedOut,
    }
}

/// Everything left in the child's process group (its own pid: `process_group(0)`). The
/// child is reaped by then, so its pid could name a new group only after the kernel's
/// pids wrapped around within these few milliseconds.
fn kill_group(child: &Child) {
    super::interrupt::kill_group_of(child.id());
}

/// Read a pipe to its end, or to `limit` bytes: one more sets `over` and stops reading.
fn reader(
    from: impl Read + Send + 'static,
    limit: u64,
    over: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Receiver<Vec<u8>> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.take(limit.saturating_add(1)).read_to_end(&mut bytes);
        if bytes.len() as u64 > limit {
            over.store(true, Ordering::Relaxed);
            bytes.clear();
        }
        let _ = send.send(bytes);
    });
    receive
}

/// The exit code (`Some(None)`: a signal), or `None` when the deadline passed (or the
/// output ran over its limit) and the process was killed, with its group.
fn wait(
    child: &mut Child,
    deadline: Instant,
    over: &std::sync::atomic::AtomicBool,
) -> Option<Option<i32>> {
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.code()),
            Ok(None) if Instant::now() >= deadline || over.load(Ordering::Relaxed) => {
                kill_group(child);
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => {
                std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(_) => return Some(child.wait().ok().and_then(|s| s.code())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Job {
        Job {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    #[test]
    fn output_exit_codes_and_timeouts() {
        let jobs = [
            sh("echo out; echo err >&2; exit 3"),
            sh("sleep 5"),
            sh("exit 0"),
        ];
        let ran = run_all(&jobs, Duration::from_millis(300), u64::MAX, 3);
        match &ran[0] {
            Ran::Done {
                code,
                stdout,
                stderr,
            } => {
                assert_eq!(*code, Some(3));
                assert_eq!(stdout, b"out\n");
                assert_eq!(stderr, b"err\n");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(ran[1], Ran::TimedOut), "{:?}", ran[1]);
        assert!(matches!(ran[2], Ran::Done { code: Some(0), .. }));
        let missing = Job {
            program: "/nonexistent/tool".into(),
            args: Vec::new(),
        };
        assert!(matches!(
            run_one(&missing, Duration::from_secs(1), u64::MAX),
            Ran::NotStarted(_)
        ));
    }

    /// Whether process `pid` is gone (or a zombie: killed, not yet reaped by init) within
    /// ten seconds: a guard against a process left running, not a bound on speed.
    fn gone(pid: &str) -> bool {
        let waited = Instant::now();
        while waited.elapsed() < Duration::from_secs(10) {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
            let stat = stat.unwrap_or_default();
            let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
            if stat.is_empty() || state.starts_with('Z') {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// A tool that leaves a child in the background (which would write a file after its
    /// sleep): its output comes back when it exits, not when the child would, and the
    /// child is killed before it writes; over the budget, the whole group.
    #[test]
    fn background_children_neither_hold_the_run_nor_outlive_it() {
        let dir = tempfile::tempdir().unwrap();
        let done = dir.path().join("done");
        let script = format!("(sleep 30 && : > '{}') & echo $!", done.display());
        let ran = run_one(&sh(&script), Duration::from_secs(60), u64::MAX);
        assert!(!done.exists(), "the run waited for its background child");
        let Ran::Done { code, stdout, .. } = ran else {
            panic!("{ran:?}")
        };
        assert_eq!(code, Some(0));
        let pid = String::from_utf8(stdout).unwrap();
        assert!(gone(&pid), "background child {pid} still runs");
        let file = dir.path().join("pid");
        let script = format!("sleep 30 & echo $! > '{}'; sleep 30", file.display());
        let ran = run_one(&sh(&script), Duration::from_millis(500), u64::MAX);
        assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
        let pid = std::fs::read_to_string(&file).unwrap();
        assert!(gone(&pid), "background child {pid} outlived the timeout");
    }
}
