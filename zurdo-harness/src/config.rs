//! `.zurdo/config.toml`: providers, the effort map, defaults, roles and the
//! verification settings. Read strictly: an unknown key or a bad value is an
//! error naming the key and its line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use toml::Spanned;
use zurdo::limits::{self, DurationError};
use zurdo::verify::{VerificationConfig, CONFIG_PATH};

use crate::agent::Provider;
use crate::error::{Error, ErrorKind};
use crate::escalation::{Escalation, Rung, Trigger, DEFAULT_LADDER};

/// Most bytes of `.zurdo/config.toml` read (a real config is a few KB).
pub const CONFIG_LIMIT: u64 = 1024 * 1024;

/// The whole config, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The provider whose CLI executes tasks.
    pub executor: Provider,
    /// The command that starts each provider's CLI.
    pub commands: BTreeMap<Provider, String>,
    /// Effort → model, per provider.
    pub effort_map: BTreeMap<Provider, BTreeMap<String, String>>,
    /// Attempts per task when the PRD does not say.
    pub max_attempts: u32,
    /// One agent attempt's limit when the PRD does not say.
    pub agent_timeout: Duration,
    /// The longest zurdo waits for a rate-limited agent CLI before trying
    /// the attempt again; a longer wait stops the run instead.
    pub rate_limit_wait: Duration,
    /// The analyzer role, when configured.
    pub analyzer: Option<Role>,
    /// The reasoner role, when configured.
    pub reasoner: Option<Role>,
    /// `[roles.executor] fallback`: the providers the executor fails over
    /// to, in order, when its CLI cannot work for the rest of the run (out
    /// of quota, not logged in, not installed, rate limited past the
    /// wait). Each has its own effort map.
    pub executor_fallback: Vec<Provider>,
    /// `[escalation]`, when enabled: the ladder a task climbs.
    pub escalation: Option<Escalation>,
    /// `[roles.challenger]`, when configured: the model that tries to
    /// refute a passing attempt.
    pub challenger: Option<ChallengerConfig>,
    /// The reason subsystem: stalls, diagnosis, lessons.
    pub reason: ReasonConfig,
    /// `[vela] idle_minutes`: the watcher exits after this long with no change.
    pub vela_idle: Duration,
    /// `[skills] search_paths`: more directories (relative to the
    /// repository root, or absolute) where the pre-flight looks for the
    /// skills tasks name in **Skills**.
    pub skill_paths: Vec<PathBuf>,
    /// `[pyxis] enabled`: a task's first prompt gains a "# Where to look"
    /// section from Pyxis, the retrieval index (off by default; it never
    /// changes a verdict).
    pub pyxis: bool,
    /// `[budget]`: what the run and each task may spend.
    pub budget: crate::budget::Budget,
    /// What changes verdicts.
    pub verification: VerificationConfig,
    /// Where the file was read from (`None`: the built-in defaults).
    pub source: Option<PathBuf>,
}

/// `[reason]`: stall detection (always on), diagnosis and lessons (opt in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonConfig {
    /// The master switch for diagnosis and lessons (stall detection runs
    /// either way).
    pub enabled: bool,
    /// Equal failure fingerprints in a row that make a stall (at least 2).
    pub stall_attempts: u32,
    /// Diagnoses at most per task.
    pub max_diagnoses_per_task: u32,
    /// Reasoner calls at most per run, diagnoses and extractions together.
    pub max_reasoner_calls_per_run: u32,
    /// Whether a recovery extracts a lesson.
    pub extract_lessons: bool,
    /// Lessons kept at most; above it the least used are evicted.
    pub max_lessons: usize,
    /// One reasoner call's limit.
    pub timeout: Duration,
}

impl Default for ReasonConfig {
    fn default() -> Self {
        ReasonConfig {
            enabled: false,
            stall_attempts: 2,
            max_diagnoses_per_task: 2,
            max_reasoner_calls_per_run: 20,
            extract_lessons: true,
            max_lessons: 200,
            timeout: Duration::from_secs(600),
        }
    }
}

/// `[roles.challenger]`: who challenges a passing attempt, and its budgets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengerConfig {
    /// Whose CLI and which model.
    pub role: Role,
    /// How the provider or model was chosen when the table left them out.
    pub chosen: Option<String>,
    /// Challenger calls at most per run.
    pub max_calls_per_run: u32,
    /// Challenger calls at most per task (one per passing attempt).
    pub max_calls_per_task: u32,
    /// One call's limit.
    pub timeout: Duration,
    /// One probe's limit.
    pub probe_seconds: u64,
    /// Run probes without bubblewrap where it is missing (default false:
    /// a probe is a command a model wrote after reading the agent's diff,
    /// so it runs only sandboxed unless you say otherwise).
    pub unsandboxed_probes: bool,
}

/// A model used for a role other than executing (analysis, diagnosis).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// Whose CLI runs it.
    pub provider: Provider,
    /// The model.
    pub model: String,
    /// `fallback`: where the role's calls go, in order, when its
    /// provider's CLI cannot work.
    pub fallback: Vec<Seat>,
}

/// One provider and model a role can be asked through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Whose CLI.
    pub provider: Provider,
    /// The model.
    pub model: String,
}

impl Role {
    /// The role's own seat, then its fallbacks.
    pub fn chain(&self) -> Vec<Seat> {
        let mut chain = vec![Seat {
            provider: self.provider,
            model: self.model.clone(),
        }];
        chain.extend(self.fallback.iter().cloned());
        chain
    }
}

impl ChallengerConfig {
    /// What the policy document records of the challenger: who it is and
    /// its limits (how it was chosen is advice, not a rule, and is left out).
    pub fn document(&self) -> serde_json::Value {
        serde_json::json!({
            "provider": self.role.provider,
            "model": self.role.model,
            "fallback": self.role.fallback,
            "max_calls_per_run": self.max_calls_per_run,
            "max_calls_per_task": self.max_calls_per_task,
            "timeout_ms": u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX),
            "probe_seconds": self.probe_seconds,
            "unsandboxed_probes": self.unsandboxed_probes,
        })
    }

    /// The challenger a policy document's `challenger` records, when every
    /// field reads back.
    pub fn from_document(doc: &serde_json::Value) -> Option<ChallengerConfig> {
        let provider = |v: &serde_json::Value| serde_json::from_value::<Provider>(v.clone()).ok();
        let seat = |v: &serde_json::Value| serde_json::from_value::<Seat>(v.clone()).ok();
        let count = |key: &str| doc[key].as_u64().and_then(|n| u32::try_from(n).ok());
        Some(ChallengerConfig {
            role: Role {
                provider: provider(&doc["provider"])?,
                model: doc["model"].as_str()?.to_string(),
                fallback: doc["fallback"]
                    .as_array()?
                    .iter()
                    .map(seat)
                    .collect::<Option<Vec<_>>>()?,
            },
            chosen: None,
            max_calls_per_run: count("max_calls_per_run")?,
            max_calls_per_task: count("max_calls_per_task")?,
            timeout: Duration::from_millis(doc["timeout_ms"].as_u64()?),
            probe_seconds: doc["probe_seconds"].as_u64()?,
            unsandboxed_probes: doc["unsandboxed_probes"].as_bool()?,
        })
    }
}

impl Config {
    /// The command for `provider`'s CLI.
    pub fn command(&self, provider: Provider) -> &str {
        self.commands
            .get(&provider)
            .map(String::as_str)
            .unwrap_or(provider.default_command())
    }

    /// The model for `effort` on the executor, or the efforts that exist.
    pub fn model_for(&self, effort: &str) -> Result<&str, Vec<String>> {
        let map = self.effort_map.get(&self.executor);
        match map.and_then(|m| m.get(effort)) {
            Some(model) => Ok(model),
            None => Err(map.map(|m| m.keys().cloned().collect()).unwrap_or_default()),
        }
    }

    /// The model `provider`'s effort map gives `effort`.
    pub fn model_of(&self, provider: Provider, effort: &str) -> Option<&str> {
        self.effort_map
            .get(&provider)
            .and_then(|m| m.get(effort))
            .map(String::as_str)
    }

    /// The executor, then its fallbacks (`[roles.executor] fallback`).
    pub fn executor_chain(&self) -> Vec<Provider> {
        let mut chain = vec![self.executor];
        chain.extend(self.executor_fallback.iter().copied());
        chain
    }

    /// The role that diagnoses stalls and extracts lessons: `[roles.reasoner]`,
    /// else `[roles.analyzer]`.
    pub fn reasoner_role(&self) -> Option<&Role> {
        self.reasoner.as_ref().or(self.analyzer.as_ref())
    }

    /// Reads `<root>/.zurdo/config.toml`, or the defaults (the same settings
    /// `zurdo init` writes) when there is none. Only a regular file of at
    /// most [`CONFIG_LIMIT`] bytes is read (a FIFO or a device is refused
    /// rather than waited on).
    pub fn load(root: &Path) -> Result<Config, Error> {
        use zurdo_base::files::{read_bounded, ReadError};
        let path = root.join(CONFIG_PATH);
        match read_bounded(&path, CONFIG_LIMIT) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes).map_err(|_| {
                    Error::invalid(format!(
                        "{}: not UTF-8 text; save it as UTF-8",
                        path.display()
                    ))
                })?;
                let mut config = Config::parse(&text)
                    .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
                config.source = Some(path);
                Ok(config)
            }
            Err(e) if e.is_not_found() => Config::parse(TEMPLATE).map_err(Error::invalid),
            Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => Err(Error::new(
                ErrorKind::Io,
                format!(
                    "{} is not a directory (a file is in its place; zurdo keeps its config and state there): move it away and run again",
                    root.join(".zurdo").display()
                ),
            )),
            Err(e) => Err(Error::new(
                ErrorKind::Io,
                format!("{}: cannot read: {e}", path.display()),
            )),
        }
    }

    /// Parses and checks config text.
    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| describe(text, e.span(), e.message()))?;
        let at =
            |span: std::ops::Range<usize>, message: String| describe(text, Some(span), &message);
        let provider = |name: &Spanned<String>| {
            Provider::from_name(name.get_ref()).ok_or_else(|| {
                at(
                    name.span(),
                    format!(
                        "unknown provider `{}`; the providers are {}",
                        name.get_ref(),
                        provider_names()
                    ),
                )
            })
        };
        let executor = provider(&raw.executor.provider)?;
        // The provider a table's key names, refused when an earlier key (its
        // old name or its new one) named it already.
        let provider_once =
            |table: &str, names: &BTreeMap<Provider, &str>, key: &Spanned<String>| {
                let p = provider(key)?;
                match names.get(&p) {
                    Some(first) => Err(at(
                        key.span(),
                        format!(
                        "[{table}.{first}] and [{table}.{}] both name the {} provider; keep one",
                        key.get_ref(),
                        p.name()
                    ),
                    )),
                    None => Ok(p),
                }
            };
        let mut commands = BTreeMap::new();
        let mut names = BTreeMap::new();
        for (name, p) in &raw.providers {
            let key = Spanned::new(name.span(), name.get_ref().clone());
            let command = p.command.get_ref().trim();
            if command.is_empty() {
                return Err(at(
                    p.command.span(),
                    format!("[providers.{}] command is empty", name.get_ref()),
                ));
            }
            let p = provider_once("providers", &names, &key)?;
            names.insert(p, name.get_ref().as_str());
            commands.insert(p, command.to_string());
        }
        let mut effort_map = BTreeMap::new();
        let mut names = BTreeMap::new();
        for (name, efforts) in &raw.effort_map {
            let key = Spanned::new(name.span(), name.get_ref().clone());
            let map: BTreeMap<String, String> = efforts
                .iter()
                .map(|(k, v)| (k.clone(), v.get_ref().clone()))
                .collect();
            if let Some((effort, model)) =
                efforts.iter().find(|(_, v)| v.get_ref().trim().is_empty())
            {
                return Err(at(
                    model.span(),
                    format!("[effort_map.{}] {effort} names no model", name.get_ref()),
                ));
            }
            let p = provider_once("effort_map", &names, &key)?;
            names.insert(p, name.get_ref().as_str());
            effort_map.insert(p, map);
        }
        let agent_timeout = duration("[defaults] agent_timeout", &raw.defaults.agent_timeout)
            .map_err(|m| at(raw.defaults.agent_timeout.span(), m))?;
        let rate_limit_wait = duration("[defaults] rate_limit_wait", &raw.defaults.rate_limit_wait)
            .map_err(|m| at(raw.defaults.rate_limit_wait.span(), m))?;
        count(
            "[defaults]",
            "max_attempts",
            &raw.defaults.max_attempts,
            1,
            limits::MAX_ATTEMPTS,
        )
        .map_err(|m| at(raw.defaults.max_attempts.span(), m))?;
        let role = |name: &str, r: &Option<RawRole>| -> Result<Option<Role>, String> {
            let Some(r) = r else { return Ok(None) };
            let own = Seat {
                provider: provider(&r.provider)?,
                model: r.model.clone(),
            };
            let fallback = fallback_seats(name, &own, &r.fallback, &effort_map, &at)?;
            Ok(Some(Role {
                provider: own.provider,
                model: own.model,
                fallback,
            }))
        };
        let verification = VerificationConfig::parse(text)?;
        let analyzer = role("analyzer", &raw.roles.analyzer)?;
        let reasoner = role("reasoner", &raw.roles.reasoner)?;
        let mut executor_fallback = Vec::new();
        if let Some(e) = &raw.roles.executor {
            for name in &e.fallback {
                let p = provider(name)?;
                if p == executor || executor_fallback.contains(&p) {
                    return Err(at(
                        name.span(),
                        format!(
                            "[roles.executor] fallback names `{}` {}; each provider is tried once, in order",
                            name.get_ref(),
                            if p == executor {
                                "and so does [executor] provider (it is tried first)"
                            } else {
                                "twice"
                            }
                        ),
                    ));
                }
                if !effort_map.contains_key(&p) {
                    return Err(at(
                        name.span(),
                        format!(
                            "[roles.executor] fallback names `{}`, which has no effort map: add [effort_map.{}] with a model for each effort the PRDs use",
                            name.get_ref(),
                            p.name()
                        ),
                    ));
                }
                executor_fallback.push(p);
            }
        }
        let escalation = escalation(&raw.escalation, &effort_map, &at)?;
        let challenger = match &raw.roles.challenger {
            Some(c) => Some(challenger_config(c, executor, &effort_map, &provider, &at)?),
            None => None,
        };
        let reason = reason_config(&raw.reason, &at)?;
        let budget = raw.budget.checked(&at)?;
        let idle_minutes = limits::check_count(
            "[vela]",
            "idle_minutes",
            *raw.vela.idle_minutes.get_ref(),
            1,
            limits::MAX_DURATION_SECONDS / 60,
            Some("7 days"),
        )
        .map_err(|m| at(raw.vela.idle_minutes.span(), m))?;
        let vela_idle = Duration::from_secs(idle_minutes * 60);
        let mut skill_paths = Vec::new();
        for path in &raw.skills.search_paths {
            if path.get_ref().trim().is_empty() || path.get_ref().contains('\0') {
                return Err(at(
                    path.span(),
                    "[skills] search_paths holds an empty path: name a directory (relative to the repository root, or absolute)".into(),
                ));
            }
            skill_paths.push(PathBuf::from(path.get_ref()));
        }
        if reason.enabled && analyzer.is_none() && reasoner.is_none() {
            return Err(at(
                raw.reason.enabled.span(),
                "[reason] enabled = true needs a model to reason with: add [roles.reasoner] (or [roles.analyzer]) with provider and model".into(),
            ));
        }
        Ok(Config {
            executor,
            commands,
            effort_map,
            max_attempts: *raw.defaults.max_attempts.get_ref(),
            agent_timeout,
            rate_limit_wait,
            analyzer,
            reasoner,
            executor_fallback,
            escalation,
            challenger,
            reason,
            vela_idle,
            skill_paths,
            pyxis: raw.pyxis.enabled,
            budget,
            verification,
            source: None,
        })
    }
}

/// The reminder to ignore `.zurdo/` when the repository's `.gitignore` does
/// not; zurdo never edits the file itself.
pub fn gitignore_hint(root: &Path) -> Option<String> {
    let ignored = std::fs::read_to_string(root.join(".gitignore"))
        .map(|t| {
            t.lines()
                .any(|l| matches!(l.trim(), ".zurdo" | ".zurdo/" | "/.zurdo" | "/.zurdo/"))
        })
        .unwrap_or(false);
    (!ignored).then(|| "hint: add `.zurdo/` to .gitignore (zurdo never edits it for you); keep `lessons/` tracked".to_string())
}

fn reason_config(
    raw: &RawReason,
    at: &dyn Fn(std::ops::Range<usize>, String) -> String,
) -> Result<ReasonConfig, String> {
    if *raw.stall_attempts.get_ref() < 2 {
        return Err(at(
            raw.stall_attempts.span(),
            "[reason] stall_attempts must be at least 2 (one failure is not a repetition)".into(),
        ));
    }
    let per_task = |key: &str, value: &Spanned<u32>, min: u32| {
        count("[reason]", key, value, min, limits::MAX_ATTEMPTS).map_err(|m| at(value.span(), m))
    };
    per_task("stall_attempts", &raw.stall_attempts, 2)?;
    per_task("max_diagnoses_per_task", &raw.max_diagnoses_per_task, 0)?;
    count(
        "[reason]",
        "max_reasoner_calls_per_run",
        &raw.max_reasoner_calls_per_run,
        0,
        limits::MAX_PER_RUN,
    )
    .map_err(|m| at(raw.max_reasoner_calls_per_run.span(), m))?;
    let timeout =
        duration("[reason] timeout", &raw.timeout).map_err(|m| at(raw.timeout.span(), m))?;
    if *raw.max_lessons.get_ref() == 0 {
        return Err(at(
            raw.max_lessons.span(),
            "[reason] max_lessons must be at least 1 (set extract_lessons = false to keep none)"
                .into(),
        ));
    }
    limits::check_count(
        "[reason]",
        "max_lessons",
        *raw.max_lessons.get_ref() as u64,
        1,
        limits::MAX_PER_RUN.into(),
        None,
    )
    .map_err(|m| at(raw.max_lessons.span(), m))?;
    Ok(ReasonConfig {
        enabled: *raw.enabled.get_ref(),
        stall_attempts: *raw.stall_attempts.get_ref(),
        max_diagnoses_per_task: *raw.max_diagnoses_per_task.get_ref(),
        max_reasoner_calls_per_run: *raw.max_reasoner_calls_per_run.get_ref(),
        extract_lessons: raw.extract_lessons,
        max_lessons: *raw.max_lessons.get_ref(),
        timeout,
    })
}

/// One entry of a role's `fallback`: `"<provider>/<model>"`, or
/// `"<provider>"` for the model its effort map gives `high`.
fn seat(
    role: &str,
    entry: &str,
    effort_map: &BTreeMap<Provider, BTreeMap<String, String>>,
) -> Result<Seat, String> {
    let (name, model) = match entry.split_once('/') {
        Some((name, model)) => (name.trim(), Some(model.trim())),
        None => (entry.trim(), None),
    };
    let provider = Provider::from_name(name).ok_or_else(|| {
        format!(
            "[roles.{role}] fallback `{entry}` names an unknown provider `{name}`; the providers are {}",
            provider_names()
        )
    })?;
    let model = match model {
        Some("") => {
            return Err(format!(
                "[roles.{role}] fallback `{entry}` names no model after the slash; write \"{name}/<model>\""
            ))
        }
        Some(model) => model.to_string(),
        None => effort_map
            .get(&provider)
            .and_then(|m| m.get("high"))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "[roles.{role}] fallback `{entry}` names no model and [effort_map.{}] has no `high` to take it from; write \"{}/<model>\"",
                    provider.name(),
                    provider.name()
                )
            })?,
    };
    Ok(Seat { provider, model })
}

/// A role's `fallback` entries, each a [`seat`], in order; an entry that
/// names the role's own seat or an earlier entry again is an error at its
/// span.
fn fallback_seats(
    role: &str,
    own: &Seat,
    entries: &[Spanned<String>],
    effort_map: &BTreeMap<Provider, BTreeMap<String, String>>,
    at: &dyn Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Vec<Seat>, String> {
    let mut fallback: Vec<Seat> = Vec::new();
    for entry in entries {
        let seat = seat(role, entry.get_ref(), effort_map).map_err(|m| at(entry.span(), m))?;
        if seat == *own || fallback.contains(&seat) {
            return Err(at(
                entry.span(),
                format!(
                    "[roles.{role}] fallback names {}/{} twice; each entry is tried once, in order",
                    seat.provider.name(),
                    seat.model
                ),
            ));
        }
        fallback.push(seat);
    }
    Ok(fallback)
}

/// `[escalation]`: `None` unless enabled; every rung checked against the
/// effort maps it needs.
fn escalation(
    raw: &RawEscalation,
    effort_map: &BTreeMap<Provider, BTreeMap<String, String>>,
    at: &dyn Fn(std::ops::Range<usize>, String) -> String,
) -> Result<Option<Escalation>, String> {
    let climb_on = Trigger::parse(raw.climb_on.get_ref())
        .map_err(|m| at(raw.climb_on.span(), format!("[escalation] {m}")))?;
    let mut ladder = Vec::new();
    match &raw.ladder {
        None => ladder.extend(DEFAULT_LADDER.iter().filter_map(|r| Rung::parse(r).ok())),
        Some(rungs) => {
            for rung in rungs.get_ref() {
                let parsed = Rung::parse(rung.get_ref())
                    .map_err(|m| at(rung.span(), format!("[escalation] ladder: {m}")))?;
                if let Rung::Provider(p) = &parsed {
                    if !effort_map.contains_key(p) {
                        return Err(at(
                            rung.span(),
                            format!(
                                "[escalation] ladder: rung `{}` needs [effort_map.{}] (its CLI works with its own models): add it",
                                rung.get_ref(),
                                p.name()
                            ),
                        ));
                    }
                }
                ladder.push(parsed);
            }
            Escalation::check(&ladder)
                .map_err(|m| at(rungs.span(), format!("[escalation] {m}")))?;
        }
    }
    if !*raw.enabled.get_ref() {
        return Ok(None);
    }
    Ok(Some(Escalation { ladder, climb_on }))
}

/// `[roles.challenger]`, checked. Without `provider`, the first provider
/// other than the executor that has an effort map (the author never grades
/// its own work); without `model`, that provider's `high` model.
fn challenger_config(
    raw: &RawChallenger,
    executor: Provider,
    effort_map: &BTreeMap<Provider, BTreeMap<String, String>>,
    provider: &dyn Fn(&Spanned<String>) -> Result<Provider, String>,
    at: &dyn Fn(std::ops::Range<usize>, String) -> String,
) -> Result<ChallengerConfig, String> {
    let mut chosen = Vec::new();
    let who = match &raw.provider {
        Some(p) => provider(p)?,
        None => {
            let other = Provider::ALL
                .iter()
                .copied()
                .find(|p| *p != executor && effort_map.contains_key(p))
                .ok_or_else(|| {
                    format!(
                        "[roles.challenger] names no provider and no provider but the executor ({}) has an effort map: add provider = \"<name>\" and model = \"<model>\" (the executor's own provider is allowed, though a different one is the point)",
                        executor.name()
                    )
                })?;
            chosen.push(format!(
                "provider {} (the first configured that is not the executor)",
                other.name()
            ));
            other
        }
    };
    let model = match &raw.model {
        Some(m) if !m.trim().is_empty() => m.trim().to_string(),
        Some(_) => return Err("[roles.challenger] model is empty".to_string()),
        None => {
            let high = effort_map
                .get(&who)
                .and_then(|m| m.get("high"))
                .ok_or_else(|| {
                    format!(
                        "[roles.challenger] names no model and [effort_map.{}] has no `high`: add model = \"<model>\"",
                        who.name()
                    )
                })?;
            chosen.push(format!("model {high} ([effort_map.{}] high)", who.name()));
            high.clone()
        }
    };
    let count_of = |key: &str, value: &Option<Spanned<u32>>, default: u32, max: u32| match value {
        Some(v) => count("[roles.challenger]", key, v, 0, max)
            .map(|_| *v.get_ref())
            .map_err(|m| at(v.span(), m)),
        None => Ok(default),
    };
    let max_calls_per_run = count_of(
        "max_calls_per_run",
        &raw.max_calls_per_run,
        20,
        limits::MAX_PER_RUN,
    )?;
    let max_calls_per_task = count_of(
        "max_calls_per_task",
        &raw.max_calls_per_task,
        3,
        limits::MAX_ATTEMPTS,
    )?;
    let timeout = match &raw.timeout {
        Some(t) => duration("[roles.challenger] timeout", t).map_err(|m| at(t.span(), m))?,
        None => Duration::from_secs(600),
    };
    let probe_seconds = match &raw.probe_seconds {
        Some(s) => {
            limits::check_count(
                "[roles.challenger]",
                "probe_seconds",
                *s.get_ref(),
                1,
                limits::MAX_DURATION_SECONDS,
                Some("7 days"),
            )
            .map_err(|m| at(s.span(), m))?;
            *s.get_ref()
        }
        None => 60,
    };
    let own = Seat {
        provider: who,
        model,
    };
    let fallback = fallback_seats("challenger", &own, &raw.fallback, effort_map, at)?;
    Ok(ChallengerConfig {
        role: Role {
            provider: own.provider,
            model: own.model,
            fallback,
        },
        chosen: (!chosen.is_empty()).then(|| chosen.join(", ")),
        max_calls_per_run,
        max_calls_per_task,
        timeout,
        probe_seconds,
        unsandboxed_probes: raw.unsandboxed_probes,
    })
}

fn provider_names() -> String {
    Provider::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `30s`, `15m`, `1h`: a positive integer and a unit, at most
/// [`limits::MAX_DURATION_SECONDS`] (the PRD's `**Agent-timeout**` rule).
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    limits::parse_duration(text).map(Duration::from_secs)
}

/// A duration setting (`what` is `[defaults] agent_timeout`), or what is
/// wrong with it and the fix.
fn duration(what: &str, value: &Spanned<String>) -> Result<Duration, String> {
    let text = value.get_ref();
    parse_duration(text).map_err(|e| format!("{}; {}", e.message(what, text), e.fix(text)))
}

/// A count setting within `min..=max`, or what is wrong with it and the fix.
fn count(
    section: &str,
    key: &str,
    value: &Spanned<u32>,
    min: u32,
    max: u32,
) -> Result<u32, String> {
    limits::check_count(
        section,
        key,
        (*value.get_ref()).into(),
        min.into(),
        max.into(),
        None,
    )
    .map(|_| *value.get_ref())
}

fn describe(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> String {
    let message = message
        .trim()
        .replace("expected u32", "expected a positive integer");
    let Some(span) = span else { return message };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let source = text.lines().nth(line - 1).unwrap_or("").trim();
    if source.is_empty() {
        format!("line {line}: {message}")
    } else {
        format!("line {line}: `{source}`: {message}")
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    executor: RawExecutor,
    #[serde(default)]
    providers: BTreeMap<Spanned<String>, RawProvider>,
    #[serde(default)]
    effort_map: BTreeMap<Spanned<String>, BTreeMap<String, Spanned<String>>>,
    #[serde(default)]
    defaults: RawDefaults,
    #[serde(default)]
    roles: RawRoles,
    #[serde(default)]
    reason: RawReason,
    #[serde(default)]
    escalation: RawEscalation,
    #[serde(default)]
    vela: RawVela,
    #[serde(default)]
    skills: RawSkills,
    #[serde(default)]
    pyxis: RawPyxis,
    #[serde(default)]
    budget: crate::budget::RawBudget,
    #[serde(default)]
    #[allow(dead_code)]
    verification: toml::Table,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPyxis {
    #[serde(default)]
    enabled: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSkills {
    #[serde(default)]
    search_paths: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExecutor {
    provider: Spanned<String>,
}

impl Default for RawExecutor {
    fn default() -> Self {
        RawExecutor {
            provider: Spanned::new(0..0, "anthropic".into()),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    command: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawDefaults {
    max_attempts: Spanned<u32>,
    agent_timeout: Spanned<String>,
    rate_limit_wait: Spanned<String>,
}

impl Default for RawDefaults {
    fn default() -> Self {
        RawDefaults {
            max_attempts: Spanned::new(0..0, 3),
            agent_timeout: Spanned::new(0..0, "30m".into()),
            rate_limit_wait: Spanned::new(0..0, "15m".into()),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawVela {
    idle_minutes: Spanned<u64>,
}

impl Default for RawVela {
    fn default() -> Self {
        RawVela {
            idle_minutes: Spanned::new(0..0, 30),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawReason {
    enabled: Spanned<bool>,
    stall_attempts: Spanned<u32>,
    max_diagnoses_per_task: Spanned<u32>,
    max_reasoner_calls_per_run: Spanned<u32>,
    extract_lessons: bool,
    max_lessons: Spanned<usize>,
    timeout: Spanned<String>,
}

impl Default for RawReason {
    fn default() -> Self {
        let d = ReasonConfig::default();
        RawReason {
            enabled: Spanned::new(0..0, d.enabled),
            stall_attempts: Spanned::new(0..0, d.stall_attempts),
            max_diagnoses_per_task: Spanned::new(0..0, d.max_diagnoses_per_task),
            max_reasoner_calls_per_run: Spanned::new(0..0, d.max_reasoner_calls_per_run),
            extract_lessons: d.extract_lessons,
            max_lessons: Spanned::new(0..0, d.max_lessons),
            timeout: Spanned::new(0..0, "10m".into()),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRoles {
    executor: Option<RawExecutorRole>,
    analyzer: Option<RawRole>,
    reasoner: Option<RawRole>,
    challenger: Option<RawChallenger>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChallenger {
    provider: Option<Spanned<String>>,
    model: Option<String>,
    max_calls_per_run: Option<Spanned<u32>>,
    max_calls_per_task: Option<Spanned<u32>>,
    timeout: Option<Spanned<String>>,
    probe_seconds: Option<Spanned<u64>>,
    #[serde(default)]
    unsandboxed_probes: bool,
    #[serde(default)]
    fallback: Vec<Spanned<String>>,
}

/// `[roles.executor]`: only its fallback chain (the provider itself is
/// `[executor] provider`, the models its effort map).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExecutorRole {
    #[serde(default)]
    fallback: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRole {
    provider: Spanned<String>,
    model: String,
    #[serde(default)]
    fallback: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawEscalation {
    enabled: Spanned<bool>,
    ladder: Option<Spanned<Vec<Spanned<String>>>>,
    climb_on: Spanned<String>,
}

impl Default for RawEscalation {
    fn default() -> Self {
        RawEscalation {
            enabled: Spanned::new(0..0, false),
            ladder: None,
            climb_on: Spanned::new(0..0, "stall".into()),
        }
    }
}

/// The commented config `zurdo init` writes; also the defaults when a
/// repository has no config.
pub const TEMPLATE: &str = r#"# zurdo configuration. Every key is checked: a typo is an error naming its line.

[executor]
# The provider whose CLI executes tasks: anthropic (claude), openai (codex), github (copilot),
# google (gemini). Providers are named by company, CLIs by command; `copilot` still reads as github.
provider = "anthropic"

# The command that starts each provider's CLI (a name on PATH or a path).
[providers.anthropic]
command = "claude"

[providers.openai]
command = "codex"

[providers.github]
command = "copilot"

[providers.google]
command = "gemini"

# A task's **Effort** picks its model from the executor's map. Model names change often:
# `zurdo doctor` lists the models a CLI knows (where it can) and asks each CLI whether it knows
# these (`zurdo init --check-models` too). Where they come from: docs/agents.md.
[effort_map.anthropic]
low = "haiku"
medium = "sonnet"
high = "opus"

[effort_map.openai]
low = "gpt-6.2-sol"
medium = "gpt-6.2-sol"
high = "gpt-6.2-sol"

[effort_map.github]
low = "gpt-5.4-mini"
medium = "gpt-5.4"
high = "claude-sonnet-5"

[effort_map.google]
low = "gemini-2.5-flash"
medium = "gemini-2.5-pro"
high = "gemini-2.5-pro"

[defaults]
max_attempts = 3        # a PRD's **Max-Attempts** overrides it
agent_timeout = "30m"   # a PRD's **Agent-timeout** overrides it; units s, m or h
rate_limit_wait = "15m" # a rate-limited CLI is waited out up to this long (no attempt spent); longer fails over or stops the run

# Provider failover (optional): when the executor's CLI cannot work for the rest of the run (out of
# quota, not logged in, not installed, rate limited past the wait), the attempt runs again, uncounted,
# on the next provider here, with that provider's own effort map. With none left the run stops (exit 5).
# [roles.executor]
# fallback = ["openai", "google"]

# Cost budgets (opt in): before each attempt zurdo predicts its spend from the task's attempts so far
# (else the provider's median in this run) and refuses one that would cross a budget: the task fails
# with budget_exhausted. A CLI that reports no cost counts only against the token limits. docs/run.md.
# [budget]
# max_cost_usd = 20.0         # the run's spend, in US dollars
# max_task_cost_usd = 5.0     # one task's; a PRD's **Max-Cost** overrides it
# max_tokens = 5000000        # the run's tokens, input and output
# max_task_tokens = 1000000   # one task's tokens

# Models for roles other than executing (analysis, diagnosis). Optional. `fallback` works the same
# way: "<provider>/<model>", or "<provider>" for its effort map's `high` model.
# [roles.analyzer]
# provider = "anthropic"
# model = "sonnet"
# fallback = ["openai/gpt-6.2-sol"]
#
# The reason subsystem (diagnosis of stalls, lessons from recoveries) is opt in: add
# [roles.reasoner] (or [roles.analyzer]) and a [reason] table by hand; see docs/reason.md.
#
# The challenger (opt in): after an attempt passes, a model that did not write the code tries
# to refute it; only a finding whose probe zurdo runs and sees fail can fail the attempt.
# With the table alone it is the first other provider with an effort map, at its `high` model.
# [roles.challenger]
# provider = "openai"
# model = "gpt-5.4"

# The escalation ladder (opt in): the rungs a task climbs, one per stall (or per failed attempt with
# climb_on = "failure"): retry, diagnose (the reasoner), effort:<key> (that effort's model),
# provider:<name> (another CLI, its own effort map), halt (the task fails now). A rung that cannot
# run is skipped with a note. Nothing on the ladder can pass a criterion. See docs/run.md.
# [escalation]
# enabled = true
# ladder = ["retry", "diagnose", "effort:high", "halt"]
# climb_on = "stall"

# Vela, the optional index watcher (`zurdo vela start`), exits after this long with no change.
# [vela]
# idle_minutes = 30

# Pyxis, the retrieval index (opt in): each task's first prompt gains a Where to look section:
# the files and definitions that best match the task's words, each with why (.zurdo/pyxis/index.json;
# it never changes a verdict). `zurdo pyxis query "<text>"` shows the ranking either way. docs/pyxis.md.
# [pyxis]
# enabled = true

[verification]
criterion_seconds = 600      # per hint; the whole process group is killed at the limit
http_read_limit = 1048576    # bytes of an [http:] response body read at most
env_allowlist = []           # extra environment variables [shell:] hints may see ("NAME" or "PREFIX_*")
protected_paths = []         # globs no task may modify
# zurdo_verify_env = true    # give criteria ZURDO_VERIFY=1 (off: nothing tells a criterion from a plain run)
regression_guard = "run-end" # re-check passed tasks: "run-end", "each-task" (after every passing attempt) or "off"
# require_red_first = true   # a task green before any agent ran ends `unproven`, not `passed`
# sealed = "~/.config/zurdo/sealed/app.md"  # criteria the agent never sees (outside the repository)
# agent_sandbox = "bubblewrap"  # the agent CLI under bwrap: sealed file and zurdo's key unreadable, .zurdo/ and .git/ read-only

# The coverage gate (opt in): the share of a task's changed code lines its tests executed, read from
# the reports the criteria's own commands write (lcov, Cobertura XML, coverage.py JSON, Go profiles).
# [verification.coverage]
# sources = ["coverage.json"]
# threshold = 0.8
verdict_surface = true       # a changed test config, conftest.py hook, or script or recipe a hint runs fails the attempt
environment_surface = true   # a planted shim or startup hook for the hints' tools fails the attempt
surface_exempt = []          # repository globs neither surface watches (a task that writes the test machinery)
"#;

/// [`TEMPLATE`] with the effort map of each of `defaults` taken from it
/// (low, medium and high, in that order), under a comment saying where
/// they came from. A provider whose map is not in the template is left
/// out.
pub fn template_with(defaults: &[(Provider, [String; 3], String)]) -> String {
    let mut text = TEMPLATE.to_string();
    for (provider, models, source) in defaults {
        let header = format!("[effort_map.{}]\n", provider.name());
        let Some(start) = text.find(&header) else {
            continue;
        };
        // The header and the three effort lines after it.
        let end = text[start..]
            .match_indices('\n')
            .nth(3)
            .map_or(text.len(), |(i, _)| start + i + 1);
        let quoted = |m: &str| toml::Value::String(m.to_string()).to_string();
        let block = format!(
            "# {}\n{header}low = {}\nmedium = {}\nhigh = {}\n",
            source.replace('\n', " "),
            quoted(&models[0]),
            quoted(&models[1]),
            quoted(&models[2])
        );
        text.replace_range(start..end, &block);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenger_defaults_to_another_provider_and_its_high_model() {
        let base =
            "[executor]\nprovider = \"anthropic\"\n[effort_map.anthropic]\nhigh = \"opus\"\n";
        let c = Config::parse(&format!(
            "{base}[effort_map.google]\nhigh = \"gemini-pro\"\n[roles.challenger]\n"
        ))
        .expect("valid");
        let ch = c.challenger.expect("configured");
        assert_eq!(ch.role.provider, Provider::Google);
        assert_eq!(ch.role.model, "gemini-pro");
        assert!(ch.chosen.is_some_and(|w| w.contains("not the executor")));
        assert_eq!(
            (
                ch.max_calls_per_run,
                ch.max_calls_per_task,
                ch.probe_seconds
            ),
            (20, 3, 60)
        );
        assert!(!ch.unsandboxed_probes);
        // Named: taken as written, the executor's own provider allowed.
        let named = Config::parse(&format!(
            "{base}[roles.challenger]\nprovider = \"anthropic\"\nmodel = \"sonnet\"\nprobe_seconds = 5\n"
        ))
        .expect("valid")
        .challenger
        .expect("configured");
        assert_eq!(
            (named.role.provider, named.role.model.as_str()),
            (Provider::Anthropic, "sonnet")
        );
        assert!(named.chosen.is_none());
        assert_eq!(named.probe_seconds, 5);
        // None other to choose, an unknown key, a zero probe limit: errors
        // that say what to write.
        let e = Config::parse(&format!("{base}[roles.challenger]\n")).unwrap_err();
        assert!(
            e.contains("add provider = ") && e.contains("anthropic"),
            "{e}"
        );
        let e = Config::parse(&format!("{base}[roles.challenger]\nprobes = 1\n")).unwrap_err();
        assert!(e.contains("probes"), "{e}");
        let e = Config::parse(&format!(
            "{base}[roles.challenger]\nprovider = \"anthropic\"\nmodel = \"m\"\nprobe_seconds = 0\n"
        ))
        .unwrap_err();
        assert!(e.contains("probe_seconds") && e.contains("line"), "{e}");
        assert!(Config::parse(base).expect("valid").challenger.is_none());
    }

    #[test]
    fn the_template_holds_the_documented_defaults() {
        let c = Config::parse(TEMPLATE).expect("template parses");
        for p in Provider::ALL {
            let documented = crate::agent::catalog::documented(p);
            for (effort, model) in crate::agent::catalog::EFFORTS.iter().zip(documented) {
                assert_eq!(c.effort_map[&p][*effort], model, "{p:?} {effort}");
            }
        }
    }

    #[test]
    fn template_with_replaces_one_map_and_says_where_it_came_from() {
        let m = |s: &str| s.to_string();
        let text = template_with(&[(
            Provider::OpenAi,
            [m("a"), m("b\"c"), m("c")],
            m("from `codex debug models`"),
        )]);
        let c = Config::parse(&text).expect("parses");
        assert_eq!(c.effort_map[&Provider::OpenAi]["low"], "a");
        assert_eq!(c.effort_map[&Provider::OpenAi]["medium"], "b\"c");
        assert_eq!(c.effort_map[&Provider::OpenAi]["high"], "c");
        assert_eq!(
            c.effort_map[&Provider::Anthropic],
            Config::parse(TEMPLATE).expect("parses").effort_map[&Provider::Anthropic]
        );
        assert!(
            text.contains("# from `codex debug models`\n[effort_map.openai]\nlow = \"a\"\n"),
            "{text}"
        );
        assert_eq!(text.lines().count(), TEMPLATE.lines().count() + 1);
    }

    #[test]
    fn the_template_is_the_default_config() {
        let c = Config::parse(TEMPLATE).expect("template parses");
        assert_eq!(c.executor, Provider::Anthropic);
        assert_eq!(c.model_for("medium"), Ok("sonnet"));
        assert_eq!(c.command(Provider::OpenAi), "codex");
        assert_eq!(c.max_attempts, 3);
        assert_eq!(c.agent_timeout, Duration::from_secs(1800));
        assert_eq!(c.rate_limit_wait, Duration::from_secs(900));
        for p in Provider::ALL {
            assert_eq!(
                c.effort_map[&p].keys().collect::<Vec<_>>(),
                ["high", "low", "medium"],
                "{p:?}"
            );
        }
    }

    #[test]
    fn an_effort_not_in_the_map_lists_the_keys_that_exist() {
        let c = Config::parse("[effort_map.anthropic]\nlow = \"haiku\"\nhigh = \"opus\"\n")
            .expect("parses");
        assert_eq!(
            c.model_for("medium"),
            Err(vec!["high".to_string(), "low".to_string()])
        );
    }

    #[test]
    fn errors_name_the_key_and_line() {
        let cases = [
            (
                "[executor]\nprovider = \"openia\"\n",
                "line 2",
                "unknown provider `openia`",
            ),
            (
                "[providers.claude]\ncommand = \"claude\"\n",
                "line 1",
                "unknown provider `claude`",
            ),
            (
                "[defaults]\nmax_attempts = 0\n",
                "line 2",
                "max_attempts must be at least 1",
            ),
            (
                "[defaults]\nagent_timeout = \"30\"\n",
                "line 2",
                "has no unit",
            ),
            (
                "[defaults]\nretries = 2\n",
                "line 2",
                "unknown field `retries`",
            ),
            (
                "[verification]\ncriterion_seconds = -1\n",
                "line 2",
                "criterion_seconds",
            ),
            (
                "[roles.analyzer]\nprovider = \"anthropic\"\n",
                "line 1",
                "missing field `model`",
            ),
            (
                "[effort_map.openai]\nlow = \"\"\n",
                "line 2",
                "names no model",
            ),
            ("[colour]\n", "line 1", "unknown field `colour`"),
            (
                "[reason]\nenabled = true\n",
                "line 2",
                "needs a model to reason with",
            ),
            (
                "[reason]\nstall_attempts = 1\n",
                "line 2",
                "stall_attempts must be at least 2",
            ),
            ("[reason]\ntimeout = \"soon\"\n", "line 2", "not a duration"),
            (
                "[reason]\nmax_lesons = 3\n",
                "line 2",
                "unknown field `max_lesons`",
            ),
            (
                "[budget]\nmax_cost = 3\n",
                "line 2",
                "unknown field `max_cost`",
            ),
            (
                "[budget]\nmax_cost_usd = -1\n",
                "line 2",
                "[budget] max_cost_usd `-1` is not an amount of US dollars like $2.50; write max_cost_usd = 5.0",
            ),
            (
                "[budget]\nmax_task_cost_usd = 0.0\n",
                "line 2",
                "[budget] max_task_cost_usd = 0 is not a positive amount of US dollars",
            ),
            (
                "[budget]\nmax_task_cost_usd = \"cheap\"\n",
                "line 2",
                "[budget] max_task_cost_usd `cheap` is not an amount of US dollars",
            ),
            (
                "[budget]\nmax_cost_usd = 2000000.0\n",
                "line 2",
                "is more than $1000000.00, the most zurdo accepts",
            ),
            (
                "[budget]\nmax_cost_usd = true\n",
                "line 2",
                "[budget] max_cost_usd = true is not an amount of US dollars",
            ),
            (
                "[budget]\nmax_tokens = 0\n",
                "line 2",
                "[budget] max_tokens must be at least 1; write max_tokens = 1 or more",
            ),
            (
                "[budget]\nmax_task_tokens = -5\n",
                "line 2",
                "[budget] max_task_tokens must be at least 1",
            ),
            (
                "[budget]\nmax_tokens = 1000000000001\n",
                "line 2",
                "[budget] max_tokens = 1000000000001 is more than 1000000000000",
            ),
        ];
        for (text, line, what) in cases {
            let e = Config::parse(text).expect_err(text);
            assert!(e.contains(line) && e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn reason_is_off_by_default_and_falls_back_to_the_analyzer() {
        let c = Config::parse(TEMPLATE).expect("template parses");
        assert_eq!(c.reason, ReasonConfig::default());
        assert!(!c.reason.enabled && c.reasoner_role().is_none());
        assert_eq!(c.vela_idle, Duration::from_secs(30 * 60));
        let v = Config::parse("[vela]\nidle_minutes = 5\n").expect("parses");
        assert_eq!(v.vela_idle, Duration::from_secs(300));
        let c = Config::parse(
            "[roles.analyzer]\nprovider = \"openai\"\nmodel = \"a\"\n[reason]\nenabled = true\nstall_attempts = 3\n",
        )
        .expect("parses");
        assert!(c.reason.enabled);
        assert_eq!(c.reason.stall_attempts, 3);
        assert_eq!(c.reasoner_role().map(|r| r.model.as_str()), Some("a"));
        let c = Config::parse(
            "[roles.analyzer]\nprovider = \"openai\"\nmodel = \"a\"\n[roles.reasoner]\nprovider = \"google\"\nmodel = \"r\"\n",
        )
        .expect("parses");
        assert_eq!(
            c.reasoner_role().map(|r| (r.provider, r.model.as_str())),
            Some((Provider::Google, "r"))
        );
    }

    #[test]
    fn budgets_are_off_by_default_and_read_as_written() {
        use zurdo::money::Usd;
        assert_eq!(
            Config::parse(TEMPLATE).expect("parses").budget,
            crate::budget::Budget::default()
        );
        let c = Config::parse(
            "[budget]\nmax_cost_usd = 20\nmax_task_cost_usd = \"$2.50\"\nmax_tokens = 5000\nmax_task_tokens = 700\n",
        )
        .expect("parses");
        assert_eq!(c.budget.max_cost_usd, Some(Usd(20_000_000)));
        assert_eq!(c.budget.max_task_cost_usd, Some(Usd(2_500_000)));
        assert_eq!(c.budget.max_tokens, Some(5000));
        assert_eq!(c.budget.max_task_tokens, Some(700));
        let c = Config::parse("[budget]\nmax_task_cost_usd = 0.05\n").expect("parses");
        assert_eq!(c.budget.max_task_cost_usd, Some(Usd(50_000)));
        // The template's commented table, uncommented, is a valid budget.
        let uncommented: String = TEMPLATE
            .lines()
            .filter_map(|l| {
                let l = l.strip_prefix("# ")?;
                (l.starts_with("[budget]") || l.starts_with("max_")).then(|| format!("{l}\n"))
            })
            .collect();
        let c = Config::parse(&uncommented).expect(&uncommented);
        assert_eq!(c.budget.max_task_cost_usd, Some(Usd(5_000_000)));
        assert_eq!(c.budget.max_task_tokens, Some(1_000_000));
    }

    #[test]
    fn the_old_provider_name_copilot_still_reads_as_github() {
        let old = "[executor]\nprovider = \"copilot\"\n\n[providers.copilot]\ncommand = \"my-copilot\"\n\n[effort_map.copilot]\nlow = \"gpt-5.4-mini\"\nmedium = \"gpt-5.4\"\n\n[roles.analyzer]\nprovider = \"copilot\"\nmodel = \"a\"\n\n[roles.reasoner]\nprovider = \"copilot\"\nmodel = \"r\"\n";
        let new = old
            .replace("\"copilot\"", "\"github\"")
            .replace(".copilot]", ".github]");
        assert!(
            !new.contains("\"copilot\"") && !new.contains(".copilot]"),
            "{new}"
        );
        for text in [old, new.as_str()] {
            let c = Config::parse(text).expect(text);
            assert_eq!(c.executor, Provider::GitHub, "{text}");
            assert_eq!(c.command(Provider::GitHub), "my-copilot");
            assert_eq!(c.model_for("medium"), Ok("gpt-5.4"));
            assert_eq!(c.effort_map.keys().collect::<Vec<_>>(), [&Provider::GitHub]);
            assert_eq!(
                c.analyzer.as_ref().map(|r| r.provider),
                Some(Provider::GitHub)
            );
            assert_eq!(
                c.reasoner_role().map(|r| (r.provider, r.model.as_str())),
                Some((Provider::GitHub, "r"))
            );
        }
        assert_eq!(Config::parse(old), Config::parse(&new));

        let both = "[providers.copilot]\ncommand = \"a\"\n[providers.github]\ncommand = \"b\"\n";
        let e = Config::parse(both).expect_err("one provider twice");
        assert!(
            e.contains("line 3")
                && e.contains(
                    "[providers.copilot] and [providers.github] both name the github provider"
                ),
            "{e}"
        );
        let both = "[effort_map.github]\nlow = \"a\"\n[effort_map.copilot]\nlow = \"b\"\n";
        let e = Config::parse(both).expect_err("one provider twice");
        assert!(
            e.contains(
                "[effort_map.copilot] and [effort_map.github] both name the github provider"
            ),
            "{e}"
        );
    }

    #[test]
    fn escalation_is_off_unless_enabled_and_has_a_documented_default_ladder() {
        let c = Config::parse(TEMPLATE).expect("template parses");
        assert_eq!(c.escalation, None);
        assert!(c.executor_fallback.is_empty());
        assert_eq!(c.executor_chain(), [Provider::Anthropic]);
        let c = Config::parse("[escalation]\nenabled = true\n").expect("parses");
        let e = c.escalation.expect("enabled");
        assert_eq!(
            e.ladder.iter().map(Rung::name).collect::<Vec<_>>(),
            DEFAULT_LADDER
        );
        assert_eq!(e.climb_on, Trigger::Stall);
        let c = Config::parse(
            "[effort_map.openai]\nlow = \"o\"\n[escalation]\nenabled = true\nladder = [\"retry\", \"provider:openai\", \"halt\"]\nclimb_on = \"failure\"\n",
        )
        .expect("parses");
        let e = c.escalation.expect("enabled");
        assert_eq!(
            e.ladder,
            [Rung::Retry, Rung::Provider(Provider::OpenAi), Rung::Halt]
        );
        assert_eq!(e.climb_on, Trigger::Failure);
        // A ladder that is off is still checked: a typo is found before it
        // is switched on.
        assert!(Config::parse("[escalation]\nladder = [\"retyr\"]\n").is_err());
    }

    #[test]
    fn fallback_chains_read_in_order() {
        let c = Config::parse(
            "[effort_map.anthropic]\nlow = \"haiku\"\n[effort_map.openai]\nlow = \"o-low\"\nhigh = \"o-high\"\n[effort_map.google]\nlow = \"g\"\n[roles.executor]\nfallback = [\"openai\", \"google\"]\n[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"opus\"\nfallback = [\"openai\", \"google/gemini-x\"]\n",
        )
        .expect("parses");
        assert_eq!(
            c.executor_chain(),
            [Provider::Anthropic, Provider::OpenAi, Provider::Google]
        );
        assert_eq!(c.model_of(Provider::OpenAi, "high"), Some("o-high"));
        let chain = c.reasoner.expect("reasoner").chain();
        let seats: Vec<(Provider, &str)> = chain
            .iter()
            .map(|s| (s.provider, s.model.as_str()))
            .collect();
        assert_eq!(
            seats,
            [
                (Provider::Anthropic, "opus"),
                (Provider::OpenAi, "o-high"),
                (Provider::Google, "gemini-x")
            ]
        );
    }

    #[test]
    fn escalation_and_fallback_errors_name_the_key_and_the_fix() {
        let cases = [
            (
                "[escalation]\nenabled = true\nladder = [\"retry\", \"efort:high\"]\n",
                "line 3",
                "[escalation] ladder: unknown rung `efort:high`; the rungs are retry, diagnose, effort:<key of the effort map>, provider:<name>, halt",
            ),
            (
                "[escalation]\nladder = [\"provider:claude\"]\n",
                "line 2",
                "[escalation] ladder: rung `provider:claude` names an unknown provider `claude`",
            ),
            (
                "[escalation]\nladder = [\"provider:google\"]\n",
                "line 2",
                "rung `provider:google` needs [effort_map.google] (its CLI works with its own models): add it",
            ),
            (
                "[escalation]\nladder = [\"halt\", \"retry\"]\n",
                "line 2",
                "[escalation] `halt` is rung 1 of 2, but a halted task climbs no further: move `halt` last",
            ),
            (
                "[escalation]\nladder = []\n",
                "line 2",
                "[escalation] ladder is empty; name at least one rung (the default is \"retry\", \"diagnose\", \"effort:high\", \"halt\")",
            ),
            (
                "[escalation]\nclimb_on = \"stalls\"\n",
                "line 2",
                "[escalation] climb_on `stalls` is neither \"stall\"",
            ),
            (
                "[escalation]\nenable = true\n",
                "line 2",
                "unknown field `enable`",
            ),
            (
                "[roles.executor]\nfallback = [\"opneai\"]\n",
                "line 2",
                "unknown provider `opneai`; the providers are anthropic, openai, github, google",
            ),
            (
                "[effort_map.openai]\nlow = \"o\"\n[roles.executor]\nfallback = [\"openai\", \"openai\"]\n",
                "line 4",
                "[roles.executor] fallback names `openai` twice; each provider is tried once, in order",
            ),
            (
                "[roles.executor]\nfallback = [\"anthropic\"]\n",
                "line 2",
                "[roles.executor] fallback names `anthropic` and so does [executor] provider (it is tried first)",
            ),
            (
                "[roles.executor]\nfallback = [\"google\"]\n",
                "line 2",
                "[roles.executor] fallback names `google`, which has no effort map: add [effort_map.google]",
            ),
            (
                "[roles.executor]\nprovider = \"openai\"\n",
                "line 2",
                "unknown field `provider`, expected `fallback`",
            ),
            (
                "[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"opus\"\nfallback = [\"google\"]\n",
                "line 4",
                "[roles.reasoner] fallback `google` names no model and [effort_map.google] has no `high` to take it from; write \"google/<model>\"",
            ),
            (
                "[roles.analyzer]\nprovider = \"anthropic\"\nmodel = \"opus\"\nfallback = [\"openai/\"]\n",
                "line 4",
                "[roles.analyzer] fallback `openai/` names no model after the slash",
            ),
            (
                "[roles.analyzer]\nprovider = \"anthropic\"\nmodel = \"opus\"\nfallback = [\"anthropic/opus\"]\n",
                "line 4",
                "[roles.analyzer] fallback names anthropic/opus twice",
            ),
            (
                "[roles.analyzer]\nprovider = \"anthropic\"\nmodel = \"opus\"\nfallback = [\"acme/x\"]\n",
                "line 4",
                "[roles.analyzer] fallback `acme/x` names an unknown provider `acme`",
            ),
        ];
        for (text, line, what) in cases {
            let e = Config::parse(text).expect_err(text);
            assert!(e.contains(line) && e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn pyxis_is_off_by_default_and_checked() {
        assert!(!Config::parse(TEMPLATE).expect("template parses").pyxis);
        let uncommented =
            TEMPLATE.replace("# [pyxis]\n# enabled = true", "[pyxis]\nenabled = true");
        assert_ne!(uncommented, TEMPLATE);
        assert!(Config::parse(&uncommented).expect("parses").pyxis);
        let e = Config::parse("[pyxis]\nenable = true\n").expect_err("a typo");
        assert!(
            e.contains("line 2") && e.contains("unknown field `enable`"),
            "{e}"
        );
        let e = Config::parse("[pyxis]\nenabled = \"yes\"\n").expect_err("not a bool");
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("30"), Err(DurationError::NoUnit));
        assert_eq!(parse_duration("0m"), Err(DurationError::Zero));
        assert_eq!(parse_duration("m"), Err(DurationError::NotADuration));
    }

    #[test]
    fn durations_and_counts_are_bounded_with_the_line_and_a_fix() {
        let cases = [
            (
                "[defaults]\nagent_timeout = \"18446744073709551615s\"\n",
                "line 2: `agent_timeout = \"18446744073709551615s\"`: [defaults] agent_timeout `18446744073709551615s` is longer than 7 days (168h), the longest duration zurdo accepts; write at most `604800s`",
            ),
            (
                "[defaults]\nagent_timeout = \"169h\"\n",
                "line 2: `agent_timeout = \"169h\"`: [defaults] agent_timeout `169h` is longer than 7 days (168h), the longest duration zurdo accepts; write at most `168h`",
            ),
            (
                "[defaults]\nmax_attempts = 4294967295\n",
                "line 2: `max_attempts = 4294967295`: [defaults] max_attempts = 4294967295 is more than 1000, the most zurdo accepts; write max_attempts = 1000 or less",
            ),
            (
                "[reason]\ntimeout = \"99999999999999999999m\"\n",
                "line 2: `timeout = \"99999999999999999999m\"`: [reason] timeout `99999999999999999999m` is longer than 7 days (168h), the longest duration zurdo accepts; write at most `10080m`",
            ),
            (
                "[reason]\nstall_attempts = 4294967295\n",
                "line 2: `stall_attempts = 4294967295`: [reason] stall_attempts = 4294967295 is more than 1000, the most zurdo accepts; write stall_attempts = 1000 or less",
            ),
            (
                "[reason]\nmax_diagnoses_per_task = 1001\n",
                "line 2: `max_diagnoses_per_task = 1001`: [reason] max_diagnoses_per_task = 1001 is more than 1000, the most zurdo accepts; write max_diagnoses_per_task = 1000 or less",
            ),
            (
                "[reason]\nmax_reasoner_calls_per_run = 4294967295\n",
                "line 2: `max_reasoner_calls_per_run = 4294967295`: [reason] max_reasoner_calls_per_run = 4294967295 is more than 100000, the most zurdo accepts; write max_reasoner_calls_per_run = 100000 or less",
            ),
            (
                "[reason]\nmax_lessons = 18446744073709551615\n",
                "line 2: `max_lessons = 18446744073709551615`: [reason] max_lessons = 18446744073709551615 is more than 100000, the most zurdo accepts; write max_lessons = 100000 or less",
            ),
            (
                "[vela]\nidle_minutes = 18446744073709551615\n",
                "line 2: `idle_minutes = 18446744073709551615`: [vela] idle_minutes = 18446744073709551615 is more than 10080 (7 days), the most zurdo accepts; write idle_minutes = 10080 or less",
            ),
            (
                "[vela]\nidle_minutes = 0\n",
                "line 2: `idle_minutes = 0`: [vela] idle_minutes must be at least 1; write idle_minutes = 1 or more",
            ),
            (
                "[verification]\ncriterion_seconds = 9223372036854775807\n",
                "line 2: `criterion_seconds = 9223372036854775807`: [verification] criterion_seconds = 9223372036854775807 is more than 604800 (7 days), the most zurdo accepts; write criterion_seconds = 604800 or less",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(Config::parse(text).expect_err(text), expected);
        }
        let most = Config::parse(
            "[defaults]\nmax_attempts = 1000\nagent_timeout = \"168h\"\n[reason]\nstall_attempts = 1000\ntimeout = \"10080m\"\nmax_lessons = 100000\n[vela]\nidle_minutes = 10080\n",
        )
        .expect("the maxima are accepted");
        assert_eq!(most.agent_timeout, Duration::from_secs(604_800));
        assert_eq!(most.vela_idle, Duration::from_secs(604_800));
        assert_eq!(most.max_attempts, 1000);
    }
}
