//! The policy identifier: recorded at run start, kept on resume, with a
//! warning when today's config would hash differently.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::common::text;

const PRD: &str = "# PRD: p\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
### Acceptance Criteria\n- [ ] one [file-exists: one.txt]\n\n## Task: task-2 — Two\n**Effort**: low\n**Depends-on**: []\n\n\
### Description\nd\n\n### Acceptance Criteria\n- [ ] two [file-exists: two.txt]\n";

#[test]
fn the_run_start_policy_is_recorded_and_kept_on_resume() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path();
    for d in [".git", ".zurdo", "prds"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    std::fs::write(root.join("prds/p.md"), PRD).expect("prd");
    let agent = root.join(".zurdo/agent");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\nexec '{}' stand-in claude \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let config = |seconds: u32| {
        format!("[providers.anthropic]\ncommand = \"{}\"\n[effort_map.anthropic]\nlow = \"haiku\"\n[verification]\ncriterion_seconds = {seconds}\n", agent.display())
    };
    std::fs::write(root.join(".zurdo/config.toml"), config(60)).expect("config");
    // task-1 passes; task-2's agent never writes two.txt, so the run ends failed and resumable.
    std::fs::write(root.join("script.json"), crate::common::with_markers(r#"{"on_prompt": [{"contains": "Task task-1", "attempt": {"write": {"one.txt": "1"}}}], "attempts": [{"text": "no"}]}"#)).expect("script");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_zurdo"))
            .args(["run", "--no-prompt", "--skip-model-check", "prds/p.md"])
            .current_dir(root)
            .env("ZURDO_STAND_IN_SCRIPT", root.join("script.json"))
            .output()
            .expect("zurdo runs")
    };
    let out = run();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let state_dir = std::fs::read_dir(root.join(".zurdo"))
        .expect("ls")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("p-"))
        .expect("state")
        .path();
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state_dir.join("prd.json")).expect("read"))
            .expect("json");
    let policy = state["policy"]
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
    std::fs::write(root.join(".zurdo/config.toml"), config(5)).expect("config");
    std::fs::write(root.join("prds/../two.txt"), "2").expect("fix task-2 by hand");
    let out = run();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: policy changed since run start"),
        "{stderr}"
    );
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state_dir.join("prd.json")).expect("read"))
            .expect("json");
    assert_eq!(state["policy"], policy.as_str());
}
