//! Settled tasks that rot: the criteria of a task that already passed,
//! checked again. At run end every passed task is verified once more
//! against the final tree (one whose criteria held after the last agent
//! ran already was: only an agent changes the tree between passes, since
//! whatever it left running is killed before any pass), and one that no
//! longer holds becomes `failed`
//! (`regressed_after_settle`). With `[verification] regression_guard =
//! "each-task"`, every passing attempt also re-checks the earlier passed
//! tasks, and a regression fails that attempt (`regressed`) while the agent
//! still has the context to fix it. On resume, every task recorded as
//! passed is re-checked before anything runs (`resume`): one that no longer
//! holds goes back to pending.
//!
//! A re-check re-runs every hint, except where the verdict provably stands:
//! when the tree (tracked and untracked files, as a git tree) is the one
//! the hints last ran on, every hint but `[file-exists:]`/`[file-absent:]`
//! (cheap, and their path may be ignored, so outside the tree) keeps its
//! verdict; and a `[grep:]`/`[no-grep:]` that passed keeps it when every
//! file it read has the same blob in the tree now, no path that changed
//! since falls under its target, and no ignore file changed. Nothing is
//! read for a kept verdict.

use std::collections::HashMap;

use zurdo::hint::Check;
use zurdo::verify::{CriterionResult, CriterionVerdict, HintResult, Verdict};
use zurdo::{naming, Task};

use super::Run;
use crate::event::{Event, HintFailure, Settled};
use crate::evidence::{Caught, CaughtKind};
use crate::state::run_state::Status;

/// What the criteria of passed tasks last showed, held in memory: the tree
/// they ran on, each result, and how many agents had run by then (the
/// authority a re-check may reuse; never read back from a file).
#[derive(Debug, Default)]
pub(super) struct Held {
    by_task: HashMap<String, (Option<String>, Vec<CriterionResult>)>,
    epochs: HashMap<String, u64>,
    /// Agent CLIs run so far in this process (executor attempts, reasoner
    /// calls, probes): only they change the tree between passes.
    epoch: u64,
}

impl Held {
    /// Keeps what `task`'s criteria showed on `tree`, now.
    pub(super) fn keep(&mut self, task: &str, tree: Option<String>, results: Vec<CriterionResult>) {
        self.epochs.insert(task.to_string(), self.epoch);
        self.by_task.insert(task.to_string(), (tree, results));
    }

    /// An agent CLI is about to run: what was held before may no longer be
    /// what the tree shows.
    pub(super) fn agent_runs(&mut self) {
        self.epoch += 1;
    }

    /// True when `task`'s criteria held in this process and no agent has
    /// run since: nothing changed the tree they passed on.
    fn untouched(&self, task: &str) -> bool {
        self.epochs.get(task) == Some(&self.epoch)
    }
}

/// One hint of a settled task that no longer holds.
pub(super) struct Regression {
    /// `<task module>::<criterion fn>`, as prd.json names criteria.
    pub criterion: String,
    /// The failing hint and its reason.
    pub failure: HintFailure,
}

impl Run {
    /// The criteria of `task` against the tree now (reusing unchanged file
    /// hints), closed by the verification window; the regressions, and the
    /// new results kept as what the task shows now.
    pub(super) fn recheck(&mut self, task: &Task) -> Vec<Regression> {
        let now = self.guards.tree_now();
        let held = self.held.by_task.get(&task.id);
        let changed = match (held.and_then(|(t, _)| t.as_deref()), now.as_deref()) {
            (Some(then), Some(now)) => {
                crate::evidence::changed_paths(self.guards.root(), then, now).ok()
            }
            _ => None,
        };
        let mut results: Vec<CriterionResult> = Vec::with_capacity(task.criteria.len());
        for (ci, criterion) in task.criteria.iter().enumerate() {
            let hints: Vec<HintResult> = criterion
                .hints
                .iter()
                .enumerate()
                .map(|(hi, hint)| {
                    let before = held.and_then(|(_, r)| r.get(ci)?.hints.get(hi));
                    let same_tree = now.is_some() && held.is_some_and(|(t, _)| *t == now);
                    match (before, changed.as_deref(), now.as_deref()) {
                        // Nothing in the tree changed since it held: only
                        // the cheap checks of paths (which may be ignored,
                        // so outside the tree) run again.
                        (Some(before), _, _)
                            if same_tree
                                && !matches!(
                                    hint.check,
                                    Check::FileExists { .. } | Check::FileAbsent { .. }
                                ) =>
                        {
                            before.clone()
                        }
                        (Some(before), Some(changed), Some(now))
                            if self.unchanged(&hint.check, before, changed, now) =>
                        {
                            before.clone()
                        }
                        _ => self.ctx.verifier.check(hint),
                    }
                })
                .collect();
            results.push(CriterionResult::from_hints(hints));
        }
        // The sealed criteria run again whole (nothing of theirs is held).
        let sealed = self.run_sealed(task);
        zurdo::verify::window::close(self.ctx.verifier.root(), &mut results);
        let sealed_failed = self.judge_sealed(task, sealed);
        let names = naming::criterion_fns(task);
        let module = naming::task_module(task);
        let mut out: Vec<Regression> = sealed_failed
            .into_iter()
            .map(|c| Regression {
                criterion: c.subject,
                failure: HintFailure {
                    criterion: "(sealed)".to_string(),
                    hint: "(sealed)".to_string(),
                    reason: c.detail,
                },
            })
            .collect();
        for ((criterion, result), name) in task.criteria.iter().zip(&results).zip(&names) {
            if result.verdict != CriterionVerdict::Failed {
                continue;
            }
            for h in result.failures() {
                if let Verdict::Fail(reason) = &h.verdict {
                    out.push(Regression {
                        criterion: format!("{module}::{name}"),
                        failure: HintFailure {
                            criterion: criterion.title.clone(),
                            hint: h.hint.clone(),
                            reason: reason.to_string(),
                        },
                    });
                }
            }
        }
        self.held.keep(&task.id, now, results);
        out
    }

    /// True when the file hint `check`, which gave `before` on the tree it
    /// was held with, reads the same bytes on `now` (the trees differ by
    /// `changed`): see the module docs.
    fn unchanged(&self, check: &Check, before: &HintResult, changed: &[String], now: &str) -> bool {
        let (Check::Grep(g) | Check::NoGrep(g)) = check else {
            return false;
        };
        if !before.verdict.passed() || before.evidence.blobs.is_empty() {
            return false;
        }
        let target = g.target.as_str();
        let under_target: Box<dyn Fn(&str) -> bool> = if g.target_is_glob {
            match zurdo::hint::grep_glob(target) {
                Ok(glob) => {
                    let m = glob.compile_matcher();
                    Box::new(move |p: &str| m.is_match(p))
                }
                Err(_) => return false,
            }
        } else {
            Box::new(move |p: &str| {
                p == target || p.strip_prefix(target).is_some_and(|r| r.starts_with('/'))
            })
        };
        let ignore_file = |p: &str| {
            let name = p.rsplit('/').next().unwrap_or(p);
            name == ".gitignore" || name == ".ignore"
        };
        if changed.iter().any(|p| under_target(p) || ignore_file(p)) {
            return false;
        }
        let paths: Vec<&str> = before
            .evidence
            .blobs
            .iter()
            .map(|b| b.path.as_str())
            .collect();
        match crate::evidence::baseline::blobs_at(self.guards.root(), now, &paths) {
            Ok(ids) => ids
                .iter()
                .zip(&before.evidence.blobs)
                .all(|(id, b)| id.as_deref() == Some(b.id.as_str())),
            Err(_) => false,
        }
    }

    /// `[verification] regression_guard = "each-task"`: after `current`'s
    /// attempt passed in place, every other task that had passed, checked
    /// again; each hint that no longer holds is a [`Caught`] of
    /// [`CaughtKind::Regressed`].
    pub(super) fn guard_earlier(&mut self, current: &Task) -> Vec<Caught> {
        if self.ctx.config.verification.regression_guard != "each-task" {
            return Vec::new();
        }
        let earlier: Vec<Task> = self
            .passed_tasks()
            .filter(|t| t.id != current.id && !self.held.untouched(&t.id))
            .collect();
        let mut caught = Vec::new();
        for task in earlier {
            for r in self.recheck(&task) {
                caught.push(Caught::new(
                    CaughtKind::Regressed,
                    r.criterion,
                    format!("{} failed: {}", r.failure.hint, r.failure.reason),
                    format!(
                        "{} had passed and this attempt broke it; make it hold again without undoing this task's work",
                        task.id
                    ),
                ));
            }
        }
        caught
    }

    /// At run end (unless the guard is off or the run is stopping): every
    /// task that passed, verified once more against the final tree; one
    /// that no longer holds becomes `failed` (`regressed_after_settle`).
    pub(super) fn guard_at_end(&mut self) {
        if self.ctx.config.verification.regression_guard == "off" || self.stopping() {
            return;
        }
        // A task whose criteria held after the last agent ran was verified
        // against the final tree already.
        let passed: Vec<Task> = self
            .passed_tasks()
            .filter(|t| !self.held.untouched(&t.id))
            .collect();
        for task in passed {
            let regressions = self.reverify(&task, "run_end");
            if regressions.is_empty() {
                continue;
            }
            if let Some(t) = self.record.task_mut(&task.id) {
                t.regressed_after_settle = regressions
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {} failed: {}",
                            r.criterion, r.failure.hint, r.failure.reason
                        )
                    })
                    .collect();
            }
            self.settle(&task, Status::Failed, Settled::RegressedAfterSettle);
        }
    }

    /// On resume, before anything runs: every task recorded as passed,
    /// checked again; one that no longer holds goes back to pending (its
    /// attempts so far still count).
    pub(super) fn reverify_on_resume(&mut self) {
        let passed: Vec<Task> = self.passed_tasks().collect();
        for task in passed {
            if self.reverify(&task, "resume").is_empty() {
                continue;
            }
            if let Some(t) = self.record.task_mut(&task.id) {
                t.status = Status::Pending;
                t.passed_at_preflight = false;
                // What was approved no longer holds.
                t.approvals.clear();
            }
        }
        self.save();
    }

    /// Checks `task` again as its own verification pass (`when`: `run_end`
    /// or `resume`) and says so with a `reverified` event; the regressions.
    pub(super) fn reverify(&mut self, task: &Task, when: &str) -> Vec<Regression> {
        let regressions = self.recheck(task);
        self.end_pass(&task.id);
        self.events.emit(Event::Reverified {
            task: task.id.clone(),
            when: when.to_string(),
            failures: regressions.iter().map(|r| r.failure.clone()).collect(),
        });
        regressions
    }

    /// The tasks whose status is `passed` or `passed-pending-review`, in
    /// run order.
    fn passed_tasks(&self) -> impl Iterator<Item = Task> + '_ {
        self.ctx.prd.run_order.iter().filter_map(|&i| {
            let task = &self.ctx.prd.tasks[i];
            self.record
                .task(&task.id)
                .filter(|t| matches!(t.status, Status::Passed | Status::PassedPendingReview))
                .map(|_| task.clone())
        })
    }
}
