//! Running a command the way a `[shell:]` hint runs: `sh -c` in its own
//! process group, with an allowlisted environment, stdin closed, output
//! captured whole, and a deadline that kills the whole group.

mod poll;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (not ours).
    Signaled(i32),
    /// It ran past its deadline and zurdo killed its process group.
    TimedOut,
}

/// A finished command and everything it printed.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Everything written to stdout.
    pub stdout: Vec<u8>,
    /// Everything written to stderr.
    pub stderr: Vec<u8>,
    /// Wall time from spawn to exit (or to the kill).
    pub elapsed: Duration,
}

/// How long to wait for the output pipes to close after the shell exited
/// and its process group was killed (a process that left the group with
/// `setsid` may hold them open).
pub(crate) const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Finds `sh` on the `PATH` of `env` (else `/bin/sh`), once, so each hint
/// spawns it by absolute path: std can then use `posix_spawn` instead of a
/// full `fork` that walks `PATH` in the child.
pub fn find_shell(env: &[(String, String)]) -> PathBuf {
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    std::env::split_paths(path)
        .map(|dir| dir.join("sh"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from("/bin/sh"))
}

/// Runs `<shell> -c <script>` in `dir` with exactly `env`, killing its
/// process group at `timeout`. Background processes it leaves in its group
/// are killed when it exits, so a hint cannot leave work running behind the
/// verdict.
pub fn run_shell(
    shell: &Path,
    script: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> std::io::Result<Finished> {
    let mut command = Command::new(shell);
    command
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run(command, timeout)
}

/// Like [`run_shell`], under `wrapper` (`<wrapper…> <shell> -c <script>`);
/// an empty wrapper runs the shell directly.
pub fn run_shell_wrapped(
    wrapper: &[String],
    shell: &Path,
    script: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> std::io::Result<Finished> {
    let Some((program, args)) = wrapper.split_first() else {
        return run_shell(shell, script, dir, env, timeout);
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .arg(shell)
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run(command, timeout)
}

/// Spawns `command` in a new process group and waits for it with a deadline.
///
/// On Linux the wait is one `poll` over a pidfd and both pipes, with no
/// helper threads; where `pidfd_open` is unavailable, threads wait instead.
pub fn run(command: Command, timeout: Duration) -> std::io::Result<Finished> {
    run_observed(command, timeout, |_| {})
}

/// Like [`run`], telling `on_spawn` the new process group's id (the child's
/// pid) so a caller can kill the group from elsewhere, e.g. on a second
/// Ctrl-C.
pub fn run_observed(
    mut command: Command,
    timeout: Duration,
    on_spawn: impl FnOnce(u32),
) -> std::io::Result<Finished> {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let start = Instant::now();
    let child = command.spawn()?;
    on_spawn(child.id());
    match poll::pidfd(child.id()) {
        Some(pidfd) => poll::wait(child, &pidfd, start, timeout),
        None => run_threaded(child, start, timeout),
    }
}

/// Waits with a waiter thread and two reader threads.
fn run_threaded(mut child: Child, start: Instant, timeout: Duration) -> std::io::Result<Finished> {
    let group = child.id() as i32;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());

    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let ending = match rx.recv_timeout(timeout) {
        Ok(status) => {
            let status = status?;
            kill_group(group);
            ending_of(status)
        }
        Err(_) => {
            kill_group(group);
            let _ = rx.recv();
            Ending::TimedOut
        }
    };
    let elapsed = start.elapsed();
    Ok(Finished {
        ending,
        stdout: stdout.collect(),
        stderr: stderr.collect(),
        elapsed,
    })
}

pub(crate) fn ending_of(status: ExitStatus) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(signal)) => Ending::Signaled(signal),
        (None, None) => Ending::Exited(-1),
    }
}

/// Sends SIGKILL to every process in the group; a group already gone is fine.
pub fn kill_group(group: i32) {
    if group > 0 {
        // SAFETY: kill(2) with a negative pid signals a process group; it
        // takes no pointers and has no memory-safety preconditions.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

/// A pipe being read to its end in a thread.
struct Drain {
    buffer: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Drain {
    /// The bytes read, waiting a short grace for the pipe to close.
    fn collect(self) -> Vec<u8> {
        let _ = self.done.recv_timeout(DRAIN_GRACE);
        match self.buffer.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Drain {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let (tx, done) = mpsc::channel();
    if let Some(mut pipe) = pipe {
        let shared = Arc::clone(&buffer);
        thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => match shared.lock() {
                        Ok(mut b) => b.extend_from_slice(&chunk[..n]),
                        Err(_) => break,
                    },
                }
            }
            let _ = tx.send(());
        });
    } else {
        let _ = tx.send(());
    }
    Drain { buffer, done }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn shell(script: &str) -> Command {
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    #[test]
    fn the_thread_fallback_captures_output_and_exit() {
        let child = shell("echo out; echo err >&2; exit 3")
            .process_group(0)
            .spawn()
            .expect("spawn");
        let finished = run_threaded(child, Instant::now(), Duration::from_secs(10)).expect("run");
        assert_eq!(finished.ending, Ending::Exited(3));
        assert_eq!(finished.stdout, b"out\n");
        assert_eq!(finished.stderr, b"err\n");
    }

    #[test]
    fn the_thread_fallback_kills_at_the_deadline() {
        let started = Instant::now();
        let child = shell("sleep 30").process_group(0).spawn().expect("spawn");
        let finished =
            run_threaded(child, Instant::now(), Duration::from_millis(200)).expect("run");
        assert_eq!(finished.ending, Ending::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_process_that_leaves_the_group_does_not_hold_the_verdict() {
        let started = Instant::now();
        let finished =
            run(shell("setsid sleep 5 & echo done"), Duration::from_secs(30)).expect("run");
        assert_eq!(finished.ending, Ending::Exited(0));
        assert_eq!(finished.stdout, b"done\n");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "waited {:?} for pipes held by an escaped process",
            started.elapsed()
        );
    }

    #[test]
    fn large_output_on_both_pipes_does_not_deadlock() {
        let finished = run(
            shell("seq 1 200000; seq 1 200000 >&2"),
            Duration::from_secs(30),
        )
        .expect("run");
        assert_eq!(finished.ending, Ending::Exited(0));
        assert_eq!(finished.stdout.len(), finished.stderr.len());
        assert!(finished.stdout.ends_with(b"200000\n"));
    }
}
