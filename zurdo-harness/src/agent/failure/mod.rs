//! A broken agent is not a failed task: telling an agent CLI that cannot work
//! (not logged in, out of quota, rate limited, no network, not installed, a
//! model it cannot use, a crash) from an attempt that did its work and
//! failed its criteria.
//!
//! What decides it is the CLI's own account: its event stream, its stderr,
//! its exit code (gemini: 41 auth, 52 config, 53 turn limit…), whether it
//! could be spawned at all. Each CLI's signatures are data
//! ([`signatures`]: one table, each entry with the provider it belongs to and
//! where its text came from), read by one [`Watcher`] that sees the output as
//! it arrives (so a CLI that says it has no network and keeps waiting is
//! stopped at once) and classifies the run when it ends.
//!
//! The result is an [`InfraFailure`]: which [`FailureKind`], which provider,
//! the CLI's own words on one line, and when to come back if the CLI said.
//! It is serializable and lives below the run loop, so provider failover can
//! act on it as the run loop does (stop cleanly, or wait out a rate limit).
//!
//! An attempt that did work (tool calls, edits) and then hit a quota or a
//! rate limit is classified the same way: the work stays in the tree, the
//! attempt is not the task's failure (it is dropped, not verified, not
//! counted) and the next attempt starts from the tree as the CLI left it.

mod retry;
mod signatures;
mod watch;

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::Provider;

pub use retry::come_back_at;
pub use signatures::{signatures, Sign, Signature, Weight, SIGNATURES};
#[cfg(test)]
pub(crate) use watch::classify;
pub use watch::{Ended, Snapshot, Watcher};

#[cfg(test)]
mod tests_captured;

/// Why an agent's CLI could not work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Not logged in, a bad or expired key.
    AuthFailed,
    /// Out of credits, a spend limit, a plan's quota.
    QuotaExhausted,
    /// A usage window or request rate limit: it comes back later.
    RateLimited,
    /// The CLI cannot reach its vendor.
    Network,
    /// The CLI could not be started at all (not installed, not executable,
    /// its command line refused by the system).
    CliMissing,
    /// The model is unknown to the CLI or not in the account's plan.
    ModelUnavailable,
    /// The CLI died: killed by a signal it did not get from zurdo, a panic,
    /// or a non-zero exit with no event stream at all.
    CliCrashed,
}

impl FailureKind {
    /// Every kind.
    pub const ALL: [FailureKind; 7] = [
        FailureKind::AuthFailed,
        FailureKind::QuotaExhausted,
        FailureKind::RateLimited,
        FailureKind::Network,
        FailureKind::CliMissing,
        FailureKind::ModelUnavailable,
        FailureKind::CliCrashed,
    ];

    /// The name progress.log and prd.json use (`auth_failed`, …).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::AuthFailed => "auth_failed",
            FailureKind::QuotaExhausted => "quota_exhausted",
            FailureKind::RateLimited => "rate_limited",
            FailureKind::Network => "network",
            FailureKind::CliMissing => "cli_missing",
            FailureKind::ModelUnavailable => "model_unavailable",
            FailureKind::CliCrashed => "cli_crashed",
        }
    }

    /// What it means, in a few words.
    pub fn headline(self) -> &'static str {
        match self {
            FailureKind::AuthFailed => "not logged in",
            FailureKind::QuotaExhausted => "out of quota",
            FailureKind::RateLimited => "rate limited",
            FailureKind::Network => "no network",
            FailureKind::CliMissing => "cannot be started",
            FailureKind::ModelUnavailable => "the model is not available",
            FailureKind::CliCrashed => "the CLI crashed",
        }
    }

    /// True for the failures that block a provider for the rest of a run
    /// and move its roles to the next provider of their fallback chain:
    /// out of quota, not logged in, not installed, rate limited (an
    /// attempt's only once the limit cannot be waited out). A network
    /// failure is the machine's (every provider would meet it), a model
    /// refusal is the config's, a crash is the CLI's to look at.
    pub fn fails_over(self) -> bool {
        matches!(
            self,
            FailureKind::QuotaExhausted
                | FailureKind::AuthFailed
                | FailureKind::CliMissing
                | FailureKind::RateLimited
        )
    }

    /// When a run shows several, the one that explains it: a lower rank
    /// wins. A network failure outranks a login failure (Copilot says its
    /// token "could not be validated" when it cannot reach GitHub), and a
    /// crash explains nothing the others do not.
    pub(crate) fn rank(self) -> u8 {
        match self {
            FailureKind::CliMissing => 0,
            FailureKind::ModelUnavailable => 1,
            FailureKind::QuotaExhausted => 2,
            FailureKind::RateLimited => 3,
            FailureKind::Network => 4,
            FailureKind::AuthFailed => 5,
            FailureKind::CliCrashed => 6,
        }
    }
}

/// An attempt's agent CLI could not work: the attempt is not the task's
/// failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfraFailure {
    /// Why.
    pub kind: FailureKind,
    /// Whose CLI.
    pub provider: Provider,
    /// The CLI's own words, on one line (bounded).
    pub message: String,
    /// When the CLI said to come back (a rate limit's reset), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "rfc3339")]
    pub retry_after: Option<SystemTime>,
    /// Tool calls the attempt made before it (their work stays in the tree).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tool_calls: usize,
    /// True when zurdo stopped the CLI as soon as it said so (it would have
    /// kept waiting or retrying).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Most characters of a message kept.
pub const MAX_MESSAGE_CHARS: usize = 400;

impl InfraFailure {
    /// A failure of `kind`, quoting `message` on one line.
    pub fn new(kind: FailureKind, provider: Provider, message: &str) -> InfraFailure {
        InfraFailure {
            kind,
            provider,
            message: one_line(message),
            retry_after: None,
            tool_calls: 0,
            stopped: false,
        }
    }

    /// The CLI `program` could not be spawned: `cli_missing`.
    pub fn not_started(provider: Provider, program: &str, error: &std::io::Error) -> InfraFailure {
        InfraFailure::new(
            FailureKind::CliMissing,
            provider,
            &format!("cannot start `{program}`: {error}"),
        )
    }

    /// How long from `now` until the CLI said to come back (zero when that
    /// has passed); `None` when it did not say.
    pub fn retry_in(&self, now: SystemTime) -> Option<Duration> {
        self.retry_after
            .map(|at| at.duration_since(now).unwrap_or(Duration::ZERO))
    }

    /// The CLI's name (`claude`).
    pub fn cli(&self) -> &'static str {
        self.provider.default_command()
    }

    /// What to do about it.
    pub fn remedy(&self) -> String {
        let name = self.provider.name();
        let cli = self.cli();
        match self.kind {
            FailureKind::AuthFailed => match self.provider {
                Provider::Anthropic => {
                    "log in with `claude /login` (or set ANTHROPIC_API_KEY)".to_string()
                }
                Provider::OpenAi => "log in with `codex login`".to_string(),
                Provider::GitHub => "log in: start `copilot` and run `/login` (or set COPILOT_GITHUB_TOKEN, or `gh auth login`)".to_string(),
                Provider::Google => "log in: run `gemini` once and choose an auth method (or set GEMINI_API_KEY)".to_string(),
            },
            FailureKind::QuotaExhausted => format!(
                "add credits or raise the limit on the account `{cli}` uses, or wait until its quota renews"
            ),
            FailureKind::RateLimited => match self.retry_after {
                Some(at) => format!(
                    "wait until {} when the limit resets",
                    zurdo_base::time::format(at)
                ),
                None => "wait until the limit resets".to_string(),
            },
            FailureKind::Network => {
                format!("check that this machine can reach the network `{cli}` needs")
            }
            FailureKind::CliMissing => format!(
                "install `{cli}` or set [providers.{name}] command in .zurdo/config.toml"
            ),
            FailureKind::ModelUnavailable => format!(
                "pick a model `{cli}` offers in [effort_map.{name}] of .zurdo/config.toml (`zurdo doctor` asks each one)"
            ),
            FailureKind::CliCrashed => format!(
                "check `{cli}` by hand (`{cli} --version`); what it printed is in the attempt's .out/.err under .zurdo/"
            ),
        }
    }

    /// The run's last word: the cause in one line, what to do, and how to
    /// go on (`zurdo run <prd>` resumes; no attempt was charged).
    pub fn stop_message(&self, prd: &str) -> String {
        let headline = match (self.kind, self.retry_after) {
            (FailureKind::RateLimited, Some(at)) => {
                format!("rate limited until {}", zurdo_base::time::format(at))
            }
            (kind, _) => kind.headline().to_string(),
        };
        format!(
            "{}: {headline}{}; {}, then `zurdo run {prd}` resumes (no attempt was charged)",
            self.cli(),
            self.quoted(),
            self.remedy()
        )
    }

    /// The message as the run quotes it: ` (the CLI said: …)`, or ` (…)`
    /// when the words are the system's or zurdo's (a CLI that never ran,
    /// one that died: `killed by signal 11`), or nothing.
    pub fn quoted(&self) -> String {
        if self.message.is_empty() {
            String::new()
        } else if self.cli_said() {
            format!(" (the CLI said: {})", self.message)
        } else {
            format!(" ({})", self.message)
        }
    }

    /// Whether the message is the CLI's own words: not when they are the
    /// system's or zurdo's (a CLI that never ran, one that died).
    pub fn cli_said(&self) -> bool {
        !matches!(self.kind, FailureKind::CliMissing | FailureKind::CliCrashed)
    }
}

/// `text` on one line: escapes removed, whitespace runs made one space,
/// at most [`MAX_MESSAGE_CHARS`] characters.
pub(crate) fn one_line(text: &str) -> String {
    let clean = zurdo_base::text::strip_ansi(text);
    zurdo_base::text::cut_chars(
        zurdo_base::text::collapse_whitespace(&clean).trim(),
        MAX_MESSAGE_CHARS,
    )
}

/// `Option<SystemTime>` as RFC 3339 UTC.
mod rfc3339 {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::SystemTime;

    pub fn serialize<S: Serializer>(at: &Option<SystemTime>, s: S) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => s.serialize_str(&zurdo_base::time::format(*at)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SystemTime>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        Ok(text.and_then(|t| zurdo_base::time::parse(&t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_serializes_with_the_kind_by_name_and_reads_back() {
        let at = zurdo_base::time::parse("2026-04-28T22:03:00Z").expect("time");
        let f = InfraFailure {
            retry_after: Some(at),
            ..InfraFailure::new(
                FailureKind::RateLimited,
                Provider::OpenAi,
                "You've hit your usage limit.\n  Try again later.",
            )
        };
        let json = serde_json::to_value(&f).expect("json");
        assert_eq!(json["kind"], "rate_limited");
        assert_eq!(json["provider"], "openai");
        assert_eq!(
            json["message"],
            "You've hit your usage limit. Try again later."
        );
        assert_eq!(json["retry_after"], "2026-04-28T22:03:00Z");
        assert!(json.get("tool_calls").is_none() && json.get("stopped").is_none());
        let back: InfraFailure = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, f);
        for kind in FailureKind::ALL {
            let name = serde_json::to_value(kind).expect("json");
            assert_eq!(name, kind.name());
        }
    }

    #[test]
    fn the_stop_message_says_the_cause_the_fix_and_how_to_go_on() {
        let f = InfraFailure::new(
            FailureKind::AuthFailed,
            Provider::Anthropic,
            "Not logged in · Please run /login",
        );
        assert_eq!(
            f.stop_message("prds/x.md"),
            "claude: not logged in (the CLI said: Not logged in · Please run /login); log in with `claude /login` (or set ANTHROPIC_API_KEY), then `zurdo run prds/x.md` resumes (no attempt was charged)"
        );
        let at = zurdo_base::time::parse("2026-04-28T22:03:00Z").expect("time");
        let limited = InfraFailure {
            retry_after: Some(at),
            ..InfraFailure::new(FailureKind::RateLimited, Provider::GitHub, "try later")
        };
        let text = limited.stop_message("p.md");
        assert!(
            text.starts_with("copilot: rate limited until 2026-04-28T22:03:00Z (the CLI said: try later); wait until 2026-04-28T22:03:00Z"),
            "{text}"
        );
        let now = at - Duration::from_secs(90);
        assert_eq!(limited.retry_in(now), Some(Duration::from_secs(90)));
        assert_eq!(
            limited.retry_in(at + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
        let missing = InfraFailure::not_started(
            Provider::Google,
            "/nope/gemini",
            &std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        assert_eq!(missing.kind, FailureKind::CliMissing);
        assert!(missing
            .stop_message("p.md")
            .contains("set [providers.google] command"));
        for kind in FailureKind::ALL {
            let f = InfraFailure::new(kind, Provider::OpenAi, "x");
            assert!(f.stop_message("p.md").ends_with("(no attempt was charged)"));
        }
    }
}
