//! `zurdo verify` end to end, through the built binary.

use crate::common::{repo, text, zurdo};

const PRD: &str = "# PRD: Demo\n\n## Task: task-b — Second\n**Effort**: low\n**Depends-on**: [task-a]\n\n\
### Description\nd\n\n### Acceptance Criteria\n- [ ] the note exists [file-exists: note.txt]\n- [ ] reviewed [manual]\n\n\
## Task: task-a — First\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n\
- [ ] says hi [shell: echo hi]\n- [ ] mentions zurdo [grep: zurdo in note.txt]\n";

#[test]
fn all_automated_criteria_pass_exit_0_in_run_order() {
    let r = repo(&[("prds/demo.md", PRD), ("note.txt", "made by zurdo\n")]);
    let out = zurdo(&["verify", "prds/demo.md"], r.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let a = stdout.find("task-a — First").expect("task-a listed");
    let b = stdout.find("task-b — Second").expect("task-b listed");
    assert!(a < b, "run order puts the dependency first:\n{stdout}");
    assert!(stdout.contains("PASS    says hi"), "{stdout}");
    assert!(stdout.contains("REVIEW  reviewed"), "{stdout}");
    assert!(
        stdout.contains("prds/demo.md: 3 passed, 0 failed, 1 awaiting review"),
        "{stdout}"
    );
}

#[test]
fn a_failing_criterion_exits_1_with_its_reason_and_output() {
    let r = repo(&[("prds/demo.md", PRD), ("note.txt", "nothing here\n")]);
    let out = zurdo(&["verify", "prds/demo.md"], r.path());
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("FAIL    mentions zurdo"), "{stdout}");
    assert!(stdout.contains("prds/demo.md:23: mentions zurdo\n    [grep: zurdo in note.txt] failed: no line matches"), "{stdout}");
    assert!(
        stdout.contains("2 passed, 1 failed, 1 awaiting review"),
        "{stdout}"
    );
}

#[test]
fn json_carries_typed_reasons_and_evidence() {
    let r = repo(&[("prds/demo.md", PRD)]);
    let out = zurdo(&["verify", "--format", "json", "prds/demo.md"], r.path());
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let criteria = doc["criteria"].as_array().expect("criteria");
    assert_eq!(criteria[0]["name"], "task_a::says_hi");
    assert_eq!(criteria[0]["verdict"], "passed");
    assert_eq!(
        criteria[0]["hints"][0]["evidence"]["stdout"]["text"],
        "hi\n"
    );
    assert_eq!(
        criteria[1]["hints"][0]["reason"], "missing",
        "grep on a missing file"
    );
    assert_eq!(criteria[2]["hints"][0]["reason"], "missing");
    assert_eq!(criteria[3]["verdict"], "pending-review");
    assert_eq!(doc["summary"]["failed"], 2);
}

#[test]
fn task_filter_and_bad_input() {
    let r = repo(&[("prds/demo.md", PRD), ("bad.md", "# PRD: x\n")]);
    let out = zurdo(
        &[
            "verify",
            "--task",
            "task-a",
            "--format",
            "json",
            "prds/demo.md",
        ],
        r.path(),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["criteria"].as_array().map(Vec::len), Some(2));

    let out = zurdo(&["verify", "--task", "task-z", "prds/demo.md"], r.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has no task `task-z`"));

    let out = zurdo(&["verify", "bad.md"], r.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.md:1: the PRD has no tasks"));

    let out = zurdo(&["verify", "nope.md"], r.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nope.md: cannot read the PRD: no such file"));
}

#[test]
fn a_broken_config_is_an_error_naming_the_key() {
    let r = repo(&[
        ("prds/demo.md", PRD),
        (".zurdo/config.toml", "[verification]\ncriterion_secs = 3\n"),
    ]);
    let out = zurdo(&["verify", "prds/demo.md"], r.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(".zurdo/config.toml: line 2") && stderr.contains("criterion_secs"),
        "{stderr}"
    );
}

#[test]
fn verify_has_help() {
    let r = repo::<&str>(&[]);
    let out = zurdo(&["verify", "--help"], r.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: zurdo verify"));
}

#[test]
fn standing_rules_are_checked_too() {
    let config =
        "[[verification.standing]]\nhint = \"[file-absent: debug.log]\"\nwhy = \"no stray logs\"\n";
    let r = repo(&[
        ("prds/demo.md", PRD),
        ("note.txt", "made by zurdo\n"),
        (".zurdo/config.toml", config),
    ]);
    let out = zurdo(&["verify", "prds/demo.md"], r.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("PASS    [file-absent: debug.log] — no stray logs"));
    std::fs::write(r.path().join("debug.log"), "x").expect("write");
    let out = zurdo(&["verify", "--format", "json", "prds/demo.md"], r.path());
    assert_eq!(
        out.status.code(),
        Some(1),
        "a broken standing rule fails verify"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["standing"][0]["why"], "no stray logs");
    assert_eq!(doc["standing"][0]["reason"], "present");
}
