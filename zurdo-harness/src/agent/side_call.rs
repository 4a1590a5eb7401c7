//! A side call: one single-shot question to a role's model (the reasoner's
//! diagnosis and lessons, the analyzer's critique and heals), asked through
//! that role's CLI with its unattended command line, the same adapters and
//! vocabulary as an agent attempt, in an empty scratch directory. Everything
//! the model needs is in the prompt: it is given no repository to read or
//! edit.
//!
//! The callers are fail-open: every way a call can go wrong comes back as
//! an `Err` with a one-line why, never as a panic or an error that ends a
//! command.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::{invoke, Provider, Usage};

/// What the model answered.
#[derive(Debug, Clone)]
pub struct Reply {
    /// Its final text (never empty).
    pub text: String,
    /// Tokens, when the CLI reported them.
    pub usage: Option<Usage>,
    /// `<provider>/<model>`, the model as the stream names it when it does.
    pub model: String,
}

/// One side call's outcome: the CLI's raw stdout (kept as a transcript,
/// empty when it never started) and the reply, or why there is none.
#[derive(Debug)]
pub struct Called {
    /// True when the CLI started (its stdout is a transcript, maybe empty).
    pub started: bool,
    /// What the CLI printed on stdout.
    pub stdout: Vec<u8>,
    /// The reply, or why there is none.
    pub reply: Result<Reply, String>,
}

/// Who is asked, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The provider whose CLI runs the model.
    pub provider: Provider,
    /// The command that starts that CLI.
    pub program: &'a str,
    /// The model.
    pub model: &'a str,
    /// The call's limit.
    pub timeout: Duration,
    /// What the call is, for the scratch directory's name and messages
    /// (`reasoner`, `analyzer`).
    pub role: &'a str,
}

/// Asks `prompt` of `asked`'s model. `on_spawn` gets the CLI's process
/// group (0 once it is gone), so a stop can kill it. Whatever the CLI
/// started is killed when it returns; the scratch directory is removed.
pub fn call(asked: &Asked<'_>, prompt: &str, mut on_spawn: impl FnMut(u32)) -> Called {
    let scratch = match scratch_dir(asked.role) {
        Ok(dir) => dir,
        Err(e) => {
            return Called {
                started: false,
                stdout: Vec::new(),
                reply: Err(format!("cannot create a scratch directory: {e}")),
            }
        }
    };
    let invocation =
        invoke::command_line(asked.provider, asked.program, asked.model, prompt, &scratch);
    let outcome = invoke::run_observed(asked.provider, &invocation, asked.timeout, &mut on_spawn);
    on_spawn(0);
    if outcome.is_ok() {
        // Nothing the model's CLI started outlives its call.
        zurdo::exec::reap::kill_descendants();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let role = asked.role;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => {
            return Called {
                started: false,
                stdout: Vec::new(),
                reply: Err(format!(
                    "the {role} `{}` could not start: {e}",
                    asked.program
                )),
            }
        }
    };
    let model = format!(
        "{}/{}",
        asked.provider.name(),
        outcome
            .report
            .model
            .clone()
            .unwrap_or_else(|| asked.model.to_string())
    );
    let reply = if outcome.timed_out {
        Err(format!(
            "the {role} timed out after {}s ([reason] timeout)",
            asked.timeout.as_secs()
        ))
    } else {
        let text = outcome.report.final_text.clone().unwrap_or_default();
        if text.trim().is_empty() {
            Err(match &outcome.report.error {
                Some(e) => format!("the {role} failed: {}", zurdo_base::text::first_line(e)),
                None => format!(
                    "the {role} answered nothing (exit {})",
                    outcome.exit_code.map_or("-".into(), |c| c.to_string())
                ),
            })
        } else {
            Ok(Reply {
                text,
                usage: outcome.report.usage,
                model,
            })
        }
    };
    Called {
        started: true,
        stdout: outcome.stdout,
        reply,
    }
}

/// A new, empty directory of this process under the temp dir, created
/// exclusively (never one that was there before, never through a symlink).
fn scratch_dir(role: &str) -> std::io::Result<PathBuf> {
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..100 {
        let n = CALLS.fetch_add(1, Ordering::SeqCst);
        let dir = base.join(format!("zurdo-{role}-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

/// True when `dir` is one of this process's scratch directories (for tests).
#[cfg(test)]
fn is_scratch(dir: &std::path::Path, role: &str) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(&format!("zurdo-{role}-{}-", std::process::id())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_directories_are_new_and_distinct() {
        let a = scratch_dir("t").expect("dir");
        let b = scratch_dir("t").expect("dir");
        assert_ne!(a, b);
        assert!(is_scratch(&a, "t") && a.is_dir());
        std::fs::remove_dir(&a).expect("rm");
        std::fs::remove_dir(&b).expect("rm");
    }

    #[test]
    fn a_cli_that_cannot_start_is_a_why_not_a_panic() {
        let asked = Asked {
            provider: Provider::Anthropic,
            program: "/nonexistent/zurdo-no-such-cli",
            model: "m",
            timeout: Duration::from_secs(5),
            role: "analyzer",
        };
        let called = call(&asked, "zurdo-reason: analyze", |_| {});
        let why = called.reply.expect_err("no CLI");
        assert!(why.contains("could not start"), "{why}");
        assert!(!called.started && called.stdout.is_empty());
    }
}
