//! `## Reviews`: the `[manual]` sign-offs. Every decision in
//! `review-log.jsonl` (approved by whom and when, rejected with the
//! reason), what awaits review now, approvals prd.json records that no
//! longer count, and whether the chain checks. Left out when there is
//! nothing to say.

use std::fmt::Write;

use crate::state::review::{self, Manual};
use crate::state::review_log::{Chain, Decision};
use crate::state::run_state::{RunState, Status};

use super::code;

/// Appends the section for `state` and its review log `chain`.
pub fn section(out: &mut String, state: &RunState, chain: &Chain) {
    let manual = Manual::of_state(state);
    let mut body = String::new();
    for line in &chain.lines {
        let Some(e) = &line.entry else {
            continue;
        };
        let _ = match e.decision {
            Decision::Approved => write!(
                body,
                "- {} {}: approved by {} at {} (review-log.jsonl line {}){}",
                code(&e.task),
                code(&e.criterion),
                e.reviewer,
                e.at,
                line.number,
                e.reason
                    .as_deref()
                    .map_or(String::new(), |r| format!(": {}", one_line(r)))
            ),
            Decision::Rejected => write!(
                body,
                "- {} {}: rejected by {} at {} (review-log.jsonl line {}): {}",
                code(&e.task),
                code(&e.criterion),
                e.reviewer,
                e.at,
                line.number,
                one_line(e.reason.as_deref().unwrap_or(""))
            ),
        };
        if let Some(problem) = &line.problem {
            let _ = write!(body, " — does not check ({problem}): not counted");
        }
        body.push('\n');
    }
    for t in &state.tasks {
        if !matches!(t.status, Status::Passed | Status::PassedPendingReview) {
            continue;
        }
        for a in &t.approvals {
            if let Err(why) = review::counts(t, a, chain) {
                let _ = writeln!(
                    body,
                    "- {} {}: the approval prd.json records does not count ({why}); the next `zurdo run` or `zurdo review` puts the task back to awaiting review",
                    code(&t.id),
                    code(&a.criterion)
                );
            }
        }
    }
    for a in review::awaiting(state, &manual, chain) {
        let _ = writeln!(
            body,
            "- {} {}: awaiting review (PRD line {})",
            code(&a.task),
            code(&a.criterion.name),
            a.criterion.line
        );
    }
    if let Some((line, what)) = chain.first_break() {
        let broken = chain.broken().max(1);
        let _ = writeln!(
            body,
            "\nreview-log.jsonl does not check at line {line}: {what}. {broken} entr{} do{} not check and count for nothing; `zurdo review --verify` names each.",
            if broken == 1 { "y" } else { "ies" },
            if broken == 1 { "es" } else { "" }
        );
    }
    super::section(out, "Reviews", &body);
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
