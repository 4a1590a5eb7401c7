//! A directory held open, in which files are created, replaced, appended
//! to and read without following a symlink anywhere below the directory it
//! was opened from.
//!
//! A process that can write inside a directory zurdo writes into (an agent
//! working in the repository can write `.zurdo/`) can plant a symlink where
//! zurdo is about to write, hoping zurdo writes through it to a file
//! anywhere the user can write. Paths cannot stop that: a check followed by
//! an `open` of the same path races with the planter. So every step here is
//! relative to an open directory descriptor: a subdirectory is opened with
//! `O_NOFOLLOW | O_DIRECTORY` (a symlink there is refused, not followed), a
//! file is created `O_EXCL | O_NOFOLLOW` and renamed into place with
//! `renameat` (which replaces a symlink at the destination rather than
//! writing through it), and an append opens with `O_NOFOLLOW`.

use std::ffi::CString;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::files::{Durability, ReadError};

/// A directory held open by descriptor, with the path it was reached by
/// (for messages only: every operation goes through the descriptor).
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Why a directory could not be opened without following a symlink.
fn explain(path: &Path, e: std::io::Error) -> std::io::Error {
    // Linux answers ENOTDIR for a symlink opened O_DIRECTORY | O_NOFOLLOW;
    // say which it is (for the message only: nothing was opened).
    let symlink = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let code = if symlink {
        Some(libc::ELOOP)
    } else {
        e.raw_os_error()
    };
    match code {
        Some(libc::ELOOP) => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is a symlink; zurdo does not write through symlinks (remove it and run again)",
                path.display()
            ),
        ),
        Some(libc::ENOTDIR) => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is not a directory (a file or a symlink is in its place; remove it and run again)",
                path.display()
            ),
        ),
        _ => std::io::Error::new(e.kind(), format!("{}: {e}", path.display())),
    }
}

fn c_name(name: &str) -> std::io::Result<CString> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{name}` is not a single file name"),
        ));
    }
    CString::new(name).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{name}` holds a NUL byte"),
        )
    })
}

/// What [`Dir::stat`] says of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// A regular file (not a symlink, a directory or anything else).
    pub is_file: bool,
    /// Its size.
    pub len: u64,
    /// When it last changed.
    pub modified: std::time::SystemTime,
}

/// Temporary names are per process and per call.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Dir {
    /// Opens `path` itself (following symlinks on the way there: the caller
    /// trusts it, e.g. the repository root).
    pub fn open(path: &Path) -> std::io::Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::other("a NUL byte in a path"))?;
        // SAFETY: `c` is a valid NUL-terminated string; open(2) returns a new
        // descriptor or -1.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(explain(path, std::io::Error::last_os_error()));
        }
        Ok(Dir {
            // SAFETY: `fd` was just returned by open(2) and is owned by nobody else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path: path.to_path_buf(),
        })
    }

    /// The path this directory was reached by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The subdirectory `name`, refusing a symlink; created (mode 0755)
    /// when missing and `create`.
    pub fn child(&self, name: &str, create: bool) -> std::io::Result<Dir> {
        let c = c_name(name)?;
        let path = self.path.join(name);
        if create {
            // SAFETY: a valid descriptor and NUL-terminated name.
            let r = unsafe { libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), 0o755) };
            if r != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EEXIST) {
                    return Err(explain(&path, e));
                }
            }
        }
        // SAFETY: a valid descriptor and NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(explain(&path, std::io::Error::last_os_error()));
        }
        Ok(Dir {
            // SAFETY: `fd` was just returned by openat(2) and is owned by nobody else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            path,
        })
    }

    /// The directory reached by `names` below this one, each step refusing
    /// a symlink and (with `create`) created when missing.
    pub fn descend(&self, names: &[&str], create: bool) -> std::io::Result<Dir> {
        let mut dir = self.child_or_self(names.first().copied(), create)?;
        for name in names.iter().skip(1) {
            dir = dir.child(name, create)?;
        }
        Ok(dir)
    }

    fn child_or_self(&self, name: Option<&str>, create: bool) -> std::io::Result<Dir> {
        match name {
            Some(name) => self.child(name, create),
            None => Ok(Dir {
                fd: self.fd.try_clone()?,
                path: self.path.clone(),
            }),
        }
    }

    fn open_file(&self, name: &str, flags: i32) -> std::io::Result<File> {
        let c = c_name(name)?;
        // SAFETY: a valid descriptor and NUL-terminated name; the mode is
        // only used with O_CREAT.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o644 as libc::c_uint,
            )
        };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            let path = self.path.join(name);
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP) => std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "{} is a symlink; zurdo does not write or read through symlinks here",
                        path.display()
                    ),
                ),
                // A FIFO with no reader, opened for writing without blocking.
                Some(libc::ENXIO) => std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{} is a FIFO, not a file", path.display()),
                ),
                _ => std::io::Error::new(e.kind(), format!("{}: {e}", path.display())),
            });
        }
        // SAFETY: `fd` was just returned by openat(2) and is owned by nobody else.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// Replaces the file `name` with `bytes` atomically: a new file is
    /// created beside it (exclusively, never through a symlink) and renamed
    /// over it, so a symlink planted at `name` is replaced, not followed.
    pub fn replace(&self, name: &str, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
        let temp = format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let written = (|| {
            let mut file = self.open_file(&temp, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL)?;
            file.write_all(bytes)?;
            if durability == Durability::Synced {
                file.sync_all()?;
            }
            self.rename(&temp, name)
        })();
        if written.is_err() {
            let _ = self.remove(&temp);
        }
        written?;
        if durability == Durability::Synced {
            // SAFETY: fsync(2) on a descriptor this Dir owns.
            let _ = unsafe { libc::fsync(self.fd.as_raw_fd()) };
        }
        Ok(())
    }

    /// Appends `bytes` to the file `name` (created when missing) and syncs
    /// its data. A symlink, a FIFO or a device at `name` is refused with
    /// [`std::io::ErrorKind::InvalidInput`] (opened without blocking, so a
    /// FIFO with no reader cannot hang the caller).
    pub fn append(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = self.open_append(name)?;
        file.write_all(bytes)?;
        file.sync_data()
    }

    /// Opens the file `name` (created when missing) for appending, without
    /// syncing each write: for output streamed as it arrives, to be read
    /// while it grows. Refused like [`Dir::append`] for a symlink, a FIFO or
    /// a device; the open file keeps writing where it was opened, whatever
    /// is later planted at `name`.
    pub fn open_append(&self, name: &str) -> std::io::Result<File> {
        let file = self
            .open_file(
                name,
                libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_NONBLOCK,
            )
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENXIO) => std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{} is a FIFO, not a file", self.path.join(name).display()),
                ),
                _ => e,
            })?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not a regular file", self.path.join(name).display()),
            ));
        }
        Ok(file)
    }

    /// Creates the file `name` holding `bytes`, failing with
    /// `AlreadyExists` when something (a symlink included) is there.
    pub fn create_new(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = self.open_file(name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL)?;
        file.write_all(bytes)?;
        file.sync_all()
    }

    /// Reads the file `name` when it is a regular file (not a symlink) of at
    /// most `limit` bytes.
    pub fn read(&self, name: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
        let file = self
            .open_file(name, libc::O_RDONLY | libc::O_NONBLOCK)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidInput => ReadError::NotRegular { kind: "a symlink" },
                _ => ReadError::Io(e),
            })?;
        crate::files::read_open(file, limit)
    }

    /// What is at `name` (not following a symlink there): `None` when
    /// nothing is.
    pub fn stat(&self, name: &str) -> std::io::Result<Option<Entry>> {
        let c = c_name(name)?;
        // SAFETY: an all-zero `stat` is a valid value to be overwritten.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid descriptor, NUL-terminated name and out pointer.
        let r = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return if e.kind() == std::io::ErrorKind::NotFound {
                Ok(None)
            } else {
                Err(e)
            };
        }
        let secs = u64::try_from(st.st_mtime).unwrap_or(0);
        let nanos = u32::try_from(st.st_mtime_nsec).unwrap_or(0);
        Ok(Some(Entry {
            is_file: st.st_mode & libc::S_IFMT == libc::S_IFREG,
            len: u64::try_from(st.st_size).unwrap_or(0),
            modified: std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos),
        }))
    }

    /// Renames `from` to `to`, both in this directory.
    pub fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
        self.rename_into(from, self, to)
    }

    /// Moves `from` (here) to `to` in `target`.
    pub fn rename_into(&self, from: &str, target: &Dir, to: &str) -> std::io::Result<()> {
        let (a, b) = (c_name(from)?, c_name(to)?);
        // SAFETY: valid descriptors and NUL-terminated names.
        let r = unsafe {
            libc::renameat(
                self.fd.as_raw_fd(),
                a.as_ptr(),
                target.fd.as_raw_fd(),
                b.as_ptr(),
            )
        };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return Err(std::io::Error::new(
                e.kind(),
                format!("cannot move {}: {e}", self.path.join(from).display()),
            ));
        }
        Ok(())
    }

    /// Another handle on the same directory (its descriptor duplicated).
    pub fn try_clone(&self) -> std::io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }

    /// Removes the file (or symlink) `name`.
    pub fn remove(&self, name: &str) -> std::io::Result<()> {
        let c = c_name(name)?;
        // SAFETY: a valid descriptor and NUL-terminated name.
        let r = unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// The names in this directory (through the descriptor).
    pub fn names(&self) -> std::io::Result<Vec<String>> {
        let path = PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()));
        let mut names: Vec<String> = std::fs::read_dir(path)?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Dir) {
        let repo = tempfile::tempdir().expect("temp");
        let outside = tempfile::tempdir().expect("temp");
        let dir = Dir::open(repo.path()).expect("open");
        (repo, outside, dir)
    }

    #[test]
    fn a_symlinked_directory_is_refused_not_followed() {
        let (repo, outside, root) = setup();
        symlink(outside.path(), repo.path().join(".zurdo")).expect("plant");
        let e = root.child(".zurdo", true).expect_err("a symlink");
        assert!(e.to_string().contains(".zurdo is a symlink"), "{e}");
        assert_eq!(std::fs::read_dir(outside.path()).expect("ls").count(), 0);
        // A file where a directory should be.
        std::fs::write(repo.path().join("state"), "x").expect("write");
        let e = root.child("state", true).expect_err("a file");
        assert!(e.to_string().contains("is not a directory"), "{e}");
        let made = root.descend(&["a", "b"], true).expect("created");
        assert!(made.path().ends_with("a/b") && repo.path().join("a/b").is_dir());
    }

    #[test]
    fn replacing_a_planted_symlink_never_writes_through_it() {
        let (repo, outside, root) = setup();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "precious").expect("write");
        symlink(&victim, repo.path().join("prd.json")).expect("plant");
        root.replace("prd.json", b"{}", Durability::Synced)
            .expect("replace");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
        let meta = std::fs::symlink_metadata(repo.path().join("prd.json")).expect("meta");
        assert!(meta.is_file(), "the symlink itself was replaced");
        // Appending through one is refused, and the victim untouched.
        symlink(&victim, repo.path().join("progress.log")).expect("plant");
        let e = root.append("progress.log", b"line\n").expect_err("refused");
        assert!(e.to_string().contains("is a symlink"), "{e}");
        let e = root.open_append("progress.log").expect_err("refused");
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
        // Reading through one is refused too.
        assert!(matches!(
            root.read("progress.log", 100),
            Err(ReadError::NotRegular { kind: "a symlink" })
        ));
        // A honest file reads, appends and is created exactly once.
        root.append("log", b"a\n").expect("append");
        root.append("log", b"b\n").expect("append");
        assert_eq!(root.read("log", 100).expect("read"), b"a\nb\n");
        {
            use std::io::Write;
            let mut open = root.open_append("log").expect("open");
            open.write_all(b"c\n").expect("write");
        }
        assert_eq!(root.read("log", 100).expect("read"), b"a\nb\nc\n");
        root.replace("log", b"a\nb\n", Durability::Unsynced)
            .expect("replace");
        root.create_new("lock", b"1").expect("create");
        let again = root.create_new("lock", b"2").expect_err("exists");
        assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
        let names = root.names().expect("names");
        assert!(
            names.contains(&"lock".to_string()) && !names.iter().any(|n| n.contains(".tmp-")),
            "{names:?}"
        );
        assert_eq!(
            std::fs::read_to_string(repo.path().join("log")).expect("read"),
            "a\nb\n"
        );
    }

    #[test]
    fn names_are_single_components() {
        let (_repo, _outside, root) = setup();
        for bad in ["", ".", "..", "a/b", "../x"] {
            assert!(
                root.replace(bad, b"x", Durability::Unsynced).is_err(),
                "{bad}"
            );
        }
    }
}
