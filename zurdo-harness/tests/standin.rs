//! The scripted stand-in agents (`zurdo stand-in <cli> …`): the real CLIs'
//! unattended command lines, their traps, their event streams, and the
//! script that drives them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const CLIS: [&str; 4] = ["claude", "codex", "copilot", "gemini"];

/// Variables the stand-ins read, cleared so the host cannot leak in.
const CLEARED: &[&str] = &[
    "ZURDO_STAND_IN_SCRIPT",
    "ZURDO_STAND_IN_EUID",
    "IS_SANDBOX",
    "CLAUDE_CODE_BUBBLEWRAP",
    "ANTHROPIC_API_KEY",
    "COPILOT_ALLOW_ALL",
    "COPILOT_MODEL",
    "GEMINI_CLI_TRUST_WORKSPACE",
];

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// The stdout lines that parse as JSON.
    events: Vec<Value>,
    /// The stdout lines that do not.
    non_json: Vec<String>,
}

impl Run {
    fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    fn first(&self, kind: &str) -> &Value {
        self.events
            .iter()
            .find(|e| e["type"] == kind)
            .unwrap_or_else(|| panic!("no `{kind}` event in\n{}", self.stdout))
    }

    fn last(&self, kind: &str) -> &Value {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == kind)
            .unwrap_or_else(|| panic!("no `{kind}` event in\n{}", self.stdout))
    }

    /// The final assistant text, read each CLI's way.
    fn final_text(&self, cli: &str) -> String {
        match cli {
            "claude" => self.last("result")["result"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            "codex" => self
                .of_type("item.completed")
                .iter()
                .rev()
                .find(|e| e["item"]["type"] == "agent_message")
                .map(|e| e["item"]["text"].as_str().unwrap_or_default().to_string())
                .unwrap_or_default(),
            "copilot" => self
                .of_type("assistant.message")
                .iter()
                .rev()
                .find(|e| e["data"]["content"].as_str().is_some_and(|c| !c.is_empty()))
                .map(|e| {
                    e["data"]["content"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .unwrap_or_default(),
            "gemini" => self
                .of_type("message")
                .iter()
                .filter(|e| e["role"] == "assistant")
                .map(|e| e["content"].as_str().unwrap_or_default())
                .collect(),
            _ => unreachable!(),
        }
    }
}

/// Runs `zurdo stand-in <cli> <args>` in `dir` with stdin closed.
fn stand_in(cli: &str, args: &[String], dir: &Path, env: &[(&str, &str)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
    command
        .arg("stand-in")
        .arg(cli)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null());
    for name in CLEARED {
        command.env_remove(name);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("the zurdo binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut events = Vec::new();
    let mut non_json = Vec::new();
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => events.push(v),
            Err(_) => non_json.push(line.to_string()),
        }
    }
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout,
        stderr,
        events,
        non_json,
    }
}

fn words(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The unattended command line of CLI-NOTES §2.
fn unattended(cli: &str, prompt: &str, model: &str, dir: &Path) -> Vec<String> {
    let d = dir.display().to_string();
    match cli {
        "claude" => words(&[
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            model,
            "--dangerously-skip-permissions",
        ]),
        "codex" => words(&[
            "exec",
            "--json",
            "--skip-git-repo-check",
            "-C",
            &d,
            "-m",
            model,
            "--dangerously-bypass-approvals-and-sandbox",
            "--ephemeral",
            prompt,
        ]),
        "copilot" => words(&[
            "-p",
            prompt,
            "--output-format",
            "json",
            "-C",
            &d,
            "--model",
            model,
            "--allow-all",
            "--no-ask-user",
            "--no-auto-update",
        ]),
        "gemini" => words(&[
            "-p",
            prompt,
            "-o",
            "stream-json",
            "-m",
            model,
            "--approval-mode",
            "yolo",
            "--skip-trust",
        ]),
        _ => unreachable!(),
    }
}

/// The environment an unattended run gets (Claude as root needs IS_SANDBOX).
const SANDBOX: &[(&str, &str)] = &[("IS_SANDBOX", "1")];

/// A working directory marked as a git repository.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mark repo");
    dir
}

/// A script in its own directory (so the working tree stays clean).
struct Scripted {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Scripted {
    fn new(script: Value) -> Scripted {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("script.json");
        std::fs::write(&path, script.to_string()).expect("write script");
        Scripted { dir, path }
    }

    fn env(&self) -> Vec<(&str, &str)> {
        vec![
            (
                "ZURDO_STAND_IN_SCRIPT",
                self.path.to_str().expect("utf-8 path"),
            ),
            ("IS_SANDBOX", "1"),
        ]
    }

    fn count(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("script.json.count"))
            .ok()
            .map(|s| s.trim().to_string())
    }
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn busy_attempt() -> Value {
    json!({
        "tool_calls": [{"name": "Read", "input": {"file_path": "README.md"}, "output": "# demo"}],
        "write": {"src/out.txt": "written\n"},
        "append": {"log.txt": "one more line\n"},
        "run": "printf ran > ran.txt && echo from-the-shell",
        "text": "All done.",
        "usage": {"input_tokens": 1000, "output_tokens": 90, "cached_input_tokens": 400},
        "cost_usd": 0.25,
    })
}

fn assert_busy_files(dir: &Path) {
    assert_eq!(read(dir, "src/out.txt"), "written\n");
    assert_eq!(read(dir, "log.txt"), "first line\none more line\n");
    assert_eq!(read(dir, "ran.txt"), "ran");
}

// ---------------------------------------------------------------------------
// Happy paths.

#[test]
fn claude_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let r = stand_in(
        "claude",
        &unattended("claude", "do the task", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.non_json.is_empty(),
        "claude prints only JSON: {:?}",
        r.non_json
    );
    assert_busy_files(work.path());

    let init = &r.events[0];
    assert_eq!(
        (&init["type"], &init["subtype"]),
        (&json!("system"), &json!("init"))
    );
    assert_eq!(init["model"], "claude-sonnet-5");
    assert_eq!(init["permissionMode"], "bypassPermissions");
    assert_eq!(init["cwd"], work.path().display().to_string());
    let session = init["session_id"].as_str().unwrap();
    assert!(r
        .events
        .iter()
        .all(|e| e["session_id"] == session && e["uuid"].is_string()));

    let uses: Vec<&Value> = r
        .of_type("assistant")
        .into_iter()
        .flat_map(|e| e["message"]["content"].as_array().unwrap().iter())
        .filter(|b| b["type"] == "tool_use")
        .collect();
    let names: Vec<&str> = uses.iter().map(|u| u["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Read", "Write", "Write", "Bash"]);
    assert_eq!(
        uses[3]["input"]["command"],
        "printf ran > ran.txt && echo from-the-shell"
    );
    let results: Vec<&Value> = r
        .of_type("user")
        .iter()
        .map(|e| &e["message"]["content"][0])
        .collect();
    assert_eq!(results.len(), 4);
    for (u, res) in uses.iter().zip(&results) {
        assert_eq!(res["type"], "tool_result");
        assert_eq!(res["tool_use_id"], u["id"]);
        assert_eq!(res["is_error"], false);
    }
    assert!(results[3]["content"]
        .as_str()
        .unwrap()
        .contains("from-the-shell"));

    let result = r.last("result");
    assert_eq!(r.events.last().unwrap(), result, "the result line is last");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "All done.");
    assert_eq!(result["total_cost_usd"], 0.25);
    assert_eq!(result["num_turns"], 5);
    assert_eq!(result["usage"]["input_tokens"], 600, "uncached input");
    assert_eq!(result["usage"]["cache_read_input_tokens"], 400);
    assert_eq!(result["usage"]["output_tokens"], 90);
    assert_eq!(result["modelUsage"]["claude-sonnet-5"]["costUSD"], 0.25);
    assert_eq!(r.final_text("claude"), "All done.");
    // The assistant messages' usage adds up to the result's.
    let out: u64 = r
        .of_type("assistant")
        .iter()
        .map(|e| e["message"]["usage"]["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(out, 90);
}

#[test]
fn codex_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let last = s.dir.path().join("last.txt");
    let mut args = unattended("codex", "do the task", "gpt-5-codex", work.path());
    args.splice(1..1, words(&["-o", last.to_str().unwrap()]));
    // Run from elsewhere: -C names the working dir.
    let r = stand_in("codex", &args, s.dir.path(), &s.env());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert_eq!(
        r.non_json.len(),
        1,
        "one non-JSON line keeps readers honest: {:?}",
        r.non_json
    );
    assert!(r.stderr.contains("Reading additional input from stdin..."));

    let kinds: Vec<&str> = r
        .events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[..2], ["thread.started", "turn.started"]);
    assert_eq!(kinds.last(), Some(&"turn.completed"));
    assert!(r.events[0]["thread_id"].as_str().unwrap().len() == 36);

    let items: Vec<&Value> = r
        .of_type("item.completed")
        .iter()
        .map(|e| &e["item"])
        .collect();
    let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "mcp_tool_call",
            "file_change",
            "file_change",
            "command_execution",
            "agent_message"
        ]
    );
    let out = work.path().join("src/out.txt");
    assert_eq!(items[1]["changes"][0], json!({"path": out, "kind": "add"}));
    assert_eq!(items[2]["changes"][0]["kind"], "update");
    assert_eq!(items[3]["exit_code"], 0);
    assert_eq!(items[3]["status"], "completed");
    assert!(items[3]["aggregated_output"]
        .as_str()
        .unwrap()
        .contains("from-the-shell"));
    let started = r.first("item.started");
    assert_eq!(started["item"]["status"], "in_progress");
    let ids: Vec<&Value> = items.iter().map(|i| &i["id"]).collect();
    assert_eq!(
        ids,
        [
            &json!("item_0"),
            &json!("item_1"),
            &json!("item_2"),
            &json!("item_3"),
            &json!("item_4")
        ]
    );

    let usage = &r.last("turn.completed")["usage"];
    assert_eq!(
        (
            usage["input_tokens"].as_u64(),
            usage["cached_input_tokens"].as_u64(),
            usage["output_tokens"].as_u64()
        ),
        (Some(1000), Some(400), Some(90))
    );
    assert_eq!(r.final_text("codex"), "All done.");
    assert_eq!(std::fs::read_to_string(&last).unwrap(), "All done.");
}

#[test]
fn copilot_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let usage_file = s.dir.path().join("usage.json");
    let mut args = unattended("copilot", "do the task", "gpt-5.4", work.path());
    args.extend(words(&[
        "--usage-output-file",
        usage_file.to_str().unwrap(),
    ]));
    let r = stand_in("copilot", &args, s.dir.path(), &s.env());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert!(r.non_json.is_empty());

    let start = &r.events[0];
    assert_eq!(start["type"], "session.start");
    assert_eq!(start["data"]["selectedModel"], "gpt-5.4");
    assert_eq!(
        start["data"]["context"]["cwd"],
        work.path().display().to_string()
    );
    for e in r.events.iter().filter(|e| e["type"] != "result") {
        assert!(
            e["id"].is_string() && e["timestamp"].is_string() && e.get("parentId").is_some(),
            "envelope: {e}"
        );
    }
    let requests: Vec<&Value> = r
        .of_type("assistant.message")
        .iter()
        .flat_map(|e| e["data"]["toolRequests"].as_array().unwrap().iter())
        .collect();
    let names: Vec<&str> = requests
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Read", "create", "edit", "bash"]);
    let starts = r.of_type("tool.execution_start");
    let completes = r.of_type("tool.execution_complete");
    assert_eq!((starts.len(), completes.len()), (4, 4));
    for ((q, s), c) in requests.iter().zip(&starts).zip(&completes) {
        assert_eq!(q["toolCallId"], s["data"]["toolCallId"]);
        assert_eq!(q["toolCallId"], c["data"]["toolCallId"]);
        assert_eq!(c["data"]["success"], true);
    }
    assert!(completes[3]["data"]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("<exited with exit code 0>"));
    let deltas = r.of_type("assistant.message_delta");
    assert!(deltas.iter().all(|d| d["ephemeral"] == true));
    let out: u64 = r
        .of_type("assistant.message")
        .iter()
        .map(|e| e["data"]["outputTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(out, 90);
    assert_eq!(r.final_text("copilot"), "All done.");

    let result = r.events.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["exitCode"], 0);
    assert_eq!(
        result["usage"]["codeChanges"]["filesModified"],
        json!(["src/out.txt", "log.txt"])
    );
    let usage: Value =
        serde_json::from_str(&std::fs::read_to_string(&usage_file).unwrap()).unwrap();
    assert_eq!(
        usage["modelMetrics"]["gpt-5.4"]["usage"]["inputTokens"],
        1000
    );
}

#[test]
fn gemini_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let r = stand_in(
        "gemini",
        &unattended("gemini", "do the task", "gemini-2.5-flash", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert!(r.non_json.is_empty());
    assert!(r.stderr.contains("YOLO mode is enabled."));

    assert_eq!(r.events[0]["type"], "init");
    assert_eq!(r.events[0]["model"], "gemini-2.5-flash");
    assert_eq!(
        r.events[1],
        json!({"type": "message", "timestamp": r.events[1]["timestamp"], "role": "user", "content": "do the task"})
    );
    let uses = r.of_type("tool_use");
    let names: Vec<&str> = uses
        .iter()
        .map(|u| u["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Read", "write_file", "write_file", "run_shell_command"]
    );
    let results = r.of_type("tool_result");
    for (u, res) in uses.iter().zip(&results) {
        assert_eq!(u["tool_id"], res["tool_id"]);
        assert_eq!(res["status"], "success");
    }
    let deltas: Vec<&Value> = r
        .of_type("message")
        .into_iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert!(deltas.len() > 1 && deltas.iter().all(|d| d["delta"] == true));
    assert_eq!(r.final_text("gemini"), "All done.");
    let result = r.events.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["status"], "success");
    let stats = &result["stats"];
    assert_eq!(
        (
            stats["input_tokens"].as_u64(),
            stats["output_tokens"].as_u64(),
            stats["cached"].as_u64()
        ),
        (Some(1000), Some(90), Some(400))
    );
    assert_eq!(stats["tool_calls"], 4);
    assert_eq!(stats["models"]["gemini-2.5-flash"]["total_tokens"], 1090);
}

// ---------------------------------------------------------------------------
// The traps.

#[test]
fn claude_stream_json_needs_verbose() {
    let work = repo();
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "stream-json"]),
        work.path(),
        SANDBOX,
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "Error: When using --print, --output-format=stream-json requires --verbose\n"
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn claude_refuses_to_skip_permissions_as_root() {
    let work = repo();
    let root = [("ZURDO_STAND_IN_EUID", "0")];
    let args = unattended("claude", "hi", "sonnet", work.path());
    let r = stand_in("claude", &args, work.path(), &root);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n");
    assert!(r.stdout.is_empty());
    let bypass = words(&[
        "-p",
        "hi",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
    ]);
    assert_eq!(stand_in("claude", &bypass, work.path(), &root).code, 1);
    assert_eq!(
        stand_in(
            "claude",
            &args,
            work.path(),
            &[("ZURDO_STAND_IN_EUID", "0"), ("IS_SANDBOX", "1")]
        )
        .code,
        0
    );
    assert_eq!(
        stand_in(
            "claude",
            &args,
            work.path(),
            &[("ZURDO_STAND_IN_EUID", "1000")]
        )
        .code,
        0
    );
    // Without the override the real euid decides.
    let real = stand_in("claude", &args, work.path(), &[]);
    // SAFETY: geteuid has no preconditions.
    let root_here = unsafe { libc::geteuid() } == 0;
    assert_eq!(real.code, if root_here { 1 } else { 0 }, "{}", real.stderr);
}

#[test]
fn claude_variadic_options_swallow_the_prompt() {
    let work = repo();
    let args = words(&[
        "-p",
        "--add-dir",
        "/tmp",
        "do it",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let r = stand_in("claude", &args, work.path(), SANDBOX);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "Error: Input must be provided either through stdin or as a prompt argument when using --print\n");
}

#[test]
fn codex_refuses_to_run_outside_a_git_repo() {
    let plain = tempfile::tempdir().unwrap();
    let args = words(&["exec", "--json", "-C", plain.path().to_str().unwrap(), "hi"]);
    let r = stand_in("codex", &args, plain.path(), &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.ends_with(
            "Not inside a trusted directory and --skip-git-repo-check was not specified.\n"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    // The -C dir is what counts, not the process's cwd.
    let work = repo();
    std::fs::create_dir(work.path().join("sub")).unwrap();
    let inside = words(&[
        "exec",
        "--json",
        "-C",
        work.path().join("sub").to_str().unwrap(),
        "--dangerously-bypass-approvals-and-sandbox",
        "hi",
    ]);
    assert_eq!(stand_in("codex", &inside, plain.path(), &[]).code, 0);
    let skipped = words(&[
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-C",
        plain.path().to_str().unwrap(),
        "hi",
    ]);
    assert_eq!(stand_in("codex", &skipped, plain.path(), &[]).code, 0);
}

#[test]
fn codex_without_a_prompt_reads_nothing_and_fails() {
    let work = repo();
    let r = stand_in(
        "codex",
        &words(&["exec", "--json", "--skip-git-repo-check"]),
        work.path(),
        &[],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("Reading prompt from stdin...\nNo prompt provided via stdin.\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn copilot_needs_allow_all_tools_in_prompt_mode() {
    let work = repo();
    let args = words(&[
        "-p",
        "hi",
        "--output-format",
        "json",
        "-C",
        work.path().to_str().unwrap(),
    ]);
    let r = stand_in("copilot", &args, work.path(), &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("Error: --allow-all-tools is required for non-interactive mode"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    for allow in ["--allow-all-tools", "--allow-all", "--yolo"] {
        let mut with = args.clone();
        with.push(allow.into());
        assert_eq!(
            stand_in("copilot", &with, work.path(), &[]).code,
            0,
            "{allow}"
        );
    }
    assert_eq!(
        stand_in(
            "copilot",
            &args,
            work.path(),
            &[("COPILOT_ALLOW_ALL", "true")]
        )
        .code,
        0
    );
}

#[test]
fn gemini_refuses_an_untrusted_directory() {
    let work = repo();
    let args = words(&["-p", "hi", "-o", "stream-json", "--approval-mode", "yolo"]);
    let r = stand_in("gemini", &args, work.path(), &[]);
    assert_eq!(r.code, 55);
    assert!(r.stderr.contains(
        "Approval mode overridden to \"default\" because the current folder is not trusted."
    ));
    assert!(r.stderr.contains(
        "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode."
    ), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert_eq!(
        stand_in(
            "gemini",
            &args,
            work.path(),
            &[("GEMINI_CLI_TRUST_WORKSPACE", "true")]
        )
        .code,
        0
    );
}

#[test]
fn unknown_flags_are_usage_errors() {
    let work = repo();
    let cases: [(&str, Vec<String>, &str); 5] = [
        (
            "claude",
            words(&["-p", "hi", "--turbo"]),
            "error: unknown option '--turbo'",
        ),
        (
            "codex",
            words(&["exec", "--json", "--max-turns", "3", "hi"]),
            "error: unexpected argument '--max-turns' found",
        ),
        (
            "codex",
            words(&["exec", "-a", "never", "hi"]),
            "error: unexpected argument '-a' found",
        ),
        (
            "copilot",
            words(&["-p", "hi", "--allow-all", "--turbo"]),
            "error: unknown option '--turbo'",
        ),
        (
            "gemini",
            words(&["-p", "hi", "--skip-trust", "--turbo"]),
            "Unknown argument: turbo",
        ),
    ];
    for (cli, args, message) in cases {
        let r = stand_in(cli, &args, work.path(), SANDBOX);
        assert_eq!(r.code, 2, "{cli} {args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with(message), "{cli}: {}", r.stderr);
    }
    let r = stand_in(
        "codex",
        &words(&["exec", "--sandbox", "bogus", "hi"]),
        work.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only, workspace-write, danger-full-access]"));
    let r = stand_in("nope", &words(&["-p", "hi"]), work.path(), &[]);
    assert_eq!(r.code, 2);
}

#[test]
fn versions_answer_like_the_real_ones() {
    // (A leading `--version`/`-V`/`--help`/`-h` is zurdo's own clap flag,
    // so these use the CLIs' other spellings.)
    let work = repo();
    for (cli, args, want) in [
        ("claude", &["-v"][..], "2.1.197 (Claude Code)\n"),
        ("codex", &["exec", "--version"][..], "codex-cli 0.171.0\n"),
        (
            "copilot",
            &["-v"][..],
            "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
        ),
        ("gemini", &["-v"][..], "0.61.0\n"),
    ] {
        let r = stand_in(cli, &words(args), work.path(), &[]);
        assert_eq!((r.code, r.stdout.as_str()), (0, want), "{cli}");
    }
}

// ---------------------------------------------------------------------------
// The script.

#[test]
fn attempts_advance_across_invocations_and_the_last_repeats() {
    let work = repo();
    let prompts = tempfile::tempdir().unwrap();
    let attempt = |n: u32| {
        json!({
            "write": {"answer.txt": format!("attempt {n}\n")},
            "echo_prompt_to": prompts.path().join(format!("prompt-{n}.txt")),
            "text": format!("attempt {n}"),
        })
    };
    let s = Scripted::new(json!({"attempts": [attempt(1), attempt(2), attempt(3)]}));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        for (i, want) in [1, 2, 3, 3].into_iter().enumerate() {
            let prompt = format!("prompt number {i}");
            let r = stand_in(
                cli,
                &unattended(cli, &prompt, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(
                read(work.path(), "answer.txt"),
                format!("attempt {want}\n"),
                "{cli} run {i}"
            );
            assert_eq!(r.final_text(cli), format!("attempt {want}"), "{cli}");
            assert_eq!(read(prompts.path(), &format!("prompt-{want}.txt")), prompt);
        }
        assert_eq!(s.count().as_deref(), Some("4"), "{cli}");
    }
}

#[test]
fn a_probe_consumes_no_attempt() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"write": {"a.txt": "a"}, "text": "first"}, {"text": "second"}],
        "markers": {"probe": "zurdo-probe:"},
    }));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        std::fs::remove_file(work.path().join("a.txt")).ok();
        let probe = "zurdo-probe: reply with the single word OK and nothing else.";
        for _ in 0..2 {
            let r = stand_in(
                cli,
                &unattended(cli, probe, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), "OK", "{cli}");
            assert!(
                !work.path().join("a.txt").exists(),
                "{cli}: a probe does nothing"
            );
        }
        assert_eq!(s.count(), None, "{cli}: no attempt consumed");
        let r = stand_in(
            cli,
            &unattended(cli, "the task", "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.final_text(cli), "first", "{cli}");
        assert_eq!(read(work.path(), "a.txt"), "a");
    }
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("script.json.probes"))
            .unwrap()
            .trim(),
        "8"
    );
}

#[test]
fn the_probe_can_be_scripted() {
    let work = repo();
    let s = Scripted::new(json!({
        "probe": {"text": "", "usage": null},
        "markers": {"probe": "zurdo-probe:"},
    }));
    let r = stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.final_text("codex"), "");
    assert!(r.last("turn.completed").get("usage").is_none());
}

#[test]
fn without_markers_no_prompt_is_special() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "first"}, {"text": "second"}, {"text": "third"}],
        "reason": [{"contains": "diagnosis", "attempt": {"text": "diagnosed"}}],
        "log": "calls.jsonl",
    }));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        for (prompt, want) in [
            (
                "zurdo-probe: reply with the single word OK and nothing else.",
                "first",
            ),
            ("zurdo-reason: diagnosis", "second"),
        ] {
            let r = stand_in(
                cli,
                &unattended(cli, prompt, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), want, "{cli}: {prompt}");
        }
        assert_eq!(s.count().as_deref(), Some("2"), "{cli}: both consumed one");
    }
    assert!(!s.dir.path().join("script.json.probes").exists());
    assert!(!s.dir.path().join("script.json.reasons").exists());
    let log = read(s.dir.path(), "calls.jsonl");
    for line in log.lines() {
        let call: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            (&call["probe"], &call["reasoner"]),
            (&json!(false), &json!(false))
        );
        assert!(call["attempt"].is_u64(), "{call}");
    }
}

#[test]
fn a_reasoner_marker_routes_to_reason() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "an attempt", "write": {"a.txt": "a"}}],
        "reason": [{"contains": "diagnosis", "attempt": {"text": "diagnosed"}}],
        "markers": {"probe": "zurdo-probe:", "reasoner": "zurdo-reason:"},
        "log": "calls.jsonl",
    }));
    for cli in CLIS {
        for (prompt, want) in [
            ("zurdo-reason: diagnosis\n\nwhy does it fail?", "diagnosed"),
            ("zurdo-reason: lesson\n\nwhat was learnt?", ""),
        ] {
            let r = stand_in(
                cli,
                &unattended(cli, prompt, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), want, "{cli}: {prompt}");
        }
        assert_eq!(s.count(), None, "{cli}: no attempt consumed");
        assert!(!work.path().join("a.txt").exists(), "{cli}");
    }
    assert_eq!(read(s.dir.path(), "script.json.reasons").trim(), "8");
    // The marker counts only at the start of the prompt.
    let r = stand_in(
        "claude",
        &unattended("claude", "# Task\nno zurdo-reason: here", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.final_text("claude"), "an attempt");
    assert_eq!(s.count().as_deref(), Some("1"));
    let calls: Vec<Value> = read(s.dir.path(), "calls.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), 9);
    assert!(calls[..8]
        .iter()
        .all(|c| c["reasoner"] == true && c["probe"] == false && c["attempt"].is_null()));
    assert_eq!(
        (&calls[8]["reasoner"], &calls[8]["attempt"]),
        (&json!(false), &json!(0))
    );
}

#[test]
fn an_unknown_model_fails_each_cli_its_way() {
    let work = repo();
    let s = Scripted::new(
        json!({"models": {"bad-model": "unknown"}, "attempts": [{"write": {"x.txt": "x"}}]}),
    );
    for prompt in ["zurdo-probe: say OK", "real work"] {
        let r = stand_in(
            "claude",
            &unattended("claude", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        let assistant = r.first("assistant");
        assert_eq!(assistant["error"], "model_not_found");
        assert_eq!(assistant["message"]["model"], "<synthetic>");
        let result = r.last("result");
        assert_eq!(result["is_error"], true);
        assert_eq!(
            result["result"],
            "There's an issue with the selected model (bad-model). It may not exist or you may not have access to it. Run /model to pick a different model."
        );

        let r = stand_in(
            "codex",
            &unattended("codex", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        assert!(r.first("item.completed")["item"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Model metadata for `bad-model` not found."));
        let failed = r.last("turn.failed");
        assert!(failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("The model `bad-model` does not exist or you do not have access to it."));
        assert!(r.of_type("turn.completed").is_empty());

        let r = stand_in(
            "copilot",
            &unattended("copilot", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        assert!(r.stdout.is_empty());
        assert!(
            r.stderr
                .starts_with("Error: No supported model available: "),
            "{}",
            r.stderr
        );

        let r = stand_in(
            "gemini",
            &unattended("gemini", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        let result = r.last("result");
        assert_eq!(result["status"], "error");
        assert!(result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("models/bad-model is not found"));
    }
    assert!(!work.path().join("x.txt").exists());
    assert_eq!(s.count(), None, "a refused model consumes no attempt");
    // Other models still work.
    let r = stand_in(
        "claude",
        &unattended("claude", "zurdo-probe: hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
}

#[test]
fn claude_aliases_resolve_before_the_model_check() {
    let work = repo();
    let s = Scripted::new(json!({"models": {"claude-opus-4-8": "plan"}}));
    let r = stand_in(
        "claude",
        &unattended("claude", "zurdo-probe: hi", "opus", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r.last("result")["result"]
        .as_str()
        .unwrap()
        .contains("(claude-opus-4-8)"));
}

#[test]
fn a_plan_gated_codex_model_is_not_supported() {
    let work = repo();
    let s = Scripted::new(json!({"models": {"gpt-9": "plan"}}));
    let r = stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "gpt-9", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.last("turn.failed")["error"]["message"],
        "The 'gpt-9' model is not supported when using Codex with a ChatGPT account."
    );
}

#[test]
fn logged_out_clis_fail_their_way() {
    let work = repo();
    let s = Scripted::new(json!({"auth": "missing"}));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.first("system")["apiKeySource"], "none");
    assert_eq!(r.first("assistant")["error"], "authentication_failed");
    assert_eq!(
        r.last("result")["result"],
        "Not logged in · Please run /login"
    );
    assert_eq!(r.last("result")["is_error"], true);

    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r.last("turn.failed")["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("unexpected status 401 Unauthorized"));

    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r
        .stderr
        .starts_with("Error: No authentication information found."));

    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 41);
    assert!(r.stderr.contains("Please set an Auth method in your "));
    // The auth check comes before the trust check, as in the real one.
    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "stream-json"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 41);
    assert_eq!(s.count(), None);

    let r = stand_in("claude", &words(&["auth", "status"]), work.path(), &s.env());
    assert_eq!(r.code, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&r.stdout).unwrap()["loggedIn"],
        false
    );
}

#[test]
fn a_scripted_error_is_reported_each_clis_way() {
    let work = repo();
    let s = Scripted::new(
        json!({"attempts": [{"write": {"w.txt": "w"}, "error": {"kind": "rate_limit", "message": "slow down"}}]}),
    );
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("assistant")["error"], "rate_limit");
    let result = r.last("result");
    assert_eq!(
        (
            result["is_error"].as_bool(),
            result["api_error_status"].as_u64()
        ),
        (Some(true), Some(429))
    );
    assert_eq!(result["result"], "slow down");

    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("turn.failed")["error"]["message"], "slow down");

    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("session.error")["data"]["errorType"], "rate_limit");
    assert_eq!(r.last("result")["exitCode"], 1);

    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    let result = r.last("result");
    assert_eq!(
        (
            result["status"].as_str(),
            result["error"]["message"].as_str()
        ),
        (Some("error"), Some("slow down"))
    );
    // The work before the error was done.
    assert_eq!(read(work.path(), "w.txt"), "w");
}

#[test]
fn echo_prompt_to_keeps_the_prompt_exactly() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"echo_prompt_to": "seen/prompt.md"}]}));
    let prompt = "# Task\n\n# What failed\n- [grep: ^Hello, world!$ in greeting.txt] — \"quoted\" and 'single' $HOME `tick`\n";
    for cli in CLIS {
        std::fs::remove_dir_all(work.path().join("seen")).ok();
        let r = stand_in(
            cli,
            &unattended(cli, prompt, "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        assert_eq!(read(work.path(), "seen/prompt.md"), prompt, "{cli}");
    }
}

#[test]
fn on_prompt_rules_choose_by_content() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "plain"}],
        "on_prompt": [{"contains": "# What failed", "attempt": {"text": "fixing"}}],
    }));
    let r = stand_in(
        "gemini",
        &unattended("gemini", "# What failed\nx", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.final_text("gemini"), "fixing");
    let r = stand_in(
        "gemini",
        &unattended("gemini", "do it", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.final_text("gemini"), "plain");
    assert_eq!(s.count().as_deref(), Some("2"));
}

#[test]
fn the_demo_is_wrong_first_and_right_on_retry() {
    use zurdo_harness::commands::demo;
    let demo = Scripted::new(serde_json::to_value(demo::script()).expect("the demo script"));
    for cli in CLIS {
        let work = repo();
        std::fs::remove_file(demo.dir.path().join("script.json.count")).ok();
        let r = stand_in(
            cli,
            &unattended(cli, "# Task\nWrite the greeting.", "m", work.path()),
            work.path(),
            &demo.env(),
        );
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        assert_eq!(read(work.path(), "greeting.txt"), "hello world\n", "{cli}");
        let retry = format!(
            "# Task\nWrite the greeting.\n\n{}\n[grep: ^Hello, world!$ in greeting.txt] failed",
            zurdo_harness::prompt::RETRY_MARKER
        );
        let r = stand_in(
            cli,
            &unattended(cli, &retry, "m", work.path()),
            work.path(),
            &demo.env(),
        );
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        assert_eq!(
            read(work.path(), "greeting.txt"),
            "Hello, world!\n",
            "{cli}"
        );
        let r = stand_in(
            cli,
            &unattended(
                cli,
                &format!("{}x", zurdo_harness::run::probe::PROBE_PREFIX),
                "m",
                work.path(),
            ),
            work.path(),
            &demo.env(),
        );
        assert_eq!(r.final_text(cli), "OK", "{cli}");
        assert_eq!(
            demo.count().as_deref(),
            Some("2"),
            "{cli}: the probe consumed none"
        );
    }
}

#[test]
fn without_a_script_every_invocation_is_the_default_attempt() {
    for cli in CLIS {
        let work = repo();
        for prompt in ["# Task\nWrite the greeting.", "zurdo-probe: reply OK"] {
            let r = stand_in(
                cli,
                &unattended(cli, prompt, "m", work.path()),
                work.path(),
                SANDBOX,
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), "Done.", "{cli}");
        }
        assert!(!work.path().join("greeting.txt").exists(), "{cli}");
    }
}

#[test]
fn a_sleeping_attempt_is_killable_and_reads_no_stdin() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"sleep_ms": 60_000}]}));
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("stand-in")
        .arg("codex")
        .args(unattended("codex", "hang", "m", work.path()))
        .current_dir(work.path())
        .env("ZURDO_STAND_IN_SCRIPT", &s.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first events arrive before the sleep (flushed line by line).
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["type"], "thread.started");
    let started = Instant::now();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));

    // With stdin left open, a quick attempt still ends on its own.
    let quick = Scripted::new(json!({}));
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .arg("stand-in")
        .arg("claude")
        .args(unattended("claude", "hi", "m", work.path()))
        .current_dir(work.path())
        .env("ZURDO_STAND_IN_SCRIPT", &quick.path)
        .env("IS_SANDBOX", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "the stand-in waited on stdin");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn claude_max_turns_stops_early() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"write": {"1.txt": "1", "2.txt": "2"}}]}));
    let mut args = unattended("claude", "hi", "sonnet", work.path());
    args.extend(words(&["--max-turns", "1"]));
    let r = stand_in("claude", &args, work.path(), &s.env());
    assert_eq!(r.code, 1);
    let result = r.last("result");
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["errors"],
        json!(["Reached maximum number of turns (1)"])
    );
    assert!(work.path().join("1.txt").exists() && !work.path().join("2.txt").exists());
    args.truncate(args.len() - 2);
    args.extend(words(&["--max-turns", "3"]));
    assert_eq!(stand_in("claude", &args, work.path(), &s.env()).code, 0);
}

#[test]
fn without_permission_nothing_is_touched() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"write": {"p.txt": "p"}, "run": "touch q.txt"}]}));
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "stream-json", "--verbose"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    let denials = r.last("result")["permission_denials"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(denials.len(), 2);
    assert_eq!(denials[0]["tool_name"], "Write");
    assert!(r
        .of_type("user")
        .iter()
        .all(|u| u["message"]["content"][0]["is_error"] == true));

    let r = stand_in(
        "codex",
        &words(&["exec", "--json", "hi"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.of_type("item.completed")[0]["item"]["status"], "failed");

    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "stream-json", "--skip-trust"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.of_type("tool_result")[0]["status"], "error");
    assert!(!work.path().join("p.txt").exists() && !work.path().join("q.txt").exists());
}

#[test]
fn usage_null_leaves_token_counts_out() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"usage": null}]}));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("result").get("usage").is_none());
    assert!(r.last("assistant")["message"].get("usage").is_none());
    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("result")["stats"].get("input_tokens").is_none());
    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("assistant.message")["data"]
        .get("outputTokens")
        .is_none());
}

#[test]
fn retries_are_noise_and_exit_overrides() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"retries": 2, "exit": 3, "stderr": "careful"}]}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 3);
    let errors = r.of_type("error");
    assert_eq!(errors.len(), 2);
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("Reconnecting... 1/5"));
    assert!(r.of_type("turn.failed").is_empty());
    assert!(r.stderr.contains("careful\n"));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(
        r.of_type("system")
            .iter()
            .filter(|e| e["subtype"] == "api_retry")
            .count(),
        2
    );
}

#[test]
fn the_log_records_every_invocation() {
    let work = repo();
    let s = Scripted::new(json!({
        "log": "calls.jsonl",
        "models": {"bad": "unknown"},
        "markers": {"probe": "zurdo-probe:"},
    }));
    stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    stand_in(
        "codex",
        &unattended("codex", "task", "m", work.path()),
        work.path(),
        &s.env(),
    );
    stand_in(
        "codex",
        &unattended("codex", "task", "bad", work.path()),
        work.path(),
        &s.env(),
    );
    let text = std::fs::read_to_string(s.dir.path().join("calls.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["probe"].as_bool(), lines[0]["attempt"].as_u64()),
        (Some(true), None)
    );
    assert_eq!(
        (lines[1]["probe"].as_bool(), lines[1]["attempt"].as_u64()),
        (Some(false), Some(0))
    );
    assert_eq!(lines[2]["attempt"], Value::Null);
    assert_eq!(lines[1]["cli"], "codex");
    assert_eq!(lines[1]["args"][0], "exec");
    assert_eq!(lines[1]["prompt"], "task");
}

#[test]
fn a_bad_script_fails_loud() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"wirte": {}}]}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("zurdo stand-in: "), "{}", r.stderr);
    assert!(r.stderr.contains("unknown field `wirte`"), "{}", r.stderr);
    let s = Scripted::new(json!({"markers": {"probe": ""}}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`markers.probe` is empty"),
        "{}",
        r.stderr
    );
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &[("ZURDO_STAND_IN_SCRIPT", "/nonexistent/s.json")],
    );
    assert_eq!(r.code, 2);
}

#[test]
fn other_output_formats_work() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"text": "plain answer"}]}));
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "json"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0]["result"], "plain answer");
    let r = stand_in("claude", &words(&["-p", "hi"]), work.path(), &s.env());
    assert_eq!(r.stdout, "plain answer\n");
    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "json", "--skip-trust"]),
        work.path(),
        &s.env(),
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["response"], "plain answer");
    let r = stand_in("codex", &words(&["exec", "hi"]), work.path(), &s.env());
    assert_eq!(r.stdout, "plain answer\n");
    let r = stand_in(
        "copilot",
        &words(&["-p", "hi", "--allow-all-tools"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.stdout, "plain answer\n");
}
