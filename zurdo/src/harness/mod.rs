//! The cargo-test harness runtime: every acceptance criterion becomes one
//! libtest-mimic trial, so `cargo test --test prd`, `cargo nextest` and IDE
//! test explorers discover and run them.
//!
//! The `prd!` macro and [`crate::build`] generate a `main` that calls
//! [`main`] with the PRD text embedded at compile time: the verdicts rest on
//! the PRD as it was compiled, not on whatever the file says at run time.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::model::{Criterion, Prd};
use crate::source;
use crate::verify::{self, CriterionVerdict, VerificationConfig, Verifier};

/// One PRD compiled into the harness.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// The path as the user wrote it (used in messages).
    pub display: &'static str,
    /// The absolute path at compile time (used to find the repository root).
    pub path: &'static str,
    /// The PRD text, embedded with `include_str!`.
    pub text: &'static str,
    /// A module prefix for the trial names when one harness holds several
    /// PRDs (`feature::task_1::works`); `None` for a single PRD.
    pub module: Option<&'static str>,
}

/// The harness entry point: parses libtest's arguments, runs the trials and
/// returns libtest's exit code (2 when the PRD or config cannot be loaded).
pub fn main(sources: &[Source]) -> ExitCode {
    // Criteria run as this process's grandchildren: keep its environment
    // (all of the developer's, before the allowlist) out of their reach.
    crate::exec::protect_own_environment();
    let args = Arguments::from_args();
    match trials(sources) {
        Ok(trials) => libtest_mimic::run(&args, trials).exit_code(),
        Err(message) => {
            eprintln!("zurdo: {message}");
            ExitCode::from(2)
        }
    }
}

/// One trial per criterion of every source, tasks in run order. Criteria
/// with a `[manual]` hint are ignored trials (they never pass
/// automatically; `--ignored` runs them, and they fail awaiting review).
pub fn trials(sources: &[Source]) -> Result<Vec<Trial>, String> {
    let mut trials = Vec::new();
    for source in sources {
        let prd = crate::parse(source.text).map_err(|errors| {
            let lines: Vec<String> = errors.iter().map(|e| e.render(source.display)).collect();
            lines.join("\n")
        })?;
        let root = source::repo_root(Path::new(source.path));
        let config = VerificationConfig::load(&root).map_err(|e| e.to_string())?;
        let verifier =
            Arc::new(Verifier::new(&root, config).map_err(|e| {
                format!("{}: cannot open the repository root: {e}", root.display())
            })?);
        add_trials(&mut trials, source, &prd, &verifier);
        add_sealed(&mut trials, source, &prd, &root, &verifier)?;
        add_standing(&mut trials, source, &verifier)?;
    }
    Ok(trials)
}

/// One trial per `[[verification.standing]]` rule, named
/// `standing::<why as an identifier>` (under the PRD's module when the
/// harness holds several PRDs).
fn add_standing(
    trials: &mut Vec<Trial>,
    source: &Source,
    verifier: &Arc<Verifier>,
) -> Result<(), String> {
    let rules = verifier.config().standing_rules()?;
    let mut names: Vec<String> = Vec::new();
    for rule in rules {
        let base = crate::naming::identifier(&rule.why);
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        names.push(name.clone());
        let full = match source.module {
            Some(module) => format!("{module}::standing::{name}"),
            None => format!("standing::{name}"),
        };
        let verifier = Arc::clone(verifier);
        trials.push(Trial::test(full, move || {
            let result = verifier.check(&rule.hint);
            if result.verdict.passed() {
                Ok(())
            } else {
                Err(verify::render::standing_failure(&rule, &result).into())
            }
        }));
    }
    Ok(())
}

/// The environment variable that names a sealed file for the harness
/// (takes the place of `[verification] sealed`).
pub const SEALED_ENV: &str = "ZURDO_SEALED";

/// One trial per sealed criterion ([`crate::sealed`]), named
/// `<task>::sealed::<criterion>`, when a sealed file is named
/// (`ZURDO_SEALED`, else `[verification] sealed`) and present. One the
/// config names that is not on this machine is said on stderr and skipped
/// (a teammate without the file still runs the PRD's own criteria); one
/// `ZURDO_SEALED` names must be there.
fn add_sealed(
    trials: &mut Vec<Trial>,
    source: &Source,
    prd: &Prd,
    root: &Path,
    verifier: &Arc<Verifier>,
) -> Result<(), String> {
    let (path, required) = match std::env::var_os(SEALED_ENV) {
        Some(path) if !path.is_empty() => (std::path::PathBuf::from(path), true),
        _ => match &verifier.config().sealed {
            Some(written) => (crate::sealed::resolve(written), false),
            None => return Ok(()),
        },
    };
    if !required && !path.exists() {
        eprintln!(
            "zurdo: the sealed criteria of {} ({}) are not on this machine: not run",
            source.display,
            path.display()
        );
        return Ok(());
    }
    let sealed = crate::sealed::load(&path, prd, root)?;
    let display: &'static str = Box::leak(sealed.path.display().to_string().into_boxed_str());
    for &index in &prd.run_order {
        let task = &prd.tasks[index];
        let mut names: Vec<String> = Vec::new();
        for criterion in sealed.of(&task.id) {
            let base = crate::naming::identifier(&criterion.title);
            let mut name = base.clone();
            let mut n = 1;
            while names.contains(&name) {
                n += 1;
                name = format!("{base}_{n}");
            }
            names.push(name.clone());
            let module = crate::naming::task_module(task);
            let full = match source.module {
                Some(prefix) => format!("{prefix}::{module}::sealed::{name}"),
                None => format!("{module}::sealed::{name}"),
            };
            let manual = criterion.hints.iter().any(|h| h.is_manual());
            let verifier = Arc::clone(verifier);
            let criterion = criterion.clone();
            trials.push(
                Trial::test(full, move || run(&verifier, &criterion, display))
                    .with_ignored_flag(manual),
            );
        }
    }
    Ok(())
}

fn add_trials(trials: &mut Vec<Trial>, source: &Source, prd: &Prd, verifier: &Arc<Verifier>) {
    let names = crate::naming::test_names(prd);
    for &index in &prd.run_order {
        let task = &prd.tasks[index];
        for (criterion, name) in task.criteria.iter().zip(&names[index]) {
            let name = match source.module {
                Some(module) => format!("{module}::{name}"),
                None => name.clone(),
            };
            let manual = criterion.hints.iter().any(|h| h.is_manual());
            let verifier = Arc::clone(verifier);
            let criterion = criterion.clone();
            let display = source.display;
            trials.push(
                Trial::test(name, move || run(&verifier, &criterion, display))
                    .with_ignored_flag(manual),
            );
        }
    }
}

fn run(verifier: &Verifier, criterion: &Criterion, display: &str) -> Result<(), Failed> {
    let result = verifier.criterion(criterion);
    match result.verdict {
        CriterionVerdict::Passed => Ok(()),
        CriterionVerdict::PendingReview | CriterionVerdict::Failed => {
            Err(verify::render::failure(display, criterion, &result).into())
        }
    }
}
