//! Running one agent attempt: the CLI's unattended command line, the repo
//! root as working directory, stdin closed (or holding the prompt, when it
//! is too long for one argument), its own process group killed at the
//! timeout, and its event stream read through the shared vocabulary.
//!
//! While it runs, a [`Watcher`] reads its output as it arrives: what it has
//! done so far ([`Progress`], for a heartbeat) and whether its CLI has said
//! it cannot work and will keep waiting (then its process group is killed
//! at once, not at the timeout). When it ends, the watcher classifies the
//! run ([`Outcome::failure`]).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use zurdo::exec::{self, AtExit, Ending, Keep, Stream};

use super::failure::{Ended, InfraFailure, Snapshot, Watcher};
use super::{vocabulary, AgentReport, Provider};

/// A fully built agent command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The program (the provider's configured command).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// The working directory (the repository root).
    pub dir: PathBuf,
    /// What the CLI reads on stdin: the prompt, when it is too long to be
    /// one argument (`None`: stdin is closed).
    pub stdin: Option<String>,
    /// The sandbox the CLI runs in (`[verification] agent_sandbox`);
    /// `None`: as is.
    pub sandbox: Option<super::sandbox::Sandbox>,
}

/// The longest prompt passed as an argument. Linux refuses one argument
/// over 128 KiB (`MAX_ARG_STRLEN`) with "Argument list too long"; a longer
/// prompt goes on stdin, each CLI its own way.
pub const ARGUMENT_PROMPT_LIMIT: usize = 100 * 1024;

/// What `gemini -p` says when the prompt arrives on stdin (the CLI appends
/// its `-p` text to what it reads there).
pub const GEMINI_STDIN_NOTE: &str = "Do the task described above.";

/// Builds the unattended command line of `provider`'s CLI (see
/// `docs/agents.md` for why each flag is there).
pub fn command_line(
    provider: Provider,
    program: &str,
    model: &str,
    prompt: &str,
    dir: &Path,
) -> Invocation {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<String>>();
    let dir_text = dir.display().to_string();
    // Too long for an argument: the prompt goes on stdin and the command
    // line takes each CLI's stdin form (claude: `-p` without a prompt;
    // codex: `-`; copilot: no `-p`; gemini: a `-p` note appended to stdin).
    let on_stdin = prompt.len() > ARGUMENT_PROMPT_LIMIT;
    const MARK: &str = "\u{0}zurdo-prompt\u{0}";
    let full_prompt = prompt;
    let prompt = if on_stdin { MARK } else { prompt };
    let (args, env) = match provider {
        Provider::Anthropic => {
            let mut env = Vec::new();
            // Claude Code refuses to skip permissions as root unless it is told it is sandboxed.
            // SAFETY: geteuid has no preconditions.
            if unsafe { libc::geteuid() } == 0 {
                env.push(("IS_SANDBOX".to_string(), "1".to_string()));
            }
            let args = s(&[
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--model",
                model,
                "--dangerously-skip-permissions",
            ]);
            (args, env)
        }
        Provider::OpenAi => (
            s(&[
                "exec",
                "--json",
                "--skip-git-repo-check",
                "-C",
                &dir_text,
                "-m",
                model,
                "--dangerously-bypass-approvals-and-sandbox",
                prompt,
            ]),
            Vec::new(),
        ),
        Provider::GitHub => (
            s(&[
                "-p",
                prompt,
                "--output-format",
                "json",
                "-C",
                &dir_text,
                "--model",
                model,
                "--allow-all-tools",
                "--no-ask-user",
                "--no-auto-update",
            ]),
            Vec::new(),
        ),
        Provider::Google => (
            s(&[
                "-p",
                prompt,
                "-o",
                "stream-json",
                "-m",
                model,
                "--approval-mode",
                "yolo",
                "--skip-trust",
            ]),
            Vec::new(),
        ),
    };
    let args = if on_stdin {
        stdin_form(provider, args, MARK)
    } else {
        args
    };
    Invocation {
        program: program.to_string(),
        args,
        env,
        dir: dir.to_path_buf(),
        stdin: on_stdin.then(|| full_prompt.to_string()),
        sandbox: None,
    }
}

/// `args` with the prompt argument (`mark`) replaced by `provider`'s way of
/// reading it from stdin.
fn stdin_form(provider: Provider, mut args: Vec<String>, mark: &str) -> Vec<String> {
    let Some(at) = args.iter().position(|a| a == mark) else {
        return args;
    };
    match provider {
        // `-p` is a flag; with no prompt argument, claude reads stdin.
        Provider::Anthropic => {
            args.remove(at);
        }
        // `-` reads the prompt from stdin.
        Provider::OpenAi => args[at] = "-".to_string(),
        // Without `-p`, a piped stdin is the prompt.
        Provider::GitHub => {
            args.drain(at.saturating_sub(1)..=at);
        }
        // stdin first, then the `-p` text.
        Provider::Google => args[at] = GEMINI_STDIN_NOTE.to_string(),
    }
    args
}

/// A file holding `text`, read from its start: the agent's stdin when the
/// prompt goes there (an anonymous in-memory file: nothing on disk, no
/// pipe to keep fed).
fn stdin_file(text: &str) -> std::io::Result<std::fs::File> {
    use std::io::{Seek, Write};
    use std::os::fd::FromRawFd;
    // SAFETY: the name is a valid NUL-terminated string; memfd_create
    // returns a new descriptor or -1.
    let fd = unsafe { libc::memfd_create(c"zurdo-prompt".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
    let mut file = unsafe { std::fs::File::from_raw_fd(fd) };
    file.write_all(text.as_bytes())?;
    file.rewind()?;
    Ok(file)
}

/// The process groups of the agents (or probes) running now, so a stop
/// can kill every one of them: probes of distinct models run at once, each
/// in a group of its own. Cloning shares the set.
#[derive(Debug, Clone, Default)]
pub struct Groups(Arc<Mutex<Vec<i32>>>);

impl Groups {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<i32>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Tracks the process group `group` (0 or one that does not fit an
    /// `i32`: nothing).
    pub fn add(&self, group: u32) {
        if let Ok(g) = i32::try_from(group) {
            if g > 0 {
                self.with(|v| v.push(g));
            }
        }
    }

    /// Stops tracking `group` (it ended).
    pub fn remove(&self, group: u32) {
        self.with(|v| v.retain(|&g| i64::from(g) != i64::from(group)));
    }

    /// Tracks `group` alone (0: none): for the loop's one agent at a time.
    pub fn set(&self, group: u32) {
        self.with(Vec::clear);
        self.add(group);
    }

    /// The groups tracked now.
    pub fn list(&self) -> Vec<i32> {
        self.with(|v| v.clone())
    }

    /// Kills every tracked group.
    pub fn kill_all(&self) {
        for g in self.list() {
            exec::kill_group(g);
        }
    }
}

/// Kills the process groups of the agents (or probes) running when this
/// process gets SIGINT or SIGTERM, then exits (130, or 143 for SIGTERM):
/// for the commands that run agents without a run loop (`zurdo doctor`,
/// `zurdo init --check-models`). The agent's CLI dies with zurdo anyway
/// (`PR_SET_PDEATHSIG`), but what it started would not.
#[derive(Debug, Clone, Default)]
pub struct KillOnSignal {
    groups: Groups,
    stopping: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl KillOnSignal {
    /// Starts watching for SIGINT and SIGTERM (a failure to watch only
    /// loses the cleanup, so it is ignored).
    pub fn install() -> KillOnSignal {
        let guard = KillOnSignal::default();
        let groups = guard.groups.clone();
        let stopping = std::sync::Arc::clone(&guard.stopping);
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
        ]) {
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    stopping.store(true, std::sync::atomic::Ordering::SeqCst);
                    groups.kill_all();
                    std::process::exit(128 + signal);
                }
            });
        }
        guard
    }

    /// Waits here for good when a signal arrived: the watcher is killing
    /// the probes and will exit with the signal's status, and the caller
    /// must not go on (or end the process first with another status)
    /// because its probes just died.
    pub fn hold_if_stopping(&self) {
        while self.stopping.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The process group to kill (0: none), alone.
    pub fn set(&self, group: u32) {
        self.groups.set(group);
    }

    /// Every process group a stop kills (for several probes at once).
    pub fn groups(&self) -> &Groups {
        &self.groups
    }
}

/// What a running agent has done so far, shared with whoever shows it (the
/// heartbeat); updated as its output arrives.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<Mutex<Snapshot>>);

impl Progress {
    /// The latest snapshot.
    pub fn get(&self) -> Snapshot {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, snapshot: Snapshot) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
    }
}

/// How one agent run went.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did (zurdo's own kill at the
    /// timeout is `timed_out` instead).
    pub signal: Option<i32>,
    /// True when it ran past the timeout and its process group was killed.
    pub timed_out: bool,
    /// Wall time.
    pub duration: Duration,
    /// Raw stdout.
    pub stdout: Vec<u8>,
    /// Raw stderr.
    pub stderr: Vec<u8>,
    /// The stream read through the vocabulary.
    pub report: AgentReport,
    /// Its CLI could not work (not logged in, out of quota, no network…):
    /// then the run is not the agent's to answer for. `stopped` on it says
    /// zurdo killed the CLI as soon as it said so.
    pub failure: Option<InfraFailure>,
}

/// Makes `command`'s process die with the thread that starts it (zurdo's,
/// or one of its threads that waits for it): the agent runs in its own
/// process group (needed for the timeout), which keeps a `kill -9` of
/// zurdo from reaching it otherwise.
pub fn die_with_zurdo(command: &mut Command) {
    // SAFETY: the closure runs between fork and exec and only calls prctl,
    // which is async-signal-safe.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// Runs `invocation` for `provider` with a deadline.
pub fn run(
    provider: Provider,
    invocation: &Invocation,
    timeout: Duration,
) -> std::io::Result<Outcome> {
    run_observed(provider, invocation, timeout, |_| {})
}

/// Like [`run`], telling `on_spawn` the agent's process group id.
pub fn run_observed(
    provider: Provider,
    invocation: &Invocation,
    timeout: Duration,
    on_spawn: impl FnOnce(u32),
) -> std::io::Result<Outcome> {
    run_watched(
        provider,
        invocation,
        timeout,
        on_spawn,
        &mut |_, _| {},
        None,
    )
}

/// Like [`run_observed`], also handing `tee` every chunk of output as it
/// arrives (to stream it to a file) and keeping `progress` up to date.
pub fn run_watched(
    provider: Provider,
    invocation: &Invocation,
    timeout: Duration,
    on_spawn: impl FnOnce(u32),
    tee: &mut dyn FnMut(Stream, &[u8]),
    progress: Option<&Progress>,
) -> std::io::Result<Outcome> {
    // The CLI runs under a sentinel (see [`super::sentinel`]): nothing it
    // starts outlives zurdo, even a `kill -9` of zurdo. A CLI that cannot
    // be started is said here, as spawning it directly would.
    installed(&invocation.program, &invocation.dir)?;
    let (program, args) = match &invocation.sandbox {
        Some(sandbox) => {
            installed(super::sandbox::BWRAP, &invocation.dir).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("bwrap, the agent's sandbox ([verification] agent_sandbox), cannot be started: {e}"),
                )
            })?;
            sandbox.wrap(&invocation.program, &invocation.args)
        }
        None => (invocation.program.clone(), invocation.args.clone()),
    };
    let (mut command, _watch) = super::sentinel::wrap(&program, &args)?;
    command
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&invocation.dir)
        .stdin(match &invocation.stdin {
            Some(text) => Stdio::from(stdin_file(text)?),
            None => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let group = Cell::new(0i32);
    let killed = Cell::new(false);
    let mut watcher = Watcher::new(provider);
    // The events read when the progress was last set (its snapshot changes
    // only when a new one is).
    let mut shown: Option<usize> = None;
    let finished = {
        let mut observe = |stream: Stream, bytes: &[u8]| {
            tee(stream, bytes);
            // The CLI said it cannot work and will keep waiting: nothing
            // it prints after changes that, so it is stopped now.
            if watcher.feed(stream, bytes).is_some() {
                exec::kill_group(group.get());
                killed.set(true);
            }
            if let Some(progress) = progress {
                let events = watcher.events();
                if shown != Some(events) {
                    shown = Some(events);
                    progress.set(watcher.snapshot());
                }
            }
        };
        exec::run_bounded(
            command,
            timeout,
            Keep::GENEROUS,
            AtExit::KillGroup,
            &mut observe,
            |pid| {
                group.set(i32::try_from(pid).unwrap_or(0));
                on_spawn(pid);
            },
        )?
    };
    if killed.get() || finished.ending == Ending::TimedOut {
        // zurdo killed the group: the sentinel is reaped, but the CLI under
        // it may still be dying, and would be taken for a process it left
        // running.
        settle(group.get());
    }
    let stdout = String::from_utf8_lossy(&finished.stdout);
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let report = vocabulary::read(provider, &stdout, &stderr);
    let (exit_code, signal, timed_out) = match finished.ending {
        Ending::Exited(code) => (Some(code), None, false),
        Ending::Signaled(signal) => (None, Some(signal), false),
        Ending::TimedOut => (None, None, true),
    };
    let failure = watcher.conclude(Ended {
        exit_code,
        signal,
        timed_out,
        report: &report,
    });
    Ok(Outcome {
        exit_code,
        signal,
        timed_out,
        duration: finished.elapsed,
        stdout: finished.stdout,
        stderr: finished.stderr,
        report,
        failure,
    })
}

/// How long a killed group may take to die.
const DYING: Duration = Duration::from_secs(2);

/// Waits (at most [`DYING`]) until every process of the killed group
/// `group` has exited.
fn settle(group: i32) {
    let Ok(group) = u32::try_from(group) else {
        return;
    };
    let until = std::time::Instant::now() + DYING;
    while group > 0
        && zurdo_base::process::group_running(group)
        && std::time::Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Where `program` (a path, or a name on `PATH`) would be found by the
/// sentinel, run in `dir` with zurdo's `PATH`; else an error like spawning
/// it would give (`No such file or directory`, `Permission denied`): the
/// check an agent's spawn makes, without starting anything.
pub fn installed(program: &str, dir: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable =
        |p: &Path| std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    let candidates: Vec<PathBuf> = if program.contains('/') {
        vec![dir.join(program)]
    } else {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| dir.join(d).join(program))
            .collect()
    };
    let mut denied = false;
    for candidate in candidates {
        match runnable(&candidate) {
            Ok(true) => return Ok(candidate),
            Ok(false) => denied = true,
            Err(_) => {}
        }
    }
    Err(std::io::Error::from_raw_os_error(if denied {
        libc::EACCES
    } else {
        libc::ENOENT
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cli_gets_its_unattended_flags() {
        let dir = Path::new("/repo");
        let c = command_line(Provider::Anthropic, "claude", "sonnet", "do it", dir);
        assert_eq!(c.args[..2], ["-p", "do it"]);
        assert!(
            c.args.contains(&"--verbose".to_string()),
            "stream-json needs --verbose"
        );
        assert!(c
            .args
            .contains(&"--dangerously-skip-permissions".to_string()));
        let x = command_line(Provider::OpenAi, "codex", "gpt", "do it", dir);
        assert_eq!(x.args[0], "exec");
        assert!(x.args.contains(&"--skip-git-repo-check".to_string()));
        assert_eq!(x.args.last().map(String::as_str), Some("do it"));
        let p = command_line(Provider::GitHub, "copilot", "m", "do it", dir);
        assert!(
            p.args.contains(&"--allow-all-tools".to_string())
                && p.args.contains(&"--no-ask-user".to_string())
        );
        let g = command_line(Provider::Google, "gemini", "m", "do it", dir);
        assert!(g.args.contains(&"--skip-trust".to_string()));
        assert!([&c, &x, &p, &g].iter().all(|i| i.stdin.is_none()));
    }

    /// An invocation of `sh -c script`, as if it were a CLI.
    fn shell(script: &str) -> Invocation {
        Invocation {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: Vec::new(),
            dir: std::env::temp_dir(),
            stdin: None,
            sandbox: None,
        }
    }

    #[test]
    fn a_cli_that_says_it_will_keep_waiting_is_stopped_at_once() {
        let script = r#"echo '{"type":"thread.started","thread_id":"t"}'
echo '{"type":"turn.started"}'
echo '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}'
sleep 30
echo '{"type":"turn.completed"}'"#;
        let mut seen = Vec::new();
        let progress = Progress::default();
        let outcome = run_watched(
            Provider::OpenAi,
            &shell(script),
            Duration::from_secs(60),
            |_| {},
            &mut |stream, bytes| seen.push((stream, bytes.to_vec())),
            Some(&progress),
        )
        .expect("runs");
        assert!(outcome.duration < Duration::from_secs(10), "{outcome:?}");
        assert!(!outcome.timed_out);
        let failure = outcome.failure.expect("classified");
        assert_eq!(failure.kind, crate::agent::failure::FailureKind::Network);
        assert!(failure.stopped);
        assert!(failure
            .message
            .starts_with("Reconnecting... waiting for network"));
        let teed: Vec<u8> = seen
            .iter()
            .filter(|(s, _)| *s == Stream::Stdout)
            .flat_map(|(_, b)| b.clone())
            .collect();
        assert_eq!(teed, outcome.stdout, "the tee saw every byte kept");
        assert_eq!(progress.get().tool_calls, 0);
    }

    #[test]
    fn progress_follows_the_stream_and_a_clean_run_is_no_failure() {
        let script = r#"echo '{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"bash -lc ls","status":"in_progress"}}'
echo '{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a
","exit_code":0,"status":"completed"}}'
echo '{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"done"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}'"#;
        let progress = Progress::default();
        let outcome = run_watched(
            Provider::OpenAi,
            &shell(script),
            Duration::from_secs(60),
            |_| {},
            &mut |_, _| {},
            Some(&progress),
        )
        .expect("runs");
        assert!(outcome.failure.is_none(), "{:?}", outcome.failure);
        let snap = progress.get();
        assert_eq!(snap.tool_calls, 1);
        assert_eq!(snap.last.as_deref(), Some("command_execution bash -lc ls"));
        // A CLI that dies of a signal it did not get from zurdo crashed.
        let outcome = run_observed(
            Provider::OpenAi,
            &shell("kill -SEGV $$"),
            Duration::from_secs(60),
            |_| {},
        )
        .expect("runs");
        assert_eq!(outcome.signal, Some(11));
        let failure = outcome.failure.expect("a crash");
        assert_eq!(failure.kind, crate::agent::failure::FailureKind::CliCrashed);
    }

    #[test]
    fn groups_track_several_and_set_keeps_one() {
        let g = Groups::default();
        g.add(10);
        g.add(0);
        g.add(11);
        assert_eq!(g.list(), [10, 11]);
        g.remove(10);
        assert_eq!(g.list(), [11]);
        g.set(12);
        assert_eq!(g.list(), [12]);
        g.set(0);
        assert!(g.list().is_empty());
        g.add(u32::MAX);
        assert!(g.list().is_empty(), "not a group id");
    }

    #[test]
    fn a_prompt_too_long_for_an_argument_goes_on_stdin_each_clis_way() {
        let dir = Path::new("/repo");
        let long = "x".repeat(ARGUMENT_PROMPT_LIMIT + 1);
        for provider in Provider::ALL {
            let i = command_line(provider, "cli", "m", &long, dir);
            assert_eq!(i.stdin.as_deref(), Some(long.as_str()), "{provider:?}");
            assert!(
                i.args.iter().all(|a| a.len() < 1000 && !a.contains('\0')),
                "{provider:?}: {:?}",
                i.args
            );
            let has = |a: &str| i.args.iter().any(|x| x == a);
            match provider {
                Provider::Anthropic => assert!(has("-p") && has("--verbose")),
                Provider::OpenAi => assert_eq!(i.args.last().map(String::as_str), Some("-")),
                Provider::GitHub => assert!(!has("-p") && has("--allow-all-tools")),
                Provider::Google => assert!(has(GEMINI_STDIN_NOTE)),
            }
        }
    }
}
