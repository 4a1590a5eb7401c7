//! The end-of-run summary table.

use std::fmt::Write;

use crate::state::run_state::{RunState, Status};

/// Renders the table: status, attempts, tokens and cost per task, then the
/// totals and the passed-at-pre-flight tally.
pub fn table(state: &RunState) -> String {
    let width = state
        .tasks
        .iter()
        .map(|t| t.id.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let label = |t: &crate::state::run_state::TaskState| {
        if t.passed_at_preflight {
            format!("{} (pre-flight)", t.status.name())
        } else {
            t.status.name().to_string()
        }
    };
    let status_width = state
        .tasks
        .iter()
        .map(|t| label(t).len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:<status_width$}  {:>8}  {:>14}  {:>9}",
        "task", "status", "attempts", "tokens in/out", "cost"
    );
    let (mut input, mut output, mut cost, mut any_cost) = (0u64, 0u64, 0f64, false);
    for t in &state.tasks {
        let tokens = t.tokens();
        input += tokens.input_tokens;
        output += tokens.output_tokens;
        let c = t.cost_usd();
        if let Some(c) = c {
            cost += c;
            any_cost = true;
        }
        let _ = writeln!(
            out,
            "{:<width$}  {:<status_width$}  {:>8}  {:>14}  {:>9}",
            t.id,
            label(t),
            format!("{}/{}", t.attempts, t.max_attempts),
            format!("{}/{}", tokens.input_tokens, tokens.output_tokens),
            c.map_or("-".to_string(), |c| format!("${c:.4}")),
        );
    }
    let count = |s: Status| state.tasks.iter().filter(|t| t.status == s).count();
    let preflight = state.tasks.iter().filter(|t| t.passed_at_preflight).count();
    let _ = writeln!(
        out,
        "\n{} passed, {} passed-pending-review, {} failed, {} blocked-by-dependency, {} pending; {} passed at pre-flight (no agent ran)",
        count(Status::Passed),
        count(Status::PassedPendingReview),
        count(Status::Failed),
        count(Status::BlockedByDependency),
        count(Status::Pending),
        preflight,
    );
    let _ = writeln!(
        out,
        "tokens: {input} in, {output} out; cost: {}",
        if any_cost {
            format!("${cost:.4}")
        } else {
            "not reported by the CLI".to_string()
        }
    );
    out
}
