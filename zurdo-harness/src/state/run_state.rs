//! `prd.json`: the run's state. Written atomically after every change; it is
//! the record of the run, while the parsed PRD and the verdicts zurdo
//! computes in memory are the authority.

use std::path::Path;

use serde::{Deserialize, Serialize};
use zurdo::verify::CriterionVerdict;

use crate::agent::Usage;
use crate::error::Error;
use crate::reason::diagnosis::{Block, Confidence};
use crate::reason::surface::Surface;

/// The format version of `prd.json`.
pub const VERSION: u32 = 1;

/// The field of `prd.json` that holds its MAC: the last field, written as
/// `,\n  "mac": "<hex>"\n}` after the state's own pretty JSON, and taken
/// over that JSON as it was before the field was added (the file's bytes
/// up to the field, closed with `\n}`). A file rewritten by anything else
/// (even reformatted) no longer checks.
pub const MAC_FIELD: &str = "mac";

/// `body` (a pretty JSON object, ending `\n}`) with its MAC under `key`
/// appended as the last field.
pub fn with_mac(body: Vec<u8>, key: &zurdo_base::mac::Key) -> Vec<u8> {
    let mac = key.mac(&body);
    let mut out = match body.strip_suffix(b"\n}") {
        Some(open) => open.to_vec(),
        None => return body,
    };
    out.extend_from_slice(format!(",\n  \"{MAC_FIELD}\": \"{mac}\"\n}}").as_bytes());
    out
}

/// The JSON a MAC was taken over and the MAC, from a file [`with_mac`]
/// wrote; `None` when it carries none where it must be.
fn split_mac(bytes: &[u8]) -> Option<(Vec<u8>, &str)> {
    let marker = format!(",\n  \"{MAC_FIELD}\": \"");
    let text = std::str::from_utf8(bytes).ok()?;
    let at = text.rfind(&marker)?;
    let rest = &text[at + marker.len()..];
    // A MAC not where zurdo writes it (the file was rewritten) is read
    // anyway: the body rebuilt below is then not what it was taken over,
    // and it does not check.
    let (mac, _) = rest.split_once('"')?;
    let mut body = bytes[..at].to_vec();
    body.extend_from_slice(b"\n}");
    Some((body, mac))
}

/// A task's status, exactly as the spec names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Not yet attempted.
    #[default]
    Pending,
    /// All automated hints passed.
    Passed,
    /// Automated hints passed (or none exist); `[manual]` criteria await review.
    PassedPendingReview,
    /// The attempt budget ran out with a hint still failing.
    Failed,
    /// A task it depends on failed.
    BlockedByDependency,
    /// Every criterion already held before any agent ran, and `[verification]
    /// require_red_first` asks for at least one that was red then: nothing
    /// in this run proves the task.
    Unproven,
}

impl Status {
    /// True once the task will not run again in this run.
    pub fn settled(self) -> bool {
        !matches!(self, Status::Pending)
    }

    /// `passed-pending-review` when a `[manual]` criterion awaits review,
    /// else `passed`.
    pub fn passed(manual: bool) -> Status {
        if manual {
            Status::PassedPendingReview
        } else {
            Status::Passed
        }
    }

    /// The spec's name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Passed => "passed",
            Status::PassedPendingReview => "passed-pending-review",
            Status::Failed => "failed",
            Status::BlockedByDependency => "blocked-by-dependency",
            Status::Unproven => "unproven",
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
    /// The provider whose CLI ran it (older records: the run's executor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<crate::agent::Provider>,
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
    /// Command lines of the processes the agent left running after it
    /// exited (killed before verifying).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_leftovers: Vec<String>,
    /// What zurdo caught this attempt doing besides failing a criterion
    /// (any fails the iteration).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caught: Vec<crate::evidence::Caught>,
    /// What the challenger said of this attempt and what its probes
    /// showed, when it was asked (`[roles.challenger]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<crate::reason::challenge::ChallengeRecord>,
    /// The failure fingerprint of a failed iteration (equal fingerprints in
    /// a row are a stall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// The canonical lines the fingerprint digests (what failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure: Vec<String>,
    /// The failure's match surface, for reactive lesson matching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_surface: Option<Surface>,
    /// True when every automated criterion passed.
    pub passed: bool,
}

/// A fingerprint stall: the same failure `repeats` attempts in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stall {
    /// The attempt that completed the run of equal fingerprints.
    pub attempt: u32,
    /// The repeated fingerprint.
    pub fingerprint: String,
    /// How many attempts in a row ended with it.
    pub repeats: u32,
    /// The failing criteria.
    pub criteria: Vec<String>,
    /// The failure's match surface (a lesson extracted from the recovery
    /// declares it).
    pub surface: Surface,
}

/// One diagnosis call (or a skipped one), as `diagnosis_outcome` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnosisRecord {
    /// The stalled attempt it diagnosed.
    pub attempt: u32,
    /// `accepted`, `discarded` (called, reply unusable) or `skipped` (no call).
    pub outcome: String,
    /// Why it was discarded or skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The accepted block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<Block>,
    /// `<provider>/<model>` of the reasoner, when called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its token usage, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Where the block (or the discarded reply) is kept, repo-relative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl DiagnosisRecord {
    /// True when the reasoner was called (skips cost nothing).
    pub fn called(&self) -> bool {
        self.outcome != "skipped"
    }
}

/// A task a `halt_task` verdict stopped, and the diagnosis behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Halt {
    /// The attempt after which it stopped.
    pub attempt: u32,
    /// The reasoner's hypothesis.
    pub hypothesis: String,
    /// Its confidence.
    pub confidence: Confidence,
}

/// A `suggest_heal` verdict: criteria a human should look at with `zurdo heal`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealRouting {
    /// The stalled attempt.
    pub attempt: u32,
    /// The criteria that kept failing (zurdo's list, not the model's).
    pub criteria: Vec<String>,
    /// The reasoner's hypothesis.
    pub hypothesis: String,
}

/// A lesson written (or found already there) after a recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extracted {
    /// The lesson id (`lessons/lesson-<id>.md`).
    pub id: String,
    /// False when an identical lesson was already in the library.
    pub written: bool,
    /// Lessons evicted to make room.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evicted: Vec<String>,
}

/// A lesson put into an executor prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Injected {
    /// The attempt whose prompt carried it.
    pub attempt: u32,
    /// The lesson id.
    pub id: String,
    /// `prospective` (first prompt) or `reactive` (retry).
    pub mode: String,
    /// Its match score.
    pub score: usize,
    /// The task that taught it.
    pub from_task: String,
    /// The PRD that task is in.
    pub from_prd: String,
}

pub use crate::evidence::Witness;

/// A `[manual]` criterion approved in `zurdo review`, pinned to its entry
/// in `review-log.jsonl`: it counts only while that line is there, checks,
/// and hashes to `sha256`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The criterion, named as its cargo test.
    pub criterion: String,
    /// The entry's line in `review-log.jsonl` (1-based).
    pub line: usize,
    /// SHA-256 of that line.
    pub sha256: String,
}

/// A review that sent the task back: the reason goes into its next
/// prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// The criterion rejected, named as its cargo test.
    pub criterion: String,
    /// Why.
    pub reason: String,
    /// Who.
    pub reviewer: String,
    /// When (RFC 3339).
    pub at: String,
    /// The attempt whose result was rejected (0: a pre-flight pass).
    pub attempt: u32,
    /// The entry's line in `review-log.jsonl`.
    pub line: usize,
}

/// One task's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskState {
    /// The task id.
    pub id: String,
    /// The task's `**Category**` (reports group tasks by it; none is
    /// `Uncategorized`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Its status.
    pub status: Status,
    /// Attempts spent (completed iterations).
    pub attempts: u32,
    /// The attempt budget in force.
    pub max_attempts: u32,
    /// The criteria on the tree as it was before any agent ran ("iteration 0").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preflight_results: Option<Vec<CriterionRecord>>,
    /// Frozen paths the criteria themselves wrote at pre-flight (their
    /// normal behaviour: such a write while verifying an attempt is folded,
    /// not caught).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preflight_frozen_writes: Vec<String>,
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
    /// The verdict surface when the task's first attempt began: each
    /// surface file's parts that decide a verdict.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub verdict_surface: Option<crate::evidence::surface::Surface>,
    /// The "what failed" section the next attempt's prompt opens with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retry_context: Option<String>,
    /// The hints that no longer held when the task, which had passed, was
    /// verified again against the run's final tree (`regressed_after_settle`:
    /// the task is `failed`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regressed_after_settle: Vec<String>,
    /// Fingerprint stalls, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stalls: Vec<Stall>,
    /// Diagnosis calls and skips, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnoses: Vec<DiagnosisRecord>,
    /// Set when a `halt_task` verdict stopped the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halted: Option<Halt>,
    /// `suggest_heal` verdicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heal_routings: Vec<HealRouting>,
    /// Lessons extracted from this task's recovery.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lessons_extracted: Vec<Extracted>,
    /// Lessons injected into this task's prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lessons_injected: Vec<Injected>,
    /// The attempts it had spent when `zurdo run --retry-failed` last gave
    /// it a fresh budget: stalls count only the attempts after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retried_after: Option<u32>,
    /// The `[manual]` criteria approved for the task's current result
    /// (cleared when an attempt is recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<Approval>,
    /// The last review rejection (its attempt is not settled again from
    /// what a stop left recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection: Option<Rejection>,
    /// Where the task stands on the escalation ladder, and every climb
    /// (`[escalation]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalation: Option<crate::escalation::Standing>,
    /// Set when an attempt was refused because it would cross a budget
    /// (`budget_exhausted`: the task failed before spending it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_exhausted: Option<crate::budget::Refusal>,
    /// After a pass by an attempt: what it cost and what proved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<super::receipt::Receipt>,
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

    /// Criteria (by test name) that got two verdicts on one verified tree.
    pub fn flaky_criteria(&self) -> Vec<String> {
        let mut flaky = std::collections::BTreeSet::new();
        for (i, a) in self.iterations.iter().enumerate() {
            for b in &self.iterations[i + 1..] {
                if a.verified_tree.is_none() || a.verified_tree != b.verified_tree {
                    continue;
                }
                for (x, y) in a.criteria.iter().zip(&b.criteria) {
                    if x.verdict != y.verdict {
                        flaky.insert(x.name.clone());
                    }
                }
            }
        }
        flaky.into_iter().collect()
    }

    /// The attempt whose result the task's status rests on: the last
    /// iteration's, 0 when it has none (a pre-flight pass).
    pub fn current_attempt(&self) -> u32 {
        self.iterations.last().map_or(0, |i| i.attempt)
    }

    /// The criteria records of the task's current result: the last
    /// iteration's, else pre-flight's.
    pub fn current_records(&self) -> &[CriterionRecord] {
        match self.iterations.last() {
            Some(it) => &it.criteria,
            None => self.preflight_results.as_deref().unwrap_or_default(),
        }
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
    pub toolchain: Vec<crate::evidence::toolchain::Tool>,
    /// The repository's ignore files at run start: directory and glob
    /// searches honour these, not ignore entries written since (none when
    /// they could not be taken: searches read the files as they are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_rules: Option<zurdo::verify::IgnoreRules>,
    /// The environment surface at run start: startup hooks, runner configs,
    /// repository-local tools (none with `environment_surface = false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<crate::evidence::environment::EnvSurface>,
    /// When the run started.
    pub started_at: String,
    /// When this file was last written.
    pub updated_at: String,
    /// Tasks in run order.
    pub tasks: Vec<TaskState>,
    /// Reasoner calls made in this run (diagnoses and extractions), against
    /// `[reason] max_reasoner_calls_per_run`.
    #[serde(default)]
    pub reasoner_calls: u32,
    /// Challenger calls made in this run, against `[roles.challenger]
    /// max_calls_per_run`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub challenger_calls: u32,
    /// `review-log.jsonl` as zurdo last wrote it (entries and the SHA-256 of
    /// the last): an edited last entry or entries removed from the end are
    /// found against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_chain: Option<super::review_log::ChainHead>,
}

/// A run state read back, and whether zurdo can vouch for it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The state as recorded.
    pub state: RunState,
    /// Why the record is distrusted (its MAC is missing or does not check:
    /// something other than zurdo wrote it, or it was written under another
    /// key); `None` when zurdo wrote it as it stands.
    pub distrusted: Option<String>,
}

impl RunState {
    /// Parses `prd.json`'s bytes (read from `shown`, for messages) and
    /// checks its MAC under the user's key ([`zurdo_base::mac`]).
    pub fn parse(bytes: &[u8], shown: &Path) -> Result<Loaded, Error> {
        Self::parse_with(bytes, shown, zurdo_base::mac::Key::user())
    }

    /// [`RunState::parse`] under `key`.
    pub fn parse_with(
        bytes: &[u8],
        shown: &Path,
        key: &zurdo_base::mac::Key,
    ) -> Result<Loaded, Error> {
        let state = serde_json::from_slice(bytes).map_err(|e| {
            Error::invalid(format!(
                "{}: unreadable run state ({e}); `zurdo run --reset` archives it and starts over",
                shown.display()
            ))
        })?;
        let distrusted = match split_mac(bytes) {
            None => Some("it carries no MAC".to_string()),
            Some((body, mac)) if key.checks(&body, mac) => None,
            Some(_) => Some(match key.is_ephemeral() {
                Some(why) => format!("no key is kept to check it ({why})"),
                None => "its MAC does not check: it was changed after zurdo wrote it".to_string(),
            }),
        };
        Ok(Loaded { state, distrusted })
    }

    /// Stamps `updated_at` and serializes the state as `prd.json` holds it,
    /// with the MAC of its canonical form under the user's key.
    pub fn to_bytes(&mut self) -> std::io::Result<Vec<u8>> {
        self.to_bytes_with(zurdo_base::mac::Key::user())
    }

    /// [`RunState::to_bytes`] under `key`.
    pub fn to_bytes_with(&mut self, key: &zurdo_base::mac::Key) -> std::io::Result<Vec<u8>> {
        self.updated_at = zurdo_base::time::now();
        let body = serde_json::to_vec_pretty(&*self).map_err(std::io::Error::other)?;
        Ok(with_mac(body, key))
    }

    /// What a resume keeps of a state zurdo cannot vouch for: the history
    /// (attempts and iterations, for the record), nothing that decides a
    /// verdict. Every task goes back to pending with no pre-flight, no
    /// baselines and no retry context, the run-start toolchain and policy
    /// are taken again, so the run re-verifies everything from the tree as
    /// it is.
    pub fn distrust(&mut self) {
        self.policy.clear();
        self.toolchain.clear();
        self.ignore_rules = None;
        // A head this record vouched for is not vouched for any more.
        self.review_chain = None;
        for t in &mut self.tasks {
            t.status = Status::Pending;
            t.blocked_by = None;
            t.preflight_results = None;
            t.preflight_frozen_writes.clear();
            t.passed_at_preflight = false;
            t.frozen_baseline = None;
            t.rollback_point = None;
            t.retry_context = None;
            t.witness = None;
            t.halted = None;
            t.approvals.clear();
        }
    }

    /// The state of task `id`.
    pub fn task_mut(&mut self, id: &str) -> Option<&mut TaskState> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }

    /// The state of task `id`.
    pub fn task(&self, id: &str) -> Option<&TaskState> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Checks a state read back before trusting it: the tasks are `prd`'s,
    /// in run order, and each task's counters agree with what is recorded
    /// (attempts equal the iterations kept, numbered 1 to n, within a
    /// budget of at most [`MAX_ATTEMPTS`]). A record that fails was edited
    /// or damaged; the message says where.
    pub fn check(&self, prd: &zurdo::Prd) -> Result<(), String> {
        let expected: Vec<&str> = prd.tasks_in_run_order().map(|t| t.id.as_str()).collect();
        let recorded: Vec<&str> = self.tasks.iter().map(|t| t.id.as_str()).collect();
        if expected != recorded {
            return Err(format!(
                "its tasks ({}) are not the PRD's ({})",
                recorded.join(", "),
                expected.join(", ")
            ));
        }
        for t in &self.tasks {
            if t.max_attempts == 0 || t.max_attempts > MAX_ATTEMPTS {
                return Err(format!(
                    "{}: an attempt budget of {} (1 to {MAX_ATTEMPTS})",
                    t.id, t.max_attempts
                ));
            }
            if t.attempts > t.max_attempts {
                return Err(format!(
                    "{}: {} attempts spent of a budget of {}",
                    t.id, t.attempts, t.max_attempts
                ));
            }
            if t.iterations.len() != t.attempts as usize
                || t.iterations
                    .iter()
                    .enumerate()
                    .any(|(i, it)| it.attempt as usize != i + 1)
            {
                return Err(format!(
                    "{}: {} attempts counted but {} iterations recorded",
                    t.id,
                    t.attempts,
                    t.iterations.len()
                ));
            }
        }
        Ok(())
    }
}

/// The largest attempt budget a run state may record.
pub const MAX_ATTEMPTS: u32 = 1000;

/// For `skip_serializing_if`: a zero count is left out.
pub(super) fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> RunState {
        RunState {
            version: VERSION,
            prd: "prds/p.md".into(),
            prd_sha1: "0".repeat(40),
            slug: "p-0000".into(),
            executor: "anthropic".into(),
            policy: String::new(),
            toolchain: Vec::new(),
            ignore_rules: None,
            environment: None,
            started_at: "2026-01-01T00:00:00Z".into(),
            updated_at: String::new(),
            tasks: vec![TaskState {
                id: "task-1".into(),
                status: Status::Passed,
                max_attempts: 3,
                ..TaskState::default()
            }],
            reasoner_calls: 0,
            challenger_calls: 0,
            review_chain: None,
        }
    }

    #[test]
    fn the_mac_checks_what_zurdo_wrote_and_nothing_else() {
        let key = zurdo_base::mac::Key::from_bytes([7; 32]);
        let other = zurdo_base::mac::Key::from_bytes([8; 32]);
        let shown = Path::new("prd.json");
        let bytes = state().to_bytes_with(&key).expect("bytes");
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        assert!(text.trim_end().ends_with('}'), "{text}");
        let loaded = RunState::parse_with(&bytes, shown, &key).expect("parses");
        assert_eq!(loaded.distrusted, None);
        assert_eq!(loaded.state.tasks[0].status, Status::Passed);
        // Another key, an edit, a reformat, no MAC at all: distrusted.
        assert!(RunState::parse_with(&bytes, shown, &other)
            .expect("parses")
            .distrusted
            .is_some_and(|w| w.contains("does not check")));
        let forged = text.replace("\"passed\"", "\"failed\"");
        assert!(RunState::parse_with(forged.as_bytes(), shown, &key)
            .expect("parses")
            .distrusted
            .is_some());
        let value: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
        let reformatted = serde_json::to_vec(&value).expect("json");
        assert!(RunState::parse_with(&reformatted, shown, &key)
            .expect("parses")
            .distrusted
            .is_some());
        let plain = serde_json::to_vec_pretty(&state()).expect("json");
        assert_eq!(
            RunState::parse_with(&plain, shown, &key)
                .expect("parses")
                .distrusted
                .as_deref(),
            Some("it carries no MAC")
        );
    }
}
