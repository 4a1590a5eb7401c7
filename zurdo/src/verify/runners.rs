//! Test runners that ran nothing, and the tests they ran: a `[shell:]` hint
//! whose output shows a runner ran zero tests proves nothing, whatever its
//! exit code, and a runner the command starts that prints no report line at
//! all cannot be trusted either. The same reading counts the tests the
//! output shows ([`TestCounts`]).
//!
//! The judgement reads the whole output (stdout and stderr) once, line by
//! line as it arrives ([`Judge`], fed by the run while it reads the pipes,
//! so the bounded copy kept as evidence can cut the middle without losing
//! a line this relies on; the lines are read by [`super::summaries`]), and
//! the command (through [`crate::shell`]) only to learn which runners it
//! visibly starts and which of their tests it filters by name:
//!
//! | runner | report lines | zero tests |
//! | --- | --- | --- |
//! | `cargo test` (libtest, libtest-mimic) | `running N tests`, `test result: …` | the `test result:` lines show no test passed or failed (ignored tests do not run); without them, the `running` counts add up to 0 |
//! | `cargo nextest run` | `Starting N tests across …`, `Summary […] N tests run: …` | N is 0 |
//! | `go test` | `ok`, `?`, `FAIL`, `--- PASS`, `=== RUN` | only `[no tests to run]` / `[no test files]` packages, or (`-v`, `-json`) every test skipped |
//! | `pytest` | `== 3 passed in 0.1s ==`, `3 passed in 0.1s` (`-q`) | no `passed`, `xpassed` or `failed` count |
//! | `node --test` | the `# tests N` (TAP) / `ℹ tests N` (spec) footer | `pass` and `fail` are 0 |
//! | `jest` | `Tests: … N total`, `No tests found, exiting with code N` | no `passed` or `failed` count |
//! | `vitest` | `Tests  … (N)`, `No test files found, exiting with code N` | no `passed` or `failed` count |
//!
//! Zero-test evidence counts whoever printed it (`make test` that runs
//! `cargo test` still shows `running 0 tests`); silence counts only for a
//! runner the command itself starts, and only for the first four: jest's,
//! vitest's and node's reporters are chosen in configuration files and
//! environment variables zurdo does not read (`reporters: ['jest-junit']`,
//! `--reporter=json`, `NODE_OPTIONS=--test-reporter=dot`), and a silent one
//! is no sign that nothing ran.

use zurdo_base::text::strip_ansi;

use super::counts::TestCounts;
use super::summaries::Scan;
use super::Reason;
use crate::exec::Stream;
use crate::shell::{all_simples, basename};

/// Judges a finished `[shell:]` command's whole output for test runners
/// that ran zero tests or printed no report: [`Judge`] fed all of stdout,
/// then all of stderr.
#[cfg(test)]
pub(crate) fn judgement(command: &str, stdout: &str, stderr: &str) -> Judgement {
    let mut judge = Judge::new(command);
    judge.feed(Stream::Stdout, stdout.as_bytes());
    judge.end(Stream::Stdout);
    judge.feed(Stream::Stderr, stderr.as_bytes());
    judge.finish()
}

/// [`judgement`]'s objection: `None` means nothing to object to.
#[cfg(test)]
pub(crate) fn judge(command: &str, stdout: &str, stderr: &str) -> Option<Reason> {
    judgement(command, stdout, stderr).objection
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

/// What the judgement of a finished command's output found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Judgement {
    /// [`Reason::ZeroTests`] or [`Reason::RunnerSilent`], or `None`.
    pub(crate) objection: Option<Reason>,
    /// The tests the output's runner summaries show, summed over every
    /// runner that printed one; `None` when it holds no summary.
    pub(crate) counts: Option<TestCounts>,
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

    /// The objection and the counts, once the output has ended.
    ///
    /// Objections come in runner order ([`Runner::ALL`]: cargo test, cargo
    /// nextest, go test, pytest, node --test, jest, vitest) and the first
    /// one wins: [`Reason::ZeroTests`] when the output shows that runner
    /// ran zero tests (whether or not the command visibly starts it), else
    /// [`Reason::RunnerSilent`] when the command starts it and the output
    /// holds none of its report lines.
    ///
    /// A runner that never got to run its tests (a compile error, a missing
    /// interpreter) is also silent; such a command exits non-zero, and the
    /// caller should report [`Reason::ExitCode`] in preference to the
    /// objection. The counts stand whatever the exit code.
    pub(crate) fn finish(mut self) -> Judgement {
        self.end(Stream::Stdout);
        self.end(Stream::Stderr);
        self.scan.end();
        let started = started_runners(self.command);
        let mut objection = None;
        for runner in Runner::ALL {
            let (zero, reported) = self.scan.verdict(runner);
            let name = runner.name().to_string();
            if zero {
                objection = Some(Reason::ZeroTests { runner: name });
                break;
            }
            if started[runner as usize] && !reported {
                objection = Some(Reason::RunnerSilent { runner: name });
                break;
            }
        }
        let mut counts: Option<TestCounts> = None;
        let mut filtered = None;
        for runner in Runner::ALL {
            if let Some(tally) = self.scan.tally(runner) {
                let filtered = filtered.get_or_insert_with(|| name_filtered(self.command));
                counts
                    .get_or_insert_with(TestCounts::default)
                    .add(&tally.counts(runner, filtered[runner as usize]));
            }
        }
        Judgement { objection, counts }
    }
}

/// The runners zurdo reads, in the order their objections are reported
/// and their counts summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runner {
    Cargo,
    Nextest,
    Go,
    Pytest,
    Node,
    Jest,
    Vitest,
}

/// How many [`Runner`]s there are.
const RUNNERS: usize = 7;

impl Runner {
    /// Every runner, in order.
    pub(super) const ALL: [Runner; RUNNERS] = [
        Runner::Cargo,
        Runner::Nextest,
        Runner::Go,
        Runner::Pytest,
        Runner::Node,
        Runner::Jest,
        Runner::Vitest,
    ];

    /// The name reasons and counts give it.
    pub(super) fn name(self) -> &'static str {
        match self {
            Runner::Cargo => "cargo test",
            Runner::Nextest => "cargo nextest",
            Runner::Go => "go test",
            Runner::Pytest => "pytest",
            Runner::Node => "node --test",
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
        }
    }
}

// ---------------------------------------------------------------------------
// Which runners the command starts.

/// For each [`Runner`] (by discriminant), whether some simple command of
/// `command`, `sh -c '…'` bodies included, starts it (never node, jest or
/// vitest: their silence is not judged).
fn started_runners(command: &str) -> [bool; RUNNERS] {
    let mut started = [false; RUNNERS];
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
// Which runners' tests the command filters by name.

/// For each [`Runner`] (by discriminant), whether the command visibly
/// filters its tests by name. Only nextest, node, jest and vitest need to
/// know: they report a test a name filter left out as skipped, the word
/// they use for a test the code skips, so with a filter their skipped tests
/// count as deselected ([`super::counts`]). Leaning this way is safe: a
/// filter seen where there is none only makes a skip count as deselected.
fn name_filtered(command: &str) -> [bool; RUNNERS] {
    let mut filtered = [false; RUNNERS];
    let mut js = false;
    for simple in all_simples(command) {
        let argv = simple.argv();
        if let Some(args) = nextest_run_args(&argv) {
            filtered[Runner::Nextest as usize] |= nextest_filters(args);
        }
        // jest and vitest: -t, --testNamePattern (also after npm's `--`).
        js |= argv.iter().any(|w| {
            *w == "-t" || w.starts_with("--testNamePattern") || w.starts_with("--test-name-pattern")
        });
    }
    filtered[Runner::Jest as usize] = js;
    filtered[Runner::Vitest as usize] = js;
    // node reads its options from NODE_OPTIONS too: any mention counts.
    filtered[Runner::Node as usize] = ["--test-name-pattern", "--test-skip-pattern", "--test-only"]
        .iter()
        .any(|flag| command.contains(flag));
    filtered
}

/// The arguments after `run` of `cargo [options] nextest run …` (wrappers
/// already removed from `argv`).
fn nextest_run_args<'a, 'b>(argv: &'a [&'b str]) -> Option<&'a [&'b str]> {
    let (program, args) = argv.split_first()?;
    if basename(program) != "cargo" || cargo_runner(args) != Some(Runner::Nextest) {
        return None;
    }
    let nextest = args.iter().position(|a| *a == "nextest")?;
    let run = nextest
        + 1
        + args[nextest + 1..]
            .iter()
            .position(|a| matches!(*a, "run" | "r"))?;
    args.get(run + 1..)
}

/// Whether `cargo nextest run`'s arguments select tests by name or by
/// partition: a filter argument, a filterset, a partition, a rerun of the
/// failed tests, a platform filter, only the ignored tests, or arguments
/// for the test binaries after `--`.
fn nextest_filters(args: &[&str]) -> bool {
    const FILTERS: [&str; 7] = [
        "-E",
        "--filterset",
        "--filter-expr",
        "--partition",
        "--platform-filter",
        "-R",
        "--rerun",
    ];
    const WITH_VALUE: [&str; 45] = [
        "--color",
        "-p",
        "--package",
        "--exclude",
        "--bin",
        "--example",
        "--test",
        "--bench",
        "-F",
        "--features",
        "--build-jobs",
        "--cargo-profile",
        "--target",
        "--target-dir",
        "--manifest-path",
        "--cargo-message-format",
        "--config",
        "-j",
        "--test-threads",
        "--retries",
        "--flaky-result",
        "--max-fail",
        "--debugger",
        "--tracer",
        "--no-tests",
        "--stress-count",
        "--stress-duration",
        "--failure-output",
        "--success-output",
        "--status-level",
        "--final-status-level",
        "--show-progress",
        "--max-progress-running",
        "--message-format",
        "--message-format-version",
        "--archive-file",
        "--archive-format",
        "--extract-to",
        "--cargo-metadata",
        "--workspace-remap",
        "--binaries-metadata",
        "--config-file",
        "-P",
        "--profile",
        "-Z",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        let (name, attached) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (*arg, None),
        };
        match name {
            "--" => return i < args.len(),
            "--run-ignored" => {
                let value = attached.or_else(|| args.get(i).copied());
                if attached.is_none() {
                    i += 1;
                }
                if matches!(value, Some("only" | "ignored-only")) {
                    return true;
                }
            }
            _ if FILTERS.contains(&name) => return true,
            // -Eexpr
            _ if name.starts_with("-E") => return true,
            _ if WITH_VALUE.contains(&name) => {
                if attached.is_none() {
                    i += 1;
                }
            }
            _ if name.starts_with('-') => {}
            // A positional argument: a test-name filter.
            _ => return true,
        }
    }
    false
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

    fn counts(command: &str, stdout: &str, stderr: &str) -> Option<TestCounts> {
        judgement(command, stdout, stderr).counts
    }

    /// Counts of a run that went to the end.
    fn tally(runner: &str, passed: u64, failed: u64, skipped: u64) -> TestCounts {
        TestCounts {
            runner: runner.into(),
            passed,
            failed,
            skipped,
            ..TestCounts::default()
        }
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
        // An xpassed test ran and passed.
        let xpass_only = "X                                                                        [100%]\n1 xpassed in 0.01s\n";
        assert_eq!(judge("pytest -q -k xp", xpass_only, ""), None);
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
            assert_eq!(
                judge.finish().objection,
                zero("cargo test"),
                "chunks of {size}"
            );
        }
        let mut judge = Judge::new("cargo test");
        judge.feed(Stream::Stderr, b"running 5 te");
        judge.feed(Stream::Stdout, b"running 0 tests\n");
        judge.feed(Stream::Stderr, b"sts\n");
        assert_eq!(judge.finish().objection, None, "0 + 5 tests: some ran");
    }

    #[test]
    fn a_line_over_the_limit_is_read_by_its_start() {
        let mut judge = Judge::new("cargo test");
        let mut line = b"running 0 tests ".to_vec();
        line.extend(std::iter::repeat_n(b'x', LINE_LIMIT * 3));
        judge.feed(Stream::Stdout, &line);
        judge.feed(Stream::Stdout, b"\nrunning 3 tests\n");
        assert_eq!(
            judge.finish().objection,
            None,
            "the next line is read whole"
        );
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
        let stdout = stdout.replace(
            "200000 passed; 0 failed; 0 ignored",
            "0 passed; 0 failed; 200000 ignored",
        );
        assert_eq!(judge("cargo test", &stdout, ""), zero("cargo test"));
        let counts = judgement("cargo test", &stdout, "").counts;
        assert_eq!(counts.map(|c| c.ignored), Some(200_000));
    }

    // --- counts: cargo test ------------------------------------------------

    /// `cargo test` of a crate with 5 unit tests (2 `#[ignore]`), an
    /// integration test file with 2 (1 ignored) and no doc-tests.
    const CARGO_STDOUT_IGNORED: &str = "
running 5 tests
test tests::four ... ignored
test tests::five ... ok
test tests::one ... ok
test tests::three ... ignored
test tests::two ... ok

test result: ok. 3 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 2 tests
test it_ign ... ignored
test it_one ... ok

test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

";

    #[test]
    fn cargo_test_counts_add_up_every_binary() {
        assert_eq!(
            counts("cargo test", CARGO_STDOUT_IGNORED, CARGO_STDERR),
            Some(TestCounts {
                ignored: 3,
                ..tally("cargo test", 4, 0, 0)
            })
        );
        assert_eq!(
            counts("cargo test", CARGO_STDOUT_5_0_1, CARGO_STDERR),
            Some(TestCounts {
                ignored: 1,
                ..tally("cargo test", 5, 0, 0)
            })
        );
        // `cargo test one`: the rest filtered out.
        let filtered = "
running 1 test
test tests::one ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s


running 1 test
test it_one ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out; finished in 0.00s

";
        assert_eq!(
            counts("cargo test one", filtered, ""),
            Some(TestCounts {
                deselected: 5,
                ..tally("cargo test", 2, 0, 0)
            })
        );
        // No summary, no counts.
        assert_eq!(counts("cargo test", "", CARGO_STDERR), None);
        assert_eq!(
            counts("cargo test | grep running", "running 5 tests\n", ""),
            None
        );
    }

    #[test]
    fn cargo_test_whose_tests_were_all_ignored_ran_zero_tests() {
        // `cargo test --lib -- three four`: both ignored.
        let stdout = "
running 2 tests
test tests::four ... ignored
test tests::three ... ignored

test result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 3 filtered out; finished in 0.00s

";
        let judged = judgement("cargo test --lib -- three four", stdout, "");
        assert_eq!(judged.objection, zero("cargo test"));
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                ignored: 2,
                deselected: 3,
                ..tally("cargo test", 0, 0, 0)
            })
        );
        // Another binary whose tests ran: something ran.
        let more = format!("{stdout}{CARGO_STDOUT_IGNORED}");
        assert_eq!(judge("cargo test", &more, ""), None);
        // The quiet form (`i` for an ignored test).
        let quiet = "\nrunning 3 tests\niii\ntest result: ok. 0 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n";
        assert_eq!(judge("cargo test -q", quiet, ""), zero("cargo test"));
    }

    #[test]
    fn cargo_bench_measured_benchmarks_ran() {
        // `cargo bench` (libtest's #[bench], nightly).
        let stdout = "
running 2 tests
test b1 ... bench:           0.27 ns/iter (+/- 0.00)
test b2 ... bench:           0.27 ns/iter (+/- 0.00)

test result: ok. 0 passed; 0 failed; 0 ignored; 2 measured; 0 filtered out; finished in 0.69s

";
        let judged = judgement("cargo bench", stdout, "");
        assert_eq!(judged.objection, None);
        assert_eq!(judged.counts, Some(tally("cargo test", 2, 0, 0)));
    }

    #[test]
    fn a_failing_cargo_test_may_have_stopped_at_the_failing_binary() {
        // Without --no-fail-fast cargo stops after tests/zz_fail.rs.
        let stdout = "
running 5 tests
test tests::four ... ignored
test tests::five ... ok
test tests::one ... ok
test tests::three ... ignored
test tests::two ... ok

test result: ok. 3 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 2 tests
test ign ... ignored
test bad ... FAILED

failures:

---- bad stdout ----

thread 'bad' (5431) panicked at tests/zz_fail.rs:1:20:
no

failures:
    bad

test result: FAILED. 0 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.07s

";
        let stderr =
            "     Running unittests src/lib.rs (/tmp/tc/target/debug/deps/demo-8348ca7a80742723)
     Running tests/zz_fail.rs (/tmp/tc/target/debug/deps/zz_fail-467a848be9806fb9)
error: test failed, to rerun pass `--test zz_fail`
";
        let stopped = TestCounts {
            ignored: 3,
            partial: true,
            ..tally("cargo test", 3, 1, 0)
        };
        assert_eq!(counts("cargo test", stdout, stderr), Some(stopped.clone()));
        // --no-fail-fast runs every binary and says so at the end.
        let ran_on =
            format!("{stderr}   Doc-tests demo\nerror: 1 target failed:\n    `--test zz_fail`\n");
        assert_eq!(
            counts("cargo test --no-fail-fast", stdout, &ran_on),
            Some(TestCounts {
                partial: false,
                ..stopped
            })
        );
    }

    #[test]
    fn a_test_binary_that_died_mid_run_ran_tests() {
        let stdout = "
running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 3 tests
test a ... ok
";
        let stderr = "error: test failed, to rerun pass `--test crash`\n\nCaused by:\n  process didn't exit successfully: `/tmp/rt/target/debug/deps/crash-0c1d` (signal: 6, SIGABRT: process abort signal)\n";
        let judged = judgement("cargo test", stdout, stderr);
        assert_eq!(judged.objection, None, "the command's exit code reports it");
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                partial: true,
                ..tally("cargo test", 0, 0, 0)
            })
        );
    }

    #[test]
    fn libtest_json_suite_results_are_counted() {
        // RUSTC_BOOTSTRAP=1 cargo test -- -Z unstable-options --format json
        let stdout = r#"{ "type": "suite", "event": "started", "test_count": 5 }
{ "type": "test", "event": "started", "name": "tests::one" }
{ "type": "test", "name": "tests::one", "event": "ok" }
{ "type": "suite", "event": "ok", "passed": 3, "failed": 0, "ignored": 2, "measured": 0, "filtered_out": 0, "exec_time": 0.000312415 }
{ "type": "suite", "event": "started", "test_count": 2 }
{ "type": "suite", "event": "ok", "passed": 1, "failed": 0, "ignored": 1, "measured": 0, "filtered_out": 0, "exec_time": 0.00046304 }
{ "type": "suite", "event": "started", "test_count": 0 }
{ "type": "suite", "event": "ok", "passed": 0, "failed": 0, "ignored": 0, "measured": 0, "filtered_out": 0, "exec_time": 0.000090935 }
"#;
        let judged = judgement(
            "RUSTC_BOOTSTRAP=1 cargo test -- -Z unstable-options --format json",
            stdout,
            "",
        );
        assert_eq!(judged.objection, None);
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                ignored: 3,
                ..tally("cargo test", 4, 0, 0)
            })
        );
        let ignored_only = r#"{ "type": "suite", "event": "started", "test_count": 2 }
{ "type": "suite", "event": "ok", "passed": 0, "failed": 0, "ignored": 2, "measured": 0, "filtered_out": 3, "exec_time": 0.0001 }
"#;
        assert_eq!(judge("cargo test", ignored_only, ""), zero("cargo test"));
    }

    // --- counts: cargo nextest (0.9.143) -----------------------------------

    #[test]
    fn nextest_counts_read_the_summary() {
        let stderr = "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.01s
────────────
 Nextest run ID 7fdfb565-7757-4206-adc2-1b723013c9af with nextest profile: default
    Starting 4 tests across 2 binaries (3 tests skipped)
        PASS [   0.010s] (1/4) demo tests::one
        PASS [   0.014s] (2/4) demo tests::five
        PASS [   0.008s] (3/4) demo tests::two
        PASS [   0.005s] (4/4) demo::it it_one
────────────
     Summary [   0.019s] 4 tests run: 4 passed, 3 skipped
";
        // Unfiltered, the skipped tests are the ignored ones.
        assert_eq!(
            counts("cargo nextest run", "", stderr),
            Some(tally("cargo nextest", 4, 0, 3))
        );
        // Filtered, they are mostly the ones the filter left out.
        let filtered = "    Starting 2 tests across 2 binaries (5 tests skipped)
        PASS [   0.005s] (1/2) demo::it it_one
        PASS [   0.009s] (2/2) demo tests::one
────────────
     Summary [   0.011s] 2 tests run: 2 passed, 5 skipped
";
        for command in [
            "cargo nextest run one",
            "cargo nextest run --profile ci -E 'test(one)'",
            "cargo nextest run --workspace --partition count:1/2",
            "cargo nextest run -- --exact tests::one",
        ] {
            assert_eq!(
                counts(command, "", filtered),
                Some(TestCounts {
                    deselected: 5,
                    ..tally("cargo nextest", 2, 0, 0)
                }),
                "{command}"
            );
        }
    }

    #[test]
    fn nextest_failures_flakes_and_timeouts_are_counted_once() {
        let stderr = "  TRY 2 PASS [   0.005s] (2/4) demo::flaky flaky
        LEAK [   0.107s] (3/4) demo::flaky leaky
   TRY 2 TMT [   1.002s] (4/4) demo::flaky slow
  stdout ───

    running 1 test

    (test timed out)

────────────
     Summary [   2.206s] 4 tests run: 2 passed (1 flaky, 1 leaky), 1 failed, 1 timed out, 0 skipped
   FLAKY 2/2 [   0.005s] (2/4) demo::flaky flaky
  TRY 2 FAIL [   0.079s] (1/4) demo::flaky fails
   TRY 2 TMT [   1.002s] (4/4) demo::flaky slow
error: test run failed
";
        assert_eq!(
            counts(
                "cargo nextest run --retries 1 --no-fail-fast --test flaky",
                "",
                stderr
            ),
            Some(tally("cargo nextest", 2, 2, 0))
        );
        // Cancelled at the first failure: 3 of 7 never ran.
        let cancelled = "     Summary [   0.181s] 4/7 tests run: 2 passed, 2 failed, 0 skipped
        FAIL [   0.155s] (3/7) demo tests::three
        FAIL [   0.180s] (4/7) demo tests::four
warning: 3/7 tests were not run due to test failure (run with --no-fail-fast to run all tests, or run with --max-fail)
error: test run failed
";
        assert_eq!(
            counts("cargo nextest run --run-ignored all", "", cancelled),
            Some(TestCounts {
                partial: true,
                ..tally("cargo nextest", 2, 2, 0)
            })
        );
    }

    #[test]
    fn nextest_no_capture_output_is_not_counted_as_cargo_test() {
        // `cargo nextest run --no-capture 2>&1`: each test's own libtest
        // report, unindented, between Starting and Summary.
        let merged = "    Starting 2 tests across 2 binaries (3 tests skipped)
       START [         ] (1/2) demo tests::five

running 1 test
test tests::five ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s

        PASS [   0.005s] (1/2) demo tests::five
       START [         ] (2/2) demo tests::one

running 1 test
test tests::one ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s

        PASS [   0.005s] (2/2) demo tests::one
────────────
     Summary [   0.012s] 2 tests run: 2 passed, 3 skipped
";
        assert_eq!(
            counts("cargo nextest run --no-capture 2>&1", merged, ""),
            Some(tally("cargo nextest", 2, 0, 3))
        );
        // Doc-tests after nextest (which does not run them) are counted.
        let doc = "\nrunning 1 test\ntest src/lib.rs - add (line 3) ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n";
        let both = format!("{merged}{doc}");
        assert_eq!(
            counts(
                "cargo nextest run --no-capture 2>&1 && cargo test --doc",
                &both,
                ""
            ),
            Some(TestCounts {
                runner: "cargo test+cargo nextest".into(),
                ..tally("", 3, 0, 3)
            })
        );
    }

    #[test]
    fn nextest_with_every_test_filtered_out_ran_zero() {
        let stderr = "    Starting 0 tests across 2 binaries (7 tests skipped)
────────────
     Summary [   0.000s] 0 tests run: 0 passed, 7 skipped
error: no tests to run
(hint: use `--no-tests` to customize)
";
        let judged = judgement("cargo nextest run -E 'test(/three|four/)'", "", stderr);
        assert_eq!(judged.objection, zero("cargo nextest"));
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                deselected: 7,
                ..tally("cargo nextest", 0, 0, 0)
            })
        );
    }

    // --- counts: go test (go 1.19) -----------------------------------------

    /// `go test -v ./...`: a passing test, a skipped one, and one with a
    /// passing and a skipped subtest.
    const GO_VERBOSE: &str = "=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSkip
    calc_test.go:11: later
--- SKIP: TestSkip (0.00s)
=== RUN   TestSub
=== RUN   TestSub/pos
=== RUN   TestSub/neg
    calc_test.go:15: no
--- PASS: TestSub (0.00s)
    --- PASS: TestSub/pos (0.00s)
    --- SKIP: TestSub/neg (0.00s)
PASS
ok  \texample.com/demo/calc\t0.003s
";

    #[test]
    fn go_test_verbose_counts_tests_and_subtests() {
        let judged = judgement("go test -v ./...", GO_VERBOSE, "");
        assert_eq!(judged.objection, None);
        assert_eq!(judged.counts, Some(tally("go test", 3, 0, 2)));
        // Without -v the packages' lines say nothing of their tests.
        let quiet = "ok  \texample.com/demo/calc\t0.002s\n";
        assert_eq!(counts("go test ./...", quiet, ""), None);
        // ... and a failing test's line alone is not all of them.
        let failing = "--- FAIL: TestBroken (0.00s)
    fail_test.go:5: broken
FAIL
FAIL\texample.com/demo/calc\t0.002s
FAIL
";
        assert_eq!(counts("go test ./calc", failing, ""), None);
    }

    #[test]
    fn go_test_verbose_with_a_failure_is_partial() {
        let stdout = GO_VERBOSE.replace(
            "PASS\nok  \texample.com/demo/calc\t0.003s\n",
            "=== RUN   TestBroken
    fail_test.go:5: broken
--- FAIL: TestBroken (0.00s)
FAIL
FAIL\texample.com/demo/calc\t0.002s
FAIL
",
        );
        assert_eq!(
            counts("go test -v ./calc", &stdout, ""),
            Some(TestCounts {
                partial: true,
                ..tally("go test", 3, 1, 2)
            })
        );
    }

    #[test]
    fn go_test_whose_tests_all_skipped_ran_zero() {
        let stdout = "=== RUN   TestSkip
    calc_test.go:11: later
--- SKIP: TestSkip (0.00s)
PASS
ok  \texample.com/demo/calc\t0.002s
";
        let judged = judgement("go test -v -run TestSkip ./calc", stdout, "");
        assert_eq!(judged.objection, zero("go test"));
        assert_eq!(judged.counts, Some(tally("go test", 0, 0, 1)));
        let json = r#"{"Time":"2026-12-05T08:40:00.215015496Z","Action":"run","Package":"example.com/demo/calc","Test":"TestSkip"}
{"Time":"2026-12-05T08:40:00.215110417Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"=== RUN   TestSkip\n"}
{"Time":"2026-12-05T08:40:00.215117077Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"    calc_test.go:11: later\n"}
{"Time":"2026-12-05T08:40:00.215122225Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Time":"2026-12-05T08:40:00.215124839Z","Action":"skip","Package":"example.com/demo/calc","Test":"TestSkip","Elapsed":0}
{"Time":"2026-12-05T08:40:00.215129015Z","Action":"output","Package":"example.com/demo/calc","Output":"PASS\n"}
{"Time":"2026-12-05T08:40:00.215355923Z","Action":"output","Package":"example.com/demo/calc","Output":"ok  \texample.com/demo/calc\t0.002s\n"}
{"Time":"2026-12-05T08:40:00.215365437Z","Action":"pass","Package":"example.com/demo/calc","Elapsed":0.002}
"#;
        let judged = judgement("go test -json -run TestSkip ./calc", json, "");
        assert_eq!(judged.objection, zero("go test"));
        assert_eq!(judged.counts, Some(tally("go test", 0, 0, 1)));
    }

    #[test]
    fn go_test_json_counts_test_events_once() {
        let stdout = r#"{"Time":"2026-12-05T08:32:23.767719952Z","Action":"run","Package":"example.com/demo/calc","Test":"TestAdd"}
{"Time":"2026-12-05T08:32:23.767840712Z","Action":"output","Package":"example.com/demo/calc","Test":"TestAdd","Output":"=== RUN   TestAdd\n"}
{"Time":"2026-12-05T08:32:23.767900201Z","Action":"output","Package":"example.com/demo/calc","Test":"TestAdd","Output":"--- PASS: TestAdd (0.00s)\n"}
{"Time":"2026-12-05T08:32:23.767943966Z","Action":"pass","Package":"example.com/demo/calc","Test":"TestAdd","Elapsed":0}
{"Time":"2026-12-05T08:32:23.767958728Z","Action":"run","Package":"example.com/demo/calc","Test":"TestSkip"}
{"Time":"2026-12-05T08:32:23.767961252Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"=== RUN   TestSkip\n"}
{"Time":"2026-12-05T08:32:23.768001181Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"    calc_test.go:11: later\n"}
{"Time":"2026-12-05T08:32:23.768069212Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Time":"2026-12-05T08:32:23.768100419Z","Action":"skip","Package":"example.com/demo/calc","Test":"TestSkip","Elapsed":0}
{"Time":"2026-12-05T08:32:23.768111465Z","Action":"run","Package":"example.com/demo/calc","Test":"TestSub"}
{"Time":"2026-12-05T08:32:23.768113448Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub","Output":"=== RUN   TestSub\n"}
{"Time":"2026-12-05T08:32:23.76813495Z","Action":"run","Package":"example.com/demo/calc","Test":"TestSub/pos"}
{"Time":"2026-12-05T08:32:23.76816178Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub/pos","Output":"=== RUN   TestSub/pos\n"}
{"Time":"2026-12-05T08:32:23.768195691Z","Action":"run","Package":"example.com/demo/calc","Test":"TestSub/neg"}
{"Time":"2026-12-05T08:32:23.768206677Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub/neg","Output":"=== RUN   TestSub/neg\n"}
{"Time":"2026-12-05T08:32:23.768224143Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub/neg","Output":"    calc_test.go:15: no\n"}
{"Time":"2026-12-05T08:32:23.768300377Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub","Output":"--- PASS: TestSub (0.00s)\n"}
{"Time":"2026-12-05T08:32:23.768312825Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub/pos","Output":"    --- PASS: TestSub/pos (0.00s)\n"}
{"Time":"2026-12-05T08:32:23.768315609Z","Action":"pass","Package":"example.com/demo/calc","Test":"TestSub/pos","Elapsed":0}
{"Time":"2026-12-05T08:32:23.768317622Z","Action":"output","Package":"example.com/demo/calc","Test":"TestSub/neg","Output":"    --- SKIP: TestSub/neg (0.00s)\n"}
{"Time":"2026-12-05T08:32:23.768352645Z","Action":"skip","Package":"example.com/demo/calc","Test":"TestSub/neg","Elapsed":0}
{"Time":"2026-12-05T08:32:23.768357271Z","Action":"pass","Package":"example.com/demo/calc","Test":"TestSub","Elapsed":0}
{"Time":"2026-12-05T08:32:23.768359274Z","Action":"output","Package":"example.com/demo/calc","Output":"PASS\n"}
{"Time":"2026-12-05T08:32:23.768626142Z","Action":"output","Package":"example.com/demo/calc","Output":"ok  \texample.com/demo/calc\t0.002s\n"}
{"Time":"2026-12-05T08:32:23.768643107Z","Action":"pass","Package":"example.com/demo/calc","Elapsed":0.002}
"#;
        let judged = judgement("go test -json ./calc", stdout, "");
        assert_eq!(judged.objection, None);
        assert_eq!(judged.counts, Some(tally("go test", 3, 0, 2)));
    }

    // --- counts: pytest (9.2) ----------------------------------------------

    #[test]
    fn pytest_counts_read_the_summary() {
        let stdout = pytest(
            "collected 7 items / 1 deselected / 6 selected

test_a.py ...sxX                                                         [100%]

======= 3 passed, 1 skipped, 1 deselected, 1 xfailed, 1 xpassed in 0.03s =======
",
        );
        let expected = TestCounts {
            deselected: 1,
            ..tally("pytest", 4, 0, 2)
        };
        assert_eq!(
            counts("pytest -k 'not sel'", &stdout, ""),
            Some(expected.clone())
        );
        let quiet =
            "...sxX                                                                   [100%]
3 passed, 1 skipped, 1 deselected, 1 xfailed, 1 xpassed in 0.03s
";
        assert_eq!(counts("pytest -q -k 'not sel'", quiet, ""), Some(expected));
        // Errors and warnings are not tests.
        let long = pytest(
            "collected 420 items

======================== 1 failed, 419 passed, 2 warnings, 1 error in 65.43s (0:01:05) ========================
",
        );
        assert_eq!(
            counts("py.test", &long, ""),
            Some(tally("pytest", 419, 1, 0))
        );
        let none = pytest("collected 0 items\n\n============================ no tests ran in 0.00s =============================\n");
        assert_eq!(
            counts("pytest n", &none, ""),
            Some(tally("pytest", 0, 0, 0))
        );
    }

    #[test]
    fn pytest_that_stopped_at_a_failure_is_partial() {
        let stdout = "FAILED test_b.py::test_f - assert 0
!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!
========= 1 failed, 4 passed, 1 skipped, 1 xfailed, 1 xpassed in 0.02s =========
";
        assert_eq!(
            counts("pytest -x", stdout, ""),
            Some(TestCounts {
                partial: true,
                ..tally("pytest", 5, 1, 2)
            })
        );
        // Without -x, a failure leaves the rest of the run whole.
        let whole =
            "========= 1 failed, 5 passed, 1 skipped, 1 xfailed, 1 xpassed in 0.02s =========\n";
        assert_eq!(counts("pytest", whole, ""), Some(tally("pytest", 6, 1, 2)));
    }

    #[test]
    fn pytest_whose_only_tests_are_xfailed_ran_zero() {
        let stdout = "x                                                                        [100%]\n1 xfailed in 0.01s\n";
        assert_eq!(judge("pytest -q -k xf", stdout, ""), zero("pytest"));
    }

    // --- counts: node --test (node 20) -------------------------------------

    /// The end of node 20's TAP report (its reporter when stdout is not a
    /// terminal) for a file with a passing test, a skipped one, a todo one,
    /// a suite of two (one skipped) and a test with two subtests.
    const NODE_TAP: &str = "ok 5 - with subtests
  ---
  duration_ms: 0.57056
  ...
1..5
# tests 8
# suites 1
# pass 5
# fail 0
# cancelled 0
# skipped 2
# todo 1
# duration_ms 94.38485
";

    #[test]
    fn node_test_counts_read_the_footer() {
        let expected = tally("node --test", 5, 0, 3);
        assert_eq!(counts("node --test", NODE_TAP, ""), Some(expected.clone()));
        let spec = "▶ with subtests
  ✔ sub 1 (0.136664ms)
  ✔ sub 2 (0.189432ms)
✔ with subtests (0.634865ms)
ℹ tests 8
ℹ suites 1
ℹ pass 5
ℹ fail 0
ℹ cancelled 0
ℹ skipped 2
ℹ todo 1
ℹ duration_ms 92.170493
";
        assert_eq!(
            counts("node --test --test-reporter=spec", spec, ""),
            Some(expected)
        );
        let failing = NODE_TAP
            .replace("# tests 8", "# tests 9")
            .replace("# fail 0", "# fail 1");
        assert_eq!(
            counts("node --test", &failing, ""),
            Some(TestCounts {
                partial: true,
                ..tally("node --test", 5, 1, 3)
            })
        );
        // A `# pass` line outside a footer is not one.
        assert_eq!(counts("./check.sh", "# pass 3\n# fail 0\n", ""), None);
    }

    #[test]
    fn node_test_that_ran_nothing_ran_zero() {
        let none = "TAP version 13
1..0
# tests 0
# suites 0
# pass 0
# fail 0
# cancelled 0
# skipped 0
# todo 0
# duration_ms 2.931666
";
        assert_eq!(judge("node --test", none, ""), zero("node --test"));
        // A name pattern matching nothing skips every test.
        let unmatched = "  ...
1..5
# tests 6
# suites 1
# pass 0
# fail 0
# cancelled 0
# skipped 6
# todo 0
# duration_ms 85.954111
";
        let judged = judgement("node --test --test-name-pattern=nomatch", unmatched, "");
        assert_eq!(judged.objection, zero("node --test"));
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                deselected: 6,
                ..tally("node --test", 0, 0, 0)
            })
        );
        // The footer's end is the output's end.
        assert_eq!(
            judge(
                "node --test",
                none.trim_end_matches("# duration_ms 2.931666\n"),
                ""
            ),
            zero("node --test")
        );
    }

    // --- counts: jest (29) -------------------------------------------------

    #[test]
    fn jest_counts_read_the_summary() {
        let stderr = "PASS jt/a.test.js

Test Suites: 1 passed, 1 total
Tests:       2 skipped, 1 todo, 3 passed, 6 total
Snapshots:   0 total
Time:        0.165 s, estimated 1 s
Ran all test suites matching /jt\\/a/i.
";
        assert_eq!(
            counts("npx jest jt/a", "", stderr),
            Some(tally("jest", 3, 0, 3))
        );
        let failing = "Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 2 skipped, 1 todo, 3 passed, 7 total
Snapshots:   0 total
Time:        0.337 s
Ran all test suites matching /jt/i.
";
        assert_eq!(
            counts("npx jest jt", "", failing),
            Some(TestCounts {
                partial: true,
                ..tally("jest", 3, 1, 3)
            })
        );
        // -t: the tests it leaves out are reported as skipped.
        let filtered = "Test Suites: 1 passed, 1 total
Tests:       5 skipped, 1 passed, 6 total
Snapshots:   0 total
";
        assert_eq!(
            counts("npx jest jt/a -t inner", "", filtered),
            Some(TestCounts {
                deselected: 5,
                ..tally("jest", 1, 0, 0)
            })
        );
        let coloured = "\x1b[1mTests:       \x1b[22m\x1b[1m\x1b[33m2 skipped\x1b[39m\x1b[22m, \x1b[1m\x1b[35m1 todo\x1b[39m\x1b[22m, \x1b[1m\x1b[32m3 passed\x1b[39m\x1b[22m, 6 total\n";
        assert_eq!(
            counts("npx jest --colors", "", coloured),
            Some(tally("jest", 3, 0, 3))
        );
    }

    #[test]
    fn jest_that_ran_nothing_ran_zero() {
        let unmatched = "Test Suites: 1 skipped, 0 of 1 total
Tests:       6 skipped, 6 total
Snapshots:   0 total
Time:        0.172 s, estimated 1 s
Ran all test suites matching /jt\\/a/i with tests matching \"nomatch\".
";
        assert_eq!(
            judge("npx jest jt/a -t nomatch", "", unmatched),
            zero("jest")
        );
        let none = "No tests found, exiting with code 0\n";
        let judged = judgement("npx jest nosuchdir --passWithNoTests", "", none);
        assert_eq!(judged.objection, zero("jest"));
        assert_eq!(judged.counts, None);
    }

    // --- counts: vitest (3.2) ----------------------------------------------

    #[test]
    fn vitest_counts_read_the_summary() {
        let stdout = "
 RUN  v3.2.7 /tmp/tc/js

 ✓ vt/a.test.js (6 tests | 3 skipped) 3ms
 ❯ vt/b.test.js (1 test | 1 failed) 7ms
   × fails 7ms
     → expected 1 to be 2 // Object.is equality

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 3 passed | 2 skipped | 1 todo (7)
   Start at  08:31:59
   Duration  668ms (transform 45ms, setup 0ms, collect 28ms, tests 10ms, environment 0ms, prepare 163ms)
";
        assert_eq!(
            counts("npx vitest run vt", stdout, ""),
            Some(TestCounts {
                partial: true,
                ..tally("vitest", 3, 1, 3)
            })
        );
        let coloured = "\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[32m3 passed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[33m2 skipped\x1b[39m\x1b[2m | \x1b[22m\x1b[90m1 todo\x1b[39m\x1b[90m (6)\x1b[39m\n";
        assert_eq!(
            counts("FORCE_COLOR=1 npx vitest run vt/a", coloured, ""),
            Some(tally("vitest", 3, 0, 3))
        );
    }

    #[test]
    fn vitest_that_ran_nothing_ran_zero() {
        let unmatched = " ↓ vt/a.test.js (6 tests | 6 skipped)

 Test Files  1 skipped (1)
      Tests  6 skipped (6)
   Start at  08:32:07
";
        let judged = judgement("npx vitest run vt/a -t nomatch", unmatched, "");
        assert_eq!(judged.objection, zero("vitest"));
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                deselected: 6,
                ..tally("vitest", 0, 0, 0)
            })
        );
        let none = "
 RUN  v3.2.7 /tmp/tc/js

No test files found, exiting with code 0

filter: nosuchdir
include: **/*.{test,spec}.?(c|m)[jt]s?(x)
";
        assert_eq!(
            judge("npx vitest run nosuchdir --passWithNoTests", none, ""),
            zero("vitest")
        );
        assert_eq!(
            judge("npx vitest run", "      Tests  no tests\n", ""),
            zero("vitest")
        );
    }

    #[test]
    fn js_runners_that_print_nothing_are_not_judged_silent() {
        for command in [
            "npx jest 2>/dev/null",
            "npx vitest run --reporter=json",
            "node --test --test-reporter=dot",
        ] {
            assert_eq!(judge(command, "", ""), None, "{command}");
        }
    }

    // --- counts: several runners -------------------------------------------

    #[test]
    fn several_runners_counts_add_up_under_joined_names() {
        let stdout = format!(
            "{CARGO_STDOUT_IGNORED}3 passed, 1 skipped, 1 deselected, 1 xfailed in 0.03s\n"
        );
        let judged = judgement("cargo test && pytest -q -k 'not sel'", &stdout, "");
        assert_eq!(judged.objection, None);
        assert_eq!(
            judged.counts,
            Some(TestCounts {
                runner: "cargo test+pytest".into(),
                ignored: 3,
                deselected: 1,
                ..tally("", 7, 0, 2)
            })
        );
    }

    #[test]
    fn detects_name_filters() {
        let nextest = |command: &str| name_filtered(command)[Runner::Nextest as usize];
        for command in [
            "cargo nextest run login",
            "cargo nextest run -p zurdo --profile ci login",
            "cargo nextest run -E 'test(login)'",
            "cargo nextest run -Etest(login)",
            "cargo nextest run --filterset=test(login)",
            "cargo nextest run --partition count:1/2",
            "cargo nextest run --run-ignored only",
            "cargo nextest run -- --skip slow",
            "sh -c 'cargo nextest r login'",
        ] {
            assert!(nextest(command), "{command}");
        }
        for command in [
            "cargo nextest run",
            "cargo nextest run --workspace -p zurdo --profile ci --test-threads 2",
            "cargo nextest run --run-ignored all --no-fail-fast",
            "cargo nextest run --features=x --retries=2",
            "cargo test login",
        ] {
            assert!(!nextest(command), "{command}");
        }
        let js = |command: &str| name_filtered(command)[Runner::Jest as usize];
        assert!(js("npx jest -t login"));
        assert!(js("npm test -- --testNamePattern=login"));
        assert!(js("pnpm vitest run --test-name-pattern login"));
        assert!(!js("npx jest src/login"));
        let node = |command: &str| name_filtered(command)[Runner::Node as usize];
        assert!(node("node --test --test-name-pattern=login"));
        assert!(node("NODE_OPTIONS=--test-only node --test"));
        assert!(!node("node --test test/"));
    }
}
