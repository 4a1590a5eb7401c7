//! The rule types: the declarative language a CLI's table is written in.
//!
//! A [`Vocabulary`] is one CLI's table: for each thing zurdo reads from a
//! stream (text, tool calls, usage, cost, the model, errors, the end of a
//! run) a list of rules saying, as data, which events carry it and where.
//! The reader (`reader.rs`) applies a table to a stream; the tables
//! themselves live one per CLI beside this file.

use crate::agent::Provider;

/// A path into an event: object keys from the event's root (or from the item
/// a rule is reading). The empty path is the object itself.
pub type Path = &'static [&'static str];

/// A test on the value at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Is {
    /// The string `s`.
    Str(&'static str),
    /// Anything but the string `s` (absent included).
    Not(&'static str),
    /// A string starting with the prefix.
    Prefix(&'static str),
    /// A string containing the text.
    Contains(&'static str),
    /// `true`.
    True,
    /// Anything but `true` (absent, null and `false` included).
    NotTrue,
    /// Absent or null.
    Absent,
    /// Present, not null, and not an empty string, array or object.
    Present,
    /// The number 0.
    Zero,
    /// A number other than 0.
    NonZero,
}

/// One test: the value at a path and what it must be.
pub type Test = (Path, Is);

/// Which events a rule reads.
#[derive(Debug, Clone, Copy)]
pub struct On {
    /// The event kinds (the value at [`Vocabulary::kind`]); `""` is an object
    /// with no kind — a single-object output such as Gemini's `-o json`.
    pub kinds: &'static [&'static str],
    /// Tests every one of which must hold.
    pub tests: &'static [Test],
}

/// Where a piece of text is.
#[derive(Debug, Clone, Copy)]
pub enum Text {
    /// The value at a path: a string, the `text` of content blocks, an array
    /// of strings (one per line), anything else as compact JSON.
    Field(Path),
    /// The `field` of every element of the array at `list` that passes
    /// `tests`, one per line (Claude's content blocks).
    Blocks {
        /// The array.
        list: Path,
        /// Tests on each element.
        tests: &'static [Test],
        /// The text in each element.
        field: Path,
    },
    /// A fixed prefix and the value at a path, when that value is present.
    Prefixed(&'static str, Path),
}

/// How a text rule feeds the final text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextMode {
    /// The CLI's own final answer; beats every message.
    Result,
    /// A whole assistant message; the last one stands.
    Message,
    /// A fragment of an assistant message: consecutive fragments join, and
    /// the fragment after any other event starts a new message.
    Delta,
}

/// A rule for assistant text.
#[derive(Debug, Clone, Copy)]
pub struct TextRule {
    /// The events.
    pub on: On,
    /// The text in them.
    pub at: Text,
    /// How it counts.
    pub mode: TextMode,
}

/// Where a tool rule's call objects are in an event.
#[derive(Debug, Clone, Copy)]
pub enum Items {
    /// One object at a path (`&[]`: the event itself).
    One(Path),
    /// Every element of the array at `list` that passes `tests`.
    Each {
        /// The array.
        list: Path,
        /// Tests on each element.
        tests: &'static [Test],
    },
}

/// How a tool call's input is summarised: the values at `fields` (objects
/// through [`Vocabulary::input_keys`]) joined by spaces; with `each`, once per
/// element of that array, joined by commas.
#[derive(Debug, Clone, Copy)]
pub struct Input {
    /// An array to summarise element by element.
    pub each: Option<Path>,
    /// The values to show.
    pub fields: &'static [Path],
}

/// How a tool call's success is read.
#[derive(Debug, Clone, Copy)]
pub enum Verdict {
    /// A boolean, `true` when the call succeeded.
    Flag(Path),
    /// A boolean, `true` when the call failed (`is_error`).
    Fault(Path),
    /// An exit code, 0 when the call succeeded.
    ExitCode(Path),
    /// A status string.
    Status {
        /// The status.
        at: Path,
        /// Values meaning success.
        ok: &'static [&'static str],
        /// Values meaning failure.
        failed: &'static [&'static str],
    },
}

/// A rule for tool calls. Calls are keyed by `id`: a rule that `opens` adds a
/// call not seen before (numbered in stream order); every rule fills in what
/// it carries of a known call (name, input, success, output).
#[derive(Debug, Clone, Copy)]
pub struct ToolRule {
    /// The events.
    pub on: On,
    /// The call objects in them.
    pub items: Items,
    /// The call id, in each object.
    pub id: Path,
    /// Whether an unseen id starts a call (otherwise it is ignored).
    pub opens: bool,
    /// The tool name.
    pub name: Option<Path>,
    /// The input.
    pub input: Option<Input>,
    /// Success, the first verdict that says.
    pub ok: &'static [Verdict],
    /// Output, the first non-empty one.
    pub output: &'static [Path],
}

/// How a usage or cost reading combines with earlier ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// It is the run's total.
    Replace,
    /// It adds to the total (per-turn counts).
    Add,
}

/// A rule for token counts: each field list is summed.
#[derive(Debug, Clone, Copy)]
pub struct UsageRule {
    /// The events.
    pub on: On,
    /// The object with the counts.
    pub at: Path,
    /// Whether `at` maps names (models) to count objects, all summed.
    pub per_entry: bool,
    /// Input tokens, cached included.
    pub input: &'static [Path],
    /// Cached input tokens.
    pub cached: &'static [Path],
    /// Output tokens.
    pub output: &'static [Path],
    /// How readings combine.
    pub fold: Fold,
}

/// A rule for the cost in USD.
#[derive(Debug, Clone, Copy)]
pub struct CostRule {
    /// The events.
    pub on: On,
    /// The number.
    pub at: Path,
    /// How readings combine.
    pub fold: Fold,
}

/// Where a model name is.
#[derive(Debug, Clone, Copy)]
pub enum ModelAt {
    /// A string at a path.
    Field(Path),
    /// The first key of an object at a path (per-model statistics).
    FirstKey(Path),
}

/// A rule for the model: the first rule (in stream order) to find one wins.
#[derive(Debug, Clone, Copy)]
pub struct ModelRule {
    /// The events.
    pub on: On,
    /// The name.
    pub at: ModelAt,
    /// Names that are no model (`<synthetic>`, `auto`).
    pub skip: &'static [&'static str],
}

/// How strong an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The run failed; the last fatal error stands.
    Fatal,
    /// A retry or warning notice: it stands when the stream does not reach a
    /// successful end after it.
    Pending,
    /// Used only when nothing else explains the failure.
    Fallback,
}

/// A rule for run-level errors: the text is the first of `text` present.
#[derive(Debug, Clone, Copy)]
pub struct ErrorRule {
    /// The events.
    pub on: On,
    /// How strong.
    pub level: Level,
    /// Where the message is.
    pub text: &'static [Text],
}

/// A rule for the events that end a run (or a turn). An end forgets tool-call
/// ids (a later run may reuse them); a successful end also clears pending and
/// fallback errors.
#[derive(Debug, Clone, Copy)]
pub struct EndRule {
    /// The events.
    pub on: On,
    /// Whether this end means the run succeeded.
    pub success: bool,
}

/// One CLI's event vocabulary.
#[derive(Debug, Clone, Copy)]
pub struct Vocabulary {
    /// The provider whose CLI writes this stream.
    pub provider: Provider,
    /// Where an event's kind is.
    pub kind: Path,
    /// Assistant text.
    pub text: &'static [TextRule],
    /// Tool calls.
    pub tools: &'static [ToolRule],
    /// Token counts.
    pub usage: &'static [UsageRule],
    /// Cost in USD.
    pub cost: &'static [CostRule],
    /// The model.
    pub model: &'static [ModelRule],
    /// Run-level errors.
    pub errors: &'static [ErrorRule],
    /// End-of-run events.
    pub ends: &'static [EndRule],
    /// Keys shown, in this order, when a tool input is an object; an object
    /// with none of them is shown as compact JSON.
    pub input_keys: &'static [&'static str],
    /// Prefixes of stderr lines that never explain a failure.
    pub stderr_noise: &'static [&'static str],
}

/// Rules on every event of these kinds.
pub(super) const fn on(kinds: &'static [&'static str]) -> On {
    On { kinds, tests: &[] }
}

/// Rules on the events of these kinds that pass every test.
pub(super) const fn on_if(kinds: &'static [&'static str], tests: &'static [Test]) -> On {
    On { kinds, tests }
}

/// The input keys every table shows (see [`Vocabulary::input_keys`]).
pub(super) const INPUT_KEYS: &[&str] = &[
    "command",
    "cmd",
    "pattern",
    "query",
    "url",
    "file_path",
    "absolute_path",
    "notebook_path",
    "dir_path",
    "path",
    "prompt",
];
