//! `prd.json`: the run's state. Written atomically after every change; it is
//! the record of the run, while the parsed PRD and the verdicts zurdo
//! computes in memory are the authority.

use std::path::Path;

use serde::{Deserialize, Serialize};
use zurdo::verify::CriterionVerdict;

use crate::agent::Usage;

/// The format version of `prd.json`.
pub const VERSION: u32 = 1;

/// A task's status, exactly as the spec names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Not yet attempted.
    Pending,
    /// All automated hints passed.
    Passed,
    /// Automated hints passed (or none exist); `[manual]` criteria await review.
    PassedPendingReview,
    /// The attempt budget ran out with a hint still failing.
    Failed,
    /// A task it depends on failed.
    BlockedByDependency,
}

impl Status {
    /// True once the task will not run again in this run.
    pub fn settled(self) -> bool {
        !matches!(self, Status::Pending)
    }

    /// The spec's name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Passed => "passed",
            Status::PassedPendingReview => "passed-pending-review",
            Status::Failed => "failed",
            Status::BlockedByDependency => "blocked-by-dependency",
        }
    }
}

/// One criterion's verdict in a pre-flight or an iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionRecord {
    /// `<task>::<criterion>`.
    pub name: String,
    /// The PRD line.
    pub line: usize,
    /// The combined verdict.
    pub verdict: CriterionVerdict,
    /// Each hint's result (verdict, typed reason, evidence), as verified.
    pub hints: serde_json::Value,
}

/// What the agent did in one attempt (its own account, never a verdict).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentRecord {
    /// The CLI's exit code (`None` when killed).
    pub exit_code: Option<i32>,
    /// True when the attempt ran past its Agent-timeout and was killed.
    pub timed_out: bool,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The tail of its final text.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub final_text_tail: Option<String>,
    /// Tool calls it made.
    pub tool_calls: usize,
    /// A run-level error its stream reported.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Tokens it used, when reported.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub usage: Option<Usage>,
    /// Cost in USD, when reported.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cost_usd: Option<f64>,
}

/// One agent attempt and zurdo's verification of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// 1-based attempt number.
    pub attempt: u32,
    /// When the attempt started.
    pub started_at: String,
    /// When verification ended.
    pub ended_at: String,
    /// The model used.
    pub model: String,
    /// The agent's account.
    pub agent: AgentRecord,
    /// zurdo's verdicts.
    pub criteria: Vec<CriterionRecord>,
    /// Frozen paths this attempt modified (any fails the iteration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frozen_violations: Vec<String>,
    /// Frozen paths the criteria themselves wrote while verifying (warned,
    /// not charged to the next attempt).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frozen_folded: Vec<String>,
    /// The git tree the criteria ran against (outside git: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_tree: Option<String>,
    /// Criteria (and standing rules) green in place but red in the clean room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clean_room_mismatch: Vec<String>,
    /// True when a resolved tool moved or changed before this verification.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub toolchain_changed: bool,
    /// `standing rule broken: [<hint>] — <why>`, one per broken rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standing_failures: Vec<String>,
    /// True when every automated criterion passed.
    pub passed: bool,
}

/// Which of a task's changed files the criteria read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Changed files some hint reads.
    pub witnessed: Vec<String>,
    /// Changed files no hint reads (not wrong, but where to look first).
    pub unwitnessed: Vec<String>,
}

/// One task's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskState {
    /// The task id.
    pub id: String,
    /// Its status.
    pub status: Status,
    /// Attempts spent (completed iterations).
    pub attempts: u32,
    /// The attempt budget in force.
    pub max_attempts: u32,
    /// The criteria on the tree as it was before any agent ran ("iteration 0").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preflight_results: Option<Vec<CriterionRecord>>,
    /// Every attempt.
    #[serde(default)]
    pub iterations: Vec<Iteration>,
    /// True when it passed at pre-flight without an agent.
    #[serde(default)]
    pub passed_at_preflight: bool,
    /// The failed task that blocks it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub blocked_by: Option<String>,
    /// The task's baseline tree (its tree at its first attempt), also kept
    /// alive as `refs/zurdo/<slug>/<task-id>`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rollback_point: Option<String>,
    /// Criteria that got two verdicts on one verified tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<String>,
    /// After a pass: the changed files some hint reads, and those none does.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub witness: Option<Witness>,
    /// SHA-256 of every frozen file when the task's first attempt began.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub frozen_baseline: Option<std::collections::BTreeMap<String, String>>,
    /// The "what failed" section the next attempt's prompt opens with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_context: Option<String>,
}

impl TaskState {
    /// Tokens over all attempts.
    pub fn tokens(&self) -> Usage {
        let mut total = Usage::default();
        for u in self.iterations.iter().filter_map(|i| i.agent.usage) {
            total.input_tokens += u.input_tokens;
            total.output_tokens += u.output_tokens;
            total.cached_input_tokens += u.cached_input_tokens;
        }
        total
    }

    /// Cost over all attempts, when any attempt reported one.
    pub fn cost_usd(&self) -> Option<f64> {
        let costs: Vec<f64> = self
            .iterations
            .iter()
            .filter_map(|i| i.agent.cost_usd)
            .collect();
        (!costs.is_empty()).then(|| costs.iter().sum())
    }
}

/// The whole `prd.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Format version.
    pub version: u32,
    /// The PRD, repository-relative.
    pub prd: String,
    /// SHA-1 of the PRD bytes at the last successful parse.
    pub prd_sha1: String,
    /// The state directory's slug.
    pub slug: String,
    /// The executor provider.
    pub executor: String,
    /// SHA-256 of the policy document in force at run start (`policy.json`).
    #[serde(default)]
    pub policy: String,
    /// `sh` and the `[shell:]` command words, resolved and hashed at run start.
    #[serde(default)]
    pub toolchain: Vec<crate::run::toolchain::Tool>,
    /// When the run started.
    pub started_at: String,
    /// When this file was last written.
    pub updated_at: String,
    /// Tasks in run order.
    pub tasks: Vec<TaskState>,
}

impl RunState {
    /// Reads `prd.json`; `Ok(None)` when there is none.
    pub fn load(path: &Path) -> Result<Option<RunState>, String> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| format!("{}: unreadable run state ({e}); `zurdo run --reset` archives it and starts over", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// Writes `prd.json` atomically.
    pub fn save(&mut self, path: &Path) -> std::io::Result<()> {
        self.updated_at = super::now();
        let text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        super::atomic::write(path, &text)
    }

    /// The state of task `id`.
    pub fn task_mut(&mut self, id: &str) -> Option<&mut TaskState> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    /// The state of task `id`.
    pub fn task(&self, id: &str) -> Option<&TaskState> {
        self.tasks.iter().find(|t| t.id == id)
    }
}
