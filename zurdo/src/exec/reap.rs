//! Leftovers: processes that outlive what started them. A command's own
//! process group is killed when it ends, but a process can leave the group
//! (`setsid`, a double fork that daemonizes) and live on, serving an
//! `[http:]` check or rewriting a file after a `[shell:]` check read it.
//!
//! [`become_subreaper`] makes this process the reaper of every orphan among
//! its descendants (`PR_SET_CHILD_SUBREAPER`): a process that detaches from
//! its parent is re-parented here instead of to init, so it stays a
//! descendant, however it detached. [`kill_descendants`] then finds every
//! descendant through `/proc`, stops them all (so none can fork a new one
//! between the look and the kill), records their command lines, kills them,
//! reaps the ones that are this process's children, and looks again until
//! none is left.
//!
//! What this does not reach: a process started through a service outside
//! the tree (`systemd-run --user`, `at`, cron, a container engine, `ssh
//! localhost`) is not a descendant. `docs/security.md` lists it.

use std::time::{Duration, Instant};

/// A process [`kill_descendants`] killed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Killed {
    /// Its pid.
    pub pid: u32,
    /// Its command line, arguments separated by spaces (its name in
    /// brackets when it has none, as `ps` shows kernel-style names), cut to
    /// [`COMMAND_LIMIT`] bytes.
    pub command: String,
}

/// The most bytes of one command line kept.
pub const COMMAND_LIMIT: usize = 300;

/// How long [`kill_descendants`] keeps looking for processes that are not
/// gone yet (a process in uninterruptible sleep dies when it wakes).
pub const REAP_PATIENCE: Duration = Duration::from_secs(2);

/// Makes this process the reaper of its orphaned descendants
/// (`prctl(PR_SET_CHILD_SUBREAPER)`); false where that is not available
/// (off Linux), in which case a detached descendant goes to init and
/// [`kill_descendants`] cannot find it.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes integer
        // arguments only and sets an attribute of the calling process.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// True when this process is the reaper of its orphaned descendants.
pub fn is_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut flag: libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the pointer,
        // which points at a live local.
        let ok = unsafe {
            libc::prctl(
                libc::PR_GET_CHILD_SUBREAPER,
                &mut flag as *mut libc::c_int as libc::c_ulong,
                0,
                0,
                0,
            )
        };
        ok == 0 && flag != 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Kills every live descendant of this process, however detached (see
/// the module docs), and returns what was killed, in the order found.
/// Call it only when no descendant should be running: between an agent's
/// exit and the verification, at the end of a verification pass.
pub fn kill_descendants() -> Vec<Killed> {
    // The common case, said cheaply: no thread of this process has a child,
    // so nothing descends from it (an orphan is re-parented here, so it
    // would be a child).
    if has_children() == Some(false) {
        return Vec::new();
    }
    let me = std::process::id();
    let started = Instant::now();
    let mut killed: Vec<Killed> = Vec::new();
    loop {
        let (found, zombies) = descendants(me);
        reap_children(&zombies);
        if found.is_empty() {
            break;
        }
        // Stop first: a stopped process cannot fork, so the kill below
        // meets every process this look found and their children wait for
        // the next look.
        for &pid in &found {
            signal(pid, libc::SIGSTOP);
        }
        for &pid in &found {
            if !killed.iter().any(|k| k.pid == pid) {
                killed.push(Killed {
                    pid,
                    command: command_line(pid),
                });
            }
            signal(pid, libc::SIGKILL);
        }
        reap_children(&found);
        if started.elapsed() > REAP_PATIENCE {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if killed.is_empty() {
        return killed;
    }
    // The kills re-parent grandchildren here; reap what is left of them.
    reap_children(&killed.iter().map(|k| k.pid).collect::<Vec<_>>());
    reap_children(&descendants(me).1);
    killed
}

/// Stops and kills every live descendant of this process, however
/// detached, without reaping any (for a thread other than the one that
/// waits for its children: a stop from a signal handler's thread). Looks
/// again a few times for processes forked in between.
pub fn signal_descendants() {
    if has_children() == Some(false) {
        return;
    }
    let me = std::process::id();
    for _ in 0..20 {
        let (found, _) = descendants(me);
        if found.is_empty() {
            return;
        }
        for &pid in &found {
            signal(pid, libc::SIGSTOP);
        }
        for &pid in &found {
            signal(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether any thread of this process has a child (live or not yet
/// reaped), from `/proc/self/task/*/children`; `None` where the kernel
/// does not say (then every descendant is looked for the long way).
fn has_children() -> Option<bool> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    for task in tasks {
        let children = std::fs::read(task.ok()?.path().join("children")).ok()?;
        if children.iter().any(u8::is_ascii_digit) {
            return Some(true);
        }
    }
    Some(false)
}

/// Every live (not zombie) process descending from `root`, parents before
/// children; and the zombies among `root`'s own children (to reap).
fn descendants(root: u32) -> (Vec<u32>, Vec<u32>) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return (Vec::new(), Vec::new());
    };
    let table: Vec<(u32, u32, bool)> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let (ppid, zombie) = parent(pid)?;
            Some((pid, ppid, zombie))
        })
        .collect();
    let zombies = table
        .iter()
        .filter(|&&(_, ppid, zombie)| ppid == root && zombie)
        .map(|&(pid, _, _)| pid)
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, zombie) in &table {
            if ppid == parent && pid != root && !zombie && seen.insert(pid) {
                out.push(pid);
                frontier.push(pid);
            }
        }
    }
    (out, zombies)
}

/// `(parent pid, is a zombie)` of `pid`, from `/proc/<pid>/stat`.
fn parent(pid: u32) -> Option<(u32, bool)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces or parentheses.
    let (_, rest) = text.rsplit_once(") ")?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z" || state == "X"))
}

/// The command line of `pid` (its name in brackets when it has none).
fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let text: String = String::from_utf8_lossy(&raw)
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let text = if text.is_empty() {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        format!("[{}]", comm.trim())
    } else {
        text
    };
    let text = zurdo_base::text::escape_controls(&text).into_owned();
    if text.len() <= COMMAND_LIMIT {
        return text;
    }
    let cut = zurdo_base::text::floor_char_boundary(&text, COMMAND_LIMIT);
    format!("{}…", &text[..cut])
}

fn signal(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        if pid > 0 {
            // SAFETY: kill(2) takes no pointers; the pid is a descendant
            // found a moment ago.
            unsafe {
                libc::kill(pid, signal);
            }
        }
    }
}

/// Reaps, without blocking, those of `pids` that are zombie children of
/// this process (only these pids: a child someone else waits for is never
/// taken from them).
fn reap_children(pids: &[u32]) {
    for &pid in pids {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            continue;
        };
        let mut status = 0;
        // SAFETY: waitpid writes the status through a pointer to a live
        // local; WNOHANG never blocks; a pid that is not our child fails
        // with ECHILD and changes nothing.
        unsafe {
            libc::waitpid(pid, &mut status, libc::WNOHANG);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_is_seen_and_none_once_it_is_reaped() {
        // Other tests of this binary may have children of their own: only
        // the positive case can be asserted here.
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("spawn");
        assert_ne!(has_children(), Some(false));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn command_lines_are_read_whole_and_cut_long() {
        let me = command_line(std::process::id());
        assert!(!me.is_empty());
        assert!(!me.contains('\0'));
        assert_eq!(command_line(u32::MAX), "[]");
    }
}
