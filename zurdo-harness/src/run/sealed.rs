//! Sealed criteria in the run: run beside a task's own criteria, in the
//! same pass, at pre-flight, at every attempt and in every re-check. A
//! failure fails the attempt as `sealed_failed` with the hint's typed
//! reason alone (`exit_code`, `no_match`): no prompt, record or live line
//! holds a sealed criterion's title, check or output, and `sealed_checked`
//! counts them without naming them.

use zurdo::verify::{CriterionResult, CriterionVerdict, Verdict};
use zurdo::Task;

use super::Run;
use crate::event::Event;
use crate::evidence::{Caught, CaughtKind};

/// The results of one task's sealed criteria, in the sealed file's order.
pub(super) struct SealedResults(Vec<CriterionResult>);

impl Run {
    /// Runs `task`'s sealed criteria now (in the current pass; none when
    /// there is no sealed file or it has none for the task).
    pub(super) fn run_sealed(&self, task: &Task) -> SealedResults {
        let Some(sealed) = &self.ctx.sealed else {
            return SealedResults(Vec::new());
        };
        SealedResults(
            sealed
                .of(&task.id)
                .iter()
                .map(|c| self.ctx.verifier.criterion(c))
                .collect(),
        )
    }

    /// Closes the verification window over the sealed results (after the
    /// last check of the pass), says how many hold, and returns one
    /// [`Caught`] per failing sealed criterion.
    pub(super) fn judge_sealed(&self, task: &Task, mut results: SealedResults) -> Vec<Caught> {
        if results.0.is_empty() {
            return Vec::new();
        }
        // The paths a changed evidence file had are not said: the demoted
        // hint's reason tag is.
        let _ = zurdo::verify::window::close(self.ctx.verifier.root(), &mut results.0);
        let caught = sealed_failures(&task.id, &results.0);
        self.events.emit(Event::SealedChecked {
            task: task.id.clone(),
            passing: results.0.len() - caught.len(),
            total: results.0.len(),
        });
        caught
    }
}

/// One [`Caught`] per failing sealed criterion: `<task>::sealed_<n>`, the
/// failing hints' reason tags, and an undo that points at the task, not at
/// the check.
pub(super) fn sealed_failures(task: &str, results: &[CriterionResult]) -> Vec<Caught> {
    results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.verdict == CriterionVerdict::Failed)
        .map(|(i, r)| {
            let mut tags: Vec<String> = r
                .failures()
                .filter_map(|h| match &h.verdict {
                    Verdict::Fail(reason) => Some(reason.tag()),
                    _ => None,
                })
                .collect();
            tags.dedup();
            Caught::new(
                CaughtKind::SealedFailed,
                format!("{task}::sealed_{}", i + 1),
                format!(
                    "a sealed criterion does not hold ({})",
                    if tags.is_empty() {
                        "failed".to_string()
                    } else {
                        tags.join(", ")
                    }
                ),
                "the task is not done in general: re-read its description and make the code meet it for every input, not only the ones the visible criteria use",
            )
        })
        .collect()
}
