//! `zurdo analyze` (and `zurdo --analyze`) through the binary: the
//! deterministic part without a model (validate's lints plus
//! `unaddressed-lesson`), the critique with the scripted stand-in as the
//! analyzer (findings that cite what is not there dropped unread, a reply
//! that is no use failing open), and `--fix` refusing a weakening edit and
//! keeping the trail of every round.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{run_repo, state_dir, text, ANALYZER};

/// One task: a shell criterion proving a requirement and a file criterion.
/// Line 14 is the shell criterion, line 15 the file criterion.
const PRD: &str = "# PRD: analyze

## Task: task-1 — The store
**Effort**: low
**Depends-on**: []

### Requirements
- req-open: The store opens.

### Description
Build the store.

### Acceptance Criteria
- [ ] the store tests pass [shell: cargo test store::] [proves:req-open]
- [ ] the store module exists [file-exists: src/store.rs]
";

/// A lesson that matches the task (a shell hint, the cargo command) and
/// teaches a flag its criteria lack.
const LESSON: &str = "---\nmatch:\n  hints: [shell]\n  commands: [cargo]\ntask: task-9\nprd: prds/old.md\ncreated: 2026-01-01T00:00:00Z\n---\n`cargo test` in this repository needs `--features test-db`.\n";

/// `zurdo <args>` in `root` with the stand-in's script set.
fn zurdo(root: &Path, args: &[&str]) -> Output {
    crate::common::zurdo_scripted(root, args, &[])
}

/// The analyzer's reply as the stand-in's reasoner rule for prompts
/// containing `contains`.
fn reply(contains: &str, body: Value) -> Value {
    json!({"contains": contains, "attempt": {"text": format!("My review:\n```json\n{body}\n```")}})
}

fn script(reason: Vec<Value>) -> String {
    json!({"reason": reason, "log": "invocations.jsonl"}).to_string()
}

#[test]
fn without_an_analyzer_the_checks_run_and_the_critique_is_said_to_be_skipped() {
    let dir = run_repo(
        PRD,
        "",
        &[("lessons/lesson-0badc0de.md", LESSON)],
        &script(vec![]),
        false,
    );
    let root = dir.path();
    let out = zurdo(root, &["analyze", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "prds/p.md:14: warning[unaddressed-lesson]: lesson-0badc0de matches `task-1`"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("`--features test-db`"), "{stdout}");
    assert!(
        stdout.contains("critique skipped: no [roles.analyzer]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("prds/p.md: 1 warning(s), 0 finding(s)"),
        "{stdout}"
    );
    // The alias says the same; validate never reports the lesson.
    let alias = zurdo(root, &["--analyze", "prds/p.md"]);
    assert_eq!(alias.status.code(), Some(1));
    assert_eq!(text(&alias.stdout), stdout);
    let validate = zurdo(root, &["validate", "prds/p.md"]);
    assert_eq!(validate.status.code(), Some(0));
    assert!(!text(&validate.stdout).contains("unaddressed-lesson"));
    // JSON.
    let json_out = zurdo(root, &["analyze", "--format", "json", "prds/p.md"]);
    let doc: Value = serde_json::from_slice(&json_out.stdout).expect("JSON");
    let file = &doc["files"][0];
    assert_eq!(file["valid"], true);
    assert_eq!(file["warnings"][0]["family"], "unaddressed-lesson");
    assert_eq!(file["critique"]["status"], "skipped");

    // Applying the lesson (or naming it) makes the PRD clean: exit 0.
    let applied = PRD.replace(
        "cargo test store::",
        "cargo test --features test-db store::",
    );
    std::fs::write(root.join("prds/p.md"), applied).expect("write");
    let clean = zurdo(root, &["analyze", "prds/p.md"]);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stdout));
    assert!(text(&clean.stdout).contains("prds/p.md: 0 warning(s), 0 finding(s)"));
    // An invalid PRD is exit 2, and nothing else is analyzed.
    std::fs::write(root.join("prds/p.md"), PRD.replace(" — ", " - ")).expect("write");
    let invalid = zurdo(root, &["analyze", "prds/p.md"]);
    assert_eq!(invalid.status.code(), Some(2));
    assert!(
        text(&invalid.stdout).contains("invalid"),
        "{}",
        text(&invalid.stdout)
    );
}

#[test]
fn findings_that_cite_what_is_not_there_are_dropped_before_anyone_reads_them() {
    let findings = json!({"findings": [
        {"line": 14, "quote": "cargo test store::", "kind": "proves-nothing",
         "message": "REAL-ONE: the filter may select no test at all.", "files": ["src/store.rs"]},
        {"line": 15, "quote": "module exists", "kind": "no-negative-case",
         "message": "REAL-TWO: nothing checks that a bad key is refused.", "fix": "add a criterion running store::bad_key"},
        {"line": 42, "quote": "the store", "kind": "too-vague", "message": "INVENTED-LINE"},
        {"line": 14, "quote": "cargo nextest run", "kind": "too-vague", "message": "INVENTED-QUOTE"},
        {"line": 15, "quote": "module exists", "kind": "misses-requirement", "message": "INVENTED-FILE", "files": ["src/ghost.rs"]},
        {"line": 11, "quote": "Build the store", "kind": "too-vague", "message": "NOT-A-CRITERION"}
    ]});
    let dir = run_repo(
        PRD,
        ANALYZER,
        &[("src/store.rs", "pub fn open() {}\n")],
        &script(vec![reply("zurdo-reason: analyze", findings)]),
        false,
    );
    let root = dir.path();
    let out = zurdo(root, &["analyze", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("prds/p.md:14: finding[proves-nothing]: REAL-ONE"),
        "{stdout}"
    );
    assert!(
        stdout.contains("prds/p.md:15: finding[no-negative-case]: REAL-TWO"),
        "{stdout}"
    );
    assert!(stdout.contains("fix: add a criterion running store::bad_key"));
    assert!(
        !stdout.contains("INVENTED") && !stdout.contains("NOT-A-CRITERION"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 finding(s); 4 dropped unread"),
        "{stdout}"
    );
    assert!(stdout.contains("line 42, which is not an acceptance criterion"));
    assert!(stdout.contains("`src/ghost.rs`, which the repository does not have"));

    let json_out = zurdo(root, &["analyze", "--format", "json", "prds/p.md"]);
    let raw = text(&json_out.stdout);
    assert!(
        !raw.contains("INVENTED"),
        "a dropped finding's text is never shown: {raw}"
    );
    let doc: Value = serde_json::from_str(&raw).expect("JSON");
    let critique = &doc["files"][0]["critique"];
    assert_eq!(critique["status"], "done");
    assert!(
        critique["model"]
            .as_str()
            .is_some_and(|m| m.starts_with("anthropic/")),
        "{critique}"
    );
    let lines = |key: &str| -> Vec<Value> {
        critique[key]
            .as_array()
            .expect("a list")
            .iter()
            .map(|f| f["line"].clone())
            .collect()
    };
    assert_eq!(lines("findings"), [json!(14), json!(15)]);
    assert_eq!(
        lines("dropped"),
        [json!(42), json!(14), json!(15), json!(11)]
    );
    assert_eq!(critique["findings"][0]["files"], json!(["src/store.rs"]));

    // The analyzer was asked as a side call, in a scratch directory: no
    // executor attempt was consumed.
    let calls: Vec<Value> = std::fs::read_to_string(root.join(".zurdo/invocations.jsonl"))
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(calls.len(), 2);
    for call in &calls {
        assert_eq!(call["reasoner"], true);
        assert!(call["prompt"]
            .as_str()
            .is_some_and(|p| p.starts_with("zurdo-reason: analyze prds/p.md")));
        assert_ne!(call["cwd"].as_str(), root.to_str());
    }
    // Plain analyze writes no state.
    assert!(!root
        .join(".zurdo")
        .read_dir()
        .expect("ls")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("p-")));
}

#[test]
fn a_critique_that_is_no_use_fails_open() {
    let dir = run_repo(
        PRD,
        ANALYZER,
        &[],
        &script(vec![
            json!({"contains": "zurdo-reason: analyze", "attempt": {"text": "Looks fine to me."}}),
        ]),
        false,
    );
    let root = dir.path();
    let out = zurdo(root, &["analyze", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("critique failed: no JSON object with a \"findings\" key in the reply (the checks above ran without it)"),
        "{stdout}"
    );
    // An analyzer that cannot start fails open too.
    let config = root.join(".zurdo/config.toml");
    let text_now = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text_now
            .replace(
                "[roles.analyzer]",
                "[providers.openai]\ncommand = \"/nonexistent/codex\"\n[roles.analyzer]",
            )
            .replace(
                "provider = \"anthropic\"\nmodel = \"haiku\"",
                "provider = \"openai\"\nmodel = \"gpt-5.4\"",
            ),
    )
    .expect("config");
    let out = zurdo(root, &["analyze", "--format", "json", "prds/p.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0]["critique"]["status"], "failed");
    assert!(doc["files"][0]["critique"]["why"]
        .as_str()
        .is_some_and(|w| w.contains("could not start")));
}

#[test]
fn fix_refuses_a_weakening_edit_writes_the_rest_and_keeps_every_round() {
    let round1 = json!({"findings": [], "edits": [
        {"line": 14, "quote": "cargo test store::",
         "replacement": "- [ ] the store tests pass [shell: cargo test store:: || true] [proves:req-open]",
         "why": "WEAKEN: let it pass"},
        {"line": 15, "quote": "the store module exists",
         "replacement": "- [ ] the store module exists [file-exists: src/store.rs] [grep: pub fn open in src/store.rs]",
         "why": "STRONGER: check what it defines"}
    ]});
    let round2 = json!({"edits": [
        {"line": 14, "quote": "the store tests pass",
         "replacement": "- [ ] the store tests pass [manual] [proves:req-open]",
         "why": "MANUAL: a human can check it"}
    ]});
    let dir = run_repo(
        PRD,
        ANALYZER,
        &[("src/store.rs", "pub fn open() {}\n")],
        // The first rule whose text occurs in the prompt answers it.
        &script(vec![
            reply("zurdo-reason: analyze --fix round 2", round2),
            reply("zurdo-reason: analyze", round1),
        ]),
        false,
    );
    let root = dir.path();
    let prd = root.join("prds/p.md");

    // Without --yes and without a terminal, nothing is written.
    let out = zurdo(root, &["analyze", "--fix", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("not written: re-run with --yes"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&prd).expect("prd"), PRD);

    let out = zurdo(root, &["analyze", "--fix", "--yes", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("refused: weakens the PRD (turned-constant)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("refused: weakens the PRD (replaced-by-manual)"),
        "{stdout}"
    );
    assert!(stdout.contains("+- [ ] the store module exists [file-exists: src/store.rs] [grep: pub fn open in src/store.rs]"), "{stdout}");
    assert!(stdout.contains("wrote prds/p.md (1 edit(s))"), "{stdout}");
    let now = std::fs::read_to_string(&prd).expect("prd");
    assert_eq!(
        now,
        PRD.replace(
            "- [ ] the store module exists [file-exists: src/store.rs]",
            "- [ ] the store module exists [file-exists: src/store.rs] [grep: pub fn open in src/store.rs]"
        )
    );

    // The trail: each session a directory, each round its prompt, reply,
    // diffs and the verdict of the checks.
    let trail = state_dir(root).join("analyze-iterations");
    let mut sessions: Vec<_> = std::fs::read_dir(&trail)
        .expect("the trail")
        .flatten()
        .map(|e| e.path())
        .collect();
    sessions.sort();
    assert_eq!(sessions.len(), 2, "one per --fix run: {sessions:?}");
    let last = sessions.last().expect("a session");
    for round in [1, 2] {
        for ext in ["prompt", "reply", "diff", "json"] {
            assert!(
                last.join(format!("round-{round}.{ext}")).is_file(),
                "round-{round}.{ext}"
            );
        }
    }
    let round = |n: u32| -> Value {
        serde_json::from_slice(&std::fs::read(last.join(format!("round-{n}.json"))).expect("json"))
            .expect("JSON")
    };
    let first = round(1);
    let outcome = |r: &Value, line: u64| {
        r["proposals"]
            .as_array()
            .expect("proposals")
            .iter()
            .find(|p| p["line"] == line)
            .cloned()
            .unwrap_or_else(|| panic!("line {line} in {r}"))
    };
    let weak = outcome(&first, 14);
    assert_eq!(weak["outcome"], "refused");
    assert_eq!(weak["checks"]["weakenings"][0]["rule"], "turned-constant");
    assert_eq!(
        weak["checks"]["new_warnings"][0]["family"],
        "constant-shell"
    );
    assert_eq!(outcome(&first, 15)["outcome"], "applied");
    let second = round(2);
    assert_eq!(
        outcome(&second, 14)["checks"]["weakenings"][0]["rule"],
        "replaced-by-manual"
    );
    let prompt2 = std::fs::read_to_string(last.join("round-2.prompt")).expect("prompt");
    assert!(prompt2.starts_with("zurdo-reason: analyze --fix round 2 prds/p.md"));
    assert!(
        prompt2.contains("refused: weakens the PRD (turned-constant)"),
        "{prompt2}"
    );
    let reply1 = std::fs::read_to_string(last.join("round-1.reply")).expect("reply");
    assert!(reply1.contains("WEAKEN"));
    let diff1 = std::fs::read_to_string(last.join("round-1.diff")).expect("diff");
    assert!(
        diff1.contains("# line 14: refused") && diff1.contains("|| true"),
        "{diff1}"
    );
}
