//! The watcher: one reader of an agent CLI's output, fed as it arrives.
//! It applies the [`super::signatures`] table line by line (so a CLI that
//! says it cannot work and keeps waiting is stopped at once), keeps what
//! the agent has done so far (for the heartbeat), and classifies the run
//! when it ends ([`Watcher::conclude`]).

use serde_json::Value;
use zurdo::exec::Stream;

use super::signatures::{
    benign_exit, signatures, Sign, Signature, Weight, CRASH_WORDS, SIGNATURES,
};
use super::{come_back_at, one_line, FailureKind, InfraFailure};
use crate::agent::vocabulary::{self, Live, Vocabulary};
use crate::agent::{AgentReport, Provider};

/// Longest line read; a longer one (a tool's whole output on one JSON line)
/// is skipped, never scanned as text.
const MAX_LINE: usize = 1024 * 1024;

/// Most characters of the "last" action a snapshot shows.
const MAX_LAST_CHARS: usize = 100;

/// What the agent has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Tool calls its stream showed.
    pub tool_calls: usize,
    /// Its last tool call (`Bash cargo test`), else the start of its latest
    /// text.
    pub last: Option<String>,
}

/// How a run ended, for [`Watcher::conclude`].
#[derive(Debug, Clone, Copy)]
pub struct Ended<'a> {
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// True when zurdo killed it at its timeout.
    pub timed_out: bool,
    /// Its stream, read through the vocabulary.
    pub report: &'a AgentReport,
}

/// One sighting of a signature.
#[derive(Debug, Clone)]
struct Found {
    kind: FailureKind,
    message: String,
    retry_after: Option<i64>,
    /// Its order among sightings.
    seq: u64,
    /// Seen on a line of text (stderr, or stdout that is not JSON) rather
    /// than in the stream's events, its verdict or the exit code.
    on_a_line: bool,
}

/// Reads one agent run's output as it arrives.
#[derive(Debug)]
pub struct Watcher {
    provider: Provider,
    vocab: &'static Vocabulary,
    pending: [Vec<u8>; 2],
    skipping: [bool; 2],
    live: Live,
    /// The latest sighting of each signature, by table index.
    found: Vec<Option<Found>>,
    /// Consecutive sightings of each retry signature, by table index.
    runs: Vec<u32>,
    /// The last retry signature seen (its table index).
    last_retry: Option<usize>,
    crash: Option<String>,
    stop: Option<InfraFailure>,
    announced: bool,
    seq: u64,
}

fn index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Whether `lower` (a line already ASCII-lowercased) holds each of
/// `words`, ASCII case ignored.
fn contains_all(lower: &str, words: &[&str]) -> bool {
    words
        .iter()
        .all(|w| lower.contains(&w.to_ascii_lowercase()))
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

impl Watcher {
    /// A watcher of `provider`'s CLI.
    pub fn new(provider: Provider) -> Watcher {
        let vocab = vocabulary::vocabulary(provider);
        Watcher {
            provider,
            vocab,
            pending: [Vec::new(), Vec::new()],
            skipping: [false, false],
            live: Live::new(vocab),
            found: vec![None; SIGNATURES.len()],
            runs: vec![0; SIGNATURES.len()],
            last_retry: None,
            crash: None,
            stop: None,
            announced: false,
            seq: 0,
        }
    }

    /// Reads a chunk of output. `Some` (once) when the CLI has just said it
    /// cannot work and would keep waiting: the caller stops it.
    pub fn feed(&mut self, stream: Stream, bytes: &[u8]) -> Option<InfraFailure> {
        let i = index(stream);
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(at);
            rest = &tail[1..];
            if self.skipping[i] {
                self.skipping[i] = false;
                self.pending[i].clear();
                continue;
            }
            // The line's start is kept in `pending` (its buffer reused).
            let mut line = std::mem::take(&mut self.pending[i]);
            if line.is_empty() {
                if head.len() <= MAX_LINE {
                    self.line(stream, head);
                }
            } else {
                line.extend_from_slice(head);
                if line.len() <= MAX_LINE {
                    self.line(stream, &line);
                }
                line.clear();
            }
            self.pending[i] = line;
        }
        if !self.skipping[i] {
            self.pending[i].extend_from_slice(rest);
            if self.pending[i].len() > MAX_LINE {
                self.pending[i].clear();
                self.skipping[i] = true;
            }
        }
        match (&self.stop, self.announced) {
            (Some(stop), false) => {
                self.announced = true;
                Some(stop.clone())
            }
            _ => None,
        }
    }

    /// JSON events read from stdout so far (what [`Watcher::snapshot`]
    /// reads changes only when this grows).
    pub fn events(&self) -> usize {
        self.live.events()
    }

    /// What the agent has done so far.
    pub fn snapshot(&self) -> Snapshot {
        let calls = self.live.tool_calls();
        let last = match calls.last() {
            Some(call) => Some(format!("{} {}", call.name, call.input)),
            None => self
                .live
                .last_text()
                .map(|t| zurdo_base::text::first_nonblank_line(t).to_string()),
        };
        Snapshot {
            tool_calls: calls.len(),
            last: last
                .map(|l| zurdo_base::text::cut_chars(l.trim(), MAX_LAST_CHARS))
                .filter(|l| !l.is_empty()),
        }
    }

    fn line(&mut self, stream: Stream, bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches('\r');
        match stream {
            Stream::Stdout => match self.live.line(text) {
                Some(event) => self.event(&event, true),
                None => self.text(text),
            },
            Stream::Stderr => match vocabulary::event_of(text) {
                Some(event) => self.event(&event, false),
                None => self.text(&zurdo_base::text::strip_ansi(text)),
            },
        }
    }

    fn event(&mut self, event: &Value, on_stdout: bool) {
        let mut hit = Vec::new();
        for (i, sig) in signatures(self.provider) {
            let Sign::Event { on, say, at } = sig.sign else {
                continue;
            };
            if !vocabulary::picks(self.vocab, &on, event) {
                continue;
            }
            let message = say
                .iter()
                .find_map(|t| vocabulary::text_at(t, event))
                .map(|m| one_line(&m))
                .unwrap_or_default();
            let retry_after = at
                .and_then(|p| vocabulary::get(event, p))
                .and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
                .or_else(|| self.retry_in_words(sig.kind, &message));
            hit.push(i);
            self.sighting(i, sig, message, retry_after, false);
        }
        if on_stdout {
            // The CLI moved on: a run of retry notices is broken.
            for (i, sig) in signatures(self.provider) {
                if matches!(sig.weight, Weight::Retry(_)) && !hit.contains(&i) {
                    self.runs[i] = 0;
                }
            }
        }
    }

    fn text(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let lower = line.to_ascii_lowercase();
        for (i, sig) in signatures(self.provider) {
            let Sign::Text(words) = sig.sign else {
                continue;
            };
            if contains_all(&lower, words) {
                let retry_after = self.retry_in_words(sig.kind, line);
                self.sighting(i, sig, one_line(line), retry_after, true);
            }
        }
        if self.crash.is_none() && CRASH_WORDS.iter().any(|w| line.contains(w)) {
            self.crash = Some(one_line(line));
        }
    }

    fn retry_in_words(&self, kind: FailureKind, text: &str) -> Option<i64> {
        (kind == FailureKind::RateLimited)
            .then(|| come_back_at(text, now()))
            .flatten()
    }

    fn sighting(
        &mut self,
        i: usize,
        sig: &Signature,
        message: String,
        retry_after: Option<i64>,
        on_a_line: bool,
    ) {
        self.seq += 1;
        let found = Found {
            kind: sig.kind,
            message,
            retry_after,
            seq: self.seq,
            on_a_line,
        };
        let stop = match sig.weight {
            Weight::Final => sig.stop,
            Weight::Retry(n) => {
                self.runs[i] += 1;
                self.last_retry = Some(i);
                sig.stop && self.runs[i] >= n
            }
        };
        if stop && self.stop.is_none() {
            self.stop = Some(InfraFailure {
                stopped: true,
                tool_calls: self.live.tool_calls().len(),
                retry_after: found.retry_after.and_then(to_time),
                ..InfraFailure::new(found.kind, self.provider, &found.message)
            });
        }
        self.found[i] = Some(found);
    }

    /// Classifies the ended run: `Some` when its CLI could not work, `None`
    /// when the attempt is the agent's to answer for (it succeeded, or
    /// failed in a way no signature explains).
    pub fn conclude(mut self, ended: Ended<'_>) -> Option<InfraFailure> {
        self.decide(ended)
    }

    /// The signatures seen so far, by table index.
    #[cfg(test)]
    pub(crate) fn seen(&self) -> std::collections::BTreeSet<usize> {
        self.found
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_some())
            .map(|(i, _)| i)
            .collect()
    }

    /// [`Watcher::conclude`], and the signatures seen by then.
    #[cfg(test)]
    pub(crate) fn conclude_seen(
        mut self,
        ended: Ended<'_>,
    ) -> (Option<InfraFailure>, std::collections::BTreeSet<usize>) {
        let failure = self.decide(ended);
        (failure, self.seen())
    }

    fn decide(&mut self, ended: Ended<'_>) -> Option<InfraFailure> {
        for stream in [Stream::Stdout, Stream::Stderr] {
            let i = index(stream);
            let rest = std::mem::take(&mut self.pending[i]);
            if !rest.is_empty() && !self.skipping[i] {
                self.line(stream, &rest);
            }
        }
        let tool_calls = ended.report.tool_calls.len();
        if let Some(stop) = self.stop.take() {
            return Some(InfraFailure {
                tool_calls: tool_calls.max(stop.tool_calls),
                ..stop
            });
        }
        let succeeded =
            ended.exit_code == Some(0) && ended.signal.is_none() && ended.report.error.is_none();
        if succeeded {
            return None;
        }
        // The stream's own verdict (a result, a failed turn, stderr's last
        // error) is read like a line of text, and the exit code.
        if let Some(error) = ended.report.error.clone() {
            let lower = error.to_ascii_lowercase();
            for (i, sig) in signatures(self.provider) {
                if let (Sign::Text(words), Weight::Final) = (sig.sign, sig.weight) {
                    if contains_all(&lower, words) {
                        let retry_after = self.retry_in_words(sig.kind, &error);
                        self.sighting(i, sig, one_line(&error), retry_after, false);
                    }
                }
            }
        }
        if let Some(code) = ended.exit_code {
            for (i, sig) in signatures(self.provider) {
                if matches!(sig.sign, Sign::Exit(c) if c == code) {
                    let message = ended.report.error.as_deref().unwrap_or("").to_string();
                    self.sighting(i, sig, one_line(&message), None, false);
                }
            }
        }
        // A line of text says what went wrong only when it is the CLI's
        // whole account (it printed no event stream). With a stream, the
        // stream's own verdict decides (the vocabulary already takes the
        // last stderr error line when the stream never ended): a notice a
        // CLI printed and then recovered from is not the cause of a later,
        // unrelated failure.
        let streamed = self.live.events() > 0;
        let finals: Vec<(usize, &Found)> = self
            .found
            .iter()
            .enumerate()
            .filter(|(i, f)| f.is_some() && SIGNATURES[*i].weight == Weight::Final)
            .filter_map(|(i, f)| f.as_ref().map(|f| (i, f)))
            .filter(|(_, f)| !(streamed && f.on_a_line))
            .collect();
        let chosen = finals
            .iter()
            .min_by_key(|(_, f)| (f.kind.rank(), std::cmp::Reverse(f.seq)))
            .map(|(_, f)| (*f).clone())
            .or_else(|| {
                // Retry notices that were the last thing it printed.
                self.last_retry
                    .filter(|&i| self.runs[i] > 0)
                    .and_then(|i| self.found[i].clone())
            });
        if let Some(found) = chosen {
            let retry_after = if found.kind == FailureKind::RateLimited {
                // The first reset any rate-limit sighting gave (a structured
                // one comes first in the table).
                self.found
                    .iter()
                    .flatten()
                    .filter(|f| f.kind == FailureKind::RateLimited)
                    .find_map(|f| f.retry_after)
            } else {
                None
            };
            let message = if found.message.is_empty() {
                ended
                    .report
                    .error
                    .as_deref()
                    .map(one_line)
                    .unwrap_or_default()
            } else {
                found.message
            };
            return Some(InfraFailure {
                retry_after: retry_after.and_then(to_time),
                tool_calls,
                ..InfraFailure::new(found.kind, self.provider, &message)
            });
        }
        if ended.timed_out {
            return None;
        }
        let crashed = |message: String| {
            Some(InfraFailure {
                tool_calls,
                ..InfraFailure::new(FailureKind::CliCrashed, self.provider, &message)
            })
        };
        if let Some(signal) = ended.signal {
            return crashed(format!(
                "killed by signal {signal} ({})",
                signal_name(signal)
            ));
        }
        if let Some(line) = self.crash.take() {
            return crashed(line);
        }
        match ended.exit_code {
            Some(code)
                if code != 0 && self.live.events() == 0 && !benign_exit(self.provider, code) =>
            {
                crashed(match ended.report.error.as_deref() {
                    Some(error) => format!("exit {code} with no event stream: {error}"),
                    None => format!("exit {code} with no event stream and nothing on stderr"),
                })
            }
            _ => None,
        }
    }
}

fn to_time(unix: i64) -> Option<std::time::SystemTime> {
    let secs = u64::try_from(unix).ok()?;
    std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(secs))
}

/// Classifies a captured run at once (what [`Watcher`] does fed live).
#[cfg(test)]
pub(crate) fn classify(
    provider: Provider,
    stdout: &str,
    stderr: &str,
    exit_code: Option<i32>,
    signal: Option<i32>,
) -> Option<InfraFailure> {
    let report = vocabulary::read(provider, stdout, stderr);
    let mut watcher = Watcher::new(provider);
    watcher.feed(Stream::Stdout, stdout.as_bytes());
    watcher.feed(Stream::Stderr, stderr.as_bytes());
    watcher.conclude(Ended {
        exit_code,
        signal,
        timed_out: false,
        report: &report,
    })
}
