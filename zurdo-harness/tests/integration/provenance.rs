//! Toolchain provenance: sh and the [shell:] command words are resolved and
//! hashed at run start; a tool swapped during the run warns and marks the
//! verification pass `toolchain_changed`.

use std::os::unix::fs::PermissionsExt;

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

#[test]
fn a_tool_swapped_on_path_is_noticed() {
    let prd = "# PRD: p\n\n## Task: task-1 — Finish\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] checked [shell: checker]\n";
    // The agent does the work, and also swaps the checker for one that always passes.
    let script =
        r##"{"attempts": [{"write": {"done.txt": "x", "bin/checker": "#!/bin/sh\nexit 0\n"}}]}"##;
    let dir = run_repo(
        prd,
        "",
        &[("bin/checker", "#!/bin/sh\ntest -f done.txt\n")],
        script,
        false,
    );
    let root = dir.path();
    let checker = root.join("bin/checker");
    std::fs::set_permissions(&checker, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = zurdo_run(root, &["--skip-model-check"], &[("PATH", &path)]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: toolchain changed: checker ("),
        "{stderr}"
    );
    let state = state(root);
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
    let log = std::fs::read_to_string(state_dir(root).join("progress.log")).expect("log");
    assert!(log.contains("\"event\":\"verifier_context\""), "{log}");
}
