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

/// Why a file could not be read within bounds.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file (a FIFO, a device, a socket, a directory): reading
    /// it could block forever or never end, so it is not read.
    NotRegular {
        /// What it is.
        kind: &'static str,
    },
    /// Larger than the limit.
    TooLarge {
        /// Its size (or the bytes seen before giving up).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file could not be opened or read.
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular { kind } => {
                write!(f, "not a regular file ({kind}), so it is not read")
            }
            ReadError::TooLarge { size, limit } => {
                write!(f, "{size} bytes, over the {limit}-byte limit for this file")
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// True when there is no file at all.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a path that is not a regular file is, in words, from its metadata
/// (`a FIFO`, `a directory`, …).
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symlink"
    } else {
        "not a file"
    }
}

/// Reads `path` (following symlinks) only when it is a regular file of at
/// most `limit` bytes. The file is opened without blocking and checked
/// before a byte is read, and the read stops past the limit, so a FIFO, a
/// device or a file that grows while it is read can neither hang the caller
/// nor exhaust its memory.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        // Opening a FIFO for reading must not wait for a writer (on a
        // regular file the flag changes nothing).
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(ReadError::Io)?;
    read_open(file, limit)
}

/// Like [`read_bounded`], but a symlink at `path` itself is refused rather
/// than followed (for files found by a walk that does not follow links,
/// which could have been swapped for one since).
pub fn read_bounded_nofollow(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => ReadError::NotRegular { kind: "a symlink" },
            _ => ReadError::Io(e),
        })?;
    read_open(file, limit)
}

/// Reads an opened `file` when it is a regular file of at most `limit`
/// bytes (see [`read_bounded`]).
pub(crate) fn read_open(file: std::fs::File, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(&meta),
        });
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
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
    fn bounded_reads_refuse_what_is_not_a_small_regular_file() {
        let dir = tempfile::tempdir().expect("temp");
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").expect("write");
        assert_eq!(read_bounded(&file, 5).expect("fits"), b"12345");
        assert!(matches!(
            read_bounded(&file, 4),
            Err(ReadError::TooLarge { size: 5, limit: 4 })
        ));
        assert!(matches!(
            read_bounded(dir.path(), 10),
            Err(ReadError::NotRegular {
                kind: "a directory"
            })
        ));
        // A FIFO with no writer: refused at once, not waited on.
        let fifo = dir.path().join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            let e = read_bounded(&fifo, 10).expect_err("a FIFO");
            assert_eq!(
                e.to_string(),
                "not a regular file (a FIFO), so it is not read"
            );
        }
        // A symlink to a device that never ends.
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        assert!(matches!(
            read_bounded(&zero, 10),
            Err(ReadError::NotRegular {
                kind: "a character device"
            })
        ));
        assert!(read_bounded(&dir.path().join("none"), 1)
            .expect_err("missing")
            .is_not_found());
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
