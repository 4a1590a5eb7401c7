//! The stand-in as zurdo drives it: `zurdo stand-in <cli>` behind a wrapper,
//! on each CLI's unattended command line, its stream read through the
//! harness's adapters. (The stand-in's own behaviour is tested in its crate,
//! zurdo-harness/standin.)

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use zurdo_harness::agent::{invoke, Provider};
use zurdo_harness::commands::demo;
use zurdo_harness::prompt::RETRY_MARKER;
use zurdo_harness::run::probe::PROBE_PREFIX;

/// Each provider and the CLI the stand-in imitates for it.
const CLIS: [(Provider, &str); 4] = [
    (Provider::Anthropic, "claude"),
    (Provider::OpenAi, "codex"),
    (Provider::GitHub, "copilot"),
    (Provider::Google, "gemini"),
];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_demo_is_wrong_first_and_right_on_retry() {
    for (provider, cli) in CLIS {
        let tmp = tempfile::tempdir().expect("temp dir");
        let work = tmp.path().join("repo");
        std::fs::create_dir_all(work.join(".git")).expect("mark repo");
        let script = tmp.path().join("script.json");
        let text = serde_json::to_string_pretty(&demo::script()).expect("the demo script");
        std::fs::write(&script, text).expect("write script");
        let agent = tmp.path().join("agent");
        std::fs::write(
            &agent,
            format!(
                "#!/bin/sh\nexec '{}' stand-in {cli} \"$@\"\n",
                env!("CARGO_BIN_EXE_zurdo")
            ),
        )
        .expect("wrapper");
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let attempt = |prompt: &str| {
            let program = agent.display().to_string();
            let mut line = invoke::command_line(provider, &program, "demo-haiku", prompt, &work);
            line.env
                .push(("ZURDO_STAND_IN_SCRIPT".into(), script.display().to_string()));
            let out = invoke::run(provider, &line, Duration::from_secs(60)).expect("it runs");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.exit_code, Some(0), "{cli}: {stderr}");
            out.report
        };

        let first = attempt("# Task\nWrite the greeting.");
        assert_eq!(read(&work.join("greeting.txt")), "hello world\n", "{cli}");
        assert_eq!(first.tool_calls.len(), 1, "{cli}: {first:?}");
        assert_eq!(
            first.final_text.as_deref(),
            Some("Created greeting.txt with the greeting."),
            "{cli}"
        );

        let retry = attempt(&format!(
            "# Task\nWrite the greeting.\n\n{RETRY_MARKER}\n[grep: ^Hello, world!$ in greeting.txt] failed"
        ));
        assert_eq!(read(&work.join("greeting.txt")), "Hello, world!\n", "{cli}");
        assert!(
            retry
                .final_text
                .as_deref()
                .is_some_and(|t| t.starts_with("Fixed greeting.txt")),
            "{cli}: {retry:?}"
        );

        let probe = attempt(&format!(
            "{PROBE_PREFIX} reply with the single word OK and nothing else."
        ));
        assert_eq!(probe.final_text.as_deref(), Some("OK"), "{cli}");
        assert!(probe.tool_calls.is_empty(), "{cli}");
        let counter = |suffix: &str| read(&tmp.path().join(format!("script.json.{suffix}")));
        assert_eq!(counter("count"), "2\n", "{cli}: two attempts");
        assert_eq!(counter("probes"), "1\n", "{cli}: the probe consumed none");
    }
}

/// Issue 19: `zurdo demo` lays out a git repository, so a newcomer sees
/// baselines, rollback refs and `run-diff.patch` too.
#[test]
fn the_demo_runs_in_a_git_repository() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["demo", "--dir"])
        .arg(&dir)
        .output()
        .expect("zurdo demo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("not a git repository"), "{stderr}");
    let state = std::fs::read_dir(dir.join(".zurdo"))
        .expect(".zurdo")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("demo-") && e.path().is_dir())
        .expect("the demo's state")
        .path();
    let patch = read(&state.join("run-diff.patch"));
    assert!(patch.contains("+++ b/greeting.txt"), "{patch}");
    let refs = std::process::Command::new("git")
        .args(["for-each-ref", "--format=%(refname)", "refs/zurdo"])
        .current_dir(&dir)
        .output()
        .expect("git runs");
    let refs = String::from_utf8_lossy(&refs.stdout);
    assert!(refs.contains("/task-greeting"), "{refs}");
}
