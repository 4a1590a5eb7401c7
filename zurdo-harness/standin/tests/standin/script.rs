//! The script: attempts, rules, models, auth, errors, usage, the counters,
//! and what happens without one.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use super::*;

#[test]
fn attempts_advance_across_invocations_and_the_last_repeats() {
    let work = repo();
    let prompts = tempfile::tempdir().unwrap();
    let attempt = |n: u32| {
        json!({
            "write": {"answer.txt": format!("attempt {n}\n")},
            "echo_prompt_to": prompts.path().join(format!("prompt-{n}.txt")),
            "text": format!("attempt {n}"),
        })
    };
    let s = Scripted::new(json!({"attempts": [attempt(1), attempt(2), attempt(3)]}));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        for (i, want) in [1, 2, 3, 3].into_iter().enumerate() {
            let prompt = format!("prompt number {i}");
            let r = stand_in(
                cli,
                &unattended(cli, &prompt, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(
                read(work.path(), "answer.txt"),
                format!("attempt {want}\n"),
                "{cli} run {i}"
            );
            assert_eq!(r.final_text(cli), format!("attempt {want}"), "{cli}");
            assert_eq!(read(prompts.path(), &format!("prompt-{want}.txt")), prompt);
        }
        assert_eq!(s.count().as_deref(), Some("4"), "{cli}");
    }
}

#[test]
fn an_unknown_model_fails_each_cli_its_way() {
    let work = repo();
    let s = Scripted::new(json!({
        "models": {"bad-model": "unknown"},
        "attempts": [{"write": {"x.txt": "x"}}],
        "markers": {"probe": "zurdo-probe:"},
    }));
    // Probes and attempts alike.
    for prompt in ["zurdo-probe: say OK", "real work"] {
        let r = stand_in(
            "claude",
            &unattended("claude", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        let assistant = r.first("assistant");
        assert_eq!(assistant["error"], "model_not_found");
        assert_eq!(assistant["message"]["model"], "<synthetic>");
        let result = r.last("result");
        assert_eq!(result["is_error"], true);
        assert_eq!(
            result["result"],
            "There's an issue with the selected model (bad-model). It may not exist or you may not have access to it. Run /model to pick a different model."
        );

        let r = stand_in(
            "codex",
            &unattended("codex", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        assert!(r.first("item.completed")["item"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Model metadata for `bad-model` not found."));
        let failed = r.last("turn.failed");
        assert!(failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("The model `bad-model` does not exist or you do not have access to it."));
        assert!(r.of_type("turn.completed").is_empty());

        let r = stand_in(
            "copilot",
            &unattended("copilot", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        assert!(r.stdout.is_empty());
        assert!(
            r.stderr
                .starts_with("Error: No supported model available: "),
            "{}",
            r.stderr
        );

        let r = stand_in(
            "gemini",
            &unattended("gemini", prompt, "bad-model", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 1);
        let result = r.last("result");
        assert_eq!(result["status"], "error");
        assert!(result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("models/bad-model is not found"));
    }
    assert!(!work.path().join("x.txt").exists());
    assert_eq!(s.count(), None, "a refused model consumes no attempt");
    // Other models still work.
    let r = stand_in(
        "claude",
        &unattended("claude", "zurdo-probe: hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
}

#[test]
fn claude_aliases_resolve_before_the_model_check() {
    let work = repo();
    let s = Scripted::new(json!({"models": {"claude-opus-4-8": "plan"}}));
    let r = stand_in(
        "claude",
        &unattended("claude", "zurdo-probe: hi", "opus", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r.last("result")["result"]
        .as_str()
        .unwrap()
        .contains("(claude-opus-4-8)"));
}

#[test]
fn a_plan_gated_codex_model_is_not_supported() {
    let work = repo();
    let s = Scripted::new(json!({"models": {"gpt-9": "plan"}}));
    let r = stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "gpt-9", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.last("turn.failed")["error"]["message"],
        "The 'gpt-9' model is not supported when using Codex with a ChatGPT account."
    );
}

#[test]
fn logged_out_clis_fail_their_way() {
    let work = repo();
    let s = Scripted::new(json!({"auth": "missing"}));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.first("system")["apiKeySource"], "none");
    assert_eq!(r.first("assistant")["error"], "authentication_failed");
    assert_eq!(
        r.last("result")["result"],
        "Not logged in · Please run /login"
    );
    assert_eq!(r.last("result")["is_error"], true);

    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r.last("turn.failed")["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("unexpected status 401 Unauthorized"));

    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r
        .stderr
        .starts_with("Error: No authentication information found."));

    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 41);
    assert!(r.stderr.contains("Please set an Auth method in your "));
    // The auth check comes before the trust check, as in the real one.
    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "stream-json"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 41);
    assert_eq!(s.count(), None);

    let r = stand_in("claude", &words(&["auth", "status"]), work.path(), &s.env());
    assert_eq!(r.code, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&r.stdout).unwrap()["loggedIn"],
        false
    );
}

#[test]
fn a_scripted_error_is_reported_each_clis_way() {
    let work = repo();
    let s = Scripted::new(
        json!({"attempts": [{"write": {"w.txt": "w"}, "error": {"kind": "rate_limit", "message": "slow down"}}]}),
    );
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("assistant")["error"], "rate_limit");
    let result = r.last("result");
    assert_eq!(
        (
            result["is_error"].as_bool(),
            result["api_error_status"].as_u64()
        ),
        (Some(true), Some(429))
    );
    assert_eq!(result["result"], "slow down");

    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("turn.failed")["error"]["message"], "slow down");

    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.last("session.error")["data"]["errorType"], "rate_limit");
    assert_eq!(r.last("result")["exitCode"], 1);

    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    let result = r.last("result");
    assert_eq!(
        (
            result["status"].as_str(),
            result["error"]["message"].as_str()
        ),
        (Some("error"), Some("slow down"))
    );
    // The work before the error was done.
    assert_eq!(read(work.path(), "w.txt"), "w");
}

#[test]
fn echo_prompt_to_keeps_the_prompt_exactly() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"echo_prompt_to": "seen/prompt.md"}]}));
    let prompt = "# Task\n\n# What failed\n- [grep: ^Hello, world!$ in greeting.txt] — \"quoted\" and 'single' $HOME `tick`\n";
    for cli in CLIS {
        std::fs::remove_dir_all(work.path().join("seen")).ok();
        let r = stand_in(
            cli,
            &unattended(cli, prompt, "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        assert_eq!(read(work.path(), "seen/prompt.md"), prompt, "{cli}");
    }
}

/// A prompt too long for one argument arrives on stdin, each CLI its way:
/// claude `-p` with no prompt argument, codex `-`, copilot no `-p`, gemini
/// `-p` appended to the piped input.
#[test]
fn a_prompt_piped_on_stdin_is_read_each_clis_way() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"echo_prompt_to": "seen/prompt.md"}]}));
    let prompt = format!(
        "# Task\n{}\nthe end\n",
        "long line of the description\n".repeat(8000)
    );
    for cli in CLIS {
        std::fs::remove_dir_all(work.path().join("seen")).ok();
        let mut args = unattended(cli, "PLACEHOLDER", "m", work.path());
        let at = args
            .iter()
            .position(|a| a == "PLACEHOLDER")
            .expect("the prompt");
        let expected = match cli {
            "claude" => {
                args.remove(at);
                prompt.clone()
            }
            "codex" => {
                args[at] = "-".into();
                prompt.clone()
            }
            "copilot" => {
                args.drain(at - 1..=at);
                prompt.clone()
            }
            _ => {
                args[at] = "Do the task above.".into();
                format!("{prompt}\n\nDo the task above.")
            }
        };
        let r = stand_in_fed(cli, &args, work.path(), &s.env(), Some(&prompt));
        assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
        assert_eq!(read(work.path(), "seen/prompt.md"), expected, "{cli}");
        // The same command line with nothing piped fails as the real one does.
        let empty = stand_in_fed(cli, &args, work.path(), &s.env(), Some(""));
        if cli != "gemini" {
            assert_ne!(empty.code, 0, "{cli}: an empty stdin is no prompt");
        }
    }
}

#[test]
fn on_prompt_rules_choose_by_content() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "plain"}],
        "on_prompt": [{"contains": "# What failed", "attempt": {"text": "fixing"}}],
    }));
    let r = stand_in(
        "gemini",
        &unattended("gemini", "# What failed\nx", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.final_text("gemini"), "fixing");
    let r = stand_in(
        "gemini",
        &unattended("gemini", "do it", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.final_text("gemini"), "plain");
    assert_eq!(s.count().as_deref(), Some("2"));
}

#[test]
fn without_a_script_every_invocation_is_the_default_attempt() {
    for cli in CLIS {
        let work = repo();
        for prompt in ["# Task\nWrite the greeting.", "zurdo-probe: reply OK"] {
            let r = stand_in(
                cli,
                &unattended(cli, prompt, "m", work.path()),
                work.path(),
                SANDBOX,
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), "Done.", "{cli}");
        }
        assert!(!work.path().join("greeting.txt").exists(), "{cli}");
    }
}

#[test]
fn a_sleeping_attempt_is_killable_and_a_prompt_argument_needs_no_stdin() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"sleep_ms": 60_000}]}));
    // (Codex, like the real one, reads a piped stdin to its end even with a
    // prompt argument, so zurdo closes it: here too.)
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo-standin"))
        .arg("codex")
        .args(unattended("codex", "hang", "m", work.path()))
        .current_dir(work.path())
        .env("ZURDO_STAND_IN_SCRIPT", &s.path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first events arrive before the sleep (flushed line by line).
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["type"], "thread.started");
    let started = Instant::now();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));

    // With stdin left open, claude given its prompt as an argument does not
    // wait on it: a quick attempt ends on its own.
    let quick = Scripted::new(json!({}));
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo-standin"))
        .arg("claude")
        .args(unattended("claude", "hi", "m", work.path()))
        .current_dir(work.path())
        .env("ZURDO_STAND_IN_SCRIPT", &quick.path)
        .env("IS_SANDBOX", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "the stand-in waited on stdin");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn claude_max_turns_stops_early() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"write": {"1.txt": "1", "2.txt": "2"}}]}));
    let mut args = unattended("claude", "hi", "sonnet", work.path());
    args.extend(words(&["--max-turns", "1"]));
    let r = stand_in("claude", &args, work.path(), &s.env());
    assert_eq!(r.code, 1);
    let result = r.last("result");
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["errors"],
        json!(["Reached maximum number of turns (1)"])
    );
    assert!(work.path().join("1.txt").exists() && !work.path().join("2.txt").exists());
    args.truncate(args.len() - 2);
    args.extend(words(&["--max-turns", "3"]));
    assert_eq!(stand_in("claude", &args, work.path(), &s.env()).code, 0);
}

#[test]
fn without_permission_nothing_is_touched() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"write": {"p.txt": "p"}, "run": "touch q.txt"}]}));
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "stream-json", "--verbose"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    let denials = r.last("result")["permission_denials"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(denials.len(), 2);
    assert_eq!(denials[0]["tool_name"], "Write");
    assert!(r
        .of_type("user")
        .iter()
        .all(|u| u["message"]["content"][0]["is_error"] == true));

    let r = stand_in(
        "codex",
        &words(&["exec", "--json", "hi"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.of_type("item.completed")[0]["item"]["status"], "failed");

    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "stream-json", "--skip-trust"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.of_type("tool_result")[0]["status"], "error");
    assert!(!work.path().join("p.txt").exists() && !work.path().join("q.txt").exists());
}

#[test]
fn usage_null_leaves_token_counts_out() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"usage": null}]}));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("result").get("usage").is_none());
    assert!(r.last("assistant")["message"].get("usage").is_none());
    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("result")["stats"].get("input_tokens").is_none());
    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert!(r.last("assistant.message")["data"]
        .get("outputTokens")
        .is_none());
}

#[test]
fn retries_are_noise_and_exit_overrides() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"retries": 2, "exit": 3, "stderr": "careful"}]}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 3);
    let errors = r.of_type("error");
    assert_eq!(errors.len(), 2);
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("Reconnecting... 1/5"));
    assert!(r.of_type("turn.failed").is_empty());
    assert!(r.stderr.contains("careful\n"));
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(
        r.of_type("system")
            .iter()
            .filter(|e| e["subtype"] == "api_retry")
            .count(),
        2
    );
}

#[test]
fn a_bad_script_fails_loud() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"wirte": {}}]}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("zurdo stand-in: "), "{}", r.stderr);
    assert!(r.stderr.contains("unknown field `wirte`"), "{}", r.stderr);
    let s = Scripted::new(json!({"markers": {"probe": ""}}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`markers.probe` is empty"),
        "{}",
        r.stderr
    );
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &[("ZURDO_STAND_IN_SCRIPT", "/nonexistent/s.json")],
    );
    assert_eq!(r.code, 2);
}

#[test]
fn other_output_formats_work() {
    let work = repo();
    let s = Scripted::new(json!({"attempts": [{"text": "plain answer"}]}));
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "json"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.events.len(), 1);
    assert_eq!(r.events[0]["result"], "plain answer");
    let r = stand_in("claude", &words(&["-p", "hi"]), work.path(), &s.env());
    assert_eq!(r.stdout, "plain answer\n");
    let r = stand_in(
        "gemini",
        &words(&["-p", "hi", "-o", "json", "--skip-trust"]),
        work.path(),
        &s.env(),
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["response"], "plain answer");
    let r = stand_in("codex", &words(&["exec", "hi"]), work.path(), &s.env());
    assert_eq!(r.stdout, "plain answer\n");
    let r = stand_in(
        "copilot",
        &words(&["-p", "hi", "--allow-all-tools"]),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.stdout, "plain answer\n");
}

#[test]
fn offline_clis_do_what_the_real_ones_did_without_a_network() {
    let work = repo();
    let s = Scripted::new(json!({"network": "down", "models": {"gpt-5-codex": "unlisted"}}));

    // Codex: the captured sequence, then `waiting for network` for good.
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo-standin"))
        .arg("codex")
        .args(unattended("codex", "hi", "gpt-5-codex", work.path()))
        .current_dir(work.path())
        .env("ZURDO_STAND_IN_SCRIPT", &s.path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen: Vec<Value> = Vec::new();
    let started = Instant::now();
    while let Some(Ok(line)) = lines.next() {
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let waiting = event["message"]
            .as_str()
            .is_some_and(|m| m.contains("waiting for network"));
        seen.push(event);
        if waiting {
            break;
        }
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let kinds: Vec<&str> = seen.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "thread.started",
            "item.completed",
            "turn.started",
            "error",
            "error",
            "error",
            "error",
            "item.completed",
            "error"
        ]
    );
    assert_eq!(
        seen[1]["item"]["message"],
        "Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."
    );
    assert_eq!(
        seen[3]["message"],
        "Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Name does not resolve)"
    );
    assert_eq!(
        seen[8]["message"],
        "Reconnecting... waiting for network (Connection failed: error sending request)"
    );
    // It keeps waiting: another line, and no exit.
    assert!(lines.next().is_some());
    assert!(child.try_wait().unwrap().is_none(), "codex never gives up");
    child.kill().unwrap();
    child.wait().unwrap();

    // Claude: ten retries without an HTTP status, then the API error.
    let r = stand_in(
        "claude",
        &unattended("claude", "hi", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    let retries = r.of_type("system");
    let retries: Vec<&&Value> = retries
        .iter()
        .filter(|e| e["subtype"] == "api_retry")
        .collect();
    assert_eq!(retries.len(), 10);
    assert!(retries.iter().all(|e| e["error_status"].is_null()));
    assert_eq!(
        r.last("result")["result"],
        "API Error: Unable to connect to API (ConnectionRefused)"
    );
    assert_eq!(r.last("result")["is_error"], true);

    // Gemini: nine failed attempts on stderr, then the API error.
    let r = stand_in(
        "gemini",
        &unattended("gemini", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr
            .lines()
            .filter(|l| l.starts_with("Attempt ") && l.contains("fetch failed"))
            .count(),
        9
    );
    assert_eq!(
        r.last("result")["error"]["message"],
        "[API Error: exception TypeError: fetch failed sending request]"
    );

    // Copilot: its token cannot be validated.
    let r = stand_in(
        "copilot",
        &unattended("copilot", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 1);
    assert!(r
        .stderr
        .starts_with("Error: Authentication token found but could not be validated."));
    assert!(r
        .stderr
        .contains("Failed to fetch PAT user login: network fetch failed"));
    assert_eq!(s.count(), None, "no attempt is consumed");
}

#[test]
fn an_unlisted_model_works_and_codex_warns_first() {
    let work = repo();
    let s = Scripted::new(json!({"models": {"m": "unlisted"}, "attempts": [{"text": "fine"}]}));
    let r = stand_in(
        "codex",
        &unattended("codex", "hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first_item = r.first("item.completed");
    assert_eq!(first_item["item"]["type"], "error");
    assert!(first_item["item"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Model metadata for `m` not found."));
    assert_eq!(r.final_text("codex"), "fine");
    for cli in ["claude", "copilot", "gemini"] {
        assert_eq!(s.answer(cli, "hi", work.path()), "fine", "{cli}");
    }
}

#[test]
fn codex_lists_the_models_of_0_171_offline() {
    let work = repo();
    let r = stand_in("codex", &words(&["debug", "models"]), work.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, include_str!("../../src/codex-0.171.0-models.txt"));
    assert!(r
        .stdout
        .starts_with("gpt-6.2-sol list api low,medium,high,xhigh,max,ultra\n"));
    let r = stand_in(
        "codex",
        &words(&["debug", "prompt-input"]),
        work.path(),
        &[],
    );
    assert_eq!(r.code, 2);
}
