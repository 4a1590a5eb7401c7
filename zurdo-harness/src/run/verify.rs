//! The verification phase: zurdo's own judgement of an attempt, as one
//! value. Everything that decides the verdict is here: the criteria, the
//! standing rules, the frozen paths (both legs), the verdict and
//! environment surfaces, the verification window, the clean room; and,
//! beside it, what never decides a verdict but is recorded (toolchain
//! changes outside the repository, provenance against pre-flight).

use std::collections::BTreeSet;

use zurdo::verify::{CriterionResult, CriterionVerdict, HintResult, StandingRule, Verdict};
use zurdo::Task;

use super::Run;
use crate::error::{Error, ErrorKind};
use crate::event::{BrokenRule, Event, HintFailure};
use crate::evidence::frozen::{self, Snapshot};
use crate::evidence::{Caught, CaughtKind, CleanRoom};
use crate::state::run_state::TaskState;

/// zurdo's verification of one attempt.
pub(super) struct Verification {
    /// The git tree the criteria ran against (outside git: none).
    pub verified_tree: Option<String>,
    /// Frozen paths the attempt modified.
    pub frozen_violations: Vec<String>,
    /// Tools that moved or changed since run start (warned, marked).
    pub toolchain_changes: Vec<String>,
    /// Each criterion's result, in PRD order.
    pub results: Vec<CriterionResult>,
    /// Standing rules broken.
    pub broken: Vec<(StandingRule, HintResult)>,
    /// Why the standing set stops the run (it ran over its budget).
    pub over_budget: Option<String>,
    /// Evidence a passing hint read that changed before the last check ended.
    pub evidence_changed: Vec<String>,
    /// What pre-flight says about these results.
    pub provenance: Provenance,
    /// Frozen paths the criteria themselves wrote (not charged), and the
    /// frozen hashes after verification.
    pub folded: Vec<String>,
    after: Option<Snapshot>,
    /// What the clean room said.
    pub clean_room: CleanRoom,
    /// What zurdo caught besides failing criteria (any fails the attempt).
    pub caught: Vec<Caught>,
    /// Entries the verdict-surface walk saw when it stood down.
    pub surface_stood_down: Option<usize>,
    /// What the challenger said, when it was asked (after everything else
    /// passed).
    pub challenge: Option<crate::reason::challenge::ChallengeRecord>,
}

/// Provenance notes (never verdicts).
#[derive(Default)]
pub(super) struct Provenance {
    /// Titles of criteria that passed now and at pre-flight: they prove
    /// nothing about this run.
    pub already_green: Vec<String>,
    /// Evidence files changed since pre-flight (often that is the task).
    pub modified: Vec<String>,
}

impl Verification {
    /// True when every automated criterion holds.
    pub fn criteria_passed(&self) -> bool {
        self.results
            .iter()
            .all(|r| r.verdict != CriterionVerdict::Failed)
    }

    /// True when nothing but the clean room is left to fail the attempt.
    fn passed_in_place(&self) -> bool {
        self.criteria_passed()
            && self.broken.is_empty()
            && self.frozen_violations.is_empty()
            && self.caught.is_empty()
            && self.over_budget.is_none()
    }

    /// The verdict: the criteria, the standing rules, the frozen paths and
    /// the clean room all hold.
    pub fn passed(&self) -> bool {
        self.passed_in_place() && self.clean_room.mismatches().is_empty()
    }

    /// `standing rule broken: [<hint>] — <why>`, one per broken rule.
    pub fn standing_failures(&self) -> Vec<String> {
        self.broken
            .iter()
            .map(|(r, _)| format!("standing rule broken: {} — {}", r.hint.source, r.why))
            .collect()
    }
}

impl Run {
    /// Verifies the tree an attempt left, reports what it found, and folds
    /// the criteria's own frozen writes into the task's frozen baseline.
    pub(super) fn verify(&mut self, task: &Task, attempt: u32) -> Verification {
        let mut v = self.judge(task);
        // Last, and only for an attempt every check passed: the
        // challenger tries to refute it; a probe-confirmed finding fails it.
        if v.passed() {
            if let Some((record, confirmed)) =
                self.challenge(task, attempt, v.verified_tree.as_deref())
            {
                v.caught.extend(confirmed);
                v.challenge = Some(record);
            }
        }
        self.report(task, attempt, &v);
        if let Some(after) = &v.after {
            if let Some(base) = self
                .record
                .task_mut(&task.id)
                .and_then(|t| t.frozen_baseline.as_mut())
            {
                for path in &v.folded {
                    match after.get(path) {
                        Some(hash) => base.insert(path.clone(), hash.clone()),
                        None => base.remove(path),
                    };
                }
            }
        }
        if let Some(message) = &v.over_budget {
            self.stop = Some(Error::new(ErrorKind::Standing, message.clone()));
        }
        v
    }

    /// The verification itself, in the order that matters: the tree is
    /// captured and the frozen files hashed before any criterion runs, the
    /// window closes after the last one.
    fn judge(&mut self, task: &Task) -> Verification {
        let began = std::time::SystemTime::now();
        let state = self.record.task(&task.id);
        let verified_tree = self.guards.tree_now();
        let set = self.guards.frozen(task);
        // Hashing stood down for this task (its globs match too many
        // files; said once, when its baseline was taken): the tree leg
        // decides, and nothing is hashed again on every attempt.
        let hashing = state.is_some_and(|t| t.frozen_baseline.is_some());
        let before = hashing.then(|| self.guards.snapshot(&set).ok()).flatten();
        let mut frozen_violations = match (state.and_then(|t| t.frozen_baseline.as_ref()), &before)
        {
            (Some(base), Some(now)) => frozen::changes(base, now),
            _ => Vec::new(),
        };
        let folded_before: BTreeSet<&String> = state
            .iter()
            .flat_map(|t| &t.iterations)
            .flat_map(|i| &i.frozen_folded)
            .collect();
        for path in self.guards.frozen_in_tree_diff(
            &set,
            state.and_then(|t| t.rollback_point.as_deref()),
            verified_tree.as_deref(),
            &folded_before,
        ) {
            if !frozen_violations.contains(&path) {
                frozen_violations.push(path);
            }
        }
        frozen_violations.sort();
        // The environment against run start, the verdict surface against
        // the task's start: both before any criterion runs.
        let (planted, toolchain_changes) = self.guards.environment_changes(
            self.record.state.environment.as_ref(),
            &self.record.state.toolchain,
        );
        let (surface_changed, surface_stood_down) =
            match state.and_then(|t| t.verdict_surface.as_ref()) {
                Some(base) => self.guards.verdict_surface_changes(base),
                None => (Vec::new(), None),
            };
        let mut results: Vec<CriterionResult> = task
            .criteria
            .iter()
            .map(|c| self.ctx.verifier.criterion(c))
            .collect();
        // A [no-grep:] passes on a file that is gone; not when pre-flight
        // read that file.
        if let Some(pre) = state.and_then(|t| t.preflight_results.as_ref()) {
            let before: Vec<serde_json::Value> = pre.iter().map(|r| r.hints.clone()).collect();
            crate::evidence::missing::demote_vanished(task, &before, &mut results);
        }
        // Fewer tests than pre-flight (or the first attempt that showed
        // counts), or more held back, is no pass.
        if let Some(t) = state {
            use crate::evidence::vanished::{counts_of, demote_vanished_tests};
            let runs = |records: &[crate::state::run_state::CriterionRecord]| {
                records
                    .iter()
                    .map(|r| counts_of(&r.hints))
                    .collect::<Vec<_>>()
            };
            let preflight = t.preflight_results.as_deref().map(runs).unwrap_or_default();
            let attempts: Vec<(String, Vec<Vec<_>>)> = t
                .iterations
                .iter()
                .map(|i| (format!("attempt {}", i.attempt), runs(&i.criteria)))
                .collect();
            demote_vanished_tests(task, &preflight, &attempts, &mut results);
        }
        // The sealed criteria, in the same pass.
        let sealed = self.run_sealed(task);
        let (broken, over_budget) = match self.ctx.check_standing() {
            Ok(broken) => (broken, None),
            Err(message) => (Vec::new(), Some(message)),
        };
        // The verification window: evidence read by a passing hint must still
        // be what it was once the last check has run.
        let evidence_changed = zurdo::verify::window::close(self.ctx.verifier.root(), &mut results);
        let sealed_failed = self.judge_sealed(task, sealed);
        // The in-place pass ends: what its criteria left running must not
        // serve the clean room's (or the next attempt's) checks.
        self.end_pass(&task.id);
        let provenance = state
            .map(|t| provenance(task, t, &results))
            .unwrap_or_default();
        let after = hashing.then(|| self.guards.snapshot(&set).ok()).flatten();
        let folded = match (&before, &after) {
            (Some(before), Some(after)) => frozen::changes(before, after),
            _ => Vec::new(),
        };
        // A criterion's command writing into a frozen path is folded (not
        // charged to the next attempt) when it did so at pre-flight too (its
        // normal behaviour); a new one is how an attempt rewrites the
        // expectation it is judged against (a snapshot-update flag, a
        // script writing through a symlink), and is caught.
        let normal: BTreeSet<&String> = state
            .iter()
            .flat_map(|t| &t.preflight_frozen_writes)
            .collect();
        let wrote_frozen: Vec<Caught> = folded
            .iter()
            .filter(|p| !normal.contains(p))
            .map(|p| {
                Caught::new(
                    CaughtKind::CriterionWroteFrozen,
                    p.clone(),
                    "a criterion's command wrote into this frozen path while zurdo verified (it did not at pre-flight)",
                    "undo what makes a criterion write there (an update flag, a changed script or config, a symlink into the frozen path); the frozen file must stay as it was",
                )
            })
            .collect();
        let mut v = Verification {
            verified_tree,
            frozen_violations,
            toolchain_changes,
            results,
            broken,
            over_budget,
            evidence_changed,
            provenance,
            folded,
            after,
            clean_room: CleanRoom::NotRun,
            caught: surface_changed
                .into_iter()
                .chain(planted)
                .chain(wrote_frozen)
                .chain(sealed_failed)
                .collect(),
            surface_stood_down: surface_stood_down
                .map(|crate::evidence::surface::StandDown::TooMany(seen)| seen),
            challenge: None,
        };
        if v.passed_in_place() {
            // Earlier passed tasks must still hold (regression_guard =
            // "each-task"); a regression fails this attempt.
            v.caught.extend(self.guard_earlier(task));
            self.end_pass(&task.id);
            // The coverage gate: the changed lines the tests executed.
            let gate = self.coverage_gate(task, v.verified_tree.as_deref(), began);
            v.caught.extend(gate);
        }
        if v.passed_in_place() {
            v.clean_room =
                self.guards
                    .clean_room(task, &self.ctx.standing, v.verified_tree.as_deref());
            self.end_pass(&task.id);
        }
        v
    }

    /// The live lines (and log entries) of a verification, in the order a
    /// reader follows it.
    fn report(&self, task: &Task, attempt: u32, v: &Verification) {
        let id = || task.id.clone();
        if !v.frozen_violations.is_empty() {
            self.events.emit(Event::FrozenViolation {
                task: id(),
                attempt,
                paths: v.frozen_violations.clone(),
            });
        }
        if !v.toolchain_changes.is_empty() {
            self.events.emit(Event::ToolchainChanged {
                changes: v.toolchain_changes.clone(),
            });
        }
        if !v.evidence_changed.is_empty() {
            self.events.emit(Event::EvidenceChanged {
                task: id(),
                attempt,
                paths: v.evidence_changed.clone(),
            });
        }
        if let Some(seen) = v.surface_stood_down {
            self.events.emit(Event::SurfaceStandDown {
                task: id(),
                max: crate::evidence::surface::MAX_ENTRIES,
                seen,
            });
        }
        if !v.caught.is_empty() {
            self.events.emit(Event::Caught {
                task: id(),
                attempt,
                caught: v.caught.clone(),
            });
        }
        let p = &v.provenance;
        if !p.already_green.is_empty() || !p.modified.is_empty() {
            self.events.emit(Event::Provenance {
                task: id(),
                already_green: p.already_green.clone(),
                modified: p.modified.clone(),
            });
        }
        let failures = task
            .criteria
            .iter()
            .zip(&v.results)
            .filter(|(_, r)| r.verdict == CriterionVerdict::Failed)
            .flat_map(|(c, r)| {
                r.failures().filter_map(move |h| match &h.verdict {
                    Verdict::Fail(reason) => Some(HintFailure {
                        criterion: c.title.clone(),
                        hint: h.hint.clone(),
                        reason: reason.to_string(),
                    }),
                    _ => None,
                })
            })
            .collect();
        self.events.emit(Event::Verified {
            task: id(),
            attempt,
            passing: v
                .results
                .iter()
                .filter(|r| r.verdict != CriterionVerdict::Failed)
                .count(),
            total: v.results.len(),
            failures,
            standing_broken: v
                .broken
                .iter()
                .map(|(rule, _)| BrokenRule {
                    hint: rule.hint.source.clone(),
                    why: rule.why.clone(),
                })
                .collect(),
        });
        if !v.folded.is_empty() {
            self.events.emit(Event::FrozenFolded {
                task: id(),
                paths: v.folded.clone(),
            });
        }
        match &v.clean_room {
            CleanRoom::NoBaseline => self.events.emit(Event::CleanRoomSkipped { task: id() }),
            CleanRoom::Ran(m) if !m.is_empty() => self.events.emit(Event::CleanRoomMismatch {
                task: id(),
                mismatches: m.clone(),
            }),
            _ => {}
        }
    }
}

/// Criteria green now and at pre-flight, and evidence files whose blob
/// changed since pre-flight.
fn provenance(task: &Task, state: &TaskState, results: &[CriterionResult]) -> Provenance {
    let Some(pre) = state.preflight_results.as_ref() else {
        return Provenance::default();
    };
    let mut out = Provenance::default();
    let mut modified = BTreeSet::new();
    for ((criterion, now), before) in task.criteria.iter().zip(results).zip(pre) {
        if now.verdict == CriterionVerdict::Passed && before.verdict == CriterionVerdict::Passed {
            out.already_green.push(criterion.title.clone());
        }
        let before_blobs: Vec<(String, String)> = before
            .hints
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|h| {
                h["evidence"]["blobs"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|b| {
                Some((
                    b["path"].as_str()?.to_string(),
                    b["id"].as_str()?.to_string(),
                ))
            })
            .collect();
        for blob in now.hints.iter().flat_map(|h| &h.evidence.blobs) {
            if before_blobs
                .iter()
                .any(|(p, id)| *p == blob.path && *id != blob.id)
            {
                modified.insert(blob.path.clone());
            }
        }
    }
    out.modified = modified.into_iter().collect();
    out
}
