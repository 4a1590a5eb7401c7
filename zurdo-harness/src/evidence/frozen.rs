//! Frozen paths: files no attempt may modify. The set is the task's
//! `**Frozen**` globs ∪ `[verification] protected_paths` ∪ the toolchain
//! defaults. Enforcement hashes every regular file the globs match (so a
//! gitignored frozen file is enforced too), never walking `.git/` or
//! `.zurdo/`, and compares the hashes after each attempt with the task's
//! baseline. Past [`MAX_FILES`] matched files it stands down with one
//! warning rather than slow every iteration.

use std::collections::BTreeMap;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use sha2::{Digest, Sha256};

/// The five files a verifier's toolchain depends on, frozen in every task:
/// the Rust toolchain pin (both spellings), Cargo's config (both spellings),
/// and `.tool-versions` (asdf/mise pins for go, node, python…).
pub const TOOLCHAIN_DEFAULTS: [&str; 5] = [
    "rust-toolchain.toml",
    "rust-toolchain",
    ".cargo/config.toml",
    ".cargo/config",
    ".tool-versions",
];

/// Above this many matched files the second leg stands down.
pub const MAX_FILES: usize = 20_000;

/// Directories never walked.
const SKIPPED: [&str; 2] = [".git", ".zurdo"];

/// Path → SHA-256 of every frozen file.
pub type Snapshot = BTreeMap<String, String>;

/// A compiled set of frozen globs.
#[derive(Debug, Clone)]
pub struct Frozen {
    patterns: Vec<String>,
    set: GlobSet,
}

/// Why a snapshot could not be taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandDown {
    /// More than [`MAX_FILES`] files match.
    TooMany(usize),
}

impl Frozen {
    /// The task's globs, the run-wide protected paths and the defaults.
    /// Globs were validated when the PRD and config were read; an invalid
    /// one is skipped.
    pub fn new<'a>(task: impl IntoIterator<Item = &'a String>, protected: &[String]) -> Frozen {
        let mut patterns: Vec<String> = TOOLCHAIN_DEFAULTS.iter().map(|s| s.to_string()).collect();
        patterns.extend(task.into_iter().cloned());
        patterns.extend(protected.iter().cloned());
        patterns.sort();
        patterns.dedup();
        let mut builder = GlobSetBuilder::new();
        for p in &patterns {
            if let Ok(glob) = GlobBuilder::new(p).literal_separator(true).build() {
                builder.add(glob);
            }
        }
        let set = builder.build().unwrap_or_else(|_| GlobSet::empty());
        Frozen { patterns, set }
    }

    /// The globs in force.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The paths among `paths` the globs match.
    pub fn matching(&self, paths: &[String]) -> Vec<String> {
        paths
            .iter()
            .filter(|p| self.set.is_match(p.as_str()))
            .cloned()
            .collect()
    }

    /// Hashes every regular file under `root` the globs match.
    pub fn snapshot(&self, root: &Path) -> Result<Snapshot, StandDown> {
        let mut found = Snapshot::new();
        let mut starts: Vec<String> = self
            .patterns
            .iter()
            .map(|p| literal_prefix(p).to_string())
            .collect();
        starts.sort();
        starts.dedup();
        // A start inside another start is walked by the outer one.
        let starts: Vec<String> = starts
            .iter()
            .filter(|s| {
                !starts
                    .iter()
                    .any(|o| o != *s && (o.is_empty() || s.starts_with(&format!("{o}/"))))
            })
            .cloned()
            .collect();
        for start in starts {
            self.walk(root, &start, &mut found)?;
        }
        Ok(found)
    }

    fn walk(&self, root: &Path, relative: &str, found: &mut Snapshot) -> Result<(), StandDown> {
        if relative
            .split('/')
            .next()
            .is_some_and(|first| SKIPPED.contains(&first))
        {
            return Ok(());
        }
        let full = if relative.is_empty() {
            root.to_path_buf()
        } else {
            root.join(relative)
        };
        let Ok(meta) = std::fs::symlink_metadata(&full) else {
            return Ok(());
        };
        if meta.is_file() {
            if self.set.is_match(relative) {
                if found.len() >= MAX_FILES {
                    return Err(StandDown::TooMany(found.len() + 1));
                }
                if let Ok(bytes) = std::fs::read(&full) {
                    found.insert(
                        relative.to_string(),
                        Sha256::digest(&bytes)
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect(),
                    );
                }
            }
            return Ok(());
        }
        if !meta.is_dir() {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(&full) else {
            return Ok(());
        };
        let mut names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            if SKIPPED.contains(&name.as_str()) {
                continue;
            }
            let child = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            self.walk(root, &child, found)?;
        }
        Ok(())
    }
}

/// The directory part of a glob before its first metacharacter (the whole
/// pattern when it has none: a literal file).
fn literal_prefix(glob: &str) -> &str {
    match glob.find(['*', '?', '[', '{']) {
        Some(meta) => glob[..meta].rfind('/').map_or("", |slash| &glob[..slash]),
        None => glob,
    }
}

/// Paths added, changed or removed between two snapshots.
pub fn changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, h)| before.get(*p) != Some(*h))
        .map(|(p, _)| p.clone())
        .chain(before.keys().filter(|p| !after.contains_key(*p)).cloned())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_follow_globs_and_defaults_and_skip_state_dirs() {
        let dir = tempfile::tempdir().expect("temp");
        let root = dir.path();
        for (path, text) in [
            ("docs/adr/1.md", "a"),
            ("docs/adr/deep/2.md", "b"),
            ("docs/other.md", "c"),
            ("rust-toolchain.toml", "[toolchain]"),
            (".zurdo/x/prd.json", "{}"),
            ("target/gen.rs", "ignored but frozen"),
        ] {
            std::fs::create_dir_all(root.join(path).parent().expect("parent")).expect("mkdir");
            std::fs::write(root.join(path), text).expect("write");
        }
        let frozen = Frozen::new(
            &["docs/adr/*.md".to_string()],
            &["target/**".to_string(), ".zurdo/**".to_string()],
        );
        let snap = frozen.snapshot(root).expect("snapshot");
        let paths: Vec<&str> = snap.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            ["docs/adr/1.md", "rust-toolchain.toml", "target/gen.rs"],
            "* stays in one segment; .zurdo never walked"
        );
        std::fs::write(root.join("docs/adr/1.md"), "changed").expect("write");
        std::fs::remove_file(root.join("target/gen.rs")).expect("rm");
        std::fs::write(root.join("docs/adr/3.md"), "new").expect("write");
        let after = frozen.snapshot(root).expect("snapshot");
        assert_eq!(
            changes(&snap, &after),
            ["docs/adr/1.md", "docs/adr/3.md", "target/gen.rs"]
        );
    }

    #[test]
    fn too_many_files_stand_down() {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir(dir.path().join("many")).expect("mkdir");
        for i in 0..=MAX_FILES {
            std::fs::write(dir.path().join(format!("many/{i}")), "").expect("write");
        }
        let frozen = Frozen::new(&["many/*".to_string()], &[]);
        assert!(matches!(
            frozen.snapshot(dir.path()),
            Err(StandDown::TooMany(_))
        ));
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("docs/adr/*.md"), "docs/adr");
        assert_eq!(literal_prefix("**/*.lock"), "");
        assert_eq!(literal_prefix("rust-toolchain.toml"), "rust-toolchain.toml");
    }
}
