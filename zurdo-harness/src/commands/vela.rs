//! `zurdo vela start|stop|status` (and the hidden `serve`, the daemon
//! itself), for the repository holding the current directory. See
//! [`crate::vela`].

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::VelaCommand;
use crate::error::{Error, Exit, Outcome};
use crate::vela::{self, Settings};

/// How long `start` waits for the daemon to take its lock.
const START_WAIT: Duration = Duration::from_secs(3);

/// How long `stop` waits for the daemon to exit before killing it.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// How often `start` and `stop` look again.
const TICK: Duration = Duration::from_millis(20);

/// The log's path as shown to the user (relative to the repository root).
fn shown_log() -> String {
    format!("{}/{}", vela::DIR, vela::LOG_FILE)
}

/// Runs the command and returns its exit status.
pub fn run(command: &VelaCommand) -> Outcome {
    let root = super::repo_here()?;
    match command {
        VelaCommand::Start => start(&root),
        VelaCommand::Stop => stop(&root),
        VelaCommand::Status => status(&root),
        VelaCommand::Serve => {
            let idle = crate::config::Config::load(&root)
                .map(|c| c.vela_idle)
                .unwrap_or(Settings::default().idle);
            vela::serve(&root, Settings::with_idle(idle)).map(|()| Exit::Ok)
        }
    }
}

fn start(root: &Path) -> Outcome {
    if let Some(running) = vela::status(root).running {
        println!(
            "vela already runs (pid {}, since {})",
            running.pid, running.since
        );
        return Ok(Exit::Ok);
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return Err(Error::failed(format!(
                "cannot find the zurdo executable to start vela: {e}"
            )))
        }
    };
    let mut command = Command::new(exe);
    command
        .args(["vela", "serve"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: the closure runs in the forked child before exec and only
    // calls setsid(2), which is async-signal-safe; it allocates nothing and
    // touches no lock. A new session detaches the daemon from the terminal
    // (and its hangup and Ctrl-C), so it outlives it.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return Err(Error::failed(format!("cannot start vela: {e}"))),
    };
    let pid = child.id();
    let deadline = Instant::now() + START_WAIT;
    loop {
        if vela::holder(root).is_some_and(|h| h.pid == pid) {
            // The daemon outlives this process: once `start` exits it is
            // re-parented, so the dropped Child leaves no zombie here.
            println!("vela started (pid {pid}); log: {}", shown_log());
            return Ok(Exit::Ok);
        }
        match child.try_wait() {
            Ok(Some(_)) => {
                // Lost a race with another `start`: that daemon watches.
                if let Some(running) = vela::status(root).running {
                    println!(
                        "vela already runs (pid {}, since {})",
                        running.pid, running.since
                    );
                    return Ok(Exit::Ok);
                }
                return not_started(root, "vela exited at once");
            }
            Ok(None) => {}
            Err(e) => return not_started(root, &format!("cannot watch the vela process: {e}")),
        }
        if Instant::now() >= deadline {
            // Do not leave a daemon behind that `start` called a failure.
            signal(pid, libc::SIGTERM);
            let _ = child.wait();
            return not_started(
                root,
                &format!(
                    "vela did not take its lock within {} s",
                    START_WAIT.as_secs()
                ),
            );
        }
        std::thread::sleep(TICK);
    }
}

/// A failed start, with what the log says.
fn not_started(root: &Path, why: &str) -> Outcome {
    let mut message = format!("{why}; {} says:", shown_log());
    let tail = vela::log_tail(root, 10);
    if tail.is_empty() {
        message.push_str("\n  (nothing)");
    }
    for line in tail {
        message.push_str(&format!("\n  {line}"));
    }
    Err(Error::failed(message))
}

/// Sends `signal` to `pid`; false when it could not be sent.
fn signal(pid: u32, signal: libc::c_int) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill(2) with a positive pid only signals that one process.
    unsafe { libc::kill(pid, signal) == 0 }
}

/// Waits up to `wait` for `pid` to exit; true when it did.
fn gone_within(pid: u32, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        if !vela::live(pid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(TICK);
    }
}

/// Removes the pid file if it still names `pid`.
fn remove_lock_of(root: &Path, pid: u32) {
    if vela::holder(root).is_some_and(|h| h.pid == pid) {
        let _ = std::fs::remove_file(vela::pid_path(root));
    }
}

fn stop(root: &Path) -> Outcome {
    let Some(holder) = vela::holder(root) else {
        println!("vela is not running");
        return Ok(Exit::Ok);
    };
    let pid = holder.pid;
    if !vela::live(pid) {
        remove_lock_of(root, pid);
        println!("vela is not running (removed a stale pid file naming pid {pid})");
        return Ok(Exit::Ok);
    }
    signal(pid, libc::SIGTERM);
    if gone_within(pid, STOP_WAIT) {
        // The daemon removes its lock as it exits; a killed one could not.
        remove_lock_of(root, pid);
        println!("vela stopped (pid {pid})");
        return Ok(Exit::Ok);
    }
    signal(pid, libc::SIGKILL);
    if gone_within(pid, Duration::from_secs(1)) {
        remove_lock_of(root, pid);
        println!(
            "vela stopped: it did not exit within {} s of SIGTERM, so it was killed (pid {pid})",
            STOP_WAIT.as_secs()
        );
        Ok(Exit::Ok)
    } else {
        Err(Error::failed(format!(
            "vela (pid {pid}) did not exit even after SIGKILL"
        )))
    }
}

fn status(root: &Path) -> Outcome {
    let status = vela::status(root);
    let exit = match &status.running {
        Some(running) => {
            println!(
                "vela is running (pid {}, since {})",
                running.pid, running.since
            );
            Exit::Ok
        }
        None => {
            println!("vela is not running");
            Exit::Failed
        }
    };
    println!("log: {}", shown_log());
    match status.generation {
        Some(generation) => println!("published generation: {generation}"),
        None => println!("published generation: none"),
    }
    Ok(exit)
}
