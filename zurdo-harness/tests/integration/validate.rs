//! `zurdo validate` end to end, through the built binary.

use crate::common::{repo, text, zurdo};

const VALID: &str = "# PRD: Greeter\n\n## Task: task-2 — Wire it\n**Effort**: low\n**Depends-on**: [task-1]\n\n\
### Description\nCall the greeter from main.\n\n### Acceptance Criteria\n- [ ] main greets [grep: greet\\( in src/main.rs]\n\n\
## Task: task-1 — Write the greeter\n**Effort**: low\n**Depends-on**: []\n\n### Description\nAdd greet().\n\n\
### Acceptance Criteria\n- [ ] tests pass [shell: cargo test greet]\n- [ ] reviewed [manual]\n";

#[test]
fn a_valid_prd_exits_0_with_a_summary() {
    let repo = repo(&[("prds/greeter.md", VALID)]);
    let out = zurdo(&["validate", "prds/greeter.md"], repo.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "prds/greeter.md: valid: 2 tasks, 3 criteria, 0 warnings\n"
    );
}

#[test]
fn errors_name_file_and_line_with_the_fix_and_exit_2() {
    let bad = VALID.replace("task-2 — Wire", "task-2 - Wire").replace(
        "**Effort**: low\n**Depends-on**: []",
        "**Effort**: low\n**Depends-on**: []\n**Owner**: me",
    );
    let repo = repo(&[("prds/bad.md", bad)]);
    let out = zurdo(&["validate", "prds/bad.md"], repo.path());
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "prds/bad.md:3: task heading uses hyphen-minus (U+002D) where an em-dash (U+2014) is required");
    assert!(
        lines[1].starts_with("  fix: write `## Task: task-2 — Wire it`"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("prds/bad.md:16: unknown metadata key `Owner`"),
        "{stdout}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("prds/bad.md: invalid: 2 errors")
    );
}

#[test]
fn several_files_exit_2_when_any_is_invalid() {
    let repo = repo(&[("a.md", VALID), ("b.md", "# PRD: empty\n")]);
    let out = zurdo(&["validate", "a.md", "b.md"], repo.path());
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("a.md: valid"), "{stdout}");
    assert!(stdout.contains("b.md:1: the PRD has no tasks"), "{stdout}");
}

#[test]
fn unreadable_inputs_get_a_clear_error() {
    let repo = repo(&[("latin1.md", &b"# PRD: caf\xe9\n"[..]), ("dir/x", &b""[..])]);
    let out = zurdo(&["validate", "missing.md"], repo.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "zurdo: missing.md: cannot read the PRD: no such file\n"
    );

    let out = zurdo(&["validate", "dir"], repo.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("dir: cannot read the PRD: it is a directory"));

    let out = zurdo(&["validate", "latin1.md"], repo.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stdout).starts_with("latin1.md:1: the file is not valid UTF-8 (bad byte 0xe9 at column 11)\n  fix: save the PRD as UTF-8"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn json_prints_the_model_in_run_order() {
    let repo = repo(&[("prds/greeter.md", VALID)]);
    let out = zurdo(
        &["validate", "--format", "json", "prds/greeter.md"],
        repo.path(),
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    let file = &doc["files"][0];
    assert_eq!(file["valid"], true);
    let tasks = file["prd"]["tasks"].as_array().expect("tasks");
    assert_eq!(
        tasks[0]["id"], "task-1",
        "run order puts the dependency first"
    );
    assert_eq!(tasks[1]["metadata"]["depends_on"][0], "task-1");
    let hint = &tasks[1]["criteria"][0]["hints"][0];
    assert_eq!(hint["kind"], "grep");
    assert_eq!(hint["pattern"], "greet\\(");
    assert_eq!(hint["target"], "src/main.rs");
    assert_eq!(hint["source"], "[grep: greet\\( in src/main.rs]");
    assert_eq!(tasks[0]["criteria"][1]["hints"][0]["kind"], "manual");
    assert!(file["warnings"].is_array());
}

#[test]
fn json_reports_errors_too() {
    let repo = repo(&[("x.md", b"# PRD: x\n")]);
    let out = zurdo(
        &["validate", "--format", "json", "x.md", "nope.md"],
        repo.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0]["errors"][0]["line"], 1);
    assert_eq!(
        doc["files"][0]["errors"][0]["message"],
        "the PRD has no tasks"
    );
    assert_eq!(doc["files"][1]["unreadable"], "no such file");
}

#[test]
fn every_command_has_help() {
    let dir = tempfile::tempdir().expect("temp dir");
    for args in [
        &["--help"][..],
        &["validate", "--help"],
        &["help", "validate"],
    ] {
        let out = zurdo(args, dir.path());
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stdout).contains("Usage: zurdo"), "{args:?}");
    }
    let out = zurdo(&["validate"], dir.path());
    assert_eq!(out.status.code(), Some(2), "no PRD named is a usage error");
}

#[test]
fn warnings_are_printed_and_validate_still_exits_0() {
    let linted = VALID.replace(
        "[shell: cargo test greet]",
        "[shell: cargo test greet || true]",
    );
    let repo = repo(&[("prds/greeter.md", linted)]);
    let out = zurdo(&["validate", "prds/greeter.md"], repo.path());
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("prds/greeter.md:21: warning[constant-shell]: "),
        "{stdout}"
    );
    assert!(stdout.contains("\n  fix: "), "{stdout}");
    assert!(
        stdout.ends_with("prds/greeter.md: valid: 2 tasks, 3 criteria, 1 warning\n"),
        "{stdout}"
    );

    let out = zurdo(
        &["validate", "--format", "json", "prds/greeter.md"],
        repo.path(),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0]["warnings"][0]["family"], "constant-shell");
    assert_eq!(doc["files"][0]["warnings"][0]["line"], 21);
}

#[test]
fn a_closed_stdout_ends_quietly_instead_of_panicking() {
    use std::process::{Command, Stdio};
    let repo = repo(&[("prds/greeter.md", VALID)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args([
            "validate",
            "--format",
            "json",
            "prds/greeter.md",
            "prds/greeter.md",
            "prds/greeter.md",
        ])
        .current_dir(repo.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
    assert_ne!(out.status.code(), Some(101));
}
