//! The `[R]esume / [X] reset / [A]bort` question on a real terminal: `zurdo
//! run` runs under `script(1)`, which gives it a pseudo-terminal, and the
//! answer is typed into it. Skipped where util-linux's `script` is missing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{run_repo, state_dir, text, zurdo_run};

const PRD: &str = "# PRD: p\n\n## Task: task-1 — Write it\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] written [file-exists: out.txt]\n";

fn has_script() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `zurdo run prds/p.md` on a terminal, answering `answer`; its exit code
/// and everything the terminal showed.
fn run_on_a_terminal(root: &Path, answer: &str) -> (Option<i32>, String) {
    let command = format!(
        "'{}' run --skip-model-check prds/p.md",
        env!("CARGO_BIN_EXE_zurdo")
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(answer.as_bytes()).expect("type the answer");
        stdin.write_all(b"\n").expect("enter");
    }
    let out = child.wait_with_output().expect("script ends");
    (out.status.code(), text(&out.stdout))
}

fn agent_calls(root: &Path) -> usize {
    std::fs::read_to_string(root.join(".zurdo/calls.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"probe\":false"))
        .count()
}

fn failed_run() -> tempfile::TempDir {
    let r = run_repo(PRD, "", &[], r#"{"log": "calls.jsonl"}"#, true);
    let first = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    assert_eq!(agent_calls(r.path()), 1);
    r
}

#[test]
fn abort_leaves_the_state_as_it_was() {
    if !has_script() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let r = failed_run();
    let before = std::fs::read(state_dir(r.path()).join("prd.json")).expect("state");
    let log = std::fs::read(state_dir(r.path()).join("progress.log")).expect("log");
    let (code, screen) = run_on_a_terminal(r.path(), "a");
    assert!(
        screen.contains("[R] Resume from current state (default)"),
        "{screen}"
    );
    assert_eq!(code, Some(0), "{screen}");
    assert_eq!(agent_calls(r.path()), 1, "no agent ran");
    assert_eq!(
        std::fs::read(state_dir(r.path()).join("prd.json")).expect("state"),
        before
    );
    assert_eq!(
        std::fs::read(state_dir(r.path()).join("progress.log")).expect("log"),
        log,
        "nothing ran, not even a resume"
    );
    assert!(!screen.contains("from the saved state"), "{screen}");
}

#[test]
fn reset_archives_the_state_and_starts_over() {
    if !has_script() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let r = failed_run();
    let (code, screen) = run_on_a_terminal(r.path(), "x");
    assert_eq!(code, Some(1), "the task fails again: {screen}");
    assert_eq!(agent_calls(r.path()), 2, "a fresh attempt ran");
    let archived = std::fs::read_dir(state_dir(r.path()).join(".archive"))
        .expect("an archive")
        .count();
    assert_eq!(archived, 1);
}

#[test]
fn enter_resumes_and_a_settled_task_is_not_run_again() {
    if !has_script() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let r = failed_run();
    let (code, screen) = run_on_a_terminal(r.path(), "");
    assert_eq!(code, Some(1), "{screen}");
    assert!(screen.contains("failed (from the saved state)"), "{screen}");
    assert_eq!(agent_calls(r.path()), 1, "resumed: nothing to run");
    assert!(!state_dir(r.path()).join(".archive").exists());
}
