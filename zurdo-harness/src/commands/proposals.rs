//! What `zurdo analyze --fix` and `zurdo heal` share: asking the analyzer,
//! asking the person at the terminal, and writing the PRD back only when it
//! is still the text the edits were made against.

use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::agent::{invoke, side_call};
use crate::config::{Config, Role};
use crate::error::{Error, ErrorKind};
use crate::state::lock::{Lock, LockError};
use crate::state::{sha1_hex, StateDir};

/// Takes the PRD's run lock for a whole session of proposals (no run may
/// start on a PRD being edited); a run holding it is `LockHeld`.
pub(super) fn lock(dir: &StateDir, shown: &str) -> Result<Lock, Error> {
    dir.check()?;
    dir.lock(|_| {}).map_err(|e| match e {
        LockError::Held { .. } => Error::new(ErrorKind::LockHeld, format!("{shown}: {e}")),
        LockError::Io(_) => Error::new(ErrorKind::Io, format!("{shown}: {e}")),
    })
}

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
/// started) on Ctrl-C. A provider whose CLI cannot work (out of quota, not
/// logged in, not installed, rate limited) is not asked again by this
/// command: its calls go to the next seat of `[roles.analyzer] fallback`.
pub(super) struct Analyzer<'c> {
    config: &'c Config,
    role: &'c Role,
    guard: invoke::KillOnSignal,
    blocked: std::cell::RefCell<std::collections::BTreeMap<crate::agent::Provider, String>>,
}

impl<'c> Analyzer<'c> {
    /// The configured `[roles.analyzer]`, if any.
    pub(super) fn of(config: &'c Config) -> Option<Analyzer<'c>> {
        config.analyzer.as_ref().map(|role| Analyzer {
            config,
            role,
            guard: invoke::KillOnSignal::install(),
            blocked: Default::default(),
        })
    }

    /// `<provider>/<model>` as configured.
    pub(super) fn name(&self) -> String {
        format!("{}/{}", self.role.provider.name(), self.role.model)
    }

    /// One call; its limit is `[reason] timeout`. A seat whose CLI cannot
    /// work is said on stderr and the next one is asked.
    pub(super) fn ask(&self, prompt: &str) -> side_call::Called {
        let chain = self.role.chain();
        let asked: Vec<side_call::Asked<'_>> = chain
            .iter()
            .map(|seat| side_call::Asked {
                provider: seat.provider,
                program: self.config.command(seat.provider),
                model: &seat.model,
                timeout: self.config.reason.timeout,
                role: "analyzer",
            })
            .collect();
        let guard = self.guard.clone();
        let blocked = self.blocked.borrow().clone();
        let mut met = Vec::new();
        let (called, _) = side_call::call_chain(
            &asked,
            prompt,
            &|p| blocked.get(&p).cloned(),
            |passed| {
                if let side_call::Passed::Failed { seat, failure } = passed {
                    eprintln!(
                        "zurdo: the analyzer {seat}: {}{}; asking the next of [roles.analyzer] fallback",
                        failure.kind.headline(),
                        failure.quoted()
                    );
                    met.push(failure.clone());
                }
            },
            |pid| guard.set(pid),
        );
        met.extend(called.failure.clone().filter(|f| f.kind.fails_over()));
        let mut blocked = self.blocked.borrow_mut();
        for f in met {
            blocked
                .entry(f.provider)
                .or_insert_with(|| format!("{}: {}{}", f.cli(), f.kind.headline(), f.quoted()));
        }
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
