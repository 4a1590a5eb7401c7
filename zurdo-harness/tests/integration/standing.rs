//! Standing rules in `zurdo run`: red at pre-flight refuses the run (exit 3);
//! broken by an attempt, they fail the iteration and the next prompt opens
//! with `# Standing Rules`; over budget, the run stops with exit 3.

use std::path::Path;
use std::process::Output;

use crate::common::{run_repo, state, text, zurdo_run};

const PRD: &str = "# PRD: standing\n\n## Task: task-1 — Write the file\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 3\n\n\
### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] written [file-exists: out.txt]\n";

fn setup(standing: &str, script: &str) -> tempfile::TempDir {
    run_repo(
        PRD,
        &format!("\n{standing}"),
        &[("src/lib.rs", "pub fn f() {}\n")],
        script,
        false,
    )
}

fn run(root: &Path) -> Output {
    zurdo_run(root, &[], &[])
}

const NO_DBG: &str = "[[verification.standing]]\nhint = \"[no-grep: dbg!\\\\( in src/**/*.rs]\"\nwhy = \"no debug prints in the library\"\n";

#[test]
fn a_rule_red_before_the_run_refuses_it() {
    let r = setup(NO_DBG, r#"{"log": "calls.jsonl"}"#);
    std::fs::write(r.path().join("src/lib.rs"), "pub fn f() { dbg!(1); }\n").expect("write");
    let out = run(r.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("standing rule broken: [no-grep: dbg!\\( in src/**/*.rs] — no debug prints in the library"), "{stderr}");
    assert!(
        !r.path().join(".zurdo/calls.jsonl").exists(),
        "no agent ran"
    );
}

#[test]
fn a_broken_rule_fails_the_iteration_and_the_retry_opens_with_it() {
    let script = r#"{"attempts": [
        {"write": {"out.txt": "x", "src/lib.rs": "pub fn f() { dbg!(1); }\n"}},
        {"write": {"src/lib.rs": "pub fn f() {}\n"}, "echo_prompt_to": "prompt-2.txt"}
    ]}"#;
    let r = setup(NO_DBG, script);
    let out = run(r.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let prompt = std::fs::read_to_string(r.path().join("prompt-2.txt")).expect("second prompt");
    assert!(prompt.starts_with("# Standing Rules"), "{prompt}");
    assert!(prompt.contains("standing rule broken: [no-grep: dbg!\\( in src/**/*.rs] — no debug prints in the library"), "{prompt}");
    let state = state(r.path());
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(first["passed"], false, "criteria passed but the rule broke");
    assert_eq!(
        first["standing_failures"][0],
        "standing rule broken: [no-grep: dbg!\\( in src/**/*.rs] — no debug prints in the library"
    );
    assert_eq!(state["tasks"][0]["attempts"], 2);
}

#[test]
fn a_standing_set_over_budget_stops_with_exit_3() {
    let slow = "[verification]\nstanding_budget_seconds = 1\n\n[[verification.standing]]\nhint = \"[shell: sleep 1.5]\"\nwhy = \"slow on purpose\"\n";
    let r = setup(slow, "{}");
    let out = run(r.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("over [verification] standing_budget_seconds = 1"),
        "{stderr}"
    );
}

#[test]
fn a_structural_standing_rule_is_checked_on_every_iteration() {
    // The library's entry point must keep being called; an attempt that
    // deletes its only caller breaks the rule, and the retry restores it.
    let rule = "[[verification.standing]]\nhint = \"[callers: f from run]\"\nwhy = \"run keeps calling f\"\n";
    let script = r#"{"attempts": [
        {"write": {"out.txt": "x", "src/lib.rs": "pub fn f() {}\npub fn run() {}\n"}},
        {"write": {"src/lib.rs": "pub fn f() {}\npub fn run() { f(); }\n"}, "echo_prompt_to": "prompt-2.txt"}
    ]}"#;
    let r = setup(rule, script);
    std::fs::write(
        r.path().join("src/lib.rs"),
        "pub fn f() {}\npub fn run() { f(); }\n",
    )
    .expect("write");
    let out = run(r.path());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = state(r.path());
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(first["passed"], false, "{first:#}");
    assert_eq!(
        first["standing_failures"][0],
        "standing rule broken: [callers: f from run] — run keeps calling f"
    );
    let prompt = std::fs::read_to_string(r.path().join("prompt-2.txt")).expect("second prompt");
    assert!(prompt.starts_with("# Standing Rules"), "{prompt}");
    assert_eq!(state["tasks"][0]["iterations"][1]["passed"], true);
}
