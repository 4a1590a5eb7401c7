//! Test runners that ran nothing: a `[shell:]` hint whose output shows a
//! runner ran zero tests proves nothing, whatever its exit code, and a
//! runner the command starts that prints no report line at all cannot be
//! trusted either.
//!
//! The judgement reads the whole, untruncated output (stdout and stderr),
//! once, line by line, and the command (through [`crate::shell`]) only to
//! learn which runners it visibly starts:
//!
//! | runner | report lines | zero tests |
//! | --- | --- | --- |
//! | `cargo test` (libtest, libtest-mimic) | `running N tests`, `test result: …` | the `running` counts add up to 0 |
//! | `cargo nextest run` | `Starting N tests across …`, `Summary […] N tests run: …` | N is 0 |
//! | `go test` | `ok`, `?`, `FAIL`, `--- PASS`, `=== RUN` | only `[no tests to run]` / `[no test files]` packages |
//! | `pytest` | `== 3 passed in 0.1s ==`, `3 passed in 0.1s` (`-q`) | no `passed` or `failed` count |
//!
//! Zero-test evidence counts whoever printed it (`make test` that runs
//! `cargo test` still shows `running 0 tests`); silence counts only for a
//! runner the command itself starts.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use super::Reason;
use crate::shell::{all_simples, basename};

/// Judges a finished `[shell:]` command's whole (untruncated) output for
/// test runners that ran zero tests or printed no report. `None` means
/// nothing to object to.
///
/// Objections come in runner order — cargo test, cargo nextest, go test,
/// pytest — and the first one wins: [`Reason::ZeroTests`] when the output
/// shows that runner ran zero tests (whether or not the command visibly
/// starts it), else [`Reason::RunnerSilent`] when the command starts it and
/// the output holds none of its report lines.
///
/// A runner that never got to run its tests (a compile error, a missing
/// interpreter) is also silent; such a command exits non-zero, and the
/// caller should report [`Reason::ExitCode`] in preference to anything
/// this returns.
pub(crate) fn judge(command: &str, stdout: &str, stderr: &str) -> Option<Reason> {
    let started = started_runners(command);
    let mut scan = Scan::default();
    for line in stdout.lines().chain(stderr.lines()) {
        scan.line(&strip_ansi(line));
    }
    for runner in Runner::ALL {
        let (zero, reported) = scan.verdict(runner);
        if zero {
            return Some(Reason::ZeroTests {
                runner: runner.name().to_string(),
            });
        }
        if started[runner as usize] && !reported {
            return Some(Reason::RunnerSilent {
                runner: runner.name().to_string(),
            });
        }
    }
    None
}

/// The runners zurdo reads, in the order their objections are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runner {
    Cargo,
    Nextest,
    Go,
    Pytest,
}

impl Runner {
    const ALL: [Runner; 4] = [Runner::Cargo, Runner::Nextest, Runner::Go, Runner::Pytest];

    fn name(self) -> &'static str {
        match self {
            Runner::Cargo => "cargo test",
            Runner::Nextest => "cargo nextest",
            Runner::Go => "go test",
            Runner::Pytest => "pytest",
        }
    }
}

// ---------------------------------------------------------------------------
// Which runners the command starts.

/// For each [`Runner`] (by discriminant), whether some simple command of
/// `command`, `sh -c '…'` bodies included, starts it.
fn started_runners(command: &str) -> [bool; 4] {
    let mut started = [false; 4];
    for simple in all_simples(command) {
        if let Some(runner) = runner_of(&simple.argv()) {
            started[runner as usize] = true;
        }
    }
    started
}

/// The runner an argv (wrappers such as `env` and `timeout` already
/// removed) starts, if it is one zurdo reads and it will run tests (not
/// `--help`, `cargo test --no-run`, `go test -c`, `pytest --collect-only`…).
fn runner_of(argv: &[&str]) -> Option<Runner> {
    let (program, args) = argv.split_first()?;
    match basename(program) {
        "cargo" => cargo_runner(args),
        "go" => go_test_runs(args).then_some(Runner::Go),
        "pytest" | "py.test" => pytest_runs(args).then_some(Runner::Pytest),
        "coverage" => {
            // coverage run [options] -m pytest …
            let (sub, rest) = args.split_first()?;
            (*sub == "run")
                .then(|| module_args(rest, "pytest"))
                .flatten()
                .filter(|rest| pytest_runs(rest))
                .map(|_| Runner::Pytest)
        }
        // uv run, poetry run, …: the command after the wrapper's options.
        "uv" | "poetry" | "pdm" | "pipenv" | "hatch" | "rye" => {
            let (sub, rest) = args.split_first()?;
            (*sub == "run").then(|| runner_of(skip_wrapper_options(rest)))?
        }
        "uvx" | "pipx" => {
            let rest = match args.split_first() {
                Some((&"run", rest)) if basename(program) == "pipx" => rest,
                _ => args,
            };
            runner_of(skip_wrapper_options(rest))
        }
        name if is_python(name) => python_runner(args),
        _ => None,
    }
}

/// `cargo [+toolchain] [global options] test …` or `… nextest run …`.
fn cargo_runner(args: &[&str]) -> Option<Runner> {
    let mut i = usize::from(args.first().is_some_and(|a| a.starts_with('+')));
    while let Some(arg) = args.get(i) {
        match *arg {
            "-C" | "--config" | "-Z" | "--color" | "--explain" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let (sub, rest) = args.get(i..)?.split_first()?;
    let options = before_double_dash(rest);
    match *sub {
        "test" | "t" => {
            let no_run = options.iter().any(|a| matches!(*a, "--no-run" | "-h" | "--help"))
                || rest.iter().any(|a| matches!(*a, "--list" | "--help"));
            (!no_run).then_some(Runner::Cargo)
        }
        "nextest" => {
            const SUBCOMMANDS: [&str; 8] = [
                "run", "r", "list", "archive", "show-config", "self", "debug", "store",
            ];
            let sub = options.iter().find(|a| SUBCOMMANDS.contains(a))?;
            let help = options.iter().any(|a| matches!(*a, "-h" | "--help" | "--no-run"));
            (matches!(*sub, "run" | "r") && !help).then_some(Runner::Nextest)
        }
        _ => None,
    }
}

/// `go [-C dir] test …`, unless it only builds (`-c`), lists or helps.
fn go_test_runs(args: &[&str]) -> bool {
    let args = match args {
        ["-C", _, rest @ ..] => rest,
        [c, rest @ ..] if c.starts_with("-C=") => rest,
        _ => args,
    };
    let Some((&"test", rest)) = args.split_first() else {
        return false;
    };
    // Everything after -args goes to the test binary.
    let flags = rest.split(|a| *a == "-args" || *a == "--args").next().unwrap_or(&[]);
    !flags.iter().any(|a| {
        let name = a.trim_start_matches('-');
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        a.starts_with('-') && matches!(name, "c" | "h" | "help" | "list")
    })
}

/// pytest's arguments: anything but help, version and collection-only runs.
fn pytest_runs(args: &[&str]) -> bool {
    const NOT_A_RUN: [&str; 9] = [
        "-h",
        "--help",
        "-V",
        "--version",
        "--co",
        "--collect-only",
        "--collectonly",
        "--fixtures",
        "--markers",
    ];
    !before_double_dash(args).iter().any(|a| NOT_A_RUN.contains(a))
}

/// `python [options] -m pytest …`.
fn python_runner(args: &[&str]) -> Option<Runner> {
    module_args(args, "pytest")
        .filter(|rest| pytest_runs(rest))
        .map(|_| Runner::Pytest)
}

/// When `args` (an interpreter's, or `coverage run`'s) run `-m module`, the
/// arguments that follow it.
fn module_args<'a, 'b>(args: &'a [&'b str], module: &str) -> Option<&'a [&'b str]> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        match *arg {
            "-m" => return (args.get(i) == Some(&module)).then(|| &args[i + 1..]),
            a if a.strip_prefix("-m") == Some(module) => return Some(&args[i..]),
            // Options that take a value; -c runs a string, not a module.
            "-W" | "-X" | "--rcfile" | "--source" | "--include" | "--omit" | "--data-file"
            | "--context" | "--concurrency" => i += 1,
            "-c" => return None,
            a if a.starts_with('-') => {}
            _ => return None, // a script
        }
    }
    None
}

/// The command after a wrapper's (`uv run`, `poetry run`, …) options.
fn skip_wrapper_options<'a, 'b>(args: &'a [&'b str]) -> &'a [&'b str] {
    const WITH_VALUE: [&str; 15] = [
        "--with",
        "--with-requirements",
        "--with-editable",
        "--python",
        "-p",
        "--extra",
        "--group",
        "--only-group",
        "--env-file",
        "--directory",
        "--project",
        "--package",
        "--index",
        "--from",
        "-e",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if *arg == "--" {
            return &args[i + 1..];
        }
        if WITH_VALUE.contains(arg) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    args.get(i..).unwrap_or(&[])
}

/// `python`, `python3`, `python3.12`, `pypy3`.
fn is_python(name: &str) -> bool {
    ["python", "pypy"].iter().any(|stem| {
        name.strip_prefix(stem)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    })
}

fn before_double_dash<'a, 'b>(args: &'a [&'b str]) -> &'a [&'b str] {
    let end = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    &args[..end]
}

// ---------------------------------------------------------------------------
// What the output shows.

/// What one pass over the output learnt about each runner.
#[derive(Debug, Default)]
struct Scan {
    libtest: Libtest,
    nextest: Nextest,
    go: Go,
    pytest: Pytest,
}

impl Scan {
    fn line(&mut self, line: &str) {
        let line = line.trim_end();
        self.libtest.line(line);
        self.nextest.line(line);
        self.go.line(line);
        self.pytest.line(line);
    }

    /// Whether the output shows `runner` ran zero tests, and whether it
    /// shows any of its report lines.
    fn verdict(&self, runner: Runner) -> (bool, bool) {
        match runner {
            Runner::Cargo => self.libtest.verdict(),
            Runner::Nextest => self.nextest.verdict(),
            Runner::Go => self.go.verdict(),
            Runner::Pytest => self.pytest.verdict(),
        }
    }
}

/// libtest (and libtest-mimic): one `running N tests` line per test binary
/// and per doc-test run, each closed by a `test result:` line.
#[derive(Debug, Default)]
struct Libtest {
    /// `running N tests` lines (and JSON `suite started` events) seen.
    running: usize,
    /// Their N, added up.
    tests: u64,
    /// `test result:` lines seen.
    results: usize,
    /// Their passed + failed + ignored + measured, added up.
    result_tests: u64,
}

static LIBTEST_JSON_STARTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\{\s*"type":\s*"suite",\s*"event":\s*"started",\s*"test_count":\s*(\d+)"#)
        .expect("valid regex")
});
static LIBTEST_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured;")
        .expect("valid regex")
});

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
                self.running += 1;
                self.tests = self.tests.saturating_add(n);
            }
        } else if line.starts_with("test result: ") {
            if let Some(caps) = LIBTEST_RESULT.captures(line) {
                self.results += 1;
                let n = (1..=4)
                    .filter_map(|i| caps[i].parse::<u64>().ok())
                    .fold(0u64, u64::saturating_add);
                self.result_tests = self.result_tests.saturating_add(n);
            }
        } else if line.starts_with('{') && line.contains("\"suite\"") {
            if let Some(n) = LIBTEST_JSON_STARTED
                .captures(line)
                .and_then(|c| c[1].parse::<u64>().ok())
            {
                self.running += 1;
                self.tests = self.tests.saturating_add(n);
            }
        }
    }

    fn verdict(&self) -> (bool, bool) {
        // The `running` lines are the evidence; `test result:` lines stand
        // in for them only when a filter (`| tail -3`) dropped them all.
        let zero = if self.running > 0 {
            self.tests == 0
        } else {
            self.results > 0 && self.result_tests == 0
        };
        (zero, self.running + self.results > 0)
    }
}

/// cargo-nextest: `Starting N tests across M binaries` when the run
/// starts, `Summary [time] N tests run: …` when it ends.
#[derive(Debug, Default)]
struct Nextest {
    starting: usize,
    starting_tests: u64,
    summaries: usize,
    summary_tests: u64,
}

static NEXTEST_STARTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Starting (\d+) tests? across \d+ binar(?:y|ies)").expect("valid regex")
});
static NEXTEST_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Summary \[[^\]]*\] (\d+)(?:/\d+)? tests? run:").expect("valid regex")
});

impl Nextest {
    fn line(&mut self, line: &str) {
        let line = line.trim_start();
        let (re, seen, tests) = if line.starts_with("Starting ") {
            (&NEXTEST_STARTING, &mut self.starting, &mut self.starting_tests)
        } else if line.starts_with("Summary [") {
            (&NEXTEST_SUMMARY, &mut self.summaries, &mut self.summary_tests)
        } else {
            return;
        };
        if let Some(n) = re.captures(line).and_then(|c| c[1].parse::<u64>().ok()) {
            *seen += 1;
            *tests = tests.saturating_add(n);
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
}

/// go test: one line per package (`ok`, `?`, `FAIL`), and with `-v` one
/// `=== RUN` / `--- PASS` per test. `-json` output is read through its
/// `Output` fields.
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
        if line.starts_with("ok") {
            if GO_OK.is_match(line) {
                self.reported = true;
                if line.ends_with("[no tests to run]") || self.warned {
                    self.empty = true;
                } else {
                    self.ran = true;
                }
                self.warned = false;
            }
        } else if line.starts_with('?') {
            if GO_NO_TEST_FILES.is_match(line) {
                self.reported = true;
                self.empty = true;
            }
        } else if line == "FAIL" || line.starts_with("FAIL\t") || line.starts_with("FAIL ") {
            self.reported = true;
            self.ran = true;
            self.warned = false;
        } else if line == "testing: warning: no tests to run" {
            self.warned = true;
        } else if line.starts_with("=== RUN ") {
            self.reported = true;
            self.ran = true;
        } else if line.starts_with([' ', '\t']) {
            let trimmed = line.trim_start();
            if trimmed.starts_with("--- ") {
                self.test_line(trimmed);
            } else if trimmed.ends_with("statements]") || trimmed.ends_with("of statements") {
                if GO_COVER_ONLY.is_match(line) {
                    self.reported = true;
                    self.empty = true;
                }
            }
        } else if line.starts_with("--- ") {
            self.test_line(line);
        }
    }

    /// `--- PASS: TestX (0.00s)`, `--- FAIL: …`, `--- SKIP: …`.
    fn test_line(&mut self, line: &str) {
        let rest = &line[4..];
        if ["PASS: ", "FAIL: ", "SKIP: "].iter().any(|p| rest.starts_with(p)) {
            self.reported = true;
            self.ran = true;
        }
    }

    fn json(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<GoEvent>(line) else {
            return;
        };
        if event.action != "output" {
            return;
        }
        if let Some(output) = event.output {
            for inner in output.lines() {
                let inner = inner.trim_end();
                // Output never nests JSON; guard against recursion anyway.
                if !inner.starts_with('{') {
                    self.line(inner);
                }
            }
        }
    }

    fn verdict(&self) -> (bool, bool) {
        (self.empty && !self.ran, self.reported)
    }
}

/// pytest: the closing `== 3 passed, 1 skipped in 0.12s ==` line (bare
/// with `-q`; absent with `-qq`).
#[derive(Debug, Default)]
struct Pytest {
    summaries: usize,
    /// A summary with a passed or failed count (`xpassed` and `xfailed`
    /// count: those tests ran).
    ran: bool,
}

static PYTEST_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    const COUNT: &str = r"\d+ (?:[a-z]+ )?(?:passed|failed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun|retried)";
    Regex::new(&format!(
        r"^(?:no tests ran|{COUNT}(?:, {COUNT})*) in \d+(?:\.\d+)?(?:s|\s?seconds)(?: \(\d+:\d\d:\d\d(?:\.\d+)?\))?$"
    ))
    .expect("valid regex")
});
static PYTEST_RAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|, )\d+ (?:[a-z]+ )?x?(?:passed|failed)\b").expect("valid regex")
});

impl Pytest {
    fn line(&mut self, line: &str) {
        // Cheap filters first: most lines are not summaries.
        if !(line.ends_with('s') || line.ends_with('=') || line.ends_with(')')) {
            return;
        }
        let text = line.trim_matches(|c| c == '=' || c == ' ');
        if !text.contains(" in ") || !text.starts_with(|c: char| c.is_ascii_digit() || c == 'n') {
            return;
        }
        if PYTEST_SUMMARY.is_match(text) {
            self.summaries += 1;
            if PYTEST_RAN.is_match(text) {
                self.ran = true;
            }
        }
    }

    fn verdict(&self) -> (bool, bool) {
        (self.summaries > 0 && !self.ran, self.summaries > 0)
    }
}

/// `line` without terminal escape sequences (colours), borrowed when it
/// has none.
fn strip_ansi(line: &str) -> Cow<'_, str> {
    if !line.contains('\x1b') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}
