//! `"fail"`: a CLI that cannot work, acted out with the real CLIs' own
//! words, streams and exit codes (`real-runs/` and the sources the
//! stand-in's lib.rs names).

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::{repo, stand_in, unattended, Scripted, CLEARED, CLIS};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .as_secs()
}

fn failing(fail: Value) -> Scripted {
    Scripted::new(json!({"attempts": [{"write": {"w.txt": "w"}, "fail": fail}]}))
}

#[test]
fn auth_fails_at_start_as_logged_out_and_does_nothing() {
    let s = failing(json!("auth"));
    for cli in CLIS {
        let work = repo();
        let r = stand_in(
            cli,
            &unattended(cli, "hi", "m", work.path()),
            work.path(),
            &s.env(),
        );
        let expected = if cli == "gemini" { 41 } else { 1 };
        assert_eq!(r.code, expected, "{cli}: {}", r.stderr);
        assert!(!work.path().join("w.txt").exists(), "{cli} did nothing");
        match cli {
            "claude" => {
                assert_eq!(r.first("assistant")["error"], "authentication_failed");
                assert_eq!(
                    r.last("result")["result"],
                    "Not logged in · Please run /login"
                );
            }
            "codex" => assert!(r.last("turn.failed")["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("unexpected status 401 Unauthorized")),
            "copilot" => assert!(r
                .stderr
                .starts_with("Error: No authentication information found.")),
            _ => assert!(r.stderr.contains("Please set an Auth method in your ")),
        }
    }
}

#[test]
fn quota_comes_after_the_work_each_clis_way() {
    let s = failing(json!("quota"));
    for cli in CLIS {
        let work = repo();
        let r = stand_in(
            cli,
            &unattended(cli, "hi", "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1, "{cli}: {}", r.stderr);
        assert!(
            work.path().join("w.txt").exists(),
            "{cli}: the work was done first"
        );
        match cli {
            "claude" => {
                assert_eq!(r.last("assistant")["error"], "billing_error");
                let result = r.last("result");
                assert_eq!(result["api_error_status"], 429);
                assert_eq!(
                    result["result"],
                    "You've hit your monthly spend limit. Switch to another model to continue."
                );
            }
            "codex" => assert_eq!(
                r.last("turn.failed")["error"]["message"],
                "Quota exceeded. Check your plan and billing details."
            ),
            "copilot" => {
                let e = r.last("session.error");
                assert_eq!(
                    (
                        e["data"]["errorType"].as_str(),
                        e["data"]["message"].as_str()
                    ),
                    (Some("quota"), Some("You have no quota"))
                );
                assert_eq!(r.last("result")["exitCode"], 1);
            }
            _ => {
                let result = r.last("result");
                assert_eq!(result["status"], "error");
                assert_eq!(result["error"]["type"], "TerminalQuotaError");
                assert!(result["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("You exceeded your current quota"));
            }
        }
    }
}

#[test]
fn rate_limits_say_when_they_reset_where_the_cli_does() {
    let s = failing(json!({"kind": "rate_limit", "resets_in_s": 120}));
    let before = now();
    for cli in CLIS {
        let work = repo();
        let r = stand_in(
            cli,
            &unattended(cli, "hi", "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1, "{cli}: {}", r.stderr);
        match cli {
            "claude" => {
                let event = r.first("rate_limit_event");
                assert_eq!(event["rate_limit_info"]["status"], "rejected");
                let at = event["rate_limit_info"]["resetsAt"].as_u64().expect("resetsAt");
                assert!((before + 120..=now() + 120).contains(&at), "{at}");
                assert_eq!(r.last("assistant")["error"], "rate_limit");
                let text = r.last("result")["result"].as_str().unwrap().to_string();
                assert!(text.starts_with("You've hit your limit · resets ") && text.ends_with(" (UTC)"), "{text}");
            }
            "codex" => assert_eq!(
                r.last("turn.failed")["error"]["message"],
                "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 minutes."
            ),
            "copilot" => {
                let e = r.last("session.error");
                assert_eq!(e["data"]["errorType"], "rate_limit");
                assert!(e["data"]["message"].as_str().unwrap().contains("Please try again in 2 minutes."));
            }
            _ => assert!(r.last("result")["error"]["message"].as_str().unwrap().contains("RESOURCE_EXHAUSTED")),
        }
    }
    // No reset given: the forms that say none.
    let s = failing(json!("rate_limit"));
    let work = repo();
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.of_type("rate_limit_event").is_empty());
    assert!(r.last("result")["result"]
        .as_str()
        .unwrap()
        .contains("rate_limit_error"));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("turn.failed")["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("exceeded retry limit, last status: 429 Too Many Requests"));
}

#[test]
fn without_network_claude_and_gemini_retry_then_fail_and_copilot_fails_at_once() {
    let s = failing(json!("network"));
    let work = repo();
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    let retries = r
        .of_type("system")
        .into_iter()
        .filter(|e| e["subtype"] == "api_retry")
        .count();
    assert_eq!(retries, 10);
    assert_eq!(r.last("assistant")["error"], "server_error");
    assert_eq!(
        r.last("result")["result"],
        "API Error: Unable to connect to API (ConnectionRefused)"
    );

    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr
            .matches(
                "Retrying with backoff... Error: exception TypeError: fetch failed sending request"
            )
            .count(),
        9
    );
    assert!(r.stderr.contains("    at async retryWithBackoff ("));
    assert!(r
        .stderr
        .contains("Error when talking to Gemini API Full report available at: "));
    assert_eq!(
        r.last("result")["error"]["message"],
        "[API Error: exception TypeError: fetch failed sending request]"
    );

    let work = repo();
    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(r
        .stderr
        .starts_with("Error: Authentication token found but could not be validated."));
    assert!(r
        .stderr
        .contains("Failed to fetch PAT user login: network fetch failed"));
    assert!(!work.path().join("w.txt").exists(), "it never got to work");
}

#[test]
fn without_network_codex_waits_for_ever() {
    let s = failing(json!("network"));
    let work = repo();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo-standin"));
    command
        .arg("codex")
        .args(unattended("codex", "hi", "m", work.path()))
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    for name in CLEARED {
        command.env_remove(name);
    }
    for (k, v) in s.env() {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("runs");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let started = Instant::now();
    let mut seen = Vec::new();
    while let Some(Ok(line)) = lines.next() {
        let waiting = line.contains(
            "Reconnecting... waiting for network (Connection failed: error sending request)",
        );
        seen.push(line);
        if waiting {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{seen:#?}");
    }
    assert!(seen.iter().any(|l| l.contains("Reconnecting... 5/5 (stream disconnected before completion: failed to lookup address information")));
    assert!(seen
        .iter()
        .any(|l| l.contains("Falling back from WebSockets to HTTPS transport")));
    assert!(!seen.iter().any(|l| l.contains("turn.failed")));
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().expect("wait").is_none(), "still waiting");
    child.kill().expect("kill");
    let _ = child.wait();
}

#[test]
fn a_crash_is_a_death_by_signal_after_the_work() {
    use std::os::unix::process::ExitStatusExt;
    let s = failing(json!("crash"));
    for cli in CLIS {
        let work = repo();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zurdo-standin"))
            .arg(cli)
            .args(unattended(cli, "hi", "m", work.path()))
            .current_dir(work.path())
            .envs(s.env())
            .env_remove("ZURDO_STAND_IN_EUID")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(out.status.signal(), Some(11), "{cli}: SIGSEGV, {out:?}");
        assert!(work.path().join("w.txt").exists(), "{cli}");
        assert!(!work.path().join("core").exists(), "{cli}: no core file");
    }
}

#[test]
fn a_fail_is_read_and_written_back_and_typos_are_refused() {
    let s: zurdo_standin::Script = serde_json::from_value(json!({"attempts": [
        {"fail": "network"},
        {"fail": {"kind": "rate_limit", "resets_in_s": 5}}
    ]}))
    .expect("parses");
    assert_eq!(
        s.attempts[0].fail.as_ref().map(|f| f.kind()),
        Some(zurdo_standin::FailKind::Network)
    );
    assert_eq!(
        s.attempts[1].fail.as_ref().and_then(|f| f.resets_in_s()),
        Some(5)
    );
    let back = serde_json::to_value(&s).expect("json");
    assert_eq!(back["attempts"][1]["fail"]["resets_in_s"], 5);
    assert!(serde_json::from_value::<zurdo_standin::Script>(
        json!({"attempts": [{"fail": "offline"}]})
    )
    .is_err());
    assert!(serde_json::from_value::<zurdo_standin::Script>(
        json!({"attempts": [{"fail": {"kind": "quota", "reset": 1}}]})
    )
    .is_err());
}
