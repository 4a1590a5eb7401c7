//! The failure signatures: what each CLI prints when it cannot work, as
//! data, each with the provider it belongs to and where its text came from.
//! `real-runs/` is `/work/shared/fixtures/agents/real-runs/` (copied under
//! `tests/fixtures/streams/`), `CLI-NOTES` its notes (§4: what each CLI
//! printed with no credentials; §5: failure signatures); an `owner/repo#n`
//! is a public issue or pull request quoting the CLI.

use super::FailureKind::{self, *};
use crate::agent::vocabulary::{On, Path, Text};
use crate::agent::Provider::{self, *};

/// Where a signature shows.
#[derive(Debug, Clone, Copy)]
pub enum Sign {
    /// An event of the CLI's stream (a JSON line on stdout, or a JSON
    /// object on stderr) that `on` picks out, in the vocabulary's rule
    /// language. Its message is the first of `say` present; `at` is a field
    /// holding the reset time as Unix seconds.
    Event {
        /// The events.
        on: On,
        /// Where its message is.
        say: &'static [Text],
        /// Where the reset time is (Unix seconds), for a rate limit.
        at: Option<Path>,
    },
    /// A line of text (stderr, a stdout line that is not JSON, or the
    /// run-level error the stream reported) holding each of these, ASCII
    /// case ignored.
    Text(&'static [&'static str]),
    /// The CLI's exit code.
    Exit(i32),
}

/// How much one sighting says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// The CLI's verdict on the run.
    Final,
    /// A notice the CLI retries after: it says something only after this
    /// many in a row (then a CLI that keeps retrying is stopped), or when
    /// the run failed with these the last thing it printed.
    Retry(u32),
}

/// One signature.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    /// Whose CLI prints it.
    pub provider: Provider,
    /// What it means.
    pub kind: FailureKind,
    /// Where it shows.
    pub sign: Sign,
    /// How much one sighting says.
    pub weight: Weight,
    /// Seen while the CLI runs: stop it now (it would keep waiting or
    /// retrying, and nothing it prints after changes the verdict).
    pub stop: bool,
    /// Where the text came from.
    pub source: &'static str,
}

const fn text(
    provider: Provider,
    kind: FailureKind,
    words: &'static [&'static str],
    source: &'static str,
) -> Signature {
    Signature {
        provider,
        kind,
        sign: Sign::Text(words),
        weight: Weight::Final,
        stop: false,
        source,
    }
}

const fn event(
    provider: Provider,
    kind: FailureKind,
    on: On,
    say: &'static [Text],
    source: &'static str,
) -> Signature {
    Signature {
        provider,
        kind,
        sign: Sign::Event { on, say, at: None },
        weight: Weight::Final,
        stop: false,
        source,
    }
}

const fn on(
    kinds: &'static [&'static str],
    tests: &'static [crate::agent::vocabulary::Test],
) -> On {
    On { kinds, tests }
}

use crate::agent::vocabulary::Is;

/// Claude's synthetic assistant message: its text blocks.
const CLAUDE_SAYS: &[Text] = &[Text::Blocks {
    list: &["message", "content"],
    tests: &[(&["type"], Is::Str("text"))],
    field: &["text"],
}];

/// Every signature, by CLI.
pub static SIGNATURES: &[Signature] = &[
    // ----- claude (Anthropic)
    Signature {
        stop: true,
        ..event(
            Anthropic,
            AuthFailed,
            on(&["assistant"], &[(&["error"], Is::Str("authentication_failed"))]),
            CLAUDE_SAYS,
            "real-runs/claude-streamjson: synthetic assistant `\"error\":\"authentication_failed\"` (CLI-NOTES §4)",
        )
    },
    text(
        Anthropic,
        AuthFailed,
        &["Not logged in"],
        "real-runs/claude-streamjson, claude-json, claude-text: `Not logged in · Please run /login`, rc 1",
    ),
    text(
        Anthropic,
        AuthFailed,
        &["Invalid API key"],
        "CLI-NOTES §5: `Invalid API key · Fix external API key` (jordanmnunez/hyperyolo claude.md, 2.0.62)",
    ),
    event(
        Anthropic,
        ModelUnavailable,
        on(&["assistant"], &[(&["error"], Is::Str("model_not_found"))]),
        CLAUDE_SAYS,
        "CLI-NOTES §5: assistant `error:\"model_not_found\"` [code]",
    ),
    text(
        Anthropic,
        ModelUnavailable,
        &["issue with the selected model"],
        "CLI-NOTES §5: `There's an issue with the selected model (<m>). It may not exist or you may not have access to it.` [code]",
    ),
    text(
        Anthropic,
        ModelUnavailable,
        &["does not support this model"],
        "CLI-NOTES §5: `API Error: 400 Claude Code 2.1.258 does not support this model; version 2.1.280 or newer is required`",
    ),
    Signature {
        sign: Sign::Event {
            on: on(
                &["rate_limit_event"],
                &[(&["rate_limit_info", "status"], Is::Str("rejected"))],
            ),
            say: &[],
            at: Some(&["rate_limit_info", "resetsAt"]),
        },
        ..event(
            Anthropic,
            RateLimited,
            on(&[], &[]),
            &[],
            "stream-json `rate_limit_event` with `rate_limit_info.status` `rejected` and `resetsAt` in Unix seconds (desplega-ai/agent-swarm#508; CLI-NOTES §5 [cited])",
        )
    },
    event(
        Anthropic,
        RateLimited,
        on(&["assistant"], &[(&["error"], Is::Str("rate_limit"))]),
        CLAUDE_SAYS,
        "CLI-NOTES §3/§5: assistant `error:\"rate_limit\"` [code]",
    ),
    text(
        Anthropic,
        RateLimited,
        &["hit your limit"],
        "`You've hit your limit · resets 7pm (America/Los_Angeles)` (anthropics/claude-code#23236, #52575; CLI-NOTES §5)",
    ),
    text(
        Anthropic,
        RateLimited,
        &["hit your session limit"],
        "`You've hit your session limit · resets 1:30am (Asia/Tokyo)` as a stream-json `result` (third-party test fixtures of Claude Code's stream)",
    ),
    text(
        Anthropic,
        RateLimited,
        &["usage limit reached"],
        "`Claude AI usage limit reached|1755615600` (anthropics/claude-code#6119, #2490, #9046)",
    ),
    text(
        Anthropic,
        RateLimited,
        &["rate_limit_error"],
        "`Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",…}}` (anthropics/claude-code#6119)",
    ),
    text(
        Anthropic,
        QuotaExhausted,
        &["spend limit"],
        "CLI-NOTES §5: result `api_error_status:429`, `You've hit your monthly spend limit. Switch to another model to continue.`",
    ),
    event(
        Anthropic,
        QuotaExhausted,
        on(&["assistant"], &[(&["error"], Is::Str("billing_error"))]),
        CLAUDE_SAYS,
        "CLI-NOTES §3: assistant `error` value `billing_error` [code]",
    ),
    Signature {
        weight: Weight::Retry(4),
        stop: true,
        ..event(
            Anthropic,
            Network,
            on(
                &["system"],
                &[
                    (&["subtype"], Is::Str("api_retry")),
                    (&["error_status"], Is::Absent),
                ],
            ),
            &[Text::Prefixed("api_retry with no HTTP status: error ", &["error"])],
            "real-runs/claude-fakekey-long: 10 `system`/`api_retry` with `error_status: null` (no HTTP answer), then ConnectionRefused after 3 min",
        )
    },
    text(
        Anthropic,
        Network,
        &["Unable to connect to API"],
        "real-runs/claude-fakekey-long: `API Error: Unable to connect to API (ConnectionRefused)`",
    ),
    // ----- codex (OpenAI)
    Signature {
        stop: true,
        ..event(
            OpenAi,
            Network,
            on(
                &["error"],
                &[(&["message"], Is::Prefix("Reconnecting... waiting for network"))],
            ),
            &[Text::Field(&["message"])],
            "real-runs/codex-json, codex-json-long: `Reconnecting... waiting for network (Connection failed: error sending request)` repeated, never `turn.failed` (CLI-NOTES §4)",
        )
    },
    Signature {
        weight: Weight::Retry(5),
        stop: true,
        ..event(
            OpenAi,
            Network,
            on(
                &["error"],
                &[(&["message"], Is::Contains("failed to lookup address information"))],
            ),
            &[Text::Field(&["message"])],
            "real-runs/codex-json: `Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)`",
        )
    },
    text(
        OpenAi,
        AuthFailed,
        &["401 Unauthorized"],
        "CLI-NOTES §5: `turn.failed` `unexpected status 401 Unauthorized: …` (third-party fixture)",
    ),
    text(
        OpenAi,
        AuthFailed,
        &["Not logged in"],
        "CLI-NOTES §4/§5: `codex login status` → `Not logged in`, rc 1",
    ),
    text(
        OpenAi,
        QuotaExhausted,
        &["Quota exceeded"],
        "`ERROR: Quota exceeded. Check your plan and billing details.` (openai/codex#8987; CLI-NOTES §5)",
    ),
    text(
        OpenAi,
        RateLimited,
        &["hit your usage limit"],
        "`You've hit your usage limit. … try again at Apr 28th, 2026 10:03 PM.` as TurnFailed (Th0rgal/sandboxed.sh PR #394; openai/codex#3124)",
    ),
    text(
        OpenAi,
        RateLimited,
        &["429 Too Many Requests"],
        "`exceeded retry limit, last status: 429 Too Many Requests, request id: …` (openai/codex#10550; CLI-NOTES §5)",
    ),
    text(
        OpenAi,
        RateLimited,
        &["usage_limit_reached"],
        "`{\"error\":{\"type\":\"usage_limit_reached\",…,\"resets_at\":…}}` (earendil-works/pi#4172)",
    ),
    text(
        OpenAi,
        ModelUnavailable,
        &["model is not supported when using Codex"],
        "`The 'gpt-4.1-codex' model is not supported when using Codex with a ChatGPT account.` (hyperyolo codex.md; CLI-NOTES §5)",
    ),
    text(
        OpenAi,
        ModelUnavailable,
        &["does not exist or you do not have access to it"],
        "the OpenAI API's 404 `The model `m` does not exist or you do not have access to it.` (the stand-in's unknown model; not captured here)",
    ),
    // ----- copilot (GitHub)
    text(
        GitHub,
        AuthFailed,
        &["No authentication information found"],
        "real-runs/copilot-json, copilot-stdin, copilot-text: stderr `Error: No authentication information found.`, rc 1",
    ),
    text(
        GitHub,
        AuthFailed,
        &["could not be validated"],
        "real-runs/copilot-fake: `Error: Authentication token found but could not be validated.` (with no network it is followed by a network failure, which outranks it)",
    ),
    text(
        GitHub,
        Network,
        &["network fetch failed"],
        "real-runs/copilot-fake: `Failed to fetch PAT user login: network fetch failed: request failed: error sending request for url (…)`",
    ),
    event(
        GitHub,
        QuotaExhausted,
        on(&["session.error"], &[(&["data", "errorType"], Is::Str("quota"))]),
        &[Text::Field(&["data", "message"])],
        "CLI-NOTES §5: `session.error` `errorType` `quota` (`quota_exceeded`, `session_quota_exceeded`, `billing_not_configured`) [code]",
    ),
    text(
        GitHub,
        QuotaExhausted,
        &["You have no quota"],
        "`Model call failed: {\"message\":\"You have no quota\",\"code\":\"quota_exceeded\"}` / `402 You have no quota` (github/copilot-cli#730)",
    ),
    event(
        GitHub,
        RateLimited,
        on(&["session.error"], &[(&["data", "errorType"], Is::Str("rate_limit"))]),
        &[Text::Field(&["data", "message"])],
        "`{\"type\":\"session.error\",\"data\":{\"errorType\":\"rate_limit\",\"message\":\"Sorry, you've hit a rate limit … Please try again in 51 hours.…` (github/copilot-cli#2769)",
    ),
    text(
        GitHub,
        RateLimited,
        &["hit a rate limit"],
        "`Sorry, you've hit a rate limit that restricts the number of Copilot model requests … Please try again in 2 hours.` (github/copilot-cli#2336, #2144)",
    ),
    text(
        GitHub,
        RateLimited,
        &["rate-limited"],
        "`Sorry, you have been rate-limited. Please wait 2 minutes before trying again` (github/copilot-cli#2740)",
    ),
    text(
        GitHub,
        ModelUnavailable,
        &["No supported model available"],
        "CLI-NOTES §5: stderr `Error: No supported model available: <reason>` [code]",
    ),
    // ----- gemini (Google)
    Signature {
        sign: Sign::Exit(41),
        ..text(
            Google,
            AuthFailed,
            &[],
            "CLI-NOTES §4/§5: exit 41 is gemini's auth failure (docs/cli/headless.md); real-runs/gemini-streamjson, gemini-json",
        )
    },
    text(
        Google,
        AuthFailed,
        &["Please set an Auth method"],
        "real-runs/gemini-streamjson: `Please set an Auth method in your <HOME>/.gemini/settings.json or specify one of the following environment variables…`, rc 41",
    ),
    text(
        Google,
        AuthFailed,
        &["API key not valid"],
        "the Gemini API's `API key not valid. Please pass a valid API key.` (the stand-in's default; not captured here)",
    ),
    text(
        Google,
        QuotaExhausted,
        &["TerminalQuotaError"],
        "CLI-NOTES §5: headless `TerminalQuotaError` on stderr, exit 1 (google-gemini/gemini-cli#26840)",
    ),
    text(
        Google,
        QuotaExhausted,
        &["exceeded your current quota"],
        "CLI-NOTES §5: `\"code\": 429, \"message\": \"You exceeded your current quota…\"` (google-gemini/gemini-cli#1088)",
    ),
    text(
        Google,
        RateLimited,
        &["RESOURCE_EXHAUSTED"],
        "`[API Error: {… \"code\": 429, \"message\": \"Resource has been exhausted (e.g. check quota).\", \"status\": \"RESOURCE_EXHAUSTED\" …}]` (google-gemini/gemini-cli#1848, #1905)",
    ),
    text(
        Google,
        RateLimited,
        &["Resource has been exhausted"],
        "google-gemini/gemini-cli#19976: `[API Error: Resource has been exhausted (e.g. check quota).]`",
    ),
    Signature {
        weight: Weight::Retry(3),
        stop: true,
        ..text(
            Google,
            Network,
            &["Retrying with backoff", "fetch failed"],
            "real-runs/gemini-fake-long: stderr `Attempt 1..9 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request` over 3.5 min",
        )
    },
    text(
        Google,
        Network,
        &["fetch failed"],
        "real-runs/gemini-fake-long: result `error.message` `[API Error: exception TypeError: fetch failed sending request]`, rc 1",
    ),
    text(
        Google,
        ModelUnavailable,
        &["is not found for API version"],
        "the Gemini API's 404 `models/<m> is not found for API version v1beta…` (CLI-NOTES §5 [inferred]; the stand-in's unknown model)",
    ),
    text(
        Google,
        ModelUnavailable,
        &["does not have permission to use model"],
        "the Gemini API's 403 for a model outside the plan (the stand-in's plan-gated model; not captured here)",
    ),
];

/// The signatures of `provider`'s CLI, in table order, each with its
/// index in [`SIGNATURES`].
pub fn signatures(provider: Provider) -> impl Iterator<Item = (usize, &'static Signature)> {
    SIGNATURES
        .iter()
        .enumerate()
        .filter(move |(_, s)| s.provider == provider)
}

/// What a runtime prints as it dies, whatever the CLI: a Rust panic
/// (codex is a Rust binary) or V8's fatal error (gemini and copilot run on
/// node). Seen on stderr, a failed run with no other cause is `cli_crashed`.
pub(crate) const CRASH_WORDS: &[&str] = &["panicked at", "FATAL ERROR:"];

/// Exit codes that are not a crash even with no stream: gemini's turn limit
/// (53: the agent's own budget) and a cancellation (130).
pub(crate) fn benign_exit(provider: Provider, code: i32) -> bool {
    code == 130 || (provider == Google && code == 53)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_says_where_it_came_from_and_every_cli_has_some() {
        for s in SIGNATURES {
            assert!(!s.source.trim().is_empty(), "{s:?}");
            if let Sign::Text(words) = s.sign {
                assert!(words.iter().all(|w| !w.is_empty()), "{s:?}");
            }
        }
        for p in Provider::ALL {
            for kind in [AuthFailed, Network, QuotaExhausted, RateLimited] {
                assert!(
                    signatures(p).any(|(_, s)| s.kind == kind),
                    "{p:?} has no {kind:?} signature"
                );
            }
        }
    }
}
