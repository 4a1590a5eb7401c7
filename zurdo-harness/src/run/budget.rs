//! The budget check before each attempt: the limits in force (the
//! run-start `[budget]` and the task's `**Max-Cost**`) held against what
//! prd.json records as spent and what the attempt is predicted to spend
//! ([`crate::budget::check`]). An attempt that would cross one is refused
//! before it starts: the task fails with `budget_exhausted` (the tasks
//! depending on it are then blocked), the refusal is kept on the task in
//! prd.json, and `task_settled` says it live and in progress.log.

use zurdo::money::Usd;
use zurdo::Task;

use super::Run;
use crate::agent::vocabulary;
use crate::budget::{Refusal, Sample, Unit};
use crate::event::{Event, Settled};
use crate::state::run_state::{RunState, Status};

/// Every attempt the run state records, as spend: its cost when its CLI
/// reported one, its tokens (input and output) when it reported them.
pub(super) fn samples(state: &RunState) -> Vec<Sample> {
    state
        .tasks
        .iter()
        .flat_map(|t| {
            t.iterations.iter().map(|it| Sample {
                task: t.id.clone(),
                // The provider that ran it (older records: the executor).
                provider: it
                    .provider
                    .map_or_else(|| state.executor.clone(), |p| p.name().to_string()),
                cost: it.agent.cost_usd.and_then(Usd::from_dollars),
                tokens: it
                    .agent
                    .usage
                    .map(|u| u.input_tokens.saturating_add(u.output_tokens)),
            })
        })
        .collect()
}

impl Run {
    /// Refuses `attempt` of `task` when it would cross a budget: the task
    /// is settled `failed` (`budget_exhausted`) and true is returned; false
    /// lets it run.
    pub(super) fn refused_by_budget(
        &mut self,
        task: &Task,
        attempt: u32,
        provider: crate::agent::Provider,
    ) -> bool {
        let budget = self.ctx.config.budget;
        let max_cost = task.metadata.max_cost;
        let limits = budget.limits(max_cost);
        if limits.is_empty() {
            return false;
        }
        if budget.counts_dollars(max_cost)
            && vocabulary::vocabulary(provider).cost.is_empty()
            && self.said_counts_tokens.insert(provider)
        {
            let token_limits = limits
                .iter()
                .filter(|l| l.unit == Unit::Tokens)
                .map(|l| format!("{} = {}", l.name, l.amount))
                .collect();
            self.events.emit(Event::BudgetCountsTokens {
                provider: provider.name().to_string(),
                cli: provider.default_command().to_string(),
                token_limits,
            });
        }
        let samples = samples(&self.record.state);
        let Some(refusal) =
            crate::budget::check(&limits, &samples, &task.id, provider.name(), attempt)
        else {
            return false;
        };
        self.refuse(task, refusal);
        true
    }

    /// Records `refusal` on the task and fails it.
    fn refuse(&mut self, task: &Task, refusal: Refusal) {
        if let Some(t) = self.record.task_mut(&task.id) {
            t.budget_exhausted = Some(refusal.clone());
        }
        self.settle(task, Status::Failed, Settled::BudgetExhausted { refusal });
    }
}
