//! Atomic file replacement: write a temporary file beside the target, make
//! it durable when asked, rename it over the target. A crash at any point
//! leaves either the old file or the new one, never a torn one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// How much a replacement must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The file and its directory entry are fsynced: the new bytes survive
    /// a power loss once the call returns. For records that are the state.
    Synced,
    /// No fsync: a crash may leave the old file, or an empty or torn new
    /// one under the final name after a power loss. Only for files that
    /// are checked when read back (a content hash in their name, say).
    Unsynced,
}

/// Replaces `path` with `bytes` atomically and durably, creating its
/// directory first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    replace(path, bytes, Durability::Synced)
}

/// Replaces `path` (whose directory exists) with `bytes` atomically.
pub fn replace(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = temp_beside(path);
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        if durability == Durability::Synced {
            file.sync_all()?;
        }
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written?;
    if durability == Durability::Synced {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// `.<name>.tmp-<pid>` beside `path`: hidden, and per process so two
/// processes replacing one file never share a temporary.
fn temp_beside(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("deeper/prd.json");
        write_atomic(&path, b"one").expect("write");
        write_atomic(&path, b"two").expect("write");
        replace(&path, b"three", Durability::Unsynced).expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), b"three");
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("ls")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_failed_replacement_keeps_the_old_file() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("state");
        write_atomic(&path, b"old").expect("write");
        // A directory where the file should be: the rename fails.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).expect("mkdir");
        std::fs::write(blocked.join("x"), b"x").expect("write");
        assert!(replace(&blocked, b"new", Durability::Synced).is_err());
        assert_eq!(std::fs::read(&path).expect("read"), b"old");
        let temps = std::fs::read_dir(dir.path())
            .expect("ls")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
            .count();
        assert_eq!(temps, 0, "no temporary left behind");
    }
}
