//! Claude Code's table.

use super::rules::{
    on, on_if, CostRule, EndRule, ErrorRule, Fold, Input, Is, Items, Level, ModelAt, ModelRule,
    Text, TextMode, TextRule, ToolRule, UsageRule, Verdict, Vocabulary, INPUT_KEYS,
};
use crate::agent::Provider;

/// Claude Code, `--output-format stream-json --verbose` (and
/// `--output-format json`, which prints the `result` event alone).
pub static CLAUDE: Vocabulary = Vocabulary {
    provider: Provider::Anthropic,
    kind: &["type"],
    text: &[
        TextRule {
            on: on_if(&["result"], &[(&["is_error"], Is::NotTrue)]),
            at: Text::Field(&["result"]),
            mode: TextMode::Result,
        },
        // Top-level assistant messages written by the model: not a
        // sub-agent's, not a synthetic error message.
        TextRule {
            on: on_if(
                &["assistant"],
                &[
                    (&["error"], Is::Absent),
                    (&["message", "model"], Is::Not("<synthetic>")),
                    (&["parent_tool_use_id"], Is::Absent),
                ],
            ),
            at: Text::Blocks {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("text"))],
                field: &["text"],
            },
            mode: TextMode::Message,
        },
    ],
    tools: &[
        ToolRule {
            on: on(&["assistant"]),
            items: Items::Each {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("tool_use"))],
            },
            id: &["id"],
            opens: true,
            name: Some(&["name"]),
            input: Some(Input {
                each: None,
                fields: &[&["input"]],
            }),
            ok: &[],
            output: &[],
        },
        ToolRule {
            on: on(&["user"]),
            items: Items::Each {
                list: &["message", "content"],
                tests: &[(&["type"], Is::Str("tool_result"))],
            },
            id: &["tool_use_id"],
            opens: false,
            name: None,
            input: None,
            ok: &[Verdict::Fault(&["is_error"])],
            output: &[&["content"]],
        },
    ],
    usage: &[UsageRule {
        on: on(&["result"]),
        at: &["usage"],
        per_entry: false,
        input: &[
            &["input_tokens"],
            &["cache_read_input_tokens"],
            &["cache_creation_input_tokens"],
        ],
        cached: &[&["cache_read_input_tokens"]],
        output: &[&["output_tokens"]],
        fold: Fold::Replace,
    }],
    cost: &[CostRule {
        on: on(&["result"]),
        at: &["total_cost_usd"],
        fold: Fold::Replace,
    }],
    model: &[
        ModelRule {
            on: on_if(&["system"], &[(&["subtype"], Is::Str("init"))]),
            at: ModelAt::Field(&["model"]),
            skip: &[],
        },
        ModelRule {
            on: on(&["assistant"]),
            at: ModelAt::Field(&["message", "model"]),
            skip: &["<synthetic>"],
        },
        ModelRule {
            on: on(&["result"]),
            at: ModelAt::FirstKey(&["modelUsage"]),
            skip: &[],
        },
    ],
    errors: &[
        // Judged by is_error, not subtype: a missing login comes back as
        // `"subtype":"success","is_error":true`.
        ErrorRule {
            on: on_if(&["result"], &[(&["is_error"], Is::True)]),
            level: Level::Fatal,
            text: CLAUDE_RESULT_ERROR,
        },
        // error_max_turns, error_during_execution, error_max_budget_usd…
        // carry `errors[]`; read them even if is_error were ever false.
        ErrorRule {
            on: on_if(&["result"], &[(&["subtype"], Is::Prefix("error"))]),
            level: Level::Fatal,
            text: CLAUDE_RESULT_ERROR,
        },
        // authentication_failed, model_not_found, rate_limit, server_error…
        ErrorRule {
            on: on_if(&["assistant"], &[(&["error"], Is::Present)]),
            level: Level::Pending,
            text: &[
                Text::Blocks {
                    list: &["message", "content"],
                    tests: &[(&["type"], Is::Str("text"))],
                    field: &["text"],
                },
                Text::Field(&["error"]),
            ],
        },
    ],
    ends: &[EndRule {
        on: on(&["result"]),
        success: true,
    }],
    input_keys: INPUT_KEYS,
    stderr_noise: &[],
};

const CLAUDE_RESULT_ERROR: &[Text] = &[
    Text::Field(&["result"]),
    Text::Field(&["errors"]),
    Text::Prefixed("result subtype ", &["subtype"]),
];

#[cfg(test)]
mod tests {
    use crate::agent::vocabulary::test_support::{fixture, names, run, usage, ZERO};
    use crate::agent::vocabulary::{canary_silent, read, usage_gap};
    use crate::agent::{Provider, ToolCall};

    const NOT_LOGGED_IN: &str = "Not logged in · Please run /login";

    // ---- Claude Code: real runs -------------------------------------------

    #[test]
    fn claude_streamjson_not_logged_in_judged_by_is_error() {
        let r = run!(Provider::Anthropic, "claude-streamjson");
        assert_eq!(r.events, 3);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        // The synthetic message and the is_error result are not an answer.
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.cost_usd, Some(0.0));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-8[1m]"));
        assert!(r.tool_calls.is_empty());
        assert!(canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn claude_json_single_result_objects() {
        for (stdout, stderr) in [
            (
                fixture!("claude-json.stdout"),
                fixture!("claude-json.stderr"),
            ),
            (
                fixture!("claude-badmodel.stdout"),
                fixture!("claude-badmodel.stderr"),
            ),
            (
                fixture!("claude-stdin.stdout"),
                fixture!("claude-stdin.stderr"),
            ),
        ] {
            let r = read(Provider::Anthropic, stdout, stderr);
            assert_eq!(r.events, 1);
            assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
            assert_eq!(r.final_text, None);
            assert_eq!(r.usage, Some(ZERO));
            assert_eq!(r.cost_usd, Some(0.0));
            // modelUsage is `{}`: no model before the login check.
            assert_eq!(r.model, None);
        }
    }

    #[test]
    fn claude_maxturns_sandbox_reads_the_resolved_model() {
        let r = run!(Provider::Anthropic, "claude-maxturns-sandbox");
        assert_eq!(r.events, 3);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-5"));
        assert_eq!(r.final_text, None);
    }

    #[test]
    fn claude_fakekey_retries_then_connection_error() {
        let r = run!(Provider::Anthropic, "claude-fakekey-long");
        assert_eq!(r.events, 13); // init, 10 api_retry, assistant, result
        assert_eq!(
            r.error.as_deref(),
            Some("API Error: Unable to connect to API (ConnectionRefused)")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.usage, Some(ZERO));
        assert_eq!(r.cost_usd, Some(0.0));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-8[1m]"));
    }

    #[test]
    fn claude_stderr_only_failures() {
        let root = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";
        for r in [
            run!(Provider::Anthropic, "claude-maxturns"),
            run!(Provider::Anthropic, "claude-bypassmode-root"),
        ] {
            assert_eq!(r.events, 0);
            assert_eq!(r.error.as_deref(), Some(root));
            assert!(!canary_silent(&r));
        }
        let r = run!(Provider::Anthropic, "claude-noverbose");
        assert_eq!(r.events, 0);
        assert_eq!(
            r.error.as_deref(),
            Some("Error: When using --print, --output-format=stream-json requires --verbose")
        );
    }

    #[test]
    fn claude_text_output_is_skipped_counted_and_explains_the_failure() {
        let r = run!(Provider::Anthropic, "claude-text");
        assert_eq!(r.events, 0);
        assert_eq!(r.non_json_lines, 1);
        assert_eq!(r.final_text, None);
        assert_eq!(r.error.as_deref(), Some(NOT_LOGGED_IN));
        assert!(!canary_silent(&r));
    }

    // ---- Claude Code: public captures -------------------------------------

    #[test]
    fn claude_public_basic_query() {
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-basic_query.ndjson"),
            "",
        );
        assert_eq!(r.events, 3);
        assert_eq!(r.final_text.as_deref(), Some("4"));
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.usage, usage(10 + 21570, 25, 0));
        assert_eq!(r.cost_usd, Some(0.1354875));
        assert!(r.cost_usd.unwrap() > 0.0);
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert_eq!(r.error, None);
        assert!(!canary_silent(&r));
        assert!(!usage_gap(&r));
    }

    #[test]
    fn claude_public_session_tool_call_matched_by_id() {
        // Three pretty-printed events of one session, one after the other.
        let stream = [
            fixture!("public-claude-assistant_message.json"),
            fixture!("public-claude-user_message.json"),
            fixture!("public-claude-result_success.json"),
        ]
        .join("\n");
        let r = read(Provider::Anthropic, &stream, "");
        assert_eq!(r.events, 3);
        assert_eq!(r.non_json_lines, 0);
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "Bash".into(),
                input: "ls -la".into(),
                ok: Some(true),
                output: "total 1976\ndrwxrwxr-x  9 cyou cyou    4096 Jan 11 00:22 .\ndrwxr-x--- 54 cyou cyou    4096 Jan 11 00:26 ..".into(),
            }]
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Here are the files in the current directory.")
        );
        assert_eq!(r.usage, usage(18 + 25067 + 17254, 424, 17254));
        assert_eq!(r.cost_usd, Some(0.24722425));
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert_eq!(r.error, None);
    }

    #[test]
    fn claude_public_single_events() {
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-assistant_message.json"),
            "",
        );
        assert_eq!(r.events, 1);
        assert_eq!(names(&r), ["Bash"]);
        assert_eq!(r.tool_calls[0].ok, None);
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert!(canary_silent(&r));

        // A result for a call never opened is not a call.
        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-user_message.json"),
            "",
        );
        assert_eq!(r.events, 1);
        assert!(r.tool_calls.is_empty());

        let r = read(
            Provider::Anthropic,
            fixture!("public-claude-result_success.json"),
            "",
        );
        assert_eq!(
            r.final_text.as_deref(),
            Some("Here are the files in the current directory.")
        );
        // No init event: the model comes from modelUsage.
        assert_eq!(r.model.as_deref(), Some("claude-opus-4-5-20251101"));
    }

    // ---- Claude Code: shapes no capture covers ----------------------------

    #[test]
    fn claude_error_subtypes_carry_errors() {
        let stream = r#"{"type":"system","subtype":"init","model":"claude-sonnet-5"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"text","text":"Working on it."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"src/lib.rs"}}]},"parent_tool_use_id":null}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"no such file"}],"is_error":true}]}}
{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (3)"],"total_cost_usd":0.5,"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":7}}
"#;
        let r = read(Provider::Anthropic, stream, "");
        assert_eq!(
            r.error.as_deref(),
            Some("Reached maximum number of turns (3)")
        );
        assert_eq!(r.final_text.as_deref(), Some("Working on it."));
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                step: 1,
                name: "Read".into(),
                input: "src/lib.rs".into(),
                ok: Some(false),
                output: "no such file".into(),
            }]
        );
        assert_eq!(r.usage, usage(125, 7, 100));
        assert_eq!(r.cost_usd, Some(0.5));
    }

    #[test]
    fn claude_assistant_error_field_and_recovery() {
        let model_missing = r#"{"type":"system","subtype":"init","model":"nope"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"There's an issue with the selected model (nope)."}]},"error":"model_not_found"}
"#;
        // No result line (killed): the assistant error stands.
        let r = read(Provider::Anthropic, model_missing, "");
        assert_eq!(
            r.error.as_deref(),
            Some("There's an issue with the selected model (nope).")
        );
        assert_eq!(r.final_text, None);
        assert_eq!(r.model.as_deref(), Some("nope"));

        // A rate-limit notice followed by a successful result is no error.
        let recovered = r#"{"type":"assistant","message":{"model":"<synthetic>","content":[]},"error":"rate_limit"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"text","text":"done"}]}}
{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.01,"usage":{"input_tokens":1,"output_tokens":2}}
"#;
        let r = read(Provider::Anthropic, recovered, "");
        assert_eq!(r.error, None);
        assert_eq!(r.final_text.as_deref(), Some("done"));
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-5"));
    }

    #[test]
    fn claude_subagent_text_is_not_the_final_text() {
        let stream = r#"{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"main"}]},"parent_tool_use_id":null}
{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"sub-agent"}]},"parent_tool_use_id":"t9"}
"#;
        let r = read(Provider::Anthropic, stream, "");
        assert_eq!(r.final_text.as_deref(), Some("main"));
        assert!(usage_gap(&r));
    }
}
