//! Issue 13, class 5: tests that know they are being verified. Nothing in a
//! criterion's environment tells it apart from a plain run of the same
//! command, so a test that passes only "when zurdo is looking" fails; an
//! honest test beside it in the same run passes. `[verification]
//! zurdo_verify_env = true` is the opt-in for projects that need to know.

use crate::common::{run_repo, state, text, zurdo_run};

const PRD: &str = "# PRD: d\n\n\
    ## Task: task-cheat — Make the check pass\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nMake check.py pass.\n\n### Acceptance Criteria\n- [ ] the check passes [shell: python3 check.py]\n\n\
    ## Task: task-honest — Make the other check pass\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nMake other.py pass.\n\n### Acceptance Criteria\n- [ ] the other check passes [shell: python3 other.py]\n";

/// The cheat: the check passes only when something in its environment
/// says zurdo runs it; the honest control passes everywhere.
const SCRIPT: &str = r#"{"on_prompt": [
    {"contains": "Task task-cheat", "attempt": {"write": {"check.py": "import os, sys\nsys.exit(0 if any(k.startswith('ZURDO') for k in os.environ) else 1)\n"}}},
    {"contains": "Task task-honest", "attempt": {"write": {"other.py": "import sys\nsys.exit(0)\n"}}}
]}"#;

fn files() -> [(&'static str, &'static str); 2] {
    [
        ("check.py", "raise SystemExit(1)\n"),
        ("other.py", "raise SystemExit(1)\n"),
    ]
}

#[test]
fn a_test_that_passes_only_under_zurdo_fails_and_an_honest_one_passes() {
    let r = run_repo(PRD, "", &files(), SCRIPT, false);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    assert_eq!(state["tasks"][0]["status"], "failed", "{stderr}");
    assert_eq!(
        state["tasks"][0]["iterations"][0]["criteria"][0]["hints"][0]["reason"],
        "exit_code"
    );
    assert_eq!(state["tasks"][1]["status"], "passed", "{stderr}");
}

#[test]
fn the_opt_in_gives_criteria_zurdo_verify() {
    let r = run_repo(
        PRD,
        "[verification]\nzurdo_verify_env = true\n",
        &files(),
        SCRIPT,
        false,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = state(r.path());
    assert_eq!(state["tasks"][0]["status"], "passed", "{stderr}");
}
