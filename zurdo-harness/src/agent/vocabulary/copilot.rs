//! The GitHub Copilot CLI's table.

use super::rules::{
    on, on_if, EndRule, ErrorRule, Fold, Input, Is, Items, Level, ModelAt, ModelRule, Text,
    TextMode, TextRule, ToolRule, UsageRule, Verdict, Vocabulary, INPUT_KEYS,
};
use crate::agent::Provider;

/// GitHub Copilot CLI, `--output-format json`.
pub static COPILOT: Vocabulary = Vocabulary {
    provider: Provider::GitHub,
    kind: &["type"],
    text: &[TextRule {
        on: on_if(
            &["assistant.message"],
            &[(&["data", "content"], Is::Present)],
        ),
        at: Text::Field(&["data", "content"]),
        mode: TextMode::Message,
    }],
    tools: &[
        ToolRule {
            on: on(&["tool.execution_start"]),
            items: Items::One(&["data"]),
            id: &["toolCallId"],
            opens: true,
            name: Some(&["toolName"]),
            input: Some(Input {
                each: None,
                fields: &[&["arguments"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["tool.execution_complete"]),
            items: Items::One(&["data"]),
            id: &["toolCallId"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Flag(&["success"])],
            output: &[
                &["error", "message"],
                &["result", "content"],
                &["result", "detailedContent"],
            ],
        },
    ],
    usage: &[UsageRule {
        on: on(&["assistant.message"]),
        at: &["data"],
        per_entry: false,
        input: &[],
        cached: &[],
        output: &[&["outputTokens"]],
        fold: Fold::Add,
    }],
    cost: &[],
    model: &[
        ModelRule {
            on: on(&["session.start"]),
            at: ModelAt::Field(&["data", "selectedModel"]),
            skip: &["auto"],
        },
        ModelRule {
            on: on(&["assistant.message"]),
            at: ModelAt::Field(&["data", "model"]),
            skip: &["auto"],
        },
    ],
    errors: &[
        // Stands unless the final `result` line says exitCode 0.
        ErrorRule {
            on: on(&["session.error"]),
            level: Level::Pending,
            text: &[
                Text::Field(&["data", "message"]),
                Text::Field(&["data", "errorType"]),
            ],
        },
        ErrorRule {
            on: on_if(&["result"], &[(&["exitCode"], Is::NonZero)]),
            level: Level::Fallback,
            text: &[
                Text::Prefixed("blocked: ", &["blocker"]),
                Text::Prefixed("copilot exit code ", &["exitCode"]),
            ],
        },
    ],
    ends: &[
        EndRule {
            on: on_if(&["result"], &[(&["exitCode"], Is::Zero)]),
            success: true,
        },
        EndRule {
            on: on(&["result"]),
            success: false,
        },
    ],
    input_keys: INPUT_KEYS,
    stderr_noise: &[],
};

#[cfg(test)]
mod tests {
    use crate::agent::vocabulary::test_support::{run, usage};
    use crate::agent::vocabulary::{canary_silent, read, usage_gap};
    use crate::agent::{Provider, ToolCall};

    // ---- Copilot ----------------------------------------------------------

    #[test]
    fn copilot_stderr_auth_errors() {
        for r in [
            run!(Provider::GitHub, "copilot-json"),
            run!(Provider::GitHub, "copilot-stdin"),
            run!(Provider::GitHub, "copilot-text"),
        ] {
            assert_eq!(r.events, 0);
            assert_eq!(
                r.error.as_deref(),
                Some("Error: No authentication information found.")
            );
            assert_eq!(r.final_text, None);
            assert!(!canary_silent(&r));
        }
        let r = run!(Provider::GitHub, "copilot-fake");
        assert_eq!(
            r.error.as_deref(),
            Some("Error: Authentication token found but could not be validated.")
        );
    }

    const COPILOT_SUCCESS: &str = r#"{"type":"session.start","data":{"sessionId":"s","selectedModel":"gpt-5.4","context":{"cwd":"/w"},"copilotVersion":"1.0.102"},"id":"1","timestamp":"t","parentId":null}
{"type":"user.message","data":{"content":"fix the test"},"id":"2"}
{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"3"}
{"type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"Let me"},"id":"4","ephemeral":true}
{"type":"assistant.message","data":{"messageId":"m1","content":"Let me look.","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"cargo test","description":"run tests"},"type":"function"}],"outputTokens":12},"id":"5"}
{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"cargo test","description":"run tests"}},"id":"6"}
{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"test result: ok. 3 passed","detailedContent":"…"}},"id":"7"}
{"type":"assistant.message","data":{"messageId":"m2","content":"","toolRequests":[{"toolCallId":"c2","name":"edit","arguments":"{\"path\":\"src/lib.rs\",\"old_str\":\"a\",\"new_str\":\"b\"}","type":"function"}],"outputTokens":30},"id":"8"}
{"type":"tool.execution_start","data":{"toolCallId":"c2","toolName":"edit","arguments":"{\"path\":\"src/lib.rs\",\"old_str\":\"a\",\"new_str\":\"b\"}"},"id":"9"}
{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":false,"error":{"message":"old_str not found"}},"id":"10"}
{"type":"session.error","data":{"errorType":"model_call","message":"transient 503"},"id":"11"}
{"type":"assistant.message","data":{"messageId":"m3","content":"Fixed the failing test.","toolRequests":[],"outputTokens":8},"id":"12"}
{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"13"}
{"type":"result","timestamp":"t","sessionId":"s","exitCode":0,"usage":{"premiumRequests":1,"totalApiDurationMs":900,"sessionDurationMs":1200,"codeChanges":{"linesAdded":1,"linesRemoved":1,"filesModified":["src/lib.rs"]}}}
"#;

    #[test]
    fn copilot_success_with_tool_calls_and_output_tokens() {
        let r = read(Provider::GitHub, COPILOT_SUCCESS, "");
        assert_eq!(r.events, 14);
        assert_eq!(r.final_text.as_deref(), Some("Fixed the failing test."));
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall {
                    step: 1,
                    name: "bash".into(),
                    input: "cargo test".into(),
                    ok: Some(true),
                    output: "test result: ok. 3 passed".into(),
                },
                ToolCall {
                    step: 2,
                    name: "edit".into(),
                    input: "src/lib.rs".into(),
                    ok: Some(false),
                    output: "old_str not found".into(),
                },
            ]
        );
        assert_eq!(r.usage, usage(0, 12 + 30 + 8, 0));
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.model.as_deref(), Some("gpt-5.4"));
        // exitCode 0 clears the transient session.error.
        assert_eq!(r.error, None);
        assert!(!usage_gap(&r));
        assert!(!canary_silent(&r));
    }

    #[test]
    fn copilot_session_error_and_exit_code() {
        let stream = r#"{"type":"session.start","data":{"selectedModel":"auto"}}
{"type":"session.error","data":{"errorType":"quota","message":"You have no quota","errorCode":"quota_exceeded"}}
{"type":"result","exitCode":1}
"#;
        let r = read(Provider::GitHub, stream, "");
        assert_eq!(r.error.as_deref(), Some("You have no quota"));
        assert_eq!(r.model, None);
        assert!(canary_silent(&r));

        let r = read(Provider::GitHub, r#"{"type":"result","exitCode":1}"#, "");
        assert_eq!(r.error.as_deref(), Some("copilot exit code 1"));
    }
}
