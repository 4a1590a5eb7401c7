//! Every hint kind and failure reason, through the public verifier.

use std::path::Path;
use std::time::{Duration, Instant};

use zurdo::hint::Hint;
use zurdo::verify::{CriterionVerdict, Reason, TestCounts, Verdict, VerificationConfig, Verifier};

/// A repository in a temp dir with the given files.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("repo marker");
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }
    dir
}

fn verifier(root: &Path) -> Verifier {
    verifier_with(root, VerificationConfig::default())
}

fn verifier_with(root: &Path, config: VerificationConfig) -> Verifier {
    Verifier::new(root, config).expect("verifier")
}

/// True when `pid` is a live process (a zombie waiting to be reaped by
/// whatever adopted it is not).
/// SIGKILL is delivered asynchronously, so allow it a moment.
fn alive(pid: &str) -> bool {
    let running = || match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while running() {
        if Instant::now() > deadline {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Parses one criterion line into its hints.
fn hints(line: &str) -> Vec<Hint> {
    let src = format!(
        "# PRD: t\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c {line}\n"
    );
    match zurdo::parse(&src) {
        Ok(prd) => prd.tasks[0].criteria[0].hints.clone(),
        Err(e) => panic!("{line}: {e:?}"),
    }
}

/// The paths of the files a hint read, in order.
fn blob_paths(result: &zurdo::verify::HintResult) -> Vec<&str> {
    result
        .evidence
        .blobs
        .iter()
        .map(|b| b.path.as_str())
        .collect()
}

fn hint(text: &str) -> Hint {
    hints(text).remove(0)
}

fn verdict(root: &Path, text: &str) -> Verdict {
    verifier(root).check(&hint(text)).verdict
}

fn fail(root: &Path, text: &str) -> Reason {
    match verdict(root, text) {
        Verdict::Fail(reason) => reason,
        Verdict::Pass => panic!("{text} passed"),
    }
}

#[test]
fn file_exists_and_absent() {
    let r = repo(&[("src/lib.rs", "pub fn f() {}\n")]);
    let result = verifier(r.path()).check(&hint("[file-exists: src/lib.rs]"));
    assert_eq!(result.verdict, Verdict::Pass);
    assert_eq!(result.evidence.blobs[0].path, "src/lib.rs");
    assert_eq!(
        result.evidence.blobs[0].id,
        zurdo::verify::files::blob_id(b"pub fn f() {}\n")
    );
    assert_eq!(
        verdict(r.path(), "[file-exists: src]"),
        Verdict::Pass,
        "a directory exists too"
    );
    assert_eq!(
        fail(r.path(), "[file-exists: src/main.rs]"),
        Reason::Missing
    );
    assert_eq!(
        verdict(r.path(), "[file-absent: src/main.rs]"),
        Verdict::Pass
    );
    assert_eq!(fail(r.path(), "[file-absent: src/lib.rs]"), Reason::Present);
}

#[test]
fn symlinks_out_of_the_repository_are_escapes() {
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret"), "s").expect("write");
    let r = repo(&[]);
    std::os::unix::fs::symlink(outside.path(), r.path().join("out")).expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("secret"), r.path().join("direct"))
        .expect("symlink");
    for text in [
        "[file-exists: out/secret]",
        "[file-exists: direct]",
        "[grep: s in direct]",
        "[file-absent: out/x]",
    ] {
        assert!(
            matches!(fail(r.path(), text), Reason::PathEscapes { .. }),
            "{text}"
        );
    }
    // A symlink inside the repository is fine.
    std::fs::write(r.path().join("real.txt"), "x").expect("write");
    std::os::unix::fs::symlink("real.txt", r.path().join("alias.txt")).expect("symlink");
    assert_eq!(verdict(r.path(), "[file-exists: alias.txt]"), Verdict::Pass);
}

#[test]
fn grep_over_a_file_a_directory_and_a_glob() {
    let r = repo(&[
        ("src/a.rs", "fn main() {\n    run();\n}\n"),
        ("src/deep/b.rs", "// TODO: later\n"),
        ("docs/x.md", "fn main in prose\n"),
        ("target/gen.rs", "// TODO generated\n"),
        (".gitignore", "target/\n"),
    ]);
    assert_eq!(
        verdict(r.path(), r"[grep: ^\s+run\(\); in src/a.rs]"),
        Verdict::Pass,
        "multi-line mode: ^ is a line start"
    );
    assert_eq!(fail(r.path(), "[grep: nope in src/a.rs]"), Reason::NoMatch);
    assert_eq!(
        verdict(r.path(), "[grep: TODO in src]"),
        Verdict::Pass,
        "a directory is searched recursively"
    );
    assert_eq!(
        verdict(r.path(), "[grep: TODO in src/**/*.rs]"),
        Verdict::Pass,
        "** crosses directories"
    );
    assert_eq!(
        fail(r.path(), "[grep: TODO in src/*.rs]"),
        Reason::NoMatch,
        "* stays in one segment"
    );
    assert_eq!(
        fail(r.path(), "[grep: x in lib/**/*.py]"),
        Reason::GlobMatchedNothing
    );
    assert_eq!(fail(r.path(), "[grep: x in missing.txt]"), Reason::Missing);
    match fail(r.path(), "[no-grep: TODO in **/*.rs]") {
        Reason::Matched { first } => assert_eq!(first, "src/deep/b.rs:1: // TODO: later"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        verdict(r.path(), "[no-grep: TODO in src/*.rs]"),
        Verdict::Pass
    );
    assert_eq!(
        fail(r.path(), "[no-grep: x in nothing/**/*.rs]"),
        Reason::GlobMatchedNothing
    );
    assert_eq!(
        verdict(r.path(), "[no-grep: x in gone.txt]"),
        Verdict::Pass,
        "a missing literal path holds no match"
    );
    // The gitignored target/ is not walked by a glob...
    assert_eq!(
        verdict(r.path(), "[no-grep: generated in **/*.rs]"),
        Verdict::Pass
    );
    // ...but a literal path is read as named.
    assert_eq!(
        verdict(r.path(), "[grep: generated in target/gen.rs]"),
        Verdict::Pass
    );
}

#[test]
fn grep_records_the_blobs_it_read() {
    let r = repo(&[("a.txt", "one\n"), ("b.txt", "two\n")]);
    let result = verifier(r.path()).check(&hint("[no-grep: three in *.txt]"));
    assert_eq!(result.verdict, Verdict::Pass);
    let paths = blob_paths(&result);
    assert_eq!(paths, ["a.txt", "b.txt"]);
}

#[test]
fn shell_verdicts_and_captured_output() {
    let r = repo(&[]);
    let v = verifier(r.path());
    let ok = v.check(&hint("[shell: echo hello]"));
    assert_eq!(ok.verdict, Verdict::Pass);
    assert_eq!(
        ok.evidence.stdout.as_ref().map(|c| c.text.as_str()),
        Some("hello\n")
    );
    let bad = v.check(&hint("[shell: echo oops >&2; exit 7]"));
    assert_eq!(bad.verdict, Verdict::Fail(Reason::ExitCode { code: 7 }));
    assert_eq!(
        bad.evidence.stderr.as_ref().map(|c| c.text.as_str()),
        Some("oops\n")
    );
    assert_eq!(
        v.check(&hint("[shell: kill -TERM $$]")).verdict,
        Verdict::Fail(Reason::Signaled { signal: 15 })
    );
    assert_eq!(
        v.check(&hint("[shell: pwd]"))
            .evidence
            .stdout
            .map(|c| c.text),
        Some(format!("{}\n", v.root().display())),
        "runs at the repository root"
    );
}

#[test]
fn long_output_is_stored_bounded_head_and_tail() {
    let r = repo(&[]);
    let result = verifier(r.path()).check(&hint("[shell: seq 1 100000]"));
    let out = result.evidence.stdout.expect("stdout");
    assert_eq!(out.total_bytes, 588_895);
    assert!(out.text.starts_with("1\n2\n3\n"));
    assert!(out.text.ends_with("99999\n100000\n"));
    assert!(out.text.contains("bytes elided"));
    assert!(out.text.len() < 16 * 1024);
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let r = repo(&[]);
    let config = VerificationConfig {
        criterion_seconds: 1,
        ..Default::default()
    };
    let v = verifier_with(r.path(), config);
    let started = Instant::now();
    let result = v.check(&hint("[shell: sleep 30 & echo $! > bg.pid; sleep 30]"));
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::Timeout { seconds: 1 })
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let pid = std::fs::read_to_string(r.path().join("bg.pid")).expect("pid file");
    assert!(
        !alive(&pid),
        "the background sleep (pid {}) outlived the timeout",
        pid.trim()
    );
}

#[test]
fn background_processes_do_not_outlive_a_finished_hint() {
    let r = repo(&[]);
    let started = Instant::now();
    let result = verifier(r.path()).check(&hint("[shell: sleep 30 & echo $! > bg.pid]"));
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid = std::fs::read_to_string(r.path().join("bg.pid")).expect("pid file");
    std::thread::sleep(Duration::from_millis(100));
    assert!(!alive(&pid), "background process left running");
}

#[test]
fn the_environment_is_allowlisted() {
    // Set in this process, so a hint would inherit them without the allowlist.
    std::env::set_var("ZURDO_TEST_API_TOKEN", "hunter2");
    std::env::set_var("ZURDO_TEST_PLAIN", "plain");
    let r = repo(&[]);
    let result = verifier(r.path()).check(&hint("[shell: env]"));
    let env = result.evidence.stdout.expect("stdout").text;
    assert!(
        !env.contains("hunter2") && !env.contains("ZURDO_TEST_PLAIN"),
        "{env}"
    );
    // Nothing tells a criterion apart from a plain run of the command.
    assert!(
        env.contains("PATH=") && !env.contains("ZURDO_VERIFY"),
        "{env}"
    );

    let config = VerificationConfig {
        env_allowlist: vec!["ZURDO_TEST_*".into()],
        ..Default::default()
    };
    let env = verifier_with(r.path(), config)
        .check(&hint("[shell: env]"))
        .evidence
        .stdout
        .expect("stdout")
        .text;
    assert!(env.contains("ZURDO_TEST_PLAIN=plain"), "{env}");
    assert!(
        !env.contains("hunter2"),
        "a prefix entry never admits a secret-looking name"
    );
    assert!(!env.contains("ZURDO_VERIFY"), "{env}");

    // The opt-in for tests that need to know.
    let config = VerificationConfig {
        zurdo_verify_env: true,
        ..Default::default()
    };
    let env = verifier_with(r.path(), config)
        .check(&hint("[shell: env]"))
        .evidence
        .stdout
        .expect("stdout")
        .text;
    assert!(env.contains("ZURDO_VERIFY=1"), "{env}");
}

#[test]
fn manual_never_passes() {
    let r = repo(&[]);
    assert_eq!(fail(r.path(), "[manual]"), Reason::NeedsReview);
}

#[cfg(feature = "lumen")]
#[test]
fn an_unknown_symbol_is_not_found() {
    let r = repo(&[]);
    for kind in ["symbol", "references", "callers"] {
        assert_eq!(
            fail(r.path(), &format!("[{kind}: Config::load]")),
            Reason::SymbolNotFound {
                name: "Config::load".into(),
                detail: "0 source files indexed".into()
            }
        );
    }
}

/// Checks that every hint of `kinds` parses, fails with
/// [`Reason::NeedsFeature`] naming `feature` with advice to enable it, and
/// fails its criterion, even beside a passing hint.
#[cfg(any(not(feature = "lumen"), not(feature = "http")))]
fn needs_feature(kinds: &[(&str, &str)], feature: &str) {
    let r = repo(&[("src/lib.rs", "pub fn load() {}\npub fn run() { load() }\n")]);
    let v = verifier(r.path());
    for (kind, text) in kinds {
        let reason = fail(r.path(), text);
        assert_eq!(
            reason,
            Reason::NeedsFeature {
                kind: kind.to_string(),
                feature: feature.to_string()
            }
        );
        assert_eq!(
            reason.to_string(),
            format!(
                "[{kind}:] needs zurdo's `{feature}` feature, which this build leaves out; \
                 enable it in Cargo.toml: zurdo = {{ version = \"{}.{}\", features = [\"{feature}\"] }}",
                env!("CARGO_PKG_VERSION_MAJOR"),
                env!("CARGO_PKG_VERSION_MINOR"),
            )
        );
        let src = format!(
            "# PRD: t\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c [file-exists: src/lib.rs] {text}\n"
        );
        let prd = zurdo::parse(&src).expect("the language does not depend on features");
        let result = v.criterion(&prd.tasks[0].criteria[0]);
        assert_eq!(
            result.verdict,
            CriterionVerdict::Failed,
            "never a silent pass"
        );
        assert_eq!(result.failures().count(), 1);
    }
}

#[cfg(not(feature = "lumen"))]
#[test]
fn without_the_lumen_feature_structural_hints_fail_naming_it() {
    needs_feature(
        &[
            ("symbol", "[symbol: load]"),
            ("references", "[references: load]"),
            ("callers", "[callers: load >= 1]"),
            ("callers", "[callers: load from run]"),
        ],
        "lumen",
    );
}

#[cfg(not(feature = "http"))]
#[test]
fn without_the_http_feature_http_hints_fail_naming_it() {
    needs_feature(
        &[
            ("http", "[http: GET http://localhost:8080/health -> 200]"),
            ("http", "[http: POST http://127.0.0.1:1/items -> 201]"),
        ],
        "http",
    );
}

#[test]
fn criteria_and_their_hints() {
    let r = repo(&[("a.txt", "x")]);
    let v = verifier(r.path());
    let criterion = |line: &str| {
        let src = format!(
            "# PRD: t\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c {line}\n"
        );
        zurdo::parse(&src).expect("valid").tasks[0].criteria[0].clone()
    };
    assert_eq!(
        v.criterion(&criterion("[file-exists: a.txt] [shell: true]"))
            .verdict,
        CriterionVerdict::Passed
    );
    let mixed = v.criterion(&criterion(
        "[file-exists: a.txt] [shell: false] [file-exists: b.txt]",
    ));
    assert_eq!(mixed.verdict, CriterionVerdict::Failed);
    assert_eq!(
        mixed.failures().count(),
        2,
        "every hint runs, so every failure is on record"
    );
    assert_eq!(
        v.criterion(&criterion("[file-exists: a.txt] [manual]"))
            .verdict,
        CriterionVerdict::PendingReview
    );
    assert_eq!(
        v.criterion(&criterion("[manual]")).verdict,
        CriterionVerdict::PendingReview
    );
}

#[test]
fn a_broken_config_names_the_key() {
    let r = repo(&[(
        ".zurdo/config.toml",
        "[verification]\ncriterion_seconds = 10\nhttp_limit = 5\n",
    )]);
    let e = VerificationConfig::load(r.path()).expect_err("unknown key");
    let text = e.to_string();
    assert!(
        text.contains("config.toml") && text.contains("line 3") && text.contains("http_limit"),
        "{text}"
    );
}

#[test]
fn a_command_that_cannot_start_is_its_own_reason() {
    let r = repo(&[]);
    let v = verifier(r.path());
    std::fs::remove_dir_all(v.root()).expect("remove the root under the verifier");
    assert!(matches!(
        v.check(&hint("[shell: true]")).verdict,
        Verdict::Fail(Reason::SpawnFailed { .. })
    ));
}

#[test]
fn a_test_runner_that_ran_nothing_fails_whatever_its_exit_code() {
    let r = repo(&[]);
    let v = verifier(r.path());
    let zero = "[shell: printf 'running 0 tests\\n\\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out\\n' # cargo test]";
    assert_eq!(
        v.check(&hint(zero)).verdict,
        Verdict::Fail(Reason::ZeroTests {
            runner: "cargo test".into()
        })
    );
    // Two binaries, 0 + 5 tests: something ran.
    let some = "[shell: printf 'running 0 tests\\nrunning 5 tests\\n']";
    assert_eq!(v.check(&hint(some)).verdict, Verdict::Pass);
    // A cargo test that prints no report at all proves nothing either.
    let silent =
        "[shell: cargo test --offline --manifest-path nowhere/Cargo.toml 2>/dev/null || true]";
    assert_eq!(
        v.check(&hint(silent)).verdict,
        Verdict::Fail(Reason::RunnerSilent {
            runner: "cargo test".into()
        })
    );
}

#[test]
fn a_test_runner_whose_tests_were_all_ignored_ran_nothing() {
    let r = repo(&[]);
    let v = verifier(r.path());
    let ignored = "[shell: printf 'running 2 tests\\ntest a ... ignored\\ntest b ... ignored\\n\\ntest result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out\\n' # cargo test]";
    let result = v.check(&hint(ignored));
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::ZeroTests {
            runner: "cargo test".into()
        })
    );
    assert_eq!(result.evidence.tests.map(|t| t.ignored), Some(2));
}

#[test]
fn shell_evidence_holds_the_tests_the_output_shows_passing_or_failing() {
    let r = repo(&[]);
    let v = verifier(r.path());
    let passing = "[shell: printf 'running 6 tests\\n\\ntest result: ok. 4 passed; 0 failed; 2 ignored; 0 measured; 1 filtered out; finished in 0.00s\\n' # cargo test]";
    let result = v.check(&hint(passing));
    assert_eq!(result.verdict, Verdict::Pass);
    let tests = TestCounts {
        runner: "cargo test".into(),
        passed: 4,
        ignored: 2,
        deselected: 1,
        ..TestCounts::default()
    };
    assert_eq!(result.evidence.tests, Some(tests.clone()));
    let json = serde_json::to_value(&result).expect("serializes");
    assert_eq!(
        json["evidence"]["tests"],
        serde_json::to_value(&tests).expect("serializes")
    );
    // A failing run: the exit code is the reason, the counts stay.
    let failing = "[shell: printf 'running 2 tests\\n\\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\\n'; exit 101]";
    let result = v.check(&hint(failing));
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::ExitCode { code: 101 })
    );
    assert_eq!(
        result.evidence.tests,
        Some(TestCounts {
            runner: "cargo test".into(),
            passed: 1,
            failed: 1,
            partial: true,
            ..TestCounts::default()
        })
    );
    // No summary, no counts (and no `tests` key).
    let result = v.check(&hint("[shell: echo hello]"));
    assert_eq!(result.evidence.tests, None);
    let json = serde_json::to_value(&result).expect("serializes");
    assert!(json["evidence"].get("tests").is_none(), "{json}");
}

#[test]
fn vanished_tests_are_a_reason_naming_both_counts() {
    let before = TestCounts {
        runner: "cargo test".into(),
        passed: 5,
        ..TestCounts::default()
    };
    let now = TestCounts {
        runner: "cargo test".into(),
        passed: 3,
        ignored: 2,
        ..TestCounts::default()
    };
    let reason = zurdo::verify::tests_vanished(Some(&before), Some(&now)).expect("vanished");
    assert_eq!(
        reason.to_string(),
        "cargo test ran 3 tests (2 ignored) where pre-flight ran 5 (0 ignored): tests were removed, \
         skipped, ignored or deselected; restore them (a PRD that means to remove tests says so: \
         see docs/run.md)"
    );
    let json = serde_json::to_value(&reason).expect("serializes");
    assert_eq!(json["reason"], "tests_vanished");
    assert_eq!(json["before"]["passed"], 5);
    assert_eq!(json["now"]["ignored"], 2);
    assert_eq!(
        zurdo::verify::tests_vanished(Some(&now), Some(&before)),
        None
    );
}

#[test]
fn a_regex_too_large_to_build_is_its_own_reason() {
    let r = repo(&[("a.txt", "a")]);
    // Valid syntax but far over the regex size limit: validate refuses it
    // (zurdo/tests/grammar.rs), so the hint is made by hand, as a caller of
    // the verifier that skipped validation might.
    let grep = zurdo::hint::GrepCheck {
        pattern: "(a{1000}){1000}".to_string(),
        target: zurdo::paths::RepoPath::parse("a.txt").expect("path"),
        target_is_glob: false,
    };
    let hint = Hint {
        check: zurdo::hint::Check::Grep(grep),
        source: "[grep: (a{1000}){1000} in a.txt]".to_string(),
    };
    match verifier(r.path()).check(&hint).verdict {
        Verdict::Fail(Reason::BadRegex { error }) => {
            assert!(error.contains("size limit"), "{error}")
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Hostile trees: what an agent can plant in the repository (symlinks out of
// it, FIFOs, endless devices, huge files) never makes a hint read outside
// the repository, hang or exhaust memory; each guard beside honest work.

/// Runs `f` on another thread, failing the test if it takes over `secs`
/// (a hang would otherwise hang the test run).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(value) => value,
        Err(_) => panic!("still running after {secs}s: it hangs"),
    }
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

/// The check of `text` in `root`, bounded in time.
fn check_within(root: &Path, text: &str) -> zurdo::verify::HintResult {
    let v = verifier(root);
    let h = hint(text);
    within(10, move || v.check(&h))
}

#[test]
fn a_glob_or_directory_through_a_symlink_out_of_the_repository_reads_nothing_outside() {
    std::env::set_var("ZURDO_TEST_GLOB_SECRET", "s3cr3t-from-the-environment");
    let r = repo(&[
        ("src/a.rs", "PATH honest\n"),
        ("src/deep/b.rs", "fn b() {}\n"),
    ]);
    std::os::unix::fs::symlink("/", r.path().join("rootlink")).expect("symlink");
    for text in [
        "[no-grep: PATH in rootlink/proc/self/env*]",
        "[grep: PATH in rootlink/proc/self/env*]",
        "[no-grep: root in rootlink/etc/*]",
        "[no-grep: root in rootlink/etc]",
        "[grep: root in rootlink/etc/**/passwd]",
    ] {
        let result = check_within(r.path(), text);
        let shown = format!("{:?} {:?}", result.verdict, result.evidence);
        assert!(
            matches!(result.verdict, Verdict::Fail(Reason::PathEscapes { .. })),
            "{text}: {shown}"
        );
        assert!(
            !shown.contains("s3cr3t")
                && !shown.contains("root:x:")
                && result.evidence.blobs.is_empty(),
            "{text} read outside the repository: {shown}"
        );
    }
    // The same hints over the repository's own files work, the symlink
    // passed over (not followed) and named.
    let result = check_within(r.path(), "[grep: PATH in **/*.rs]");
    assert_eq!(result.verdict, Verdict::Pass);
    let result = check_within(r.path(), "[no-grep: s3cr3t in **/*]");
    assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
    let note = result.evidence.note.clone().unwrap_or_default();
    assert!(
        note.contains("rootlink (a symlink leaving the repository, not followed)"),
        "{note}"
    );
    let paths = blob_paths(&result);
    assert_eq!(paths, ["src/a.rs", "src/deep/b.rs"]);
}

#[test]
fn a_symlinked_directory_inside_the_repository_is_followed_as_a_start_never_in_a_walk() {
    let r = repo(&[("src/a.rs", "needle\n"), ("docs/x.md", "hay\n")]);
    std::os::unix::fs::symlink("src", r.path().join("code")).expect("symlink");
    std::os::unix::fs::symlink("../src", r.path().join("docs/code")).expect("symlink");
    // As the start of a walk (a directory target, a glob's directory) it is
    // resolved, and files are shown under the path as written.
    for text in ["[grep: needle in code]", "[grep: needle in code/*.rs]"] {
        let result = check_within(r.path(), text);
        assert_eq!(result.verdict, Verdict::Pass, "{text}");
        assert_eq!(result.evidence.blobs[0].path, "code/a.rs", "{text}");
    }
    // Met during a walk, it is not followed (src/a.rs is found once, by
    // its own path).
    let result = check_within(r.path(), "[grep: needle in **/*.rs]");
    let paths = blob_paths(&result);
    assert_eq!(paths, ["src/a.rs"]);
    assert_eq!(
        fail(r.path(), "[grep: needle in docs]"),
        Reason::NoMatch,
        "docs/code is not followed"
    );
}

#[test]
fn fifos_are_refused_or_passed_over_never_waited_on() {
    let r = repo(&[("src/a.rs", "fn a() {}\n")]);
    mkfifo(&r.path().join("pipe.txt"));
    mkfifo(&r.path().join("src/pipe.rs"));
    // A literal FIFO: a typed failure, at once.
    let result = check_within(r.path(), "[grep: x in pipe.txt]");
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::NotRegular {
            path: "pipe.txt".into(),
            kind: "a FIFO".into()
        })
    );
    assert!(matches!(
        check_within(r.path(), "[no-grep: x in pipe.txt]").verdict,
        Verdict::Fail(Reason::NotRegular { .. })
    ));
    // [file-exists:] on a FIFO: it exists; it is not opened.
    let result = check_within(r.path(), "[file-exists: pipe.txt]");
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(result.evidence.blobs.is_empty());
    assert_eq!(
        result.evidence.note.as_deref(),
        Some("pipe.txt exists (a FIFO; not a regular file, so it is not read)")
    );
    assert_eq!(
        check_within(r.path(), "[file-absent: pipe.txt]").verdict,
        Verdict::Fail(Reason::Present)
    );
    // A glob that matches one passes it over and says so; the regular
    // files beside it are searched.
    let result = check_within(r.path(), "[grep: fn a in src/*.rs]");
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(
        result
            .evidence
            .note
            .as_deref()
            .is_some_and(|n| n.contains("src/pipe.rs (a FIFO, not read)")),
        "{:?}",
        result.evidence.note
    );
    // Through a symlink inside the repository, still a FIFO.
    std::os::unix::fs::symlink("pipe.txt", r.path().join("alias")).expect("symlink");
    assert!(matches!(
        check_within(r.path(), "[grep: x in alias]").verdict,
        Verdict::Fail(Reason::NotRegular { .. })
    ));
}

#[test]
fn an_ignore_file_that_is_a_fifo_or_leads_outside_fails_the_walk_instead_of_hanging() {
    let r = repo(&[("src/a.rs", "fn a() {}\n"), (".gitignore", "target/\n")]);
    // Honest: a regular .gitignore is honoured.
    assert_eq!(
        check_within(r.path(), "[grep: fn in src/**/*.rs]").verdict,
        Verdict::Pass
    );
    mkfifo(&r.path().join("src/.gitignore"));
    let result = check_within(r.path(), "[grep: fn in src/**/*.rs]");
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::NotRegular {
            path: "src/.gitignore".into(),
            kind: "a FIFO".into()
        })
    );
    std::fs::remove_file(r.path().join("src/.gitignore")).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", r.path().join("src/.ignore")).expect("symlink");
    assert!(matches!(
        check_within(r.path(), "[no-grep: x in src]").verdict,
        Verdict::Fail(Reason::PathEscapes { .. })
    ));
    std::fs::remove_file(r.path().join("src/.ignore")).expect("rm");
    std::fs::create_dir_all(r.path().join(".git/info")).expect("mkdir");
    mkfifo(&r.path().join(".git/info/exclude"));
    assert!(matches!(
        check_within(r.path(), "[no-grep: x in **/*.rs]").verdict,
        Verdict::Fail(Reason::NotRegular { .. })
    ));
}

#[test]
fn ignore_files_keep_their_meaning() {
    let r = repo(&[
        (".gitignore", "*.log\nbuild/\n!keep.log\n"),
        ("a.log", "needle\n"),
        ("keep.log", "kept\n"),
        ("build/x.txt", "needle\n"),
        ("sub/.gitignore", "local.txt\n"),
        ("sub/local.txt", "needle\n"),
        ("sub/other.txt", "other\n"),
        ("sub/.ignore", "!a.log\n"),
        ("sub/a.log", "reincluded\n"),
        ("excluded.txt", "needle\n"),
        (".git/info/exclude", "excluded.txt\n"),
    ]);
    let result = check_within(r.path(), "[no-grep: needle in **/*]");
    assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
    let paths = blob_paths(&result);
    assert_eq!(
        paths,
        [
            ".gitignore",
            "keep.log",
            "sub/.gitignore",
            "sub/.ignore",
            "sub/a.log",
            "sub/other.txt"
        ]
    );
    // A walk that starts below the root still honours the root's rules.
    let result = check_within(r.path(), "[no-grep: needle in sub]");
    assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
}

#[test]
fn endless_devices_and_huge_files_are_never_read_whole() {
    let r = repo(&[("small.txt", "needle\n")]);
    std::os::unix::fs::symlink("/dev/zero", r.path().join("zero")).expect("symlink");
    for text in [
        "[grep: x in zero]",
        "[file-exists: zero]",
        "[no-grep: x in zero]",
    ] {
        assert!(
            matches!(
                check_within(r.path(), text).verdict,
                Verdict::Fail(Reason::PathEscapes { .. })
            ),
            "{text}"
        );
    }
    // A file over the read limit (sparse: no disk is used).
    let big = std::fs::File::create(r.path().join("big.bin")).expect("create");
    big.set_len(zurdo::verify::files::READ_LIMIT + 1)
        .expect("grow");
    drop(big);
    let result = check_within(r.path(), "[no-grep: needle in *]");
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::TooLarge {
            path: "big.bin".into(),
            size: zurdo::verify::files::READ_LIMIT + 1,
            limit: zurdo::verify::files::READ_LIMIT,
        })
    );
    // It exists all the same (unhashed, and says so).
    let result = check_within(r.path(), "[file-exists: big.bin]");
    assert_eq!(result.verdict, Verdict::Pass);
    assert!(result.evidence.blobs.is_empty());
    assert!(
        result
            .evidence
            .note
            .as_deref()
            .is_some_and(|n| n.contains("not hashed")),
        "{:?}",
        result.evidence.note
    );
    // Honest files beside it are read.
    assert_eq!(
        check_within(r.path(), "[grep: needle in small.txt]").verdict,
        Verdict::Pass
    );
}

#[test]
fn the_verification_window_does_not_wait_on_a_fifo_swapped_in() {
    let r = repo(&[("a.txt", "ok\n")]);
    let v = verifier(r.path());
    let criterion = zurdo::model::Criterion {
        title: "ok".into(),
        line: 1,
        hints: hints("[grep: ok in a.txt]"),
        proves: Vec::new(),
        removes_tests: false,
    };
    let mut results = vec![v.criterion(&criterion)];
    assert_eq!(results[0].verdict, CriterionVerdict::Passed);
    std::fs::remove_file(r.path().join("a.txt")).expect("rm");
    mkfifo(&r.path().join("a.txt"));
    let root = v.root().to_path_buf();
    let (changed, results) = within(10, move || {
        let changed = zurdo::verify::window::close(&root, &mut results);
        (changed, results)
    });
    assert_eq!(changed, ["a.txt"]);
    assert_eq!(results[0].verdict, CriterionVerdict::Failed);
}

#[test]
fn a_config_that_is_a_fifo_is_an_error_naming_it_not_a_hang() {
    let r = repo(&[]);
    std::fs::create_dir(r.path().join(".zurdo")).expect("mkdir");
    mkfifo(&r.path().join(".zurdo/config.toml"));
    let root = r.path().to_path_buf();
    let e = within(10, move || VerificationConfig::load(&root)).expect_err("a FIFO");
    let text = e.to_string();
    assert!(
        text.contains(".zurdo/config.toml: cannot read: not a regular file (a FIFO)"),
        "{text}"
    );
    // Honest: a regular config loads.
    std::fs::remove_file(r.path().join(".zurdo/config.toml")).expect("rm");
    std::fs::write(
        r.path().join(".zurdo/config.toml"),
        "[verification]\ncriterion_seconds = 5\n",
    )
    .expect("write");
    assert_eq!(
        VerificationConfig::load(r.path())
            .expect("loads")
            .criterion_seconds,
        5
    );
}

#[test]
fn output_without_end_is_held_bounded_and_its_size_recorded() {
    let r = repo(&[]);
    let config = VerificationConfig {
        criterion_seconds: 2,
        ..Default::default()
    };
    let v = verifier_with(r.path(), config);
    let result = within(20, move || v.check(&hint("[shell: yes]")));
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::Timeout { seconds: 2 })
    );
    let out = result.evidence.stdout.expect("stdout");
    // Far more than is kept was read and counted (how much more depends
    // on how fast `yes` ran in 2 s on this machine, so the bound is low).
    assert!(out.total_bytes > 256 << 10, "{}", out.total_bytes);
    assert!(out.is_cut() && out.text.len() < 16 * 1024);
    assert_eq!(
        out.cut_note(),
        Some(format!("{} bytes in all, the middle cut", out.total_bytes))
    );
    assert!(out.text.starts_with("y\ny\n") && out.text.contains("bytes elided"));
}

#[test]
fn zero_tests_in_the_cut_middle_of_a_long_output_are_still_seen() {
    let r = repo(&[]);
    // `running 0 tests` between two megabytes-long stretches of output:
    // far from both ends the evidence keeps.
    let middle = "[shell: seq 1 400000; printf 'running 0 tests\\n'; seq 1 400000 >&2; seq 1 400000 # cargo test]";
    let result = check_within(r.path(), middle);
    assert_eq!(
        result.verdict,
        Verdict::Fail(Reason::ZeroTests {
            runner: "cargo test".into()
        })
    );
    let out = result.evidence.stdout.expect("stdout");
    assert!(out.is_cut() && !out.text.contains("running 0 tests"));
    // Honest: the same output with tests that ran passes.
    let honest = middle.replace("running 0 tests", "running 4 tests");
    assert_eq!(check_within(r.path(), &honest).verdict, Verdict::Pass);
}

#[test]
fn a_criterion_s_parent_holds_only_the_allowlisted_environment() {
    std::env::set_var("ZURDO_TEST_PARENT_SECRET", "parent-s3cret");
    let r = repo(&[]);
    let result = verifier(r.path()).check(&hint("[shell: tr '\\0' '\\n' < /proc/$PPID/environ]"));
    assert_eq!(result.verdict, Verdict::Pass, "{:?}", result.evidence);
    let env = result.evidence.stdout.expect("stdout").text;
    assert!(
        !env.contains("parent-s3cret") && !env.contains("ZURDO_TEST_PARENT_SECRET"),
        "{env}"
    );
    // Honest: the parent is there and holds the allowlisted environment.
    assert!(env.contains("PATH="), "{env}");
}

#[test]
fn the_launcher_reports_the_command_s_own_ending() {
    let r = repo(&[]);
    let v = verifier(r.path());
    assert_eq!(
        v.check(&hint("[shell: kill -KILL $$]")).verdict,
        Verdict::Fail(Reason::Signaled { signal: 9 })
    );
    assert_eq!(
        v.check(&hint("[shell: sh -c 'kill -SEGV $$']")).verdict,
        Verdict::Fail(Reason::Signaled { signal: 11 }),
        "the last command's signal, as sh reports it"
    );
    assert_eq!(
        v.check(&hint("[shell: exit 3]")).verdict,
        Verdict::Fail(Reason::ExitCode { code: 3 })
    );
    // 128 + SIGSTOP: never raised (the launcher would stop, not end).
    let root = r.path().to_path_buf();
    let stop = within(10, move || {
        verifier(&root).check(&hint("[shell: exit 147]"))
    });
    assert_eq!(stop.verdict, Verdict::Fail(Reason::ExitCode { code: 147 }));
    assert!(
        !r.path().join("core").exists(),
        "no core file from the launcher"
    );
}

/// Run by `same_user_processes_cannot_read_a_protected_zurdo` as another
/// user: checks a criterion reading its grandparent's (this process's)
/// environment, after protecting it when `ZURDO_PROTECT_HELPER=protect`.
#[test]
#[ignore = "a helper: run by same_user_processes_cannot_read_a_protected_zurdo"]
fn protected_environment_helper() {
    let Ok(mode) = std::env::var("ZURDO_PROTECT_HELPER") else {
        return;
    };
    if mode == "protect" {
        assert!(zurdo::exec::protect_own_environment());
    }
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("repo marker");
    let result = verifier(dir.path()).check(&hint(
        "[shell: gp=$(cut -d' ' -f4 /proc/$PPID/stat); tr '\\0' '\\n' < /proc/$gp/environ]",
    ));
    let text = |c: Option<zurdo::verify::Captured>| c.map(|c| c.text).unwrap_or_default();
    println!(
        "stdout: {}\nstderr: {}",
        text(result.evidence.stdout),
        text(result.evidence.stderr)
    );
}

#[test]
fn same_user_processes_cannot_read_a_protected_zurdo() {
    // Needs two processes of one unprivileged user: as root, setpriv makes
    // them; otherwise there is no other user to become, and this is skipped.
    // SAFETY: geteuid(2) takes no arguments and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = Path::new("/usr/bin/setpriv");
    if !root || !setpriv.exists() {
        eprintln!("skipped: needs root and setpriv to run the check as another user");
        return;
    }
    let exe = std::env::current_exe().expect("this test binary");
    for (mode, readable) in [("plain", true), ("protect", false)] {
        let out = std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&exe)
            .args([
                "--exact",
                "protected_environment_helper",
                "--ignored",
                "--nocapture",
            ])
            .env("ZURDO_PROTECT_HELPER", mode)
            .env("ZURDO_TEST_GRANDPARENT_SECRET", "grandparent-s3cret")
            .output()
            .expect("setpriv runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("stdout: "), "{mode}: the helper ran: {text}");
        assert_eq!(
            text.contains("grandparent-s3cret"),
            readable,
            "{mode}: {text}"
        );
    }
}

#[test]
fn escape_sequences_are_shown_escaped_never_raw() {
    let r = repo(&[("notes.txt", "line with \x1b]0;pwned\x07 title\n")]);
    std::fs::write(r.path().join("evil-\x1b[2J.txt"), "needle\n").expect("write");
    let v = verifier(r.path());
    let src = "# PRD: e\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
               ### Acceptance Criteria\n\
               - [ ] out [shell: printf '\\033\\1350;pwned\\007\\033\\1332J\\033\\13331mred\\tcol é\\n'; exit 1]\n\
               - [ ] names [no-grep: needle in *.txt]\n\
               - [ ] lines [no-grep: title in notes.txt]\n";
    let prd = zurdo::parse(src).expect("valid");
    for criterion in &prd.tasks[0].criteria {
        let result = v.criterion(criterion);
        assert_eq!(result.verdict, CriterionVerdict::Failed);
        let shown = zurdo::verify::render::failure("prds/e.md", criterion, &result);
        assert!(
            !shown.contains('\x1b') && !shown.contains('\x07'),
            "{}: {shown:?}",
            criterion.title
        );
        assert!(shown.contains("\\u{1b}"), "{}: {shown}", criterion.title);
        // The evidence's text holds no raw escape either (it is shown in
        // retry prompts and reports too); blob paths stay as they are on
        // disk (they are read again), escaped wherever they are shown.
        for h in &result.hints {
            let mut texts = vec![h.evidence.note.clone().unwrap_or_default()];
            if let Verdict::Fail(reason) = &h.verdict {
                texts.push(reason.to_string());
            }
            for c in [&h.evidence.stdout, &h.evidence.stderr]
                .into_iter()
                .flatten()
            {
                texts.push(c.text.clone());
            }
            assert!(
                texts
                    .iter()
                    .all(|t| !t.contains('\x1b') && !t.contains('\x07')),
                "{texts:?}"
            );
        }
    }
    // Honest output keeps its tabs, line feeds and letters as they are.
    let result = v.check(&hint("[shell: printf 'a\\tb é\\r\\nc\\n']"));
    assert_eq!(
        result.evidence.stdout.expect("stdout").text,
        "a\tb é\r\nc\n"
    );
}
