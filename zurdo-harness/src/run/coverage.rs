//! The coverage gate in the loop: after an attempt's criteria pass in
//! place, the share of the lines the task changed since its rollback point
//! that the tests executed (read from the reports the criteria wrote during
//! this verification; see [`crate::evidence::coverage`]). Each problem is a
//! [`Caught`] that fails the attempt.

use std::time::SystemTime;

use zurdo::Task;

use super::Run;
use crate::event::Event;
use crate::evidence::coverage::{self, SourceProblem};
use crate::evidence::{Caught, CaughtKind};

impl Run {
    /// The gate's findings on `task`'s attempt whose verification began at
    /// `since` and verified `tree` (none when the gate is off, or passes).
    pub(super) fn coverage_gate(
        &self,
        task: &Task,
        tree: Option<&str>,
        since: SystemTime,
    ) -> Vec<Caught> {
        let config = &self.ctx.config.verification.coverage;
        if !config.enabled() {
            return Vec::new();
        }
        let start = self
            .record
            .task(&task.id)
            .and_then(|t| t.rollback_point.as_deref());
        let (Some(start), Some(tree)) = (start, tree) else {
            self.events.emit(Event::CoverageUnmeasured {
                task: task.id.clone(),
                why: "no git baseline to tell which lines the task changed".into(),
            });
            return Vec::new();
        };
        let changed =
            match crate::evidence::baseline::changed_lines(self.guards.root(), start, tree) {
                Ok(changed) => changed,
                Err(e) => {
                    self.events.emit(Event::CoverageUnmeasured {
                        task: task.id.clone(),
                        why: format!("the task's changed lines cannot be read: {e}"),
                    });
                    return Vec::new();
                }
            };
        let reports = match coverage::read_sources(self.guards.root(), &config.sources, since) {
            Ok(reports) => reports,
            Err(problem) => return vec![source_problem(problem)],
        };
        let measured = coverage::measure(&changed, &reports);
        let share = measured.share();
        if share + f64::EPSILON >= config.threshold {
            return Vec::new();
        }
        vec![Caught::new(
            CaughtKind::CoverageBelowThreshold,
            task.id.clone(),
            format!(
                "the tests executed {} of the {} changed code lines ({:.0}%, under the {:.0}% threshold); not executed: {}",
                measured.executed,
                measured.instrumented,
                share * 100.0,
                config.threshold * 100.0,
                measured.missed_text(8)
            ),
            "write tests that execute the lines named (or remove code nothing needs)",
        )]
    }
}

/// A report the gate could not use, as what was caught.
fn source_problem(problem: SourceProblem) -> Caught {
    match problem {
        SourceProblem::Missing(source) => Caught::new(
            CaughtKind::CoverageSourceMissing,
            source,
            "no coverage report there after the criteria ran",
            "make the criteria's test command write its coverage report there ([verification.coverage] sources)",
        ),
        SourceProblem::Unreadable(path, why) => Caught::new(
            CaughtKind::CoverageSourceMissing,
            path,
            format!("the coverage report cannot be used: {why}"),
            "make the criteria's test command write a report zurdo reads (lcov, Cobertura XML, coverage.py JSON, a Go cover profile)",
        ),
        SourceProblem::Stale(path) => Caught::new(
            CaughtKind::CoverageSourceStale,
            path,
            "the coverage report was written before this verification: it describes another tree",
            "make the criteria's test command write the report on every run",
        ),
    }
}
