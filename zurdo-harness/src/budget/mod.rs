//! Cost budgets: `[budget]` in the config (what a run and each task may
//! spend, in US dollars and in tokens) and a task's `**Max-Cost**`, the
//! spend recorded so far, and the refusal of an attempt predicted to cross
//! a budget ([`check`]).
//!
//! The limits are read from the config as of run start (they are part of
//! the policy document, and a resume puts the run-start ones back in
//! force); the spend is what prd.json records of each attempt, so it
//! survives a resume. Nothing here decides a verdict: a refusal fails the
//! task before an attempt is spent, as an exhausted attempt budget does.

mod predict;

pub use predict::{check, predict, Amount, Basis, Limit, Prediction, Refusal, Sample, Scope, Unit};

use serde::{Deserialize, Serialize};
use toml::Spanned;
use zurdo::money::{self, Usd};

/// The most tokens a token budget may name: a trillion.
pub const MAX_TOKENS: u64 = 1_000_000_000_000;

/// `[budget]`: what a run and each of its tasks may spend. Every limit is
/// optional; with none (and no task's `**Max-Cost**`) nothing is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budget {
    /// `max_cost_usd`: the run's spend, over every task, at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<Usd>,
    /// `max_task_cost_usd`: one task's spend at most (a task's
    /// `**Max-Cost**` overrides it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_task_cost_usd: Option<Usd>,
    /// `max_tokens`: the run's tokens (input and output), over every task,
    /// at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// `max_task_tokens`: one task's tokens at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_task_tokens: Option<u64>,
}

impl Budget {
    /// True when any limit is set.
    pub fn is_set(&self) -> bool {
        *self != Budget::default()
    }

    /// The limits in force for a task whose `**Max-Cost**` is `max_cost`:
    /// the run's first, then the task's (its `**Max-Cost**` in place of
    /// `max_task_cost_usd`).
    pub fn limits(&self, max_cost: Option<Usd>) -> Vec<Limit> {
        let mut limits = Vec::new();
        if let Some(usd) = self.max_cost_usd {
            limits.push(Limit::usd("[budget] max_cost_usd", Scope::Run, usd));
        }
        if let Some(tokens) = self.max_tokens {
            limits.push(Limit::tokens("[budget] max_tokens", Scope::Run, tokens));
        }
        match (max_cost, self.max_task_cost_usd) {
            (Some(usd), _) => limits.push(Limit::usd("**Max-Cost**", Scope::Task, usd)),
            (None, Some(usd)) => {
                limits.push(Limit::usd("[budget] max_task_cost_usd", Scope::Task, usd))
            }
            (None, None) => {}
        }
        if let Some(tokens) = self.max_task_tokens {
            limits.push(Limit::tokens(
                "[budget] max_task_tokens",
                Scope::Task,
                tokens,
            ));
        }
        limits
    }

    /// True when a limit in dollars is in force for a task whose
    /// `**Max-Cost**` is `max_cost`.
    pub fn counts_dollars(&self, max_cost: Option<Usd>) -> bool {
        self.max_cost_usd.is_some() || self.max_task_cost_usd.is_some() || max_cost.is_some()
    }
}

/// `[budget]` as written: each amount a number of dollars (`5`, `2.5`) or
/// a string (`"$2.50"`), each token count a positive integer.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawBudget {
    max_cost_usd: Option<Spanned<toml::Value>>,
    max_task_cost_usd: Option<Spanned<toml::Value>>,
    max_tokens: Option<Spanned<i64>>,
    max_task_tokens: Option<Spanned<i64>>,
}

impl RawBudget {
    /// The budget, checked; an error is `at(span, message)`, the message
    /// naming the key, what is wrong and the fix.
    pub(crate) fn checked(
        &self,
        at: &dyn Fn(std::ops::Range<usize>, String) -> String,
    ) -> Result<Budget, String> {
        let usd =
            |key: &str, value: &Option<Spanned<toml::Value>>| -> Result<Option<Usd>, String> {
                let Some(value) = value else { return Ok(None) };
                dollars(key, value.get_ref())
                    .map(Some)
                    .map_err(|m| at(value.span(), m))
            };
        let tokens = |key: &str, value: &Option<Spanned<i64>>| -> Result<Option<u64>, String> {
            let Some(value) = value else { return Ok(None) };
            let n = u64::try_from(*value.get_ref()).unwrap_or(0);
            zurdo::limits::check_count("[budget]", key, n, 1, MAX_TOKENS, None)
                .map(Some)
                .map_err(|m| at(value.span(), m))
        };
        Ok(Budget {
            max_cost_usd: usd("max_cost_usd", &self.max_cost_usd)?,
            max_task_cost_usd: usd("max_task_cost_usd", &self.max_task_cost_usd)?,
            max_tokens: tokens("max_tokens", &self.max_tokens)?,
            max_task_tokens: tokens("max_task_tokens", &self.max_task_tokens)?,
        })
    }
}

/// A `[budget]` amount: a positive number of dollars or a string as a
/// PRD's `**Max-Cost**` takes it.
fn dollars(key: &str, value: &toml::Value) -> Result<Usd, String> {
    let what = format!("[budget] {key}");
    let fix = format!("write {key} = 5.0 (US dollars) or {key} = \"$5.00\"");
    let text = match value {
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(f) => {
            return match Usd::from_dollars(*f) {
                Some(usd) if usd.0 > 0 => Ok(usd),
                Some(_) => Err(format!(
                    "{what} = {f} is not a positive amount of US dollars; {fix}"
                )),
                None if *f > 0.0 => Err(format!(
                    "{what} = {f} is more than {}, the most zurdo accepts; write {key} = {} or less",
                    money::MAX_USD,
                    money::MAX_USD.dollars()
                )),
                None => Err(format!(
                    "{what} = {f} is not a positive amount of US dollars; {fix}"
                )),
            };
        }
        toml::Value::String(s) => s.clone(),
        other => {
            return Err(format!(
                "{what} = {other} is not an amount of US dollars; {fix}"
            ))
        }
    };
    money::parse_usd(&text).map_err(|e| format!("{}; {fix}", e.message(&what, &text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_max_cost_takes_the_place_of_max_task_cost_usd() {
        let b = Budget {
            max_cost_usd: Some(Usd(9_000_000)),
            max_task_cost_usd: Some(Usd(1_000_000)),
            max_tokens: None,
            max_task_tokens: Some(500),
        };
        let names = |l: Vec<Limit>| l.into_iter().map(|l| l.name).collect::<Vec<_>>();
        assert_eq!(
            names(b.limits(None)),
            [
                "[budget] max_cost_usd",
                "[budget] max_task_cost_usd",
                "[budget] max_task_tokens"
            ]
        );
        assert_eq!(
            names(b.limits(Some(Usd(2)))),
            [
                "[budget] max_cost_usd",
                "**Max-Cost**",
                "[budget] max_task_tokens"
            ]
        );
        assert!(Budget::default().limits(None).is_empty());
        assert!(!Budget::default().is_set() && b.is_set());
        assert!(Budget::default().counts_dollars(Some(Usd(1))));
        assert!(!Budget::default().counts_dollars(None));
    }
}
