//! `zurdo vela` end to end: the real binary starts a real daemon in a
//! scratch repository, which publishes Lumen generations as files change,
//! exits when idle, survives a failed publish, and is always stopped when a
//! test ends (a guard kills whatever pid the lock names).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long any awaited condition may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(20);

/// A scratch repository with a `.git/` directory and two Rust files; its
/// drop stops whatever daemon the lock names.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join(".git")).expect(".git");
        std::fs::create_dir_all(dir.path().join("src")).expect("src");
        std::fs::write(
            dir.path().join("src/lib.rs"),
            "pub mod util;\n\npub fn greet() -> String {\n    util::name()\n}\n",
        )
        .expect("lib.rs");
        std::fs::write(
            dir.path().join("src/util.rs"),
            "pub fn name() -> String {\n    String::from(\"zurdo\")\n}\n",
        )
        .expect("util.rs");
        Repo { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    /// Runs `zurdo vela <args>` in the repository with `env` set.
    fn vela(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
        command
            .arg("vela")
            .args(args)
            .current_dir(self.root())
            .env_remove("ZURDO_VELA_IDLE_MS")
            .env_remove("ZURDO_VELA_POLL_MS");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("run zurdo vela")
    }

    /// The pid the lock names.
    fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.path(".zurdo/vela/pid"))
            .ok()?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.path(".zurdo/vela/vela.log")).unwrap_or_default()
    }

    /// The published generation: its number, and the text of its manifest
    /// and of every entry it names.
    fn generation(&self) -> Option<(u64, String)> {
        let lumen = self.path(".zurdo/lumen");
        let name = std::fs::read_to_string(lumen.join("CURRENT")).ok()?;
        let name = name.trim().to_string();
        let number = name.strip_prefix("gen-")?.split('-').next()?.parse().ok()?;
        let mut text = std::fs::read_to_string(lumen.join(&name)).ok()?;
        let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
        for entry in manifest["files"].as_object()?.values() {
            text.push_str(&std::fs::read_to_string(lumen.join(entry["entry"].as_str()?)).ok()?);
        }
        Some((number, text))
    }

    /// Appends a line to a source file, so its length and mtime change.
    fn append(&self, relative: &str, line: &str) {
        let path = self.path(relative);
        let mut text = std::fs::read_to_string(&path).expect("read source");
        text.push_str(line);
        text.push('\n');
        std::fs::write(&path, text).expect("write source");
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        // Never leave a daemon behind, whatever the test did.
        if let Some(pid) = self.pid() {
            if alive(pid) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .output();
            }
        }
        // In case a test left the index directory replaced or read-only.
        let lumen = self.path(".zurdo/lumen");
        if lumen.is_file() {
            let _ = std::fs::remove_file(&lumen);
        }
    }
}

/// True when `pid` runs (a zombie waiting to be reaped does not count).
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    if proc.is_dir() {
        return match std::fs::read_to_string(proc.join(pid.to_string()).join("stat")) {
            Ok(stat) => !matches!(
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().next()),
                Some("Z" | "X")
            ),
            Err(_) => false,
        };
    }
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Waits until `check` returns something, or fails with `what`.
fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Fast polling, and never idle within a test.
const WATCHING: &[(&str, &str)] = &[
    ("ZURDO_VELA_POLL_MS", "50"),
    ("ZURDO_VELA_IDLE_MS", "600000"),
];

#[test]
fn start_publishes_follows_edits_refuses_a_second_and_stops() {
    let repo = Repo::new();

    let out = repo.vela(&["status"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("vela is not running"));

    let out = repo.vela(&["start"], WATCHING);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("vela started (pid "), "{stdout}");
    assert!(stdout.contains(".zurdo/vela/vela.log"), "{stdout}");
    let pid = repo.pid().expect("the lock names the daemon");
    assert!(stdout.contains(&format!("pid {pid}")), "{stdout}");
    assert!(alive(pid));

    let out = repo.vela(&["status"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!("vela is running (pid {pid}, since ")),
        "{stdout}"
    );
    assert!(stdout.contains("log: .zurdo/vela/vela.log"), "{stdout}");

    let (first, json) = wait_for("a first generation", || repo.generation());
    assert!(first >= 1);
    assert!(json.contains("greet"), "{json}");
    assert!(!json.contains("added_later"));

    // An edit leads to a newer generation that has it.
    repo.append("src/util.rs", "pub fn added_later() {}");
    let (later, _) = wait_for("a generation with added_later", || {
        repo.generation()
            .filter(|(n, json)| *n > first && json.contains("added_later"))
    });

    let out = repo.vela(&["status"], &[]);
    assert!(
        text(&out.stdout).contains(&format!("published generation: {later}")),
        "{}",
        text(&out.stdout)
    );

    // A second start finds the first: one daemon, one pid in the lock.
    let out = repo.vela(&["start"], WATCHING);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!("vela already runs (pid {pid}, since ")),
        "{stdout}"
    );
    let lock = std::fs::read_to_string(repo.path(".zurdo/vela/pid")).expect("lock");
    assert_eq!(lock.lines().count(), 1, "{lock}");
    assert_eq!(repo.pid(), Some(pid));

    // A second daemon in the foreground refuses too.
    let out = repo.vela(&["serve"], WATCHING);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains(&format!("another vela (pid {pid}) watches this repository")),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        repo.pid(),
        Some(pid),
        "the refused daemon left the lock alone"
    );

    let out = repo.vela(&["stop"], &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("vela stopped"), "{stdout}");
    assert!(!alive(pid), "the daemon is gone");
    assert!(
        !repo.path(".zurdo/vela/pid").exists(),
        "the lock is removed"
    );

    let log = repo.log();
    assert!(log.contains(&format!("started: pid {pid}")), "{log}");
    assert!(
        log.contains(&format!("published generation {first}")),
        "{log}"
    );
    assert!(
        log.contains(&format!("published generation {later}")),
        "{log}"
    );
    assert!(log.contains("stopped by a signal"), "{log}");
    // Every line starts with an RFC 3339 timestamp.
    for line in log.lines() {
        let stamp = line.split_whitespace().next().unwrap_or("");
        assert!(
            stamp.len() >= 20 && stamp.as_bytes()[4] == b'-' && stamp.contains('T'),
            "{line}"
        );
    }

    let out = repo.vela(&["stop"], &[]);
    assert!(text(&out.stdout).contains("vela is not running"));
    let out = repo.vela(&["status"], &[]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn an_idle_daemon_exits_by_itself() {
    let repo = Repo::new();
    let out = repo.vela(
        &["start"],
        &[("ZURDO_VELA_POLL_MS", "50"), ("ZURDO_VELA_IDLE_MS", "300")],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let pid = wait_for("the lock", || repo.pid());
    wait_for("the idle daemon to exit", || (!alive(pid)).then_some(()));
    let log = wait_for("the idle line", || {
        Some(repo.log()).filter(|log| log.contains("idle"))
    });
    assert!(log.contains("with no change; exiting"), "{log}");
    wait_for("the lock to be released", || {
        (!repo.path(".zurdo/vela/pid").exists()).then_some(())
    });
    // What it published stays.
    assert!(repo.generation().is_some());
}

#[test]
fn a_failed_publish_keeps_the_previous_generation() {
    let repo = Repo::new();
    let out = repo.vela(&["start"], WATCHING);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let pid = repo.pid().expect("the lock");
    let (first, _) = wait_for("a first generation", || repo.generation());
    let published = std::fs::read_to_string(repo.path(".zurdo/lumen/CURRENT")).expect("CURRENT");

    // Publishing fails (as root too): the index directory is now a file.
    let lumen = repo.path(".zurdo/lumen");
    let away = repo.path(".zurdo/lumen.away");
    std::fs::rename(&lumen, &away).expect("move the index away");
    std::fs::write(&lumen, "not a directory").expect("a file in its place");
    repo.append("src/util.rs", "pub fn added_later() {}");
    let log = wait_for("the failed publish in the log", || {
        Some(repo.log()).filter(|log| log.contains("cannot publish a new generation"))
    });
    assert!(log.contains("the previous generation stays"), "{log}");
    assert!(alive(pid), "the daemon goes on");

    // The previous generation is intact and still parses.
    let current = std::fs::read_to_string(away.join("CURRENT")).expect("CURRENT");
    assert_eq!(current, published);
    let json = std::fs::read_to_string(away.join(current.trim())).expect("generation");
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("it parses");
    assert_eq!(parsed["generation"], serde_json::json!(first));

    // Restored, the next edit publishes again, with the edit that failed.
    std::fs::remove_file(&lumen).expect("remove the file");
    std::fs::rename(&away, &lumen).expect("restore the index");
    repo.append("src/lib.rs", "pub fn added_after_repair() {}");
    wait_for("a newer generation with both edits", || {
        repo.generation().filter(|(n, json)| {
            *n > first && json.contains("added_later") && json.contains("added_after_repair")
        })
    });
    assert!(alive(pid));

    let out = repo.vela(&["stop"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!alive(pid));
}
