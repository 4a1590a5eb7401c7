//! The model probe: before any task, each distinct model is asked for one
//! word through its CLI, so an unknown, plan-gated or unauthenticated model
//! stops the run (exit 4) before anything is spent, quoting the CLI's own
//! message. The vocabulary canary and the usage-gap check read the same
//! stream.

use std::path::Path;
use std::time::Duration;

use crate::agent::{invoke, vocabulary, Provider};

/// What a probe prompt starts with (the stand-in agents recognise it).
pub const PROBE_PREFIX: &str = "zurdo-probe:";

/// How long one probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(120);

/// Probes `model`; `Ok` carries advisory warnings, `Err` the CLI's reason.
/// `on_spawn` is told the probe's process group (so a stop can kill it).
pub fn probe(
    provider: Provider,
    command: &str,
    model: &str,
    dir: &Path,
    on_spawn: impl FnOnce(u32),
) -> Result<Vec<String>, String> {
    let prompt = format!("{PROBE_PREFIX} reply with the single word OK and nothing else.");
    let invocation = invoke::command_line(provider, command, model, &prompt, dir);
    let outcome =
        invoke::run_observed(provider, &invocation, PROBE_TIMEOUT, on_spawn).map_err(|e| {
            format!(
            "cannot start `{command}`: {e} (is the {} CLI installed? see [providers.{}] command)",
            provider.default_command(),
            provider.name()
        )
        })?;
    if outcome.timed_out {
        return Err(format!(
            "no answer within {}s (no network or no credentials?)",
            PROBE_TIMEOUT.as_secs()
        ));
    }
    let report = &outcome.report;
    if let Some(error) = &report.error {
        return Err(format!("the CLI says: {}", error.trim()));
    }
    if outcome.exit_code != Some(0) {
        let stderr = String::from_utf8_lossy(&outcome.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        return Err(format!(
            "exited with {}{}",
            outcome
                .exit_code
                .map_or("a signal".into(), |c| format!("code {c}")),
            if last.is_empty() {
                String::new()
            } else {
                format!(": {last}")
            }
        ));
    }
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
    Ok(warnings)
}
