//! The verification window: an agent that leaves a process behind (outside
//! its process group) to rewrite an evidence file after the check passed
//! does not get a pass.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use common::text;

#[test]
fn a_file_rewritten_during_verification_fails_the_iteration() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path();
    for d in [".git", ".zurdo", "prds"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
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
    std::fs::write(
        root.join(".zurdo/config.toml"),
        format!(
            "[providers.anthropic]\ncommand = \"{}\"\n[effort_map.anthropic]\nlow = \"haiku\"\n",
            agent.display()
        ),
    )
    .expect("config");
    std::fs::write(
        root.join("prds/p.md"),
        "# PRD: w\n\n## Task: task-1 — Say ok\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n### Description\nd\n\n\
         ### Acceptance Criteria\n- [ ] says ok [grep: ^ok$ in out.txt]\n- [ ] the slow suite passes [shell: sleep 1]\n",
    )
    .expect("prd");
    // The agent writes the right answer, and leaves a process outside its group
    // that swaps the file once the check has read it.
    std::fs::write(
        root.join("script.json"),
        r#"{"attempts": [{"write": {"out.txt": "ok\n"}, "run": "setsid sh -c 'sleep 0.6; echo not-ok > out.txt' > /dev/null 2>&1 & sleep 0.3"}]}"#,
    )
    .expect("script");
    let out = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "--skip-model-check", "prds/p.md"])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join("script.json"))
        .output()
        .expect("zurdo runs");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("evidence changed during verification: out.txt"),
        "{stderr}"
    );
    let state_dir = std::fs::read_dir(root.join(".zurdo"))
        .expect("ls")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("p-"))
        .expect("state")
        .path();
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state_dir.join("prd.json")).expect("read"))
            .expect("json");
    let hint = &state["tasks"][0]["iterations"][0]["criteria"][0]["hints"][0];
    assert_eq!(
        hint["reason"], "evidence_changed_during_verification",
        "{hint:#}"
    );
    assert_eq!(state["tasks"][0]["status"], "failed");
}
