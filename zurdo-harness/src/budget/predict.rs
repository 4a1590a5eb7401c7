//! The spend recorded so far and the prediction of the next attempt's:
//! before each attempt, every limit in force is held against what its
//! scope (the run, or the task) has spent plus what the attempt is
//! predicted to spend, and the first one it would cross refuses it.
//!
//! An attempt counts in dollars when its CLI reported a cost, and in
//! tokens (input and output) when it reported token counts; a CLI that
//! reports no cost counts only against the token limits. The prediction
//! is the median of the task's own attempts so far, else the median of the
//! provider's attempts so far in this run, else nothing: with no history
//! the attempt is let run (unless its scope has already spent the limit).

use serde::{Deserialize, Serialize};
use zurdo::money::Usd;

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// US dollars, as the CLI reported them.
    Usd,
    /// Tokens, input and output.
    Tokens,
}

/// Whose spend a limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The whole run: every task's attempts.
    Run,
    /// One task's attempts.
    Task,
}

/// An amount in a limit's unit: dollars (written as a number with a
/// fraction, `0.05`) or tokens (an integer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Amount {
    /// A whole number of tokens.
    Tokens(u64),
    /// US dollars.
    Usd(Usd),
}

impl Amount {
    fn of(unit: Unit, raw: u64) -> Amount {
        match unit {
            Unit::Usd => Amount::Usd(Usd(raw)),
            Unit::Tokens => Amount::Tokens(raw),
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Usd(usd) => write!(f, "{usd}"),
            Amount::Tokens(n) => write!(f, "{n} tokens"),
        }
    }
}

/// One limit in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// Where it is set, as the user wrote it: `[budget] max_cost_usd`,
    /// `**Max-Cost**`.
    pub name: String,
    /// Whose spend it bounds.
    pub scope: Scope,
    /// What it counts.
    pub unit: Unit,
    /// The limit, in micro-dollars or tokens.
    pub amount: u64,
}

impl Limit {
    /// A limit in dollars.
    pub fn usd(name: &str, scope: Scope, usd: Usd) -> Limit {
        Limit {
            name: name.to_string(),
            scope,
            unit: Unit::Usd,
            amount: usd.0,
        }
    }

    /// A limit in tokens.
    pub fn tokens(name: &str, scope: Scope, tokens: u64) -> Limit {
        Limit {
            name: name.to_string(),
            scope,
            unit: Unit::Tokens,
            amount: tokens,
        }
    }
}

/// One attempt's spend, as prd.json records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The task it was of.
    pub task: String,
    /// The provider whose CLI ran it.
    pub provider: String,
    /// The cost its CLI reported.
    pub cost: Option<Usd>,
    /// The tokens (input and output) its CLI reported.
    pub tokens: Option<u64>,
}

impl Sample {
    /// What it spent in `unit`, when its CLI reported that.
    fn measure(&self, unit: Unit) -> Option<u64> {
        match unit {
            Unit::Usd => self.cost.map(|c| c.0),
            Unit::Tokens => self.tokens,
        }
    }
}

/// What the prediction of an attempt rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The median of the task's own attempts so far.
    Task,
    /// The median of the provider's attempts so far in this run.
    Provider,
    /// No attempt to go by: the attempt is let run.
    None,
}

impl Basis {
    /// In words, for the live line and the report.
    pub fn words(self) -> &'static str {
        match self {
            Basis::Task => "the median of the task's attempts so far",
            Basis::Provider => "the median of the provider's attempts so far in this run",
            Basis::None => "no attempt to go by",
        }
    }
}

/// What the next attempt is predicted to spend, in a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prediction {
    /// Micro-dollars or tokens.
    pub amount: u64,
    /// What it rests on.
    pub basis: Basis,
}

/// An attempt refused because it would cross a limit: recorded on the
/// task in prd.json, and said by the `task_settled` event
/// (`why: budget_exhausted`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The attempt that was not started.
    pub attempt: u32,
    /// The limit it would cross, as the user wrote it.
    pub budget: String,
    /// Whose spend that limit bounds.
    pub scope: Scope,
    /// The limit.
    pub limit: Amount,
    /// What its scope had spent.
    pub spent: Amount,
    /// What the attempt was predicted to spend.
    pub predicted: Amount,
    /// What the prediction rests on.
    pub basis: Basis,
}

impl Refusal {
    /// One line: `[budget] max_task_cost_usd is $0.05; the task has spent
    /// $0.03 and the next attempt is predicted to spend $0.03 (…)`.
    pub fn describe(&self) -> String {
        let whose = match self.scope {
            Scope::Run => "the run",
            Scope::Task => "the task",
        };
        format!(
            "{} is {}; {whose} has spent {} and attempt {} is predicted to spend {} ({})",
            self.budget,
            self.limit,
            self.spent,
            self.attempt,
            self.predicted,
            self.basis.words()
        )
    }
}

/// The median of `values` (the lower middle one of an even count, so a
/// prediction is always an amount some attempt spent); `None` when empty.
fn median(mut values: Vec<u64>) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    Some(values[(values.len() - 1) / 2])
}

/// What `task`'s next attempt on `provider` is predicted to spend in
/// `unit`, from `samples` (every attempt of the run so far).
pub fn predict(samples: &[Sample], task: &str, provider: &str, unit: Unit) -> Prediction {
    let of = |keep: &dyn Fn(&Sample) -> bool| {
        median(
            samples
                .iter()
                .filter(|s| keep(s))
                .filter_map(|s| s.measure(unit))
                .collect(),
        )
    };
    if let Some(amount) = of(&|s| s.task == task) {
        return Prediction {
            amount,
            basis: Basis::Task,
        };
    }
    if let Some(amount) = of(&|s| s.provider == provider) {
        return Prediction {
            amount,
            basis: Basis::Provider,
        };
    }
    Prediction {
        amount: 0,
        basis: Basis::None,
    }
}

/// The first of `limits` that attempt `attempt` of `task` on `provider`
/// would cross: its scope has spent the limit already, or what it spent
/// and what the attempt is predicted to spend together exceed it.
pub fn check(
    limits: &[Limit],
    samples: &[Sample],
    task: &str,
    provider: &str,
    attempt: u32,
) -> Option<Refusal> {
    limits.iter().find_map(|limit| {
        let spent: u64 = samples
            .iter()
            .filter(|s| limit.scope == Scope::Run || s.task == task)
            .filter_map(|s| s.measure(limit.unit))
            .fold(0u64, u64::saturating_add);
        let predicted = predict(samples, task, provider, limit.unit);
        let crosses =
            spent >= limit.amount || spent.saturating_add(predicted.amount) > limit.amount;
        crosses.then(|| Refusal {
            attempt,
            budget: limit.name.clone(),
            scope: limit.scope,
            limit: Amount::of(limit.unit, limit.amount),
            spent: Amount::of(limit.unit, spent),
            predicted: Amount::of(limit.unit, predicted.amount),
            basis: predicted.basis,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(task: &str, provider: &str, cost: Option<u64>, tokens: Option<u64>) -> Sample {
        Sample {
            task: task.into(),
            provider: provider.into(),
            cost: cost.map(Usd),
            tokens,
        }
    }

    #[test]
    fn the_task_history_comes_first_then_the_provider_median_then_nothing() {
        let samples = vec![
            sample("task-1", "anthropic", Some(30), Some(100)),
            sample("task-1", "anthropic", Some(50), Some(300)),
            sample("task-1", "anthropic", Some(10), Some(200)),
            sample("task-2", "anthropic", Some(90), Some(900)),
        ];
        let p = predict(&samples, "task-1", "anthropic", Unit::Usd);
        assert_eq!((p.amount, p.basis), (30, Basis::Task));
        let p = predict(&samples, "task-1", "anthropic", Unit::Tokens);
        assert_eq!((p.amount, p.basis), (200, Basis::Task));
        // A task with no attempt yet: the provider's median (the lower
        // middle of an even count).
        let p = predict(&samples, "task-3", "anthropic", Unit::Usd);
        assert_eq!((p.amount, p.basis), (30, Basis::Provider));
        // Another provider has no history here.
        let p = predict(&samples, "task-3", "openai", Unit::Usd);
        assert_eq!((p.amount, p.basis), (0, Basis::None));
        assert_eq!(median(vec![5]), Some(5));
        assert_eq!(median(Vec::new()), None);
    }

    #[test]
    fn a_cli_that_reports_no_cost_counts_tokens_only() {
        let samples = vec![sample("task-1", "openai", None, Some(1280))];
        let p = predict(&samples, "task-1", "openai", Unit::Usd);
        assert_eq!(p.basis, Basis::None);
        let dollars = [Limit::usd("[budget] max_cost_usd", Scope::Run, Usd(1))];
        assert_eq!(check(&dollars, &samples, "task-1", "openai", 2), None);
        let tokens = [Limit::tokens("[budget] max_tokens", Scope::Run, 2000)];
        let r = check(&tokens, &samples, "task-1", "openai", 2).expect("refused");
        assert_eq!(r.spent, Amount::Tokens(1280));
        assert_eq!(r.predicted, Amount::Tokens(1280));
        assert_eq!(r.basis, Basis::Task);
    }

    #[test]
    fn an_attempt_that_would_cross_is_refused_and_one_that_fits_is_not() {
        let task_limit = |micros| [Limit::usd("**Max-Cost**", Scope::Task, Usd(micros))];
        let samples = vec![
            sample("task-1", "anthropic", Some(30_000), None),
            sample("task-2", "anthropic", Some(500_000), None),
        ];
        // $0.03 spent + $0.03 predicted crosses $0.05 …
        let r = check(&task_limit(50_000), &samples, "task-1", "anthropic", 2).expect("refused");
        assert_eq!(r.budget, "**Max-Cost**");
        assert_eq!(r.limit, Amount::Usd(Usd(50_000)));
        assert_eq!(r.spent, Amount::Usd(Usd(30_000)));
        assert_eq!(r.predicted, Amount::Usd(Usd(30_000)));
        assert_eq!(
            r.describe(),
            "**Max-Cost** is $0.05; the task has spent $0.03 and attempt 2 is predicted to spend $0.03 (the median of the task's attempts so far)"
        );
        // … and reaches $0.06 exactly (not beyond).
        assert_eq!(
            check(&task_limit(60_000), &samples, "task-1", "anthropic", 2),
            None
        );
        // With no history the first attempt runs; a limit already spent
        // refuses even then.
        let run = [Limit::usd(
            "[budget] max_cost_usd",
            Scope::Run,
            Usd(530_000),
        )];
        assert_eq!(check(&run, &[], "task-1", "anthropic", 1), None);
        let r = check(&run, &samples, "task-3", "openai", 1).expect("spent");
        assert_eq!(r.spent, Amount::Usd(Usd(530_000)));
        assert_eq!(r.basis, Basis::None);
        assert_eq!(r.scope, Scope::Run);
    }

    #[test]
    fn amounts_read_back_as_written() {
        for amount in [
            Amount::Usd(Usd(50_000)),
            Amount::Tokens(3000),
            Amount::Usd(Usd(3_000_000)),
        ] {
            let json = serde_json::to_string(&amount).expect("json");
            assert_eq!(
                serde_json::from_str::<Amount>(&json).ok(),
                Some(amount),
                "{json}"
            );
        }
        assert_eq!(Amount::Tokens(3000).to_string(), "3000 tokens");
    }
}
