//! Everything a run reports, as one typed [`Event`] stream.
//!
//! The loop emits events into [`Events`]; the [`Reporter`] renders each one
//! live on stderr (with colour on a terminal, unless `NO_COLOR` is set) and
//! the [`Log`] appends it to `.zurdo/<slug>/progress.log` as one JSON line
//! `{"ts": …, "event": "<name>", …fields}`. There is no other description
//! of what happened: the live output and the log cannot drift apart, and
//! reading the log back ([`log::read`]) yields the same events, which is
//! how a resume finds an interrupted attempt and how `zurdo report` finds
//! what `prd.json` cannot say.
//!
//! The field names of the events that existed before this module are kept
//! (`attempt_started` has `task`, `attempt`, `model`; …); new fields are
//! added with defaults, so old logs still read.

pub mod heartbeat;
pub mod log;
pub mod render;
pub mod reporter;

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::agent::failure::InfraFailure;
use crate::evidence::toolchain::Tool;
use crate::state::run_state::Status;

pub use log::Log;
pub use reporter::Reporter;

/// One failing hint of a criterion, as the live output names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HintFailure {
    /// The criterion's title.
    pub criterion: String,
    /// The hint as written (`[shell: cargo test]`).
    pub hint: String,
    /// Its typed reason, rendered.
    pub reason: String,
}

/// A standing rule an attempt broke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenRule {
    /// The rule's hint as written.
    pub hint: String,
    /// Its why.
    pub why: String,
}

/// Why a task settled where it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Settled {
    /// A task it depends on did not pass.
    Blocked {
        /// That task.
        by: String,
    },
    /// A `halt_task` diagnosis was recorded before the last stop.
    HaltedBeforeStop,
    /// A passing attempt was recorded before the last stop.
    PassedBeforeStop,
    /// Every criterion held before any agent ran.
    PassedAtPreflight {
        /// True when every criterion is `[manual]`.
        manual_only: bool,
    },
    /// The last attempt passed.
    Passed {
        /// Which attempt.
        attempt: u32,
    },
    /// A `halt_task` diagnosis stopped it now.
    Halted,
    /// The attempt budget ran out.
    BudgetSpent {
        /// The budget.
        max: u32,
    },
    /// The next attempt was refused: it would cross a cost or token budget
    /// (`[budget]`, `**Max-Cost**`).
    BudgetExhausted {
        /// The limit, what was spent, what the attempt was predicted to
        /// spend and what that rests on.
        refusal: crate::budget::Refusal,
    },
    /// It had passed, and its criteria no longer hold on the run's final
    /// tree.
    RegressedAfterSettle,
    /// Every criterion held before any agent ran and `[verification]
    /// require_red_first` is on.
    Unproven,
    /// The escalation ladder reached its `halt` rung.
    EscalatedToHalt {
        /// The failed attempt that climbed to it.
        attempt: u32,
    },
}

/// Why an attempt was dropped without being counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// A hard stop or a crash interrupted it (found on resume).
    #[default]
    Interrupted,
    /// The agent's CLI could not be started: not the task's failure
    /// (written by older versions; now `agent_unavailable` with
    /// `cli_missing`).
    AgentNotStarted,
    /// The agent's CLI could not work (not logged in, out of quota, rate
    /// limited, no network, not installed, crashed…): not the task's
    /// failure. The event's `failure` says which.
    AgentUnavailable,
}

/// An approval that does not count, dropped from its task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedApproval {
    /// The criterion, named as its cargo test.
    pub criterion: String,
    /// Why it does not count.
    pub why: String,
}

/// What happened to a lesson extraction after a recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extraction {
    /// A new lesson file was written.
    Written,
    /// An identical lesson was already in the library.
    Duplicate,
    /// The reasoner found nothing that generalizes.
    None,
    /// No lesson: `why` says why.
    Skipped,
}

/// One thing a run reports. See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    // ----- preparation and resume
    /// A lock left by a process that is gone was taken over.
    LockTakenOver {
        /// What the lock said (`<pid> <start>`).
        holder: String,
    },
    /// `--reset` (or the `[X]` answer) moved the previous state into `.archive/`.
    StateArchived {
        /// The PRD as given.
        prd: String,
    },
    /// A one-time piece of advice (the `.gitignore` hint).
    Hint {
        /// The advice.
        text: String,
    },
    /// The run state read back on resume was not written by zurdo as it
    /// stands (its MAC is missing or does not check): nothing recorded
    /// decides a verdict; every task is verified again from the tree.
    StateDistrusted {
        /// `prd.json`.
        path: String,
        /// Why.
        why: String,
    },
    /// Processes left over from an interrupted agent were killed on resume.
    LeftoversKilled {
        /// How many.
        count: usize,
    },
    /// An attempt that never finished was dropped, uncounted.
    AttemptDropped {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Why.
        #[serde(default)]
        cause: DropCause,
        /// What the agent's CLI could not do, when that is why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<InfraFailure>,
    },
    /// Today's `[verification]` hashes differently; the run-start policy stays.
    PolicyKept {
        /// The run-start policy id.
        policy: String,
    },
    /// `config-at-run-start.toml` no longer matches the recorded policy.
    PolicyRecordAltered {
        /// That file.
        path: String,
    },
    /// A lesson file that cannot be read was skipped.
    LessonSkipped {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
    /// The lesson library was read.
    LessonsLoaded {
        /// How many lessons it holds.
        count: usize,
    },
    /// The run-start snapshot of the working tree.
    Baseline {
        /// Its git tree id.
        tree: String,
        /// True when the tree had uncommitted changes.
        dirty: bool,
        /// Files captured.
        files: usize,
    },
    /// No run-start snapshot: the guards that need one are off.
    BaselineUnavailable {
        /// True outside a git repository.
        not_a_repo: bool,
        /// The capture error otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// The toolchain and policy the verdicts rest on.
    VerifierContext {
        /// `sh` and the `[shell:]` command words, resolved and hashed.
        toolchain: Vec<Tool>,
        /// The policy id.
        policy: String,
        /// The shell the hints run with.
        shell: String,
    },
    /// The standing rules were checked before any agent ran.
    StandingPreflight {
        /// How many rules.
        rules: usize,
        /// How many were broken (any refuses the run).
        broken: usize,
    },
    /// One model was probed.
    ModelProbe {
        /// The model.
        model: String,
        /// True when it answered.
        ok: bool,
        /// Advisory warnings (what the CLI warned about, the vocabulary
        /// canary, the usage gap).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
        /// Why it failed, quoting the CLI.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Wall time.
        #[serde(default)]
        duration_ms: u64,
        /// True for a model the run may only fail over or escalate to: its
        /// failure keeps that provider or model out, and the run goes on.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        optional: bool,
        /// The provider, for an optional model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
    },
    /// A model probe began (all of a run's probes start at once; their
    /// results follow in model order).
    ProbeStarted {
        /// The model.
        model: String,
        /// The provider whose CLI is asked.
        provider: String,
    },

    // ----- the run
    /// The task loop begins.
    RunStarted {
        /// The PRD, repository-relative.
        prd: String,
        /// The executor provider.
        executor: String,
        /// The PRD as given on the command line.
        #[serde(default)]
        display: String,
        /// How many tasks it has.
        #[serde(default)]
        tasks: usize,
        /// The state directory.
        #[serde(default)]
        state_dir: String,
        /// The challenger (`provider/model`), when one is configured.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        challenger: Option<String>,
    },
    /// A skill a task names is not where the executor's CLI finds skills.
    SkillMissing {
        /// The skill.
        skill: String,
        /// The first task naming it.
        task: String,
        /// Where the CLI looks.
        dirs: Vec<String>,
    },
    /// A cost budget is in force and the provider's CLI reports no cost:
    /// its attempts count against the token limits instead (said once per
    /// provider and run).
    BudgetCountsTokens {
        /// The provider.
        provider: String,
        /// Its CLI (`codex`).
        cli: String,
        /// The token limits in force (none: nothing bounds its spend).
        token_limits: Vec<String>,
    },
    /// A task's turn in run order.
    TaskStarted {
        /// The task id.
        task: String,
        /// Its title.
        title: String,
        /// 1-based position in run order.
        position: usize,
        /// Tasks in the PRD.
        count: usize,
        /// Its status when the saved state already settled it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        saved: Option<Status>,
    },
    /// The criteria on the tree before any agent ran.
    Preflight {
        /// The task.
        task: String,
        /// Criteria already holding (or awaiting review).
        passing: usize,
        /// All its criteria.
        total: usize,
    },
    /// A task settled.
    TaskSettled {
        /// The task.
        task: String,
        /// Its final status.
        status: Status,
        /// Why.
        #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
        settled: Option<Settled>,
    },

    // ----- one attempt
    /// An agent attempt begins.
    AttemptStarted {
        /// The task.
        task: String,
        /// The attempt, 1-based.
        attempt: u32,
        /// The attempt budget.
        #[serde(default)]
        max: u32,
        /// The model.
        model: String,
    },
    /// The agent's process group, recorded so a resume can kill what is
    /// left of it after a hard stop.
    AgentStarted {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// The process group id (the agent's pid).
        process_group: u32,
        /// The leader's start time, in clock ticks since boot.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group_start: Option<u64>,
        /// The boot id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        boot_id: Option<String>,
    },
    /// The agent exited (or was killed at its timeout).
    AgentFinished {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Its exit code (none when killed).
        exit_code: Option<i32>,
        /// True when it ran past its timeout.
        timed_out: bool,
        /// Wall time.
        duration_ms: u64,
        /// Tool calls its stream shows.
        tool_calls: usize,
        /// A run-level error its stream reported.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// True when zurdo stopped it as soon as its CLI said it cannot
        /// work (it would have kept waiting).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        stopped: bool,
    },
    /// What the agent has done so far, once a minute while it works (on a
    /// terminal the spinner line shows it instead).
    AgentProgress {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Seconds since it started.
        elapsed_s: u64,
        /// Tool calls its stream showed so far.
        tool_calls: usize,
        /// Its last tool call, else the start of its latest text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last: Option<String>,
    },
    /// The agent's CLI is rate limited: zurdo waits, then runs the same
    /// attempt again (the wait spends no attempt).
    RateLimitWait {
        /// The task.
        task: String,
        /// The attempt that runs again after the wait.
        attempt: u32,
        /// The CLI (`claude`).
        cli: String,
        /// How long zurdo waits, in seconds.
        seconds: u64,
        /// Until when (RFC 3339).
        until: String,
        /// True when the CLI said when the limit resets; false for a short
        /// backoff.
        known: bool,
        /// Which wait this is for the attempt (1-based).
        round: u32,
        /// The most waits for one attempt.
        rounds: u32,
    },
    /// A provider's CLI cannot work for the rest of this run (out of
    /// quota, not logged in, not installed, rate limited past the wait):
    /// nothing more is sent to it; its roles fail over.
    ProviderBlocked {
        /// The provider (`anthropic`).
        provider: String,
        /// What its CLI said.
        failure: InfraFailure,
        /// Where it was found: `probe`, or the role whose call met it
        /// (`executor`, `reasoner`, `analyzer`).
        during: String,
    },
    /// A role's work moved to the next provider of its fallback chain.
    FailedOver {
        /// `executor`, `reasoner` or `analyzer`.
        role: String,
        /// The task (executor and reasoner calls).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<String>,
        /// The attempt that runs again on `to`, not counted (executor).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
        /// The provider (or `provider/model`) left.
        from: String,
        /// The provider (or `provider/model`) used now.
        to: String,
        /// The model used now.
        model: String,
        /// Why each provider before it was passed over.
        why: String,
    },
    /// Still waiting out a rate limit, once a minute (on a terminal a
    /// countdown shows it instead).
    StillWaiting {
        /// The task.
        task: String,
        /// Seconds left.
        seconds_left: u64,
    },
    /// `--retry-failed`: failed tasks back to pending with a fresh attempt
    /// budget (their history kept), the tasks they blocked unblocked.
    FailedRetried {
        /// The failed tasks.
        tasks: Vec<String>,
        /// The tasks they had blocked.
        unblocked: Vec<String>,
    },
    /// Processes the agent left running after it exited, however detached,
    /// killed before zurdo verified (zurdo is the reaper of everything the
    /// agent starts).
    AgentLeftovers {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Each killed process's command line.
        commands: Vec<String>,
    },
    /// The criteria of a task that had passed, checked again: at run end
    /// (`run_end`), or on resume before anything else runs (`resume`).
    Reverified {
        /// The task.
        task: String,
        /// `run_end` or `resume`.
        when: String,
        /// The hints that no longer hold (none: it still passes).
        failures: Vec<HintFailure>,
    },
    /// Processes the criteria started and left running (a server for a
    /// later `[http:]` criterion), killed when the verification pass ended.
    CriteriaLeftovers {
        /// The task (empty for the standing rules' pre-flight).
        task: String,
        /// Each killed process's command line.
        commands: Vec<String>,
    },
    /// The agent's CLI could not be started.
    AgentNotStarted {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// The program.
        program: String,
        /// Why.
        error: String,
    },
    /// Frozen paths the attempt modified (the iteration fails).
    FrozenViolation {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// The paths.
        paths: Vec<String>,
    },
    /// What zurdo caught an attempt doing besides failing a criterion (the
    /// iteration fails).
    Caught {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Each finding.
        caught: Vec<crate::evidence::Caught>,
    },
    /// A task's sealed criteria ran (counts only: what they check is never
    /// written where the agent reads).
    SealedChecked {
        /// The task.
        task: String,
        /// How many hold.
        passing: usize,
        /// How many there are.
        total: usize,
    },
    /// The challenger was asked about a passing attempt (`[roles.challenger]`).
    Challenged {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// The model asked.
        model: String,
        /// Findings its probes confirmed (each fails the attempt).
        confirmed: usize,
        /// Findings left unconfirmed (reported at medium, no effect).
        unconfirmed: usize,
        /// Findings dropped (an invented citation, an unknown kind…).
        dropped: usize,
        /// Why it gave no verdict, when it did not (fail-open).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        skipped: Option<String>,
    },
    /// The coverage gate could not measure a task's attempt (outside git,
    /// say); the attempt is judged without it.
    CoverageUnmeasured {
        /// The task.
        task: String,
        /// Why.
        why: String,
    },
    /// The frozen-path hashing leg stands down: the globs match too many files.
    FrozenStandDown {
        /// The task.
        task: String,
        /// The limit.
        max: usize,
        /// Files seen.
        seen: usize,
    },
    /// The verdict-surface walk stands down: the repository has too many
    /// entries (only the surface files found at the task's start are
    /// compared).
    SurfaceStandDown {
        /// The task.
        task: String,
        /// The limit.
        max: usize,
        /// Entries seen.
        seen: usize,
    },
    /// A tool moved or changed since run start (a warning; the pass is marked).
    ToolchainChanged {
        /// What changed, one line each.
        changes: Vec<String>,
    },
    /// Evidence a passing hint read changed before verification ended.
    EvidenceChanged {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// The files.
        paths: Vec<String>,
    },
    /// What pre-flight says about this attempt's verdicts (never a verdict).
    Provenance {
        /// The task.
        task: String,
        /// Criteria that passed at pre-flight too: they prove nothing here.
        already_green: Vec<String>,
        /// Evidence files changed since pre-flight.
        modified: Vec<String>,
    },
    /// zurdo's verification of an attempt.
    Verified {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Criteria that hold (or await review).
        passing: usize,
        /// All its criteria.
        total: usize,
        /// Each failing hint.
        failures: Vec<HintFailure>,
        /// Standing rules broken.
        standing_broken: Vec<BrokenRule>,
    },
    /// The criteria themselves wrote into frozen paths (not charged).
    FrozenFolded {
        /// The task.
        task: String,
        /// The paths.
        paths: Vec<String>,
    },
    /// The clean room could not run: there is no git baseline.
    CleanRoomSkipped {
        /// The task.
        task: String,
    },
    /// What passed in place but failed in the clean room.
    CleanRoomMismatch {
        /// The task.
        task: String,
        /// One line each.
        mismatches: Vec<String>,
    },
    /// Criteria with two verdicts on one verified tree.
    Flaky {
        /// The task.
        task: String,
        /// The criteria, by test name.
        criteria: Vec<String>,
    },
    /// After a pass: changed files no hint reads.
    Unwitnessed {
        /// The task.
        task: String,
        /// The files.
        paths: Vec<String>,
    },
    /// An attempt is recorded.
    AttemptFinished {
        /// The task.
        task: String,
        /// The attempt.
        attempt: u32,
        /// Whether it passed.
        passed: bool,
    },

    // ----- reasoning
    /// The same failure several attempts in a row.
    TaskStalled {
        /// The task.
        task: String,
        /// The attempt completing the stall.
        attempt: u32,
        /// The repeated fingerprint.
        fingerprint: String,
        /// How many attempts in a row.
        repeats: u32,
        /// The failing criteria.
        criteria: Vec<String>,
    },
    /// A task climbed the escalation ladder (`[escalation]`).
    Escalated {
        /// The task.
        task: String,
        /// The failed attempt that made it climb.
        attempt: u32,
        /// The rung it left (`start`: below the ladder).
        from: String,
        /// The rung it reached.
        to: String,
        /// Why it climbed.
        why: String,
        /// The provider its next attempt runs on (none after `halt`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider: Option<String>,
        /// The model its next attempt runs (none after `halt`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A rung that cannot run was passed over on the way up.
    EscalationSkipped {
        /// The task.
        task: String,
        /// The failed attempt that made it climb.
        attempt: u32,
        /// The rung (`provider:google`).
        rung: String,
        /// Why it cannot run.
        why: String,
    },
    /// One diagnosis call, or why none was made.
    DiagnosisOutcome {
        /// The task.
        task: String,
        /// The stalled attempt.
        attempt: u32,
        /// `accepted`, `discarded` or `skipped`.
        outcome: String,
        /// Why it was discarded or skipped.
        why: Option<String>,
        /// The accepted verdict.
        verdict: Option<String>,
        /// Its confidence.
        confidence: Option<String>,
        /// True when an uncited `high` was clamped.
        confidence_clamped: bool,
        /// The accepted hypothesis.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hypothesis: Option<String>,
        /// `<provider>/<model>`.
        model: Option<String>,
        /// Tokens in, when reported.
        input_tokens: Option<u64>,
        /// Tokens out, when reported.
        output_tokens: Option<u64>,
    },
    /// A `suggest_heal` verdict routed criteria to `zurdo heal`.
    HealRouted {
        /// The task.
        task: String,
        /// The stalled attempt.
        attempt: u32,
        /// The criteria.
        criteria: Vec<String>,
    },
    /// A recovery's lesson extraction.
    LessonExtracted {
        /// The task.
        task: String,
        /// What happened.
        outcome: Extraction,
        /// The lesson id, when there is one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lesson: Option<String>,
        /// Lessons evicted to make room.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        evicted: Vec<String>,
        /// Why there is none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// Lessons put into an executor prompt.
    LessonsInjected {
        /// The task.
        task: String,
        /// The attempt whose prompt carries them.
        attempt: u32,
        /// `prospective` or `reactive`.
        mode: String,
        /// Their ids.
        lessons: Vec<String>,
    },

    // ----- review (`zurdo review`, and what a run does with its log)
    /// A reviewer's decision on one `[manual]` criterion, appended to
    /// review-log.jsonl.
    Reviewed {
        /// The task.
        task: String,
        /// The criterion, named as its cargo test.
        criterion: String,
        /// `approved` or `rejected`.
        decision: crate::state::review_log::Decision,
        /// Who decided.
        reviewer: String,
        /// Why (always for a rejection).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The entry's line in review-log.jsonl.
        line: usize,
        /// The task's status after the decision.
        status: Status,
        /// The task's `[manual]` criteria still awaiting review.
        #[serde(default)]
        awaiting: usize,
    },
    /// review-log.jsonl does not check: entries that do not check count
    /// for nothing.
    ReviewChainBroken {
        /// The log.
        path: String,
        /// The first line that does not check (one past the last when
        /// entries are missing from its end).
        line: usize,
        /// What is wrong with it.
        what: String,
        /// How many lines do not check.
        broken: usize,
    },
    /// Approvals of a task that do not count (their entries do not check,
    /// or are gone) were dropped; a task that had passed awaits review
    /// again.
    ReviewUnvouched {
        /// The task.
        task: String,
        /// Each approval dropped, and why.
        dropped: Vec<DroppedApproval>,
        /// The task's status now.
        status: Status,
    },
    // ----- outside a run
    /// `zurdo heal` replaced a criterion line of the PRD, and prd.json's
    /// hash of the PRD moved with it (`heal-log.jsonl` has the whole record).
    PrdHealed {
        /// The task.
        task: String,
        /// The criterion's line.
        line: usize,
        /// The line before.
        old: String,
        /// The line after.
        new: String,
    },

    // ----- the end, and stops
    /// Tasks that passed without an attempt (green before the run).
    UnprovenPasses {
        /// The tasks.
        tasks: Vec<String>,
    },
    /// The task loop ended.
    RunFinished {
        /// True when every task settled.
        complete: bool,
        /// The PRD as given (for the resume advice).
        #[serde(default)]
        display: String,
        /// Tasks that ended failed (for the `--retry-failed` advice), but
        /// for those the budget refused.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failed: Vec<String>,
        /// Tasks that failed because the budget refused their next attempt
        /// (`--retry-failed` keeps the spend, so it would refuse again).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refused: Vec<String>,
    },
    /// Ctrl-C and SIGTERM cannot be watched: a stop is not graceful.
    SignalsUnhandled {
        /// Why.
        error: String,
    },
    /// The first Ctrl-C: the current iteration finishes.
    StopRequested,
    /// A stop now (a second Ctrl-C, SIGTERM, SIGHUP): the agent and every
    /// process zurdo started are killed, the attempt is dropped, the state
    /// written, the lock released.
    StoppedNow {
        /// The signal (`SIGINT`, `SIGTERM`, `SIGHUP`; absent in old logs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<String>,
    },

    // ----- records that could not be kept
    /// Pyxis's `index.json` was read back and not believed (its MAC does
    /// not check, another format, not JSON…): the index was rebuilt from
    /// the files, and nothing it held reached a prompt.
    IndexDistrusted {
        /// `.zurdo/pyxis/index.json`.
        path: String,
        /// Why.
        why: String,
    },
    /// A state file could not be written (the run goes on).
    CannotWrite {
        /// The file.
        path: String,
        /// Why.
        error: String,
    },
    /// A git ref under `refs/zurdo/` could not be written or deleted.
    RefFailed {
        /// The ref (or `refs/zurdo/<slug>/*`).
        name: String,
        /// True when deleting, false when recording.
        #[serde(default)]
        delete: bool,
        /// Why.
        error: String,
    },
}

impl Event {
    /// The event's name, as progress.log writes it.
    pub fn name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v["event"].as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// Where events go: the live reporter and, once the state directory is
/// held, the progress log. Cheap to clone (the signal thread holds one).
#[derive(Debug, Clone)]
pub struct Events {
    inner: Arc<Mutex<Sinks>>,
}

#[derive(Debug)]
struct Sinks {
    reporter: Reporter,
    log: Option<Log>,
}

impl Events {
    /// Events rendered by `reporter`, not yet logged.
    pub fn new(reporter: Reporter) -> Events {
        Events {
            inner: Arc::new(Mutex::new(Sinks {
                reporter,
                log: None,
            })),
        }
    }

    /// From now on, every event is also appended to `log`.
    pub fn log_to(&self, log: Log) {
        self.sinks().log = Some(log);
    }

    /// Reports `event`: rendered live, then logged.
    pub fn emit(&self, event: Event) {
        let mut sinks = self.sinks();
        sinks.reporter.report(&event);
        let failed = sinks.log.as_ref().and_then(|log| match log.append(&event) {
            Ok(false) => None,
            Ok(true) => Some(format!(
                "warning: {} was not a regular file (a symlink or a FIFO something other than zurdo put there); it was removed, not followed, and a new log begins",
                log.path().display()
            )),
            Err(e) => Some(format!(
                "warning: cannot append to {}: {e}",
                log.path().display()
            )),
        });
        if let Some(warning) = failed {
            sinks.reporter.note(&warning);
        }
    }

    /// From now on the live spinner shows what `progress` says the running
    /// agent has done (`None`: nothing).
    pub fn watch(&self, progress: Option<crate::agent::invoke::Progress>) {
        self.sinks().reporter.watch(progress);
    }

    /// Reports a write that failed as [`Event::CannotWrite`]; does nothing
    /// on success.
    pub fn on_write(&self, written: Result<(), crate::state::WriteError>) {
        if let Err(e) = written {
            self.emit(Event::CannotWrite {
                path: e.path.display().to_string(),
                error: e.source.to_string(),
            });
        }
    }

    fn sinks(&self) -> std::sync::MutexGuard<'_, Sinks> {
        // A panic while reporting leaves nothing half-written that matters.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod documented {
    /// Every event's name, as progress.log writes it, is in docs/run.md's
    /// list (read from this file's own `Event` enum, so a new event cannot
    /// be forgotten there).
    #[test]
    fn every_event_is_listed_in_docs_run_md() {
        let source = include_str!("mod.rs");
        let docs = include_str!("../../../docs/run.md");
        let start = source.find("pub enum Event {").expect("the enum");
        let body = &source[start..];
        let end = body.find("\n}\n").expect("its end");
        let mut missing = Vec::new();
        let mut seen = 0;
        for line in body[..end].lines() {
            let Some(name) = line.strip_prefix("    ").filter(|l| !l.starts_with(' ')) else {
                continue;
            };
            let name = name.trim_end_matches([',', '{', ' ']);
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
                continue;
            }
            let mut snake = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_ascii_uppercase() {
                    if i > 0 {
                        snake.push('_');
                    }
                    snake.push(c.to_ascii_lowercase());
                } else {
                    snake.push(c);
                }
            }
            seen += 1;
            if !docs.contains(&format!("`{snake}`")) {
                missing.push(snake);
            }
        }
        assert!(seen > 40, "the enum was read: {seen} events");
        assert!(missing.is_empty(), "not in docs/run.md: {missing:?}");
    }
}
