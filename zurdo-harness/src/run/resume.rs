//! A PRD that already has run state: the `[R]esume / [X] reset / [A]bort`
//! question, a resume's reconciliation of an attempt a hard stop left open,
//! and starting over (the state archived, the task refs deleted).

use std::io::IsTerminal;
use std::path::Path;

use zurdo::Prd;

use super::orphans::Mark;
use super::Options;
use crate::config::Config;
use crate::error::Error;
use crate::event::{log, DropCause, Event, Events};
use crate::evidence::{self, BaselineError};
use crate::state::run_state::{RunState, Status, TaskState, VERSION};
use crate::state::StateDir;

/// What to do with existing state.
pub(super) enum Choice {
    Resume,
    Reset,
    Abort,
}

/// The `[R]esume / [X] reset / [A]bort` question, asked only on a TTY and
/// only without `--resume`/`--no-prompt`.
pub(super) fn ask(options: &Options, display: &str) -> Choice {
    if options.resume || options.no_prompt || !std::io::stdin().is_terminal() {
        return Choice::Resume;
    }
    eprintln!("{display} has run state. What would you like to do?\n  [R] Resume from current state (default)\n  [X] Reset — archive state and start over\n  [A] Abort");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return Choice::Resume;
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "x" => Choice::Reset,
        "a" => Choice::Abort,
        _ => Choice::Resume,
    }
}

/// On resume, an attempt that started but never finished (a hard stop or a
/// crash) is dropped: it was never counted, and progress.log says so. What
/// is left of its agent is killed first, so it cannot keep editing the tree.
pub(super) fn reconcile(dir: &StateDir, state: &RunState, events: &Events) {
    let mut open: Option<(String, u32)> = None;
    let mut agent: Option<Mark> = None;
    for stamped in log::read(dir) {
        match stamped.event {
            Event::AttemptStarted { task, attempt, .. } => {
                open = Some((task, attempt));
                agent = None;
            }
            ref started @ Event::AgentStarted { .. } => agent = Mark::from_event(started),
            Event::AttemptFinished { .. } | Event::AttemptDropped { .. } => {
                open = None;
                agent = None;
            }
            _ => {}
        }
    }
    // A crash between saving prd.json and logging attempt_finished leaves the
    // attempt recorded: it counted, and nothing is dropped.
    let recorded = |task: &str, attempt: u32| {
        state
            .task(task)
            .is_some_and(|t| t.iterations.iter().any(|i| i.attempt == attempt))
    };
    let Some((task, attempt)) = open.filter(|(t, a)| !recorded(t, *a)) else {
        return;
    };
    if let Some(mark) = &agent {
        let count = mark.kill_survivors();
        if count > 0 {
            events.emit(Event::LeftoversKilled { count });
        }
    }
    events.emit(Event::AttemptDropped {
        task,
        attempt,
        cause: DropCause::Interrupted,
        failure: None,
    });
}

/// `--retry-failed`: every failed task back to pending with a fresh budget
/// (its attempts so far still counted and kept, `max_attempts` raised by
/// its budget, a `halt_task` verdict lifted), every blocked task pending
/// again (the loop blocks it again if a task it depends on fails again),
/// and a `failed_retried` event.
pub(super) fn retry_failed(state: &mut RunState, prd: &Prd, config: &Config, events: &Events) {
    let mut tasks = Vec::new();
    let mut unblocked = Vec::new();
    for t in &mut state.tasks {
        match t.status {
            Status::Failed => {
                let budget = prd
                    .task(&t.id)
                    .and_then(|p| p.metadata.max_attempts)
                    .unwrap_or(config.max_attempts);
                t.max_attempts = t
                    .attempts
                    .saturating_add(budget)
                    .min(crate::state::run_state::MAX_ATTEMPTS);
                t.status = Status::Pending;
                t.halted = None;
                // Its spend stays counted: a budget refusal is lifted, and
                // the next attempt is checked against the run-start budget
                // again.
                t.budget_exhausted = None;
                t.retried_after = Some(t.attempts);
                // The ladder starts over (the climbs stay recorded).
                if let Some(e) = &mut t.escalation {
                    e.rung = None;
                    e.provider = None;
                    e.effort = None;
                }
                tasks.push(t.id.clone());
            }
            Status::BlockedByDependency => {
                t.status = Status::Pending;
                t.blocked_by = None;
                unblocked.push(t.id.clone());
            }
            _ => {}
        }
    }
    if !tasks.is_empty() || !unblocked.is_empty() {
        events.emit(Event::FailedRetried { tasks, unblocked });
    }
}

/// Starting over: the state directory archived and the slug's
/// `refs/zurdo/<slug>/*` deleted (a failure there only warns).
pub(super) fn start_over(dir: &StateDir, root: &Path, events: &Events) -> Result<(), Error> {
    dir.archive()?;
    match evidence::delete_refs(root, &dir.slug) {
        Ok(_) | Err(BaselineError::NotARepo(_)) => {}
        Err(e) => events.emit(Event::RefFailed {
            name: format!("refs/zurdo/{}/*", dir.slug),
            delete: true,
            error: e.to_string(),
        }),
    }
    Ok(())
}

/// The state of a run that starts now: every task pending.
pub(super) fn fresh_state(
    prd: &Prd,
    config: &Config,
    relative: &str,
    dir: &StateDir,
    sha1: &str,
) -> RunState {
    let now = zurdo_base::time::now();
    RunState {
        version: VERSION,
        prd: relative.to_string(),
        prd_sha1: sha1.to_string(),
        slug: dir.slug.clone(),
        executor: config.executor.name().to_string(),
        policy: String::new(),
        challenger_calls: 0,
        toolchain: Vec::new(),
        ignore_rules: None,
        environment: None,
        started_at: now.clone(),
        updated_at: now,
        tasks: prd
            .tasks_in_run_order()
            .map(|t| TaskState {
                id: t.id.clone(),
                category: t.metadata.category.clone(),
                status: Status::Pending,
                attempts: 0,
                max_attempts: t.metadata.max_attempts.unwrap_or(config.max_attempts),
                ..TaskState::default()
            })
            .collect(),
        reasoner_calls: 0,
        review_chain: None,
    }
}
