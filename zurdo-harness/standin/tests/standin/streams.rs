//! The happy paths: each CLI's unattended command line, its event stream,
//! and the files an attempt touches.

use super::*;

#[test]
fn claude_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let r = stand_in(
        "claude",
        &unattended("claude", "do the task", "sonnet", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.non_json.is_empty(),
        "claude prints only JSON: {:?}",
        r.non_json
    );
    assert_busy_files(work.path());

    let init = &r.events[0];
    assert_eq!(
        (&init["type"], &init["subtype"]),
        (&json!("system"), &json!("init"))
    );
    assert_eq!(init["model"], "claude-sonnet-5");
    assert_eq!(init["permissionMode"], "bypassPermissions");
    assert_eq!(init["cwd"], work.path().display().to_string());
    let session = init["session_id"].as_str().unwrap();
    assert!(r
        .events
        .iter()
        .all(|e| e["session_id"] == session && e["uuid"].is_string()));

    let uses: Vec<&Value> = r
        .of_type("assistant")
        .into_iter()
        .flat_map(|e| e["message"]["content"].as_array().unwrap().iter())
        .filter(|b| b["type"] == "tool_use")
        .collect();
    let names: Vec<&str> = uses.iter().map(|u| u["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Read", "Write", "Write", "Bash"]);
    assert_eq!(
        uses[3]["input"]["command"],
        "printf ran > ran.txt && echo from-the-shell"
    );
    let results: Vec<&Value> = r
        .of_type("user")
        .iter()
        .map(|e| &e["message"]["content"][0])
        .collect();
    assert_eq!(results.len(), 4);
    for (u, res) in uses.iter().zip(&results) {
        assert_eq!(res["type"], "tool_result");
        assert_eq!(res["tool_use_id"], u["id"]);
        assert_eq!(res["is_error"], false);
    }
    assert!(results[3]["content"]
        .as_str()
        .unwrap()
        .contains("from-the-shell"));

    let result = r.last("result");
    assert_eq!(r.events.last().unwrap(), result, "the result line is last");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "All done.");
    assert_eq!(result["total_cost_usd"], 0.25);
    assert_eq!(result["num_turns"], 5);
    assert_eq!(result["usage"]["input_tokens"], 600, "uncached input");
    assert_eq!(result["usage"]["cache_read_input_tokens"], 400);
    assert_eq!(result["usage"]["output_tokens"], 90);
    assert_eq!(result["modelUsage"]["claude-sonnet-5"]["costUSD"], 0.25);
    assert_eq!(r.final_text("claude"), "All done.");
    // The assistant messages' usage adds up to the result's.
    let out: u64 = r
        .of_type("assistant")
        .iter()
        .map(|e| e["message"]["usage"]["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(out, 90);
}

#[test]
fn codex_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let last = s.dir.path().join("last.txt");
    let mut args = unattended("codex", "do the task", "gpt-5-codex", work.path());
    args.splice(1..1, words(&["-o", last.to_str().unwrap()]));
    // Run from elsewhere: -C names the working dir.
    let r = stand_in("codex", &args, s.dir.path(), &s.env());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert_eq!(
        r.non_json.len(),
        1,
        "one non-JSON line keeps readers honest: {:?}",
        r.non_json
    );
    assert!(r.stderr.contains("Reading additional input from stdin..."));

    let kinds: Vec<&str> = r
        .events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[..2], ["thread.started", "turn.started"]);
    assert_eq!(kinds.last(), Some(&"turn.completed"));
    assert!(r.events[0]["thread_id"].as_str().unwrap().len() == 36);

    let items: Vec<&Value> = r
        .of_type("item.completed")
        .iter()
        .map(|e| &e["item"])
        .collect();
    let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "mcp_tool_call",
            "file_change",
            "file_change",
            "command_execution",
            "agent_message"
        ]
    );
    let out = work.path().join("src/out.txt");
    assert_eq!(items[1]["changes"][0], json!({"path": out, "kind": "add"}));
    assert_eq!(items[2]["changes"][0]["kind"], "update");
    assert_eq!(items[3]["exit_code"], 0);
    assert_eq!(items[3]["status"], "completed");
    assert!(items[3]["aggregated_output"]
        .as_str()
        .unwrap()
        .contains("from-the-shell"));
    let started = r.first("item.started");
    assert_eq!(started["item"]["status"], "in_progress");
    let ids: Vec<&Value> = items.iter().map(|i| &i["id"]).collect();
    assert_eq!(
        ids,
        [
            &json!("item_0"),
            &json!("item_1"),
            &json!("item_2"),
            &json!("item_3"),
            &json!("item_4")
        ]
    );

    let usage = &r.last("turn.completed")["usage"];
    assert_eq!(
        (
            usage["input_tokens"].as_u64(),
            usage["cached_input_tokens"].as_u64(),
            usage["output_tokens"].as_u64()
        ),
        (Some(1000), Some(400), Some(90))
    );
    assert_eq!(r.final_text("codex"), "All done.");
    assert_eq!(std::fs::read_to_string(&last).unwrap(), "All done.");
}

#[test]
fn copilot_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let usage_file = s.dir.path().join("usage.json");
    let mut args = unattended("copilot", "do the task", "gpt-5.4", work.path());
    args.extend(words(&[
        "--usage-output-file",
        usage_file.to_str().unwrap(),
    ]));
    let r = stand_in("copilot", &args, s.dir.path(), &s.env());
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert!(r.non_json.is_empty());

    let start = &r.events[0];
    assert_eq!(start["type"], "session.start");
    assert_eq!(start["data"]["selectedModel"], "gpt-5.4");
    assert_eq!(
        start["data"]["context"]["cwd"],
        work.path().display().to_string()
    );
    for e in r.events.iter().filter(|e| e["type"] != "result") {
        assert!(
            e["id"].is_string() && e["timestamp"].is_string() && e.get("parentId").is_some(),
            "envelope: {e}"
        );
    }
    let requests: Vec<&Value> = r
        .of_type("assistant.message")
        .iter()
        .flat_map(|e| e["data"]["toolRequests"].as_array().unwrap().iter())
        .collect();
    let names: Vec<&str> = requests
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Read", "create", "edit", "bash"]);
    let starts = r.of_type("tool.execution_start");
    let completes = r.of_type("tool.execution_complete");
    assert_eq!((starts.len(), completes.len()), (4, 4));
    for ((q, s), c) in requests.iter().zip(&starts).zip(&completes) {
        assert_eq!(q["toolCallId"], s["data"]["toolCallId"]);
        assert_eq!(q["toolCallId"], c["data"]["toolCallId"]);
        assert_eq!(c["data"]["success"], true);
    }
    assert!(completes[3]["data"]["result"]["content"]
        .as_str()
        .unwrap()
        .contains("<exited with exit code 0>"));
    let deltas = r.of_type("assistant.message_delta");
    assert!(deltas.iter().all(|d| d["ephemeral"] == true));
    let out: u64 = r
        .of_type("assistant.message")
        .iter()
        .map(|e| e["data"]["outputTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(out, 90);
    assert_eq!(r.final_text("copilot"), "All done.");

    let result = r.events.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["exitCode"], 0);
    assert_eq!(
        result["usage"]["codeChanges"]["filesModified"],
        json!(["src/out.txt", "log.txt"])
    );
    let usage: Value =
        serde_json::from_str(&std::fs::read_to_string(&usage_file).unwrap()).unwrap();
    assert_eq!(
        usage["modelMetrics"]["gpt-5.4"]["usage"]["inputTokens"],
        1000
    );
}

#[test]
fn gemini_happy_path_streams_its_events() {
    let work = repo();
    std::fs::write(work.path().join("log.txt"), "first line\n").unwrap();
    let s = Scripted::new(json!({"attempts": [busy_attempt()]}));
    let r = stand_in(
        "gemini",
        &unattended("gemini", "do the task", "gemini-2.5-flash", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_busy_files(work.path());
    assert!(r.non_json.is_empty());
    assert!(r.stderr.contains("YOLO mode is enabled."));

    assert_eq!(r.events[0]["type"], "init");
    assert_eq!(r.events[0]["model"], "gemini-2.5-flash");
    assert_eq!(
        r.events[1],
        json!({"type": "message", "timestamp": r.events[1]["timestamp"], "role": "user", "content": "do the task"})
    );
    let uses = r.of_type("tool_use");
    let names: Vec<&str> = uses
        .iter()
        .map(|u| u["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Read", "write_file", "write_file", "run_shell_command"]
    );
    let results = r.of_type("tool_result");
    for (u, res) in uses.iter().zip(&results) {
        assert_eq!(u["tool_id"], res["tool_id"]);
        assert_eq!(res["status"], "success");
    }
    let deltas: Vec<&Value> = r
        .of_type("message")
        .into_iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert!(deltas.len() > 1 && deltas.iter().all(|d| d["delta"] == true));
    assert_eq!(r.final_text("gemini"), "All done.");
    let result = r.events.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["status"], "success");
    let stats = &result["stats"];
    assert_eq!(
        (
            stats["input_tokens"].as_u64(),
            stats["output_tokens"].as_u64(),
            stats["cached"].as_u64()
        ),
        (Some(1000), Some(90), Some(400))
    );
    assert_eq!(stats["tool_calls"], 4);
    assert_eq!(stats["models"]["gemini-2.5-flash"]["total_tokens"], 1090);
}
