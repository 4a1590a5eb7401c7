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
//!
//! The layout: `rules.rs` is the language a table is written in, one file
//! per CLI holds its table (`claude.rs`, `codex.rs`, `copilot.rs`,
//! `gemini.rs`), `reader.rs` applies a table to a stream and `text.rs` holds
//! the reader's text helpers.

mod claude;
mod codex;
mod copilot;
mod gemini;
mod reader;
mod rules;
#[cfg(test)]
mod test_support;
mod text;

pub use claude::CLAUDE;
pub use codex::CODEX;
pub use copilot::COPILOT;
pub use gemini::GEMINI;
pub use reader::Live;
pub(crate) use reader::{event_of, get, picks, text_at};
pub use rules::{
    CostRule, EndRule, ErrorRule, Fold, Input, Is, Items, Level, ModelAt, ModelRule, On, Path,
    Test, Text, TextMode, TextRule, ToolRule, UsageRule, Verdict, Vocabulary,
};

use super::{AgentReport, Provider};

/// Longest tool-call input summary, in characters.
pub const MAX_INPUT_CHARS: usize = 200;
/// Longest tool-call output kept (its tail), in bytes.
pub const MAX_OUTPUT_BYTES: usize = 2 * 1024;
/// Longest final text kept (its tail), in bytes.
pub const MAX_FINAL_TEXT_BYTES: usize = 64 * 1024;
/// Longest error text kept (its head), in bytes.
pub const MAX_ERROR_BYTES: usize = 2 * 1024;

/// The vocabulary of a provider's CLI.
pub fn vocabulary(provider: Provider) -> &'static Vocabulary {
    match provider {
        Provider::Anthropic => &CLAUDE,
        Provider::OpenAi => &CODEX,
        Provider::GitHub => &COPILOT,
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
    reader::apply(vocab, stdout, stderr)
}

#[cfg(test)]
mod tests {
    use super::test_support::{run, usage, ZERO};
    use super::*;

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
            (Provider::GitHub, run!(Provider::GitHub, "copilot-fake")),
            (Provider::GitHub, run!(Provider::GitHub, "copilot-json")),
            (Provider::GitHub, run!(Provider::GitHub, "copilot-stdin")),
            (Provider::GitHub, run!(Provider::GitHub, "copilot-text")),
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
    fn every_provider_has_a_vocabulary() {
        for provider in Provider::ALL {
            assert_eq!(vocabulary(provider).provider, provider);
        }
    }
}
