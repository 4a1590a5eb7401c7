//! Review state: which `[manual]` criteria a task has, which approvals
//! count, what awaits review, and what a decision does to a task's state.
//! `zurdo review` records decisions through it; `zurdo run`, `zurdo
//! report` and `zurdo verify` read it.
//!
//! An approval counts only when prd.json (under its MAC) pins it to a line
//! of `review-log.jsonl` and that line is there, checks (parses, its MAC
//! and its link to the line before hold, it names a `[manual]` criterion
//! of the PRD as it is), hashes to the pinned SHA-256, and approves that
//! criterion of that task for the task's current attempt. A task is
//! `passed` only while every `[manual]` criterion it has carries an
//! approval that counts; [`reconcile`] puts one that does not back to
//! `passed-pending-review`.

use std::collections::BTreeMap;

use zurdo::verify::CriterionVerdict;
use zurdo::{naming, Prd};

use super::review_log::{self, Chain, Decision, Entry};
use super::run_state::{Approval, Rejection, RunState, Status, TaskState, MAX_ATTEMPTS};
use super::StateDir;

/// One `[manual]` criterion of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManualCriterion {
    /// Its test name, `<task module>::<criterion fn>`.
    pub name: String,
    /// Its title (the name again when only the state is known).
    pub title: String,
    /// Its PRD line.
    pub line: usize,
}

/// The `[manual]` criteria of each task (a criterion with a `[manual]`
/// hint), by task id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manual(BTreeMap<String, Vec<ManualCriterion>>);

impl Manual {
    /// From the PRD.
    pub fn of_prd(prd: &Prd) -> Manual {
        let mut by_task = BTreeMap::new();
        for task in &prd.tasks {
            let module = naming::task_module(task);
            let criteria: Vec<ManualCriterion> = task
                .criteria
                .iter()
                .zip(naming::criterion_fns(task))
                .filter(|(c, _)| c.hints.iter().any(|h| h.is_manual()))
                .map(|(c, f)| ManualCriterion {
                    name: format!("{module}::{f}"),
                    title: c.title.clone(),
                    line: c.line,
                })
                .collect();
            by_task.insert(task.id.clone(), criteria);
        }
        Manual(by_task)
    }

    /// From the run state alone (for `zurdo report`, which reads no PRD):
    /// the criteria of each task's records that awaited review.
    pub fn of_state(state: &RunState) -> Manual {
        let mut by_task = BTreeMap::new();
        for t in &state.tasks {
            let mut criteria: Vec<ManualCriterion> = Vec::new();
            let records = t
                .preflight_results
                .iter()
                .flatten()
                .chain(t.iterations.iter().flat_map(|i| &i.criteria));
            for r in records.filter(|r| r.verdict == CriterionVerdict::PendingReview) {
                if !criteria.iter().any(|c| c.name == r.name) {
                    criteria.push(ManualCriterion {
                        name: r.name.clone(),
                        title: r.name.clone(),
                        line: r.line,
                    });
                }
            }
            by_task.insert(t.id.clone(), criteria);
        }
        Manual(by_task)
    }

    /// The `[manual]` criteria of `task` (none for an unknown task).
    pub fn of(&self, task: &str) -> &[ManualCriterion] {
        self.0.get(task).map_or(&[], Vec::as_slice)
    }

    /// The criterion names of each task, as [`review_log::Expect`] wants them.
    pub fn names(&self) -> BTreeMap<String, Vec<String>> {
        self.0
            .iter()
            .map(|(t, cs)| (t.clone(), cs.iter().map(|c| c.name.clone()).collect()))
            .collect()
    }
}

/// What the log is held to, from the state directory and the record.
pub struct Anchor {
    /// The head, when prd.json vouches for one.
    pub head: Option<review_log::ChainHead>,
    /// Why there is none.
    pub unanchored: Option<String>,
}

impl Anchor {
    /// The head `state` records when `distrusted` is `None` (prd.json
    /// checks), else none, with why.
    pub fn of(state: Option<&RunState>, distrusted: Option<&str>) -> Anchor {
        match (state, distrusted) {
            (None, _) => Anchor {
                head: None,
                unanchored: Some("there is no prd.json to hold it to".into()),
            },
            (Some(_), Some(why)) => Anchor {
                head: None,
                unanchored: Some(format!("prd.json cannot be vouched for ({why})")),
            },
            (Some(s), None) => Anchor {
                head: s.review_chain.clone(),
                unanchored: s
                    .review_chain
                    .is_none()
                    .then(|| "prd.json records no chain head".to_string()),
            },
        }
    }
}

/// Reads `review-log.jsonl` of `dir` and checks it (see
/// [`review_log::check`]); an empty chain when there is no log.
pub fn read_chain(
    dir: &StateDir,
    manual: &Manual,
    prd_sha256: Option<&str>,
    anchor: &Anchor,
) -> Chain {
    let bytes = match dir.read_review_log() {
        Ok(Some(bytes)) => bytes,
        Ok(None) => Vec::new(),
        Err(why) => return Chain::unreadable(format!("it cannot be read: {why}")),
    };
    let names = manual.names();
    review_log::check(
        &bytes,
        &review_log::Expect {
            key: zurdo_base::mac::Key::user(),
            manual: Some(&names),
            prd_sha256,
            head: anchor.head.as_ref(),
            unanchored: anchor.unanchored.as_deref(),
        },
    )
}

/// Whether `approval` of `task` counts in `chain`: its entry, or why not.
pub fn counts<'c>(
    task: &TaskState,
    approval: &Approval,
    chain: &'c Chain,
) -> Result<&'c Entry, String> {
    let Some(line) = chain.line(approval.line) else {
        return Err(format!(
            "review-log.jsonl has no line {} (entries were removed)",
            approval.line
        ));
    };
    if let Some(problem) = &line.problem {
        return Err(format!("line {} does not check: {problem}", line.number));
    }
    if line.sha256 != approval.sha256 {
        return Err(format!(
            "line {} is not the entry that approved it (its SHA-256 changed)",
            line.number
        ));
    }
    let Some(entry) = line.checked() else {
        return Err(format!("line {} is not an entry", line.number));
    };
    if entry.decision != Decision::Approved
        || entry.task != task.id
        || entry.criterion != approval.criterion
    {
        return Err(format!(
            "line {} records another decision ({} {} of {})",
            line.number,
            entry.decision.name(),
            entry.criterion,
            entry.task
        ));
    }
    if entry.attempt != task.current_attempt() {
        return Err(format!(
            "line {} approved attempt {}; the task's result is now attempt {}",
            line.number,
            entry.attempt,
            task.current_attempt()
        ));
    }
    Ok(entry)
}

/// The entry of the approval of `criterion` that counts for `task`, when
/// there is one.
pub fn approved<'c>(
    task: &TaskState,
    criterion: &str,
    chain: &'c Chain,
) -> Option<(usize, &'c Entry)> {
    task.approvals
        .iter()
        .filter(|a| a.criterion == criterion)
        .find_map(|a| counts(task, a, chain).ok().map(|e| (a.line, e)))
}

/// A task whose approvals did not all count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unvouched {
    /// The task.
    pub task: String,
    /// Each approval dropped: the criterion and why it does not count.
    pub dropped: Vec<(String, String)>,
    /// Its status now (`passed-pending-review` when it had passed).
    pub status: Status,
}

/// Holds every passed (or partly approved) task to `chain`: approvals
/// that do not count are dropped, and a `passed` task with a `[manual]`
/// criterion no counted approval covers goes back to
/// `passed-pending-review`. Returns what changed.
pub fn reconcile(state: &mut RunState, manual: &Manual, chain: &Chain) -> Vec<Unvouched> {
    let mut out = Vec::new();
    for t in &mut state.tasks {
        if !matches!(t.status, Status::Passed | Status::PassedPendingReview) {
            continue;
        }
        let mut dropped = Vec::new();
        let mut kept = Vec::new();
        for a in &t.approvals {
            match counts(t, a, chain) {
                Ok(_) => kept.push(a.clone()),
                Err(why) => dropped.push((a.criterion.clone(), why)),
            }
        }
        let missing: Vec<String> = manual
            .of(&t.id)
            .iter()
            .filter(|c| !kept.iter().any(|a| a.criterion == c.name))
            .map(|c| c.name.clone())
            .collect();
        let demote = t.status == Status::Passed && !missing.is_empty();
        if demote && dropped.is_empty() {
            for name in &missing {
                dropped.push((name.clone(), "no approval is recorded for it".to_string()));
            }
        }
        if dropped.is_empty() {
            continue;
        }
        t.approvals = kept;
        if demote {
            t.status = Status::PassedPendingReview;
        }
        out.push(Unvouched {
            task: t.id.clone(),
            dropped,
            status: t.status,
        });
    }
    out
}

/// One `[manual]` criterion awaiting review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaiting {
    /// The task id.
    pub task: String,
    /// The criterion.
    pub criterion: ManualCriterion,
}

/// Every `[manual]` criterion of a `passed-pending-review` task without an
/// approval that counts, in the state's (run) order.
pub fn awaiting(state: &RunState, manual: &Manual, chain: &Chain) -> Vec<Awaiting> {
    let mut out = Vec::new();
    for t in state
        .tasks
        .iter()
        .filter(|t| t.status == Status::PassedPendingReview)
    {
        for c in manual.of(&t.id) {
            if approved(t, &c.name, chain).is_none() {
                out.push(Awaiting {
                    task: t.id.clone(),
                    criterion: c.clone(),
                });
            }
        }
    }
    out
}

/// The tree a review of `task` looks at: its last passing iteration's
/// verified tree (none for a pre-flight pass, or outside git).
pub fn verified_tree(task: &TaskState) -> Option<String> {
    task.iterations
        .last()
        .filter(|i| i.passed)
        .and_then(|i| i.verified_tree.clone())
}

/// Records an approval of `criterion` (its entry at `line`, hashing to
/// `sha256`) on `task`; the task becomes `passed` once every `[manual]`
/// criterion carries one. Returns the task's status.
pub fn approve(
    task: &mut TaskState,
    manual: &[ManualCriterion],
    criterion: &str,
    line: usize,
    sha256: &str,
) -> Status {
    task.approvals.retain(|a| a.criterion != criterion);
    task.approvals.push(Approval {
        criterion: criterion.to_string(),
        line,
        sha256: sha256.to_string(),
    });
    let all = manual
        .iter()
        .all(|c| task.approvals.iter().any(|a| a.criterion == c.name));
    if all {
        task.status = Status::Passed;
    }
    task.status
}

/// Records a rejection on `task`: back to `pending` with one more attempt
/// in its budget (the rejected attempt stays counted), its approvals
/// dropped, and `retry_context` (the `# Review` section) for its next
/// prompt.
pub fn reject(task: &mut TaskState, rejection: Rejection, retry_context: String) {
    task.status = Status::Pending;
    task.max_attempts = task.max_attempts.saturating_add(1).min(MAX_ATTEMPTS);
    task.approvals.clear();
    task.passed_at_preflight = false;
    task.retry_context = Some(retry_context);
    task.rejection = Some(rejection);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::review_log::{sha256_hex, Expect, GENESIS, VERSION};
    use zurdo_base::mac::Key;

    const PRD: &str = "# PRD: p\n\n## Task: task-2 — Sign off\n**Effort**: low\n**Depends-on**: []\n\n\
### Description\nd\n\n### Acceptance Criteria\n- [ ] it exists [file-exists: a.txt]\n- [ ] it reads well [manual]\n- [ ] it is kind [manual]\n";

    fn setup() -> (Prd, Manual, RunState) {
        let prd = zurdo::parse(PRD).expect("valid");
        let manual = Manual::of_prd(&prd);
        let state = RunState {
            version: 1,
            prd: "prds/p.md".into(),
            prd_sha1: String::new(),
            slug: "p-0000".into(),
            executor: "anthropic".into(),
            policy: String::new(),
            toolchain: vec![],
            ignore_rules: None,
            environment: None,
            started_at: String::new(),
            updated_at: String::new(),
            tasks: vec![TaskState {
                id: "task-2".into(),
                status: Status::PassedPendingReview,
                max_attempts: 3,
                ..TaskState::default()
            }],
            reasoner_calls: 0,
            challenger_calls: 0,
            review_chain: None,
        };
        (prd, manual, state)
    }

    fn entry_line(key: &Key, prev: &str, criterion: &str) -> String {
        Entry {
            v: VERSION,
            at: "t".into(),
            reviewer: "r".into(),
            task: "task-2".into(),
            criterion: criterion.into(),
            decision: Decision::Approved,
            reason: None,
            attempt: 0,
            tree: None,
            prd_sha256: "p".into(),
            prev: prev.into(),
        }
        .to_line(key)
    }

    #[test]
    fn a_task_passes_once_every_manual_criterion_is_approved_and_only_while_they_check() {
        let key = Key::from_bytes([3; 32]);
        let (_, manual, mut state) = setup();
        let names = manual.of("task-2").to_vec();
        assert_eq!(
            names.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["task_2::it_reads_well", "task_2::it_is_kind"]
        );
        let one = entry_line(&key, GENESIS, &names[0].name);
        let two = entry_line(&key, &sha256_hex(one.as_bytes()), &names[1].name);
        let t = &mut state.tasks[0];
        assert_eq!(
            approve(t, &names, &names[0].name, 1, &sha256_hex(one.as_bytes())),
            Status::PassedPendingReview
        );
        assert_eq!(
            approve(t, &names, &names[1].name, 2, &sha256_hex(two.as_bytes())),
            Status::Passed
        );
        let log = format!("{one}\n{two}\n");
        let expect = |bytes: &str| {
            review_log::check(
                bytes.as_bytes(),
                &Expect {
                    key: &key,
                    manual: Some(&manual.names()),
                    prd_sha256: None,
                    head: None,
                    unanchored: None,
                },
            )
        };
        let chain = expect(&log);
        assert!(reconcile(&mut state, &manual, &chain).is_empty());
        assert!(awaiting(&state, &manual, &chain).is_empty());
        // The second entry edited: its approval no longer counts.
        let edited = log.replace(
            "\"reviewer\":\"r\",\"task\":\"task-2\",\"criterion\":\"task_2::it_is_kind\"",
            "\"reviewer\":\"x\",\"task\":\"task-2\",\"criterion\":\"task_2::it_is_kind\"",
        );
        let chain = expect(&edited);
        let changed = reconcile(&mut state, &manual, &chain);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].status, Status::PassedPendingReview);
        assert!(
            changed[0].dropped[0].1.contains("line 2 does not check"),
            "{changed:?}"
        );
        let waiting = awaiting(&state, &manual, &chain);
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].criterion.name, "task_2::it_is_kind");
    }

    #[test]
    fn a_rejection_reopens_the_task_with_one_more_attempt() {
        let (_, _, mut state) = setup();
        let t = &mut state.tasks[0];
        t.approvals.push(Approval {
            criterion: "x".into(),
            line: 1,
            sha256: "s".into(),
        });
        reject(
            t,
            Rejection {
                criterion: "task_2::it_reads_well".into(),
                reason: "too terse".into(),
                reviewer: "r".into(),
                at: "t".into(),
                attempt: 0,
                line: 2,
            },
            "# Review\n".into(),
        );
        assert_eq!(t.status, Status::Pending);
        assert_eq!(t.max_attempts, 4);
        assert!(t.approvals.is_empty());
        assert_eq!(t.retry_context.as_deref(), Some("# Review\n"));
    }
}
