//! The challenger in the run ([`crate::reason::challenge`] has its prompt
//! and its reply's reading): after an attempt passed every check zurdo
//! runs, one call to `[roles.challenger]`'s model with the task and the
//! task's diff since its rollback point; each finding whose citation holds
//! and that names a probe has the probe run on a scratch checkout of the
//! verified tree, under bubblewrap. A confirmed finding fails the attempt
//! (`challenger_confirmed`, the probe's output in the retry prompt); an
//! unconfirmed one is recorded and reported, and changes nothing.
//!
//! Fail-open like the reasoner: no budget left, a CLI that cannot work, a
//! reply without the structure, a tree outside git: the attempt stands as
//! verified, and the record says why the challenger gave no verdict.

use zurdo::hint::{Check, Hint};
use zurdo::verify::Verifier;
use zurdo::Task;

use super::Run;
use crate::event::Event;
use crate::evidence::{baseline, room, Caught, CaughtKind};
use crate::reason::challenge::{self, ChallengeRecord, Checked, ProbeResult};

/// Most bytes of a probe's output kept in the retry prompt.
const PROBE_OUTPUT: usize = 1200;

impl Run {
    /// Challenges `attempt` of `task`, which passed with the tree
    /// `verified_tree`. `None` when no challenger is configured; else the
    /// record and the findings its probes confirmed.
    pub(super) fn challenge(
        &mut self,
        task: &Task,
        attempt: u32,
        verified_tree: Option<&str>,
    ) -> Option<(ChallengeRecord, Vec<Caught>)> {
        let config = self.ctx.config.challenger.clone()?;
        let model = format!("{}/{}", config.role.provider.name(), config.role.model);
        let skipped = |why: String| ChallengeRecord {
            model: model.clone(),
            findings: Vec::new(),
            dropped: Vec::new(),
            skipped: Some(why),
        };
        let asked_for_task = self
            .record
            .task(&task.id)
            .map(|t| {
                t.iterations
                    .iter()
                    .filter(|i| i.challenge.as_ref().is_some_and(|c| c.skipped.is_none()))
                    .count()
            })
            .unwrap_or(0);
        let record = if self.record.state.challenger_calls >= config.max_calls_per_run {
            skipped(format!(
                "its budget is spent ({} calls this run, [roles.challenger] max_calls_per_run)",
                self.record.state.challenger_calls
            ))
        } else if asked_for_task >= config.max_calls_per_task as usize {
            skipped(format!(
                "its budget for this task is spent ({asked_for_task} calls, [roles.challenger] max_calls_per_task)"
            ))
        } else {
            match self.task_diff(task, verified_tree) {
                Err(why) => skipped(why),
                Ok((diff, changed, tree)) => {
                    self.ask(task, attempt, &config, &model, &diff, &changed, &tree)
                }
            }
        };
        let confirmed: Vec<Caught> = record
            .findings
            .iter()
            .filter_map(|c| match &c.result {
                ProbeResult::Confirmed { code, output } => Some(confirmed(c, *code, output)),
                _ => None,
            })
            .collect();
        self.events.emit(Event::Challenged {
            task: task.id.clone(),
            attempt,
            model: record.model.clone(),
            confirmed: confirmed.len(),
            unconfirmed: record.findings.len() - confirmed.len(),
            dropped: record.dropped.len(),
            skipped: record.skipped.clone(),
        });
        Some((record, confirmed))
    }

    /// The task's diff from its rollback point to `verified_tree`, the
    /// lines it adds or changes, and the tree; `Err` says why there is
    /// nothing to challenge.
    #[allow(clippy::type_complexity)]
    fn task_diff(
        &self,
        task: &Task,
        verified_tree: Option<&str>,
    ) -> Result<
        (
            String,
            std::collections::BTreeMap<String, std::collections::BTreeSet<u32>>,
            String,
        ),
        String,
    > {
        let root = self.ctx.verifier.root();
        let tree = verified_tree.ok_or("the tree is not in git: there is no diff to read")?;
        let from = self
            .record
            .task(&task.id)
            .and_then(|t| t.rollback_point.clone())
            .ok_or("the task has no rollback point: there is no diff to read")?;
        let changed = baseline::changed_lines(root, &from, tree)
            .map_err(|e| format!("the task's diff cannot be read: {e}"))?;
        if changed.is_empty() {
            return Err("the task changed no line: nothing to challenge".to_string());
        }
        let diff = baseline::diff_patch(root, &from, tree, &format!("{} rollback point", task.id))
            .map_err(|e| format!("the task's diff cannot be read: {e}"))?;
        Ok((diff, changed, tree.to_string()))
    }

    /// The call, its reply read, and each probe run.
    #[allow(clippy::too_many_arguments)]
    fn ask(
        &mut self,
        task: &Task,
        attempt: u32,
        config: &crate::config::ChallengerConfig,
        model: &str,
        diff: &str,
        changed: &std::collections::BTreeMap<String, std::collections::BTreeSet<u32>>,
        tree: &str,
    ) -> ChallengeRecord {
        let prompt = challenge::prompt(task, diff);
        let name = format!("{}-{attempt}-challenge", task.id);
        self.record.state.challenger_calls += 1;
        self.save();
        self.events.on_write(
            self.record
                .dir
                .write_reason_file(&name, "prompt", prompt.as_bytes()),
        );
        // The challenger's seat, then its fallbacks (a provider whose CLI
        // cannot work is blocked for the run, as for every role).
        let called = super::failover::side_call_chain(
            &mut self.providers,
            &self.events,
            &self.ctx.config,
            &self.interrupt,
            &self.ctx.display,
            &super::failover::SideCall {
                role_name: "challenger",
                task: &task.id,
                role: &config.role,
                timeout: config.timeout,
            },
            &prompt,
        );
        if called.started {
            self.events.on_write(
                self.record
                    .dir
                    .write_reason_file(&name, "out", &called.stdout),
            );
        }
        let mut record = ChallengeRecord {
            model: model.to_string(),
            findings: Vec::new(),
            dropped: Vec::new(),
            skipped: None,
        };
        let reply = match called.reply {
            Ok(reply) => reply,
            Err(why) => {
                record.skipped = Some(format!("the call failed: {why}"));
                return record;
            }
        };
        let read = match challenge::parse(&reply.text, changed) {
            Ok(read) => read,
            Err(why) => {
                record.skipped = Some(format!("its reply was discarded: {why}"));
                return record;
            }
        };
        record.dropped = read.dropped;
        if read.findings.is_empty() {
            return record;
        }
        let sandboxed = *self
            .sandbox_usable
            .get_or_init(|| crate::agent::sandbox::usable().is_ok());
        let probes = Probes::new(
            self.ctx.verifier.root(),
            tree,
            config,
            &self.ctx.config.verification,
            sandboxed,
        );
        record.findings = read
            .findings
            .into_iter()
            .map(|finding| {
                let result = match &finding.probe {
                    None => ProbeResult::None,
                    Some(probe) => probes.run(probe),
                };
                Checked { finding, result }
            })
            .collect();
        record
    }
}

/// A confirmed finding as what it fails the attempt with.
fn confirmed(c: &Checked, code: i32, output: &str) -> Caught {
    let f = &c.finding;
    let probe = f.probe.as_deref().unwrap_or_default();
    let output = zurdo_base::text::last_chars(output.trim_end(), PROBE_OUTPUT);
    Caught::new(
        CaughtKind::ChallengerConfirmed,
        format!("{}:{}", f.path, f.line),
        format!(
            "{}: {} — zurdo ran the probe `{probe}` on a copy of this attempt's tree and it failed (exit {code}): {}",
            f.kind,
            f.claim,
            output.replace('\n', " ⏎ ")
        ),
        "make the code do what the task asks for every input, not only the ones the criteria use; the probe must pass",
    )
}

/// Where the probes run: a scratch checkout of the verified tree, with the
/// hints' allowlisted environment and limit, under bubblewrap (the system
/// read-only, the working tree hidden) when `bwrap` works here
/// (`sandboxed`).
struct Probes {
    room: std::path::PathBuf,
    verifier: Result<Verifier, String>,
}

impl Probes {
    fn new(
        root: &std::path::Path,
        tree: &str,
        config: &crate::config::ChallengerConfig,
        verification: &zurdo::verify::VerificationConfig,
        sandboxed: bool,
    ) -> Probes {
        let room = std::env::temp_dir().join(format!(
            "zurdo-challenge-{}-{}",
            std::process::id(),
            &tree[..12.min(tree.len())]
        ));
        let _ = std::fs::remove_dir_all(&room);
        let verifier = if !sandboxed && !config.unsandboxed_probes {
            Err("not run: a probe is a command a model wrote after reading the agent's diff, and bwrap cannot sandbox it here ([roles.challenger] unsandboxed_probes = true runs it anyway)".to_string())
        } else {
            room::materialize(root, tree, &room)
                .map_err(|e| format!("not run: the scratch copy could not be made: {e}"))
                .and_then(|_| {
                    let settings = zurdo::verify::VerificationConfig {
                        criterion_seconds: config.probe_seconds,
                        ..verification.clone()
                    };
                    let v = Verifier::new(&room, settings).map_err(|e| format!("not run: {e}"))?;
                    Ok(if sandboxed {
                        v.with_wrapper(room::bubblewrap(root, &room))
                    } else {
                        v
                    })
                })
        };
        Probes { room, verifier }
    }

    /// Runs `probe` and judges what it showed.
    fn run(&self, probe: &str) -> ProbeResult {
        let verifier = match &self.verifier {
            Ok(v) => v,
            Err(why) => return ProbeResult::NotRun { why: why.clone() },
        };
        let hint = Hint {
            check: Check::Shell {
                command: probe.to_string(),
            },
            source: format!("[shell: {probe}]"),
        };
        let result = verifier.check(&hint);
        let e = &result.evidence;
        let mut output = String::new();
        for captured in [&e.stdout, &e.stderr].into_iter().flatten() {
            output.push_str(&captured.text);
        }
        if matches!(
            result.verdict,
            zurdo::verify::Verdict::Fail(zurdo::verify::Reason::Timeout { .. })
        ) {
            return ProbeResult::Broken {
                why: "it ran past [roles.challenger] probe_seconds".to_string(),
            };
        }
        challenge::judge_probe(e.exit_code, &output)
    }
}

impl Drop for Probes {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.room);
        // Nothing a probe started outlives it.
        zurdo::exec::reap::kill_descendants();
    }
}
