//! The verification window: once the last criterion has run, every file a
//! passing local hint recorded as evidence is read again, and a blob that
//! changed demotes that hint to `evidence_changed_during_verification`. A
//! process the agent left running that rewrites a file after its check
//! passed is caught this way.

use std::path::Path;

use super::files::{self, blob_id, ABSENT};
use super::outcome::{Reason, Verdict};
use super::verifier::CriterionResult;
use super::CriterionVerdict;

/// What a blob id is compared with when the file can no longer be read as
/// the hint read it (it became a FIFO, a symlink leading outside, a file
/// over the read limit): never equal to a recorded id, so the pass is
/// demoted.
const UNREADABLE: &str = "unreadable";

/// The blob id of `path` under `root` now ([`ABSENT`] when nothing is
/// there), read as a hint reads it: confined, bounded, regular files only.
fn current(root: &Path, path: &str) -> String {
    match files::read_confined(root, path) {
        Ok(Some(bytes)) => blob_id(&bytes),
        Ok(None) => ABSENT.to_string(),
        Err(_) => UNREADABLE.to_string(),
    }
}

/// Re-reads the evidence of every passing hint in `results`, demoting the
/// ones whose files changed. Returns the changed paths.
pub fn close(root: &Path, results: &mut [CriterionResult]) -> Vec<String> {
    let mut changed = Vec::new();
    for result in results.iter_mut() {
        for hint in result.hints.iter_mut().filter(|h| h.verdict.passed()) {
            let moved = hint
                .evidence
                .blobs
                .iter()
                .find(|b| current(root, &b.path) != b.id)
                .map(|b| b.path.clone());
            if let Some(path) = moved {
                hint.verdict = Verdict::Fail(Reason::EvidenceChangedDuringVerification {
                    // A file name is the agent's to choose: shown escaped.
                    path: zurdo_base::text::escape_line(&path).into_owned(),
                });
                changed.push(path);
            }
        }
        if result
            .hints
            .iter()
            .any(|h| h.kind != "manual" && !h.verdict.passed())
        {
            result.verdict = CriterionVerdict::Failed;
        }
    }
    changed.sort();
    changed.dedup();
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{VerificationConfig, Verifier};

    #[test]
    fn a_file_rewritten_after_its_check_demotes_the_pass() {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::write(dir.path().join("a.txt"), "ok\n").expect("write");
        let src = "# PRD: w\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
                   ### Acceptance Criteria\n- [ ] ok [grep: ^ok$ in a.txt]\n- [ ] gone [file-absent: b.txt]\n";
        let prd = crate::parse(src).expect("valid");
        let v = Verifier::new(dir.path(), VerificationConfig::default()).expect("verifier");
        let mut results: Vec<_> = prd.tasks[0]
            .criteria
            .iter()
            .map(|c| v.criterion(c))
            .collect();
        assert!(results
            .iter()
            .all(|r| r.verdict == CriterionVerdict::Passed));
        assert!(
            close(v.root(), &mut results.clone()).is_empty(),
            "nothing changed"
        );
        std::fs::write(dir.path().join("a.txt"), "tampered\n").expect("write");
        std::fs::write(dir.path().join("b.txt"), "appeared").expect("write");
        let changed = close(v.root(), &mut results);
        assert_eq!(changed, ["a.txt", "b.txt"]);
        assert!(results
            .iter()
            .all(|r| r.verdict == CriterionVerdict::Failed));
        assert_eq!(
            results[0].hints[0].verdict,
            Verdict::Fail(Reason::EvidenceChangedDuringVerification {
                path: "a.txt".into()
            })
        );
    }
}
