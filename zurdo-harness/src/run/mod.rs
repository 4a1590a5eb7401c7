//! `zurdo run`: tasks in dependency order, each through pre-flight, agent
//! attempts, zurdo's own verification, and retry or settle; with crash-safe
//! state under `.zurdo/<slug>/` and resume.
//!
//! The modules follow one run:
//! - [`prepare`]: config, PRD, lock, state, policy, baseline, probe;
//!   [`resume`]: the saved state (the question, reconciling an interrupted
//!   attempt, starting over);
//! - [`task`]: one task (blocked, recorded before a stop, pre-flight, the
//!   attempt budget);
//! - [`attempt`]: one attempt as phases that return values: the agent runs
//!   ([`attempt::AgentRun`]), zurdo verifies ([`verify::Verification`]), the
//!   iteration record is built ([`record::Recorded`]), the task settles or
//!   retries;
//! - [`infra`]: an attempt whose agent CLI could not work (not logged in,
//!   out of quota, rate limited, offline…): a rate limit waited out, or
//!   the run stopped with exit 5 and the task left pending;
//! - [`failover`]: which provider and model run the next attempt (a
//!   provider that cannot work is blocked, its roles move down their
//!   fallback chain);
//! - [`escalate`]: the escalation ladder a task climbs when it stalls or
//!   fails an attempt (`[escalation]`);
//! - [`reasoning`]: stalls, diagnosis and lessons around those phases.
//!
//! Everything the loop reports is an [`Event`]; nothing here prints.

mod attempt;
mod budget;
mod challenge;
mod coverage;
mod escalate;
mod failover;
mod infra;
pub mod interrupt;
pub mod orphans;
mod prepare;
pub mod probe;
pub mod reasoning;
mod record;
mod regression;
mod resume;
mod sealed;
mod task;
mod verify;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use zurdo::verify::{HintResult, StandingRule, Verifier};
use zurdo::{Prd, Task};

use crate::config::Config;
use crate::error::{Error, Exit, Outcome};
use crate::event::{Event, Events, Reporter, Settled};
use crate::evidence::Guards;
use crate::state::lock::Lock;
use crate::state::run_state::{RunState, Status, TaskState};
use crate::state::StateDir;
use interrupt::Interrupt;
use reasoning::Lessons;

/// How to treat existing state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Resume without asking.
    pub resume: bool,
    /// Archive the state and start over.
    pub reset: bool,
    /// Never ask (resume by default).
    pub no_prompt: bool,
    /// Skip the model probe.
    pub skip_model_check: bool,
    /// Failed tasks back to pending with a fresh attempt budget (their
    /// history kept), the tasks they blocked unblocked.
    pub retry_failed: bool,
    /// The sealed criteria's file (`--sealed`; else `[verification]
    /// sealed`).
    pub sealed: Option<PathBuf>,
}

/// Runs a PRD, reporting live on stderr.
pub fn run(prd_path: &Path, options: Options) -> Outcome {
    // Everything an agent or a criterion starts stays zurdo's descendant,
    // however it detaches, so it can be found and killed.
    zurdo::exec::reap::become_subreaper();
    let events = Events::new(Reporter::stderr());
    match prepare::prepare(prd_path, options, events)? {
        Some(mut run) => run.execute(),
        None => Ok(Exit::Ok),
    }
}

/// What a run is about, fixed once it is prepared.
struct Context {
    prd: Prd,
    /// The PRD as given on the command line.
    display: String,
    config: Config,
    verifier: Verifier,
    standing: Vec<StandingRule>,
    /// The sealed criteria, when a sealed file is given: they gate their
    /// tasks but no prompt holds them.
    sealed: Option<zurdo::sealed::Sealed>,
}

impl Context {
    /// Checks every standing rule; the broken ones, or why the set must
    /// stop the run (it took longer than `standing_budget_seconds`).
    fn check_standing(&self) -> Result<Vec<(StandingRule, HintResult)>, String> {
        let started = std::time::Instant::now();
        let mut broken = Vec::new();
        for rule in &self.standing {
            let result = self.verifier.check(&rule.hint);
            if !result.verdict.passed() {
                broken.push((rule.clone(), result));
            }
        }
        let took = started.elapsed();
        let budget = self.config.verification.standing_budget_seconds;
        if took > Duration::from_secs(budget) {
            return Err(format!(
                "the standing rules took {:.1}s, over [verification] standing_budget_seconds = {budget}; make them faster or raise the budget",
                took.as_secs_f64()
            ));
        }
        Ok(broken)
    }

    /// The agent timeout of `task`.
    fn timeout(&self, task: &Task) -> Duration {
        task.metadata
            .agent_timeout
            .map_or(self.config.agent_timeout, |t| t.duration())
    }
}

/// `prd.json`'s state and the directory it lives in.
struct Record {
    dir: StateDir,
    state: RunState,
}

impl Record {
    fn task(&self, id: &str) -> Option<&TaskState> {
        self.state.task(id)
    }

    fn task_mut(&mut self, id: &str) -> Option<&mut TaskState> {
        self.state.task_mut(id)
    }

    /// Writes `prd.json` (a failure is reported, and the run goes on: the
    /// state in memory is the authority).
    fn save(&mut self, events: &Events) {
        events.on_write(self.dir.save(&mut self.state));
    }
}

/// A run that passed its checks and holds the lock.
struct Run {
    ctx: Context,
    record: Record,
    events: Events,
    guards: Guards,
    lessons: Lessons,
    /// What the criteria of passed tasks last showed (for re-checks).
    held: regression::Held,
    interrupt: Interrupt,
    /// Providers blocked for the rest of the run, models refused at the
    /// probe.
    providers: failover::Providers,
    /// Set when the run must stop with this error once the current step
    /// ends (a standing set over budget; an agent CLI that cannot start).
    stop: Option<Error>,
    /// Pyxis, when `[pyxis] enabled`: read from disk once, then refreshed
    /// from the tree before each task's first prompt.
    pyxis: Option<zurdo_pyxis::Retriever>,
    /// The providers whose CLI reports no cost that the run has said so of
    /// (once each: their attempts count against the token limits).
    said_counts_tokens: BTreeSet<crate::agent::Provider>,
    /// Whether `bwrap` can sandbox a challenger's probes here: asked once,
    /// at the first probe of the run.
    sandbox_usable: std::cell::OnceCell<bool>,
    _lock: Lock,
}

impl Run {
    /// True once the run is stopping (Ctrl-C, or an error): it spends
    /// nothing more.
    fn stopping(&self) -> bool {
        self.interrupt.requested() || self.stop.is_some()
    }

    fn save(&mut self) {
        self.record.save(&self.events);
    }

    /// The exit code of a stop now (a second Ctrl-C, SIGTERM, SIGHUP), once
    /// one was asked for: nothing more of the step under way is recorded
    /// (its agent and criteria were killed).
    fn stopped_now(&self) -> Option<i32> {
        self.interrupt.now()
    }

    /// The error a stop now ends the run with (its exit code `128 +
    /// signal`).
    fn stopped_error(&self, code: i32) -> Error {
        Error::new(
            crate::error::ErrorKind::Stopped(u8::try_from(code).unwrap_or(130)),
            format!(
                "stopped now (exit {code}); the interrupted attempt is not counted; `zurdo run {}` resumes",
                self.ctx.display
            ),
        )
    }

    fn execute(&mut self) -> Outcome {
        let count = self.ctx.prd.tasks.len();
        self.events.emit(Event::RunStarted {
            prd: self.record.state.prd.clone(),
            executor: self.record.state.executor.clone(),
            display: self.ctx.display.clone(),
            tasks: count,
            state_dir: self.record.dir.dir.display().to_string(),
            challenger: self
                .ctx
                .config
                .challenger
                .as_ref()
                .map(|c| format!("{}/{}", c.role.provider.name(), c.role.model)),
        });
        self.check_skills();
        let order = self.ctx.prd.run_order.clone();
        for (position, index) in order.into_iter().enumerate() {
            if self.stopping() {
                break;
            }
            let task = self.ctx.prd.tasks[index].clone();
            let Some(status) = self.record.task(&task.id).map(|t| t.status) else {
                continue;
            };
            self.events.emit(Event::TaskStarted {
                task: task.id.clone(),
                title: task.title.clone(),
                position: position + 1,
                count,
                saved: status.settled().then_some(status),
            });
            if !status.settled() {
                self.task(&task);
            }
        }
        self.finish()
    }

    /// Ends a verification pass: kills what its criteria left running (a
    /// server one started for a later `[http:]` criterion), however
    /// detached, and says so.
    fn end_pass(&self, task: &str) {
        let commands = orphans::kill_leftovers();
        if !commands.is_empty() {
            self.events.emit(Event::CriteriaLeftovers {
                task: task.to_string(),
                commands,
            });
        }
    }

    /// The end of a run: state, run-diff.patch, the report, the summary on
    /// stdout, and the exit status.
    fn finish(&mut self) -> Outcome {
        if let Some(code) = self.stopped_now() {
            // Quickly: the state, nothing left running, the lock (dropped
            // with the run).
            orphans::kill_leftovers();
            self.save();
            self.events.emit(Event::RunFinished {
                complete: false,
                display: self.ctx.display.clone(),
                failed: self.failed_tasks(false),
                refused: self.failed_tasks(true),
            });
            return Err(self.stopped_error(code));
        }
        self.guard_at_end();
        // Nothing zurdo started outlives the run.
        orphans::kill_leftovers();
        let complete = self.record.state.tasks.iter().all(|t| t.status.settled());
        self.save();
        if let Some(diff) = self.guards.run_diff() {
            match diff {
                Ok(bytes) => self.events.on_write(self.record.dir.write_run_diff(&bytes)),
                Err(e) => self.events.emit(Event::CannotWrite {
                    path: "run-diff.patch".into(),
                    error: e.to_string(),
                }),
            }
        }
        let table = crate::report::summary::table(&self.record.state);
        self.events
            .on_write(crate::report::write(&self.record.dir, &self.record.state).map(|_| ()));
        println!("\n{table}");
        let unproven: Vec<String> = self
            .record
            .state
            .tasks
            .iter()
            .filter(|t| t.passed_at_preflight && t.status == Status::Passed)
            .map(|t| t.id.clone())
            .collect();
        if !unproven.is_empty() {
            self.events.emit(Event::UnprovenPasses { tasks: unproven });
        }
        self.events.emit(Event::RunFinished {
            complete,
            display: self.ctx.display.clone(),
            failed: self.failed_tasks(false),
            refused: self.failed_tasks(true),
        });
        if let Some(error) = self.stop.take() {
            return Err(error);
        }
        let bad = self.record.state.tasks.iter().any(|t| {
            matches!(
                t.status,
                Status::Failed | Status::BlockedByDependency | Status::Pending | Status::Unproven
            )
        });
        Ok(Exit::ok_if(!bad))
    }

    /// The tasks that ended failed (for the `--retry-failed` advice).
    /// (`refused`: those whose next attempt the budget refused; else the
    /// others.)
    fn failed_tasks(&self, refused: bool) -> Vec<String> {
        self.record
            .state
            .tasks
            .iter()
            .filter(|t| t.status == Status::Failed && t.budget_exhausted.is_some() == refused)
            .map(|t| t.id.clone())
            .collect()
    }

    /// Skills are user-managed: warn (never fail) when one a task names is
    /// not where the executor's CLI discovers skills.
    fn check_skills(&self) {
        let dirs: &[&str] = match self.ctx.config.executor {
            crate::agent::Provider::Anthropic => &[".claude/skills"],
            crate::agent::Provider::OpenAi | crate::agent::Provider::GitHub => &[".agents/skills"],
            crate::agent::Provider::Google => &[".gemini/skills", ".agents/skills"],
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let root = self.ctx.verifier.root();
        let mut seen = BTreeSet::new();
        for task in &self.ctx.prd.tasks {
            for skill in &task.metadata.skills {
                if !seen.insert(skill.clone()) {
                    continue;
                }
                let found = dirs.iter().any(|d| {
                    root.join(d).join(skill).is_dir()
                        || home
                            .as_ref()
                            .is_some_and(|h| h.join(d).join(skill).is_dir())
                }) || self
                    .ctx
                    .config
                    .skill_paths
                    .iter()
                    .any(|p| root.join(p).join(skill).is_dir());
                if !found {
                    self.events.emit(Event::SkillMissing {
                        skill: skill.clone(),
                        task: task.id.clone(),
                        dirs: dirs.iter().map(|d| d.to_string()).collect(),
                    });
                }
            }
        }
    }

    /// Settles `task` at `status`; a pass by an attempt gets its receipt
    /// (what it cost, what proved it), anything else loses one.
    fn settle(&mut self, task: &Task, status: Status, settled: Settled) {
        if let Some(t) = self.record.task_mut(&task.id) {
            t.status = status;
            t.blocked_by = match &settled {
                Settled::Blocked { by } => Some(by.clone()),
                _ => None,
            };
            t.receipt = match status {
                Status::Passed | Status::PassedPendingReview => {
                    crate::state::receipt::Receipt::of(t, task)
                }
                _ => None,
            };
        }
        self.save();
        self.events.emit(Event::TaskSettled {
            task: task.id.clone(),
            status,
            settled: Some(settled),
        });
    }
}
