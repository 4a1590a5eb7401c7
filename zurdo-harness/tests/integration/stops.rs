//! A stop never orphans what an agent or a probe started: `zurdo doctor`
//! killed with SIGTERM while a probe hangs takes the probe's whole process
//! group with it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::run_repo;

/// Pids whose command line is exactly `sleep <marker>`.
fn sleepers(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c == format!("sleep\0{marker}\0").as_bytes())
        })
        .collect()
}

fn wait_for(mut ok: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn doctor_stopped_mid_probe_leaves_nothing_running() {
    // The probe starts a grandchild (sh, then sleep) and hangs on it.
    let marker = format!(
        "{}.{}",
        300 + std::process::id() % 97,
        std::process::id() % 1000
    );
    let script = serde_json::json!({"probe": {"run": format!("sleep {marker}")}}).to_string();
    let r = run_repo("# PRD: p\n", "", &[], &script, false);
    let mut doctor = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("doctor")
        .current_dir(r.path())
        .env("ZURDO_STAND_IN_SCRIPT", r.path().join(".zurdo/script.json"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("zurdo runs");
    assert!(
        wait_for(|| !sleepers(&marker).is_empty()),
        "the probe's sleep never started"
    );
    // SAFETY: kill(2) on the child just spawned.
    unsafe {
        libc::kill(doctor.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = doctor.wait().expect("doctor ends");
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(
        wait_for(|| sleepers(&marker).is_empty()),
        "left running: {:?}",
        sleepers(&marker)
    );
}

/// Issue 14: nothing the agent started outlives zurdo, even a `kill -9` of
/// zurdo. The agent (the launcher) runs a child that runs a grandchild
/// detached with `setsid` (the shape of a Node.js launcher starting a
/// native CLI that starts tools); zurdo is killed with SIGKILL mid-attempt,
/// and within a few seconds all three are gone: the sentinel that is the
/// agent's parent saw zurdo go and killed everything under it.
#[test]
fn a_kill_9_of_zurdo_leaves_nothing_the_agent_started() {
    let base = 400 + std::process::id() % 97;
    let (child, grandchild) = (
        format!("{base}.{}", std::process::id() % 1000),
        format!("{}.{}", base + 1, std::process::id() % 1000),
    );
    let prd = "# PRD: k\n\n## Task: task-1 — Hang\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
               ### Acceptance Criteria\n- [ ] done [file-exists: done.txt]\n";
    let script = serde_json::json!({"attempts": [{
        "run": format!("(setsid sleep {grandchild} >/dev/null 2>&1 </dev/null &); sleep {child}")
    }]})
    .to_string();
    let r = run_repo(prd, "", &[], &script, false);
    let mut zurdo = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "--skip-model-check", "prds/p.md"])
        .current_dir(r.path())
        .env("ZURDO_STAND_IN_SCRIPT", r.path().join(".zurdo/script.json"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("zurdo runs");
    assert!(
        wait_for(|| !sleepers(&child).is_empty() && !sleepers(&grandchild).is_empty()),
        "the agent's child and grandchild never started"
    );
    let _ = zurdo.kill(); // SIGKILL
    let _ = zurdo.wait();
    assert!(
        wait_for(|| sleepers(&child).is_empty() && sleepers(&grandchild).is_empty()),
        "left running after zurdo was killed: child {:?}, grandchild {:?}",
        sleepers(&child),
        sleepers(&grandchild)
    );
}
