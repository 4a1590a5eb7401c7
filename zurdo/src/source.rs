//! Reading PRD files and finding the repository root they belong to.

use std::path::{Path, PathBuf};

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

/// Reads a PRD file's bytes, with an error that says why it could not be.
pub fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    let fail = |reason: String| LoadError {
        path: path.to_path_buf(),
        reason,
    };
    if path.is_dir() {
        return Err(fail(
            "it is a directory; name a PRD file such as prds/feature.md".into(),
        ));
    }
    std::fs::read(path).map_err(|e| {
        fail(match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        })
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
