//! One attempt, as phases that return values: the prompt is rendered and
//! kept, the agent runs ([`AgentRun`]), zurdo verifies
//! ([`super::verify::Verification`]), the iteration record is built
//! ([`super::record::Recorded`]), and the attempt settles the task or
//! leaves it to retry.

use zurdo::verify::CriterionVerdict;
use zurdo::Task;

use super::orphans::Mark;
use super::record::{self, Header, Recorded};
use super::verify::Verification;
use super::Run;
use crate::agent::invoke;
use crate::error::{Error, ErrorKind};
use crate::event::{DropCause, Event, Settled};
use crate::state::run_state::{AgentRecord, Status};

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
    /// One agent attempt and its verification; `Some` when the task
    /// settles.
    pub(super) fn attempt(
        &mut self,
        task: &Task,
        attempt: u32,
        max: u32,
        model: &str,
    ) -> Option<(Status, Settled)> {
        let started_at = zurdo_base::time::now();
        let prompt = self.prompt(task, attempt);
        self.events
            .on_write(self.record.dir.write_prompt(&task.id, attempt, &prompt));
        self.events.emit(Event::AttemptStarted {
            task: task.id.clone(),
            attempt,
            max,
            model: model.to_string(),
        });
        let agent = self.run_agent(task, attempt, model, &prompt);
        if self.stopped_now().is_some() {
            // Stopped now: the agent was killed; nothing of the attempt counts.
            return self.dropped_now(task, attempt);
        }
        let Some(agent) = agent else {
            // Not the task's failure: the attempt is not counted, and the
            // run stops (a resume retries it once the CLI can start).
            self.events.emit(Event::AttemptDropped {
                task: task.id.clone(),
                attempt,
                cause: DropCause::AgentNotStarted,
            });
            return None;
        };
        let verification = self.verify(task, attempt);
        if self.stopped_now().is_some() {
            // The criteria were killed mid-way: no verdict to record.
            return self.dropped_now(task, attempt);
        }
        let header = Header {
            attempt,
            model: model.to_string(),
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
        self.keep(task, attempt, &verification, recorded)
    }

    /// An attempt a stop now cut short: dropped, not counted.
    fn dropped_now(&mut self, task: &Task, attempt: u32) -> Option<(Status, Settled)> {
        self.events.emit(Event::AttemptDropped {
            task: task.id.clone(),
            attempt,
            cause: DropCause::Interrupted,
        });
        None
    }

    /// The prompt of `attempt`: the task, the last failure when retrying,
    /// where to look on the first attempt (`[pyxis] enabled`), and the
    /// lessons that match.
    fn prompt(&mut self, task: &Task, attempt: u32) -> String {
        let retry = self
            .record
            .task(&task.id)
            .and_then(|t| t.retry_context.clone());
        let mut prompt = crate::prompt::render(task, self.ctx.config.executor, retry.as_deref());
        if attempt == 1 {
            prompt.push_str(&self.where_to_look(task));
        }
        prompt.push_str(&self.reasoner().lessons_section(task, attempt));
        prompt
    }

    /// The `# Where to look` section for `task` from Pyxis, refreshed from
    /// the tree as it is now (empty when Pyxis is off or nothing matches).
    /// A failed save of the index is said and changes nothing else.
    fn where_to_look(&mut self, task: &Task) -> String {
        let Some(retriever) = self.pyxis.as_mut() else {
            return String::new();
        };
        let refreshed = retriever.refresh(self.ctx.verifier.root());
        if let Some(e) = refreshed.save_error {
            self.events.emit(Event::CannotWrite {
                path: zurdo_pyxis::index::PATH.to_string(),
                error: e.to_string(),
            });
        }
        crate::pyxis::section(task, retriever.index(), &self.record.state.prd)
    }

    /// Runs the agent's CLI with its deadline; a second Ctrl-C kills it.
    /// `None` when the CLI could not be started at all: the run stops with
    /// that error (a CLI that cannot start is not the task's failure, and
    /// no attempt is charged for it).
    fn run_agent(
        &mut self,
        task: &Task,
        attempt: u32,
        model: &str,
        prompt: &str,
    ) -> Option<AgentRun> {
        let provider = self.ctx.config.executor;
        let invocation = invoke::command_line(
            provider,
            self.ctx.config.command(provider),
            model,
            prompt,
            self.ctx.verifier.root(),
        );
        self.held.agent_runs();
        let interrupt = self.interrupt.clone();
        let events = &self.events;
        let outcome = invoke::run_observed(provider, &invocation, self.ctx.timeout(task), |pid| {
            interrupt.set_agent_group(pid);
            // Recorded so a resume after a hard stop can kill an agent that outlived zurdo.
            events.emit(Mark::started(&task.id, attempt, pid));
        });
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
                });
                Some(AgentRun {
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
                let provider = self.ctx.config.executor;
                self.stop = Some(Error::new(
                    ErrorKind::Agent,
                    format!(
                        "cannot start the {} CLI `{}`: {e}; install it or set [providers.{}] command in .zurdo/config.toml, then `zurdo run {}` resumes (no attempt was charged)",
                        provider.name(),
                        invocation.program,
                        provider.name(),
                        self.ctx.display
                    ),
                ));
                None
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
    fn reasoner_ran_since(&mut self, calls: u32) {
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
