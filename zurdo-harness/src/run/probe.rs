//! The model probe: before any task, each distinct model is asked for one
//! word through its CLI, so an unknown or plan-gated model stops the run
//! (exit 4) before anything is spent, quoting the CLI's own message; a CLI
//! that cannot work at all (not logged in, out of quota, no network, not
//! installed: `agent::failure`) stops it as an attempt would (exit 5). The
//! vocabulary canary and the usage-gap check read the same stream.
//!
//! Probes of distinct models run at once, a thread each ([`probe_all`]),
//! every one in a process group of its own that a stop kills. Each probe's
//! output is read as it arrives by the same classifier as an attempt's
//! (`agent::failure::Watcher`): a CLI that says it cannot reach its service
//! and goes on waiting anyway (codex without a network waits for good) is
//! stopped within seconds of saying so, and every failure quotes what the
//! CLI said, never a guess.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::agent::failure::{FailureKind, InfraFailure};
use crate::agent::invoke::{self, Groups, Outcome};
use crate::agent::{vocabulary, Provider};

/// Why a probe failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// The CLI cannot work, whatever the model.
    Agent(InfraFailure),
    /// The CLI cannot answer with this model (or failed in a way nothing
    /// explains): what it said.
    Model(String),
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::Agent(failure) => {
                let cli = failure.cli();
                f.write_str(failure.kind.headline())?;
                if failure.cli_said() {
                    write!(f, "; {cli} says: {}", failure.message)?;
                } else {
                    write!(f, ": {}", failure.message)?;
                }
                if failure.stopped {
                    f.write_str(" (the probe stopped it as soon as it said so)")?;
                }
                write!(f, "; {}", failure.remedy())
            }
            ProbeError::Model(message) => f.write_str(message),
        }
    }
}

/// What a probe prompt starts with (the stand-in agents recognise it).
pub const PROBE_PREFIX: &str = "zurdo-probe:";

/// How long one probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(120);

/// One model to probe, through one CLI.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target {
    /// Whose CLI.
    pub provider: Provider,
    /// The command that starts it.
    pub command: String,
    /// The model.
    pub model: String,
}

/// What one probe found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probed {
    /// Why the model cannot be used, quoting the CLI (`None`: it answered).
    pub error: Option<ProbeError>,
    /// Advisory: what the CLI warned about (codex's ``Model metadata for
    /// `M` not found``), the vocabulary canary, the usage gap.
    pub warnings: Vec<String>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Probed {
    /// True when the model answered.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

/// Probes `target` from `dir`. `on_spawn` is told the probe's process group
/// (so a stop can kill it).
pub fn probe(target: &Target, dir: &Path, on_spawn: impl FnOnce(u32)) -> Probed {
    let started = Instant::now();
    let provider = target.provider;
    let cli = provider.default_command();
    let prompt = format!("{PROBE_PREFIX} reply with the single word OK and nothing else.");
    let invocation = invoke::command_line(provider, &target.command, &target.model, &prompt, dir);
    let outcome = invoke::run_observed(provider, &invocation, PROBE_TIMEOUT, on_spawn);
    let mut warnings = Vec::new();
    let error = match outcome {
        Err(e) => Some(ProbeError::Agent(InfraFailure::not_started(
            provider,
            &target.command,
            &e,
        ))),
        Ok(outcome) => {
            for n in notices(provider, &outcome.stdout) {
                warnings.push(format!("{cli} warns: {n}"));
            }
            let error = verdict(provider, &outcome);
            if error.is_none() {
                warnings.extend(advisories(provider, &outcome));
            }
            error
        }
    };
    Probed {
        error,
        warnings,
        elapsed: started.elapsed(),
    }
}

/// Probes every target at once, a thread each (each probe's process group
/// is in `groups` while it runs, so a stop kills them all). `done` is told
/// each result in target order, as soon as that target and every one
/// before it are done, so what a caller prints is in a fixed order however
/// the probes finish. Returns the results in target order.
pub fn probe_all(
    targets: &[Target],
    dir: &Path,
    groups: &Groups,
    mut done: impl FnMut(usize, &Probed),
) -> Vec<Probed> {
    let mut results: Vec<Option<Probed>> = vec![None; targets.len()];
    let mut next = 0;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for (i, target) in targets.iter().enumerate() {
            let tx = tx.clone();
            // The CLI gets PR_SET_PDEATHSIG, which fires when the thread
            // that started it ends: each thread waits for its probe, so
            // it outlives it.
            scope.spawn(move || {
                let mut group = 0;
                let probed = probe(target, dir, |pid| {
                    group = pid;
                    groups.add(pid);
                });
                groups.remove(group);
                let _ = tx.send((i, probed));
            });
        }
        drop(tx);
        for (i, probed) in rx {
            results[i] = Some(probed);
            while let Some(Some(p)) = results.get(next) {
                done(next, p);
                next += 1;
            }
        }
    });
    results
        .into_iter()
        .map(|p| {
            p.unwrap_or_else(|| Probed {
                error: Some(ProbeError::Model(
                    "the probe's thread ended without an answer".into(),
                )),
                ..Probed::default()
            })
        })
        .collect()
}

/// Why the probe failed (`None`: it answered), in the CLI's own words: a
/// CLI that cannot work whatever the model (the classifier's verdict, as
/// for an attempt), else what the CLI said of this model.
fn verdict(provider: Provider, outcome: &Outcome) -> Option<ProbeError> {
    if let Some(failure) = &outcome.failure {
        if failure.kind != FailureKind::ModelUnavailable {
            return Some(ProbeError::Agent(failure.clone()));
        }
    }
    model_verdict(provider, outcome).map(ProbeError::Model)
}

/// Why the model did not answer, in the CLI's own words.
fn model_verdict(provider: Provider, outcome: &Outcome) -> Option<String> {
    let cli = provider.default_command();
    if outcome.timed_out {
        return Some(match last_words(provider, outcome) {
            Some(words) => format!(
                "no answer within {}s; {cli} said last: {words}",
                PROBE_TIMEOUT.as_secs()
            ),
            None => format!(
                "no answer within {}s, and {cli} printed nothing",
                PROBE_TIMEOUT.as_secs()
            ),
        });
    }
    if let Some(error) = &outcome.report.error {
        return Some(format!("the CLI says: {}", error.trim()));
    }
    if outcome.exit_code != Some(0) {
        return Some(format!(
            "exited with {}{}",
            outcome
                .exit_code
                .map_or("a signal".into(), |c| format!("code {c}")),
            last_words(provider, outcome).map_or(String::new(), |w| format!(": {w}"))
        ));
    }
    None
}

/// The canary and the usage gap, read from an answered probe's stream.
fn advisories(provider: Provider, outcome: &Outcome) -> Vec<String> {
    let report = &outcome.report;
    let mut warnings = Vec::new();
    if vocabulary::canary_silent(report) {
        warnings.push(format!(
            "vocabulary canary: {}'s stream parsed ({} events) but yielded no assistant text; its event format may have changed (the run goes on: verdicts never depend on it)",
            provider.default_command(),
            report.events
        ));
    }
    if vocabulary::usage_gap(report) {
        warnings.push(format!(
            "usage gap: {} answered without token counts; tokens will show as 0",
            provider.default_command()
        ));
    }
    warnings
}

/// What the CLI said last: its stream's error, else its last meaningful
/// stderr line, else its last meaningful stdout line (a JSON event as its
/// `message` when it has one).
fn last_words(provider: Provider, outcome: &Outcome) -> Option<String> {
    if let Some(error) = &outcome.report.error {
        return Some(error.trim().to_string());
    }
    let noise = vocabulary::vocabulary(provider).stderr_noise;
    let meaningful = |bytes: &[u8]| -> Option<String> {
        String::from_utf8_lossy(bytes)
            .lines()
            .rev()
            .map(|l| zurdo_base::text::strip_ansi(l).trim().to_string())
            .find(|l| !l.is_empty() && !noise.iter().any(|n| l.starts_with(n)))
            .map(|l| match serde_json::from_str::<Value>(&l) {
                Ok(v) => v
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or(l.clone(), str::to_string),
                Err(_) => l,
            })
            .map(|l| zurdo_base::text::cut_chars(&l, 500))
    };
    meaningful(&outcome.stderr).or_else(|| meaningful(&outcome.stdout))
}

/// The warnings the CLI gave on its way, each once: codex's
/// `item.completed` items of type `error` (``Model metadata for `M` not
/// found. Defaulting to fallback metadata…``), which it reports and goes on
/// past.
fn notices(provider: Provider, stdout: &[u8]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(stdout).lines() {
        if let Some(n) = notice(provider, line) {
            if !found.contains(&n) {
                found.push(n);
            }
        }
    }
    found
}

/// A warning the CLI gave on one line of its stdout (see [`notices`]).
fn notice(provider: Provider, line: &str) -> Option<String> {
    if provider != Provider::OpenAi {
        return None;
    }
    let event = vocabulary::event_of(line)?;
    let item = event.get("item")?;
    (kind(&event) == Some("item.completed")
        && item.get("type").and_then(Value::as_str) == Some("error"))
    .then(|| item.get("message").and_then(Value::as_str))
    .flatten()
    .map(str::to_string)
}

fn kind(event: &Value) -> Option<&str> {
    event.get("type").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zurdo::exec::Stream;

    /// A capture in `tests/fixtures/streams/` (read at compile time, so
    /// the tests never read outside the crate).
    macro_rules! capture {
        ($name:literal) => {
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/",
                $name
            ))
        };
    }

    /// Every line of `text` on `stream` fed to a watcher of `provider`'s
    /// CLI, one at a time: the index of the line it stops the CLI at.
    fn stops_at(provider: Provider, stream: Stream, text: &str) -> Option<usize> {
        let mut watcher = crate::agent::failure::Watcher::new(provider);
        text.lines()
            .position(|l| watcher.feed(stream, format!("{l}\n").as_bytes()).is_some())
    }

    #[test]
    fn a_cli_that_ends_on_its_own_is_not_stopped() {
        // The shared classifier stops what waits for good (its own tests
        // cover codex waiting for the network, claude's and gemini's
        // retries); these captures end by themselves, each on its own.
        let runs = [
            (
                Provider::Anthropic,
                "claude-json",
                capture!("claude-json.stdout"),
                capture!("claude-json.stderr"),
            ),
            (
                Provider::GitHub,
                "copilot-fake",
                capture!("copilot-fake.stdout"),
                capture!("copilot-fake.stderr"),
            ),
            (
                Provider::GitHub,
                "copilot-json",
                capture!("copilot-json.stdout"),
                capture!("copilot-json.stderr"),
            ),
            (
                Provider::Google,
                "gemini-json",
                capture!("gemini-json.stdout"),
                capture!("gemini-json.stderr"),
            ),
            (
                Provider::Google,
                "gemini-streamjson",
                capture!("gemini-streamjson.stdout"),
                capture!("gemini-streamjson.stderr"),
            ),
            (
                Provider::OpenAi,
                "codex-json-nogit",
                capture!("codex-json-nogit.stdout"),
                capture!("codex-json-nogit.stderr"),
            ),
        ];
        for (provider, name, stdout, stderr) in runs {
            assert_eq!(stops_at(provider, Stream::Stdout, stdout), None, "{name}");
            assert_eq!(stops_at(provider, Stream::Stderr, stderr), None, "{name}");
        }
    }

    fn outcome(provider: Provider, stdout: &str, stderr: &str, timed_out: bool) -> Outcome {
        Outcome {
            exit_code: (!timed_out).then_some(1),
            signal: None,
            timed_out,
            duration: Duration::from_secs(120),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            report: vocabulary::read(provider, stdout, stderr),
            failure: None,
        }
    }

    /// The verdict on `outcome` as the run and doctor show it.
    fn said(provider: Provider, outcome: &Outcome) -> Option<String> {
        verdict(provider, outcome).map(|e| e.to_string())
    }

    #[test]
    fn a_timeout_quotes_the_clis_last_words_never_a_guess() {
        let codex = outcome(
            Provider::OpenAi,
            capture!("codex-json.stdout"),
            capture!("codex-json.stderr"),
            true,
        );
        assert_eq!(
            said(Provider::OpenAi, &codex).as_deref(),
            Some("no answer within 120s; codex said last: Reconnecting... waiting for network (Connection failed: error sending request)")
        );
        // No stream: the last meaningful stderr line (codex's noise left out).
        let quiet = outcome(
            Provider::OpenAi,
            "",
            "WARNING: proceeding, even though we could not create PATH aliases: …\nstill thinking\nReading additional input from stdin...\n",
            true,
        );
        assert_eq!(
            said(Provider::OpenAi, &quiet).as_deref(),
            Some("no answer within 120s; codex said last: still thinking")
        );
        let silent = outcome(Provider::Google, "", "", true);
        assert_eq!(
            said(Provider::Google, &silent).as_deref(),
            Some("no answer within 120s, and gemini printed nothing")
        );
        // A CLI that ends with an error nothing classifies says so in its
        // own words.
        let odd = outcome(
            Provider::Anthropic,
            "",
            "Error: something unheard of\n",
            false,
        );
        assert_eq!(
            verdict(Provider::Anthropic, &odd),
            Some(ProbeError::Model(
                "the CLI says: Error: something unheard of".into()
            ))
        );
    }

    #[test]
    fn a_cli_that_cannot_work_is_the_agents_failure_and_a_model_it_lacks_is_not() {
        // Stopped by the classifier: the CLI's words.
        let mut stopped = outcome(
            Provider::OpenAi,
            capture!("codex-json.stdout"),
            capture!("codex-json.stderr"),
            false,
        );
        stopped.failure = Some(InfraFailure {
            stopped: true,
            ..InfraFailure::new(
                FailureKind::Network,
                Provider::OpenAi,
                "Reconnecting... waiting for network (x)",
            )
        });
        let error = verdict(Provider::OpenAi, &stopped).expect("failed");
        assert!(matches!(error, ProbeError::Agent(_)), "{error:?}");
        assert_eq!(
            error.to_string(),
            "no network; codex says: Reconnecting... waiting for network (x) (the probe stopped it as soon as it said so); check that this machine can reach the network `codex` needs"
        );
        // Not logged in: the classifier's verdict on the capture.
        let (stdout, stderr) = (
            capture!("claude-streamjson.stdout"),
            capture!("claude-streamjson.stderr"),
        );
        let mut claude = outcome(Provider::Anthropic, stdout, stderr, false);
        claude.failure =
            crate::agent::failure::classify(Provider::Anthropic, stdout, stderr, Some(1), None);
        let error = verdict(Provider::Anthropic, &claude).expect("failed");
        assert!(
            error
                .to_string()
                .starts_with("not logged in; claude says: Not logged in · Please run /login (the probe stopped it as soon as it said so); log in with `claude /login`"),
            "{error}"
        );
        // A model the CLI does not offer is the model's (exit 4), in the
        // CLI's words.
        let mut unknown = outcome(
            Provider::Anthropic,
            "",
            "There's an issue with the selected model (m). It may not exist or you may not have access to it.\n",
            false,
        );
        unknown.failure = Some(InfraFailure::new(
            FailureKind::ModelUnavailable,
            Provider::Anthropic,
            "There's an issue with the selected model (m).",
        ));
        assert!(
            matches!(verdict(Provider::Anthropic, &unknown), Some(ProbeError::Model(m)) if m.starts_with("the CLI says: There's an issue with the selected model (m)")),
        );
    }

    #[test]
    fn codex_error_items_are_notices() {
        let text = capture!("codex-json-long.stdout");
        let notices: Vec<String> = text
            .lines()
            .filter_map(|l| notice(Provider::OpenAi, l))
            .collect();
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert_eq!(
            notices[0],
            "Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."
        );
        assert!(notices[1].starts_with("Falling back from WebSockets to HTTPS transport."));
        assert!(text
            .lines()
            .all(|l| notice(Provider::Anthropic, l).is_none()));
    }
}
