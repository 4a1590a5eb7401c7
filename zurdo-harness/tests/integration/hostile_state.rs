//! zurdo's own state directory against an agent that plants symlinks in it:
//! nothing zurdo writes goes through a symlink, wherever the agent put one
//! (a file zurdo is about to write, a directory it writes into, `.zurdo`
//! itself), and the lock cannot be faked with an unrelated process.

use std::path::Path;

use serde_json::json;

use crate::common::{mkfifo, run_repo, state, state_dir, text, zurdo_run};

const PRD: &str = "# PRD: p\n\n## Task: task-1 — Write it\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 3\n\n\
### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] written [file-exists: out.txt]\n";

/// Files outside the repository that symlinks point at: each must be
/// exactly as it was after the run.
fn victims(outside: &Path) -> Vec<(std::path::PathBuf, &'static str)> {
    ["prompt", "log", "diff", "policy", "baseline", "out"]
        .iter()
        .map(|name| (outside.join(name), "precious\n"))
        .collect()
}

#[test]
fn symlinks_an_agent_plants_in_the_state_are_never_written_through() {
    let outside = tempfile::tempdir().expect("temp");
    for (path, body) in victims(outside.path()) {
        std::fs::write(path, body).expect("victim");
    }
    let reports = outside.path().join("reports");
    std::fs::create_dir(&reports).expect("mkdir");
    let o = outside.path().display();
    // Attempt 1 plants a symlink at every file zurdo writes next, and swaps
    // the reports directory for one outside; attempt 2 does the work.
    let plant = format!(
        "for d in .zurdo/p-*; do \
           ln -sf {o}/prompt $d/iterations/task-1-2.prompt; \
           ln -sf {o}/out $d/iterations/task-1-2.out; \
           rm -f $d/progress.log; ln -s {o}/log $d/progress.log; \
           ln -sf {o}/diff $d/run-diff.patch; \
           rm -f $d/policy.json; ln -s {o}/policy $d/policy.json; \
           rm -f $d/baseline; ln -s {o}/baseline $d/baseline; \
           rm -rf $d/reports; ln -s {o}/reports $d/reports; \
         done"
    );
    let script = json!({"attempts": [
        {"run": plant, "text": "planted"},
        {"write": {"out.txt": "ok\n"}, "text": "done"}
    ]})
    .to_string();
    let r = run_repo(PRD, "", &[], &script, true);
    let out = zurdo_run(r.path(), &[], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(state(r.path())["tasks"][0]["status"], "passed");
    for (path, body) in victims(outside.path()) {
        assert_eq!(
            std::fs::read_to_string(&path).expect("victim"),
            body,
            "{} was written through a symlink",
            path.display()
        );
    }
    assert_eq!(
        std::fs::read_dir(&reports).expect("ls").count(),
        0,
        "no report written through the planted reports symlink"
    );
    // The records zurdo wrote are its own files, and it said what it refused.
    let dir = state_dir(r.path());
    for name in [
        "iterations/task-1-2.prompt",
        "progress.log",
        "run-diff.patch",
    ] {
        let meta = std::fs::symlink_metadata(dir.join(name)).expect(name);
        assert!(meta.is_file(), "{name} is zurdo's own file again");
    }
    assert!(
        stderr.contains("progress.log was not a regular file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("reports is a symlink; zurdo does not write through symlinks"),
        "{stderr}"
    );
}

#[test]
fn a_zurdo_directory_that_is_a_symlink_or_a_file_is_refused() {
    let outside = tempfile::tempdir().expect("temp");
    for (what, plant) in [("a symlink", true), ("a file", false)] {
        let r = run_repo(
            PRD,
            "",
            &[],
            r#"{"attempts": [{"write": {"out.txt": "ok\n"}}]}"#,
            false,
        );
        let zurdo = r.path().join(".zurdo");
        // Keep the config and the agent, under a real directory elsewhere.
        let moved = outside.path().join(format!("moved-{plant}"));
        std::fs::rename(&zurdo, &moved).expect("move .zurdo");
        if plant {
            std::os::unix::fs::symlink(&moved, &zurdo).expect("plant");
        } else {
            std::fs::write(&zurdo, "not a directory").expect("plant");
        }
        let script = moved.join("script.json").display().to_string();
        let out = zurdo_run(
            r.path(),
            &["--skip-model-check"],
            &[("ZURDO_STAND_IN_SCRIPT", &script)],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        let expected = if plant {
            ".zurdo is a symlink; zurdo does not write through symlinks (remove it and run again)"
        } else {
            ".zurdo is not a directory"
        };
        assert!(stderr.contains(expected), "{what}: {stderr}");
        let written: Vec<_> = std::fs::read_dir(&moved)
            .expect("ls")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("p-"))
            .collect();
        assert!(
            written.is_empty(),
            "{what}: state written through it: {written:?}"
        );
    }
}

#[test]
fn fifos_where_zurdo_reads_its_own_files_are_refused_not_waited_on() {
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n"}}]}"#;
    // The config.
    let r = run_repo(PRD, "", &[], script, false);
    let config = r.path().join(".zurdo/config.toml");
    std::fs::remove_file(&config).expect("rm");
    mkfifo(&config);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("config.toml: cannot read: not a regular file (a FIFO)"),
        "{stderr}"
    );

    // prd.json, and progress.log, of a run that already happened.
    let r = run_repo(PRD, "", &[], script, false);
    let first = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let dir = state_dir(r.path());
    std::fs::remove_file(dir.join("progress.log")).expect("rm");
    mkfifo(&dir.join("progress.log"));
    let again = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("progress.log was not a regular file"),
        "{stderr}"
    );
    std::fs::remove_file(dir.join("prd.json")).expect("rm");
    mkfifo(&dir.join("prd.json"));
    let refused = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("prd.json: not a regular file (a FIFO), so it is not read"),
        "{stderr}"
    );

    // A lesson: skipped, named, and the run goes on.
    let r = run_repo(
        PRD,
        "[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"haiku\"\n[reason]\nenabled = true\n",
        &[],
        script,
        false,
    );
    std::fs::create_dir_all(r.path().join("lessons")).expect("mkdir");
    mkfifo(&r.path().join("lessons/lesson-0badf1f0.md"));
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("lesson-0badf1f0.md skipped: unreadable: not a regular file (a FIFO)"),
        "{stderr}"
    );
}

#[test]
fn an_edited_run_state_is_checked_before_it_is_trusted() {
    let failing = r#"{"attempts": [{"text": "no"}], "log": "calls.jsonl"}"#;
    let calls = |root: &Path| {
        std::fs::read_to_string(root.join(".zurdo/calls.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"probe\":false"))
            .count()
    };
    let prd = PRD.replace("**Max-Attempts**: 3", "**Max-Attempts**: 2");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 3] = [
        ("a wrapped counter", |s| {
            s["tasks"][0]["attempts"] = json!(u32::MAX);
        }),
        ("a budget past the limit", |s| {
            s["tasks"][0]["max_attempts"] = json!(u32::MAX);
        }),
        ("attempts without their iterations", |s| {
            s["tasks"][0]["attempts"] = json!(1);
            s["tasks"][0]["iterations"] = json!([]);
        }),
    ];
    for (what, edit) in edits {
        let r = run_repo(&prd, "", &[], failing, false);
        let root = r.path();
        // An honest failed run: two attempts, then resumable.
        let first = zurdo_run(root, &["--skip-model-check"], &[]);
        assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
        assert_eq!(calls(root), 2);
        let mut s = state(root);
        s["tasks"][0]["status"] = json!("pending");
        edit(&mut s);
        let path = state_dir(root).join("prd.json");
        std::fs::write(&path, serde_json::to_vec(&s).expect("JSON")).expect("edit");
        let out = zurdo_run(root, &["--skip-model-check"], &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains("the run state does not add up")
                && stderr.contains("`zurdo run --reset prds/p.md`"),
            "{what}: {stderr}"
        );
        assert_eq!(calls(root), 2, "{what}: no agent ran");
    }
}

#[test]
fn a_prd_file_name_git_refuses_in_a_ref_still_gets_its_rollback_ref() {
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n"}}]}"#;
    let r = run_repo(PRD, "", &[], script, true);
    let root = r.path();
    for name in ["my feature~1.md", "a^b:c?.md"] {
        std::fs::write(root.join("prds").join(name), PRD).expect("prd");
        let prd = format!("prds/{name}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo"))
            .args(["run", "--no-prompt", "--skip-model-check", &prd])
            .current_dir(root)
            .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
            .output()
            .expect("zurdo runs");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert!(
            !stderr.contains("cannot record refs/zurdo"),
            "{name}: {stderr}"
        );
        std::fs::remove_file(root.join("out.txt")).expect("rm");
    }
    let refs = std::process::Command::new("git")
        .args(["for-each-ref", "--format=%(refname)", "refs/zurdo/"])
        .current_dir(root)
        .output()
        .expect("git");
    let refs = text(&refs.stdout);
    assert!(refs.contains("refs/zurdo/my%20feature%7E1-"), "{refs}");
    assert!(refs.contains("refs/zurdo/a%5Eb%3Ac%3F-"), "{refs}");
}
