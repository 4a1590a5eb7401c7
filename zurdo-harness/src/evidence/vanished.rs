//! Fewer tests, same green: a `[shell:]` hint whose runner ran fewer tests
//! than the task's pre-flight, or ignored or skipped more, fails with
//! `tests_vanished` naming both counts, however the tests went (a deleted
//! file, a deselection, `#[ignore]`, `test = false`). The baseline is the
//! hint's counts at pre-flight; when pre-flight showed none (its build did
//! not compile, typical of a task that adds a feature and its tests), the
//! first attempt that showed counts. A criterion carrying
//! `[removes-tests]` is exempt: its task removes tests on purpose.

use zurdo::verify::{tests_vanished, CriterionResult, Reason, TestCounts, Verdict};
use zurdo::Task;

/// The counts each hint of each criterion showed in one recorded run
/// (`hints`: a criterion's hint results as prd.json records them).
pub fn counts_of(hints: &serde_json::Value) -> Vec<Option<TestCounts>> {
    hints
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| serde_json::from_value(h["evidence"]["tests"].clone()).ok())
        .collect()
}

/// Demotes each passing `[shell:]` hint of `task` whose counts in
/// `results` show tests vanished since its baseline: `preflight` (each
/// criterion's hints' counts at pre-flight) else the first of `attempts`
/// (each earlier attempt's, oldest first, labelled `attempt N`) that showed
/// counts. Returns how many hints were demoted.
pub fn demote_vanished_tests(
    task: &Task,
    preflight: &[Vec<Option<TestCounts>>],
    attempts: &[(String, Vec<Vec<Option<TestCounts>>>)],
    results: &mut [CriterionResult],
) -> usize {
    let mut demoted = 0;
    for (c, (criterion, result)) in task.criteria.iter().zip(results.iter_mut()).enumerate() {
        if criterion.removes_tests {
            continue;
        }
        let mut changed = false;
        for (h, hint) in result.hints.iter_mut().enumerate() {
            if hint.kind != "shell" || !hint.verdict.passed() {
                continue;
            }
            let at = |runs: &[Vec<Option<TestCounts>>]| runs.get(c)?.get(h)?.clone();
            let baseline = at(preflight)
                .map(|counts| ("pre-flight".to_string(), counts))
                .or_else(|| {
                    attempts
                        .iter()
                        .find_map(|(label, runs)| Some((label.clone(), at(runs)?)))
                });
            let Some((since, before)) = baseline else {
                continue;
            };
            if let Some(Reason::TestsVanished { before, now, .. }) =
                tests_vanished(Some(&before), hint.evidence.tests.as_ref())
            {
                hint.verdict = Verdict::Fail(Reason::TestsVanished { before, now, since });
                changed = true;
                demoted += 1;
            }
        }
        if changed {
            *result = CriterionResult::from_hints(std::mem::take(&mut result.hints));
        }
    }
    demoted
}

#[cfg(test)]
mod tests {
    use super::*;
    use zurdo::verify::{CriterionVerdict, VerificationConfig, Verifier};

    const SUMMARY: &str = "printf 'running 5 tests\\ntest result: ok. %s passed; 0 failed; %s ignored; 0 measured; 0 filtered out; finished in 0.01s\\n'";

    fn parsed(modifier: &str) -> zurdo::Prd {
        zurdo::parse(&format!(
            "# PRD: v\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
             ### Acceptance Criteria\n- [ ] tests pass [shell: sh run.sh]{modifier}\n"
        ))
        .expect("valid")
    }

    fn run(dir: &std::path::Path, task: &Task, passed: u32, ignored: u32) -> Vec<CriterionResult> {
        std::fs::write(
            dir.join("run.sh"),
            format!("{SUMMARY} {passed} {ignored}\n"),
        )
        .expect("write");
        let v = Verifier::new(dir, VerificationConfig::default()).expect("verifier");
        task.criteria.iter().map(|c| v.criterion(c)).collect()
    }

    fn counts(results: &[CriterionResult]) -> Vec<Vec<Option<TestCounts>>> {
        results
            .iter()
            .map(|r| counts_of(&serde_json::to_value(&r.hints).expect("json")))
            .collect()
    }

    #[test]
    fn an_ignored_test_fails_a_pass_and_more_tests_or_the_modifier_do_not() {
        let dir = tempfile::tempdir().expect("temp");
        let prd = parsed("");
        let task = &prd.tasks[0];
        let pre = counts(&run(dir.path(), task, 5, 0));
        // One test marked ignored: 4 ran, 1 ignored.
        let mut now = run(dir.path(), task, 4, 1);
        assert_eq!(now[0].verdict, CriterionVerdict::Passed);
        assert_eq!(demote_vanished_tests(task, &pre, &[], &mut now), 1);
        assert_eq!(now[0].verdict, CriterionVerdict::Failed);
        let Verdict::Fail(reason) = &now[0].hints[0].verdict else {
            panic!("demoted")
        };
        assert!(
            reason
                .to_string()
                .starts_with("cargo test ran 4 tests (1 ignored) where pre-flight ran 5"),
            "{reason}"
        );
        // More tests than before: honest.
        let mut more = run(dir.path(), task, 7, 0);
        assert_eq!(demote_vanished_tests(task, &pre, &[], &mut more), 0);
        // No pre-flight counts: the first attempt with counts is the baseline.
        let none = vec![vec![None]];
        let first = vec![("attempt 1".to_string(), pre.clone())];
        let mut fewer = run(dir.path(), task, 3, 0);
        assert_eq!(demote_vanished_tests(task, &none, &first, &mut fewer), 1);
        let Verdict::Fail(reason) = &fewer[0].hints[0].verdict else {
            panic!("demoted")
        };
        assert!(
            reason.to_string().contains("where attempt 1 ran 5"),
            "{reason}"
        );
        // A criterion that removes tests on purpose is exempt.
        let prd = parsed(" [removes-tests]");
        let task = &prd.tasks[0];
        let mut fewer = run(dir.path(), task, 3, 0);
        assert_eq!(demote_vanished_tests(task, &pre, &[], &mut fewer), 0);
        assert_eq!(fewer[0].verdict, CriterionVerdict::Passed);
    }
}
