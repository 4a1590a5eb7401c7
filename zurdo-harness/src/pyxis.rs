//! Pyxis in a run: the query a task makes (its title, description,
//! criteria and what their hints name) and the bounded `# Where to look`
//! section its first prompt gains when `[pyxis] enabled = true`. The index
//! itself is the crate `zurdo-pyxis`.

use std::fmt::Write;

use zurdo::hint::Check;
use zurdo::Task;
use zurdo_pyxis::{Hit, Index, Query, Scoring};

/// The section's heading.
pub const HEADING: &str = "# Where to look";

/// Files listed at most.
pub const MAX_ENTRIES: usize = 10;

/// Bytes of the whole section at most (entries past it are left out).
pub const SECTION_BUDGET: usize = 4 * 1024;

/// Bytes of one entry at most (its reasons are cut past it).
pub const ENTRY_BUDGET: usize = 480;

/// The query of `task`: its title, description and criteria's titles, and
/// what its hints name: the paths of `[file-exists:]`, `[file-absent:]` and
/// of `[grep:]`/`[no-grep:]` targets that are not globs (pinned when they
/// exist), the names of `[symbol:]`, `[references:]` and `[callers:]`
/// (their defining files pinned), and the words of commands, patterns and
/// URLs. **Frozen** paths are not asked for: they are where not to work.
pub fn task_query(task: &Task) -> Query {
    let mut query = Query::parse(&task.title);
    query.add_text(&task.description);
    for criterion in &task.criteria {
        query.add_text(&criterion.title);
        for hint in &criterion.hints {
            match &hint.check {
                Check::Shell { command } => query.add_text(command),
                Check::Http(http) => query.add_text(&http.url),
                Check::FileExists { path } | Check::FileAbsent { path } => {
                    query.add_path(path.as_str());
                    query.add_text(path.as_str());
                }
                Check::Grep(grep) | Check::NoGrep(grep) => {
                    query.add_text(&grep.pattern);
                    if !grep.target_is_glob {
                        query.add_path(grep.target.as_str());
                    }
                    query.add_text(grep.target.as_str());
                }
                Check::Symbol { name } | Check::References { name } => {
                    name_query(&mut query, &name.segments);
                }
                Check::Callers(callers) => {
                    name_query(&mut query, &callers.name.segments);
                    if let Some(from) = &callers.from {
                        name_query(&mut query, &from.segments);
                    }
                }
                Check::Manual => {}
            }
        }
    }
    query
}

fn name_query(query: &mut Query, segments: &[String]) {
    query.add_symbol(segments.to_vec());
    query.add_text(&segments.join(" "));
}

/// The `# Where to look` section for `task` from `index` (empty when
/// nothing matches): at most [`MAX_ENTRIES`] files, best first, each with
/// why, within [`SECTION_BUDGET`] bytes. The PRD itself (`prd`,
/// repository-relative) is never listed: it is where the task's words
/// come from, not where its work is.
pub fn section(task: &Task, index: &Index, prd: &str) -> String {
    let query = task_query(task);
    let mut hits = index.search(&query, Scoring::Fields, MAX_ENTRIES + 1);
    hits.retain(|h| h.path != prd);
    hits.truncate(MAX_ENTRIES);
    render(&hits, &query)
}

/// The section for `hits` (empty when there are none).
pub fn render(hits: &[Hit], query: &Query) -> String {
    if hits.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{HEADING}\n\nPyxis, zurdo's lexical index of this repository, ranked these files against this task's words. \
         They are a place to start reading, not instructions: the task and its acceptance criteria decide.\n\n"
    );
    for (i, hit) in hits.iter().enumerate() {
        let entry = zurdo_base::text::head_bytes(
            &format!("{}. `{}` — {}", i + 1, hit.path, hit.why(query)),
            ENTRY_BUDGET,
        );
        if out.len() + entry.len() + 1 > SECTION_BUDGET {
            let _ = writeln!(out, "… and {} more files", hits.len() - i);
            break;
        }
        let _ = writeln!(out, "{entry}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRD: &str = "# PRD: P

## Task: task-1 — Make the greeter polite
**Effort**: low
**Depends-on**: []
**Frozen**: src/legacy.rs

### Description
Change `Greeter::greet` so it says please.

### Acceptance Criteria
- [ ] it says please [grep: please in src/greeting.rs]
- [ ] the tests pass [shell: cargo test polite_greeting]
- [ ] still called [callers: Greeter::greet from main]
- [ ] notes exist [file-exists: docs/notes.md]
- [ ] reviewed [manual]
";

    fn task() -> Task {
        let prd = zurdo::parse(PRD).expect("valid");
        prd.tasks.into_iter().next().expect("a task")
    }

    #[test]
    fn a_task_asks_for_its_words_its_hints_paths_and_names() {
        let q = task_query(&task());
        assert_eq!(q.paths, ["src/greeting.rs", "docs/notes.md"]);
        assert_eq!(
            q.symbols,
            [
                vec!["Greeter".to_string(), "greet".to_string()],
                vec!["main".to_string()]
            ]
        );
        for term in ["greeter", "polit", "pleas", "greet", "main", "not"] {
            assert!(q.terms.contains_key(term), "{term}: {:?}", q.terms);
        }
        assert!(
            !q.terms.contains_key("legacy"),
            "frozen paths are not asked for"
        );
    }

    fn indexed(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        for (path, body) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(full, body).expect("write");
        }
        let (index, _) = zurdo_pyxis::open(dir.path());
        (dir, index)
    }

    #[test]
    fn the_section_names_the_right_files_first_and_says_why() {
        let (_dir, index) = indexed(&[
            (
                "src/greeter.rs",
                "pub struct Greeter;\nimpl Greeter {\n    pub fn greet(&self) -> String { \"hi\".into() }\n}\n",
            ),
            ("src/greeting.rs", "pub const WORD: &str = \"hi\";\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("src/unrelated.rs", "pub fn checksum() {}\n"),
            ("prds/p.md", PRD),
        ]);
        let text = section(&task(), &index, "prds/p.md");
        assert!(text.starts_with(&format!("\n{HEADING}\n\n")), "{text}");
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(char::is_numeric))
            .collect();
        assert!(
            lines[0].starts_with("1. `src/greeter.rs` — defines `Greeter::greet` (line 3)"),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("`src/greeting.rs` — named in the text as `src/greeting.rs`")),
            "{text}"
        );
        assert!(!text.contains("unrelated"), "{text}");
        assert!(
            !text.contains("prds/p.md"),
            "the PRD itself is not where to look: {text}"
        );
    }

    #[test]
    fn the_section_is_bounded_and_empty_when_nothing_matches() {
        // 40 files that match, long paths and all, among 45 that do not
        // (a term most files have does not count).
        let files: Vec<(String, String)> = (0..40)
            .map(|i| {
                (
                    format!("src/{}/greeter_please_polite_{i}.rs", "deep/".repeat(20)),
                    "pub fn greet_please_politely() {}\n".repeat(3),
                )
            })
            .chain((0..45).map(|i| {
                (
                    format!("lib/filler_{i}.rs"),
                    "pub fn checksum() {}\n".into(),
                )
            }))
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let (_dir, index) = indexed(&refs);
        let text = section(&task(), &index, "prds/p.md");
        assert!(text.len() <= SECTION_BUDGET + 64, "{}", text.len());
        let entries = text
            .lines()
            .filter(|l| l.starts_with(char::is_numeric))
            .count();
        assert!((1..=MAX_ENTRIES).contains(&entries), "{text}");
        assert!(text.lines().all(|l| l.len() <= ENTRY_BUDGET + 4));
        let (_dir, empty) = indexed(&[("src/x.rs", "pub fn checksum() {}\n")]);
        assert_eq!(section(&task(), &empty, "prds/p.md"), "");
    }
}
