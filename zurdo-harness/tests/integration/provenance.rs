//! Toolchain provenance: sh and the [shell:] command words are resolved and
//! hashed at run start; a tool outside the repository swapped during the
//! run warns and marks the verification pass `toolchain_changed` (one
//! inside the repository is `environment_planted`: see `verdict_surface`).

use std::os::unix::fs::PermissionsExt;

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

#[test]
fn a_tool_swapped_on_path_outside_the_repository_only_warns() {
    let prd = "# PRD: p\n\n## Task: task-1 — Finish\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] checked [shell: checker]\n";
    // The checker lives outside the repository (an installed tool); the
    // agent does the work, and the tool changes under the run, as a
    // toolchain update would.
    let tools = tempfile::tempdir().expect("tools dir");
    let checker = tools.path().join("checker");
    std::fs::write(&checker, "#!/bin/sh\ntest -f done.txt\n").expect("checker");
    std::fs::set_permissions(&checker, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let script = format!(
        r#"{{"attempts": [{{"write": {{"done.txt": "x"}}, "run": "printf '#!/bin/sh\\ntest -f done.txt # v2\\n' > '{}'"}}]}}"#,
        checker.display()
    );
    let dir = run_repo(prd, "", &[], &script, false);
    let root = dir.path();
    let path = format!(
        "{}:{}",
        tools.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = zurdo_run(root, &["--skip-model-check"], &[("PATH", &path)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "only a warning: {stderr}");
    assert!(
        stderr.contains("warning: toolchain changed: checker ("),
        "{stderr}"
    );
    assert!(!stderr.contains("CAUGHT"), "{stderr}");
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
    let first = &state["tasks"][0]["iterations"][0];
    assert_eq!(first["toolchain_changed"], true);
    assert_eq!(first["passed"], true, "{first:#}");
    assert!(first["caught"].is_null(), "{first:#}");
    let log = std::fs::read_to_string(state_dir(root).join("progress.log")).expect("log");
    assert!(log.contains("\"event\":\"verifier_context\""), "{log}");
}
