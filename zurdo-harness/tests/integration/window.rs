//! The verification window: an agent that leaves a process behind (outside
//! its process group) to rewrite an evidence file after the check passed
//! does not get a pass.

use crate::common::{run_repo, state, text, zurdo_run};

#[test]
fn a_file_rewritten_during_verification_fails_the_iteration() {
    let prd = "# PRD: w\n\n## Task: task-1 — Say ok\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n### Description\nd\n\n\
               ### Acceptance Criteria\n- [ ] says ok [grep: ^ok$ in out.txt]\n- [ ] the slow suite passes [shell: sleep 1]\n";
    // The agent writes the right answer, and leaves a process outside its group
    // that swaps the file once the check has read it.
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n"}, "run": "setsid sh -c 'sleep 0.6; echo not-ok > out.txt' > /dev/null 2>&1 & sleep 0.3"}]}"#;
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
