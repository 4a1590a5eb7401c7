//! The model probe: before any task, each distinct model is asked for one
//! word through its CLI, so an unknown or plan-gated model stops the run
//! (exit 4) before anything is spent, quoting the CLI's own message; a CLI
//! that cannot work at all (not logged in, out of quota, no network, not
//! installed: `agent::failure`) stops it as an attempt would (exit 5). The
//! vocabulary canary and the usage-gap check read the same stream.

use std::path::Path;
use std::time::Duration;

use crate::agent::failure::{FailureKind, InfraFailure};
use crate::agent::{invoke, vocabulary, Provider};

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
            ProbeError::Agent(failure) => write!(
                f,
                "{} (the CLI says: {}); {}",
                failure.kind.headline(),
                failure.message,
                failure.remedy()
            ),
            ProbeError::Model(message) => f.write_str(message),
        }
    }
}

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
) -> Result<Vec<String>, ProbeError> {
    let prompt = format!("{PROBE_PREFIX} reply with the single word OK and nothing else.");
    let invocation = invoke::command_line(provider, command, model, &prompt, dir);
    let outcome = invoke::run_observed(provider, &invocation, PROBE_TIMEOUT, on_spawn)
        .map_err(|e| ProbeError::Agent(InfraFailure::not_started(provider, command, &e)))?;
    if let Some(failure) = outcome.failure.clone() {
        if failure.kind != FailureKind::ModelUnavailable {
            return Err(ProbeError::Agent(failure));
        }
    }
    if outcome.timed_out {
        return Err(ProbeError::Model(format!(
            "no answer within {}s (no network or no credentials?)",
            PROBE_TIMEOUT.as_secs()
        )));
    }
    let report = &outcome.report;
    if let Some(error) = &report.error {
        return Err(ProbeError::Model(format!("the CLI says: {}", error.trim())));
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
        return Err(ProbeError::Model(format!(
            "exited with {}{}",
            outcome
                .exit_code
                .map_or("a signal".into(), |c| format!("code {c}")),
            if last.is_empty() {
                String::new()
            } else {
                format!(": {last}")
            }
        )));
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
