//! Per-PRD run state under `.zurdo/<slug>/`: the slug, the lock, `prd.json`
//! ([`run_state`]) and the files beside it. [`StateDir`] writes its own
//! files: the loop hands it bytes and gets back a [`WriteError`] naming
//! the file when one cannot be kept.

pub mod lock;
pub mod receipt;
pub mod review;
pub mod review_log;
pub mod run_state;

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use zurdo_base::dir::Dir;
use zurdo_base::files::{Durability, ReadError};

use crate::error::{Error, ErrorKind};
use crate::evidence::Baseline;
use lock::{Lock, LockError, Stale};
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

/// Most bytes of `prd.json` read back (a record far past any real run's;
/// larger is refused, not read).
pub const PRD_JSON_LIMIT: u64 = 256 * 1024 * 1024;

/// Most bytes of `progress.log` read back.
pub const LOG_LIMIT: u64 = 256 * 1024 * 1024;

/// Most bytes of the other small records read back (`config-at-run-start.toml`).
pub const RECORD_LIMIT: u64 = 16 * 1024 * 1024;

/// Most bytes of each of an attempt's `.out` and `.err` written as they
/// arrive: what the agent's run keeps from each stream's start
/// ([`zurdo::exec::Keep::GENEROUS`]). Past it the streamed file stops
/// growing; the copy written when the agent ends holds the head, a cut
/// line and the tail.
pub const AGENT_OUTPUT_STREAMED: u64 = zurdo::exec::Keep::GENEROUS.head as u64;

/// An attempt's `.out` and `.err`, written as the agent prints
/// ([`StateDir::stream_agent_output`]).
#[derive(Debug)]
pub struct AgentOutput {
    files: [Option<std::fs::File>; 2],
    paths: [PathBuf; 2],
    written: [u64; 2],
    limit: u64,
    error: Option<WriteError>,
}

impl AgentOutput {
    /// Appends `bytes` to the stream's file, up to the limit; a failed
    /// write stops that file (the first error is kept).
    pub fn write(&mut self, stream: zurdo::exec::Stream, bytes: &[u8]) {
        use std::io::Write;
        let i = match stream {
            zurdo::exec::Stream::Stdout => 0,
            zurdo::exec::Stream::Stderr => 1,
        };
        let room = self.limit.saturating_sub(self.written[i]);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        if take == 0 {
            return;
        }
        if let Some(file) = self.files[i].as_mut() {
            match file.write_all(&bytes[..take]) {
                Ok(()) => self.written[i] += take as u64,
                Err(source) => {
                    self.files[i] = None;
                    self.error.get_or_insert(WriteError {
                        path: self.paths[i].clone(),
                        source,
                    });
                }
            }
        }
    }

    /// The first error opening or writing the files, if any.
    pub fn error(&mut self) -> Option<WriteError> {
        self.error.take()
    }
}

/// A state file that could not be written.
#[derive(Debug)]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// The files of one PRD's state directory, `.zurdo/<slug>/`.
///
/// Every file is written and read through [`Dir`]: each directory from the
/// repository root down is opened without following a symlink, new files
/// are created exclusively and renamed into place, and appends refuse a
/// symlink. A symlink planted anywhere under `.zurdo/` (by an agent, say)
/// is refused or replaced, never written through.
#[derive(Debug, Clone)]
pub struct StateDir {
    /// `.zurdo/<slug>/`.
    pub dir: PathBuf,
    /// The slug.
    pub slug: String,
    /// The repository root.
    root: PathBuf,
}

impl StateDir {
    /// The state directory of the PRD at `relative_path` under `root`.
    pub fn new(root: &Path, relative_path: &str) -> StateDir {
        let slug = slug(relative_path);
        StateDir {
            dir: root.join(".zurdo").join(&slug),
            slug,
            root: root.to_path_buf(),
        }
    }

    /// The directory `sub` below `.zurdo/<slug>/` (created as needed, no
    /// symlink followed on the way).
    fn open(&self, sub: &[&str]) -> std::io::Result<Dir> {
        let mut names = vec![".zurdo", self.slug.as_str()];
        names.extend_from_slice(sub);
        Dir::open(&self.root)?.descend(&names, true)
    }

    /// Checks that `.zurdo/` and `.zurdo/<slug>/` are directories zurdo can
    /// use (creating them), refusing a symlink or a file in their place.
    pub fn check(&self) -> Result<(), Error> {
        self.open(&[])
            .map(|_| ())
            .map_err(|e| Error::new(ErrorKind::Io, e.to_string()))
    }

    fn write(
        &self,
        sub: &[&str],
        name: &str,
        bytes: &[u8],
        durability: Durability,
    ) -> Result<(), WriteError> {
        let mut path = self.dir.clone();
        path.extend(sub);
        path.push(name);
        self.open(sub)
            .and_then(|d| d.replace(name, bytes, durability))
            .map_err(|source| WriteError { path, source })
    }

    fn read(&self, sub: &[&str], name: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
        let dir = match self.open(sub) {
            Ok(dir) => dir,
            Err(e) => return Err(ReadError::Io(e)),
        };
        dir.read(name, limit)
    }

    /// `prd.json`.
    pub fn prd_json(&self) -> PathBuf {
        self.dir.join("prd.json")
    }

    /// `config-at-run-start.toml`.
    pub fn config_at_run_start(&self) -> PathBuf {
        self.dir.join("config-at-run-start.toml")
    }

    /// `progress.log`.
    pub fn progress_log(&self) -> PathBuf {
        self.dir.join("progress.log")
    }

    /// `review-log.jsonl`.
    pub fn review_log(&self) -> PathBuf {
        self.dir.join(review_log::FILE)
    }

    /// `review-log.jsonl` read back: `Ok(None)` when there is none yet, an
    /// error naming why it cannot be read (a symlink, a FIFO, past
    /// [`LOG_LIMIT`]).
    pub fn read_review_log(&self) -> Result<Option<Vec<u8>>, String> {
        match self.read(&[], review_log::FILE, LOG_LIMIT) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(format!("{}: {e}", self.review_log().display())),
        }
    }

    /// Appends one entry's line (a newline added) to `review-log.jsonl` in
    /// one write, synced. Unlike progress.log, a symlink, FIFO or device in
    /// its place is refused, never replaced: the chain is not restarted
    /// behind the reviewer's back.
    pub fn append_review(&self, line: &str) -> Result<(), WriteError> {
        let fail = |source| WriteError {
            path: self.review_log(),
            source,
        };
        let dir = self.open(&[]).map_err(fail)?;
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        dir.append(review_log::FILE, &bytes).map_err(fail)
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

    /// `reason/<name>.<ext>` as the report shows it (`.zurdo/<slug>/…`).
    pub fn reason_file_shown(&self, name: &str, ext: &str) -> String {
        format!(".zurdo/{}/reason/{name}.{ext}", self.slug)
    }

    /// `analyze-iterations/`: the `zurdo analyze --fix` trail, one
    /// directory per session.
    pub fn analyze_iterations(&self) -> PathBuf {
        self.dir.join("analyze-iterations")
    }

    /// A new session directory under `analyze-iterations/`, named by the
    /// time (`-2`, `-3`… when a session of that second exists); its name.
    pub fn new_analyze_session(&self) -> Result<String, WriteError> {
        let fail = |source| WriteError {
            path: self.analyze_iterations(),
            source,
        };
        let dir = self.open(&["analyze-iterations"]).map_err(fail)?;
        let taken = dir.names().map_err(fail)?;
        let stem = zurdo_base::time::now_for_file_name();
        let mut name = stem.clone();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{stem}-{n}");
        }
        dir.child(&name, true).map_err(fail)?;
        Ok(name)
    }

    /// One file of a `--fix` session's trail
    /// (`analyze-iterations/<session>/<name>`).
    pub fn write_analyze_file(
        &self,
        session: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), WriteError> {
        self.write(
            &["analyze-iterations", session],
            name,
            bytes,
            Durability::Unsynced,
        )
    }

    /// `heal-log.jsonl`: one JSON line per accepted heal.
    pub fn heal_log(&self) -> PathBuf {
        self.dir.join("heal-log.jsonl")
    }

    /// Appends one line to `heal-log.jsonl` (synced). As for `progress.log`,
    /// a symlink, FIFO or device in its place is removed, not followed, and
    /// a new log begins: `Ok(true)` says so.
    pub fn append_heal_log(&self, line: &[u8]) -> Result<bool, WriteError> {
        self.append_line("heal-log.jsonl", line)
    }

    /// `heal-log.jsonl` read back (empty when there is none or it cannot be
    /// read).
    pub fn read_heal_log(&self) -> Vec<u8> {
        self.read(&[], "heal-log.jsonl", LOG_LIMIT)
            .unwrap_or_default()
    }

    /// `reports/`.
    pub fn reports(&self) -> PathBuf {
        self.dir.join("reports")
    }

    /// `.archive/`.
    pub fn archive_dir(&self) -> PathBuf {
        self.dir.join(".archive")
    }

    /// Takes this PRD's lock (`lock`): one run at a time.
    pub fn lock(&self, on_stale: impl FnMut(Stale)) -> Result<Lock, LockError> {
        let dir = self.open(&[]).map_err(LockError::Io)?;
        Lock::acquire(dir, "lock", on_stale)
    }

    /// Reads `prd.json` and checks its MAC; `Ok(None)` when there is none.
    pub fn load(&self) -> Result<Option<run_state::Loaded>, Error> {
        let shown = self.prd_json();
        match self.read(&[], "prd.json", PRD_JSON_LIMIT) {
            Ok(bytes) => RunState::parse(&bytes, &shown).map(Some),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(Error::new(
                ErrorKind::Io,
                format!(
                    "{}: {e}; `zurdo run --reset` archives the state and starts over",
                    shown.display()
                ),
            )),
        }
    }

    /// Writes `prd.json` atomically.
    pub fn save(&self, state: &mut RunState) -> Result<(), WriteError> {
        let bytes = state.to_bytes().map_err(|source| WriteError {
            path: self.prd_json(),
            source,
        })?;
        self.write(&[], "prd.json", &bytes, Durability::Synced)
    }

    /// Appends one line to `progress.log` (synced). A symlink, FIFO or
    /// device planted in its place is removed, not followed, and a new log
    /// begins: `Ok(true)` says so.
    pub fn append_log(&self, line: &[u8]) -> Result<bool, WriteError> {
        self.append_line("progress.log", line)
    }

    /// Appends `line` to the log `name` in the state directory (synced).
    /// Something not a regular file in its place (a symlink, FIFO or
    /// device) is removed, not followed, and a new log begins: `Ok(true)`.
    fn append_line(&self, name: &str, line: &[u8]) -> Result<bool, WriteError> {
        let fail = |source| WriteError {
            path: self.dir.join(name),
            source,
        };
        let dir = self.open(&[]).map_err(fail)?;
        match dir.append(name, line) {
            Ok(()) => Ok(false),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
                dir.remove(name).map_err(fail)?;
                dir.append(name, line).map_err(fail)?;
                Ok(true)
            }
            Err(e) => Err(fail(e)),
        }
    }

    /// `progress.log` read back (empty when there is none or it cannot be
    /// read: a symlink, a FIFO, or past [`LOG_LIMIT`]).
    pub fn read_log(&self) -> Vec<u8> {
        self.read(&[], "progress.log", LOG_LIMIT)
            .unwrap_or_default()
    }

    /// The prompt of an attempt (`iterations/<task>-<n>.prompt`).
    pub fn write_prompt(&self, task: &str, attempt: u32, prompt: &str) -> Result<(), WriteError> {
        let name = format!("{task}-{attempt}.prompt");
        self.write(
            &["iterations"],
            &name,
            prompt.as_bytes(),
            Durability::Unsynced,
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
        let out = format!("{task}-{attempt}.out");
        let err = format!("{task}-{attempt}.err");
        self.write(&["iterations"], &out, stdout, Durability::Unsynced)?;
        self.write(&["iterations"], &err, stderr, Durability::Unsynced)
    }

    /// Starts `.out` and `.err` of an attempt empty and keeps them open, so
    /// what the agent prints is written as it arrives (`tail -f` follows a
    /// running attempt; a killed one leaves what it printed). When the agent
    /// ends, [`StateDir::write_agent_output`] replaces both with the copy
    /// kept in memory. A file that cannot be opened (a symlink planted in
    /// its place) is not streamed; the error is kept for the caller.
    pub fn stream_agent_output(&self, task: &str, attempt: u32) -> AgentOutput {
        let mut output = AgentOutput {
            files: [None, None],
            paths: [
                self.iteration_file(task, attempt, "out"),
                self.iteration_file(task, attempt, "err"),
            ],
            written: [0, 0],
            limit: AGENT_OUTPUT_STREAMED,
            error: None,
        };
        for (i, ext) in ["out", "err"].iter().enumerate() {
            let name = format!("{task}-{attempt}.{ext}");
            let opened = self.open(&["iterations"]).and_then(|d| {
                d.replace(&name, b"", Durability::Unsynced)?;
                d.open_append(&name)
            });
            match opened {
                Ok(file) => output.files[i] = Some(file),
                Err(source) => {
                    output.error.get_or_insert(WriteError {
                        path: self.iteration_file(task, attempt, ext),
                        source,
                    });
                }
            }
        }
        output
    }

    /// What an attempt's agent printed, read back (empty when missing or
    /// not a regular file within [`LOG_LIMIT`]).
    pub fn read_agent_output(&self, task: &str, attempt: u32) -> (String, String) {
        let read = |ext: &str| {
            let name = format!("{task}-{attempt}.{ext}");
            self.read(&["iterations"], &name, LOG_LIMIT)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        (read("out"), read("err"))
    }

    /// The run-start snapshot (`baseline`).
    pub fn write_baseline(&self, baseline: &Baseline) -> Result<(), WriteError> {
        let text = serde_json::to_string_pretty(baseline).unwrap_or_default();
        self.write(&[], "baseline", text.as_bytes(), Durability::Unsynced)
    }

    /// The policy document (`policy.json`) and the config it came from
    /// (`config-at-run-start.toml`).
    pub fn write_policy(&self, policy: &str, config_text: &str) -> Result<(), WriteError> {
        self.write(&[], "policy.json", policy.as_bytes(), Durability::Synced)?;
        self.write(
            &[],
            "config-at-run-start.toml",
            config_text.as_bytes(),
            Durability::Synced,
        )
    }

    /// `policy.json`, when it reads.
    pub fn read_policy(&self) -> Option<String> {
        let bytes = self.read(&[], "policy.json", RECORD_LIMIT).ok()?;
        String::from_utf8(bytes).ok()
    }

    /// `config-at-run-start.toml`, when it reads.
    pub fn read_config_at_run_start(&self) -> Option<String> {
        let bytes = self
            .read(&[], "config-at-run-start.toml", RECORD_LIMIT)
            .ok()?;
        String::from_utf8(bytes).ok()
    }

    /// Everything the run changed (`run-diff.patch`).
    pub fn write_run_diff(&self, patch: &[u8]) -> Result<(), WriteError> {
        self.write(&[], "run-diff.patch", patch, Durability::Unsynced)
    }

    /// A reasoner's prompt, transcript or block (`reason/<name>.<ext>`).
    pub fn write_reason_file(&self, name: &str, ext: &str, bytes: &[u8]) -> Result<(), WriteError> {
        let file = format!("{name}.{ext}");
        self.write(&["reason"], &file, bytes, Durability::Unsynced)
    }

    /// Writes a report pair into `reports/`: `<stem>.md` and `<stem>.json`,
    /// or `<stem>-2`, `-3`… when a report of that name exists (two reports
    /// in one second must not overwrite each other). Returns their paths.
    pub fn write_report(
        &self,
        stem: &str,
        markdown: &[u8],
        json: &[u8],
    ) -> Result<(PathBuf, PathBuf), WriteError> {
        let reports = self.reports();
        let dir = self.open(&["reports"]).map_err(|source| WriteError {
            path: reports.clone(),
            source,
        })?;
        let taken = dir.names().unwrap_or_default();
        let mut n = 1u32;
        let name = loop {
            let name = if n == 1 {
                stem.to_string()
            } else {
                format!("{stem}-{n}")
            };
            if !taken.contains(&format!("{name}.md")) && !taken.contains(&format!("{name}.json")) {
                break name;
            }
            n += 1;
        };
        let (md, js) = (format!("{name}.md"), format!("{name}.json"));
        for (file, bytes) in [(&js, json), (&md, markdown)] {
            dir.replace(file, bytes, Durability::Unsynced)
                .map_err(|source| WriteError {
                    path: reports.join(file),
                    source,
                })?;
        }
        Ok((reports.join(md), reports.join(js)))
    }

    /// Moves everything but the lock and the archive into
    /// `.archive/<timestamp>/` (a reset starts over, losing nothing).
    pub fn archive(&self) -> Result<(), Error> {
        let io = |e: std::io::Error| Error::new(ErrorKind::Io, e.to_string());
        let state = self.open(&[]).map_err(io)?;
        let archive = state.child(".archive", true).map_err(io)?;
        let taken = archive.names().map_err(io)?;
        let stem = zurdo_base::time::now_for_file_name();
        let mut name = stem.clone();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{stem}-{n}");
        }
        let target = archive.child(&name, true).map_err(io)?;
        for entry in state.names().map_err(io)? {
            if entry == "lock" || entry == ".archive" {
                continue;
            }
            state.rename_into(&entry, &target, &entry).map_err(io)?;
        }
        Ok(())
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

    #[test]
    fn archive_keeps_the_lock_and_never_overwrites() {
        let root = tempfile::tempdir().expect("temp");
        let dir = StateDir::new(root.path(), "prds/p.md");
        for round in 0..2 {
            std::fs::create_dir_all(dir.dir.join("iterations")).expect("mkdir");
            std::fs::write(dir.prd_json(), format!("{round}")).expect("write");
            std::fs::write(dir.dir.join("lock"), "1 x").expect("write");
            dir.archive().expect("archive");
            assert!(dir.dir.join("lock").is_file() && !dir.prd_json().exists());
        }
        let archived: Vec<_> = std::fs::read_dir(dir.archive_dir())
            .expect("ls")
            .flatten()
            .collect();
        assert_eq!(archived.len(), 2, "two resets, two archives");
        // A symlink where a directory should be: refused, and nothing
        // written through it.
        let outside = tempfile::tempdir().expect("temp");
        std::fs::remove_dir_all(dir.dir.join("iterations")).ok();
        std::os::unix::fs::symlink(outside.path(), dir.dir.join("iterations")).expect("plant");
        let e = dir.write_prompt("task-1", 1, "hi").expect_err("refused");
        assert!(e.path.ends_with("iterations/task-1-1.prompt"), "{e:?}");
        assert!(
            e.source.to_string().contains("is a symlink"),
            "{}",
            e.source
        );
        assert_eq!(std::fs::read_dir(outside.path()).expect("ls").count(), 0);
    }
}
