//! The reason subsystem end to end through `zurdo run`, with the scripted
//! stand-in as both the executor (Claude Code's stream) and the reasoner:
//! stalls, each diagnosis verdict's effect, every fail-open path, a
//! recovery that writes one lesson, a later run whose first prompt carries
//! it, eviction, and the bounded evidence bundle.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

/// One task whose criterion fails until `out/done.txt` exists.
fn prd(max_attempts: u32) -> String {
    format!(
        "# PRD: reason

## Task: task-1 — Make the marker
**Effort**: low
**Depends-on**: []
**Max-Attempts**: {max_attempts}

### Description
Create out/done.txt.

### Acceptance Criteria
- [ ] the marker exists [shell: test -f out/done.txt]

## Task: task-2 — After the marker
**Effort**: low
**Depends-on**: [task-1]

### Description
Create out/after.txt.

### Acceptance Criteria
- [ ] the second marker exists [shell: test -f out/after.txt]
"
    )
}

const REASONER: &str = "[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"haiku\"\n";

fn enabled(extra: &str) -> String {
    format!("{REASONER}[reason]\nenabled = true\n{extra}")
}

/// A diagnosis reply as the reasoner's final text.
fn diagnosis(verdict: &str, confidence: &str, cited: &[usize], guidance: &str) -> Value {
    let reply = json!({
        "hypothesis": "The agent never creates the out/ directory.",
        "guidance": guidance,
        "verdict": verdict,
        "confidence": confidence,
        "cited_steps": cited,
    });
    json!({"contains": "zurdo-reason: diagnosis", "attempt": {"text": format!("Here is my reading.\n```json\n{reply}\n```")}})
}

fn lesson(body: &str) -> Value {
    json!({"contains": "zurdo-reason: lesson", "attempt": {"text": json!({"lesson": body}).to_string()}})
}

/// Attempts that fail the same way (`n` of them, one tool call each), then
/// one that writes both markers.
fn attempts(failing: usize) -> Vec<Value> {
    let mut out: Vec<Value> = (0..failing)
        .map(|i| json!({"text": format!("attempt {i}: I think it is done."), "tool_calls": [{"name": "Bash", "input": {"command": "touch done.txt"}, "output": "", "ok": true}]}))
        .collect();
    out.push(json!({"write": {"out/done.txt": "ok\n", "out/after.txt": "ok\n"}, "text": "Created out/ first."}));
    out
}

fn script(attempts: Vec<Value>, reason: Vec<Value>) -> String {
    json!({"attempts": attempts, "reason": reason, "log": "invocations.jsonl"}).to_string()
}

/// `prd(max)` with `[reason] enabled` (plus `config`) and `files`, run by
/// an agent that fails the same way `failing` times and then passes, and a
/// reasoner answering from `reason`.
fn stalled_run(
    max: u32,
    config: &str,
    files: &[(&str, &str)],
    failing: usize,
    reason: Vec<Value>,
) -> (tempfile::TempDir, std::process::Output) {
    let dir = run_repo(
        &prd(max),
        &enabled(config),
        files,
        &script(attempts(failing), reason),
        false,
    );
    let out = zurdo_run(dir.path(), &[], &[]);
    (dir, out)
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn events(root: &Path, name: &str) -> Vec<Value> {
    jsonl(&state_dir(root).join("progress.log"))
        .into_iter()
        .filter(|e| e["event"] == name)
        .collect()
}

/// Every stand-in invocation: (was it a reasoner call, its prompt).
fn calls(root: &Path) -> Vec<(bool, String)> {
    jsonl(&root.join(".zurdo/invocations.jsonl"))
        .into_iter()
        .filter(|c| c["probe"] != true)
        .map(|c| {
            (
                c["reasoner"] == true,
                c["prompt"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn executor_prompts(root: &Path) -> Vec<String> {
    calls(root)
        .into_iter()
        .filter(|(r, _)| !r)
        .map(|(_, p)| p)
        .collect()
}

fn reasoner_calls(root: &Path) -> usize {
    calls(root).iter().filter(|(r, _)| *r).count()
}

fn task1(root: &Path) -> Value {
    state(root)["tasks"][0].clone()
}

fn lesson_files(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("lessons"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_stall_is_detected_on_the_second_identical_failure_without_any_model() {
    let dir = run_repo(&prd(3), "", &[], &script(attempts(2), vec![]), false);
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stalls = events(root, "task_stalled");
    assert_eq!(stalls.len(), 1, "{stalls:?}");
    assert_eq!(stalls[0]["attempt"], 2);
    assert_eq!(stalls[0]["repeats"], 2);
    assert!(
        stderr.contains("stalled: the same failure 2 attempts in a row"),
        "{stderr}"
    );
    let t = task1(root);
    assert_eq!(
        t["stalls"][0]["criteria"],
        json!(["task_1::the_marker_exists"])
    );
    let prints: Vec<&Value> = t["iterations"]
        .as_array()
        .expect("iterations")
        .iter()
        .map(|i| &i["fingerprint"])
        .collect();
    assert_eq!(prints[0], prints[1]);
    assert!(prints[2].is_null(), "a pass has no fingerprint");
    // Disabled: no reasoner call, no diagnosis, no lesson.
    assert_eq!(reasoner_calls(root), 0);
    assert!(events(root, "diagnosis_outcome").is_empty());
    assert!(lesson_files(root).is_empty());
}

#[test]
fn changing_failures_are_progress_not_a_stall() {
    let prd = "# PRD: reason

## Task: task-1 — Three files
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 4

### Description
Create a, b and c.

### Acceptance Criteria
- [ ] a [file-exists: a.txt]
- [ ] b [file-exists: b.txt]
- [ ] c [file-exists: c.txt]
";
    let steps = vec![
        json!({"text": "nothing yet"}),
        json!({"write": {"a.txt": "a"}}),
        json!({"write": {"b.txt": "b"}}),
        json!({"write": {"c.txt": "c"}}),
    ];
    let dir = run_repo(prd, &enabled(""), &[], &script(steps, vec![]), false);
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(events(root, "task_stalled").is_empty());
    assert_eq!(reasoner_calls(root), 0);
    let t = task1(root);
    let prints: std::collections::BTreeSet<String> = t["iterations"]
        .as_array()
        .expect("iterations")
        .iter()
        .filter_map(|i| i["fingerprint"].as_str().map(String::from))
        .collect();
    assert_eq!(prints.len(), 3, "three different failures: {t:#}");
}

#[test]
fn retry_with_guidance_puts_a_diagnosis_in_the_next_prompt_and_the_recovery_teaches_a_lesson() {
    let reason = vec![
        diagnosis(
            "retry_with_guidance",
            "high",
            &[2],
            "GUIDANCE: mkdir -p out first.",
        ),
        lesson("Create the out/ directory before writing markers into it."),
    ];
    let (dir, out) = stalled_run(4, "", &[], 2, reason);
    let root = dir.path();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let prompts = executor_prompts(root);
    assert!(!prompts[1].contains("# Diagnosis"), "{}", prompts[1]);
    assert!(
        prompts[2].starts_with("# Diagnosis")
            && prompts[2].contains("GUIDANCE: mkdir -p out first."),
        "the attempt after the stall carries the diagnosis:\n{}",
        prompts[2]
    );
    assert!(prompts[2].contains("# What failed"), "{}", prompts[2]);
    let outcomes = events(root, "diagnosis_outcome");
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0]["outcome"], "accepted");
    assert_eq!(outcomes[0]["verdict"], "retry_with_guidance");
    assert_eq!(outcomes[0]["confidence"], "high");
    assert!(
        outcomes[0]["input_tokens"].as_u64().is_some(),
        "{outcomes:?}"
    );
    let t = task1(root);
    assert_eq!(t["status"], "passed");
    let block = &t["diagnoses"][0]["block"];
    assert_eq!(block["cited_steps"], json!([2]));
    let file = t["diagnoses"][0]["file"].as_str().expect("file");
    assert!(root.join(file).is_file(), "{file}");

    // The recovery: one extraction call, one lesson file.
    assert_eq!(reasoner_calls(root), 2);
    assert_eq!(state(root)["reasoner_calls"], 2);
    let files = lesson_files(root);
    assert_eq!(files.len(), 1, "{files:?}");
    let lesson_text =
        std::fs::read_to_string(root.join("lessons").join(&files[0])).expect("lesson");
    assert!(lesson_text.starts_with("---\n"), "{lesson_text}");
    assert!(
        lesson_text.contains("Create the out/ directory"),
        "{lesson_text}"
    );
    assert!(lesson_text.contains("task: task-1"), "{lesson_text}");
    let id = files[0]
        .trim_start_matches("lesson-")
        .trim_end_matches(".md");
    assert_eq!(t["lessons_extracted"][0]["id"], id);
    assert_eq!(events(root, "lesson_extracted")[0]["outcome"], "written");
    // The lesson prompt had the stalled attempt's evidence and the diff.
    let extraction = calls(root)
        .into_iter()
        .find(|(r, p)| *r && p.starts_with("zurdo-reason: lesson"))
        .expect("an extraction call")
        .1;
    assert!(extraction.contains("out/done.txt"), "{extraction}");

    // A later run in the same repository: its first prompt carries the lesson.
    std::fs::write(root.join(".zurdo/invocations.jsonl"), "").expect("reset log");
    std::fs::remove_dir_all(root.join("out")).expect("clean");
    let again = zurdo_run(root, &["--reset"], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let first = &executor_prompts(root)[0];
    let framing = first
        .find("# Lessons from earlier runs")
        .unwrap_or_else(|| panic!("no lessons section:\n{first}"));
    assert!(first[framing..].contains("never override"), "{first}");
    assert!(
        first.contains(&format!("lesson-{id} (learned from task-1 in prds/p.md)")),
        "{first}"
    );
    let injected = &task1(root)["lessons_injected"][0];
    assert_eq!(injected["mode"], "prospective");
    assert_eq!(injected["attempt"], 1);
    let usage: Value = serde_json::from_slice(
        &std::fs::read(root.join(".zurdo/reason/usage.json")).expect("usage.json"),
    )
    .expect("json");
    assert_eq!(usage[id]["uses"], 1, "{usage}");
}

#[test]
fn a_lesson_surfaces_reactively_in_a_retry_prompt() {
    // A lesson declaring the failure's components (shell + exit_code), but
    // no command head the task declares: it cannot match prospectively
    // (one point), only once the failure is known (two points).
    let lesson = "---\nmatch:\n  hints: [shell]\n  reasons: [exit_code]\ntask: task-9\nprd: prds/old.md\ncreated: 2026-01-01T00:00:00Z\n---\nCheck the exit code of the marker test.\n";
    let dir = run_repo(
        &prd(3),
        &enabled(""),
        &[("lessons/lesson-0badc0de.md", lesson)],
        &script(attempts(1), vec![]),
        false,
    );
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let prompts = executor_prompts(root);
    assert!(!prompts[0].contains("lesson-0badc0de"), "{}", prompts[0]);
    assert!(
        prompts[1].contains("lesson-0badc0de (learned from task-9 in prds/old.md)"),
        "{}",
        prompts[1]
    );
    let injected = &task1(root)["lessons_injected"];
    assert_eq!(injected[0]["mode"], "reactive", "{injected}");
    assert_eq!(injected[0]["attempt"], 2);
    // A preview never counts as a use.
    let before = std::fs::read(root.join(".zurdo/reason/usage.json")).expect("usage");
    let preview = crate::common::zurdo(&["reason", "match", "prds/p.md"], root);
    assert_eq!(preview.status.code(), Some(0));
    assert_eq!(
        std::fs::read(root.join(".zurdo/reason/usage.json")).expect("usage"),
        before
    );
}

#[test]
fn suggest_heal_records_a_routing_and_the_loop_continues() {
    let reason = vec![diagnosis(
        "suggest_heal",
        "medium",
        &[],
        "The hint may be wrong.",
    )];
    let (dir, out) = stalled_run(4, "", &[], 2, reason);
    let root = dir.path();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = task1(root);
    assert_eq!(
        t["heal_routings"][0]["criteria"],
        json!(["task_1::the_marker_exists"])
    );
    assert_eq!(t["attempts"], 3, "the loop went on");
    assert!(!executor_prompts(root)[2].contains("# Diagnosis"));
}

#[test]
fn halt_task_stops_the_task_at_once_and_blocks_its_dependents() {
    let reason = vec![diagnosis("halt_task", "high", &[1], "")];
    let (dir, out) = stalled_run(5, "", &[], 4, reason);
    let root = dir.path();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let st = state(root);
    assert_eq!(st["tasks"][0]["status"], "failed");
    assert_eq!(st["tasks"][0]["attempts"], 2, "no attempt after the halt");
    assert_eq!(st["tasks"][0]["halted"]["attempt"], 2);
    assert_eq!(st["tasks"][1]["status"], "blocked-by-dependency");
    assert_eq!(executor_prompts(root).len(), 2);
    assert!(stderr.contains("halted by diagnosis"), "{stderr}");
}

/// Runs a stall-then-recover task whose diagnosis cannot be used; the run
/// must go exactly as with the subsystem off: attempt 3 happens, its prompt
/// has no diagnosis, the task passes.
fn fails_open(config: &str, reason: Vec<Value>, expect_outcome: &str, why: &str) {
    let (dir, out) = stalled_run(4, config, &[], 2, reason);
    let root = dir.path();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let t = task1(root);
    assert_eq!(t["status"], "passed", "{t:#}");
    assert_eq!(t["attempts"], 3);
    assert!(!executor_prompts(root)[2].contains("# Diagnosis"));
    let outcomes = events(root, "diagnosis_outcome");
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(outcomes[0]["outcome"], expect_outcome, "{outcomes:?}");
    let said = outcomes[0]["why"].as_str().unwrap_or("");
    assert!(said.contains(why), "{why:?} not in {said:?}");
}

#[test]
fn an_unparseable_reply_is_discarded() {
    let reason = vec![
        json!({"contains": "zurdo-reason: diagnosis", "attempt": {"text": "I would try harder."}}),
    ];
    fails_open("", reason, "discarded", "JSON");
}

#[test]
fn a_block_citing_a_missing_step_is_discarded() {
    fails_open(
        "",
        vec![diagnosis("retry_with_guidance", "high", &[9], "x")],
        "discarded",
        "step 9",
    );
}

#[test]
fn an_unknown_verdict_is_discarded() {
    fails_open(
        "",
        vec![diagnosis("mark_passed", "high", &[1], "x")],
        "discarded",
        "mark_passed",
    );
}

#[test]
fn a_reasoner_that_cannot_start_is_discarded() {
    let config = "[providers.openai]\ncommand = \"/nonexistent/codex\"\n";
    let dir = run_repo(
        &prd(4),
        &format!("[roles.reasoner]\nprovider = \"openai\"\nmodel = \"gpt\"\n[reason]\nenabled = true\n{config}"),
        &[],
        &script(attempts(2), vec![]),
        false,
    );
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let outcomes = events(root, "diagnosis_outcome");
    assert_eq!(outcomes[0]["outcome"], "discarded");
    assert!(
        outcomes[0]["why"]
            .as_str()
            .unwrap_or("")
            .contains("could not start"),
        "{outcomes:?}"
    );
    assert_eq!(task1(root)["attempts"], 3);
}

#[test]
fn a_reasoner_past_its_timeout_is_discarded() {
    let reason = vec![
        json!({"contains": "zurdo-reason: diagnosis", "attempt": {"sleep_ms": 5000, "text": "{}"}}),
    ];
    fails_open("timeout = \"1s\"\n", reason, "discarded", "timed out");
}

#[test]
fn a_reasoner_that_says_nothing_is_discarded() {
    fails_open("", vec![], "discarded", "answered nothing");
}

#[test]
fn an_empty_run_budget_skips_the_call() {
    fails_open(
        "max_reasoner_calls_per_run = 0\n",
        vec![diagnosis("halt_task", "high", &[1], "")],
        "skipped",
        "max_reasoner_calls_per_run (0)",
    );
}

#[test]
fn the_per_task_budget_caps_diagnoses_and_the_final_attempt_gets_none() {
    // Five identical failures, max 5 attempts: stalls at 2, 3 and 4 (none
    // on the final attempt: a stall fires before the budget runs out).
    // Diagnoses at 2 and 3 (the per-task cap is 2), skipped at 4 (cap).
    let reason = vec![diagnosis("retry_with_guidance", "low", &[], "try again")];
    let (dir, out) = stalled_run(5, "", &[], 5, reason);
    let root = dir.path();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(events(root, "task_stalled").len(), 3);
    let outcomes: Vec<(String, String)> = events(root, "diagnosis_outcome")
        .iter()
        .map(|o| {
            (
                o["outcome"].as_str().unwrap_or("").to_string(),
                o["why"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
    assert_eq!(outcomes[0].0, "accepted");
    assert_eq!(outcomes[1].0, "accepted");
    assert!(
        outcomes[2].0 == "skipped" && outcomes[2].1.contains("max_diagnoses_per_task"),
        "{outcomes:?}"
    );
    assert_eq!(reasoner_calls(root), 2);
}

#[test]
fn high_confidence_without_a_citation_is_clamped_to_medium() {
    let reason = vec![diagnosis(
        "retry_with_guidance",
        "high",
        &[],
        "mkdir -p out",
    )];
    let (dir, out) = stalled_run(4, "", &[], 2, reason);
    let root = dir.path();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let outcome = &events(root, "diagnosis_outcome")[0];
    assert_eq!(outcome["outcome"], "accepted");
    assert_eq!(outcome["confidence"], "medium");
    assert_eq!(outcome["confidence_clamped"], true);
}

#[test]
fn the_bundle_keeps_both_ends_of_a_huge_attempt_within_12_kb() {
    let huge = format!("HEAD-MARK {} TAIL-MARK", "x".repeat(40_000));
    let noisy: Vec<Value> = (0..2)
        .map(|_| json!({"text": huge, "tool_calls": (0..30).map(|i| json!({"name": "Bash", "input": {"command": format!("step {i}")}, "output": "y".repeat(2000), "ok": false})).collect::<Vec<_>>()}))
        .chain([json!({"write": {"out/done.txt": "ok\n", "out/after.txt": "ok\n"}})])
        .collect();
    let reason = vec![diagnosis("retry_with_guidance", "low", &[60], "x")];
    let dir = run_repo(&prd(4), &enabled(""), &[], &script(noisy, reason), false);
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let prompt = std::fs::read_to_string(state_dir(root).join("reason/task-1-2-diagnosis.prompt"))
        .expect("the diagnosis prompt is kept");
    assert!(prompt.contains("elided"), "an elision marker");
    assert!(prompt.contains("[1]"), "the head survives");
    assert!(prompt.contains("TAIL-MARK"), "the tail survives");
    // The bundle is at most 12 KB; the task and the instructions around it are small.
    assert!(
        prompt.len() < 12 * 1024 + 4 * 1024,
        "{} bytes",
        prompt.len()
    );
    // Step 60 exists (2 attempts × 30 steps) even though the middle was elided.
    assert_eq!(events(root, "diagnosis_outcome")[0]["outcome"], "accepted");
}

#[test]
fn eviction_keeps_the_library_at_max_lessons() {
    let old = "---\nmatch:\n  hints: [grep]\n  paths: [\"docs/\"]\ntask: task-0\nprd: prds/old.md\ncreated: 2025-01-01T00:00:00Z\n---\nAn old lesson nobody used.\n";
    let reason = vec![
        diagnosis("retry_with_guidance", "low", &[], "mkdir"),
        lesson("Create out/ before writing into it."),
    ];
    let (dir, out) = stalled_run(
        4,
        "max_lessons = 1\n",
        &[("lessons/lesson-00000001.md", old)],
        2,
        reason,
    );
    let root = dir.path();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let files = lesson_files(root);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_ne!(
        files[0], "lesson-00000001.md",
        "the unused old lesson was evicted"
    );
    assert_eq!(
        task1(root)["lessons_extracted"][0]["evicted"],
        json!(["00000001"])
    );
}

#[test]
fn enabled_without_a_reasoner_role_is_a_config_error_before_the_prd_is_read() {
    let dir = run_repo(
        "not a PRD at all",
        "[reason]\nenabled = true\n",
        &[],
        "{}",
        false,
    );
    let out = zurdo_run(dir.path(), &[], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("[roles.reasoner]"), "{stderr}");
    assert!(!stderr.contains("not a valid PRD"), "{stderr}");
}

#[test]
fn reason_status_names_a_file_with_an_unknown_key_and_clear_deletes_the_library() {
    let good = "---\nmatch:\n  hints: [shell]\n  commands: [cargo]\ntask: task-1\nprd: prds/p.md\ncreated: 2026-01-01T00:00:00Z\n---\nRun cargo build first.\n";
    let bad = "---\nmatch:\n  hints: [shell]\n  commands: [cargo]\nauthor: me\ntask: task-1\nprd: prds/p.md\n---\nBody.\n";
    let dir = run_repo(
        &prd(2),
        "",
        &[
            ("lessons/lesson-11111111.md", good),
            ("lessons/lesson-22222222.md", bad),
        ],
        "{}",
        false,
    );
    let root = dir.path();
    let out = crate::common::zurdo(&["reason", "status"], root);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 lesson(s)"), "{stdout}");
    assert!(stdout.contains("lesson-11111111.md"), "{stdout}");
    assert!(
        stdout.contains("lesson-22222222.md") && stdout.contains("author"),
        "the skipped file is named with its unknown key:\n{stdout}"
    );
    let cleared = crate::common::zurdo(&["reason", "clear"], root);
    assert_eq!(cleared.status.code(), Some(0));
    assert!(lesson_files(root).is_empty(), "{:?}", lesson_files(root));
}

#[test]
fn extract_lessons_false_diagnoses_but_writes_no_lesson() {
    let reason = vec![
        diagnosis("retry_with_guidance", "low", &[], "mkdir -p out"),
        lesson("Create out/ first."),
    ];
    let (dir, out) = stalled_run(4, "extract_lessons = false\n", &[], 2, reason);
    let root = dir.path();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(reasoner_calls(root), 1, "the diagnosis only");
    assert!(lesson_files(root).is_empty());
    assert!(events(root, "lesson_extracted").is_empty());
}

#[test]
fn with_reason_off_lessons_are_not_read_and_nothing_is_stamped() {
    let lesson = "---\nmatch:\n  hints: [shell]\n  commands: [test]\ntask: task-9\nprd: prds/old.md\ncreated: 2026-01-01T00:00:00Z\n---\nA lesson.\n";
    let bad = "---\nmatch:\n  hints: [shell]\n  commands: [test]\nauthor: me\ntask: t\nprd: p\n---\nBody.\n";
    let files = [
        ("lessons/lesson-0badc0de.md", lesson),
        ("lessons/lesson-0000bad0.md", bad),
    ];
    let dir = run_repo(&prd(3), "", &files, &script(attempts(0), vec![]), false);
    let root = dir.path();
    let out = zurdo_run(root, &[], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!executor_prompts(root)[0].contains("lesson-0badc0de"));
    assert!(!root.join(".zurdo/reason/usage.json").exists());
    assert!(!stderr.contains("lesson-0000bad0"), "{stderr}");

    // On: the same lesson surfaces prospectively, and the bad file is warned about at pre-flight.
    std::fs::remove_dir_all(root.join("out")).expect("clean");
    let config = root.join(".zurdo/config.toml");
    let mut text_now = std::fs::read_to_string(&config).expect("config");
    text_now.push_str(&enabled(""));
    std::fs::write(&config, text_now).expect("config");
    std::fs::write(root.join(".zurdo/invocations.jsonl"), "").expect("reset log");
    let on = zurdo_run(root, &["--reset"], &[]);
    let stderr = text(&on.stderr);
    assert_eq!(on.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("lesson-0000bad0.md skipped") && stderr.contains("author"),
        "{stderr}"
    );
    assert!(executor_prompts(root)[0].contains("lesson-0badc0de"));
    assert!(root.join(".zurdo/reason/usage.json").is_file());
}

#[test]
fn a_codex_reasoner_is_driven_through_its_own_cli() {
    use std::os::unix::fs::PermissionsExt;
    let reason = vec![diagnosis(
        "retry_with_guidance",
        "medium",
        &[1],
        "CODEX-GUIDANCE",
    )];
    let dir = run_repo(&prd(4), "", &[], &script(attempts(2), reason), false);
    let root = dir.path();
    let wrapper = root.join(".zurdo/codex");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' stand-in codex \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let config = root.join(".zurdo/config.toml");
    let mut text_now = std::fs::read_to_string(&config).expect("config");
    text_now.push_str(&format!(
        "[providers.openai]\ncommand = \"{}\"\n[roles.reasoner]\nprovider = \"openai\"\nmodel = \"gpt-5.4\"\n[reason]\nenabled = true\n",
        wrapper.display()
    ));
    std::fs::write(&config, text_now).expect("config");
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let call = jsonl(&root.join(".zurdo/invocations.jsonl"))
        .into_iter()
        .find(|c| c["reasoner"] == true)
        .expect("a reasoner call");
    assert_eq!(call["cli"], "codex");
    let args: Vec<&str> = call["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert!(
        args.contains(&"exec") && args.contains(&"--json"),
        "{args:?}"
    );
    let outcome = &events(root, "diagnosis_outcome")[0];
    assert_eq!(outcome["outcome"], "accepted", "{outcome}");
    assert!(outcome["model"]
        .as_str()
        .unwrap_or("")
        .starts_with("openai/"));
    assert!(executor_prompts(root)[2].contains("CODEX-GUIDANCE"));
}

#[test]
fn doctor_probes_the_reasoner_model_too() {
    let dir = run_repo(
        &prd(2),
        "[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"gpt-9\"\n",
        &[],
        &json!({"models": {"gpt-9": "unknown"}}).to_string(),
        false,
    );
    let root = dir.path();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("doctor")
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .output()
        .expect("zurdo runs");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("effort low: anthropic haiku: ok"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reasoner: anthropic gpt-9: FAILED"),
        "{stdout}"
    );
}
