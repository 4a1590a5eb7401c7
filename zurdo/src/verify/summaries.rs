//! What test runners' output shows, read one line at a time: each runner's
//! report lines, whether they show it ran zero tests, and the numbers its
//! summaries give (mapped to [`TestCounts`] as [`super::counts`] documents).
//!
//! [`Scan`] sees every line of a `[shell:]` command's output once, in the
//! order it arrives, and keeps a few numbers per runner, so memory stays
//! bounded whatever the command prints.

use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use super::counts::TestCounts;
use super::runners::Runner;

/// The numbers read from one runner's summaries.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    passed: u64,
    failed: u64,
    ignored: u64,
    skipped: u64,
    deselected: u64,
    /// Tests reported as skipped by a runner that uses the word for a test
    /// a name filter left out too (nextest, node, jest, vitest).
    lumped: u64,
    /// See [`TestCounts::partial`].
    partial: bool,
}

impl Tally {
    fn ran(&self) -> u64 {
        self.passed.saturating_add(self.failed)
    }

    /// The counts, named for `runner`. `filtered` says the command filters
    /// that runner's tests by name: its lumped skips are then deselected
    /// tests, else skipped ones.
    pub(super) fn counts(self, runner: Runner, filtered: bool) -> TestCounts {
        let (skipped, deselected) = if filtered {
            (self.skipped, self.deselected.saturating_add(self.lumped))
        } else {
            (self.skipped.saturating_add(self.lumped), self.deselected)
        };
        TestCounts {
            runner: runner.name().to_string(),
            passed: self.passed,
            failed: self.failed,
            ignored: self.ignored,
            skipped,
            deselected,
            partial: self.partial,
        }
    }
}

/// `total += n`, saturating.
fn add(total: &mut u64, n: u64) {
    *total = total.saturating_add(n);
}

/// A run of digits a regex matched (one too long for u64 saturates).
fn number(digits: &str) -> u64 {
    digits.parse().unwrap_or(u64::MAX)
}

/// `N word` items (`3 passed`, `1 timed out`): the number and the words.
fn item(text: &str) -> Option<(u64, &str)> {
    let (n, word) = text.trim().split_once(' ')?;
    n.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| (number(n), word.trim()))
}

/// What one pass over the output learnt about each runner.
#[derive(Debug, Default)]
pub(super) struct Scan {
    libtest: Libtest,
    nextest: Nextest,
    go: Go,
    pytest: Pytest,
    node: Node,
    jest: Jest,
    vitest: Vitest,
}

impl Scan {
    /// Reads one line (escapes already removed).
    pub(super) fn line(&mut self, line: &str) {
        let line = line.trim_end();
        self.nextest.line(line);
        // Between nextest's `Starting` and `Summary` lines, libtest report
        // lines are the output of the tests nextest runs (`--no-capture`
        // shows them unindented, one `running 1 test` per test), not a
        // cargo test run.
        if !self.nextest.running {
            self.libtest.line(line);
        }
        self.go.line(line);
        self.pytest.line(line);
        self.node.line(line);
        self.jest.line(line);
        self.vitest.line(line);
    }

    /// The output ended.
    pub(super) fn end(&mut self) {
        self.node.close();
    }

    /// Whether the output shows `runner` ran zero tests, and whether it
    /// shows any of its report lines.
    pub(super) fn verdict(&self, runner: Runner) -> (bool, bool) {
        match runner {
            Runner::Cargo => self.libtest.verdict(),
            Runner::Nextest => self.nextest.verdict(),
            Runner::Go => self.go.verdict(),
            Runner::Pytest => self.pytest.verdict(),
            Runner::Node => self.node.verdict(),
            Runner::Jest => self.jest.verdict(),
            Runner::Vitest => self.vitest.verdict(),
        }
    }

    /// The numbers `runner`'s summaries give; `None` when the output holds
    /// none of its summaries (or, for go test, no per-test lines).
    pub(super) fn tally(&self, runner: Runner) -> Option<Tally> {
        match runner {
            Runner::Cargo => self.libtest.tally(),
            Runner::Nextest => self.nextest.tally(),
            Runner::Go => self.go.tally(),
            Runner::Pytest => self.pytest.tally(),
            Runner::Node => self.node.tally(),
            Runner::Jest => self.jest.tally(),
            Runner::Vitest => self.vitest.tally(),
        }
    }
}

// ---------------------------------------------------------------------------
// cargo test

/// libtest (and libtest-mimic): one `running N tests` line per test binary
/// and per doc-test run, each closed by a `test result:` line (or JSON
/// `suite` events under `--format json`).
#[derive(Debug, Default)]
struct Libtest {
    /// `running N tests` lines (and JSON `suite started` events) seen.
    running: usize,
    /// Their N, added up.
    tests: u64,
    /// The N of the last `running` line, until its `test result:` line.
    open: Option<u64>,
    /// The N of `running` lines no `test result:` line closed (a test
    /// binary that crashed or was killed).
    abandoned: u64,
    /// `test result:` lines (and JSON suite results) seen.
    results: usize,
    /// Their numbers, added up.
    tally: Tally,
    /// cargo's closing `error: N targets failed:`: with `--no-fail-fast`
    /// every test binary ran despite the failures.
    ran_on: bool,
}

static LIBTEST_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured;(?: (\d+) filtered out)?",
    )
    .expect("valid regex")
});
static CARGO_TARGETS_FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^error: \d+ targets? failed:$").expect("valid regex"));

/// A `suite` event of libtest's `--format json`.
#[derive(Deserialize)]
struct LibtestSuite {
    #[serde(rename = "type")]
    kind: String,
    event: String,
    #[serde(default)]
    test_count: u64,
    #[serde(default)]
    passed: u64,
    #[serde(default)]
    failed: u64,
    #[serde(default)]
    ignored: u64,
    #[serde(default)]
    measured: u64,
    #[serde(default)]
    filtered_out: u64,
}

impl Libtest {
    fn line(&mut self, line: &str) {
        // libtest writes its report at the start of the line; nextest shows
        // a test's captured output indented, and that is not a report.
        if let Some(rest) = line.strip_prefix("running ") {
            let count = match rest.split_once(' ') {
                Some((n, "test" | "tests")) => n.parse::<u64>().ok(),
                _ => None,
            };
            if let Some(n) = count {
                self.started(n);
            }
        } else if line.starts_with("test result: ") {
            if let Some(caps) = LIBTEST_RESULT.captures(line) {
                let n = |i: usize| caps.get(i).map_or(0, |m| number(m.as_str()));
                self.result(n(1), n(2), n(3), n(4), n(5));
            }
        } else if line.starts_with("error: ") {
            if CARGO_TARGETS_FAILED.is_match(line) {
                self.ran_on = true;
            }
        } else if line.starts_with('{') && line.contains("\"suite\"") {
            let Ok(suite) = serde_json::from_str::<LibtestSuite>(line) else {
                return;
            };
            match (suite.kind.as_str(), suite.event.as_str()) {
                ("suite", "started") => self.started(suite.test_count),
                ("suite", "ok" | "failed") => self.result(
                    suite.passed,
                    suite.failed,
                    suite.ignored,
                    suite.measured,
                    suite.filtered_out,
                ),
                _ => {}
            }
        }
    }

    fn started(&mut self, tests: u64) {
        self.running += 1;
        add(&mut self.tests, tests);
        if let Some(unclosed) = self.open.replace(tests) {
            add(&mut self.abandoned, unclosed);
        }
    }

    /// A benchmark `measured` ran: it counts as passed.
    fn result(&mut self, passed: u64, failed: u64, ignored: u64, measured: u64, filtered: u64) {
        self.results += 1;
        self.open = None;
        add(&mut self.tally.passed, passed.saturating_add(measured));
        add(&mut self.tally.failed, failed);
        add(&mut self.tally.ignored, ignored);
        add(&mut self.tally.deselected, filtered);
    }

    fn abandoned(&self) -> u64 {
        self.abandoned.saturating_add(self.open.unwrap_or(0))
    }

    fn verdict(&self) -> (bool, bool) {
        // The `test result:` lines say what ran (an ignored test is counted
        // by `running N tests` but never runs); a binary that never closed
        // its `running` line ran something before it died. Without result
        // lines (a filter dropped them) the `running` counts decide.
        let zero = if self.results > 0 {
            self.tally.ran() == 0 && self.abandoned() == 0
        } else {
            self.running > 0 && self.tests == 0
        };
        (zero, self.running + self.results > 0)
    }

    fn tally(&self) -> Option<Tally> {
        (self.results > 0).then(|| Tally {
            // cargo test stops at the first failing binary unless told
            // `--no-fail-fast`, which ends with `error: N targets failed:`.
            partial: self.abandoned() > 0 || (self.tally.failed > 0 && !self.ran_on),
            ..self.tally
        })
    }
}

// ---------------------------------------------------------------------------
// cargo nextest

/// cargo-nextest: `Starting N tests across M binaries` when the run
/// starts, `Summary [time] N tests run: …` when it ends.
#[derive(Debug, Default)]
struct Nextest {
    starting: usize,
    starting_tests: u64,
    summaries: usize,
    summary_tests: u64,
    tally: Tally,
    /// Between a `Starting` line and its `Summary` line.
    running: bool,
}

static NEXTEST_STARTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Starting (\d+) tests? across \d+ binar(?:y|ies)").expect("valid regex")
});
static NEXTEST_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Summary \[[^\]]*\] (\d+)(?:/(\d+))? tests? run: (.*)$").expect("valid regex")
});

impl Nextest {
    fn line(&mut self, line: &str) {
        let line = line.trim_start();
        if line.starts_with("Starting ") {
            if let Some(caps) = NEXTEST_STARTING.captures(line) {
                self.starting += 1;
                add(&mut self.starting_tests, number(&caps[1]));
                self.running = true;
            }
        } else if line.starts_with("Summary [") {
            if let Some(caps) = NEXTEST_SUMMARY.captures(line) {
                let finished = number(&caps[1]);
                self.summaries += 1;
                add(&mut self.summary_tests, finished);
                self.running = false;
                // `4/7 tests run`: cancelled before all it selected ran.
                if caps.get(2).is_some_and(|m| number(m.as_str()) > finished) {
                    self.tally.partial = true;
                }
                self.summary(&caps[3]);
            }
        }
    }

    /// `2 passed (1 slow, 1 flaky), 1 failed, 1 exec failed, 1 timed out,
    /// 3 skipped`: the parenthesised notes qualify the passed tests and are
    /// not counted again.
    fn summary(&mut self, text: &str) {
        let mut plain = String::with_capacity(text.len());
        let mut depth = 0usize;
        for c in text.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                c if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        for (n, word) in plain.split(',').filter_map(item) {
            match word {
                "passed" => add(&mut self.tally.passed, n),
                "failed" | "exec failed" | "timed out" => add(&mut self.tally.failed, n),
                "skipped" => add(&mut self.tally.lumped, n),
                _ => {}
            }
        }
    }

    fn verdict(&self) -> (bool, bool) {
        let zero = if self.summaries > 0 {
            self.summary_tests == 0
        } else {
            self.starting > 0 && self.starting_tests == 0
        };
        (zero, self.starting + self.summaries > 0)
    }

    fn tally(&self) -> Option<Tally> {
        (self.summaries > 0).then_some(self.tally)
    }
}

// ---------------------------------------------------------------------------
// go test

/// go test: one line per package (`ok`, `?`, `FAIL`), and with `-v` one
/// `=== RUN` / `--- PASS` per test. `-json` output is read through its
/// `Output` fields, and its test events are counted.
#[derive(Debug, Default)]
struct Go {
    /// Any report line seen.
    reported: bool,
    /// A package report or test line that shows tests ran.
    ran: bool,
    /// A `[no tests to run]` / `[no test files]` package.
    empty: bool,
    /// `testing: warning: no tests to run` seen, not yet matched with its
    /// package's `ok` line (which, run in a package's own directory, lacks
    /// the `[no tests to run]` marker).
    warned: bool,
    /// A per-test line (`=== RUN`, a JSON `run` event): the output shows
    /// every test (`-v`, `-json`), so the counts are known.
    per_test: bool,
    /// A failing test or package (build failures included).
    failing: bool,
    tally: Tally,
}

static GO_OK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ok\s+\S+\s+(?:\d+(?:\.\d+)?s|\(cached\))").expect("valid regex")
});
static GO_NO_TEST_FILES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\?\s+\S+\s+\[no test files\]$").expect("valid regex"));
/// Go 1.22+ with `-cover`: a package without test files.
static GO_COVER_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+\S+\s+coverage: (?:[\d.]+%|\[no statements\])(?: of statements)?$")
        .expect("valid regex")
});

/// One event of `go test -json`.
#[derive(Deserialize)]
struct GoEvent {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Test", default)]
    test: Option<String>,
    #[serde(rename = "Output", default)]
    output: Option<String>,
}

impl Go {
    fn line(&mut self, line: &str) {
        if line.starts_with('{') {
            if line.contains("\"Action\":") {
                self.json(line);
            }
            return;
        }
        self.text(line, true);
    }

    /// A line of go test's text output; `count` is false for the `Output`
    /// of `-json` events, whose tests are counted by their events.
    fn text(&mut self, line: &str, count: bool) {
        // Dispatch on the first byte: most lines are none of these.
        match line.as_bytes().first() {
            Some(b'o') if line.starts_with("ok") && GO_OK.is_match(line) => {
                self.reported = true;
                if line.ends_with("[no tests to run]") || self.warned {
                    self.empty = true;
                } else {
                    self.ran = true;
                }
                self.warned = false;
            }
            Some(b'?') if GO_NO_TEST_FILES.is_match(line) => {
                self.reported = true;
                self.empty = true;
            }
            Some(b'F')
                if line == "FAIL" || line.starts_with("FAIL\t") || line.starts_with("FAIL ") =>
            {
                self.reported = true;
                self.ran = true;
                self.failing = true;
                self.warned = false;
            }
            Some(b't') if line == "testing: warning: no tests to run" => self.warned = true,
            Some(b'=') if line.starts_with("=== RUN ") => {
                self.reported = true;
                self.ran = true;
                self.per_test = true;
            }
            Some(b' ' | b'\t') => {
                let trimmed = line.trim_start();
                if trimmed.starts_with("--- ") {
                    self.test_line(trimmed, count);
                } else if (trimmed.ends_with("statements]") || trimmed.ends_with("of statements"))
                    && GO_COVER_ONLY.is_match(line)
                {
                    self.reported = true;
                    self.empty = true;
                }
            }
            Some(b'-') if line.starts_with("--- ") => self.test_line(line, count),
            _ => {}
        }
    }

    /// `--- PASS: TestX (0.00s)`, `--- FAIL: …`, `--- SKIP: …` (a subtest's
    /// indented).
    fn test_line(&mut self, line: &str, count: bool) {
        let rest = &line[4..];
        let outcome = ["PASS: ", "FAIL: ", "SKIP: "]
            .into_iter()
            .find(|p| rest.starts_with(p));
        if let Some(outcome) = outcome {
            self.reported = true;
            self.ran = true;
            if count {
                self.outcome(&outcome[..4]);
            }
        }
    }

    /// One test's outcome: `PASS`, `FAIL` or `SKIP`.
    fn outcome(&mut self, outcome: &str) {
        match outcome {
            "PASS" => add(&mut self.tally.passed, 1),
            "FAIL" => {
                add(&mut self.tally.failed, 1);
                self.failing = true;
            }
            _ => add(&mut self.tally.skipped, 1),
        }
    }

    fn json(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<GoEvent>(line) else {
            return;
        };
        match (event.action.as_str(), event.test.is_some()) {
            ("output", _) => {
                for inner in event.output.as_deref().unwrap_or("").lines() {
                    let inner = inner.trim_end();
                    // Output never nests JSON; guard against recursion anyway.
                    if !inner.starts_with('{') {
                        self.text(inner, false);
                    }
                }
            }
            ("run", true) => {
                self.reported = true;
                self.per_test = true;
            }
            ("pass", true) => self.outcome("PASS"),
            ("fail", true) => self.outcome("FAIL"),
            ("skip", true) => self.outcome("SKIP"),
            ("fail", false) => self.failing = true,
            _ => {}
        }
    }

    fn verdict(&self) -> (bool, bool) {
        // With every test shown, tests that all skipped ran nothing.
        let all_skipped =
            self.per_test && self.tally.ran() == 0 && self.tally.skipped > 0 && !self.failing;
        ((self.empty && !self.ran) || all_skipped, self.reported)
    }

    fn tally(&self) -> Option<Tally> {
        // `go test -failfast` stops a package at its first failure, and a
        // package that fails to build runs nothing.
        self.per_test.then_some(Tally {
            partial: self.failing,
            ..self.tally
        })
    }
}

// ---------------------------------------------------------------------------
// pytest

/// pytest: the closing `== 3 passed, 1 skipped in 0.12s ==` line (bare
/// with `-q`; absent with `-qq`).
#[derive(Debug, Default)]
struct Pytest {
    summaries: usize,
    tally: Tally,
    /// `!!! stopping after 1 failures !!!` (`-x`, `--maxfail`) or
    /// `!!! Interrupted: … !!!`.
    stopped: bool,
}

static PYTEST_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    const COUNT: &str = r"\d+ (?:[a-z]+ )?(?:passed|failed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun|retried)";
    Regex::new(&format!(
        r"^(?:no tests ran|{COUNT}(?:, {COUNT})*) in \d+(?:\.\d+)?(?:s|\s?seconds)(?: \(\d+:\d\d:\d\d(?:\.\d+)?\))?$"
    ))
    .expect("valid regex")
});

impl Pytest {
    fn line(&mut self, line: &str) {
        if line.starts_with("!!") {
            let text = line.trim_matches(|c| c == '!' || c == ' ');
            if text.starts_with("stopping after ") || text.starts_with("Interrupted:") {
                self.stopped = true;
            }
            return;
        }
        // Cheap filters first: most lines are not summaries.
        if !(line.ends_with('s') || line.ends_with('=') || line.ends_with(')')) {
            return;
        }
        let text = line.trim_matches(|c| c == '=' || c == ' ');
        if !text.contains(" in ") || !text.starts_with(|c: char| c.is_ascii_digit() || c == 'n') {
            return;
        }
        if !PYTEST_SUMMARY.is_match(text) {
            return;
        }
        self.summaries += 1;
        let Some((items, _)) = text.rsplit_once(" in ") else {
            return;
        };
        for (n, words) in items.split(',').filter_map(item) {
            // `N word` or `N qualifier word`: the last word says which.
            match words.rsplit(' ').next().unwrap_or(words) {
                "passed" | "xpassed" => add(&mut self.tally.passed, n),
                "failed" => add(&mut self.tally.failed, n),
                // An xfailed test's failure is expected and not judged.
                "skipped" | "xfailed" => add(&mut self.tally.skipped, n),
                "deselected" => add(&mut self.tally.deselected, n),
                _ => {}
            }
        }
    }

    fn verdict(&self) -> (bool, bool) {
        (
            self.summaries > 0 && self.tally.ran() == 0,
            self.summaries > 0,
        )
    }

    fn tally(&self) -> Option<Tally> {
        (self.summaries > 0).then_some(Tally {
            partial: self.stopped,
            ..self.tally
        })
    }
}

// ---------------------------------------------------------------------------
// node --test

/// node's test runner: the footer its TAP reporter (`# tests 8`, `# pass
/// 5`, …) and its spec reporter (`ℹ tests 8`, …) close the run with.
#[derive(Debug, Default)]
struct Node {
    footers: usize,
    /// The footer being read (its lines come one after the other).
    open: Option<NodeFooter>,
    tally: Tally,
}

#[derive(Debug, Default)]
struct NodeFooter {
    pass: Option<u64>,
    fail: Option<u64>,
    cancelled: u64,
    skipped: u64,
    todo: u64,
}

impl Node {
    fn line(&mut self, line: &str) {
        // `#` or the first byte of `ℹ`: anything else ends a footer.
        if !matches!(line.as_bytes().first(), Some(b'#' | 0xE2)) {
            self.close();
            return;
        }
        let entry = line
            .strip_prefix("# ")
            .or_else(|| line.strip_prefix("ℹ "))
            .and_then(|rest| rest.split_once(' '));
        let Some((key, value)) = entry else {
            self.close();
            return;
        };
        let n = value.parse::<u64>().ok();
        if key == "tests" && n.is_some() {
            self.close();
            self.open = Some(NodeFooter::default());
            return;
        }
        let Some(footer) = self.open.as_mut() else {
            return;
        };
        match (key, n) {
            ("suites", Some(_)) => {}
            ("pass", Some(n)) => footer.pass = Some(n),
            ("fail", Some(n)) => footer.fail = Some(n),
            ("cancelled", Some(n)) => footer.cancelled = n,
            ("skipped", Some(n)) => footer.skipped = n,
            ("todo", Some(n)) => footer.todo = n,
            // `duration_ms` ends the footer; anything else is not one.
            _ => self.close(),
        }
    }

    /// Counts the footer being read, if it had its pass and fail lines.
    fn close(&mut self) {
        let Some(footer) = self.open.take() else {
            return;
        };
        let (Some(pass), Some(fail)) = (footer.pass, footer.fail) else {
            return;
        };
        self.footers += 1;
        let failed = fail.saturating_add(footer.cancelled);
        add(&mut self.tally.passed, pass);
        add(&mut self.tally.failed, failed);
        // A todo test runs, but its failure does not fail the run.
        add(&mut self.tally.skipped, footer.todo);
        add(&mut self.tally.lumped, footer.skipped);
        self.tally.partial |= failed > 0;
    }

    fn verdict(&self) -> (bool, bool) {
        (self.footers > 0 && self.tally.ran() == 0, self.footers > 0)
    }

    fn tally(&self) -> Option<Tally> {
        (self.footers > 0).then_some(self.tally)
    }
}

// ---------------------------------------------------------------------------
// jest

/// jest: `Tests:       1 failed, 2 skipped, 1 todo, 3 passed, 7 total`
/// (on stderr), or `No tests found, exiting with code N`.
#[derive(Debug, Default)]
struct Jest {
    summaries: usize,
    /// `No tests found, exiting with code N` (`--passWithNoTests` makes N 0).
    none_found: bool,
    /// `Test Suites: N failed`: a test file failed (to run, perhaps).
    suites_failed: bool,
    tally: Tally,
}

static JEST_TESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Tests: +((?:\d+ [a-z]+, )*)\d+ total$").expect("valid regex"));

impl Jest {
    fn line(&mut self, line: &str) {
        if !matches!(line.as_bytes().first(), Some(b'T' | b'N')) {
            return;
        }
        if line.starts_with("Tests:") {
            let Some(caps) = JEST_TESTS.captures(line) else {
                return;
            };
            self.summaries += 1;
            for (n, word) in caps[1].split(',').filter_map(item) {
                match word {
                    "passed" => add(&mut self.tally.passed, n),
                    "failed" => add(&mut self.tally.failed, n),
                    "todo" => add(&mut self.tally.skipped, n),
                    "skipped" => add(&mut self.tally.lumped, n),
                    _ => {}
                }
            }
        } else if let Some(rest) = line.strip_prefix("Test Suites: ") {
            if item(rest.split(',').next().unwrap_or(""))
                .is_some_and(|(n, word)| word == "failed" && n > 0)
            {
                self.suites_failed = true;
            }
        } else if line.starts_with("No tests found, exiting with code ") {
            self.none_found = true;
        }
    }

    fn verdict(&self) -> (bool, bool) {
        let reported = self.summaries > 0 || self.none_found;
        (reported && self.tally.ran() == 0, reported)
    }

    fn tally(&self) -> Option<Tally> {
        // `--bail` stops at the first failing test file.
        (self.summaries > 0).then_some(Tally {
            partial: self.tally.failed > 0 || self.suites_failed,
            ..self.tally
        })
    }
}

// ---------------------------------------------------------------------------
// vitest

/// vitest: `      Tests  1 failed | 3 passed | 2 skipped | 1 todo (7)`
/// (`Tests  no tests` when there were none), or `No test files found,
/// exiting with code N`.
#[derive(Debug, Default)]
struct Vitest {
    summaries: usize,
    /// `No test files found, exiting with code N` (`--passWithNoTests`
    /// makes N 0).
    none_found: bool,
    /// `Test Files  N failed | …`: a test file failed (to run, perhaps).
    files_failed: bool,
    tally: Tally,
}

static VITEST_TESTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Tests {2,}(?:no tests|(\d+ [a-z ]+(?: \| \d+ [a-z ]+)*?)(?: \(\d+\))?)$")
        .expect("valid regex")
});

impl Vitest {
    fn line(&mut self, line: &str) {
        let line = line.trim_start_matches(' ');
        if !(line.starts_with("Test") || line.starts_with("No test files found")) {
            return;
        }
        if let Some(caps) = VITEST_TESTS.captures(line) {
            self.summaries += 1;
            let items = caps.get(1).map_or("", |m| m.as_str());
            for (n, word) in items.split('|').filter_map(item) {
                match word {
                    "passed" => add(&mut self.tally.passed, n),
                    "failed" => add(&mut self.tally.failed, n),
                    "todo" => add(&mut self.tally.skipped, n),
                    "skipped" => add(&mut self.tally.lumped, n),
                    _ => {}
                }
            }
        } else if let Some(rest) = line.strip_prefix("Test Files  ") {
            if item(rest.split('|').next().unwrap_or(""))
                .is_some_and(|(n, word)| word == "failed" && n > 0)
            {
                self.files_failed = true;
            }
        } else if line.starts_with("No test files found, exiting with code ") {
            self.none_found = true;
        }
    }

    fn verdict(&self) -> (bool, bool) {
        let reported = self.summaries > 0 || self.none_found;
        (reported && self.tally.ran() == 0, reported)
    }

    fn tally(&self) -> Option<Tally> {
        // `--bail` stops at the first failures.
        (self.summaries > 0).then_some(Tally {
            partial: self.tally.failed > 0 || self.files_failed,
            ..self.tally
        })
    }
}
