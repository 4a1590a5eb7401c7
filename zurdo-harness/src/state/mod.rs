//! Per-PRD run state under `.zurdo/<slug>/`: the slug, the lock, the
//! progress log and `prd.json`.

pub mod lock;
pub mod progress;
pub mod run_state;

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

/// Hex SHA-1 of `bytes`.
pub fn sha1_hex(bytes: &[u8]) -> String {
    Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `<basename>-<first four hex digits of SHA-1(repo-relative path)>`, so the
/// same PRD always maps to the same directory and two `feature.md` files in
/// different folders do not collide.
pub fn slug(relative_path: &str) -> String {
    let name = Path::new(relative_path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}-{}", &sha1_hex(relative_path.as_bytes())[..4])
}

/// The files of one PRD's state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    /// `.zurdo/<slug>/`.
    pub dir: PathBuf,
    /// The slug.
    pub slug: String,
}

impl StateDir {
    /// The state directory of the PRD at `relative_path` under `root`.
    pub fn new(root: &Path, relative_path: &str) -> StateDir {
        let slug = slug(relative_path);
        StateDir {
            dir: root.join(".zurdo").join(&slug),
            slug,
        }
    }

    /// `prd.json`.
    pub fn prd_json(&self) -> PathBuf {
        self.dir.join("prd.json")
    }

    /// `policy.json`.
    pub fn policy_json(&self) -> PathBuf {
        self.dir.join("policy.json")
    }

    /// `config-at-run-start.toml`.
    pub fn config_at_run_start(&self) -> PathBuf {
        self.dir.join("config-at-run-start.toml")
    }

    /// `progress.log`.
    pub fn progress_log(&self) -> PathBuf {
        self.dir.join("progress.log")
    }

    /// `lock`.
    pub fn lock(&self) -> PathBuf {
        self.dir.join("lock")
    }

    /// `iterations/<task>-<n>.<ext>`.
    pub fn iteration_file(&self, task: &str, attempt: u32, ext: &str) -> PathBuf {
        self.dir
            .join("iterations")
            .join(format!("{task}-{attempt}.{ext}"))
    }

    /// `reason/`: this run's diagnosis blocks and reasoner transcripts.
    pub fn reason(&self) -> PathBuf {
        self.dir.join("reason")
    }

    /// `reports/`.
    pub fn reports(&self) -> PathBuf {
        self.dir.join("reports")
    }

    /// `.archive/`.
    pub fn archive(&self) -> PathBuf {
        self.dir.join(".archive")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_basename_and_path_hash() {
        // printf 'prds/feature.md' | sha1sum → 6b0a…
        assert_eq!(
            slug("prds/feature.md"),
            format!("feature-{}", &sha1_hex(b"prds/feature.md")[..4])
        );
        assert_ne!(slug("a/feature.md"), slug("b/feature.md"));
        assert_eq!(sha1_hex(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    }
}
