//! Failure has a defined next step (issue 17): the escalation ladder a task
//! climbs when it stalls, and provider failover when a CLI cannot work,
//! through the real adapter path. Each provider's CLI is a stand-in for
//! the real one (its own stream, its own words for a quota, a rate limit,
//! a login), driven by a script of its own, so one run can move from one
//! CLI to another. Nothing here waits more than a second (the waits are
//! set that short in the config) and nothing is timed.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

/// The exit code of a run stopped by an agent CLI that cannot work.
const AGENT_UNAVAILABLE: i32 = 5;

/// One task: `out.txt` holding `ok`.
fn prd(max: u32) -> String {
    format!(
        "# PRD: Escalate

## Task: task-out — Write out.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: {max}

### Description
Create `out.txt` holding the single line `ok`.

### Acceptance Criteria
- [ ] it says ok [grep: ^ok$ in out.txt]
"
    )
}

fn provider(cli: &str) -> &'static str {
    match cli {
        "claude" => "anthropic",
        "codex" => "openai",
        "copilot" => "github",
        "gemini" => "google",
        _ => unreachable!(),
    }
}

/// A repository whose providers' commands are stand-ins, each CLI with a
/// script of its own (`agent/<cli>.json`).
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
}

impl Repo {
    /// `clis` get wrappers; `config` is the whole `.zurdo/config.toml`,
    /// with `{<cli>}` standing for that CLI's wrapper.
    fn new(clis: &[&str], prd: &str, config: &str) -> Repo {
        use std::os::unix::fs::PermissionsExt;
        let (tmp, root, agent, _) = crate::common::stand_in_scratch("claude");
        std::fs::write(root.join("prds/x.md"), prd).expect("prd");
        let mut config = config.to_string();
        for cli in clis {
            let wrapper = agent.join(cli);
            std::fs::write(
                &wrapper,
                format!(
                    "#!/bin/sh\nZURDO_STAND_IN_SCRIPT='{}' exec '{}' stand-in {cli} \"$@\"\n",
                    agent.join(format!("{cli}.json")).display(),
                    env!("CARGO_BIN_EXE_zurdo")
                ),
            )
            .expect("wrapper");
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            config = config.replace(&format!("{{{cli}}}"), &wrapper.display().to_string());
        }
        std::fs::write(root.join(".zurdo/config.toml"), config).expect("config");
        let r = Repo {
            _tmp: tmp,
            root,
            agent,
        };
        for cli in clis {
            r.script(cli, json!({}));
        }
        r
    }

    /// A new script for `cli` (its attempt counter starts over).
    fn script(&self, cli: &str, mut script: Value) {
        script["log"] = json!(format!("{cli}-invocations.jsonl"));
        script["markers"] = crate::common::markers();
        let path = self.agent.join(format!("{cli}.json"));
        std::fs::write(&path, script.to_string()).expect("script");
        let _ = std::fs::remove_file(self.agent.join(format!("{cli}.json.count")));
    }

    /// `zurdo run --no-prompt prds/x.md`.
    fn run(&self) -> Output {
        Command::new(env!("CARGO_BIN_EXE_zurdo"))
            .args(["run", "--no-prompt", "prds/x.md"])
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .env_remove("ZURDO_STAND_IN_EUID")
            .env_remove("ANTHROPIC_API_KEY")
            .env("IS_SANDBOX", "1")
            .output()
            .expect("zurdo runs")
    }

    fn state_dir(&self) -> PathBuf {
        std::fs::read_dir(self.root.join(".zurdo"))
            .expect("state")
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("x-"))
            .expect("a state directory")
            .path()
    }

    fn task(&self) -> Value {
        let state: Value = serde_json::from_slice(
            &std::fs::read(self.state_dir().join("prd.json")).expect("prd.json"),
        )
        .expect("JSON");
        crate::common::task_state(&state, "task-out").clone()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        std::fs::read_to_string(self.state_dir().join("progress.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["event"] == name)
            .collect()
    }

    /// The attempts (not probes, not reasoner calls) `cli` was asked for.
    fn attempts_of(&self, cli: &str) -> Vec<Value> {
        std::fs::read_to_string(self.agent.join(format!("{cli}-invocations.jsonl")))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|c| c["probe"] == false && c["reasoner"] == false)
            .collect()
    }
}

fn said(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        crate::common::text(&out.stdout),
        crate::common::text(&out.stderr)
    )
}

/// (provider, model) of each iteration of `task`.
fn ran_on(task: &Value) -> Vec<(String, String)> {
    task["iterations"]
        .as_array()
        .expect("iterations")
        .iter()
        .map(|i| {
            (
                i["provider"].as_str().unwrap_or("").to_string(),
                i["model"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The reasoner's diagnosis, as its final text.
fn guidance(text: &str) -> Value {
    let reply = json!({
        "hypothesis": "The agent writes the wrong word into out.txt.",
        "guidance": text,
        "verdict": "retry_with_guidance",
        "confidence": "medium",
        "cited_steps": [],
    });
    json!({"contains": "zurdo-reason: diagnosis", "attempt": {"text": format!("My reading.\n```json\n{reply}\n```")}})
}

#[test]
fn a_stalled_task_climbs_every_rung_to_a_pass_on_another_provider() {
    let config = r#"[executor]
provider = "anthropic"

[providers.anthropic]
command = "{claude}"

[providers.openai]
command = "{codex}"

[providers.google]
command = "/nonexistent/gemini"

[effort_map.anthropic]
low = "haiku"
high = "opus"

[effort_map.openai]
low = "gpt-6.2-sol"
high = "gpt-6.2-astra"

[effort_map.google]
low = "gemini-2.5-flash"

[roles.reasoner]
provider = "google"
model = "gemini-2.5-pro"
fallback = ["anthropic/sonnet"]

[reason]
enabled = true
extract_lessons = false

[escalation]
enabled = true
ladder = ["retry", "diagnose", "effort:high", "provider:google", "provider:openai", "halt"]

[defaults]
agent_timeout = "60s"
"#;
    let r = Repo::new(&["claude", "codex"], &prd(6), config);
    // Claude writes the wrong word, every time the same way: a stall.
    r.script(
        "claude",
        json!({
            "attempts": [{"write": {"out.txt": "wrong\n"}, "text": "Done, I think."}],
            "reason": [guidance("Write exactly `ok` into out.txt.")],
        }),
    );
    let prompt = r.agent.join("codex-prompt.txt");
    r.script(
        "codex",
        json!({"attempts": [{"write": {"out.txt": "ok\n"}, "text": "Wrote ok.", "echo_prompt_to": prompt}]}),
    );
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let task = r.task();
    assert_eq!(task["status"], "passed", "{task:#}");
    assert_eq!(task["attempts"], 6, "{task:#}");
    assert_eq!(
        ran_on(&task),
        pairs(&[
            ("anthropic", "haiku"),
            ("anthropic", "haiku"),
            ("anthropic", "haiku"),
            ("anthropic", "haiku"),
            ("anthropic", "opus"),
            ("openai", "gpt-6.2-astra"),
        ]),
        "{task:#}"
    );
    // Every climb: an event, a live line, a record in prd.json.
    let climbs: Vec<(String, String)> = r
        .events("escalated")
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap_or("").to_string(),
                e["to"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        climbs,
        pairs(&[
            ("start", "retry"),
            ("retry", "diagnose"),
            ("diagnose", "effort:high"),
            ("effort:high", "provider:openai"),
        ]),
        "{all}"
    );
    let last = r.events("escalated").pop().expect("a climb");
    assert_eq!(last["attempt"], 5);
    assert_eq!(
        (last["provider"].as_str(), last["model"].as_str()),
        (Some("openai"), Some("gpt-6.2-astra"))
    );
    assert!(
        last["why"]
            .as_str()
            .is_some_and(|w| w.starts_with("stalled: the same failure")),
        "{last:#}"
    );
    assert!(all.contains("    escalated: start → retry (stalled: the same failure 2 attempts in a row); next attempt: anthropic `haiku`"), "{all}");
    assert!(
        all.contains("    escalated: effort:high → provider:openai (stalled: the same failure 5 attempts in a row); next attempt: openai `gpt-6.2-astra`"),
        "{all}"
    );
    // The rung that cannot run is skipped with a note, never a crash:
    // gemini is not installed (its probe said so).
    let skipped = r.events("escalation_skipped");
    assert_eq!(skipped.len(), 1, "{skipped:#?}");
    assert_eq!(skipped[0]["rung"], "provider:google");
    assert!(
        skipped[0]["why"].as_str().is_some_and(
            |w| w.contains("gemini cannot work for the rest of this run: cannot be started")
        ),
        "{skipped:#?}"
    );
    assert!(
        all.contains("    escalation: skipped provider:google: gemini cannot work"),
        "{all}"
    );
    let record = &task["escalation"];
    assert_eq!(record["rung"], 4, "{record:#}");
    assert_eq!(record["provider"], "openai");
    assert_eq!(record["effort"], "high");
    assert_eq!(record["climbs"].as_array().map(Vec::len), Some(4));
    assert_eq!(record["climbs"][3]["skipped"][0]["rung"], "provider:google");
    // The task's receipt carries its climbs.
    assert_eq!(
        task["receipt"]["escalations"].as_array().map(Vec::len),
        Some(4),
        "{task:#}"
    );
    assert_eq!(task["receipt"]["escalations"][3]["to"], "provider:openai");
    // The diagnose rung asked the reasoner, which failed over from gemini
    // (not installed) to its fallback.
    let diagnoses = r.events("diagnosis_outcome");
    assert_eq!(diagnoses.len(), 1, "{all}");
    assert_eq!(diagnoses[0]["outcome"], "accepted", "{diagnoses:#?}");
    assert_eq!(diagnoses[0]["model"], "anthropic/claude-sonnet-5");
    let moved: Vec<Value> = r
        .events("failed_over")
        .into_iter()
        .filter(|e| e["role"] == "reasoner")
        .collect();
    assert_eq!(moved.len(), 1, "{all}");
    assert_eq!(
        (moved[0]["from"].as_str(), moved[0]["to"].as_str()),
        (Some("google/gemini-2.5-pro"), Some("anthropic/sonnet"))
    );
    // The prompt after the provider switch carries the same failing
    // evidence (and nothing else decided the pass: zurdo verified it).
    let prompt = std::fs::read_to_string(&prompt).expect("codex's prompt");
    assert!(prompt.contains("# What failed"), "{prompt}");
    assert!(prompt.contains("[grep: ^ok$ in out.txt]"), "{prompt}");
    let claude_attempt_4 = &r.attempts_of("claude")[3];
    assert!(
        claude_attempt_4["prompt"]
            .as_str()
            .is_some_and(|p| p.contains("Write exactly `ok` into out.txt.")),
        "the diagnosis's guidance reached the next prompt: {claude_attempt_4:#}"
    );
    assert_eq!(r.attempts_of("codex").len(), 1);
    // The report's section and the policy document's ladder.
    let report = std::fs::read_dir(r.state_dir().join("reports"))
        .expect("reports")
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| std::fs::read_to_string(e.path()).expect("report"))
        .expect("a report");
    assert!(report.contains("\n## Escalations\n\n- `task-out` after attempt 2: start → retry (stalled: the same failure 2 attempts in a row); next attempt on anthropic `haiku`\n"), "{report}");
    assert!(
        report.contains("  - skipped `provider:google`: gemini cannot work"),
        "{report}"
    );
    let policy: Value = serde_json::from_slice(
        &std::fs::read(r.state_dir().join("policy.json")).expect("policy.json"),
    )
    .expect("JSON");
    assert_eq!(
        policy["escalation"],
        json!({"climb_on": "stall", "ladder": ["retry", "diagnose", "effort:high", "provider:google", "provider:openai", "halt"]})
    );
}

#[test]
fn the_halt_rung_fails_the_task_and_blocks_its_dependents() {
    let config = r#"[providers.anthropic]
command = "{claude}"

[effort_map.anthropic]
low = "haiku"

[escalation]
enabled = true
ladder = ["diagnose", "effort:high", "halt"]
climb_on = "failure"
"#;
    let r = Repo::new(&["claude"], &prd(5), config);
    r.script(
        "claude",
        json!({"attempts": [{"write": {"out.txt": "no\n"}}]}),
    );
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let task = r.task();
    assert_eq!(task["status"], "failed");
    assert_eq!(
        task["attempts"], 1,
        "halted after the first failure: {task:#}"
    );
    let skipped: Vec<String> = r
        .events("escalation_skipped")
        .iter()
        .map(|e| {
            format!(
                "{}: {}",
                e["rung"].as_str().unwrap_or(""),
                e["why"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        skipped,
        [
            "diagnose: the reasoner is off ([reason] enabled = false)",
            "effort:high: [effort_map.anthropic] has no `high`",
        ],
        "{all}"
    );
    let settled = r.events("task_settled").pop().expect("settled");
    assert_eq!(settled["why"], "escalated_to_halt", "{settled:#}");
    assert!(
        all.contains("  failed: the escalation ladder reached `halt`"),
        "{all}"
    );
}

/// Two providers: `first` executes, `second` is its fallback.
fn failover_config(first: &str, second: &str, extra: &str) -> String {
    let (p1, p2) = (provider(first), provider(second));
    format!(
        "[executor]\nprovider = \"{p1}\"\n\n[providers.{p1}]\ncommand = \"{{{first}}}\"\n\n[providers.{p2}]\ncommand = \"{{{second}}}\"\n\n[effort_map.{p1}]\nlow = \"model-a\"\n\n[effort_map.{p2}]\nlow = \"model-b\"\n\n[roles.executor]\nfallback = [\"{p2}\"]\n\n[defaults]\nagent_timeout = \"60s\"\n{extra}"
    )
}

#[test]
fn out_of_quota_fails_over_to_the_next_provider_without_spending_the_budget() {
    for (first, second) in [
        ("claude", "codex"),
        ("codex", "gemini"),
        ("copilot", "claude"),
        ("gemini", "copilot"),
    ] {
        // One attempt in the budget: the pass on the fallback proves the
        // quota failure spent none of it.
        let r = Repo::new(
            &[first, second],
            &prd(1),
            &failover_config(first, second, ""),
        );
        r.script(
            first,
            json!({"attempts": [{"write": {"half.txt": "begun\n"}, "fail": "quota"}]}),
        );
        r.script(
            second,
            json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
        );
        let out = r.run();
        let all = said(&out);
        assert_eq!(out.status.code(), Some(0), "{first} → {second}: {all}");
        let task = r.task();
        assert_eq!(task["attempts"], 1, "{first}: {task:#}");
        assert_eq!(
            ran_on(&task),
            pairs(&[(provider(second), "model-b")]),
            "{first}: {task:#}"
        );
        let blocked = r.events("provider_blocked");
        assert_eq!(blocked.len(), 1, "{first}: {all}");
        assert_eq!(blocked[0]["provider"], provider(first));
        assert_eq!(blocked[0]["failure"]["kind"], "quota_exhausted");
        assert_eq!(blocked[0]["during"], "executor");
        let moved = r.events("failed_over");
        assert_eq!(moved.len(), 1, "{first}: {all}");
        assert_eq!(
            (
                moved[0]["from"].as_str(),
                moved[0]["to"].as_str(),
                moved[0]["attempt"].as_u64()
            ),
            (Some(provider(first)), Some(provider(second)), Some(1))
        );
        assert!(
            all.contains(&format!(
                "    failing over: the executor moves from {} to {} (`model-b`), attempt 1 again, not counted",
                provider(first),
                provider(second)
            )),
            "{all}"
        );
        assert!(
            all.contains("blocked for the rest of this run (found by the executor)"),
            "{all}"
        );
        // The work the quota cut short stays in the tree.
        assert!(r.root.join("half.txt").exists(), "{first}");
        assert_eq!(r.attempts_of(first).len(), 1, "{first}");
        assert_eq!(r.attempts_of(second).len(), 1, "{first}");
    }
}

#[test]
fn not_logged_in_mid_run_fails_over_for_every_cli() {
    for (first, second) in [
        ("claude", "gemini"),
        ("codex", "copilot"),
        ("copilot", "codex"),
        ("gemini", "claude"),
    ] {
        let r = Repo::new(
            &[first, second],
            &prd(1),
            &failover_config(first, second, ""),
        );
        r.script(first, json!({"attempts": [{"fail": "auth"}]}));
        r.script(
            second,
            json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
        );
        let out = r.run();
        let all = said(&out);
        assert_eq!(out.status.code(), Some(0), "{first} → {second}: {all}");
        let blocked = r.events("provider_blocked");
        assert_eq!(blocked.len(), 1, "{first}: {all}");
        assert_eq!(blocked[0]["failure"]["kind"], "auth_failed", "{first}");
        assert_eq!(r.task()["attempts"], 1, "{first}");
        assert_eq!(ran_on(&r.task()), pairs(&[(provider(second), "model-b")]));
    }
}

#[test]
fn not_logged_in_at_the_probe_fails_over_before_any_attempt() {
    let r = Repo::new(
        &["claude", "codex"],
        &prd(1),
        &failover_config("claude", "codex", ""),
    );
    r.script("claude", json!({"auth": "missing"}));
    r.script(
        "codex",
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let blocked = r.events("provider_blocked");
    assert_eq!(blocked.len(), 1, "{all}");
    assert_eq!(blocked[0]["failure"]["kind"], "auth_failed");
    assert_eq!(blocked[0]["during"], "probe");
    assert!(
        r.attempts_of("claude").is_empty(),
        "no attempt went to claude"
    );
    assert_eq!(ran_on(&r.task()), pairs(&[("openai", "model-b")]));
}

#[test]
fn a_rate_limit_is_waited_out_and_the_same_attempt_recovers() {
    let config = failover_config("claude", "codex", "rate_limit_wait = \"1s\"\n");
    let r = Repo::new(&["claude", "codex"], &prd(1), &config);
    // No reset time: a backoff, capped at the 1 s the config allows.
    r.script(
        "claude",
        json!({"attempts": [{"fail": "rate_limit"}, {"write": {"out.txt": "ok\n"}}]}),
    );
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let waits = r.events("rate_limit_wait");
    assert_eq!(waits.len(), 1, "{all}");
    assert_eq!(
        (
            waits[0]["seconds"].as_u64(),
            waits[0]["known"].as_bool(),
            waits[0]["attempt"].as_u64()
        ),
        (Some(1), Some(false), Some(1))
    );
    assert!(
        all.contains("    claude is rate limited and did not say until when: waiting 0:01"),
        "{all}"
    );
    let task = r.task();
    assert_eq!(task["attempts"], 1, "{task:#}");
    assert_eq!(
        ran_on(&task),
        pairs(&[("anthropic", "model-a")]),
        "recovered on the same provider"
    );
    assert!(r.events("provider_blocked").is_empty(), "{all}");
    assert!(r.attempts_of("codex").is_empty());
}

#[test]
fn a_rate_limit_past_the_wait_fails_over_instead_of_stopping() {
    let config = failover_config("codex", "claude", "rate_limit_wait = \"1s\"\n");
    let r = Repo::new(&["codex", "claude"], &prd(1), &config);
    r.script(
        "codex",
        json!({"attempts": [{"fail": {"kind": "rate_limit", "resets_in_s": 7200}}]}),
    );
    r.script(
        "claude",
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        r.events("rate_limit_wait").is_empty(),
        "no two-hour wait: {all}"
    );
    let blocked = r.events("provider_blocked");
    assert_eq!(blocked[0]["failure"]["kind"], "rate_limited", "{all}");
    assert!(blocked[0]["failure"]["retry_after"].is_string());
    assert_eq!(r.task()["attempts"], 1);
    assert_eq!(ran_on(&r.task()), pairs(&[("anthropic", "model-b")]));
}

#[test]
fn with_no_fallback_left_the_run_stops_cleanly_and_a_resume_continues() {
    let r = Repo::new(
        &["claude", "codex"],
        &prd(2),
        &failover_config("claude", "codex", ""),
    );
    r.script("claude", json!({"attempts": [{"fail": "quota"}]}));
    r.script("codex", json!({"attempts": [{"fail": "auth"}]}));
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(AGENT_UNAVAILABLE), "{all}");
    assert!(
        all.contains(
            "zurdo: codex: not logged in (the CLI said: unexpected status 401 Unauthorized"
        ),
        "the last provider's cause: {all}"
    );
    assert!(
        all.contains("then `zurdo run prds/x.md` resumes (no attempt was charged); no fallback provider is left"),
        "{all}"
    );
    let task = r.task();
    assert_eq!(
        (task["status"].as_str(), task["attempts"].as_u64()),
        (Some("pending"), Some(0)),
        "{task:#}"
    );
    assert_eq!(task["iterations"], json!([]));
    let dropped = r.events("attempt_dropped");
    let kinds: Vec<&str> = dropped
        .iter()
        .filter_map(|d| d["failure"]["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["quota_exhausted", "auth_failed"], "{all}");

    // Codex is logged in again: the next run resumes (claude, still out of
    // quota, fails over again) and the task passes on its first attempt.
    r.script(
        "codex",
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let again = r.run();
    let all = said(&again);
    assert_eq!(again.status.code(), Some(0), "{all}");
    let task = r.task();
    assert_eq!(
        (task["status"].as_str(), task["attempts"].as_u64()),
        (Some("passed"), Some(1)),
        "{task:#}"
    );
    assert_eq!(ran_on(&task), pairs(&[("openai", "model-b")]));
}

#[test]
fn an_escalated_task_resumes_on_the_rung_it_reached() {
    let config = r#"[providers.anthropic]
command = "{claude}"

[providers.openai]
command = "{codex}"

[effort_map.anthropic]
low = "haiku"

[effort_map.openai]
low = "gpt-6.2-sol"

[escalation]
enabled = true
ladder = ["provider:openai"]
climb_on = "failure"
"#;
    let r = Repo::new(&["claude", "codex"], &prd(3), config);
    // Claude fails its attempt, then runs out of quota.
    r.script(
        "claude",
        json!({"attempts": [{"write": {"out.txt": "no\n"}}, {"fail": "quota"}]}),
    );
    // Codex, where the ladder moved the task, is out of quota too: the
    // task falls back to the executor's chain (claude), also out: the run
    // stops, the task pending on the rung it reached.
    r.script("codex", json!({"attempts": [{"fail": "quota"}]}));
    let out = r.run();
    let all = said(&out);
    assert_eq!(out.status.code(), Some(AGENT_UNAVAILABLE), "{all}");
    assert_eq!(r.task()["escalation"]["provider"], "openai", "{all}");
    assert_eq!(r.task()["attempts"], 1);
    assert!(
        all.contains("    failing over: the executor moves from openai to anthropic (`haiku`), attempt 2 again, not counted; codex cannot work for the rest of this run: out of quota"),
        "{all}"
    );
    r.script(
        "codex",
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let again = r.run();
    let all = said(&again);
    assert_eq!(again.status.code(), Some(0), "{all}");
    assert_eq!(
        ran_on(&r.task()),
        pairs(&[("anthropic", "haiku"), ("openai", "gpt-6.2-sol")])
    );
}

#[test]
fn doctor_probes_the_fallbacks_and_the_ladder_and_says_each_providers_state() {
    let config = r#"[providers.anthropic]
command = "{claude}"

[providers.openai]
command = "{codex}"

[providers.google]
command = "/nonexistent/gemini"

[effort_map.anthropic]
low = "haiku"
high = "opus"

[effort_map.openai]
low = "gpt-6.2-sol"
high = "gpt-6.2-astra"

[effort_map.google]
low = "gemini-2.5-flash"

[roles.executor]
fallback = ["openai", "google"]

[roles.challenger]
fallback = ["anthropic/opus"]

[escalation]
enabled = true
"#;
    let r = Repo::new(&["claude", "codex"], &prd(1), config);
    r.script("codex", json!({"auth": "missing"}));
    let out = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("doctor")
        .current_dir(&r.root)
        .stdin(Stdio::null())
        .env("IS_SANDBOX", "1")
        .output()
        .expect("zurdo runs");
    let stdout = crate::common::text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a probe failed: {stdout}");
    for line in [
        "executor fallback: openai, google\n",
        "escalation: retry → diagnose → effort:high → halt (a task climbs one rung on each stall)\n",
        "  probing openai gpt-6.2-sol (fallback effort low) …\n",
        "  probing google gemini-2.5-flash (fallback effort low) …\n",
        // The challenger: who it is, how zurdo chose it, and its probes.
        "challenger: openai/gpt-6.2-astra (chosen: provider openai (the first configured that is not the executor), model gpt-6.2-astra ([effort_map.openai] high))\n",
        "challenger fallback: anthropic/opus\n",
        "  probing anthropic opus (effort high, ladder effort:high, challenger fallback) …\n",
        "  probing openai gpt-6.2-astra (fallback effort high, ladder effort:high, challenger) …\n",
        "  challenger: openai gpt-6.2-astra: FAILED",
        "provider states (from the probes):\n  anthropic: authenticated and working (2 of 2 probed models answered)\n  openai: NOT authenticated (the CLI said: unexpected status 401 Unauthorized",
        "  google: cannot work: cannot be started (cannot start `/nonexistent/gemini`",
    ] {
        assert!(stdout.contains(line), "{line:?} in:\n{stdout}");
    }
}
