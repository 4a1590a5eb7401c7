//! The run loop's side of the reason subsystem: a stall check after every
//! failed iteration (always on), one diagnosis call when a stall still has
//! attempts left (`[reason] enabled`), a lesson from a recovery, and lessons
//! in executor prompts.
//!
//! Fail-open everywhere: a reasoner that cannot start, times out, answers
//! nothing usable or has no budget left is recorded and the loop goes on as
//! if the subsystem were off. No outcome here can pass, skip or weaken a
//! criterion: the only effects are a prompt section, a report entry, and a
//! task that stops spending (`halt_task`, which fails it).

use std::path::Path;

use zurdo::Task;

use super::failover::{self, Providers};
use super::interrupt::Interrupt;
use super::{Context, Record, Run};
use crate::agent::side_call::Reply;
use crate::agent::vocabulary;
use crate::config::{Config, Role};
use crate::event::{Event, Events, Extraction};
use crate::evidence::Guards;
use crate::reason::bundle::{self, AttemptEvidence};
use crate::reason::diagnosis::{self, Verdict};
use crate::reason::library::{Lesson, Library, Usage as UseCounts};
use crate::reason::{extract, fingerprint, inject};
use crate::state::run_state::{
    DiagnosisRecord, Extracted, Halt, HealRouting, Injected, Iteration, Stall, Status,
};

/// Lessons at most in one prompt.
pub const MAX_INJECTED: usize = 3;

/// The lesson library and its use counts, read at run start (plus what
/// this run extracts).
#[derive(Default)]
pub(super) struct Lessons {
    library: Library,
    usage: UseCounts,
}

impl Lessons {
    /// With `[reason] enabled`: the library and its use counts under
    /// `root`; a lesson file that cannot be read is named and skipped.
    pub(super) fn load(config: &Config, root: &Path, events: &Events) -> Lessons {
        if !config.reason.enabled {
            return Lessons::default();
        }
        let lessons = Lessons {
            library: Library::load(root),
            usage: UseCounts::load(root),
        };
        for skipped in &lessons.library.skipped {
            events.emit(Event::LessonSkipped {
                path: skipped.path.display().to_string(),
                why: skipped.why.clone(),
            });
        }
        if !lessons.library.lessons.is_empty() {
            events.emit(Event::LessonsLoaded {
                count: lessons.library.lessons.len(),
            });
        }
        lessons
    }
}

/// The run loop's reasoning, borrowing what it needs of the run.
pub(super) struct Reasoner<'r> {
    ctx: &'r Context,
    record: &'r mut Record,
    lessons: &'r mut Lessons,
    guards: &'r Guards,
    events: &'r Events,
    interrupt: &'r Interrupt,
    /// The run's providers: a blocked one is not asked, one whose CLI
    /// cannot work is blocked.
    providers: &'r mut Providers,
    /// The run is stopping (Ctrl-C, or an error): no reasoner call is made.
    stopping: bool,
}

impl Run {
    /// The reasoner of this run.
    pub(super) fn reasoner(&mut self) -> Reasoner<'_> {
        let stopping = self.stopping();
        Reasoner {
            ctx: &self.ctx,
            record: &mut self.record,
            lessons: &mut self.lessons,
            guards: &self.guards,
            events: &self.events,
            interrupt: &self.interrupt,
            providers: &mut self.providers,
            stopping,
        }
    }
}

impl Reasoner<'_> {
    fn save(&mut self) {
        self.record.save(self.events);
    }

    /// After a failed iteration is recorded: the stall check, then (when
    /// enabled, budgeted and not the final attempt) a diagnosis. `Some`
    /// when a `halt_task` verdict stops the task.
    pub(super) fn after_failure(&mut self, task: &Task, attempt: u32, max: u32) -> Option<Status> {
        // A stall fires before the budget runs out: on the final attempt
        // there is no next prompt for it (or a diagnosis) to change.
        if attempt >= max {
            return None;
        }
        let stall = self.detect_stall(task, attempt)?;
        // A run that is stopping (Ctrl-C, or an error) spends nothing more.
        if !self.ctx.config.reason.enabled || self.stopping {
            return None;
        }
        self.diagnose(task, attempt, &stall)
    }

    /// With the escalation ladder on: the stall check alone, after a failed
    /// iteration (the ladder decides what a stall leads to). `None` on the
    /// final attempt, as for [`Reasoner::after_failure`].
    pub(super) fn stall_check(&mut self, task: &Task, attempt: u32, max: u32) -> Option<Stall> {
        if attempt >= max {
            return None;
        }
        self.detect_stall(task, attempt)
    }

    /// Why the `diagnose` rung cannot run, when it cannot.
    pub(super) fn cannot_diagnose(&self) -> Option<String> {
        if !self.ctx.config.reason.enabled {
            return Some("the reasoner is off ([reason] enabled = false)".into());
        }
        if self.ctx.config.reasoner_role().is_none() {
            return Some("no [roles.reasoner] or [roles.analyzer] to reason with".into());
        }
        if self.stopping {
            return Some("the run is stopping".into());
        }
        None
    }

    /// The `diagnose` rung: one diagnosis of the failure (the stall, else
    /// the last failed attempt alone). `Some` when a `halt_task` verdict
    /// stops the task.
    pub(super) fn diagnose_rung(
        &mut self,
        task: &Task,
        attempt: u32,
        stall: Option<Stall>,
    ) -> Option<Status> {
        let stall = match stall {
            Some(stall) => stall,
            None => {
                let last = self.record.state.task(&task.id)?.iterations.last()?;
                Stall {
                    attempt,
                    fingerprint: last.fingerprint.clone().unwrap_or_default(),
                    repeats: 1,
                    criteria: failing_criteria(last),
                    surface: last.failure_surface.clone().unwrap_or_default(),
                }
            }
        };
        self.diagnose(task, attempt, &stall)
    }

    /// Records a stall when the last `stall_attempts` fingerprints are one.
    fn detect_stall(&mut self, task: &Task, attempt: u32) -> Option<Stall> {
        let t = self.record.state.task(&task.id)?;
        // Only the attempts since `--retry-failed` gave a fresh budget: a
        // retried task does not stall on a failure of its earlier budget.
        let since = t.retried_after.unwrap_or(0);
        let prints: Vec<Option<&str>> = t
            .iterations
            .iter()
            .filter(|i| i.attempt > since)
            .map(|i| i.fingerprint.as_deref())
            .collect();
        if !fingerprint::stalled(&prints, self.ctx.config.reason.stall_attempts) {
            return None;
        }
        let last = t.iterations.last()?;
        let print = last.fingerprint.clone()?;
        let repeats = prints
            .iter()
            .rev()
            .take_while(|p| **p == Some(print.as_str()))
            .count() as u32;
        let stall = Stall {
            attempt,
            fingerprint: print.clone(),
            repeats,
            criteria: failing_criteria(last),
            surface: last.failure_surface.clone().unwrap_or_default(),
        };
        self.events.emit(Event::TaskStalled {
            task: task.id.clone(),
            attempt,
            fingerprint: print,
            repeats,
            criteria: stall.criteria.clone(),
        });
        if let Some(t) = self.record.state.task_mut(&task.id) {
            t.stalls.push(stall.clone());
        }
        self.save();
        Some(stall)
    }

    fn skip_diagnosis(&mut self, task: &Task, attempt: u32, why: &str) {
        self.record_diagnosis(
            task,
            DiagnosisRecord {
                attempt,
                outcome: "skipped".into(),
                why: Some(why.to_string()),
                block: None,
                model: None,
                usage: None,
                file: None,
            },
        );
    }

    fn record_diagnosis(&mut self, task: &Task, record: DiagnosisRecord) {
        let block = record.block.as_ref();
        self.events.emit(Event::DiagnosisOutcome {
            task: task.id.clone(),
            attempt: record.attempt,
            outcome: record.outcome.clone(),
            why: record.why.clone(),
            verdict: block.map(|b| b.verdict.name().to_string()),
            confidence: block.map(|b| b.confidence.name().to_string()),
            confidence_clamped: block.is_some_and(|b| b.confidence_clamped),
            hypothesis: block.map(|b| b.hypothesis.clone()),
            model: record.model.clone(),
            input_tokens: record.usage.map(|u| u.input_tokens),
            output_tokens: record.usage.map(|u| u.output_tokens),
        });
        if let Some(t) = self.record.state.task_mut(&task.id) {
            t.diagnoses.push(record);
        }
        self.save();
    }

    /// Why no reasoner call may be made now, when none may.
    fn reasoner_budget_spent(&self) -> Option<String> {
        let max = self.ctx.config.reason.max_reasoner_calls_per_run;
        (self.record.state.reasoner_calls >= max)
            .then(|| format!("[reason] max_reasoner_calls_per_run ({max}) spent"))
    }

    fn diagnose(&mut self, task: &Task, attempt: u32, stall: &Stall) -> Option<Status> {
        let per_task = self.ctx.config.reason.max_diagnoses_per_task;
        let done = self
            .record
            .state
            .task(&task.id)
            .map_or(0, |t| t.diagnoses.iter().filter(|d| d.called()).count());
        if done >= per_task as usize {
            let why = format!("[reason] max_diagnoses_per_task ({per_task}) spent on this task");
            self.skip_diagnosis(task, attempt, &why);
            return None;
        }
        if let Some(why) = self.reasoner_budget_spent() {
            self.skip_diagnosis(task, attempt, &why);
            return None;
        }
        let Some(role) = self.ctx.config.reasoner_role().cloned() else {
            self.skip_diagnosis(task, attempt, "no [roles.reasoner] or [roles.analyzer]");
            return None;
        };
        let count = stall.repeats.min(self.ctx.config.reason.stall_attempts) as usize;
        let evidence = self.stalled_evidence(task, count);
        let bundle = bundle::project(&evidence, bundle::BUDGET);
        let prompt = diagnosis::prompt(task, &bundle, stall.repeats);
        let name = format!("{}-{attempt}-diagnosis", task.id);
        let mut record = DiagnosisRecord {
            attempt,
            outcome: "discarded".into(),
            why: None,
            block: None,
            model: Some(format!("{}/{}", role.provider.name(), role.model)),
            usage: None,
            file: Some(self.record.dir.reason_file_shown(&name, "json")),
        };
        match self.call_reasoner(&task.id, &role, &prompt, &name) {
            Err(why) => record.why = Some(why),
            Ok(reply) => {
                record.usage = reply.usage;
                record.model = Some(reply.model);
                match diagnosis::parse(&reply.text, bundle.steps) {
                    Ok(block) => {
                        record.outcome = "accepted".into();
                        record.block = Some(block);
                    }
                    Err(discard) => record.why = Some(discard.to_string()),
                }
            }
        }
        let block_json = serde_json::to_string_pretty(&record).unwrap_or_default();
        self.events.on_write(self.record.dir.write_reason_file(
            &name,
            "json",
            block_json.as_bytes(),
        ));
        let block = record.block.clone();
        self.record_diagnosis(task, record);
        let block = block?;
        let t = self.record.state.task_mut(&task.id)?;
        let status = match block.verdict {
            Verdict::RetryWithGuidance => {
                let rest = t.retry_context.take().unwrap_or_default();
                t.retry_context = Some(format!("{}\n{rest}", diagnosis::section(&block)));
                None
            }
            Verdict::SuggestHeal => {
                t.heal_routings.push(HealRouting {
                    attempt,
                    criteria: stall.criteria.clone(),
                    hypothesis: block.hypothesis.clone(),
                });
                self.events.emit(Event::HealRouted {
                    task: task.id.clone(),
                    attempt,
                    criteria: stall.criteria.clone(),
                });
                None
            }
            Verdict::HaltTask => {
                t.halted = Some(Halt {
                    attempt,
                    hypothesis: block.hypothesis.clone(),
                    confidence: block.confidence,
                });
                // Said when the task settles.
                Some(Status::Failed)
            }
        };
        self.save();
        status
    }

    /// After a pass: a task that stalled and then passed is a recovery,
    /// and one reasoner call distills it into a lesson. Nothing here can
    /// touch the pass.
    pub(super) fn after_pass(&mut self, task: &Task) {
        let reason = self.ctx.config.reason.clone();
        if !reason.enabled || !reason.extract_lessons || self.stopping {
            return;
        }
        let Some(t) = self.record.state.task(&task.id) else {
            return;
        };
        let Some(stall) = t.stalls.last().cloned() else {
            return; // no struggle, no lesson
        };
        let (Some(stalled), Some(passing)) = (
            t.iterations
                .iter()
                .find(|i| i.attempt == stall.attempt)
                .cloned(),
            t.iterations.last().cloned(),
        ) else {
            return;
        };
        let outcome = self.extract(task, &stall, &stalled, &passing, &reason);
        let event = |outcome, lesson, evicted, why| Event::LessonExtracted {
            task: task.id.clone(),
            outcome,
            lesson,
            evicted,
            why,
        };
        let event = match outcome {
            Ok(Some(extracted)) => {
                let e = event(
                    if extracted.written {
                        Extraction::Written
                    } else {
                        Extraction::Duplicate
                    },
                    Some(extracted.id.clone()),
                    extracted.evicted.clone(),
                    None,
                );
                if let Some(t) = self.record.state.task_mut(&task.id) {
                    t.lessons_extracted.push(extracted);
                }
                e
            }
            Ok(None) => event(
                Extraction::None,
                None,
                Vec::new(),
                Some("the reasoner found nothing that generalizes".to_string()),
            ),
            Err(why) => event(Extraction::Skipped, None, Vec::new(), Some(why)),
        };
        self.events.emit(event);
        self.save();
    }

    fn extract(
        &mut self,
        task: &Task,
        stall: &Stall,
        stalled: &Iteration,
        passing: &Iteration,
        reason: &crate::config::ReasonConfig,
    ) -> Result<Option<Extracted>, String> {
        if stall.surface.declared() < 2 {
            return Err(format!(
                "the failure declares {} match component(s); a lesson needs two to ever surface",
                stall.surface.declared()
            ));
        }
        if let Some(why) = self.reasoner_budget_spent() {
            return Err(why);
        }
        let role = self
            .ctx
            .config
            .reasoner_role()
            .cloned()
            .ok_or("no [roles.reasoner] or [roles.analyzer]")?;
        let evidence = self.attempt_evidence(task, stalled, true);
        let projection = bundle::project(&[evidence], bundle::HALF_BUDGET).text;
        let diff = match (&stalled.verified_tree, &passing.verified_tree) {
            (Some(from), Some(to)) => {
                let label = format!("attempt {} → attempt {}", stalled.attempt, passing.attempt);
                self.guards
                    .diff(from, to, &label)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|e| format!("(the diff is unavailable: {e})"))
            }
            _ => "(no git baseline: the diff is unavailable)".to_string(),
        };
        let diff = bundle::window(&diff, bundle::HALF_BUDGET);
        let prompt = extract::prompt(task, &projection, &diff);
        let name = format!("{}-{}-lesson", task.id, passing.attempt);
        let reply = self.call_reasoner(&task.id, &role, &prompt, &name)?;
        let Some(body) = extract::parse(&reply.text)? else {
            return Ok(None);
        };
        let lesson = Lesson::new(
            stall.surface.clone(),
            &body,
            &task.id,
            &self.record.state.prd,
            &zurdo_base::time::now(),
        );
        let added = Library::add(
            self.ctx.verifier.root(),
            &lesson,
            reason.max_lessons,
            &self.lessons.usage,
        )
        .map_err(|e| format!("cannot write the lesson: {e}"))?;
        if added.written {
            self.lessons.library.lessons.push(lesson);
        }
        self.lessons
            .library
            .lessons
            .retain(|l| !added.evicted.contains(&l.id));
        Ok(Some(Extracted {
            id: added.id,
            written: added.written,
            evicted: added.evicted,
        }))
    }

    /// The lessons section of an executor prompt (empty when none match),
    /// stamping each injected lesson's use: only real injection counts.
    pub(super) fn lessons_section(&mut self, task: &Task, attempt: u32) -> String {
        if !self.ctx.config.reason.enabled || self.lessons.library.lessons.is_empty() {
            return String::new();
        }
        let reactive = self
            .record
            .state
            .task(&task.id)
            .filter(|t| t.retry_context.is_some())
            .and_then(|t| t.iterations.last())
            .and_then(|i| i.failure_surface.clone());
        let (surface, mode) = match reactive {
            Some(s) => (s, "reactive"),
            None => (fingerprint::declared(task), "prospective"),
        };
        let chosen: Vec<(Lesson, usize)> = self
            .lessons
            .library
            .matches(&surface, &self.lessons.usage)
            .into_iter()
            .take(MAX_INJECTED)
            .map(|(l, score)| (l.clone(), score))
            .collect();
        if chosen.is_empty() {
            return String::new();
        }
        let lessons: Vec<&Lesson> = chosen.iter().map(|(l, _)| l).collect();
        let section = inject::section(&lessons);
        let ids: Vec<String> = chosen.iter().map(|(l, _)| l.id.clone()).collect();
        self.lessons.usage.stamp(&ids, &zurdo_base::time::now());
        if let Err(e) = self.lessons.usage.save(self.ctx.verifier.root()) {
            self.events.emit(Event::CannotWrite {
                path: crate::reason::library::USAGE_PATH.to_string(),
                error: e.to_string(),
            });
        }
        self.events.emit(Event::LessonsInjected {
            task: task.id.clone(),
            attempt,
            mode: mode.to_string(),
            lessons: ids,
        });
        if let Some(t) = self.record.state.task_mut(&task.id) {
            for (lesson, score) in &chosen {
                t.lessons_injected.push(Injected {
                    attempt,
                    id: lesson.id.clone(),
                    mode: mode.to_string(),
                    score: *score,
                    from_task: lesson.task.clone(),
                    from_prd: lesson.prd.clone(),
                });
            }
        }
        section
    }

    /// The evidence of the last `count` iterations of `task`.
    fn stalled_evidence(&self, task: &Task, count: usize) -> Vec<AttemptEvidence> {
        let Some(t) = self.record.state.task(&task.id) else {
            return Vec::new();
        };
        let from = t.iterations.len().saturating_sub(count);
        let last = t.iterations.len().saturating_sub(1);
        t.iterations[from..]
            .iter()
            .enumerate()
            .map(|(i, it)| self.attempt_evidence(task, it, from + i == last))
            .collect()
    }

    /// One attempt's evidence: zurdo's findings (the full "what failed" for
    /// the latest attempt, the fingerprint lines otherwise) and the agent's
    /// stream read again through the vocabulary from `iterations/`.
    fn attempt_evidence(&self, task: &Task, it: &Iteration, latest: bool) -> AttemptEvidence {
        let failed = match self
            .record
            .state
            .task(&task.id)
            .and_then(|t| t.retry_context.clone())
        {
            Some(text) if latest => text,
            _ => it.failure.join("\n"),
        };
        let (out, err) = self.record.dir.read_agent_output(&task.id, it.attempt);
        // Read by the vocabulary of the CLI that ran it (a failover or an
        // escalation may have moved the task to another).
        let provider = it.provider.unwrap_or(self.ctx.config.executor);
        let report = vocabulary::read(provider, &out, &err);
        AttemptEvidence {
            attempt: it.attempt,
            failed,
            final_text: report
                .final_text
                .or_else(|| it.agent.final_text_tail.clone()),
            tool_calls: report.tool_calls,
            error: report.error.or_else(|| it.agent.error.clone()).or_else(|| {
                it.agent
                    .timed_out
                    .then(|| "the agent ran past its timeout and was killed".to_string())
            }),
        }
    }

    /// One single-shot reasoner call through the role's CLI, in an empty
    /// scratch directory (the bundle is in the prompt; the reasoner has
    /// nothing to read or edit: [`side_call`]). Counts against the run's
    /// budget.
    fn call_reasoner(
        &mut self,
        task: &str,
        role: &Role,
        prompt: &str,
        name: &str,
    ) -> Result<Reply, String> {
        self.record.state.reasoner_calls += 1;
        self.save();
        self.events.on_write(
            self.record
                .dir
                .write_reason_file(name, "prompt", prompt.as_bytes()),
        );
        // The role's own seat, then its fallbacks: a provider blocked in
        // this run is not asked; one whose CLI cannot work is blocked.
        let called = failover::side_call_chain(
            self.providers,
            self.events,
            &self.ctx.config,
            self.interrupt,
            &self.ctx.display,
            &failover::SideCall {
                role_name: "reasoner",
                task,
                role,
                timeout: self.ctx.config.reason.timeout,
            },
            prompt,
        );
        if called.started {
            self.events.on_write(
                self.record
                    .dir
                    .write_reason_file(name, "out", &called.stdout),
            );
        }
        called.reply
    }
}

/// The criteria an iteration failed, by test name.
fn failing_criteria(it: &Iteration) -> Vec<String> {
    it.criteria
        .iter()
        .filter(|c| c.verdict == zurdo::verify::CriterionVerdict::Failed)
        .map(|c| c.name.clone())
        .collect()
}
