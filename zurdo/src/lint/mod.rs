//! Lints: warnings about criteria that can't fail, can't pass, or can't be
//! trusted. They never make a PRD invalid.
//!
//! Thirteen families are named in [`FAMILIES`]; `zurdo validate` reports
//! the twelve in [`VALIDATE_FAMILIES`]. The thirteenth,
//! `unaddressed-lesson`, needs the lesson library (which lives in
//! zurdo-harness) and is reported by `zurdo analyze` only.
//! `docs/lints.md` describes each family.

use std::path::Path;

use serde::Serialize;

use crate::model::Prd;

pub mod cargo_test;
mod constant_shell;
mod criteria;
mod empty_match;
mod http;
mod masked_exit;
mod paths;

/// A `[shell:]` whose exit status is fixed by construction.
pub const CONSTANT_SHELL: &str = "constant-shell";
/// A test or build runner piped into a filter without `pipefail`.
pub const MASKED_EXIT_CODE: &str = "masked-exit-code";
/// One task requires the same path present and absent.
pub const CONTRADICTORY_PATHS: &str = "contradictory-paths";
/// A `[no-grep:]` on a missing file nothing requires to exist.
pub const VACUOUS_NO_GREP: &str = "vacuous-no-grep";
/// A `[grep:]`/`[no-grep:]` that searches the PRD itself.
pub const GREP_READS_PRD: &str = "grep-reads-prd";
/// A `cargo test` that re-runs the harness verifying this PRD.
pub const RECURSIVE_CARGO_TEST: &str = "recursive-cargo-test";
/// An `[http:]` aimed at another machine.
pub const NON_LOCAL_HTTP: &str = "non-local-http";
/// A criterion whose hints repeat an earlier criterion's.
pub const DUPLICATE_CRITERION: &str = "duplicate-criterion";
/// A task whose criteria are all `[manual]`.
pub const ALL_MANUAL_TASK: &str = "all-manual-task";
/// A requirement no criterion proves.
pub const UNPROVEN_REQUIREMENT: &str = "unproven-requirement";
/// `[manual]` ANDed with automated hints.
pub const MANUAL_WITH_AUTOMATION: &str = "manual-with-automation";
/// A grep pattern that matches the empty string.
pub const EMPTY_MATCH_REGEX: &str = "empty-match-regex";
/// A criterion that ignores a lesson from the lesson library (analyze only:
/// the check is `zurdo_harness::reason::unaddressed`, beside the library).
pub const UNADDRESSED_LESSON: &str = "unaddressed-lesson";

/// Every lint family, in documentation order.
pub const FAMILIES: [&str; 13] = [
    CONSTANT_SHELL,
    MASKED_EXIT_CODE,
    CONTRADICTORY_PATHS,
    VACUOUS_NO_GREP,
    GREP_READS_PRD,
    RECURSIVE_CARGO_TEST,
    NON_LOCAL_HTTP,
    DUPLICATE_CRITERION,
    ALL_MANUAL_TASK,
    UNPROVEN_REQUIREMENT,
    MANUAL_WITH_AUTOMATION,
    EMPTY_MATCH_REGEX,
    UNADDRESSED_LESSON,
];

/// The families `zurdo validate` reports (all but `unaddressed-lesson`),
/// in documentation order. [`lint`] runs exactly these.
pub const VALIDATE_FAMILIES: &[&str] = FAMILIES.split_at(12).0;

/// How a `[shell:]` command's exit status comes out by construction: the
/// rule behind `constant-shell`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellExit {
    /// 0 on every path: a criterion with it can't fail.
    CantFail,
    /// Non-zero on every path: a criterion with it can't pass.
    CantPass,
    /// Either, as any real command.
    Either,
}

/// What `constant-shell`'s rule says of `command` (`cargo test || true`
/// can't fail, `exit 1` can't pass, `cargo test` may do either).
pub fn shell_exit(command: &str) -> ShellExit {
    constant_shell::exit_of(command)
}

/// True when a grep pattern matches the empty string, which every file
/// contains (`empty-match-regex`'s rule).
pub fn matches_empty(pattern: &str) -> bool {
    empty_match::matches_empty(pattern)
}

/// One warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lint {
    /// The family name, e.g. `constant-shell`.
    pub family: &'static str,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl Lint {
    /// A warning of `family` on `line`.
    pub fn new(
        family: &'static str,
        line: usize,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Lint {
            family,
            line,
            message: message.into(),
            fix: fix.into(),
        }
    }

    /// Renders `<path>:<line>: warning[<family>]: <message>`, with the fix
    /// on an indented second line.
    pub fn render(&self, path: &str) -> String {
        format!(
            "{path}:{}: warning[{}]: {}\n  fix: {}",
            self.line, self.family, self.message, self.fix
        )
    }
}

impl std::fmt::Display for Lint {
    /// Renders `line <n>: warning[<family>]: <message>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: warning[{}]: {}",
            self.line, self.family, self.message
        )
    }
}

/// What the lints may know about where the PRD lives.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintContext<'a> {
    /// The repository root; lints that look at files are skipped without it.
    pub root: Option<&'a Path>,
    /// The PRD's path relative to `root`, `/`-separated.
    pub prd_path: Option<&'a str>,
    /// Whether the PRD is verified through `cargo test` (a `tests/prd.rs`
    /// harness). `None` detects it from `root` and `prd_path` (see
    /// [`cargo_test::detect`]); `Some` overrides the detection. Only
    /// `recursive-cargo-test` reads it.
    pub cargo_harness: Option<bool>,
}

/// Position of a family in [`FAMILIES`] (unknown names sort last).
fn family_rank(family: &str) -> usize {
    FAMILIES
        .iter()
        .position(|f| *f == family)
        .unwrap_or(FAMILIES.len())
}

/// Runs every validate-time lint family ([`VALIDATE_FAMILIES`]), sorted by
/// line, then by family in documentation order.
pub fn lint(prd: &Prd, ctx: &LintContext<'_>) -> Vec<Lint> {
    let mut out = Vec::new();
    constant_shell::check(prd, &mut out);
    masked_exit::check(prd, &mut out);
    for task in &prd.tasks {
        paths::contradictory(task, &mut out);
    }
    paths::vacuous_no_grep(prd, ctx, &mut out);
    paths::grep_reads_prd(prd, ctx, &mut out);
    cargo_test::check(prd, ctx, &mut out);
    http::check(prd, &mut out);
    for task in &prd.tasks {
        criteria::duplicates(task, &mut out);
        criteria::all_manual(task, &mut out);
        criteria::unproven(task, &mut out);
        criteria::manual_with_automation(task, &mut out);
    }
    empty_match::check(prd, &mut out);
    out.sort_by_key(|l| (l.line, family_rank(l.family)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::{Check, GrepCheck, Hint, HttpCheck};
    use crate::model::{Criterion, Metadata, MetadataLines, Requirement, Task};
    use crate::paths::RepoPath;

    fn prd(hints: Vec<Hint>, requirements: Vec<Requirement>) -> Prd {
        let criteria = hints
            .into_iter()
            .enumerate()
            .map(|(i, hint)| Criterion {
                title: String::new(),
                line: i + 10,
                hints: vec![hint],
                proves: vec!["req-x".into()],
                removes_tests: false,
            })
            .collect();
        Prd {
            title: "T".into(),
            title_line: 1,
            tasks: vec![Task {
                id: "task-1".into(),
                title: "t".into(),
                line: 3,
                metadata: Metadata {
                    effort: "low".into(),
                    depends_on: vec![],
                    max_attempts: None,
                    max_cost: None,
                    skills: vec![],
                    agent_timeout: None,
                    category: None,
                    frozen: vec![],
                    lines: MetadataLines::default(),
                },
                requirements,
                description: String::new(),
                description_line: 5,
                criteria,
            }],
            run_order: vec![0],
        }
    }

    fn path(text: &str) -> RepoPath {
        RepoPath::parse(text).unwrap_or_else(|_| RepoPath::parse("x").unwrap())
    }

    #[test]
    fn families_are_unique_and_validate_leaves_out_lessons() {
        let mut sorted = FAMILIES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), FAMILIES.len());
        assert_eq!(&FAMILIES[..12], VALIDATE_FAMILIES);
        assert_eq!(FAMILIES[12], UNADDRESSED_LESSON);
    }

    #[test]
    fn hand_built_models_with_empty_parts_do_not_panic() {
        let mut model = prd(vec![], vec![]);
        model.tasks[0].criteria.push(Criterion {
            title: String::new(),
            line: 0,
            hints: vec![],
            proves: vec![],
            removes_tests: false,
        });
        model.tasks.push(Task {
            criteria: vec![],
            ..model.tasks[0].clone()
        });
        let _ = lint(&model, &LintContext::default());
    }

    proptest::proptest! {
        #[test]
        fn lint_never_panics(
            command in "\\PC{0,60}",
            pattern in "\\PC{0,20}",
            target in "[a-z*?/.{}\\[\\]]{1,20}",
            host in "\\PC{0,20}",
            prd_path in "\\PC{0,20}",
        ) {
            let grep = GrepCheck {
                pattern,
                target: path(&target),
                target_is_glob: crate::paths::has_glob_meta(&target),
            };
            let hints = vec![
                Check::Shell { command },
                Check::Grep(grep.clone()),
                Check::NoGrep(grep),
                Check::Http(HttpCheck {
                    method: "GET".into(),
                    url: String::new(),
                    host,
                    port: None,
                    status: 200,
                }),
                Check::FileAbsent { path: path(&target) },
                Check::Manual,
            ]
            .into_iter()
            .map(|check| Hint { check, source: String::new() })
            .collect();
            let model = prd(hints, vec![Requirement { id: "req-y".into(), text: String::new(), line: 7 }]);
            let root = std::env::temp_dir().join("zurdo-lint-proptest-missing");
            for harness in [None, Some(true)] {
                let ctx = LintContext {
                    root: Some(&root),
                    prd_path: Some(&prd_path),
                    cargo_harness: harness,
                };
                let lints = lint(&model, &ctx);
                proptest::prop_assert!(lints.windows(2).all(|w| w[0].line <= w[1].line));
            }
        }
    }
}
