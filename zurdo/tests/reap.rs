//! `zurdo::exec::reap`: a process that detaches from its parent (`setsid`,
//! a double fork) stays a descendant of a subreaper and is found, killed
//! and reaped. It kills every descendant of the calling process, so the
//! check runs in a child process of its own (this test binary run again),
//! never beside other tests' children.

use std::process::Command;
use std::time::Duration;

const CHILD: &str = "ZURDO_REAP_TEST_CHILD";

#[test]
fn detached_descendants_are_found_killed_and_reaped() {
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args([
            "--exact",
            "detached_descendants_are_found_killed_and_reaped",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("runs");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{all}");
    assert!(all.contains("reaped: ok"), "{all}");
}

fn child() {
    use zurdo::exec::reap;
    assert!(reap::become_subreaper());
    assert!(reap::is_subreaper());
    let marker = format!("zurdo-reap-{}", std::process::id());
    // One detached with setsid, one double-forked: both outlive the shell
    // that started them.
    let script = format!(
        "setsid sh -c 'sleep 300; : {marker}-setsid' >/dev/null 2>&1 </dev/null &\n\
         ( sh -c 'sleep 300; : {marker}-double' >/dev/null 2>&1 </dev/null & )\n"
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .status()
        .expect("sh runs");
    assert!(status.success());
    std::thread::sleep(Duration::from_millis(300));
    let killed = reap::kill_descendants();
    let commands: Vec<&str> = killed.iter().map(|k| k.command.as_str()).collect();
    for which in ["setsid", "double"] {
        assert!(
            commands
                .iter()
                .any(|c| c.contains(&format!("{marker}-{which}"))),
            "{which}: {commands:?}"
        );
    }
    assert!(
        commands
            .iter()
            .filter(|c| c.starts_with("sleep 300"))
            .count()
            == 2,
        "{commands:?}"
    );
    for k in &killed {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", k.pid)).unwrap_or_default();
        assert!(
            stat.is_empty(),
            "{} ({}) is still there: {stat}",
            k.pid,
            k.command
        );
    }
    assert!(reap::kill_descendants().is_empty(), "nothing is left");
    println!("reaped: ok");
}
