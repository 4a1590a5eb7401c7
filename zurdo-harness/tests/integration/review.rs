//! `zurdo review`: signing off `[manual]` criteria. A run leaves a task in
//! `passed-pending-review` (an automated criterion the stand-in makes pass
//! beside a `[manual]` one); then an approval makes it `passed` with one
//! entry in review-log.jsonl, a rejection sends it back with the reason in
//! its next prompt, a tampered entry is found by `--verify` and counts for
//! nothing, a held lock refuses, `--format json` lists what awaits, and
//! the interactive session is driven through stdin (a pipe with the hidden
//! `--interactive`, and a real terminal under `script(1)`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::{run_repo, state, state_dir, task_state, text, zurdo_run};

const PRD: &str = "# PRD: p

## Task: task-1 — Greet
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
Write greeting.txt saying hello.

### Acceptance Criteria
- [ ] the greeting exists [grep: ^hello in greeting.txt]
- [ ] the wording reads well [manual]
";

/// Two tasks: `task-1` as above, `task-2` all `[manual]` (it passes at
/// pre-flight and awaits review with no agent).
const TWO: &str = "# PRD: p

## Task: task-1 — Greet
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
Write greeting.txt saying hello.

### Acceptance Criteria
- [ ] the greeting exists [grep: ^hello in greeting.txt]
- [ ] the wording reads well [manual]

## Task: task-2 — Look
**Effort**: low
**Depends-on**: [task-1]

### Description
Someone reads it.

### Acceptance Criteria
- [ ] it is friendly [manual]
- [ ] it is short [manual]
";

const SCRIPT: &str = r#"{"attempts": [
    {"write": {"greeting.txt": "hello\n"}, "text": "Wrote it."},
    {"write": {"greeting.txt": "hello, reader\n"}, "text": "Addressed the reader.", "echo_prompt_to": ".zurdo/prompt-2.txt"}
]}"#;

const WORDING: &str = "task_1::the_wording_reads_well";

/// A git repository whose reviewer is Ada, after a `zurdo run` of `prd`
/// that leaves `task-1` awaiting review.
fn reviewed_repo(prd: &str, real_git: bool) -> tempfile::TempDir {
    let r = run_repo(prd, "", &[], SCRIPT, real_git);
    if real_git {
        for (key, value) in [
            ("user.name", "Ada Reviewer"),
            ("user.email", "ada@example.com"),
        ] {
            let ok = Command::new("git")
                .args(["config", key, value])
                .current_dir(r.path())
                .status()
                .expect("git runs")
                .success();
            assert!(ok, "git config {key}");
        }
    }
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = state(r.path());
    assert_eq!(
        task_state(&s, "task-1")["status"],
        "passed-pending-review",
        "{s:#}"
    );
    r
}

/// `zurdo review <args…> prds/p.md` in `root`, with `stdin` piped in
/// (nothing: stdin is closed, not a terminal).
fn review(root: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    review_env(root, args, stdin, &[])
}

fn review_env(root: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
    command
        .arg("review")
        .args(args)
        .arg("prds/p.md")
        .current_dir(root)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = command.spawn().expect("zurdo runs");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input.as_bytes()).expect("answers");
    }
    child.wait_with_output().expect("zurdo ends")
}

fn review_log(root: &Path) -> String {
    std::fs::read_to_string(state_dir(root).join("review-log.jsonl")).unwrap_or_default()
}

fn log_entries(root: &Path) -> Vec<Value> {
    review_log(root)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn events(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(state_dir(root).join("progress.log"))
        .expect("progress.log")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn agent_prompts(root: &Path) -> usize {
    std::fs::read_dir(state_dir(root).join("iterations"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".prompt"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn an_approval_makes_the_task_passed_with_one_entry_in_the_chain() {
    let r = reviewed_repo(PRD, true);
    let root = r.path();
    let before = state(root);
    let verified = task_state(&before, "task-1")["iterations"][0]["verified_tree"].clone();
    assert!(verified.is_string(), "{before:#}");

    let out = review(
        root,
        &["--approve", WORDING, "--reason", "reads fine"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "approved task_1::the_wording_reads_well (review-log.jsonl line 1); task-1 is passed"
        ),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("nothing awaits review"),
        "{}",
        text(&out.stdout)
    );

    let s = state(root);
    let t = task_state(&s, "task-1");
    assert_eq!(t["status"], "passed", "{t:#}");
    assert_eq!(t["approvals"][0]["criterion"], WORDING);
    assert_eq!(t["approvals"][0]["line"], 1);
    assert_eq!(s["review_chain"]["entries"], 1);

    // One entry, chained to the genesis value, naming who, what and which tree.
    let log = review_log(root);
    assert_eq!(log.lines().count(), 1, "{log}");
    let line = log.lines().next().expect("a line");
    assert_eq!(s["review_chain"]["head"], sha256(line.as_bytes()));
    assert_eq!(t["approvals"][0]["sha256"], sha256(line.as_bytes()));
    let e = &log_entries(root)[0];
    assert_eq!(e["v"], 1);
    assert_eq!(e["reviewer"], "Ada Reviewer <ada@example.com>");
    assert_eq!(e["task"], "task-1");
    assert_eq!(e["criterion"], WORDING);
    assert_eq!(e["decision"], "approved");
    assert_eq!(e["reason"], "reads fine");
    assert_eq!(e["attempt"], 1);
    assert_eq!(e["tree"], verified);
    assert_eq!(e["prev"], "0".repeat(64));
    let prd_bytes = std::fs::read(root.join("prds/p.md")).expect("prd");
    assert_eq!(e["prd_sha256"], sha256(&prd_bytes));
    assert!(
        zurdo_base::time::parse(e["at"].as_str().expect("at")).is_some(),
        "{e}"
    );
    assert_eq!(e["mac"].as_str().map(str::len), Some(64), "{e}");
    let keys: Vec<&str> = line
        .trim_start_matches('{')
        .split(",\"")
        .map(|k| k.trim_start_matches('"').split('"').next().unwrap_or(""))
        .collect();
    assert_eq!(
        keys,
        [
            "v",
            "at",
            "reviewer",
            "task",
            "criterion",
            "decision",
            "reason",
            "attempt",
            "tree",
            "prd_sha256",
            "prev",
            "mac"
        ],
        "{line}"
    );

    // The event is in progress.log.
    let reviewed: Vec<Value> = events(root)
        .into_iter()
        .filter(|e| e["event"] == "reviewed")
        .collect();
    assert_eq!(reviewed.len(), 1);
    assert_eq!(reviewed[0]["decision"], "approved");
    assert_eq!(reviewed[0]["status"], "passed");
    assert_eq!(reviewed[0]["line"], 1);

    // The chain checks.
    let v = review(root, &["--verify"], None);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v.stdout));
    assert!(
        text(&v.stdout).contains("1 entry, the chain checks"),
        "{}",
        text(&v.stdout)
    );

    // The report and verify say who approved it and when.
    let report = crate::common::zurdo(&["report", "prds/p.md"], root);
    let md = text(&report.stdout);
    assert!(md.contains("## Reviews\n\n- `task-1` `task_1::the_wording_reads_well`: approved by Ada Reviewer <ada@example.com> at "), "{md}");
    assert!(
        md.contains("(review-log.jsonl line 1): reads fine\n"),
        "{md}"
    );
    let verify = crate::common::zurdo(&["verify", "prds/p.md"], root);
    let out = text(&verify.stdout);
    assert!(
        out.contains("          approved by Ada Reviewer <ada@example.com> at "),
        "{out}"
    );
    assert!(
        out.contains("1 of them approved in `zurdo review`"),
        "{out}"
    );

    // A second approval of the same criterion is refused; a later run
    // keeps the task passed and runs no agent.
    let again = review(root, &["--approve", WORDING], None);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr)
            .contains("is not awaiting review: Ada Reviewer <ada@example.com> approved it"),
        "{}",
        text(&again.stderr)
    );
    let prompts = agent_prompts(root);
    let rerun = zurdo_run(root, &["--skip-model-check"], &[]);
    assert_eq!(rerun.status.code(), Some(0), "{}", text(&rerun.stderr));
    assert_eq!(task_state(&state(root), "task-1")["status"], "passed");
    assert_eq!(agent_prompts(root), prompts, "no attempt");
}

#[test]
fn a_rejection_sends_the_task_back_and_its_next_prompt_carries_the_reason() {
    let r = reviewed_repo(PRD, true);
    let root = r.path();

    // A rejection needs a reason.
    let bare = review(root, &["--reject", WORDING], None);
    assert_eq!(bare.status.code(), Some(2), "{}", text(&bare.stderr));
    assert!(
        text(&bare.stderr).contains("--reason"),
        "{}",
        text(&bare.stderr)
    );
    let blank = review(root, &["--reject", WORDING, "--reason", "  "], None);
    assert_eq!(blank.status.code(), Some(2));
    assert!(review_log(root).is_empty(), "nothing recorded");

    let reason = "Greet the reader, not the world";
    let out = review(
        root,
        &[
            "--reject",
            "task-1::the_wording_reads_well",
            "--reason",
            reason,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!(
            "rejected {WORDING} (review-log.jsonl line 1): {reason}"
        )),
        "{}",
        text(&out.stderr)
    );
    let s = state(root);
    let t = task_state(&s, "task-1");
    assert_eq!(t["status"], "pending", "{t:#}");
    assert_eq!(t["attempts"], 1);
    assert_eq!(
        t["max_attempts"], 3,
        "one more attempt than the budget of 2"
    );
    assert_eq!(t["rejection"]["reason"], reason);
    assert!(t["retry_context"]
        .as_str()
        .expect("retry context")
        .starts_with("# Review"));
    let e = &log_entries(root)[0];
    assert_eq!(
        (&e["decision"], &e["reason"]),
        (&"rejected".into(), &reason.into())
    );

    // The next run retries the task, its prompt opening with the reason.
    let run = zurdo_run(root, &["--skip-model-check"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let prompt =
        std::fs::read_to_string(root.join(".zurdo/prompt-2.txt")).expect("the second prompt");
    assert!(prompt.starts_with("# Review\n"), "{prompt}");
    assert!(
        prompt.contains(&format!(
            "A reviewer rejected {WORDING} (prds/p.md:13, \"the wording reads well\"): {reason}"
        )),
        "{prompt}"
    );
    let s = state(root);
    let t = task_state(&s, "task-1");
    assert_eq!(
        t["status"], "passed-pending-review",
        "attempt 2 passed: {t:#}"
    );
    assert_eq!(t["attempts"], 2);

    // Attempt 2's result is what is reviewed now.
    let ok = review(root, &["--approve", WORDING], None);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert_eq!(task_state(&state(root), "task-1")["status"], "passed");
    let entries = log_entries(root);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["attempt"], 2);
    let first = review_log(root).lines().next().expect("a line").to_string();
    assert_eq!(entries[1]["prev"], sha256(first.as_bytes()));
    assert_eq!(review(root, &["--verify"], None).status.code(), Some(0));
}

#[test]
fn a_tampered_entry_is_found_by_verify_and_its_approval_does_not_count() {
    let r = reviewed_repo(PRD, true);
    let root = r.path();
    let out = review(
        root,
        &["--approve", WORDING, "--reason", "reads fine"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(task_state(&state(root), "task-1")["status"], "passed");

    let path = state_dir(root).join("review-log.jsonl");
    let log = review_log(root);
    std::fs::write(&path, log.replace("reads fine", "reads great")).expect("tamper");

    let v = review(root, &["--verify"], None);
    assert_eq!(v.status.code(), Some(1), "{}", text(&v.stdout));
    let out = text(&v.stdout);
    assert!(out.contains("review-log.jsonl: broken at line 1: its MAC does not check: it was changed after zurdo wrote it"), "{out}");
    let json = review(root, &["--verify", "--format", "json"], None);
    assert_eq!(json.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(doc["intact"], false);
    assert_eq!(doc["first_break"]["line"], 1);

    // The report, read-only, says the approval no longer counts.
    let md = text(&crate::common::zurdo(&["report", "prds/p.md"], root).stdout);
    assert!(
        md.contains("does not check (its MAC does not check"),
        "{md}"
    );
    assert!(
        md.contains("the approval prd.json records does not count"),
        "{md}"
    );

    // The next run warns loudly and the task awaits review again.
    let run = zurdo_run(root, &["--skip-model-check"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("review-log.jsonl does not check at line 1: its MAC does not check"),
        "{stderr}"
    );
    assert!(
        stderr.contains("task-1: 1 approval is not counted; it is passed-pending-review"),
        "{stderr}"
    );
    let s = state(root);
    let t = task_state(&s, "task-1");
    assert_eq!(t["status"], "passed-pending-review", "{t:#}");
    assert!(t.get("approvals").is_none(), "{t:#}");
    let names: Vec<Value> = events(root)
        .into_iter()
        .map(|e| e["event"].clone())
        .collect();
    assert!(names.contains(&"review_chain_broken".into()), "{names:?}");
    assert!(names.contains(&"review_unvouched".into()), "{names:?}");

    // It is listed as awaiting again, and a new approval (chained after the
    // broken line) counts.
    let list = review(root, &["--format", "json"], None);
    let doc: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    assert_eq!(doc["awaiting"][0]["criterion"], WORDING, "{doc:#}");
    let ok = review(root, &["--approve", WORDING], None);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(
        text(&ok.stderr).contains("does not check at line 1"),
        "still said: {}",
        text(&ok.stderr)
    );
    assert_eq!(task_state(&state(root), "task-1")["status"], "passed");
    assert_eq!(
        review(root, &["--verify"], None).status.code(),
        Some(1),
        "line 1 stays broken"
    );
}

#[test]
fn a_forged_passed_state_or_a_removed_entry_does_not_make_the_task_pass() {
    let r = reviewed_repo(PRD, true);
    let root = r.path();
    let out = review(root, &["--approve", WORDING], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The entry removed: the approval prd.json pins is gone.
    std::fs::write(state_dir(root).join("review-log.jsonl"), "").expect("empty");
    let v = review(root, &["--verify"], None);
    assert_eq!(v.status.code(), Some(1));
    assert!(
        text(&v.stdout)
            .contains("broken at line 1: prd.json records 1 entries and the log ends after 0"),
        "{}",
        text(&v.stdout)
    );
    let list = review(root, &["--format", "json"], None);
    assert_eq!(list.status.code(), Some(0), "{}", text(&list.stderr));
    let doc: Value = serde_json::from_slice(&list.stdout).expect("JSON");
    assert_eq!(doc["awaiting"].as_array().map(Vec::len), Some(1), "{doc:#}");
    assert_eq!(
        task_state(&state(root), "task-1")["status"],
        "passed-pending-review"
    );
}

#[test]
fn a_review_while_a_run_holds_the_lock_exits_3() {
    let r = reviewed_repo(PRD, true);
    let root = r.path();
    let (mut holder, _script) = crate::common::live_zurdo();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let lock = state_dir(root).join("lock");
    std::fs::write(&lock, crate::common::lock_line(holder.id())).expect("lock");
    let before = std::fs::read(state_dir(root).join("prd.json")).expect("state");

    for args in [
        &["--approve", WORDING][..],
        &["--reject", WORDING, "--reason", "no"][..],
        &["--format", "json"][..],
        &["--interactive"][..],
    ] {
        let out = review(root, args, Some("a\n"));
        assert_eq!(
            out.status.code(),
            Some(3),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(&format!("another zurdo (pid {}", holder.id())),
            "{}",
            text(&out.stderr)
        );
    }
    assert!(review_log(root).is_empty(), "nothing recorded");
    assert_eq!(
        std::fs::read(state_dir(root).join("prd.json")).expect("state"),
        before
    );
    // --verify reads only: it needs no lock.
    assert_eq!(review(root, &["--verify"], None).status.code(), Some(0));
    holder.kill().ok();
    holder.wait().ok();
    // Once the holder is gone its lock is stale: taken over.
    let out = review(root, &["--approve", WORDING], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("taking over a stale lock"),
        "{}",
        text(&out.stderr)
    );
    assert!(!lock.exists(), "released");
}

#[test]
fn format_json_lists_what_awaits_and_names_are_checked() {
    let r = reviewed_repo(TWO, true);
    let root = r.path();
    let s = state(root);
    assert_eq!(task_state(&s, "task-2")["status"], "passed-pending-review");
    let out = review(root, &["--format", "json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["prd"], "prds/p.md");
    assert_eq!(doc["decisions"], serde_json::json!([]));
    let awaiting = doc["awaiting"].as_array().expect("a list");
    let rows: Vec<(String, String, u64, String)> = awaiting
        .iter()
        .map(|a| {
            (
                a["task"].as_str().unwrap_or("").to_string(),
                a["criterion"].as_str().unwrap_or("").to_string(),
                a["line"].as_u64().unwrap_or(0),
                a["title"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "task-1".to_string(),
                WORDING.to_string(),
                13,
                "the wording reads well".to_string()
            ),
            (
                "task-2".to_string(),
                "task_2::it_is_friendly".to_string(),
                23,
                "it is friendly".to_string()
            ),
            (
                "task-2".to_string(),
                "task_2::it_is_short".to_string(),
                24,
                "it is short".to_string()
            ),
        ]
    );
    assert_eq!(awaiting[0]["task_title"], "Greet");
    assert_eq!(awaiting[0]["attempt"], 1);
    assert_eq!(
        awaiting[0]["tree"],
        task_state(&s, "task-1")["iterations"][0]["verified_tree"]
    );
    assert_eq!(awaiting[1]["attempt"], 0, "passed at pre-flight");
    assert!(
        awaiting[1]["tree"].as_str().is_some_and(|t| t.len() == 40),
        "the tree now: {doc:#}"
    );

    // Names that are wrong, each said.
    let cases = [
        ("task_1::the_wording_read_well", "has no criterion `task_1::the_wording_read_well`; did you mean `task_1::the_wording_reads_well`?"),
        ("task_9::it_is_friendly", "has no task `task_9`; did you mean `task_2::it_is_friendly`?"),
        ("task_1::the_greeting_exists", "`task_1::the_greeting_exists` (prds/p.md:12) is not a [manual] criterion: zurdo checks it itself ([grep: ^hello in greeting.txt])"),
        ("the_wording_reads_well", "name a criterion as <task>::<criterion>"),
    ];
    for (name, want) in cases {
        let out = review(root, &["--approve", name], None);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(
            text(&out.stderr).contains(want),
            "{name}: {}",
            text(&out.stderr)
        );
    }
    // Approving both of task-2's in one call, with JSON out: it passes,
    // and what still awaits is task-1's.
    let out = review(
        root,
        &[
            "--approve",
            "task-2::it_is_friendly",
            "--approve",
            "task_2::it_is_short",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        doc["decisions"].as_array().map(Vec::len),
        Some(2),
        "{doc:#}"
    );
    assert_eq!(doc["decisions"][1]["line"], 2);
    assert_eq!(doc["decisions"][1]["criterion"], "task_2::it_is_short");
    assert_eq!(doc["awaiting"].as_array().map(Vec::len), Some(1));
    assert_eq!(task_state(&state(root), "task-2")["status"], "passed");
    // A task that is not awaiting review.
    let rejected = review(root, &["--reject", WORDING, "--reason", "no"], None);
    assert_eq!(rejected.status.code(), Some(0));
    let out = review(root, &["--approve", WORDING], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not awaiting review: task-1 is pending"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_session_asks_through_stdin_and_a_pipe_alone_only_lists() {
    let r = reviewed_repo(TWO, true);
    let root = r.path();

    // A pipe is not a terminal: what awaits is listed, nothing is asked
    // (the answers piped in are not read).
    let out = review(root, &[], Some("a\na\na\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(
            "prds/p.md: 3 [manual] criteria await review\n  task-1 — Greet (attempt 1, tree "
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("    task_2::it_is_short  prds/p.md:24  it is short\n"),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("stdin is not a terminal, so nothing was asked"),
        "{}",
        text(&out.stderr)
    );
    assert!(review_log(root).is_empty());

    // Driven through stdin: approve task-1's, reject task-2's first (an
    // empty reason is asked again); its second is then not asked.
    let out = review(
        root,
        &["--interactive"],
        Some("a\nr\n\nToo cold: greet by name\n"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let screen = text(&out.stdout);
    for want in [
        "== task-1 — Greet (passed-pending-review, attempt 1 of 2)",
        "diff since its rollback point (refs/zurdo/",
        "+hello\n",
        "automated evidence (attempt 1):\n    PASS    task_1::the_greeting_exists  (prds/p.md:12)\n    REVIEW  task_1::the_wording_reads_well  (prds/p.md:13)",
        "  prds/p.md:13: - [ ] the wording reads well [manual]\n  criterion: task_1::the_wording_reads_well\n",
        "== task-2 — Look (passed-pending-review, passed at pre-flight, no agent ran)",
        "no diff: the task passed at pre-flight",
        "a rejection needs a reason",
        "task-2 is pending again",
        "prds/p.md: 1 approved, 1 rejected, 1 skipped; 0 still await review",
    ] {
        assert!(screen.contains(want), "{want:?} not in:\n{screen}");
    }
    let s = state(root);
    assert_eq!(task_state(&s, "task-1")["status"], "passed");
    assert_eq!(task_state(&s, "task-2")["status"], "pending");
    assert_eq!(
        task_state(&s, "task-2")["rejection"]["reason"],
        "Too cold: greet by name"
    );
    let entries = log_entries(root);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["reviewer"], "Ada Reviewer <ada@example.com>");
    assert_eq!(entries[1]["decision"], "rejected");
    assert_eq!(entries[1]["attempt"], 0);

    // The pre-flight pass rejected is attempted by the next run (its first
    // agent attempt), the prompt opening with the reason.
    let run = zurdo_run(root, &["--skip-model-check"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let prompt =
        std::fs::read_to_string(root.join(".zurdo/prompt-2.txt")).expect("task-2's prompt");
    assert!(prompt.starts_with("# Review\n"), "{prompt}");
    assert!(prompt.contains("A reviewer rejected task_2::it_is_friendly (prds/p.md:23, \"it is friendly\"): Too cold: greet by name"), "{prompt}");
    assert!(prompt.contains("# Task task-2 — Look"), "{prompt}");
    let s = state(root);
    let t2 = task_state(&s, "task-2");
    assert_eq!(t2["status"], "passed-pending-review", "{t2:#}");
    assert_eq!(t2["attempts"], 1);
    assert!(t2["rollback_point"].is_string(), "{t2:#}");
    assert_eq!(
        task_state(&s, "task-1")["status"],
        "passed",
        "approved, untouched"
    );
}

#[test]
fn outside_git_there_is_no_diff_and_the_reviewer_is_user() {
    let r = reviewed_repo(PRD, false);
    let root = r.path();
    let out = review_env(
        root,
        &["--interactive"],
        Some("s\n"),
        &[("USER", "reviewer-x")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let screen = text(&out.stdout);
    assert!(screen.contains("as reviewer-x"), "{screen}");
    assert!(screen.contains("no diff: not a git repository"), "{screen}");
    assert!(
        screen.contains("0 approved, 0 rejected, 1 skipped; 1 still awaits review"),
        "{screen}"
    );
    let out = review_env(
        root,
        &["--approve", WORDING],
        None,
        &[("USER", "reviewer-x")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let e = &log_entries(root)[0];
    assert_eq!(e["reviewer"], "reviewer-x");
    assert_eq!(e["tree"], Value::Null);
}

fn has_script() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn on_a_real_terminal_the_session_asks() {
    if !has_script() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let r = reviewed_repo(PRD, true);
    let root = r.path();
    let command = format!("'{}' review prds/p.md", env!("CARGO_BIN_EXE_zurdo"));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(b"a\n").expect("type the answer");
    }
    let out = child.wait_with_output().expect("script ends");
    let screen = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{screen}");
    assert!(
        screen.contains("[a]pprove, [r]eject, [s]kip (default), [q]uit?"),
        "{screen}"
    );
    assert_eq!(
        task_state(&state(root), "task-1")["status"],
        "passed",
        "{screen}"
    );
    assert_eq!(log_entries(root).len(), 1);
}
