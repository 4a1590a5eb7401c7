//! Standing rules are trials of the cargo-test harness too.

use zurdo::harness::{trials, Source};

#[test]
fn each_standing_rule_is_a_named_trial() {
    let dir = tempfile::tempdir().expect("temp");
    std::fs::create_dir_all(dir.path().join(".zurdo")).expect("mkdir");
    std::fs::write(
        dir.path().join(".zurdo/config.toml"),
        "[[verification.standing]]\nhint = \"[file-absent: debug.log]\"\nwhy = \"No stray logs!\"\n\n\
         [[verification.standing]]\nhint = \"[shell: true]\"\nwhy = \"no stray logs\"\n",
    )
    .expect("config");
    let prd = "# PRD: x\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] works [shell: true]\n";
    let path: &'static str = Box::leak(
        dir.path()
            .join("p.md")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    std::fs::write(path, prd).expect("prd");
    let text: &'static str = Box::leak(prd.to_string().into_boxed_str());
    let all = trials(&[Source {
        display: "p.md",
        path,
        text,
        module: None,
    }])
    .expect("trials");
    let names: Vec<&str> = all.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "task_1::works",
            "standing::no_stray_logs",
            "standing::no_stray_logs_2"
        ]
    );

    let bad: &'static str = Box::leak(
        dir.path()
            .join(".zurdo/config.toml")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    std::fs::write(
        bad,
        "[[verification.standing]]\nhint = \"[manual]\"\nwhy = \"x\"\n",
    )
    .expect("config");
    let e = trials(&[Source {
        display: "p.md",
        path,
        text,
        module: None,
    }])
    .expect_err("a manual standing rule is refused");
    assert!(e.contains("[manual] cannot be a standing rule"), "{e}");
}

/// A PRD, its repository and a sealed file outside it.
fn sealed_setup(sealed_body: &str) -> (tempfile::TempDir, tempfile::TempDir, Source) {
    let repo = tempfile::tempdir().expect("repo");
    std::fs::create_dir_all(repo.path().join(".git")).expect("git marker");
    let outside = tempfile::tempdir().expect("outside");
    let sealed = outside.path().join("sealed.md");
    std::fs::write(&sealed, sealed_body).expect("sealed");
    std::fs::create_dir_all(repo.path().join(".zurdo")).expect("mkdir");
    std::fs::write(
        repo.path().join(".zurdo/config.toml"),
        format!("[verification]\nsealed = \"{}\"\n", sealed.display()),
    )
    .expect("config");
    let prd = "# PRD: x\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] works [shell: true]\n";
    let path: &'static str = Box::leak(
        repo.path()
            .join("p.md")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    std::fs::write(path, prd).expect("prd");
    let source = Source {
        display: "p.md",
        path,
        text: Box::leak(prd.to_string().into_boxed_str()),
        module: None,
    };
    (repo, outside, source)
}

#[test]
fn sealed_criteria_are_trials_when_their_file_is_present() {
    let sealed = "# PRD: s\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] hidden one [shell: true]\n- [ ] hidden one [shell: false]\n";
    let (_repo, outside, source) = sealed_setup(sealed);
    let all = trials(&[source]).expect("trials");
    let names: Vec<&str> = all.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "task_1::works",
            "task_1::sealed::hidden_one",
            "task_1::sealed::hidden_one_2"
        ]
    );
    let args = libtest_mimic::Arguments {
        test_threads: Some(1),
        quiet: true,
        ..Default::default()
    };
    let conclusion = libtest_mimic::run(&args, trials(&[source]).expect("trials"));
    assert_eq!((conclusion.num_passed, conclusion.num_failed), (2, 1));

    // The config names a file this machine lacks: the PRD's own criteria
    // still run.
    std::fs::remove_file(outside.path().join("sealed.md")).expect("rm");
    let names: Vec<String> = trials(&[source])
        .expect("trials")
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, ["task_1::works"]);

    // A sealed task the PRD lacks is the grammar's kind of error.
    std::fs::write(
        outside.path().join("sealed.md"),
        sealed.replace("task-1", "task-9"),
    )
    .expect("write");
    let e = trials(&[source]).expect_err("unknown task");
    assert!(
        e.contains("sealed task `task-9` is not a task of the PRD"),
        "{e}"
    );
}
