//! The scripted stand-in agents (`zurdo-standin <cli> …`, the crate's own
//! binary): the real CLIs' unattended command lines, their traps, their
//! event streams, and the script that drives them. One test binary, a
//! module per concern.

mod fail;
mod markers;
mod script;
mod streams;
mod traps;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// Runs `zurdo-standin <cli> <args>` in `dir` with stdin closed.
fn stand_in(cli: &str, args: &[String], dir: &Path, env: &[(&str, &str)]) -> Run {
    stand_in_fed(cli, args, dir, env, None)
}

/// Like [`stand_in`], with `input` piped to stdin when given.
fn stand_in_fed(
    cli: &str,
    args: &[String],
    dir: &Path,
    env: &[(&str, &str)],
    input: Option<&str>,
) -> Run {
    use std::io::Write;
    let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo-standin"));
    command
        .arg(cli)
        .args(args)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in CLEARED {
        command.env_remove(name);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("the zurdo-standin binary runs");
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(input.as_bytes()).expect("feed stdin");
    }
    let out = child.wait_with_output().expect("the stand-in ends");
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

    /// `cli`'s unattended run of `prompt` in `work` with this script, which
    /// must exit 0: its final text.
    fn answer(&self, cli: &str, prompt: &str, work: &Path) -> String {
        let r = stand_in(cli, &unattended(cli, prompt, "m", work), work, &self.env());
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        r.final_text(cli)
    }

    /// The lines of the invocation log `name`, parsed.
    fn log(&self, name: &str) -> Vec<Value> {
        read(self.dir.path(), name)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
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
