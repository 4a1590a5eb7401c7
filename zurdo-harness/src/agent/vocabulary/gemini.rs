//! Gemini CLI's table.

use super::rules::{
    on, on_if, EndRule, ErrorRule, Fold, Input, Is, Items, Level, ModelAt, ModelRule, Text,
    TextMode, TextRule, ToolRule, UsageRule, Verdict, Vocabulary, INPUT_KEYS,
};
use crate::agent::Provider;

/// Gemini CLI, `-o stream-json` (and `-o json`: one object with no `type`).
pub static GEMINI: Vocabulary = Vocabulary {
    provider: Provider::Google,
    kind: &["type"],
    text: &[
        TextRule {
            on: on_if(
                &["message"],
                &[(&["role"], Is::Str("assistant")), (&["delta"], Is::True)],
            ),
            at: Text::Field(&["content"]),
            mode: TextMode::Delta,
        },
        TextRule {
            on: on_if(
                &["message"],
                &[(&["role"], Is::Str("assistant")), (&["delta"], Is::NotTrue)],
            ),
            at: Text::Field(&["content"]),
            mode: TextMode::Message,
        },
        TextRule {
            on: on(&[""]),
            at: Text::Field(&["response"]),
            mode: TextMode::Result,
        },
    ],
    tools: &[
        ToolRule {
            on: on(&["tool_use"]),
            items: Items::One(&[]),
            id: &["tool_id"],
            opens: true,
            name: Some(&["tool_name"]),
            input: Some(Input {
                each: None,
                fields: &[&["parameters"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["tool_result"]),
            items: Items::One(&[]),
            id: &["tool_id"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Status {
                at: &["status"],
                ok: &["success"],
                failed: &["error"],
            }],
            output: &[&["error", "message"], &["output"]],
        },
    ],
    usage: &[
        UsageRule {
            on: on(&["result"]),
            at: &["stats"],
            per_entry: false,
            input: &[&["input_tokens"]],
            cached: &[&["cached"]],
            output: &[&["output_tokens"]],
            fold: Fold::Replace,
        },
        // `-o json`: stats.models.<model>.tokens {prompt, candidates, cached}.
        UsageRule {
            on: on(&[""]),
            at: &["stats", "models"],
            per_entry: true,
            input: &[&["tokens", "prompt"]],
            cached: &[&["tokens", "cached"]],
            output: &[&["tokens", "candidates"]],
            fold: Fold::Replace,
        },
    ],
    cost: &[],
    model: &[
        ModelRule {
            on: on(&["init"]),
            at: ModelAt::Field(&["model"]),
            skip: &[],
        },
        ModelRule {
            on: on(&["result", ""]),
            at: ModelAt::FirstKey(&["stats", "models"]),
            skip: &[],
        },
    ],
    errors: &[
        ErrorRule {
            on: on_if(&["error"], &[(&["severity"], Is::Str("error"))]),
            level: Level::Fatal,
            text: &[Text::Field(&["message"])],
        },
        ErrorRule {
            on: on_if(&["result"], &[(&["status"], Is::Str("error"))]),
            level: Level::Fatal,
            text: &[
                Text::Field(&["error", "message"]),
                Text::Field(&["error", "type"]),
                Text::Prefixed("result status ", &["status"]),
            ],
        },
        // `-o json`, on stdout or (fatal errors) on stderr.
        ErrorRule {
            on: on_if(&[""], &[(&["error"], Is::Present)]),
            level: Level::Fatal,
            text: &[
                Text::Field(&["error", "message"]),
                Text::Field(&["error", "type"]),
                Text::Field(&["error"]),
            ],
        },
    ],
    ends: &[EndRule {
        on: on(&["result", ""]),
        success: true,
    }],
    input_keys: INPUT_KEYS,
    stderr_noise: &[
        "Warning: Basic terminal detected",
        "Warning: 256-color support not detected",
        "YOLO mode is enabled",
        "Ripgrep is not available",
        "[STARTUP]",
        "Approval mode overridden",
        "Loaded cached credentials",
    ],
};

#[cfg(test)]
mod tests {
    use crate::agent::vocabulary::test_support::{run, usage, ZERO};
    use crate::agent::vocabulary::{canary_silent, read, usage_gap};
    use crate::agent::{Provider, ToolCall};

    const GEMINI_AUTH: &str = "Please set an Auth method in your /home/user/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA";

    // ---- Gemini: real runs ------------------------------------------------

    #[test]
    fn gemini_auth_errors_on_stderr() {
        let r = run!(Provider::Google, "gemini-streamjson");
        assert_eq!(r.events, 0);
        assert_eq!(r.error.as_deref(), Some(GEMINI_AUTH));

        // `-o json`: the error object goes to stderr, pretty-printed.
        let r = run!(Provider::Google, "gemini-json");
        assert_eq!(r.events, 0);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(GEMINI_AUTH));
        assert!(!canary_silent(&r));
    }

    #[test]
    fn gemini_untrusted_directory_strips_colours() {
        let r = run!(Provider::Google, "gemini-fake-streamjson");
        assert_eq!(r.events, 0);
        let error = r.error.unwrap();
        assert!(error.starts_with("Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`"), "{error}");
        assert!(
            error.ends_with("#headless-and-automated-environments"),
            "{error}"
        );
    }

    #[test]
    fn gemini_stream_json_error_result() {
        let r = run!(Provider::Google, "gemini-fake-long");
        assert_eq!(r.events, 3);
        assert_eq!(
            r.error.as_deref(),
            Some("[API Error: exception TypeError: fetch failed sending request]")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert!(r.tool_calls.is_empty());
        assert!(canary_silent(&r));
    }

    #[test]
    fn gemini_killed_mid_retry_takes_the_stderr_error() {
        // Timed out (rc 124) after init and the user message: no result.
        let r = run!(Provider::Google, "gemini-fake-streamjson-trust");
        assert_eq!(r.events, 2);
        assert_eq!(
            r.error.as_deref(),
            Some("Attempt 3 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request")
        );
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(r.usage, None);
    }

    // ---- Gemini: shapes no capture covers ---------------------------------

    #[test]
    fn gemini_success_with_deltas_tools_and_stats() {
        let stream = r#"{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"t","role":"user","content":"fix it"}
{"type":"message","timestamp":"t","role":"assistant","content":"I'll read ","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"the file.","delta":true}
{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"r1","parameters":{"absolute_path":"/w/src/lib.rs"}}
{"type":"tool_result","timestamp":"t","tool_id":"r1","status":"success","output":"fn main() {}"}
{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"r2","parameters":{"command":"cargo test","description":"tests"}}
{"type":"tool_result","timestamp":"t","tool_id":"r2","status":"error","error":{"type":"exit","message":"exit code 101"}}
{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected, retrying"}
{"type":"message","timestamp":"t","role":"assistant","content":"Fixed ","delta":true}
{"type":"message","timestamp":"t","role":"assistant","content":"it.","delta":true}
{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":1500,"input_tokens":1200,"output_tokens":300,"cached":800,"input":400,"duration_ms":5000,"tool_calls":2,"models":{"gemini-2.5-pro":{"total_tokens":1500,"input_tokens":1200,"output_tokens":300,"cached":800,"input":400}}}}
"#;
        let r = read(Provider::Google, stream, "");
        assert_eq!(r.events, 12);
        assert_eq!(r.final_text.as_deref(), Some("Fixed it."));
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall {
                    step: 1,
                    name: "read_file".into(),
                    input: "/w/src/lib.rs".into(),
                    ok: Some(true),
                    output: "fn main() {}".into(),
                },
                ToolCall {
                    step: 2,
                    name: "run_shell_command".into(),
                    input: "cargo test".into(),
                    ok: Some(false),
                    output: "exit code 101".into(),
                },
            ]
        );
        assert_eq!(r.usage, usage(1200, 300, 800));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-pro"));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.error, None);
        assert!(!canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn gemini_error_event_with_severity_error() {
        let stream = r#"{"type":"init","model":"gemini-2.5-flash"}
{"type":"error","severity":"error","message":"You exceeded your current quota"}
"#;
        let r = read(Provider::Google, stream, "");
        assert_eq!(r.error.as_deref(), Some("You exceeded your current quota"));
    }

    #[test]
    fn gemini_json_single_object_on_stdout() {
        let stdout = r#"{
  "session_id": "s",
  "response": "All tests pass.",
  "stats": {
    "models": {
      "gemini-2.5-flash": {
        "api": { "totalRequests": 2, "totalErrors": 0, "totalLatencyMs": 900 },
        "tokens": { "input": 100, "prompt": 400, "candidates": 50, "total": 450, "cached": 300, "thoughts": 20, "tool": 0 }
      }
    },
    "tools": {},
    "files": {}
  }
}
"#;
        let r = read(Provider::Google, stdout, "");
        assert_eq!(r.events, 1);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.final_text.as_deref(), Some("All tests pass."));
        assert_eq!(r.usage, usage(400, 50, 300));
        assert_eq!(r.model.as_deref(), Some("gemini-2.5-flash"));
        assert_eq!(r.error, None);
    }
}
