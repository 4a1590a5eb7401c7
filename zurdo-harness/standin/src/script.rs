//! The script: what a stand-in invocation does, read from the JSON file
//! named by `ZURDO_STAND_IN_SCRIPT` (the format is documented on the parent
//! module), plus the invocation counters kept next to it.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

/// A whole script: every invocation of the stand-in reads it afresh.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Script {
    /// The N-th invocation that is neither a probe nor a reasoner call
    /// (0-based, counted in `<script>.count`) performs `attempts[N]`; past
    /// the end the last one repeats; with none, an attempt with every field
    /// at its default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// Checked first, in order: the first rule whose `contains` occurs in
    /// the prompt supplies the attempt (the counter still advances).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_prompt: Vec<PromptRule>,
    /// Reasoner calls (a prompt starting with the `reasoner` marker): the
    /// first rule whose `contains` occurs in the prompt supplies the
    /// attempt; none consumes an attempt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reason: Vec<PromptRule>,
    /// What a probe (a prompt starting with the `probe` marker) does;
    /// default: answer `OK` with a little usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<Attempt>,
    /// The prompt prefixes that make an invocation a probe or a reasoner
    /// call; with none declared, no prompt is special.
    #[serde(skip_serializing_if = "is_default")]
    pub markers: Markers,
    /// Models that fail, by the name passed on the command line (or, for
    /// Claude, the name an alias resolves to).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelStatus>,
    /// Whether the CLI is logged in.
    #[serde(skip_serializing_if = "is_default")]
    pub auth: Auth,
    /// Whether the CLI can reach its vendor.
    #[serde(skip_serializing_if = "is_default")]
    pub network: Network,
    /// A file that gets one JSON line per invocation (`cli`, `args`, `cwd`,
    /// `workdir`, `prompt`, `probe`, `reasoner`, `attempt`); relative to the
    /// script's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
}

/// What a prompt starts with to be special. Neither marker may be empty
/// (an empty one would make every prompt special); when a prompt starts
/// with both, it is a probe.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Markers {
    /// A prompt starting with this is a model probe: it performs the
    /// script's `probe` and consumes no attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// A prompt starting with this is a reasoner call: it is answered from
    /// the script's `reason` rules and consumes no attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoner: Option<String>,
}

impl Markers {
    /// Whether `prompt` is a model probe.
    pub fn is_probe(&self, prompt: &str) -> bool {
        starts_with(prompt, self.probe.as_deref())
    }

    /// Whether `prompt` is a reasoner call (and not a probe).
    pub fn is_reasoner(&self, prompt: &str) -> bool {
        !self.is_probe(prompt) && starts_with(prompt, self.reasoner.as_deref())
    }

    /// Refuses an empty marker.
    fn check(&self) -> Result<(), String> {
        for (name, marker) in [("probe", &self.probe), ("reasoner", &self.reasoner)] {
            if marker.as_deref() == Some("") {
                return Err(format!("`markers.{name}` is empty (it would make every prompt special; leave it out instead)"));
            }
        }
        Ok(())
    }
}

fn starts_with(prompt: &str, marker: Option<&str>) -> bool {
    marker.is_some_and(|m| !m.is_empty() && prompt.starts_with(m))
}

/// An attempt chosen by the prompt's content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptRule {
    /// Text the prompt must contain.
    pub contains: String,
    /// What to do then.
    pub attempt: Attempt,
}

/// What one invocation does, in this order: echo the prompt, the first
/// events, `retries`, `tool_calls`, `write`, `append`, `delete`, `run`,
/// sleep, print `stderr`, the final answer (or `error`), exit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Attempt {
    /// Write the prompt received to this file (relative to the working dir).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo_prompt_to: Option<PathBuf>,
    /// Tool calls reported in the stream without doing anything.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Files to create or overwrite: path (relative to the working dir) →
    /// contents.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub write: BTreeMap<String, String>,
    /// Text to append to files (created when missing).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub append: BTreeMap<String, String>,
    /// Files or directories to delete.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delete: Vec<String>,
    /// Shell commands (`sh -c`, in the working dir, stdin closed).
    #[serde(skip_serializing_if = "is_default")]
    pub run: Commands,
    /// Non-fatal retry notices emitted first (Claude `api_retry`, Codex
    /// `Reconnecting...` errors, Gemini's stderr lines, Copilot warnings).
    #[serde(skip_serializing_if = "is_default")]
    pub retries: u32,
    /// Sleep this long after the actions, before the final answer.
    #[serde(skip_serializing_if = "is_default")]
    pub sleep_ms: u64,
    /// Text written to stderr after the actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The final assistant text; default `Done.` (`OK` for probes). An
    /// empty string emits no assistant text at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Token counts; absent → defaults; `null` → the stream carries none.
    #[serde(deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub usage: Option<Option<Tokens>>,
    /// Claude's `total_cost_usd`; default computed from the tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// A run-level error, reported the CLI's way after the actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorSpec>,
    /// The CLI cannot work: it fails exactly as the real one does (its
    /// own words, stream and exit code), at start or after the actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail: Option<Fail>,
    /// The process exit status; default 0, or the CLI's own on an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<u8>,
}

/// Whether a field holds its default (so a written script leaves it out).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Tokens>>, D::Error> {
    Option::<Tokens>::deserialize(d).map(Some)
}

/// One shell command or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Commands {
    /// `"run": "make"`
    One(String),
    /// `"run": ["make", "make test"]`
    Many(Vec<String>),
}

impl Default for Commands {
    fn default() -> Self {
        Commands::Many(Vec::new())
    }
}

impl Commands {
    /// The commands, in order.
    pub fn list(&self) -> Vec<String> {
        match self {
            Commands::One(c) => vec![c.clone()],
            Commands::Many(v) => v.clone(),
        }
    }
}

/// A tool call that is only reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// The tool's name as the CLI would print it (`Read`, `view`, …).
    pub name: String,
    /// Its input (any JSON; default `{}`).
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
    /// Its output.
    #[serde(default)]
    pub output: String,
    /// Whether it succeeded (default true).
    #[serde(default = "yes")]
    pub ok: bool,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

fn yes() -> bool {
    true
}

/// Token counts. `input_tokens` includes the cached ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tokens {
    /// Input tokens, cached ones included.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens served from a cache.
    pub cached_input_tokens: u64,
}

impl Tokens {
    /// The default usage of a normal attempt.
    pub const ATTEMPT: Tokens = Tokens {
        input_tokens: 1200,
        output_tokens: 80,
        cached_input_tokens: 0,
    };
    /// The default usage of a probe.
    pub const PROBE: Tokens = Tokens {
        input_tokens: 12,
        output_tokens: 1,
        cached_input_tokens: 0,
    };

    /// Input tokens not served from a cache.
    pub fn uncached(&self) -> u64 {
        self.input_tokens.saturating_sub(self.cached_input_tokens)
    }
}

/// A run-level error: a bare message, or a kind with an optional message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ErrorSpec {
    /// `"error": "boom"` (kind `other`).
    Message(String),
    /// `"error": {"kind": "rate_limit", "message": "…"}`.
    Detailed {
        /// What went wrong.
        #[serde(default)]
        kind: ErrorKind,
        /// The text; default per kind and CLI.
        #[serde(default)]
        message: Option<String>,
    },
}

impl ErrorSpec {
    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ErrorSpec::Message(_) => ErrorKind::Other,
            ErrorSpec::Detailed { kind, .. } => *kind,
        }
    }

    /// The scripted message, if any.
    pub fn message(&self) -> Option<&str> {
        match self {
            ErrorSpec::Message(m) => Some(m),
            ErrorSpec::Detailed { message, .. } => message.as_deref(),
        }
    }
}

/// Kinds of run-level error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Not logged in or a bad key.
    Auth,
    /// Rate limited.
    RateLimit,
    /// Out of quota or credits.
    Quota,
    /// The vendor's server failed.
    Server,
    /// The model is unknown.
    Model,
    /// Anything else.
    #[default]
    Other,
}

/// A CLI that cannot work: `"fail": "auth"` or `"fail": {"kind":
/// "rate_limit", "resets_in_s": 2}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fail {
    /// Just the kind.
    Kind(FailKind),
    /// The kind and when a rate limit resets.
    Detailed(FailDetail),
}

impl Fail {
    /// The kind.
    pub fn kind(&self) -> FailKind {
        match self {
            Fail::Kind(k) => *k,
            Fail::Detailed(d) => d.kind,
        }
    }

    /// Seconds until a rate limit resets, when the script says.
    pub fn resets_in_s(&self) -> Option<u64> {
        match self {
            Fail::Kind(_) => None,
            Fail::Detailed(d) => d.resets_in_s,
        }
    }
}

/// `{"kind": …, "resets_in_s": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailDetail {
    /// What fails.
    pub kind: FailKind,
    /// For a rate limit: it resets this many seconds from now (the CLIs
    /// that say when: claude, codex, copilot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_in_s: Option<u64>,
}

/// How a CLI cannot work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailKind {
    /// Not logged in.
    Auth,
    /// Out of quota or credits.
    Quota,
    /// Rate limited (with `resets_in_s`, it says when it resets).
    RateLimit,
    /// No network: codex waits for it forever, claude and gemini retry then
    /// fail, copilot fails at its login check.
    Network,
    /// The CLI dies of a segmentation fault.
    Crash,
}

/// How a model behaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelStatus {
    /// Works.
    #[default]
    Ok,
    /// Does not exist.
    Unknown,
    /// Exists but the account's plan does not include it.
    Plan,
    /// Needs a login the CLI does not have.
    Unauthenticated,
    /// Works, but the CLI's own catalog does not list it (codex warns
    /// ``Model metadata for `M` not found…`` and goes on).
    Unlisted,
}

/// Whether the CLI is logged in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Auth {
    /// Logged in.
    #[default]
    Ok,
    /// Not logged in: every invocation fails the CLI's way.
    Missing,
}

/// Whether the CLI can reach its vendor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// It can.
    #[default]
    Up,
    /// It cannot: every invocation behaves as the CLI does offline.
    Down,
}

impl Script {
    /// Reads and parses a script file.
    pub fn load(path: &Path) -> Result<Script, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let script: Script = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a valid script: {e}", path.display()))?;
        script
            .markers
            .check()
            .map_err(|e| format!("{} is not a valid script: {e}", path.display()))?;
        Ok(script)
    }

    /// The attempt for a non-probe invocation numbered `index` (0-based)
    /// whose prompt is `prompt`.
    pub fn attempt_for(&self, index: u64, prompt: &str) -> Attempt {
        if let Some(rule) = self.on_prompt.iter().find(|r| prompt.contains(&r.contains)) {
            return rule.attempt.clone();
        }
        let i = usize::try_from(index).unwrap_or(usize::MAX);
        self.attempts
            .get(i)
            .or(self.attempts.last())
            .cloned()
            .unwrap_or_default()
    }

    /// The attempt a reasoner call performs: the first matching `reason`
    /// rule, else an empty answer.
    pub fn reasoner_attempt(&self, prompt: &str) -> Attempt {
        self.reason
            .iter()
            .find(|r| prompt.contains(&r.contains))
            .map(|r| r.attempt.clone())
            .unwrap_or_else(|| Attempt {
                text: Some(String::new()),
                ..Attempt::default()
            })
    }

    /// The attempt a probe performs.
    pub fn probe_attempt(&self) -> Attempt {
        self.probe.clone().unwrap_or_else(|| Attempt {
            text: Some("OK".into()),
            ..Attempt::default()
        })
    }

    /// How `model` behaves (checked under each of `names`).
    pub fn model_status(&self, names: &[&str]) -> ModelStatus {
        names
            .iter()
            .find_map(|n| self.models.get(*n).copied())
            .unwrap_or_default()
    }
}

/// Adds one to the counter in `path` (created at 0) under an exclusive
/// `flock`, returning the value before: the 0-based number of this call.
pub fn bump_counter(path: &Path) -> io::Result<u64> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    // SAFETY: flock on a descriptor we own; the lock is released when the
    // file is closed at the end of this function.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let n: u64 = text.trim().parse().unwrap_or(0);
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    writeln!(file, "{}", n + 1)?;
    Ok(n)
}

/// `<script>.<suffix>`, next to the script.
pub fn sidecar(script: &Path, suffix: &str) -> PathBuf {
    let mut name = script.as_os_str().to_os_string();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_absent_null_and_given_are_told_apart() {
        let a: Attempt = serde_json::from_str("{}").unwrap();
        assert_eq!(a.usage, None);
        let a: Attempt = serde_json::from_str(r#"{"usage": null}"#).unwrap();
        assert_eq!(a.usage, Some(None));
        let a: Attempt = serde_json::from_str(r#"{"usage": {"input_tokens": 5}}"#).unwrap();
        assert_eq!(
            a.usage,
            Some(Some(Tokens {
                input_tokens: 5,
                ..Tokens::default()
            }))
        );
    }

    #[test]
    fn a_written_script_holds_only_what_differs_and_reads_back() {
        assert_eq!(serde_json::to_string(&Script::default()).unwrap(), "{}");
        assert_eq!(serde_json::to_string(&Attempt::default()).unwrap(), "{}");
        let text = r#"{"attempts":[{"write":{"a":"b"},"retries":2,"usage":null}],"markers":{"probe":"P:"},"models":{"m":"unlisted"},"auth":"missing","network":"down"}"#;
        let script: Script = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&script).unwrap(), text);
    }

    #[test]
    fn typos_are_refused() {
        assert!(serde_json::from_str::<Attempt>(r#"{"wirte": {}}"#).is_err());
        assert!(serde_json::from_str::<Script>(r#"{"attempt": []}"#).is_err());
    }

    #[test]
    fn attempts_repeat_the_last_and_rules_win() {
        let s: Script = serde_json::from_str(
            r#"{"attempts": [{"text": "a"}, {"text": "b"}], "on_prompt": [{"contains": "again", "attempt": {"text": "r"}}]}"#,
        )
        .unwrap();
        assert_eq!(s.attempt_for(0, "x").text.as_deref(), Some("a"));
        assert_eq!(s.attempt_for(5, "x").text.as_deref(), Some("b"));
        assert_eq!(s.attempt_for(0, "do it again").text.as_deref(), Some("r"));
        assert_eq!(Script::default().attempt_for(3, "x"), Attempt::default());
    }

    #[test]
    fn markers_are_opt_in() {
        let none = Markers::default();
        assert!(!none.is_probe("P: hi"));
        assert!(!none.is_reasoner("R: lesson"));
        let m: Markers = serde_json::from_str(r#"{"probe": "P:", "reasoner": "R:"}"#).unwrap();
        assert!(m.is_probe("P: hi") && !m.is_reasoner("P: hi"));
        assert!(m.is_reasoner("R: lesson") && !m.is_probe("R: lesson"));
        assert!(!m.is_probe("say P: later") && !m.is_reasoner("say R: later"));
        let same = Markers {
            probe: Some("X".into()),
            reasoner: Some("X".into()),
        };
        assert!(same.is_probe("X") && !same.is_reasoner("X"), "a probe wins");
        assert!(serde_json::from_str::<Markers>(r#"{"probes": "P:"}"#).is_err());
        let empty = Markers {
            probe: Some(String::new()),
            reasoner: None,
        };
        assert!(empty.check().is_err());
        assert!(!empty.is_probe("anything"));
    }

    #[test]
    fn the_counter_counts() {
        let dir =
            std::env::temp_dir().join(format!("zurdo-standin-counter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.json.count");
        let _ = std::fs::remove_file(&path);
        assert_eq!(bump_counter(&path).unwrap(), 0);
        assert_eq!(bump_counter(&path).unwrap(), 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "2\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
