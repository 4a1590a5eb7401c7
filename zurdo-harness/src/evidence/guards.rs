//! The integrity guards of one run, behind one type. [`Guards`] holds what
//! they share (the repository root, the run's `[verification]` policy, the
//! tracked tool words and the run-start [`Baseline`]) and answers each
//! question the loop asks around a verification: what tree is being
//! verified, which frozen paths changed, whether the toolchain moved, what
//! changed in the verdict and environment surfaces, what a clean room
//! says, which changed files no hint read. Each answer is a
//! value; reporting and recording them is the loop's job.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use zurdo::verify::{
    CriterionResult, CriterionVerdict, StandingRule, Verdict, VerificationConfig, Verifier,
};
use zurdo::Task;

use super::commands::Commands;
use super::environment::{EnvSurface, Environment};
use super::frozen::{Frozen, Snapshot, StandDown};
use super::surface::{self, Surface};
use super::toolchain::{self, Tool};
use super::{baseline, room, Baseline, BaselineError, Caught};

/// Which of a task's changed files the criteria read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// Changed files some hint reads.
    pub witnessed: Vec<String>,
    /// Changed files no hint reads (not wrong, but where to look first).
    pub unwitnessed: Vec<String>,
}

/// What the clean room said about a passing iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CleanRoom {
    /// `[verification] clean_room = "off"`, or the iteration had already failed.
    NotRun,
    /// There is no git baseline to check out.
    NoBaseline,
    /// It ran; what passed in place but failed there (empty: all held).
    Ran(Vec<String>),
}

impl CleanRoom {
    /// The mismatches (none unless it ran and found some).
    pub fn mismatches(&self) -> &[String] {
        match self {
            CleanRoom::Ran(m) => m,
            _ => &[],
        }
    }
}

/// The guards of one run.
#[derive(Debug)]
pub struct Guards {
    root: PathBuf,
    verification: VerificationConfig,
    ignore_rules: Option<zurdo::verify::IgnoreRules>,
    tool_words: BTreeSet<String>,
    path_var: String,
    baseline: Option<Baseline>,
    surface: surface::Settings,
    environment: Environment,
}

impl Guards {
    /// Guards over `verifier`'s repository and policy, tracking what the
    /// hints' `commands` run (see [`Commands`]).
    pub fn new(verifier: &Verifier, commands: &Commands) -> Guards {
        let config = verifier.config();
        let env = zurdo::verify::env::filter(std::env::vars(), &config.env_allowlist);
        Guards {
            root: verifier.root().to_path_buf(),
            verification: config.clone(),
            ignore_rules: verifier.ignore_rules().cloned(),
            tool_words: commands.tool_words(),
            path_var: verifier.env_var("PATH").unwrap_or("").to_string(),
            baseline: None,
            surface: surface::Settings::new(
                commands,
                &config.verdict_surface_extra,
                &config.surface_exempt,
            ),
            environment: Environment::new(verifier.root(), env, commands, &config.surface_exempt),
        }
    }

    /// Takes the run-start snapshot (a resumed run takes a fresh one, so its
    /// run-diff.patch covers the work since the resume).
    pub fn capture_run_baseline(&mut self) -> Result<&Baseline, BaselineError> {
        let captured = baseline::capture(&self.root)?;
        Ok(self.baseline.insert(captured))
    }

    /// The working tree now, as a git tree id, when there is a run baseline
    /// (outside git every guard that needs one is off).
    pub fn tree_now(&self) -> Option<String> {
        self.baseline.as_ref()?;
        baseline::capture(&self.root).ok().map(|b| b.tree)
    }

    /// Keeps `tree` alive as `refs/zurdo/<slug>/<task>` (a task's rollback
    /// point).
    pub fn record_task_ref(&self, slug: &str, task: &str, tree: &str) -> Result<(), BaselineError> {
        baseline::record_ref(&self.root, slug, task, tree)
    }

    /// `sh` and the tracked tool words, resolved on the allowlisted `PATH`
    /// and hashed.
    pub fn toolchain(&self) -> Vec<Tool> {
        toolchain::resolve(&self.tool_words, &self.path_var, &self.root)
    }

    /// What moved or changed since `recorded`, one line each.
    pub fn toolchain_changes(&self, recorded: &[Tool]) -> Vec<String> {
        toolchain::changed(recorded, &self.toolchain())
    }

    /// The environment surface at run start (`None` with
    /// `[verification] environment_surface = false`).
    pub fn environment(&self) -> Option<EnvSurface> {
        self.verification
            .environment_surface
            .then(|| self.environment.record())
    }

    /// What was planted in the environment since `recorded` (the run-start
    /// surface and `toolchain`), and the toolchain's warnings (tools outside
    /// the repository that moved or changed). Without a recorded surface
    /// every toolchain change only warns.
    pub fn environment_changes(
        &self,
        recorded: Option<&EnvSurface>,
        toolchain: &[Tool],
    ) -> (Vec<Caught>, Vec<String>) {
        match recorded {
            Some(env) if self.verification.environment_surface => {
                self.environment.changes(env, toolchain)
            }
            _ => (Vec::new(), self.toolchain_changes(toolchain)),
        }
    }

    /// The verdict surface now (`None` with `[verification] verdict_surface
    /// = false`).
    pub fn verdict_surface(&self) -> Option<Result<Surface, surface::StandDown>> {
        self.verification
            .verdict_surface
            .then(|| self.surface.snapshot(&self.root))
    }

    /// What changed in the verdict surface since the task's snapshot
    /// `base`. When the walk stands down (the tree grew past its limit),
    /// the files `base` holds are still compared, and the stand-down is
    /// returned for a warning.
    pub fn verdict_surface_changes(
        &self,
        base: &Surface,
    ) -> (Vec<Caught>, Option<surface::StandDown>) {
        if !self.verification.verdict_surface {
            return (Vec::new(), None);
        }
        match self.surface.snapshot(&self.root) {
            Ok(now) => (surface::changes(base, &now), None),
            Err(down) => {
                let now = self.surface.snapshot_of(&self.root, base.keys());
                (surface::changes(base, &now), Some(down))
            }
        }
    }

    /// The frozen set of `task`: its globs, `protected_paths`, the defaults.
    pub fn frozen(&self, task: &Task) -> Frozen {
        Frozen::new(&task.metadata.frozen, &self.verification.protected_paths)
    }

    /// The hashes of every file `set` matches.
    pub fn snapshot(&self, set: &Frozen) -> Result<Snapshot, StandDown> {
        set.snapshot(&self.root)
    }

    /// The frozen paths among those that differ between the task's baseline
    /// tree `base` and `tree` (tracked and untracked files, not ignored ones:
    /// the hashing leg covers those). It holds however many files the globs
    /// match, so it still works where hashing stands down. `folded` paths
    /// (written by a criterion, not the agent) are not charged.
    pub fn frozen_in_tree_diff(
        &self,
        set: &Frozen,
        base: Option<&str>,
        tree: Option<&str>,
        folded: &BTreeSet<&String>,
    ) -> Vec<String> {
        let (Some(base), Some(tree)) = (base, tree) else {
            return Vec::new();
        };
        let Ok(changed) = baseline::changed_paths(&self.root, base, tree) else {
            return Vec::new();
        };
        set.matching(&changed)
            .into_iter()
            .filter(|p| !folded.contains(p))
            .collect()
    }

    /// With `[verification] clean_room` on: the task's criteria and the
    /// standing rules again, in a fresh checkout of exactly `tree` outside
    /// the working directory (under bubblewrap when so configured).
    pub fn clean_room(
        &self,
        task: &Task,
        standing: &[StandingRule],
        tree: Option<&str>,
    ) -> CleanRoom {
        let backend = self.verification.clean_room.as_str();
        if backend == "off" {
            return CleanRoom::NotRun;
        }
        let Some(tree) = tree else {
            return CleanRoom::NoBaseline;
        };
        let dir = std::env::temp_dir().join(format!(
            "zurdo-room-{}-{}",
            std::process::id(),
            &tree[..12.min(tree.len())]
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let verifier = room::materialize(&self.root, tree, &dir).and_then(|_| {
            let mut v = Verifier::new(&dir, self.verification.clone())
                .map_err(|e| e.to_string())?
                .in_passes();
            if let Some(rules) = &self.ignore_rules {
                v = v.with_ignore_rules(rules.clone());
            }
            Ok(if backend == "bubblewrap" {
                v.with_wrapper(room::bubblewrap(&self.root, &dir))
            } else {
                v
            })
        });
        let mismatches = match verifier {
            Ok(v) => mismatches_in(&v, task, standing),
            Err(e) => vec![format!(
                "clean_room_mismatch: the room could not be built: {e}"
            )],
        };
        let _ = std::fs::remove_dir_all(&dir);
        CleanRoom::Ran(mismatches)
    }

    /// After a pass: which files changed between the task's baseline tree
    /// `start` and `tree` that some hint of `results` read, and which none
    /// did.
    pub fn witness(&self, start: &str, tree: &str, results: &[CriterionResult]) -> Option<Witness> {
        let changed = baseline::changed_paths(&self.root, start, tree).ok()?;
        let read: BTreeSet<&str> = results
            .iter()
            .flat_map(|r| &r.hints)
            .flat_map(|h| &h.evidence.blobs)
            .map(|b| b.path.as_str())
            .collect();
        let (witnessed, unwitnessed) = changed.into_iter().partition(|p| read.contains(p.as_str()));
        Some(Witness {
            witnessed,
            unwitnessed,
        })
    }

    /// `run-diff.patch`: everything the run changed since its (latest)
    /// start; `None` without a baseline.
    pub fn run_diff(&self) -> Option<Result<Vec<u8>, BaselineError>> {
        let start = self.baseline.as_ref()?;
        let end = self.tree_now()?;
        let label = format!("run start {}", start.captured_at);
        Some(baseline::diff_patch_bytes(
            &self.root,
            &start.tree,
            &end,
            &label,
        ))
    }

    /// The patch between two verified trees (for a lesson's evidence).
    pub fn diff(&self, from: &str, to: &str, label: &str) -> Result<Vec<u8>, BaselineError> {
        baseline::diff_patch_bytes(&self.root, from, to, label)
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// What fails under `verifier` (the room's) among `task`'s criteria and the
/// standing rules.
fn mismatches_in(verifier: &Verifier, task: &Task, standing: &[StandingRule]) -> Vec<String> {
    let mut out = Vec::new();
    for criterion in &task.criteria {
        let r = verifier.criterion(criterion);
        if r.verdict != CriterionVerdict::Failed {
            continue;
        }
        for h in r.failures() {
            if let Verdict::Fail(reason) = &h.verdict {
                out.push(format!(
                    "clean_room_mismatch: {} {} — in the room: {reason}",
                    criterion.title, h.hint
                ));
            }
        }
    }
    for rule in standing {
        if let Verdict::Fail(reason) = &verifier.check(&rule.hint).verdict {
            out.push(format!(
                "clean_room_mismatch: standing rule {} — in the room: {reason}",
                rule.hint.source
            ));
        }
    }
    out
}
