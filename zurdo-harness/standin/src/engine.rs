//! What every CLI shares: the parsed invocation, the script it follows, and
//! the engine that turns a scripted attempt into actions (files written,
//! commands run) and the events each CLI's stream reports them as.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::script::{self, *};
use crate::{now_ms, SCRIPT_ENV};

/// One parsed invocation.
pub(crate) struct Invocation {
    /// `claude`, `codex`, …
    pub cli: &'static str,
    /// The raw arguments.
    pub args: Vec<String>,
    /// The prompt.
    pub prompt: String,
    /// The model as named (or the CLI's default).
    pub model: String,
    /// The directory the agent works in.
    pub workdir: PathBuf,
}

impl Invocation {
    /// A path from a script, resolved against the working dir.
    pub fn path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.workdir.join(p)
        }
    }
}

/// The loaded script and where it lives (none without a script).
pub(crate) struct Loaded {
    pub script: Script,
    pub path: Option<PathBuf>,
}

/// Loads the script named by [`SCRIPT_ENV`], or an empty one.
pub(crate) fn load_script() -> Result<Loaded, u8> {
    match std::env::var_os(SCRIPT_ENV).filter(|v| !v.is_empty()) {
        None => Ok(Loaded {
            script: Script::default(),
            path: None,
        }),
        Some(p) => {
            let path = PathBuf::from(p);
            match Script::load(&path) {
                Ok(script) => Ok(Loaded {
                    script,
                    path: Some(path),
                }),
                Err(e) => {
                    eprintln!("zurdo stand-in: {e}");
                    Err(2)
                }
            }
        }
    }
}

/// One action the engine performs and reports.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// Create or overwrite a file.
    Write {
        path: PathBuf,
        content: String,
        existed: bool,
    },
    /// Append to a file; `content` is the whole file afterwards.
    Append {
        path: PathBuf,
        added: String,
        content: String,
        existed: bool,
    },
    /// Delete a file or directory.
    Delete { path: PathBuf },
    /// Run a shell command.
    Run { command: String },
    /// Only report a tool call.
    Report {
        name: String,
        input: Value,
        output: String,
        ok: bool,
    },
}

/// A tool call: its 1-based number and what it does.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    pub n: usize,
    pub op: Op,
}

/// How a tool call ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolEnd {
    pub ok: bool,
    pub output: String,
    pub exit_code: Option<i32>,
    /// The CLI refused it (no permission); nothing was done.
    pub denied: bool,
}

/// How an attempt ended, for the final events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub text: String,
    pub usage: Option<Tokens>,
    pub cost_usd: Option<f64>,
    pub error: Option<ErrorSpec>,
    /// Tool calls reported.
    pub steps: usize,
    /// Stopped by a turn cap with steps left.
    pub truncated: bool,
    pub elapsed_ms: u64,
    /// Files written, appended to or deleted (working-dir relative when
    /// inside it).
    pub files: Vec<String>,
    pub lines_added: u64,
    pub lines_removed: u64,
    /// Denied tool calls.
    pub denials: Vec<Tool>,
}

/// What each imitated CLI supplies to [`drive`].
pub(crate) trait Agent {
    /// Logged out (or the model needs a login): fail the CLI's way.
    fn auth_missing(&mut self, inv: &Invocation) -> u8;
    /// A check the real CLI makes after its auth check (gemini's trust).
    fn after_auth(&mut self, _inv: &Invocation) -> Option<u8> {
        None
    }
    /// An unknown or plan-gated model.
    fn bad_model(&mut self, inv: &Invocation, status: ModelStatus) -> u8;
    /// A model the CLI's catalog does not list: warn the CLI's way (if it
    /// does) when the stream starts, and go on.
    fn unlisted(&mut self, _inv: &Invocation) {}
    /// No network to the vendor: do what the CLI does then (in less time);
    /// codex never returns (it waits for the network until it is killed).
    fn offline(&mut self, inv: &Invocation) -> u8;
    /// The first events.
    fn start(&mut self, inv: &Invocation, planned_steps: usize, usage: Option<Tokens>);
    /// One non-fatal retry notice.
    fn retry(&mut self, n: u32);
    /// Why `op` may not be done, if it may not.
    fn denies(&self, op: &Op) -> Option<String>;
    /// The most tool steps it allows.
    fn max_steps(&self) -> Option<usize> {
        None
    }
    /// A tool call begins.
    fn tool_start(&mut self, tool: &Tool);
    /// A tool call ended.
    fn tool_end(&mut self, tool: &Tool, end: &ToolEnd);
    /// The last events; returns the exit status.
    fn finish(&mut self, inv: &Invocation, outcome: &Outcome) -> u8;
    /// Whether the CLI meets this failure before any turn, as it meets a
    /// missing login (which every CLI checks first): then nothing of the
    /// attempt is done.
    fn fails_at_start(&self, _trouble: Trouble) -> bool {
        false
    }
    /// The CLI cannot work (not `auth`, not `crash`): its own failure,
    /// after the attempt's actions unless it fails at start; returns the
    /// exit status.
    fn cannot_work(&mut self, inv: &Invocation, failing: &Failing, outcome: &Outcome) -> u8;
}

/// A [`FailKind`] a CLI that runs answers in its own way (`auth` and
/// `crash` are the engine's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trouble {
    /// Out of quota or credits.
    Quota,
    /// Rate limited.
    RateLimit,
    /// No network.
    Network,
}

/// An attempt's `fail` a CLI answers in its own way, resolved against now.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Failing {
    pub kind: Trouble,
    /// When a rate limit resets, in Unix seconds.
    pub resets_at: Option<u64>,
}

impl Failing {
    /// `None` for `auth` and `crash`.
    fn of(fail: &Fail) -> Option<Failing> {
        let kind = match fail.kind() {
            FailKind::Quota => Trouble::Quota,
            FailKind::RateLimit => Trouble::RateLimit,
            FailKind::Network => Trouble::Network,
            FailKind::Auth | FailKind::Crash => return None,
        };
        Some(Failing {
            kind,
            resets_at: fail.resets_in_s().map(|s| now_ms() / 1000 + s),
        })
    }
}

/// Dies as a crashing CLI does: of a segmentation fault (no core file).
fn crash() -> u8 {
    let _ = std::io::stdout().flush();
    // SAFETY: setrlimit with a valid rlimit, then a signal to this very
    // process; neither touches memory Rust owns.
    unsafe {
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(libc::SIGSEGV, libc::SIG_DFL);
        libc::kill(libc::getpid(), libc::SIGSEGV);
    }
    139
}

/// Everything after argument parsing: the script, the log, auth, the model,
/// the counter, then the attempt.
pub(crate) fn drive(inv: &Invocation, model_names: &[&str], agent: &mut dyn Agent) -> u8 {
    let loaded = match load_script() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let script = &loaded.script;
    let probe = script.markers.is_probe(&inv.prompt);
    let reasoner = script.markers.is_reasoner(&inv.prompt);
    let status = script.model_status(model_names);
    let log = |index: Option<u64>| {
        let (Some(log), Some(path)) = (&script.log, &loaded.path) else {
            return;
        };
        let log = if log.is_absolute() {
            log.clone()
        } else {
            path.parent().unwrap_or(Path::new(".")).join(log)
        };
        let line = json!({
            "cli": inv.cli,
            "args": inv.args,
            "cwd": std::env::current_dir().ok(),
            "workdir": inv.workdir,
            "prompt": inv.prompt,
            "probe": probe,
            "reasoner": reasoner,
            "attempt": index,
        });
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
        {
            // One write of the whole line: invocations running at once (a
            // run's probes) append to the same log without interleaving.
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    };
    if script.auth == Auth::Missing || status == ModelStatus::Unauthenticated {
        log(None);
        return agent.auth_missing(inv);
    }
    if let Some(code) = agent.after_auth(inv) {
        log(None);
        return code;
    }
    match status {
        ModelStatus::Ok => {}
        ModelStatus::Unlisted => agent.unlisted(inv),
        _ => {
            log(None);
            return agent.bad_model(inv, status);
        }
    }
    if script.network == Network::Down {
        log(None);
        return agent.offline(inv);
    }
    let index = match &loaded.path {
        Some(path) if probe => {
            let _ = script::bump_counter(&script::sidecar(path, "probes"));
            None
        }
        Some(path) if reasoner => {
            let _ = script::bump_counter(&script::sidecar(path, "reasons"));
            None
        }
        Some(path) => match script::bump_counter(&script::sidecar(path, "count")) {
            Ok(n) => Some(n),
            Err(e) => {
                eprintln!(
                    "zurdo stand-in: cannot count invocations next to {}: {e}",
                    path.display()
                );
                return 2;
            }
        },
        None => None,
    };
    log(index);
    let attempt = if probe {
        script.probe_attempt()
    } else if reasoner {
        script.reasoner_attempt(&inv.prompt)
    } else {
        script.attempt_for(index.unwrap_or(0), &inv.prompt)
    };
    perform(inv, &attempt, probe, agent)
}

/// Performs `attempt`, reporting through `agent`.
pub(crate) fn perform(
    inv: &Invocation,
    attempt: &Attempt,
    probe: bool,
    agent: &mut dyn Agent,
) -> u8 {
    let started = Instant::now();
    if let Some(to) = &attempt.echo_prompt_to {
        let to = inv.path(to);
        if let Some(parent) = to.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&to, &inv.prompt) {
            eprintln!(
                "zurdo stand-in: cannot echo the prompt to {}: {e}",
                to.display()
            );
        }
    }
    let fail = attempt.fail.as_ref();
    // Every CLI checks its login first: nothing of the attempt is done.
    if fail.is_some_and(|f| f.kind() == FailKind::Auth) {
        let code = agent.auth_missing(inv);
        return attempt.exit.unwrap_or(code);
    }
    let crashes = fail.is_some_and(|f| f.kind() == FailKind::Crash);
    let failing = fail.and_then(Failing::of);
    if let Some(f) = failing.filter(|f| agent.fails_at_start(f.kind)) {
        let code = agent.cannot_work(inv, &f, &Outcome::default());
        return attempt.exit.unwrap_or(code);
    }
    let ops = plan(inv, attempt);
    let cap = agent.max_steps().unwrap_or(usize::MAX);
    let planned = ops.len().min(cap);
    let usage = match attempt.usage {
        None => Some(if probe {
            Tokens::PROBE
        } else {
            Tokens::ATTEMPT
        }),
        Some(u) => u,
    };
    agent.start(inv, planned, usage);
    for n in 1..=attempt.retries {
        agent.retry(n);
    }
    let mut outcome = Outcome {
        usage,
        cost_usd: attempt.cost_usd,
        error: attempt.error.clone(),
        ..Outcome::default()
    };
    for (i, op) in ops.into_iter().enumerate() {
        if i >= cap {
            outcome.truncated = true;
            break;
        }
        let tool = Tool { n: i + 1, op };
        agent.tool_start(&tool);
        let end = match agent.denies(&tool.op) {
            Some(why) => {
                outcome.denials.push(tool.clone());
                ToolEnd {
                    ok: false,
                    output: why,
                    exit_code: None,
                    denied: true,
                }
            }
            None => act(inv, &tool.op, &mut outcome),
        };
        agent.tool_end(&tool, &end);
        outcome.steps += 1;
    }
    if attempt.sleep_ms > 0 {
        std::thread::sleep(Duration::from_millis(attempt.sleep_ms));
    }
    if let Some(text) = &attempt.stderr {
        eprint!("{text}");
        if !text.ends_with('\n') {
            eprintln!();
        }
    }
    outcome.text =
        attempt
            .text
            .clone()
            .unwrap_or_else(|| if probe { "OK".into() } else { "Done.".into() });
    outcome.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let code = match failing {
        _ if crashes => crash(),
        Some(f) => agent.cannot_work(inv, &f, &outcome),
        None => agent.finish(inv, &outcome),
    };
    attempt.exit.unwrap_or(code)
}

/// The attempt's tool calls, in order.
fn plan(inv: &Invocation, attempt: &Attempt) -> Vec<Op> {
    let mut ops = Vec::new();
    for t in &attempt.tool_calls {
        ops.push(Op::Report {
            name: t.name.clone(),
            input: t.input.clone(),
            output: t.output.clone(),
            ok: t.ok,
        });
    }
    for (p, content) in &attempt.write {
        let path = inv.path(Path::new(p));
        ops.push(Op::Write {
            existed: path.exists(),
            path,
            content: content.clone(),
        });
    }
    for (p, added) in &attempt.append {
        let path = inv.path(Path::new(p));
        let before = std::fs::read_to_string(&path).ok();
        ops.push(Op::Append {
            existed: before.is_some(),
            content: format!("{}{added}", before.unwrap_or_default()),
            path,
            added: added.clone(),
        });
    }
    for p in &attempt.delete {
        ops.push(Op::Delete {
            path: inv.path(Path::new(p)),
        });
    }
    for c in attempt.run.list() {
        ops.push(Op::Run { command: c });
    }
    ops
}

/// Does `op` for real.
fn act(inv: &Invocation, op: &Op, outcome: &mut Outcome) -> ToolEnd {
    let mut touched = |path: &Path, added: u64, removed: u64| {
        let shown = path
            .strip_prefix(&inv.workdir)
            .unwrap_or(path)
            .display()
            .to_string();
        if !outcome.files.contains(&shown) {
            outcome.files.push(shown);
        }
        outcome.lines_added += added;
        outcome.lines_removed += removed;
    };
    let done = |r: std::io::Result<()>, ok_text: String| match r {
        Ok(()) => ToolEnd {
            ok: true,
            output: ok_text,
            ..ToolEnd::default()
        },
        Err(e) => ToolEnd {
            ok: false,
            output: e.to_string(),
            ..ToolEnd::default()
        },
    };
    match op {
        Op::Write {
            path,
            content,
            existed,
        } => {
            let removed = if *existed {
                lines(&std::fs::read_to_string(path).unwrap_or_default())
            } else {
                0
            };
            let r = write_file(path, content);
            if r.is_ok() {
                touched(path, lines(content), removed);
            }
            let text = if *existed {
                format!("The file {} has been updated successfully.", path.display())
            } else {
                format!("File created successfully at: {}", path.display())
            };
            done(r, text)
        }
        Op::Append {
            path,
            added,
            content,
            ..
        } => {
            let r = write_file(path, content);
            if r.is_ok() {
                touched(path, lines(added), 0);
            }
            done(
                r,
                format!("The file {} has been updated successfully.", path.display()),
            )
        }
        Op::Delete { path } => {
            let removed = lines(&std::fs::read_to_string(path).unwrap_or_default());
            let r = if path.is_dir() {
                std::fs::remove_dir_all(path)
            } else {
                std::fs::remove_file(path)
            };
            if r.is_ok() {
                touched(path, 0, removed);
            }
            done(r, String::new())
        }
        Op::Run { command } => {
            let out = Command::new("sh")
                .arg("-c")
                .arg(command)
                .current_dir(&inv.workdir)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output();
            match out {
                Ok(o) => {
                    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
                    text.push_str(&String::from_utf8_lossy(&o.stderr));
                    let code = o.status.code().unwrap_or(-1);
                    ToolEnd {
                        ok: code == 0,
                        output: text,
                        exit_code: Some(code),
                        denied: false,
                    }
                }
                Err(e) => ToolEnd {
                    ok: false,
                    output: e.to_string(),
                    exit_code: Some(127),
                    denied: false,
                },
            }
        }
        Op::Report { output, ok, .. } => ToolEnd {
            ok: *ok,
            output: output.clone(),
            ..ToolEnd::default()
        },
    }
}

fn write_file(path: &Path, content: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content)
}

fn lines(text: &str) -> u64 {
    text.lines().count() as u64
}
