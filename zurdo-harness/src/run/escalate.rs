//! The escalation ladder in the run loop (`[escalation]`, opt in): after a
//! failed attempt that stalled (or any failed attempt, with `climb_on =
//! "failure"`), the task climbs one rung: `retry` (plain retries go on),
//! `diagnose` (one reasoner call), `effort:<key>` (that effort's model),
//! `provider:<name>` (another CLI, its own effort map) or `halt` (the task
//! fails now). A rung that cannot run (no reasoner, no such effort, a CLI
//! blocked or not installed, a model refused at the probe, the model or
//! provider the task already has) is skipped with a note and the climb
//! goes on to the next.
//!
//! Each climb is an `escalated` event (live and in progress.log), recorded
//! on the task in prd.json (the report's `## Escalations`), and the ladder
//! it climbs is in the policy document. The next attempt's prompt carries
//! the same failing evidence whoever runs it. Nothing here can pass a
//! criterion: a climb only changes who works next, or fails the task.

use zurdo::Task;

use super::Run;
use crate::escalation::{Climb, Rung, Skipped, Standing, Trigger};
use crate::event::{Event, Settled};
use crate::state::run_state::Status;

impl Run {
    /// After a failed attempt with the ladder on: the stall check, then a
    /// climb when the trigger fires. `Some` when the task settles (a
    /// `halt` rung, or a diagnosis's `halt_task`).
    pub(super) fn escalate(
        &mut self,
        task: &Task,
        attempt: u32,
        max: u32,
    ) -> Option<(Status, Settled)> {
        let escalation = self.ctx.config.escalation.clone()?;
        let stall = self.reasoner().stall_check(task, attempt, max);
        // The final attempt has no next prompt for a climb to change.
        if attempt >= max || self.stopping() {
            return None;
        }
        let why = match (escalation.climb_on, &stall) {
            (Trigger::Stall, Some(s)) => {
                format!("stalled: the same failure {} attempts in a row", s.repeats)
            }
            (Trigger::Stall, None) => return None,
            (Trigger::Failure, _) => format!("attempt {attempt} failed"),
        };
        let ladder = escalation.ladder;
        let mut standing = self
            .record
            .task(&task.id)
            .and_then(|t| t.escalation.clone())
            .unwrap_or_default();
        let from = standing.rung_name(&ladder);
        let mut skipped = Vec::new();
        let rung = loop {
            let Some(next) = standing.next(&ladder) else {
                // At the top: nothing more to climb (the rungs passed over
                // on the way were said).
                self.keep_standing(task, standing);
                return None;
            };
            standing.rung = Some(next);
            let rung = &ladder[next];
            match self.rung_runs(task, rung, &standing) {
                Ok(()) => break rung,
                Err(why) => {
                    self.events.emit(Event::EscalationSkipped {
                        task: task.id.clone(),
                        attempt,
                        rung: rung.name(),
                        why: why.clone(),
                    });
                    skipped.push(Skipped {
                        rung: rung.name(),
                        why,
                    });
                }
            }
        };
        match rung {
            Rung::Effort(key) => standing.effort = Some(key.clone()),
            Rung::Provider(p) => standing.provider = Some(*p),
            _ => {}
        }
        let to = standing.rung_name(&ladder);
        // Who runs the next attempt (the failover still applies to it).
        let (provider, model) = match rung {
            Rung::Halt => (None, None),
            _ => {
                let p = standing.provider.unwrap_or(self.ctx.config.executor);
                let efforts: Vec<String> = standing
                    .effort
                    .iter()
                    .chain([&task.metadata.effort])
                    .cloned()
                    .collect();
                let model = efforts
                    .iter()
                    .find_map(|e| self.ctx.config.model_of(p, e))
                    .map(str::to_string);
                (Some(p), model)
            }
        };
        standing.climbs.push(Climb {
            attempt,
            from: from.clone(),
            to: to.clone(),
            why: why.clone(),
            skipped,
            provider,
            model: model.clone(),
        });
        self.keep_standing(task, standing);
        self.events.emit(Event::Escalated {
            task: task.id.clone(),
            attempt,
            from,
            to,
            why,
            provider: provider.map(|p| p.name().to_string()),
            model,
        });
        match rung {
            Rung::Halt => Some((Status::Failed, Settled::EscalatedToHalt { attempt })),
            Rung::Diagnose => {
                let calls = self.record.state.reasoner_calls;
                let halted = self
                    .reasoner()
                    .diagnose_rung(task, attempt, stall)
                    .map(|status| (status, Settled::Halted));
                self.reasoner_ran_since(calls);
                halted
            }
            _ => None,
        }
    }

    /// Whether `rung` can run for `task` now, or why it cannot.
    fn rung_runs(&mut self, task: &Task, rung: &Rung, standing: &Standing) -> Result<(), String> {
        // The provider and model of the attempt that just failed.
        let last = self
            .record
            .task(&task.id)
            .and_then(|t| t.iterations.last())
            .map(|i| {
                (
                    i.provider.unwrap_or(self.ctx.config.executor),
                    i.model.clone(),
                )
            });
        let (current, model_now) = last.unwrap_or((self.wanted_provider(task), String::new()));
        match rung {
            Rung::Retry | Rung::Halt => Ok(()),
            Rung::Diagnose => match self.reasoner().cannot_diagnose() {
                Some(why) => Err(why),
                None => Ok(()),
            },
            Rung::Effort(key) => {
                let model = self
                    .ctx
                    .config
                    .model_of(current, key)
                    .ok_or_else(|| format!("[effort_map.{}] has no `{key}`", current.name()))?;
                if let Some(why) = self.providers.why_refused(current, model) {
                    return Err(why);
                }
                if model == model_now {
                    return Err(format!("the task already runs `{model}`"));
                }
                Ok(())
            }
            Rung::Provider(p) => {
                if *p == current {
                    return Err(format!("the task already runs on {}", p.name()));
                }
                if let Some(why) = self.providers.why_blocked(*p) {
                    return Err(why);
                }
                if let Some(why) = self.cli_missing(*p) {
                    return Err(why);
                }
                let efforts: Vec<String> = standing
                    .effort
                    .iter()
                    .chain([&task.metadata.effort])
                    .cloned()
                    .collect();
                let model = efforts
                    .iter()
                    .find_map(|e| self.ctx.config.model_of(*p, e))
                    .ok_or_else(|| {
                        format!(
                            "[effort_map.{}] has no `{}`",
                            p.name(),
                            efforts.join("` or `")
                        )
                    })?;
                if let Some(why) = self.providers.why_refused(*p, model) {
                    return Err(why);
                }
                Ok(())
            }
        }
    }

    /// Why `provider`'s CLI cannot be started, when its command is not
    /// found or not executable (a probe would have said more; this holds
    /// with `--skip-model-check` too).
    fn cli_missing(&self, provider: crate::agent::Provider) -> Option<String> {
        let command = self.ctx.config.command(provider);
        crate::agent::invoke::installed(command, self.ctx.verifier.root())
            .err()
            .map(|e| format!("`{command}` is not installed or cannot be run ({e})"))
    }

    /// Writes where the task stands on the ladder to prd.json.
    fn keep_standing(&mut self, task: &Task, standing: Standing) {
        if let Some(t) = self.record.task_mut(&task.id) {
            t.escalation = Some(standing);
        }
        self.save();
    }
}
