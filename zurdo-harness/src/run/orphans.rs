//! Processes that outlive what started them. While zurdo runs it is the
//! reaper of every descendant ([`kill_leftovers`] after each agent attempt
//! and each verification pass).
//!
//! Agents that outlive zurdo. An agent runs in its own process group (so a
//! timeout can kill everything it started), which also means a `kill -9` of
//! zurdo does not reach it. Two defences: the agent's CLI gets
//! `PR_SET_PDEATHSIG` (it dies with zurdo), and each attempt records a mark
//! of its process group so a resume can stop what is left of it, and only
//! that: a process group id can be reused, so the mark carries the leader's
//! start time and the boot id, and only processes of that group that started
//! no earlier than the leader, in the same boot, are killed.

use crate::event::Event;

/// Kills every process zurdo's descendants left running, however detached
/// (zurdo is their reaper: see [`zurdo::exec::reap`]); their command lines.
pub fn kill_leftovers() -> Vec<String> {
    zurdo::exec::reap::kill_descendants()
        .into_iter()
        .map(|k| k.command)
        .collect()
}

/// Identifies one agent process group beyond its reusable id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The process group id (the agent's pid).
    pub group: u32,
    /// The leader's start time, in clock ticks since boot.
    pub start: u64,
    /// `/proc/sys/kernel/random/boot_id`.
    pub boot: String,
}

use zurdo_base::process::{boot_id, stat};

impl Mark {
    /// The mark of the process group led by `pid`, just spawned.
    pub fn of(pid: u32) -> Option<Mark> {
        let (_, start) = stat(pid)?;
        Some(Mark {
            group: pid,
            start,
            boot: boot_id(),
        })
    }

    /// The `agent_started` event recording the process group led by `pid`
    /// (with its mark when one could be read).
    pub fn started(task: &str, attempt: u32, pid: u32) -> Event {
        let mark = Mark::of(pid);
        Event::AgentStarted {
            task: task.to_string(),
            attempt,
            process_group: pid,
            group_start: mark.as_ref().map(|m| m.start),
            boot_id: mark.map(|m| m.boot),
        }
    }

    /// Reads a mark back from an `agent_started` event.
    pub fn from_event(event: &Event) -> Option<Mark> {
        match event {
            Event::AgentStarted {
                process_group,
                group_start: Some(start),
                boot_id: Some(boot),
                ..
            } => Some(Mark {
                group: *process_group,
                start: *start,
                boot: boot.clone(),
            }),
            _ => None,
        }
    }

    /// The pids still alive that belong to this agent: in its group, started
    /// no earlier than its leader, in the same boot.
    pub fn survivors(&self) -> Vec<u32> {
        if self.boot.is_empty() || self.boot != boot_id() {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|&pid| {
                stat(pid).is_some_and(|(pgrp, start)| pgrp == self.group && start >= self.start)
            })
            .collect()
    }

    /// Kills whatever of this agent is still running; the number killed.
    pub fn kill_survivors(&self) -> usize {
        let pids = self.survivors();
        for &pid in &pids {
            if let Ok(pid) = i32::try_from(pid) {
                // SAFETY: kill(2) takes no pointers; the pid was just checked to be this agent's.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        pids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_mark_finds_its_group_and_nothing_else() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("spawn");
        let mark = Mark::of(child.id()).expect("mark");
        assert_eq!(mark.survivors(), [child.id()]);
        let back = Mark::from_event(&Mark::started("task-1", 1, child.id())).expect("round trip");
        assert_eq!(back, mark);
        // The same group id with a later leader start time is someone else.
        let stale = Mark {
            start: 0,
            ..mark.clone()
        };
        assert_eq!(
            stale.survivors(),
            [child.id()],
            "started after the mark: ours"
        );
        let future = Mark {
            start: mark.start + 1_000_000,
            ..mark.clone()
        };
        assert!(
            future.survivors().is_empty(),
            "started before the mark: not ours"
        );
        let other_boot = Mark {
            boot: "another-boot".into(),
            ..mark.clone()
        };
        assert!(other_boot.survivors().is_empty());
        assert_eq!(mark.kill_survivors(), 1);
        let _ = child.wait();
    }
}
