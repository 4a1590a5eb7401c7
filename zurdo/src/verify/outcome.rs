//! What checking a hint produces: a verdict with a typed reason, and the
//! evidence it rests on.

use std::time::Duration;

use serde::Serialize;
use zurdo_base::text::escape_controls;

use super::counts::{self, TestCounts};

/// Why a hint did not pass. Every variant is a distinct, typed reason so a
/// retry prompt, a report or a test can tell them apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Reason {
    /// `[shell:]` exited non-zero.
    ExitCode {
        /// The exit code.
        code: i32,
    },
    /// `[shell:]` was ended by a signal it did not get from zurdo.
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// The hint ran past `[verification] criterion_seconds`; its process
    /// group was killed.
    Timeout {
        /// The limit that was hit.
        seconds: u64,
    },
    /// A test runner in the command ran zero tests (a filter that matches
    /// nothing proves nothing).
    ZeroTests {
        /// `cargo test`, `go test`, `pytest`, …
        runner: String,
    },
    /// A test runner the command started printed no report line at all.
    RunnerSilent {
        /// The runner that stayed silent.
        runner: String,
    },
    /// The command ran fewer tests than at pre-flight, or ignored or skipped
    /// more ([`TestCounts::vanished_since`]): tests were removed, skipped,
    /// ignored or deselected. Set by the run loop, which holds both counts
    /// ([`super::tests_vanished`]). The counts are boxed to keep every
    /// `Result<_, Reason>` small; they serialize as plain objects.
    TestsVanished {
        /// The counts of the earlier run compared with.
        before: Box<TestCounts>,
        /// The counts of this run.
        now: Box<TestCounts>,
        /// Which earlier run: `pre-flight`, or `attempt N` when pre-flight
        /// showed no counts (its build failed).
        since: String,
    },
    /// The command could not be started.
    SpawnFailed {
        /// The operating system's message.
        error: String,
    },
    /// `[file-exists:]`: nothing at the path.
    Missing,
    /// `[file-absent:]`: something is at the path.
    Present,
    /// The path leaves the repository (absolute, `..`, or a symlink that
    /// points outside it).
    PathEscapes {
        /// How it escapes.
        detail: String,
    },
    /// A file could not be read.
    Unreadable {
        /// The path and the operating system's message.
        detail: String,
    },
    /// A file a hint must read is not a regular file (a FIFO, a socket, a
    /// device, a directory): reading it could block forever or never end,
    /// so it is not opened for reading.
    NotRegular {
        /// The path as shown.
        path: String,
        /// What it is (`a FIFO`, `a character device`, …).
        kind: String,
    },
    /// A file a hint must read is larger than the per-file read limit
    /// ([`super::files::READ_LIMIT`]).
    TooLarge {
        /// The path as shown.
        path: String,
        /// Its size in bytes (or the bytes seen before the read stopped).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// `[grep:]`: no file matched the pattern.
    NoMatch,
    /// `[no-grep:]`: a file matched the pattern.
    Matched {
        /// The first match, as `path:line: text`.
        first: String,
    },
    /// The glob of a `[grep:]`/`[no-grep:]` matched no file.
    GlobMatchedNothing,
    /// The regex parses but cannot be built (too large, for instance).
    BadRegex {
        /// The regex engine's message.
        error: String,
    },
    /// `[http:]`: nothing listens at the address.
    ConnectionRefused,
    /// `[http:]`: no complete answer in time.
    HttpTimeout {
        /// The limit that was hit.
        seconds: u64,
    },
    /// `[http:]`: an answer with another status.
    WrongStatus {
        /// The status the hint expects.
        expected: u16,
        /// The status that came back.
        got: u16,
    },
    /// `[http:]`: any other transport failure (DNS, TLS, a malformed answer).
    HttpFailed {
        /// What went wrong.
        error: String,
    },
    /// `[manual]`: a human signs this off; it never passes automatically.
    NeedsReview,
    /// The hint passed, but a file it read changed before verification
    /// ended (re-read after the last criterion): the verdict rests on bytes
    /// that are no longer there.
    EvidenceChangedDuringVerification {
        /// The file whose blob changed.
        path: String,
    },
    /// `[no-grep:]` on a literal path that existed when the task's
    /// pre-flight ran and is gone now: deleting the file a negative check
    /// searches proves nothing.
    EvidenceMissing {
        /// The path.
        path: String,
    },
    /// `[symbol:]`, `[references:]`, `[callers:]`: no indexed definition of
    /// a kind hints resolve has this name (nothing is guessed).
    SymbolNotFound {
        /// The name as written.
        name: String,
        /// What else is known: the name is a query-only kind, or how many
        /// files the index read.
        detail: String,
    },
    /// `[references:]`: defined, but no other site uses it.
    NoReferences {
        /// The name as written.
        name: String,
    },
    /// `[callers:]`: fewer distinct calling functions than required.
    TooFewCallers {
        /// The name as written.
        name: String,
        /// Distinct callers found.
        found: usize,
        /// Callers required (`>= N`, default 1).
        min: u32,
    },
    /// `[callers: X from Y]`: `Y` is not among the callers.
    CallerMissing {
        /// The callee as written.
        name: String,
        /// The caller that was required.
        from: String,
    },
    /// The hint is valid, but this build of zurdo was compiled without the
    /// cargo feature that checks it (`lumen` for `[symbol:]`,
    /// `[references:]` and `[callers:]`, `http` for `[http:]`).
    NeedsFeature {
        /// The hint's kind: `symbol`, `references`, `callers` or `http`.
        kind: String,
        /// The zurdo feature that checks it.
        feature: String,
    },
}

impl Reason {
    /// The typed reason's name alone (`exit_code`, `no_match`, …), as its
    /// JSON `reason` field spells it: what a sealed criterion's failure
    /// may say without its values.
    pub fn tag(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v["reason"].as_str().map(str::to_string))
            .unwrap_or_else(|| "failed".to_string())
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::ExitCode { code } => write!(f, "exited with code {code}"),
            Reason::Signaled { signal } => write!(f, "killed by signal {signal}"),
            Reason::Timeout { seconds } => {
                write!(f, "timed out after {seconds}s ([verification] criterion_seconds); its process group was killed")
            }
            Reason::ZeroTests { runner } => {
                write!(f, "{runner} ran 0 tests: the command proves nothing")
            }
            Reason::RunnerSilent { runner } => {
                write!(
                    f,
                    "{runner} printed no test report: cannot tell whether any test ran"
                )
            }
            Reason::TestsVanished { before, now, since } => {
                f.write_str(&counts::vanished_message(before, now, since))
            }
            Reason::SpawnFailed { error } => write!(f, "could not start: {error}"),
            Reason::Missing => f.write_str("no such file or directory"),
            Reason::Present => f.write_str("the path exists"),
            Reason::PathEscapes { detail } => write!(f, "path leaves the repository: {detail}"),
            Reason::Unreadable { detail } => write!(f, "cannot read {detail}"),
            Reason::NotRegular { path, kind } => write!(
                f,
                "{path} is {kind}, not a regular file: it is not read (it could block or never end)"
            ),
            Reason::TooLarge { path, size, limit } => write!(
                f,
                "{path} is {size} bytes, over the {limit}-byte limit zurdo reads of one file; \
                 point the hint at a narrower path or glob, or .gitignore the file"
            ),
            Reason::NoMatch => f.write_str("no line matches"),
            Reason::Matched { first } => write!(f, "a line matches: {first}"),
            Reason::GlobMatchedNothing => f.write_str("the glob matches no file"),
            Reason::BadRegex { error } => write!(f, "the regex cannot be built: {error}"),
            Reason::ConnectionRefused => f.write_str("connection refused: nothing listens there"),
            Reason::HttpTimeout { seconds } => write!(f, "no answer within {seconds}s"),
            Reason::WrongStatus { expected, got } => write!(f, "status {got}, expected {expected}"),
            Reason::HttpFailed { error } => write!(f, "request failed: {error}"),
            Reason::NeedsReview => {
                f.write_str("needs a human sign-off (never passes automatically)")
            }
            Reason::EvidenceChangedDuringVerification { path } => write!(
                f,
                "{path} changed while verification ran (something is still writing it); the pass does not count"
            ),
            Reason::EvidenceMissing { path } => write!(
                f,
                "{path} existed at pre-flight and is gone: a [no-grep:] does not pass by deleting the file it searches; restore it (a PRD that means to delete it says so with [file-absent: {path}])"
            ),
            Reason::SymbolNotFound { name, detail } => {
                write!(f, "`{name}` is not defined in any indexed file ({detail})")
            }
            Reason::NoReferences { name } => {
                write!(f, "`{name}` is defined but no other site references it")
            }
            Reason::TooFewCallers { name, found, min } => write!(
                f,
                "`{name}` has {found} distinct caller(s); at least {min} required"
            ),
            Reason::CallerMissing { name, from } => {
                write!(f, "`{from}` does not call `{name}`")
            }
            Reason::NeedsFeature { kind, feature } => write!(
                f,
                "[{kind}:] needs zurdo's `{feature}` feature, which this build leaves out; \
                 enable it in Cargo.toml: zurdo = {{ version = \"{ZURDO_VERSION}\", features = [\"{feature}\"] }}"
            ),
        }
    }
}

/// The version requirement the [`Reason::NeedsFeature`] advice names.
const ZURDO_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION_MAJOR"),
    ".",
    env!("CARGO_PKG_VERSION_MINOR")
);

/// Output captured from a command, kept bounded: the head and the tail with
/// an elision marker between when it is longer than the bound. The text is
/// safe to show on a terminal: control characters other than line feeds
/// and tabs are written as escapes (`\u{1b}`), so an escape sequence the
/// command printed is seen, never obeyed, wherever the evidence is shown
/// (a failure, a retry prompt, a report).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Captured {
    /// The kept text (lossy UTF-8, control characters escaped).
    pub text: String,
    /// The full length in bytes before bounding (everything the command
    /// wrote, also what was never held in memory).
    pub total_bytes: usize,
}

/// Bytes kept from each end of a long output.
pub const CAPTURE_HEAD: usize = 4 * 1024;
/// Bytes kept from the end of a long output.
pub const CAPTURE_TAIL: usize = 8 * 1024;

impl Captured {
    /// Keeps `bytes` whole when short, else its head and tail.
    pub fn bounded(bytes: &[u8]) -> Captured {
        Captured::kept(bytes, bytes.len() as u64)
    }

    /// Keeps a stream of `total` bytes of which `kept` is what the run held
    /// (all of it, or its head, a cut marker and its tail, as
    /// [`crate::exec::Finished`] keeps it): whole when `kept` is short and
    /// complete, else the first [`CAPTURE_HEAD`] and last [`CAPTURE_TAIL`]
    /// bytes of `kept`, with the bytes between counted against `total`.
    pub fn kept(kept: &[u8], total: u64) -> Captured {
        let total_bytes = usize::try_from(total).unwrap_or(usize::MAX);
        let shown = |bytes: &[u8]| escape_controls(&String::from_utf8_lossy(bytes)).into_owned();
        if kept.len() <= CAPTURE_HEAD + CAPTURE_TAIL && kept.len() == total_bytes {
            return Captured {
                text: shown(kept),
                total_bytes,
            };
        }
        let head_end = CAPTURE_HEAD.min(kept.len());
        let tail_start = kept.len().saturating_sub(CAPTURE_TAIL).max(head_end);
        let head = shown(&kept[..head_end]);
        let tail = shown(&kept[tail_start..]);
        let elided = total_bytes.saturating_sub(head_end + (kept.len() - tail_start));
        Captured {
            text: format!("{head}\n… [{elided} bytes elided] …\n{tail}"),
            total_bytes,
        }
    }

    /// True when the middle of the output was cut (`text` holds its head
    /// and tail only).
    pub fn is_cut(&self) -> bool {
        self.total_bytes > CAPTURE_HEAD + CAPTURE_TAIL
    }

    /// `1988895 bytes in all, the middle cut` when the middle was cut, for
    /// a heading over the text shown (a failure, a retry prompt).
    pub fn cut_note(&self) -> Option<String> {
        self.is_cut()
            .then(|| format!("{} bytes in all, the middle cut", self.total_bytes))
    }

    /// The last `lines` lines of the kept text.
    pub fn tail_lines(&self, lines: usize) -> &str {
        let text = self.text.trim_end();
        let mut start = text.len();
        for _ in 0..lines {
            match text[..start].rfind('\n') {
                Some(i) => start = i,
                None => return text,
            }
        }
        &text[start + 1..]
    }
}

/// A file a hint read, by its git blob id, so a later re-read can tell
/// whether the bytes the verdict rests on changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blob {
    /// Repository-relative path.
    pub path: String,
    /// The git blob id (SHA-1 of `blob <len>\0<bytes>`), hex.
    pub id: String,
}

/// What a verdict rests on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// `[shell:]`: the exit code, when it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// `[shell:]`: stdout, bounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<Captured>,
    /// `[shell:]`: stderr, bounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<Captured>,
    /// `[shell:]`: the tests the output shows ran, passing or failing, when
    /// it holds a test runner's summary ([`TestCounts`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<TestCounts>,
    /// Local hints: the files read, with their blob ids.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blobs: Vec<Blob>,
    /// A one-line note: the match found, the status received, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The verdict on one hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The hint holds.
    Pass,
    /// The hint does not hold, and why.
    Fail(Reason),
}

impl Verdict {
    /// True for [`Verdict::Pass`].
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass)
    }
}

/// One hint checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HintResult {
    /// The hint as written, e.g. `[shell: cargo test]`.
    pub hint: String,
    /// Its kind.
    pub kind: &'static str,
    /// Pass, or the typed reason it failed.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// What the verdict rests on.
    pub evidence: Evidence,
    /// How long the check took.
    #[serde(serialize_with = "millis")]
    pub elapsed: Duration,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// How a whole criterion came out: all automated hints AND'd; `[manual]`
/// hints leave a passing criterion awaiting review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CriterionVerdict {
    /// Every hint passed.
    Passed,
    /// Every automated hint passed; a `[manual]` hint awaits a human.
    PendingReview,
    /// Some automated hint failed.
    Failed,
}
