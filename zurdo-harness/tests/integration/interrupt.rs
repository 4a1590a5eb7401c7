//! Ctrl-C during `zurdo run`: once finishes the iteration and leaves a
//! resumable run; twice stops at once, kills the agent's process group, and
//! the dropped attempt is not counted on resume.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{state, text};

const PRD: &str = "# PRD: interrupt\n\n## Task: task-slow — Slow work\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 3\n\n\
### Description\nWrite done.txt.\n\n### Acceptance Criteria\n- [ ] done [file-exists: done.txt]\n\n\
## Task: task-after — Later work\n**Effort**: low\n**Depends-on**: [task-slow]\n\n### Description\nWrite after.txt.\n\n\
### Acceptance Criteria\n- [ ] after [file-exists: after.txt]\n";

/// A repository whose claude is the stand-in, driven by `script`.
fn setup(script: &str) -> tempfile::TempDir {
    crate::common::run_repo(PRD, "", &[], script, false)
}

fn start(root: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "prds/p.md"])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zurdo runs")
}

fn sigint(child: &Child) {
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
}

/// Waits until `path` exists (the agent has started), up to 10 s.
fn wait_for(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn one_ctrl_c_finishes_the_iteration_and_resumes_cleanly() {
    // The agent marks that it started, works 1.5 s, then writes done.txt.
    let r = setup(
        r#"{"attempts": [{"write": {"started": "1"}, "run": "sleep 1.5 && echo ok > done.txt"}, {"write": {"after.txt": "x"}}]}"#,
    );
    let child = start(r.path());
    wait_for(&r.path().join("started"));
    sigint(&child);
    let out = child.wait_with_output().expect("wait");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stopped early: {stderr}");
    assert!(stderr.contains("stopping after this iteration"), "{stderr}");
    assert!(
        r.path().join("done.txt").exists(),
        "the iteration ran to its end"
    );
    assert!(
        text(&out.stdout).contains("task-slow"),
        "the summary printed"
    );
    let s = state(r.path());
    assert_eq!(s["tasks"][0]["status"], "passed");
    assert_eq!(s["tasks"][1]["status"], "pending");

    let out = start(r.path()).wait_with_output().expect("resume");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = state(r.path());
    assert_eq!(s["tasks"][1]["status"], "passed");
    assert_eq!(s["tasks"][0]["attempts"], 1);
}

#[test]
fn two_ctrl_c_stop_now_kill_the_agent_and_do_not_count_the_attempt() {
    let r = setup(
        r#"{"attempts": [{"write": {"started": "1"}, "run": "sleep 3 && echo late > late.txt"}, {"write": {"done.txt": "ok", "after.txt": "x"}}]}"#,
    );
    let child = start(r.path());
    wait_for(&r.path().join("started"));
    sigint(&child);
    std::thread::sleep(Duration::from_millis(200));
    sigint(&child);
    let started = Instant::now();
    let out = child.wait_with_output().expect("wait");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(
        stderr.contains("attempt 1 of task-slow was interrupted; it is dropped and not counted"),
        "{stderr}"
    );
    assert!(!lock(r.path()).exists(), "the lock is released");
    std::thread::sleep(Duration::from_millis(3500));
    assert!(
        !r.path().join("late.txt").exists(),
        "the agent's process group outlived the hard stop"
    );
    assert_eq!(
        state(r.path())["tasks"][0]["attempts"],
        0,
        "the interrupted attempt is not counted"
    );

    let out = start(r.path()).wait_with_output().expect("resume");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("taking over a stale lock"),
        "the stop released its lock: {stderr}"
    );
    let s = state(r.path());
    assert_eq!(
        s["tasks"][0]["attempts"], 1,
        "the re-run attempt is attempt 1"
    );
    assert_eq!(s["tasks"][0]["iterations"][0]["attempt"], 1);
}

/// The lock file of `prds/p.md`'s run.
fn lock(root: &Path) -> std::path::PathBuf {
    crate::common::state_dir(root).join("lock")
}

/// Issue 14: SIGTERM (CI cancellation, systemd, `docker stop`) and SIGHUP
/// (a closed terminal) stop now, not after the iteration: the agent and
/// what it started are killed, the attempt is dropped uncounted, the state
/// is written, the lock released, and zurdo exits 143 / 129; the next
/// `zurdo run` resumes and passes.
#[test]
fn sigterm_and_sighup_stop_now_cleanly_and_the_run_resumes() {
    for (signal, code, name) in [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGHUP, 129, "SIGHUP"),
    ] {
        let r = setup(
            r#"{"attempts": [{"write": {"started": "1"}, "run": "sleep 30 && echo late > late.txt"}, {"write": {"done.txt": "ok", "after.txt": "x"}}]}"#,
        );
        let child = start(r.path());
        wait_for(&r.path().join("started"));
        // SAFETY: sending a signal to our own child process.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = child.wait_with_output().expect("wait");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("zurdo: stopping now ({name})")),
            "{name}: {stderr}"
        );
        assert!(!lock(r.path()).exists(), "{name}: the lock is released");
        let s = state(r.path());
        assert_eq!(s["tasks"][0]["status"], "pending", "{name}");
        assert_eq!(s["tasks"][0]["attempts"], 0, "{name}: not counted");
        let log = std::fs::read_to_string(crate::common::state_dir(r.path()).join("progress.log"))
            .expect("log");
        assert!(
            log.contains("\"event\":\"attempt_dropped\""),
            "{name}: {log}"
        );
        assert!(
            log.contains(&format!("\"event\":\"stopped_now\",\"signal\":\"{name}\"")),
            "{name}: {log}"
        );

        let out = start(r.path()).wait_with_output().expect("resume");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        let s = state(r.path());
        assert_eq!(s["tasks"][0]["status"], "passed", "{name}");
        assert_eq!(s["tasks"][0]["attempts"], 1, "{name}");
        assert!(
            !r.path().join("late.txt").exists(),
            "{name}: the agent was killed"
        );
    }
}
