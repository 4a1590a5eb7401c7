//! Lints about the paths hints read:
//!
//! - `contradictory-paths`: one task requires a path both present and absent;
//! - `vacuous-no-grep`: a `[no-grep:]` on a file that does not exist and
//!   that nothing requires to exist;
//! - `grep-reads-prd`: a `[grep:]`/`[no-grep:]` that searches the PRD itself.

use std::path::Path;

use super::{Lint, LintContext, CONTRADICTORY_PATHS, GREP_READS_PRD, VACUOUS_NO_GREP};
use crate::hint::{Check, GrepCheck, Hint};
use crate::model::{Prd, Task};
use crate::paths::RepoPath;

/// A hint together with the line of its criterion.
struct Located<'p> {
    hint: &'p Hint,
    line: usize,
}

/// The literal path a hint requires to exist: `[file-exists:]`, or a
/// `[grep:]` whose target is not a glob.
fn required_present(check: &Check) -> Option<&RepoPath> {
    match check {
        Check::FileExists { path } => Some(path),
        Check::Grep(GrepCheck {
            target,
            target_is_glob: false,
            ..
        }) => Some(target),
        _ => None,
    }
}

/// True when `inner` is `outer` or lies under it.
fn within(inner: &RepoPath, outer: &RepoPath) -> bool {
    let (inner, outer) = (inner.as_str(), outer.as_str());
    inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Reports `contradictory-paths` in one task.
pub(crate) fn contradictory(task: &Task, out: &mut Vec<Lint>) {
    let located = || {
        task.criteria.iter().flat_map(|c| {
            c.hints
                .iter()
                .map(move |hint| Located { hint, line: c.line })
        })
    };
    for absent in located() {
        let Check::FileAbsent { path: gone } = &absent.hint.check else {
            continue;
        };
        let Some((present, path)) = located().find_map(|p| {
            required_present(&p.hint.check)
                .filter(|path| within(path, gone))
                .map(|path| (p, path))
        }) else {
            continue;
        };
        let (later, earlier) = if present.line > absent.line {
            (&present, &absent)
        } else {
            (&absent, &present)
        };
        let where_ = if later.line == earlier.line {
            "on the same criterion".to_string()
        } else {
            format!("on line {}", earlier.line)
        };
        let conflict = if path == gone {
            format!("`{gone}` must be absent for one and present for the other")
        } else {
            format!("`{gone}` must be absent for one, but the other needs `{path}` inside it")
        };
        out.push(Lint::new(
            CONTRADICTORY_PATHS,
            later.line,
            format!(
                "`{}` contradicts `{}` {where_}: {conflict}, so the task can't pass",
                later.hint.source, earlier.hint.source
            ),
            format!(
                "decide whether `{gone}` should exist: keep `{}` if it should, `{}` if not, \
                 and drop the other",
                present.hint.source, absent.hint.source
            ),
        ));
    }
}

/// Reports `vacuous-no-grep`: needs the repository root.
pub(crate) fn vacuous_no_grep(prd: &Prd, ctx: &LintContext<'_>, out: &mut Vec<Lint>) {
    let Some(root) = ctx.root else {
        return;
    };
    let criteria = || prd.tasks.iter().flat_map(|t| &t.criteria);
    let required: Vec<&RepoPath> = criteria()
        .flat_map(|c| &c.hints)
        .filter_map(|h| required_present(&h.check))
        .collect();
    for criterion in criteria() {
        for hint in &criterion.hints {
            let Check::NoGrep(grep) = &hint.check else {
                continue;
            };
            if grep.target_is_glob {
                continue;
            }
            let target = &grep.target;
            if exists(root, target) || required.iter().any(|r| within(r, target)) {
                continue;
            }
            out.push(Lint::new(
                VACUOUS_NO_GREP,
                criterion.line,
                format!(
                    "`{}` reads `{target}`, which does not exist and which no criterion \
                     requires to exist: while it is missing the check passes vacuously",
                    hint.source
                ),
                format!(
                    "add [file-exists: {target}] to this criterion so a missing file fails it, \
                     or correct the path"
                ),
            ));
        }
    }
}

fn exists(root: &Path, path: &RepoPath) -> bool {
    std::fs::symlink_metadata(root.join(path.as_str())).is_ok()
}

/// Reports `grep-reads-prd`: needs the PRD's path.
pub(crate) fn grep_reads_prd(prd: &Prd, ctx: &LintContext<'_>, out: &mut Vec<Lint>) {
    let Some(prd_path) = ctx.prd_path.and_then(|p| RepoPath::parse(p).ok()) else {
        return;
    };
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            let (grep, outcome) = match &hint.check {
                Check::Grep(g) => (g, "pass"),
                Check::NoGrep(g) => (g, "fail"),
                _ => continue,
            };
            let target = &grep.target;
            let (reads, fix) = if grep.target_is_glob {
                (
                    glob_matches(target.as_str(), prd_path.as_str()),
                    format!(
                        "narrow `{target}` so it leaves out `{prd_path}`, e.g. name the source \
                         directory (`src/**/*.rs`)"
                    ),
                )
            } else {
                (
                    within(&prd_path, target),
                    "point it at the files the task changes; the PRD is the spec, not the work"
                        .to_string(),
                )
            };
            if !reads {
                continue;
            }
            out.push(Lint::new(
                GREP_READS_PRD,
                criterion.line,
                format!(
                    "`{}` searches `{prd_path}`, the PRD itself, which contains this hint's own \
                     text: it can {outcome} on the PRD rather than on the work",
                    hint.source
                ),
                fix,
            ));
        }
    }
}

/// True when the root-anchored glob matches `path` (`*` stays within one
/// segment, `**` crosses directories).
pub(crate) fn glob_matches(glob: &str, path: &str) -> bool {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(path))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_keep_star_in_one_segment() {
        assert!(glob_matches("prds/*.md", "prds/feature.md"));
        assert!(glob_matches("**/*.md", "prds/feature.md"));
        assert!(glob_matches("**/*.md", "feature.md"));
        assert!(!glob_matches("*.md", "prds/feature.md"));
        assert!(!glob_matches("src/**/*.rs", "prds/feature.md"));
        assert!(!glob_matches("[", "prds/feature.md"));
    }

    #[test]
    fn within_respects_segment_boundaries() {
        let p = |s: &str| RepoPath::parse(s).unwrap();
        assert!(within(&p("src/a.rs"), &p("src")));
        assert!(within(&p("src"), &p("src")));
        assert!(!within(&p("srcx/a.rs"), &p("src")));
        assert!(!within(&p("src"), &p("src/a.rs")));
    }
}
