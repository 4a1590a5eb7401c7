//! Who a process is beyond its reusable pid: its start time (clock ticks
//! since boot, from `/proc/<pid>/stat`) and the boot it belongs to. A pid
//! recorded in a lock or a log names the same process only when both still
//! match.

use std::time::{Duration, SystemTime};

/// A process's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Its pid.
    pub pid: u32,
    /// Its start time in clock ticks since boot.
    pub start: u64,
    /// `/proc/sys/kernel/random/boot_id`.
    pub boot: String,
}

/// This boot's id (empty when `/proc` does not say).
pub fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// The fields of `/proc/<pid>/stat` after the command name, its state
/// first.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces or parentheses.
    let (_, rest) = text.rsplit_once(") ")?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// `(process group, start time in ticks)` of `pid`, from `/proc/<pid>/stat`.
pub fn stat(pid: u32) -> Option<(u32, u64)> {
    let fields = stat_fields(pid)?;
    let pgrp = fields.get(2)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((pgrp, start))
}

/// True while some process of the process group `group` has not exited
/// (a zombie has), from `/proc`.
pub fn group_running(group: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .any(|pid| {
            stat_fields(pid).is_some_and(|f| {
                let live = f.first().is_some_and(|s| s != "Z" && s != "X");
                live && f.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group)
            })
        })
}

/// The identity of the live process `pid`.
pub fn identity(pid: u32) -> Option<Identity> {
    let (_, start) = stat(pid)?;
    Some(Identity {
        pid,
        start,
        boot: boot_id(),
    })
}

/// This process's identity.
pub fn own() -> Option<Identity> {
    identity(std::process::id())
}

/// When `pid` started, as wall-clock time (boot time plus its start ticks).
pub fn started_at(pid: u32) -> Option<SystemTime> {
    let (_, ticks) = stat(pid)?;
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let btime: u64 = stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = u64::try_from(hz).ok().filter(|h| *h > 0)?;
    let since_boot = Duration::from_millis(ticks.checked_mul(1000)? / hz);
    SystemTime::UNIX_EPOCH
        .checked_add(Duration::from_secs(btime))?
        .checked_add(since_boot)
}

impl Identity {
    /// True when this identity still names a live process: the same boot,
    /// the same pid, the same start time.
    pub fn is_alive(&self) -> bool {
        !self.boot.is_empty()
            && self.boot == boot_id()
            && stat(self.pid).is_some_and(|(_, start)| start == self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_changed_start_is_not() {
        let me = own().expect("/proc");
        assert!(me.is_alive());
        let other = Identity {
            start: me.start + 1,
            ..me.clone()
        };
        assert!(
            !other.is_alive(),
            "same pid, another start: another process"
        );
        let other_boot = Identity {
            boot: "another".into(),
            ..me.clone()
        };
        assert!(!other_boot.is_alive());
        let started = started_at(me.pid).expect("start time");
        let age = SystemTime::now()
            .duration_since(started)
            .expect("in the past");
        assert!(age < Duration::from_secs(3600), "{age:?}");
    }

    #[test]
    fn a_group_runs_while_a_member_has_not_exited() {
        let (group, _) = stat(std::process::id()).expect("/proc");
        assert!(group_running(group), "this process is in its group");
        assert!(!group_running(u32::MAX), "no such group");
    }
}
