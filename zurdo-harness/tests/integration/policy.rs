//! The policy identifier: recorded at run start, kept on resume, with a
//! warning when today's config would hash differently.

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

const PRD: &str = "# PRD: p\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
### Acceptance Criteria\n- [ ] one [file-exists: one.txt]\n\n## Task: task-2 — Two\n**Effort**: low\n**Depends-on**: []\n\n\
### Description\nd\n\n### Acceptance Criteria\n- [ ] two [file-exists: two.txt]\n";

#[test]
fn the_run_start_policy_is_recorded_and_kept_on_resume() {
    let config = |seconds: u32| format!("[verification]\ncriterion_seconds = {seconds}\n");
    // task-1 passes; task-2's agent never writes two.txt, so the run ends failed and resumable.
    let script = r#"{"on_prompt": [{"contains": "Task task-1", "attempt": {"write": {"one.txt": "1"}}}], "attempts": [{"text": "no"}]}"#;
    let dir = run_repo(PRD, &config(60), &[], script, false);
    let root = dir.path();
    let run = || zurdo_run(root, &["--skip-model-check"], &[]);
    let out = run();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let state_dir = state_dir(root);
    let policy = state(root)["policy"]
        .as_str()
        .expect("policy recorded")
        .to_string();
    let document = std::fs::read(state_dir.join("policy.json")).expect("policy.json");
    use sha2::Digest;
    let hashed: String = sha2::Sha256::digest(&document)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hashed, policy, "policy is the SHA-256 of policy.json");
    let doc: serde_json::Value = serde_json::from_slice(&document).expect("json");
    assert_eq!(doc["criterion_seconds"], 60);
    assert!(
        std::fs::read_to_string(state_dir.join("config-at-run-start.toml"))
            .expect("copy")
            .contains("criterion_seconds = 60")
    );

    // Resume with a changed config: a warning, and the run-start policy stays.
    let config_path = root.join(".zurdo/config.toml");
    let text_now = std::fs::read_to_string(&config_path).expect("config");
    std::fs::write(&config_path, text_now.replace(&config(60), &config(5))).expect("config");
    std::fs::write(root.join("prds/../two.txt"), "2").expect("fix task-2 by hand");
    let out = run();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: policy changed since run start"),
        "{stderr}"
    );
    assert_eq!(state(root)["policy"], policy.as_str());
}

/// Issue 13, class 6: an agent that weakens the config and the run-start
/// record of it gains nothing: the run-start `[verification]` comes back
/// from `policy.json` (prd.json's MAC vouches for its id); with both
/// records altered the run refuses rather than go on under rules it cannot
/// restore.
#[test]
fn an_altered_run_start_policy_is_restored_or_refused() {
    let config = |seconds: u32| format!("[verification]\ncriterion_seconds = {seconds}\n");
    let script = r#"{"on_prompt": [{"contains": "Task task-1", "attempt": {"write": {"one.txt": "1"}}}], "attempts": [{"text": "no"}]}"#;
    let dir = run_repo(PRD, &config(60), &[], script, false);
    let root = dir.path();
    let run = || zurdo_run(root, &["--skip-model-check"], &[]);
    assert_eq!(run().status.code(), Some(1));
    let sd = state_dir(root);
    let policy = state(root)["policy"].as_str().expect("policy").to_string();
    // The "agent" weakens today's config and the run-start copy alike.
    let weaken = |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).expect("read");
        std::fs::write(path, text.replace(&config(60), &config(5))).expect("write");
    };
    weaken(&root.join(".zurdo/config.toml"));
    weaken(&sd.join("config-at-run-start.toml"));
    let out = run();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no longer matches the recorded policy (it was altered); restoring the run-start [verification] from policy.json"),
        "{stderr}"
    );
    assert_eq!(state(root)["policy"], policy.as_str());
    // Both records altered: refused, naming them.
    let doc_path = sd.join("policy.json");
    let doc = std::fs::read_to_string(&doc_path).expect("policy.json");
    std::fs::write(&doc_path, doc.replace("60", "5")).expect("alter");
    let out = run();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the run-start policy cannot be restored"),
        "{stderr}"
    );
}

/// The challenger is a rule of the run too (it can fail an attempt): an
/// agent that drops `[roles.challenger]` from the config and from its
/// run-start copy while zurdo is stopped does not get a resumed run
/// without one. The control: the same resume with the records untouched.
#[test]
fn a_dropped_challenger_comes_back_on_resume() {
    let challenger = "[roles.challenger]\nprovider = \"anthropic\"\nmodel = \"m\"\n";
    let script = serde_json::json!({
        "reason": [{"contains": "zurdo-reason: challenge",
                    "attempt": {"text": "```json\n{\"findings\": []}\n```"}}],
        "on_prompt": [{"contains": "Task task-1", "attempt": {"write": {"one.txt": "1"}}}],
        "attempts": [{"text": "no"}]
    })
    .to_string();
    for drop_it in [false, true] {
        let dir = run_repo(PRD, challenger, &[], &script, true);
        let root = dir.path();
        let run = || zurdo_run(root, &["--skip-model-check"], &[]);
        let out = run();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_eq!(state(root)["challenger_calls"], 1, "task-1 was challenged");
        let sd = state_dir(root);
        let doc = std::fs::read_to_string(sd.join("policy.json")).expect("policy.json");
        assert!(doc.contains("\"challenger\":{"), "{doc}");
        if drop_it {
            for path in [
                root.join(".zurdo/config.toml"),
                sd.join("config-at-run-start.toml"),
            ] {
                let was = std::fs::read_to_string(&path).expect("read");
                assert!(was.contains(challenger), "{was}");
                std::fs::write(&path, was.replace(challenger, "")).expect("write");
            }
        }
        std::fs::write(root.join("two.txt"), "2").expect("fix task-2 by hand");
        let out = zurdo_run(root, &["--skip-model-check", "--retry-failed"], &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        if drop_it {
            assert!(stderr.contains("restoring the run-start"), "{stderr}");
        }
        let state = state(root);
        assert_eq!(
            state["challenger_calls"], 2,
            "task-2's pass was challenged too (dropped: {drop_it}): {stderr}"
        );
    }
}
