//! `[file-exists:]` and `[file-absent:]`, and what every hint that reads
//! a file shares: confinement to the repository, bounded reads that never
//! follow a symlink, and git blob ids for evidence.
//!
//! A path is first resolved ([`confine`]): every symlink on it is followed
//! as far as it stays inside the repository, and one that leads outside
//! makes the hint fail with [`Reason::PathEscapes`] before anything is
//! opened. The file is then read along its resolved path from a descriptor
//! of the root, each directory opened `O_NOFOLLOW` and the file itself
//! `O_NOFOLLOW | O_NONBLOCK` ([`zurdo_base::dir::Dir`]): should something
//! swap a directory for a symlink between the two steps, the read is
//! refused, never made through it. Only a regular file of at most
//! [`READ_LIMIT`] bytes is read: a FIFO or a device is refused without a
//! byte read ([`Reason::NotRegular`]), a larger file with
//! [`Reason::TooLarge`].

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};
use zurdo_base::dir::Dir;
use zurdo_base::files::{kind_of, ReadError};
use zurdo_base::text::escape_line;

use super::outcome::{Blob, Evidence, Reason, Verdict};
use crate::paths::RepoPath;

/// The blob id recorded for a path a passing hint saw absent (git's null id).
pub const ABSENT: &str = "0000000000000000000000000000000000000000";

/// The most bytes a hint reads of one file: 64 MiB. Larger than any source
/// file, lock file or generated report a criterion greps; a file over it
/// fails a `[grep:]`/`[no-grep:]` with [`Reason::TooLarge`] (narrow the
/// glob, or `.gitignore` the file), and passes `[file-exists:]` unhashed.
pub const READ_LIMIT: u64 = 64 * 1024 * 1024;

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

/// Where a repository path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// Something is there: its path below the root with every symlink
    /// resolved (no symlink and no `..` left on it; empty for the root).
    Found(PathBuf),
    /// Nothing is there (a dangling symlink included: where it points does
    /// not exist, so nothing can be read).
    Missing,
}

/// Resolves a repository-relative path, refusing anything that leaves the
/// repository: an absolute path, a `..` component, or a symlink (anywhere
/// along the path) that points outside. `root` must be canonical. Nothing
/// is opened: symlinks are read and paths looked up only.
pub(crate) fn confine(root: &Path, text: &str) -> Result<Place, Reason> {
    if Path::new(text).is_absolute() || text.split('/').any(|c| c == "..") {
        return Err(Reason::PathEscapes {
            detail: format!(
                "`{}` is not a path inside the repository",
                escape_line(text)
            ),
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
        Ok(real) => match real.strip_prefix(root) {
            Ok(inside) if existing == full => Ok(Place::Found(inside.to_path_buf())),
            Ok(_) => Ok(Place::Missing),
            Err(_) => Err(escapes(text, &real)),
        },
        Err(_) => Ok(Place::Missing),
    }
}

/// `path_escapes`: `text` leads to `real`, outside the repository.
fn escapes(text: &str, real: &Path) -> Reason {
    Reason::PathEscapes {
        detail: format!(
            "`{}` resolves to {} through a symlink; nothing outside the repository is read",
            escape_line(text),
            escape_line(&real.display().to_string())
        ),
    }
}

/// What is at `real` (from [`confine`]), without following a symlink and
/// without opening it.
pub(crate) fn metadata(root: &Path, real: &Path) -> Option<std::fs::Metadata> {
    std::fs::symlink_metadata(root.join(real)).ok()
}

/// Reads the regular file at `real` (a path [`confine`] resolved) through
/// directories opened from `root` without following a symlink, at most
/// [`READ_LIMIT`] bytes. `shown` names it in a failure.
pub(crate) fn read_real(root: &Path, real: &Path, shown: &str) -> Result<Vec<u8>, Reason> {
    let names: Option<Vec<&str>> = real.components().map(|c| c.as_os_str().to_str()).collect();
    let Some(names) = names else {
        return Err(Reason::Unreadable {
            detail: format!(
                "{}: the name is not valid UTF-8, so zurdo does not read it; rename it",
                escape_line(shown)
            ),
        });
    };
    let Some((name, dirs)) = names.split_last() else {
        return Err(Reason::NotRegular {
            path: escape_line(shown).into_owned(),
            kind: "a directory".into(),
        });
    };
    let dir = Dir::open(root)
        .and_then(|d| d.descend(dirs, false))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidInput => swapped(shown),
            _ => Reason::Unreadable {
                detail: format!("{}: {e}", escape_line(shown)),
            },
        })?;
    dir.read(name, READ_LIMIT).map_err(|e| match e {
        ReadError::NotRegular { kind: "a symlink" } => swapped(shown),
        ReadError::NotRegular { kind } => Reason::NotRegular {
            path: escape_line(shown).into_owned(),
            kind: kind.to_string(),
        },
        ReadError::TooLarge { size, limit } => Reason::TooLarge {
            path: escape_line(shown).into_owned(),
            size,
            limit,
        },
        ReadError::Io(e) => Reason::Unreadable {
            detail: format!("{}: {e}", escape_line(shown)),
        },
    })
}

/// A symlink appeared on a path that had none a moment before.
fn swapped(shown: &str) -> Reason {
    Reason::PathEscapes {
        detail: format!(
            "a symlink took the place of a directory or file on `{}` while it was read \
             (something is still changing the repository); nothing was read through it",
            escape_line(shown)
        ),
    }
}

/// Reads the file a repository path names, confined and bounded; `None`
/// when nothing is there.
pub(crate) fn read_confined(root: &Path, text: &str) -> Result<Option<Vec<u8>>, Reason> {
    match confine(root, text)? {
        Place::Missing => Ok(None),
        Place::Found(real) => read_real(root, &real, text).map(Some),
    }
}

/// Reads a file for evidence, recording its blob id under `shown`.
pub(crate) fn read_with_blob(
    root: &Path,
    real: &Path,
    shown: &str,
    evidence: &mut Evidence,
) -> Result<Vec<u8>, Reason> {
    let bytes = read_real(root, real, shown)?;
    evidence.blobs.push(Blob {
        path: shown.to_string(),
        id: blob_id(&bytes),
    });
    Ok(bytes)
}

/// `[file-exists:]`: passes when something is at the path. A regular file
/// is read for its blob id; a directory, a FIFO, a socket or a device
/// exists too, and is not opened (the note says what it is); a regular
/// file over [`READ_LIMIT`] exists, unhashed.
pub(crate) fn exists(root: &Path, path: &RepoPath) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    let real = match confine(root, path.as_str()) {
        Ok(Place::Found(real)) => real,
        Ok(Place::Missing) => return (Verdict::Fail(Reason::Missing), evidence),
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    let Some(meta) = metadata(root, &real) else {
        return (Verdict::Fail(Reason::Missing), evidence);
    };
    if !meta.is_file() {
        let what = kind_of(&meta);
        evidence.note = Some(if meta.is_dir() {
            format!("{path} exists ({what})")
        } else {
            format!("{path} exists ({what}; not a regular file, so it is not read)")
        });
        return (Verdict::Pass, evidence);
    }
    match read_with_blob(root, &real, path.as_str(), &mut evidence) {
        Ok(bytes) => {
            evidence.note = Some(format!("{} exists ({} bytes)", path, bytes.len()));
            (Verdict::Pass, evidence)
        }
        Err(Reason::TooLarge { size, limit, .. }) => {
            evidence.note = Some(format!(
                "{path} exists ({size} bytes, over the {limit}-byte read limit: not hashed, \
                 so the verification window cannot re-check it)"
            ));
            (Verdict::Pass, evidence)
        }
        Err(reason) => (Verdict::Fail(reason), evidence),
    }
}

/// `[file-absent:]`: passes when nothing is at the path (a dangling
/// symlink counts as something).
pub(crate) fn absent(root: &Path, path: &RepoPath) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    let present = match confine(root, path.as_str()) {
        Ok(Place::Found(_)) => true,
        Ok(Place::Missing) => std::fs::symlink_metadata(root.join(path.as_str())).is_ok(),
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    if present {
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
    use std::os::unix::fs::symlink;

    #[test]
    fn blob_ids_match_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    fn canonical_temp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        (dir, root)
    }

    #[test]
    fn confinement_resolves_inside_symlinks_and_refuses_outside_ones() {
        let (_dir, root) = canonical_temp();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/a.rs"), "a").expect("write");
        symlink("src", root.join("inside")).expect("symlink");
        symlink("/", root.join("rootlink")).expect("symlink");
        symlink("nowhere", root.join("dangling")).expect("symlink");
        assert_eq!(
            confine(&root, "inside/a.rs"),
            Ok(Place::Found(PathBuf::from("src/a.rs")))
        );
        assert_eq!(confine(&root, "src/none.rs"), Ok(Place::Missing));
        assert_eq!(confine(&root, "dangling"), Ok(Place::Missing));
        for escaping in ["rootlink", "rootlink/etc/passwd", "rootlink/no/such/file"] {
            assert!(
                matches!(confine(&root, escaping), Err(Reason::PathEscapes { .. })),
                "{escaping}"
            );
        }
        assert_eq!(read_confined(&root, "inside/a.rs"), Ok(Some(b"a".to_vec())));
    }

    #[test]
    fn a_symlink_swapped_in_after_resolution_is_not_read_through() {
        let (_dir, root) = canonical_temp();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/a.rs"), "a").expect("write");
        let Ok(Place::Found(real)) = confine(&root, "src/a.rs") else {
            panic!("src/a.rs resolves");
        };
        // Between resolution and the read, `src` becomes a symlink to a
        // directory outside holding a file of the same name.
        let outside = tempfile::tempdir().expect("temp");
        std::fs::write(outside.path().join("a.rs"), "secret").expect("write");
        std::fs::remove_dir_all(root.join("src")).expect("rm");
        symlink(outside.path(), root.join("src")).expect("symlink");
        let reason = read_real(&root, &real, "src/a.rs").expect_err("refused");
        assert!(
            matches!(&reason, Reason::PathEscapes { detail } if detail.contains("nothing was read")),
            "{reason:?}"
        );
        // And the file itself swapped for a symlink.
        std::fs::remove_file(root.join("src")).expect("rm");
        std::fs::create_dir(root.join("src")).expect("mkdir");
        symlink(outside.path().join("a.rs"), root.join("src/a.rs")).expect("symlink");
        assert!(matches!(
            read_real(&root, &real, "src/a.rs"),
            Err(Reason::PathEscapes { .. })
        ));
    }
}
