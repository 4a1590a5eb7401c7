//! `unaddressed-lesson`, the thirteenth lint family (reported by `zurdo
//! analyze` and used by `zurdo heal`; never by validate, which has no lesson
//! library): a lesson that matches a task prospectively while the task's
//! criteria do not address it.
//!
//! The rule, deterministic like the matching it rests on:
//!
//! 1. **It matches.** The lesson scores at least
//!    [`MIN_SCORE`](super::surface::MIN_SCORE) against the
//!    task's declared surface ([`fingerprint::declared`]: its automated
//!    hints' kinds, its shell command heads, the path prefixes of its file
//!    hints, grep targets and **Frozen** globs), exactly as it would surface
//!    in the task's first prompt.
//! 2. **It is addressed** when either
//!    - the task names it: `lesson-<id>` appears in its description or in
//!      one of its criteria (a PRD author who read the lesson and decided
//!      it does not apply says so, and the warning stops), or
//!    - the lesson's body has code spans (`` `…` ``: the concrete commands,
//!      flags and paths it teaches) and every one of them occurs in the
//!      task's criteria as written (titles and hints, whitespace runs read
//!      as one space). A lesson with no code span can only be addressed by
//!      name.
//! 3. Otherwise it is **unaddressed**: one warning per task and lesson, on
//!    the first criterion whose own declared surface shares a component
//!    with the lesson (the task's first criterion when none does).
//!
//! The bias is deliberate: a warning too many costs one `lesson-<id>` in
//! the task; a lesson ignored costs the failure it recorded, again.

use zurdo::lint::{Lint, UNADDRESSED_LESSON};
use zurdo::{Prd, Task};

use super::fingerprint;
use super::library::{Lesson, Library, Usage};
use super::surface::Surface;

/// A lesson a task's criteria do not address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unaddressed<'a> {
    /// The task.
    pub task: &'a Task,
    /// The lesson.
    pub lesson: &'a Lesson,
    /// Its prospective match score (at least 2).
    pub score: usize,
    /// The criterion the warning is on (an index into the task's criteria).
    pub criterion: usize,
    /// The lesson's code spans the criteria do not contain.
    pub missing: Vec<String>,
}

impl Unaddressed<'_> {
    /// The PRD line of the criterion the warning is on.
    pub fn line(&self) -> usize {
        self.task
            .criteria
            .get(self.criterion)
            .map_or(self.task.line, |c| c.line)
    }

    /// The warning, as validate's lints are written.
    pub fn lint(&self) -> Lint {
        let id = &self.lesson.id;
        let first = zurdo_base::text::first_nonblank_line(&self.lesson.body);
        let what = if self.missing.is_empty() {
            "it names no command, flag or path in backticks, so only naming it addresses it"
                .to_string()
        } else {
            format!(
                "the criteria never mention {}",
                self.missing
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Lint::new(
            UNADDRESSED_LESSON,
            self.line(),
            format!(
                "lesson-{id} matches `{}` (score {}, learned from {} in {}) and its criteria don't address it: \"{first}\"; {what}",
                self.task.id, self.score, self.lesson.task, self.lesson.prd
            ),
            format!(
                "apply the lesson in the criterion, or name `lesson-{id}` in the task to say it was considered; \
                 if it no longer holds, `git rm {}`",
                self.lesson.path.display()
            ),
        )
    }
}

/// Every lesson of `library` that matches a task of `prd` prospectively and
/// that its criteria do not address, in task (document) order, best match
/// first within a task.
pub fn check<'a>(prd: &'a Prd, library: &'a Library, usage: &Usage) -> Vec<Unaddressed<'a>> {
    let mut out = Vec::new();
    for task in &prd.tasks {
        let surface = fingerprint::declared(task);
        for (lesson, score) in library.matches(&surface, usage) {
            if let Some(missing) = unaddressed(task, lesson) {
                out.push(Unaddressed {
                    task,
                    lesson,
                    score,
                    criterion: criterion_of(task, &lesson.surface),
                    missing,
                });
            }
        }
    }
    out
}

/// `None` when `task` addresses `lesson`; else the code spans its criteria
/// lack (empty when the lesson has none).
fn unaddressed(task: &Task, lesson: &Lesson) -> Option<Vec<String>> {
    let name = format!("lesson-{}", lesson.id);
    let criteria: Vec<String> = task
        .criteria
        .iter()
        .map(|c| {
            let hints: Vec<&str> = c.hints.iter().map(|h| h.source.as_str()).collect();
            zurdo_base::text::collapse_whitespace(&format!("{} {}", c.title, hints.join(" ")))
        })
        .collect();
    if task.description.contains(&name) || criteria.iter().any(|c| c.contains(&name)) {
        return None;
    }
    let text = criteria.join("\n");
    let spans = code_spans(&lesson.body);
    let missing: Vec<String> = spans
        .iter()
        .filter(|s| !text.contains(&zurdo_base::text::collapse_whitespace(s)))
        .cloned()
        .collect();
    if !spans.is_empty() && missing.is_empty() {
        return None;
    }
    Some(missing)
}

/// The criterion a warning goes on: the first whose own declared surface
/// shares a component with the lesson's.
fn criterion_of(task: &Task, lesson: &Surface) -> usize {
    task.criteria
        .iter()
        .position(|c| {
            let alone = Task {
                criteria: vec![c.clone()],
                metadata: zurdo::model::Metadata {
                    frozen: Vec::new(),
                    ..task.metadata.clone()
                },
                ..task.clone()
            };
            lesson.score(&fingerprint::declared(&alone)) > 0
        })
        .unwrap_or(0)
}

/// The inline code spans of a Markdown body, in order, without duplicates:
/// the text between a run of backticks and the next run of the same
/// length, trimmed; fenced blocks' fences are not spans, and an empty span
/// is skipped.
pub fn code_spans(body: &str) -> Vec<String> {
    let mut spans: Vec<String> = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let open = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let start = i + open;
        let fence = "`".repeat(open);
        let Some(len) = body[start..].find(&fence) else {
            break;
        };
        let mut end = start + len;
        // A longer run of backticks does not close a shorter one.
        let close = bytes[end..].iter().take_while(|&&b| b == b'`').count();
        if close != open {
            i = end + close;
            continue;
        }
        let span = body[start..end].trim();
        if open < 3 && !span.is_empty() && !spans.iter().any(|s| s == span) {
            spans.push(span.to_string());
        }
        end += open;
        i = end;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn lesson(body: &str) -> Lesson {
        Lesson::new(
            Surface {
                hints: set(&["shell"]),
                reasons: set(&["exit_code"]),
                commands: set(&["cargo"]),
                paths: BTreeSet::new(),
            },
            body,
            "task-9",
            "prds/old.md",
            "2026-01-01T00:00:00Z",
        )
    }

    fn prd(criteria: &str, description: &str) -> Prd {
        zurdo::parse(&format!(
            "# PRD: l\n\n## Task: task-1 — Store\n**Effort**: low\n**Depends-on**: []\n\n### Description\n{description}\n\n### Acceptance Criteria\n- [ ] docs written [file-exists: docs/store.md]\n{criteria}"
        ))
        .expect("valid")
    }

    fn run(criteria: &str, description: &str, body: &str) -> Vec<(usize, Vec<String>)> {
        let library = Library {
            lessons: vec![lesson(body)],
            skipped: Vec::new(),
        };
        let prd = prd(criteria, description);
        check(&prd, &library, &Usage::default())
            .into_iter()
            .map(|u| (u.line(), u.missing))
            .collect()
    }

    const BODY: &str = "`cargo test` in this repository needs `--features test-db`.";

    #[test]
    fn a_matching_lesson_the_criteria_ignore_is_reported_on_the_criterion_it_concerns() {
        let found = run(
            "- [ ] the store works [shell: cargo test store::]\n",
            "Build it.",
            BODY,
        );
        assert_eq!(found, [(12, vec!["--features test-db".to_string()])]);
    }

    #[test]
    fn applying_the_lesson_or_naming_it_addresses_it() {
        assert!(run(
            "- [ ] the store works [shell: cargo test  --features test-db store::]\n",
            "Build it.",
            BODY
        )
        .is_empty());
        let id = lesson(BODY).id;
        assert!(run(
            "- [ ] the store works [shell: cargo test store::]\n",
            &format!("Build it (lesson-{id} does not apply: no database here)."),
            BODY
        )
        .is_empty());
    }

    #[test]
    fn a_lesson_without_code_spans_is_addressed_only_by_name() {
        let found = run(
            "- [ ] the store works [shell: cargo test store::]\n",
            "Build it.",
            "Start the daemon first.",
        );
        assert_eq!(found, [(12, vec![])]);
        let library = Library {
            lessons: vec![lesson("Start the daemon first.")],
            skipped: Vec::new(),
        };
        let model = prd("- [ ] the store works [shell: cargo test store::]\n", "x");
        let lint = check(&model, &library, &Usage::default())[0].lint();
        assert_eq!(lint.family, UNADDRESSED_LESSON);
        assert!(lint.message.contains("only naming it"), "{}", lint.message);
        assert!(lint.fix.contains("git rm lessons/lesson-"), "{}", lint.fix);
    }

    #[test]
    fn a_lesson_that_does_not_match_says_nothing() {
        // Only the hint kind overlaps (no cargo command): score 1.
        assert!(run(
            "- [ ] the script works [shell: ./check.sh]\n",
            "Build it.",
            BODY
        )
        .is_empty());
    }

    #[test]
    fn docs_lints_md_shows_the_warning_as_printed() {
        let text = "---\nmatch:\n  hints: [shell]\n  commands: [cargo]\ntask: task-9\nprd: prds/old.md\ncreated: 2026-01-01T00:00:00Z\n---\n`cargo test` in this repository needs `--features test-db`.\n";
        let lesson = Lesson::parse(text, "lessons/lesson-0badc0de.md".into()).expect("a lesson");
        let library = Library {
            lessons: vec![lesson],
            skipped: Vec::new(),
        };
        let model = zurdo::parse("# PRD: Demo\n\n## Task: task-1 — Do it\n**Effort**: low\n**Depends-on**: []\n\n### Description\nWords.\n\n### Acceptance Criteria\n- [ ] the store works [shell: cargo test store::]\n").expect("valid");
        let found = check(&model, &library, &Usage::default());
        assert_eq!(found.len(), 1);
        let rendered = found[0].lint().render("prds/feature.md");
        let docs = include_str!("../../../docs/lints.md");
        assert!(
            docs.contains(&rendered),
            "docs/lints.md does not show:\n{rendered}"
        );
    }

    #[test]
    fn code_spans_are_read_like_markdown() {
        assert_eq!(
            code_spans("Run `make dev-up` then ``cargo `x` test``; ` ` and ```\nfenced\n``` skipped, `make dev-up` once."),
            ["make dev-up", "cargo `x` test"]
        );
        assert!(code_spans("no spans, an odd ` backtick").is_empty());
    }
}
