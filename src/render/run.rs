//! Running the render tools: one process per root, several at a time, each stopped when it
//! runs over the time budget; stdout and stderr captured whole.

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// It could not be started.
    NotStarted(std::io::Error),
}

/// Run every job, `threads` at a time; results in job order.
pub(super) fn run_all(jobs: &[Job], timeout: Duration, threads: usize) -> Vec<Ran> {
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
                        done.push((i, run_one(job, timeout)));
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
/// polled until the deadline, with a short first wait (most renders take 0.1 s).
pub(super) fn run_one(job: &Job, timeout: Duration) -> Ran {
    let child = Command::new(&job.program)
        .args(&job.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return Ran::NotStarted(e),
    };
    let stdout = child.stdout.take().map(reader);
    let stderr = child.stderr.take().map(reader);
    let code = wait(&mut child, timeout);
    let collect = |r: Option<std::thread::JoinHandle<Vec<u8>>>| {
        r.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    match code {
        // Not joined: a grandchild may still hold the pipes open; the readers end with it.
        None => Ran::TimedOut,
        Some(code) => Ran::Done {
            code,
            stdout: collect(stdout),
            stderr: collect(stderr),
        },
    }
}

fn reader(mut from: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = from.read_to_end(&mut bytes);
        bytes
    })
}

/// The exit code (`Some(None)`: a signal), or `None` when the deadline passed and the
/// process was killed.
fn wait(child: &mut Child, timeout: Duration) -> Option<Option<i32>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.code()),
            Ok(None) if Instant::now() >= deadline => {
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
        let started = Instant::now();
        let ran = run_all(&jobs, Duration::from_millis(300), 3);
        assert!(started.elapsed() < Duration::from_secs(3), "killed in time");
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
            run_one(&missing, Duration::from_secs(1)),
            Ran::NotStarted(_)
        ));
    }
}
