//! Pyxis through the binary: a task's first prompt gains "# Where to look"
//! naming the right file when `[pyxis] enabled = true`, and not when off;
//! a retry's prompt does not; `zurdo pyxis query` ranks, explains, takes
//! `--limit` and `--format json`, works with Pyxis off, and does not
//! believe an `index.json` it did not write.

use std::path::Path;

use crate::common::{repo, run_repo, state_dir, text, zurdo, zurdo_run};

/// A repository where the retry budget lives in `src/budget.rs`, among
/// files that share none of its words.
const FILES: &[(&str, &str)] = &[
    (
        "src/budget.rs",
        "/// How many attempts a task gets.\npub struct RetryBudget {\n    pub attempts: u32,\n}\n\nimpl RetryBudget {\n    pub fn remaining(&self, used: u32) -> u32 {\n        self.attempts.saturating_sub(used)\n    }\n}\n",
    ),
    ("src/lib.rs", "pub mod budget;\npub mod render;\npub mod shapes;\n"),
    (
        "src/render.rs",
        "pub fn render_table(rows: &[String]) -> String {\n    rows.join(\"\\n\")\n}\n",
    ),
    (
        "src/shapes.rs",
        "pub struct Circle { pub radius: f64 }\npub fn area(c: &Circle) -> f64 { 3.14 * c.radius * c.radius }\n",
    ),
    ("docs/colours.md", "# Colours\nThe palette is blue and green.\n"),
];

/// The task says what to change in its own words; nothing in it names the
/// file. Its one criterion fails on the first attempt and passes on the
/// second.
const PRD: &str = "# PRD: p

## Task: task-1 — Let a task retry until its budget is spent
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
The retry budget must never go below zero: `remaining` saturates.
Write done.txt when finished.

### Acceptance Criteria
- [ ] done [grep: ^done$ in done.txt]
";

const SCRIPT: &str = r#"{"attempts": [
    {"write": {"done.txt": "not yet\n"}, "text": "first"},
    {"write": {"done.txt": "done\n"}, "text": "second"}
]}"#;

fn prompt(root: &Path, attempt: u32) -> String {
    std::fs::read_to_string(state_dir(root).join(format!("iterations/task-1-{attempt}.prompt")))
        .expect("the prompt is kept")
}

#[test]
fn the_first_prompt_says_where_to_look_when_enabled() {
    let r = run_repo(PRD, "[pyxis]\nenabled = true\n", FILES, SCRIPT, true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = prompt(r.path(), 1);
    let section = first
        .split_once("# Where to look\n")
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("no Where to look section:\n{first}"));
    let entries: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with(char::is_numeric))
        .collect();
    assert!(
        entries[0].starts_with("1. `src/budget.rs` — defines `budget::RetryBudget` (line 2)"),
        "{section}"
    );
    assert!(entries[0].contains("RetryBudget::remaining"), "{section}");
    assert!(
        entries[0].contains("matched "),
        "why it was chosen: {section}"
    );
    for unrelated in ["shapes.rs", "render.rs", "colours.md"] {
        assert!(!section.contains(unrelated), "{unrelated}: {section}");
    }
    // The section comes after the task itself, and only on the first attempt.
    assert!(first.find("# Acceptance criteria") < first.find("# Where to look"));
    let second = prompt(r.path(), 2);
    assert!(second.starts_with("# What failed"), "{second}");
    assert!(!second.contains("Where to look"), "{second}");
    // The index was kept, with its MAC, for the next process.
    let (_, loaded) = zurdo_pyxis::Index::load(r.path());
    assert_eq!(loaded, zurdo_pyxis::Loaded::Trusted);
}

#[test]
fn without_pyxis_the_prompt_has_no_where_to_look_and_nothing_is_indexed() {
    let r = run_repo(PRD, "", FILES, SCRIPT, true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first = prompt(r.path(), 1);
    assert!(first.contains("# Acceptance criteria"), "{first}");
    assert!(!first.contains("Where to look"), "{first}");
    assert!(!r.path().join(".zurdo/pyxis").exists());
}

#[test]
fn query_ranks_explains_and_limits() {
    let r = repo(FILES);
    let out = zurdo(
        &["pyxis", "query", "retry budget remaining", "--limit", "1"],
        r.path(),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("5 files indexed; searched for: budget, remaining, retry\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  1. src/budget.rs  "), "{stdout}");
    assert!(!stdout.contains("  2. "), "--limit 1: {stdout}");

    let json = zurdo(
        &["pyxis", "query", "render the table", "--format", "json"],
        r.path(),
    );
    assert_eq!(json.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(doc["files"], 5);
    assert_eq!(doc["hits"][0]["path"], "src/render.rs");
    assert_eq!(doc["hits"][0]["rank"], 1);
    assert_eq!(
        doc["hits"][0]["definitions"][0]["name"],
        "render::render_table"
    );
    assert_eq!(doc["hits"][0]["definitions"][0]["line"], 1);
    assert!(doc["hits"][0]["score"].as_f64().is_some_and(|s| s > 0.0));
    let paths: Vec<&str> = doc["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["path"].as_str())
        .collect();
    assert!(!paths.contains(&"src/shapes.rs"), "{doc:#}");

    let named = zurdo(&["pyxis", "query", "see docs/colours.md"], r.path());
    let stdout = text(&named.stdout);
    assert!(stdout.contains("paths named: docs/colours.md"), "{stdout}");
    assert!(
        stdout.contains("  1. docs/colours.md  ")
            && stdout.contains("named in the text as `docs/colours.md`"),
        "{stdout}"
    );

    let none = zurdo(&["pyxis", "query", "kubernetes"], r.path());
    assert_eq!(none.status.code(), Some(1));
    assert!(text(&none.stdout).contains("no file matches"));
    let empty = zurdo(&["pyxis", "query", "the of 42"], r.path());
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty.stderr).contains("has nothing to search for"));
    let zero = zurdo(&["pyxis", "query", "budget", "--limit", "0"], r.path());
    assert_eq!(zero.status.code(), Some(2), "{}", text(&zero.stderr));
}

#[test]
fn index_reads_only_what_changed_and_a_forged_index_is_not_believed() {
    let r = repo(FILES);
    let first = text(&zurdo(&["pyxis", "index"], r.path()).stdout);
    assert!(
        first.starts_with("5 files: 5 read, 0 unchanged, 0 removed"),
        "{first}"
    );
    std::fs::write(r.path().join("src/shapes.rs"), "pub fn perimeter() {}\n").expect("edit");
    std::fs::remove_file(r.path().join("docs/colours.md")).expect("rm");
    let again = text(&zurdo(&["pyxis", "index"], r.path()).stdout);
    assert!(
        again.starts_with("4 files: 1 read, 3 unchanged, 1 removed"),
        "{again}"
    );

    // Whatever works in the repository can write .zurdo/: a forged entry
    // (render.rs claiming the budget's words) is not believed.
    let path = r.path().join(".zurdo/pyxis/index.json");
    let stored = std::fs::read_to_string(&path).expect("index.json");
    let forged = stored.replacen("\"row\":2", "\"budget\":9,\"row\":2", 1);
    assert_ne!(forged, stored);
    std::fs::write(&path, forged).expect("forge");
    let out = zurdo(&["pyxis", "query", "budget", "--format", "json"], r.path());
    assert!(
        text(&out.stderr).contains("was not believed (its MAC does not check"),
        "{}",
        text(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let paths: Vec<&str> = doc["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["path"].as_str())
        .collect();
    assert_eq!(paths[0], "src/budget.rs", "{doc:#}");
    assert!(
        !paths.contains(&"src/render.rs"),
        "the forged words: {doc:#}"
    );
}

/// The index as zurdo wrote it for `root`, then forged: `docs/colours.md`
/// (whose hash is kept, so a refresh that believed the entry would keep
/// it) claims every word of `src/budget.rs`, ten times over. Returns the
/// MAC of the genuine document, which the forger can copy but not redo.
fn forge(root: &Path) -> String {
    let (mut index, _) = zurdo_pyxis::open(root);
    let genuine = std::fs::read(root.join(zurdo_pyxis::index::PATH)).expect("index.json");
    let genuine: serde_json::Value = serde_json::from_slice(&genuine).expect("JSON");
    let budget = index.files["src/budget.rs"].terms.clone();
    let colours = index
        .files
        .get_mut("docs/colours.md")
        .expect("docs/colours.md is indexed");
    for (term, count) in budget {
        colours.terms.insert(term, count * 10);
    }
    index.save(root).expect("save the forged index");
    genuine["mac"].as_str().expect("a MAC").to_string()
}

fn where_to_look(root: &Path) -> String {
    let first = prompt(root, 1);
    first
        .split_once("# Where to look\n")
        .map(|(_, s)| s.to_string())
        .unwrap_or_else(|| panic!("no Where to look section:\n{first}"))
}

#[test]
fn a_run_does_not_believe_a_tampered_index() {
    // The control: the same forged entries under a MAC that checks (as
    // only zurdo, holding the user's key, can write) are believed, and
    // steer the section. So the forgery below would show if it were read.
    let control = run_repo(PRD, "[pyxis]\nenabled = true\n", FILES, SCRIPT, true);
    forge(control.path());
    let out = zurdo_run(control.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("was not believed"));
    let believed = where_to_look(control.path());
    assert!(believed.contains("`docs/colours.md`"), "{believed}");

    // Tampered: the same forged document, carrying the genuine file's MAC.
    let r = run_repo(PRD, "[pyxis]\nenabled = true\n", FILES, SCRIPT, true);
    let mac = forge(r.path());
    let path = r.path().join(zurdo_pyxis::index::PATH);
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("index.json")).expect("JSON");
    doc["mac"] = serde_json::Value::String(mac);
    std::fs::write(&path, serde_json::to_vec(&doc).expect("JSON")).expect("tamper");
    assert!(matches!(
        zurdo_pyxis::Index::load(r.path()).1,
        zurdo_pyxis::Loaded::Distrusted(_)
    ));

    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("was not believed").count(),
        1,
        "said once: {stderr}"
    );
    assert!(
        stderr
            .contains("warning: .zurdo/pyxis/index.json was not believed (its MAC does not check"),
        "{stderr}"
    );
    let section = where_to_look(r.path());
    assert!(
        section.contains("1. `src/budget.rs` — defines `budget::RetryBudget`"),
        "{section}"
    );
    assert!(
        !section.contains("colours.md"),
        "the forged entry: {section}"
    );
    let log = std::fs::read_to_string(state_dir(r.path()).join("progress.log")).expect("log");
    assert!(
        log.lines()
            .any(|l| l.contains("\"event\":\"index_distrusted\"") && l.contains("MAC")),
        "{log}"
    );
    // Rebuilt from the files and saved again, under a MAC that checks.
    let (rebuilt, loaded) = zurdo_pyxis::Index::load(r.path());
    assert_eq!(loaded, zurdo_pyxis::Loaded::Trusted);
    assert!(!rebuilt.files["docs/colours.md"]
        .terms
        .contains_key("budget"));
}
