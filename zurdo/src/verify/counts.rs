//! Test counts: how many tests a `[shell:]` command's output shows ran and
//! how many it shows were held back, and the comparison that tells a run
//! whose tests vanished since an earlier run of the same command.
//!
//! The counts come from the runners' own summary lines (read by the zero-test
//! judgement in [`super::runners`], in the same single pass over the output).
//! What each runner's words count as:
//!
//! | runner | `passed` | `failed` | `ignored` | `skipped` | `deselected` |
//! | --- | --- | --- | --- | --- | --- |
//! | `cargo test` (libtest, libtest-mimic; every `test result:` line and `--format json` suite event, summed) | `passed`, `measured` | `failed` | `ignored` | | `filtered out` |
//! | `cargo nextest` (`Summary … N tests run: …`) | `passed` (its `slow`, `flaky`, `leaky` are among them) | `failed`, `exec failed`, `timed out` | | `skipped`¹ | `skipped`¹ |
//! | `go test` (`-v`: `--- PASS`/`--- FAIL`/`--- SKIP`, top-level tests and subtests alike; `-json`: `pass`/`fail`/`skip` events of a test) | `PASS` | `FAIL` | | `SKIP` | |
//! | `pytest` (the closing `N passed, … in 0.1s` line) | `passed`, `xpassed` | `failed` | | `skipped`, `xfailed` | `deselected` |
//! | `node --test` (the `# tests N` / `ℹ tests N` footer) | `pass` | `fail`, `cancelled` | | `todo`, `skipped`¹ | `skipped`¹ |
//! | `jest` (`Tests: …, N total`) | `passed` | `failed` | | `todo`, `skipped`¹ | `skipped`¹ |
//! | `vitest` (`Tests  … (N)`) | `passed` | `failed` | | `todo`, `skipped`¹ | `skipped`¹ |
//!
//! ¹ These runners report a test a name filter left out as skipped, the same
//! word as a test the code skips. Their `skipped` counts as `deselected` when
//! the command visibly filters that runner's tests by name (nextest: a
//! filter argument, `-E`, `--partition`, `--rerun`, `--platform-filter`,
//! `--run-ignored only`, or arguments after `--`; jest and vitest: `-t`,
//! `--testNamePattern`; node: `--test-name-pattern`, `--test-skip-pattern`,
//! `--test-only`), and as `skipped` otherwise.
//!
//! Not counted: pytest's `error`s (a collection or fixture error is not a
//! test that ran), `warnings` and `rerun`s, jest's and vitest's test
//! suites/files, go's packages, node's suites. An `xfailed` test ran, but its
//! failure is expected and not judged: marking a failing test `xfail` is a way
//! to hide it, so it counts as skipped (and `1 xfailed` alone is zero tests).
//! A node `todo` test runs too, and its failure does not fail the run: skipped
//! likewise.

use serde::{Deserialize, Serialize};

use super::Reason;

/// What one run's output shows of its tests: the numbers a runner's summary
/// gives, summed over every summary of every runner seen (several test
/// binaries, several runners in one command).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    /// The runner(s) whose summaries the numbers come from, in the order
    /// `cargo test`, `cargo nextest`, `go test`, `pytest`, `node --test`,
    /// `jest`, `vitest`, joined with `+` when several printed one
    /// (`cargo test+pytest`).
    pub runner: String,
    /// Tests that ran and passed.
    pub passed: u64,
    /// Tests that ran and failed (timed out, crashed, cancelled included).
    pub failed: u64,
    /// Tests the code marks not to run by default (libtest's `#[ignore]`).
    pub ignored: u64,
    /// Tests skipped by a mark in the code or at run time (`t.Skip()`,
    /// `@pytest.mark.skip`, `it.skip`, `test.todo`, `xfail`).
    pub skipped: u64,
    /// Tests a filter left out (`cargo test name`, `pytest -k`, `-m`, …):
    /// reported, never compared, since a filter leaves out more tests
    /// whenever tests are added outside it.
    pub deselected: u64,
    /// The run shows a failure that may have stopped it before everything
    /// it selected ran: a failing test or test binary where the runner stops
    /// at the first one (cargo test without `--no-fail-fast`, `go test
    /// -failfast`, `jest --bail`…; pytest only when it says `stopping after`
    /// or `Interrupted`, nextest when it ran fewer tests than it started), a
    /// test binary that never reported, a package or suite that failed to
    /// build. Its numbers are then a lower bound of the whole suite's.
    #[serde(default)]
    pub partial: bool,
}

impl TestCounts {
    /// Tests that ran: `passed + failed`.
    pub fn ran(&self) -> u64 {
        self.passed.saturating_add(self.failed)
    }

    /// Tests held back: `ignored + skipped + deselected`.
    pub fn not_run(&self) -> u64 {
        self.ignored
            .saturating_add(self.skipped)
            .saturating_add(self.deselected)
    }

    /// Tests held back by the code: `ignored + skipped` (what a change to
    /// the tests can raise without touching the command).
    pub fn held_back(&self) -> u64 {
        self.ignored.saturating_add(self.skipped)
    }

    /// True when this run's tests vanished since `before`, an earlier run of
    /// the same command (the pre-flight run):
    ///
    /// - fewer tests ran than in `before` (a test removed, or ignored,
    ///   skipped or deselected without a replacement); or
    /// - more tests were ignored or skipped than in `before`, when `before`
    ///   ran to the end (not [`partial`](Self::partial)) and the same
    ///   runners printed both (a test ignored and another added in its
    ///   place).
    ///
    /// Never when this run is itself [`partial`](Self::partial): it failed,
    /// and its failure is what to report. More deselected tests alone never
    /// count (a filter deselects more as tests are added outside it), nor do
    /// more tests, nor the same counts under other test names.
    pub fn vanished_since(&self, before: &TestCounts) -> bool {
        if self.partial {
            return false;
        }
        if self.ran() < before.ran() {
            return true;
        }
        !before.partial && self.runner == before.runner && self.held_back() > before.held_back()
    }

    /// Adds `other`'s numbers to these, its runner to the names, and its
    /// partiality.
    pub(crate) fn add(&mut self, other: &TestCounts) {
        if self.runner.is_empty() {
            self.runner = other.runner.clone();
        } else if !other.runner.is_empty() {
            self.runner = format!("{}+{}", self.runner, other.runner);
        }
        self.passed = self.passed.saturating_add(other.passed);
        self.failed = self.failed.saturating_add(other.failed);
        self.ignored = self.ignored.saturating_add(other.ignored);
        self.skipped = self.skipped.saturating_add(other.skipped);
        self.deselected = self.deselected.saturating_add(other.deselected);
        self.partial |= other.partial;
    }

    /// `(2 ignored, 1 skipped)` for the kinds of held-back tests either
    /// count has (the same kinds for both, so they read side by side);
    /// empty when neither holds any back.
    fn held_back_note(&self, other: &TestCounts) -> String {
        let kinds = [
            (self.ignored, other.ignored, "ignored"),
            (self.skipped, other.skipped, "skipped"),
            (self.deselected, other.deselected, "deselected"),
        ];
        let shown: Vec<String> = kinds
            .iter()
            .filter(|(mine, theirs, _)| *mine > 0 || *theirs > 0)
            .map(|(mine, _, word)| format!("{mine} {word}"))
            .collect();
        if shown.is_empty() {
            String::new()
        } else {
            format!(" ({})", shown.join(", "))
        }
    }
}

/// The [`Reason::TestsVanished`] objection to a run whose counts are `now`,
/// given the counts of the same command's pre-flight run (`before`), or
/// `None` when nothing vanished ([`TestCounts::vanished_since`]). Unknown
/// counts on either side (no runner summary in the output) never vanish.
pub fn tests_vanished(before: Option<&TestCounts>, now: Option<&TestCounts>) -> Option<Reason> {
    let (before, now) = (before?, now?);
    now.vanished_since(before).then(|| Reason::TestsVanished {
        before: Box::new(before.clone()),
        now: Box::new(now.clone()),
        since: "pre-flight".to_string(),
    })
}

/// The sentence of [`Reason::TestsVanished`]: `cargo test ran 3 tests (2
/// ignored) where pre-flight ran 5 (0 ignored): …`.
pub(crate) fn vanished_message(before: &TestCounts, now: &TestCounts, since: &str) -> String {
    let plural = if now.ran() == 1 { "test" } else { "tests" };
    let pre_flight = if before.runner == now.runner {
        since.to_string()
    } else {
        format!("{since} ({})", before.runner)
    };
    format!(
        "{runner} ran {ran} {plural}{now_note} where {pre_flight} ran {before_ran}{before_note}: \
         tests were removed, skipped, ignored or deselected; restore them \
         (a PRD that means to remove tests says so: see docs/run.md)",
        runner = now.runner,
        ran = now.ran(),
        now_note = now.held_back_note(before),
        before_ran = before.ran(),
        before_note = before.held_back_note(now),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(runner: &str, passed: u64, failed: u64, ignored: u64, skipped: u64) -> TestCounts {
        TestCounts {
            runner: runner.into(),
            passed,
            failed,
            ignored,
            skipped,
            ..TestCounts::default()
        }
    }

    #[test]
    fn ran_and_not_run_add_up_their_fields() {
        let c = TestCounts {
            deselected: 4,
            ..counts("cargo test", 3, 1, 2, 5)
        };
        assert_eq!(c.ran(), 4);
        assert_eq!(c.not_run(), 11);
        assert_eq!(c.held_back(), 7);
        let huge = counts("x", u64::MAX, 1, u64::MAX, 1);
        assert_eq!(huge.ran(), u64::MAX);
        assert_eq!(huge.not_run(), u64::MAX);
    }

    #[test]
    fn fewer_tests_ran_vanished() {
        let before = counts("cargo test", 5, 0, 0, 0);
        // One deleted.
        assert!(counts("cargo test", 4, 0, 0, 0).vanished_since(&before));
        // One ignored.
        assert!(counts("cargo test", 4, 0, 1, 0).vanished_since(&before));
        // One deselected by a filter.
        let deselected = TestCounts {
            deselected: 1,
            ..counts("cargo test", 4, 0, 0, 0)
        };
        assert!(deselected.vanished_since(&before));
        // Even when pre-flight failed early: what ran then must still run.
        let partial = TestCounts {
            partial: true,
            ..counts("cargo test", 3, 2, 0, 0)
        };
        assert!(counts("cargo test", 4, 0, 1, 0).vanished_since(&partial));
    }

    #[test]
    fn more_tests_skipped_or_ignored_vanished() {
        let before = counts("pytest", 5, 0, 0, 1);
        // One skipped and another added in its place: as many ran.
        assert!(counts("pytest", 5, 0, 0, 2).vanished_since(&before));
        assert!(counts("pytest", 5, 0, 1, 1).vanished_since(&before));
        // A pre-flight failure where the runner stops at the first one: the
        // rest of the suite (and its skipped tests) never showed.
        let partial = TestCounts {
            partial: true,
            ..before.clone()
        };
        assert!(!counts("pytest", 5, 0, 0, 2).vanished_since(&partial));
        // Another runner's skipped tests joined the sum (`cargo test &&
        // pytest` whose cargo test failed at pre-flight).
        let cargo = counts("cargo test", 5, 0, 0, 0);
        assert!(!counts("cargo test+pytest", 9, 0, 0, 1).vanished_since(&cargo));
    }

    #[test]
    fn more_tests_or_the_same_counts_did_not_vanish() {
        let before = counts("cargo test", 3, 2, 1, 0);
        // The failures fixed.
        assert!(!counts("cargo test", 5, 0, 1, 0).vanished_since(&before));
        // Tests added.
        assert!(!counts("cargo test", 8, 0, 1, 0).vanished_since(&before));
        // Renamed tests: the same counts.
        assert!(!counts("cargo test", 5, 0, 1, 0).vanished_since(&before));
        assert!(!before.vanished_since(&before));
        // An ignored test now runs.
        assert!(!counts("cargo test", 6, 0, 0, 0).vanished_since(&before));
        // A filter deselecting more as tests are added outside it.
        let before = TestCounts {
            deselected: 3,
            ..counts("cargo test", 2, 0, 0, 0)
        };
        let now = TestCounts {
            deselected: 7,
            ..counts("cargo test", 2, 0, 0, 0)
        };
        assert!(!now.vanished_since(&before));
    }

    #[test]
    fn a_failing_run_is_reported_by_its_failure_not_as_vanished() {
        let before = counts("cargo test", 5, 0, 0, 0);
        let now = TestCounts {
            partial: true,
            ..counts("cargo test", 1, 1, 0, 0)
        };
        assert!(!now.vanished_since(&before));
    }

    #[test]
    fn unknown_counts_never_vanish() {
        let some = counts("go test", 5, 0, 0, 0);
        let fewer = counts("go test", 1, 0, 0, 0);
        assert_eq!(tests_vanished(None, Some(&fewer)), None);
        assert_eq!(tests_vanished(Some(&some), None), None);
        assert_eq!(tests_vanished(None, None), None);
        assert_eq!(tests_vanished(Some(&some), Some(&some)), None);
        assert_eq!(
            tests_vanished(Some(&some), Some(&fewer)),
            Some(Reason::TestsVanished {
                before: Box::new(some.clone()),
                now: Box::new(fewer.clone()),
                since: "pre-flight".into(),
            })
        );
    }

    #[test]
    fn the_message_names_both_counts_and_what_to_undo() {
        let before = counts("cargo test", 5, 0, 0, 0);
        let now = counts("cargo test", 3, 0, 2, 0);
        assert_eq!(
            vanished_message(&before, &now, "pre-flight"),
            "cargo test ran 3 tests (2 ignored) where pre-flight ran 5 (0 ignored): \
             tests were removed, skipped, ignored or deselected; restore them \
             (a PRD that means to remove tests says so: see docs/run.md)"
        );
        let before = counts("cargo test+pytest", 7, 0, 0, 1);
        let now = counts("cargo test", 1, 0, 0, 0);
        assert!(vanished_message(&before, &now, "pre-flight").starts_with(
            "cargo test ran 1 test (0 skipped) where pre-flight (cargo test+pytest) ran 7 (1 skipped): "
        ));
        let before = counts("go test", 2, 0, 0, 0);
        let now = counts("go test", 1, 0, 0, 0);
        assert!(vanished_message(&before, &now, "pre-flight")
            .starts_with("go test ran 1 test where pre-flight ran 2: tests were removed"));
    }

    #[test]
    fn adding_sums_the_numbers_and_joins_the_runners() {
        let mut sum = TestCounts::default();
        sum.add(&counts("cargo test", 3, 1, 2, 0));
        assert_eq!(sum, counts("cargo test", 3, 1, 2, 0));
        sum.add(&TestCounts {
            deselected: 2,
            partial: true,
            ..counts("pytest", 4, 0, 0, 1)
        });
        assert_eq!(
            sum,
            TestCounts {
                deselected: 2,
                partial: true,
                ..counts("cargo test+pytest", 7, 1, 2, 1)
            }
        );
    }

    #[test]
    fn counts_serialize_with_their_field_names() {
        let c = TestCounts {
            deselected: 4,
            ..counts("pytest", 3, 1, 0, 2)
        };
        let json = serde_json::to_value(&c).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({
                "runner": "pytest", "passed": 3, "failed": 1, "ignored": 0,
                "skipped": 2, "deselected": 4, "partial": false
            })
        );
        let back: TestCounts = serde_json::from_value(json).expect("deserializes");
        assert_eq!(back, c);
        // Counts without `partial` are of a run that went to the end.
        let old: TestCounts = serde_json::from_str(
            r#"{"runner":"go test","passed":1,"failed":0,"ignored":0,"skipped":0,"deselected":0}"#,
        )
        .expect("deserializes");
        assert!(!old.partial);
    }
}
