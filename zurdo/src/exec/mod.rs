//! Running a command the way a `[shell:]` hint runs: `sh -c` in its own
//! process group, with an allowlisted environment, stdin closed, output
//! kept bounded (its head and its tail, the total counted; see [`Keep`])
//! while an observer sees every byte as it arrives, and a deadline that
//! kills the whole group.
//!
//! **A clean parent.** The command's shell is not a child of zurdo: zurdo
//! execs a launcher (the same `sh`, with only the allowlisted environment)
//! that runs the command's shell as its child and exits as it did. So
//! `$PPID` is a process whose environment is the allowlisted one, and
//! `cat /proc/$PPID/environ` shows nothing the allowlist hides. zurdo
//! itself is the grandparent; [`protect_own_environment`] makes its
//! `/proc/<pid>/environ` (and memory) unreadable to other processes of the
//! same user. A root process can still read both; only a separate pid
//! namespace (the clean room's bubblewrap sandbox) or a separate user hides
//! zurdo from it.

mod capture;
mod poll;
pub mod reap;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use capture::Capture;
pub use capture::Keep;

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

/// What happens to a command's process group when the command (its
/// leader) exits. A deadline kills the group either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AtExit {
    /// The group is killed at once: nothing the command left in it outlives
    /// it (the default; the cargo-test harness runs criteria this way).
    #[default]
    KillGroup,
    /// The group is left running, for the caller to end later: a
    /// verification pass keeps a server one criterion started for the
    /// pass's later criteria, and kills every leftover when the pass ends
    /// ([`reap::kill_descendants`]).
    Leave,
}

/// One of a command's output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Its standard output.
    Stdout,
    /// Its standard error.
    Stderr,
}

/// A finished command and what it printed.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// What was kept of stdout: every byte when it fit the run's [`Keep`],
    /// else its head, a line `… [N bytes cut] …`, and its tail.
    pub stdout: Vec<u8>,
    /// What was kept of stderr, likewise.
    pub stderr: Vec<u8>,
    /// Bytes written to stdout in all.
    pub stdout_total: u64,
    /// Bytes written to stderr in all.
    pub stderr_total: u64,
    /// Wall time from spawn to exit (or to the kill).
    pub elapsed: Duration,
}

/// How long to wait for the output pipes to close after the shell exited
/// and its process group was killed (a process that left the group with
/// `setsid` may hold them open).
pub(crate) const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// The launcher's script (`sh -c LAUNCHER <sh> <command>`): runs the
/// command's shell as its child, then exits as it did. A shell reports a
/// child killed by signal N as status 128+N, so the launcher re-raises
/// such a signal on itself (cores off) for zurdo to see the signal; a
/// command that itself exits with 128+N of a terminating signal is thus
/// reported as killed by N (the shell cannot tell the two apart, and
/// either fails the hint). A stopping or ignored signal is never raised.
const LAUNCHER: &str = r#""$0" -c "$1"
s=$?
if [ "$s" -gt 128 ]; then
  n=$(kill -l "$s" 2>/dev/null)
  case $n in
    HUP|INT|QUIT|ILL|TRAP|ABRT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|XCPU|XFSZ|VTALRM|PROF|SYS)
      ulimit -c 0 2>/dev/null
      kill -s "$n" "$$";;
  esac
fi
exit "$s""#;

/// Makes this process's environment and memory unreadable to other
/// processes of the same user (`prctl(PR_SET_DUMPABLE, 0)` on Linux): its
/// `/proc/<pid>/environ`, `mem`, `maps` and `fd/` become root's, and no
/// same-user process can attach a debugger to it. A criterion walking up
/// from `$PPID` (the clean launcher) to zurdo then finds nothing to read.
/// Call it first thing in `main`; the `zurdo` binary and the cargo-test
/// harness runtime ([`crate::harness::main`]) do.
///
/// What it does not do: a root process still reads everything; zurdo's
/// own parent (a shell, cargo, a CI runner) and its other processes are
/// not covered and hold the environment zurdo inherited; zurdo dumps no
/// core when it crashes. Processes zurdo starts are dumpable again once
/// they exec. Returns whether the setting took (false off Linux).
pub fn protect_own_environment() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with PR_SET_DUMPABLE takes integer arguments
        // only and changes an attribute of the calling process.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

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

/// Runs `<shell> -c <script>` in `dir` with exactly `env` (under a clean
/// launcher: see the module docs), killing its process group at
/// `timeout`, keeping [`Keep::CRITERION`] of its output.
/// Background processes it leaves in its group are killed when it exits,
/// so a hint cannot leave work running behind the verdict.
pub fn run_shell(
    shell: &Path,
    script: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> std::io::Result<Finished> {
    run_shell_wrapped(&[], shell, script, dir, env, timeout)
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
    run_shell_streamed(
        wrapper,
        shell,
        script,
        dir,
        env,
        timeout,
        AtExit::KillGroup,
        &mut |_, _| {},
    )
}

/// Like [`run_shell_wrapped`], doing `at_exit` with the process group when
/// the command exits, and showing `observe` every chunk of output as it
/// arrives (all of it, also what the kept copy cuts from the middle).
#[allow(clippy::too_many_arguments)]
pub fn run_shell_streamed(
    wrapper: &[String],
    shell: &Path,
    script: &str,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
    at_exit: AtExit,
    observe: &mut dyn FnMut(Stream, &[u8]),
) -> std::io::Result<Finished> {
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(shell);
            command
        }
        None => Command::new(shell),
    };
    // `<sh> -c LAUNCHER <sh> <script>`: the launcher runs `<sh> -c <script>`.
    command
        .arg("-c")
        .arg(LAUNCHER)
        .arg(shell)
        .arg(script)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run_bounded(command, timeout, Keep::CRITERION, at_exit, observe, |_| {})
}

/// Spawns `command` in a new process group and waits for it with a
/// deadline, keeping [`Keep::GENEROUS`] of its output.
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
    command: Command,
    timeout: Duration,
    on_spawn: impl FnOnce(u32),
) -> std::io::Result<Finished> {
    run_bounded(
        command,
        timeout,
        Keep::GENEROUS,
        AtExit::KillGroup,
        &mut |_, _| {},
        on_spawn,
    )
}

/// The general form: spawns `command` in a new process group, tells
/// `on_spawn` its id, shows `observe` every chunk of output as it arrives,
/// keeps `keep` of each stream, kills the group at `timeout`, and does
/// `at_exit` with it when the command exits first.
pub fn run_bounded(
    mut command: Command,
    timeout: Duration,
    keep: Keep,
    at_exit: AtExit,
    observe: &mut dyn FnMut(Stream, &[u8]),
    on_spawn: impl FnOnce(u32),
) -> std::io::Result<Finished> {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let start = Instant::now();
    let child = command.spawn()?;
    on_spawn(child.id());
    let wait = Wait {
        start,
        timeout,
        keep,
        at_exit,
    };
    match poll::pidfd(child.id()) {
        Some(pidfd) => poll::wait(child, &pidfd, wait, observe),
        None => run_threaded(child, wait, observe),
    }
}

/// How to wait for a spawned command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wait {
    /// When it was spawned.
    pub start: Instant,
    /// How long it may run.
    pub timeout: Duration,
    /// What to keep of its output.
    pub keep: Keep,
    /// What to do with its group when it exits.
    pub at_exit: AtExit,
}

impl Wait {
    /// Ends the group of the exited leader `group`, as `at_exit` says.
    pub(crate) fn exited(&self, group: i32) {
        if self.at_exit == AtExit::KillGroup {
            kill_group(group);
        }
    }
}

/// `start + timeout`, or a deadline some 136 years out when the clock
/// cannot hold that sum (a timeout too large to mean anything never
/// panics).
pub(crate) fn deadline(start: Instant, timeout: Duration) -> Instant {
    start
        .checked_add(timeout)
        .or_else(|| start.checked_add(Duration::from_secs(u64::from(u32::MAX))))
        .unwrap_or(start)
}

/// What the helper threads of [`run_threaded`] report.
enum Event {
    /// Output arrived.
    Data(Stream, Vec<u8>),
    /// A pipe reached its end (or failed).
    End,
    /// The child exited.
    Exited(std::io::Result<ExitStatus>),
}

/// Waits with a waiter thread and two reader threads, which hand every
/// chunk to this thread (where it is observed and captured).
fn run_threaded(
    mut child: Child,
    how: Wait,
    observe: &mut dyn FnMut(Stream, &[u8]),
) -> std::io::Result<Finished> {
    let Wait {
        start,
        timeout,
        keep,
        ..
    } = how;
    let group = child.id() as i32;
    // Bounded, so a fast writer waits for this thread rather than queueing
    // without end; a reader left behind (a pipe held open by a process that
    // left the group) ends when its next send finds nobody listening.
    let (tx, rx) = mpsc::sync_channel(64);
    let mut open = usize::from(reader(child.stdout.take(), Stream::Stdout, &tx))
        + usize::from(reader(child.stderr.take(), Stream::Stderr, &tx));
    let waiter = tx.clone();
    thread::spawn(move || {
        let _ = waiter.send(Event::Exited(child.wait()));
    });
    drop(tx);
    let mut out = Capture::new(keep);
    let mut err = Capture::new(keep);
    let deadline = deadline(start, timeout);
    let mut timed_out = false;
    let mut ending: Option<Ending> = None;
    let mut elapsed = Duration::ZERO;
    let mut drain_until = deadline;
    loop {
        if ending.is_some() && open == 0 {
            break;
        }
        let now = Instant::now();
        if ending.is_none() && !timed_out && now >= deadline {
            kill_group(group);
            timed_out = true;
        }
        if ending.is_some() && now >= drain_until {
            break;
        }
        let wait = match ending {
            Some(_) => drain_until - now,
            // Killed: the waiter reports the exit in a moment.
            None if timed_out => Duration::from_millis(50),
            None => deadline - now,
        };
        match rx.recv_timeout(wait) {
            Ok(Event::Data(stream, bytes)) => {
                observe(stream, &bytes);
                match stream {
                    Stream::Stdout => out.push(&bytes),
                    Stream::Stderr => err.push(&bytes),
                }
            }
            Ok(Event::End) => open = open.saturating_sub(1),
            Ok(Event::Exited(status)) => {
                let status = status?;
                elapsed = start.elapsed();
                if timed_out {
                    kill_group(group);
                } else {
                    how.exited(group);
                }
                ending = Some(if timed_out {
                    Ending::TimedOut
                } else {
                    ending_of(status)
                });
                drain_until = Instant::now() + DRAIN_GRACE;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    Ok(Finished {
        ending: ending.unwrap_or(Ending::TimedOut),
        stdout_total: out.total(),
        stderr_total: err.total(),
        stdout: out.into_bytes(),
        stderr: err.into_bytes(),
        elapsed,
    })
}

/// Reads `pipe` to its end in a thread, sending each chunk; false when
/// there is no pipe.
fn reader<R: Read + Send + 'static>(
    pipe: Option<R>,
    stream: Stream,
    tx: &mpsc::SyncSender<Event>,
) -> bool {
    let Some(mut pipe) = pipe else {
        return false;
    };
    let tx = tx.clone();
    thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(Event::Data(stream, chunk[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(Event::End);
    });
    true
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_timeout_too_large_for_the_clock_is_a_far_deadline_not_a_panic() {
        let start = Instant::now();
        assert!(super::deadline(start, Duration::MAX) > start + Duration::from_secs(86_400 * 365));
        assert_eq!(
            super::deadline(start, Duration::from_secs(5)),
            start + Duration::from_secs(5)
        );
    }

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
        let script = "echo out; echo err >&2; exit 3";
        let (finished, _) = bounded(script, true, Keep::CRITERION, Duration::from_secs(10));
        assert_eq!(finished.ending, Ending::Exited(3));
        assert_eq!(finished.stdout, b"out\n");
        assert_eq!(finished.stderr, b"err\n");
    }

    #[test]
    fn the_thread_fallback_kills_at_the_deadline() {
        let started = Instant::now();
        let (finished, _) = bounded(
            "sleep 30",
            true,
            Keep::CRITERION,
            Duration::from_millis(200),
        );
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

    /// Runs `script` through the pidfd wait (`threaded`: the thread
    /// fallback), keeping `keep`, counting what the observer saw.
    fn bounded(script: &str, threaded: bool, keep: Keep, timeout: Duration) -> (Finished, u64) {
        let mut seen = 0u64;
        let mut observe = |_: Stream, chunk: &[u8]| seen += chunk.len() as u64;
        let finished = if threaded {
            let child = shell(script).process_group(0).spawn().expect("spawn");
            let wait = Wait {
                start: Instant::now(),
                timeout,
                keep,
                at_exit: AtExit::KillGroup,
            };
            run_threaded(child, wait, &mut observe)
        } else {
            run_bounded(
                shell(script),
                timeout,
                keep,
                AtExit::KillGroup,
                &mut observe,
                |_| {},
            )
        }
        .expect("run");
        (finished, seen)
    }

    #[test]
    fn output_is_kept_bounded_head_and_tail_and_counted_whole() {
        for threaded in [false, true] {
            let (f, seen) = bounded(
                "seq 1 1000000",
                threaded,
                Keep::CRITERION,
                Duration::from_secs(30),
            );
            assert_eq!(f.ending, Ending::Exited(0));
            assert_eq!(f.stdout_total, 6_888_896);
            assert_eq!(seen, 6_888_896, "the observer sees every byte");
            assert!(f.stdout.starts_with(b"1\n2\n3\n"));
            assert!(f.stdout.ends_with(b"999999\n1000000\n"));
            let marker = format!("\n… [{} bytes cut] …\n", 6_888_896 - 2 * 1024 * 1024);
            assert_eq!(f.stdout.len(), 2 * 1024 * 1024 + marker.len());
            assert!(String::from_utf8_lossy(&f.stdout).contains(&marker));
            // A short stream is whole, unmarked.
            let (f, _) = bounded(
                "echo hi; echo err >&2",
                threaded,
                Keep::CRITERION,
                Duration::from_secs(10),
            );
            assert_eq!((f.stdout.as_slice(), f.stdout_total), (&b"hi\n"[..], 3));
            assert_eq!((f.stderr.as_slice(), f.stderr_total), (&b"err\n"[..], 4));
        }
    }

    #[test]
    fn output_without_end_costs_bounded_memory_until_the_deadline() {
        for threaded in [false, true] {
            let keep = Keep {
                head: 1024,
                tail: 1024,
            };
            let (f, seen) = bounded("yes", threaded, keep, Duration::from_millis(700));
            assert_eq!(f.ending, Ending::TimedOut);
            assert!(f.stdout_total > 1 << 20, "{}", f.stdout_total);
            assert_eq!(seen, f.stdout_total);
            assert!(f.stdout.len() < 2048 + 64, "{}", f.stdout.len());
            assert!(f.stdout.starts_with(b"y\ny\n") && f.stdout.ends_with(b"y\n"));
        }
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
