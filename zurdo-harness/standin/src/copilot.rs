//! GitHub Copilot CLI 1.0.102 (`copilot -p … --output-format json`).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::argv::{self, any_many, choice, flag, opt, val, ArgError, Opt};
use super::{
    cwd, dir_arg, drive, emit, emit_raw, error_text, now_iso, now_ms, piped_stdin, share,
    shell_quote, spelled_wait, Agent, ErrorKind, ErrorSpec, Failing, Ids, Invocation, ModelStatus,
    Op, Outcome, Tokens, Tool, ToolEnd, Trouble,
};

const VERSION: &str = "1.0.102";
const DEFAULT_MODEL: &str = "claude-sonnet-4.5";

const OPTIONS: &[Opt] = &[
    flag(&["-v", "--version"]),
    val(&["-i", "--interactive"], "<prompt>"),
    flag(&["--fleet"]),
    val(&["-p", "--prompt"], "<text>"),
    flag(&["--trust-folder"]),
    flag(&["-s", "--silent"]),
    flag(&["--disable-client-telemetry"]),
    flag(&["--enable-memory"]),
    val(&["--model"], "<model>"),
    choice(
        &["--reasoning-effort"],
        "<level>",
        &["none", "minimal", "low", "medium", "high", "xhigh", "max"],
    ),
    choice(&["--context"], "<tier>", &["default", "long_context"]),
    val(&["--auto-tier"], "<preference>"),
    val(&["--agent"], "<agent>"),
    opt(&["-r", "--resume"], "[value]"),
    flag(&["--continue"]),
    val(&["-n", "--name"], "<name>"),
    val(&["--session-id"], "<id>"),
    opt(&["--connect"], "[sessionId]"),
    flag(&["--allow-all-tools"]),
    flag(&["--allow-all-paths"]),
    flag(&["--disallow-temp-dir"]),
    flag(&["--banner"]),
    flag(&["--screen-reader"]),
    flag(&["--plain-diff"]),
    val(&["-C"], "<directory>"),
    val(&["--log-dir"], "<directory>"),
    val(&["--extension-sdk-path"], "<directory>"),
    choice(
        &["--log-level"],
        "<level>",
        &[
            "none", "error", "warning", "info", "debug", "all", "default",
        ],
    ),
    choice(&["--stream"], "<mode>", &["on", "off"]),
    choice(&["--output-format"], "<format>", &["text", "json"]),
    opt(&["--share"], "[path]"),
    flag(&["--share-gist"]),
    val(&["--add-dir"], "<directory>"),
    val(&["--attachment"], "<path>"),
    val(&["--disable-mcp-server"], "<server-name>"),
    flag(&["--disable-builtin-mcps"]),
    flag(&["--enable-all-github-mcp-tools"]),
    val(&["--add-github-mcp-toolset"], "<toolset>"),
    val(&["--add-github-mcp-tool"], "<tool>"),
    val(&["--plugin-dir"], "<directory>"),
    val(&["--additional-mcp-config"], "<json>"),
    val(&["--mcp-github-auth"], "<server=origin>"),
    flag(&["--allow-all-mcp-server-instructions"]),
    any_many(&["--allow-tool"], "[tools...]"),
    any_many(&["--deny-tool"], "[tools...]"),
    any_many(&["--available-tools"], "[tools...]"),
    any_many(&["--excluded-tools"], "[tools...]"),
    any_many(&["--secret-env-vars"], "[vars...]"),
    any_many(&["--allow-url"], "[urls...]"),
    any_many(&["--deny-url"], "[urls...]"),
    flag(&["--allow-all-urls"]),
    flag(&["--allow-all"]),
    flag(&["--yolo"]),
    val(&["--max-autopilot-continues"], "<count>"),
    choice(&["--mode"], "<mode>", &["interactive", "plan", "autopilot"]),
    flag(&["--autopilot"]),
    flag(&["--plan"]),
    flag(&["--experimental"]),
    opt(&["--bash-env"], "[value]"),
    opt(&["--mouse"], "[value]"),
    flag(&["--acp"]),
    flag(&["--remote"]),
    flag(&["--remote-export"]),
    val(&["--environment-host"], "<name>"),
    val(&["--environment-compute-id"], "<id>"),
    val(&["--dynamic-retrieval"], "<category=on|off>"),
    val(&["--enable-mcp-server"], "<server-name>"),
    val(&["--max-ai-credits"], "<credits>"),
    flag(&["--assisted-approval"]),
    val(&["--usage-output-file"], "<file>"),
    flag(&["--no-custom-instructions"]),
    flag(&["--no-auto-update"]),
    flag(&["--no-ask-user"]),
    flag(&["--no-color"]),
    flag(&["--no-experimental"]),
    flag(&["--no-bash-env"]),
    flag(&["--no-mouse"]),
    flag(&["--no-remote"]),
    flag(&["--no-remote-export"]),
    flag(&["--no-eager-powershell-resolution"]),
    flag(&["-h", "--help"]),
];

const AUTH_HELP: &str = "To authenticate, you can use any of the following methods:\n  • Start 'copilot' and run the '/login' command\n  • Set the COPILOT_GITHUB_TOKEN, GH_TOKEN, or GITHUB_TOKEN environment variable\n  • Run 'gh auth login' to authenticate with the GitHub CLI";

fn usage_error(e: &ArgError) -> String {
    let tail = "\nTry 'copilot --help' for more information.";
    match e {
        ArgError::Unknown(o) => format!("error: unknown option '{o}'{tail}"),
        ArgError::Missing(o) => format!(
            "error: option '{} {}' argument missing{tail}",
            o.names.join(", "),
            o.meta
        ),
        ArgError::BadChoice(o, v) => format!(
            "error: option '{} {}' argument '{v}' is invalid. Allowed choices are {}.{tail}",
            o.names.join(", "),
            o.meta,
            o.choices.join(", ")
        ),
    }
}

fn truthy(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "true" | "1" | "yes" | "on" | "y"
        )
    })
}

pub fn main(args: &[String]) -> u8 {
    let p = match argv::front(args, OPTIONS, usage_error, &format!("GitHub Copilot CLI {VERSION}.\nRun 'copilot update' to check for updates."), "Usage: copilot [OPTIONS] [COMMAND]\n\nGitHub Copilot CLI (zurdo stand-in): use -p/--prompt for non-interactive scripting.") {
        Ok(p) => p,
        Err(code) => return code,
    };
    if let Some(cmd) = p.positionals.first() {
        eprintln!("zurdo stand-in: `copilot {cmd}` is not imitated");
        return 2;
    }
    // Without -p, a piped stdin is the prompt (prompt mode all the same).
    let piped = if p.value("--prompt").is_none() {
        piped_stdin()
    } else {
        String::new()
    };
    let prompt = p
        .value("--prompt")
        .map(str::to_string)
        .or_else(|| (!piped.trim().is_empty()).then_some(piped));
    let Some(prompt) = prompt else {
        eprintln!("zurdo stand-in: copilot without -p/--prompt starts an interactive session; the stand-in imitates prompt mode only");
        return 2;
    };
    if !(p.has("--allow-all-tools")
        || p.has("--allow-all")
        || p.has("--yolo")
        || truthy("COPILOT_ALLOW_ALL"))
    {
        eprintln!(
            "Error: --allow-all-tools is required for non-interactive mode.\n\nPass --allow-all-tools (or --allow-all / --yolo, or set COPILOT_ALLOW_ALL=true) so that tools can run without confirmation when using -p/--prompt."
        );
        return 1;
    }
    let workdir = match p.value("-C") {
        None => cwd(),
        Some(d) => match dir_arg(d) {
            Some(d) => d,
            None => {
                eprintln!(
                    "Error: Directory does not exist: {}",
                    cwd().join(d).display()
                );
                return 1;
            }
        },
    };
    let model = p
        .value("--model")
        .map(str::to_string)
        .or_else(|| {
            std::env::var("COPILOT_MODEL")
                .ok()
                .filter(|m| !m.is_empty())
        })
        .unwrap_or_else(|| DEFAULT_MODEL.into());
    let inv = Invocation {
        cli: "copilot",
        args: args.to_vec(),
        prompt,
        model: model.clone(),
        workdir,
    };
    let mut ids = Ids::new(&["copilot", &inv.prompt, &inv.model]);
    let session = ids.uuid(4);
    let mut agent = Copilot {
        json: p.value("--output-format") == Some("json"),
        deltas: p.value("--stream") != Some("off"),
        ids,
        session,
        parent: None,
        turn: 0,
        messages: 0,
        planned: 0,
        usage: None,
        model: if model == "auto" {
            DEFAULT_MODEL.into()
        } else {
            model.clone()
        },
        usage_file: p.value("--usage-output-file").map(|f| cwd().join(f)),
        started_ms: now_ms(),
        calls: Vec::new(),
    };
    drive(&inv, &[model.as_str()], &mut agent)
}

struct Copilot {
    json: bool,
    deltas: bool,
    ids: Ids,
    session: String,
    parent: Option<String>,
    turn: usize,
    messages: usize,
    planned: usize,
    usage: Option<Tokens>,
    model: String,
    usage_file: Option<PathBuf>,
    started_ms: u64,
    calls: Vec<String>,
}

impl Copilot {
    /// One session event.
    fn event(&mut self, kind: &str, data: Value, ephemeral: bool) {
        if !self.json {
            return;
        }
        let id = self.ids.uuid(4);
        let mut v = json!({"type": kind, "data": data, "id": id, "timestamp": now_iso(), "parentId": self.parent});
        if ephemeral {
            v["ephemeral"] = json!(true);
        } else {
            self.parent = Some(id);
        }
        emit(&v);
    }

    fn output_tokens(&mut self) -> Option<u64> {
        let i = self.messages;
        self.messages += 1;
        self.usage
            .map(|u| share(u.output_tokens, self.planned + 1, i))
    }

    fn message(&mut self, content: &str, requests: Value) {
        let message_id = self.ids.uuid(4);
        let tokens = self.output_tokens();
        if self.deltas && !content.is_empty() {
            self.event(
                "assistant.message_delta",
                json!({"messageId": message_id, "deltaContent": content}),
                true,
            );
        }
        let mut data =
            json!({"messageId": message_id, "content": content, "toolRequests": requests});
        if let Some(t) = tokens {
            data["outputTokens"] = json!(t);
        }
        self.event("assistant.message", data, false);
    }

    fn turn_start(&mut self) {
        let turn = self.turn.to_string();
        self.event("assistant.turn_start", json!({"turnId": turn}), false);
    }

    fn turn_end(&mut self) {
        let turn = self.turn.to_string();
        self.turn += 1;
        self.event("assistant.turn_end", json!({"turnId": turn}), false);
    }

    fn tool(op: &Op) -> (String, Value) {
        match op {
            Op::Write {
                path,
                content,
                existed: false,
            } => ("create".into(), json!({"path": path, "file_text": content})),
            Op::Write {
                path,
                content,
                existed: true,
            } => {
                let old = std::fs::read_to_string(path).unwrap_or_default();
                (
                    "edit".into(),
                    json!({"path": path, "old_str": old, "new_str": content}),
                )
            }
            Op::Append {
                path,
                added,
                content,
                ..
            } => {
                let old = content.strip_suffix(added.as_str()).unwrap_or_default();
                (
                    "edit".into(),
                    json!({"path": path, "old_str": old, "new_str": content}),
                )
            }
            Op::Delete { path } => (
                "bash".into(),
                json!({"command": format!("rm -rf {}", shell_quote(&path.display().to_string())), "description": "Delete the file"}),
            ),
            Op::Run { command } => (
                "bash".into(),
                json!({"command": command, "description": "Run the command"}),
            ),
            Op::Report { name, input, .. } => (name.clone(), input.clone()),
        }
    }

    fn result_line(&mut self, code: u8, o: Option<&Outcome>) {
        if !self.json {
            return;
        }
        let elapsed = now_ms().saturating_sub(self.started_ms);
        emit(&json!({
            "type": "result",
            "timestamp": now_iso(),
            "sessionId": self.session,
            "exitCode": code,
            "usage": {
                "premiumRequests": 1,
                "totalApiDurationMs": elapsed - elapsed / 10,
                "sessionDurationMs": elapsed,
                "codeChanges": {
                    "linesAdded": o.map_or(0, |o| o.lines_added),
                    "linesRemoved": o.map_or(0, |o| o.lines_removed),
                    "filesModified": o.map_or(Vec::new(), |o| o.files.clone()),
                },
            },
        }));
    }

    fn write_usage_file(&self) {
        let Some(f) = &self.usage_file else { return };
        let u = self.usage.unwrap_or_default();
        let mut models = serde_json::Map::new();
        models.insert(
            self.model.clone(),
            json!({
                "requests": {"count": self.messages.max(1), "cost": 1},
                "usage": {
                    "inputTokens": u.input_tokens,
                    "outputTokens": u.output_tokens,
                    "cacheReadTokens": u.cached_input_tokens,
                    "cacheWriteTokens": 0,
                    "reasoningTokens": 0,
                },
            }),
        );
        let v = json!({
            "currentModel": self.model,
            "totalPremiumRequestCost": 1,
            "totalNanoAiu": 0,
            "totalApiDurationMs": now_ms().saturating_sub(self.started_ms),
            "modelMetrics": models,
        });
        let _ = std::fs::write(f, serde_json::to_string_pretty(&v).unwrap_or_default());
    }
}

impl Agent for Copilot {
    fn auth_missing(&mut self, _inv: &Invocation) -> u8 {
        eprintln!("Error: No authentication information found.\n\nCopilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained Personal Access Token.\n\n{AUTH_HELP}");
        1
    }

    fn offline(&mut self, _inv: &Invocation) -> u8 {
        // As captured with a token and no network (copilot-fake): the
        // token cannot be validated.
        eprintln!("Error: Authentication token found but could not be validated.\n\n  Failed to fetch PAT user login: network fetch failed: request failed: error sending request for url (https://api.github.com/copilot_internal/user)\n\nYour token may still be valid. Check your network connection and try again.\n\n{AUTH_HELP}");
        1
    }

    fn bad_model(&mut self, inv: &Invocation, status: ModelStatus) -> u8 {
        let m = &inv.model;
        let reason = if status == ModelStatus::Plan {
            format!("model \"{m}\" is not enabled for your Copilot plan; ask an administrator to enable it or pick another model with --model")
        } else {
            format!("model \"{m}\" is not in the list of available models; run /model in an interactive session to see them")
        };
        eprintln!("Error: No supported model available: {reason}");
        1
    }

    fn start(&mut self, inv: &Invocation, planned_steps: usize, usage: Option<Tokens>) {
        self.planned = planned_steps;
        self.usage = usage;
        let start = json!({
            "sessionId": self.session,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": VERSION,
            "startTime": now_iso(),
            "selectedModel": self.model,
            "context": {"cwd": inv.workdir},
        });
        self.event("session.start", start, false);
        self.event(
            "user.message",
            json!({"content": inv.prompt, "transformedContent": inv.prompt, "attachments": []}),
            false,
        );
        self.turn_start();
    }

    fn retry(&mut self, n: u32) {
        self.event(
            "session.warning",
            json!({"warningType": "retry", "message": format!("Request failed (attempt {n}); retrying: error sending request for url (https://api.githubcopilot.com/chat/completions)")}),
            false,
        );
    }

    fn denies(&self, _op: &Op) -> Option<String> {
        None
    }

    fn tool_start(&mut self, tool: &Tool) {
        let call = format!("call_{}", self.ids.alnum(24));
        let (name, args) = Self::tool(&tool.op);
        self.message(
            "",
            json!([{"toolCallId": call, "name": name, "arguments": args, "type": "function"}]),
        );
        self.event(
            "tool.execution_start",
            json!({"toolCallId": call, "toolName": name, "arguments": args}),
            false,
        );
        self.calls.push(call);
    }

    fn tool_end(&mut self, tool: &Tool, end: &ToolEnd) {
        let call = self.calls.last().cloned().unwrap_or_default();
        let content = match &tool.op {
            Op::Write {
                path,
                content,
                existed: false,
            } => {
                format!(
                    "Created file {} with {} characters",
                    path.display(),
                    content.chars().count()
                )
            }
            Op::Write { path, .. } | Op::Append { path, .. } => {
                format!("File {} updated with changes.", path.display())
            }
            Op::Delete { .. } | Op::Run { .. } => {
                format!(
                    "{}\n<exited with exit code {}>",
                    end.output.trim_end(),
                    end.exit_code.unwrap_or(i32::from(!end.ok))
                )
            }
            Op::Report { .. } => end.output.clone(),
        };
        let mut data = json!({"toolCallId": call, "success": end.ok, "model": self.model});
        if end.ok || matches!(tool.op, Op::Run { .. } | Op::Delete { .. }) {
            data["result"] = json!({"content": content, "detailedContent": content});
        }
        if !end.ok {
            data["error"] = json!({"message": end.output});
        }
        self.event("tool.execution_complete", data, false);
        self.turn_end();
        self.turn_start();
    }

    fn fails_at_start(&self, trouble: Trouble) -> bool {
        // It validates its login (over the network) before any turn.
        trouble == Trouble::Network
    }

    fn cannot_work(&mut self, inv: &Invocation, f: &Failing, o: &Outcome) -> u8 {
        let (kind, message) = match f.kind {
            // real-runs/copilot-fake.
            Trouble::Network => return self.offline(inv),
            // github/copilot-cli#730.
            Trouble::Quota => (ErrorKind::Quota, "You have no quota".to_string()),
            // github/copilot-cli#2336, #2769.
            Trouble::RateLimit => (
                ErrorKind::RateLimit,
                format!(
                    "Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period.{} Please review our Terms of Service (https://docs.github.com/site-policy/github-terms/github-terms-of-service).",
                    f.resets_at.map_or(String::new(), |at| format!(
                        " Please try again in {}.",
                        spelled_wait(at.saturating_sub(now_ms() / 1000))
                    ))
                ),
            ),
        };
        let failed = Outcome {
            error: Some(ErrorSpec::Detailed {
                kind,
                message: Some(message),
            }),
            ..o.clone()
        };
        self.finish(inv, &failed)
    }

    fn finish(&mut self, _inv: &Invocation, o: &Outcome) -> u8 {
        if let Some(e) = &o.error {
            let message = error_text(
                e,
                "Authentication failed: your GitHub token is not valid for Copilot.",
            );
            let (kind, status) = match e.kind() {
                ErrorKind::Auth => ("authentication", Some(401)),
                ErrorKind::RateLimit => ("rate_limit", Some(429)),
                ErrorKind::Quota => ("quota", Some(402)),
                ErrorKind::Server => ("error", Some(500)),
                ErrorKind::Model => ("error", Some(404)),
                ErrorKind::Other => ("error", None),
            };
            let mut data = json!({"errorType": kind, "message": message});
            if let Some(s) = status {
                data["statusCode"] = json!(s);
            }
            self.turn_end();
            self.event("session.error", data, false);
            if !self.json {
                eprintln!("Error: {message}");
            }
            self.result_line(1, Some(o));
            self.write_usage_file();
            return 1;
        }
        if o.text.is_empty() {
            self.messages += 1;
        } else {
            self.message(&o.text, json!([]));
        }
        self.turn_end();
        if !self.json {
            emit_raw(&o.text);
        }
        self.result_line(0, Some(o));
        self.write_usage_file();
        0
    }
}
