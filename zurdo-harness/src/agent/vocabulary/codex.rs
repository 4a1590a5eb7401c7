//! Codex's table.

use super::rules::{
    on, on_if, EndRule, ErrorRule, Fold, Input, Is, Items, Level, Text, TextMode, TextRule,
    ToolRule, UsageRule, Verdict, Vocabulary, INPUT_KEYS,
};
use crate::agent::Provider;

const CODEX_ITEM_EVENTS: &[&str] = &["item.started", "item.updated", "item.completed"];

const CODEX_STATUS: Verdict = Verdict::Status {
    at: &["status"],
    ok: &["completed"],
    failed: &["failed", "declined"],
};

/// Codex, `exec --json`.
pub static CODEX: Vocabulary = Vocabulary {
    provider: Provider::OpenAi,
    kind: &["type"],
    text: &[TextRule {
        on: on_if(
            &["item.completed"],
            &[(&["item", "type"], Is::Str("agent_message"))],
        ),
        at: Text::Field(&["item", "text"]),
        mode: TextMode::Message,
    }],
    tools: &[
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("command_execution"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["command"]],
            }),
            ok: &[Verdict::ExitCode(&["exit_code"]), CODEX_STATUS],
            output: &[&["aggregated_output"]],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("file_change"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: Some(&["changes"]),
                fields: &[&["kind"], &["path"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("mcp_tool_call"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["server"], &["tool"], &["arguments"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[&["error", "message"], &["result", "content"], &["result"]],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("web_search"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["query"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
        ToolRule {
            on: on_if(
                CODEX_ITEM_EVENTS,
                &[(&["item", "type"], Is::Str("collab_tool_call"))],
            ),
            items: Items::One(&["item"]),
            id: &["id"],
            opens: true,
            name: Some(&["type"]),
            input: Some(Input {
                each: None,
                fields: &[&["tool"], &["prompt"]],
            }),
            ok: &[CODEX_STATUS],
            output: &[],
        },
    ],
    usage: &[UsageRule {
        on: on(&["turn.completed"]),
        at: &["usage"],
        per_entry: false,
        input: &[&["input_tokens"]],
        cached: &[&["cached_input_tokens"]],
        output: &[&["output_tokens"]],
        fold: Fold::Add,
    }],
    cost: &[],
    model: &[],
    errors: &[
        ErrorRule {
            on: on(&["turn.failed"]),
            level: Level::Fatal,
            text: &[Text::Field(&["error", "message"]), Text::Field(&["error"])],
        },
        // `Reconnecting... 2/5 …`: retries, fatal only if nothing follows.
        // (`item.completed` items of type `error` are warnings: not read.)
        ErrorRule {
            on: on(&["error"]),
            level: Level::Pending,
            text: &[Text::Field(&["message"])],
        },
    ],
    ends: &[
        EndRule {
            on: on(&["turn.completed"]),
            success: true,
        },
        EndRule {
            on: on(&["turn.failed"]),
            success: false,
        },
    ],
    input_keys: INPUT_KEYS,
    stderr_noise: &[
        "WARNING: proceeding, even though we could not create PATH aliases",
        "Reading additional input from stdin",
        "Reading prompt from stdin",
    ],
};

#[cfg(test)]
mod tests {
    use crate::agent::vocabulary::test_support::{fixture, names, run, usage};
    use crate::agent::vocabulary::{canary_silent, read, usage_gap};
    use crate::agent::{Provider, ToolCall};

    const CODEX_OFFLINE: &str =
        "Reconnecting... waiting for network (Connection failed: error sending request)";

    // ---- Codex: real runs -------------------------------------------------

    #[test]
    fn codex_network_down_keeps_the_last_retry_as_error() {
        let r = run!(Provider::OpenAi, "codex-json");
        assert_eq!(r.events, 9);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(CODEX_OFFLINE));
        // The `error` item (WebSocket fallback) is a warning, not an answer.
        assert_eq!(r.final_text, None);
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.usage, None);
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.model, None);
        assert!(canary_silent(&r));

        let r = run!(Provider::OpenAi, "codex-json-long");
        assert_eq!(r.events, 17);
        assert_eq!(r.error.as_deref(), Some(CODEX_OFFLINE));
        assert_eq!(r.final_text, None);
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn codex_stderr_only_failures() {
        let r = run!(Provider::OpenAi, "codex-json-nogit");
        assert_eq!(r.events, 0);
        assert_eq!(
            r.error.as_deref(),
            Some("Not inside a trusted directory and --skip-git-repo-check was not specified.")
        );
        let r = run!(Provider::OpenAi, "codex-noprompt");
        assert_eq!(r.error.as_deref(), Some("No prompt provided via stdin."));
        let r = run!(Provider::OpenAi, "codex-badflag");
        assert_eq!(
            r.error.as_deref(),
            Some("error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>' [possible values: read-only, workspace-write, danger-full-access]")
        );
    }

    // ---- Codex: public captures -------------------------------------------

    #[test]
    fn codex_public_command_execution() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-2.jsonl"),
            "",
        );
        assert_eq!(r.events, 7);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "command_execution".into(),
                input: "bash -lc ls".into(),
                ok: Some(true),
                output: "stream-output-1.jsonl\nstream-output-2.jsonl\ntest.js\n".into(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Files here: `stream-output-1.jsonl`, `stream-output-2.jsonl`, `test.js`.")
        );
        assert_eq!(r.usage, usage(6040, 129, 4992));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.error, None);
        assert!(!usage_gap(&r));
    }

    #[test]
    fn codex_public_file_change() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-3.jsonl"),
            "",
        );
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "file_change".into(),
                input: "add /private/tmp/codex-research-test/hello.txt".into(),
                ok: Some(true),
                output: String::new(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Created `hello.txt` containing `Hello from Codex`.")
        );
        assert_eq!(r.usage, usage(6008, 51, 4096));
        assert_eq!(r.error, None);
    }

    #[test]
    fn codex_public_reads_and_listings() {
        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-4.jsonl"),
            "",
        );
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].input, "bash -lc 'cat test.js'");
        assert_eq!(r.tool_calls[0].ok, Some(true));
        assert_eq!(r.tool_calls[0].output, "console.log('Hello World');\n");
        assert!(r
            .final_text
            .as_deref()
            .unwrap()
            .starts_with("`test.js` simply contains"));
        assert_eq!(r.usage, usage(6087, 204, 5120));

        let r = read(
            Provider::OpenAi,
            fixture!("public-codex-stream-output-5.jsonl"),
            "",
        );
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].input, "zsh -lc ls");
        assert_eq!(r.tool_calls[0].ok, Some(true));
        assert!(r.tool_calls[0]
            .output
            .ends_with("stream-output-5.jsonl\ntest.js\n"));
        assert!(r
            .final_text
            .as_deref()
            .unwrap()
            .starts_with("Found 1 text file"));
        assert_eq!(r.usage, usage(6086, 223, 2944));
    }

    #[test]
    fn codex_usage_sums_over_turns() {
        // Two captured runs back to back read as one two-turn stream.
        let stream = [
            fixture!("public-codex-stream-output-2.jsonl"),
            fixture!("public-codex-stream-output-3.jsonl"),
        ]
        .concat();
        let r = read(Provider::OpenAi, &stream, "");
        assert_eq!(r.usage, usage(6040 + 6008, 129 + 51, 4992 + 4096));
        assert_eq!(names(&r), ["command_execution", "file_change"]);
        assert_eq!(
            r.final_text.as_deref(),
            Some("Created `hello.txt` containing `Hello from Codex`.")
        );
    }

    // ---- Codex: shapes no capture covers ----------------------------------

    #[test]
    fn codex_failed_turn_exit_codes_and_other_items() {
        let stream = r#"{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"","status":"in_progress"}}
{"type":"item.started","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"search","arguments":{"query":"bug"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"search","arguments":{"query":"bug"},"result":{"content":[{"type":"text","text":"3 issues"}]},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'cargo test'","aggregated_output":"test failed\n","exit_code":101,"status":"failed"}}
{"type":"item.completed","item":{"id":"item_3","type":"web_search","query":"rust serde flatten"}}
{"type":"item.completed","item":{"id":"item_4","type":"error","message":"a warning"}}
{"type":"error","message":"Reconnecting... 1/5"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: bad key"}}
"#;
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(
            r.error.as_deref(),
            Some("unexpected status 401 Unauthorized: bad key")
        );
        assert_eq!(r.final_text, None);
        // Ordered by first sighting, completed later.
        assert_eq!(
            names(&r),
            ["command_execution", "mcp_tool_call", "web_search"]
        );
        assert_eq!(r.tool_calls[0].ok, Some(false));
        assert_eq!(r.tool_calls[0].output, "test failed\n");
        assert_eq!(r.tool_calls[1].input, "github search bug");
        assert_eq!(r.tool_calls[1].ok, Some(true));
        assert_eq!(r.tool_calls[1].output, "3 issues");
        assert_eq!(r.tool_calls[2].input, "rust serde flatten");
        assert_eq!(r.tool_calls[2].ok, None);
        assert_eq!(
            r.tool_calls.iter().map(|c| c.step).collect::<Vec<_>>(),
            [1, 2, 3]
        );
    }

    #[test]
    fn codex_retries_then_success_is_no_error() {
        let stream = r#"{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}
"#;
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(r.error, None);
        assert_eq!(r.final_text.as_deref(), Some("ok"));
        assert_eq!(r.usage, usage(10, 3, 0));
    }
}
