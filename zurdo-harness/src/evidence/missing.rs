//! Negative checks that pass by deletion: a `[no-grep:]` on a literal path
//! passes when the file is gone ("nothing matches in a file that does not
//! exist"), which is right for a file that never existed and a hole when
//! the attempt deleted the very file the check searches. A literal path
//! whose file existed when the task's pre-flight ran and is gone now fails
//! with `evidence_missing`.

use zurdo::hint::Check;
use zurdo::verify::{CriterionResult, Reason, Verdict, ABSENT};
use zurdo::Task;

/// Demotes each `[no-grep:]` of `task` on a literal path that pre-flight
/// read as a file (`preflight`: each criterion's hint results as prd.json
/// records them) and that is absent now to [`Reason::EvidenceMissing`],
/// failing its criterion. Returns the paths.
pub fn demote_vanished(
    task: &Task,
    preflight: &[serde_json::Value],
    results: &mut [CriterionResult],
) -> Vec<String> {
    let mut vanished = Vec::new();
    for ((criterion, before), result) in task.criteria.iter().zip(preflight).zip(results.iter_mut())
    {
        let mut demoted = false;
        for (h, hint) in criterion.hints.iter().enumerate() {
            let Check::NoGrep(g) = &hint.check else {
                continue;
            };
            if g.target_is_glob {
                continue;
            }
            let path = g.target.as_str();
            let existed = before[h]["evidence"]["blobs"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|b| b["path"] == path && b["id"].as_str().is_some_and(|id| id != ABSENT));
            let Some(now) = result.hints.get_mut(h) else {
                continue;
            };
            let gone = now.verdict.passed()
                && now
                    .evidence
                    .blobs
                    .iter()
                    .any(|b| b.path == path && b.id == ABSENT);
            if existed && gone {
                now.verdict = Verdict::Fail(Reason::EvidenceMissing {
                    path: path.to_string(),
                });
                vanished.push(path.to_string());
                demoted = true;
            }
        }
        if demoted {
            *result = CriterionResult::from_hints(std::mem::take(&mut result.hints));
        }
    }
    vanished
}

#[cfg(test)]
mod tests {
    use super::*;
    use zurdo::verify::{VerificationConfig, Verifier};

    #[test]
    fn a_searched_file_deleted_since_pre_flight_fails_and_one_never_there_passes() {
        let prd = zurdo::parse(
            "# PRD: m\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
             ### Acceptance Criteria\n- [ ] no debug [no-grep: dbg! in src/lib.rs]\n- [ ] no todo [no-grep: TODO in notes.md]\n",
        )
        .expect("valid");
        let task = &prd.tasks[0];
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "dbg!(x);\n").expect("write");
        let v = Verifier::new(dir.path(), VerificationConfig::default()).expect("verifier");
        let check = |v: &Verifier| -> Vec<CriterionResult> {
            task.criteria.iter().map(|c| v.criterion(c)).collect()
        };
        let preflight: Vec<serde_json::Value> = check(&v)
            .iter()
            .map(|r| serde_json::to_value(&r.hints).expect("json"))
            .collect();
        // The attempt deletes the file instead of removing the dbg!.
        std::fs::remove_file(dir.path().join("src/lib.rs")).expect("rm");
        let mut now = check(&v);
        assert!(now[0].verdict != zurdo::verify::CriterionVerdict::Failed);
        let vanished = demote_vanished(task, &preflight, &mut now);
        assert_eq!(vanished, ["src/lib.rs"]);
        assert_eq!(now[0].verdict, zurdo::verify::CriterionVerdict::Failed);
        assert_eq!(
            now[0].hints[0].verdict,
            Verdict::Fail(Reason::EvidenceMissing {
                path: "src/lib.rs".into()
            })
        );
        // notes.md never existed: its no-grep still passes.
        assert_eq!(now[1].verdict, zurdo::verify::CriterionVerdict::Passed);
    }
}
