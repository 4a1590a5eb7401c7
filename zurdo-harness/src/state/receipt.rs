//! A task's receipt: what its pass cost and what proved it, kept on the
//! task in prd.json once an attempt passed it and shown under `##
//! Receipts` in `zurdo report`. Built from the task's recorded attempts and
//! the PRD; nothing here decides a verdict.

use serde::{Deserialize, Serialize};
use zurdo::verify::CriterionVerdict;
use zurdo::Task;

use super::run_state::{is_zero, TaskState};
use crate::agent::Usage;

/// What a verified task cost and what proved it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    /// The attempt that passed.
    pub passed_at: u32,
    /// Attempts spent, the passing one included.
    pub attempts: u32,
    /// The models the attempts used, in the order first used.
    pub models: Vec<String>,
    /// Tokens over every attempt that reported them.
    pub tokens: Usage,
    /// Cost in US dollars over every attempt whose CLI reported one (none
    /// when no attempt did: its tokens are what was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Attempts whose CLI reported no cost (counted in tokens instead).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts_without_cost: u32,
    /// Wall time of the attempts, agent and verification, in milliseconds.
    pub wall_ms: u64,
    /// The climbs of the escalation ladder the task made, in order (empty
    /// when it made none).
    #[serde(default)]
    pub escalations: Vec<Escalation>,
    /// The criteria that passed on the passing attempt: what proved it.
    pub proved_by: Vec<Proof>,
}

/// One climb of the escalation ladder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Escalation {
    /// The attempt after which it climbed.
    pub attempt: u32,
    /// The rung it left.
    pub from: String,
    /// The rung it climbed to.
    pub to: String,
    /// Why.
    pub why: String,
}

/// A criterion that passed, with its hints as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proof {
    /// `<task>::<criterion>`, as its cargo test is named.
    pub criterion: String,
    /// Its PRD line.
    pub line: usize,
    /// Its hints as written (`[shell: cargo test]`).
    pub hints: Vec<String>,
}

impl Receipt {
    /// The receipt of `state`, whose last attempt passed it, for `task`
    /// (its criteria's hints as written); `None` when no attempt passed it
    /// (a pass at pre-flight spent nothing and proves nothing about the
    /// run).
    pub fn of(state: &TaskState, task: &Task) -> Option<Receipt> {
        let last = state.iterations.last().filter(|i| i.passed)?;
        let mut models: Vec<String> = Vec::new();
        for it in &state.iterations {
            if !models.contains(&it.model) {
                models.push(it.model.clone());
            }
        }
        let wall_ms = state
            .iterations
            .iter()
            .map(|it| {
                let span = zurdo_base::time::parse(&it.started_at)
                    .zip(zurdo_base::time::parse(&it.ended_at))
                    .and_then(|(a, b)| b.duration_since(a).ok())
                    .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
                span.unwrap_or(it.agent.duration_ms)
            })
            .fold(0u64, u64::saturating_add);
        let proved_by = last
            .criteria
            .iter()
            .filter(|c| c.verdict == CriterionVerdict::Passed)
            .map(|c| Proof {
                criterion: c.name.clone(),
                line: c.line,
                hints: task
                    .criteria
                    .iter()
                    .find(|k| k.line == c.line)
                    .map(|k| k.hints.iter().map(|h| h.source.clone()).collect())
                    .unwrap_or_default(),
            })
            .collect();
        Some(Receipt {
            passed_at: last.attempt,
            attempts: state.attempts,
            models,
            tokens: state.tokens(),
            cost_usd: state.cost_usd(),
            attempts_without_cost: state
                .iterations
                .iter()
                .filter(|i| i.agent.cost_usd.is_none())
                .count()
                .try_into()
                .unwrap_or(u32::MAX),
            wall_ms,
            escalations: state
                .escalation
                .iter()
                .flat_map(|e| &e.climbs)
                .map(|c| Escalation {
                    attempt: c.attempt,
                    from: c.from.clone(),
                    to: c.to.clone(),
                    why: c.why.clone(),
                })
                .collect(),
            proved_by,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run_state::{AgentRecord, CriterionRecord, Iteration, Status};

    fn iteration(attempt: u32, model: &str, passed: bool, cost: Option<f64>) -> Iteration {
        Iteration {
            attempt,
            started_at: "2026-01-01T00:00:00Z".into(),
            ended_at: "2026-01-01T00:00:02Z".into(),
            model: model.into(),
            provider: None,
            agent: AgentRecord {
                usage: Some(Usage {
                    input_tokens: 100,
                    output_tokens: 10,
                    cached_input_tokens: 0,
                }),
                cost_usd: cost,
                ..AgentRecord::default()
            },
            criteria: vec![
                CriterionRecord {
                    name: "task_1::it_exists".into(),
                    line: 11,
                    verdict: if passed {
                        CriterionVerdict::Passed
                    } else {
                        CriterionVerdict::Failed
                    },
                    hints: serde_json::Value::Null,
                },
                CriterionRecord {
                    name: "task_1::signed_off".into(),
                    line: 12,
                    verdict: CriterionVerdict::PendingReview,
                    hints: serde_json::Value::Null,
                },
            ],
            frozen_violations: Vec::new(),
            frozen_folded: Vec::new(),
            verified_tree: None,
            clean_room_mismatch: Vec::new(),
            toolchain_changed: false,
            standing_failures: Vec::new(),
            agent_leftovers: Vec::new(),
            caught: Vec::new(),
            fingerprint: None,
            failure: Vec::new(),
            failure_surface: None,
            challenge: None,
            passed,
        }
    }

    #[test]
    fn a_receipt_sums_the_attempts_and_names_what_proved_the_task() {
        let prd = zurdo::parse(
            "# PRD: r\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nx\n\n### Acceptance Criteria\n- [ ] it exists [file-exists: a.txt] [grep: ok in a.txt]\n- [ ] signed off [manual]\n",
        )
        .expect("parses");
        let task = &prd.tasks[0];
        let mut state = TaskState {
            id: "task-1".into(),
            status: Status::Passed,
            attempts: 2,
            max_attempts: 3,
            iterations: vec![
                iteration(1, "haiku", false, None),
                iteration(2, "sonnet", true, Some(0.25)),
            ],
            ..TaskState::default()
        };
        let r = Receipt::of(&state, task).expect("a receipt");
        assert_eq!(r.passed_at, 2);
        assert_eq!(r.attempts, 2);
        assert_eq!(r.models, ["haiku", "sonnet"]);
        assert_eq!(r.tokens.input_tokens, 200);
        assert_eq!(r.cost_usd, Some(0.25));
        assert_eq!(r.attempts_without_cost, 1);
        assert_eq!(r.wall_ms, 4000);
        assert!(r.escalations.is_empty());
        assert_eq!(
            r.proved_by,
            [Proof {
                criterion: "task_1::it_exists".into(),
                line: 11,
                hints: vec!["[file-exists: a.txt]".into(), "[grep: ok in a.txt]".into()],
            }]
        );
        // The escalations field is always written, empty or not.
        let json = serde_json::to_value(&r).expect("json");
        assert_eq!(json["escalations"], serde_json::json!([]));
        state.iterations.pop();
        assert_eq!(Receipt::of(&state, task), None);
    }
}
