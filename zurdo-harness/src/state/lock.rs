//! `.zurdo/<slug>/lock`: one run per PRD. Holds `<pid> <RFC 3339 start>
//! <start ticks> <boot id>`. A lock is held only while the process it names
//! is that same process: a zurdo (its command name starts with `zurdo`),
//! alive, in this boot, with the start time the lock recorded. A lock
//! naming a process that is gone, or a pid since reused by an unrelated
//! process (pid 1, say: a lock an agent planted), is stale and taken over
//! with a warning. The file is created exclusively in a directory opened
//! without following symlinks, so a planted symlink is never written
//! through.

use zurdo_base::dir::Dir;
use zurdo_base::process::{self, Identity};

/// A held lock; released (the file removed) when dropped.
#[derive(Debug)]
pub struct Lock {
    dir: Dir,
    name: String,
}

/// Why the lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another live process holds it.
    Held {
        /// Its pid.
        pid: u32,
        /// When it started, as written in the lock.
        since: String,
    },
    /// The file could not be created or read.
    Io(std::io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Held { pid, since } => write!(
                f,
                "another zurdo (pid {pid}, started {since}) is running this PRD"
            ),
            LockError::Io(e) => write!(f, "cannot take the lock: {e}"),
        }
    }
}

/// A lock whose process is gone, taken over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// What the lock said (`<pid> <start>…`).
    pub holder: String,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "warning: taking over a stale lock ({}; that process is gone)",
            self.holder
        )
    }
}

/// True when a process with `pid` exists.
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks for existence and permission.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// What a lock file says.
struct Recorded {
    pid: Option<u32>,
    since: String,
    identity: Option<Identity>,
}

fn parse(text: &str) -> Recorded {
    let mut words = text.split_whitespace();
    let pid = words.next().and_then(|p| p.parse::<u32>().ok());
    let since = words.next().unwrap_or("?").to_string();
    let start = words.next().and_then(|s| s.parse::<u64>().ok());
    let boot = words.next().map(str::to_string);
    let identity = match (pid, start, boot) {
        (Some(pid), Some(start), Some(boot)) => Some(Identity { pid, start, boot }),
        _ => None,
    };
    Recorded {
        pid,
        since,
        identity,
    }
}

/// The command name of `pid` (`/proc/<pid>/comm`).
fn command_name(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|c| c.trim().to_string())
}

/// True when the lock's process still runs: a process named as a zurdo is
/// (`program` tells whether a command name is one), with the full identity
/// when the lock records one, else (a lock from before identities were
/// recorded) a live pid whose process started no later than the lock says.
fn held(recorded: &Recorded, program: impl Fn(&str) -> bool) -> bool {
    let Some(pid) = recorded.pid.filter(|p| *p != std::process::id()) else {
        return false;
    };
    if !command_name(pid).is_some_and(|name| program(&name)) {
        return false;
    }
    if let Some(identity) = &recorded.identity {
        return identity.is_alive();
    }
    if !alive(pid) {
        return false;
    }
    let since = zurdo_base::time::parse(&recorded.since);
    match (since, process::started_at(pid)) {
        // A process that started after the lock was written did not write it.
        (Some(since), Some(started)) => started
            .duration_since(since)
            .map_or(true, |late| late.as_secs() < 2),
        _ => true,
    }
}

impl Lock {
    /// Takes the lock `name` in `dir`. A stale lock is taken over;
    /// `on_stale` is told whose it was.
    pub fn acquire(dir: Dir, name: &str, on_stale: impl FnMut(Stale)) -> Result<Lock, LockError> {
        Lock::acquire_among(dir, name, on_stale, |name| name.starts_with("zurdo"))
    }

    /// [`Lock::acquire`], with `program` telling which command names are
    /// zurdo's (tests stand in other programs).
    fn acquire_among(
        dir: Dir,
        name: &str,
        mut on_stale: impl FnMut(Stale),
        program: impl Fn(&str) -> bool,
    ) -> Result<Lock, LockError> {
        let own = process::own();
        let line = format!(
            "{} {} {} {}\n",
            std::process::id(),
            zurdo_base::time::now(),
            own.as_ref().map_or(0, |i| i.start),
            own.as_ref().map_or("-", |i| i.boot.as_str())
        );
        for _ in 0..2 {
            match dir.create_new(name, line.as_bytes()) {
                Ok(()) => {
                    return Ok(Lock {
                        dir,
                        name: name.to_string(),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = dir
                        .read(name, 4096)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                    let recorded = parse(&text);
                    if held(&recorded, &program) {
                        return Err(LockError::Held {
                            pid: recorded.pid.unwrap_or(0),
                            since: recorded.since,
                        });
                    }
                    on_stale(Stale {
                        holder: text.trim().to_string(),
                    });
                    dir.remove(name).map_err(LockError::Io)?;
                }
                Err(e) => return Err(LockError::Io(e)),
            }
        }
        Err(LockError::Io(std::io::Error::other(
            "the lock kept reappearing",
        )))
    }
}

/// Releases a lock from elsewhere (a signal's watcher ending the process
/// before the [`Lock`] is dropped): removes the file when it still names
/// this process.
#[derive(Debug, Clone)]
pub struct Releaser {
    dir: std::sync::Arc<Dir>,
    name: String,
}

impl Releaser {
    /// Removes the lock file, unless it no longer names this process.
    pub fn release(&self) {
        let ours = self
            .dir
            .read(&self.name, 4096)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|t| t.split_whitespace().next().map(str::to_string))
            .is_some_and(|pid| pid == std::process::id().to_string());
        if ours {
            let _ = self.dir.remove(&self.name);
        }
    }
}

impl Lock {
    /// What can release this lock from another thread.
    pub fn releaser(&self) -> Option<Releaser> {
        Some(Releaser {
            dir: std::sync::Arc::new(self.dir.try_clone().ok()?),
            name: self.name.clone(),
        })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.dir.remove(&self.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(path: &std::path::Path) -> Dir {
        Dir::open(path).expect("open")
    }

    /// Takes the lock with `sleep` standing in for zurdo.
    fn take(path: &std::path::Path) -> Result<(Lock, String), LockError> {
        let mut warned = String::new();
        let lock = Lock::acquire_among(
            dir(path.parent().expect("dir")),
            "lock",
            |m| warned = m.to_string(),
            |name| name == "sleep",
        )?;
        Ok((lock, warned))
    }

    #[test]
    fn held_stale_and_released() {
        let tmp = tempfile::tempdir().expect("temp");
        let path = tmp.path().join("lock");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        let id = process::identity(child.id()).expect("identity");
        // The live process the lock names, as the lock names it: held.
        std::fs::write(
            &path,
            format!("{} 2026-01-01T00:00:00Z {} {}\n", id.pid, id.start, id.boot),
        )
        .expect("write");
        match take(&path) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, id.pid),
            other => panic!("{other:?}"),
        }
        // The same pid with another start time is someone else: stale.
        std::fs::write(
            &path,
            format!(
                "{} 2026-01-01T00:00:00Z {} {}\n",
                id.pid,
                id.start + 1,
                id.boot
            ),
        )
        .expect("write");
        let (lock, warned) = take(&path).expect("a reused pid is not the holder");
        assert!(warned.contains("stale lock"), "{warned}");
        drop(lock);
        let _ = child.kill();
        let _ = child.wait();
        // A pid that cannot exist: stale, taken over with a warning.
        std::fs::write(&path, "4194305 2026-01-01T00:00:00Z\n").expect("write");
        let (lock, _) = take(&path).expect("stale lock taken");
        let text = std::fs::read_to_string(&path).expect("read");
        let recorded = parse(&text);
        assert_eq!(recorded.pid, Some(std::process::id()));
        assert!(recorded.identity.is_some(), "{text}");
        drop(lock);
        assert!(!path.exists());
    }

    #[test]
    fn a_lock_naming_an_unrelated_live_process_is_stale() {
        let tmp = tempfile::tempdir().expect("temp");
        let path = tmp.path().join("lock");
        // pid 1 is alive but is not zurdo: whatever the lock says, stale.
        let pid1 = process::identity(1);
        let lines = [
            "1 2026-01-01T00:00:00Z\n".to_string(),
            format!("1 {}\n", zurdo_base::time::now()),
            pid1.map_or(String::new(), |i| {
                format!("1 2026-01-01T00:00:00Z {} {}\n", i.start, i.boot)
            }),
        ];
        for line in lines.iter().filter(|l| !l.is_empty()) {
            std::fs::write(&path, line).expect("write");
            let lock = Lock::acquire(dir(tmp.path()), "lock", |_| {})
                .unwrap_or_else(|e| panic!("{line:?} refused: {e}"));
            drop(lock);
        }
        // An old-format lock of a live zurdo-named process that started
        // after the lock was written did not write it.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn");
        std::fs::write(&path, format!("{} 2020-01-01T00:00:00Z\n", child.id())).expect("write");
        assert!(
            take(&path).is_ok(),
            "started after the lock: not its writer"
        );
        std::fs::write(
            &path,
            format!("{} {}\n", child.id(), zurdo_base::time::now()),
        )
        .expect("write");
        assert!(
            matches!(take(&path), Err(LockError::Held { .. })),
            "an old-format lock it could have written still holds"
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}
