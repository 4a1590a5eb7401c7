//! The end-of-run summary table.

use std::fmt::Write;

use crate::state::run_state::{RunState, Status};

/// Renders the table: status, attempts, tokens and cost per task, then the
/// totals, the passed-at-pre-flight tally and the flaky criteria (two
/// verdicts on one verified tree), when any.
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
        "\n{} passed, {} passed-pending-review, {} failed, {} blocked-by-dependency, {} pending{}; {} passed at pre-flight (no agent ran)",
        count(Status::Passed),
        count(Status::PassedPendingReview),
        count(Status::Failed),
        count(Status::BlockedByDependency),
        count(Status::Pending),
        match count(Status::Unproven) {
            0 => String::new(),
            n => format!(", {n} unproven"),
        },
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
    let flaky: Vec<&str> = state
        .tasks
        .iter()
        .flat_map(|t| t.flaky.iter().map(String::as_str))
        .collect();
    if !flaky.is_empty() {
        let _ = writeln!(
            out,
            "flaky (two verdicts on one tree; a flaky green still counts): {}",
            flaky.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run_state::TaskState;

    #[test]
    fn flaky_criteria_close_the_summary_and_only_when_there_are_some() {
        let mut state: RunState = serde_json::from_value(serde_json::json!({
            "version": 1, "prd": "prds/p.md", "prd_sha1": "0", "slug": "p", "executor": "anthropic",
            "started_at": "t", "updated_at": "t", "tasks": []
        }))
        .expect("a state");
        state.tasks = vec![TaskState {
            id: "task-1".into(),
            status: Status::Passed,
            max_attempts: 3,
            ..TaskState::default()
        }];
        assert!(!table(&state).contains("flaky"));
        state.tasks[0].flaky = vec!["task_1::it_works".into()];
        assert!(table(&state).ends_with(
            "flaky (two verdicts on one tree; a flaky green still counts): task_1::it_works\n"
        ));
    }
}
