//! `## Receipts`: one per task an attempt passed (and that still stands
//! passed): the attempts, the models, tokens, cost (or that the CLI
//! reported none, so tokens were counted), wall time, the escalations and
//! the criteria that proved it, as prd.json keeps them. Left out when no
//! task has one.

use std::fmt::Write;

use crate::state::receipt::Receipt;
use crate::state::run_state::{RunState, Status};

use super::{code, codes};

/// Appends the section for `state`.
pub fn section(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        if !matches!(t.status, Status::Passed | Status::PassedPendingReview) {
            continue;
        }
        let Some(r) = &t.receipt else {
            continue;
        };
        let _ = writeln!(
            body,
            "- {} ({} at attempt {}): {}",
            code(&t.id),
            t.status.name(),
            r.passed_at,
            summary(r)
        );
        let proofs: Vec<String> = r
            .proved_by
            .iter()
            .map(|p| {
                format!(
                    "{} (line {}: {})",
                    code(&p.criterion),
                    p.line,
                    p.hints.join(" ")
                )
            })
            .collect();
        let _ = writeln!(
            body,
            "  - proved by: {}",
            if proofs.is_empty() {
                "no automated criterion (every one awaits review)".to_string()
            } else {
                proofs.join("; ")
            }
        );
    }
    super::section(out, "Receipts", &body);
}

/// `2 attempts; models `haiku`, `sonnet`; tokens 2400 in / 160 out; cost
/// $0.0300; wall time 3.1s; escalations: none`.
fn summary(r: &Receipt) -> String {
    let cost = match (r.cost_usd, r.attempts_without_cost) {
        (None, _) => "cost not reported by the CLI (tokens counted instead)".to_string(),
        (Some(c), 0) => format!("cost ${c:.4}"),
        (Some(c), n) => format!(
            "cost ${c:.4} ({n} attempt{} reported none: tokens counted instead)",
            if n == 1 { "" } else { "s" }
        ),
    };
    let escalations = if r.escalations.is_empty() {
        "none".to_string()
    } else {
        r.escalations
            .iter()
            .map(|e| {
                format!(
                    "after attempt {}: {} → {} ({})",
                    e.attempt, e.from, e.to, e.why
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    format!(
        "{} attempt{}; model{} {}; tokens {} in / {} out; {cost}; wall time {:.1}s; escalations: {escalations}",
        r.attempts,
        if r.attempts == 1 { "" } else { "s" },
        if r.models.len() == 1 { "" } else { "s" },
        codes(&r.models),
        r.tokens.input_tokens,
        r.tokens.output_tokens,
        r.wall_ms as f64 / 1000.0,
    )
}
