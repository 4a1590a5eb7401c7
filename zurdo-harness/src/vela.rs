//! Vela, the optional watcher: one daemon per repository that publishes a
//! fresh Lumen generation whenever source files change, so a run finds a
//! warm index. It never changes a verdict: structural checks repair the
//! index in-process either way; Vela only saves them the work.
//!
//! - **One per repository.** A PID lock at `.zurdo/vela/pid` (holding
//!   `<pid> <RFC 3339 start>`) arbitrates; a second daemon exits 3 with
//!   "another vela (pid N) watches this repository". A lock whose process is
//!   gone is stale and taken over.
//! - **The log.** `.zurdo/vela/vela.log`, appended, one line per event with
//!   an RFC 3339 timestamp: started, each publish, each failed refresh or
//!   publish, idle exit, signal exit. The daemon never writes to stdout or
//!   stderr once running.
//! - **The loop.** At start: load the published generation, refresh it and
//!   publish when anything changed (or no generation exists). Then every
//!   poll interval a cheap stamp of the tree (each source file's path,
//!   length and mtime, hashed) is compared with the last one; only when it
//!   differs is the in-memory index refreshed and, when that changed it,
//!   published. A failed publish is logged, the previous generation stays,
//!   and the next change (or a retry every 30 s) publishes again.
//! - **Idle exit.** After the idle time with no change the daemon exits 0.
//!   SIGTERM and SIGINT stop it cleanly (within ~100 ms).
//!
//! Environment overrides (for tests and power users; invalid or zero values
//! are ignored):
//!
//! - `ZURDO_VELA_IDLE_MS`: the idle time in milliseconds (default 30 minutes).
//! - `ZURDO_VELA_POLL_MS`: the poll interval in milliseconds (default 1 s).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use zurdo_lumen::Index;

use zurdo_base::dir::Dir;

use crate::error::{Error, ErrorKind};
use crate::state::lock::{Lock, LockError};

/// Vela's directory, relative to the repository root.
pub const DIR: &str = ".zurdo/vela";

/// The PID lock's file name under [`DIR`].
pub const PID_FILE: &str = "pid";

/// The log's file name under [`DIR`].
pub const LOG_FILE: &str = "vela.log";

/// The environment variable overriding the idle time (milliseconds).
pub const IDLE_ENV: &str = "ZURDO_VELA_IDLE_MS";

/// The environment variable overriding the poll interval (milliseconds).
pub const POLL_ENV: &str = "ZURDO_VELA_POLL_MS";

/// The longest single sleep, so a stop is noticed promptly.
const SLICE: Duration = Duration::from_millis(100);

/// How long after a failed publish it is retried when nothing changes.
const RETRY: Duration = Duration::from_secs(30);

/// A log larger than this is moved to `vela.log.old` when a daemon starts.
const LOG_MAX_BYTES: u64 = 1024 * 1024;

/// How the daemon runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Exit after this long with no change.
    pub idle: Duration,
    /// How often the tree is checked for changes.
    pub poll: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            idle: Duration::from_secs(30 * 60),
            poll: Duration::from_secs(1),
        }
    }
}

impl Settings {
    /// The defaults with [`IDLE_ENV`] and [`POLL_ENV`] applied (invalid or
    /// zero values are ignored).
    pub fn from_env() -> Settings {
        Settings::from_lookup(|name| std::env::var(name).ok())
    }

    /// `idle` (from `[vela] idle_minutes`) with [`IDLE_ENV`] and
    /// [`POLL_ENV`] applied on top.
    pub fn with_idle(idle: Duration) -> Settings {
        let env = Settings::from_env();
        Settings {
            idle: millis(std::env::var(IDLE_ENV).ok()).unwrap_or(idle),
            poll: env.poll,
        }
    }

    /// The defaults with the overrides `lookup` returns for [`IDLE_ENV`] and
    /// [`POLL_ENV`].
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Settings {
        let defaults = Settings::default();
        Settings {
            idle: millis(lookup(IDLE_ENV)).unwrap_or(defaults.idle),
            poll: millis(lookup(POLL_ENV)).unwrap_or(defaults.poll),
        }
    }
}

/// A positive number of milliseconds.
fn millis(value: Option<String>) -> Option<Duration> {
    value?
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
}

/// The daemon holding the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// Its pid.
    pub pid: u32,
    /// When it started (RFC 3339, as written in the lock).
    pub since: String,
}

/// What `zurdo vela status` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The live daemon, if one holds the lock.
    pub running: Option<Running>,
    /// The published Lumen generation, if any.
    pub generation: Option<u64>,
}

/// The PID lock's path.
pub fn pid_path(root: &Path) -> PathBuf {
    root.join(DIR).join(PID_FILE)
}

/// The log's path.
pub fn log_path(root: &Path) -> PathBuf {
    root.join(DIR).join(LOG_FILE)
}

/// What the PID lock names (whether or not that process lives), or `None`
/// when there is no readable lock.
pub fn holder(root: &Path) -> Option<Running> {
    let bytes = zurdo_base::files::read_bounded_nofollow(&pid_path(root), 4096).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut words = text.split_whitespace();
    let pid = words.next()?.parse::<u32>().ok()?;
    let since = words.next().unwrap_or("?").to_string();
    Some(Running { pid, since })
}

/// True when `pid` is a running process: it exists and (where `/proc` tells)
/// is not a zombie waiting to be reaped.
pub fn live(pid: u32) -> bool {
    if !crate::state::lock::alive(pid) {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses and
        // may itself hold spaces or parentheses.
        Ok(stat) => !matches!(
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next()),
            Some("Z" | "X")
        ),
        Err(_) => true,
    }
}

/// Whether a daemon runs and the published generation.
pub fn status(root: &Path) -> Status {
    Status {
        running: holder(root).filter(|h| live(h.pid)),
        generation: published_generation(root),
    }
}

/// The generation `.zurdo/lumen/CURRENT` names (`gen-00000007-1234.json`
/// → 7), if any.
pub fn published_generation(root: &Path) -> Option<u64> {
    let name = std::fs::read_to_string(root.join(zurdo_lumen::index::DIR).join("CURRENT")).ok()?;
    name.trim()
        .strip_prefix("gen-")?
        .split(['-', '.'])
        .next()?
        .parse()
        .ok()
}

/// A cheap fingerprint of the source tree: every file a refresh reads, with
/// its length and modification time. It changes when a source file is
/// edited, added or removed.
pub fn stamp(root: &Path) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    for (path, _) in zurdo_lumen::index::sources(root) {
        path.hash(&mut hasher);
        match std::fs::metadata(root.join(&path)) {
            Ok(meta) => {
                meta.len().hash(&mut hasher);
                meta.modified().ok().hash(&mut hasher);
            }
            Err(_) => u64::MAX.hash(&mut hasher),
        }
    }
    hasher.finish()
}

/// The log: one line per event, appended (never through a symlink: the
/// directory is held open); failures to write are ignored (the daemon has
/// nowhere else to report them).
struct Log {
    dir: Dir,
}

impl Log {
    fn line(&self, message: &str) {
        let line = format!("{} {message}\n", zurdo_base::time::now());
        let _ = self.dir.append(LOG_FILE, line.as_bytes());
    }

    /// The last `n` lines.
    fn tail(path: &Path, n: usize) -> Vec<String> {
        let bytes =
            zurdo_base::files::read_bounded_nofollow(path, 2 * LOG_MAX_BYTES).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| l.to_string())
            .collect()
    }
}

/// The last `n` lines of the log under `root` (for `zurdo vela start` when
/// the daemon did not come up).
pub fn log_tail(root: &Path, n: usize) -> Vec<String> {
    Log::tail(&log_path(root), n)
}

/// Removes a lock naming a process that is gone or a zombie (which the
/// lock itself would take for alive), so the daemon about to start can take
/// it.
fn clear_dead_lock(log: &Log) {
    let read = || {
        log.dir
            .read(PID_FILE, 4096)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let Some(text) = read() else {
        return;
    };
    let Some(pid) = text
        .split_whitespace()
        .next()
        .and_then(|p| p.parse::<u32>().ok())
    else {
        return;
    };
    if pid == std::process::id() || live(pid) {
        return;
    }
    // Only the lock as read: another daemon may just have replaced it.
    if read().is_some_and(|again| again == text) {
        log.line(&format!(
            "taking over a stale lock ({}; that process is gone)",
            text.trim()
        ));
        let _ = log.dir.remove(PID_FILE);
    }
}

/// `idle` in minutes, as written in the log (`30`, `0.005`).
fn minutes(idle: Duration) -> String {
    let text = format!("{:.4}", idle.as_secs_f64() / 60.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text.is_empty() {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// The index kept in memory between polls, and whether it holds changes
/// not yet published.
struct Watcher<'a> {
    root: &'a Path,
    index: Index,
    pending: bool,
    retry_at: Instant,
    log: &'a Log,
}

impl Watcher<'_> {
    /// Refreshes the index and publishes it when it changed (or `publish`
    /// is asked for, or an earlier publish failed).
    fn update(&mut self, publish: bool) {
        let refreshed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.index.refresh(self.root)
        }));
        let stats = match refreshed {
            Ok(stats) => stats,
            Err(_) => {
                // The in-memory index may be half-updated: start again
                // from what is published.
                self.index = Index::load(self.root);
                self.pending = true;
                self.retry_at = Instant::now() + RETRY;
                self.log
                    .line("refresh failed (a parser panicked); the previous generation stays");
                return;
            }
        };
        if !(stats.changed() || publish || self.pending) {
            return;
        }
        let before = self.index.generation;
        match self.index.publish(self.root) {
            Ok(_) => {
                self.pending = false;
                self.log.line(&format!(
                    "published generation {}: {} parsed, {} reused, {} removed in {:.1} ms",
                    self.index.generation,
                    stats.parsed,
                    stats.reused,
                    stats.removed,
                    stats.elapsed.as_secs_f64() * 1000.0
                ));
            }
            Err(e) => {
                self.index.generation = before;
                self.pending = true;
                self.retry_at = Instant::now() + RETRY;
                self.log.line(&format!(
                    "cannot publish a new generation under {}: {e}; the previous generation stays",
                    self.root.join(zurdo_lumen::index::DIR).display()
                ));
            }
        }
    }
}

/// The daemon: takes the lock and keeps Lumen's published generation fresh
/// until idle or signalled. An error when another daemon watches `root`
/// ([`ErrorKind::LockHeld`]) or the lock cannot be taken.
pub fn serve(root: &Path, settings: Settings) -> Result<(), Error> {
    let open = || Dir::open(root).and_then(|d| d.descend(&[".zurdo", "vela"], true));
    let (dir, lock_dir) = match (open(), open()) {
        (Ok(dir), Ok(lock_dir)) => (dir, lock_dir),
        (Err(e), _) | (_, Err(e)) => {
            return Err(Error::failed(format!(
                "cannot use {}: {e}",
                root.join(DIR).display()
            )))
        }
    };
    let log = Log { dir };
    clear_dead_lock(&log);
    let lock = match Lock::acquire(lock_dir, PID_FILE, |stale| log.line(&stale.to_string())) {
        Ok(lock) => lock,
        Err(LockError::Held { pid, .. }) => {
            let message = format!("another vela (pid {pid}) watches this repository");
            log.line(&message);
            return Err(Error::new(ErrorKind::LockHeld, message));
        }
        Err(e) => {
            let message = format!("cannot take {}: {e}", pid_path(root).display());
            log.line(&message);
            return Err(Error::failed(message));
        }
    };
    // Rotate an overgrown log (only the lock holder does).
    if log
        .dir
        .stat(LOG_FILE)
        .ok()
        .flatten()
        .is_some_and(|e| e.len > LOG_MAX_BYTES)
    {
        let _ = log.dir.rename(LOG_FILE, &format!("{LOG_FILE}.old"));
    }
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        if let Err(e) = signal_hook::flag::register(signal, Arc::clone(&stop)) {
            log.line(&format!("warning: cannot watch for signal {signal}: {e}"));
        }
    }
    log.line(&format!(
        "started: pid {}, root {}, idle_minutes {}, poll {} ms",
        std::process::id(),
        root.display(),
        minutes(settings.idle),
        settings.poll.as_millis()
    ));

    let mut last_stamp = stamp(root);
    let mut watcher = Watcher {
        root,
        index: Index::load(root),
        pending: false,
        retry_at: Instant::now(),
        log: &log,
    };
    let first = watcher.index.generation == 0
        || !root.join(zurdo_lumen::index::DIR).join("CURRENT").is_file();
    watcher.update(first);
    if !watcher.pending && !first {
        log.line(&format!(
            "generation {} is current",
            published_generation(root).unwrap_or(watcher.index.generation)
        ));
    }

    let mut last_change = Instant::now();
    let later = |d: Duration| Instant::now().checked_add(d).unwrap_or_else(Instant::now);
    let mut next_poll = later(settings.poll);
    loop {
        if stop.load(Ordering::SeqCst) {
            log.line("stopped by a signal; exiting");
            return Ok(());
        }
        let now = Instant::now();
        let idle_left = settings
            .idle
            .saturating_sub(now.duration_since(last_change));
        if idle_left.is_zero() {
            log.line(&format!(
                "idle for {} minutes with no change; exiting",
                minutes(settings.idle)
            ));
            return Ok(());
        }
        if now < next_poll {
            std::thread::sleep(SLICE.min(next_poll - now).min(idle_left));
            continue;
        }
        next_poll = now + settings.poll;
        if !root.is_dir() {
            log.line("the repository is gone; exiting");
            return Ok(());
        }
        if holder(root).is_none_or(|h| h.pid != std::process::id()) {
            // Someone removed or replaced the lock: it is no longer ours to
            // remove, and another daemon may now watch the repository.
            std::mem::forget(lock);
            log.line("the pid lock is gone or names another process; exiting");
            return Ok(());
        }
        let stamp = stamp(root);
        if stamp != last_stamp {
            last_stamp = stamp;
            last_change = Instant::now();
            watcher.update(false);
        } else if watcher.pending && Instant::now() >= watcher.retry_at {
            watcher.update(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}\n").expect("write");
        std::fs::write(dir.path().join("src/b.rs"), "pub fn b() {}\n").expect("write");
        dir
    }

    #[test]
    fn the_stamp_follows_source_edits_additions_and_removals() {
        let dir = repo();
        let root = dir.path();
        let first = stamp(root);
        assert_eq!(stamp(root), first, "nothing changed");

        // Non-source files and Zurdo's own state do not count.
        std::fs::write(root.join("notes.txt"), "hello").expect("write");
        std::fs::create_dir_all(root.join(".zurdo/lumen")).expect("mkdir");
        std::fs::write(root.join(".zurdo/lumen/CURRENT"), "gen").expect("write");
        assert_eq!(stamp(root), first, "only source files count");

        std::fs::write(root.join("src/b.rs"), "pub fn b() {}\npub fn c() {}\n").expect("edit");
        let edited = stamp(root);
        assert_ne!(edited, first, "an edit changes the stamp");
        assert_eq!(stamp(root), edited);

        std::fs::write(root.join("src/d.rs"), "pub fn d() {}\n").expect("add");
        let added = stamp(root);
        assert_ne!(added, edited, "an added file changes the stamp");

        std::fs::remove_file(root.join("src/d.rs")).expect("remove");
        let removed = stamp(root);
        assert_ne!(removed, added, "a removed file changes the stamp");
        assert_eq!(removed, edited, "back to the edited tree");
    }

    #[test]
    fn settings_come_from_the_environment_when_valid() {
        let env = |idle: Option<&str>, poll: Option<&str>| {
            Settings::from_lookup(|name| match name {
                IDLE_ENV => idle.map(str::to_string),
                POLL_ENV => poll.map(str::to_string),
                _ => None,
            })
        };
        assert_eq!(env(None, None), Settings::default());
        assert_eq!(Settings::default().idle, Duration::from_secs(1800));
        assert_eq!(Settings::default().poll, Duration::from_secs(1));
        assert_eq!(
            env(Some("300"), Some(" 50 ")),
            Settings {
                idle: Duration::from_millis(300),
                poll: Duration::from_millis(50)
            }
        );
        for bad in ["", "abc", "-5", "0", "1.5", "99999999999999999999999"] {
            assert_eq!(env(Some(bad), Some(bad)), Settings::default(), "{bad:?}");
        }
        assert_eq!(
            env(Some("x"), Some("20")).poll,
            Duration::from_millis(20),
            "each is read on its own"
        );
    }

    #[test]
    fn status_reads_the_lock_and_the_published_generation() {
        let dir = repo();
        let root = dir.path();
        assert_eq!(
            status(root),
            Status {
                running: None,
                generation: None
            }
        );
        std::fs::create_dir_all(root.join(".zurdo/lumen")).expect("mkdir");
        std::fs::write(root.join(".zurdo/lumen/CURRENT"), "gen-00000007-1234.json").expect("write");
        std::fs::create_dir_all(root.join(DIR)).expect("mkdir");
        // A lock naming a pid that cannot exist is not a running daemon.
        std::fs::write(pid_path(root), "4194305 2026-01-01T00:00:00Z\n").expect("write");
        assert_eq!(
            status(root),
            Status {
                running: None,
                generation: Some(7)
            }
        );
        let me = std::process::id();
        std::fs::write(pid_path(root), format!("{me} 2026-01-01T00:00:00Z\n")).expect("write");
        assert_eq!(
            status(root).running,
            Some(Running {
                pid: me,
                since: "2026-01-01T00:00:00Z".to_string()
            })
        );
    }

    #[test]
    fn idle_minutes_read_naturally() {
        assert_eq!(minutes(Duration::from_secs(1800)), "30");
        assert_eq!(minutes(Duration::from_millis(300)), "0.005");
        assert_eq!(minutes(Duration::from_secs(90)), "1.5");
    }
}
