//! Baselines in `zurdo run` inside a real git repository: the run-start
//! baseline, each task's rollback point and ref, run-diff.patch, witness
//! coverage, --reset deleting the refs, and .git/index left untouched.

use std::path::Path;
use std::process::Command;

use crate::common::text;

fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn a_run_in_git_records_baselines_refs_and_the_run_diff() {
    let prd = "# PRD: g\n\n## Task: task-1 — Write out\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] out says ok [grep: ^ok$ in out.txt]\n";
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n", "notes.txt": "new\n"}}]}"#;
    let dir = crate::common::run_repo(
        prd,
        "",
        &[(".gitignore", ".zurdo/\n"), ("notes.txt", "old\n")],
        script,
        true,
    );
    let root = dir.path();
    git(root, &["config", "user.email", "t@example.invalid"]);
    git(root, &["config", "user.name", "t"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "start"]);
    let index_before = std::fs::read(root.join(".git/index")).expect("index");
    let run = |extra: &[&str]| {
        let mut args = vec!["--skip-model-check"];
        args.extend_from_slice(extra);
        crate::common::zurdo_run(root, &args, &[])
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(root.join(".git/index")).expect("index"),
        index_before,
        ".git/index untouched"
    );

    let slug_dir = std::fs::read_dir(root.join(".zurdo"))
        .expect("ls")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("p-"))
        .expect("state")
        .path();
    let slug = slug_dir
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(slug_dir.join("baseline")).expect("baseline"))
            .expect("json");
    assert_eq!(baseline["dirty"], false);
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(slug_dir.join("prd.json")).expect("read"))
            .expect("json");
    let task = &state["tasks"][0];
    let rollback = task["rollback_point"].as_str().expect("rollback point");
    assert_eq!(
        rollback,
        baseline["tree"].as_str().expect("tree"),
        "task-1 began on the run-start tree"
    );
    let reference = git(
        root,
        &["rev-parse", &format!("refs/zurdo/{slug}/task-1^{{tree}}")],
    );
    assert_eq!(reference.trim(), rollback);
    assert_eq!(task["witness"]["witnessed"], serde_json::json!(["out.txt"]));
    assert_eq!(
        task["witness"]["unwitnessed"],
        serde_json::json!(["notes.txt"])
    );
    assert!(task["iterations"][0]["verified_tree"].is_string());

    let patch = std::fs::read_to_string(slug_dir.join("run-diff.patch")).expect("patch");
    assert!(
        patch.starts_with(&format!("# baseline {rollback} (run start ")),
        "{patch}"
    );
    assert!(
        patch.contains("+ok") && patch.contains("-old") && patch.contains("+new"),
        "{patch}"
    );

    let out = run(&["--reset"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The reset deleted the old ref, and task-1, green at pre-flight this
    // time, never entered the loop, so it has no rollback point or ref.
    let refs = git(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            &format!("refs/zurdo/{slug}/"),
        ],
    );
    assert_eq!(refs.trim(), "");
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(slug_dir.join("prd.json")).expect("read"))
            .expect("json");
    assert!(state["tasks"][0]["rollback_point"].is_null());
}

/// A git repository whose claude is the stand-in driven by `script`.
fn git_repo(prd: &str, config_extra: &str, script: &str) -> tempfile::TempDir {
    crate::common::run_repo(
        prd,
        config_extra,
        &[(".gitignore", ".zurdo/\nscratch/\n")],
        script,
        true,
    )
}

fn run_in(root: &Path) -> (i32, String, serde_json::Value, std::path::PathBuf) {
    let out = crate::common::zurdo_run(root, &["--skip-model-check"], &[]);
    (
        out.status.code().unwrap_or(-1),
        text(&out.stderr),
        crate::common::state(root),
        crate::common::state_dir(root),
    )
}

const ONE_TASK: &str = "# PRD: c\n\n## Task: task-1 — Produce the report\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
### Description\nd\n\n### Acceptance Criteria\n- [ ] the report exists [file-exists: scratch/report.txt]\n";

#[test]
fn a_file_only_the_working_tree_has_is_a_clean_room_mismatch() {
    // scratch/ is ignored: the file is in the working tree but not in the verified tree.
    let r = git_repo(
        ONE_TASK,
        "[verification]\nclean_room = \"checkout\"\n",
        r#"{"attempts": [{"write": {"scratch/report.txt": "done"}}]}"#,
    );
    let (code, stderr, state, _) = run_in(r.path());
    assert_eq!(code, 1, "{stderr}");
    let mismatch = &state["tasks"][0]["iterations"][0]["clean_room_mismatch"][0];
    assert!(mismatch.as_str().expect("recorded").starts_with("clean_room_mismatch: the report exists [file-exists: scratch/report.txt] — in the room: no such file"), "{mismatch}");
    assert_eq!(state["tasks"][0]["status"], "failed");

    // Without the clean room, the same attempt passes in place.
    let r = git_repo(
        ONE_TASK,
        "",
        r#"{"attempts": [{"write": {"scratch/report.txt": "done"}}]}"#,
    );
    let (code, stderr, _, _) = run_in(r.path());
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rewriting_the_baseline_file_changes_nothing() {
    let prd = "# PRD: c\n\n## Task: task-1 — Write\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] written [file-exists: out.txt]\n";
    let r = git_repo(
        prd,
        "",
        r#"{"attempts": [{"write": {"out.txt": "x"}, "run": "for f in .zurdo/p-*/baseline; do echo '{\"tree\":\"0000000000000000000000000000000000000000\",\"dirty\":false}' > \"$f\"; done"}]}"#,
    );
    let (code, stderr, state, slug_dir) = run_in(r.path());
    assert_eq!(code, 0, "{stderr}");
    let patch = std::fs::read_to_string(slug_dir.join("run-diff.patch")).expect("patch");
    let rollback = state["tasks"][0]["rollback_point"]
        .as_str()
        .expect("rollback");
    assert!(
        patch.starts_with(&format!("# baseline {rollback}")),
        "the patch rests on the baseline zurdo holds, not the file: {patch}"
    );
    assert!(patch.contains("+x"), "{patch}");
}

/// True when bubblewrap can start a sandbox here (containers may forbid it).
fn bubblewrap_works() -> bool {
    Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "true",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_bubblewrap_room_hides_the_working_tree() {
    if !bubblewrap_works() {
        eprintln!("note: bwrap is missing or cannot sandbox here; skipping the bubblewrap clean-room test");
        return;
    }
    let script =
        r#"{"attempts": [{"write": {"scratch/report.txt": "done", "src.txt": "tracked"}}]}"#;
    // The criterion reaches into the working tree by absolute path: a plain
    // checkout room still sees it, the sandboxed room does not.
    for (backend, expected) in [("checkout", 0), ("bubblewrap", 1)] {
        let r = git_repo(
            "# PRD: placeholder\n",
            &format!("[verification]\nclean_room = \"{backend}\"\n"),
            script,
        );
        let report = r.path().join("scratch/report.txt");
        let prd = format!(
            "# PRD: c\n\n## Task: task-1 — Report\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n### Description\nd\n\n\
             ### Acceptance Criteria\n- [ ] the source exists [file-exists: src.txt]\n- [ ] the report exists [shell: test -f {}]\n",
            report.display()
        );
        std::fs::write(r.path().join("prds/p.md"), prd).expect("prd");
        let (code, stderr, state, _) = run_in(r.path());
        assert_eq!(code, expected, "{backend}: {stderr}");
        if backend == "bubblewrap" {
            let m = state["tasks"][0]["iterations"][0]["clean_room_mismatch"][0]
                .as_str()
                .expect("mismatch");
            assert!(m.contains("the report exists"), "{m}");
        }
    }
}
