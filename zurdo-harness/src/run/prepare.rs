//! Everything before the first task: the config (checked before any PRD is
//! read), the PRD, the lock, the state (fresh, resumed or reset), the
//! policy, the verifier, the lessons, the toolchain and run-start
//! baseline, the standing rules' pre-flight and the model probe. A refusal
//! here is an [`Error`]; nothing was spent.

use std::collections::BTreeSet;
use std::path::Path;

use zurdo::hint::Check;
use zurdo::verify::{render, Verifier};
use zurdo::{source, Prd};

use super::interrupt::Interrupt;
use super::reasoning::Lessons;
use super::resume::{self, Choice};
use super::{probe, Context, Options, Record, Run};
use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::event::{Event, Events, Log};
use crate::evidence::commands::Commands;
use crate::evidence::{self, Guards};
use crate::state::lock::LockError;
use crate::state::run_state::RunState;
use crate::state::{self, StateDir};

/// Prepares a run of the PRD at `prd_path`: `Ok(None)` when the user
/// aborted at the resume question.
pub(super) fn prepare(
    prd_path: &Path,
    options: Options,
    events: Events,
) -> Result<Option<Run>, Error> {
    let display = prd_path.display().to_string();
    let root = source::repo_root(prd_path);
    // The config is checked before any PRD is read.
    let mut config = Config::load(&root)?;
    let (bytes, prd) = Error::read_prd(prd_path, &display)?;
    let relative = source::relative_to(&root, prd_path).unwrap_or_else(|| display.clone());
    check_efforts(&prd, &config)?;
    if config.verification.clean_room == "bubblewrap" && !evidence::room::bubblewrap_installed() {
        return Err(Error::invalid(
            "[verification] clean_room = \"bubblewrap\" but `bwrap` is not on PATH; install it (Debian: apt-get install bubblewrap) or use clean_room = \"checkout\"",
        ));
    }
    if let Some(path) = &options.sealed {
        // The command line's file (relative to where zurdo was started)
        // takes the config's place.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.clone());
        config.verification.sealed = Some(absolute.display().to_string());
    }
    let dir = StateDir::new(&root, &relative);
    dir.check()?;
    let mut stale = None;
    let lock = dir.lock(|s| stale = Some(s.holder)).map_err(|e| match e {
        LockError::Held { .. } => Error::new(ErrorKind::LockHeld, format!("{display}: {e}")),
        LockError::Io(_) => Error::new(
            ErrorKind::Io,
            format!("{}: {e}", dir.dir.join("lock").display()),
        ),
    })?;
    // Only the lock holder writes the log.
    events.log_to(Log::new(&dir));
    if let Some(holder) = stale {
        events.emit(Event::LockTakenOver { holder });
    }
    let sha1 = state::sha1_hex(&bytes);
    let fresh = || resume::fresh_state(&prd, &config, &relative, &dir, &sha1);
    let mut resumed = false;
    let state = match dir.load()? {
        Some(_) if options.reset => {
            resume::start_over(&dir, &root, &events)?;
            events.emit(Event::StateArchived {
                prd: display.clone(),
            });
            fresh()
        }
        Some(loaded) => {
            let mut old = loaded.state;
            if old.prd_sha1 != sha1 {
                return Err(Error::new(
                    ErrorKind::Drift,
                    format!("{display} changed since its run state was written (.zurdo/{}/prd.json); `zurdo run --reset {display}` archives that state and starts over", dir.slug),
                ));
            }
            if let Err(why) = old.check(&prd) {
                return Err(Error::invalid(format!(
                    "{}: the run state does not add up ({why}): it was edited or damaged; `zurdo run --reset {display}` archives it and starts over",
                    dir.prd_json().display()
                )));
            }
            match resume::ask(&options, &display) {
                Choice::Resume => {
                    resume::reconcile(&dir, &old, &events);
                    resumed = true;
                    if let Some(why) = loaded.distrusted {
                        // Nothing recorded decides a verdict any more: the
                        // run re-verifies everything from the tree as it is.
                        events.emit(Event::StateDistrusted {
                            path: dir.prd_json().display().to_string(),
                            why,
                        });
                        old.distrust();
                    }
                    old
                }
                Choice::Reset => {
                    resume::start_over(&dir, &root, &events)?;
                    fresh()
                }
                Choice::Abort => return Ok(None),
            }
        }
        None => {
            // Once, when a PRD first gets state.
            if let Some(text) = crate::config::gitignore_hint(&root) {
                events.emit(Event::Hint { text });
            }
            fresh()
        }
    };
    let mut state = fix_policy(state, &dir, &mut config, &events)?;
    // The run-start policy decides: an agent that turned the sandbox off in
    // the live config between runs does not get out of it.
    if config.verification.agent_sandbox == "bubblewrap" {
        crate::agent::sandbox::usable().map_err(Error::invalid)?;
    }
    let sealed = match &config.verification.sealed {
        Some(written) => Some(
            zurdo::sealed::load(&zurdo::sealed::resolve(written), &prd, &root)
                .map_err(Error::invalid)?,
        ),
        None => None,
    };
    if options.retry_failed {
        resume::retry_failed(&mut state, &prd, &config, &events);
    }
    let mut verifier = Verifier::new(&root, config.verification.clone())
        .map_err(|e| Error::invalid(format!("{}: {e}", root.display())))?
        .in_passes();
    // The ignore rules of the run's start: an ignore entry the agent writes
    // later hides nothing from a search (taken when some search could walk).
    if state.ignore_rules.is_none() && searches_walk(&prd, &config, verifier.root()) {
        state.ignore_rules = zurdo::verify::IgnoreRules::capture(verifier.root());
    }
    if let Some(rules) = &state.ignore_rules {
        verifier = verifier.with_ignore_rules(rules.clone());
    }
    let standing = config
        .verification
        .standing_rules()
        .map_err(Error::invalid)?;
    let standing_commands = standing.iter().filter_map(|r| match &r.hint.check {
        Check::Shell { command } => Some(command.clone()),
        _ => None,
    });
    let guards = Guards::new(&verifier, &Commands::of_prd(&prd, standing_commands));
    let lessons = Lessons::load(&config, verifier.root(), &events);
    let pyxis = config.pyxis.then(zurdo_pyxis::Retriever::new);
    let mut run = Run {
        ctx: Context {
            prd,
            display,
            config,
            verifier,
            standing,
            sealed,
        },
        record: Record { dir, state },
        interrupt: Interrupt::install(events.clone(), lock.releaser()),
        events,
        guards,
        lessons,
        held: Default::default(),
        providers: Default::default(),
        stop: None,
        pyxis,
        said_counts_tokens: BTreeSet::new(),
        sandbox_usable: std::cell::OnceCell::new(),
        _lock: lock,
    };
    run.reconcile_reviews(&crate::state::review_log::sha256_hex(&bytes));
    run.record_toolchain();
    run.capture_run_baseline();
    run.save();
    run.preflight_standing()?;
    if !options.skip_model_check {
        run.probe_models()?;
    }
    if resumed {
        // What a stop left recorded as passed must still hold: the tree may
        // have changed while zurdo was not watching.
        run.reverify_on_resume();
    }
    Ok(Some(run))
}

impl Run {
    /// `review-log.jsonl` held to the PRD and prd.json before anything
    /// runs: a chain that does not check is said loudly, and approvals that
    /// do not count (their entries do not check, or are gone) are dropped,
    /// so a task that had passed on them awaits review again
    /// (`passed-pending-review`). A run never makes a task `passed` on a
    /// review entry.
    fn reconcile_reviews(&mut self, prd_sha256: &str) {
        use crate::state::review::{self, Anchor, Manual};
        let manual = Manual::of_prd(&self.ctx.prd);
        let anchor = Anchor::of(Some(&self.record.state), None);
        let chain = review::read_chain(&self.record.dir, &manual, Some(prd_sha256), &anchor);
        if let Some((line, what)) = chain.first_break() {
            self.events.emit(Event::ReviewChainBroken {
                path: format!(
                    ".zurdo/{}/{}",
                    self.record.dir.slug,
                    crate::state::review_log::FILE
                ),
                line,
                what: what.to_string(),
                broken: chain.broken().max(1),
            });
        }
        let changed = review::reconcile(&mut self.record.state, &manual, &chain);
        if changed.is_empty() {
            return;
        }
        self.save();
        for u in changed {
            self.events.emit(Event::ReviewUnvouched {
                task: u.task,
                dropped: u
                    .dropped
                    .into_iter()
                    .map(|(criterion, why)| crate::event::DroppedApproval { criterion, why })
                    .collect(),
                status: u.status,
            });
        }
    }

    /// At run start: the toolchain and the environment surface the
    /// verdicts will rest on (both kept from the first start on resume),
    /// and a `verifier_context` event.
    fn record_toolchain(&mut self) {
        if self.record.state.toolchain.is_empty() {
            self.record.state.toolchain = self.guards.toolchain();
        }
        if self.record.state.environment.is_none() {
            self.record.state.environment = self.guards.environment();
        }
        self.events.emit(Event::VerifierContext {
            toolchain: self.record.state.toolchain.clone(),
            policy: self.record.state.policy.clone(),
            shell: self.ctx.verifier.shell_path().display().to_string(),
        });
    }

    /// The run-start baseline, written to `.zurdo/<slug>/baseline`.
    fn capture_run_baseline(&mut self) {
        match self.guards.capture_run_baseline() {
            Ok(b) => {
                self.events.on_write(self.record.dir.write_baseline(b));
                self.events.emit(Event::Baseline {
                    tree: b.tree.clone(),
                    dirty: b.dirty,
                    files: b.files,
                });
            }
            Err(evidence::BaselineError::NotARepo(_)) => {
                self.events.emit(Event::BaselineUnavailable {
                    not_a_repo: true,
                    error: None,
                })
            }
            Err(e) => self.events.emit(Event::BaselineUnavailable {
                not_a_repo: false,
                error: Some(e.to_string()),
            }),
        }
    }

    /// The standing set must hold before any agent runs: a rule already red
    /// is aspirational, and every task would fail on it.
    fn preflight_standing(&mut self) -> Result<(), Error> {
        if self.ctx.standing.is_empty() {
            return Ok(());
        }
        let checked = self.ctx.check_standing();
        self.end_pass("");
        if let Some(code) = self.stopped_now() {
            return Err(self.stopped_error(code));
        }
        let broken = checked.map_err(|e| Error::new(ErrorKind::Standing, e))?;
        self.events.emit(Event::StandingPreflight {
            rules: self.ctx.standing.len(),
            broken: broken.len(),
        });
        if broken.is_empty() {
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

    /// Probes each distinct model the pending tasks need, once, all at
    /// once: every `probe_started` first, then each `model_probe` in model
    /// order. The executor's models come first: a CLI that cannot work
    /// stops the run as an attempt would (exit 5) unless the executor has a
    /// fallback left; any other failure refuses it, naming every model that
    /// failed (exit 4). Then the models the run may fail over or escalate
    /// to (`[roles.executor] fallback`, the ladder's `effort:` and
    /// `provider:` rungs): one that fails keeps its provider (a CLI that
    /// cannot work) or its model out of the run, and the run goes on.
    fn probe_models(&mut self) -> Result<(), Error> {
        let config = &self.ctx.config;
        let provider = config.executor;
        let efforts: BTreeSet<String> = self
            .ctx
            .prd
            .tasks
            .iter()
            .filter(|t| self.record.task(&t.id).is_some_and(|s| !s.status.settled()))
            .map(|t| t.metadata.effort.clone())
            .collect();
        let models: BTreeSet<String> = efforts
            .iter()
            .filter_map(|e| config.model_for(e).ok().map(str::to_string))
            .collect();
        let primary = models.len();
        let mut targets: Vec<probe::Target> = models
            .into_iter()
            .map(|model| probe::Target {
                provider,
                command: config.command(provider).to_string(),
                model,
            })
            .collect();
        if !efforts.is_empty() {
            for (p, model) in super::failover::reachable(config, &efforts) {
                let target = probe::Target {
                    command: config.command(p).to_string(),
                    provider: p,
                    model,
                };
                if !targets.contains(&target) {
                    targets.push(target);
                }
            }
        }
        for t in &targets {
            self.events.emit(Event::ProbeStarted {
                model: t.model.clone(),
                provider: t.provider.name().to_string(),
            });
        }
        let events = &self.events;
        let results = probe::probe_all(
            &targets,
            self.ctx.verifier.root(),
            self.interrupt.groups(),
            |i, probed| {
                let optional = i >= primary;
                events.emit(Event::ModelProbe {
                    model: targets[i].model.clone(),
                    ok: probed.ok(),
                    warnings: probed.warnings.clone(),
                    error: probed.error.as_ref().map(ToString::to_string),
                    duration_ms: u64::try_from(probed.elapsed.as_millis()).unwrap_or(u64::MAX),
                    optional,
                    provider: optional.then(|| targets[i].provider.name().to_string()),
                });
            },
        );
        // Nothing a probe started outlives it (only once every probe is
        // done: this kills whatever zurdo's descendants are running).
        super::orphans::kill_leftovers();
        if let Some(code) = self.stopped_now() {
            return Err(self.stopped_error(code));
        }
        // What the run may fail over or escalate to: kept out when it
        // cannot work, never a reason to stop.
        for (t, p) in targets.iter().zip(&results).skip(primary) {
            match &p.error {
                Some(probe::ProbeError::Agent(failure)) => {
                    let stop = failure.stop_message(&self.ctx.display);
                    self.block_provider(failure, stop, "probe");
                }
                Some(probe::ProbeError::Model(why)) => {
                    self.providers.refuse(t.provider, &t.model, why.clone());
                }
                None => {}
            }
        }
        // Not the model: the CLI cannot work at all, as an attempt would
        // find (exit 5), whichever model it was asked about; with a
        // fallback left, the executor is blocked and the run goes on.
        if let Some(failure) = results[..primary].iter().find_map(|p| match &p.error {
            Some(probe::ProbeError::Agent(failure)) => Some(failure),
            _ => None,
        }) {
            let mut stop = failure.stop_message(&self.ctx.display);
            let left = self
                .ctx
                .config
                .executor_fallback
                .iter()
                .any(|p| !self.providers.is_blocked(*p));
            if failure.kind.fails_over() && left {
                self.block_provider(failure, stop, "probe");
                return Ok(());
            }
            if !self.ctx.config.executor_fallback.is_empty() {
                stop.push_str("; no fallback provider is left");
            }
            return Err(Error::new(ErrorKind::Agent, stop));
        }
        let failures: Vec<String> = targets[..primary]
            .iter()
            .zip(&results)
            .filter_map(|(t, p)| {
                p.error.as_ref().map(|e| {
                    format!(
                        "model probe failed for `{}` ({}): {e}",
                        t.model,
                        provider.name()
                    )
                })
            })
            .collect();
        if failures.is_empty() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::Probe, failures.join("\n")))
        }
    }
}

/// True when some `[grep:]`/`[no-grep:]` of the PRD or the standing rules
/// could walk a directory, where ignore rules decide what is searched: a
/// glob, a literal path that is a directory now, or any `[no-grep:]` (its
/// path may become a directory, and hiding a file there could make it
/// pass). A `[grep:]` of a literal file reads that file alone.
fn searches_walk(prd: &Prd, config: &Config, root: &Path) -> bool {
    let standing = config.verification.standing_rules().unwrap_or_default();
    prd.tasks
        .iter()
        .flat_map(|t| &t.criteria)
        .flat_map(|c| c.hints.iter())
        .chain(standing.iter().map(|r| &r.hint))
        .any(|h| match &h.check {
            Check::NoGrep(_) => true,
            Check::Grep(g) => g.target_is_glob || root.join(g.target.as_str()).is_dir(),
            _ => false,
        })
}

/// Every task's **Effort** must be in the executor's effort map.
fn check_efforts(prd: &Prd, config: &Config) -> Result<(), Error> {
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
        Err(Error::invalid(format!(
            "pre-flight: {}",
            problems.join("\n  ")
        )))
    }
}

/// The sealed file policy.json records when its bytes are no longer what
/// it records: (path, the recorded hash, today's hash or `unreadable`).
fn sealed_changed(document: Option<&serde_json::Value>) -> Option<(String, String, String)> {
    let sealed = &document?["sealed"];
    let path = sealed["path"].as_str()?;
    let was = sealed["sha256"].as_str()?;
    let now = zurdo::sealed::sha256_of(path).unwrap_or_else(|| "unreadable".to_string());
    (now != was).then(|| (path.to_string(), was.to_string(), now))
}

/// Records the policy of a fresh run (`policy` in prd.json, `policy.json`,
/// `config-at-run-start.toml`), or, on resume, puts the run-start rules
/// ([`crate::policy::Rules`]: `[verification]`, `[budget]`, `[escalation]`,
/// `[roles.challenger]`) back in force and warns when today's
/// config would hash differently. The run-start policy comes from
/// `config-at-run-start.toml`, else from `policy.json`'s own copy,
/// whichever hashes to the policy id prd.json records (prd.json's MAC
/// vouches for that id); when neither does, both records were altered and
/// the run refuses to go on under rules it cannot restore.
fn fix_policy(
    mut state: RunState,
    dir: &StateDir,
    config: &mut Config,
    events: &Events,
) -> Result<RunState, Error> {
    use crate::policy::Rules;
    use zurdo::verify::VerificationConfig;
    let today = Rules::of(config);
    if state.policy.is_empty() {
        // One document, hashed once (building it hashes the sealed file).
        let canonical = today.canonical();
        state.policy = crate::policy::id_of(&canonical);
        let text = match &config.source {
            Some(path) => std::fs::read_to_string(path).unwrap_or_default(),
            None => crate::config::TEMPLATE.to_string(),
        };
        events.on_write(dir.write_policy(&canonical, &text));
        return Ok(state);
    }
    if state.policy == today.id() {
        return Ok(state);
    }
    let recorded = |rules: &Rules| rules.id() == state.policy;
    let document = dir
        .read_policy()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
    if let Some((path, was, now)) = sealed_changed(document.as_ref()) {
        return Err(Error::invalid(format!(
            "the sealed criteria changed since the run started: {path} was sha256 {was}, is {now}; restore it, or `zurdo run --reset` to start over under the new sealed criteria"
        )));
    }
    events.emit(Event::PolicyKept {
        policy: state.policy.clone(),
    });
    // The sealed file of a fresh run's `--sealed` is not in its config
    // file: it is taken from policy.json (the id vouches for it).
    let recorded_sealed = document
        .as_ref()
        .and_then(|doc| doc["verification"]["sealed"].as_str())
        .map(str::to_string);
    // The run-start budget, ladder and challenger are kept like its
    // [verification].
    let from_config = dir.read_config_at_run_start().and_then(|text| {
        // Config::parse reads [verification] as VerificationConfig::parse
        // does; a file only the latter accepts keeps the other defaults.
        let mut rules = match Config::parse(&text) {
            Ok(parsed) => Rules::of(&parsed),
            Err(_) => Rules {
                verification: VerificationConfig::parse(&text).ok()?,
                budget: Default::default(),
                escalation: None,
                challenger: None,
            },
        };
        if recorded(&rules) {
            return Some(rules);
        }
        rules.verification.sealed = recorded_sealed.clone();
        recorded(&rules).then_some(rules)
    });
    if let Some(rules) = from_config {
        rules.apply(config);
        return Ok(state);
    }
    events.emit(Event::PolicyRecordAltered {
        path: dir.config_at_run_start().display().to_string(),
    });
    let from_document = document
        .as_ref()
        .and_then(Rules::from_document)
        .filter(recorded);
    match from_document {
        Some(rules) => {
            rules.apply(config);
            Ok(state)
        }
        None => Err(Error::invalid(format!(
            "the run-start policy cannot be restored: neither {} nor {} hashes to the policy prd.json records ({}), and today's [verification], [budget], [escalation] or [roles.challenger] differ; restore them, or `zurdo run --reset` to start over under today's config",
            dir.config_at_run_start().display(),
            dir.dir.join("policy.json").display(),
            &state.policy[..12.min(state.policy.len())]
        ))),
    }
}
