//! Test runners that ran nothing: a `[shell:]` hint whose output shows a
//! runner ran zero tests proves nothing, whatever its exit code, and a
//! runner the command starts that prints no report line at all cannot be
//! trusted either.
//!
//! The judgement reads the whole output (stdout and stderr) once, line by
//! line as it arrives ([`Judge`], fed by the run while it reads the pipes,
//! so the bounded copy kept as evidence can cut the middle without losing
//! a line this relies on), and the command (through [`crate::shell`]) only
//! to learn which runners it visibly starts:
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

use std::sync::LazyLock;
use zurdo_base::text::strip_ansi;

use regex::Regex;
use serde::Deserialize;

use super::Reason;
use crate::exec::Stream;
use crate::shell::{all_simples, basename};

/// Judges a finished `[shell:]` command's whole output for test runners
/// that ran zero tests or printed no report: [`Judge`] fed all of stdout,
/// then all of stderr. `None` means nothing to object to.
#[cfg(test)]
pub(crate) fn judge(command: &str, stdout: &str, stderr: &str) -> Option<Reason> {
    let mut judge = Judge::new(command);
    judge.feed(Stream::Stdout, stdout.as_bytes());
    judge.end(Stream::Stdout);
    judge.feed(Stream::Stderr, stderr.as_bytes());
    judge.finish()
}

/// The longest line read whole; the rest of a longer line is not read
/// (every report line is short; a line of megabytes is not one).
pub(crate) const LINE_LIMIT: usize = 64 * 1024;

/// The zero-test judgement of one `[shell:]` command, fed its output as it
/// arrives: each line of stdout and stderr is read once, in the order it
/// comes, and forgotten, so memory stays bounded whatever the command
/// prints.
#[derive(Debug)]
pub(crate) struct Judge<'a> {
    command: &'a str,
    scan: Scan,
    /// The unfinished last line of stdout and of stderr.
    partial: [Vec<u8>; 2],
}

impl<'a> Judge<'a> {
    /// A judgement of `command`'s output.
    pub(crate) fn new(command: &'a str) -> Judge<'a> {
        Judge {
            command,
            scan: Scan::default(),
            partial: [Vec::new(), Vec::new()],
        }
    }

    /// Reads a chunk of `stream`.
    pub(crate) fn feed(&mut self, stream: Stream, chunk: &[u8]) {
        let at = stream as usize;
        for piece in chunk.split_inclusive(|&b| b == b'\n') {
            let (text, done) = match piece.strip_suffix(b"\n") {
                Some(text) => (text, true),
                None => (piece, false),
            };
            if done && self.partial[at].is_empty() {
                // A whole line within the chunk: read in place.
                Self::read_line(&mut self.scan, &text[..text.len().min(LINE_LIMIT)]);
                continue;
            }
            let room = LINE_LIMIT.saturating_sub(self.partial[at].len());
            self.partial[at].extend_from_slice(&text[..text.len().min(room)]);
            if done {
                self.end(stream);
            }
        }
    }

    /// Reads what is left of `stream`'s last line (the stream ended).
    pub(crate) fn end(&mut self, stream: Stream) {
        let partial = &mut self.partial[stream as usize];
        if !partial.is_empty() {
            Self::read_line(&mut self.scan, partial);
            partial.clear();
        }
    }

    /// Scans one line (without its `\n`; a `\r` before it is dropped, and
    /// terminal escapes are removed).
    fn read_line(scan: &mut Scan, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        scan.line(&strip_ansi(&String::from_utf8_lossy(line)));
    }

    /// The objection, once the output has ended. Objections come in runner
    /// order — cargo test, cargo nextest, go test, pytest — and the first
    /// one wins: [`Reason::ZeroTests`] when the output shows that runner
    /// ran zero tests (whether or not the command visibly starts it), else
    /// [`Reason::RunnerSilent`] when the command starts it and the output
    /// holds none of its report lines.
    ///
    /// A runner that never got to run its tests (a compile error, a missing
    /// interpreter) is also silent; such a command exits non-zero, and the
    /// caller should report [`Reason::ExitCode`] in preference to anything
    /// this returns.
    pub(crate) fn finish(mut self) -> Option<Reason> {
        self.end(Stream::Stdout);
        self.end(Stream::Stderr);
        let started = started_runners(self.command);
        for runner in Runner::ALL {
            let (zero, reported) = self.scan.verdict(runner);
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
        "uv" | "poetry" | "pdm" | "pipenv" | "hatch" | "rye" | "pipx" => match args.split_first() {
            Some((&"run", rest)) => runner_of(skip_wrapper_options(rest)),
            _ => None,
        },
        "uvx" => runner_of(skip_wrapper_options(args)),
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
            let no_run = options
                .iter()
                .any(|a| matches!(*a, "--no-run" | "-h" | "--help"))
                || rest.iter().any(|a| matches!(*a, "--list" | "--help"));
            (!no_run).then_some(Runner::Cargo)
        }
        "nextest" => {
            const SUBCOMMANDS: [&str; 8] = [
                "run",
                "r",
                "list",
                "archive",
                "show-config",
                "self",
                "debug",
                "store",
            ];
            let sub = options.iter().find(|a| SUBCOMMANDS.contains(a))?;
            let help = options
                .iter()
                .any(|a| matches!(*a, "-h" | "--help" | "--no-run"));
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
    let flags = rest
        .split(|a| *a == "-args" || *a == "--args")
        .next()
        .unwrap_or(&[]);
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
    !before_double_dash(args)
        .iter()
        .any(|a| NOT_A_RUN.contains(a))
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
            (
                &NEXTEST_STARTING,
                &mut self.starting,
                &mut self.starting_tests,
            )
        } else if line.starts_with("Summary [") {
            (
                &NEXTEST_SUMMARY,
                &mut self.summaries,
                &mut self.summary_tests,
            )
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
            } else if (trimmed.ends_with("statements]") || trimmed.ends_with("of statements"))
                && GO_COVER_ONLY.is_match(line)
            {
                self.reported = true;
                self.empty = true;
            }
        } else if line.starts_with("--- ") {
            self.test_line(line);
        }
    }

    /// `--- PASS: TestX (0.00s)`, `--- FAIL: …`, `--- SKIP: …`.
    fn test_line(&mut self, line: &str) {
        let rest = &line[4..];
        if ["PASS: ", "FAIL: ", "SKIP: "]
            .iter()
            .any(|p| rest.starts_with(p))
        {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn zero(runner: &str) -> Option<Reason> {
        Some(Reason::ZeroTests {
            runner: runner.into(),
        })
    }

    fn silent(runner: &str) -> Option<Reason> {
        Some(Reason::RunnerSilent {
            runner: runner.into(),
        })
    }

    fn runner(command: &str) -> Option<&'static str> {
        let started = started_runners(command);
        Runner::ALL
            .into_iter()
            .find(|r| started[*r as usize])
            .map(Runner::name)
    }

    // --- cargo test (cargo 1.95) -------------------------------------------

    const CARGO_STDERR: &str = "   Compiling demo v0.1.0 (/tmp/rt/demo)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.41s
     Running unittests src/lib.rs (/tmp/rt/target/debug/deps/demo-8348ca7a80742723)
     Running tests/empty.rs (/tmp/rt/target/debug/deps/empty-f7378dd70a3ded9c)
   Doc-tests demo
";

    /// Three test binaries (lib, an empty integration test, doc-tests).
    const CARGO_STDOUT_5_0_1: &str = "
running 5 tests
test tests::three ... ignored
test tests::four ... ok
test tests::five ... ok
test tests::one ... ok
test tests::two ... ok

test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

all doctests ran in 0.29s; merged doctests compilation took 0.29s
";

    const CARGO_STDOUT_ALL_ZERO: &str = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

";

    #[test]
    fn cargo_test_that_ran_zero_tests_fails() {
        assert_eq!(
            judge("cargo test", CARGO_STDOUT_ALL_ZERO, CARGO_STDERR),
            zero("cargo test")
        );
    }

    #[test]
    fn cargo_test_binaries_add_up_zero_plus_five_passes() {
        assert_eq!(judge("cargo test", CARGO_STDOUT_5_0_1, CARGO_STDERR), None);
        let stdout = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 5 tests
test parses_empty ... ok
test parses_tasks ... ok
test rejects_bad_ids ... ok
test keeps_order ... ok
test round_trips ... ok

test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

";
        assert_eq!(judge("cargo test --workspace", stdout, CARGO_STDERR), None);
    }

    #[test]
    fn doc_tests_only_with_zero_tests_fails() {
        let stderr = "   Compiling demo v0.1.0 (/tmp/rt/demo)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.10s
   Doc-tests demo
";
        let stdout = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

";
        assert_eq!(
            judge("cargo test --doc", stdout, stderr),
            zero("cargo test")
        );
    }

    #[test]
    fn a_filter_matching_nothing_fails() {
        // `cargo test nomatch 2>&1`: both streams in one.
        let merged = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.01s
     Running unittests src/lib.rs (/tmp/rt/target/debug/deps/demo-8348ca7a80742723)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 5 filtered out; finished in 0.00s

     Running tests/empty.rs (/tmp/rt/target/debug/deps/empty-f7378dd70a3ded9c)

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

";
        assert_eq!(
            judge("cargo test nomatch 2>&1", merged, ""),
            zero("cargo test")
        );
    }

    #[test]
    fn quiet_cargo_test_still_reports() {
        let stdout = "
running 3 tests
i..
test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 1 test
.
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

all doctests ran in 0.32s; merged doctests compilation took 0.31s
";
        assert_eq!(judge("cargo test -q", stdout, ""), None);
        assert_eq!(judge("cargo test --quiet", stdout, ""), None);
        let stdout = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.00s

";
        assert_eq!(
            judge("cargo test -q nomatch", stdout, ""),
            zero("cargo test")
        );
    }

    #[test]
    fn a_silent_cargo_test_fails() {
        assert_eq!(
            judge("cargo test 2>/dev/null | grep -c x", "0\n", ""),
            silent("cargo test")
        );
        assert_eq!(
            judge("cargo test >/dev/null 2>&1", "", ""),
            silent("cargo test")
        );
    }

    #[test]
    fn a_compile_failure_is_silent_and_left_to_the_exit_code() {
        let stderr = "   Compiling demo v0.1.0 (/tmp/rt/demo)
error[E0308]: mismatched types
  --> src/lib.rs:13:23
   |
13 | fn x() { let a: u32 = \"s\"; }
   |                 ---   ^^^ expected `u32`, found `&str`
   |                 |
   |                 expected due to this

For more information about this error, try `rustc --explain E0308`.
error: could not compile `demo` (lib test) due to 1 previous error
warning: build failed, waiting for other jobs to finish...
error: could not compile `demo` (lib) due to 1 previous error
";
        assert_eq!(judge("cargo test", "", stderr), silent("cargo test"));
    }

    #[test]
    fn test_result_lines_stand_in_when_a_filter_drops_running_lines() {
        let tail = "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n";
        assert_eq!(judge("cargo test 2>&1 | tail -2", tail, ""), None);
        let tail = "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 5 filtered out; finished in 0.00s\n\n";
        assert_eq!(
            judge("cargo test nomatch 2>&1 | tail -2", tail, ""),
            zero("cargo test")
        );
    }

    #[test]
    fn a_failing_cargo_test_ran_tests() {
        let stdout = "
running 3 tests
test tests::three ... ignored
test tests::one ... ok
test tests::two ... FAILED

failures:

---- tests::two stdout ----

thread 'tests::two' (30850) panicked at src/lib.rs:10:24:
assertion `left == right` failed
  left: 1
 right: 2
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::two

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.08s

";
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.16s
     Running unittests src/lib.rs (/tmp/rt/target/debug/deps/demo-8348ca7a80742723)
error: test failed, to rerun pass `--lib`
";
        assert_eq!(judge("cargo test --lib", stdout, stderr), None);
    }

    #[test]
    fn a_libtest_mimic_harness_is_read_like_libtest() {
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.05s
     Running tests/prd.rs (target/debug/deps/prd-1f0c8a3b5e2d7a94)
";
        let stdout = "
running 3 tests
test check_toph        ... ok
test check_katara      ... ok
test long_computation  ... ignored

test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

";
        assert_eq!(judge("cargo test --test prd", stdout, stderr), None);
        let stdout = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.00s

";
        assert_eq!(
            judge("cargo test --test prd -- nomatch", stdout, stderr),
            zero("cargo test")
        );
    }

    #[test]
    fn libtest_json_suite_events_count() {
        let stdout = r#"{ "type": "suite", "event": "started", "test_count": 0 }
{ "type": "suite", "event": "ok", "passed": 0, "failed": 0, "ignored": 0, "measured": 0, "filtered_out": 2, "exec_time": 0.000120 }
"#;
        assert_eq!(
            judge(
                "cargo +nightly test -- -Z unstable-options --format json",
                stdout,
                ""
            ),
            zero("cargo test")
        );
    }

    // --- cargo nextest (0.9) ------------------------------------------------

    #[test]
    fn nextest_with_zero_tests_fails() {
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.01s
────────────
 Nextest run ID dce4e3d9-dbb8-4772-8772-8b9c1a53fb47 with nextest profile: default
    Starting 0 tests across 2 binaries (3 tests skipped)
────────────
     Summary [   0.000s] 0 tests run: 0 passed, 3 skipped
error: no tests to run
(hint: use `--no-tests` to customize)
";
        assert_eq!(
            judge("cargo nextest run nomatch", "", stderr),
            zero("cargo nextest")
        );
        let warned = stderr
            .replace("error: no tests to run", "warning: no tests to run")
            .replace("(hint: use `--no-tests` to customize)\n", "");
        assert_eq!(
            judge("cargo nextest run --no-tests=warn nomatch", "", &warned),
            zero("cargo nextest")
        );
    }

    #[test]
    fn nextest_that_ran_tests_passes() {
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.01s
────────────
 Nextest run ID bb8f2d52-9196-4853-ac90-454ab967386c with nextest profile: default
    Starting 2 tests across 2 binaries (1 test skipped)
        PASS [   0.005s] (1/2) demo tests::one
        PASS [   0.006s] (2/2) demo tests::two
────────────
     Summary [   0.006s] 2 tests run: 2 passed, 1 skipped
";
        assert_eq!(judge("cargo nextest run", "", stderr), None);
        assert_eq!(judge("cargo nextest r --workspace", "", stderr), None);
    }

    #[test]
    fn a_failing_nextest_run_ran_tests_and_its_captured_output_is_not_libtest() {
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.12s
────────────
 Nextest run ID cc2e96da-b32a-427b-9354-990b9df7d07f with nextest profile: default
    Starting 1 test across 2 binaries (2 tests skipped)
        FAIL [   0.081s] (1/1) demo tests::two
  stdout ───

    running 0 tests

    test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out; finished in 0.07s

  stderr ───

    thread 'tests::two' (30909) panicked at src/lib.rs:10:24:
    explicit panic

  Cancelling due to test failure: 
────────────
     Summary [   0.082s] 1 test run: 0 passed, 1 failed, 2 skipped
        FAIL [   0.081s] (1/1) demo tests::two
error: test run failed
";
        assert_eq!(judge("cargo nextest run", "", stderr), None);
    }

    #[test]
    fn a_silent_nextest_fails() {
        assert_eq!(
            judge("cargo nextest run 2>/dev/null", "", ""),
            silent("cargo nextest")
        );
        assert_eq!(judge("cargo nextest list", "", ""), None);
    }

    // --- go test (go 1.2x) --------------------------------------------------

    #[test]
    fn go_test_with_no_tests_to_run_fails() {
        let stdout = "ok  \texample.com/demo/calc\t0.002s [no tests to run]\n\
                      ?   \texample.com/demo/cmd/tool\t[no test files]\n\
                      ok  \texample.com/demo/empty\t0.002s [no tests to run]\n";
        assert_eq!(
            judge("go test -count=1 -run Nope ./...", stdout, ""),
            zero("go test")
        );
        let cached = "ok  \texample.com/demo/calc\t(cached) [no tests to run]\n";
        assert_eq!(
            judge("go test -run Nope ./calc", cached, ""),
            zero("go test")
        );
    }

    #[test]
    fn go_test_with_only_packages_without_tests_fails() {
        let stdout = "?   \texample.com/demo/cmd/tool\t[no test files]\n";
        assert_eq!(judge("go test ./cmd/...", stdout, ""), zero("go test"));
        // Go 1.22+ under -cover prints a coverage line instead.
        let stdout = "\texample.com/demo/cmd/tool\t\tcoverage: 0.0% of statements\n";
        assert_eq!(
            judge("go test -cover ./cmd/...", stdout, ""),
            zero("go test")
        );
    }

    #[test]
    fn go_test_where_a_package_ran_tests_passes() {
        let stdout = "ok  \texample.com/demo/calc\t0.002s\n\
                      ?   \texample.com/demo/cmd/tool\t[no test files]\n\
                      ok  \texample.com/demo/empty\t0.003s [no tests to run]\n";
        assert_eq!(judge("go test ./...", stdout, ""), None);
        let cover = "ok  \texample.com/demo/calc\t0.004s\tcoverage: 100.0% of statements\n\
                     ?   \texample.com/demo/cmd/tool\t[no test files]\n\
                     ok  \texample.com/demo/empty\t0.002s\tcoverage: [no statements] [no tests to run]\n";
        assert_eq!(judge("go test -cover ./...", cover, ""), None);
    }

    #[test]
    fn go_test_verbose_counts_run_lines() {
        let stdout = "=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
=== RUN   TestSub/neg
--- PASS: TestSub (0.00s)
    --- PASS: TestSub/neg (0.00s)
PASS
ok  \texample.com/demo/calc\t0.003s
?   \texample.com/demo/cmd/tool\t[no test files]
testing: warning: no tests to run
PASS
ok  \texample.com/demo/empty\t0.002s [no tests to run]
";
        assert_eq!(judge("go test -count=1 -v ./...", stdout, ""), None);
        let stdout = "testing: warning: no tests to run
PASS
ok  \texample.com/demo/calc\t0.003s [no tests to run]
";
        assert_eq!(
            judge("go test -count=1 -v -run Nope ./calc", stdout, ""),
            zero("go test")
        );
    }

    #[test]
    fn go_test_in_a_package_directory_reads_the_warning() {
        // Local directory mode streams the output: the ok line has no marker.
        let stdout =
            "testing: warning: no tests to run\nPASS\nok  \texample.com/demo/calc\t0.003s\n";
        assert_eq!(
            judge("cd calc && go test -run Nope", stdout, ""),
            zero("go test")
        );
        let stdout = "PASS\nok  \texample.com/demo/calc\t0.002s\n";
        assert_eq!(judge("cd calc && go test", stdout, ""), None);
    }

    #[test]
    fn failing_go_tests_and_build_failures_ran() {
        let stdout = "--- FAIL: TestAdd (0.00s)
    calc_test.go:7: bad
FAIL
FAIL\texample.com/demo/calc\t0.004s
FAIL
";
        assert_eq!(judge("go test ./calc", stdout, ""), None);
        let stdout = "# example.com/demo/calc [example.com/demo/calc.test]
calc/calc_test.go:6:5: undefined: Addd
FAIL\texample.com/demo/calc [build failed]
?   \texample.com/demo/cmd/tool\t[no test files]
ok  \texample.com/demo/empty\t(cached) [no tests to run]
FAIL
";
        assert_eq!(judge("go test ./...", stdout, ""), None);
    }

    #[test]
    fn go_test_json_is_read_through_its_output_fields() {
        let stdout = r#"{"Time":"2024-05-02T09:21:07.280151Z","Action":"start","Package":"example.com/demo/calc"}
{"Time":"2024-05-02T09:21:07.281778705Z","Action":"output","Package":"example.com/demo/calc","Output":"testing: warning: no tests to run\n"}
{"Time":"2024-05-02T09:21:07.282058189Z","Action":"output","Package":"example.com/demo/calc","Output":"PASS\n"}
{"Time":"2024-05-02T09:21:07.282358068Z","Action":"output","Package":"example.com/demo/calc","Output":"ok  \texample.com/demo/calc\t0.003s [no tests to run]\n"}
{"Time":"2024-05-02T09:21:07.282367521Z","Action":"pass","Package":"example.com/demo/calc","Elapsed":0.003}
"#;
        assert_eq!(
            judge("go test -json -run Nope ./calc", stdout, ""),
            zero("go test")
        );
        let stdout = r#"{"Time":"2024-05-02T09:22:26.768711428Z","Action":"start","Package":"example.com/demo/calc"}
{"Time":"2024-05-02T09:22:26.768711428Z","Action":"run","Package":"example.com/demo/calc","Test":"TestAdd"}
{"Time":"2024-05-02T09:22:26.768841227Z","Action":"output","Package":"example.com/demo/calc","Test":"TestAdd","Output":"=== RUN   TestAdd\n"}
{"Time":"2024-05-02T09:22:26.768856638Z","Action":"output","Package":"example.com/demo/calc","Test":"TestAdd","Output":"--- PASS: TestAdd (0.00s)\n"}
{"Time":"2024-05-02T09:22:26.768858506Z","Action":"pass","Package":"example.com/demo/calc","Test":"TestAdd","Elapsed":0}
{"Time":"2024-05-02T09:22:26.768885589Z","Action":"output","Package":"example.com/demo/calc","Output":"PASS\n"}
{"Time":"2024-05-02T09:22:26.769301308Z","Action":"output","Package":"example.com/demo/calc","Output":"ok  \texample.com/demo/calc\t0.002s\n"}
{"Time":"2024-05-02T09:22:26.769331591Z","Action":"pass","Package":"example.com/demo/calc","Elapsed":0.002}
"#;
        assert_eq!(judge("go test -json ./calc", stdout, ""), None);
    }

    #[test]
    fn a_silent_go_test_fails() {
        assert_eq!(
            judge("go test ./... > /dev/null", "", ""),
            silent("go test")
        );
        assert_eq!(judge("go test -c -o /tmp/calc.test ./calc", "", ""), None);
        assert_eq!(judge("go vet ./...", "", ""), None);
    }

    // --- pytest (8.x) -------------------------------------------------------

    const PYTEST_HEADER: &str =
        "============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.4.2, pluggy-1.7.0
rootdir: /tmp/rt/py
";

    fn pytest(body: &str) -> String {
        format!("{PYTEST_HEADER}{body}")
    }

    #[test]
    fn pytest_summaries_with_passed_or_failed_counts_pass() {
        let passed = pytest(
            "collected 5 items

test_a.py .....                                                          [100%]

============================== 5 passed in 0.12s ===============================
",
        );
        assert_eq!(judge("pytest", &passed, ""), None);
        let mixed = pytest(
            "collected 5 items

test_a.py ..sx.                                                          [100%]

=============================== warnings summary ===============================
test_a.py::test_warn
  /tmp/rt/py/test_a.py:9: UserWarning: w
    import warnings; warnings.warn(\"w\")

-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html
============== 3 passed, 1 skipped, 1 xfailed, 1 warning in 0.02s ==============
",
        );
        assert_eq!(judge("pytest tests/", &mixed, ""), None);
        let failed = pytest(
            "collected 1 item

e/test_f.py F                                                            [100%]

=================================== FAILURES ===================================
____________________________________ test_x ____________________________________

>   def test_x(): assert 1 == 2
                  ^^^^^^^^^^^^^
E   assert 1 == 2

e/test_f.py:1: AssertionError
=========================== short test summary info ============================
FAILED e/test_f.py::test_x - assert 1 == 2
============================== 1 failed in 0.02s ===============================
",
        );
        assert_eq!(judge("pytest e", &failed, ""), None);
        let long = pytest(
            "collected 420 items

======================== 1 failed, 419 passed in 65.43s (0:01:05) ========================
",
        );
        assert_eq!(judge("py.test", &long, ""), None);
        let xfail_only = "x                                                                        [100%]\n1 xfailed in 0.01s\n";
        assert_eq!(judge("pytest -q -k xf", xfail_only, ""), None);
    }

    #[test]
    fn quiet_pytest_summaries_are_read() {
        let stdout =
            "..sx.                                                                    [100%]
=============================== warnings summary ===============================
test_a.py::test_warn
  /tmp/rt/py/test_a.py:9: UserWarning: w
    import warnings; warnings.warn(\"w\")

-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html
3 passed, 1 skipped, 1 xfailed, 1 warning in 0.02s
";
        assert_eq!(judge("python3 -m pytest -q", stdout, ""), None);
        assert_eq!(runner("python3 -m pytest -q"), Some("pytest"));
        assert_eq!(
            judge(
                "python3 -m pytest -q -k nomatch",
                "\n5 deselected in 0.00s\n",
                ""
            ),
            zero("pytest")
        );
    }

    #[test]
    fn pytest_summaries_without_passed_or_failed_fail() {
        let deselected = pytest(
            "collected 5 items / 5 deselected / 0 selected

============================ 5 deselected in 0.01s =============================
",
        );
        assert_eq!(judge("pytest -k nomatch", &deselected, ""), zero("pytest"));
        let no_tests = pytest(
            "collected 0 items

============================ no tests ran in 0.00s =============================
",
        );
        assert_eq!(judge("pytest n", &no_tests, ""), zero("pytest"));
        let skipped = pytest(
            "collected 5 items / 4 deselected / 1 selected

test_a.py s                                                              [100%]

======================= 1 skipped, 4 deselected in 0.01s =======================
",
        );
        assert_eq!(judge("pytest -k skip", &skipped, ""), zero("pytest"));
        assert_eq!(
            judge("pytest -q", "sssss                                                                    [100%]\n5 skipped in 0.01s\n", ""),
            zero("pytest")
        );
        // Collection errors: a summary with no passed or failed count (the
        // non-zero exit is reported first by the caller).
        let error = pytest(
            "collected 0 items / 1 error

==================================== ERRORS ====================================
_________________________ ERROR collecting c/test_c.py _________________________
ImportError while importing test module '/tmp/rt/py/c/test_c.py'.
E   ModuleNotFoundError: No module named 'nosuchmod'
=========================== short test summary info ============================
ERROR c/test_c.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.13s ===============================
",
        );
        assert_eq!(judge("pytest c", &error, ""), zero("pytest"));
    }

    #[test]
    fn coloured_pytest_summaries_are_read() {
        let line = "\x1b[33m============= \x1b[32m3 passed\x1b[0m, \x1b[33m\x1b[1m1 skipped\x1b[0m, \x1b[33m\x1b[1m1 xfailed\x1b[0m, \x1b[33m\x1b[1m1 warning\x1b[0m\x1b[33m in 0.02s\x1b[0m\x1b[33m ==============\x1b[0m\n";
        assert_eq!(judge("pytest --color=yes", line, ""), None);
        let line = "\x1b[33m============================ \x1b[33m\x1b[1m5 deselected\x1b[0m\x1b[33m in 0.01s\x1b[0m\x1b[33m =============================\x1b[0m\n";
        assert_eq!(judge("pytest --color=yes -k x", line, ""), zero("pytest"));
    }

    #[test]
    fn a_silent_pytest_fails() {
        // -qq prints no summary line at all.
        let stdout =
            "F                                                                        [100%]
=================================== FAILURES ===================================
FAILED e/test_f.py::test_x - assert 1 == 2
";
        assert_eq!(judge("pytest -qq e", stdout, ""), silent("pytest"));
        assert_eq!(
            judge("python -m pytest >/dev/null 2>&1", "", ""),
            silent("pytest")
        );
        // Collection-only and help runs are not test runs.
        let collected = "test_a.py::test_one\ntest_a.py::test_two\n\n2 tests collected in 0.01s\n";
        assert_eq!(judge("pytest --collect-only -q", collected, ""), None);
        assert_eq!(judge("pytest --version", "pytest 8.4.2\n", ""), None);
    }

    // --- no visible runner, mixed runners, detection ------------------------

    #[test]
    fn output_shows_zero_tests_without_a_visible_runner() {
        let stderr = "cargo test --workspace\n   Compiling demo v0.1.0 (/tmp/rt/demo)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.10s\n     Running unittests src/lib.rs (target/debug/deps/demo-8348ca7a80742723)\n";
        assert_eq!(
            judge("make test", CARGO_STDOUT_ALL_ZERO, stderr),
            zero("cargo test")
        );
        let stdout = "ok  \texample.com/demo/calc\t0.002s [no tests to run]\n";
        assert_eq!(judge("./run-tests.sh", stdout, ""), zero("go test"));
        assert_eq!(
            judge(
                "tox -e py311",
                "py311: commands[0]> pytest\n\n5 deselected in 0.00s\n",
                ""
            ),
            zero("pytest")
        );
    }

    #[test]
    fn no_runner_and_no_report_is_nothing_to_object_to() {
        assert_eq!(judge("make test", "", ""), None);
        assert_eq!(
            judge("make test", "make: Nothing to be done for 'test'.\n", ""),
            None
        );
        assert_eq!(judge("ls", "Cargo.toml\nsrc\ntests\n", ""), None);
        assert_eq!(
            judge(
                "cargo build",
                "",
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.02s\n"
            ),
            None
        );
    }

    #[test]
    fn inner_shells_are_read() {
        assert_eq!(judge("sh -c 'cargo test'", "", ""), silent("cargo test"));
        assert_eq!(
            judge(
                "bash -o pipefail -c 'cd zurdo && cargo test 2>&1 | tail -5'",
                CARGO_STDOUT_5_0_1,
                ""
            ),
            None
        );
        assert_eq!(runner("sh -c 'bash -c \"go test ./...\"'"), Some("go test"));
    }

    #[test]
    fn objections_come_in_runner_order() {
        let stdout = format!("{CARGO_STDOUT_ALL_ZERO}5 deselected in 0.00s\n");
        assert_eq!(
            judge("cargo test && pytest -q", &stdout, ""),
            zero("cargo test")
        );
        assert_eq!(
            judge("cargo test && pytest -qq", CARGO_STDOUT_5_0_1, ""),
            silent("pytest")
        );
        let go_zero = "ok  \texample.com/demo/calc\t0.002s [no tests to run]\n";
        assert_eq!(
            judge("pytest -qq; go test ./...", go_zero, ""),
            zero("go test")
        );
        // An earlier silent runner beats a later zero-test one.
        assert_eq!(
            judge("cargo nextest run; go test ./...", go_zero, ""),
            silent("cargo nextest")
        );
    }

    #[test]
    fn detects_the_runners_a_command_starts() {
        for (command, expected) in [
            ("cargo test", Some("cargo test")),
            ("cargo t --lib", Some("cargo test")),
            ("cargo +nightly test -p zurdo", Some("cargo test")),
            ("cargo --locked -C sub test", Some("cargo test")),
            ("cargo --config 'net.offline=true' test", Some("cargo test")),
            (
                "RUST_BACKTRACE=1 timeout 600 cargo test",
                Some("cargo test"),
            ),
            ("/usr/bin/cargo test", Some("cargo test")),
            ("cargo test --no-run", None),
            ("cargo test --help", None),
            ("cargo test -- --list", None),
            ("cargo build && cargo clippy", None),
            ("cargo nextest run", Some("cargo nextest")),
            (
                "cargo nextest run --profile ci -E 'test(run)'",
                Some("cargo nextest"),
            ),
            ("cargo nextest list", None),
            ("go test ./...", Some("go test")),
            ("go -C service test ./...", Some("go test")),
            ("go test -count=1 -cover ./...", Some("go test")),
            ("go test -c ./calc", None),
            ("go test -list . ./calc", None),
            ("go test ./calc -args -c", Some("go test")),
            ("go build ./...", None),
            ("pytest -x tests/", Some("pytest")),
            ("py.test", Some("pytest")),
            ("python -m pytest", Some("pytest")),
            ("python3 -m pytest -q", Some("pytest")),
            ("python3.12 -X dev -W error -m pytest", Some("pytest")),
            ("python3 -mpytest", Some("pytest")),
            ("python3 -c 'import pytest'", None),
            ("python3 script.py -m pytest", None),
            ("python3 -m unittest", None),
            ("coverage run -m pytest", Some("pytest")),
            ("uv run pytest", Some("pytest")),
            ("uv run --with pytest-cov python -m pytest", Some("pytest")),
            ("poetry run pytest -q", Some("pytest")),
            ("uvx pytest", Some("pytest")),
            ("pytest --co -q", None),
            ("pytest --version", None),
            ("make test", None),
            ("./run-tests.sh", None),
            ("ls", None),
        ] {
            assert_eq!(runner(command), expected, "{command}");
        }
    }

    #[test]
    fn strips_terminal_escapes() {
        assert_eq!(strip_ansi("plain"), "plain");
        assert_eq!(
            strip_ansi("\x1b[32m\x1b[1m5 passed\x1b[0m in 0.01s"),
            "5 passed in 0.01s"
        );
        assert_eq!(
            strip_ansi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x07!"),
            "link!"
        );
    }

    #[test]
    fn chunks_split_anywhere_read_the_same_lines() {
        let stdout = "\x1b[32mrunning 0 tests\x1b[0m\r\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out";
        for size in [1, 2, 3, 7, 64, 4096] {
            let mut judge = Judge::new("cargo test nothing");
            for chunk in stdout.as_bytes().chunks(size) {
                judge.feed(Stream::Stdout, chunk);
                // stderr interleaved, its own lines kept apart.
                judge.feed(Stream::Stderr, b"   Compiling x v0.1.0\n    Fini");
            }
            assert_eq!(judge.finish(), zero("cargo test"), "chunks of {size}");
        }
        let mut judge = Judge::new("cargo test");
        judge.feed(Stream::Stderr, b"running 5 te");
        judge.feed(Stream::Stdout, b"running 0 tests\n");
        judge.feed(Stream::Stderr, b"sts\n");
        assert_eq!(judge.finish(), None, "0 + 5 tests: some ran");
    }

    #[test]
    fn a_line_over_the_limit_is_read_by_its_start() {
        let mut judge = Judge::new("cargo test");
        let mut line = b"running 0 tests ".to_vec();
        line.extend(std::iter::repeat_n(b'x', LINE_LIMIT * 3));
        judge.feed(Stream::Stdout, &line);
        judge.feed(Stream::Stdout, b"\nrunning 3 tests\n");
        assert_eq!(judge.finish(), None, "the next line is read whole");
    }

    #[test]
    fn large_outputs_are_read_in_one_pass() {
        let mut stdout = String::from("\nrunning 200000 tests\n");
        for i in 0..200_000 {
            stdout.push_str(&format!("test module::case_{i} ... ok\n"));
        }
        stdout.push_str("\ntest result: ok. 200000 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 9.00s\n\n");
        let long_line = "x".repeat(4 << 20);
        assert_eq!(judge("cargo test", &stdout, &long_line), None);
        let stdout = stdout.replace("running 200000 tests", "running 0 tests");
        assert_eq!(judge("cargo test", &stdout, ""), zero("cargo test"));
    }
}
