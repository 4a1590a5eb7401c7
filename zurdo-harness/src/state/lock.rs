//! `.zurdo/<slug>/lock`: one run per PRD. Holds `<pid> <RFC 3339 start>`;
//! a lock whose process is gone is stale and taken over with a warning.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A held lock; released (the file removed) when dropped.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
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

/// True when a process with `pid` exists.
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks for existence and permission.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// A lock whose process is gone, taken over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// What the lock said (`<pid> <start>`).
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

impl Lock {
    /// Takes the lock at `path`. A stale lock (its pid is gone) is taken
    /// over; `on_stale` is told whose it was.
    pub fn acquire(path: &Path, mut on_stale: impl FnMut(Stale)) -> Result<Lock, LockError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(LockError::Io)?;
        }
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(mut file) => {
                    let line = format!("{} {}\n", std::process::id(), zurdo_base::time::now());
                    file.write_all(line.as_bytes()).map_err(LockError::Io)?;
                    let _ = file.sync_all();
                    return Ok(Lock {
                        path: path.to_path_buf(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = std::fs::read_to_string(path).unwrap_or_default();
                    let mut words = text.split_whitespace();
                    let pid = words.next().and_then(|p| p.parse::<u32>().ok());
                    let since = words.next().unwrap_or("?").to_string();
                    match pid {
                        Some(pid) if pid != std::process::id() && alive(pid) => {
                            return Err(LockError::Held { pid, since })
                        }
                        _ => {
                            on_stale(Stale {
                                holder: text.trim().to_string(),
                            });
                            std::fs::remove_file(path).map_err(LockError::Io)?;
                        }
                    }
                }
                Err(e) => return Err(LockError::Io(e)),
            }
        }
        Err(LockError::Io(std::io::Error::other(
            "the lock kept reappearing",
        )))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_stale_and_released() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("lock");
        // PID 1 is always alive: a lock naming it is held.
        std::fs::write(&path, "1 2026-01-01T00:00:00Z\n").expect("write");
        match Lock::acquire(&path, |_| {}) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, 1),
            other => panic!("{other:?}"),
        }
        // A pid that cannot exist: stale, taken over with a warning.
        std::fs::write(&path, "4194305 2026-01-01T00:00:00Z\n").expect("write");
        let mut warned = String::new();
        let lock = Lock::acquire(&path, |m| warned = m.to_string()).expect("stale lock taken");
        assert!(warned.contains("stale lock"), "{warned}");
        assert!(std::fs::read_to_string(&path)
            .expect("read")
            .starts_with(&std::process::id().to_string()));
        drop(lock);
        assert!(!path.exists());
    }
}
