//! Issue 13, class 7: holes in file hints. A `[no-grep:]` on a literal path
//! does not pass because the attempt deleted the file it searches
//! (`evidence_missing`), and a directory search honours the ignore rules of
//! the run's start, not an ignore entry the agent added to hide a file.
//! Beside each cheat, in the same run, an honest task passes: one that
//! fixes the file, one that adds an ignore entry for its build output.

use serde_json::json;

use crate::common::{run_repo, state, state_dir, task_state as task, text, zurdo_run};

#[test]
fn deleting_the_searched_file_fails_and_fixing_it_passes() {
    let prd = "# PRD: m\n\n\
        ## Task: task-cheat — Remove the debug call\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
        ### Description\nRemove dbg! from src/a.rs.\n\n### Acceptance Criteria\n- [ ] no debug call [no-grep: dbg! in src/a.rs]\n\n\
        ## Task: task-honest — Remove the other debug call\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nRemove dbg! from src/b.rs.\n\n### Acceptance Criteria\n- [ ] no debug call [no-grep: dbg! in src/b.rs]\n";
    let script = json!({"on_prompt": [
        {"contains": "Task task-cheat", "attempt": {"delete": ["src/a.rs"], "text": "no dbg! left"}},
        {"contains": "Task task-honest", "attempt": {"write": {"src/b.rs": "fn b() {}\n"}}}
    ]})
    .to_string();
    let r = run_repo(
        prd,
        "",
        &[
            ("src/a.rs", "fn a() { dbg!(1); }\n"),
            ("src/b.rs", "fn b() { dbg!(2); }\n"),
        ],
        &script,
        true,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    let cheat = task(&state, "task-cheat");
    assert_eq!(cheat["status"], "failed", "{cheat:#}");
    let hint = &cheat["iterations"][0]["criteria"][0]["hints"][0];
    assert_eq!(hint["reason"], "evidence_missing", "{hint:#}");
    assert_eq!(hint["path"], "src/a.rs");
    assert!(
        stderr.contains("src/a.rs existed at pre-flight and is gone"),
        "{stderr}"
    );
    assert_eq!(task(&state, "task-honest")["status"], "passed", "{stderr}");
}

#[test]
fn an_ignore_entry_added_to_hide_a_file_hides_nothing() {
    let prd = "# PRD: i\n\n\
        ## Task: task-cheat — Remove the debug calls\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
        ### Description\nRemove dbg! from src/.\n\n### Acceptance Criteria\n- [ ] no debug calls [no-grep: dbg! in src/**/*.rs]\n\n\
        ## Task: task-honest — Build the page\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nWrite build/out.txt and ignore build/.\n\n### Acceptance Criteria\n- [ ] built [grep: ^ok$ in build/out.txt]\n";
    // The cheat hides the file from searches with a .gitignore entry
    // instead of removing the call. The honest task ignores its build
    // output, as projects do.
    let script = json!({"on_prompt": [
        {"contains": "Task task-cheat", "attempt": {"write": {".gitignore": "src/debug.rs\n"}, "text": "no dbg! left"}},
        {"contains": "Task task-honest", "attempt": {"write": {"build/out.txt": "ok\n"}, "append": {".gitignore": "build/\n"}}}
    ]})
    .to_string();
    let r = run_repo(
        prd,
        "",
        &[
            ("src/lib.rs", "fn lib() {}\n"),
            ("src/debug.rs", "fn d() { dbg!(0); }\n"),
        ],
        &script,
        true,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    let state = state(r.path());
    let cheat = task(&state, "task-cheat");
    let first = &cheat["iterations"][0];
    assert_eq!(first["passed"], false, "{stderr}\n{cheat:#}");
    let hint = &first["criteria"][0]["hints"][0];
    assert_eq!(hint["reason"], "matched", "{hint:#}");
    assert!(
        hint["first"]
            .as_str()
            .is_some_and(|f| f.starts_with("src/debug.rs:1:")),
        "{hint:#}"
    );
    assert_eq!(cheat["status"], "failed", "{stderr}");
    assert_eq!(task(&state, "task-honest")["status"], "passed", "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The run-start rules are recorded (prd.json's MAC vouches for them).
    let rules = &state["ignore_rules"]["files"];
    assert!(rules.get(".gitignore").is_none(), "{rules:#}");
    assert!(state_dir(r.path()).join("prd.json").is_file());
}
