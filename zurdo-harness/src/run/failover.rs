//! Provider failover: which provider and model run a task's next attempt.
//!
//! A provider whose CLI cannot work for the rest of the run (out of quota,
//! not logged in, not installed, rate limited past the wait) is blocked:
//! nothing more is sent to it, and the roles that used it move to the next
//! provider of their fallback chain (`[roles.executor] fallback`, each
//! provider with its own effort map). A model refused at the probe is kept
//! out the same way. The attempt that met the failure was dropped, not
//! counted; it runs again, under the same number, on the next provider,
//! with the same prompt. With no provider left the run stops (exit 5) as it
//! does without a fallback.

use std::collections::{BTreeMap, BTreeSet};

use zurdo::Task;

use super::Run;
use crate::agent::failure::InfraFailure;
use crate::agent::side_call;
use crate::agent::Provider;
use crate::config::{Config, Role, Seat};
use crate::error::{Error, ErrorKind};
use crate::escalation::Rung;
use crate::event::{Event, Events};

/// Who runs an attempt: a provider and model, as a role's [`Seat`].
pub(super) type Agent = Seat;

/// What this run knows about its providers beyond the config: the ones
/// blocked for the rest of the run, and the models refused at the probe.
/// Kept in memory only: the next `zurdo run` asks again (a login may have
/// been restored, a quota renewed).
#[derive(Debug, Default)]
pub(super) struct Providers {
    /// Blocked providers: the failure, and the run's last word should
    /// nothing be left.
    blocked: BTreeMap<Provider, (InfraFailure, String)>,
    /// Models refused at the probe, and why.
    refused: BTreeMap<(Provider, String), String>,
    /// Failovers already announced: (task, from, to).
    announced: BTreeSet<(String, Provider, Provider)>,
}

impl Providers {
    /// True when nothing more may be sent to `provider`.
    pub fn is_blocked(&self, provider: Provider) -> bool {
        self.blocked.contains_key(&provider)
    }

    /// Why `provider` is blocked, when it is.
    pub fn why_blocked(&self, provider: Provider) -> Option<String> {
        self.blocked.get(&provider).map(|(f, _)| {
            format!(
                "{} cannot work for the rest of this run: {}{}",
                f.cli(),
                f.kind.headline(),
                f.quoted()
            )
        })
    }

    /// Blocks `provider` for the rest of the run; `stop` is the run's last
    /// word should no other provider be left.
    pub fn block(&mut self, failure: &InfraFailure, stop: String) {
        self.blocked
            .entry(failure.provider)
            .or_insert_with(|| (failure.clone(), stop));
    }

    /// Keeps `model` of `provider` out: it failed its probe.
    pub fn refuse(&mut self, provider: Provider, model: &str, why: String) {
        self.refused.insert((provider, model.to_string()), why);
    }

    /// Why `model` of `provider` cannot be used, when it cannot.
    pub fn why_refused(&self, provider: Provider, model: &str) -> Option<String> {
        self.refused
            .get(&(provider, model.to_string()))
            .map(|why| format!("`{model}` ({}) failed its probe: {why}", provider.name()))
    }

    /// The stop message recorded for `provider`, when it is blocked.
    fn stop(&self, provider: Provider) -> Option<&str> {
        self.blocked.get(&provider).map(|(_, stop)| stop.as_str())
    }
}

/// The providers and models a run may fail over or escalate to for tasks
/// of `efforts`, besides the executor's own models: each fallback
/// provider's model for each effort, each `effort:<key>` rung's model on
/// the executor's chain and the ladder's providers, and each `provider:`
/// rung's models. In config order, each once.
pub(super) fn reachable(config: &Config, efforts: &BTreeSet<String>) -> Vec<(Provider, String)> {
    let mut providers = config.executor_chain();
    let mut keys: Vec<String> = efforts.iter().cloned().collect();
    if let Some(e) = &config.escalation {
        for rung in &e.ladder {
            match rung {
                Rung::Provider(p) if !providers.contains(p) => providers.push(*p),
                Rung::Effort(key) if !keys.contains(key) => keys.push(key.clone()),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for p in providers {
        for key in &keys {
            // The executor's own efforts are the run's primary models.
            if p == config.executor && efforts.contains(key) {
                continue;
            }
            if let Some(model) = config.model_of(p, key) {
                let pair = (p, model.to_string());
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

impl Run {
    /// The provider the task wants next: the one an escalation moved it
    /// to, else the executor.
    pub(super) fn wanted_provider(&self, task: &Task) -> Provider {
        self.record
            .task(&task.id)
            .and_then(|t| t.escalation.as_ref())
            .and_then(|e| e.provider)
            .unwrap_or(self.ctx.config.executor)
    }

    /// The efforts to look a model up by, in order: the one an escalation
    /// moved the task to, then its own **Effort**.
    pub(super) fn efforts(&self, task: &Task) -> Vec<String> {
        let mut efforts: Vec<String> = self
            .record
            .task(&task.id)
            .and_then(|t| t.escalation.as_ref())
            .and_then(|e| e.effort.clone())
            .into_iter()
            .collect();
        if !efforts.contains(&task.metadata.effort) {
            efforts.push(task.metadata.effort.clone());
        }
        efforts
    }

    /// The model `provider` runs for `task`, or why it cannot.
    pub(super) fn model_on(&self, task: &Task, provider: Provider) -> Result<String, String> {
        let efforts = self.efforts(task);
        let model = efforts
            .iter()
            .find_map(|e| self.ctx.config.model_of(provider, e))
            .ok_or_else(|| {
                format!(
                    "[effort_map.{}] has no `{}`",
                    provider.name(),
                    efforts.join("` or `")
                )
            })?;
        match self.providers.why_refused(provider, model) {
            Some(why) => Err(why),
            None => Ok(model.to_string()),
        }
    }

    /// The providers that may run `task`, in order: the one it wants, then
    /// the executor's chain.
    pub(super) fn candidates(&self, task: &Task) -> Vec<Provider> {
        let mut chain = vec![self.wanted_provider(task)];
        for p in self.ctx.config.executor_chain() {
            if !chain.contains(&p) {
                chain.push(p);
            }
        }
        chain
    }

    /// Who runs `task`'s `attempt`: the first candidate not blocked that
    /// has a usable model for it. A failover is announced; with nobody
    /// left the run's stop is set and `None` comes back.
    pub(super) fn agent_for(&mut self, task: &Task, attempt: u32) -> Option<Agent> {
        let wanted = self.wanted_provider(task);
        let mut passed_over = Vec::new();
        for provider in self.candidates(task) {
            if let Some(why) = self.providers.why_blocked(provider) {
                passed_over.push(why);
                continue;
            }
            match self.model_on(task, provider) {
                Err(why) => passed_over.push(why),
                Ok(model) => {
                    let first =
                        self.providers
                            .announced
                            .insert((task.id.clone(), wanted, provider));
                    if provider != wanted && first {
                        self.events.emit(Event::FailedOver {
                            role: "executor".into(),
                            task: Some(task.id.clone()),
                            attempt: Some(attempt),
                            from: wanted.name().to_string(),
                            to: provider.name().to_string(),
                            model: model.clone(),
                            why: passed_over.join("; "),
                        });
                    }
                    return Some(Agent { provider, model });
                }
            }
        }
        let first = self
            .candidates(task)
            .into_iter()
            .find_map(|p| self.providers.stop(p).map(str::to_string));
        let message = match first {
            Some(stop) => format!(
                "{stop}; no fallback provider is left ({})",
                passed_over.join("; ")
            ),
            None => format!(
                "no provider can run {}: {}; `zurdo run {}` resumes (no attempt was charged)",
                task.id,
                passed_over.join("; "),
                self.ctx.display
            ),
        };
        self.stop = Some(Error::new(ErrorKind::Agent, message));
        None
    }

    /// True when some provider besides `provider` could still run `task`.
    pub(super) fn fallback_left(&self, task: &Task, provider: Provider) -> bool {
        self.candidates(task).into_iter().any(|p| {
            p != provider && !self.providers.is_blocked(p) && self.model_on(task, p).is_ok()
        })
    }

    /// Blocks the provider `failure` names for the rest of the run and says
    /// so (`during`: `probe`, or the role that met it).
    pub(super) fn block_provider(&mut self, failure: &InfraFailure, stop: String, during: &str) {
        block(&mut self.providers, &self.events, failure, stop, during);
    }
}

/// Blocks the provider `failure` names in `providers` for the rest of the
/// run and says so on `events` (once).
pub(super) fn block(
    providers: &mut Providers,
    events: &Events,
    failure: &InfraFailure,
    stop: String,
    during: &str,
) {
    if providers.is_blocked(failure.provider) {
        return;
    }
    providers.block(failure, stop);
    events.emit(Event::ProviderBlocked {
        provider: failure.provider.name().to_string(),
        failure: failure.clone(),
        during: during.to_string(),
    });
}

/// Who a side call (the reasoner, the challenger) is for, and its limit.
pub(super) struct SideCall<'a> {
    /// `reasoner`, `challenger`.
    pub role_name: &'a str,
    /// The task it is about.
    pub task: &'a str,
    /// The role: its seat, then its fallbacks.
    pub role: &'a Role,
    /// One call's limit.
    pub timeout: std::time::Duration,
}

/// Asks `prompt` down `call.role`'s chain: a provider blocked in this run
/// is not asked, one whose CLI cannot work is blocked (for every role) and
/// the next seat is asked; a move is announced (`failed_over`).
pub(super) fn side_call_chain(
    providers: &mut Providers,
    events: &Events,
    config: &Config,
    interrupt: &super::interrupt::Interrupt,
    display: &str,
    call: &SideCall<'_>,
    prompt: &str,
) -> side_call::Called {
    let chain = call.role.chain();
    let programs: Vec<String> = chain
        .iter()
        .map(|s| config.command(s.provider).to_string())
        .collect();
    let asked: Vec<side_call::Asked<'_>> = chain
        .iter()
        .zip(&programs)
        .map(|(seat, program)| side_call::Asked {
            provider: seat.provider,
            program,
            model: &seat.model,
            timeout: call.timeout,
            role: call.role_name,
        })
        .collect();
    // A second Ctrl-C kills the call's CLI as it kills an agent.
    let interrupt = interrupt.clone();
    let mut failed = Vec::new();
    let blocked = &*providers;
    let (called, used) = side_call::call_chain(
        &asked,
        prompt,
        &|p| blocked.why_blocked(p),
        |passed| {
            if let side_call::Passed::Failed { failure, .. } = passed {
                failed.push(failure.clone());
            }
        },
        |pid| interrupt.set_agent_group(pid),
    );
    failed.extend(called.failure.clone().filter(|f| f.kind.fails_over()));
    for failure in &failed {
        block(
            providers,
            events,
            failure,
            failure.stop_message(display),
            call.role_name,
        );
    }
    if let Some(used) = used.filter(|&i| i > 0) {
        let seat = |i: usize| format!("{}/{}", chain[i].provider.name(), chain[i].model);
        let why: Vec<String> = (0..used)
            .filter_map(|i| {
                providers
                    .why_blocked(chain[i].provider)
                    .map(|w| format!("{}: {w}", seat(i)))
            })
            .collect();
        events.emit(Event::FailedOver {
            role: call.role_name.to_string(),
            task: Some(call.task.to_string()),
            attempt: None,
            from: seat(0),
            to: seat(used),
            model: chain[used].model.clone(),
            why: why.join("; "),
        });
    }
    called
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::failure::FailureKind;

    #[test]
    fn blocked_providers_and_refused_models_say_why() {
        let mut p = Providers::default();
        let quota = InfraFailure::new(
            FailureKind::QuotaExhausted,
            Provider::Anthropic,
            "no credit",
        );
        assert!(!p.is_blocked(Provider::Anthropic));
        p.block(&quota, "claude: out of quota".into());
        assert!(p.is_blocked(Provider::Anthropic));
        assert_eq!(
            p.why_blocked(Provider::Anthropic).as_deref(),
            Some("claude cannot work for the rest of this run: out of quota (the CLI said: no credit)")
        );
        // The first block stands.
        p.block(
            &InfraFailure::new(FailureKind::AuthFailed, Provider::Anthropic, "x"),
            "other".into(),
        );
        assert_eq!(p.stop(Provider::Anthropic), Some("claude: out of quota"));
        p.refuse(Provider::OpenAi, "gpt-x", "unknown model".into());
        assert_eq!(
            p.why_refused(Provider::OpenAi, "gpt-x").as_deref(),
            Some("`gpt-x` (openai) failed its probe: unknown model")
        );
        assert_eq!(p.why_refused(Provider::OpenAi, "gpt-y"), None);
        for kind in FailureKind::ALL {
            assert_eq!(
                kind.fails_over(),
                !matches!(
                    kind,
                    FailureKind::Network | FailureKind::ModelUnavailable | FailureKind::CliCrashed
                ),
                "{kind:?}"
            );
        }
    }
}
