//! Every signature on the CLIs' own words: the real runs under
//! `tests/fixtures/streams/` (no credentials, no network) and, for what no
//! run here could provoke, the texts the sources in `signatures.rs` quote,
//! set in each CLI's stream the way it prints them.

use std::collections::BTreeSet;

use zurdo::exec::Stream;

use super::signatures::SIGNATURES;
use super::FailureKind::{self, *};
use super::{classify, Ended, InfraFailure, Watcher};
use crate::agent::vocabulary;
use crate::agent::Provider::{self, *};

/// A real run's stdout and stderr.
macro_rules! run {
    ($name:literal) => {
        (
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/",
                $name,
                ".stdout"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/",
                $name,
                ".stderr"
            )),
        )
    };
}

/// One test vector: a run and what it must be classified as.
struct Vector {
    name: &'static str,
    provider: Provider,
    stdout: &'static str,
    stderr: &'static str,
    exit: Option<i32>,
    kind: Option<FailureKind>,
    /// A piece of the message it must quote.
    says: &'static str,
}

const fn v(
    name: &'static str,
    provider: Provider,
    (stdout, stderr): (&'static str, &'static str),
    exit: Option<i32>,
    kind: Option<FailureKind>,
    says: &'static str,
) -> Vector {
    Vector {
        name,
        provider,
        stdout,
        stderr,
        exit,
        kind,
        says,
    }
}

/// Runs `vector` through a watcher fed as the CLI wrote (stdout, then
/// stderr), returning what it concluded and the signatures it saw.
fn watch(vector: &Vector) -> (Option<InfraFailure>, BTreeSet<usize>) {
    let report = vocabulary::read(vector.provider, vector.stdout, vector.stderr);
    let mut watcher = Watcher::new(vector.provider);
    // Fed in small chunks, so lines arrive split as a pipe splits them.
    for stream in [Stream::Stdout, Stream::Stderr] {
        let text = match stream {
            Stream::Stdout => vector.stdout,
            Stream::Stderr => vector.stderr,
        };
        for chunk in text.as_bytes().chunks(7) {
            watcher.feed(stream, chunk);
        }
    }
    let seen_before = watcher.seen();
    let failure = watcher.conclude_seen(Ended {
        exit_code: vector.exit,
        signal: None,
        timed_out: false,
        report: &report,
    });
    let mut seen = seen_before;
    seen.extend(failure.1);
    (failure.0, seen)
}

const CLAUDE_MODEL_NOT_FOUND: &str = r#"{"type":"system","subtype":"init","model":"nope"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"There's an issue with the selected model (nope). It may not exist or you may not have access to it. Run /model to pick a different model."}]},"error":"model_not_found"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":404,"result":"There's an issue with the selected model (nope). It may not exist or you may not have access to it. Run /model to pick a different model."}
"#;

const CLAUDE_RATE_LIMITED: &str = r#"{"type":"system","subtype":"init","model":"claude-sonnet-5"}
{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1781713800,"rateLimitType":"five_hour"},"session_id":"s"}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your limit · resets 7pm (America/Los_Angeles)"}]},"error":"rate_limit"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your limit · resets 7pm (America/Los_Angeles)","terminal_reason":"api_error"}
"#;

const CLAUDE_SPEND: &str = r#"{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your monthly spend limit. Switch to another model to continue."}]},"error":"billing_error"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your monthly spend limit. Switch to another model to continue.","terminal_reason":"api_error"}
"#;

const CLAUDE_SESSION_LIMIT: &str = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit · resets 1:30am (Asia/Tokyo)"}
"#;

const CLAUDE_EPOCH: &str = r#"{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1755615600"}
"#;

const CLAUDE_429: &str = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed your account's rate limit. Please try again later.\"}}"}
"#;

const CLAUDE_BAD_KEY: &str = r#"{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Fix external API key"}
"#;

const CLAUDE_OLD_CLI: &str = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":400,"result":"API Error: 400 Claude Code 2.1.258 does not support this model; version 2.1.280 or newer is required"}
"#;

fn codex_failed(message: &'static str) -> &'static str {
    let line = serde_json::json!({"type": "turn.failed", "error": {"message": message}});
    let text = format!(
        "{{\"type\":\"thread.started\",\"thread_id\":\"t\"}}\n{{\"type\":\"turn.started\"}}\n{}\n{line}\n",
        serde_json::json!({"type": "error", "message": message})
    );
    Box::leak(text.into_boxed_str())
}

fn copilot_error(kind: &str, message: &str) -> &'static str {
    let text = format!(
        "{}\n{}\n{{\"type\":\"result\",\"exitCode\":1}}\n",
        serde_json::json!({"type": "session.start", "data": {"selectedModel": "gpt-5.4"}}),
        serde_json::json!({"type": "session.error", "data": {"errorType": kind, "message": message}}),
    );
    Box::leak(text.into_boxed_str())
}

fn gemini_failed(message: &str) -> &'static str {
    let text = format!(
        "{{\"type\":\"init\",\"model\":\"gemini-2.5-pro\"}}\n{}\n",
        serde_json::json!({"type": "result", "status": "error", "error": {"type": "unknown", "message": message}, "stats": {}})
    );
    Box::leak(text.into_boxed_str())
}

fn vectors() -> Vec<Vector> {
    vec![
        // ----- claude
        v("claude-streamjson", Anthropic, run!("claude-streamjson"), Some(1), Some(AuthFailed), "Not logged in · Please run /login"),
        v("claude-json", Anthropic, run!("claude-json"), Some(1), Some(AuthFailed), "Not logged in"),
        v("claude-text", Anthropic, run!("claude-text"), Some(1), Some(AuthFailed), "Not logged in"),
        v("claude-badmodel (login is checked first)", Anthropic, run!("claude-badmodel"), Some(1), Some(AuthFailed), "Not logged in"),
        v("claude-maxturns-sandbox", Anthropic, run!("claude-maxturns-sandbox"), Some(1), Some(AuthFailed), "Not logged in"),
        v("claude invalid key", Anthropic, (CLAUDE_BAD_KEY, ""), Some(1), Some(AuthFailed), "Invalid API key"),
        v("claude model_not_found", Anthropic, (CLAUDE_MODEL_NOT_FOUND, ""), Some(1), Some(ModelUnavailable), "issue with the selected model (nope)"),
        v("claude too old for the model", Anthropic, (CLAUDE_OLD_CLI, ""), Some(1), Some(ModelUnavailable), "does not support this model"),
        v("claude rate limited", Anthropic, (CLAUDE_RATE_LIMITED, ""), Some(1), Some(RateLimited), "hit your limit · resets 7pm"),
        v("claude session limit", Anthropic, (CLAUDE_SESSION_LIMIT, ""), Some(1), Some(RateLimited), "session limit"),
        v("claude usage limit with its epoch", Anthropic, (CLAUDE_EPOCH, ""), Some(1), Some(RateLimited), "usage limit reached|1755615600"),
        v("claude 429", Anthropic, (CLAUDE_429, ""), Some(1), Some(RateLimited), "rate_limit_error"),
        v("claude spend limit", Anthropic, (CLAUDE_SPEND, ""), Some(1), Some(QuotaExhausted), "monthly spend limit"),
        v("claude connection refused", Anthropic, (r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: Unable to connect to API (ConnectionRefused)"}
"#, ""), Some(1), Some(Network), "Unable to connect to API"),
        v("claude-fakekey-long", Anthropic, run!("claude-fakekey-long"), Some(1), Some(Network), "api_retry with no HTTP status: error unknown"),
        // ----- codex
        v("codex-json", OpenAi, run!("codex-json"), None, Some(Network), "Reconnecting... waiting for network (Connection failed: error sending request)"),
        v("codex-json-long", OpenAi, run!("codex-json-long"), None, Some(Network), "waiting for network"),
        v("codex 401", OpenAi, (codex_failed("unexpected status 401 Unauthorized: Missing bearer or basic authentication in header"), ""), Some(1), Some(AuthFailed), "401 Unauthorized"),
        v("codex login status", OpenAi, ("", "Not logged in\n"), Some(1), Some(AuthFailed), "Not logged in"),
        v("codex quota (text mode)", OpenAi, ("", "ERROR: Quota exceeded. Check your plan and billing details.\n"), Some(1), Some(QuotaExhausted), "Quota exceeded"),
        v("codex usage limit", OpenAi, (codex_failed("You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Apr 28th, 2026 10:03 PM."), ""), Some(1), Some(RateLimited), "hit your usage limit"),
        v("codex 429", OpenAi, (codex_failed("exceeded retry limit, last status: 429 Too Many Requests, request id: 8d7f"), ""), Some(1), Some(RateLimited), "429 Too Many Requests"),
        v("codex usage_limit_reached", OpenAi, (codex_failed(r#"{"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1777936568,"resets_in_seconds":13872},"status_code":429}"#), ""), Some(1), Some(RateLimited), "usage_limit_reached"),
        v("codex ChatGPT account model", OpenAi, (codex_failed("The 'gpt-4.1-codex' model is not supported when using Codex with a ChatGPT account."), ""), Some(1), Some(ModelUnavailable), "not supported when using Codex"),
        v("codex unknown model", OpenAi, (codex_failed("unexpected status 404 Not Found: The model `gpt-9` does not exist or you do not have access to it."), ""), Some(1), Some(ModelUnavailable), "does not exist"),
        // ----- copilot
        v("copilot-json", GitHub, run!("copilot-json"), Some(1), Some(AuthFailed), "No authentication information found"),
        v("copilot-stdin", GitHub, run!("copilot-stdin"), Some(1), Some(AuthFailed), "No authentication information found"),
        v("copilot-text", GitHub, run!("copilot-text"), Some(1), Some(AuthFailed), "No authentication information found"),
        v("copilot-fake (a token it cannot check without network)", GitHub, run!("copilot-fake"), Some(1), Some(Network), "network fetch failed"),
        v("copilot quota", GitHub, (copilot_error("quota", "You have no quota"), ""), Some(1), Some(QuotaExhausted), "You have no quota"),
        v("copilot rate limit", GitHub, (copilot_error("rate_limit", "Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period. Please try again in 51 hours. Please review our Terms of Service (https://docs.github.com/site-policy/github-terms/github-terms-of-service)."), ""), Some(1), Some(RateLimited), "hit a rate limit"),
        v("copilot rate-limited", GitHub, ("", "Error: Sorry, you have been rate-limited. Please wait 2 minutes before trying again or consider switching to Auto.\n"), Some(1), Some(RateLimited), "rate-limited"),
        v("copilot model", GitHub, ("", "Error: No supported model available: model \"gpt-9\" is not in the list of available models\n"), Some(1), Some(ModelUnavailable), "No supported model available"),
        // ----- gemini
        v("gemini-streamjson", Google, run!("gemini-streamjson"), Some(41), Some(AuthFailed), "Please set an Auth method"),
        v("gemini-json", Google, run!("gemini-json"), Some(41), Some(AuthFailed), "Please set an Auth method"),
        v("gemini bad key", Google, (gemini_failed("[API Error: API key not valid. Please pass a valid API key.]"), ""), Some(1), Some(AuthFailed), "API key not valid"),
        v("gemini TerminalQuotaError", Google, ("", "TerminalQuotaError: You have exhausted your daily quota on this model.\n"), Some(1), Some(QuotaExhausted), "TerminalQuotaError"),
        v("gemini quota", Google, (gemini_failed("[API Error: {\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\"}}]"), ""), Some(1), Some(QuotaExhausted), "exceeded your current quota"),
        v("gemini 429", Google, (gemini_failed("[API Error: {\"error\":{\"message\":\"{\\n  \\\"error\\\": {\\n    \\\"code\\\": 429,\\n    \\\"message\\\": \\\"Resource has been exhausted (e.g. check quota).\\\",\\n    \\\"status\\\": \\\"RESOURCE_EXHAUSTED\\\"\\n  }\\n}\\n\",\"code\":429,\"status\":\"Too Many Requests\"}}]"), ""), Some(1), Some(RateLimited), "Resource has been exhausted"),
        v("gemini-fake-long", Google, run!("gemini-fake-long"), Some(1), Some(Network), "fetch failed"),
        v("gemini-fake-streamjson-trust (killed mid-retry)", Google, run!("gemini-fake-streamjson-trust"), None, Some(Network), "Attempt 3 failed"),
        v("gemini unknown model", Google, (gemini_failed("[API Error: models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.]"), ""), Some(1), Some(ModelUnavailable), "is not found for API version"),
        v("gemini plan-gated model", Google, (gemini_failed("[API Error: {\"error\":{\"code\":403,\"message\":\"The caller does not have permission to use model gemini-3-ultra on the current plan.\",\"status\":\"PERMISSION_DENIED\"}}]"), ""), Some(1), Some(ModelUnavailable), "does not have permission to use model"),
        // ----- the CLI refused to run, with no stream at all
        v("claude-noverbose", Anthropic, run!("claude-noverbose"), Some(1), Some(CliCrashed), "requires --verbose"),
        v("claude-bypassmode-root", Anthropic, run!("claude-bypassmode-root"), Some(1), Some(CliCrashed), "root/sudo"),
        v("codex-badflag", OpenAi, run!("codex-badflag"), Some(2), Some(CliCrashed), "invalid value 'bogus'"),
        v("codex-json-nogit", OpenAi, run!("codex-json-nogit"), Some(1), Some(CliCrashed), "Not inside a trusted directory"),
        v("codex-noprompt", OpenAi, run!("codex-noprompt"), Some(1), Some(CliCrashed), "No prompt provided"),
        v("gemini-fake-streamjson (untrusted folder)", Google, run!("gemini-fake-streamjson"), Some(55), Some(CliCrashed), "not running in a trusted directory"),
        v("codex panic", OpenAi, ("", "thread 'main' panicked at codex-rs/exec/src/lib.rs:12:5:\nboom\n"), Some(101), Some(CliCrashed), "panicked at"),
        // ----- the agent's own failures: not the CLI's
        v("claude max turns", Anthropic, (r#"{"type":"system","subtype":"init","model":"m"}
{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (3)"]}
"#, ""), Some(1), None, ""),
        v("claude rate limit it recovered from", Anthropic, (r#"{"type":"system","subtype":"api_retry","attempt":1,"error_status":null,"error":"unknown"}
{"type":"assistant","message":{"model":"<synthetic>","content":[]},"error":"rate_limit"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"text","text":"done"}]}}
{"type":"result","subtype":"success","is_error":false,"result":"done"}
"#, ""), Some(0), None, ""),
        v("codex retries then success", OpenAi, (r#"{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"}
{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}
"#, ""), Some(0), None, ""),
        v("gemini retried a 429, recovered, then failed on its own", Google, (r#"{"type":"init","model":"gemini-2.5-pro"}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"r1","parameters":{"command":"cargo test"}}
{"type":"tool_result","tool_id":"r1","status":"error","error":{"type":"exit","message":"exit code 101"}}
{"type":"result","status":"error","error":{"type":"FatalToolExecutionError","message":"Tool execution failed"},"stats":{}}
"#, "Attempt 1 failed with status 429. Retrying with backoff... ApiError: {\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}\n"), Some(1), None, ""),
        v("gemini turn limit", Google, ("", "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.\n"), Some(53), None, ""),
        v("codex public capture", OpenAi, (include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/streams/public-codex-stream-output-2.jsonl")), ""), Some(0), None, ""),
    ]
}

#[test]
fn every_vector_is_classified_as_its_cli_means_it_and_every_signature_is_seen() {
    let mut covered = BTreeSet::new();
    for vector in vectors() {
        let (failure, seen) = watch(&vector);
        covered.extend(seen);
        let kind = failure.as_ref().map(|f| f.kind);
        assert_eq!(kind, vector.kind, "{}: {failure:?}", vector.name);
        if let Some(f) = &failure {
            assert_eq!(f.provider, vector.provider, "{}", vector.name);
            assert!(
                f.message.contains(vector.says),
                "{}: {:?} does not quote {:?}",
                vector.name,
                f.message,
                vector.says
            );
            assert!(!f.message.contains('\n') && !f.message.contains('\u{1b}'));
            // The same run classified at once, from its capture.
            let whole = classify(
                vector.provider,
                vector.stdout,
                vector.stderr,
                vector.exit,
                None,
            );
            assert_eq!(whole.map(|w| w.kind), kind, "{}", vector.name);
        }
    }
    let missed: Vec<String> = SIGNATURES
        .iter()
        .enumerate()
        .filter(|(i, _)| !covered.contains(i))
        .map(|(_, s)| format!("{:?} {:?}: {}", s.provider, s.kind, s.source))
        .collect();
    assert!(
        missed.is_empty(),
        "signatures no vector shows:\n{}",
        missed.join("\n")
    );
}

#[test]
fn a_cli_that_keeps_waiting_is_stopped_at_the_line_that_says_so() {
    // codex without network: the first "waiting for network" stops it.
    let (stdout, _) = run!("codex-json");
    let mut watcher = Watcher::new(OpenAi);
    let mut stopped_at = None;
    for (n, line) in stdout.lines().enumerate() {
        if let Some(f) = watcher.feed(Stream::Stdout, format!("{line}\n").as_bytes()) {
            assert!(f.stopped && f.kind == Network, "{f:?}");
            stopped_at.get_or_insert(n);
        }
    }
    let first = stdout
        .lines()
        .position(|l| l.contains("waiting for network"))
        .expect("the capture has it");
    assert_eq!(stopped_at, Some(first), "stopped once, at that line");

    // claude's api_retry without an HTTP status: the fourth in a row.
    let (stdout, _) = run!("claude-fakekey-long");
    let mut watcher = Watcher::new(Anthropic);
    let stops: Vec<usize> = stdout
        .lines()
        .enumerate()
        .filter_map(|(n, l)| {
            watcher
                .feed(Stream::Stdout, format!("{l}\n").as_bytes())
                .map(|_| n)
        })
        .collect();
    assert_eq!(stops, [4], "init, then retries 1..4");

    // gemini's retries on stderr: the third.
    let (_, stderr) = run!("gemini-fake-long");
    let mut watcher = Watcher::new(Google);
    let stop = watcher
        .feed(Stream::Stderr, stderr.as_bytes())
        .expect("stops");
    assert!(stop.message.starts_with("Attempt 3 failed."), "{stop:?}");

    // claude not logged in: the synthetic assistant error.
    let (stdout, _) = run!("claude-streamjson");
    let mut watcher = Watcher::new(Anthropic);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(watcher
        .feed(Stream::Stdout, format!("{}\n", lines[0]).as_bytes())
        .is_none());
    let stop = watcher
        .feed(Stream::Stdout, format!("{}\n", lines[1]).as_bytes())
        .expect("stops at the assistant error");
    assert_eq!(stop.kind, AuthFailed);
    assert_eq!(stop.message, "Not logged in · Please run /login");
}

#[test]
fn rate_limits_say_when_to_come_back() {
    let at = |f: Option<InfraFailure>| {
        f.and_then(|f| f.retry_after)
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
    };
    // The structured reset wins over the words.
    assert_eq!(
        at(classify(Anthropic, CLAUDE_RATE_LIMITED, "", Some(1), None)),
        Some(1_781_713_800)
    );
    assert_eq!(
        at(classify(Anthropic, CLAUDE_EPOCH, "", Some(1), None)),
        Some(1_755_615_600)
    );
    let codex = codex_failed(
        r#"{"type":"error","error":{"type":"usage_limit_reached","resets_at":1777936568}}"#,
    );
    assert_eq!(
        at(classify(OpenAi, codex, "", Some(1), None)),
        Some(1_777_936_568)
    );
    // No time given: none guessed.
    assert_eq!(at(classify(Anthropic, CLAUDE_429, "", Some(1), None)), None);
    // Not a rate limit: no time, whatever the words hold.
    let quota =
        codex_failed("Quota exceeded. Check your plan and billing details. Retry-After: 30");
    assert_eq!(at(classify(OpenAi, quota, "", Some(1), None)), None);
}

#[test]
fn work_done_before_the_failure_is_counted() {
    let stream = r#"{"type":"system","subtype":"init","model":"claude-sonnet-5"}
{"type":"assistant","message":{"model":"claude-sonnet-5","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"src/lib.rs"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false}]}}
{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your monthly spend limit. Switch to another model to continue."}]},"error":"billing_error"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your monthly spend limit. Switch to another model to continue."}
"#;
    let f = classify(Anthropic, stream, "", Some(1), None).expect("quota");
    assert_eq!(
        (f.kind, f.tool_calls, f.stopped),
        (QuotaExhausted, 1, false)
    );
    let mut watcher = Watcher::new(Anthropic);
    watcher.feed(Stream::Stdout, stream.as_bytes());
    let snap = watcher.snapshot();
    assert_eq!(snap.tool_calls, 1);
    assert_eq!(snap.last.as_deref(), Some("Write src/lib.rs"));
}

#[test]
fn a_signal_zurdo_did_not_send_is_a_crash_and_a_timeout_is_not() {
    let report = vocabulary::read(Anthropic, "", "");
    let ended = |signal, timed_out| Ended {
        exit_code: None,
        signal,
        timed_out,
        report: &report,
    };
    let f = Watcher::new(Anthropic)
        .conclude(ended(Some(11), false))
        .expect("crash");
    assert_eq!(f.kind, CliCrashed);
    assert_eq!(f.message, "killed by signal 11 (SIGSEGV)");
    assert!(Watcher::new(Anthropic)
        .conclude(ended(None, true))
        .is_none());
    // A line longer than the reader keeps is skipped, never read as text.
    let mut watcher = Watcher::new(Anthropic);
    let mut huge = "Not logged in ".repeat(100_000).into_bytes();
    huge.push(b'\n');
    watcher.feed(Stream::Stdout, &huge);
    let ok = vocabulary::read(Anthropic, "", "");
    assert!(watcher
        .conclude(Ended {
            exit_code: Some(1),
            signal: None,
            timed_out: true,
            report: &ok,
        })
        .is_none());
}
