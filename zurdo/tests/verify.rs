//! Every hint kind and failure reason, through the public verifier.

use std::path::Path;
use std::time::{Duration, Instant};

use zurdo::hint::Hint;
use zurdo::verify::{CriterionVerdict, Reason, Verdict, VerificationConfig, Verifier};

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
    let paths: Vec<&str> = result
        .evidence
        .blobs
        .iter()
        .map(|b| b.path.as_str())
        .collect();
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
    assert!(
        env.contains("PATH=") && env.contains("ZURDO_VERIFY=1"),
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
