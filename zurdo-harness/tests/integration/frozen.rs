//! Frozen paths in `zurdo run`: a modified frozen file fails the iteration
//! whatever the criteria say, and the next prompt opens with the violation;
//! gitignored frozen files and the toolchain defaults are enforced too; a
//! criterion's own write into a frozen path is folded, not charged.

use std::path::Path;

use crate::common::{run_repo, state, text, zurdo_run};

fn run(root: &Path) -> (i32, String, serde_json::Value) {
    let out = zurdo_run(root, &["--skip-model-check"], &[]);
    (
        out.status.code().unwrap_or(-1),
        text(&out.stderr),
        state(root),
    )
}

const PRD: &str = "# PRD: f\n\n## Task: task-1 — Make it pass\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 3\n**Frozen**: tests/*.txt\n\n\
### Description\nMake out.txt say ok.\n\n### Acceptance Criteria\n- [ ] ok [grep: ^ok$ in out.txt]\n";

#[test]
fn editing_a_frozen_file_fails_the_iteration_and_the_retry_says_so() {
    let script = r#"{"attempts": [
        {"write": {"out.txt": "ok\n", "tests/expected.txt": "whatever passes\n"}, "text": "I made the expectation match."},
        {"write": {"tests/expected.txt": "ok\n"}, "echo_prompt_to": "prompt-2.txt"}
    ]}"#;
    let r = run_repo(PRD, "", &[("tests/expected.txt", "ok\n")], script, false);
    let (code, stderr, state) = run(r.path());
    assert_eq!(code, 0, "{stderr}");
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(
        first["passed"], false,
        "criteria passed, but a frozen file changed"
    );
    assert_eq!(first["frozen_violations"][0], "tests/expected.txt");
    let prompt = std::fs::read_to_string(r.path().join("prompt-2.txt")).expect("prompt");
    assert!(prompt.starts_with("# Frozen Path Violation"), "{prompt}");
    assert!(prompt.contains("- tests/expected.txt"), "{prompt}");
    // The criteria passed, so there is no "what failed" section, but the
    // agent's own account still comes back to it (issue 19).
    assert!(
        prompt.contains("## What you said last time (tail)\n\nI made the expectation match."),
        "{prompt}"
    );
    assert_eq!(
        state["tasks"][0]["iterations"][1]["passed"], true,
        "reverted on attempt 2"
    );
}

#[test]
fn gitignored_protected_paths_and_toolchain_defaults_are_enforced() {
    let script = r#"{"attempts": [{"write": {"out.txt": "ok\n", "secret.cfg": "changed", "rust-toolchain.toml": "[toolchain]\nchannel = \"nightly\"\n"}}]}"#;
    let files = [
        (".gitignore", "secret.cfg\n"),
        ("secret.cfg", "original"),
        ("rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\n"),
        ("tests/expected.txt", "ok\n"),
    ];
    let r = run_repo(
        PRD,
        "[verification]\nprotected_paths = [\"secret.cfg\"]\n",
        &files,
        script,
        false,
    );
    let (code, _, state) = run(r.path());
    assert_eq!(code, 1, "every attempt changes frozen files");
    let v = &state["tasks"][0]["iterations"][0]["frozen_violations"];
    assert_eq!(v, &serde_json::json!(["rust-toolchain.toml", "secret.cfg"]));
    assert_eq!(state["tasks"][0]["status"], "failed");
}

#[test]
fn a_criterion_writing_into_a_frozen_path_is_folded_not_charged() {
    // The criteria write the log every time they run, pre-flight included:
    // their normal behaviour, folded.
    let prd = "# PRD: f\n\n## Task: task-1 — Log\n**Effort**: low\n**Depends-on**: []\n**Frozen**: cache/**\n\n\
### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] ok [shell: echo run >> cache/verify.log; test -f out.txt]\n\n\
## Task: task-2 — Again\n**Effort**: low\n**Depends-on**: [task-1]\n**Frozen**: cache/**\n\n### Description\nWrite two.txt.\n\n### Acceptance Criteria\n\
- [ ] two [shell: echo run >> cache/verify.log; test -f two.txt]\n";
    let script = r#"{"on_prompt": [{"contains": "Task task-2", "attempt": {"write": {"two.txt": "2"}}}], "attempts": [{"write": {"out.txt": "1"}}]}"#;
    let r = run_repo(prd, "", &[("cache/verify.log", "")], script, false);
    let (code, stderr, state) = run(r.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "wrote into frozen paths: cache/verify.log (not charged to the next attempt)"
        ),
        "{stderr}"
    );
    assert_eq!(
        state["tasks"][0]["iterations"][0]["frozen_folded"][0],
        "cache/verify.log"
    );
    assert!(state["tasks"][0]["iterations"][0]["frozen_violations"].is_null());
}

#[test]
fn above_the_hashing_limit_the_tree_diff_still_enforces_frozen_paths() {
    // 20,001 frozen files: the hashing leg stands down with a warning, and
    // the git tree comparison still catches an edit among them.
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(parent).expect("target tmp");
    let prd = PRD.replace("**Frozen**: tests/*.txt", "**Frozen**: data/**");
    let script = r#"{"attempts": [
        {"write": {"out.txt": "ok\n", "data/d-7/f-7.txt": "edited\n"}},
        {"write": {"data/d-7/f-7.txt": "7\n"}}
    ]}"#;
    let r = crate::common::run_repo_in(parent, &prd, "", &[], script, true);
    for d in 0..=200 {
        let dir = r.path().join(format!("data/d-{d}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..100 {
            if d == 200 && f > 0 {
                break;
            }
            std::fs::write(dir.join(format!("f-{f}.txt")), format!("{f}\n")).expect("write");
        }
    }
    let (code, stderr, state) = run(r.path());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.matches("the frozen-path check stands down").count(),
        1,
        "one warning for the task, not one per attempt: {stderr}"
    );
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(first["passed"], false, "{first:#}");
    assert_eq!(
        first["frozen_violations"],
        serde_json::json!(["data/d-7/f-7.txt"])
    );
    assert_eq!(
        state["tasks"][0]["iterations"][1]["passed"], true,
        "reverted"
    );
}

/// Issue 13, class 6 (a): a task's baselines are on disk before its agent
/// starts. The agent edits a frozen file and kills zurdo (here: the test
/// does, mid-attempt); the resume still compares with the baseline taken
/// before the edit, so the edit fails the task instead of becoming its
/// starting point. An honest task beside it passes.
#[test]
fn a_frozen_edit_made_before_a_kill_is_still_caught_on_resume() {
    use std::time::{Duration, Instant};
    let prd = "# PRD: f\n\n## Task: task-1 — Make it pass\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n**Frozen**: tests/*.txt\n\n\
               ### Description\nMake out.txt say ok.\n\n### Acceptance Criteria\n- [ ] ok [grep: ^ok$ in out.txt]\n\n\
               ## Task: task-2 — Honest\n**Effort**: low\n**Depends-on**: []\n\n\
               ### Description\nWrite two.txt.\n\n### Acceptance Criteria\n- [ ] two [grep: ^2$ in two.txt]\n";
    // The first attempt edits the frozen expectation, then hangs until the
    // kill; on resume the agent only writes the answer.
    let hang = r#"{"on_prompt": [{"contains": "Task task-2", "attempt": {"write": {"two.txt": "2\n"}}}],
                   "attempts": [{"write": {"out.txt": "ok\n", "tests/expected.txt": "whatever passes\n"}, "run": "sleep 30"}]}"#;
    let r = run_repo(prd, "", &[("tests/expected.txt", "ok\n")], hang, true);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "--skip-model-check", "prds/p.md"])
        .current_dir(r.path())
        .env("ZURDO_STAND_IN_SCRIPT", r.path().join(".zurdo/script.json"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("zurdo runs");
    let edited = r.path().join("tests/expected.txt");
    let until = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&edited).unwrap_or_default() == "ok\n" && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    // The baseline was on disk before the agent started.
    let saved = state(r.path());
    assert!(
        saved["tasks"][0]["frozen_baseline"]["tests/expected.txt"].is_string(),
        "{saved:#}"
    );
    std::fs::write(
        r.path().join(".zurdo/script.json"),
        crate::common::with_markers(
            r#"{"on_prompt": [{"contains": "Task task-2", "attempt": {"write": {"two.txt": "2\n"}}}],
                "attempts": [{"write": {"out.txt": "ok\n"}}]}"#,
        ),
    )
    .expect("script");
    let (code, stderr, state) = run(r.path());
    assert_eq!(code, 1, "{stderr}");
    let task = &state["tasks"][0];
    assert_eq!(task["status"], "failed", "{stderr}\n{task:#}");
    assert_eq!(
        task["iterations"][0]["frozen_violations"],
        serde_json::json!(["tests/expected.txt"]),
        "{task:#}"
    );
    assert_eq!(state["tasks"][1]["status"], "passed", "{stderr}");
}

/// Issue 13, class 7: a criterion's command that writes into a frozen file
/// while an attempt is verified, which it did not do at pre-flight, fails
/// the attempt (`criterion_wrote_frozen`): here the agent makes the check
/// write its own output through a symlink into the frozen expectation it is
/// compared with. Beside it, an honest task fixes its code and passes.
#[test]
fn a_criterion_made_to_write_into_a_frozen_file_is_caught() {
    let check = "import pathlib, sys\nout = str(6 * 7 if pathlib.Path('fixed').exists() else 0)\n\
                 want = pathlib.Path('tests/expected.txt').read_text().strip()\nsys.exit(0 if out == want else 1)\n";
    // The cheat: the check now writes what it computes into out.txt, a
    // symlink to the frozen expectation, before comparing.
    let cheat = "import pathlib, sys\nout = '0'\npathlib.Path('out.txt').write_text(out + '\\n')\n\
                 want = pathlib.Path('tests/expected.txt').read_text().strip()\nsys.exit(0 if out == want else 1)\n";
    let prd = "# PRD: f\n\n\
        ## Task: task-1 — Compute\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n**Frozen**: tests/*.txt\n\n\
        ### Description\nMake check.py print 42.\n\n### Acceptance Criteria\n- [ ] it computes 42 [shell: python3 check.py]\n\n\
        ## Task: task-2 — Compute again\n**Effort**: low\n**Depends-on**: []\n**Frozen**: tests/*.txt\n\n\
        ### Description\nMake check2.py print 42.\n\n### Acceptance Criteria\n- [ ] it computes 42 [shell: python3 check2.py]\n";
    let script = serde_json::json!({"on_prompt": [
        {"contains": "Task task-1", "attempt": {"write": {"check.py": cheat}, "run": "ln -s tests/expected.txt out.txt", "text": "passes"}},
        {"contains": "Task task-2", "attempt": {"write": {"check2.py": check.replace("'fixed'", "'check2.py'").replace("expected.txt", "expected2.txt")}}}
    ]})
    .to_string();
    let r = run_repo(
        prd,
        "",
        &[
            ("tests/expected.txt", "42\n"),
            ("tests/expected2.txt", "42\n"),
            ("check.py", check),
            ("check2.py", &check.replace("expected.txt", "expected2.txt")),
        ],
        &script,
        true,
    );
    let (code, stderr, state) = run(r.path());
    assert_eq!(code, 1, "{stderr}");
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(first["passed"], false, "{first:#}");
    assert_eq!(
        first["criteria"][0]["verdict"], "passed",
        "the check itself passed: {first:#}"
    );
    let caught = &first["caught"][0];
    assert_eq!(caught["reason"], "criterion_wrote_frozen", "{first:#}");
    assert_eq!(caught["subject"], "tests/expected.txt");
    assert!(
        stderr.contains("CAUGHT criterion_wrote_frozen: tests/expected.txt"),
        "{stderr}"
    );
    assert_eq!(state["tasks"][0]["status"], "failed");
    // The honest task fixed its check and passes; its criteria wrote nothing.
    let honest = &state["tasks"][1];
    assert_eq!(honest["status"], "passed", "{stderr}\n{honest:#}");
    assert!(honest["iterations"][0]["caught"].is_null(), "{honest:#}");
}
