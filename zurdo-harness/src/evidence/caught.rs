//! What zurdo caught an attempt doing besides failing a criterion: changing
//! what decides the verdict instead of the code, planting a tool or a
//! startup hook, a criterion's command writing into a frozen path, or
//! breaking a task that had already passed. Each [`Caught`] fails the
//! iteration with its typed reason: it is recorded on the iteration
//! (`caught` in prd.json), shown live, listed in the report, digested into
//! the failure fingerprint, and the next prompt opens with what to undo.
//!
//! A failing hint keeps its own typed reason on the hint (`zero_tests`,
//! `tests_vanished`, `evidence_missing`…); a [`Caught`] is what no single
//! hint of the task owns.

use serde::{Deserialize, Serialize};

/// The typed reason of a [`Caught`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaughtKind {
    /// A file that decides how tests are found or judged (a test config,
    /// a `conftest.py` hook, a `[[test]]` table, a recipe a hint calls)
    /// changed in a way that matters to the verdict.
    VerdictSurfaceChanged,
    /// A tool a hint runs resolves to a file inside the repository that
    /// changed or was added, or a startup hook or runner config outside
    /// the repository changed.
    EnvironmentPlanted,
    /// A criterion's own command wrote into a frozen path.
    CriterionWroteFrozen,
    /// A criterion of a task that had already passed no longer holds.
    Regressed,
    /// Of the lines the task changed, the tests executed fewer than
    /// `[verification.coverage] threshold`.
    CoverageBelowThreshold,
    /// A coverage report the gate reads is missing or unreadable.
    CoverageSourceMissing,
    /// A coverage report the gate reads was written before this
    /// verification (it describes another tree).
    CoverageSourceStale,
    /// A sealed criterion (one no prompt holds) does not hold: only its
    /// typed reason is said, never its check or output.
    SealedFailed,
    /// The challenger claimed the work games its checks and a probe zurdo
    /// ran on a copy of the tree confirmed it.
    ChallengerConfirmed,
}

impl CaughtKind {
    /// The snake_case name, as prd.json and the retry prompt spell it.
    pub fn name(self) -> &'static str {
        match self {
            CaughtKind::VerdictSurfaceChanged => "verdict_surface_changed",
            CaughtKind::EnvironmentPlanted => "environment_planted",
            CaughtKind::CriterionWroteFrozen => "criterion_wrote_frozen",
            CaughtKind::Regressed => "regressed",
            CaughtKind::CoverageBelowThreshold => "coverage_below_threshold",
            CaughtKind::CoverageSourceMissing => "coverage_source_missing",
            CaughtKind::CoverageSourceStale => "coverage_source_stale",
            CaughtKind::SealedFailed => "sealed_failed",
            CaughtKind::ChallengerConfirmed => "challenger_confirmed",
        }
    }
}

impl std::fmt::Display for CaughtKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One thing caught: its typed reason, what it concerns, what was seen and
/// what the next attempt must undo.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Caught {
    /// The typed reason.
    pub reason: CaughtKind,
    /// What it concerns: a repository-relative path, a tool, a
    /// `<task>::<criterion>` name.
    pub subject: String,
    /// What zurdo saw, one line.
    pub detail: String,
    /// What the next attempt must undo, one line (the retry prompt says it).
    pub undo: String,
}

impl Caught {
    /// A finding of `reason` about `subject`.
    pub fn new(
        reason: CaughtKind,
        subject: impl Into<String>,
        detail: impl Into<String>,
        undo: impl Into<String>,
    ) -> Caught {
        Caught {
            reason,
            subject: subject.into(),
            detail: detail.into(),
            undo: undo.into(),
        }
    }

    /// The line the failure fingerprint digests: the reason, the subject
    /// and the detail (never timings or output).
    pub fn fingerprint_line(&self) -> String {
        format!("caught {} {} {}", self.reason, self.subject, self.detail)
    }
}

impl std::fmt::Display for Caught {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.reason, self.subject, self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_serialize_as_the_names_they_display() {
        for kind in [
            CaughtKind::VerdictSurfaceChanged,
            CaughtKind::EnvironmentPlanted,
            CaughtKind::CriterionWroteFrozen,
            CaughtKind::Regressed,
            CaughtKind::CoverageBelowThreshold,
            CaughtKind::CoverageSourceMissing,
            CaughtKind::CoverageSourceStale,
            CaughtKind::SealedFailed,
            CaughtKind::ChallengerConfirmed,
        ] {
            let json = serde_json::to_value(kind).expect("serializes");
            assert_eq!(json, kind.name());
            let back: CaughtKind = serde_json::from_value(json).expect("reads back");
            assert_eq!(back, kind);
        }
        let c = Caught::new(
            CaughtKind::VerdictSurfaceChanged,
            "Cargo.toml",
            "the [[test]] table changed",
            "restore it",
        );
        assert_eq!(
            c.to_string(),
            "verdict_surface_changed: Cargo.toml: the [[test]] table changed"
        );
        assert!(c
            .fingerprint_line()
            .starts_with("caught verdict_surface_changed Cargo.toml"));
    }
}
