//! Reading PRD files and finding the repository root they belong to.

use std::path::{Path, PathBuf};

use zurdo_base::files::{read_bounded, ReadError};

use crate::diagnostic::Diagnostic;
use crate::model::Prd;

/// Why a PRD file could not be read (as opposed to what is wrong inside it).
#[derive(Debug)]
pub struct LoadError {
    /// The path as given.
    pub path: PathBuf,
    /// What went wrong, in words.
    pub reason: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: cannot read the PRD: {}",
            self.path.display(),
            self.reason
        )
    }
}

impl std::error::Error for LoadError {}

/// The largest PRD zurdo reads: 16 MiB. A PRD is prose and criteria;
/// even a very large one is a few hundred KiB.
pub const PRD_READ_LIMIT: u64 = 16 * 1024 * 1024;

/// The largest `.zurdo/config.toml` zurdo reads: 1 MiB (a real one is a
/// few KiB).
pub const CONFIG_READ_LIMIT: u64 = 1024 * 1024;

/// Reads a PRD file's bytes, with an error that says why it could not be.
/// Only a regular file of at most [`PRD_READ_LIMIT`] bytes is read: a
/// FIFO or a device is refused at once, never waited on or read forever.
pub fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    read_bounded(path, PRD_READ_LIMIT).map_err(|e| LoadError {
        path: path.to_path_buf(),
        reason: match e {
            ReadError::NotRegular {
                kind: "a directory",
            } => "it is a directory; name a PRD file such as prds/feature.md".to_string(),
            ReadError::NotRegular { kind } => format!(
                "it is {kind}, not a regular file, so it is not read; name a PRD file such as prds/feature.md"
            ),
            ReadError::TooLarge { size, limit } => format!(
                "it is {size} bytes, over the {limit}-byte limit for a PRD; split it into several PRDs"
            ),
            ReadError::Io(e) => match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
                _ => e.to_string(),
            },
        },
    })
}

/// Reads `.zurdo/config.toml` (or any config file zurdo reads) as text:
/// only a regular file of at most [`CONFIG_READ_LIMIT`] bytes, in UTF-8.
/// A missing file is [`std::io::ErrorKind::NotFound`]; every other error
/// says what is wrong and what to do.
pub fn read_config(path: &Path) -> std::io::Result<String> {
    let bytes = read_bounded(path, CONFIG_READ_LIMIT).map_err(|e| match e {
        ReadError::Io(e) => e,
        other => std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{other}; the config must be a regular file of at most {CONFIG_READ_LIMIT} bytes"
            ),
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text; save it as UTF-8",
        )
    })
}

/// A PRD file read and parsed: the outer error is an unreadable file, the
/// inner one the PRD's own errors.
pub type Loaded = Result<Result<Prd, Vec<Diagnostic>>, LoadError>;

/// Reads and parses a PRD file.
pub fn load(path: &Path) -> Loaded {
    read(path).map(|bytes| crate::parse_bytes(&bytes))
}

/// The repository root a PRD's paths are relative to: the nearest ancestor
/// holding `.git`, else the nearest holding `.zurdo/`, else the nearest
/// holding `Cargo.toml`, else the PRD's own directory.
pub fn repo_root(prd_path: &Path) -> PathBuf {
    let absolute = std::path::absolute(prd_path).unwrap_or_else(|_| prd_path.to_path_buf());
    let dir = absolute
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    for marker in [".git", ".zurdo", "Cargo.toml"] {
        if let Some(found) = dir.ancestors().find(|a| a.join(marker).exists()) {
            return found.to_path_buf();
        }
    }
    dir
}

/// `path` relative to `root`, `/`-separated; `None` when it is outside.
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let absolute = std::path::absolute(path).ok()?;
    let rel = absolute.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) -> bool {
        std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success())
    }

    #[test]
    fn only_a_regular_prd_within_the_limit_is_read() {
        let dir = tempfile::tempdir().expect("temp");
        let prd = dir.path().join("p.md");
        std::fs::write(&prd, "# PRD: p\n").expect("write");
        assert_eq!(read(&prd).expect("a PRD"), b"# PRD: p\n");
        let e = read(dir.path()).expect_err("a directory");
        assert!(
            e.to_string()
                .ends_with("it is a directory; name a PRD file such as prds/feature.md"),
            "{e}"
        );
        let e = read(&dir.path().join("none.md")).expect_err("missing");
        assert!(
            e.to_string().ends_with("cannot read the PRD: no such file"),
            "{e}"
        );
        let fifo = dir.path().join("fifo.md");
        if mkfifo(&fifo) {
            let e = read(&fifo).expect_err("a FIFO, refused at once");
            assert!(
                e.to_string()
                    .contains("fifo.md: cannot read the PRD: it is a FIFO, not a regular file"),
                "{e}"
            );
        }
        let zero = dir.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("symlink");
        let e = read(&zero).expect_err("a device");
        assert!(e.to_string().contains("it is a character device"), "{e}");
        let big = dir.path().join("big.md");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(PRD_READ_LIMIT + 1))
            .expect("sparse file");
        let e = read(&big).expect_err("too large");
        assert!(
            e.to_string()
                .contains("over the 16777216-byte limit for a PRD; split it"),
            "{e}"
        );
    }

    #[test]
    fn config_text_is_regular_bounded_utf8() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("config.toml");
        assert_eq!(
            read_config(&path).expect_err("missing").kind(),
            std::io::ErrorKind::NotFound
        );
        std::fs::write(&path, "[verification]\n").expect("write");
        assert_eq!(read_config(&path).expect("text"), "[verification]\n");
        std::fs::write(&path, b"\xff\xfe").expect("write");
        assert!(read_config(&path)
            .expect_err("not UTF-8")
            .to_string()
            .contains("UTF-8"));
        std::fs::remove_file(&path).expect("rm");
        if mkfifo(&path) {
            let e = read_config(&path).expect_err("a FIFO");
            assert!(
                e.to_string().contains("a FIFO") && e.to_string().contains("regular file"),
                "{e}"
            );
        }
    }
}
