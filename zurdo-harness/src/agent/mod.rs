//! Coding-agent CLIs: the providers zurdo drives, how their event streams
//! read, and how one attempt is run.

pub mod invoke;
pub mod vocabulary;

use serde::{Deserialize, Serialize};

/// A provider of coding agents, each driven through its own CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Claude Code (`claude`).
    Anthropic,
    /// Codex (`codex`).
    #[serde(rename = "openai")]
    OpenAi,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
    /// Gemini CLI (`gemini`).
    Google,
}

impl Provider {
    /// Every provider, in the order config and docs list them.
    pub const ALL: [Provider; 4] = [
        Provider::Anthropic,
        Provider::OpenAi,
        Provider::Copilot,
        Provider::Google,
    ];

    /// The name used in config (`[providers.<name>]`).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::Copilot => "copilot",
            Provider::Google => "google",
        }
    }

    /// The CLI's default command.
    pub fn default_command(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude",
            Provider::OpenAi => "codex",
            Provider::Copilot => "copilot",
            Provider::Google => "gemini",
        }
    }

    /// Looks a provider up by its config name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One tool call the agent made, numbered from 1 in stream order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolCall {
    /// 1-based position in the run's tool-call log.
    pub step: usize,
    /// The tool (`Bash`, `command_execution`, `edit`, …).
    pub name: String,
    /// Its input, summarised on one line and bounded.
    pub input: String,
    /// Whether it succeeded, when the stream says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// The tail of its output, bounded.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub output: String,
}

/// Token counts, when the CLI reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input (prompt) tokens, cached ones included.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens served from a cache, when reported.
    pub cached_input_tokens: u64,
}

/// What one agent run's event stream says, read through the shared
/// vocabulary. Never trusted for a verdict: it feeds prompts, reports and
/// diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AgentReport {
    /// The final assistant text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_text: Option<String>,
    /// The numbered tool-call log.
    pub tool_calls: Vec<ToolCall>,
    /// Token usage, when the CLI reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Cost in USD, when the CLI reports it (Claude Code does; the others
    /// report none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// A run-level error the stream (or stderr) reports: not logged in, an
    /// unknown model, a quota, a failed turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The model the stream says it used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// JSON events read.
    pub events: usize,
    /// Lines that were not JSON (skipped).
    pub non_json_lines: usize,
}
