//! The live output on a real terminal (`script(1)` gives `zurdo run` a
//! pseudo-terminal): coloured, unless `NO_COLOR` is set or the terminal is
//! dumb; through a pipe it is plain text (the snapshots pin that text).
//! Skipped where util-linux's `script` is missing.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{run_repo, text};

const PRD: &str = "# PRD: p\n\n## Task: task-1 — Write it\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
### Description\nWrite out.txt.\n\n### Acceptance Criteria\n- [ ] written [file-exists: out.txt]\n";

/// What a terminal shows of `zurdo run` in `root`, with `env` added.
fn on_a_terminal(root: &Path, env: &[(&str, &str)]) -> Option<String> {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!("skipped: util-linux `script` is not installed");
        return None;
    }
    let command = format!(
        "'{}' run --no-prompt --skip-model-check prds/p.md",
        env!("CARGO_BIN_EXE_zurdo")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    Some(text(&out.stdout))
}

#[test]
fn a_terminal_gets_colour_unless_asked_not_to() {
    // The agent writes nothing: the criterion fails, in red.
    let red_fail =
        "\x1b[31m      FAIL written: [file-exists: out.txt] no such file or directory\x1b[0m";
    let runs: [(&[(&str, &str)], bool); 3] = [
        (&[], true),
        (&[("NO_COLOR", "1")], false),
        (&[("TERM", "dumb")], false),
    ];
    for (env, coloured) in runs {
        let r = run_repo(PRD, "", &[], r#"{"attempts": [{"text": "done"}]}"#, false);
        let Some(screen) = on_a_terminal(r.path(), env) else {
            return;
        };
        assert!(
            screen.contains("FAIL written: [file-exists: out.txt]"),
            "{env:?}: {screen}"
        );
        assert_eq!(screen.contains(red_fail), coloured, "{env:?}: {screen:?}");
        assert_eq!(screen.contains("\x1b[3"), coloured, "{env:?}: {screen:?}");
    }
}

#[test]
fn escape_sequences_in_a_prd_reach_the_terminal_escaped() {
    let prd = PRD.replace("Write it", "Write \u{1b}]0;pwned\u{7}it \u{1b}[2J");
    let r = run_repo(
        &prd,
        "",
        &[],
        r#"{"attempts": [{"write": {"out.txt": "x"}}]}"#,
        false,
    );
    let out = crate::common::zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );
    assert!(
        stderr.contains("task-1 — Write \\u{1b}]0;pwned\\u{7}it \\u{1b}[2J"),
        "{stderr}"
    );
}

#[test]
fn on_a_terminal_the_spinner_line_shows_the_agents_progress() {
    // The agent writes a file, runs a command, then works a while: the line
    // under the attempt shows the elapsed time, its tool calls and the last.
    let r = run_repo(
        PRD,
        "",
        &[],
        r#"{"attempts": [{"run": "echo progress-marker", "sleep_ms": 900, "write": {"out.txt": "x"}}]}"#,
        false,
    );
    let Some(screen) = on_a_terminal(r.path(), &[("NO_COLOR", "1")]) else {
        return;
    };
    assert!(
        screen.contains("2 tool calls · Bash echo progress-marker"),
        "{screen:?}"
    );
    assert!(screen.contains("0:00"), "{screen:?}");
    // The minute heartbeat lines are the spinner's job on a terminal.
    assert!(!screen.contains("still working"), "{screen:?}");
}
