//! `zurdo run`: tasks in dependency order, each through pre-flight, agent
//! attempts, zurdo's own verification, and retry or settle; with crash-safe
//! state under `.zurdo/<slug>/` and resume.

pub mod interrupt;
pub mod live;
pub mod orphans;
pub mod probe;
pub mod reasoning;

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use zurdo::verify::{
    render, CriterionResult, CriterionVerdict, HintResult, StandingRule, Verifier,
};
use zurdo::{naming, source, Prd, Task};

use crate::agent::invoke;
use crate::config::Config;
use crate::error::{Error, ErrorKind, Exit, Outcome};
use crate::evidence::{self, frozen, toolchain, Baseline};
use crate::prompt;
use crate::report::summary;
use crate::state::lock::{Lock, LockError};
use crate::state::progress::Progress;
use crate::state::run_state::Witness;
use crate::state::run_state::{
    AgentRecord, CriterionRecord, Iteration, RunState, Status, TaskState, VERSION,
};
use crate::state::{self, StateDir};
use interrupt::Interrupt;

/// How to treat existing state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Resume without asking.
    pub resume: bool,
    /// Archive the state and start over.
    pub reset: bool,
    /// Never ask (resume by default).
    pub no_prompt: bool,
    /// Skip the model probe.
    pub skip_model_check: bool,
}

/// Runs a PRD; returns the exit code.
pub fn run(prd_path: &Path, options: Options) -> Outcome {
    match Run::prepare(prd_path, options)? {
        Some(mut run) => run.execute(),
        None => Ok(Exit::Ok),
    }
}

/// A run that passed its checks and holds the lock.
struct Run {
    prd: Prd,
    display: String,
    config: Config,
    verifier: Verifier,
    dir: StateDir,
    state: RunState,
    progress: Progress,
    interrupt: Interrupt,
    standing: Vec<StandingRule>,
    /// The run-start snapshot (`None` outside git: the guards that need it
    /// are off, with one warning).
    baseline: Option<Baseline>,
    /// The command words whose binaries are tracked for provenance.
    tool_words: BTreeSet<String>,
    /// Set when the run must stop with exit 3 (a standing set over budget).
    refused: Option<String>,
    /// The lesson library, read at run start (plus what this run extracts).
    library: crate::reason::library::Library,
    /// Lesson use counts (`.zurdo/reason/usage.json`).
    usage: crate::reason::library::Usage,
    _lock: Lock,
}

impl Run {
    fn prepare(prd_path: &Path, options: Options) -> Result<Option<Run>, Error> {
        let display = prd_path.display().to_string();
        let root = source::repo_root(prd_path);
        // The config is checked before any PRD is read.
        let config = Config::load(&root).map_err(Error::invalid)?;
        let bytes = source::read(prd_path).map_err(|e| Error::invalid(e.to_string()))?;
        let prd = zurdo::parse_bytes(&bytes).map_err(|errors| {
            let lines: Vec<String> = errors.iter().map(|e| e.render(&display)).collect();
            Error::invalid(format!(
                "{display} is not a valid PRD:\n{}",
                lines.join("\n")
            ))
        })?;
        let relative = source::relative_to(&root, prd_path).unwrap_or_else(|| display.clone());
        check_efforts(&prd, &config).map_err(Error::invalid)?;
        if config.verification.clean_room == "bubblewrap" && !evidence::room::bubblewrap_installed()
        {
            return Err(Error::invalid(
                "[verification] clean_room = \"bubblewrap\" but `bwrap` is not on PATH; install it (Debian: apt-get install bubblewrap) or use clean_room = \"checkout\"",
            ));
        }
        let dir = StateDir::new(&root, &relative);
        let lock =
            Lock::acquire(&dir.lock(), |warning| eprintln!("{warning}")).map_err(|e| match e {
                LockError::Held { .. } => {
                    Error::new(ErrorKind::LockHeld, format!("{display}: {e}"))
                }
                LockError::Io(_) => {
                    Error::new(ErrorKind::Io, format!("{}: {e}", dir.lock().display()))
                }
            })?;
        let sha1 = state::sha1_hex(&bytes);
        let progress = Progress::new(&dir.progress_log());

        let existing = RunState::load(&dir.prd_json()).map_err(Error::invalid)?;
        let state = match existing {
            Some(_) if options.reset => {
                archive(&dir).map_err(Error::invalid)?;
                delete_refs(&root, &dir.slug);
                eprintln!("zurdo: archived the previous state of {display}");
                fresh_state(&prd, &config, &relative, &dir, &sha1)
            }
            Some(old) => {
                if old.prd_sha1 != sha1 {
                    return Err(Error::new(
                        ErrorKind::Drift,
                        format!("{display} changed since its run state was written (.zurdo/{}/prd.json); `zurdo run --reset {display}` archives that state and starts over", dir.slug),
                    ));
                }
                match ask_resume(&options, &display) {
                    Choice::Resume => {
                        reconcile(&progress, &old);
                        old
                    }
                    Choice::Reset => {
                        archive(&dir).map_err(Error::invalid)?;
                        delete_refs(&root, &dir.slug);
                        fresh_state(&prd, &config, &relative, &dir, &sha1)
                    }
                    Choice::Abort => return Ok(None),
                }
            }
            None => {
                // Once, when a PRD first gets state.
                if let Some(hint) = crate::config::gitignore_hint(&root) {
                    eprintln!("{hint}");
                }
                fresh_state(&prd, &config, &relative, &dir, &sha1)
            }
        };
        let mut config = config;
        let state = fix_policy(state, &dir, &mut config);
        let verifier = Verifier::new(&root, config.verification.clone())
            .map_err(|e| Error::invalid(format!("{}: {e}", root.display())))?;
        let standing = config
            .verification
            .standing_rules()
            .map_err(Error::invalid)?;
        let prd_for_words = prd.clone();
        let standing_commands: Vec<String> = standing
            .iter()
            .filter_map(|r| match &r.hint.check {
                zurdo::hint::Check::Shell { command } => Some(command.clone()),
                _ => None,
            })
            .collect();
        let mut run = Run {
            prd,
            display,
            config,
            verifier,
            dir,
            state,
            progress,
            interrupt: Interrupt::install(),
            tool_words: toolchain::words(&prd_for_words, standing_commands),
            baseline: None,
            standing,
            refused: None,
            library: crate::reason::library::Library::default(),
            usage: crate::reason::library::Usage::default(),
            _lock: lock,
        };
        run.load_lessons();
        run.record_toolchain();
        run.capture_run_baseline();
        run.save();
        run.preflight_standing()?;
        if !options.skip_model_check {
            run.probe_models()?;
        }
        Ok(Some(run))
    }

    /// With `[reason] enabled`: the lesson library and its use counts; a
    /// lesson file that cannot be read is named and skipped.
    fn load_lessons(&mut self) {
        if !self.config.reason.enabled {
            return;
        }
        let root = self.verifier.root().to_path_buf();
        self.library = crate::reason::library::Library::load(&root);
        self.usage = crate::reason::library::Usage::load(&root);
        for skipped in &self.library.skipped {
            eprintln!(
                "warning: lesson {} skipped: {}",
                skipped.path.display(),
                skipped.why
            );
        }
        if !self.library.lessons.is_empty() {
            eprintln!(
                "zurdo: {} lesson(s) in lessons/",
                self.library.lessons.len()
            );
        }
    }

    /// The standing set must hold before any agent runs: a rule already red
    /// is aspirational, and every task would fail on it.
    fn preflight_standing(&mut self) -> Result<(), Error> {
        if self.standing.is_empty() {
            return Ok(());
        }
        let broken = self
            .check_standing()
            .map_err(|e| Error::new(ErrorKind::Standing, e))?;
        self.progress.emit(
            "standing_preflight",
            json!({"rules": self.standing.len(), "broken": broken.len()}),
        );
        if broken.is_empty() {
            eprintln!("zurdo: {} standing rule(s) hold", self.standing.len());
            return Ok(());
        }
        let lines: Vec<String> = broken
            .iter()
            .map(|(rule, result)| render::standing_failure(rule, result))
            .collect();
        Err(Error::new(
            ErrorKind::Standing,
            format!("the standing rules must hold before a run starts:\n{}\nfix the tree (or the rule in .zurdo/config.toml) first", lines.join("\n")),
        ))
    }

    /// Checks every standing rule; the broken ones, or an error when the
    /// set took longer than `standing_budget_seconds`.
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

    /// Provenance notes (never verdicts): criteria that were already green
    /// at pre-flight prove nothing about this run, and evidence files that
    /// changed since pre-flight are where the task's work shows.
    fn provenance(&self, task: &Task, results: &[CriterionResult]) {
        let Some(pre) = self
            .state
            .task(&task.id)
            .and_then(|t| t.preflight_results.as_ref())
        else {
            return;
        };
        let mut modified = BTreeSet::new();
        for ((criterion, now), before) in task.criteria.iter().zip(results).zip(pre) {
            if now.verdict == CriterionVerdict::Passed && before.verdict == CriterionVerdict::Passed
            {
                eprintln!(
                    "      {} — already passed at pre-flight; proves nothing about this run",
                    criterion.title
                );
            }
            let before_blobs: Vec<(String, String)> = before
                .hints
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|h| {
                    h["evidence"]["blobs"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .filter_map(|b| {
                    Some((
                        b["path"].as_str()?.to_string(),
                        b["id"].as_str()?.to_string(),
                    ))
                })
                .collect();
            for blob in now.hints.iter().flat_map(|h| &h.evidence.blobs) {
                if before_blobs
                    .iter()
                    .any(|(p, id)| *p == blob.path && *id != blob.id)
                {
                    modified.insert(blob.path.clone());
                }
            }
        }
        if !modified.is_empty() {
            let list: Vec<&str> = modified.iter().map(String::as_str).collect();
            eprintln!("      warning: evidence modified since pre-flight: {} (hints read these; often that is the task)", list.join(", "));
        }
    }

    /// The run-start baseline: written to `.zurdo/<slug>/baseline`. A resumed
    /// run captures a fresh one, so its run-diff.patch covers the work since
    /// the resume.
    fn capture_run_baseline(&mut self) {
        match evidence::capture(self.verifier.root()) {
            Ok(b) => {
                write_file(&self.dir.dir.join("baseline"), serde_json::to_string_pretty(&b).unwrap_or_default().as_bytes());
                self.progress.emit("baseline", json!({"tree": b.tree, "dirty": b.dirty, "files": b.files}));
                self.baseline = Some(b);
            }
            Err(evidence::BaselineError::NotARepo(_)) => eprintln!(
                "warning: not a git repository: baselines, rollback points, run-diff.patch, flaky and witness checks are off \
                 (frozen paths are still enforced by hashing)"
            ),
            Err(e) => eprintln!("warning: baseline capture failed ({e}); the guards that need it are off"),
        }
    }

    /// The working tree now, as a git tree id (through the same pipeline as
    /// the baselines), when a baseline exists.
    fn capture_tree(&self) -> Option<String> {
        self.baseline.as_ref()?;
        evidence::capture(self.verifier.root()).ok().map(|b| b.tree)
    }

    /// A task's baseline: its tree at its first attempt, kept as
    /// `rollback_point` and `refs/zurdo/<slug>/<task-id>`, reused on retries.
    fn take_task_baseline(&mut self, task: &Task) {
        if self
            .state
            .task(&task.id)
            .is_none_or(|t| t.rollback_point.is_some())
        {
            return;
        }
        let Some(tree) = self.capture_tree() else {
            return;
        };
        if let Err(e) = evidence::record_ref(self.verifier.root(), &self.dir.slug, &task.id, &tree)
        {
            eprintln!(
                "warning: cannot record refs/zurdo/{}/{}: {e}",
                self.dir.slug, task.id
            );
        }
        if let Some(t) = self.state.task_mut(&task.id) {
            t.rollback_point = Some(tree);
        }
    }

    /// After a pass: which changed files some hint reads (witnessed) and
    /// which none does (where to look first).
    fn witness(&mut self, task: &Task, tree: Option<&str>, results: &[CriterionResult]) {
        let Some(start) = self
            .state
            .task(&task.id)
            .and_then(|t| t.rollback_point.clone())
        else {
            return;
        };
        let Some(tree) = tree else { return };
        let Ok(changed) = evidence::changed_paths(self.verifier.root(), &start, tree) else {
            return;
        };
        let read: BTreeSet<&str> = results
            .iter()
            .flat_map(|r| &r.hints)
            .flat_map(|h| &h.evidence.blobs)
            .map(|b| b.path.as_str())
            .collect();
        let (witnessed, unwitnessed): (Vec<String>, Vec<String>) =
            changed.into_iter().partition(|p| read.contains(p.as_str()));
        if !unwitnessed.is_empty() {
            eprintln!(
                "    note: changed files no hint reads: {}",
                unwitnessed.join(", ")
            );
        }
        if let Some(t) = self.state.task_mut(&task.id) {
            t.witness = Some(Witness {
                witnessed,
                unwitnessed,
            });
        }
    }

    /// A criterion with two verdicts on one verified tree is flaky.
    fn flaky(&mut self, task: &Task) {
        let Some(t) = self.state.task(&task.id) else {
            return;
        };
        let mut flaky = BTreeSet::new();
        for (i, a) in t.iterations.iter().enumerate() {
            for b in &t.iterations[i + 1..] {
                if a.verified_tree.is_none() || a.verified_tree != b.verified_tree {
                    continue;
                }
                for (x, y) in a.criteria.iter().zip(&b.criteria) {
                    if x.verdict != y.verdict {
                        flaky.insert(x.name.clone());
                    }
                }
            }
        }
        if flaky.is_empty() {
            return;
        }
        let list: Vec<String> = flaky.into_iter().collect();
        eprintln!(
            "    warning: flaky criteria (two verdicts on one tree): {}",
            list.join(", ")
        );
        if let Some(t) = self.state.task_mut(&task.id) {
            t.flaky = list;
        }
    }

    /// With `[verification] clean_room = "checkout"`: the task's criteria and
    /// the standing rules again, in a fresh checkout of exactly the verified
    /// tree outside the working directory. What passed in place but fails
    /// there is a mismatch, and fails the iteration.
    fn clean_room(&self, task: &Task, tree: Option<&str>) -> Vec<String> {
        let backend = self.config.verification.clean_room.as_str();
        if backend == "off" {
            return Vec::new();
        }
        let Some(tree) = tree else {
            eprintln!("warning: the clean room needs a git baseline; skipped");
            return Vec::new();
        };
        let room = std::env::temp_dir().join(format!(
            "zurdo-room-{}-{}",
            std::process::id(),
            &tree[..12.min(tree.len())]
        ));
        let _ = std::fs::remove_dir_all(&room);
        let outcome =
            evidence::room::materialize(self.verifier.root(), tree, &room).and_then(|_| {
                let v = Verifier::new(&room, self.config.verification.clone())
                    .map_err(|e| e.to_string())?;
                Ok(if backend == "bubblewrap" {
                    v.with_wrapper(evidence::room::bubblewrap(self.verifier.root(), &room))
                } else {
                    v
                })
            });
        let mismatches = match outcome {
            Ok(v) => {
                let mut out = Vec::new();
                for criterion in &task.criteria {
                    let r = v.criterion(criterion);
                    if r.verdict == CriterionVerdict::Failed {
                        for h in r.failures() {
                            if let zurdo::verify::Verdict::Fail(reason) = &h.verdict {
                                out.push(format!(
                                    "clean_room_mismatch: {} {} — in the room: {reason}",
                                    criterion.title, h.hint
                                ));
                            }
                        }
                    }
                }
                for rule in &self.standing {
                    let r = v.check(&rule.hint);
                    if let zurdo::verify::Verdict::Fail(reason) = &r.verdict {
                        out.push(format!(
                            "clean_room_mismatch: standing rule {} — in the room: {reason}",
                            rule.hint.source
                        ));
                    }
                }
                out
            }
            Err(e) => vec![format!(
                "clean_room_mismatch: the room could not be built: {e}"
            )],
        };
        let _ = std::fs::remove_dir_all(&room);
        for m in &mismatches {
            eprintln!("      {m}");
        }
        mismatches
    }

    /// run-diff.patch: everything the run changed since its (latest) start.
    fn write_run_diff(&self) {
        let Some(start) = &self.baseline else { return };
        let Some(end) = self.capture_tree() else {
            return;
        };
        let label = format!("run start {}", start.captured_at);
        match evidence::diff_patch_bytes(self.verifier.root(), &start.tree, &end, &label) {
            Ok(bytes) => write_file(&self.dir.dir.join("run-diff.patch"), &bytes),
            Err(e) => eprintln!("warning: cannot write run-diff.patch: {e}"),
        }
    }

    fn frozen_set(&self, task: &Task) -> frozen::Frozen {
        frozen::Frozen::new(
            &task.metadata.frozen,
            &self.config.verification.protected_paths,
        )
    }

    /// A snapshot of the frozen files, or `None` when the check stood down.
    fn frozen_snapshot(&self, set: &frozen::Frozen) -> Option<frozen::Snapshot> {
        set.snapshot(self.verifier.root()).ok()
    }

    /// The task's frozen baseline, taken at its first attempt and reused on
    /// retries (and across resumes: it is in prd.json).
    fn take_frozen_baseline(&mut self, task: &Task) {
        if self
            .state
            .task(&task.id)
            .is_none_or(|t| t.frozen_baseline.is_some())
        {
            return;
        }
        let set = self.frozen_set(task);
        match set.snapshot(self.verifier.root()) {
            Ok(snapshot) => {
                if let Some(t) = self.state.task_mut(&task.id) {
                    t.frozen_baseline = Some(snapshot);
                }
            }
            Err(frozen::StandDown::TooMany(n)) => eprintln!(
                "warning: the frozen-path check stands down for {}: its globs match more than {} files ({n} seen)",
                task.id,
                frozen::MAX_FILES
            ),
        }
    }

    /// The first leg of frozen-path enforcement: the frozen paths among
    /// those that differ between the task's baseline tree and the tree
    /// about to be verified (tracked and untracked files, not ignored ones:
    /// the hashing leg covers those). It works however many files the globs
    /// match, so it still holds where the hashing leg stands down. Paths a
    /// criterion's own writes were folded for are not charged.
    fn frozen_in_tree_diff(
        &self,
        task: &Task,
        set: &frozen::Frozen,
        tree: Option<&str>,
    ) -> Vec<String> {
        let Some(t) = self.state.task(&task.id) else {
            return Vec::new();
        };
        let (Some(base), Some(tree)) = (t.rollback_point.as_deref(), tree) else {
            return Vec::new();
        };
        let Ok(changed) = evidence::changed_paths(self.verifier.root(), base, tree) else {
            return Vec::new();
        };
        let folded: BTreeSet<&String> =
            t.iterations.iter().flat_map(|i| &i.frozen_folded).collect();
        set.matching(&changed)
            .into_iter()
            .filter(|p| !folded.contains(p))
            .collect()
    }

    /// Writes the criteria themselves made into frozen files are not charged
    /// to the next attempt, but they are not silent either.
    fn fold_verification_writes(
        &mut self,
        task: &Task,
        set: &frozen::Frozen,
        before: Option<&frozen::Snapshot>,
    ) -> Vec<String> {
        let (Some(before), Some(after)) = (before, self.frozen_snapshot(set)) else {
            return Vec::new();
        };
        let folded = frozen::changes(before, &after);
        if folded.is_empty() {
            return folded;
        }
        eprintln!("warning: the criteria of {} wrote into frozen paths: {} (not charged to the next attempt)", task.id, folded.join(", "));
        self.progress
            .emit("frozen_folded", json!({"task": task.id, "paths": folded}));
        if let Some(base) = self
            .state
            .task_mut(&task.id)
            .and_then(|t| t.frozen_baseline.as_mut())
        {
            for path in &folded {
                match after.get(path) {
                    Some(hash) => base.insert(path.clone(), hash.clone()),
                    None => base.remove(path),
                };
            }
        }
        folded
    }

    fn resolve_toolchain(&self) -> Vec<toolchain::Tool> {
        toolchain::resolve(
            &self.tool_words,
            self.verifier.env_var("PATH").unwrap_or(""),
            self.verifier.root(),
        )
    }

    /// At run start: the toolchain the verdicts will rest on (kept from the
    /// first start on resume), and a `verifier_context` event.
    fn record_toolchain(&mut self) {
        if self.state.toolchain.is_empty() {
            self.state.toolchain = self.resolve_toolchain();
        }
        self.progress.emit(
            "verifier_context",
            json!({"toolchain": self.state.toolchain, "policy": self.state.policy, "shell": self.verifier.shell_path()}),
        );
    }

    /// Before a verification pass: true (after a warning) when a tool moved
    /// or changed since run start.
    fn toolchain_changed(&self) -> bool {
        let changes = toolchain::changed(&self.state.toolchain, &self.resolve_toolchain());
        for change in &changes {
            eprintln!("warning: toolchain changed: {change}");
        }
        !changes.is_empty()
    }

    fn save(&mut self) {
        if let Err(e) = self.state.save(&self.dir.prd_json()) {
            eprintln!(
                "warning: cannot write {}: {e}",
                self.dir.prd_json().display()
            );
        }
    }

    /// Probes each distinct model the pending tasks need, once.
    fn probe_models(&mut self) -> Result<(), Error> {
        let models: BTreeSet<String> = self
            .prd
            .tasks
            .iter()
            .filter(|t| self.state.task(&t.id).is_some_and(|s| !s.status.settled()))
            .filter_map(|t| {
                self.config
                    .model_for(&t.metadata.effort)
                    .ok()
                    .map(str::to_string)
            })
            .collect();
        for model in models {
            let provider = self.config.executor;
            let outcome = probe::probe(
                provider,
                self.config.command(provider),
                &model,
                self.verifier.root(),
            );
            self.progress.emit(
                "model_probe",
                json!({"model": model, "ok": outcome.is_ok()}),
            );
            match outcome {
                Ok(warnings) => warnings.iter().for_each(|w| eprintln!("warning: {w}")),
                Err(message) => {
                    return Err(Error::new(
                        ErrorKind::Probe,
                        format!(
                            "model probe failed for `{model}` ({}): {message}",
                            provider.name()
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    fn execute(&mut self) -> Outcome {
        let count = self.prd.tasks.len();
        eprintln!(
            "zurdo: running {} ({count} task{}, executor {}); state in {}",
            self.display,
            if count == 1 { "" } else { "s" },
            self.config.executor.name(),
            self.dir.dir.display()
        );
        self.progress.emit(
            "run_started",
            json!({"prd": self.state.prd, "executor": self.state.executor}),
        );
        self.check_skills();
        let order = self.prd.run_order.clone();
        for (position, index) in order.into_iter().enumerate() {
            if self.interrupt.requested() || self.refused.is_some() {
                break;
            }
            let task = self.prd.tasks[index].clone();
            let Some(status) = self.state.task(&task.id).map(|t| t.status) else {
                continue;
            };
            if status.settled() {
                eprintln!(
                    "[{}/{count}] {} — {}: {} (from the saved state)",
                    position + 1,
                    task.id,
                    task.title,
                    status.name()
                );
                continue;
            }
            eprintln!("[{}/{count}] {} — {}", position + 1, task.id, task.title);
            self.task(&task);
        }
        let finished = self.state.tasks.iter().all(|t| t.status.settled());
        self.progress
            .emit("run_finished", json!({"complete": finished}));
        self.save();
        self.write_run_diff();
        let table = summary::table(&self.state);
        self.write_report();
        println!("\n{table}");
        let unproven: Vec<&str> = self
            .state
            .tasks
            .iter()
            .filter(|t| t.passed_at_preflight && t.status == Status::Passed)
            .map(|t| t.id.as_str())
            .collect();
        if !unproven.is_empty() {
            eprintln!(
                "warning: {} passed with zero attempts (green before the run, so this run proves nothing about them)",
                unproven.join(", ")
            );
        }
        if !finished {
            eprintln!(
                "zurdo: stopped before the end; `zurdo run {}` resumes",
                self.display
            );
        }
        if let Some(message) = &self.refused {
            return Err(Error::new(ErrorKind::Standing, message.clone()));
        }
        let bad = self.state.tasks.iter().any(|t| {
            matches!(
                t.status,
                Status::Failed | Status::BlockedByDependency | Status::Pending
            )
        });
        Ok(Exit::ok_if(!bad))
    }

    /// One task: blocked, pre-flight, then attempts until it passes or the
    /// budget runs out.
    fn task(&mut self, task: &Task) {
        if let Some(blocker) = task.metadata.depends_on.iter().find(|d| {
            self.state
                .task(d)
                .is_some_and(|s| matches!(s.status, Status::Failed | Status::BlockedByDependency))
        }) {
            eprintln!("  blocked: `{blocker}` did not pass");
            self.settle(task, Status::BlockedByDependency, Some(blocker.clone()));
            return;
        }
        // A stop between a halt_task verdict and settling the task.
        if self
            .state
            .task(&task.id)
            .is_some_and(|t| t.halted.is_some())
        {
            eprintln!("  failed: halted by a diagnosis (recorded before the last stop)");
            self.settle(task, Status::Failed, None);
            return;
        }
        // A stop between recording a passing attempt and settling the task:
        // the verdict is in prd.json, so settle it rather than spend another attempt.
        let recorded_pass = self
            .state
            .task(&task.id)
            .and_then(|t| t.iterations.last())
            .filter(|i| i.passed)
            .map(|i| {
                i.criteria
                    .iter()
                    .any(|c| c.verdict == CriterionVerdict::PendingReview)
            });
        if let Some(manual) = recorded_pass {
            eprintln!("  passed (attempt recorded before the last stop)");
            self.settle(
                task,
                if manual {
                    Status::PassedPendingReview
                } else {
                    Status::Passed
                },
                None,
            );
            return;
        }
        let names = naming::criterion_fns(task);
        let module = naming::task_module(task);
        if self
            .state
            .task(&task.id)
            .is_some_and(|s| s.preflight_results.is_none())
        {
            let results: Vec<CriterionResult> = task
                .criteria
                .iter()
                .map(|c| self.verifier.criterion(c))
                .collect();
            let records = records(&module, &names, task, &results);
            let passing = results
                .iter()
                .filter(|r| r.verdict != CriterionVerdict::Failed)
                .count();
            eprintln!(
                "  pre-flight: {passing}/{} criteria already hold",
                results.len()
            );
            self.progress.emit(
                "preflight",
                json!({"task": task.id, "passing": passing, "total": results.len()}),
            );
            if let Some(t) = self.state.task_mut(&task.id) {
                t.preflight_results = Some(records);
            }
            if passing == results.len() {
                let manual = results
                    .iter()
                    .any(|r| r.verdict == CriterionVerdict::PendingReview);
                if let Some(t) = self.state.task_mut(&task.id) {
                    t.passed_at_preflight = true;
                }
                if task.criteria.iter().all(zurdo::Criterion::is_manual_only) {
                    eprintln!(
                        "  every criterion is [manual]: awaits a human review; no agent runs"
                    );
                } else {
                    eprintln!("  passed at pre-flight: no agent needed (so this run proved nothing about it)");
                }
                self.settle(
                    task,
                    if manual {
                        Status::PassedPendingReview
                    } else {
                        Status::Passed
                    },
                    None,
                );
                return;
            }
            self.save();
        }
        let model = match self.config.model_for(&task.metadata.effort) {
            Ok(m) => m.to_string(),
            Err(_) => return,
        };
        self.take_frozen_baseline(task);
        self.take_task_baseline(task);
        let max = self.state.task(&task.id).map_or(1, |t| t.max_attempts);
        let timeout = task
            .metadata
            .agent_timeout
            .map_or(self.config.agent_timeout, |t| t.duration());
        loop {
            let attempt = self.state.task(&task.id).map_or(0, |t| t.attempts) + 1;
            if attempt > max {
                eprintln!(
                    "  failed: {max} attempt{} spent",
                    if max == 1 { "" } else { "s" }
                );
                self.settle(task, Status::Failed, None);
                return;
            }
            if self.interrupt.requested() || self.refused.is_some() {
                return;
            }
            match self.attempt(task, attempt, max, &model, timeout, &module, &names) {
                Some(status) => {
                    self.settle(task, status, None);
                    return;
                }
                None => continue,
            }
        }
    }

    /// One agent attempt and its verification; `Some(status)` when the task
    /// settles.
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        task: &Task,
        attempt: u32,
        max: u32,
        model: &str,
        timeout: Duration,
        module: &str,
        names: &[String],
    ) -> Option<Status> {
        let provider = self.config.executor;
        let retry = self
            .state
            .task(&task.id)
            .and_then(|t| t.retry_context.clone());
        let mut prompt = prompt::render(task, provider, retry.as_deref());
        prompt.push_str(&self.lessons_section(task, attempt));
        let started_at = zurdo_base::time::now();
        write_file(
            &self.dir.iteration_file(&task.id, attempt, "prompt"),
            prompt.as_bytes(),
        );
        self.progress.emit(
            "attempt_started",
            json!({"task": task.id, "attempt": attempt, "model": model}),
        );
        let label = format!("  attempt {attempt}/{max} ({model})");
        eprintln!("{label} …");

        let invocation = invoke::command_line(
            provider,
            self.config.command(provider),
            model,
            &prompt,
            self.verifier.root(),
        );
        let interrupt = self.interrupt.clone();
        let progress = &self.progress;
        let spinner = live::Spinner::start(label);
        let agent = invoke::run_observed(provider, &invocation, timeout, |pid| {
            interrupt.set_agent_group(pid);
            // Recorded so a resume after a hard stop can kill an agent that outlived zurdo.
            let mut fields = json!({"task": task.id, "attempt": attempt, "process_group": pid});
            if let (Some(mark), Some(map)) = (orphans::Mark::of(pid), fields.as_object_mut()) {
                if let serde_json::Value::Object(extra) = mark.to_json() {
                    map.extend(extra);
                }
            }
            progress.emit("agent_started", fields);
        });
        drop(spinner);
        self.interrupt.set_agent_group(0);
        let record = match &agent {
            Ok(outcome) => {
                write_file(
                    &self.dir.iteration_file(&task.id, attempt, "out"),
                    &outcome.stdout,
                );
                write_file(
                    &self.dir.iteration_file(&task.id, attempt, "err"),
                    &outcome.stderr,
                );
                let r = &outcome.report;
                eprintln!(
                    "    agent: {} in {:.1}s, {} tool call{}{}",
                    if outcome.timed_out {
                        "timed out".to_string()
                    } else {
                        format!(
                            "exit {}",
                            outcome.exit_code.map_or("-".into(), |c| c.to_string())
                        )
                    },
                    outcome.duration.as_secs_f64(),
                    r.tool_calls.len(),
                    if r.tool_calls.len() == 1 { "" } else { "s" },
                    r.error.as_ref().map_or(String::new(), |e| format!(
                        "; it reported: {}",
                        zurdo_base::text::first_line(e)
                    )),
                );
                AgentRecord {
                    exit_code: outcome.exit_code,
                    timed_out: outcome.timed_out,
                    duration_ms: outcome.duration.as_millis() as u64,
                    final_text_tail: r
                        .final_text
                        .as_ref()
                        .map(|t| zurdo_base::text::last_chars(t, 2000)),
                    tool_calls: r.tool_calls.len(),
                    error: r.error.clone(),
                    usage: r.usage,
                    cost_usd: r.cost_usd,
                }
            }
            Err(e) => {
                eprintln!("    agent: could not start `{}`: {e}", invocation.program);
                AgentRecord {
                    error: Some(format!("could not start `{}`: {e}", invocation.program)),
                    ..Default::default()
                }
            }
        };

        let verified_tree = self.capture_tree();
        let frozen = self.frozen_set(task);
        let before_verify = self.frozen_snapshot(&frozen);
        let mut violations = match (
            self.state
                .task(&task.id)
                .and_then(|t| t.frozen_baseline.as_ref()),
            &before_verify,
        ) {
            (Some(base), Some(now)) => frozen::changes(base, now),
            _ => Vec::new(),
        };
        for path in self.frozen_in_tree_diff(task, &frozen, verified_tree.as_deref()) {
            if !violations.contains(&path) {
                violations.push(path);
            }
        }
        violations.sort();
        for path in &violations {
            eprintln!("      FROZEN {path} was modified");
        }
        let toolchain_changed = self.toolchain_changed();
        let mut results: Vec<CriterionResult> = task
            .criteria
            .iter()
            .map(|c| self.verifier.criterion(c))
            .collect();
        let broken = match self.check_standing() {
            Ok(b) => b,
            Err(e) => {
                self.refused = Some(e);
                Vec::new()
            }
        };
        // The verification window: evidence read by a passing hint must still
        // be what it was once the last check has run.
        let evidence_changed = zurdo::verify::window::close(self.verifier.root(), &mut results);
        if !evidence_changed.is_empty() {
            eprintln!(
                "warning: evidence changed during verification: {} (is a process the agent started still running?)",
                evidence_changed.join(", ")
            );
            self.progress.emit(
                "evidence_changed",
                json!({"task": task.id, "attempt": attempt, "paths": evidence_changed}),
            );
        }
        self.provenance(task, &results);
        let passed = results
            .iter()
            .all(|r| r.verdict != CriterionVerdict::Failed);
        let passing = results
            .iter()
            .filter(|r| r.verdict != CriterionVerdict::Failed)
            .count();
        eprintln!("    verify: {passing}/{} criteria hold", results.len());
        for (c, r) in task
            .criteria
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.verdict == CriterionVerdict::Failed)
        {
            for h in r.failures() {
                if let zurdo::verify::Verdict::Fail(reason) = &h.verdict {
                    eprintln!("      FAIL {}: {} {reason}", c.title, h.hint);
                }
            }
        }
        for (rule, _) in &broken {
            eprintln!(
                "      standing rule broken: {} — {}",
                rule.hint.source, rule.why
            );
        }
        let standing_failures: Vec<String> = broken
            .iter()
            .map(|(r, _)| format!("standing rule broken: {} — {}", r.hint.source, r.why))
            .collect();
        let criteria_passed = passed;
        let folded = self.fold_verification_writes(task, &frozen, before_verify.as_ref());
        let passed =
            criteria_passed && broken.is_empty() && violations.is_empty() && self.refused.is_none();
        let mismatches = if passed {
            self.clean_room(task, verified_tree.as_deref())
        } else {
            Vec::new()
        };
        let passed = passed && mismatches.is_empty();
        let failures: Vec<(&zurdo::Criterion, &CriterionResult)> =
            task.criteria.iter().zip(&results).collect();
        let narrative = agent
            .as_ref()
            .ok()
            .and_then(|o| o.report.final_text.clone());
        let retry_context = (!passed).then(|| {
            let mut context = prompt::frozen_section(&violations);
            context.push_str(&prompt::clean_room_section(&mismatches));
            context.push_str(&prompt::standing_section(&broken));
            if !criteria_passed {
                context.push_str(&prompt::what_failed(
                    &self.state.prd,
                    attempt,
                    &failures,
                    narrative.as_deref(),
                ));
            }
            context
        });
        let failure = (!passed).then(|| {
            crate::reason::fingerprint::Failure::of(
                task,
                &results,
                crate::reason::fingerprint::Extra {
                    standing: &standing_failures,
                    frozen: &violations,
                    clean_room: &mismatches,
                },
            )
        });
        let iteration = Iteration {
            fingerprint: failure.as_ref().map(|f| f.fingerprint()),
            failure: failure
                .as_ref()
                .map(|f| f.lines.clone())
                .unwrap_or_default(),
            failure_surface: failure.map(|f| f.surface),
            attempt,
            started_at,
            ended_at: zurdo_base::time::now(),
            model: model.to_string(),
            agent: record,
            criteria: records(module, names, task, &results),
            standing_failures,
            frozen_violations: violations.clone(),
            frozen_folded: folded,
            clean_room_mismatch: mismatches.clone(),
            toolchain_changed,
            verified_tree: verified_tree.clone(),
            passed,
        };
        if let Some(t) = self.state.task_mut(&task.id) {
            t.attempts = attempt;
            t.iterations.push(iteration);
            t.retry_context = retry_context;
        }
        self.flaky(task);
        if passed {
            self.witness(task, verified_tree.as_deref(), &results);
        }
        self.save();
        self.progress.emit(
            "attempt_finished",
            json!({"task": task.id, "attempt": attempt, "passed": passed}),
        );
        if passed {
            let manual = results
                .iter()
                .any(|r| r.verdict == CriterionVerdict::PendingReview);
            eprintln!("  passed on attempt {attempt}");
            self.after_pass(task);
            Some(if manual {
                Status::PassedPendingReview
            } else {
                Status::Passed
            })
        } else {
            self.after_failure(task, attempt, max)
        }
    }

    /// `reports/<time>.json` (the state) and `.md` (the run report).
    fn write_report(&self) {
        crate::report::write(&self.dir, &self.state);
    }

    /// Skills are user-managed: warn (never fail) when one a task names is
    /// not where the executor's CLI discovers skills.
    fn check_skills(&self) {
        let dirs: &[&str] = match self.config.executor {
            crate::agent::Provider::Anthropic => &[".claude/skills"],
            crate::agent::Provider::OpenAi | crate::agent::Provider::Copilot => &[".agents/skills"],
            crate::agent::Provider::Google => &[".gemini/skills", ".agents/skills"],
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut seen = BTreeSet::new();
        for task in &self.prd.tasks {
            for skill in &task.metadata.skills {
                if !seen.insert(skill.clone()) {
                    continue;
                }
                let found = dirs.iter().any(|d| {
                    self.verifier.root().join(d).join(skill).is_dir()
                        || home
                            .as_ref()
                            .is_some_and(|h| h.join(d).join(skill).is_dir())
                });
                if !found {
                    eprintln!(
                        "warning: skill `{skill}` ({}) is not in {} under the repository or your home; zurdo does not install PRD skills",
                        task.id,
                        dirs.join(" or ")
                    );
                }
            }
        }
    }

    fn settle(&mut self, task: &Task, status: Status, blocker: Option<String>) {
        if let Some(t) = self.state.task_mut(&task.id) {
            t.status = status;
            t.blocked_by = blocker;
        }
        self.save();
        self.progress.emit(
            "task_settled",
            json!({"task": task.id, "status": status.name()}),
        );
    }
}

fn check_efforts(prd: &Prd, config: &Config) -> Result<(), String> {
    let mut problems = Vec::new();
    for task in &prd.tasks {
        if let Err(keys) = config.model_for(&task.metadata.effort) {
            problems.push(format!(
                "{} (line {}): **Effort** `{}` is not in [effort_map.{}]; it has: {}",
                task.id,
                task.metadata.lines.effort,
                task.metadata.effort,
                config.executor.name(),
                if keys.is_empty() {
                    "nothing".to_string()
                } else {
                    keys.join(", ")
                }
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("pre-flight: {}", problems.join("\n  ")))
    }
}

/// Records the policy of a fresh run (`policy` in prd.json, `policy.json`,
/// `config-at-run-start.toml`), or, on resume, puts the run-start
/// `[verification]` back in force and warns when today's config would hash
/// differently.
fn fix_policy(mut state: RunState, dir: &StateDir, config: &mut Config) -> RunState {
    let today = crate::policy::id(&config.verification);
    if state.policy.is_empty() {
        state.policy = today;
        write_file(
            &dir.policy_json(),
            crate::policy::canonical(&config.verification).as_bytes(),
        );
        let text = match &config.source {
            Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
            None => crate::config::TEMPLATE.to_string(),
        };
        write_file(&dir.config_at_run_start(), text.as_bytes());
        return state;
    }
    if state.policy == today {
        return state;
    }
    eprintln!(
        "warning: policy changed since run start; this run keeps the run-start policy ({})",
        &state.policy[..12.min(state.policy.len())]
    );
    let start = std::fs::read_to_string(dir.config_at_run_start())
        .ok()
        .and_then(|text| zurdo::verify::VerificationConfig::parse(&text).ok());
    match start {
        Some(v) if crate::policy::id(&v) == state.policy => config.verification = v,
        _ => eprintln!(
            "warning: {} no longer matches the recorded policy; today's [verification] applies (the run-start record was altered)",
            dir.config_at_run_start().display()
        ),
    }
    state
}

/// Deletes the slug's `refs/zurdo/<slug>/*` (a reset starts over); failures
/// only warn.
fn delete_refs(root: &Path, slug: &str) {
    match evidence::delete_refs(root, slug) {
        Ok(_) | Err(evidence::BaselineError::NotARepo(_)) => {}
        Err(e) => eprintln!("warning: cannot delete refs/zurdo/{slug}/*: {e}"),
    }
}

fn fresh_state(prd: &Prd, config: &Config, relative: &str, dir: &StateDir, sha1: &str) -> RunState {
    let now = zurdo_base::time::now();
    RunState {
        version: VERSION,
        prd: relative.to_string(),
        prd_sha1: sha1.to_string(),
        slug: dir.slug.clone(),
        executor: config.executor.name().to_string(),
        policy: String::new(),
        toolchain: Vec::new(),
        started_at: now.clone(),
        updated_at: now,
        tasks: prd
            .tasks_in_run_order()
            .map(|t| TaskState {
                id: t.id.clone(),
                status: Status::Pending,
                attempts: 0,
                max_attempts: t.metadata.max_attempts.unwrap_or(config.max_attempts),
                ..TaskState::default()
            })
            .collect(),
        reasoner_calls: 0,
    }
}

fn records(
    module: &str,
    names: &[String],
    task: &Task,
    results: &[CriterionResult],
) -> Vec<CriterionRecord> {
    task.criteria
        .iter()
        .zip(results)
        .zip(names)
        .map(|((c, r), name)| CriterionRecord {
            name: format!("{module}::{name}"),
            line: c.line,
            verdict: r.verdict,
            hints: serde_json::to_value(&r.hints).unwrap_or(serde_json::Value::Null),
        })
        .collect()
}

/// Moves everything in the state directory except the lock and the archive
/// into `.archive/<timestamp>/`.
fn archive(dir: &StateDir) -> Result<(), String> {
    let target = unique(&dir.archive(), &zurdo_base::time::now_for_file_name(), "");
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    let entries = std::fs::read_dir(&dir.dir).map_err(|e| format!("{}: {e}", dir.dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == "lock" || name == ".archive" {
            continue;
        }
        let to: PathBuf = target.join(&name);
        std::fs::rename(entry.path(), &to)
            .map_err(|e| format!("cannot archive {}: {e}", entry.path().display()))?;
    }
    Ok(())
}

enum Choice {
    Resume,
    Reset,
    Abort,
}

/// The `[R]esume / [X] reset / [A]bort` question, asked only on a TTY and
/// only without `--resume`/`--no-prompt`.
fn ask_resume(options: &Options, display: &str) -> Choice {
    if options.resume || options.no_prompt || !std::io::stdin().is_terminal() {
        return Choice::Resume;
    }
    eprintln!("{display} has run state. What would you like to do?\n  [R] Resume from current state (default)\n  [X] Reset — archive state and start over\n  [A] Abort");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return Choice::Resume;
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "x" => Choice::Reset,
        "a" => Choice::Abort,
        _ => Choice::Resume,
    }
}

/// On resume, an attempt that started but never finished (a hard stop or a
/// crash) is dropped: it was never counted, and progress.log says so.
fn reconcile(progress: &Progress, state: &RunState) {
    let events = Progress::read(progress.path());
    let mut open: Option<(String, u64)> = None;
    let mut agent: Option<orphans::Mark> = None;
    for e in &events {
        match e["event"].as_str() {
            Some("attempt_started") => {
                open = Some((
                    e["task"].as_str().unwrap_or("").to_string(),
                    e["attempt"].as_u64().unwrap_or(0),
                ));
                agent = None;
            }
            Some("agent_started") => agent = orphans::Mark::from_json(e),
            Some("attempt_finished") | Some("attempt_dropped") => {
                open = None;
                agent = None;
            }
            _ => {}
        }
    }
    // A crash between saving prd.json and logging attempt_finished leaves the
    // attempt recorded: it counted, and nothing is dropped.
    let recorded = |task: &str, attempt: u64| {
        state
            .task(task)
            .is_some_and(|t| t.iterations.iter().any(|i| u64::from(i.attempt) == attempt))
    };
    if let Some((task, attempt)) = open.filter(|(t, a)| !recorded(t, *a)) {
        // What is left of the interrupted agent must not keep editing the tree.
        if let Some(mark) = &agent {
            let killed = mark.kill_survivors();
            if killed > 0 {
                eprintln!(
                    "zurdo: stopped {killed} process(es) left over from the interrupted agent"
                );
            }
        }
        eprintln!(
            "zurdo: attempt {attempt} of {task} was interrupted; it is dropped and not counted"
        );
        progress.emit("attempt_dropped", json!({"task": task, "attempt": attempt}));
    }
}

/// `dir/<stem><ext>`, or `dir/<stem>-2<ext>`, `-3`… when that exists (two
/// resets or reports in the same second must not overwrite each other).
fn unique(dir: &Path, stem: &str, ext: &str) -> PathBuf {
    let mut candidate = dir.join(format!("{stem}{ext}"));
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = dir.join(format!("{stem}-{n}{ext}"));
    }
    candidate
}

fn write_file(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("warning: cannot write {}: {e}", path.display());
    }
}
