//! `zurdo run` end to end: the real binary on scratch repositories, with the
//! scripted stand-in (`zurdo stand-in <cli>`) behind a wrapper script as each
//! provider's command, so every attempt goes through the real adapter path
//! (command line, process group, event stream, verification, state).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha1::{Digest, Sha1};

/// The CLIs and the provider each one stands in for.
const CLIS: [(&str, &str); 4] = [
    ("claude", "anthropic"),
    ("codex", "openai"),
    ("copilot", "copilot"),
    ("gemini", "google"),
];

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

/// The longest any single `zurdo` call may take before the test gives up.
const DEADLINE: Duration = Duration::from_secs(60);

const PRD_PATH: &str = "prds/x.md";

/// One task: write `out.txt` holding `ok`.
const ONE_TASK: &str = "# PRD: Run tests

## Task: task-out — Write out.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3

### Description
Create `out.txt` holding the single line `ok`.

### Acceptance Criteria
- [ ] the file exists [file-exists: out.txt]
- [ ] it says ok [grep: ^ok$ in out.txt]
";

// ---------------------------------------------------------------------------
// Scratch repositories.

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
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// A temp dir holding `repo/` (the repository root: `.git/`, `prds/x.md`,
/// `.zurdo/config.toml`) and `agent/` (the wrapper, the script, its log and
/// counters, echoed prompts), so nothing the agent side writes can touch
/// what the criteria check.
struct Scratch {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
    cli: &'static str,
    provider: &'static str,
}

impl Scratch {
    fn new(cli: &'static str) -> Scratch {
        let provider = CLIS
            .iter()
            .find(|(c, _)| *c == cli)
            .map(|(_, p)| *p)
            .expect("a known CLI");
        let (tmp, root, agent, _) = crate::common::stand_in_scratch(cli);
        let s = Scratch {
            _tmp: tmp,
            root,
            agent,
            cli,
            provider,
        };
        s.config(&[
            ("low", "model-low"),
            ("medium", "model-medium"),
            ("high", "model-high"),
        ]);
        s.script(json!({}));
        s
    }

    fn with(cli: &'static str, prd: &str, script: Value) -> Scratch {
        let s = Scratch::new(cli);
        s.prd(prd);
        s.script(script);
        s
    }

    fn wrapper(&self) -> PathBuf {
        self.agent.join(format!("{}-agent", self.cli))
    }

    /// Writes `.zurdo/config.toml` with this effort map.
    fn config(&self, efforts: &[(&str, &str)]) {
        let mut text = format!(
            "[executor]\nprovider = \"{p}\"\n\n[providers.{p}]\ncommand = \"{}\"\n\n[effort_map.{p}]\n",
            self.wrapper().display(),
            p = self.provider
        );
        for (effort, model) in efforts {
            text.push_str(&format!("{effort} = \"{model}\"\n"));
        }
        text.push_str("\n[defaults]\nmax_attempts = 3\nagent_timeout = \"60s\"\n");
        self.write(".zurdo/config.toml", &text);
    }

    fn prd(&self, text: &str) {
        self.write(PRD_PATH, text);
    }

    /// Writes the stand-in's script (with a `log` and zurdo's markers
    /// unless it names its own) and resets its counters.
    fn script(&self, mut script: Value) {
        if script.get("log").is_none() {
            script["log"] = json!("invocations.jsonl");
        }
        if script.get("markers").is_none() {
            script["markers"] = crate::common::markers();
        }
        std::fs::write(
            self.agent.join("script.json"),
            serde_json::to_string_pretty(&script).expect("json"),
        )
        .expect("script");
        let _ = std::fs::remove_file(self.agent.join("script.json.count"));
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root.join(relative))
            .unwrap_or_else(|e| panic!("{relative}: {e}"))
    }

    /// A path under the agent dir, for `echo_prompt_to`.
    fn echo(&self, name: &str) -> String {
        self.agent.join(name).display().to_string()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
        command
            .args(args)
            .current_dir(&self.root)
            .stdin(Stdio::null());
        for name in CLEARED {
            command.env_remove(name);
        }
        command.env("ZURDO_STAND_IN_SCRIPT", self.agent.join("script.json"));
        command
    }

    /// Runs `zurdo <args>` at the root with the script in the environment.
    fn zurdo(&self, args: &[&str]) -> Out {
        finish(self.command(args))
    }

    /// `zurdo run prds/x.md <extra>`.
    fn run(&self, extra: &[&str]) -> Out {
        let mut args = vec!["run", PRD_PATH];
        args.extend_from_slice(extra);
        self.zurdo(&args)
    }

    /// `.zurdo/x-<first four hex digits of SHA-1("prds/x.md")>`.
    fn state_dir(&self) -> PathBuf {
        self.root.join(".zurdo").join(slug(PRD_PATH))
    }

    fn prd_json(&self) -> Value {
        let path = self.state_dir().join("prd.json");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}\n{text}", path.display()))
    }

    fn task(&self, id: &str) -> Value {
        self.prd_json()["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .find(|t| t["id"] == id)
            .unwrap_or_else(|| panic!("no task {id} in prd.json"))
            .clone()
    }

    fn iteration_file(&self, task: &str, n: u64, ext: &str) -> PathBuf {
        self.state_dir()
            .join("iterations")
            .join(format!("{task}-{n}.{ext}"))
    }

    /// progress.log, parsed.
    fn events(&self) -> Vec<Value> {
        jsonl(&self.state_dir().join("progress.log"))
    }

    fn event_names(&self) -> Vec<String> {
        self.events()
            .iter()
            .map(|e| e["event"].as_str().unwrap_or("").to_string())
            .collect()
    }

    /// The stand-in's invocation log.
    fn invocations(&self) -> Vec<Value> {
        jsonl(&self.agent.join("invocations.jsonl"))
    }

    /// The invocations that were attempts (not model probes).
    fn agent_calls(&self) -> Vec<Value> {
        self.invocations()
            .into_iter()
            .filter(|i| i["probe"] == false)
            .collect()
    }

    fn probes(&self) -> Vec<Value> {
        self.invocations()
            .into_iter()
            .filter(|i| i["probe"] == true)
            .collect()
    }

    /// Pids the wrapper recorded.
    fn agent_pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.agent.join("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Agents of this repository still running: a recorded pid that is
    /// alive, runs `zurdo stand-in` and works in this root.
    fn running_agents(&self) -> Vec<i32> {
        let root = self.root.canonicalize().expect("root");
        self.agent_pids()
            .into_iter()
            .filter(|&pid| alive(pid))
            .filter(|&pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
                String::from_utf8_lossy(&cmdline).contains("stand-in")
                    && cwd.is_some_and(|c| c == root)
            })
            .collect()
    }

    /// Kills (by process group) every agent this repository left running;
    /// returns their pids.
    fn kill_leftover_agents(&self) -> Vec<i32> {
        let left = self.running_agents();
        for &pid in &left {
            // SAFETY: killpg on a group whose leader we just checked is our
            // own stand-in agent.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
        let until = Instant::now() + Duration::from_secs(5);
        while left.iter().any(|&p| alive(p)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        left
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.kill_leftover_agents();
    }
}

fn slug(relative: &str) -> String {
    let hex: String = Sha1::digest(relative.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let stem = Path::new(relative)
        .file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned();
    format!("{stem}-{}", &hex[..4])
}

fn jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    // A line still being appended (no newline yet) is not read.
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    complete
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

/// Alive and not a zombie (an orphan's zombie may linger when pid 1 does
/// not reap).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

/// Runs `command` to the end (or [`DEADLINE`]) capturing its output.
fn finish(mut command: Command) -> Out {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let child = command.spawn().expect("the zurdo binary runs");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(DEADLINE) {
        Ok(o) => o.expect("wait"),
        Err(_) => {
            // SAFETY: our own child.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("zurdo ran for more than {DEADLINE:?}: {command:?}");
        }
    };
    Out {
        code: output.status.code().unwrap_or(-1),
        stdout: crate::common::text(&output.stdout),
        stderr: crate::common::text(&output.stderr),
        elapsed: start.elapsed(),
    }
}

/// The model named on an agent's command line.
fn model_arg(invocation: &Value) -> String {
    let args: Vec<&str> = invocation["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    args.iter()
        .position(|a| *a == "--model" || *a == "-m")
        .and_then(|i| args.get(i + 1))
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// Generates one `#[test]` per CLI calling `$name(cli)`.
macro_rules! per_cli {
    ($name:ident: $($cli:ident),+) => {
        mod $name {
            $(
                #[test]
                fn $cli() {
                    super::$name(stringify!($cli));
                }
            )+
        }
    };
}

// ---------------------------------------------------------------------------
// 1. Pass on attempt 1.

per_cli!(passes_on_the_first_attempt: claude, codex, copilot, gemini);

fn passes_on_the_first_attempt(cli: &'static str) {
    let s = Scratch::with(
        cli,
        ONE_TASK,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}, "text": "Wrote out.txt."}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    let task = s.task("task-out");
    assert_eq!(task["status"], "passed", "{task:#}");
    assert_eq!(task["attempts"], 1);
    assert_eq!(task["passed_at_preflight"], false);
    let iterations = task["iterations"].as_array().expect("iterations");
    assert_eq!(iterations.len(), 1);
    assert_eq!(iterations[0]["attempt"], 1);
    assert_eq!(iterations[0]["passed"], true);
    assert_eq!(iterations[0]["model"], "model-low");
    assert_eq!(iterations[0]["agent"]["exit_code"], 0);
    assert_eq!(iterations[0]["agent"]["timed_out"], false);
    assert_eq!(
        iterations[0]["agent"]["final_text_tail"], "Wrote out.txt.",
        "the {cli} stream's final text is read: {:#}",
        iterations[0]["agent"]
    );
    for ext in ["prompt", "out", "err"] {
        let path = s.iteration_file("task-out", 1, ext);
        assert!(path.is_file(), "{} is missing", path.display());
    }
    assert!(
        !std::fs::read(s.iteration_file("task-out", 1, "out"))
            .expect("out")
            .is_empty(),
        "the agent's stdout is kept"
    );
    let names = s.event_names();
    for event in [
        "model_probe",
        "run_started",
        "preflight",
        "attempt_started",
        "attempt_finished",
        "task_settled",
        "run_finished",
    ] {
        assert!(names.iter().any(|n| n == event), "no {event} in {names:?}");
    }
    assert!(!names.iter().any(|n| n == "attempt_dropped"), "{names:?}");
    assert!(out.stdout.contains("task-out"), "{out}");
    assert!(out.stdout.contains("1 passed,"), "{out}");
    assert!(
        out.stdout.contains("1/3"),
        "attempts/max in the summary: {out}"
    );

    // The agent got this CLI's command line at the root, with the prompt.
    let calls = s.agent_calls();
    assert_eq!(calls.len(), 1, "{calls:#?}");
    assert_eq!(calls[0]["cli"], cli);
    assert_eq!(model_arg(&calls[0]), "model-low");
    let root = s.root.canonicalize().expect("root");
    assert_eq!(
        PathBuf::from(calls[0]["workdir"].as_str().expect("workdir"))
            .canonicalize()
            .expect("workdir"),
        root
    );
    let prompt = calls[0]["prompt"].as_str().expect("prompt");
    assert!(
        prompt.starts_with("# Task task-out — Write out.txt"),
        "{prompt}"
    );
    assert!(prompt.contains("[grep: ^ok$ in out.txt]"), "{prompt}");
    assert_eq!(
        prompt,
        std::fs::read_to_string(s.iteration_file("task-out", 1, "prompt")).expect("prompt")
    );
    assert_eq!(s.probes().len(), 1, "one probe for the one model");
    assert!(!s.state_dir().join("lock").exists(), "the lock is released");
}

// ---------------------------------------------------------------------------
// 2. Pass on a retry whose prompt carries the failing evidence.

per_cli!(a_retry_carries_the_failing_evidence: claude, codex, copilot, gemini);

fn a_retry_carries_the_failing_evidence(cli: &'static str) {
    let s = Scratch::new(cli);
    s.prd(ONE_TASK);
    s.script(json!({"attempts": [
        {"write": {"out.txt": "nope\n"}, "text": "I wrote nope; that should be fine.",
         "echo_prompt_to": s.echo("prompt-1.txt")},
        {"write": {"out.txt": "ok\n"}, "text": "Fixed it.", "echo_prompt_to": s.echo("prompt-2.txt")}
    ]}));
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    let task = s.task("task-out");
    assert_eq!(task["status"], "passed", "{task:#}");
    assert_eq!(task["attempts"], 2);
    let iterations = task["iterations"].as_array().expect("iterations");
    assert_eq!(iterations[0]["passed"], false);
    assert_eq!(iterations[1]["passed"], true);

    let first = std::fs::read_to_string(s.agent.join("prompt-1.txt")).expect("prompt 1");
    assert!(!first.contains("# What failed"), "{first}");
    let second = std::fs::read_to_string(s.agent.join("prompt-2.txt")).expect("prompt 2");
    assert!(second.starts_with("# What failed"), "{second}");
    assert!(
        second.contains("[grep: ^ok$ in out.txt] failed: no line matches"),
        "the failing hint as written and its reason:\n{second}"
    );
    assert!(
        second.contains("I wrote nope; that should be fine."),
        "the agent's last narrative ({cli}):\n{second}"
    );
    assert!(
        second.contains("# Task task-out — Write out.txt"),
        "{second}"
    );
    assert_eq!(
        second,
        std::fs::read_to_string(s.iteration_file("task-out", 2, "prompt")).expect("prompt")
    );
    assert_eq!(
        first,
        std::fs::read_to_string(s.iteration_file("task-out", 1, "prompt")).expect("prompt")
    );
    assert!(out.stderr.contains("no line matches"), "{out}");
    assert_eq!(s.agent_calls().len(), 2);
}

// ---------------------------------------------------------------------------
// 3. An exhausted budget fails the task and blocks its dependents.

const TWO_TASKS: &str = "# PRD: Run tests

## Task: task-a — Write a.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
Create `a.txt` holding `right`.

### Acceptance Criteria
- [ ] it is right [grep: ^right$ in a.txt]

## Task: task-b — Write b.txt
**Effort**: medium
**Depends-on**: [task-a]

### Description
Create `b.txt`.

### Acceptance Criteria
- [ ] it exists [file-exists: b.txt]
";

per_cli!(an_exhausted_budget_fails_and_blocks_dependents: claude, codex);

fn an_exhausted_budget_fails_and_blocks_dependents(cli: &'static str) {
    let s = Scratch::with(
        cli,
        TWO_TASKS,
        json!({"attempts": [{"write": {"a.txt": "wrong\n", "b.txt": "b\n"}, "text": "Done, I think."}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 1, "{out}");
    let a = s.task("task-a");
    assert_eq!(a["status"], "failed", "{a:#}");
    assert_eq!(a["attempts"], 2);
    assert_eq!(a["iterations"].as_array().expect("iterations").len(), 2);
    let b = s.task("task-b");
    assert_eq!(b["status"], "blocked-by-dependency", "{b:#}");
    assert_eq!(b["blocked_by"], "task-a");
    assert_eq!(b["attempts"], 0);
    assert!(b.get("preflight_results").is_none(), "{b:#}");
    let calls = s.agent_calls();
    assert_eq!(calls.len(), 2, "{calls:#?}");
    for call in &calls {
        let prompt = call["prompt"].as_str().expect("prompt");
        assert!(prompt.contains("# Task task-a"), "{prompt}");
        assert!(
            !prompt.contains("task-b"),
            "no agent call for task-b: {prompt}"
        );
    }
    assert!(
        out.stdout.contains("1 failed, 1 blocked-by-dependency"),
        "{out}"
    );
    let settled: Vec<(String, String)> = s
        .events()
        .iter()
        .filter(|e| e["event"] == "task_settled")
        .map(|e| {
            (
                e["task"].as_str().unwrap_or("").into(),
                e["status"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert_eq!(
        settled,
        [
            ("task-a".to_string(), "failed".to_string()),
            ("task-b".to_string(), "blocked-by-dependency".to_string())
        ]
    );
    // A second run resumes settled state: nothing runs again.
    let again = s.run(&["--no-prompt"]);
    assert_eq!(again.code, 1, "{again}");
    assert_eq!(s.agent_calls().len(), 2);
}

// ---------------------------------------------------------------------------
// 4. All-manual and already-green tasks need no agent.

#[test]
fn manual_and_already_green_tasks_run_no_agent() {
    let s = Scratch::with(
        "copilot",
        "# PRD: Run tests

## Task: task-green — Already done
**Effort**: low
**Depends-on**: []

### Description
The README exists already.

### Acceptance Criteria
- [ ] a README exists [file-exists: README.md]
- [ ] it has a title [grep: ^# in README.md]

## Task: task-review — A person looks
**Effort**: high
**Depends-on**: [task-green]

### Description
Someone reads the README.

### Acceptance Criteria
- [ ] it reads well [manual]
- [ ] it is friendly [manual]
",
        json!({"attempts": [{"write": {"agent-ran.txt": "yes\n"}}]}),
    );
    s.write("README.md", "# hello\n");
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    let green = s.task("task-green");
    assert_eq!(green["status"], "passed", "{green:#}");
    assert_eq!(green["passed_at_preflight"], true);
    assert_eq!(green["attempts"], 0);
    assert_eq!(green["iterations"], json!([]));
    assert_eq!(
        green["preflight_results"]
            .as_array()
            .expect("preflight results")
            .len(),
        2
    );
    let review = s.task("task-review");
    assert_eq!(review["status"], "passed-pending-review", "{review:#}");
    assert_eq!(review["attempts"], 0);
    assert_eq!(s.agent_calls().len(), 0, "{:#?}", s.agent_calls());
    assert!(!s.root.join("agent-ran.txt").exists());
    assert!(
        !s.event_names().iter().any(|e| e == "attempt_started"),
        "{:?}",
        s.event_names()
    );
    assert!(
        out.stdout.contains("1 passed, 1 passed-pending-review"),
        "{out}"
    );
    assert!(out.stdout.contains("2 passed at pre-flight"), "{out}");
}

// ---------------------------------------------------------------------------
// 5. Locks.

#[test]
fn a_live_lock_refuses_and_a_dead_one_is_taken_over() {
    let s = Scratch::with(
        "gemini",
        ONE_TASK,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    std::fs::create_dir_all(s.state_dir()).expect("state dir");
    let lock = s.state_dir().join("lock");

    // Locks that name processes other than a running zurdo are stale: pid 1,
    // an unrelated live process, a pid reused since (another start time).
    let mut stranger = Command::new("sleep").arg("30").spawn().expect("sleep");
    let (mut holder, _script) = crate::common::live_zurdo();
    let mut reused = crate::common::lock_line(holder.id());
    reused = reused.replacen(
        &format!(
            " {} ",
            zurdo_base::process::identity(holder.id())
                .expect("id")
                .start
        ),
        " 1 ",
        1,
    );
    for planted in [
        "1 2026-01-01T00:00:00Z\n".to_string(),
        crate::common::lock_line(1),
        crate::common::lock_line(stranger.id()),
        format!("{} 2026-01-01T00:00:00Z\n", stranger.id()),
        reused,
    ] {
        std::fs::write(&lock, &planted).expect("lock");
        let out = s.run(&["--skip-model-check"]);
        assert_ne!(out.code, 3, "{planted:?} refused the run: {out}");
        assert!(
            out.stderr.contains("taking over a stale lock"),
            "{planted:?}: {out}"
        );
        std::fs::remove_dir_all(s.state_dir()).expect("reset");
        std::fs::create_dir_all(s.state_dir()).expect("state dir");
    }
    let _ = stranger.kill();
    let _ = stranger.wait();
    std::fs::remove_file(s.root.join("out.txt")).ok();

    // A running zurdo, as its lock records it: held.
    std::fs::write(&lock, crate::common::lock_line(holder.id())).expect("lock");
    let calls = s.invocations().len();
    let out = s.run(&[]);
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(out.code, 3, "{out}");
    assert!(
        out.stderr.contains(&format!("pid {}", holder.id())),
        "names the pid: {out}"
    );
    assert_eq!(s.invocations().len(), calls, "no agent, no probe");
    assert!(!s.state_dir().join("prd.json").exists());
    assert!(
        lock.exists(),
        "a refused run leaves the other run's lock alone"
    );

    // The holder is gone now (killed and reaped): its lock is stale.
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stderr.contains("taking over a stale lock")
            && out.stderr.contains(&holder.id().to_string()),
        "{out}"
    );
    assert_eq!(s.task("task-out")["status"], "passed");
    assert!(!lock.exists(), "released at the end");
}

// ---------------------------------------------------------------------------
// 6. Drift and --reset.

#[test]
fn an_edited_prd_is_drift_until_reset() {
    let s = Scratch::with(
        "codex",
        ONE_TASK,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    let old_sha = s.prd_json()["prd_sha1"].clone();

    s.prd(&ONE_TASK.replace("holding the single line", "holding only the line"));
    std::fs::remove_file(s.root.join("out.txt")).expect("rm");
    let out = s.run(&["--no-prompt"]);
    assert_eq!(out.code, 4, "{out}");
    assert!(out.stderr.contains("--reset"), "{out}");
    assert_eq!(s.prd_json()["prd_sha1"], old_sha, "the state is untouched");
    assert_eq!(s.agent_calls().len(), 1, "no agent ran");
    assert!(!s.state_dir().join("lock").exists());

    let out = s.run(&["--reset"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stderr.contains("archived"), "{out}");
    let state = s.prd_json();
    assert_ne!(state["prd_sha1"], old_sha);
    assert_eq!(s.task("task-out")["attempts"], 1);
    assert_eq!(s.agent_calls().len(), 2);
    let archives: Vec<PathBuf> = std::fs::read_dir(s.state_dir().join(".archive"))
        .expect("an .archive dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(archives.len(), 1, "{archives:?}");
    let archived: Value = serde_json::from_str(
        &std::fs::read_to_string(archives[0].join("prd.json")).expect("archived prd.json"),
    )
    .expect("parses");
    assert_eq!(archived["prd_sha1"], old_sha);
    assert!(archives[0].join("progress.log").is_file());
    assert!(archives[0].join("iterations/task-out-1.prompt").is_file());
    assert!(
        !archives[0].join("lock").exists() && !archives[0].join(".archive").exists(),
        "{archives:?}"
    );
    // The new progress.log starts afresh.
    assert_eq!(
        s.events()
            .iter()
            .filter(|e| e["event"] == "run_started")
            .count(),
        1
    );
}

/// BUG: the archive directory is named by the time in whole seconds
/// (`archive` in src/run/mod.rs: `state::now().replace(':', "-")`), and
/// entries are renamed into it without checking whether it already exists.
/// Two resets within one second (or `zurdo demo` twice in a row in one
/// directory: the demo always resets) collide: `prd.json` and
/// `progress.log` silently replace the first archive's, then renaming
/// `iterations/` onto the archived, non-empty `iterations/` fails with
/// ENOTEMPTY, so the run exits 2 ("cannot archive …: Directory not empty")
/// with the state half-moved. Three resets back to back always put two in
/// one second. (`reports/<time>.json|md` share the naming and silently
/// overwrite each other the same way.)
#[test]
fn resets_in_the_same_second_keep_every_archive() {
    let script =
        json!({"attempts": [{"write": {"out.txt": "nope\n"}}, {"write": {"out.txt": "ok\n"}}]});
    let s = Scratch::with("claude", ONE_TASK, script.clone());
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    let mut runs = Vec::new();
    for _ in 0..3 {
        let _ = std::fs::remove_file(s.root.join("out.txt"));
        s.script(script.clone());
        let out = s.run(&["--reset", "--skip-model-check"]);
        runs.push((out.code, out.stderr));
    }
    for (code, stderr) in &runs {
        assert_eq!(*code, 0, "a reset failed:\n{stderr}");
    }
    let archives = std::fs::read_dir(s.state_dir().join(".archive"))
        .expect(".archive")
        .count();
    assert_eq!(archives, 3, "each reset keeps its own archive");
}

// ---------------------------------------------------------------------------
// 7. Model probe failure.

per_cli!(a_failed_model_probe_stops_before_any_task: claude, codex, copilot, gemini);

fn a_failed_model_probe_stops_before_any_task(cli: &'static str) {
    let s = Scratch::with(
        cli,
        &ONE_TASK.replace("**Max-Attempts**: 3", "**Max-Attempts**: 1"),
        json!({
            "attempts": [{"write": {"out.txt": "ok\n"}}],
            "models": {"model-low": "unknown"}
        }),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 4, "{out}");
    assert!(
        out.stderr.contains("model probe failed for `model-low`"),
        "{out}"
    );
    let own = match cli {
        "claude" => "There's an issue with the selected model (model-low)",
        "codex" => "The model `model-low` does not exist or you do not have access to it",
        "copilot" => "No supported model available",
        "gemini" => "models/model-low is not found",
        _ => unreachable!(),
    };
    assert!(out.stderr.contains(own), "quotes {cli}'s message: {out}");
    let names = s.event_names();
    assert!(
        !names
            .iter()
            .any(|n| n == "attempt_started" || n == "preflight" || n == "run_started"),
        "{names:?}"
    );
    assert!(
        s.events()
            .iter()
            .any(|e| e["event"] == "model_probe" && e["ok"] == false),
        "{names:?}"
    );
    assert_eq!(s.agent_calls().len(), 0);
    assert_eq!(s.probes().len(), 1);
    assert!(!s.root.join("out.txt").exists());
    assert!(!s.state_dir().join("lock").exists());

    // --skip-model-check: no probe; the attempt runs and meets the same
    // unknown model. A model the CLI cannot use is not the task's failure:
    // the attempt is dropped, not counted, and the run stops (exit 5).
    let out = s.run(&["--skip-model-check"]);
    assert_eq!(out.code, 5, "{out}");
    assert_eq!(s.probes().len(), 1, "no new probe");
    assert_eq!(s.agent_calls().len(), 1);
    assert!(
        s.event_names().iter().any(|n| n == "attempt_started"),
        "{:?}",
        s.event_names()
    );
    assert!(out.stderr.contains("the model is not available"), "{out}");
    let task = s.task("task-out");
    assert_eq!(
        (task["status"].as_str(), task["attempts"].as_u64()),
        (Some("pending"), Some(0))
    );
    let dropped = s
        .events()
        .into_iter()
        .find(|e| e["event"] == "attempt_dropped")
        .expect("attempt_dropped");
    assert_eq!(dropped["failure"]["kind"], "model_unavailable");
}

// ---------------------------------------------------------------------------
// 8. An Effort missing from the effort map.

#[test]
fn an_effort_missing_from_the_map_is_a_config_error() {
    let s = Scratch::with("claude", &ONE_TASK.replace("low", "high"), json!({}));
    s.config(&[("low", "model-low"), ("medium", "model-medium")]);
    let out = s.run(&[]);
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("task-out (line 4)"), "{out}");
    assert!(out.stderr.contains("`high`"), "{out}");
    assert!(out.stderr.contains("[effort_map.anthropic]"), "{out}");
    assert!(out.stderr.contains("it has: low, medium"), "{out}");
    assert!(s.invocations().is_empty());
    assert!(!s.state_dir().exists(), "nothing written");
}

// ---------------------------------------------------------------------------
// 9. Agent timeout.

per_cli!(a_hung_agent_is_killed_at_its_timeout_and_still_verified: claude, copilot);

fn a_hung_agent_is_killed_at_its_timeout_and_still_verified(cli: &'static str) {
    let s = Scratch::with(
        cli,
        &ONE_TASK.replace(
            "**Max-Attempts**: 3",
            "**Max-Attempts**: 1\n**Agent-timeout**: 2s",
        ),
        json!({"attempts": [{"write": {"out.txt": "ok\n"}, "sleep_ms": 30000}]}),
    );
    let out = s.run(&[]);
    assert!(
        out.elapsed < Duration::from_secs(10),
        "took {:?}: {out}",
        out.elapsed
    );
    assert_eq!(out.code, 0, "{out}");
    let task = s.task("task-out");
    let iteration = &task["iterations"][0];
    assert_eq!(iteration["agent"]["timed_out"], true, "{iteration:#}");
    assert_eq!(iteration["agent"]["exit_code"], Value::Null);
    let ms = iteration["agent"]["duration_ms"]
        .as_u64()
        .expect("duration");
    assert!((1900..8000).contains(&ms), "{ms} ms");
    // Verification ran after the kill and judged what the agent left.
    assert_eq!(iteration["passed"], true);
    assert_eq!(iteration["criteria"].as_array().expect("criteria").len(), 2);
    assert_eq!(task["status"], "passed");
    assert!(out.stderr.contains("timed out"), "{out}");
    assert!(
        s.running_agents().is_empty(),
        "the agent's process group is gone"
    );
}

// ---------------------------------------------------------------------------
// 10. kill -9 at points in the run, then resume.

const THREE_TASKS: &str = "# PRD: Run tests

## Task: task-a — Write a.txt
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3

### Description
Create `a.txt` holding `ok-a`.

### Acceptance Criteria
- [ ] a is right [grep: ^ok-a$ in a.txt]

## Task: task-b — Write b.txt
**Effort**: low
**Depends-on**: [task-a]
**Max-Attempts**: 3

### Description
Create `b.txt` holding `ok-b`.

### Acceptance Criteria
- [ ] b is right [grep: ^ok-b$ in b.txt]

## Task: task-c — Write c.txt
**Effort**: low
**Depends-on**: [task-b]
**Max-Attempts**: 3

### Description
Create `c.txt` holding `ok-c`.

### Acceptance Criteria
- [ ] c is right [grep: ^ok-c$ in c.txt]
";

/// Each task's first attempt writes nothing useful; a retry of it (its
/// prompt names its failing hint) writes the right file. Every attempt
/// sleeps after acting.
fn three_task_script(sleep_ms: u64) -> Value {
    let rule = |task: &str| {
        json!({
            "contains": format!("[grep: ^ok-{task}$ in {task}.txt] failed"),
            "attempt": {"write": {format!("{task}.txt"): format!("ok-{task}\n")},
                        "sleep_ms": sleep_ms, "text": format!("Wrote {task}.txt.")}
        })
    };
    json!({
        "attempts": [{"write": {"scratch.txt": "thinking\n"}, "sleep_ms": sleep_ms, "text": "Looked around."}],
        "on_prompt": [rule("a"), rule("b"), rule("c")]
    })
}

/// The open attempt (started, not finished or dropped) in progress.log.
fn open_attempt(events: &[Value]) -> Option<(String, u64)> {
    let mut open = None;
    for e in events {
        match e["event"].as_str() {
            Some("attempt_started") => {
                open = Some((
                    e["task"].as_str().unwrap_or("").to_string(),
                    e["attempt"].as_u64().unwrap_or(0),
                ))
            }
            Some("attempt_finished") | Some("attempt_dropped") => open = None,
            _ => {}
        }
    }
    open
}

/// Starts `zurdo run --no-prompt` with output in files; the child to kill.
fn spawn_run(s: &Scratch, n: usize) -> Child {
    let mut command = s.command(&["run", PRD_PATH, "--no-prompt"]);
    command
        .stdout(std::fs::File::create(s.agent.join(format!("run-{n}.out"))).expect("out"))
        .stderr(std::fs::File::create(s.agent.join(format!("run-{n}.err"))).expect("err"));
    command.spawn().expect("zurdo runs")
}

/// Kills a run after each of `delays` in turn (each kill a fresh resume),
/// then resumes until the run completes; checks the state after every kill
/// and at the end.
fn kill_and_resume(delays: &[u64]) {
    let s = Scratch::with("claude", THREE_TASKS, three_task_script(350));
    let mut expected_drops: Vec<(String, u64)> = Vec::new();
    let mut stale_lock_expected = false;
    let mut orphans = Vec::new();
    let mut history = String::new();
    for (n, &delay) in delays.iter().enumerate() {
        let mut child = spawn_run(&s, n);
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().expect("wait");
        let err = std::fs::read_to_string(s.agent.join(format!("run-{n}.err"))).unwrap_or_default();
        history.push_str(&format!(
            "--- run {n} (killed at {delay} ms, {status})\n{err}"
        ));
        if stale_lock_expected {
            // The previous kill left a lock; this run took it over unless it
            // was killed before reaching it.
            if err.contains("zurdo: running") {
                assert!(err.contains("taking over a stale lock"), "{history}");
            }
        }
        // The killed zurdo's agent lives in its own process group and
        // outlives it (see `a_killed_run_leaves_no_agent_running`): end it
        // so it cannot race the resume.
        orphans.extend(s.kill_leftover_agents());
        // A run whose summary reached stdout had ended (and dropped its
        // lock) before the kill landed.
        let ended = !std::fs::read_to_string(s.agent.join(format!("run-{n}.out")))
            .unwrap_or_default()
            .trim()
            .is_empty();
        if status.code().is_none() && err.contains("zurdo: running") && !ended {
            assert!(
                s.state_dir().join("lock").exists(),
                "a SIGKILLed run cannot release its lock\n{history}"
            );
        }
        let prd_json = s.state_dir().join("prd.json");
        if prd_json.exists() {
            let text = std::fs::read_to_string(&prd_json).expect("read");
            serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("prd.json after a kill does not parse: {e}\n{text}"));
        }
        if let Some(open) = open_attempt(&s.events()) {
            // A kill after prd.json counted the attempt but before
            // progress.log said so is no drop: the attempt finished.
            let recorded = prd_json.exists()
                && s.task(&open.0)["iterations"]
                    .as_array()
                    .expect("iterations")
                    .iter()
                    .any(|i| i["attempt"] == open.1);
            if !recorded && !expected_drops.contains(&open) {
                expected_drops.push(open);
            }
        }
        stale_lock_expected = s.state_dir().join("lock").exists();
    }
    let mut last = None;
    for _ in 0..6 {
        let out = s.run(&["--no-prompt"]);
        history.push_str(&format!("--- resume\n{out}\n"));
        if stale_lock_expected {
            assert!(out.stderr.contains("taking over a stale lock"), "{history}");
            stale_lock_expected = false;
        }
        assert!(
            !s.state_dir().join("lock").exists(),
            "a finished run releases its lock"
        );
        let code = out.code;
        last = Some(out);
        if code == 0 {
            break;
        }
    }
    let last = last.expect("ran");
    assert_eq!(last.code, 0, "{history}");

    let state = s.prd_json();
    let mut total_attempts = 0;
    for task in state["tasks"].as_array().expect("tasks") {
        let id = task["id"].as_str().expect("id");
        assert_eq!(task["status"], "passed", "{id}: {task:#}\n{history}");
        let iterations = task["iterations"].as_array().expect("iterations");
        let attempts = task["attempts"].as_u64().expect("attempts");
        assert_eq!(
            attempts,
            iterations.len() as u64,
            "{id}: attempts vs iterations\n{history}"
        );
        let numbers: Vec<u64> = iterations
            .iter()
            .map(|i| i["attempt"].as_u64().expect("attempt"))
            .collect();
        assert_eq!(
            numbers,
            (1..=attempts).collect::<Vec<_>>(),
            "{id}: attempt numbers\n{history}"
        );
        assert_eq!(
            iterations.last().map(|i| i["passed"].clone()),
            Some(json!(true)),
            "{id}"
        );
        assert!((2..=3).contains(&attempts), "{id}: {attempts}\n{history}");
        for n in 1..=attempts {
            for ext in ["prompt", "out", "err"] {
                assert!(s.iteration_file(id, n, ext).is_file(), "{id}-{n}.{ext}");
            }
        }
        total_attempts += attempts;
    }
    assert!(s.agent_calls().len() as u64 >= total_attempts);
    let events = s.events();
    for (task, attempt) in &expected_drops {
        assert!(
            events.iter().any(|e| e["event"] == "attempt_dropped"
                && e["task"] == task.as_str()
                && e["attempt"] == *attempt),
            "attempt {attempt} of {task} was open at a kill; no attempt_dropped\n{history}"
        );
    }
    for f in ["a", "b", "c"] {
        assert_eq!(s.read(&format!("{f}.txt")), format!("ok-{f}\n"));
    }
    eprintln!(
        "kill at {delays:?}: {} open attempt(s) dropped, {} agent(s) outlived their zurdo",
        expected_drops.len(),
        orphans.len()
    );
}

#[test]
fn kill_9_at_50ms_then_resume() {
    kill_and_resume(&[50]);
}

#[test]
fn kill_9_at_300ms_then_resume() {
    kill_and_resume(&[300, 250]);
}

#[test]
fn kill_9_at_700ms_then_resume() {
    kill_and_resume(&[700]);
}

#[test]
fn kill_9_at_1200ms_then_resume() {
    kill_and_resume(&[1200, 600]);
}

#[test]
fn kill_9_at_2000ms_then_resume() {
    kill_and_resume(&[2000, 1000]);
}

/// Waits until the stand-in has logged `count` attempt invocations.
fn wait_for_agent_calls(s: &Scratch, count: usize) {
    let until = Instant::now() + Duration::from_secs(20);
    while s.agent_calls().len() < count {
        assert!(Instant::now() < until, "the agent was never called");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Deterministic: the kill lands while the retry of task-a is running. The
/// agent dies with zurdo (PR_SET_PDEATHSIG); the resume drops the attempt
/// (progress.log says so) without counting it, and runs attempt 2 again with
/// the same failing evidence.
#[test]
fn kill_9_mid_attempt_is_dropped_and_rerun() {
    let s = Scratch::with("codex", THREE_TASKS, three_task_script(1500));
    let mut child = spawn_run(&s, 0);
    wait_for_agent_calls(&s, 2);
    std::thread::sleep(Duration::from_millis(100));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(open_attempt(&s.events()), Some(("task-a".to_string(), 2)));
    let group = s
        .events()
        .iter()
        .rev()
        .find(|e| e["event"] == "agent_started")
        .and_then(|e| e["process_group"].as_i64())
        .expect("agent_started records the process group") as i32;
    let until = Instant::now() + Duration::from_secs(5);
    while !s.running_agents().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        s.running_agents(),
        Vec::<i32>::new(),
        "the agent died with zurdo"
    );
    let task = s.task("task-a");
    assert_eq!(task["attempts"], 1, "{task:#}");
    assert!(s.state_dir().join("lock").exists());

    s.script({
        let mut script = three_task_script(0);
        script["log"] = json!("invocations.jsonl");
        script
    });
    let out = s.run(&["--no-prompt"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stderr.contains("taking over a stale lock"), "{out}");
    assert!(!alive(group), "nothing of the agent is left");
    assert!(
        out.stderr.contains("attempt 2 of task-a was interrupted"),
        "{out}"
    );
    let events = s.events();
    let dropped: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "attempt_dropped")
        .collect();
    assert_eq!(dropped.len(), 1, "{events:#?}");
    assert_eq!(dropped[0]["task"], "task-a");
    assert_eq!(dropped[0]["attempt"], 2);
    let task = s.task("task-a");
    assert_eq!(task["attempts"], 2, "{task:#}");
    assert_eq!(task["status"], "passed");
    // The first call after the kill is task-a's attempt 2 again, with the
    // retry evidence of attempt 1.
    let calls = s.agent_calls();
    let resumed = calls[2]["prompt"].as_str().expect("prompt");
    assert!(resumed.starts_with("# What failed"), "{resumed}");
    assert!(resumed.contains("# Task task-a"), "{resumed}");
    assert!(resumed.contains("Looked around."), "{resumed}");
}

/// zurdo starts the agent in a process group of its own (so a timeout can
/// kill the agent's whole tree), so a `kill -9` of zurdo would not reach it;
/// `PR_SET_PDEATHSIG(SIGKILL)` on the agent makes it die with zurdo.
#[test]
fn a_killed_run_leaves_no_agent_running() {
    let s = Scratch::with("claude", THREE_TASKS, three_task_script(5000));
    let mut child = spawn_run(&s, 0);
    wait_for_agent_calls(&s, 1);
    std::thread::sleep(Duration::from_millis(200));
    let _ = child.kill();
    let _ = child.wait();
    std::thread::sleep(Duration::from_millis(500));
    let left = s.running_agents();
    s.kill_leftover_agents();
    assert!(
        left.is_empty(),
        "agent pid(s) {left:?} still running after their zurdo was SIGKILLed"
    );
}

/// Writes the state a kill leaves in the window between recording an
/// attempt's iteration in prd.json and settling its task: `prd.json` has
/// the passing iteration counted but the task still `pending`; progress.log
/// ends at `attempt_finished` (when `finished`) or at `attempt_started`.
fn crash_after_recording_a_passing_attempt(s: &Scratch, finished: bool) {
    let mut state = s.prd_json();
    state["tasks"][0]["status"] = json!("pending");
    crate::common::write_state(&s.state_dir().join("prd.json"), &state);
    let keep = if finished {
        "attempt_finished"
    } else {
        "attempt_started"
    };
    let events = s.events();
    let last = events
        .iter()
        .rposition(|e| e["event"] == keep)
        .expect("the event");
    let log: String = events[..=last].iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(s.state_dir().join("progress.log"), log).expect("write");
    std::fs::write(s.state_dir().join("lock"), "4194305 2026-01-01T00:00:00Z\n")
        .expect("stale lock");
}

/// BUG: `Run::attempt` saves prd.json with the iteration counted
/// (`attempts = n`, the iteration `passed: true`) and only then does
/// `Run::settle` save the status. A kill between the two leaves a pending
/// task whose last recorded attempt passed. On resume `Run::task` only
/// looks at `attempts`: with the budget spent (`attempts + 1 > max`) it
/// settles the task `failed` ("1 attempt spent") although its only attempt
/// passed (with budget left it would spend another agent attempt instead).
/// The resume should settle a pending task whose last iteration passed.
#[test]
fn a_kill_after_a_passing_attempt_is_recorded_does_not_fail_the_task() {
    let s = Scratch::with(
        "claude",
        &ONE_TASK.replace("**Max-Attempts**: 3", "**Max-Attempts**: 1"),
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    crash_after_recording_a_passing_attempt(&s, true);

    let out = s.run(&["--no-prompt"]);
    let task = s.task("task-out");
    assert_eq!(
        task["status"], "passed",
        "its recorded attempt passed:\n{out}\n{task:#}"
    );
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(s.agent_calls().len(), 1, "no new agent call");
}

/// The same window seen from progress.log: `attempt_finished` is emitted
/// after prd.json already counts the attempt, so a kill between them leaves
/// an `attempt_started` without `attempt_finished` for an attempt prd.json
/// has recorded. The resume must not log it as dropped ("not counted"): it
/// was counted. (Fixed in 49bf920; this is its regression test.)
#[test]
fn a_counted_attempt_is_not_logged_as_dropped() {
    let s = Scratch::with(
        "claude",
        ONE_TASK,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    crash_after_recording_a_passing_attempt(&s, false);
    let recorded = s.task("task-out")["iterations"][0]["attempt"].clone();
    assert_eq!(recorded, 1);

    let out = s.run(&["--no-prompt"]);
    let dropped: Vec<Value> = s
        .events()
        .into_iter()
        .filter(|e| e["event"] == "attempt_dropped")
        .collect();
    assert!(
        dropped.is_empty(),
        "attempt 1 is recorded in prd.json, yet progress.log says it was dropped: {dropped:?}\n{out}"
    );
}

// ---------------------------------------------------------------------------
// 11. state where, init, doctor.

#[test]
fn state_where_prints_the_slug_dir_under_the_root() {
    let s = Scratch::with("claude", ONE_TASK, json!({}));
    let expected = s.root.join(".zurdo").join(slug(PRD_PATH));
    assert!(slug(PRD_PATH).starts_with("x-"));
    let out = s.zurdo(&["state", "where", PRD_PATH]);
    assert_eq!(out.code, 0, "{out}");
    let printed = PathBuf::from(out.stdout.trim());
    assert_eq!(printed, expected, "{out}");

    // From a subdirectory, the same directory (the root is found upward).
    std::fs::create_dir_all(s.root.join("sub")).expect("sub");
    let mut command = s.command(&["state", "where", "../prds/x.md"]);
    command.current_dir(s.root.join("sub"));
    let out = finish(command);
    assert_eq!(out.code, 0, "{out}");
    let printed = PathBuf::from(out.stdout.trim());
    assert!(
        printed.ends_with(format!(".zurdo/{}", slug(PRD_PATH))),
        "{out}"
    );
    // `std::path::absolute` keeps `..`, so compare the resolved paths.
    std::fs::create_dir_all(&expected).expect("mkdir");
    assert_eq!(
        printed.canonicalize().expect("exists"),
        expected.canonicalize().expect("exists")
    );

    // And it is where `zurdo run` keeps its state.
    s.script(json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}));
    assert_eq!(s.run(&[]).code, 0);
    assert!(expected.join("prd.json").is_file());

    let out = s.zurdo(&["state", "where", "prds/none.md"]);
    assert_eq!(out.code, 2, "{out}");
}

#[test]
fn init_writes_the_config_once_and_never_edits_gitignore() {
    let dir = crate::common::repo(&[(".gitignore", "target/\n")]);
    let run = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
        command.args(args).current_dir(dir.path());
        finish(command)
    };
    let config = dir.path().join(".zurdo/config.toml");
    let out = run(&["init"]);
    assert_eq!(out.code, 0, "{out}");
    let written = std::fs::read_to_string(&config).expect("config written");
    assert!(written.contains("[executor]") && written.contains("[effort_map.anthropic]"));
    assert!(out.stdout.contains("add `.zurdo/` to .gitignore"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".gitignore")).expect("gitignore"),
        "target/\n",
        "never edited"
    );
    // The bundled skills, into the executor's (anthropic's) skill directory.
    assert!(
        out.stdout
            .contains("skills: installed .claude/skills/zurdo-prd-author"),
        "{out}"
    );
    assert!(dir
        .path()
        .join(".claude/skills/zurdo-state-summary/.zurdo-managed")
        .is_file());

    // No overwrite without --force.
    std::fs::write(&config, "[executor]\nprovider = \"openai\"\n").expect("edit");
    let out = run(&["init"]);
    assert!(out.stderr.contains("--force"), "{out}");
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        "[executor]\nprovider = \"openai\"\n"
    );
    let out = run(&["init", "--force"]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(std::fs::read_to_string(&config).expect("config"), written);
    assert!(
        out.stdout
            .contains("skills: .claude/skills/zurdo-prd-author is up to date"),
        "installing again is idempotent: {out}"
    );

    // Without a .gitignore none is created; with `.zurdo/` in it, no hint.
    std::fs::remove_file(dir.path().join(".gitignore")).expect("rm");
    let out = run(&["init", "--force"]);
    assert!(out.stdout.contains("hint:"), "{out}");
    assert!(!dir.path().join(".gitignore").exists());
    std::fs::write(dir.path().join(".gitignore"), ".zurdo/\n").expect("write");
    let out = run(&["init", "--force"]);
    assert!(!out.stdout.contains("hint:"), "{out}");
}

#[test]
fn doctor_checks_the_config_and_probes_every_effort() {
    let s = Scratch::with("codex", ONE_TASK, json!({}));
    let out = s.zurdo(&["doctor", "--skip-probes"]);
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.contains("(valid)"), "{out}");
    assert!(s.invocations().is_empty(), "--skip-probes starts no CLI");

    let out = s.zurdo(&["doctor"]);
    assert_eq!(out.code, 0, "{out}");
    let probes = s.probes();
    let mut models: Vec<String> = probes.iter().map(model_arg).collect();
    models.sort();
    assert_eq!(
        models,
        ["model-high", "model-low", "model-medium"],
        "{probes:#?}"
    );
    assert!(probes.iter().all(|p| p["cli"] == "codex"));
    assert!(s.agent_calls().is_empty());
    for effort in ["low", "medium", "high"] {
        assert!(
            out.stdout
                .contains(&format!("effort {effort}: openai model-{effort}: ok")),
            "{out}"
        );
    }
    assert!(
        !s.root.join(".zurdo").join(slug(PRD_PATH)).exists(),
        "writes nothing"
    );

    s.script(json!({"models": {"model-high": "plan"}}));
    let out = s.zurdo(&["doctor"]);
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stdout.contains("model-high: FAILED"), "{out}");
    assert!(
        out.stdout.contains("not supported when using Codex"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------
// 12. The demo.

#[test]
fn the_demo_fails_attempt_one_and_passes_attempt_two() {
    let tmp = tempfile::tempdir().expect("temp");
    let dir = tmp.path().join("demo");
    let mut command = Command::new(env!("CARGO_BIN_EXE_zurdo"));
    command
        .args(["demo", "--dir"])
        .arg(&dir)
        .current_dir(tmp.path());
    for name in CLEARED {
        command.env_remove(name);
    }
    let out = finish(command);
    assert_eq!(out.code, 0, "{out}");
    let attempt1 = out.stderr.find("attempt 1/3").expect("attempt 1");
    let fail = out.stderr[attempt1..]
        .find("FAIL it greets properly")
        .expect("attempt 1 fails");
    let attempt2 = out.stderr[attempt1 + fail..]
        .find("attempt 2/3")
        .expect("attempt 2");
    assert!(
        out.stderr[attempt1 + fail + attempt2..].contains("passed on attempt 2"),
        "{out}"
    );
    assert!(out.stdout.contains("task-greeting"), "{out}");
    assert_eq!(
        std::fs::read_to_string(dir.join("greeting.txt")).expect("greeting"),
        "Hello, world!\n"
    );
    let state = dir.join(".zurdo").join(slug("prds/demo.md"));
    let retry = std::fs::read_to_string(state.join("iterations/task-greeting-2.prompt"))
        .expect("retry prompt");
    assert!(retry.starts_with("# What failed"), "{retry}");
}

/// BUG (hazard): `reconcile` kills the process group recorded by the last
/// open attempt's `agent_started` whenever *some* process group with that
/// id exists (`kill(-group, 0) == 0`), without checking it is still that
/// agent. The record can be old: the agent usually dies on its own soon
/// after its zurdo (a closed stdout), and after a reboot the numbers start
/// over, so a resume — possibly days later — SIGKILLs whatever unrelated
/// process group now has that id (another terminal's job, a session). The
/// record needs an identity check (the leader's start time from
/// /proc/<pid>/stat, or the boot id) before the kill.
#[test]
fn a_resume_does_not_kill_an_unrelated_process_group() {
    use std::os::unix::process::CommandExt;
    let s = Scratch::with(
        "claude",
        ONE_TASK,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    // The state of a kill mid-attempt 1 whose agent has since exited …
    let mut state = s.prd_json();
    state["tasks"][0]["status"] = json!("pending");
    state["tasks"][0]["attempts"] = json!(0);
    state["tasks"][0]["iterations"] = json!([]);
    crate::common::write_state(&s.state_dir().join("prd.json"), &state);
    std::fs::remove_file(s.root.join("out.txt")).expect("rm");
    // … and an unrelated process group that now has the recorded id.
    let mut bystander = Command::new("sleep")
        .arg("30")
        .process_group(0)
        .spawn()
        .expect("sleep");
    let events = s.events();
    let last = events
        .iter()
        .position(|e| e["event"] == "attempt_started")
        .expect("attempt_started");
    let mut log: String = events[..=last].iter().map(|e| format!("{e}\n")).collect();
    log.push_str(&format!(
        "{}\n",
        json!({"ts": "2026-01-01T00:00:00Z", "event": "agent_started", "task": "task-out",
               "attempt": 1, "process_group": bystander.id()})
    ));
    std::fs::write(s.state_dir().join("progress.log"), log).expect("write");

    let out = s.run(&["--no-prompt"]);
    let survived = bystander.try_wait().expect("try_wait").is_none();
    let _ = bystander.kill();
    let _ = bystander.wait();
    assert_eq!(out.code, 0, "{out}");
    assert!(
        survived,
        "the resume killed process group {} that was not its agent:\n{out}",
        bystander.id()
    );
}

// ---------------------------------------------------------------------------
// A prompt too long for one argument.

per_cli!(a_prompt_too_long_for_an_argument_arrives_on_stdin: claude, codex, copilot, gemini);

fn a_prompt_too_long_for_an_argument_arrives_on_stdin(cli: &'static str) {
    // 200 KB of Description: past the kernel's 128 KiB limit for one argument.
    let long = "Keep the whole description in mind while you work.\n".repeat(4000);
    let prd = ONE_TASK.replace(
        "Create `out.txt` holding the single line `ok`.",
        &format!("Create `out.txt` holding the single line `ok`.\n\n{long}"),
    );
    let s = Scratch::with(
        cli,
        &prd,
        json!({"attempts": [{"write": {"out.txt": "ok\n"}, "echo_prompt_to": "seen-prompt.md"}]}),
    );
    let out = s.run(&[]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(s.task("task-out")["status"], "passed");
    assert_eq!(
        s.task("task-out")["attempts"],
        1,
        "one attempt, not a spawn failure"
    );
    let seen = std::fs::read_to_string(s.root.join("seen-prompt.md")).expect("the prompt");
    let sent = std::fs::read_to_string(s.iteration_file("task-out", 1, "prompt")).expect("prompt");
    assert!(sent.len() > 200_000, "{}", sent.len());
    match cli {
        "gemini" => assert_eq!(
            seen,
            format!(
                "{sent}\n\n{}",
                zurdo_harness::agent::invoke::GEMINI_STDIN_NOTE
            )
        ),
        _ => assert_eq!(seen, sent, "{cli}: the whole prompt, exactly"),
    }
}
