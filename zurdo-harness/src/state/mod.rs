//! Per-PRD run state under `.zurdo/<slug>/`: the slug, the lock, `prd.json`
//! ([`run_state`]) and the files beside it. [`StateDir`] writes its own
//! files: the loop hands it bytes and gets back a [`WriteError`] naming
//! the file when one cannot be kept.

pub mod lock;
pub mod run_state;

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::error::{Error, ErrorKind};
use crate::evidence::Baseline;
use run_state::RunState;

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

/// A state file that could not be written.
#[derive(Debug)]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
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

    /// `reason/<name>.<ext>`.
    pub fn reason_file(&self, name: &str, ext: &str) -> PathBuf {
        self.reason().join(format!("{name}.{ext}"))
    }

    /// `reason/<name>.<ext>` as the report shows it (`.zurdo/<slug>/…`).
    pub fn reason_file_shown(&self, name: &str, ext: &str) -> String {
        format!(".zurdo/{}/reason/{name}.{ext}", self.slug)
    }

    /// `reports/`.
    pub fn reports(&self) -> PathBuf {
        self.dir.join("reports")
    }

    /// `.archive/`.
    pub fn archive_dir(&self) -> PathBuf {
        self.dir.join(".archive")
    }

    /// Reads `prd.json`; `Ok(None)` when there is none.
    pub fn load(&self) -> Result<Option<RunState>, Error> {
        RunState::load(&self.prd_json())
    }

    /// Writes `prd.json` atomically.
    pub fn save(&self, state: &mut RunState) -> Result<(), WriteError> {
        let path = self.prd_json();
        state
            .save(&path)
            .map_err(|source| WriteError { path, source })
    }

    /// The prompt of an attempt (`iterations/<task>-<n>.prompt`).
    pub fn write_prompt(&self, task: &str, attempt: u32, prompt: &str) -> Result<(), WriteError> {
        put(
            &self.iteration_file(task, attempt, "prompt"),
            prompt.as_bytes(),
        )
    }

    /// What an attempt's agent printed (`.out` and `.err`).
    pub fn write_agent_output(
        &self,
        task: &str,
        attempt: u32,
        stdout: &[u8],
        stderr: &[u8],
    ) -> Result<(), WriteError> {
        put(&self.iteration_file(task, attempt, "out"), stdout)?;
        put(&self.iteration_file(task, attempt, "err"), stderr)
    }

    /// What an attempt's agent printed, read back (empty when missing).
    pub fn read_agent_output(&self, task: &str, attempt: u32) -> (String, String) {
        let read = |ext: &str| {
            std::fs::read(self.iteration_file(task, attempt, ext))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        (read("out"), read("err"))
    }

    /// The run-start snapshot (`baseline`).
    pub fn write_baseline(&self, baseline: &Baseline) -> Result<(), WriteError> {
        let text = serde_json::to_string_pretty(baseline).unwrap_or_default();
        put(&self.dir.join("baseline"), text.as_bytes())
    }

    /// The policy document (`policy.json`) and the config it came from
    /// (`config-at-run-start.toml`).
    pub fn write_policy(&self, policy: &str, config_text: &str) -> Result<(), WriteError> {
        put(&self.policy_json(), policy.as_bytes())?;
        put(&self.config_at_run_start(), config_text.as_bytes())
    }

    /// `config-at-run-start.toml`, when it reads.
    pub fn read_config_at_run_start(&self) -> Option<String> {
        std::fs::read_to_string(self.config_at_run_start()).ok()
    }

    /// Everything the run changed (`run-diff.patch`).
    pub fn write_run_diff(&self, patch: &[u8]) -> Result<(), WriteError> {
        put(&self.dir.join("run-diff.patch"), patch)
    }

    /// A reasoner's prompt, transcript or block (`reason/<name>.<ext>`).
    pub fn write_reason_file(&self, name: &str, ext: &str, bytes: &[u8]) -> Result<(), WriteError> {
        put(&self.reason_file(name, ext), bytes)
    }

    /// Moves everything but the lock and the archive into
    /// `.archive/<timestamp>/` (a reset starts over, losing nothing).
    pub fn archive(&self) -> Result<(), Error> {
        let target = unique(&self.archive_dir(), &zurdo_base::time::now_for_file_name());
        let io =
            |what: String, e: std::io::Error| Error::new(ErrorKind::Io, format!("{what}: {e}"));
        std::fs::create_dir_all(&target).map_err(|e| io(target.display().to_string(), e))?;
        let entries =
            std::fs::read_dir(&self.dir).map_err(|e| io(self.dir.display().to_string(), e))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name == "lock" || name == ".archive" {
                continue;
            }
            std::fs::rename(entry.path(), target.join(&name))
                .map_err(|e| io(format!("cannot archive {}", entry.path().display()), e))?;
        }
        Ok(())
    }
}

/// Writes `path`, creating its directory.
fn put(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let written = match path.parent() {
        Some(dir) => std::fs::create_dir_all(dir).and_then(|_| std::fs::write(path, bytes)),
        None => std::fs::write(path, bytes),
    };
    written.map_err(|source| WriteError {
        path: path.to_path_buf(),
        source,
    })
}

/// `dir/<stem>`, or `dir/<stem>-2`, `-3`… when that exists (two resets in
/// the same second must not overwrite each other).
fn unique(dir: &Path, stem: &str) -> PathBuf {
    let mut candidate = dir.join(stem);
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = dir.join(format!("{stem}-{n}"));
    }
    candidate
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

    #[test]
    fn archive_keeps_the_lock_and_never_overwrites() {
        let root = tempfile::tempdir().expect("temp");
        let dir = StateDir::new(root.path(), "prds/p.md");
        for round in 0..2 {
            std::fs::create_dir_all(dir.dir.join("iterations")).expect("mkdir");
            std::fs::write(dir.prd_json(), format!("{round}")).expect("write");
            std::fs::write(dir.lock(), "1 x").expect("write");
            dir.archive().expect("archive");
            assert!(dir.lock().is_file() && !dir.prd_json().exists());
        }
        let archived: Vec<_> = std::fs::read_dir(dir.archive_dir())
            .expect("ls")
            .flatten()
            .collect();
        assert_eq!(archived.len(), 2, "two resets, two archives");
        // A file where a directory should be: the error names the file.
        std::fs::write(root.path().join("blocker"), "file").expect("write");
        let e = put(&root.path().join("blocker/x"), b"y");
        assert!(e.is_err_and(|e| e.path.ends_with("blocker/x")));
    }
}
