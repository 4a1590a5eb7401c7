//! One attempt, as phases that return values: the prompt is rendered and
//! kept, the agent runs ([`AgentRun`], its output streamed to
//! `iterations/<task>-<n>.out/.err` with a heartbeat), zurdo verifies
//! ([`super::verify::Verification`]), the iteration record is built
//! ([`super::record::Recorded`]), and the attempt settles the task or
//! leaves it to retry. An agent whose CLI could not work
//! (`agent::failure`) ends the attempt before verification: dropped, not
//! counted ([`Attempted::Unavailable`]; `infra.rs` decides what follows).

use zurdo::verify::CriterionVerdict;
use zurdo::Task;

use super::failover::Agent;
use super::orphans::Mark;
use super::record::{self, Header, Recorded};
use super::verify::Verification;
use super::Run;
use crate::agent::failure::InfraFailure;
use crate::agent::invoke::{self, Progress};
use crate::event::heartbeat::{Heartbeat, HEARTBEAT};
use crate::event::{DropCause, Event, Settled};
use crate::state::run_state::{AgentRecord, Status};

/// How an attempt ended.
pub(super) enum Attempted {
    /// The task settles (it passed, or a diagnosis halted it).
    Settled(Status, Settled),
    /// It failed its verification; the task retries while its budget lasts.
    Failed,
    /// The agent's CLI could not work: the attempt was dropped, not counted,
    /// not verified.
    Unavailable(InfraFailure),
    /// A stop now cut it short: dropped, not counted; the run ends.
    Stopped,
}

/// What the agent did in one attempt.
pub(super) struct AgentRun {
    /// Its account, as prd.json records it.
    pub record: AgentRecord,
    /// Its final text (carried into the next prompt when the attempt fails).
    pub narrative: Option<String>,
    /// What it left running after it exited (killed before verifying).
    pub leftovers: Vec<String>,
}

impl Run {
    /// One agent attempt and its verification.
    pub(super) fn attempt(
        &mut self,
        task: &Task,
        attempt: u32,
        max: u32,
        who: &Agent,
    ) -> Attempted {
        let model = who.model.as_str();
        let started_at = zurdo_base::time::now();
        let prompt = self.prompt(task, attempt, who.provider);
        self.events
            .on_write(self.record.dir.write_prompt(&task.id, attempt, &prompt));
        self.events.emit(Event::AttemptStarted {
            task: task.id.clone(),
            attempt,
            max,
            model: model.to_string(),
        });
        let agent = self.run_agent(task, attempt, who, &prompt);
        if self.stopped_now().is_some() {
            // Stopped now: the agent was killed; nothing of the attempt counts.
            return self.dropped_now(task, attempt);
        }
        let agent = match agent {
            Ok(agent) => agent,
            Err(failure) => {
                // Not the task's failure: the attempt is not counted, not
                // verified, and feeds no stall. Whatever the agent did
                // before stays in the tree for the next attempt.
                self.events.emit(Event::AttemptDropped {
                    task: task.id.clone(),
                    attempt,
                    cause: DropCause::AgentUnavailable,
                    failure: Some(failure.clone()),
                });
                return Attempted::Unavailable(failure);
            }
        };
        let verification = self.verify(task, attempt);
        if self.stopped_now().is_some() {
            // The criteria were killed mid-way: no verdict to record.
            return self.dropped_now(task, attempt);
        }
        let header = Header {
            attempt,
            model: model.to_string(),
            provider: who.provider,
            started_at,
            leftovers: agent.leftovers,
        };
        let recorded = record::build(
            &self.record.state.prd,
            task,
            header,
            &verification,
            agent.record,
            agent.narrative.as_deref(),
        );
        match self.keep(task, attempt, &verification, recorded) {
            Some((status, settled)) => Attempted::Settled(status, settled),
            None => Attempted::Failed,
        }
    }

    /// An attempt a stop now cut short: dropped, not counted.
    fn dropped_now(&mut self, task: &Task, attempt: u32) -> Attempted {
        self.events.emit(Event::AttemptDropped {
            task: task.id.clone(),
            attempt,
            cause: DropCause::Interrupted,
            failure: None,
        });
        Attempted::Stopped
    }

    /// The prompt of `attempt`: the task, the last failure when retrying,
    /// where to look on the first attempt (`[pyxis] enabled`), and the
    /// lessons that match.
    fn prompt(&mut self, task: &Task, attempt: u32, provider: crate::agent::Provider) -> String {
        let retry = self
            .record
            .task(&task.id)
            .and_then(|t| t.retry_context.clone());
        // The same failing evidence whichever provider runs it (a
        // failover, an escalation to another CLI): only the skills are
        // spelled the CLI's way.
        let mut prompt = crate::prompt::render(task, provider, retry.as_deref());
        if attempt == 1 {
            prompt.push_str(&self.where_to_look(task));
        }
        prompt.push_str(&self.reasoner().lessons_section(task, attempt));
        prompt
    }

    /// The `# Where to look` section for `task` from Pyxis, refreshed from
    /// the tree as it is now (empty when Pyxis is off or nothing matches).
    /// An `index.json` not believed when first read (said once per run:
    /// it was rebuilt from the files) and a failed save of the index are
    /// said, and change nothing else.
    fn where_to_look(&mut self, task: &Task) -> String {
        let Some(retriever) = self.pyxis.as_mut() else {
            return String::new();
        };
        let first = !retriever.has_read();
        let refreshed = retriever.refresh(self.ctx.verifier.root());
        if let (true, zurdo_pyxis::Loaded::Distrusted(why)) = (first, &refreshed.loaded) {
            self.events.emit(Event::IndexDistrusted {
                path: zurdo_pyxis::index::PATH.to_string(),
                why: why.clone(),
            });
        }
        if let Some(e) = refreshed.save_error {
            self.events.emit(Event::CannotWrite {
                path: zurdo_pyxis::index::PATH.to_string(),
                error: e.to_string(),
            });
        }
        crate::pyxis::section(task, retriever.index(), &self.record.state.prd)
    }

    /// Runs the agent's CLI with its deadline (a second Ctrl-C kills it),
    /// streaming what it prints to `.out`/`.err` with a heartbeat. `Err`
    /// when its CLI could not work (it could not be started, or it said it
    /// is not logged in, out of quota, offline…): not the task's failure.
    fn run_agent(
        &mut self,
        task: &Task,
        attempt: u32,
        who: &Agent,
        prompt: &str,
    ) -> Result<AgentRun, InfraFailure> {
        let provider = who.provider;
        let mut invocation = invoke::command_line(
            provider,
            self.ctx.config.command(provider),
            &who.model,
            prompt,
            self.ctx.verifier.root(),
        );
        let verification = &self.ctx.config.verification;
        if verification.agent_sandbox == "bubblewrap" {
            // Made at each attempt: what exists to protect (the sealed
            // file, the key, .zurdo/ and .git/) is what exists now.
            let sealed = verification.sealed.as_deref().map(zurdo::sealed::resolve);
            invocation.sandbox = Some(crate::agent::sandbox::Sandbox::for_run(
                self.ctx.verifier.root(),
                sealed.as_deref(),
            ));
        }
        self.held.agent_runs();
        let interrupt = self.interrupt.clone();
        let events = &self.events;
        let progress = Progress::default();
        let mut output = self.record.dir.stream_agent_output(&task.id, attempt);
        events.watch(Some(progress.clone()));
        let outcome = {
            let _beat = Heartbeat::start(
                events.clone(),
                &task.id,
                attempt,
                progress.clone(),
                HEARTBEAT,
            );
            invoke::run_watched(
                provider,
                &invocation,
                self.ctx.timeout(task),
                |pid| {
                    interrupt.set_agent_group(pid);
                    // Recorded so a resume after a hard stop can kill an agent that outlived zurdo.
                    events.emit(Mark::started(&task.id, attempt, pid));
                },
                &mut |stream, bytes| output.write(stream, bytes),
                Some(&progress),
            )
        };
        events.watch(None);
        if let Some(e) = output.error() {
            events.on_write(Err(e));
        }
        drop(output);
        self.interrupt.set_agent_group(0);
        // zurdo is the reaper of everything the agent started: whatever it
        // left running, however detached, is gone before zurdo verifies.
        let leftovers = super::orphans::kill_leftovers();
        if !leftovers.is_empty() {
            self.events.emit(Event::AgentLeftovers {
                task: task.id.clone(),
                attempt,
                commands: leftovers.clone(),
            });
        }
        match outcome {
            Ok(outcome) => {
                self.events.on_write(self.record.dir.write_agent_output(
                    &task.id,
                    attempt,
                    &outcome.stdout,
                    &outcome.stderr,
                ));
                let report = outcome.report;
                let record = AgentRecord {
                    exit_code: outcome.exit_code,
                    timed_out: outcome.timed_out,
                    duration_ms: outcome.duration.as_millis() as u64,
                    final_text_tail: report
                        .final_text
                        .as_ref()
                        .map(|t| zurdo_base::text::last_chars(t, 2000)),
                    tool_calls: report.tool_calls.len(),
                    error: report.error.clone(),
                    usage: report.usage,
                    cost_usd: report.cost_usd,
                };
                self.events.emit(Event::AgentFinished {
                    task: task.id.clone(),
                    attempt,
                    exit_code: record.exit_code,
                    timed_out: record.timed_out,
                    duration_ms: record.duration_ms,
                    tool_calls: record.tool_calls,
                    error: record.error.clone(),
                    stopped: outcome.failure.as_ref().is_some_and(|f| f.stopped),
                });
                if let Some(failure) = outcome.failure {
                    return Err(failure);
                }
                Ok(AgentRun {
                    record,
                    narrative: report.final_text,
                    leftovers,
                })
            }
            Err(e) => {
                self.events.emit(Event::AgentNotStarted {
                    task: task.id.clone(),
                    attempt,
                    program: invocation.program.clone(),
                    error: e.to_string(),
                });
                Err(InfraFailure::not_started(provider, &invocation.program, &e))
            }
        }
    }

    /// Keeps the iteration: recorded in prd.json with what follows from it
    /// (flaky criteria, the witness), then the task passes, or the stall
    /// check and diagnosis run and it retries (or halts).
    fn keep(
        &mut self,
        task: &Task,
        attempt: u32,
        verification: &Verification,
        recorded: Recorded,
    ) -> Option<(Status, Settled)> {
        let passed_now = recorded.iteration.passed;
        if let Some(t) = self.record.task_mut(&task.id) {
            t.attempts = attempt;
            t.iterations.push(recorded.iteration);
            t.retry_context = recorded.retry_context;
            // Approvals were of the previous result.
            t.approvals.clear();
        }
        let flaky = self.record.task(&task.id).map(|t| t.flaky_criteria());
        if let Some(flaky) = flaky.filter(|f| !f.is_empty()) {
            self.events.emit(Event::Flaky {
                task: task.id.clone(),
                criteria: flaky.clone(),
            });
            if let Some(t) = self.record.task_mut(&task.id) {
                t.flaky = flaky;
            }
        }
        if passed_now {
            self.witness(task, verification);
            self.held.keep(
                &task.id,
                verification.verified_tree.clone(),
                verification.results.clone(),
            );
        }
        self.save();
        self.events.emit(Event::AttemptFinished {
            task: task.id.clone(),
            attempt,
            passed: passed_now,
        });
        if passed_now {
            let manual = verification
                .results
                .iter()
                .any(|r| r.verdict == CriterionVerdict::PendingReview);
            let calls = self.record.state.reasoner_calls;
            self.reasoner().after_pass(task);
            self.reasoner_ran_since(calls);
            Some((Status::passed(manual), Settled::Passed { attempt }))
        } else {
            let max = self.record.task(&task.id).map_or(1, |t| t.max_attempts);
            if self.ctx.config.escalation.is_some() {
                // The ladder decides what a stall (or a failure) leads to.
                return self.escalate(task, attempt, max);
            }
            let calls = self.record.state.reasoner_calls;
            let halted = self
                .reasoner()
                .after_failure(task, attempt, max)
                .map(|status| (status, Settled::Halted));
            self.reasoner_ran_since(calls);
            halted
        }
    }

    /// A reasoner CLI ran since `calls` were counted: an agent that could
    /// have changed the tree, as far as held verdicts go.
    pub(super) fn reasoner_ran_since(&mut self, calls: u32) {
        if self.record.state.reasoner_calls != calls {
            self.held.agent_runs();
        }
    }

    /// After a pass: which changed files some hint reads (witnessed) and
    /// which none does (where to look first).
    fn witness(&mut self, task: &Task, verification: &Verification) {
        let start = self
            .record
            .task(&task.id)
            .and_then(|t| t.rollback_point.clone());
        let (Some(start), Some(tree)) = (start, verification.verified_tree.as_deref()) else {
            return;
        };
        let Some(witness) = self.guards.witness(&start, tree, &verification.results) else {
            return;
        };
        if !witness.unwitnessed.is_empty() {
            self.events.emit(Event::Unwitnessed {
                task: task.id.clone(),
                paths: witness.unwitnessed.clone(),
            });
        }
        if let Some(t) = self.record.task_mut(&task.id) {
            t.witness = Some(witness);
        }
    }
}
