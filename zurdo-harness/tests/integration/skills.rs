//! Issue 19: the bundled skills. `zurdo skills install` puts them in the
//! skill directory of each provider the config uses, idempotently; one the
//! user edited is never overwritten unless forced; `zurdo skills list` says
//! where each is and in what state. `[skills] search_paths` is where the
//! pre-flight also looks for the skills a task names.

use crate::common::{run_repo, text, zurdo, zurdo_run};

#[test]
fn install_list_edit_and_force() {
    let r = crate::common::repo(&[(
        ".zurdo/config.toml",
        "[executor]\nprovider = \"openai\"\n[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"opus\"\n",
    )]);
    let root = r.path();
    let out = zurdo(&["skills", "install", "--all"], root);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    for dir in [".agents/skills", ".claude/skills"] {
        for name in [
            "zurdo-prd-author",
            "zurdo-hint-debugger",
            "zurdo-state-summary",
        ] {
            assert!(said.contains(&format!("installed {dir}/{name}")), "{said}");
            let skill = std::fs::read_to_string(root.join(dir).join(name).join("SKILL.md"))
                .expect("installed");
            assert!(
                skill.starts_with(&format!("---\nname: {name}\n")),
                "{skill}"
            );
        }
    }
    assert!(root
        .join(".agents/skills/zurdo-prd-author/references/grammar.md")
        .is_file());
    // Again: nothing to do.
    let again = text(&zurdo(&["skills", "install", "--all"], root).stdout);
    assert!(
        again.contains(".claude/skills/zurdo-prd-author is up to date"),
        "{again}"
    );

    // The user edits one: listed as edited, never overwritten…
    let edited = root.join(".claude/skills/zurdo-state-summary/SKILL.md");
    std::fs::write(&edited, "my own version\n").expect("edit");
    let list = text(&zurdo(&["skills", "list"], root).stdout);
    assert!(
        list.lines()
            .any(|l| l.contains(".claude/skills/zurdo-state-summary") && l.ends_with("edited")),
        "{list}"
    );
    assert!(
        list.lines()
            .any(|l| l.contains(".agents/skills/zurdo-state-summary") && l.ends_with("up to date")),
        "{list}"
    );
    let out = zurdo(&["skills", "install", "zurdo-state-summary"], root);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("was edited since zurdo installed it: left as it is (`zurdo skills install zurdo-state-summary --force` replaces it)"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(&edited).expect("kept"),
        "my own version\n"
    );
    // … unless forced.
    let out = zurdo(
        &["skills", "install", "zurdo-state-summary", "--force"],
        root,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(std::fs::read_to_string(&edited)
        .expect("back")
        .starts_with("---\nname: zurdo-state-summary"));
    // An unknown skill is an error naming the bundled ones.
    let out = zurdo(&["skills", "install", "zurdo-nope"], root);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no bundled skill `zurdo-nope`; there are: zurdo-prd-author")
    );
}

#[test]
fn the_pre_flight_looks_for_a_task_s_skills_in_the_search_paths_too() {
    let prd = "# PRD: s\n\n## Task: task-1 — Write\n**Effort**: low\n**Depends-on**: []\n**Skills**: house-style\n\n\
               ### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] out [file-exists: out.txt]\n";
    let script = r#"{"attempts": [{"write": {"out.txt": "x"}}]}"#;
    let missing = run_repo(prd, "", &[], script, false);
    let out = zurdo_run(missing.path(), &["--skip-model-check"], &[]);
    assert!(
        text(&out.stderr).contains("house-style"),
        "{}",
        text(&out.stderr)
    );
    let found = run_repo(
        prd,
        "[skills]\nsearch_paths = [\"team/skills\"]\n",
        &[(
            "team/skills/house-style/SKILL.md",
            "---\nname: house-style\ndescription: ours\n---\n",
        )],
        script,
        false,
    );
    let out = zurdo_run(found.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("house-style"), "{stderr}");
}
