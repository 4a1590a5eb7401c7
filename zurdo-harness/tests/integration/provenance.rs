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

/// Issue 18: `[verification] require_red_first`. A task whose criteria all
/// held before any agent ran ends `unproven` (exit 1), not `passed`; beside
/// it, a task whose criterion was red at pre-flight and is green after its
/// attempt passes.
#[test]
fn with_require_red_first_a_task_green_before_the_run_is_unproven() {
    let prd = "# PRD: red\n\n\
        ## Task: task-green — Already done\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nNothing to do.\n\n### Acceptance Criteria\n- [ ] there [file-exists: there.txt]\n\n\
        ## Task: task-red — Real work\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nWrite new.txt.\n\n### Acceptance Criteria\n- [ ] new [file-exists: new.txt]\n";
    let script = r#"{"attempts": [{"write": {"new.txt": "x"}}]}"#;
    let r = crate::common::run_repo(
        prd,
        "[verification]\nrequire_red_first = true\n",
        &[("there.txt", "x")],
        script,
        false,
    );
    let out = crate::common::zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = crate::common::text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unproven: every criterion held before any agent ran"),
        "{stderr}"
    );
    let state = crate::common::state(r.path());
    assert_eq!(state["tasks"][0]["status"], "unproven");
    assert_eq!(state["tasks"][1]["status"], "passed");
    assert!(crate::common::text(&out.stdout).contains("1 unproven"));
}
