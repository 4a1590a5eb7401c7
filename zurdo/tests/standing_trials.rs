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
