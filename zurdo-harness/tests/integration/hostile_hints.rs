//! Hostile input to the hints, through `zurdo verify` where the user meets
//! it: the agent being judged can plant anything in the repository
//! (symlinks out of it, FIFOs, endless devices, output without end, escape
//! sequences) and the PRD author can be careless. Each test pairs the
//! hostile case with an honest control: the guard catches the one and
//! never fails the other.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{repo, text};

/// A PRD of one task whose criteria are `criteria` (`title [hint]` each).
fn prd(criteria: &[&str]) -> String {
    let mut text = String::from(
        "# PRD: hostile\n\n## Task: task-1 — Hold up\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\nd\n\n### Acceptance Criteria\n",
    );
    for c in criteria {
        text.push_str(&format!("- [ ] {c}\n"));
    }
    text
}

/// What `zurdo verify` did.
struct Verified {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Verified {
    /// Asserts stdout holds `text`.
    fn shows(&self, text: &str) {
        assert!(
            self.stdout.contains(text),
            "no {text:?} in:\n{}",
            self.stdout
        );
    }

    /// Asserts stdout does not hold `text`.
    fn hides(&self, text: &str) {
        assert!(!self.stdout.contains(text), "{text:?} in:\n{}", self.stdout);
    }
}

/// `zurdo verify <args…> prds/p.md` in `root` with `env` added, killed
/// (and the test failed) when it runs past `secs`: a hang must fail the
/// test, not hang the suite.
fn verify(root: &Path, args: &[&str], env: &[(&str, &str)], secs: u64) -> Verified {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("verify")
        .args(args)
        .arg("prds/p.md")
        .current_dir(root)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the zurdo binary runs");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out.read_to_end(&mut bytes);
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        bytes
    });
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("zurdo verify still running after {secs}s: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Verified {
        code: status.code(),
        stdout: text(&reader.join().expect("stdout reader")),
        stderr: text(&err_reader.join().expect("stderr reader")),
    }
}

/// A scratch repository holding `prds/p.md` with `criteria` and `files`.
fn scratch(criteria: &[&str], files: &[(&str, &str)]) -> tempfile::TempDir {
    let prd = prd(criteria);
    let mut all: Vec<(&str, &str)> = vec![("prds/p.md", prd.as_str())];
    all.extend_from_slice(files);
    repo(&all)
}

/// The criteria of a `--format json` report, by title.
fn criteria(out: &Verified) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {}{}", out.stdout, out.stderr));
    doc["criteria"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_symlink_to_the_root_never_lets_a_glob_read_outside_the_repository() {
    let r = scratch(
        &[
            "no env [no-grep: PATH in rootlink/proc/self/env*]",
            "no passwd [no-grep: root in rootlink/etc]",
            "honest [grep: PATH in src/**/*.rs]",
            "honest walk [no-grep: zurdo-hostile-secret-valu[e] in **/*]",
        ],
        &[("src/a.rs", "// PATH is honest here\n")],
    );
    std::os::unix::fs::symlink("/", r.path().join("rootlink")).expect("symlink");
    let secret = ("ZURDO_HOSTILE_SECRET", "zurdo-hostile-secret-value");
    let out = verify(r.path(), &[], &[secret], 30);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    out.hides(secret.1);
    out.hides("root:x:");
    out.shows("FAIL    no env");
    out.shows("FAIL    no passwd");
    out.shows(
        "path leaves the repository: the glob's directory: `rootlink/proc/self` resolves to /proc/",
    );
    // The honest criteria pass, the symlink named as passed over.
    out.shows("PASS    honest ");
    out.shows("PASS    honest walk");
    let json = verify(r.path(), &["--format", "json"], &[secret], 30);
    json.hides(secret.1);
    let all = criteria(&json);
    assert_eq!(all[0]["hints"][0]["reason"], "path_escapes");
    assert!(
        all[3]["hints"][0]["evidence"]["note"].as_str().is_some_and(
            |n| n.contains("rootlink (a symlink leaving the repository, not followed)")
        ),
        "{:#}",
        all[3]
    );
}

#[test]
fn a_fifo_is_a_typed_failure_or_an_unread_existence_never_a_hang() {
    let r = scratch(
        &[
            "grep fifo [grep: x in pipe]",
            "exists fifo [file-exists: pipe]",
            "fifo ignore [no-grep: x in src]",
            "honest [grep: fn in notes.txt]",
        ],
        &[("notes.txt", "fn honest\n"), ("src/a.rs", "fn a() {}\n")],
    );
    crate::common::mkfifo(&r.path().join("pipe"));
    crate::common::mkfifo(&r.path().join("src/.gitignore"));
    let out = verify(r.path(), &["--format", "json"], &[], 30);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    let all = criteria(&out);
    assert_eq!(all[0]["hints"][0]["reason"], "not_regular", "{:#}", all[0]);
    assert_eq!(all[0]["hints"][0]["kind"], "a FIFO");
    assert_eq!(all[1]["verdict"], "passed", "it exists: {:#}", all[1]);
    assert_eq!(
        all[1]["hints"][0]["evidence"]["note"],
        "pipe exists (a FIFO; not a regular file, so it is not read)"
    );
    assert_eq!(all[2]["hints"][0]["reason"], "not_regular", "{:#}", all[2]);
    assert_eq!(all[2]["hints"][0]["path"], "src/.gitignore");
    assert_eq!(all[3]["verdict"], "passed", "{:#}", all[3]);
}

#[test]
fn a_symlink_to_an_endless_device_is_never_read() {
    let r = scratch(
        &[
            "zero [grep: x in zero]",
            "zero exists [file-exists: zero]",
            "honest [file-exists: notes.txt]",
        ],
        &[("notes.txt", "fine\n")],
    );
    std::os::unix::fs::symlink("/dev/zero", r.path().join("zero")).expect("symlink");
    let out = verify(r.path(), &["--format", "json"], &[], 30);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    let all = criteria(&out);
    assert_eq!(all[0]["hints"][0]["reason"], "path_escapes", "{:#}", all[0]);
    assert_eq!(all[1]["hints"][0]["reason"], "path_escapes", "{:#}", all[1]);
    assert_eq!(all[2]["verdict"], "passed");
}

#[test]
fn a_prd_or_config_that_is_a_fifo_is_refused_at_once_naming_it() {
    // Honest first: the same repository with regular files verifies.
    let r = scratch(
        &["honest [file-exists: prds/p.md]"],
        &[(".zurdo/config.toml", "[verification]\n")],
    );
    let out = verify(r.path(), &[], &[], 30);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    // The config as a FIFO.
    std::fs::remove_file(r.path().join(".zurdo/config.toml")).expect("rm");
    crate::common::mkfifo(&r.path().join(".zurdo/config.toml"));
    let out = verify(r.path(), &[], &[], 30);
    assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains(".zurdo/config.toml: cannot read: not a regular file (a FIFO)"),
        "{}",
        out.stderr
    );
    // The PRD as a FIFO.
    std::fs::remove_file(r.path().join(".zurdo/config.toml")).expect("rm");
    std::fs::remove_file(r.path().join("prds/p.md")).expect("rm");
    crate::common::mkfifo(&r.path().join("prds/p.md"));
    let out = verify(r.path(), &[], &[], 30);
    assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("prds/p.md: cannot read the PRD: it is a FIFO, not a regular file"),
        "{}",
        out.stderr
    );
}

#[test]
fn output_without_end_is_held_bounded_and_said_to_be_cut() {
    let r = scratch(
        &[
            "endless [shell: yes]",
            "long and failing [shell: seq 1 300000; exit 3]",
            "long and honest [shell: seq 1 300000]",
        ],
        &[(
            ".zurdo/config.toml",
            "[verification]\ncriterion_seconds = 3\n",
        )],
    );
    let out = verify(r.path(), &[], &[], 60);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    out.shows("[shell: yes] failed: timed out after 3s");
    out.shows("stdout (last 20 lines; ");
    out.shows(" bytes in all, the middle cut)");
    out.shows("[shell: seq 1 300000; exit 3] failed: exited with code 3");
    out.shows("stdout (last 20 lines; 1988895 bytes in all, the middle cut)");
    out.shows("| 300000\n");
    out.shows("PASS    long and honest");
}

#[test]
fn a_criterion_s_parent_shows_no_variable_the_allowlist_hides() {
    let r = scratch(
        &[
            "parent env shown [shell: tr '\\0' '\\n' < /proc/$PPID/environ; exit 1]",
            "parent env searched [shell: ! grep -aq ZURDO_HOSTILE_PARENT_SECRET /proc/$PPID/environ]",
            "honest parent [shell: grep -aq PATH= /proc/$PPID/environ]",
        ],
        &[],
    );
    let secret = ("ZURDO_HOSTILE_PARENT_SECRET", "parent-secret-value");
    let out = verify(r.path(), &[], &[secret], 30);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    out.hides(secret.1);
    out.hides(secret.0);
    // The first criterion failed on purpose, showing the parent's
    // (allowlisted) environment; the others pass.
    out.shows("| PATH=");
    out.shows("PASS    parent env searched");
    out.shows("PASS    honest parent");
}

#[test]
fn escape_sequences_in_output_reach_the_terminal_escaped() {
    // `\033\135` is ESC ] (a window title), `\033\133` is ESC [ (colour,
    // clear screen): written as octal so the hint's brackets stay balanced.
    let r = scratch(
        &[
            "hostile output [shell: printf '\\033\\1350;pwned\\007\\033\\1332J\\033\\13331mred\\n'; exit 1]",
            "hostile line [no-grep: title in notes.txt]",
            "honest output [shell: printf 'col1\\tcol2 é\\n'; exit 1]",
        ],
        &[("notes.txt", "a \x1b]0;title\x07 here\n")],
    );
    let out = verify(r.path(), &[], &[], 30);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    out.hides("\x1b");
    out.hides("\x07");
    out.shows("| \\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{1b}[31mred");
    out.shows("a line matches: notes.txt:1: a \\u{1b}]0;title\\u{7} here");
    // Honest output is shown as it was: tabs and letters untouched.
    out.shows("| col1\tcol2 é\n");
}

#[test]
fn an_allowlist_entry_that_admits_everything_is_refused_and_prefixes_keep_secrets_out() {
    let criteria = [
        "mode passes [shell: test \"$APP_MODE\" = on]",
        "session stays out [shell: test -z \"$APP_SESSION\" && test -z \"$APP_COOKIE\" && test -z \"$APP_PRIVATE\"]",
    ];
    let env = [
        ("APP_MODE", "on"),
        ("APP_SESSION", "s"),
        ("APP_COOKIE", "c"),
        ("APP_PRIVATE", "p"),
    ];
    // Honest: a prefix entry passes the honest name, never a secret one.
    let r = scratch(
        &criteria,
        &[(
            ".zurdo/config.toml",
            "[verification]\nenv_allowlist = [\"APP_*\"]\n",
        )],
    );
    let out = verify(r.path(), &[], &env, 30);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    // `*` would admit everything: an error at config load naming it.
    for (entry, says) in [
        ("*", "would pass every variable to [shell:] hints"),
        ("A*", "would pass every variable whose name starts with `A`"),
    ] {
        std::fs::write(
            r.path().join(".zurdo/config.toml"),
            format!("[verification]\nenv_allowlist = [\"DATABASE_URL\", \"{entry}\"]\n"),
        )
        .expect("config");
        let out = verify(r.path(), &[], &env, 30);
        assert_eq!(out.code, Some(2), "{}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.contains(&format!(
                ".zurdo/config.toml: [verification] env_allowlist entry \"{entry}\" {says}"
            )),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("(APP_*)"), "{}", out.stderr);
    }
}
