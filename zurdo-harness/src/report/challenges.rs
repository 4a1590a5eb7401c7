//! `## Challenger`: what the challenger claimed of each passing attempt
//! and what its probes showed. A confirmed finding failed its attempt
//! (`challenger_confirmed`); an unconfirmed one is listed at `medium` with
//! what was tried, and changed nothing.

use std::fmt::Write;

use super::{code, section};
use crate::reason::challenge::ProbeResult;
use crate::state::run_state::RunState;

/// Appends the section, or nothing when no attempt was challenged.
pub fn section_of(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        for it in &t.iterations {
            let Some(c) = &it.challenge else { continue };
            let head = format!("- {} attempt {} ({})", code(&t.id), it.attempt, c.model);
            if let Some(why) = &c.skipped {
                let _ = writeln!(body, "{head}: no verdict: {why}");
                continue;
            }
            if c.findings.is_empty() {
                let _ = write!(body, "{head}: no finding");
            } else {
                let _ = write!(body, "{head}:");
            }
            if !c.dropped.is_empty() {
                let why: Vec<String> = c
                    .dropped
                    .iter()
                    .map(|d| format!("#{} {}", d.index, d.why))
                    .collect();
                let _ = write!(body, " ({} dropped: {})", c.dropped.len(), why.join("; "));
            }
            body.push('\n');
            for f in &c.findings {
                let (level, shown) = match &f.result {
                    ProbeResult::Confirmed { code: exit, .. } => (
                        "high",
                        format!("confirmed: the probe failed (exit {exit}); the attempt failed"),
                    ),
                    ProbeResult::Passed => ("medium", "unconfirmed: the probe passed".to_string()),
                    ProbeResult::Broken { why } => (
                        "medium",
                        format!("unconfirmed: the probe could not show it ({why})"),
                    ),
                    ProbeResult::None => ("medium", "unconfirmed: no probe named".to_string()),
                    ProbeResult::NotRun { why } => ("medium", format!("unconfirmed: probe {why}")),
                };
                let g = &f.finding;
                let _ = writeln!(
                    body,
                    "  - [{level}] {} at {}: {} — {shown}{}",
                    g.kind,
                    code(&format!("{}:{}", g.path, g.line)),
                    g.claim.trim(),
                    g.probe
                        .as_deref()
                        .map(|p| format!("; probe {}", code(p)))
                        .unwrap_or_default()
                );
            }
        }
    }
    section(out, "Challenger", &body);
}
