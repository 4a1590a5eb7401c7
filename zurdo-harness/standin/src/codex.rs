//! Codex 0.171 (`codex exec --json … "<prompt>"`).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::argv::{self, choice, flag, many, val, ArgError, Mode, Opt, Parsed};
use super::{
    cwd, dir_arg, drive, emit, emit_raw, error_text, load_script, now_iso, now_ms, piped_stdin,
    shell_quote, spelled_wait, stdin_is_tty, Agent, Auth, Failing, Ids, Invocation, ModelStatus,
    Op, Outcome, Tokens, Tool, ToolEnd, Trouble,
};

const VERSION: &str = "0.171.0";
/// What `codex debug models` printed for codex-cli 0.171.0 (captured: one
/// model a line, `<slug> <list|hide> <api> <efforts>`, in codex's order).
const MODELS: &str = include_str!("codex-0.171.0-models.txt");
/// The DNS failure codex reports without a network (captured).
const NO_DNS: &str =
    "stream disconnected before completion: failed to lookup address information: Name does not resolve";
/// What codex repeats, for good, once its retries are spent (captured).
const WAITING: &str =
    "Reconnecting... waiting for network (Connection failed: error sending request)";
const DEFAULT_MODEL: &str = "gpt-5-codex";
const SANDBOXES: &[&str] = &["read-only", "workspace-write", "danger-full-access"];

/// `codex --help`'s options (those before `exec`).
const TOP: &[Opt] = &[
    val(&["-c", "--config"], "<key=value>"),
    val(&["--enable"], "<FEATURE>"),
    val(&["--disable"], "<FEATURE>"),
    val(&["--remote"], "<ADDR>"),
    val(&["--remote-auth-token-env"], "<ENV_VAR>"),
    flag(&["--strict-config"]),
    many(&["-i", "--image"], "<FILE>..."),
    val(&["-m", "--model"], "<MODEL>"),
    flag(&["--oss"]),
    val(&["--local-provider"], "<OSS_PROVIDER>"),
    val(&["-p", "--profile"], "<CONFIG_PROFILE_V2>"),
    choice(&["-s", "--sandbox"], "<SANDBOX_MODE>", SANDBOXES),
    flag(&["--approve-for-me"]),
    flag(&["--dangerously-bypass-approvals-and-sandbox"]),
    flag(&["--dangerously-bypass-hook-trust"]),
    val(&["-C", "--cd"], "<DIR>"),
    flag(&["--worktree"]),
    val(&["--add-dir"], "<DIR>"),
    choice(
        &["-a", "--ask-for-approval"],
        "<APPROVAL_POLICY>",
        &["untrusted", "on-failure", "on-request", "never"],
    ),
    flag(&["--search"]),
    flag(&["--no-alt-screen"]),
    flag(&["--no-daemon"]),
    flag(&["-h", "--help"]),
    flag(&["-V", "--version"]),
];

/// `codex exec --help`'s options.
const EXEC: &[Opt] = &[
    val(&["-c", "--config"], "<key=value>"),
    val(&["--enable"], "<FEATURE>"),
    val(&["--disable"], "<FEATURE>"),
    val(&["--remote"], "<ADDR>"),
    val(&["--remote-auth-token-env"], "<ENV_VAR>"),
    flag(&["--strict-config"]),
    many(&["-i", "--image"], "<FILE>..."),
    val(&["-m", "--model"], "<MODEL>"),
    flag(&["--oss"]),
    val(&["--local-provider"], "<OSS_PROVIDER>"),
    val(&["-p", "--profile"], "<CONFIG_PROFILE_V2>"),
    choice(&["-s", "--sandbox"], "<SANDBOX_MODE>", SANDBOXES),
    flag(&["--approve-for-me"]),
    flag(&["--dangerously-bypass-approvals-and-sandbox"]),
    flag(&["--dangerously-bypass-hook-trust"]),
    val(&["-C", "--cd"], "<DIR>"),
    flag(&["--worktree"]),
    val(&["--add-dir"], "<DIR>"),
    val(&["--thread-source"], "<SOURCE>"),
    choice(
        &["--cyber-access-program"],
        "<PROGRAM>",
        &["standard", "daybreak_blue", "daybreak_red"],
    ),
    flag(&["--skip-git-repo-check"]),
    flag(&["--trust"]),
    flag(&["--ephemeral"]),
    flag(&["--ignore-user-config"]),
    flag(&["--ignore-rules"]),
    val(&["--output-schema"], "<FILE>"),
    choice(&["--color"], "<COLOR>", &["always", "never", "auto"]),
    flag(&["--json"]),
    val(&["-o", "--output-last-message"], "<FILE>"),
    flag(&["-h", "--help"]),
    flag(&["-V", "--version"]),
];

const TOP_USAGE: &str = "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]";
const EXEC_USAGE: &str =
    "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]";

/// clap's wording.
fn usage_error(e: &ArgError, usage: &str) -> String {
    let shown = |o: &Opt| format!("{} {}", o.key(), o.meta);
    match e {
        ArgError::Unknown(a) => format!(
            "error: unexpected argument '{a}' found\n\n  tip: to pass '{a}' as a value, use '-- {a}'\n\n{usage}\n\nFor more information, try '--help'."
        ),
        ArgError::Missing(o) => {
            format!("error: a value is required for '{}' but none was supplied\n\nFor more information, try '--help'.", shown(o))
        }
        ArgError::BadChoice(o, v) => format!(
            "error: invalid value '{v}' for '{}'\n  [possible values: {}]\n\nFor more information, try '--help'.",
            shown(o),
            o.choices.join(", ")
        ),
    }
}

pub fn main(args: &[String]) -> u8 {
    let top = match argv::parse(
        args,
        TOP,
        Mode {
            hyphen_values: false,
            stop_at_positional: true,
        },
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{}", usage_error(&e, TOP_USAGE));
            return 2;
        }
    };
    if top.has("--version") {
        println!("codex-cli {VERSION}");
        return 0;
    }
    let sub = top.positionals.first().map(String::as_str);
    match sub {
        Some("exec" | "e") => {}
        Some("login") => return login(&top.rest),
        Some("debug") => return debug(&top.rest),
        _ if top.has("--help") => {
            println!("Codex CLI (zurdo stand-in)\n\n{TOP_USAGE}");
            return 0;
        }
        _ => {
            eprintln!("zurdo stand-in: codex without `exec` starts the interactive TUI; the stand-in imitates `codex exec` only");
            return 2;
        }
    }
    let mut p = match argv::parse(
        &top.rest,
        EXEC,
        Mode {
            hyphen_values: false,
            stop_at_positional: false,
        },
    ) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{}", usage_error(&e, EXEC_USAGE));
            return 2;
        }
    };
    let mut top = top;
    top.positionals.clear();
    p.absorb(top);
    if p.has("--help") {
        println!("Run Codex non-interactively\n\n{EXEC_USAGE}");
        return 0;
    }
    if p.has("--version") {
        println!("codex-cli {VERSION}");
        return 0;
    }
    if let Some(first) = p.positionals.first().map(String::as_str) {
        if matches!(first, "resume" | "fork" | "review" | "help") {
            eprintln!("zurdo stand-in: `codex exec {first}` is not imitated");
            return 2;
        }
    }
    if p.positionals.len() > 1 {
        let extra = &p.positionals[1];
        eprintln!("error: unexpected argument '{extra}' found\n\n{EXEC_USAGE}\n\nFor more information, try '--help'.");
        return 2;
    }
    let workdir = match p.value("--cd") {
        None => cwd(),
        Some(d) => match dir_arg(d) {
            Some(d) => d,
            None => {
                eprintln!("Error: failed to change to directory {}: No such file or directory (os error 2)", cwd().join(d).display());
                return 1;
            }
        },
    };
    let prompt = p.positionals.first().filter(|s| s.as_str() != "-").cloned();
    // A piped stdin is the prompt when there is none (or `-`), and is
    // appended as a `<stdin>` block when there is one.
    let prompt = match prompt {
        Some(prompt) if !stdin_is_tty() => {
            eprintln!("Reading additional input from stdin...");
            let extra = piped_stdin();
            Some(if extra.is_empty() {
                prompt
            } else {
                format!("{prompt}\n\n<stdin>\n{extra}\n</stdin>")
            })
        }
        Some(prompt) => Some(prompt),
        None => Some(piped_stdin()),
    };
    if !p.has("--skip-git-repo-check") && !in_git_repo(&workdir) {
        eprintln!("Not inside a trusted directory and --skip-git-repo-check was not specified.");
        return 1;
    }
    let Some(prompt) = prompt.filter(|s| !s.trim().is_empty()) else {
        eprintln!("Reading prompt from stdin...");
        eprintln!("No prompt provided via stdin.");
        return 1;
    };
    let last_message = p.value("--output-last-message").map(|f| cwd().join(f));
    if let Some(f) = &last_message {
        let _ = std::fs::write(f, "");
    }
    let model = p.value("--model").map_or_else(
        || config_value(&p, "model").unwrap_or(DEFAULT_MODEL.into()),
        str::to_string,
    );
    let inv = Invocation {
        cli: "codex",
        args: args.to_vec(),
        prompt,
        model: model.clone(),
        workdir,
    };
    let mut agent = Codex::new(&inv, &p, last_message);
    drive(&inv, &[model.as_str()], &mut agent)
}

/// A `-c key=value` override, unquoted.
fn config_value(p: &Parsed, key: &str) -> Option<String> {
    p.values("--config").into_iter().rev().find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').trim_matches('\'').to_string())
    })
}

fn in_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// `codex login status`.
fn login(args: &[String]) -> u8 {
    if args.first().map(String::as_str) != Some("status") {
        eprintln!("zurdo stand-in: only `codex login status` is imitated");
        return 2;
    }
    match load_script() {
        Ok(l) if l.script.auth == Auth::Ok => {
            eprintln!("Logged in using ChatGPT");
            0
        }
        Ok(_) => {
            eprintln!("Not logged in");
            1
        }
        Err(code) => code,
    }
}

/// `codex debug models`: the model catalog of codex-cli 0.171.0.
fn debug(args: &[String]) -> u8 {
    if args.first().map(String::as_str) != Some("models") || args.len() > 1 {
        eprintln!("zurdo stand-in: only `codex debug models` is imitated");
        return 2;
    }
    print!("{MODELS}");
    0
}

struct Codex {
    json: bool,
    /// Warn that the model's metadata is not in codex's catalog.
    unlisted: bool,
    thread: String,
    items: usize,
    may_edit: bool,
    last_message: Option<PathBuf>,
    usage: Option<Tokens>,
    model: String,
    workdir: String,
}

impl Codex {
    fn new(inv: &Invocation, p: &Parsed, last_message: Option<PathBuf>) -> Codex {
        let mut ids = Ids::new(&["codex", &inv.prompt, &inv.model]);
        let thread = ids.uuid(7);
        let sandbox = p
            .value("--sandbox")
            .map(str::to_string)
            .or_else(|| config_value(p, "sandbox_mode"));
        let may_edit = p.has("--dangerously-bypass-approvals-and-sandbox")
            || matches!(
                sandbox.as_deref(),
                Some("workspace-write" | "danger-full-access")
            );
        Codex {
            json: p.has("--json"),
            unlisted: false,
            thread,
            items: 0,
            may_edit,
            last_message,
            usage: None,
            model: inv.model.clone(),
            workdir: inv.workdir.display().to_string(),
        }
    }

    fn item_id(&mut self) -> String {
        let id = format!("item_{}", self.items);
        self.items += 1;
        id
    }

    fn begin(&mut self, inv: &Invocation) {
        if self.json {
            emit(&json!({"type": "thread.started", "thread_id": self.thread}));
            if self.unlisted {
                let id = self.item_id();
                self.completed(json!({
                    "id": id,
                    "type": "error",
                    "message": format!("Model metadata for `{}` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.", self.model),
                }));
            }
            emit(&json!({"type": "turn.started"}));
            // Real builds print tracing lines; readers must skip what is not JSON.
            emit_raw(&format!(
                "{}  WARN codex_otel::otel_provider: OpenTelemetry exporter disabled (no endpoint configured)",
                now_iso()
            ));
        } else {
            eprintln!("OpenAI Codex v{VERSION} (research preview)\n--------");
            eprintln!(
                "workdir: {}\nmodel: {}\nprovider: openai\nsession id: {}\n--------",
                self.workdir, self.model, self.thread
            );
            eprintln!("user\n{}\n", inv.prompt);
        }
    }

    /// A non-fatal `error` event (stderr without `--json`); false when
    /// nobody reads stdout any more.
    fn notice(&mut self, message: &str) -> bool {
        use std::io::Write;
        if self.json {
            let line = super::json_line(&json!({"type": "error", "message": message}));
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
        } else {
            eprintln!("{message}");
            true
        }
    }

    /// No network, as captured (codex-json-long), faster: four numbered
    /// retries on the DNS failure, the fall back to HTTPS, then `waiting
    /// for network` for good, never a `turn.failed`. It never gives up on
    /// its own (until killed, or its stdout is gone).
    fn waiting_for_network(&mut self) -> u8 {
        let pause = |ms| std::thread::sleep(std::time::Duration::from_millis(ms));
        for n in 2..=5 {
            eprintln!(
                "{} ERROR codex_api::endpoint::responses_websocket: failed to connect to Responses WebSocket stage=Unknown",
                now_iso()
            );
            if !self.notice(&format!("Reconnecting... {n}/5 ({NO_DNS})")) {
                return 1;
            }
            pause(100);
        }
        let id = self.item_id();
        self.completed(json!({
            "id": id,
            "type": "error",
            "message": format!("Falling back from WebSockets to HTTPS transport. {NO_DNS}"),
        }));
        loop {
            if !self.notice(WAITING) {
                // Nobody reads any more: end as codex does on a closed pipe.
                return 101;
            }
            pause(1000);
        }
    }

    fn fail(&mut self, message: &str) -> u8 {
        if self.json {
            emit(&json!({"type": "error", "message": message}));
            emit(&json!({"type": "turn.failed", "error": {"message": message}}));
        } else {
            eprintln!("ERROR: {message}");
        }
        1
    }

    fn completed(&mut self, item: Value) {
        if self.json {
            emit(&json!({"type": "item.completed", "item": item}));
        }
    }

    fn started(&mut self, item: Value) {
        if self.json {
            emit(&json!({"type": "item.started", "item": item}));
        }
    }

    /// Whether a reported tool call reads as a shell command.
    fn as_command(input: &Value) -> Option<String> {
        match input {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => match m.get("command") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            },
            _ => None,
        }
    }

    fn command_line(command: &str) -> String {
        format!("bash -lc {}", shell_quote(command))
    }
}

impl Agent for Codex {
    fn auth_missing(&mut self, inv: &Invocation) -> u8 {
        self.begin(inv);
        self.fail("unexpected status 401 Unauthorized: Missing bearer or basic authentication in header, url: https://api.openai.com/v1/responses")
    }

    fn bad_model(&mut self, inv: &Invocation, status: ModelStatus) -> u8 {
        self.begin(inv);
        let m = &inv.model;
        if status == ModelStatus::Plan {
            return self.fail(&format!(
                "The '{m}' model is not supported when using Codex with a ChatGPT account."
            ));
        }
        let id = self.item_id();
        self.completed(json!({
            "id": id,
            "type": "error",
            "message": format!("Model metadata for `{m}` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."),
        }));
        self.fail(&format!("unexpected status 404 Not Found: The model `{m}` does not exist or you do not have access to it."))
    }

    fn unlisted(&mut self, _inv: &Invocation) {
        self.unlisted = true;
    }

    fn offline(&mut self, inv: &Invocation) -> u8 {
        self.begin(inv);
        self.waiting_for_network()
    }

    fn start(&mut self, inv: &Invocation, _planned_steps: usize, usage: Option<Tokens>) {
        self.usage = usage;
        self.begin(inv);
    }

    fn retry(&mut self, n: u32) {
        let message = format!(
            "Reconnecting... {n}/5 (stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses))"
        );
        if self.json {
            emit(&json!({"type": "error", "message": message}));
        } else {
            eprintln!("{message}");
        }
    }

    fn denies(&self, op: &Op) -> Option<String> {
        if self.may_edit {
            return None;
        }
        match op {
            Op::Write { .. } | Op::Append { .. } | Op::Delete { .. } => {
                Some("patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings".into())
            }
            Op::Run { .. } => Some(
                "sandbox: read-only; the stand-in runs no command under the read-only sandbox (pass --dangerously-bypass-approvals-and-sandbox or -s workspace-write)"
                    .into(),
            ),
            Op::Report { .. } => None,
        }
    }

    fn tool_start(&mut self, tool: &Tool) {
        // Items are numbered when they start; file changes only complete.
        let id = self.item_id();
        match &tool.op {
            Op::Run { command } => {
                let item = json!({"id": id, "type": "command_execution", "command": Self::command_line(command), "aggregated_output": "", "status": "in_progress"});
                self.started(item);
                if !self.json {
                    eprintln!("exec\n{} in {}", Self::command_line(command), self.workdir);
                }
            }
            Op::Report { name, input, .. } => {
                let item = match Self::as_command(input) {
                    Some(c) => {
                        json!({"id": id, "type": "command_execution", "command": Self::command_line(&c), "aggregated_output": "", "status": "in_progress"})
                    }
                    None => {
                        json!({"id": id, "type": "mcp_tool_call", "server": "stand-in", "tool": name, "arguments": input, "result": null, "error": null, "status": "in_progress"})
                    }
                };
                self.started(item);
            }
            _ => {}
        }
    }

    fn tool_end(&mut self, tool: &Tool, end: &ToolEnd) {
        let id = format!("item_{}", self.items - 1);
        let status = if end.ok { "completed" } else { "failed" };
        let item = match &tool.op {
            Op::Write { path, existed, .. } | Op::Append { path, existed, .. } => json!({
                "id": id, "type": "file_change",
                "changes": [{"path": path, "kind": if *existed { "update" } else { "add" }}],
                "status": status,
            }),
            Op::Delete { path } => json!({
                "id": id, "type": "file_change", "changes": [{"path": path, "kind": "delete"}], "status": status,
            }),
            Op::Run { command } => json!({
                "id": id, "type": "command_execution", "command": Self::command_line(command),
                "aggregated_output": end.output, "exit_code": end.exit_code.unwrap_or(1),
                "status": if end.denied { "declined" } else { status },
            }),
            Op::Report {
                name,
                input,
                output,
                ..
            } => match Self::as_command(input) {
                Some(c) => json!({
                    "id": id, "type": "command_execution", "command": Self::command_line(&c),
                    "aggregated_output": output, "exit_code": i32::from(!end.ok), "status": status,
                }),
                None => json!({
                    "id": id, "type": "mcp_tool_call", "server": "stand-in", "tool": name, "arguments": input,
                    "result": if end.ok { json!({"content": [{"type": "text", "text": output}], "structured_content": null}) } else { Value::Null },
                    "error": if end.ok { Value::Null } else { json!({"message": output}) },
                    "status": status,
                }),
            },
        };
        if !self.json {
            match &tool.op {
                Op::Run { .. } => match end.exit_code {
                    Some(0) => eprintln!(" succeeded in 5ms:\n{}", end.output),
                    Some(code) => eprintln!(" exited {code} in 5ms:\n{}", end.output),
                    None => eprintln!(" declined:\n{}", end.output),
                },
                Op::Write { path, .. } | Op::Append { path, .. } | Op::Delete { path } => {
                    eprintln!(
                        "file update\n{} {}",
                        if end.ok { "M" } else { "!" },
                        path.display()
                    );
                }
                Op::Report { .. } => {}
            }
        }
        self.completed(item);
    }

    fn cannot_work(&mut self, inv: &Invocation, f: &Failing, _o: &Outcome) -> u8 {
        match f.kind {
            // openai/codex#8987.
            Trouble::Quota => self.fail("Quota exceeded. Check your plan and billing details."),
            Trouble::RateLimit => match f.resets_at {
                // openai/codex#3124, #3899.
                Some(at) => self.fail(&format!(
                    "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in {}.",
                    spelled_wait(at.saturating_sub(now_ms() / 1000))
                )),
                // openai/codex#10550.
                None => {
                    let mut ids = Ids::new(&["codex-429", &inv.prompt]);
                    let request = ids.uuid(4);
                    self.fail(&format!(
                        "exceeded retry limit, last status: 429 Too Many Requests, request id: {request}"
                    ))
                }
            },
            Trouble::Network => self.waiting_for_network(),
        }
    }

    fn finish(&mut self, _inv: &Invocation, o: &Outcome) -> u8 {
        if let Some(e) = &o.error {
            let text = error_text(
                e,
                "unexpected status 401 Unauthorized: Incorrect API key provided",
            );
            return self.fail(&text);
        }
        if !o.text.is_empty() {
            let id = self.item_id();
            self.completed(json!({"id": id, "type": "agent_message", "text": o.text}));
        }
        if let Some(f) = &self.last_message {
            let _ = std::fs::write(f, &o.text);
        }
        if self.json {
            let mut done = json!({"type": "turn.completed"});
            if let Some(u) = self.usage {
                done["usage"] = json!({
                    "input_tokens": u.input_tokens,
                    "cached_input_tokens": u.cached_input_tokens,
                    "output_tokens": u.output_tokens,
                    "reasoning_output_tokens": 0,
                });
            }
            emit(&done);
        } else {
            if !o.text.is_empty() {
                eprintln!("codex\n{}", o.text);
            }
            if let Some(u) = self.usage {
                eprintln!("tokens used\n{}", u.input_tokens + u.output_tokens);
            }
            emit_raw(&o.text);
        }
        0
    }
}
