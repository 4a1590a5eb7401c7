//! The shared vocabulary: how zurdo reads each CLI's structured event stream.
//!
//! One descriptor per CLI ([`Vocabulary`], see [`CLAUDE`], [`CODEX`],
//! [`COPILOT`], [`GEMINI`]) says, as data, which events carry the assistant's
//! text, the tool calls, token usage, cost, the model and run-level errors.
//! One generic reader ([`read`], [`read_with`]) applies a descriptor to a
//! captured stdout/stderr pair and yields an [`AgentReport`]. The adapters and
//! the step summaries both read streams through it, so a CLI that changes its
//! event shapes is fixed in one table — and [`canary_silent`] and
//! [`usage_gap`] notice when a table has drifted.
//!
//! Reading rules shared by every CLI:
//!
//! - stdout is JSONL; a line that is not a JSON object is skipped and counted.
//!   A line opening a JSON object that does not close on it is read on to
//!   where the object ends, so single pretty-printed objects (`-o json`) read
//!   too.
//! - JSON objects on stderr (Gemini's `-o json` fatal errors) go through the
//!   error rules only.
//! - Errors come in three strengths: *fatal* (a failed turn, an `is_error`
//!   result), *pending* (a retry notice: it stands only when no successful
//!   end event follows) and *fallback* (a bare non-zero exit code).
//! - With no events on stdout, the error is the last meaningful stderr line(s)
//!   (known noise, stack frames and ANSI colours dropped; an `Error:` line is
//!   preferred, with its continuation lines), else the stdout text. A stream
//!   with events that never reached its end event and reports no error takes
//!   the last error-looking stderr line.
//! - Tool-call inputs are one line of at most [`MAX_INPUT_CHARS`] characters,
//!   outputs keep their last [`MAX_OUTPUT_BYTES`] bytes, the final text its
//!   last [`MAX_FINAL_TEXT_BYTES`] bytes and errors their first
//!   [`MAX_ERROR_BYTES`] bytes.

use std::collections::HashMap;

use serde_json::Value;

use super::{AgentReport, Provider, ToolCall, Usage};

/// Longest tool-call input summary, in characters.
pub const MAX_INPUT_CHARS: usize = 200;
/// Longest tool-call output kept (its tail), in bytes.
pub const MAX_OUTPUT_BYTES: usize = 2 * 1024;
/// Longest final text kept (its tail), in bytes.
pub const MAX_FINAL_TEXT_BYTES: usize = 64 * 1024;
/// Longest error text kept (its head), in bytes.
pub const MAX_ERROR_BYTES: usize = 2 * 1024;

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

const fn on(kinds: &'static [&'static str]) -> On {
    On { kinds, tests: &[] }
}

const fn on_if(kinds: &'static [&'static str], tests: &'static [Test]) -> On {
    On { kinds, tests }
}

const INPUT_KEYS: &[&str] = &[
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

/// Claude Code, `--output-format stream-json --verbose` (and
/// `--output-format json`, which prints the `result` event alone).
pub static CLAUDE: Vocabulary = Vocabulary {
    provider: Provider::Anthropic,
    kind: &["type"],
    text: &[
        TextRule {
            on: on_if(&["result"], &[(&["is_error"], Is::NotTrue)]),
            at: Text::Field(&["result"]),
            mode: TextMode::Result,
        },
        // Top-level assistant messages written by the model: not a
        // sub-agent's, not a synthetic error message.
        TextRule {
            on: on_if(
                &["assistant"],
                &[
                    (&["error"], Is::Absent),
                    (&["message", "model"], Is::Not("<synthetic>")),
                    (&["parent_tool_use_id"], Is::Absent),
                ],
            ),
            at: Text::Blocks {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("text"))],
                field: &["text"],
            },
            mode: TextMode::Message,
        },
    ],
    tools: &[
        ToolRule {
            on: on(&["assistant"]),
            items: Items::Each {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("tool_use"))],
            },
            id: &["id"],
            opens: true,
            name: Some(&["name"]),
            input: Some(Input {
                each: None,
                fields: &[&["input"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["user"]),
            items: Items::Each {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("tool_result"))],
            },
            id: &["tool_use_id"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Fault(&["is_error"])],
            output: &[&["content"]],
        },
    ],
    usage: &[UsageRule {
        on: on(&["result"]),
        at: &["usage"],
        per_entry: false,
        input: &[
            &["input_tokens"],
            &["cache_read_input_tokens"],
            &["cache_creation_input_tokens"],
        ],
        cached: &[&["cache_read_input_tokens"]],
        output: &[&["output_tokens"]],
        fold: Fold::Replace,
    }],
    cost: &[CostRule {
        on: on(&["result"]),
        at: &["total_cost_usd"],
        fold: Fold::Replace,
    }],
    model: &[
        ModelRule {
            on: on_if(&["system"], &[(&["subtype"], Is::Str("init"))]),
            at: ModelAt::Field(&["model"]),
            skip: &[],
        },
        ModelRule {
            on: on(&["assistant"]),
            at: ModelAt::Field(&["message", "model"]),
            skip: &["<synthetic>"],
        },
        ModelRule {
            on: on(&["result"]),
            at: ModelAt::FirstKey(&["modelUsage"]),
            skip: &[],
        },
    ],
    errors: &[
        // Judged by is_error, not subtype: a missing login comes back as
        // `"subtype":"success","is_error":true`.
        ErrorRule {
            on: on_if(&["result"], &[(&["is_error"], Is::True)]),
            level: Level::Fatal,
            text: CLAUDE_RESULT_ERROR,
        },
        // error_max_turns, error_during_execution, error_max_budget_usd…
        // carry `errors[]`; read them even if is_error were ever false.
        ErrorRule {
            on: on_if(&["result"], &[(&["subtype"], Is::Prefix("error"))]),
            level: Level::Fatal,
            text: CLAUDE_RESULT_ERROR,
        },
        // authentication_failed, model_not_found, rate_limit, server_error…
        ErrorRule {
            on: on_if(&["assistant"], &[(&["error"], Is::Present)]),
            level: Level::Pending,
            text: &[
                Text::Blocks {
                    list: &["message", "content"],
                    tests: &[(&["type"], Is::Str("text"))],
                    field: &["text"],
                },
                Text::Field(&["error"]),
            ],
        },
    ],
    ends: &[EndRule {
        on: on(&["result"]),
        success: true,
    }],
    input_keys: INPUT_KEYS,
    stderr_noise: &[],
};

const CLAUDE_RESULT_ERROR: &[Text] = &[
    Text::Field(&["result"]),
    Text::Field(&["errors"]),
    Text::Prefixed("result subtype ", &["subtype"]),
];

const CODEX_ITEM_EVENTS: &[&str] = &["item.started", "item.updated", "item.completed"];

const CODEX_STATUS: Verdict = Verdict::Status {
    at: &["status"],
    ok: &["completed"],
    failed: &["failed", "declined"],
};

/// Codex, `exec --json`.
pub static CODEX: Vocabulary = Vocabulary {
    provider: Provider::OpenAi,
    kind: &["type"],
    text: &[TextRule {
        on: on_if(
            &["item.completed"],
            &[(&["item", "type"], Is::Str("agent_message"))],
        ),
        at: Text::Field(&["item", "text"]),
        mode: TextMode::Message,
    }],
    tools: &[
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("command_execution"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["command"]],
            }),
            ok: &[Verdict::ExitCode(&["exit_code"]), CODEX_STATUS],
            output: &[&["aggregated_output"]],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("file_change"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: Some(&["changes"]),
                fields: &[&["kind"], &["path"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("mcp_tool_call"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["server"], &["tool"], &["arguments"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[&["error", "message"], &["result", "content"], &["result"]],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("web_search"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["query"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("collab_tool_call"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["tool"], &["prompt"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
    ],
    usage: &[UsageRule {
        on: on(&["turn.completed"]),
        at: &["usage"],
        per_entry: false,
        input: &[&["input_tokens"]],
        cached: &[&["cached_input_tokens"]],
        output: &[&["output_tokens"]],
        fold: Fold::Add,
    }],
    cost: &[],
    model: &[],
    errors: &[
        ErrorRule {
            on: on(&["turn.failed"]),
            level: Level::Fatal,
            text: &[Text::Field(&["error", "message"]), Text::Field(&["error"])],
        },
        // `Reconnecting... 2/5 …`: retries, fatal only if nothing follows.
        // (`item.completed` items of type `error` are warnings: not read.)
        ErrorRule {
            on: on(&["error"]),
            level: Level::Pending,
            text: &[Text::Field(&["message"])],
        },
    ],
    ends: &[
        EndRule {
            on: on(&["turn.completed"]),
            success: true,
        },
        EndRule {
            on: on(&["turn.failed"]),
            success: false,
        },
    ],
    input_keys: INPUT_KEYS,
    stderr_noise: &[
        "WARNING: proceeding, even though we could not create PATH aliases",
        "Reading additional input from stdin",
        "Reading prompt from stdin",
    ],
};

/// GitHub Copilot CLI, `--output-format json`.
pub static COPILOT: Vocabulary = Vocabulary {
    provider: Provider::Copilot,
    kind: &["type"],
    text: &[TextRule {
        on: on_if(
            &["assistant.message"],
            &[(&["data", "content"], Is::Present)],
        ),
        at: Text::Field(&["data", "content"]),
        mode: TextMode::Message,
    }],
    tools: &[
        ToolRule {
            on: on(&["tool.execution_start"]),
            items: Items::One(&["data"]),
            id: &["toolCallId"],
            opens: true,
            name: Some(&["toolName"]),
            input: Some(Input {
                each: None,
                fields: &[&["arguments"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["tool.execution_complete"]),
            items: Items::One(&["data"]),
            id: &["toolCallId"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Flag(&["success"])],
            output: &[
                &["error", "message"],
                &["result", "content"],
                &["result", "detailedContent"],
            ],
        },
    ],
    usage: &[UsageRule {
        on: on(&["assistant.message"]),
        at: &["data"],
        per_entry: false,
        input: &[],
        cached: &[],
        output: &[&["outputTokens"]],
        fold: Fold::Add,
    }],
    cost: &[],
    model: &[
        ModelRule {
            on: on(&["session.start"]),
            at: ModelAt::Field(&["data", "selectedModel"]),
            skip: &["auto"],
        },
        ModelRule {
            on: on(&["assistant.message"]),
            at: ModelAt::Field(&["data", "model"]),
            skip: &["auto"],
        },
    ],
    errors: &[
        // Stands unless the final `result` line says exitCode 0.
        ErrorRule {
            on: on(&["session.error"]),
            level: Level::Pending,
            text: &[
                Text::Field(&["data", "message"]),
                Text::Field(&["data", "errorType"]),
            ],
        },
        ErrorRule {
            on: on_if(&["result"], &[(&["exitCode"], Is::NonZero)]),
            level: Level::Fallback,
            text: &[
                Text::Prefixed("blocked: ", &["blocker"]),
                Text::Prefixed("copilot exit code ", &["exitCode"]),
            ],
        },
    ],
    ends: &[
        EndRule {
            on: on_if(&["result"], &[(&["exitCode"], Is::Zero)]),
            success: true,
        },
        EndRule {
            on: on(&["result"]),
            success: false,
        },
    ],
    input_keys: INPUT_KEYS,
    stderr_noise: &[],
};

/// Gemini CLI, `-o stream-json` (and `-o json`: one object with no `type`).
pub static GEMINI: Vocabulary = Vocabulary {
    provider: Provider::Google,
    kind: &["type"],
    text: &[
        TextRule {
            on: on_if(
                &["message"],
                &[(&["role"], Is::Str("assistant")), (&["delta"], Is::True)],
            ),
            at: Text::Field(&["content"]),
            mode: TextMode::Delta,
        },
        TextRule {
            on: on_if(
                &["message"],
                &[(&["role"], Is::Str("assistant")), (&["delta"], Is::NotTrue)],
            ),
            at: Text::Field(&["content"]),
            mode: TextMode::Message,
        },
        TextRule {
            on: on(&[""]),
            at: Text::Field(&["response"]),
            mode: TextMode::Result,
        },
    ],
    tools: &[
        ToolRule {
            on: on(&["tool_use"]),
            items: Items::One(&[]),
            id: &["tool_id"],
            opens: true,
            name: Some(&["tool_name"]),
            input: Some(Input {
                each: None,
                fields: &[&["parameters"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["tool_result"]),
            items: Items::One(&[]),
            id: &["tool_id"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Status {
                at: &["status"],
                ok: &["success"],
                failed: &["error"],
            }],
            output: &[&["error", "message"], &["output"]],
        },
    ],
    usage: &[
        UsageRule {
            on: on(&["result"]),
            at: &["stats"],
            per_entry: false,
            input: &[&["input_tokens"]],
            cached: &[&["cached"]],
            output: &[&["output_tokens"]],
            fold: Fold::Replace,
        },
        // `-o json`: stats.models.<model>.tokens {prompt, candidates, cached}.
        UsageRule {
            on: on(&[""]),
            at: &["stats", "models"],
            per_entry: true,
            input: &[&["tokens", "prompt"]],
            cached: &[&["tokens", "cached"]],
            output: &[&["tokens", "candidates"]],
            fold: Fold::Replace,
        },
    ],
    cost: &[],
    model: &[
        ModelRule {
            on: on(&["init"]),
            at: ModelAt::Field(&["model"]),
            skip: &[],
        },
        ModelRule {
            on: on(&["result", ""]),
            at: ModelAt::FirstKey(&["stats", "models"]),
            skip: &[],
        },
    ],
    errors: &[
        ErrorRule {
            on: on_if(&["error"], &[(&["severity"], Is::Str("error"))]),
            level: Level::Fatal,
            text: &[Text::Field(&["message"])],
        },
        ErrorRule {
            on: on_if(&["result"], &[(&["status"], Is::Str("error"))]),
            level: Level::Fatal,
            text: &[
                Text::Field(&["error", "message"]),
                Text::Field(&["error", "type"]),
                Text::Prefixed("result status ", &["status"]),
            ],
        },
        // `-o json`, on stdout or (fatal errors) on stderr.
        ErrorRule {
            on: on_if(&[""], &[(&["error"], Is::Present)]),
            level: Level::Fatal,
            text: &[
                Text::Field(&["error", "message"]),
                Text::Field(&["error", "type"]),
                Text::Field(&["error"]),
            ],
        },
    ],
    ends: &[EndRule {
        on: on(&["result", ""]),
        success: true,
    }],
    input_keys: INPUT_KEYS,
    stderr_noise: &[
        "Warning: Basic terminal detected",
        "Warning: 256-color support not detected",
        "YOLO mode is enabled",
        "Ripgrep is not available",
        "[STARTUP]",
        "Approval mode overridden",
        "Loaded cached credentials",
    ],
};

/// The vocabulary of a provider's CLI.
pub fn vocabulary(provider: Provider) -> &'static Vocabulary {
    match provider {
        Provider::Anthropic => &CLAUDE,
        Provider::OpenAi => &CODEX,
        Provider::Copilot => &COPILOT,
        Provider::Google => &GEMINI,
    }
}

/// Reads a CLI's stdout event stream (JSONL; non-JSON lines skipped and counted) and its stderr.
pub fn read(provider: Provider, stdout: &str, stderr: &str) -> AgentReport {
    read_with(vocabulary(provider), stdout, stderr)
}

/// The vocabulary canary: true when the stream parsed (events > 0) but yielded no assistant text.
pub fn canary_silent(report: &AgentReport) -> bool {
    report.events > 0 && !has_text(report)
}

/// The usage-gap check: assistant text but no token counts.
pub fn usage_gap(report: &AgentReport) -> bool {
    has_text(report)
        && report
            .usage
            .is_none_or(|u| u.input_tokens == 0 && u.output_tokens == 0)
}

fn has_text(report: &AgentReport) -> bool {
    report
        .final_text
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
}

/// Applies a vocabulary to a captured stdout/stderr pair.
pub fn read_with(vocab: &Vocabulary, stdout: &str, stderr: &str) -> AgentReport {
    let out = parse(stdout);
    let mut reader = Reader::new(vocab);
    for event in &out.events {
        reader.event(event);
    }
    let err = parse(stderr);
    for event in &err.events {
        reader.errors(event);
    }

    let final_text = reader
        .result_text
        .take()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| reader.message_text.take().filter(|t| !t.trim().is_empty()))
        .map(|t| tail(&t, MAX_FINAL_TEXT_BYTES));

    let mut error = reader
        .fatal
        .take()
        .or(reader.pending.take())
        .or(reader.fallback.take());
    if error.is_none() {
        error = if out.events.is_empty() {
            text_error(&err.text, vocab.stderr_noise, true)
                .or_else(|| text_error(&out.text, vocab.stderr_noise, true))
        } else if !reader.ended {
            text_error(&err.text, vocab.stderr_noise, false)
        } else {
            None
        };
    }

    AgentReport {
        final_text,
        tool_calls: reader.calls,
        usage: reader.usage,
        cost_usd: reader.cost,
        error: error.map(|e| head(e.trim(), MAX_ERROR_BYTES)),
        model: reader.model,
        events: out.events.len(),
        non_json_lines: out.text.iter().filter(|l| !l.trim().is_empty()).count(),
    }
}

/// A captured output split into JSON objects and the other lines (blank
/// ones included, in order).
struct Parsed<'a> {
    events: Vec<Value>,
    text: Vec<&'a str>,
}

fn parse(input: &str) -> Parsed<'_> {
    let mut parsed = Parsed {
        events: Vec::new(),
        text: Vec::new(),
    };
    let mut pos = 0;
    while pos < input.len() {
        let end = input[pos..].find('\n').map_or(input.len(), |i| pos + i);
        let line = input[pos..end].trim_end_matches('\r');
        let next = (end + 1).min(input.len());
        let trimmed = line.trim();
        if trimmed.starts_with('{') {
            if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
                parsed.events.push(value);
                pos = next;
                continue;
            }
            // An object spread over several lines (pretty-printed output).
            let mut stream = serde_json::Deserializer::from_str(&input[pos..]).into_iter::<Value>();
            if let Some(Ok(value @ Value::Object(_))) = stream.next() {
                let stop = pos + stream.byte_offset();
                let line_end = input[stop..].find('\n').map_or(input.len(), |i| stop + i);
                if input[stop..line_end].trim().is_empty() {
                    parsed.events.push(value);
                    pos = (line_end + 1).min(input.len());
                    continue;
                }
            }
        }
        parsed.text.push(line);
        pos = next;
    }
    parsed
}

/// The reading state of one stream.
struct Reader<'v> {
    vocab: &'v Vocabulary,
    result_text: Option<String>,
    message_text: Option<String>,
    delta_open: bool,
    calls: Vec<ToolCall>,
    ids: HashMap<String, usize>,
    usage: Option<Usage>,
    cost: Option<f64>,
    model: Option<String>,
    fatal: Option<String>,
    pending: Option<String>,
    fallback: Option<String>,
    ended: bool,
}

impl<'v> Reader<'v> {
    fn new(vocab: &'v Vocabulary) -> Self {
        Reader {
            vocab,
            result_text: None,
            message_text: None,
            delta_open: false,
            calls: Vec::new(),
            ids: HashMap::new(),
            usage: None,
            cost: None,
            model: None,
            fatal: None,
            pending: None,
            fallback: None,
            ended: false,
        }
    }

    fn matches(&self, on: &On, event: &Value) -> bool {
        let kind = get(event, self.vocab.kind)
            .and_then(Value::as_str)
            .unwrap_or("");
        on.kinds.contains(&kind) && passes(event, on.tests)
    }

    fn event(&mut self, event: &Value) {
        let vocab = self.vocab;
        self.text(event);
        for rule in vocab.tools {
            if self.matches(&rule.on, event) {
                self.tools(rule, event);
            }
        }
        for rule in vocab.usage {
            if self.matches(&rule.on, event) {
                if let Some(u) = usage_at(rule, event) {
                    self.usage = Some(match (rule.fold, self.usage) {
                        (Fold::Add, Some(prev)) => Usage {
                            input_tokens: prev.input_tokens + u.input_tokens,
                            output_tokens: prev.output_tokens + u.output_tokens,
                            cached_input_tokens: prev.cached_input_tokens + u.cached_input_tokens,
                        },
                        _ => u,
                    });
                }
            }
        }
        for rule in vocab.cost {
            if self.matches(&rule.on, event) {
                if let Some(c) = get(event, rule.at).and_then(Value::as_f64) {
                    self.cost = Some(match (rule.fold, self.cost) {
                        (Fold::Add, Some(prev)) => prev + c,
                        _ => c,
                    });
                }
            }
        }
        if self.model.is_none() {
            for rule in vocab.model {
                if self.matches(&rule.on, event) {
                    let name = match rule.at {
                        ModelAt::Field(p) => get(event, p).and_then(Value::as_str),
                        ModelAt::FirstKey(p) => get(event, p)
                            .and_then(Value::as_object)
                            .and_then(|m| m.keys().next())
                            .map(String::as_str),
                    };
                    if let Some(name) = name.filter(|n| !n.is_empty() && !rule.skip.contains(n)) {
                        self.model = Some(name.to_string());
                        break;
                    }
                }
            }
        }
        self.errors(event);
        for rule in vocab.ends {
            if self.matches(&rule.on, event) {
                self.ended = true;
                // Ids are scoped to a run: a later run may reuse them.
                self.ids.clear();
                if rule.success {
                    self.pending = None;
                    self.fallback = None;
                }
            }
        }
    }

    fn text(&mut self, event: &Value) {
        let mut delta = false;
        for rule in self.vocab.text {
            if !self.matches(&rule.on, event) {
                continue;
            }
            let Some(text) = text_at(&rule.at, event) else {
                continue;
            };
            match rule.mode {
                TextMode::Result => self.result_text = Some(text),
                TextMode::Message => self.message_text = Some(text),
                TextMode::Delta => {
                    delta = true;
                    match (&mut self.message_text, self.delta_open) {
                        (Some(acc), true) => {
                            acc.push_str(&text);
                            if acc.len() > 2 * MAX_FINAL_TEXT_BYTES {
                                *acc = tail(acc, MAX_FINAL_TEXT_BYTES);
                            }
                        }
                        _ => self.message_text = Some(text),
                    }
                }
            }
        }
        self.delta_open = delta;
    }

    fn tools(&mut self, rule: &ToolRule, event: &Value) {
        let items: Vec<&Value> = match rule.items {
            Items::One(p) => get(event, p).into_iter().collect(),
            Items::Each { list, tests } => get(event, list)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter(|b| passes(b, tests)).collect())
                .unwrap_or_default(),
        };
        for item in items {
            let id = get(item, rule.id).and_then(|v| match v {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
            let index = match id.as_ref().and_then(|id| self.ids.get(id)) {
                Some(&i) => i,
                None if rule.opens => {
                    self.calls.push(ToolCall {
                        step: self.calls.len() + 1,
                        ..ToolCall::default()
                    });
                    if let Some(id) = id {
                        self.ids.insert(id, self.calls.len() - 1);
                    }
                    self.calls.len() - 1
                }
                None => continue,
            };
            let call = &mut self.calls[index];
            if let Some(name) = rule
                .name
                .and_then(|p| get(item, p))
                .map(value_text)
                .filter(|n| !n.is_empty())
            {
                call.name = name;
            }
            if let Some(input) = &rule.input {
                let summary = input_summary(item, input, self.vocab.input_keys);
                if !summary.is_empty() {
                    call.input = summary;
                }
            }
            if let Some(ok) = rule.ok.iter().find_map(|v| verdict(v, item)) {
                call.ok = Some(ok);
            }
            if let Some(output) = rule
                .output
                .iter()
                .filter_map(|p| get(item, p))
                .map(value_text)
                .find(|t| !t.trim().is_empty())
            {
                call.output = tail(&output, MAX_OUTPUT_BYTES);
            }
        }
    }

    fn errors(&mut self, event: &Value) {
        for rule in self.vocab.errors {
            if !self.matches(&rule.on, event) {
                continue;
            }
            let Some(text) = rule.text.iter().find_map(|t| text_at(t, event)) else {
                continue;
            };
            match rule.level {
                Level::Fatal => self.fatal = Some(text),
                Level::Pending => self.pending = Some(text),
                Level::Fallback => self.fallback = Some(text),
            }
        }
    }
}

fn get(value: &Value, path: Path) -> Option<&Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

fn passes(value: &Value, tests: &[Test]) -> bool {
    tests.iter().all(|(path, is)| holds(get(value, path), *is))
}

fn holds(value: Option<&Value>, is: Is) -> bool {
    let value = value.filter(|v| !v.is_null());
    match is {
        Is::Str(s) => value.and_then(Value::as_str) == Some(s),
        Is::Not(s) => value.and_then(Value::as_str) != Some(s),
        Is::Prefix(p) => value
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with(p)),
        Is::True => value == Some(&Value::Bool(true)),
        Is::NotTrue => value != Some(&Value::Bool(true)),
        Is::Absent => value.is_none(),
        Is::Present => match value {
            None => false,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
            Some(_) => true,
        },
        Is::Zero => value.and_then(Value::as_f64) == Some(0.0),
        Is::NonZero => value.and_then(Value::as_f64).is_some_and(|n| n != 0.0),
    }
}

/// The text of a value: strings as they are, content blocks by their `text`,
/// arrays one element per line, anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(value_text)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => match o.get("text") {
            Some(Value::String(t)) => t.clone(),
            _ => value.to_string(),
        },
        _ => value.to_string(),
    }
}

fn text_at(at: &Text, event: &Value) -> Option<String> {
    let text = match *at {
        Text::Field(p) => get(event, p).map(value_text)?,
        Text::Blocks { list, tests, field } => get(event, list)?
            .as_array()?
            .iter()
            .filter(|b| passes(b, tests))
            .filter_map(|b| get(b, field))
            .map(value_text)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Text::Prefixed(prefix, p) => {
            let v = get(event, p).map(value_text)?;
            if v.is_empty() {
                return None;
            }
            format!("{prefix}{v}")
        }
    };
    (!text.trim().is_empty()).then_some(text)
}

fn verdict(v: &Verdict, item: &Value) -> Option<bool> {
    match *v {
        Verdict::Flag(p) => get(item, p).and_then(Value::as_bool),
        Verdict::Fault(p) => get(item, p).and_then(Value::as_bool).map(|f| !f),
        Verdict::ExitCode(p) => get(item, p).and_then(Value::as_i64).map(|c| c == 0),
        Verdict::Status { at, ok, failed } => {
            let s = get(item, at).and_then(Value::as_str)?;
            if ok.contains(&s) {
                Some(true)
            } else if failed.contains(&s) {
                Some(false)
            } else {
                None
            }
        }
    }
}

fn usage_at(rule: &UsageRule, event: &Value) -> Option<Usage> {
    let base = get(event, rule.at)?;
    let entries: Vec<&Value> = if rule.per_entry {
        base.as_object()?.values().collect()
    } else {
        vec![base]
    };
    let mut usage = Usage::default();
    let mut found = false;
    let mut sum = |entry: &Value, paths: &[Path], into: &mut u64| {
        for p in paths {
            if let Some(n) = get(entry, p).and_then(count) {
                *into += n;
                found = true;
            }
        }
    };
    for entry in entries {
        sum(entry, rule.input, &mut usage.input_tokens);
        sum(entry, rule.cached, &mut usage.cached_input_tokens);
        sum(entry, rule.output, &mut usage.output_tokens);
    }
    found.then_some(usage)
}

fn count(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

fn input_summary(item: &Value, input: &Input, keys: &[&str]) -> String {
    let fields = |v: &Value| {
        input
            .fields
            .iter()
            .filter_map(|p| get(v, p))
            .map(|x| summarise(x, keys))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let text = match input.each {
        None => fields(item),
        Some(list) => get(item, list)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(fields)
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default(),
    };
    one_line(&text, MAX_INPUT_CHARS)
}

/// A tool input on one line: an object by its telling keys, else as JSON.
fn summarise(value: &Value, keys: &[&str]) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => {
            if s.trim_start().starts_with('{') {
                if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                    return summarise(&object, keys);
                }
            }
            s.clone()
        }
        Value::Object(o) => {
            let picked: Vec<String> = keys
                .iter()
                .filter_map(|k| o.get(*k))
                .filter_map(|v| match v {
                    Value::String(s) if !s.is_empty() => Some(s.clone()),
                    Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
                    _ => None,
                })
                .collect();
            if picked.is_empty() {
                value.to_string()
            } else {
                picked.join(" ")
            }
        }
        _ => value.to_string(),
    }
}

fn one_line(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max_chars {
        return line;
    }
    let mut cut: String = line.chars().take(max_chars - 1).collect();
    cut.push('…');
    cut
}

/// The last `max` bytes of `text` (on a character boundary), marked with `…`
/// when cut.
fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - (max - '…'.len_utf8());
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

/// The first `max` bytes of `text` (on a character boundary), marked with `…`
/// when cut.
fn head(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The error a CLI printed as text: the last `Error:`-like line with its
/// continuation lines, else (with `any`) the last meaningful line or
/// (without) the last error-looking one.
fn text_error(lines: &[&str], noise: &[&str], any: bool) -> Option<String> {
    let clean: Vec<Option<String>> = lines
        .iter()
        .map(|line| {
            let line = strip_ansi(line);
            let t = line.trim();
            (!t.is_empty() && !is_noise(t, noise)).then(|| t.to_string())
        })
        .collect();
    let marker = (0..clean.len())
        .rev()
        .find(|&i| clean[i].as_deref().is_some_and(is_error_marker));
    if let Some(i) = marker {
        let mut parts: Vec<&str> = vec![clean[i].as_deref().unwrap_or_default()];
        for line in clean[i + 1..].iter().take(3) {
            match line.as_deref() {
                Some(t) if !is_error_marker(t) => parts.push(t),
                _ => break,
            }
        }
        return Some(parts.join(" "));
    }
    clean
        .iter()
        .rev()
        .flatten()
        .find(|t| any || looks_like_error(t))
        .cloned()
}

fn is_noise(line: &str, noise: &[&str]) -> bool {
    let stack_frame = line.starts_with("at ")
        && (line.contains("file://") || line.contains("node:") || line.ends_with(')'));
    stack_frame || noise.iter().any(|n| line.starts_with(n))
}

fn is_error_marker(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.starts_with("error") || lower.starts_with("fatal") || line.contains(" ERROR ")
}

fn looks_like_error(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    is_error_marker(line)
        || lower.contains("error")
        || lower.contains("failed")
        || lower.contains("exception")
}

/// `line` without ANSI escape sequences (colours).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                // OSC: up to BEL or ESC \.
                for c in chars.by_ref() {
                    if c == '\u{7}' || c == '\u{1b}' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A captured file under `tests/fixtures/streams/`.
    macro_rules! fixture {
        ($name:literal) => {
            include_str!(concat!("../../tests/fixtures/streams/", $name))
        };
    }

    /// Replays a real run: its stdout and stderr.
    macro_rules! run {
        ($provider:expr, $name:literal) => {
            read(
                $provider,
                include_str!(concat!("../../tests/fixtures/streams/", $name, ".stdout")),
                include_str!(concat!("../../tests/fixtures/streams/", $name, ".stderr")),
            )
        };
    }

    const NOT_LOGGED_IN: &str = "Not logged in · Please run /login";
    const GEMINI_AUTH: &str = "Please set an Auth method in your /home/user/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA";
    const CODEX_OFFLINE: &str =
        "Reconnecting... waiting for network (Connection failed: error sending request)";
    const ZERO: Usage = Usage {
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
    };

    fn usage(input: u64, output: u64, cached: u64) -> Option<Usage> {
        Some(Usage {
            input_tokens: input,
            output_tokens: output,
            cached_input_tokens: cached,
        })
    }

    fn names(report: &AgentReport) -> Vec<&str> {
        report.tool_calls.iter().map(|c| c.name.as_str()).collect()
    }

    // ---- Claude Code: real runs -------------------------------------------

    #[test]
    fn claude_streamjson_not_logged_in_judged_by_is_error() {
        let r = run!(Provider::Anthropic, "claude-streamjson");
        assert_eq!(r.events, 3);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        // The synthetic message and the is_error result are not an answer.
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.cost_usd, Some(0.0));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-8[1m]"));
        assert!(r.tool_calls.is_empty());
        assert!(canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn claude_json_single_result_objects() {
        for (stdout, stderr) in [
            (
                fixture!("claude-json.stdout"),
                fixture!("claude-json.stderr"),
            ),
            (
                fixture!("claude-badmodel.stdout"),
                fixture!("claude-badmodel.stderr"),
            ),
            (
                fixture!("claude-stdin.stdout"),
                fixture!("claude-stdin.stderr"),
            ),
        ] {
            let r = read(Provider::Anthropic, stdout, stderr);
            assert_eq!(r.events, 1);
            assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
            assert_eq!(r.final_text, None);
            assert_eq!(r.usage, Some(ZERO));
            assert_eq!(r.cost_usd, Some(0.0));
            // modelUsage is `{}`: no model before the login check.
            assert_eq!(r.model, None);
        }
    }

    #[test]
    fn claude_maxturns_sandbox_reads_the_resolved_model() {
        let r = run!(Provider::Anthropic, "claude-maxturns-sandbox");
        assert_eq!(r.events, 3);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-5"));
        assert_eq!(r.final_text, None);
    }

    #[test]
    fn claude_fakekey_retries_then_connection_error() {
        let r = run!(Provider::Anthropic, "claude-fakekey-long");
        assert_eq!(r.events, 13); // init, 10 api_retry, assistant, result
        assert_eq!(
            r.error.as_deref(),
            Some("API Error: Unable to connect to API (ConnectionRefused)")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.cost_usd, Some(0.0));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-8[1m]"));
    }

    #[test]
    fn claude_stderr_only_failures() {
        let root = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";
        for r in [
            run!(Provider::Anthropic, "claude-maxturns"),
            run!(Provider::Anthropic, "claude-bypassmode-root"),
        ] {
            assert_eq!(r.events, 0);
            assert_eq!(r.error.as_deref(), Some(root));
            assert!(!canary_silent(&r));
        }
        let r = run!(Provider::Anthropic, "claude-noverbose");
        assert_eq!(r.events, 0);
        assert_eq!(
            r.error.as_deref(),
            Some("Error: When using --print, --output-format=stream-json requires --verbose")
        );
    }

    #[test]
    fn claude_text_output_is_skipped_counted_and_explains_the_failure() {
        let r = run!(Provider::Anthropic, "claude-text");
        assert_eq!(r.events, 0);
        assert_eq!(r.non_json_lines, 1);
        assert_eq!(r.final_text, None);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        assert!(!canary_silent(&r));
    }

    // ---- Claude Code: public captures -------------------------------------

    #[test]
    fn claude_public_basic_query() {
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-basic_query.ndjson"),
            "",
        );
        assert_eq!(r.events, 3);
        assert_eq!(r.final_text.as_deref(), Some("4"));
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.usage, usage(10 + 21570, 25, 0));
        assert_eq!(r.cost_usd, Some(0.1354875));
        assert!(r.cost_usd.unwrap() > 0.0);
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert_eq!(r.error, None);
        assert!(!canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn claude_public_session_tool_call_matched_by_id() {
        // Three pretty-printed events of one session, one after the other.
        let stream = [
            fixture!("public-claude-assistant_message.json"),
            fixture!("public-claude-user_message.json"),
            fixture!("public-claude-result_success.json"),
        ]
        .join("\n");
        let r = read(Provider::Anthropic, &stream, "");
        assert_eq!(r.events, 3);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "Bash".into(),
                input: "ls -la".into(),
                ok: Some(true),
                output: "total 1976\ndrwxrwxr-x  9 cyou cyou    4096 Jan 11 00:22 .\ndrwxr-x--- 54 cyou cyou    4096 Jan 11 00:26 ..".into(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Here are the files in the current directory.")
        );
        assert_eq!(r.usage, usage(18 + 25067 + 17254, 424, 17254));
        assert_eq!(r.cost_usd, Some(0.24722425));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert_eq!(r.error, None);
    }

    #[test]
    fn claude_public_single_events() {
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-assistant_message.json"),
            "",
        );
        assert_eq!(r.events, 1);
        assert_eq!(names(&r), ["Bash"]);
        assert_eq!(r.tool_calls[0].ok, None);
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert!(canary_silent(&r));

        // A result for a call never opened is not a call.
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-user_message.json"),
            "",
        );
        assert_eq!(r.events, 1);
        assert!(r.tool_calls.is_empty());

        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-result_success.json"),
            "",
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Here are the files in the current directory.")
        );
        // No init event: the model comes from modelUsage.
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
    }

    // ---- Claude Code: shapes no capture covers ----------------------------

    #[test]
    fn claude_error_subtypes_carry_errors() {
        let stream = r#"{"type":"system","subtype":"init","model":"claude-sonnet-5"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"text","text":"Working on it."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"src/lib.rs"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"no such file"}],"is_error":true}]}}
{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (3)"],"total_cost_usd":0.5,"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":7}}
"#;
        let r = read(Provider::Anthropic, stream, "");
        assert_eq!(
            r.error.as_deref(),
            Some("Reached maximum number of turns (3)")
        );
        assert_eq!(r.final_text.as_deref(), Some("Working on it."));
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "Read".into(),
                input: "src/lib.rs".into(),
                ok: Some(false),
                output: "no such file".into(),
            }]
        );
        assert_eq!(r.usage, usage(125, 7, 100));
        assert_eq!(r.cost_usd, Some(0.5));
    }

    #[test]
    fn claude_assistant_error_field_and_recovery() {
        let model_missing = r#"{"type":"system","subtype":"init","model":"nope"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"There's an issue with the selected model (nope)."}]},"error":"model_not_found"}
"#;
        // No result line (killed): the assistant error stands.
        let r = read(Provider::Anthropic, model_missing, "");
        assert_eq!(
            r.error.as_deref(),
            Some("There's an issue with the selected model (nope).")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.model.as_deref(), Some("nope"));

        // A rate-limit notice followed by a successful result is no error.
        let recovered = r#"{"type":"assistant","message":{"model":"<synthetic>","content":[]},"error":"rate_limit"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"text","text":"done"}]}}
{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.01,"usage":{"input_tokens":1,"output_tokens":2}}
"#;
        let r = read(Provider::Anthropic, recovered, "");
        assert_eq!(r.error, None);
        assert_eq!(r.final_text.as_deref(), Some("done"));
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-5"));
    }

    #[test]
    fn claude_subagent_text_is_not_the_final_text() {
        let stream = r#"{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"main"}]},"parent_tool_use_id":null}
{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"sub-agent"}]},"parent_tool_use_id":"t9"}
"#;
        let r = read(Provider::Anthropic, stream, "");
        assert_eq!(r.final_text.as_deref(), Some("main"));
        assert!(usage_gap(&r));
    }

    // ---- Codex: real runs -------------------------------------------------

    #[test]
    fn codex_network_down_keeps_the_last_retry_as_error() {
        let r = run!(Provider::OpenAi, "codex-json");
        assert_eq!(r.events, 9);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(CODEX_OFFLINE));
        // The `error` item (WebSocket fallback) is a warning, not an answer.
        assert_eq!(r.final_text, None);
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.usage, None);
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.model, None);
        assert!(canary_silent(&r));

        let r = run!(Provider::OpenAi, "codex-json-long");
        assert_eq!(r.events, 17);
        assert_eq!(r.error.as_deref(), Some(CODEX_OFFLINE));
        assert_eq!(r.final_text, None);
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn codex_stderr_only_failures() {
        let r = run!(Provider::OpenAi, "codex-json-nogit");
        assert_eq!(r.events, 0);
        assert_eq!(
            r.error.as_deref(),
            Some("Not inside a trusted directory and --skip-git-repo-check was not specified.")
        );
        let r = run!(Provider::OpenAi, "codex-noprompt");
        assert_eq!(r.error.as_deref(), Some("No prompt provided via stdin."));
        let r = run!(Provider::OpenAi, "codex-badflag");
        assert_eq!(
            r.error.as_deref(),
            Some("error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>' [possible values: read-only, workspace-write, danger-full-access]")
        );
    }

    // ---- Codex: public captures -------------------------------------------

    #[test]
    fn codex_public_command_execution() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-2.jsonl"),
            "",
        );
        assert_eq!(r.events, 7);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "command_execution".into(),
                input: "bash -lc ls".into(),
                ok: Some(true),
                output: "stream-output-1.jsonl\nstream-output-2.jsonl\ntest.js\n".into(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Files here: `stream-output-1.jsonl`, `stream-output-2.jsonl`, `test.js`.")
        );
        assert_eq!(r.usage, usage(6040, 129, 4992));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.error, None);
        assert!(!usage_gap(&r));
    }

    #[test]
    fn codex_public_file_change() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-3.jsonl"),
            "",
        );
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "file_change".into(),
                input: "add /private/tmp/codex-research-test/hello.txt".into(),
                ok: Some(true),
                output: String::new(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Created `hello.txt` containing `Hello from Codex`.")
        );
        assert_eq!(r.usage, usage(6008, 51, 4096));
        assert_eq!(r.error, None);
    }

    #[test]
    fn codex_public_reads_and_listings() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-4.jsonl"),
            "",
        );
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].input, "bash -lc 'cat test.js'");
        assert_eq!(r.tool_calls[0].ok, Some(true));
        assert_eq!(r.tool_calls[0].output, "console.log('Hello World');\n");
        assert!(r
            .final_text
            .as_deref()
            .unwrap()
            .starts_with("`test.js` simply contains"));
        assert_eq!(r.usage, usage(6087, 204, 5120));

        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-5.jsonl"),
            "",
        );
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].input, "zsh -lc ls");
        assert_eq!(r.tool_calls[0].ok, Some(true));
        assert!(r.tool_calls[0]
            .output
            .ends_with("stream-output-5.jsonl\ntest.js\n"));
        assert!(r
            .final_text
            .as_deref()
            .unwrap()
            .starts_with("Found 1 text file"));
        assert_eq!(r.usage, usage(6086, 223, 2944));
    }

    #[test]
    fn codex_usage_sums_over_turns() {
        // Two captured runs back to back read as one two-turn stream.
        let stream = [
            fixture!("public-codex-stream-output-2.jsonl"),
            fixture!("public-codex-stream-output-3.jsonl"),
        ]
        .concat();
        let r = read(Provider::OpenAi, &stream, "");
        assert_eq!(r.usage, usage(6040 + 6008, 129 + 51, 4992 + 4096));
        assert_eq!(names(&r), ["command_execution", "file_change"]);
        assert_eq!(
            r.final_text.as_deref(),
            Some("Created `hello.txt` containing `Hello from Codex`.")
        );
    }

    // ---- Codex: shapes no capture covers ----------------------------------

    #[test]
    fn codex_failed_turn_exit_codes_and_other_items() {
        let stream = r#"{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"","status":"in_progress"}}
{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"search","arguments":{"query":"bug"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"search","arguments":{"query":"bug"},"result":{"content":[{"type":"text","text":"3 issues"}]},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"test failed\n","exit_code":101,"status":"failed"}}
{"type":"item.completed","item":{"id":"item_3","type":"web_search","query":"rust serde flatten"}}
{"type":"item.completed","item":{"id":"item_4","type":"error","message":"a warning"}}
{"type":"error","message":"Reconnecting... 1/5"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: bad key"}}
"#;
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(
            r.error.as_deref(),
            Some("unexpected status 401 Unauthorized: bad key")
        );
        assert_eq!(r.final_text, None);
        // Ordered by first sighting, completed later.
        assert_eq!(
            names(&r),
            ["command_execution", "mcp_tool_call", "web_search"]
        );
        assert_eq!(r.tool_calls[0].ok, Some(false));
        assert_eq!(r.tool_calls[0].output, "test failed\n");
        assert_eq!(r.tool_calls[1].input, "github search bug");
        assert_eq!(r.tool_calls[1].ok, Some(true));
        assert_eq!(r.tool_calls[1].output, "3 issues");
        assert_eq!(r.tool_calls[2].input, "rust serde flatten");
        assert_eq!(r.tool_calls[2].ok, None);
        assert_eq!(
            r.tool_calls.iter().map(|c| c.step).collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn codex_retries_then_success_is_no_error() {
        let stream = r#"{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}
"#;
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(r.error, None);
        assert_eq!(r.final_text.as_deref(), Some("ok"));
        assert_eq!(r.usage, usage(10, 3, 0));
    }

    // ---- Copilot ----------------------------------------------------------

    #[test]
    fn copilot_stderr_auth_errors() {
        for r in [
            run!(Provider::Copilot, "copilot-json"),
            run!(Provider::Copilot, "copilot-stdin"),
            run!(Provider::Copilot, "copilot-text"),
        ] {
            assert_eq!(r.events, 0);
            assert_eq!(
                r.error.as_deref(),
                Some("Error: No authentication information found.")
            );
            assert_eq!(r.final_text, None);
            assert!(!canary_silent(&r));
        }
        let r = run!(Provider::Copilot, "copilot-fake");
        assert_eq!(
            r.error.as_deref(),
            Some("Error: Authentication token found but could not be validated.")
        );
    }

    const COPILOT_SUCCESS: &str = r#"{"type":"session.start","data":{"sessionId":"s","selectedModel":"gpt-5.4","context":{"cwd":"/w"},"copilotVersion":"1.0.102"},"id":"1","timestamp":"t","parentId":null}
{"type":"user.message","data":{"content":"fix the test"},"id":"2"}
{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"3"}
{"type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"Let me"},"id":"4","ephemeral":true}
{"type":"assistant.message","data":{"messageId":"m1","content":"Let me look.","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"cargo test","description":"run tests"},"type":"function"}],"outputTokens":12},"id":"5"}
{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"cargo test","description":"run tests"}},"id":"6"}
{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"test result: ok. 3 passed","detailedContent":"…"}},"id":"7"}
{"type":"assistant.message","data":{"messageId":"m2","content":"","toolRequests":[{"toolCallId":"c2","name":"edit","arguments":"{\"path\":\"src/lib.rs\",\"old_str\":\"a\",\"new_str\":\"b\"}","type":"function"}],"outputTokens":30},"id":"8"}
{"type":"tool.execution_start","data":{"toolCallId":"c2","toolName":"edit","arguments":"{\"path\":\"src/lib.rs\",\"old_str\":\"a\",\"new_str\":\"b\"}"},"id":"9"}
{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":false,"error":{"message":"old_str not found"}},"id":"10"}
{"type":"session.error","data":{"errorType":"model_call","message":"transient 503"},"id":"11"}
{"type":"assistant.message","data":{"messageId":"m3","content":"Fixed the failing test.","toolRequests":[],"outputTokens":8},"id":"12"}
{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"13"}
{"type":"result","timestamp":"t","sessionId":"s","exitCode":0,"usage":{"premiumRequests":1,"totalApiDurationMs":900,"sessionDurationMs":1200,"codeChanges":{"linesAdded":1,"linesRemoved":1,"filesModified":["src/lib.rs"]}}}
"#;

    #[test]
    fn copilot_success_with_tool_calls_and_output_tokens() {
        let r = read(Provider::Copilot, COPILOT_SUCCESS, "");
        assert_eq!(r.events, 14);
        assert_eq!(r.final_text.as_deref(), Some("Fixed the failing test."));
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall {
                    step: 1,
                    name: "bash".into(),
                    input: "cargo test".into(),
                    ok: Some(true),
                    output: "test result: ok. 3 passed".into(),
                },
                ToolCall {
                    step: 2,
                    name: "edit".into(),
                    input: "src/lib.rs".into(),
                    ok: Some(false),
                    output: "old_str not found".into(),
                },
            ]
        );
        assert_eq!(r.usage, usage(0, 12 + 30 + 8, 0));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.model.as_deref(), Some("gpt-5.4"));
        // exitCode 0 clears the transient session.error.
        assert_eq!(r.error, None);
        assert!(!usage_gap(&r));
        assert!(!canary_silent(&r));
    }

    #[test]
    fn copilot_session_error_and_exit_code() {
        let stream = r#"{"type":"session.start","data":{"selectedModel":"auto"}}
{"type":"session.error","data":{"errorType":"quota","message":"You have no quota","errorCode":"quota_exceeded"}}
{"type":"result","exitCode":1}
"#;
        let r = read(Provider::Copilot, stream, "");
        assert_eq!(r.error.as_deref(), Some("You have no quota"));
        assert_eq!(r.model, None);
        assert!(canary_silent(&r));

        let r = read(Provider::Copilot, r#"{"type":"result","exitCode":1}"#, "");
        assert_eq!(r.error.as_deref(), Some("copilot exit code 1"));
    }

    // ---- Gemini: real runs ------------------------------------------------

    #[test]
    fn gemini_auth_errors_on_stderr() {
        let r = run!(Provider::Google, "gemini-streamjson");
        assert_eq!(r.events, 0);
        assert_eq!(r.error.as_deref(), Some(GEMINI_AUTH));

        // `-o json`: the error object goes to stderr, pretty-printed.
        let r = run!(Provider::Google, "gemini-json");
        assert_eq!(r.events, 0);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(GEMINI_AUTH));
        assert!(!canary_silent(&r));
    }

    #[test]
    fn gemini_untrusted_directory_strips_colours() {
        let r = run!(Provider::Google, "gemini-fake-streamjson");
        assert_eq!(r.events, 0);
        let error = r.error.unwrap();
        assert!(error.starts_with("Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`"), "{error}");
        assert!(
            error.ends_with("#headless-and-automated-environments"),
            "{error}"
        );
    }

    #[test]
    fn gemini_stream_json_error_result() {
        let r = run!(Provider::Google, "gemini-fake-long");
        assert_eq!(r.events, 3);
        assert_eq!(
            r.error.as_deref(),
            Some("[API Error: exception TypeError: fetch failed sending request]")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert!(r.tool_calls.is_empty());
        assert!(canary_silent(&r));
    }

    #[test]
    fn gemini_killed_mid_retry_takes_the_stderr_error() {
        // Timed out (rc 124) after init and the user message: no result.
        let r = run!(Provider::Google, "gemini-fake-streamjson-trust");
        assert_eq!(r.events, 2);
        assert_eq!(
            r.error.as_deref(),
            Some("Attempt 3 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request")
        );
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(r.usage, None);
    }

    // ---- Gemini: shapes no capture covers ---------------------------------

    #[test]
    fn gemini_success_with_deltas_tools_and_stats() {
        let stream = r#"{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"t","role":"user","content":"fix it"}
{"type":"message","timestamp":"t","role":"assistant","content":"I'll read ","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"the file.","delta":true}
{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"r1","parameters":{"absolute_path":"/w/src/lib.rs"}}
{"type":"tool_result","timestamp":"t","tool_id":"r1","status":"success","output":"fn main() {}"}
{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"r2","parameters":{"command":"cargo test","description":"tests"}}
{"type":"tool_result","timestamp":"t","tool_id":"r2","status":"error","error":{"type":"exit","message":"exit code 101"}}
{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected, retrying"}
{"type":"message","timestamp":"t","role":"assistant","content":"Fixed ","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"it.","delta":true}
{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":1500,"input_tokens":1200,"output_tokens":300,"cached":800,"input":400,"duration_ms":5000,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":1500,"input_tokens":1200,"output_tokens":300,"cached":800,"input":400}}}}
"#;
        let r = read(Provider::Google, stream, "");
        assert_eq!(r.events, 12);
        assert_eq!(r.final_text.as_deref(), Some("Fixed it."));
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall {
                    step: 1,
                    name: "read_file".into(),
                    input: "/w/src/lib.rs".into(),
                    ok: Some(true),
                    output: "fn main() {}".into(),
                },
                ToolCall {
                    step: 2,
                    name: "run_shell_command".into(),
                    input: "cargo test".into(),
                    ok: Some(false),
                    output: "exit code 101".into(),
                },
            ]
        );
        assert_eq!(r.usage, usage(1200, 300, 800));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-pro"));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.error, None);
        assert!(!canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn gemini_error_event_with_severity_error() {
        let stream = r#"{"type":"init","model":"gemini-2.5-flash"}
{"type":"error","severity":"error","message":"You exceeded your current quota"}
"#;
        let r = read(Provider::Google, stream, "");
        assert_eq!(r.error.as_deref(), Some("You exceeded your current quota"));
    }

    #[test]
    fn gemini_json_single_object_on_stdout() {
        let stdout = r#"{
  "session_id": "s",
  "response": "All tests pass.",
  "stats": {
    "models": {
      "gemini-2.5-flash": {
        "api": { "totalRequests": 2, "totalErrors": 0, "totalLatencyMs": 900 },
        "tokens": { "input": 100, "prompt": 400, "candidates": 50, "total": 450, "cached": 300, "thoughts": 20, "tool": 0 }
      }
    },
    "tools": {},
    "files": {}
  }
}
"#;
        let r = read(Provider::Google, stdout, "");
        assert_eq!(r.events, 1);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.final_text.as_deref(), Some("All tests pass."));
        assert_eq!(r.usage, usage(400, 50, 300));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(r.error, None);
    }

    // ---- Every capture ----------------------------------------------------

    #[test]
    fn every_real_run_failed_and_says_why() {
        // No run had credentials: each replay must name an error.
        let runs = [
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-badmodel"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-bypassmode-root"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-fakekey-long"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-json"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-maxturns-sandbox"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-maxturns"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-noverbose"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-stdin"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-streamjson"),
            ),
            (
                Provider::Anthropic,
                run!(Provider::Anthropic, "claude-text"),
            ),
            (Provider::OpenAi, run!(Provider::OpenAi, "codex-badflag")),
            (Provider::OpenAi, run!(Provider::OpenAi, "codex-json-long")),
            (Provider::OpenAi, run!(Provider::OpenAi, "codex-json-nogit")),
            (Provider::OpenAi, run!(Provider::OpenAi, "codex-json")),
            (Provider::OpenAi, run!(Provider::OpenAi, "codex-noprompt")),
            (Provider::Copilot, run!(Provider::Copilot, "copilot-fake")),
            (Provider::Copilot, run!(Provider::Copilot, "copilot-json")),
            (Provider::Copilot, run!(Provider::Copilot, "copilot-stdin")),
            (Provider::Copilot, run!(Provider::Copilot, "copilot-text")),
            (Provider::Google, run!(Provider::Google, "gemini-fake-long")),
            (
                Provider::Google,
                run!(Provider::Google, "gemini-fake-streamjson-trust"),
            ),
            (
                Provider::Google,
                run!(Provider::Google, "gemini-fake-streamjson"),
            ),
            (Provider::Google, run!(Provider::Google, "gemini-json")),
            (
                Provider::Google,
                run!(Provider::Google, "gemini-streamjson"),
            ),
        ];
        for (provider, r) in runs {
            let error = r.error.as_deref().unwrap_or_default();
            assert!(!error.is_empty(), "{provider:?}: {r:?}");
            assert!(!error.contains('\u{1b}'), "{error}");
            assert!(!error.starts_with("WARNING: proceeding"), "{error}");
            assert!(!error.starts_with("Reading "), "{error}");
            assert!(r.final_text.is_none(), "{provider:?}: {r:?}");
            assert!(!usage_gap(&r));
        }
    }

    // ---- The reader itself ------------------------------------------------

    #[test]
    fn non_json_lines_are_skipped_and_counted() {
        let stream = "starting up\n\n{\"type\":\"turn.started\"}\n[1,2]\n{not json\n{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"hi\"}}\r\n42\n";
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(r.events, 2);
        assert_eq!(r.non_json_lines, 4); // blank lines are not counted
        assert_eq!(r.final_text.as_deref(), Some("hi"));
        assert_eq!(r.error, None);
    }

    #[test]
    fn canary_and_usage_gap_both_ways() {
        let silent = AgentReport {
            events: 3,
            ..AgentReport::default()
        };
        assert!(canary_silent(&silent));
        assert!(!usage_gap(&silent));

        let blank = AgentReport {
            events: 3,
            final_text: Some("  \n".into()),
            ..AgentReport::default()
        };
        assert!(canary_silent(&blank));

        let unparsed = AgentReport::default();
        assert!(!canary_silent(&unparsed));
        assert!(!usage_gap(&unparsed));

        let gap = AgentReport {
            events: 3,
            final_text: Some("done".into()),
            ..AgentReport::default()
        };
        assert!(!canary_silent(&gap));
        assert!(usage_gap(&gap));

        let zero = AgentReport {
            usage: Some(ZERO),
            ..gap.clone()
        };
        assert!(usage_gap(&zero));

        let counted = AgentReport {
            usage: usage(0, 5, 0),
            ..gap
        };
        assert!(!usage_gap(&counted));
    }

    #[test]
    fn bounds_input_output_and_final_text() {
        let long_command = format!("echo {}\nsecond line", "x".repeat(500));
        let long_output = format!("HEAD{}TAIL", "y".repeat(10_000));
        let long_text = format!("START{}END", "z".repeat(100_000));
        let stream = [
            serde_json::json!({"type":"tool_use","tool_id":"a","tool_name":"run_shell_command","parameters":{"command": long_command}}),
            serde_json::json!({"type":"tool_result","tool_id":"a","status":"success","output": long_output}),
            serde_json::json!({"type":"message","role":"assistant","content": long_text,"delta":true}),
        ]
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
        let r = read(Provider::Google, &stream, "");
        let call = &r.tool_calls[0];
        assert_eq!(call.input.chars().count(), MAX_INPUT_CHARS);
        assert!(call.input.starts_with("echo xxx"));
        assert!(call.input.ends_with('…'));
        assert!(!call.input.contains('\n'));
        assert!(call.output.len() <= MAX_OUTPUT_BYTES);
        assert!(call.output.starts_with('…') && call.output.ends_with("TAIL"));
        let text = r.final_text.unwrap();
        assert!(text.len() <= MAX_FINAL_TEXT_BYTES);
        assert!(text.starts_with('…') && text.ends_with("END"));
    }

    #[test]
    fn cuts_respect_character_boundaries() {
        let s = "é".repeat(3000);
        let t = tail(&s, 101);
        assert!(t.len() <= 101 && t.starts_with('…'));
        let h = head(&s, 101);
        assert!(h.len() <= 101 && h.ends_with('…'));
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[0m"), "red");
    }

    #[test]
    fn every_provider_has_a_vocabulary() {
        for provider in Provider::ALL {
            assert_eq!(vocabulary(provider).provider, provider);
        }
    }
}
