//! Lints about criteria as a whole rather than one hint:
//!
//! - `duplicate-criterion`: two criteria of a task check the same things;
//! - `all-manual-task`: every criterion of a task is `[manual]`;
//! - `unproven-requirement`: a requirement no criterion proves;
//! - `manual-with-automation`: `[manual]` ANDed with automated hints.

use super::{
    Lint, ALL_MANUAL_TASK, DUPLICATE_CRITERION, MANUAL_WITH_AUTOMATION, UNPROVEN_REQUIREMENT,
};
use crate::hint::{Check, Hint};
use crate::model::{Criterion, Task};

/// The hints of a criterion as written, space-separated.
fn written(criterion: &Criterion) -> String {
    criterion
        .hints
        .iter()
        .map(|h| h.source.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when both criteria check the same set of things (order and
/// repetition ignored).
fn same_checks(a: &Criterion, b: &Criterion) -> bool {
    let subset = |x: &[Hint], y: &[Hint]| {
        x.iter()
            .all(|h| y.iter().any(|other| other.check == h.check))
    };
    !a.hints.is_empty() && subset(&a.hints, &b.hints) && subset(&b.hints, &a.hints)
}

fn has_manual(criterion: &Criterion) -> bool {
    criterion.hints.iter().any(Hint::is_manual)
}

/// Reports `duplicate-criterion` on the later of two criteria with equal
/// hint sets. Criteria with `[manual]` are left out: two sign-offs with
/// different instructions are different checks.
pub(crate) fn duplicates(task: &Task, out: &mut Vec<Lint>) {
    for (i, later) in task.criteria.iter().enumerate() {
        if has_manual(later) {
            continue;
        }
        let first = task.criteria[..i]
            .iter()
            .find(|earlier| !has_manual(earlier) && same_checks(earlier, later));
        if let Some(first) = first {
            out.push(Lint::new(
                DUPLICATE_CRITERION,
                later.line,
                format!(
                    "`{}` checks the same things as the criterion on line {}: this criterion \
                     proves nothing new",
                    written(later),
                    first.line
                ),
                format!(
                    "delete it, or change its hints to check what its title (\"{}\") claims",
                    later.title
                ),
            ));
        }
    }
}

/// Reports `all-manual-task` on the task heading.
pub(crate) fn all_manual(task: &Task, out: &mut Vec<Lint>) {
    let manual_only = |c: &Criterion| !c.hints.is_empty() && c.hints.iter().all(Hint::is_manual);
    if task.criteria.is_empty() || !task.criteria.iter().all(manual_only) {
        return;
    }
    out.push(Lint::new(
        ALL_MANUAL_TASK,
        task.line,
        format!(
            "every criterion of `{}` is `[manual]`: zurdo can never verify it, so it settles as \
             passed-pending-review without an agent doing anything",
            task.id
        ),
        "add an automated criterion that proves the work, e.g. [shell: cargo test --workspace] \
         or [file-exists: <path>], and keep the [manual] sign-off beside it",
    ));
}

/// Reports `unproven-requirement` on each requirement no criterion proves.
pub(crate) fn unproven(task: &Task, out: &mut Vec<Lint>) {
    for requirement in &task.requirements {
        let proved = task
            .criteria
            .iter()
            .any(|c| c.proves.contains(&requirement.id));
        if proved {
            continue;
        }
        let id = &requirement.id;
        out.push(Lint::new(
            UNPROVEN_REQUIREMENT,
            requirement.line,
            format!(
                "requirement `{id}` is proved by no criterion: no `[proves:{id}]` in `{}`, so \
                 nothing checks it",
                task.id
            ),
            format!(
                "add [proves:{id}] after the hints of the criterion that checks it, or add a \
                 criterion that does"
            ),
        ));
    }
}

/// Reports `manual-with-automation` on each criterion mixing the two.
pub(crate) fn manual_with_automation(task: &Task, out: &mut Vec<Lint>) {
    for criterion in &task.criteria {
        let automated: Vec<&str> = criterion
            .hints
            .iter()
            .filter(|h| !matches!(h.check, Check::Manual))
            .map(|h| h.source.as_str())
            .collect();
        if automated.is_empty() || !has_manual(criterion) {
            continue;
        }
        out.push(Lint::new(
            MANUAL_WITH_AUTOMATION,
            criterion.line,
            format!(
                "`{}` ANDs [manual] with automated hints: it can never pass automatically, so \
                 the automated verdict is buried in a review",
                written(criterion)
            ),
            format!(
                "split it into two criteria: one with `{}`, and one with [manual] for the \
                 human sign-off",
                automated.join(" ")
            ),
        ));
    }
}
