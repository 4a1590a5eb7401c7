//! The scripted stand-in agent: `zurdo-standin <claude|codex|copilot|gemini>
//! <that CLI's own arguments>…` (or, the same through zurdo, `zurdo stand-in
//! <cli> …`) behaves like the real CLI driven unattended — same flags, same
//! traps, same event stream on stdout, same exit codes — but does what a
//! script says instead of asking a model. It knows only the CLIs' public
//! behaviour, nothing of zurdo: whatever makes a prompt special (a probe, a
//! reasoner call) is declared by the script. zurdo's bundled demo uses it
//! (with a script of its own) when no agent is installed, and zurdo's tests
//! point a provider's `command` at a two-line wrapper:
//!
//! ```sh
//! #!/bin/sh
//! exec /path/to/zurdo stand-in codex "$@"
//! ```
//!
//! It never reads stdin and ends as soon as its script is done. [`main`]
//! runs it; the [`Script`] types are the script's format, for programs that
//! write one.
//!
//! # Command lines accepted
//!
//! Each CLI's full option table is known (from its `--help`), so any real
//! flag is accepted and an unknown one is a usage error (exit 2). The
//! unattended lines (`CLI-NOTES.md` §2):
//!
//! ```text
//! claude  -p <prompt> --output-format stream-json --verbose --model M --dangerously-skip-permissions [--max-turns N] [--max-budget-usd X]
//! codex   exec --json --skip-git-repo-check -C DIR -m M --dangerously-bypass-approvals-and-sandbox [--ephemeral] [-o FILE] <prompt>
//! copilot -p <prompt> --output-format json -C DIR --model M --allow-all-tools|--allow-all|--yolo --no-ask-user [--no-auto-update] [--usage-output-file FILE]
//! gemini  -p <prompt> -o stream-json -m M --approval-mode yolo|-y --skip-trust
//! ```
//!
//! Other output formats work too (claude `text`/`json`, codex without
//! `--json`, copilot `text`, gemini `text`/`json`), as do the version flags,
//! `claude auth status` and `codex login status`. (Through `zurdo stand-in`,
//! a `--version`, `-V`, `--help` or `-h` right after the CLI's name is taken
//! by zurdo's own argument parser; claude, copilot and gemini also answer
//! `-v`, codex `exec --version`.) The working directory is
//! `-C` for codex and copilot and the process's own for claude and gemini.
//!
//! # The traps, with the real messages
//!
//! | CLI | condition | stderr | exit |
//! |---|---|---|---|
//! | claude | `--output-format stream-json` without `--verbose` | `Error: When using --print, --output-format=stream-json requires --verbose` | 1 |
//! | claude | `--dangerously-skip-permissions` or `--permission-mode bypassPermissions` as root (euid 0) without `IS_SANDBOX=1` | `--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons` | 1 |
//! | claude | `-p` without a prompt (stdin is never read) | `Error: Input must be provided either through stdin or as a prompt argument when using --print` | 1 |
//! | codex | no `.git` from the working dir up, no `--skip-git-repo-check` | `Not inside a trusted directory and --skip-git-repo-check was not specified.` | 1 |
//! | codex | no prompt (or `-`) | `Reading prompt from stdin...` / `No prompt provided via stdin.` | 1 |
//! | copilot | `-p` without `--allow-all-tools`, `--allow-all`, `--yolo` or `COPILOT_ALLOW_ALL=true` | `Error: --allow-all-tools is required for non-interactive mode …` | 1 |
//! | gemini | no `--skip-trust` and no `GEMINI_CLI_TRUST_WORKSPACE=true` | `… Gemini CLI is not running in a trusted directory. To proceed, either use --skip-trust …` | 55 |
//! | all | an unknown option, a missing or invalid value | the CLI's parser's message (Commander, clap, yargs) | 2 |
//!
//! `ZURDO_STAND_IN_EUID` overrides the effective uid the root check sees.
//! Variadic options swallow the words after them as the real parsers do
//! (`claude -p --add-dir /x "prompt"` has no prompt). Without permission to
//! act the actions are refused the CLI's way and nothing is touched: claude
//! needs `--dangerously-skip-permissions`, `--permission-mode
//! bypassPermissions|acceptEdits|auto` or `--allowedTools Bash/Write/Edit`
//! (acceptEdits covers files, not `run`); codex needs
//! `--dangerously-bypass-approvals-and-sandbox` or `-s
//! workspace-write|danger-full-access` (its default sandbox is read-only);
//! gemini needs `--approval-mode yolo` or `-y` (`auto_edit` covers files).
//!
//! # The script (`ZURDO_STAND_IN_SCRIPT=/path/to/script.json`)
//!
//! ```json
//! {
//!   "attempts": [
//!     {"write": {"src/lib.rs": "pub fn f() {}\n"}, "text": "Wrote f.", "echo_prompt_to": "/tmp/t/prompt-1.txt"},
//!     {"append": {"src/lib.rs": "pub fn g() {}\n"}, "run": "cargo fmt", "usage": {"input_tokens": 900, "output_tokens": 40}}
//!   ],
//!   "on_prompt": [{"contains": "try again", "attempt": {"text": "retrying"}}],
//!   "markers": {"probe": "probe:", "reasoner": "reason:"},
//!   "probe": {"text": "OK"},
//!   "reason": [{"contains": "diagnosis", "attempt": {"text": "a guess"}}],
//!   "models": {"gpt-9": "unknown", "opus-max": "plan", "sso-only": "unauthenticated"},
//!   "auth": "ok",
//!   "log": "invocations.jsonl"
//! }
//! ```
//!
//! Every field is optional and unknown fields are refused (typos fail loud:
//! stderr `zurdo stand-in: …`, exit 2, as for an unreadable script).
//!
//! * `attempts`: the N-th invocation that is neither a probe nor a reasoner
//!   call (N from 0, counted in `<script>.count` under an exclusive `flock`)
//!   performs `attempts[N]`; past the end the last attempt repeats; with
//!   none, a default attempt (no actions, text `Done.`).
//! * `on_prompt`: checked before `attempts`; the first rule whose `contains`
//!   occurs in the prompt supplies the attempt. The counter still advances.
//! * `markers`: `{"probe": "…", "reasoner": "…"}`, each optional (an empty
//!   one is refused like a typo): the prompt prefixes that make an
//!   invocation special. A prompt starting with the `probe` marker is a
//!   model probe, one starting with the `reasoner` marker a reasoner call
//!   (the probe wins when both match). With no markers declared no prompt
//!   is special: every invocation is an attempt. (zurdo prefixes its probes
//!   and reasoner calls; its demo and tests declare those prefixes here.)
//! * `probe`: the attempt a probe performs. A probe never consumes an
//!   attempt (probes are counted in `<script>.probes` instead). Default:
//!   text `OK`, 12 input and 1 output tokens.
//! * `reason`: rules like `on_prompt`'s for reasoner calls (a diagnosis or a
//!   lesson extraction). They never consume an attempt (counted in
//!   `<script>.reasons`); with no matching rule the reasoner answers an
//!   empty text.
//! * `models`: `"unknown"`, `"plan"` (plan-gated), `"unauthenticated"` or
//!   `"ok"`, keyed by the model named on the command line (or the CLI's
//!   default model; for claude also the full name an alias resolves to:
//!   `sonnet` → `claude-sonnet-5`, `opus` → `claude-opus-4-8`, `haiku` →
//!   `claude-haiku-4-5`, `fable` → `claude-fable-5`). Applies to probes and
//!   attempts alike, before any attempt is consumed:
//!   claude — assistant `"error":"model_not_found"` with ``There's an issue
//!   with the selected model (M). It may not exist or you may not have
//!   access to it. Run /model to pick a different model.``, result
//!   `is_error:true`, exit 1; codex — (unknown: an `item.completed` error
//!   item ``Model metadata for `M` not found…`` first) `error` +
//!   `turn.failed` (`unexpected status 404 Not Found: The model `M` does not
//!   exist or you do not have access to it.` / `The 'M' model is not
//!   supported when using Codex with a ChatGPT account.`), exit 1; copilot —
//!   stderr `Error: No supported model available: …`, exit 1, no stdout;
//!   gemini — `result` `status:"error"` with the API's 404/403 text, exit 1.
//!   `unauthenticated` behaves as `"auth": "missing"`.
//! * `auth`: `"missing"` makes every invocation fail as that CLI does when
//!   logged out (no attempt consumed): claude — init, synthetic assistant
//!   `"error":"authentication_failed"` `Not logged in · Please run /login`,
//!   result `is_error:true`, exit 1; codex — `turn.failed` `unexpected
//!   status 401 Unauthorized: …`, exit 1; copilot — stderr `Error: No
//!   authentication information found.` …, exit 1; gemini — stderr `Please
//!   set an Auth method in your ~/.gemini/settings.json …`, exit 41 (before
//!   the trust check, as the real one).
//! * `log`: a file (relative to the script's directory) that gets one JSON
//!   line per invocation: `{"cli", "args", "cwd", "workdir", "prompt",
//!   "probe", "reasoner", "attempt"}` (`probe` and `reasoner` say what the
//!   markers made of the prompt; `attempt` is the counter value, null for
//!   probes, reasoner calls and invocations refused before one was
//!   consumed).
//!
//! An attempt, every field optional, performed in this order:
//!
//! * `echo_prompt_to`: path; the prompt received is written there.
//! * `retries`: N non-fatal retry notices first (claude `system`/`api_retry`,
//!   codex `error` `Reconnecting... i/5 …`, copilot `session.warning`,
//!   gemini stderr `Attempt i failed. Retrying with backoff...`).
//! * `tool_calls`: `[{"name", "input" (any JSON), "output", "ok"}]`, only
//!   reported, as the CLI's own tool events (codex: `command_execution`
//!   when `input` is a string or has `command`, else `mcp_tool_call`).
//! * `write` (path → contents), `append` (path → text, file created when
//!   missing), `delete` (paths; directories recursively), `run` (a command
//!   or a list; `sh -c` in the working dir, stdin closed, output captured):
//!   each performed for real and reported as the CLI's tool events (a
//!   delete as an `rm -rf` shell call, except for codex) — claude
//!   `Write`/`Bash` `tool_use` + `tool_result`; codex `file_change` and
//!   `command_execution`; copilot `create`/`edit`/`bash`
//!   `tool.execution_start`/`_complete`; gemini `write_file`/
//!   `run_shell_command` `tool_use`/`tool_result`. Paths are relative to the
//!   working dir (absolute ones are used as they are); maps run in key order.
//! * `sleep_ms`: a plain sleep (a kill ends it), after the actions.
//! * `stderr`: text written to stderr.
//! * `text`: the final assistant text (default `Done.`; `""` = none at all,
//!   for canary tests). Gemini streams it as `delta` chunks, copilot as an
//!   ephemeral `assistant.message_delta` then `assistant.message`.
//! * `usage`: `{"input_tokens", "output_tokens", "cached_input_tokens"}`,
//!   input including cached (default 1200/80/0; `null` = no token counts in
//!   the stream). Claude splits it over its assistant messages (summing to
//!   the result's `usage` when the run ends normally; its `input_tokens`
//!   exclude the cached, which are `cache_read_input_tokens`); codex puts it on
//!   `turn.completed`; copilot spreads `outputTokens` over its
//!   `assistant.message`s; gemini reports it in `result.stats`.
//! * `cost_usd`: claude's `total_cost_usd` (default: $3/M input, $15/M
//!   output). The other CLIs report no cost.
//! * `error`: `"message"` or `{"kind": "auth"|"rate_limit"|"quota"|"server"|
//!   "model"|"other", "message": "…"}`, reported after the actions the CLI's
//!   way: claude synthetic assistant message with `"error"`
//!   (`authentication_failed`, `rate_limit`, `billing_error`,
//!   `server_error`, `model_not_found`, `unknown`) + result `is_error:true`;
//!   codex `error` + `turn.failed`; copilot `session.error` + result
//!   `exitCode:1`; gemini result `status:"error"`. Exit 1.
//! * `exit`: the exit status, overriding the CLI's own.
//!
//! Claude's `--max-turns N` stops after N tool steps when more remain (result
//! `error_max_turns`, exit 1); `--max-budget-usd X` turns a dearer attempt
//! into `error_max_budget_usd`. Codex `-o FILE` is created empty at start and
//! gets the last message; copilot `--usage-output-file FILE` gets a usage
//! summary.
//!
//! # Without a script
//!
//! With `ZURDO_STAND_IN_SCRIPT` unset (or empty) the stand-in acts as for an
//! empty script: every invocation performs the default attempt (no actions,
//! text `Done.`) and no counters are kept.
//!
//! # Streams
//!
//! stdout carries each CLI's own JSONL (one object a line, flushed as it
//! goes), shaped as in `CLI-NOTES.md` §3 and the captures. Codex also prints
//! one non-JSON line on stdout (a tracing warning, after `turn.started`), and
//! its usual `Reading additional input from stdin...` on stderr, so readers
//! must skip what is not JSON. Ids are deterministic; timestamps are real.

mod argv;
mod claude;
mod codex;
mod copilot;
mod gemini;
mod script;

pub use script::{
    Attempt, Auth, Commands, ErrorKind, ErrorSpec, Markers, ModelStatus, PromptRule, Script,
    Tokens, ToolCallSpec,
};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

/// The environment variable naming the script.
pub const SCRIPT_ENV: &str = "ZURDO_STAND_IN_SCRIPT";

/// Runs the stand-in for `cli` with the real CLI's `args`; returns the exit
/// status.
pub fn main(cli: &str, args: &[String]) -> u8 {
    match cli {
        "claude" => claude::main(args),
        "codex" => codex::main(args),
        "copilot" => copilot::main(args),
        "gemini" => gemini::main(args),
        other => {
            eprintln!(
                "zurdo stand-in: unknown CLI `{other}` (expected claude, codex, copilot or gemini)"
            );
            2
        }
    }
}

// ---------------------------------------------------------------------------
// What every CLI shares: the parsed invocation, the script, the engine.

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
            let _ = writeln!(f, "{line}");
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
    if status != ModelStatus::Ok {
        log(None);
        return agent.bad_model(inv, status);
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
    let code = agent.finish(inv, &outcome);
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

// ---------------------------------------------------------------------------
// Small helpers.

/// Prints one JSON line on stdout, `type` first as the real CLIs do, and
/// flushes it.
pub(crate) fn emit(v: &Value) {
    emit_raw(&json_line(v));
}

/// `v` on one line with a top-level `type` first.
pub(crate) fn json_line(v: &Value) -> String {
    match v {
        Value::Object(m) if m.contains_key("type") => {
            let mut rest = m.clone();
            let kind = rest.remove("type").unwrap_or(Value::Null);
            let tail = Value::Object(rest).to_string();
            match tail.strip_prefix('{') {
                Some("}") | None => format!("{{\"type\":{kind}}}"),
                Some(tail) => format!("{{\"type\":{kind},{tail}"),
            }
        }
        _ => v.to_string(),
    }
}

/// Prints one raw line on stdout and flushes it.
pub(crate) fn emit_raw(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Deterministic ids (seeded from the invocation), shaped like the real ones.
pub(crate) struct Ids(u64);

impl Ids {
    /// Seeds from `parts`.
    pub fn new(parts: &[&str]) -> Ids {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for p in parts {
            for b in p.bytes().chain([0xff]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        Ids(h)
    }

    /// The next 64 pseudo-random bits (splitmix64).
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A UUID of the given version.
    pub fn uuid(&mut self, version: u8) -> String {
        let a = self.next();
        let b = self.next();
        format!(
            "{:08x}-{:04x}-{:x}{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            version & 0xf,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }

    /// `n` hex digits (n ≤ 16).
    pub fn hex(&mut self, n: usize) -> String {
        let s = format!("{:016x}", self.next());
        s[..n.min(16)].to_string()
    }

    /// `n` base-62 characters.
    pub fn alnum(&mut self, n: usize) -> String {
        const ABC: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| ABC[(self.next() % 62) as usize] as char)
            .collect()
    }
}

/// Now, as `2026-11-30T02:37:26.212Z`.
pub(crate) fn now_iso() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso(d.as_secs(), d.subsec_millis())
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn iso(secs: u64, ms: u32) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The effective uid, or `ZURDO_STAND_IN_EUID` when set.
pub(crate) fn euid() -> u32 {
    if let Some(v) = std::env::var("ZURDO_STAND_IN_EUID")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return v;
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether an environment variable is set to exactly `value`.
pub(crate) fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == value)
}

/// Whether stdin is a terminal.
pub(crate) fn stdin_is_tty() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(0) == 1 }
}

/// `share` of `total` split over `parts`, the remainder on the last.
pub(crate) fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts.max(1) as u64;
    let each = total / parts;
    if index as u64 + 1 >= parts {
        total - each * (parts - 1)
    } else {
        each
    }
}

/// Quotes `s` for a POSIX shell.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The current directory, or `.`.
pub(crate) fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// A `-C` directory: absolute and normalised, or `None` when it is not a
/// directory.
pub(crate) fn dir_arg(d: &str) -> Option<PathBuf> {
    let d = cwd().join(d);
    d.is_dir().then(|| std::fs::canonicalize(&d).unwrap_or(d))
}

/// The default text for an error of `kind` when the script gives none.
pub(crate) fn error_text(e: &ErrorSpec, auth_text: &str) -> String {
    if let Some(m) = e.message() {
        return m.to_string();
    }
    match e.kind() {
        ErrorKind::Auth => auth_text.to_string(),
        ErrorKind::RateLimit => "Rate limit reached. Please try again later.".into(),
        ErrorKind::Quota => {
            "You have exceeded your quota. Check your plan and billing details.".into()
        }
        ErrorKind::Server => "Internal server error".into(),
        ErrorKind::Model => "The requested model is not available.".into(),
        ErrorKind::Other => "An unexpected error occurred.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_796_006_246, 212), "2026-11-30T02:37:26.212Z");
        assert_eq!(iso(951_782_400, 5), "2000-02-29T00:00:00.005Z");
    }

    #[test]
    fn ids_are_deterministic_and_uuid_shaped() {
        let a = Ids::new(&["claude", "p"]).uuid(4);
        assert_eq!(a, Ids::new(&["claude", "p"]).uuid(4));
        assert_ne!(a, Ids::new(&["claude", "q"]).uuid(4));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
    }

    #[test]
    fn shares_sum_to_the_total() {
        let total: u64 = (0..3).map(|i| share(100, 3, i)).sum();
        assert_eq!(total, 100);
        assert_eq!(share(7, 0, 0), 7);
    }

    #[test]
    fn type_comes_first() {
        assert_eq!(
            json_line(&json!({"z": 1, "type": "a"})),
            r#"{"type":"a","z":1}"#
        );
        assert_eq!(json_line(&json!({"type": "a"})), r#"{"type":"a"}"#);
        assert_eq!(json_line(&json!({"b": 1})), r#"{"b":1}"#);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("ls"), "ls");
        assert_eq!(shell_quote("echo 'a b'"), r"'echo '\''a b'\'''");
    }
}
