//! The model probe: before any task, each distinct model is asked for one
//! word through its CLI, so an unknown, plan-gated or unauthenticated model
//! stops the run (exit 4) before anything is spent, quoting the CLI's own
//! message. The vocabulary canary and the usage-gap check read the same
//! stream.
//!
//! Probes of distinct models run at once, a thread each ([`probe_all`]),
//! every one in a process group of its own that a stop kills. Each probe
//! reads the CLI's output as it arrives: a CLI that says it cannot reach
//! its service and goes on waiting anyway (codex without a network waits
//! for good) is stopped within seconds of saying so ([`stuck`]), and every
//! failure quotes what the CLI said last, never a guess.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;
use zurdo::exec::Stream;

use crate::agent::invoke::{self, Groups, Outcome};
use crate::agent::{vocabulary, Provider};

/// What a probe prompt starts with (the stand-in agents recognise it).
pub const PROBE_PREFIX: &str = "zurdo-probe:";

/// How long one probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(120);

/// Retries without an answer after which a CLI that retries on its own
/// (claude's `api_retry`, gemini's `Attempt N failed`) is taken to be
/// unable to reach its service.
pub const RETRIES_BEFORE_GIVING_UP: u64 = 3;

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
    pub error: Option<String>,
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
    let mut notices: Vec<String> = Vec::new();
    let mut watch = |stream: Stream, line: &str| {
        if let Some(n) = notice(provider, stream, line) {
            if !notices.contains(&n) {
                notices.push(n);
            }
        }
        stuck(provider, stream, line)
    };
    let outcome = invoke::run_watched(provider, &invocation, PROBE_TIMEOUT, on_spawn, &mut watch);
    let mut warnings: Vec<String> = notices
        .iter()
        .map(|n| format!("{cli} warns: {n}"))
        .collect();
    let error = match outcome {
        Err(e) => Some(format!(
            "cannot start `{}`: {e} (is the {cli} CLI installed? see [providers.{}] command)",
            target.command,
            provider.name()
        )),
        Ok(outcome) => {
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
                error: Some("the probe's thread ended without an answer".into()),
                ..Probed::default()
            })
        })
        .collect()
}

/// Why the probe failed (`None`: it answered), in the CLI's own words.
fn verdict(provider: Provider, outcome: &Outcome) -> Option<String> {
    let cli = provider.default_command();
    let secs = outcome.duration.as_secs_f64();
    if let Some(words) = &outcome.stopped {
        return Some(format!(
            "{cli} cannot reach its service and would keep retrying, so the probe stopped it after {secs:.1}s; {cli} says: {words}"
        ));
    }
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

/// The probe's own reading of a line that says the CLI cannot reach its
/// service (or is refused) and will go on retrying anyway; `Some` carries
/// the CLI's words, and the probe is stopped then. Kept small and
/// probe-side on purpose: the shared infra-failure classifier of attempts
/// is to replace it.
///
/// - codex: an `error` event `Reconnecting... waiting for network (…)`:
///   codex has given up on its retries and waits for the network for good.
/// - claude: a `system`/`api_retry` event with no HTTP status (no
///   connection at all), the [`RETRIES_BEFORE_GIVING_UP`]th or later.
/// - gemini: `Attempt N failed. Retrying with backoff... Error: … fetch
///   failed …` on stderr, N at least [`RETRIES_BEFORE_GIVING_UP`].
///
/// The GitHub Copilot CLI gives up on its own within seconds.
pub fn stuck(provider: Provider, stream: Stream, line: &str) -> Option<String> {
    let line = line.trim();
    match (provider, stream) {
        (Provider::OpenAi, Stream::Stdout) => {
            let event = json(line)?;
            let message = event
                .get("message")
                .and_then(Value::as_str)
                .filter(|_| kind(&event) == Some("error"))?;
            message
                .contains("waiting for network")
                .then(|| message.to_string())
        }
        (Provider::Anthropic, Stream::Stdout) => {
            let event = json(line)?;
            let retry = kind(&event) == Some("system")
                && event.get("subtype").and_then(Value::as_str) == Some("api_retry");
            let attempt = event.get("attempt").and_then(Value::as_u64)?;
            let no_status = event.get("error_status").is_none_or(Value::is_null);
            (retry && no_status && attempt >= RETRIES_BEFORE_GIVING_UP).then(|| {
                format!(
                    "api_retry {attempt}/{} (error `{}`, no HTTP status)",
                    event
                        .get("max_retries")
                        .and_then(Value::as_u64)
                        .map_or("?".to_string(), |m| m.to_string()),
                    event.get("error").and_then(Value::as_str).unwrap_or("?")
                )
            })
        }
        (Provider::Google, Stream::Stderr) => {
            let rest = line.strip_prefix("Attempt ")?;
            let (n, rest) = rest.split_once(' ')?;
            let n: u64 = n.parse().ok()?;
            (rest.starts_with("failed. Retrying")
                && rest.contains("fetch failed")
                && n >= RETRIES_BEFORE_GIVING_UP)
                .then(|| line.to_string())
        }
        _ => None,
    }
}

/// A warning the CLI gave on its way: codex's `item.completed` items of
/// type `error` (``Model metadata for `M` not found. Defaulting to
/// fallback metadata…``), which it reports and goes on past.
pub fn notice(provider: Provider, stream: Stream, line: &str) -> Option<String> {
    if provider != Provider::OpenAi || stream != Stream::Stdout {
        return None;
    }
    let event = json(line.trim())?;
    let item = event.get("item")?;
    (kind(&event) == Some("item.completed")
        && item.get("type").and_then(Value::as_str) == Some("error"))
    .then(|| item.get("message").and_then(Value::as_str))
    .flatten()
    .map(str::to_string)
}

fn json(line: &str) -> Option<Value> {
    line.starts_with('{')
        .then(|| serde_json::from_str::<Value>(line).ok())
        .flatten()
}

fn kind(event: &Value) -> Option<&str> {
    event.get("type").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The first line of `text` that `stuck` stops at, and its words.
    fn first_stuck(provider: Provider, stream: Stream, text: &str) -> Option<(usize, String)> {
        text.lines()
            .enumerate()
            .find_map(|(i, l)| stuck(provider, stream, l).map(|w| (i, w)))
    }

    #[test]
    fn codex_waiting_for_the_network_is_stuck_at_its_first_such_line() {
        for (name, text) in [
            ("codex-json", capture!("codex-json.stdout")),
            ("codex-json-long", capture!("codex-json-long.stdout")),
        ] {
            let (at, words) = first_stuck(Provider::OpenAi, Stream::Stdout, text).expect("stuck");
            assert_eq!(
                words,
                "Reconnecting... waiting for network (Connection failed: error sending request)"
            );
            let line = text.lines().nth(at).unwrap_or_default();
            assert!(line.contains("waiting for network"), "{name}: {line}");
            // The numbered retries before it are not enough.
            assert!(text
                .lines()
                .take(at)
                .all(|l| stuck(Provider::OpenAi, Stream::Stdout, l).is_none()));
        }
        // Not on stderr, not for another CLI.
        let line = r#"{"type":"error","message":"Reconnecting... waiting for network (x)"}"#;
        assert!(stuck(Provider::OpenAi, Stream::Stderr, line).is_none());
        assert!(stuck(Provider::Anthropic, Stream::Stdout, line).is_none());
    }

    #[test]
    fn claude_and_gemini_retrying_without_a_connection_are_stuck_at_the_third_retry() {
        let text = capture!("claude-fakekey-long.stdout");
        let (at, words) = first_stuck(Provider::Anthropic, Stream::Stdout, text).expect("stuck");
        assert_eq!(words, "api_retry 3/10 (error `unknown`, no HTTP status)");
        assert_eq!(at, 3, "init, then retries 1, 2, 3");
        let status = r#"{"type":"system","subtype":"api_retry","attempt":5,"max_retries":10,"error_status":529,"error":"overloaded"}"#;
        assert!(
            stuck(Provider::Anthropic, Stream::Stdout, status).is_none(),
            "a server that answers is waited for"
        );

        let text = capture!("gemini-fake-long.stderr");
        let (_, words) = first_stuck(Provider::Google, Stream::Stderr, text).expect("stuck");
        assert!(
            words.starts_with("Attempt 3 failed. Retrying with backoff... Error: exception TypeError: fetch failed"),
            "{words}"
        );
    }

    #[test]
    fn every_other_capture_runs_its_course() {
        let runs = [
            (
                Provider::Anthropic,
                "claude-json",
                capture!("claude-json.stdout"),
                capture!("claude-json.stderr"),
            ),
            (
                Provider::Anthropic,
                "claude-streamjson",
                capture!("claude-streamjson.stdout"),
                capture!("claude-streamjson.stderr"),
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
            assert_eq!(
                first_stuck(provider, Stream::Stdout, stdout),
                None,
                "{name}"
            );
            assert_eq!(
                first_stuck(provider, Stream::Stderr, stderr),
                None,
                "{name}"
            );
        }
    }

    fn outcome(provider: Provider, stdout: &str, stderr: &str, timed_out: bool) -> Outcome {
        Outcome {
            exit_code: (!timed_out).then_some(1),
            timed_out,
            duration: Duration::from_secs(120),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            report: vocabulary::read(provider, stdout, stderr),
            stopped: None,
        }
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
            verdict(Provider::OpenAi, &codex).as_deref(),
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
            verdict(Provider::OpenAi, &quiet).as_deref(),
            Some("no answer within 120s; codex said last: still thinking")
        );
        let silent = outcome(Provider::Google, "", "", true);
        assert_eq!(
            verdict(Provider::Google, &silent).as_deref(),
            Some("no answer within 120s, and gemini printed nothing")
        );
        // Stopped by the watcher: its words.
        let stopped = Outcome {
            stopped: Some("Reconnecting... waiting for network (x)".into()),
            duration: Duration::from_millis(6100),
            ..codex
        };
        assert_eq!(
            verdict(Provider::OpenAi, &stopped).as_deref(),
            Some("codex cannot reach its service and would keep retrying, so the probe stopped it after 6.1s; codex says: Reconnecting... waiting for network (x)")
        );
        // A CLI that ends with an error says so in its own words.
        let claude = outcome(
            Provider::Anthropic,
            capture!("claude-streamjson.stdout"),
            capture!("claude-streamjson.stderr"),
            false,
        );
        assert_eq!(
            verdict(Provider::Anthropic, &claude).as_deref(),
            Some("the CLI says: Not logged in · Please run /login")
        );
    }

    #[test]
    fn codex_error_items_are_notices() {
        let text = capture!("codex-json-long.stdout");
        let notices: Vec<String> = text
            .lines()
            .filter_map(|l| notice(Provider::OpenAi, Stream::Stdout, l))
            .collect();
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert_eq!(
            notices[0],
            "Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."
        );
        assert!(notices[1].starts_with("Falling back from WebSockets to HTTPS transport."));
        assert!(text
            .lines()
            .all(|l| notice(Provider::Anthropic, Stream::Stdout, l).is_none()));
    }
}
