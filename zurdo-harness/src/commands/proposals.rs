//! What `zurdo analyze --fix` and `zurdo heal` share: asking the analyzer,
//! asking the person at the terminal, and writing the PRD back only when it
//! is still the text the edits were made against.

use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::agent::{invoke, side_call};
use crate::config::{Config, Role};
use crate::state::sha1_hex;

/// How an edit that passed the checks was (or was not) accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Acceptance {
    /// `--yes`.
    Yes,
    /// The person at the terminal said yes.
    Confirmed,
    /// The person at the terminal said no.
    Declined,
    /// Nobody could be asked (no terminal, no `--yes`): not written.
    NotAsked,
}

impl Acceptance {
    /// Accepts with `--yes`, else asks `question` on a terminal.
    pub(super) fn decide(yes: bool, question: &str) -> Acceptance {
        if yes {
            return Acceptance::Yes;
        }
        if !std::io::stdin().is_terminal() {
            return Acceptance::NotAsked;
        }
        eprint!("{question} [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        if std::io::stdin().read_line(&mut answer).is_err() {
            return Acceptance::NotAsked;
        }
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Acceptance::Confirmed,
            _ => Acceptance::Declined,
        }
    }

    /// True when the edit is to be written.
    pub(super) fn accepted(self) -> bool {
        matches!(self, Acceptance::Yes | Acceptance::Confirmed)
    }

    /// The outcome's name in records (`applied`, `declined`, `not_written`).
    pub(super) fn outcome(self) -> &'static str {
        match self {
            Acceptance::Yes | Acceptance::Confirmed => "applied",
            Acceptance::Declined => "declined",
            Acceptance::NotAsked => "not_written",
        }
    }

    /// Who accepted it, for the heal log.
    pub(super) fn by(self) -> &'static str {
        match self {
            Acceptance::Yes => "--yes",
            Acceptance::Confirmed => "confirmed at the terminal",
            Acceptance::Declined | Acceptance::NotAsked => "",
        }
    }
}

/// The analyzer: its role, and a guard that kills its CLI (and whatever that
/// started) on Ctrl-C or SIGTERM before exiting.
pub(super) struct Analyzer<'c> {
    config: &'c Config,
    role: &'c Role,
    guard: invoke::KillOnSignal,
}

impl<'c> Analyzer<'c> {
    /// The configured `[roles.analyzer]`, if any.
    pub(super) fn of(config: &'c Config) -> Option<Analyzer<'c>> {
        config.analyzer.as_ref().map(|role| Analyzer {
            config,
            role,
            guard: invoke::KillOnSignal::install(),
        })
    }

    /// `<provider>/<model>` as configured.
    pub(super) fn name(&self) -> String {
        format!("{}/{}", self.role.provider.name(), self.role.model)
    }

    /// One call; its limit is `[reason] timeout`.
    pub(super) fn ask(&self, prompt: &str) -> side_call::Called {
        let asked = side_call::Asked {
            provider: self.role.provider,
            program: self.config.command(self.role.provider),
            model: &self.role.model,
            timeout: self.config.reason.timeout,
            role: "analyzer",
        };
        let guard = self.guard.clone();
        let called = side_call::call(&asked, prompt, |pid| guard.set(pid));
        self.guard.hold_if_stopping();
        called
    }
}

/// Writes `text` to the PRD at `path` atomically, unless the file no longer
/// hashes to `read_sha1` (it changed since it was read: the edits were made
/// against other text).
pub(super) fn write_prd(path: &Path, read_sha1: &str, text: &str) -> Result<(), String> {
    let now = zurdo::source::read(path).map_err(|e| e.to_string())?;
    if sha1_hex(&now) != read_sha1 {
        return Err(format!(
            "{} changed while zurdo was working on it; nothing was written",
            path.display()
        ));
    }
    zurdo_base::files::replace(path, text.as_bytes(), zurdo_base::files::Durability::Synced)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `text` with every line indented by `prefix`.
pub(super) fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
