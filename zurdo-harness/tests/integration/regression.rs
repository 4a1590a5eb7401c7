//! Issue 13, class 8 (settled tasks that rot) and class 6 (c) (a resume
//! re-verifies what was recorded as passed). A later task's attempt that
//! breaks an earlier task's criteria does not leave the earlier task
//! `passed`: at run end it becomes `failed` (`regressed_after_settle`);
//! with `regression_guard = "each-task"` the breaking attempt itself fails
//! (`regressed`) and the retry fixes it. A task recorded as passed whose
//! criteria no longer hold when a run resumes (the tree changed while zurdo
//! was stopped, or prd.json was forged) goes back to pending and is
//! attempted again. An honest task beside each, in the same run, stays
//! passed.

use serde_json::json;

use crate::common::{run_repo, state, state_dir, task_state as task, text, zurdo_run};

/// task-a needs `a` in lib.txt, task-b needs `b`, task-c (the honest
/// control) its own file.
const PRD: &str = "# PRD: rot\n\n\
    ## Task: task-a — Add a\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
    ### Description\nAdd the line `a` to lib.txt.\n\n### Acceptance Criteria\n- [ ] a is there [shell: grep -qx a lib.txt]\n\n\
    ## Task: task-b — Add b\n**Effort**: low\n**Depends-on**: [task-a]\n**Max-Attempts**: 2\n\n\
    ### Description\nAdd the line `b` to lib.txt.\n\n### Acceptance Criteria\n- [ ] b is there [grep: ^b$ in lib.txt]\n\n\
    ## Task: task-c — Write c\n**Effort**: low\n**Depends-on**: []\n\n\
    ### Description\nWrite c.txt.\n\n### Acceptance Criteria\n- [ ] c is there [grep: ^c$ in c.txt]\n";

/// task-b's first attempt overwrites lib.txt (breaking task-a); its second
/// appends.
fn script() -> String {
    json!({"on_prompt": [
        {"contains": "# What failed", "attempt": {"append": {"lib.txt": "b\n"}, "text": "appended b"}},
        {"contains": "# Caught", "attempt": {"write": {"lib.txt": "a\nb\n"}, "text": "kept a, added b"}},
        {"contains": "Task task-a", "attempt": {"write": {"lib.txt": "a\n"}}},
        {"contains": "Task task-b", "attempt": {"write": {"lib.txt": "b\n"}, "text": "b is there"}},
        {"contains": "Task task-c", "attempt": {"write": {"c.txt": "c\n"}}}
    ]})
    .to_string()
}

#[test]
fn a_task_broken_by_a_later_one_fails_at_run_end_and_an_untouched_one_stays_passed() {
    let r = run_repo(PRD, "", &[("lib.txt", "")], &script(), true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    let a = task(&state, "task-a");
    assert_eq!(a["status"], "failed", "{stderr}\n{a:#}");
    let why = a["regressed_after_settle"][0].as_str().expect("why");
    assert!(
        why.contains("[shell: grep -qx a lib.txt] failed: exited with code 1"),
        "{why}"
    );
    assert!(
        stderr.contains(
            "zurdo: task-a had passed and no longer does (re-verified against the final tree):"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("failed: regressed after it passed (regressed_after_settle)"));
    assert_eq!(task(&state, "task-b")["status"], "passed");
    assert_eq!(task(&state, "task-c")["status"], "passed", "{stderr}");
    assert!(
        !stderr.contains("task-c still passes"),
        "a task that holds is what the summary shows"
    );
}

#[test]
fn with_each_task_the_breaking_attempt_fails_and_its_retry_fixes_it() {
    let r = run_repo(
        PRD,
        "[verification]\nregression_guard = \"each-task\"\n",
        &[("lib.txt", "")],
        &script(),
        true,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = state(r.path());
    let b = task(&state, "task-b");
    assert_eq!(b["status"], "passed");
    assert_eq!(b["attempts"], 2, "{b:#}");
    let caught = &b["iterations"][0]["caught"][0];
    assert_eq!(caught["reason"], "regressed", "{b:#}");
    assert_eq!(caught["subject"], "task_a::a_is_there", "{caught:#}");
    let retry = std::fs::read_to_string(state_dir(r.path()).join("iterations/task-b-2.prompt"))
        .expect("the retry prompt");
    assert!(
        retry.contains("- regressed: task_a::a_is_there: [shell: grep -qx a lib.txt] failed: exited with code 1"),
        "{retry}"
    );
    for id in ["task-a", "task-c"] {
        assert_eq!(task(&state, id)["status"], "passed", "{id}\n{stderr}");
    }
    assert_eq!(
        std::fs::read_to_string(r.path().join("lib.txt")).expect("lib"),
        "a\nb\n"
    );
}

#[test]
fn a_resume_re_verifies_what_was_recorded_as_passed() {
    // task-a and task-c only (no task-b).
    let start = PRD.find("## Task: task-b").expect("task-b");
    let end = PRD.find("## Task: task-c").expect("task-c");
    let prd = format!("{}{}", &PRD[..start], &PRD[end..]);
    let r = run_repo(&prd, "", &[("lib.txt", "")], &script(), true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // While zurdo was not running, lib.txt lost `a` (task-a's criterion);
    // task-c's file is untouched.
    std::fs::write(r.path().join("lib.txt"), "").expect("a removed");

    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("zurdo: task-a had passed and no longer does (re-verified on resume):"),
        "{stderr}"
    );
    assert!(
        stderr.contains("zurdo: task-c still passes (re-verified on resume)"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = crate::common::state(r.path());
    // task-a went back to pending and was attempted again.
    let a = task(&state, "task-a");
    assert_eq!(a["status"], "passed", "{stderr}\n{a:#}");
    assert_eq!(a["attempts"], 2, "{a:#}");
    assert_eq!(task(&state, "task-c")["attempts"], 1);
    let events = std::fs::read_to_string(state_dir(r.path()).join("progress.log")).expect("log");
    assert!(events.contains("\"event\":\"reverified\""), "{events}");
}

/// Class 6 (b): a `passed` forged into prd.json (which an agent can write)
/// breaks its MAC; the resume trusts nothing it records and verifies every
/// task again: the forged task is attempted, the honest one passes again on
/// its own criteria.
#[test]
fn a_forged_run_state_is_distrusted_and_everything_is_verified_again() {
    let start = PRD.find("## Task: task-b").expect("task-b");
    let end = PRD.find("## Task: task-c").expect("task-c");
    let prd = format!("{}{}", &PRD[..start], &PRD[end..]);
    let stop_before_c = json!({"on_prompt": [
        {"contains": "Task task-a", "attempt": {"write": {"lib.txt": "a\n"}}},
        {"contains": "Task task-c", "attempt": {"text": "nothing done"}}
    ]})
    .to_string();
    let r = run_repo(
        &prd.replace(
            "## Task: task-c — Write c\n**Effort**: low\n**Depends-on**: []\n",
            "## Task: task-c — Write c\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n",
        ),
        "",
        &[("lib.txt", "")],
        &stop_before_c,
        true,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // The forgery: task-c, which failed, is recorded as passed.
    let dir = state_dir(r.path());
    let mut state = state(r.path());
    for t in state["tasks"].as_array_mut().expect("tasks") {
        if t["id"] == "task-c" {
            t["status"] = json!("passed");
        }
    }
    std::fs::write(
        dir.join("prd.json"),
        serde_json::to_vec_pretty(&state).expect("json"),
    )
    .expect("forge");
    std::fs::write(
        r.path().join(".zurdo/script.json"),
        crate::common::with_markers(&script()),
    )
    .expect("script");

    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("its MAC does not check: it was changed after zurdo wrote it; nothing it records is trusted"),
        "{stderr}"
    );
    let state = crate::common::state(r.path());
    let c = task(&state, "task-c");
    // Verified again: its criterion failed on the tree, so it was attempted
    // (its one attempt was spent: the budget still holds).
    assert_eq!(c["status"], "failed", "{stderr}\n{c:#}");
    let a = task(&state, "task-a");
    assert_eq!(a["status"], "passed", "{stderr}\n{a:#}");
    assert_eq!(a["attempts"], 1, "verified again, no new attempt: {a:#}");
    assert!(
        stderr.contains("zurdo: task-a still passes (re-verified on resume)"),
        "{stderr}"
    );
    // The state zurdo wrote back checks again.
    assert!(state["mac"].is_string());
}
