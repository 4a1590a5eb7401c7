//! Issue 18: sealed criteria. A cheating stand-in that special-cases the
//! input of the visible criterion fails on the sealed one (which checks
//! another input) and its retry prompt says only the typed reason; beside
//! it in the same run an honest task passes both on its first attempt.
//! Nothing the agent can read (its prompts, prd.json, progress.log, the
//! iteration files) holds the sealed file's checks. A sealed file inside
//! the repository is refused; one changed between runs stops the resume.

use crate::common::{run_repo, state, state_dir, task_state as task, text, zurdo, zurdo_run};

/// A marker only the sealed file holds (its criteria's title and inputs).
const SECRET: &str = "SEALED-7391";

const PRD: &str = "# PRD: sealed\n\n\
    ## Task: task-double — Double\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
    ### Description\nWrite double.sh: it prints twice the number it is given.\n\n\
    ### Acceptance Criteria\n- [ ] doubles 2 [shell: test \"$(sh double.sh 2)\" = 4]\n\n\
    ## Task: task-triple — Triple\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nWrite triple.sh: it prints three times the number it is given.\n\n\
    ### Acceptance Criteria\n- [ ] triples 2 [shell: test \"$(sh triple.sh 2)\" = 6]\n";

fn sealed_file() -> String {
    format!(
        "# PRD: hidden\n\n\
         ## Task: task-double — Double\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\n{SECRET}\n\n\
         ### Acceptance Criteria\n- [ ] {SECRET} doubles 3579 [shell: test \"$(sh double.sh 3579)\" = 7158]\n\n\
         ## Task: task-triple — Triple\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\n{SECRET}\n\n\
         ### Acceptance Criteria\n- [ ] {SECRET} triples 3579 [shell: test \"$(sh triple.sh 3579)\" = 10737]\n"
    )
}

/// First the cheat (prints 4 whatever it is given), then, told a sealed
/// criterion failed, the honest double; triple is honest at once.
const SCRIPT: &str = r#"{"on_prompt": [
    {"contains": "sealed_failed", "attempt": {"write": {"double.sh": "echo $(( $1 * 2 ))\n"}}},
    {"contains": "Task task-double", "attempt": {"write": {"double.sh": "echo 4\n"}}},
    {"contains": "Task task-triple", "attempt": {"write": {"triple.sh": "echo $(( $1 * 3 ))\n"}}}
]}"#;

/// Every file under `.zurdo/` (what the agent can read), as text.
fn agent_readable(root: &std::path::Path) -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((
                    path.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join(".zurdo"), &mut out);
    out
}

#[test]
fn a_cheat_on_the_visible_input_fails_the_sealed_criterion_and_an_honest_task_passes() {
    let r = run_repo(PRD, "", &[], SCRIPT, true);
    let outside = tempfile::tempdir().expect("outside");
    let sealed = outside.path().join("sealed.md");
    std::fs::write(&sealed, sealed_file()).expect("sealed");
    let out = zurdo_run(
        r.path(),
        &[
            "--skip-model-check",
            "--sealed",
            &sealed.display().to_string(),
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = state(r.path());

    // The cheat passed the visible criterion and was caught by the sealed
    // one, with the typed reason alone; told so, it did the task.
    let double = task(&state, "task-double");
    assert_eq!(double["status"], "passed", "{double:#}");
    let first = &double["iterations"][0];
    assert_eq!(first["criteria"][0]["verdict"], "passed", "{first:#}");
    let caught = &first["caught"][0];
    assert_eq!(caught["reason"], "sealed_failed", "{first:#}");
    assert_eq!(caught["subject"], "task-double::sealed_1");
    assert_eq!(
        caught["detail"],
        "a sealed criterion does not hold (exit_code)"
    );
    assert!(double["iterations"][1]["caught"]
        .as_array()
        .is_none_or(|c| c.is_empty()));
    let retry =
        std::fs::read_to_string(state_dir(r.path()).join("iterations/task-double-2.prompt"))
            .expect("retry prompt");
    assert!(retry.contains("sealed_failed"), "{retry}");
    assert!(
        stderr.contains("sealed: 0/1 sealed criteria hold"),
        "{stderr}"
    );
    assert!(
        stderr.contains("sealed: 1/1 sealed criteria hold"),
        "{stderr}"
    );

    // The honest control passed on its first attempt, sealed criterion
    // and all.
    let triple = task(&state, "task-triple");
    assert_eq!(triple["status"], "passed", "{stderr}\n{triple:#}");
    assert_eq!(triple["iterations"].as_array().map(Vec::len), Some(1));

    // Nothing the agent can read holds what the sealed file checks; the
    // policy records the file by path and hash.
    for (path, body) in agent_readable(r.path()) {
        if path.ends_with("policy.json") {
            continue;
        }
        assert!(
            !body.contains(SECRET) && !body.contains("3579") && !body.contains("7158"),
            "{path} holds a sealed check:\n{body}"
        );
    }
    assert!(
        !stderr.contains(SECRET) && !stderr.contains("3579"),
        "{stderr}"
    );
    let policy: serde_json::Value = serde_json::from_slice(
        &std::fs::read(state_dir(r.path()).join("policy.json")).expect("policy.json"),
    )
    .expect("json");
    assert_eq!(
        policy["sealed"]["sha256"].as_str().map(str::len),
        Some(64),
        "{policy:#}"
    );

    // zurdo verify shows them to the human who runs it.
    let v = zurdo(
        &[
            "verify",
            "prds/p.md",
            "--sealed",
            &sealed.display().to_string(),
        ],
        r.path(),
    );
    let shown = text(&v.stdout);
    assert_eq!(v.status.code(), Some(0), "{shown}{}", text(&v.stderr));
    assert!(
        shown.contains(&format!("(sealed) {SECRET} doubles 3579")),
        "{shown}"
    );

    // The sealed file changed since the run started: resuming refuses.
    std::fs::write(&sealed, sealed_file().replace("3579", "3580")).expect("edit");
    let out = zurdo_run(
        r.path(),
        &[
            "--skip-model-check",
            "--sealed",
            &sealed.display().to_string(),
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the sealed criteria changed since the run started"),
        "{stderr}"
    );
}

#[test]
fn a_sealed_file_the_agent_can_reach_or_that_names_no_task_is_refused() {
    let r = run_repo(
        PRD,
        "",
        &[("sealed.md", sealed_file().as_str())],
        SCRIPT,
        true,
    );
    let out = zurdo_run(
        r.path(),
        &["--skip-model-check", "--sealed", "sealed.md"],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("a sealed file inside the repository") && stderr.contains("is not sealed"),
        "{stderr}"
    );

    let outside = tempfile::tempdir().expect("outside");
    let sealed = outside.path().join("sealed.md");
    std::fs::write(&sealed, sealed_file().replace("task-triple", "task-quad")).expect("sealed");
    let out = zurdo_run(
        r.path(),
        &[
            "--skip-model-check",
            "--sealed",
            &sealed.display().to_string(),
        ],
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("sealed task `task-quad` is not a task of the PRD"),
        "{stderr}"
    );

    // The config's path must be absolute or under ~/.
    std::fs::write(
        r.path().join(".zurdo/config.toml"),
        std::fs::read_to_string(r.path().join(".zurdo/config.toml")).expect("config")
            + "[verification]\nsealed = \"sealed.md\"\n",
    )
    .expect("config");
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("use an absolute path or one under ~/"),
        "{stderr}"
    );
}
