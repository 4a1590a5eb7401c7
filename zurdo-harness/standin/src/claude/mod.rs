//! Claude Code 2.1.197 (`claude -p … --output-format stream-json --verbose`).

use serde_json::{json, Value};

mod options;

use options::{usage_error, OPTIONS, TOOLS};

use super::argv::{self, Parsed};
use super::{
    clock12, cwd, drive, emit, emit_raw, env_is, error_text, euid, load_script, piped_stdin, share,
    shell_quote, Agent, Auth, ErrorKind, Failing, Ids, Invocation, ModelStatus, Op, Outcome,
    Tokens, Tool, ToolEnd, Trouble,
};

const VERSION: &str = "2.1.197";
const NOT_LOGGED_IN: &str = "Not logged in · Please run /login";

pub fn main(args: &[String]) -> u8 {
    if args.first().map(String::as_str) == Some("auth") {
        return auth(&args[1..]);
    }
    let p = match argv::front(args, OPTIONS, usage_error, &format!("{VERSION} (Claude Code)"), "Usage: claude [options] [command] [prompt]\n\nClaude Code (zurdo stand-in) - use -p/--print for non-interactive output") {
        Ok(p) => p,
        Err(code) => return code,
    };
    if p.positionals.len() > 1 {
        eprintln!(
            "error: too many arguments. Expected 1 argument but got {}.",
            p.positionals.len()
        );
        return 2;
    }
    if !p.has("--print") {
        eprintln!("zurdo stand-in: claude without -p/--print starts an interactive session; the stand-in imitates print mode only");
        return 2;
    }
    let format = match p.value("--output-format").unwrap_or("text") {
        "json" => Format::Json,
        "stream-json" => Format::Stream,
        _ => Format::Text,
    };
    if format == Format::Stream && !p.has("--verbose") {
        eprintln!("Error: When using --print, --output-format=stream-json requires --verbose");
        return 1;
    }
    let mode = p.value("--permission-mode").unwrap_or("default");
    let bypass = p.has("--dangerously-skip-permissions") || mode == "bypassPermissions";
    if bypass
        && euid() == 0
        && !env_is("IS_SANDBOX", "1")
        && std::env::var_os("CLAUDE_CODE_BUBBLEWRAP").is_none()
    {
        eprintln!("--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons");
        return 1;
    }
    // With no prompt argument, a piped stdin is the prompt.
    let prompt = match p.positionals.first().filter(|s| !s.is_empty()) {
        Some(prompt) => prompt.clone(),
        None => piped_stdin(),
    };
    if prompt.trim().is_empty() {
        eprintln!("Error: Input must be provided either through stdin or as a prompt argument when using --print");
        return 1;
    }
    let prompt = &prompt;
    let max_turns = match p.value("--max-turns").map(str::parse::<usize>) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(_)) => {
            eprintln!("error: option '--max-turns <turns>' argument is not a number");
            return 2;
        }
    };
    let named = p.value("--model").map(str::to_string);
    let (init_model, model) = resolve(named.as_deref());
    let inv = Invocation {
        cli: "claude",
        args: args.to_vec(),
        prompt: prompt.clone(),
        model: named.clone().unwrap_or_else(|| init_model.clone()),
        workdir: cwd(),
    };
    let mut agent = Claude::new(
        &inv,
        &p,
        format,
        bypass,
        init_model,
        model.clone(),
        max_turns,
    );
    let names: Vec<&str> = [inv.model.as_str(), model.as_str()].into_iter().collect();
    drive(&inv, &names, &mut agent)
}

/// `claude auth status`.
fn auth(args: &[String]) -> u8 {
    if args.first().map(String::as_str) != Some("status") {
        eprintln!("zurdo stand-in: only `claude auth status` is imitated");
        return 2;
    }
    let logged_in = match load_script() {
        Ok(l) => l.script.auth == Auth::Ok,
        Err(code) => return code,
    };
    let v = json!({
        "loggedIn": logged_in,
        "authMethod": if logged_in { "claude.ai" } else { "none" },
        "apiProvider": "firstParty",
    });
    println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    u8::from(!logged_in)
}

/// (the model init shows, the model messages carry).
fn resolve(named: Option<&str>) -> (String, String) {
    let full = match named {
        None => return ("claude-opus-4-8[1m]".into(), "claude-opus-4-8".into()),
        Some("sonnet") => "claude-sonnet-5",
        Some("opus") => "claude-opus-4-8",
        Some("haiku") => "claude-haiku-4-5",
        Some("fable") => "claude-fable-5",
        Some(other) => other,
    };
    (full.to_string(), full.trim_end_matches("[1m]").to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Stream,
}

struct Claude {
    format: Format,
    ids: Ids,
    session: String,
    cwd: String,
    init_model: String,
    model: String,
    permission_mode: String,
    api_key_source: &'static str,
    edits_ok: bool,
    bash_ok: bool,
    max_turns: Option<usize>,
    max_budget: Option<(f64, String)>,
    planned: usize,
    usage: Option<Tokens>,
    messages: usize,
    tool_ids: Vec<String>,
}

impl Claude {
    /// The ten `api_retry` notices of a CLI with no network, `pause_ms`
    /// apart.
    fn retries(&mut self, pause_ms: u64) {
        for n in 1..=10 {
            self.retry(n);
            std::thread::sleep(std::time::Duration::from_millis(pause_ms));
        }
    }

    fn new(
        inv: &Invocation,
        p: &Parsed,
        format: Format,
        bypass: bool,
        init_model: String,
        model: String,
        max_turns: Option<usize>,
    ) -> Claude {
        let mut ids = Ids::new(&["claude", &inv.prompt, &inv.model]);
        let session = ids.uuid(4);
        let mode = p.value("--permission-mode").unwrap_or("default");
        let allowed: Vec<&str> = p
            .values("--allowedTools")
            .into_iter()
            .flat_map(|v| v.split([',', ' ']))
            .collect();
        let allows = |tool: &str| {
            allowed
                .iter()
                .any(|a| *a == tool || a.starts_with(&format!("{tool}(")))
        };
        let edits_ok = bypass
            || matches!(mode, "acceptEdits" | "auto")
            || allows("Write")
            || allows("Edit")
            || allows("MultiEdit");
        let bash_ok = bypass || mode == "auto" || allows("Bash");
        Claude {
            format,
            ids,
            session,
            cwd: inv.workdir.display().to_string(),
            init_model,
            model,
            permission_mode: if bypass {
                "bypassPermissions".into()
            } else {
                mode.to_string()
            },
            api_key_source: if std::env::var_os("ANTHROPIC_API_KEY").is_some() {
                "ANTHROPIC_API_KEY"
            } else {
                "none"
            },
            edits_ok,
            bash_ok,
            max_turns,
            max_budget: p
                .value("--max-budget-usd")
                .and_then(|v| v.parse().ok().map(|x| (x, v.to_string()))),
            planned: 0,
            usage: None,
            messages: 0,
            tool_ids: Vec::new(),
        }
    }

    fn stream(&self) -> bool {
        self.format == Format::Stream
    }

    fn init(&mut self) {
        if !self.stream() {
            return;
        }
        let uuid = self.ids.uuid(4);
        emit(&json!({
            "type": "system",
            "subtype": "init",
            "cwd": self.cwd,
            "session_id": self.session,
            "tools": TOOLS,
            "mcp_servers": [],
            "model": self.init_model,
            "permissionMode": self.permission_mode,
            "slash_commands": ["debug", "code-review", "simplify", "clear", "compact", "config", "context", "init", "review", "security-review", "usage"],
            "apiKeySource": self.api_key_source,
            "claude_code_version": VERSION,
            "output_style": "default",
            "agents": ["claude", "Explore", "general-purpose", "Plan", "statusline-setup"],
            "skills": ["debug", "code-review", "simplify"],
            "plugins": [],
            "uuid": uuid,
            "fast_mode_state": "off",
        }));
    }

    /// The usage of the next assistant message.
    fn message_usage(&mut self) -> Value {
        let parts = self.planned + 1;
        let i = self.messages;
        self.messages += 1;
        match self.usage {
            None => Value::Null,
            Some(u) => json!({
                "input_tokens": share(u.uncached(), parts, i),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": share(u.cached_input_tokens, parts, i),
                "output_tokens": share(u.output_tokens, parts, i),
                "service_tier": "standard",
            }),
        }
    }

    fn assistant(&mut self, content: Value, stop_reason: &str) {
        let usage = self.message_usage();
        if !self.stream() {
            return;
        }
        let id = format!("msg_01{}", self.ids.alnum(22));
        let uuid = self.ids.uuid(4);
        let mut message = json!({
            "id": id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": null,
        });
        if !usage.is_null() {
            message["usage"] = usage;
        }
        emit(&json!({
            "type": "assistant",
            "message": message,
            "parent_tool_use_id": null,
            "session_id": self.session,
            "uuid": uuid,
        }));
    }

    /// A synthetic assistant message carrying an API error.
    fn synthetic(&mut self, text: &str, error: &str) {
        if !self.stream() {
            return;
        }
        let id = self.ids.uuid(4);
        let uuid = self.ids.uuid(4);
        emit(&json!({
            "type": "assistant",
            "message": {
                "id": id,
                "container": null,
                "model": "<synthetic>",
                "role": "assistant",
                "stop_details": null,
                "stop_reason": "stop_sequence",
                "stop_sequence": "",
                "type": "message",
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
                "content": [{"type": "text", "text": text}],
                "context_management": null,
            },
            "parent_tool_use_id": null,
            "session_id": self.session,
            "uuid": uuid,
            "error": error,
        }));
    }

    /// The result line (or, in text mode, the text); returns the exit code.
    fn result(&mut self, r: ResultLine) -> u8 {
        let uuid = self.ids.uuid(4);
        let mut v = json!({
            "type": "result",
            "subtype": r.subtype,
            "is_error": r.is_error,
            "api_error_status": r.api_error_status,
            "duration_ms": r.duration_ms,
            "duration_api_ms": if r.turns_used_api { r.duration_ms.saturating_sub(r.duration_ms / 10) } else { 0 },
            "num_turns": r.num_turns,
        });
        match &r.errors {
            Some(errors) => v["errors"] = json!(errors),
            None => v["result"] = json!(r.text),
        }
        v["stop_reason"] = json!(r.stop_reason);
        v["session_id"] = json!(self.session);
        v["total_cost_usd"] = json!(r.cost);
        match r.usage {
            Some(u) => {
                v["usage"] = json!({
                    "input_tokens": u.uncached(),
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": u.cached_input_tokens,
                    "output_tokens": u.output_tokens,
                    "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                    "service_tier": "standard",
                });
                let mut model_usage = serde_json::Map::new();
                model_usage.insert(
                    self.model.clone(),
                    json!({
                        "inputTokens": u.uncached(),
                        "outputTokens": u.output_tokens,
                        "cacheReadInputTokens": u.cached_input_tokens,
                        "cacheCreationInputTokens": 0,
                        "webSearchRequests": 0,
                        "costUSD": r.cost,
                        "contextWindow": 200_000,
                        "maxOutputTokens": 64_000,
                    }),
                );
                v["modelUsage"] = Value::Object(model_usage);
            }
            None if r.zero_usage => {
                v["usage"] = json!({"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0});
                v["modelUsage"] = json!({});
            }
            None => {}
        }
        v["permission_denials"] = json!(r.denials);
        v["terminal_reason"] = json!(r.terminal_reason);
        v["fast_mode_state"] = json!("off");
        v["uuid"] = json!(uuid);
        match self.format {
            Format::Text => {
                let text = match &r.errors {
                    Some(errors) => format!("Error: {}", errors.join("; ")),
                    None => r.text.clone(),
                };
                emit_raw(&text);
            }
            _ => emit(&v),
        }
        u8::from(r.is_error)
    }

    /// A turn that ends on an API error: the synthetic assistant message
    /// carrying it, then the `is_error` result.
    fn api_error(&mut self, mut line: ResultLine, text: &str, code: &str, status: Value) -> u8 {
        self.synthetic(text, code);
        line.is_error = true;
        line.api_error_status = status;
        line.text = text.to_string();
        line.stop_reason = "stop_sequence";
        line.terminal_reason = "api_error";
        self.result(line)
    }

    /// The result line an attempt ending now would write.
    fn result_of(&self, o: &Outcome) -> ResultLine {
        ResultLine {
            subtype: "success",
            duration_ms: o.elapsed_ms.max(1),
            turns_used_api: true,
            num_turns: o.steps + 1,
            stop_reason: "end_turn",
            terminal_reason: "completed",
            cost: o.cost_usd.unwrap_or(0.0),
            usage: o.usage,
            ..ResultLine::default()
        }
    }

    /// A run that fails at its first API call (not logged in, bad model).
    fn api_failure(&mut self, text: &str, error: &str, status: Value) -> u8 {
        self.init();
        self.synthetic(text, error);
        self.result(ResultLine {
            subtype: "success",
            is_error: true,
            api_error_status: status,
            num_turns: 1,
            text: text.to_string(),
            stop_reason: "stop_sequence",
            terminal_reason: "completed",
            zero_usage: true,
            ..ResultLine::default()
        })
    }

    fn tool_input(op: &Op) -> (String, Value) {
        match op {
            Op::Write { path, content, .. } | Op::Append { path, content, .. } => (
                "Write".into(),
                json!({"file_path": path, "content": content}),
            ),
            Op::Delete { path } => (
                "Bash".into(),
                json!({"command": format!("rm -rf {}", shell_quote(&path.display().to_string())), "description": "Delete the file"}),
            ),
            Op::Run { command } => (
                "Bash".into(),
                json!({"command": command, "description": "Run the command"}),
            ),
            Op::Report { name, input, .. } => (name.clone(), input.clone()),
        }
    }
}

#[derive(Default)]
struct ResultLine {
    subtype: &'static str,
    is_error: bool,
    api_error_status: Value,
    duration_ms: u64,
    turns_used_api: bool,
    num_turns: usize,
    text: String,
    errors: Option<Vec<String>>,
    stop_reason: &'static str,
    terminal_reason: &'static str,
    cost: f64,
    usage: Option<Tokens>,
    zero_usage: bool,
    denials: Vec<Value>,
}

impl Agent for Claude {
    fn auth_missing(&mut self, _inv: &Invocation) -> u8 {
        self.api_key_source = "none";
        self.api_failure(NOT_LOGGED_IN, "authentication_failed", Value::Null)
    }

    fn bad_model(&mut self, _inv: &Invocation, _status: ModelStatus) -> u8 {
        let text = format!(
            "There's an issue with the selected model ({}). It may not exist or you may not have access to it. Run /model to pick a different model.",
            self.model
        );
        self.api_failure(&text, "model_not_found", json!(404))
    }

    fn offline(&mut self, _inv: &Invocation) -> u8 {
        // As captured with a key and no network (claude-fakekey-long): ten
        // `api_retry` events without an HTTP status, then the API error;
        // 0.2 s apart instead of backing off to 40 s.
        self.init();
        self.retries(200);
        self.api_failure(
            "API Error: Unable to connect to API (ConnectionRefused)",
            "server_error",
            Value::Null,
        )
    }

    fn start(&mut self, _inv: &Invocation, planned_steps: usize, usage: Option<Tokens>) {
        self.planned = planned_steps;
        self.usage = usage;
        self.init();
    }

    fn retry(&mut self, n: u32) {
        if !self.stream() {
            return;
        }
        let uuid = self.ids.uuid(4);
        emit(&json!({
            "type": "system",
            "subtype": "api_retry",
            "attempt": n,
            "max_retries": 10,
            "retry_delay_ms": 500.0 * f64::from(2u32.saturating_pow(n.saturating_sub(1).min(16))),
            "error_status": null,
            "error": "unknown",
            "session_id": self.session,
            "uuid": uuid,
        }));
    }

    fn denies(&self, op: &Op) -> Option<String> {
        match op {
            Op::Write { path, .. } | Op::Append { path, .. } if !self.edits_ok => Some(format!(
                "Claude requested permissions to write to {}, but you haven't granted it yet.",
                path.display()
            )),
            Op::Delete { .. } | Op::Run { .. } if !self.bash_ok => Some(
                "Claude requested permissions to use Bash, but you haven't granted it yet.".into(),
            ),
            _ => None,
        }
    }

    fn max_steps(&self) -> Option<usize> {
        self.max_turns
    }

    fn tool_start(&mut self, tool: &Tool) {
        let id = format!("toolu_01{}", self.ids.alnum(22));
        let (name, input) = Self::tool_input(&tool.op);
        self.assistant(
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            "tool_use",
        );
        self.tool_ids.push(id);
    }

    fn tool_end(&mut self, tool: &Tool, end: &ToolEnd) {
        let id = self.tool_ids.last().cloned().unwrap_or_default();
        if !self.stream() {
            return;
        }
        let content = match (end.exit_code, end.ok) {
            (Some(code), false) if !end.denied => format!("Exit code {code}\n{}", end.output),
            _ => end.output.clone(),
        };
        let result = if end.denied {
            json!(format!("Error: {}", end.output))
        } else {
            match &tool.op {
                Op::Write {
                    path,
                    content,
                    existed,
                }
                | Op::Append {
                    path,
                    content,
                    existed,
                    ..
                } => json!({
                    "type": if *existed { "update" } else { "create" },
                    "filePath": path,
                    "content": content,
                    "structuredPatch": [],
                }),
                Op::Delete { .. } | Op::Run { .. } => json!({
                    "stdout": end.output,
                    "stderr": "",
                    "interrupted": false,
                    "isImage": false,
                }),
                Op::Report { output, .. } => json!(output),
            }
        };
        let uuid = self.ids.uuid(4);
        emit(&json!({
            "type": "user",
            "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": content, "is_error": !end.ok}]},
            "parent_tool_use_id": null,
            "session_id": self.session,
            "uuid": uuid,
            "tool_use_result": result,
        }));
    }

    fn cannot_work(&mut self, _inv: &Invocation, f: &Failing, o: &Outcome) -> u8 {
        let line = self.result_of(o);
        match f.kind {
            // CLI-NOTES §5 (cited): result api_error_status 429.
            Trouble::Quota => self.api_error(
                line,
                "You've hit your monthly spend limit. Switch to another model to continue.",
                "billing_error",
                json!(429),
            ),
            Trouble::RateLimit => match f.resets_at {
                Some(at) => {
                    // The stream's own reset time (desplega-ai/agent-swarm#508),
                    // then the text (anthropics/claude-code#23236).
                    if self.stream() {
                        let uuid = self.ids.uuid(4);
                        emit(&json!({
                            "type": "rate_limit_event",
                            "rate_limit_info": {"status": "rejected", "resetsAt": at, "rateLimitType": "five_hour", "overageStatus": "rejected", "isUsingOverage": false},
                            "uuid": uuid,
                            "session_id": self.session,
                        }));
                    }
                    let text = format!("You've hit your limit · resets {} (UTC)", clock12(at));
                    self.api_error(line, &text, "rate_limit", json!(429))
                }
                // anthropics/claude-code#6119.
                None => self.api_error(
                    line,
                    r#"API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}"#,
                    "rate_limit",
                    json!(429),
                ),
            },
            // real-runs/claude-fakekey-long: ten retries (0.5 s to 40 s
            // apart there), then ConnectionRefused.
            Trouble::Network => {
                self.retries(300);
                self.api_error(
                    line,
                    "API Error: Unable to connect to API (ConnectionRefused)",
                    "server_error",
                    Value::Null,
                )
            }
        }
    }

    fn finish(&mut self, _inv: &Invocation, o: &Outcome) -> u8 {
        let cost = o.cost_usd.unwrap_or_else(|| {
            o.usage.map_or(0.0, |u| {
                (u.uncached() as f64 * 3.0
                    + u.cached_input_tokens as f64 * 0.3
                    + u.output_tokens as f64 * 15.0)
                    / 1e6
            })
        });
        let denials: Vec<Value> = o
            .denials
            .iter()
            .map(|t| {
                let id = self.tool_ids.get(t.n - 1).cloned().unwrap_or_default();
                let (name, input) = Self::tool_input(&t.op);
                json!({"tool_name": name, "tool_use_id": id, "tool_input": input})
            })
            .collect();
        let mut line = ResultLine {
            subtype: "success",
            duration_ms: o.elapsed_ms.max(1),
            turns_used_api: true,
            num_turns: o.steps + 1,
            stop_reason: "end_turn",
            terminal_reason: "completed",
            cost,
            usage: o.usage,
            denials,
            ..ResultLine::default()
        };
        if o.truncated {
            let n = self.max_turns.unwrap_or(o.steps);
            line.subtype = "error_max_turns";
            line.is_error = true;
            line.num_turns = o.steps;
            line.errors = Some(vec![format!("Reached maximum number of turns ({n})")]);
            line.stop_reason = "tool_use";
            line.terminal_reason = "max_turns";
            return self.result(line);
        }
        if let Some(e) = &o.error {
            let text = error_text(e, NOT_LOGGED_IN);
            let (code, status) = match e.kind() {
                ErrorKind::Auth => ("authentication_failed", Value::Null),
                ErrorKind::RateLimit => ("rate_limit", json!(429)),
                ErrorKind::Quota => ("billing_error", json!(429)),
                ErrorKind::Server => ("server_error", json!(500)),
                ErrorKind::Model => ("model_not_found", json!(404)),
                ErrorKind::Other => ("unknown", Value::Null),
            };
            return self.api_error(line, &text, code, status);
        }
        if !o.text.is_empty() {
            self.assistant(json!([{"type": "text", "text": o.text}]), "end_turn");
        }
        line.text = o.text.clone();
        if let Some((budget, shown)) = &self.max_budget {
            if cost > *budget {
                line.subtype = "error_max_budget_usd";
                line.is_error = true;
                line.errors = Some(vec![format!("Reached maximum budget (${shown})")]);
                line.terminal_reason = "max_budget";
            }
        }
        self.result(line)
    }
}
