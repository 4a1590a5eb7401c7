//! Whether an edit of a PRD weakens what it verifies: the rule `zurdo
//! analyze --fix` and `zurdo heal` apply, in code, to every edit a model
//! (or a person) proposes before it is written. Pure: two parsed PRDs in,
//! the weakenings out; an empty list means the edit checks at least what
//! the PRD checked before.
//!
//! # The rule
//!
//! Tasks are paired by id. A task of the old PRD missing from the new one
//! is `task-removed`; a `**Frozen**` glob it had and lost is
//! `frozen-removed`.
//!
//! Within a task, criteria are aligned: those left exactly as they were
//! (title, hints, `[proves:]`, `[removes-tests]`) anchor the alignment (a
//! longest common subsequence), and each run of old criteria between two
//! anchors is compared, as a group, with the run of new criteria that took
//! its place. Criteria of one task are AND'd, so a group is judged by what
//! it checks in all:
//!
//! - `criterion-removed`: the group has fewer criteria than before (a
//!   criterion deleted, merged into another, or turned into text that is
//!   not a criterion);
//! - `hint-removed`: the multiset of hint kinds shrank (a hint may change
//!   its payload, never disappear): for each kind, the new group has at
//!   least as many hints of it as the old one;
//! - `replaced-by-manual`: as `hint-removed`, where a `[manual]` came in
//!   as an automated hint went out (a sign-off is not a check);
//! - `turned-constant`: a `[shell:]` in the new group can't fail by
//!   `constant-shell`'s rule (`true`, `echo ok`, `cargo test || true`) and
//!   the old group did not have that very command;
//! - `turned-vacuous`: a `[grep:]` in the new group whose pattern matches
//!   the empty string (`empty-match-regex`'s rule), which passes on any
//!   file that exists, and the old group did not have that very hint;
//! - `removes-tests-added`: more criteria of the group carry
//!   `[removes-tests]` (it exempts a criterion from `tests_vanished`);
//! - `proof-dropped`: a requirement some old criterion of the group named
//!   with `[proves:]` is named by none of the new group.
//!
//! Criteria only added (a group with no old criterion) weaken nothing:
//! another AND'd check can only make a task harder to pass.
//!
//! What the rule cannot see: a payload that checks less than before (a
//! narrower test filter, another path). That is what the diff shown to a
//! person is for.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::hint::{Check, Hint};
use crate::lint::{self, ShellExit};
use crate::model::{Criterion, Prd, Task};

/// One way an edit weakens a PRD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Weakening {
    /// The rule broken: `criterion-removed`, `hint-removed`, … (see the
    /// module's documentation).
    pub rule: &'static str,
    /// The task.
    pub task: String,
    /// The line in the old PRD it concerns (the first old criterion of the
    /// group, or the task's heading).
    pub line: usize,
    /// What is weaker, in words.
    pub message: String,
}

/// Every rule, in the order they are documented.
pub const RULES: [&str; 9] = [
    "task-removed",
    "frozen-removed",
    "criterion-removed",
    "hint-removed",
    "replaced-by-manual",
    "turned-constant",
    "turned-vacuous",
    "removes-tests-added",
    "proof-dropped",
];

/// The weakenings of `new` against `old` (none: the edit checks at least
/// what `old` checked).
pub fn compare(old: &Prd, new: &Prd) -> Vec<Weakening> {
    let mut out = Vec::new();
    for task in &old.tasks {
        let Some(after) = new.task(&task.id) else {
            out.push(Weakening {
                rule: "task-removed",
                task: task.id.clone(),
                line: task.line,
                message: format!(
                    "task `{}` and its {} criteria are gone",
                    task.id,
                    task.criteria.len()
                ),
            });
            continue;
        };
        for glob in &task.metadata.frozen {
            if !after.metadata.frozen.contains(glob) {
                out.push(Weakening {
                    rule: "frozen-removed",
                    task: task.id.clone(),
                    line: task.metadata.lines.frozen.max(task.line),
                    message: format!("the **Frozen** glob `{glob}` is gone"),
                });
            }
        }
        compare_criteria(task, after, &mut out);
    }
    out
}

/// Two criteria are the same when everything but their line is.
fn same(a: &Criterion, b: &Criterion) -> bool {
    a.title == b.title
        && a.proves == b.proves
        && a.removes_tests == b.removes_tests
        && a.hints.len() == b.hints.len()
        && a.hints
            .iter()
            .zip(&b.hints)
            .all(|(x, y)| x.check == y.check)
}

fn compare_criteria(old: &Task, new: &Task, out: &mut Vec<Weakening>) {
    let pairs = zurdo_base::seq::lcs_pairs(&old.criteria, &new.criteria, same);
    let mut from = (0, 0);
    let ends = pairs
        .iter()
        .copied()
        .chain(std::iter::once((old.criteria.len(), new.criteria.len())));
    for (oi, ni) in ends {
        let before = &old.criteria[from.0..oi];
        let after = &new.criteria[from.1..ni];
        if !before.is_empty() {
            compare_group(&old.id, before, after, out);
        }
        from = (oi + 1, ni + 1);
    }
}

fn kinds(group: &[Criterion]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for hint in hints(group) {
        *counts.entry(hint.check.kind()).or_insert(0) += 1;
    }
    counts
}

fn hints(group: &[Criterion]) -> impl Iterator<Item = &Hint> {
    group.iter().flat_map(|c| &c.hints)
}

/// Compares one group of old criteria with what replaced them.
fn compare_group(task: &str, before: &[Criterion], after: &[Criterion], out: &mut Vec<Weakening>) {
    let line = before[0].line;
    let mut push = |rule: &'static str, message: String| {
        out.push(Weakening {
            rule,
            task: task.to_string(),
            line,
            message,
        })
    };
    if after.len() < before.len() {
        let gone = before.len() - after.len();
        push(
            "criterion-removed",
            if after.is_empty() {
                format!(
                    "{} deleted: {}",
                    if gone == 1 {
                        "a criterion is".to_string()
                    } else {
                        format!("{gone} criteria are")
                    },
                    titles(before)
                )
            } else {
                format!(
                    "{} criteria ({}) became {}: a criterion was deleted",
                    before.len(),
                    titles(before),
                    after.len()
                )
            },
        );
    }
    let (old_kinds, new_kinds) = (kinds(before), kinds(after));
    let manual_added =
        new_kinds.get("manual").unwrap_or(&0) > old_kinds.get("manual").unwrap_or(&0);
    for (kind, &count) in &old_kinds {
        let now = new_kinds.get(kind).copied().unwrap_or(0);
        if now >= count {
            continue;
        }
        let lost = count - now;
        let what = if lost == 1 {
            format!("a [{kind}:] hint")
        } else {
            format!("{lost} [{kind}:] hints")
        };
        if *kind != "manual" && manual_added {
            push(
                "replaced-by-manual",
                format!("{what} became [manual]: a sign-off checks nothing automatically"),
            );
        } else {
            push(
                "hint-removed",
                format!("{what} removed ({kind} hints: {count} before, {now} after)"),
            );
        }
    }
    let old_constant: BTreeSet<&str> = hints(before)
        .filter_map(|h| match &h.check {
            Check::Shell { command } if lint::shell_exit(command) == ShellExit::CantFail => {
                Some(command.as_str())
            }
            _ => None,
        })
        .collect();
    for hint in hints(after) {
        if let Check::Shell { command } = &hint.check {
            if lint::shell_exit(command) == ShellExit::CantFail
                && !old_constant.contains(command.as_str())
            {
                push(
                    "turned-constant",
                    format!(
                        "`{}` can't fail (constant-shell): the criterion would pass whatever the work did",
                        hint.source
                    ),
                );
            }
        }
    }
    let old_vacuous: Vec<&Check> = hints(before)
        .map(|h| &h.check)
        .filter(|c| matches!(c, Check::Grep(g) if lint::matches_empty(&g.pattern)))
        .collect();
    for hint in hints(after) {
        if let Check::Grep(g) = &hint.check {
            if lint::matches_empty(&g.pattern) && !old_vacuous.contains(&&hint.check) {
                push(
                    "turned-vacuous",
                    format!(
                        "`{}` matches the empty string (empty-match-regex): it passes on any file that exists",
                        hint.source
                    ),
                );
            }
        }
    }
    let exempt = |g: &[Criterion]| g.iter().filter(|c| c.removes_tests).count();
    if exempt(after) > exempt(before) {
        push(
            "removes-tests-added",
            "[removes-tests] added: the criterion's test runners would be exempt from the tests_vanished check".into(),
        );
    }
    let new_proves: BTreeSet<&String> = after.iter().flat_map(|c| &c.proves).collect();
    let old_proves: BTreeSet<&String> = before.iter().flat_map(|c| &c.proves).collect();
    for req in old_proves.difference(&new_proves) {
        push(
            "proof-dropped",
            format!("[proves:{req}] dropped: `{req}` would be proved by one criterion fewer"),
        );
    }
}

fn titles(group: &[Criterion]) -> String {
    group
        .iter()
        .map(|c| format!("\"{}\" (line {})", c.title, c.line))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "# PRD: w\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n**Frozen**: tests/golden/**\n\n### Requirements\n- req-a: a\n- req-b: b\n\n### Description\nDo it.\n\n### Acceptance Criteria\n";

    fn prd(criteria: &str) -> Prd {
        crate::parse(&format!("{HEAD}{criteria}")).expect("a valid PRD")
    }

    const BASE: &str = "- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [grep: fn open in src/store.rs] [proves:req-b]\n- [ ] reviewed [manual]\n";

    fn rules(new: &str) -> Vec<&'static str> {
        compare(&prd(BASE), &prd(new))
            .into_iter()
            .map(|w| w.rule)
            .collect()
    }

    #[test]
    fn an_unchanged_or_stronger_prd_weakens_nothing() {
        assert!(rules(BASE).is_empty());
        // A payload may change, a hint may be added, a criterion added or
        // retitled, criteria reordered within a changed group.
        let stronger = "- [ ] the store tests pass [shell: cargo test --features db store::] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [grep: fn open in src/store.rs] [grep: fn close in src/store.rs] [proves:req-b]\n- [ ] reviewed [manual]\n- [ ] a bad key is refused [shell: cargo test store::bad_key]\n";
        assert!(rules(stronger).is_empty(), "{:?}", rules(stronger));
        // One criterion split into two keeps every hint.
        let split = "- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [proves:req-b]\n- [ ] it opens [grep: fn open in src/store.rs] [proves:req-b]\n- [ ] reviewed [manual]\n";
        assert!(rules(split).is_empty(), "{:?}", rules(split));
    }

    #[test]
    fn a_deleted_or_merged_criterion_is_caught() {
        let deleted = "- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] reviewed [manual]\n";
        assert_eq!(
            rules(deleted),
            [
                "criterion-removed",
                "hint-removed",
                "hint-removed",
                "proof-dropped"
            ]
        );
        let merged = "- [ ] all of it [shell: cargo test store::] [file-exists: src/store.rs] [grep: fn open in src/store.rs] [proves:req-a] [proves:req-b]\n- [ ] reviewed [manual]\n";
        assert_eq!(rules(merged), ["criterion-removed"]);
        let w = compare(&prd(BASE), &prd(merged));
        assert_eq!(w[0].line, 16, "{w:?}");
        assert!(w[0].message.contains("\"tests pass\""), "{}", w[0].message);
    }

    #[test]
    fn a_removed_hint_is_caught_even_when_another_kind_came_in() {
        let swapped = "- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [symbol: Store::open] [proves:req-b]\n- [ ] reviewed [manual]\n";
        assert_eq!(rules(swapped), ["hint-removed"]);
        let no_review = "- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [grep: fn open in src/store.rs] [proves:req-b]\n- [ ] reviewed [file-exists: REVIEWED]\n";
        assert_eq!(
            rules(no_review),
            ["hint-removed"],
            "a sign-off is a hint too"
        );
    }

    #[test]
    fn an_automated_hint_replaced_by_manual_is_named_so() {
        let manual = "- [ ] tests pass [manual] [proves:req-a]\n- [ ] file there [file-exists: src/store.rs] [grep: fn open in src/store.rs] [proves:req-b]\n- [ ] reviewed [manual]\n";
        assert_eq!(rules(manual), ["replaced-by-manual"]);
    }

    #[test]
    fn a_shell_turned_constant_is_caught_and_an_old_constant_is_not_new() {
        for constant in [
            "cargo test store:: || true",
            "true",
            "echo ok",
            "cargo test store::; exit 0",
        ] {
            let new = BASE.replace("cargo test store::]", &format!("{constant}]"));
            assert_eq!(rules(&new), ["turned-constant"], "{constant}");
        }
        // Can't pass is not weaker (it is broken, and a lint says so).
        assert!(rules(&BASE.replace("cargo test store::]", "exit 1]")).is_empty());
        let was = BASE.replace("cargo test store::]", "true]");
        let still = was.replace("tests pass", "tests still pass");
        assert!(compare(&prd(&was), &prd(&still)).is_empty());
    }

    #[test]
    fn a_grep_turned_vacuous_is_caught() {
        let new = BASE.replace("fn open in", ".* in");
        assert_eq!(rules(&new), ["turned-vacuous"]);
        // A [no-grep:] that matches everything can't pass: not weaker.
        let no = BASE.replace("[grep: fn open in", "[no-grep: .* in");
        assert_eq!(rules(&no), ["hint-removed"], "the grep is gone, though");
    }

    #[test]
    fn removes_tests_added_and_proofs_dropped_are_caught() {
        let exempt = BASE.replace(
            "[shell: cargo test store::] [proves:req-a]",
            "[shell: cargo test store::] [proves:req-a] [removes-tests]",
        );
        assert_eq!(rules(&exempt), ["removes-tests-added"]);
        let unproven = BASE.replace(" [proves:req-a]", "");
        assert_eq!(rules(&unproven), ["proof-dropped"]);
        // The proof may move to another criterion of the group.
        let moved = "- [ ] tests pass [shell: cargo test store::]\n- [ ] file there [file-exists: src/store.rs] [grep: fn open in src/store.rs] [proves:req-b] [proves:req-a]\n- [ ] reviewed [manual]\n";
        assert!(rules(moved).is_empty(), "{:?}", rules(moved));
    }

    #[test]
    fn tasks_and_frozen_globs_are_kept() {
        let old = prd(BASE);
        let mut new = old.clone();
        new.tasks[0].metadata.frozen.clear();
        assert_eq!(
            compare(&old, &new)
                .into_iter()
                .map(|w| w.rule)
                .collect::<Vec<_>>(),
            ["frozen-removed"]
        );
        new.tasks.clear();
        assert_eq!(
            compare(&old, &new)
                .into_iter()
                .map(|w| w.rule)
                .collect::<Vec<_>>(),
            ["task-removed"]
        );
    }

    #[test]
    fn every_rule_is_documented() {
        let docs = include_str!("../../docs/analyze.md");
        for rule in RULES {
            assert!(docs.contains(&format!("`{rule}`")), "{rule}");
        }
    }
}
