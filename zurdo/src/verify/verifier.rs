//! The verifier: runs hints and criteria against a repository.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::config::VerificationConfig;
use super::outcome::{Captured, CriterionVerdict, Evidence, HintResult, Reason, Verdict};
use super::{env, files, grep, http, runners, structural};
use crate::exec::{self, Ending};
use crate::hint::{Check, Hint};
use crate::model::Criterion;

/// Checks hints against one repository with one configuration.
#[derive(Debug, Clone)]
pub struct Verifier {
    root: PathBuf,
    config: VerificationConfig,
    env: Vec<(String, String)>,
    shell: PathBuf,
    /// A command `[shell:]` hints run under (a sandbox such as bubblewrap);
    /// empty to run them directly.
    wrapper: Vec<String>,
    /// What happens to what a `[shell:]` hint leaves running when it exits.
    at_exit: exec::AtExit,
    /// Ignore rules taken earlier that directory searches honour instead
    /// of the ignore files as they are now.
    ignore_rules: Option<std::sync::Arc<grep::IgnoreRules>>,
    /// The structural index, loaded at the first structural check and then
    /// refreshed in memory from the sources (shared by clones).
    lumen: structural::Shared,
}

/// One criterion checked: every hint's result and the combined verdict.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CriterionResult {
    /// The combined verdict (hints AND'd).
    pub verdict: CriterionVerdict,
    /// Each hint's result, in the order written.
    pub hints: Vec<HintResult>,
}

impl CriterionResult {
    /// Combines the results of a criterion's hints, in the order written:
    /// automated hints AND'd, a `[manual]` one leaving a pass awaiting
    /// review.
    pub fn from_hints(hints: Vec<HintResult>) -> CriterionResult {
        let automated_ok = hints
            .iter()
            .filter(|h| h.kind != "manual")
            .all(|h| h.verdict.passed());
        let manual = hints.iter().any(|h| h.kind == "manual");
        let verdict = match (automated_ok, manual) {
            (false, _) => CriterionVerdict::Failed,
            (true, true) => CriterionVerdict::PendingReview,
            (true, false) => CriterionVerdict::Passed,
        };
        CriterionResult { verdict, hints }
    }

    /// The hints that failed, `[manual]` excluded.
    pub fn failures(&self) -> impl Iterator<Item = &HintResult> {
        self.hints
            .iter()
            .filter(|h| h.kind != "manual" && !h.verdict.passed())
    }
}

impl Verifier {
    /// A verifier for the repository at `root`. The hint environment is the
    /// current process's, reduced to the allowlist (plus `ZURDO_VERIFY=1`
    /// only with `[verification] zurdo_verify_env = true`).
    pub fn new(root: &Path, config: VerificationConfig) -> std::io::Result<Verifier> {
        let root = std::fs::canonicalize(root)?;
        let mut env = env::filter(std::env::vars(), &config.env_allowlist);
        if config.zurdo_verify_env {
            env.retain(|(k, _)| k != "ZURDO_VERIFY");
            env.push(("ZURDO_VERIFY".into(), "1".into()));
        }
        let shell = exec::find_shell(&env);
        Ok(Verifier {
            root,
            config,
            env,
            shell,
            wrapper: Vec::new(),
            at_exit: exec::AtExit::KillGroup,
            ignore_rules: None,
            lumen: Default::default(),
        })
    }

    /// Runs every `[shell:]` hint as `<wrapper…> <sh> -c <command>` (the
    /// clean room's sandbox).
    pub fn with_wrapper(mut self, wrapper: Vec<String>) -> Verifier {
        self.wrapper = wrapper;
        self
    }

    /// Checks as one verification pass: what a `[shell:]` hint leaves
    /// running when it exits (a server it started in the background) lives
    /// on for the pass's later hints, and the caller ends the pass with
    /// [`exec::reap::kill_descendants`], which kills it however it
    /// detached. Without this (the default, and the cargo-test harness,
    /// whose trials run in parallel) a hint's process group is killed when
    /// it exits.
    pub fn in_passes(mut self) -> Verifier {
        self.at_exit = exec::AtExit::Leave;
        self
    }

    /// Directory and glob searches (`[grep:]`, `[no-grep:]`) honour `rules`
    /// (taken at a run's start) instead of the repository's ignore files as
    /// they are when the hint runs: an ignore entry written since hides
    /// nothing.
    pub fn with_ignore_rules(mut self, rules: grep::IgnoreRules) -> Verifier {
        self.ignore_rules = Some(std::sync::Arc::new(rules));
        self
    }

    /// The ignore rules searches honour, when fixed.
    pub fn ignore_rules(&self) -> Option<&grep::IgnoreRules> {
        self.ignore_rules.as_deref()
    }

    /// The canonical repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A variable of the environment hints run with (`None` when the
    /// allowlist drops it).
    pub fn env_var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The shell hints run with (resolved once on the allowlisted `PATH`).
    pub fn shell_path(&self) -> &Path {
        &self.shell
    }

    /// The configuration in force.
    pub fn config(&self) -> &VerificationConfig {
        &self.config
    }

    /// Checks one hint.
    pub fn check(&self, hint: &Hint) -> HintResult {
        let started = Instant::now();
        let (verdict, evidence) = match &hint.check {
            Check::Shell { command } => self.shell(command),
            Check::Http(h) => http::check(h, self.timeout(), self.config.http_read_limit),
            Check::FileExists { path } => files::exists(&self.root, path),
            Check::FileAbsent { path } => files::absent(&self.root, path),
            Check::Grep(g) => grep::check(&self.root, g, true, self.ignore_rules.as_deref()),
            Check::NoGrep(g) => grep::check(&self.root, g, false, self.ignore_rules.as_deref()),
            Check::Symbol { .. } | Check::References { .. } | Check::Callers(_) => {
                structural::check(&self.root, &self.lumen, &hint.check)
            }
            Check::Manual => (Verdict::Fail(Reason::NeedsReview), Evidence::default()),
        };
        HintResult {
            hint: hint.source.clone(),
            kind: hint.kind(),
            verdict,
            evidence,
            elapsed: started.elapsed(),
        }
    }

    /// Checks every hint of a criterion (all of them, so every failure is
    /// on record) and combines the verdicts.
    pub fn criterion(&self, criterion: &Criterion) -> CriterionResult {
        CriterionResult::from_hints(criterion.hints.iter().map(|h| self.check(h)).collect())
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.config.criterion_seconds)
    }

    fn shell(&self, command: &str) -> (Verdict, Evidence) {
        let mut evidence = Evidence::default();
        // The zero-test judgement reads every line as it arrives, so the
        // bounded copy kept below may cut the middle without losing one.
        let mut judge = runners::Judge::new(command);
        let finished = match exec::run_shell_streamed(
            &self.wrapper,
            &self.shell,
            command,
            &self.root,
            &self.env,
            self.timeout(),
            self.at_exit,
            &mut |stream, chunk| judge.feed(stream, chunk),
        ) {
            Ok(f) => f,
            Err(e) => {
                return (
                    Verdict::Fail(Reason::SpawnFailed {
                        error: e.to_string(),
                    }),
                    evidence,
                )
            }
        };
        let judgement = judge.finish();
        evidence.stdout = Some(Captured::kept(&finished.stdout, finished.stdout_total));
        evidence.stderr = Some(Captured::kept(&finished.stderr, finished.stderr_total));
        // The tests the output shows, passing or failing.
        evidence.tests = judgement.counts;
        let verdict = match finished.ending {
            Ending::TimedOut => Verdict::Fail(Reason::Timeout {
                seconds: self.config.criterion_seconds,
            }),
            Ending::Signaled(signal) => Verdict::Fail(Reason::Signaled { signal }),
            Ending::Exited(code) => {
                evidence.exit_code = Some(code);
                match (code, judgement.objection) {
                    (0, Some(reason)) => Verdict::Fail(reason),
                    (0, None) => Verdict::Pass,
                    (code, _) => Verdict::Fail(Reason::ExitCode { code }),
                }
            }
        };
        (verdict, evidence)
    }
}
