//! The escalation ladder (`[escalation]`, opt in): the rungs a task climbs
//! when it stalls (the fingerprint stall) or fails an attempt, and what a
//! task has climbed so far. This module is the ladder as data: its rungs,
//! their names as config writes them, the checks a config's ladder must
//! pass, the next rung a climb reaches, and the record prd.json keeps. The
//! run loop applies it (`run/escalate.rs`).
//!
//! Nothing on the ladder can pass a criterion: a rung changes who works on
//! the task next (a diagnosis in the prompt, a stronger model, another
//! provider's CLI) or stops the task (`halt`, which fails it). Every
//! attempt is still judged by zurdo's own verification.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::agent::Provider;

/// The ladder `[escalation] enabled = true` climbs when it names none.
pub const DEFAULT_LADDER: [&str; 4] = ["retry", "diagnose", "effort:high", "halt"];

/// One rung of the ladder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rung {
    /// One more round of plain retries on the same model, with the failing
    /// evidence (what every task does below the ladder).
    Retry,
    /// One reasoner call on the failure (`[reason] enabled` and a
    /// reasoner): its guidance opens the next prompt, or its `halt_task`
    /// fails the task.
    Diagnose,
    /// The model the current provider's effort map gives this effort
    /// (`effort:high`).
    Effort(String),
    /// Another configured provider's CLI, with its own effort map.
    Provider(Provider),
    /// The task stops climbing and fails now.
    Halt,
}

impl Rung {
    /// The rung as config writes it (`effort:high`, `provider:openai`).
    pub fn name(&self) -> String {
        match self {
            Rung::Retry => "retry".into(),
            Rung::Diagnose => "diagnose".into(),
            Rung::Effort(key) => format!("effort:{key}"),
            Rung::Provider(p) => format!("provider:{}", p.name()),
            Rung::Halt => "halt".into(),
        }
    }

    /// Reads one rung, or says what is wrong with it and the fix.
    pub fn parse(text: &str) -> Result<Rung, String> {
        let text = text.trim();
        let all =
            "the rungs are retry, diagnose, effort:<key of the effort map>, provider:<name>, halt";
        match text.split_once(':') {
            None => match text {
                "retry" => Ok(Rung::Retry),
                "diagnose" => Ok(Rung::Diagnose),
                "halt" => Ok(Rung::Halt),
                "effort" | "provider" => Err(format!(
                    "rung `{text}` needs a name after a colon (`{text}:…`); {all}"
                )),
                other => Err(format!("unknown rung `{other}`; {all}")),
            },
            Some(("effort", key)) => {
                let key = key.trim();
                if key.is_empty() {
                    Err(format!(
                        "rung `{text}` names no effort; write `effort:high` (a key of the effort map)"
                    ))
                } else {
                    Ok(Rung::Effort(key.to_string()))
                }
            }
            Some(("provider", name)) => {
                let name = name.trim();
                Provider::from_name(name)
                    .map(Rung::Provider)
                    .ok_or_else(|| {
                        format!(
                        "rung `{text}` names an unknown provider `{name}`; the providers are {}",
                        Provider::ALL
                            .iter()
                            .map(|p| p.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                    })
            }
            Some(_) => Err(format!("unknown rung `{text}`; {all}")),
        }
    }
}

/// What makes a task climb one rung.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// A fingerprint stall: the same failure `[reason] stall_attempts`
    /// attempts in a row (and each further repeat of it).
    Stall,
    /// Every failed attempt.
    Failure,
}

impl Trigger {
    /// The name config writes (`stall`, `failure`).
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Stall => "stall",
            Trigger::Failure => "failure",
        }
    }

    /// Reads `climb_on`.
    pub fn parse(text: &str) -> Result<Trigger, String> {
        match text {
            "stall" => Ok(Trigger::Stall),
            "failure" => Ok(Trigger::Failure),
            other => Err(format!(
                "climb_on `{other}` is neither \"stall\" (the same failure repeated) nor \"failure\" (every failed attempt)"
            )),
        }
    }
}

/// `[escalation]`, when enabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    /// The rungs, bottom first.
    pub ladder: Vec<Rung>,
    /// What climbs a rung.
    pub climb_on: Trigger,
}

impl Escalation {
    /// Checks a ladder: not empty, `halt` last when present. The message
    /// names the rung and the fix.
    pub fn check(ladder: &[Rung]) -> Result<(), String> {
        if ladder.is_empty() {
            return Err(format!(
                "ladder is empty; name at least one rung (the default is {})",
                DEFAULT_LADDER
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(at) = ladder.iter().position(|r| *r == Rung::Halt) {
            if at + 1 < ladder.len() {
                return Err(format!(
                    "`halt` is rung {} of {}, but a halted task climbs no further: move `halt` last or drop the rungs after it",
                    at + 1,
                    ladder.len()
                ));
            }
        }
        Ok(())
    }

    /// The section of the policy document: the ladder and what climbs it.
    pub fn document(&self) -> Value {
        json!({
            "ladder": self.ladder.iter().map(Rung::name).collect::<Vec<_>>(),
            "climb_on": self.climb_on.name(),
        })
    }

    /// The ladder a policy document's `escalation` section records, when
    /// every part reads back.
    pub fn from_document(e: &Value) -> Option<Escalation> {
        let ladder = e["ladder"]
            .as_array()?
            .iter()
            .map(|r| r.as_str().and_then(|r| Rung::parse(r).ok()))
            .collect::<Option<Vec<_>>>()?;
        let climb_on = Trigger::parse(e["climb_on"].as_str()?).ok()?;
        Some(Escalation { ladder, climb_on })
    }
}

/// A rung skipped on the way up: it could not run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The rung (`provider:google`).
    pub rung: String,
    /// Why it could not run.
    pub why: String,
}

/// One climb of a task, as prd.json records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Climb {
    /// The failed attempt that made the task climb.
    pub attempt: u32,
    /// The rung it left (`start`: below the ladder, its own model).
    pub from: String,
    /// The rung it reached.
    pub to: String,
    /// Why it climbed (the stall, the failure).
    pub why: String,
    /// Rungs passed over because they could not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// The provider the next attempt runs on (none after `halt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The model the next attempt runs (none after `halt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Where a task stands on the ladder (prd.json's `escalation` on the task).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The index of the rung reached (none: below the ladder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<usize>,
    /// The provider a `provider:` rung moved the task to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// The effort an `effort:` rung moved the task to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// Every climb, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub climbs: Vec<Climb>,
}

impl Standing {
    /// The name of the rung reached (`start` below the ladder).
    pub fn rung_name(&self, ladder: &[Rung]) -> String {
        self.rung
            .and_then(|i| ladder.get(i))
            .map_or_else(|| "start".to_string(), Rung::name)
    }

    /// The index of the next rung up, when there is one.
    pub fn next(&self, ladder: &[Rung]) -> Option<usize> {
        let next = self.rung.map_or(0, |i| i + 1);
        (next < ladder.len()).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rungs_read_and_name_themselves() {
        for text in [
            "retry",
            "diagnose",
            "effort:high",
            "provider:openai",
            "halt",
        ] {
            let rung = Rung::parse(text).expect(text);
            assert_eq!(rung.name(), text);
        }
        assert_eq!(
            Rung::parse("provider:copilot"),
            Ok(Rung::Provider(Provider::GitHub))
        );
        let cases = [
            (
                "retyr",
                "unknown rung `retyr`; the rungs are retry, diagnose",
            ),
            ("effort:", "names no effort; write `effort:high`"),
            ("effort", "needs a name after a colon"),
            (
                "provider:claude",
                "unknown provider `claude`; the providers are anthropic",
            ),
            ("model:x", "unknown rung `model:x`"),
        ];
        for (text, said) in cases {
            let e = Rung::parse(text).expect_err(text);
            assert!(e.contains(said), "{text}: {e}");
        }
    }

    #[test]
    fn a_ladder_is_not_empty_and_halt_ends_it() {
        assert!(Escalation::check(&[]).is_err_and(|e| e.contains("ladder is empty")));
        let e = Escalation::check(&[Rung::Halt, Rung::Retry]).expect_err("halt first");
        assert!(
            e.contains("`halt` is rung 1 of 2") && e.contains("move `halt` last"),
            "{e}"
        );
        assert!(Escalation::check(&[Rung::Retry, Rung::Halt]).is_ok());
        assert!(Escalation::check(&[Rung::Diagnose]).is_ok());
    }

    #[test]
    fn the_next_rung_is_one_up_until_the_top() {
        let ladder = [Rung::Retry, Rung::Halt];
        let mut s = Standing::default();
        assert_eq!(s.rung_name(&ladder), "start");
        assert_eq!(s.next(&ladder), Some(0));
        s.rung = Some(0);
        assert_eq!(s.rung_name(&ladder), "retry");
        assert_eq!(s.next(&ladder), Some(1));
        s.rung = Some(1);
        assert_eq!(s.next(&ladder), None);
    }
}
