//! Coding-agent CLIs: the providers zurdo drives, how their event streams
//! read, how one attempt is run, and one side call to a role's model.

pub mod catalog;
pub mod failure;
pub mod invoke;
pub mod sandbox;
pub mod sentinel;
pub mod side_call;
pub mod vocabulary;

use serde::{Deserialize, Serialize};

/// A provider of coding agents, named by the company behind it and driven
/// through that company's CLI (named by its command: see
/// [`Provider::default_command`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// Anthropic: Claude Code (`claude`).
    Anthropic,
    /// OpenAI: Codex (`codex`).
    OpenAi,
    /// GitHub: the GitHub Copilot CLI (`copilot`). Its old name, `copilot`,
    /// is still read.
    #[serde(alias = "copilot")]
    GitHub,
    /// Google: Gemini CLI (`gemini`).
    Google,
}

impl Provider {
    /// Every provider, in the order config and docs list them.
    pub const ALL: [Provider; 4] = [
        Provider::Anthropic,
        Provider::OpenAi,
        Provider::GitHub,
        Provider::Google,
    ];

    /// Old provider names still read, and the provider each one means.
    pub const ALIASES: [(&'static str, Provider); 1] = [("copilot", Provider::GitHub)];

    /// The name used in config (`[providers.<name>]`): the company's.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::GitHub => "github",
            Provider::Google => "google",
        }
    }

    /// The CLI's default command.
    pub fn default_command(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude",
            Provider::OpenAi => "codex",
            Provider::GitHub => "copilot",
            Provider::Google => "gemini",
        }
    }

    /// Looks a provider up by its config name or an old name
    /// ([`Provider::ALIASES`]).
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .or_else(|| {
                Provider::ALIASES
                    .into_iter()
                    .find(|(alias, _)| *alias == name)
                    .map(|(_, p)| p)
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_companies_and_old_names_still_read() {
        for p in Provider::ALL {
            assert_eq!(Provider::from_name(p.name()), Some(p));
            let json = serde_json::to_string(&p).expect("serializes");
            assert_eq!(json, format!("\"{}\"", p.name()));
            assert_eq!(serde_json::from_str::<Provider>(&json).ok(), Some(p));
        }
        for (alias, p) in Provider::ALIASES {
            assert_eq!(Provider::from_name(alias), Some(p));
            let json = format!("\"{alias}\"");
            assert_eq!(serde_json::from_str::<Provider>(&json).ok(), Some(p));
        }
        assert_eq!(Provider::from_name("github"), Some(Provider::GitHub));
        assert_eq!(Provider::GitHub.default_command(), "copilot");
        assert_eq!(Provider::from_name("claude"), None);
    }
}
