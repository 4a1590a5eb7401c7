//! Cost budgets and receipts (issue 17): stand-ins speaking each CLI's real
//! event stream, with the cost or the tokens it reports, through the real
//! adapter path. An attempt predicted to cross a budget is refused before
//! it starts (`budget_exhausted`: the task fails, its dependents are
//! blocked, no agent runs); a CLI that reports no cost counts tokens
//! instead and says so; the spend recorded in prd.json survives a resume
//! (and the run-start budget stays in force whatever the config says
//! now); a task an attempt passed gets a receipt in prd.json and in `zurdo
//! report`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::common::{run_repo, state, state_dir, task_state, text};

/// Agent invocations that were attempts (probes and reasoner calls aside),
/// as the stand-in counts them beside its script.
fn attempts_run(script_dir: &Path) -> u64 {
    std::fs::read_to_string(script_dir.join("script.json.count"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// `zurdo run --no-prompt prds/<prd>` in `root` with the stand-in's script.
fn run(root: &Path, prd: &str, script: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", prd])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", script)
        .env_remove("ZURDO_STAND_IN_EUID")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("NO_COLOR")
        .env("IS_SANDBOX", "1")
        .output()
        .expect("zurdo runs")
}

/// The `task_settled` events of progress.log.
fn settled(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(state_dir(root).join("progress.log"))
        .expect("progress.log")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "task_settled")
        .collect()
}

const REFUSED_PRD: &str = "# PRD: Budget

## Task: task-costly — Write the marker
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3
**Max-Cost**: $0.05

### Description
Create `out/done.txt`.

### Acceptance Criteria
- [ ] the marker exists [file-exists: out/done.txt]

## Task: task-after — Use the marker
**Effort**: low
**Depends-on**: [task-costly]

### Description
Read the marker.

### Acceptance Criteria
- [ ] the note exists [file-exists: out/note.txt]
";

#[test]
fn an_attempt_that_would_cross_the_task_budget_is_refused_and_its_dependents_blocked() {
    // Every attempt fails and costs $0.03: the second would bring the
    // task to $0.06, past its **Max-Cost** of $0.05.
    let script = json!({"attempts": [{"text": "I could not.", "cost_usd": 0.03}]}).to_string();
    let r = run_repo(REFUSED_PRD, "", &[], &script, false);
    let root = r.path();
    let out = run(root, "prds/p.md", &root.join(".zurdo/script.json"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // One attempt ran; the refused one never started.
    assert_eq!(attempts_run(&root.join(".zurdo")), 1, "{stderr}");
    assert!(stderr.contains("attempt 1/3 (haiku)"), "{stderr}");
    assert!(!stderr.contains("attempt 2/3"), "{stderr}");
    assert!(
        stderr.contains("failed: budget_exhausted: attempt 2 refused, not started: **Max-Cost** is $0.05; the task has spent $0.03 and attempt 2 is predicted to spend $0.03 (the median of the task's attempts so far)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("blocked: `task-costly` did not pass"),
        "{stderr}"
    );

    let s = state(root);
    let costly = task_state(&s, "task-costly");
    assert_eq!(costly["status"], "failed");
    assert_eq!(costly["attempts"], 1);
    assert_eq!(
        costly["budget_exhausted"],
        json!({
            "attempt": 2,
            "budget": "**Max-Cost**",
            "scope": "task",
            "limit": 0.05,
            "spent": 0.03,
            "predicted": 0.03,
            "basis": "task",
        })
    );
    assert!(costly.get("receipt").is_none(), "{costly:#}");
    let after = task_state(&s, "task-after");
    assert_eq!(after["status"], "blocked-by-dependency");
    assert_eq!(after["attempts"], 0);

    // progress.log says it as the live line did.
    let events = settled(root);
    let refusal = events
        .iter()
        .find(|e| e["task"] == "task-costly")
        .expect("task-costly settled");
    assert_eq!(refusal["why"], "budget_exhausted", "{refusal}");
    assert_eq!(refusal["refusal"]["budget"], "**Max-Cost**");
    assert!(events
        .iter()
        .any(|e| e["task"] == "task-after" && e["why"] == "blocked"));

    // The report names the refusal in the task's entry.
    let report = crate::common::zurdo(&["report", "prds/p.md"], root);
    let md = text(&report.stdout);
    assert!(
        md.contains("- budget_exhausted: attempt 2 refused, not started: **Max-Cost** is $0.05"),
        "{md}"
    );
    assert!(!md.contains("## Receipts"), "{md}");
}

const ONE_TASK: &str = "# PRD: Tokens

## Task: task-tokens — Write out.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 5

### Description
Create `out.txt` holding `ok`.

### Acceptance Criteria
- [ ] it says ok [grep: ^ok$ in out.txt]
";

#[test]
fn a_cli_that_reports_no_cost_counts_tokens_instead_and_says_so() {
    let (_tmp, root, agent, wrapper) = crate::common::stand_in_scratch("codex");
    std::fs::write(root.join("prds/x.md"), ONE_TASK).expect("prd");
    std::fs::write(
        root.join(".zurdo/config.toml"),
        format!(
            "[executor]\nprovider = \"openai\"\n\n[providers.openai]\ncommand = \"{}\"\n\n[effort_map.openai]\nlow = \"model-low\"\n\n[budget]\nmax_cost_usd = 1.0\nmax_task_tokens = 2000\n",
            wrapper.display()
        ),
    )
    .expect("config");
    // codex's stream reports tokens (1200 in, 80 out by default), no cost.
    let script = agent.join("script.json");
    std::fs::write(
        &script,
        json!({"attempts": [{"text": "Not yet."}], "markers": crate::common::markers()})
            .to_string(),
    )
    .expect("script");
    let out = run(&root, "prds/x.md", &script);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("zurdo: codex reports no cost: its attempts count tokens instead, against [budget] max_task_tokens = 2000"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("reports no cost").count(),
        1,
        "said once: {stderr}"
    );
    // 1280 tokens spent, 1280 predicted: past 2000 at the second attempt;
    // the dollar budget never refused anything (no cost was reported).
    assert_eq!(attempts_run(&agent), 1, "{stderr}");
    assert!(
        stderr.contains("[budget] max_task_tokens is 2000 tokens; the task has spent 1280 tokens and attempt 2 is predicted to spend 1280 tokens"),
        "{stderr}"
    );
    let s = state_named(&root, "x");
    let t = task_state(&s, "task-tokens");
    assert_eq!(t["status"], "failed");
    let agent_record = &t["iterations"][0]["agent"];
    assert!(agent_record.get("cost_usd").is_none(), "{agent_record}");
    assert_eq!(agent_record["usage"]["input_tokens"], 1200);
    assert_eq!(t["budget_exhausted"]["budget"], "[budget] max_task_tokens");
    assert_eq!(t["budget_exhausted"]["spent"], 1280);
}

/// `prd.json` of the PRD whose state directory starts `<prefix>-`.
fn state_named(root: &Path, prefix: &str) -> Value {
    let dir = std::fs::read_dir(root.join(".zurdo"))
        .expect("state")
        .flatten()
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{prefix}-"))
        })
        .expect("a state directory")
        .path();
    serde_json::from_slice(&std::fs::read(dir.join("prd.json")).expect("prd.json"))
        .expect("valid JSON")
}

const TWO_TASKS: &str = "# PRD: Resume

## Task: task-first — Write a.txt
**Effort**: low
**Depends-on**: []

### Description
Create `a.txt`.

### Acceptance Criteria
- [ ] a exists [file-exists: a.txt]

## Task: task-second — Write b.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 1

### Description
Create `b.txt`.

### Acceptance Criteria
- [ ] b exists [file-exists: b.txt]
";

#[test]
fn a_resume_keeps_the_spend_and_the_run_start_budget_and_the_report_shows_receipts() {
    // The first task passes for $0.03; the second's one attempt fails for
    // $0.03 (its prediction, the provider's median, fit its $0.05).
    let script = json!({"attempts": [
        {"write": {"a.txt": "a\n"}, "text": "Wrote a.", "cost_usd": 0.03},
        {"text": "Could not.", "cost_usd": 0.03}
    ]})
    .to_string();
    let r = run_repo(
        TWO_TASKS,
        "[budget]\nmax_task_cost_usd = 0.05\n",
        &[],
        &script,
        false,
    );
    let root = r.path();
    let script = root.join(".zurdo/script.json");
    let first = run(root, "prds/p.md", &script);
    let stderr = text(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    assert_eq!(attempts_run(&root.join(".zurdo")), 2, "{stderr}");
    assert!(!stderr.contains("budget_exhausted"), "{stderr}");
    let s = state(root);
    assert_eq!(task_state(&s, "task-first")["status"], "passed");
    assert_eq!(task_state(&s, "task-second")["status"], "failed");

    // The receipt, in prd.json …
    let receipt = &task_state(&s, "task-first")["receipt"];
    assert_eq!(receipt["passed_at"], 1, "{receipt:#}");
    assert_eq!(receipt["attempts"], 1);
    assert_eq!(receipt["models"], json!(["haiku"]));
    assert_eq!(receipt["cost_usd"], 0.03);
    assert_eq!(receipt["tokens"]["input_tokens"], 1200);
    assert_eq!(receipt["tokens"]["output_tokens"], 80);
    assert!(receipt["wall_ms"].as_u64().is_some(), "{receipt:#}");
    assert_eq!(receipt["escalations"], json!([]));
    assert_eq!(
        receipt["proved_by"],
        json!([{"criterion": "task_first::a_exists", "line": 11, "hints": ["[file-exists: a.txt]"]}])
    );
    assert!(task_state(&s, "task-second").get("receipt").is_none());
    // … and in `zurdo report`.
    let report = crate::common::zurdo(&["report", "prds/p.md"], root);
    let md = text(&report.stdout);
    assert!(md.contains("\n## Receipts\n\n"), "{md}");
    assert!(
        md.contains("- `task-first` (passed at attempt 1): 1 attempt; model `haiku`; tokens 1200 in / 80 out; cost $0.0300; wall time "),
        "{md}"
    );
    assert!(md.contains("s; escalations: none\n"), "{md}");
    assert!(
        md.contains("  - proved by: `task_first::a_exists` (line 11: [file-exists: a.txt])"),
        "{md}"
    );
    assert!(!md.contains("`task-second` (passed"), "{md}");

    // A resume with a fresh attempt budget for the failed task, the config
    // raised to $100 meanwhile: the run-start budget stays in force, and
    // the $0.03 the task spent in the first run is still spent, so $0.03
    // more (its own median) would cross its $0.05. (A resume decides from
    // what prd.json records, so it refuses where the stopped run would
    // have; the spend it reads is what the earlier run recorded.)
    std::fs::write(
        root.join(".zurdo/config.toml"),
        std::fs::read_to_string(root.join(".zurdo/config.toml"))
            .expect("config")
            .replace("max_task_cost_usd = 0.05", "max_task_cost_usd = 100.0"),
    )
    .expect("config");
    let second = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["run", "--no-prompt", "--retry-failed", "prds/p.md"])
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", &script)
        .env_remove("ZURDO_STAND_IN_EUID")
        .env_remove("ANTHROPIC_API_KEY")
        .env("IS_SANDBOX", "1")
        .output()
        .expect("zurdo runs");
    let stderr = text(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("warning: policy changed since run start"),
        "{stderr}"
    );
    assert!(
        stderr.contains("failed: budget_exhausted: attempt 2 refused, not started: [budget] max_task_cost_usd is $0.05; the task has spent $0.03 and attempt 2 is predicted to spend $0.03 (the median of the task's attempts so far)"),
        "{stderr}"
    );
    // Nothing ran: the refusal came before any attempt.
    assert_eq!(attempts_run(&root.join(".zurdo")), 2, "{stderr}");
    let s = state(root);
    let second_task = task_state(&s, "task-second");
    assert_eq!(second_task["status"], "failed");
    assert_eq!(second_task["attempts"], 1);
    assert_eq!(second_task["budget_exhausted"]["spent"], 0.03);
    // The first task's receipt stands.
    assert_eq!(task_state(&s, "task-first")["receipt"]["cost_usd"], 0.03);
}
