//! Toolchain provenance: sh and the [shell:] command words are resolved and
//! hashed at run start; a tool swapped during the run warns and marks the
//! verification pass `toolchain_changed`.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::common::text;

#[test]
fn a_tool_swapped_on_path_is_noticed() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path();
    for d in [".git", ".zurdo", "prds", "bin"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    let exec = |path: &std::path::Path, body: &str| {
        std::fs::write(path, body).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    };
    exec(&root.join("bin/checker"), "#!/bin/sh\ntest -f done.txt\n");
    exec(
        &root.join(".zurdo/agent"),
        &format!(
            "#!/bin/sh\nexec '{}' stand-in claude \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    );
    std::fs::write(
        root.join(".zurdo/config.toml"),
        format!(
            "[providers.anthropic]\ncommand = \"{}\"\n[effort_map.anthropic]\nlow = \"haiku\"\n",
            root.join(".zurdo/agent").display()
        ),
    )
    .expect("config");
    std::fs::write(
        root.join("prds/p.md"),
        "# PRD: p\n\n## Task: task-1 — Finish\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] checked [shell: checker]\n",
    )
    .expect("prd");
    // The agent does the work, and also swaps the checker for one that always passes.
    std::fs::write(
        root.join("script.json"),
        crate::common::with_markers(
            r##"{"attempts": [{"write": {"done.txt": "x", "bin/checker": "#!/bin/sh\nexit 0\n"}}]}"##,
        ),
    )
    .expect("script");
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "--skip-model-check", "prds/p.md"])
        .current_dir(root)
        .env("PATH", path)
        .env("ZURDO_STAND_IN_SCRIPT", root.join("script.json"))
        .output()
        .expect("zurdo runs");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: toolchain changed: checker ("),
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
    let tools: Vec<&str> = state["toolchain"]
        .as_array()
        .expect("toolchain")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"sh") && tools.contains(&"checker"),
        "{tools:?}"
    );
    assert_eq!(
        state["tasks"][0]["iterations"][0]["toolchain_changed"],
        true
    );
    let log = std::fs::read_to_string(state_dir.join("progress.log")).expect("log");
    assert!(log.contains("\"event\":\"verifier_context\""), "{log}");
}
