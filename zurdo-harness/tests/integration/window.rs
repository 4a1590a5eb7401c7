//! The verification window: a process still running while the criteria run
//! (one a criterion's own command left, or one started outside zurdo's
//! process tree) that rewrites an evidence file after the check passed does
//! not get a pass. (What the agent leaves running is killed before
//! verification: `leftovers.rs`.)

use crate::common::{run_repo, state, text, zurdo_run};

#[test]
fn a_file_rewritten_during_verification_fails_the_iteration() {
    let prd = "# PRD: w\n\n## Task: task-1 — Say ok\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n### Description\nd\n\n\
               ### Acceptance Criteria\n- [ ] says ok [grep: ^ok$ in out.txt]\n- [ ] the slow suite passes [shell: sh scripts/suite.sh]\n";
    // The agent writes the right answer and a suite script that leaves a
    // process behind to swap the file once the check has read it.
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n", "scripts/suite.sh": "(sleep 0.6; echo not-ok > out.txt) > /dev/null 2>&1 &\nsleep 1\n"}}]}"#;
    let r = run_repo(prd, "", &[], script, false);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("evidence changed during verification: out.txt"),
        "{stderr}"
    );
    let state = state(r.path());
    let hint = &state["tasks"][0]["iterations"][0]["criteria"][0]["hints"][0];
    assert_eq!(
        hint["reason"], "evidence_changed_during_verification",
        "{hint:#}"
    );
    assert_eq!(state["tasks"][0]["status"], "failed");
}
