//! One task: blocked by a failed dependency, settled from what a stop left
//! recorded, passed at pre-flight, or attempted until it passes or its
//! budget runs out.

use zurdo::verify::{CriterionResult, CriterionVerdict};
use zurdo::{naming, Task};

use super::attempt::Attempted;
use super::record;
use super::Run;
use crate::event::{Event, Settled};
use crate::state::run_state::Status;

impl Run {
    /// One task, from its turn in run order to its settlement (or a stop).
    pub(super) fn task(&mut self, task: &Task) {
        if let Some(by) = task.metadata.depends_on.iter().find(|d| {
            self.record
                .task(d)
                .is_some_and(|s| matches!(s.status, Status::Failed | Status::BlockedByDependency))
        }) {
            let by = by.clone();
            self.settle(task, Status::BlockedByDependency, Settled::Blocked { by });
            return;
        }
        if let Some((status, settled)) = self.recorded_before_stop(task) {
            if settled == Settled::HaltedBeforeStop || self.still_passes(task) {
                self.settle(task, status, settled);
                return;
            }
        }
        if self.preflight(task) {
            return;
        }
        let Ok(model) = self.ctx.config.model_for(&task.metadata.effort) else {
            return;
        };
        let model = model.to_string();
        self.take_durable_baselines(task);
        let max = self.record.task(&task.id).map_or(1, |t| t.max_attempts);
        // Rate-limit waits of the attempt about to run (none counted).
        let mut waits = 0;
        loop {
            let attempt = self
                .record
                .task(&task.id)
                .map_or(0, |t| t.attempts)
                .saturating_add(1);
            if attempt > max {
                self.settle(task, Status::Failed, Settled::BudgetSpent { max });
                return;
            }
            if self.stopping() {
                return;
            }
            // Before anything is spent: an attempt that would cross a
            // budget is refused and the task fails.
            if waits == 0 && self.refused_by_budget(task, attempt) {
                return;
            }
            match self.attempt(task, attempt, max, &model) {
                Attempted::Settled(status, settled) => {
                    self.settle(task, status, settled);
                    return;
                }
                Attempted::Failed => waits = 0,
                Attempted::Stopped => return,
                // Not counted: the same attempt runs again after a
                // rate-limit wait, or the run stops with the task pending.
                Attempted::Unavailable(failure) => {
                    if !self.agent_unavailable(task, attempt, &failure, &mut waits) {
                        return;
                    }
                }
            }
        }
    }

    /// What a stop left recorded: a `halt_task` verdict not yet settled, or
    /// a passing attempt not yet settled (its verdict is in prd.json, so no
    /// attempt is spent again).
    fn recorded_before_stop(&self, task: &Task) -> Option<(Status, Settled)> {
        let t = self.record.task(&task.id)?;
        if t.halted.is_some() {
            return Some((Status::Failed, Settled::HaltedBeforeStop));
        }
        let last = t.iterations.last().filter(|i| i.passed)?;
        // A result a reviewer rejected is not settled on again: the task
        // gets its next attempt.
        if t.rejection
            .as_ref()
            .is_some_and(|r| r.attempt >= last.attempt)
        {
            return None;
        }
        let manual = last
            .criteria
            .iter()
            .any(|c| c.verdict == CriterionVerdict::PendingReview);
        Some((Status::passed(manual), Settled::PassedBeforeStop))
    }

    /// A passing attempt a stop left recorded, checked again before it is
    /// settled on (the tree may have changed while zurdo was not running).
    fn still_passes(&mut self, task: &Task) -> bool {
        self.reverify(task, "resume").is_empty()
    }

    /// The criteria on the tree as it is, once per task ("iteration 0");
    /// true when they all hold and the task settled without an agent.
    fn preflight(&mut self, task: &Task) -> bool {
        if self
            .record
            .task(&task.id)
            .is_none_or(|s| s.preflight_results.is_some())
        {
            return false;
        }
        let frozen = self.guards.frozen(task);
        let frozen_before = self.guards.snapshot(&frozen).ok();
        let results: Vec<CriterionResult> = task
            .criteria
            .iter()
            .map(|c| self.ctx.verifier.criterion(c))
            .collect();
        let sealed = self.run_sealed(task);
        let sealed_failed = self.judge_sealed(task, sealed);
        self.end_pass(&task.id);
        if self.stopped_now().is_some() {
            // Stopped now mid-way: the criteria were killed; pre-flight
            // runs again on resume.
            return false;
        }
        // What the criteria write into frozen paths on their own (a build
        // output, a generated file): folded on later attempts, not caught.
        let frozen_writes = match (frozen_before, self.guards.snapshot(&frozen).ok()) {
            (Some(before), Some(after)) => crate::evidence::frozen::changes(&before, &after),
            _ => Vec::new(),
        };
        if let Some(t) = self.record.task_mut(&task.id) {
            t.preflight_frozen_writes = frozen_writes;
        }
        let records = record::criteria(
            &naming::task_module(task),
            &naming::criterion_fns(task),
            task,
            &results,
        );
        let passing = results
            .iter()
            .filter(|r| r.verdict != CriterionVerdict::Failed)
            .count();
        self.events.emit(Event::Preflight {
            task: task.id.clone(),
            passing,
            total: results.len(),
        });
        if let Some(t) = self.record.task_mut(&task.id) {
            t.preflight_results = Some(records);
        }
        // A sealed criterion that fails keeps the task for the agent (the
        // live line counts them; nothing says which).
        if passing < results.len() || !sealed_failed.is_empty() {
            self.save();
            return false;
        }
        let tree = self.guards.tree_now();
        self.held.keep(&task.id, tree, results.clone());
        let manual = results
            .iter()
            .any(|r| r.verdict == CriterionVerdict::PendingReview);
        if let Some(t) = self.record.task_mut(&task.id) {
            t.passed_at_preflight = true;
        }
        let manual_only = task.criteria.iter().all(zurdo::Criterion::is_manual_only);
        // Red first: a criterion already green proves nothing about this
        // run; with the option, a task with no red one is not passed.
        if self.ctx.config.verification.require_red_first && !manual_only {
            self.settle(task, Status::Unproven, Settled::Unproven);
            return true;
        }
        self.settle(
            task,
            Status::passed(manual),
            Settled::PassedAtPreflight { manual_only },
        );
        true
    }

    /// At a task's first attempt: its frozen baseline (the hashes of its
    /// frozen files), its verdict surface and its rollback point (its tree,
    /// also kept as `refs/zurdo/<slug>/<task-id>`), all reused on retries
    /// and across resumes.
    fn take_task_baselines(&mut self, task: &Task) {
        if self
            .record
            .task(&task.id)
            .is_some_and(|t| t.verdict_surface.is_none())
        {
            match self.guards.verdict_surface() {
                Some(Ok(surface)) => {
                    if let Some(t) = self.record.task_mut(&task.id) {
                        t.verdict_surface = Some(surface);
                    }
                }
                Some(Err(crate::evidence::surface::StandDown::TooMany(seen))) => {
                    self.events.emit(Event::SurfaceStandDown {
                        task: task.id.clone(),
                        max: crate::evidence::surface::MAX_ENTRIES,
                        seen,
                    })
                }
                None => {}
            }
        }
        if self
            .record
            .task(&task.id)
            .is_some_and(|t| t.frozen_baseline.is_none())
        {
            match self.guards.snapshot(&self.guards.frozen(task)) {
                Ok(snapshot) => {
                    if let Some(t) = self.record.task_mut(&task.id) {
                        t.frozen_baseline = Some(snapshot);
                    }
                }
                Err(crate::evidence::frozen::StandDown::TooMany(seen)) => {
                    self.events.emit(Event::FrozenStandDown {
                        task: task.id.clone(),
                        max: crate::evidence::frozen::MAX_FILES,
                        seen,
                    })
                }
            }
        }
        if self
            .record
            .task(&task.id)
            .is_none_or(|t| t.rollback_point.is_some())
        {
            return;
        }
        let Some(tree) = self.guards.tree_now() else {
            return;
        };
        let slug = self.record.dir.slug.clone();
        if let Err(e) = self.guards.record_task_ref(&slug, &task.id, &tree) {
            self.events.emit(Event::RefFailed {
                name: format!("refs/zurdo/{slug}/{}", task.id),
                delete: false,
                error: e.to_string(),
            });
        }
        if let Some(t) = self.record.task_mut(&task.id) {
            t.rollback_point = Some(tree);
        }
    }

    /// The task's baselines (frozen hashes, rollback point), made durable
    /// before any agent of this task starts: a stop mid-attempt must not
    /// let a resume take the agent's edits as the baseline.
    fn take_durable_baselines(&mut self, task: &Task) {
        self.take_task_baselines(task);
        self.save();
    }
}
