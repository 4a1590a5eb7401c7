//! Sealed criteria: acceptance criteria the agent never sees. They live in
//! a PRD-shaped file outside the repository (`--sealed <file>`, or
//! `[verification] sealed`), written in the same grammar; each of its tasks
//! carries the id of a task of the PRD and adds its criteria to that task.
//! They gate the task like any criterion, but no prompt holds them and no
//! retry prompt echoes their output (only "a sealed criterion failed: <the
//! typed reason>").
//!
//! A sealed file inside the repository is refused: the agent works there
//! and would read it. A file the agent can read elsewhere (same user, no
//! sandbox) is not hidden either: `docs/run.md` says so, and what makes
//! it unreadable (the agent as another user).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::model::{Criterion, Prd};

/// A loaded sealed file.
#[derive(Debug, Clone)]
pub struct Sealed {
    /// Where it was read from (canonical).
    pub path: PathBuf,
    /// SHA-256 of its bytes, hex (recorded in the run's policy).
    pub sha256: String,
    /// The sealed criteria of each PRD task that has some.
    pub by_task: BTreeMap<String, Vec<Criterion>>,
}

impl Sealed {
    /// The sealed criteria of `task` (none when it has none).
    pub fn of(&self, task: &str) -> &[Criterion] {
        self.by_task.get(task).map_or(&[], Vec::as_slice)
    }

    /// How many sealed criteria there are in all.
    pub fn count(&self) -> usize {
        self.by_task.values().map(Vec::len).sum()
    }
}

/// Where a sealed path as written (`[verification] sealed`: absolute, or
/// under `~/`) is: `~/` is `$HOME`'s.
pub fn resolve(written: &str) -> PathBuf {
    match (written.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(written),
    }
}

/// SHA-256 of the file a sealed path as written names, hex; `None` when it
/// cannot be read.
pub fn sha256_of(written: &str) -> Option<String> {
    let bytes = std::fs::read(resolve(written)).ok()?;
    Some(hex(&bytes))
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads the sealed file at `path` for `prd` (whose repository root is
/// `root`): refused when it is inside the repository, when it does not
/// parse (every error as `<path>:<line>: <message>`, the fix beside it),
/// or when one of its tasks is not a task of the PRD. The error is the
/// whole message.
pub fn load(path: &Path, prd: &Prd, root: &Path) -> Result<Sealed, String> {
    let shown = path.display().to_string();
    let real = std::fs::canonicalize(path)
        .map_err(|e| format!("{shown}: cannot read the sealed criteria: {e}"))?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if real.starts_with(&root) {
        return Err(format!(
            "{shown}: a sealed file inside the repository ({}) is not sealed: the agent works there and would read it; keep it outside, e.g. in ~/.config/zurdo/sealed/",
            root.display()
        ));
    }
    let bytes = crate::source::read(&real).map_err(|e| e.to_string())?;
    let sealed = crate::parse_bytes(&bytes).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(|e| e.render(&shown)).collect();
        format!(
            "{shown} is not a valid sealed file (the PRD grammar):\n{}",
            lines.join("\n")
        )
    })?;
    let mut by_task = BTreeMap::new();
    let mut unknown = Vec::new();
    for task in sealed.tasks {
        if prd.task(&task.id).is_none() {
            unknown.push(format!(
                "{shown}:{}: sealed task `{}` is not a task of the PRD\n  fix: name a task the PRD has ({})",
                task.line,
                task.id,
                prd.tasks
                    .iter()
                    .map(|t| t.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        }
        by_task.insert(task.id, task.criteria);
    }
    if !unknown.is_empty() {
        return Err(unknown.join("\n"));
    }
    Ok(Sealed {
        path: real,
        sha256: hex(&bytes),
        by_task,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRD: &str = "# PRD: p\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
                       ### Acceptance Criteria\n- [ ] visible [file-exists: a]\n";

    fn sealed_text(task: &str) -> String {
        format!(
            "# PRD: sealed\n\n## Task: {task} — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nhidden\n\n\
             ### Acceptance Criteria\n- [ ] hidden [file-exists: b]\n"
        )
    }

    #[test]
    fn a_sealed_file_adds_criteria_to_the_prd_s_tasks_and_is_refused_inside_the_repository() {
        let prd = crate::parse(PRD).expect("valid");
        let repo = tempfile::tempdir().expect("repo");
        let outside = tempfile::tempdir().expect("outside");
        let path = outside.path().join("sealed.md");
        std::fs::write(&path, sealed_text("task-1")).expect("write");
        let sealed = load(&path, &prd, repo.path()).expect("loads");
        assert_eq!(sealed.of("task-1").len(), 1);
        assert_eq!(sealed.of("task-1")[0].title, "hidden");
        assert_eq!(sealed.count(), 1);
        assert_eq!(sealed.sha256.len(), 64);

        std::fs::write(&path, sealed_text("task-9")).expect("write");
        let e = load(&path, &prd, repo.path()).expect_err("unknown task");
        assert!(
            e.contains("sealed.md:3: sealed task `task-9` is not a task of the PRD"),
            "{e}"
        );

        std::fs::write(&path, "# PRD: x\n\n## Task: task-1 - bad\n").expect("write");
        let e = load(&path, &prd, repo.path()).expect_err("grammar");
        assert!(
            e.contains("is not a valid sealed file") && e.contains("sealed.md:3:"),
            "{e}"
        );

        let inside = repo.path().join("sealed.md");
        std::fs::write(&inside, sealed_text("task-1")).expect("write");
        let e = load(&inside, &prd, repo.path()).expect_err("inside");
        assert!(e.contains("inside the repository"), "{e}");
    }
}
