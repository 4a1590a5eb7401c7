//! Gemini CLI 0.61 (`gemini -p … -o stream-json --approval-mode yolo --skip-trust`).

use serde_json::{json, Value};

use super::argv::{self, any_many, choice, flag, opt, val, ArgError, Opt};
use super::{
    cwd, drive, emit, emit_raw, env_is, error_text, now_iso, now_ms, piped_stdin, shell_quote,
    Agent, ErrorKind, Failing, Ids, Invocation, ModelStatus, Op, Outcome, Tokens, Tool, ToolEnd,
    Trouble,
};

const VERSION: &str = "0.61.0";
const DEFAULT_MODEL: &str = "gemini-2.5-pro";
const YOLO_NOTICE: &str = "YOLO mode is enabled. All tool calls will be automatically approved.";

const OPTIONS: &[Opt] = &[
    flag(&["-d", "--debug"]),
    val(&["-m", "--model"], "model"),
    val(&["-p", "--prompt"], "prompt"),
    val(
        &["-i", "--prompt-interactive", "--promptInteractive"],
        "prompt-interactive",
    ),
    flag(&["--skipTrust", "--skip-trust"]),
    opt(&["-w", "--worktree"], "worktree"),
    flag(&["-s", "--sandbox"]),
    flag(&["-y", "--yolo"]),
    choice(
        &["--approvalMode", "--approval-mode"],
        "approval-mode",
        &["default", "auto_edit", "yolo", "plan"],
    ),
    any_many(&["--policy"], "policy"),
    any_many(&["--adminPolicy", "--admin-policy"], "admin-policy"),
    flag(&["--acp"]),
    flag(&["--experimentalAcp", "--experimental-acp"]),
    any_many(
        &["--allowedMcpServerNames", "--allowed-mcp-server-names"],
        "allowed-mcp-server-names",
    ),
    any_many(&["--allowedTools", "--allowed-tools"], "allowed-tools"),
    any_many(&["-e", "--extensions"], "extensions"),
    flag(&["-l", "--listExtensions", "--list-extensions"]),
    val(&["-r", "--resume"], "resume"),
    val(&["--sessionFile", "--session-file"], "session-file"),
    val(&["--sessionId", "--session-id"], "session-id"),
    flag(&["--listSessions", "--list-sessions"]),
    val(&["--deleteSession", "--delete-session"], "delete-session"),
    any_many(
        &["--includeDirectories", "--include-directories"],
        "include-directories",
    ),
    flag(&["--screenReader", "--screen-reader"]),
    choice(
        &["-o", "--outputFormat", "--output-format"],
        "output-format",
        &["text", "json", "stream-json"],
    ),
    flag(&["--rawOutput", "--raw-output"]),
    flag(&["--acceptRawOutputRisk", "--accept-raw-output-risk"]),
    flag(&["-v", "--version"]),
    flag(&["-h", "--help"]),
];

/// yargs' wording.
fn usage_error(e: &ArgError) -> String {
    match e {
        ArgError::Unknown(o) => format!("Unknown argument: {}", o.trim_start_matches('-')),
        ArgError::Missing(o) => format!(
            "Not enough arguments following: {}",
            o.names[0].trim_start_matches('-')
        ),
        ArgError::BadChoice(o, v) => format!(
            "Invalid values:\n  Argument: {}, Given: \"{v}\", Choices: {}",
            o.meta,
            o.choices
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Stream,
}

pub fn main(args: &[String]) -> u8 {
    let p = match argv::front(args, OPTIONS, usage_error, VERSION, "Usage: gemini [options] [command]\n\nGemini CLI (zurdo stand-in) - use -p/--prompt for non-interactive (headless) mode.") {
        Ok(p) => p,
        Err(code) => return code,
    };
    let prompt = match (p.value("--prompt"), p.positionals.is_empty()) {
        (Some(_), false) => {
            eprintln!("Cannot use both a positional prompt and the --prompt (-p) flag together");
            return 2;
        }
        // "Appended to input on stdin (if any)": a piped stdin comes first.
        (Some(prompt), true) => match piped_stdin() {
            piped if piped.is_empty() => prompt.to_string(),
            piped => format!("{piped}\n\n{prompt}"),
        },
        (None, false) => p.positionals.join(" "),
        (None, true) => {
            eprintln!("zurdo stand-in: gemini without -p/--prompt starts an interactive session; the stand-in imitates headless mode only");
            return 2;
        }
    };
    if p.has("--yolo") && p.has("--approval-mode") {
        eprintln!("Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.");
        return 2;
    }
    let approval = if p.has("--yolo") {
        "yolo"
    } else {
        p.value("--approval-mode").unwrap_or("default")
    };
    let format = match p.value("--output-format").unwrap_or("text") {
        "json" => Format::Json,
        "stream-json" => Format::Stream,
        _ => Format::Text,
    };
    if approval == "yolo" {
        eprintln!("{YOLO_NOTICE}");
    }
    let model = p.value("--model").unwrap_or(DEFAULT_MODEL).to_string();
    let inv = Invocation {
        cli: "gemini",
        args: args.to_vec(),
        prompt,
        model: model.clone(),
        workdir: cwd(),
    };
    let mut ids = Ids::new(&["gemini", &inv.prompt, &inv.model]);
    let session = ids.uuid(4);
    let mut agent = Gemini {
        format,
        ids,
        session,
        approval: approval.to_string(),
        trusted: p.has("--skip-trust") || env_is("GEMINI_CLI_TRUST_WORKSPACE", "true"),
        model: model.clone(),
        usage: None,
        started_ms: now_ms(),
        tool_ids: Vec::new(),
        calls: (0, 0),
    };
    drive(&inv, &[model.as_str()], &mut agent)
}

struct Gemini {
    format: Format,
    ids: Ids,
    session: String,
    approval: String,
    trusted: bool,
    model: String,
    usage: Option<Tokens>,
    started_ms: u64,
    tool_ids: Vec<String>,
    /// (succeeded, failed) tool calls.
    calls: (u64, u64),
}

impl Gemini {
    /// The nine failed attempts of a CLI with no network, each with the
    /// stack `frames` on stderr, `pause_ms` apart.
    fn retries(&mut self, frames: &[&str], pause_ms: u64) {
        for n in 1..=9 {
            self.retry(n);
            for frame in frames {
                eprintln!("    at {frame}");
            }
            std::thread::sleep(std::time::Duration::from_millis(pause_ms));
        }
    }

    fn stream(&self) -> bool {
        self.format == Format::Stream
    }

    fn begin(&mut self, inv: &Invocation) {
        if self.stream() {
            emit(
                &json!({"type": "init", "timestamp": now_iso(), "session_id": self.session, "model": self.model}),
            );
            emit(
                &json!({"type": "message", "timestamp": now_iso(), "role": "user", "content": inv.prompt}),
            );
        }
    }

    fn stats(&self, tool_calls: u64) -> Value {
        let elapsed = now_ms().saturating_sub(self.started_ms);
        let mut stats = json!({});
        if let Some(u) = self.usage {
            let tokens = json!({
                "total_tokens": u.input_tokens + u.output_tokens,
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "cached": u.cached_input_tokens,
                "input": u.uncached(),
            });
            stats = tokens.clone();
            let mut models = serde_json::Map::new();
            models.insert(self.model.clone(), tokens);
            stats["models"] = Value::Object(models);
        }
        stats["duration_ms"] = json!(elapsed);
        stats["tool_calls"] = json!(tool_calls);
        stats
    }

    /// A failed run: the stream's error result, or JSON / text on stderr.
    fn fail(&mut self, kind: &str, message: &str, code: u8) -> u8 {
        match self.format {
            Format::Stream => {
                let stats = self.stats(self.calls.0 + self.calls.1);
                emit(&json!({
                    "type": "result",
                    "timestamp": now_iso(),
                    "status": "error",
                    "error": {"type": kind, "message": message},
                    "stats": stats,
                }));
            }
            Format::Json => {
                let v = json!({"session_id": self.session, "error": {"type": kind, "message": message, "code": code}});
                eprintln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            Format::Text => eprintln!("{message}"),
        }
        code
    }

    fn tool(op: &Op) -> (String, Value) {
        match op {
            Op::Write { path, content, .. } | Op::Append { path, content, .. } => (
                "write_file".into(),
                json!({"file_path": path, "content": content}),
            ),
            Op::Delete { path } => (
                "run_shell_command".into(),
                json!({"command": format!("rm -rf {}", shell_quote(&path.display().to_string())), "description": "Delete the file."}),
            ),
            Op::Run { command } => (
                "run_shell_command".into(),
                json!({"command": command, "description": "Run the command."}),
            ),
            Op::Report { name, input, .. } => (name.clone(), input.clone()),
        }
    }
}

impl Agent for Gemini {
    fn auth_missing(&mut self, _inv: &Invocation) -> u8 {
        let home = std::env::var("HOME").unwrap_or_else(|_| "~".into());
        let message = format!(
            "Please set an Auth method in your {home}/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA"
        );
        if self.format == Format::Json {
            let v = json!({"session_id": self.session, "error": {"type": "Error", "message": message, "code": 41}});
            eprintln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        } else {
            eprintln!("{message}");
        }
        41
    }

    fn after_auth(&mut self, _inv: &Invocation) -> Option<u8> {
        if self.trusted {
            return None;
        }
        if self.approval != "default" {
            eprintln!("Approval mode overridden to \"default\" because the current folder is not trusted.");
        }
        eprintln!(
            "\u{1b}[31mGemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments\u{1b}[0m"
        );
        Some(55)
    }

    fn bad_model(&mut self, inv: &Invocation, status: ModelStatus) -> u8 {
        self.begin(inv);
        let m = &inv.model;
        let message = if status == ModelStatus::Plan {
            format!("[API Error: {{\"error\":{{\"code\":403,\"message\":\"The caller does not have permission to use model {m} on the current plan.\",\"status\":\"PERMISSION_DENIED\"}}}}]")
        } else {
            format!("[API Error: models/{m} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.]")
        };
        self.fail("unknown", &message, 1)
    }

    fn offline(&mut self, inv: &Invocation) -> u8 {
        // As captured with a key and no network (gemini-fake-long), without
        // the stack traces and 0.2 s apart instead of backing off: nine
        // failed attempts, then the API error.
        self.begin(inv);
        self.retries(&[], 200);
        self.fail(
            "unknown",
            "[API Error: exception TypeError: fetch failed sending request]",
            1,
        )
    }

    fn start(&mut self, inv: &Invocation, _planned_steps: usize, usage: Option<Tokens>) {
        self.usage = usage;
        self.begin(inv);
    }

    fn retry(&mut self, n: u32) {
        eprintln!("Attempt {n} failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request");
    }

    fn denies(&self, op: &Op) -> Option<String> {
        let allowed = match op {
            Op::Report { .. } => true,
            Op::Write { .. } | Op::Append { .. } => {
                matches!(self.approval.as_str(), "yolo" | "auto_edit")
            }
            Op::Delete { .. } | Op::Run { .. } => self.approval == "yolo",
        };
        (!allowed).then(|| {
            let (name, _) = Self::tool(op);
            format!("Tool \"{name}\" not found in registry. Tools must use the exact names that are registered. Did you mean one of: \"read_file\", \"glob\", \"search_file_content\"?")
        })
    }

    fn tool_start(&mut self, tool: &Tool) {
        let (name, params) = Self::tool(&tool.op);
        let id = format!("{name}-{}-{}", now_ms(), self.ids.hex(13));
        if self.stream() {
            emit(
                &json!({"type": "tool_use", "timestamp": now_iso(), "tool_name": name, "tool_id": id, "parameters": params}),
            );
        }
        self.tool_ids.push(id);
    }

    fn tool_end(&mut self, tool: &Tool, end: &ToolEnd) {
        if end.ok {
            self.calls.0 += 1;
        } else {
            self.calls.1 += 1;
        }
        if !self.stream() {
            return;
        }
        let id = self.tool_ids.last().cloned().unwrap_or_default();
        let mut v = json!({"type": "tool_result", "timestamp": now_iso(), "tool_id": id, "status": if end.ok { "success" } else { "error" }});
        if end.ok {
            v["output"] = json!(match &tool.op {
                Op::Write {
                    path,
                    existed: false,
                    ..
                } => format!(
                    "Successfully created and wrote to new file: {}.",
                    path.display()
                ),
                Op::Write { path, .. } | Op::Append { path, .. } =>
                    format!("Successfully overwrote file: {}.", path.display()),
                _ => end.output.clone(),
            });
        } else {
            let kind = if end.denied {
                "tool_not_registered"
            } else {
                "execution_failed"
            };
            let message = match end.exit_code {
                Some(code) if !end.denied => {
                    format!("{}\nExit Code: {code}", end.output.trim_end())
                }
                _ => end.output.clone(),
            };
            v["output"] = json!(message);
            v["error"] = json!({"type": kind, "message": message});
        }
        emit(&v);
    }

    fn cannot_work(&mut self, _inv: &Invocation, f: &Failing, _o: &Outcome) -> u8 {
        match f.kind {
            // google-gemini/gemini-cli#1088, #26840.
            Trouble::Quota => self.fail(
                "TerminalQuotaError",
                r#"[API Error: {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}]"#,
                1,
            ),
            // google-gemini/gemini-cli#1905 (gemini says no reset time).
            Trouble::RateLimit => self.fail(
                "unknown",
                r#"[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}]"#,
                1,
            ),
            // real-runs/gemini-fake-long: nine retries with their stack
            // (over 3.5 min there), the report's path, the error result.
            Trouble::Network => {
                self.retries(&FETCH_STACK, 300);
                eprintln!(
                    "Error when talking to Gemini API Full report available at: {}/gemini-client-error-Turn.run-sendMessageStream-{}.json Error: exception TypeError: fetch failed sending request",
                    std::env::temp_dir().display(),
                    now_iso().replace(':', "-")
                );
                self.fail(
                    "unknown",
                    "[API Error: exception TypeError: fetch failed sending request]",
                    1,
                )
            }
        }
    }

    fn finish(&mut self, _inv: &Invocation, o: &Outcome) -> u8 {
        if let Some(e) = &o.error {
            let kind = match e.kind() {
                ErrorKind::Auth => "FatalAuthenticationError",
                ErrorKind::Quota | ErrorKind::RateLimit => "TerminalQuotaError",
                _ => "unknown",
            };
            let message = error_text(
                e,
                "[API Error: API key not valid. Please pass a valid API key.]",
            );
            return self.fail(kind, &message, 1);
        }
        let tool_calls = self.calls.0 + self.calls.1;
        match self.format {
            Format::Stream => {
                for chunk in chunks(&o.text) {
                    emit(
                        &json!({"type": "message", "timestamp": now_iso(), "role": "assistant", "content": chunk, "delta": true}),
                    );
                }
                let stats = self.stats(tool_calls);
                emit(
                    &json!({"type": "result", "timestamp": now_iso(), "status": "success", "stats": stats}),
                );
            }
            Format::Json => {
                let elapsed = now_ms().saturating_sub(self.started_ms);
                let u = self.usage.unwrap_or_default();
                let mut models = serde_json::Map::new();
                models.insert(
                    self.model.clone(),
                    json!({
                        "api": {"totalRequests": tool_calls + 1, "totalErrors": 0, "totalLatencyMs": elapsed},
                        "tokens": {
                            "input": u.uncached(),
                            "prompt": u.input_tokens,
                            "candidates": u.output_tokens,
                            "total": u.input_tokens + u.output_tokens,
                            "cached": u.cached_input_tokens,
                            "thoughts": 0,
                            "tool": 0,
                        },
                    }),
                );
                let v = json!({
                    "session_id": self.session,
                    "response": o.text,
                    "stats": {
                        "models": models,
                        "tools": {
                            "totalCalls": tool_calls,
                            "totalSuccess": self.calls.0,
                            "totalFail": self.calls.1,
                            "totalDurationMs": 0,
                            "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": tool_calls},
                            "byName": {},
                        },
                        "files": {"totalLinesAdded": o.lines_added, "totalLinesRemoved": o.lines_removed},
                    },
                });
                emit_raw(&serde_json::to_string_pretty(&v).unwrap_or_default());
            }
            Format::Text => emit_raw(&o.text),
        }
        0
    }
}

/// The stack under each retry in real-runs/gemini-fake-long.
const FETCH_STACK: [&str; 10] = [
    "file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:267671:13",
    "process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    "async Models.generateContentStream (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:268692:16)",
    "async file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:311457:19",
    "async file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:288018:23",
    "async retryWithBackoff (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:308039:23)",
    "async GeminiChat.makeApiCallAndProcessStream (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:332326:28)",
    "async GeminiChat.streamWithRetries (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:332079:29)",
    "async Turn.run (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:333001:24)",
    "async GeminiClient.processTurn (file://<path>@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:346675:22)",
];

/// The text cut into up to three streamed deltas, at word boundaries.
fn chunks(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let per = words.len().div_ceil(3).max(1);
    words.chunks(per).map(|c| c.concat()).collect()
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn deltas_concatenate_to_the_text() {
        for text in ["", "OK", "one two three four five six seven", "a  b\nc "] {
            assert_eq!(chunks(text).concat(), text);
            assert!(chunks(text).len() <= 3);
        }
    }
}
