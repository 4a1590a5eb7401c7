//! The cargo-test harness end to end: a fixture crate whose
//! `tests/prd.rs` is `zurdo::prd!("prds/demo.md")`, built and run with the
//! real `cargo test` (and `cargo nextest`), offline.
//!
//! The fixture lives in `tests/fixtures/harness/`. Each test run copies it
//! to `CARGO_TARGET_TMPDIR/harness-fixture/<copy>/` with a `.git` directory,
//! so the verifier's repository root is the copy (not this repository), and
//! points its `zurdo` dependency at this checkout. All copies build into one
//! target directory, `CARGO_TARGET_TMPDIR/harness-target`, where the first
//! run compiles zurdo and its dependencies once; later runs only recompile
//! the fixture's test target.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The trial names in run order: `task-build` comes first although the PRD
/// lists it second, because `task-report` depends on it.
const NAMES: [&str; 6] = [
    "task_build::the_manifest_is_there",
    "task_build::the_long_check_passes",
    "task_build::the_library_exists",
    "task_build::the_library_exists_2",
    "task_report::the_answer_is_documented",
    "task_report::the_wording_reads_well",
];

const LONG_CHECK_HINT: &str =
    r#"[shell: i=1; while [ $i -le 30 ]; do echo "line $i of 30"; i=$((i+1)); done; exit 1]"#;

#[test]
fn list_prints_exactly_the_trial_names_in_run_order() {
    let dir = shared();
    let out = cargo_test(dir, &["--list"]);
    assert_exit(&out, 0);
    let expected: String = NAMES.iter().map(|n| format!("{n}: test\n")).collect();
    assert_eq!(stdout(&out), expected, "--list stdout, whole");
    for name in NAMES {
        let (task, criterion) = name.split_once("::").expect("task::criterion");
        assert!(is_identifier(task) && is_identifier(criterion), "{name}");
    }
    let again = cargo_test(dir, &["--list"]);
    assert_eq!(stdout(&again), expected, "the order is stable");
}

#[test]
fn a_run_fails_and_explains_each_failure() {
    let out = cargo_test(shared(), &[]);
    assert_exit(&out, 101);
    let text = stdout(&out);
    assert!(
        text.contains(
            "test result: FAILED. 3 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out"
        ),
        "{text}"
    );
    let long = section(&text, "task_build::the_long_check_passes");
    assert!(
        long.contains("prds/demo.md:28: the long check passes"),
        "{long}"
    );
    assert!(
        long.contains(&format!("{LONG_CHECK_HINT} failed: exited with code 1")),
        "the hint as written and the typed reason:\n{long}"
    );
    assert!(long.contains("stdout (last 20 lines):"), "{long}");
    assert!(long.contains("| line 11 of 30\n"), "{long}");
    assert!(long.contains("| line 30 of 30"), "{long}");
    assert!(
        !long.contains("line 10 of 30"),
        "only the last 20 lines:\n{long}"
    );
    assert!(
        !long.contains("line 1 of 30"),
        "only the last 20 lines:\n{long}"
    );

    let grep = section(&text, "task_report::the_answer_is_documented");
    assert!(
        grep.contains("[grep: THE ANSWER IS 42 in src/lib.rs] failed: no line matches"),
        "{grep}"
    );
    assert!(grep.contains("searched 1 file(s)"), "{grep}");
}

#[test]
fn exact_runs_one_trial() {
    let out = cargo_test(shared(), &["--exact", "task_build::the_library_exists"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert_eq!(
        ran(&text),
        ["task_build::the_library_exists ... ok"],
        "{text}"
    );
    assert!(
        text.contains("1 passed; 0 failed; 0 ignored; 0 measured; 5 filtered out"),
        "{text}"
    );
}

#[test]
fn a_filter_runs_the_matching_subset() {
    let out = cargo_test(shared(), &["task_report"]);
    assert_exit(&out, 101);
    let text = stdout(&out);
    assert_eq!(
        sorted(ran(&text)),
        [
            "task_report::the_answer_is_documented ... FAILED",
            "task_report::the_wording_reads_well ... ignored",
        ],
        "{text}"
    );
    assert!(
        text.contains("0 passed; 1 failed; 1 ignored; 0 measured; 4 filtered out"),
        "{text}"
    );
}

#[test]
fn a_passing_subset_exits_zero() {
    let out = cargo_test(shared(), &["the_library_exists"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert_eq!(
        sorted(ran(&text)),
        [
            "task_build::the_library_exists ... ok",
            "task_build::the_library_exists_2 ... ok",
        ],
        "{text}"
    );
}

#[test]
fn ignored_runs_the_manual_trial_which_awaits_review() {
    let out = cargo_test(shared(), &["--ignored"]);
    assert_exit(&out, 101);
    let text = stdout(&out);
    assert_eq!(
        ran(&text),
        ["task_report::the_wording_reads_well ... FAILED"],
        "{text}"
    );
    let manual = section(&text, "task_report::the_wording_reads_well");
    assert!(
        manual.contains(
            "prds/demo.md:17: the wording reads well\n  [manual] failed: needs a human sign-off (never passes automatically)"
        ),
        "{manual}"
    );
}

#[test]
fn one_test_thread_runs_the_trials_in_order() {
    let out = cargo_test(shared(), &["--test-threads", "1"]);
    assert_exit(&out, 101);
    let text = stdout(&out);
    let verdicts = ["ok", "FAILED", "ok", "ok", "FAILED", "ignored"];
    let expected: Vec<String> = NAMES
        .iter()
        .zip(verdicts)
        .map(|(name, verdict)| format!("{name} ... {verdict}"))
        .collect();
    assert_eq!(ran(&text), expected, "{text}");
}

#[test]
fn json_format_prints_one_event_per_line() {
    let out = cargo_test(shared(), &["--format", "json", "-Z", "unstable-options"]);
    assert_exit(&out, 101);
    let text = stdout(&out);
    let events: Vec<serde_json::Value> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}\n{text}"))
        })
        .collect();
    let first = &events[0];
    assert_eq!(first["type"], "suite", "{text}");
    assert_eq!(first["event"], "started", "{text}");
    assert_eq!(first["test_count"], 6, "{text}");
    let failed: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["type"] == "test" && e["event"] == "failed")
        .collect();
    let mut failed_names: Vec<&str> = failed.iter().filter_map(|e| e["name"].as_str()).collect();
    failed_names.sort_unstable();
    assert_eq!(
        failed_names,
        [
            "task_build::the_long_check_passes",
            "task_report::the_answer_is_documented"
        ],
        "{text}"
    );
    let last = events.last().expect("events");
    assert_eq!(last["type"], "suite", "{text}");
    assert_eq!(last["event"], "failed", "{text}");
}

#[test]
fn editing_only_the_prd_rebuilds_the_harness() {
    let dir = copy_fixture("edited");
    // Its own package name: cargo hashes a path package relative to its
    // workspace root, so two copies of one fixture would share (and
    // overwrite) one test binary in the shared target directory.
    let manifest = dir.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).expect("read the manifest");
    let renamed = text.replace(
        r#"name = "harness-fixture""#,
        r#"name = "harness-fixture-edited""#,
    );
    assert_ne!(text, renamed, "the fixture is named harness-fixture");
    fs::write(&manifest, renamed).expect("write the manifest");
    build(&dir);
    let before = cargo_test(&dir, &["--list"]);
    assert_exit(&before, 0);
    assert!(stdout(&before).contains("task_build::the_manifest_is_there: test\n"));

    let prd = dir.join("prds/demo.md");
    let text = fs::read_to_string(&prd).expect("read the PRD");
    let edited = text.replace("the manifest is there", "the manifest is present");
    assert_ne!(text, edited, "the edit changes the PRD");
    fs::write(&prd, edited).expect("write the PRD");

    let after = cargo_test(&dir, &["--list"]);
    assert_exit(&after, 0);
    let listed = stdout(&after);
    assert!(
        listed.contains("task_build::the_manifest_is_present: test\n"),
        "{listed}"
    );
    assert!(!listed.contains("the_manifest_is_there"), "{listed}");
    assert!(
        stderr(&after).contains("Compiling harness-fixture-edited"),
        "the PRD edit alone recompiled the test target:\n{}",
        stderr(&after)
    );
}

#[test]
fn nextest_discovers_the_same_names() {
    let version = cargo().args(["nextest", "--version"]).output();
    if !version.is_ok_and(|v| v.status.success()) {
        eprintln!(
            "note: cargo-nextest is not installed; skipping nextest_discovers_the_same_names"
        );
        return;
    }
    let dir = shared();
    let out = nested(dir, &["nextest", "run", "--test", "prd"])
        .args(["--no-fail-fast", "--run-ignored", "all", "--color", "never"])
        .output()
        .expect("run cargo nextest");
    assert_exit(&out, 100);
    let log = stderr(&out);
    let mut seen: Vec<(String, &str)> = Vec::new();
    for line in log.lines() {
        let line = line.trim_start();
        let status = match line.split_whitespace().next() {
            Some(status @ ("PASS" | "FAIL")) => status,
            _ => continue,
        };
        let name = line
            .split_once("harness-fixture::prd ")
            .map(|(_, name)| name.trim().to_string())
            .unwrap_or_else(|| panic!("no test name in {line:?}"));
        if !seen.iter().any(|(n, _)| *n == name) {
            seen.push((name, status));
        }
    }
    seen.sort();
    let mut expected: Vec<(String, &str)> = NAMES
        .iter()
        .zip(["PASS", "FAIL", "PASS", "PASS", "FAIL", "FAIL"])
        .map(|(name, status)| (name.to_string(), status))
        .collect();
    expected.sort();
    assert_eq!(seen, expected, "{log}");
}

/// The shared fixture copy, built once per test process.
fn shared() -> &'static Path {
    static SHARED: OnceLock<PathBuf> = OnceLock::new();
    SHARED.get_or_init(|| {
        let dir = copy_fixture("shared");
        build(&dir);
        dir
    })
}

/// A fresh copy of the fixture at `CARGO_TARGET_TMPDIR/harness-fixture/<name>`.
fn copy_fixture(name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/harness");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("harness-fixture")
        .join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).expect("remove the old fixture copy");
    }
    copy_dir(&source, &dir);
    fs::create_dir(dir.join(".git")).expect("create the .git marker");

    let manifest = dir.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).expect("read the fixture manifest");
    let zurdo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pointed = text.replace(
        r#"path = "../../../""#,
        &format!("path = {:?}", zurdo.display().to_string()),
    );
    assert_ne!(text, pointed, "the fixture names zurdo as ../../../");
    fs::write(&manifest, pointed).expect("write the fixture manifest");

    // The workspace's lock file, so the offline build picks the versions
    // this workspace already has (cargo drops the entries it does not need).
    let lock = zurdo.join("../Cargo.lock");
    if lock.exists() {
        fs::copy(&lock, dir.join("Cargo.lock")).expect("copy Cargo.lock");
    }
    dir
}

/// Copies a directory tree. The copies get fresh modification times, so
/// cargo always rebuilds the fixture's test target from what was copied.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create the fixture copy");
    for entry in fs::read_dir(from).expect("read the fixture") {
        let entry = entry.expect("read the fixture");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            if entry.file_name() != "target" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            fs::copy(entry.path(), &target).expect("copy a fixture file");
        }
    }
}

fn build(dir: &Path) {
    let out = nested(dir, &["test", "--test", "prd", "--no-run"])
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "building the fixture failed:\n{}",
        stderr(&out)
    );
}

/// `cargo test --test prd -- <args>` in `dir`.
fn cargo_test(dir: &Path, args: &[&str]) -> Output {
    nested(dir, &["test", "--test", "prd", "--"])
        .args(args)
        .output()
        .expect("run cargo test")
}

/// A cargo command for the fixture copy (`--offline` goes before any
/// `--`): offline, uncoloured, with the
/// shared target directory and without the outer runner's settings.
fn nested(dir: &Path, args: &[&str]) -> Command {
    let mut command = cargo();
    let (options, trial_args) = match args.iter().position(|&a| a == "--") {
        Some(at) => args.split_at(at),
        None => (args, &[][..]),
    };
    command
        .args(options)
        .arg("--offline")
        .args(trial_args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .stdin(Stdio::null());
    for (key, _) in std::env::vars_os() {
        let key_str = key.to_string_lossy();
        if key_str.starts_with("NEXTEST") || key_str == "RUST_TEST_THREADS" {
            command.env_remove(&key);
        }
    }
    command
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsStr::new("cargo").to_owned()))
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness-target")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status\n--- stdout\n{}\n--- stderr\n{}",
        stdout(out),
        stderr(out)
    );
}

/// The `test <name> ... <verdict>` lines, without the `test ` and padding.
fn ran(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("test "))
        .filter_map(|rest| {
            let (name, verdict) = rest.split_once(" ... ")?;
            Some(format!("{} ... {verdict}", name.trim_end()))
        })
        .collect()
}

fn sorted(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines
}

/// The failure output of one trial: from its `---- name ----` header to the
/// next blank-line-separated header.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let header = format!("---- {name} ----\n");
    let start = text
        .find(&header)
        .unwrap_or_else(|| panic!("no failure section for {name}:\n{text}"))
        + header.len();
    let rest = &text[start..];
    let end = rest.find("\n\n").unwrap_or(rest.len());
    &rest[..end]
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
