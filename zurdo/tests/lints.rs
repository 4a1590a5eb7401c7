//! The lint families, each checked in both directions: it fires on a bad
//! criterion and stays silent on a good, near-identical one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use zurdo::lint::{self, Lint, LintContext, FAMILIES, VALIDATE_FAMILIES};

/// Line of the first criterion in [`with_criteria`] PRDs.
const FIRST: usize = 11;

/// A one-task PRD with the given criterion lines.
fn with_criteria(criteria: &str) -> String {
    format!(
        "# PRD: Demo\n\n## Task: task-1 — Do it\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\nWords.\n\n### Acceptance Criteria\n{criteria}\n"
    )
}

/// A second task to append to a [`with_criteria`] PRD.
fn second_task(criteria: &str) -> String {
    format!(
        "\n## Task: task-2 — Then this\n**Effort**: low\n**Depends-on**: [task-1]\n\n\
         ### Description\nMore words.\n\n### Acceptance Criteria\n{criteria}\n"
    )
}

fn lint_source(source: &str, ctx: &LintContext<'_>) -> Vec<Lint> {
    let prd = zurdo::parse(source).unwrap_or_else(|errors| {
        panic!("test PRD does not parse: {errors:#?}\n---\n{source}");
    });
    let lints = lint::lint(&prd, ctx);
    for l in &lints {
        assert!(
            VALIDATE_FAMILIES.contains(&l.family),
            "unknown family {}",
            l.family
        );
        assert!(!l.fix.trim().is_empty(), "{l:?} has no fix");
        assert!(!l.message.trim().is_empty(), "{l:?} has no message");
    }
    lints
}

/// The lints of one family.
fn family(family: &str, source: &str, ctx: &LintContext<'_>) -> Vec<Lint> {
    lint_source(source, ctx)
        .into_iter()
        .filter(|l| l.family == family)
        .collect()
}

/// The lints of one family for a one-task PRD with one criterion line.
fn one(family_name: &str, criterion: &str) -> Vec<Lint> {
    family(
        family_name,
        &with_criteria(criterion),
        &LintContext::default(),
    )
}

#[track_caller]
fn assert_fires(lints: &[Lint], line: usize, quoted: &str) -> Lint {
    assert_eq!(lints.len(), 1, "expected one lint, got {lints:#?}");
    let l = &lints[0];
    assert_eq!(l.line, line, "{l:?}");
    assert!(
        l.message.contains(quoted),
        "message should name `{quoted}`: {}",
        l.message
    );
    l.clone()
}

#[track_caller]
fn assert_silent(lints: &[Lint]) {
    assert!(lints.is_empty(), "expected no lint, got {lints:#?}");
}

/// A scratch directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let path =
            std::env::temp_dir().join(format!("zurdo-lints-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn write(&self, relative: &str, contents: &str) -> &Self {
        let path = self.0.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(path, contents).expect("write file");
        self
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------- families

#[test]
fn family_lists() {
    assert_eq!(FAMILIES.len(), 13);
    assert_eq!(VALIDATE_FAMILIES.len(), 12);
    assert_eq!(&FAMILIES[..12], VALIDATE_FAMILIES);
    assert_eq!(FAMILIES[12], "unaddressed-lesson");
    assert_eq!(FAMILIES[0], "constant-shell");
}

#[test]
fn a_clean_prd_has_no_lints() {
    let source = "# PRD: Demo\n\n## Task: task-1 — Do it\n**Effort**: low\n**Depends-on**: []\n\n\
                  ### Requirements\n- req-a: something\n\n### Description\nWords.\n\n\
                  ### Acceptance Criteria\n- [ ] tests pass [shell: cargo test] [proves:req-a]\n";
    assert_silent(&lint_source(source, &LintContext::default()));
}

// ---------------------------------------------------------- constant-shell

#[test]
fn constant_shell_fires_on_commands_that_cannot_fail() {
    for hint in [
        "[shell: true]",
        "[shell: :]",
        "[shell: exit 0]",
        "[shell: /bin/true]",
        "[shell: echo done]",
        "[shell: printf ok]",
        "[shell: cargo test || true]",
        "[shell: cargo test || :]",
        "[shell: cargo test || exit 0]",
        "[shell: cargo test; true]",
        "[shell: cargo test; exit 0]",
        "[shell: cargo test; echo finished]",
    ] {
        let lints = one("constant-shell", &format!("- [ ] works {hint}"));
        let l = assert_fires(&lints, FIRST, hint);
        assert!(l.message.contains("can't fail"), "{hint}: {}", l.message);
    }
}

#[test]
fn constant_shell_fires_on_commands_that_cannot_pass() {
    for hint in [
        "[shell: false]",
        "[shell: exit 1]",
        "[shell: exit 2]",
        "[shell: cargo test && false]",
    ] {
        let lints = one("constant-shell", &format!("- [ ] works {hint}"));
        let l = assert_fires(&lints, FIRST, hint);
        assert!(l.message.contains("can't pass"), "{hint}: {}", l.message);
    }
}

#[test]
fn constant_shell_is_silent_when_the_status_depends_on_the_work() {
    for hint in [
        "[shell: cargo test]",
        "[shell: cargo test && true]",
        "[shell: cargo test && echo ok]",
        "[shell: echo hi | grep -q hi]",
        "[shell: test -f out.txt || exit 1]",
        "[shell: echo 'a || true' > f && grep -q a f]",
        "[shell: cargo test; exit $?]",
    ] {
        assert_silent(&one("constant-shell", &format!("- [ ] works {hint}")));
    }
}

#[test]
fn constant_shell_fix_names_the_trailing_fallback() {
    let lints = one("constant-shell", "- [ ] works [shell: cargo test || true]");
    assert!(lints[0].fix.contains("|| true"), "{:?}", lints[0]);
}

// -------------------------------------------------------- masked-exit-code

#[test]
fn masked_exit_code_fires_on_a_runner_piped_into_a_filter() {
    for hint in [
        "[shell: cargo test 2>&1 | tail -5]",
        "[shell: go test ./... | tee test.log]",
        "[shell: npm test | grep -v warn]",
        "[shell: python -m pytest | tail -1]",
        "[shell: ./gradlew test | head -50]",
        "[shell: cargo build && cargo test | tail]",
    ] {
        let lints = one("masked-exit-code", &format!("- [ ] tests pass {hint}"));
        let l = assert_fires(&lints, FIRST, hint);
        assert!(l.fix.contains("exit status is the last command's"), "{l:?}");
        assert!(l.fix.contains("bash -o pipefail -c"), "{l:?}");
    }
}

#[test]
fn masked_exit_code_is_silent_with_pipefail_or_without_a_pipe() {
    for hint in [
        "[shell: cargo test]",
        "[shell: set -o pipefail; cargo test 2>&1 | tail -5]",
        "[shell: bash -o pipefail -c 'cargo test 2>&1 | tail -5']",
        "[shell: cargo test > test.log]",
        "[shell: cat Cargo.toml | grep -q zurdo]",
        "[shell: python tools/report.py | tail -5]",
    ] {
        assert_silent(&one(
            "masked-exit-code",
            &format!("- [ ] tests pass {hint}"),
        ));
    }
}

// ----------------------------------------------------- contradictory-paths

#[test]
fn contradictory_paths_fires_when_one_task_wants_a_path_both_ways() {
    let source = with_criteria(
        "- [ ] old module removed [file-absent: src/old.rs]\n\
         - [ ] old module kept [file-exists: src/old.rs]",
    );
    let lints = family("contradictory-paths", &source, &LintContext::default());
    let l = assert_fires(&lints, FIRST + 1, "[file-exists: src/old.rs]");
    assert!(l.message.contains("[file-absent: src/old.rs]"), "{l:?}");
    assert!(l.message.contains(&format!("line {FIRST}")), "{l:?}");

    let source = with_criteria(
        "- [ ] greets [grep: fn greet in src/old.rs]\n\
         - [ ] old dir gone [file-absent: src]",
    );
    let lints = family("contradictory-paths", &source, &LintContext::default());
    assert_fires(&lints, FIRST + 1, "[file-absent: src]");

    let lints = one(
        "contradictory-paths",
        "- [ ] both [file-exists: a.txt] [file-absent: a.txt]",
    );
    assert_fires(&lints, FIRST, "[file-absent: a.txt]");
}

#[test]
fn contradictory_paths_is_silent_for_different_paths_or_tasks() {
    let source = with_criteria(
        "- [ ] old module removed [file-absent: src/old.rs]\n\
         - [ ] new module added [file-exists: src/old.rs.bak]\n\
         - [ ] greets [grep: fn greet in src/*.rs]",
    );
    assert_silent(&family(
        "contradictory-paths",
        &source,
        &LintContext::default(),
    ));

    let source = with_criteria("- [ ] old module removed [file-absent: src/old.rs]")
        + &second_task("- [ ] old module back [file-exists: src/old.rs]");
    assert_silent(&family(
        "contradictory-paths",
        &source,
        &LintContext::default(),
    ));
}

// ---------------------------------------------------------- vacuous-no-grep

#[test]
fn vacuous_no_grep_fires_on_a_missing_unrequired_file() {
    let dir = TempDir::new("vacuous");
    dir.write("src/lib.rs", "pub fn f() {}\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        ..Default::default()
    };
    let hint = "[no-grep: TODO in src/missing.rs]";
    let lints = family(
        "vacuous-no-grep",
        &with_criteria(&format!("- [ ] no todos {hint}")),
        &ctx,
    );
    let l = assert_fires(&lints, FIRST, hint);
    assert!(l.fix.contains("[file-exists: src/missing.rs]"), "{l:?}");
}

#[test]
fn vacuous_no_grep_is_silent_when_the_file_exists_or_is_required() {
    let dir = TempDir::new("vacuous-ok");
    dir.write("src/lib.rs", "pub fn f() {}\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        ..Default::default()
    };
    for criteria in [
        "- [ ] no todos [no-grep: TODO in src/lib.rs]",
        "- [ ] no todos [no-grep: TODO in src/missing.rs] [file-exists: src/missing.rs]",
        "- [ ] no todos [no-grep: TODO in src/new.rs]\n- [ ] has new [grep: fn in src/new.rs]",
        "- [ ] no todos [no-grep: TODO in src/missing/**/*.rs]",
        "- [ ] no todos [no-grep: TODO in gen]\n- [ ] generated [file-exists: gen/out.rs]",
    ] {
        assert_silent(&family("vacuous-no-grep", &with_criteria(criteria), &ctx));
    }
    let source = with_criteria("- [ ] no todos [no-grep: TODO in src/new.rs]")
        + &second_task("- [ ] created [file-exists: src/new.rs]");
    assert_silent(&family("vacuous-no-grep", &source, &ctx));
    // Without a root the lint cannot look, so it says nothing.
    assert_silent(&one(
        "vacuous-no-grep",
        "- [ ] no todos [no-grep: TODO in src/missing.rs]",
    ));
}

// ----------------------------------------------------------- grep-reads-prd

#[test]
fn grep_reads_prd_fires_when_the_target_is_the_prd() {
    let ctx = LintContext {
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    for hint in [
        "[grep: req-a in prds/feature.md]",
        "[grep: req-a in ./prds/feature.md]",
        "[no-grep: TODO in **/*.md]",
        "[grep: Demo in prds/*.md]",
        "[grep: Demo in prds]",
    ] {
        let lints = family(
            "grep-reads-prd",
            &with_criteria(&format!("- [ ] documented {hint}")),
            &ctx,
        );
        assert_fires(&lints, FIRST, hint);
    }
}

#[test]
fn grep_reads_prd_is_silent_for_other_targets() {
    let ctx = LintContext {
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    for hint in [
        "[grep: Demo in *.md]",
        "[grep: Demo in docs/*.md]",
        "[grep: fn main in src/**/*.rs]",
        "[grep: Demo in prds/feature.md.bak]",
        "[grep: Demo in prds/other.md]",
    ] {
        assert_silent(&family(
            "grep-reads-prd",
            &with_criteria(&format!("- [ ] documented {hint}")),
            &ctx,
        ));
    }
    assert_silent(&one(
        "grep-reads-prd",
        "- [ ] documented [grep: req-a in prds/feature.md]",
    ));
}

// ----------------------------------------------------- recursive-cargo-test

/// A crate whose `tests/prd.rs` verifies `prds/feature.md`.
fn harnessed_crate(tag: &str, test_file: &str) -> TempDir {
    let dir = TempDir::new(tag);
    dir.write(
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
    )
    .write("prds/feature.md", "# PRD: Demo\n")
    .write("tests/prd.rs", test_file);
    dir
}

#[test]
fn recursive_cargo_test_fires_when_the_prd_has_a_cargo_harness() {
    let dir = harnessed_crate("recursive", "zurdo::prd!(\"prds/feature.md\");\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    for hint in [
        "[shell: cargo test]",
        "[shell: cargo test --workspace]",
        "[shell: cargo test --test prd]",
        "[shell: cargo test --tests]",
        "[shell: cargo nextest run]",
        "[shell: cargo test -p app]",
    ] {
        let lints = family(
            "recursive-cargo-test",
            &with_criteria(&format!("- [ ] tests pass {hint}")),
            &ctx,
        );
        assert_fires(&lints, FIRST, hint);
    }
}

#[test]
fn recursive_cargo_test_is_silent_for_filtered_or_selected_runs() {
    let dir = harnessed_crate("recursive-ok", "zurdo::prd!(\"prds/feature.md\");\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    for hint in [
        "[shell: cargo test --lib]",
        "[shell: cargo test --test api]",
        "[shell: cargo test parser::]",
        "[shell: cargo test -- parser::]",
        "[shell: cargo test --doc]",
        "[shell: cargo test -p core]",
        "[shell: cargo build]",
    ] {
        assert_silent(&family(
            "recursive-cargo-test",
            &with_criteria(&format!("- [ ] tests pass {hint}")),
            &ctx,
        ));
    }
}

#[test]
fn recursive_cargo_test_needs_a_harness_for_this_prd() {
    let criteria = with_criteria("- [ ] tests pass [shell: cargo test]");
    // The harness verifies another PRD.
    let dir = harnessed_crate("other-prd", "zurdo::prd!(\"prds/other.md\");\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    assert_silent(&family("recursive-cargo-test", &criteria, &ctx));
    // No root: nothing to detect.
    assert_silent(&family(
        "recursive-cargo-test",
        &criteria,
        &LintContext::default(),
    ));
    // The explicit flag overrides detection, both ways.
    let forced = LintContext {
        cargo_harness: Some(true),
        ..Default::default()
    };
    assert_fires(
        &family("recursive-cargo-test", &criteria, &forced),
        FIRST,
        "[shell: cargo test]",
    );
    let dir = harnessed_crate("forced-off", "zurdo::prd!(\"prds/feature.md\");\n");
    let off = LintContext {
        root: Some(dir.path()),
        prd_path: Some("prds/feature.md"),
        cargo_harness: Some(false),
    };
    assert_silent(&family("recursive-cargo-test", &criteria, &off));
}

#[test]
fn recursive_cargo_test_detects_a_build_script_harness() {
    let dir = TempDir::new("build-rs");
    dir.write("Cargo.toml", "[package]\nname = \"app\"\n")
        .write(
            "build.rs",
            "fn main() { zurdo::build::prds(&[\"prds/feature.md\"]); }\n",
        )
        .write("prds/feature.md", "# PRD: Demo\n");
    let ctx = LintContext {
        root: Some(dir.path()),
        prd_path: Some("prds/feature.md"),
        ..Default::default()
    };
    let criteria = with_criteria("- [ ] tests pass [shell: cargo test]");
    assert_fires(
        &family("recursive-cargo-test", &criteria, &ctx),
        FIRST,
        "[shell: cargo test]",
    );
    assert_eq!(
        lint::cargo_test::detect(dir.path(), "prds/feature.md"),
        Some(lint::cargo_test::Harness {
            test_target: "prd".into(),
            package: Some("app".into()),
        })
    );
    assert_eq!(
        lint::cargo_test::detect(dir.path(), "../x/feature.md"),
        None
    );
}

// ---------------------------------------------------------- non-local-http

#[test]
fn non_local_http_fires_on_a_remote_host() {
    for hint in [
        "[http: GET https://api.example.com/health -> 200]",
        "[http: GET http://10.0.0.5:8080/health -> 200]",
        "[http: GET http://localhost.example.com/ -> 200]",
    ] {
        let lints = one("non-local-http", &format!("- [ ] healthy {hint}"));
        assert_fires(&lints, FIRST, hint);
    }
}

#[test]
fn non_local_http_is_silent_on_loopback() {
    for hint in [
        "[http: GET http://localhost:8080/health -> 200]",
        "[http: GET http://api.localhost:8080/health -> 200]",
        "[http: GET http://127.0.0.1:3000/ -> 200]",
        "[http: GET http://[::1]:8080/health -> 200]",
        "[http: GET http://0.0.0.0:8080/health -> 200]",
        "[http: GET http://LOCALHOST/health -> 200]",
    ] {
        assert_silent(&one("non-local-http", &format!("- [ ] healthy {hint}")));
    }
}

// ------------------------------------------------------ duplicate-criterion

#[test]
fn duplicate_criterion_fires_on_the_later_of_two_equal_hint_sets() {
    let source = with_criteria(
        "- [ ] builds [shell: cargo build] [file-exists: target/debug/app]\n\
         - [ ] binary exists [file-exists: target/debug/app] [shell: cargo build]",
    );
    let lints = family("duplicate-criterion", &source, &LintContext::default());
    let l = assert_fires(
        &lints,
        FIRST + 1,
        "[file-exists: target/debug/app] [shell: cargo build]",
    );
    assert!(l.message.contains(&format!("line {FIRST}")), "{l:?}");
}

#[test]
fn duplicate_criterion_is_silent_for_different_checks_tasks_or_reviews() {
    for criteria in [
        "- [ ] builds [shell: cargo build]\n- [ ] tests [shell: cargo test]",
        "- [ ] builds [shell: cargo build]\n- [ ] builds and exists [shell: cargo build] [file-exists: app]",
        "- [ ] design reviewed [manual]\n- [ ] docs reviewed [manual]\n- [ ] builds [shell: cargo build]",
    ] {
        assert_silent(&family(
            "duplicate-criterion",
            &with_criteria(criteria),
            &LintContext::default(),
        ));
    }
    let source = with_criteria("- [ ] builds [shell: cargo build]")
        + &second_task("- [ ] still builds [shell: cargo build]");
    assert_silent(&family(
        "duplicate-criterion",
        &source,
        &LintContext::default(),
    ));
}

// ---------------------------------------------------------- all-manual-task

#[test]
fn all_manual_task_fires_when_every_criterion_is_manual() {
    let source = with_criteria("- [ ] design reviewed [manual]\n- [ ] copy approved [manual]");
    let lints = family("all-manual-task", &source, &LintContext::default());
    assert_fires(&lints, 3, "task-1");
}

#[test]
fn all_manual_task_is_silent_with_one_automated_criterion() {
    let source = with_criteria("- [ ] design reviewed [manual]\n- [ ] builds [shell: cargo build]");
    assert_silent(&family("all-manual-task", &source, &LintContext::default()));
}

// ----------------------------------------------------- unproven-requirement

fn with_requirements(proves: &str) -> String {
    format!(
        "# PRD: Demo\n\n## Task: task-1 — Do it\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Requirements\n- req-a: first thing\n- req-b: second thing\n\n\
         ### Description\nWords.\n\n### Acceptance Criteria\n\
         - [ ] tests pass [shell: cargo test] {proves}\n"
    )
}

#[test]
fn unproven_requirement_fires_on_the_requirement_line() {
    let lints = family(
        "unproven-requirement",
        &with_requirements("[proves:req-a]"),
        &LintContext::default(),
    );
    let l = assert_fires(&lints, 9, "req-b");
    assert!(l.fix.contains("[proves:req-b]"), "{l:?}");
}

#[test]
fn unproven_requirement_is_silent_when_every_requirement_is_proved() {
    assert_silent(&family(
        "unproven-requirement",
        &with_requirements("[proves:req-a] [proves:req-b]"),
        &LintContext::default(),
    ));
}

// --------------------------------------------------- manual-with-automation

#[test]
fn manual_with_automation_fires_on_a_mixed_criterion() {
    let lints = one(
        "manual-with-automation",
        "- [ ] tests pass and look right [shell: cargo test] [manual]",
    );
    let l = assert_fires(&lints, FIRST, "[shell: cargo test] [manual]");
    assert!(l.fix.contains("split"), "{l:?}");
    assert!(l.fix.contains("[shell: cargo test]"), "{l:?}");
}

#[test]
fn manual_with_automation_is_silent_when_split() {
    let source = with_criteria("- [ ] tests pass [shell: cargo test]\n- [ ] looks right [manual]");
    assert_silent(&family(
        "manual-with-automation",
        &source,
        &LintContext::default(),
    ));
}

// -------------------------------------------------------- empty-match-regex

#[test]
fn empty_match_regex_fires_on_patterns_matching_the_empty_string() {
    for hint in [
        "[grep: .* in src/lib.rs]",
        "[grep: a* in src/lib.rs]",
        "[grep: x? in src/lib.rs]",
        "[grep: () in src/lib.rs]",
        "[grep: ^ in src/lib.rs]",
    ] {
        let lints = one("empty-match-regex", &format!("- [ ] present {hint}"));
        let l = assert_fires(&lints, FIRST, hint);
        assert!(l.message.contains("can't fail"), "{l:?}");
    }
    let lints = one(
        "empty-match-regex",
        "- [ ] absent [no-grep: x? in src/lib.rs]",
    );
    let l = assert_fires(&lints, FIRST, "[no-grep: x? in src/lib.rs]");
    assert!(l.message.contains("can't pass"), "{l:?}");
}

#[test]
fn empty_match_regex_is_silent_on_patterns_that_need_text() {
    for hint in [
        "[grep: fn main in src/main.rs]",
        "[grep: a+ in src/lib.rs]",
        "[grep: ^fn in src/lib.rs]",
        "[no-grep: x in src/lib.rs]",
    ] {
        assert_silent(&one("empty-match-regex", &format!("- [ ] present {hint}")));
    }
}

// ------------------------------------------------------------------ output

#[test]
fn lints_are_ordered_by_line_then_family() {
    let source = with_criteria(
        "- [ ] a [http: GET https://example.com/ -> 200] [shell: true]\n\
         - [ ] b [shell: cargo test | tail] [manual]",
    );
    let lints = lint_source(&source, &LintContext::default());
    let got: Vec<(usize, &str)> = lints.iter().map(|l| (l.line, l.family)).collect();
    assert_eq!(
        got,
        [
            (FIRST, "constant-shell"),
            (FIRST, "non-local-http"),
            (FIRST + 1, "masked-exit-code"),
            (FIRST + 1, "manual-with-automation"),
        ]
    );
}

#[test]
fn render_matches_the_cli_format() {
    let lints = one("constant-shell", "- [ ] works [shell: true]");
    let text = lints[0].render("prds/feature.md");
    assert!(
        text.starts_with(&format!(
            "prds/feature.md:{FIRST}: warning[constant-shell]: `[shell: true]`"
        )),
        "{text}"
    );
    assert!(text.contains("\n  fix: "), "{text}");
}

// ---------------------------------------------------------- docs/lints.md

/// The bad example of each family, as docs/lints.md shows it.
fn documented_examples() -> Vec<(&'static str, Vec<Lint>)> {
    let ctx = LintContext {
        prd_path: Some("prds/feature.md"),
        cargo_harness: Some(true),
        ..Default::default()
    };
    let empty = TempDir::new("docs");
    let rooted = LintContext {
        root: Some(empty.path()),
        ..ctx
    };
    let criteria = |c: &str| with_criteria(c);
    vec![
        (
            "constant-shell",
            family(
                "constant-shell",
                &criteria("- [ ] tests pass [shell: cargo test || true]"),
                &ctx,
            ),
        ),
        (
            "masked-exit-code",
            family(
                "masked-exit-code",
                &criteria("- [ ] tests pass [shell: cargo test 2>&1 | tail -5]"),
                &ctx,
            ),
        ),
        (
            "contradictory-paths",
            family(
                "contradictory-paths",
                &criteria(
                    "- [ ] legacy module removed [file-absent: src/legacy.rs]\n\
                     - [ ] shim still exported [grep: pub use in src/legacy.rs]",
                ),
                &ctx,
            ),
        ),
        (
            "vacuous-no-grep",
            family(
                "vacuous-no-grep",
                &criteria("- [ ] no unwraps in the parser [no-grep: unwrap\\(\\) in src/parser.rs]"),
                &rooted,
            ),
        ),
        (
            "grep-reads-prd",
            family(
                "grep-reads-prd",
                &criteria("- [ ] the endpoint is documented [grep: /health in **/*.md]"),
                &ctx,
            ),
        ),
        (
            "recursive-cargo-test",
            family(
                "recursive-cargo-test",
                &criteria("- [ ] tests pass [shell: cargo test --workspace]"),
                &ctx,
            ),
        ),
        (
            "non-local-http",
            family(
                "non-local-http",
                &criteria("- [ ] the API is up [http: GET https://api.example.com/health -> 200]"),
                &ctx,
            ),
        ),
        (
            "duplicate-criterion",
            family(
                "duplicate-criterion",
                &criteria(
                    "- [ ] tests pass [shell: cargo test --workspace]\n\
                     - [ ] no regressions [shell: cargo test --workspace]",
                ),
                &ctx,
            ),
        ),
        (
            "all-manual-task",
            family(
                "all-manual-task",
                &criteria("- [ ] design reviewed [manual]\n- [ ] copy approved [manual]"),
                &ctx,
            ),
        ),
        (
            "unproven-requirement",
            family(
                "unproven-requirement",
                &with_requirements("[proves:req-a]"),
                &ctx,
            ),
        ),
        (
            "manual-with-automation",
            family(
                "manual-with-automation",
                &criteria("- [ ] the report renders [shell: cargo run -- report] [manual]"),
                &ctx,
            ),
        ),
        (
            "empty-match-regex",
            family(
                "empty-match-regex",
                &criteria("- [ ] the config has a loader and a parser [grep: fn load|fn parse| in src/config.rs]"),
                &ctx,
            ),
        ),
    ]
}

#[test]
fn docs_describe_every_family_with_its_real_warning() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/lints.md");
    let docs = std::fs::read_to_string(&path).expect("docs/lints.md exists");
    for name in FAMILIES {
        assert!(
            docs.contains(&format!("## `{name}`")),
            "docs/lints.md has no `## \\`{name}\\`` section"
        );
    }
    let mut missing = Vec::new();
    let intro = one("constant-shell", "- [ ] works [shell: true]");
    let mut examples = documented_examples();
    examples.push(("the introduction", intro));
    for (name, lints) in examples {
        assert_eq!(lints.len(), 1, "{name}: {lints:#?}");
        let rendered = lints[0].render("prds/feature.md");
        if !docs.contains(&rendered) {
            missing.push(format!("{name}:\n{rendered}"));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/lints.md does not show these warnings as printed:\n\n{}",
        missing.join("\n\n")
    );
}

#[test]
fn docs_fixes_are_clean() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/lints.md");
    let docs = std::fs::read_to_string(&path).expect("docs/lints.md exists");
    let empty = TempDir::new("docs-fixes");
    let ctx = LintContext {
        root: Some(empty.path()),
        prd_path: Some("prds/feature.md"),
        cargo_harness: Some(true),
    };
    let mut checked = 0;
    for name in VALIDATE_FAMILIES {
        let heading = format!("## `{name}`");
        let section = docs
            .split(&heading)
            .nth(1)
            .and_then(|rest| rest.split("\n## `").next())
            .unwrap_or_else(|| panic!("no section for {name}"));
        let fix = section
            .split("**Fix.**")
            .nth(1)
            .and_then(|rest| rest.split("```markdown\n").nth(1))
            .and_then(|rest| rest.split("```").next())
            .unwrap_or_else(|| panic!("{name}: no fixed example"));
        let criteria: Vec<&str> = fix.lines().filter(|l| l.starts_with("- [ ]")).collect();
        assert!(!criteria.is_empty(), "{name}: the fix shows no criterion");
        let source = if fix.contains("[proves:") {
            format!(
                "# PRD: Demo\n\n## Task: task-1 — Do it\n**Effort**: low\n**Depends-on**: []\n\n\
                 ### Requirements\n- req-a: first thing\n- req-b: second thing\n\n\
                 ### Description\nWords.\n\n### Acceptance Criteria\n{}\n",
                criteria.join("\n")
            )
        } else {
            with_criteria(&criteria.join("\n"))
        };
        let lints = family(name, &source, &ctx);
        assert!(
            lints.is_empty(),
            "{name}: the documented fix still warns: {lints:#?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 12);
}
