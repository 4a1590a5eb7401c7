//! Running one agent attempt: the CLI's unattended command line, the repo
//! root as working directory, stdin closed, its own process group killed at
//! the timeout, and its event stream read through the shared vocabulary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use zurdo::exec::{self, Ending};

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
}

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
    Invocation {
        program: program.to_string(),
        args,
        env,
        dir: dir.to_path_buf(),
    }
}

/// Kills the process group of the agent (or probe) running when this
/// process gets SIGINT or SIGTERM, then exits (130, or 143 for SIGTERM):
/// for the commands that run an agent without a run loop (`zurdo doctor`,
/// `zurdo init --check-models`). The agent's CLI dies with zurdo anyway
/// (`PR_SET_PDEATHSIG`), but what it started would not.
#[derive(Debug, Clone, Default)]
pub struct KillOnSignal {
    group: std::sync::Arc<std::sync::atomic::AtomicI32>,
}

impl KillOnSignal {
    /// Starts watching for SIGINT and SIGTERM (a failure to watch only
    /// loses the cleanup, so it is ignored).
    pub fn install() -> KillOnSignal {
        let guard = KillOnSignal::default();
        let group = std::sync::Arc::clone(&guard.group);
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
        ]) {
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let pid = group.load(std::sync::atomic::Ordering::SeqCst);
                    if pid > 0 {
                        zurdo::exec::kill_group(pid);
                    }
                    std::process::exit(128 + signal);
                }
            });
        }
        guard
    }

    /// The process group to kill (0: none).
    pub fn set(&self, group: u32) {
        self.group.store(
            i32::try_from(group).unwrap_or(0),
            std::sync::atomic::Ordering::SeqCst,
        );
    }
}

/// How one agent run went.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
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
    let mut command = Command::new(&invocation.program);
    // The agent dies with zurdo: its own process group (needed for the
    // timeout) keeps a `kill -9` of zurdo from reaching it otherwise.
    // SAFETY: the closure runs between fork and exec and only calls prctl,
    // which is async-signal-safe.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command
        .args(&invocation.args)
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&invocation.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let finished = exec::run_observed(command, timeout, on_spawn)?;
    let stdout = String::from_utf8_lossy(&finished.stdout);
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let report = vocabulary::read(provider, &stdout, &stderr);
    let (exit_code, timed_out) = match finished.ending {
        Ending::Exited(code) => (Some(code), false),
        Ending::Signaled(_) => (None, false),
        Ending::TimedOut => (None, true),
    };
    Ok(Outcome {
        exit_code,
        timed_out,
        duration: finished.elapsed,
        stdout: finished.stdout,
        stderr: finished.stderr,
        report,
    })
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
    }
}
