//! `[file-exists:]` and `[file-absent:]`, the path confinement every local
//! hint shares, and git blob ids for evidence.

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use super::outcome::{Blob, Evidence, Reason, Verdict};
use crate::paths::RepoPath;

/// The blob id recorded for a path a passing hint saw absent (git's null id).
pub const ABSENT: &str = "0000000000000000000000000000000000000000";

/// The git blob id of `bytes`: SHA-1 over `blob <len>\0<bytes>`, as
/// `git hash-object` computes it.
pub fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Resolves a repository-relative path, refusing anything that leaves the
/// repository: an absolute path, a `..` component, or a symlink (anywhere
/// along the path) that points outside. `root` must be canonical.
pub(crate) fn confine(root: &Path, path: &RepoPath) -> Result<PathBuf, Reason> {
    let text = path.as_str();
    if Path::new(text).is_absolute() || text.split('/').any(|c| c == "..") {
        return Err(Reason::PathEscapes {
            detail: format!("`{text}` is not a path inside the repository"),
        });
    }
    let full = root.join(text);
    // The deepest part of the path that exists decides where it really points.
    let mut existing = full.as_path();
    while std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(p) => existing = p,
            None => break,
        }
    }
    match std::fs::canonicalize(existing) {
        Ok(real) if real.starts_with(root) => Ok(full),
        Ok(real) => Err(Reason::PathEscapes {
            detail: format!("`{text}` resolves to {} through a symlink", real.display()),
        }),
        // A dangling symlink: where it points does not exist, so nothing is read.
        Err(_) => Ok(full),
    }
}

/// Reads a file for evidence, recording its blob id.
pub(crate) fn read_with_blob(
    full: &Path,
    shown: &str,
    evidence: &mut Evidence,
) -> Result<Vec<u8>, Reason> {
    let bytes = std::fs::read(full).map_err(|e| Reason::Unreadable {
        detail: format!("{shown}: {e}"),
    })?;
    evidence.blobs.push(Blob {
        path: shown.to_string(),
        id: blob_id(&bytes),
    });
    Ok(bytes)
}

/// `[file-exists:]`: passes when something is at the path.
pub(crate) fn exists(root: &Path, path: &RepoPath) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    let full = match confine(root, path) {
        Ok(full) => full,
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    match std::fs::metadata(&full) {
        Ok(meta) if meta.is_file() => match read_with_blob(&full, path.as_str(), &mut evidence) {
            Ok(bytes) => {
                evidence.note = Some(format!("{} exists ({} bytes)", path, bytes.len()));
                (Verdict::Pass, evidence)
            }
            Err(reason) => (Verdict::Fail(reason), evidence),
        },
        Ok(_) => {
            evidence.note = Some(format!("{path} exists (a directory)"));
            (Verdict::Pass, evidence)
        }
        Err(_) => (Verdict::Fail(Reason::Missing), evidence),
    }
}

/// `[file-absent:]`: passes when nothing is at the path (a dangling
/// symlink counts as something).
pub(crate) fn absent(root: &Path, path: &RepoPath) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    let full = match confine(root, path) {
        Ok(full) => full,
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    if std::fs::symlink_metadata(&full).is_ok() {
        evidence.note = Some(format!("{path} exists"));
        return (Verdict::Fail(Reason::Present), evidence);
    }
    evidence.blobs.push(Blob {
        path: path.to_string(),
        id: ABSENT.to_string(),
    });
    (Verdict::Pass, evidence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }
}
