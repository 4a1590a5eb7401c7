//! A broken agent is not a failed task (issue 14): the stand-in acts out a
//! CLI that cannot work with the real CLIs' own words (`"fail"` in its
//! script), through the real adapter path. Each class stops the run with its
//! cause and exit 5, spends no attempt, leaves the task `pending`, and a
//! second `zurdo run` after the fix (a new script) resumes and passes. A
//! rate limit with a near reset is waited out instead, spending nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The exit code of a run stopped by an agent CLI that cannot work.
const AGENT_UNAVAILABLE: i32 = 5;

/// One task: write `out.txt` holding `ok`.
const ONE_TASK: &str = "# PRD: Infra

## Task: task-out — Write out.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
Create `out.txt` holding the single line `ok`.

### Acceptance Criteria
- [ ] it says ok [grep: ^ok$ in out.txt]
";

/// The attempt that does the task.
fn fixed() -> Value {
    json!({"attempts": [{"write": {"out.txt": "ok\n"}, "text": "Wrote it."}]})
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl std::fmt::Display for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {} after {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        )
    }
}

/// A repository (`repo/`) whose executor is the stand-in for `cli`, and
/// beside it (`agent/`) the wrapper, its script and what it records.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
    cli: &'static str,
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

impl Repo {
    fn new(cli: &'static str, prd: &str, defaults: &str) -> Repo {
        let (tmp, root, agent, wrapper) = crate::common::stand_in_scratch(cli);
        std::fs::write(root.join("prds/x.md"), prd).expect("prd");
        let r = Repo {
            _tmp: tmp,
            root,
            agent,
            cli,
        };
        r.config(&wrapper.display().to_string(), defaults);
        r.script(fixed());
        r
    }

    fn config(&self, command: &str, defaults: &str) {
        let p = provider(self.cli);
        std::fs::write(
            self.root.join(".zurdo/config.toml"),
            format!(
                "[executor]\nprovider = \"{p}\"\n\n[providers.{p}]\ncommand = \"{command}\"\n\n[effort_map.{p}]\nlow = \"model-low\"\n\n[defaults]\nagent_timeout = \"60s\"\n{defaults}"
            ),
        )
        .expect("config");
    }

    /// A new script (its attempt counter starts over): the fix, or the
    /// failure.
    fn script(&self, mut script: Value) {
        script["log"] = json!("invocations.jsonl");
        script["markers"] = crate::common::markers();
        std::fs::write(self.agent.join("script.json"), script.to_string()).expect("script");
        let _ = std::fs::remove_file(self.agent.join("script.json.count"));
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
        command
            .arg("run")
            .arg("--no-prompt")
            .args(extra)
            .arg("prds/x.md")
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("ZURDO_STAND_IN_SCRIPT", self.agent.join("script.json"))
            .env_remove("ZURDO_STAND_IN_EUID")
            .env_remove("ANTHROPIC_API_KEY")
            .env("IS_SANDBOX", "1");
        command
    }

    /// `zurdo run --no-prompt <extra> prds/x.md`, given 60 s at most.
    fn run(&self, extra: &[&str]) -> Out {
        let start = Instant::now();
        let child = self.command(extra).spawn().expect("zurdo runs");
        let pid = child.id();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        let output = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(o) => o.expect("wait"),
            Err(_) => {
                // SAFETY: our own child.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                panic!("zurdo ran for more than 60 s");
            }
        };
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: crate::common::text(&output.stdout),
            stderr: crate::common::text(&output.stderr),
            elapsed: start.elapsed(),
        }
    }

    fn state_dir(&self) -> PathBuf {
        std::fs::read_dir(self.root.join(".zurdo"))
            .expect("state")
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("x-"))
            .expect("a state directory")
            .path()
    }

    fn task(&self, id: &str) -> Value {
        let state: Value = serde_json::from_slice(
            &std::fs::read(self.state_dir().join("prd.json")).expect("prd.json"),
        )
        .expect("JSON");
        crate::common::task_state(&state, id).clone()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        std::fs::read_to_string(self.state_dir().join("progress.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["event"] == name)
            .collect()
    }

    /// Agents of this repository still alive.
    fn running_agents(&self) -> Vec<i32> {
        std::fs::read_to_string(self.agent.join("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                    stat.rsplit_once(") ")
                        .and_then(|(_, rest)| rest.chars().next())
                        .is_some_and(|s| s != 'Z' && s != 'X')
                })
            })
            .collect()
    }
}

/// What every class must leave: the run stopped with `cause` and exit 5,
/// no attempt spent, the task pending, the dropped attempt in
/// progress.log as `kind`; then the fix resumes and passes.
fn stops_then_resumes(r: &Repo, out: &Out, kind: &str, cause: &str) {
    assert_eq!(out.code, AGENT_UNAVAILABLE, "{out}");
    assert!(
        out.stderr.contains(cause),
        "the cause in one line, {cause:?}: {out}"
    );
    assert!(
        out.stderr
            .contains("then `zurdo run prds/x.md` resumes (no attempt was charged)"),
        "{out}"
    );
    let task = r.task("task-out");
    assert_eq!(task["attempts"], 0, "no attempt spent: {task:#}");
    assert_eq!(task["status"], "pending", "{task:#}");
    assert_eq!(task["iterations"], json!([]), "nothing verified: {task:#}");
    let dropped = r.events("attempt_dropped");
    let last = dropped.last().expect("attempt_dropped");
    assert_eq!(last["cause"], "agent_unavailable", "{last:#}");
    assert_eq!(last["failure"]["kind"], kind, "{last:#}");
    assert!(r.events("verified").is_empty(), "not verified");
    assert!(r.events("task_stalled").is_empty(), "no stall");
    assert!(r.running_agents().is_empty(), "no agent left running");

    r.script(fixed());
    let again = r.run(&["--skip-model-check"]);
    assert_eq!(again.code, 0, "after the fix: {again}");
    let task = r.task("task-out");
    assert_eq!(
        (task["status"].as_str(), task["attempts"].as_u64()),
        (Some("passed"), Some(1)),
        "{task:#}"
    );
}

/// The attempt fails as `fail` says (the probe answers).
fn failing(fail: Value) -> Value {
    json!({"attempts": [{"fail": fail}]})
}

#[test]
fn not_logged_in_stops_every_cli_with_its_own_words() {
    for (cli, kind, cause) in [
        (
            "claude",
            "auth_failed",
            "zurdo: claude: not logged in (the CLI said: Not logged in · Please run /login); log in with `claude /login`",
        ),
        (
            "codex",
            "auth_failed",
            "zurdo: codex: not logged in (the CLI said: unexpected status 401 Unauthorized",
        ),
        (
            "copilot",
            "auth_failed",
            "zurdo: copilot: not logged in (the CLI said: Error: No authentication information found.",
        ),
        (
            "gemini",
            "auth_failed",
            "zurdo: gemini: not logged in (the CLI said: Please set an Auth method in your ",
        ),
    ] {
        let r = Repo::new(cli, ONE_TASK, "");
        r.script(failing(json!("auth")));
        let out = r.run(&[]);
        stops_then_resumes(&r, &out, kind, cause);
    }
}

#[test]
fn a_probe_that_meets_a_logged_out_cli_stops_before_any_task() {
    let r = Repo::new("claude", ONE_TASK, "");
    r.script(json!({"auth": "missing", "attempts": [{"write": {"out.txt": "ok\n"}}]}));
    let out = r.run(&[]);
    assert_eq!(out.code, AGENT_UNAVAILABLE, "{out}");
    assert!(
        out.stderr.contains(
            "zurdo: claude: not logged in (the CLI said: Not logged in · Please run /login)"
        ),
        "{out}"
    );
    assert!(r.events("attempt_started").is_empty());
    r.script(fixed());
    assert_eq!(r.run(&[]).code, 0);
}

#[test]
fn out_of_quota_mid_way_keeps_the_work_and_charges_nothing() {
    for (cli, cause) in [
        (
            "claude",
            "zurdo: claude: out of quota (the CLI said: You've hit your monthly spend limit. Switch to another model to continue.)",
        ),
        (
            "codex",
            "zurdo: codex: out of quota (the CLI said: Quota exceeded. Check your plan and billing details.)",
        ),
        ("copilot", "zurdo: copilot: out of quota (the CLI said: You have no quota)"),
        (
            "gemini",
            "zurdo: gemini: out of quota (the CLI said: [API Error: {\"error\":{\"code\":429,\"message\":\"You exceeded your current quota",
        ),
    ] {
        let r = Repo::new(cli, ONE_TASK, "");
        r.script(json!({"attempts": [{"write": {"half.txt": "begun\n"}, "fail": "quota"}]}));
        let out = r.run(&[]);
        assert!(
            out.stderr.contains("the work of its 1 tool call stays in the tree, unverified"),
            "{cli}: {out}"
        );
        assert!(r.root.join("half.txt").exists(), "{cli}: the work stays");
        stops_then_resumes(&r, &out, "quota_exhausted", cause);
    }
}

#[test]
fn a_rate_limit_with_a_near_reset_is_waited_out_without_spending() {
    let r = Repo::new("claude", ONE_TASK, "rate_limit_wait = \"1m\"\n");
    r.script(json!({"attempts": [
        {"fail": {"kind": "rate_limit", "resets_in_s": 2}},
        {"write": {"out.txt": "ok\n"}, "text": "Wrote it."}
    ]}));
    let out = r.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    assert!(out.elapsed >= Duration::from_secs(2), "it waited: {out}");
    assert!(
        out.stderr.contains("claude is rate limited: waiting 0:0"),
        "{out}"
    );
    let task = r.task("task-out");
    assert_eq!(
        (task["status"].as_str(), task["attempts"].as_u64()),
        (Some("passed"), Some(1)),
        "{task:#}"
    );
    assert_eq!(task["iterations"].as_array().map(Vec::len), Some(1));
    let waits = r.events("rate_limit_wait");
    assert_eq!(waits.len(), 1, "{waits:#?}");
    assert_eq!(
        (waits[0]["attempt"].as_u64(), waits[0]["known"].as_bool()),
        (Some(1), Some(true))
    );
    let dropped = r.events("attempt_dropped");
    assert_eq!(dropped[0]["failure"]["kind"], "rate_limited");
    assert!(
        dropped[0]["failure"]["retry_after"].is_string(),
        "{dropped:#?}"
    );
    // Attempt 1 ran twice (the dropped run and the one that passed).
    let started: Vec<u64> = r
        .events("attempt_started")
        .iter()
        .filter_map(|e| e["attempt"].as_u64())
        .collect();
    assert_eq!(started, [1, 1]);
}

#[test]
fn a_rate_limit_past_the_wait_cap_stops_and_says_until_when() {
    let r = Repo::new("codex", ONE_TASK, "rate_limit_wait = \"1m\"\n");
    r.script(failing(json!({"kind": "rate_limit", "resets_in_s": 7200})));
    let out = r.run(&[]);
    assert!(out.elapsed < Duration::from_secs(20), "no wait: {out}");
    assert!(
        out.stderr.contains("zurdo: codex: rate limited until "),
        "{out}"
    );
    assert!(out.stderr.contains("or try again in 2 hours."), "{out}");
    assert!(
        out.stderr
            .contains("that is a longer wait than zurdo makes ([defaults] rate_limit_wait is 1m)"),
        "{out}"
    );
    assert!(r.events("rate_limit_wait").is_empty());
    stops_then_resumes(
        &r,
        &out,
        "rate_limited",
        "zurdo: codex: rate limited until ",
    );
}

#[test]
fn a_rate_limit_with_no_reset_backs_off_a_few_times_then_stops() {
    let r = Repo::new("codex", ONE_TASK, "rate_limit_wait = \"1s\"\n");
    r.script(failing(json!("rate_limit")));
    let out = r.run(&[]);
    let waits = r.events("rate_limit_wait");
    assert_eq!(waits.len(), 3, "{out}");
    assert!(
        waits
            .iter()
            .all(|w| w["known"] == false && w["seconds"] == 1),
        "{waits:#?}"
    );
    assert!(
        out.stderr.contains("did not say until when: waiting 0:01"),
        "{out}"
    );
    assert!(
        out.stderr
            .contains("it was still rate limited after 3 waits"),
        "{out}"
    );
    stops_then_resumes(
        &r,
        &out,
        "rate_limited",
        "zurdo: codex: rate limited (the CLI said: exceeded retry limit, last status: 429 Too Many Requests",
    );
}

#[test]
fn codex_waiting_for_network_is_stopped_within_seconds_not_at_the_timeout() {
    // The agent timeout is 60 s; codex without network would wait for ever.
    let r = Repo::new("codex", ONE_TASK, "");
    r.script(failing(json!("network")));
    let out = r.run(&[]);
    assert!(out.elapsed < Duration::from_secs(15), "{out}");
    assert!(out.stderr.contains("agent: stopped by zurdo in "), "{out}");
    assert!(
        out.stderr.contains("; stopped as soon as it said so"),
        "{out}"
    );
    let dropped = r.events("attempt_dropped");
    assert_eq!(dropped[0]["failure"]["stopped"], true, "{dropped:#?}");
    stops_then_resumes(
        &r,
        &out,
        "network",
        "zurdo: codex: no network (the CLI said: Reconnecting... waiting for network (Connection failed: error sending request)); check that this machine can reach the network `codex` needs",
    );
}

#[test]
fn claude_retrying_without_network_is_stopped_at_its_fourth_retry() {
    let r = Repo::new("claude", ONE_TASK, "");
    r.script(failing(json!("network")));
    let out = r.run(&[]);
    assert!(out.elapsed < Duration::from_secs(15), "{out}");
    stops_then_resumes(
        &r,
        &out,
        "network",
        "zurdo: claude: no network (the CLI said: api_retry with no HTTP status: error unknown)",
    );
}

#[test]
fn a_missing_cli_stops_the_run_as_cli_missing() {
    let r = Repo::new("claude", ONE_TASK, "");
    r.config("/nonexistent/claude", "");
    let out = r.run(&["--skip-model-check"]);
    assert!(
        out.stderr
            .contains("agent: could not start `/nonexistent/claude`"),
        "{out}"
    );
    let wrapper = r.agent.join("claude-agent").display().to_string();
    r.config(&wrapper, "");
    stops_then_resumes(
        &r,
        &out,
        "cli_missing",
        "zurdo: claude: cannot be started (cannot start `/nonexistent/claude`: No such file or directory (os error 2)); install `claude` or set [providers.anthropic] command in .zurdo/config.toml",
    );
}

#[test]
fn a_crashing_cli_stops_the_run() {
    let r = Repo::new("gemini", ONE_TASK, "");
    r.script(failing(json!("crash")));
    let out = r.run(&[]);
    stops_then_resumes(
        &r,
        &out,
        "cli_crashed",
        "zurdo: gemini: the CLI crashed (killed by signal 11 (SIGSEGV))",
    );
}

const TWO_TASKS: &str = "# PRD: Retry

## Task: task-a — Write a.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 1

### Description
Create `a.txt` holding `ok-a`.

### Acceptance Criteria
- [ ] a is right [grep: ^ok-a$ in a.txt]

## Task: task-b — Write b.txt
**Effort**: low
**Depends-on**: [task-a]

### Description
Create `b.txt` holding `ok-b`.

### Acceptance Criteria
- [ ] b is right [grep: ^ok-b$ in b.txt]
";

#[test]
fn retry_failed_gives_failed_tasks_a_fresh_budget_and_unblocks_their_dependents() {
    let r = Repo::new("claude", TWO_TASKS, "");
    r.script(json!({"attempts": [{"write": {"a.txt": "wrong\n"}}]}));
    let out = r.run(&[]);
    assert_eq!(out.code, 1, "{out}");
    assert_eq!(r.task("task-a")["status"], "failed");
    assert_eq!(r.task("task-b")["status"], "blocked-by-dependency");
    let hint = "zurdo: task-a failed; once the cause is gone (a login, a quota, a fixed criterion), `zurdo run --retry-failed prds/x.md` gives it a fresh attempt budget";
    assert!(out.stderr.contains(hint), "{out}");

    // The cause is gone, but a plain run only reads the saved state back.
    r.script(json!({"attempts": [
        {"write": {"a.txt": "ok-a\n"}},
        {"write": {"b.txt": "ok-b\n"}}
    ]}));
    let out = r.run(&[]);
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr.contains("failed (from the saved state)"),
        "{out}"
    );
    assert!(out.stderr.contains(hint), "{out}");

    let out = r.run(&["--retry-failed"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains("zurdo: --retry-failed: task-a back to pending with a fresh attempt budget (history kept); unblocked: task-b"),
        "{out}"
    );
    let a = r.task("task-a");
    assert_eq!(
        (
            a["status"].as_str(),
            a["attempts"].as_u64(),
            a["max_attempts"].as_u64()
        ),
        (Some("passed"), Some(2), Some(2)),
        "{a:#}"
    );
    assert_eq!(a["retried_after"], 1);
    assert_eq!(
        a["iterations"].as_array().map(Vec::len),
        Some(2),
        "history kept"
    );
    assert_eq!(a["iterations"][0]["passed"], false);
    assert_eq!(r.task("task-b")["status"], "passed");
    let retried = r.events("failed_retried");
    assert_eq!(retried.len(), 1);
    assert_eq!(retried[0]["tasks"], json!(["task-a"]));
    assert_eq!(retried[0]["unblocked"], json!(["task-b"]));
}

#[test]
fn the_attempts_output_can_be_read_while_it_runs() {
    let r = Repo::new("claude", ONE_TASK, "");
    r.script(json!({"attempts": [{
        "run": "echo streamed-marker-line",
        "sleep_ms": 4000,
        "write": {"out.txt": "ok\n"}
    }]}));
    let mut child = r
        .command(&["--skip-model-check"])
        .spawn()
        .expect("zurdo runs");
    let until = Instant::now() + Duration::from_secs(20);
    let out_file = loop {
        let found = std::fs::read_dir(r.root.join(".zurdo"))
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("iterations/task-out-1.out"))
            .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("streamed-marker-line")));
        if let Some(path) = found {
            break path;
        }
        assert!(Instant::now() < until, "the .out never showed the line");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        child.try_wait().expect("wait").is_none(),
        "read while the attempt still runs"
    );
    let partial = std::fs::read_to_string(&out_file).expect("read");
    assert!(partial.contains("\"type\":\"system\""), "{partial}");
    assert!(
        !partial.contains("\"type\":\"result\""),
        "not finished yet: {partial}"
    );
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    let whole = std::fs::read_to_string(&out_file).expect("read");
    assert!(whole.starts_with(&partial), "it grew from what was read");
    assert!(whole.contains("\"type\":\"result\""), "{whole}");
    assert!(Path::new(&out_file.with_extension("err")).exists());
}
