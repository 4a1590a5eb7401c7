//! The script's `markers`: a probe or a reasoner call only when the script
//! says what such a prompt starts with; the log says what each invocation
//! was.

use super::*;

#[test]
fn a_probe_consumes_no_attempt() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"write": {"a.txt": "a"}, "text": "first"}, {"text": "second"}],
        "markers": {"probe": "zurdo-probe:"},
    }));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        std::fs::remove_file(work.path().join("a.txt")).ok();
        let probe = "zurdo-probe: reply with the single word OK and nothing else.";
        for _ in 0..2 {
            let r = stand_in(
                cli,
                &unattended(cli, probe, "m", work.path()),
                work.path(),
                &s.env(),
            );
            assert_eq!(r.code, 0, "{cli}: {}", r.stderr);
            assert_eq!(r.final_text(cli), "OK", "{cli}");
            assert!(
                !work.path().join("a.txt").exists(),
                "{cli}: a probe does nothing"
            );
        }
        assert_eq!(s.count(), None, "{cli}: no attempt consumed");
        let r = stand_in(
            cli,
            &unattended(cli, "the task", "m", work.path()),
            work.path(),
            &s.env(),
        );
        assert_eq!(r.final_text(cli), "first", "{cli}");
        assert_eq!(read(work.path(), "a.txt"), "a");
    }
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("script.json.probes"))
            .unwrap()
            .trim(),
        "8"
    );
}

#[test]
fn the_probe_can_be_scripted() {
    let work = repo();
    let s = Scripted::new(json!({
        "probe": {"text": "", "usage": null},
        "markers": {"probe": "zurdo-probe:"},
    }));
    let r = stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    assert_eq!(r.code, 0);
    assert_eq!(r.final_text("codex"), "");
    assert!(r.last("turn.completed").get("usage").is_none());
}

#[test]
fn without_markers_no_prompt_is_special() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "first"}, {"text": "second"}, {"text": "third"}],
        "reason": [{"contains": "diagnosis", "attempt": {"text": "diagnosed"}}],
        "log": "calls.jsonl",
    }));
    for cli in CLIS {
        std::fs::remove_file(s.dir.path().join("script.json.count")).ok();
        let probe = "zurdo-probe: reply with the single word OK and nothing else.";
        assert_eq!(s.answer(cli, probe, work.path()), "first", "{cli}");
        let diagnosis = "zurdo-reason: diagnosis";
        assert_eq!(s.answer(cli, diagnosis, work.path()), "second", "{cli}");
        assert_eq!(s.count().as_deref(), Some("2"), "{cli}: both consumed one");
    }
    assert!(!s.dir.path().join("script.json.probes").exists());
    assert!(!s.dir.path().join("script.json.reasons").exists());
    for call in s.log("calls.jsonl") {
        assert_eq!(
            (&call["probe"], &call["reasoner"]),
            (&json!(false), &json!(false))
        );
        assert!(call["attempt"].is_u64(), "{call}");
    }
}

#[test]
fn a_reasoner_marker_routes_to_reason() {
    let work = repo();
    let s = Scripted::new(json!({
        "attempts": [{"text": "an attempt", "write": {"a.txt": "a"}}],
        "reason": [{"contains": "diagnosis", "attempt": {"text": "diagnosed"}}],
        "markers": {"probe": "zurdo-probe:", "reasoner": "zurdo-reason:"},
        "log": "calls.jsonl",
    }));
    for cli in CLIS {
        let diagnosis = "zurdo-reason: diagnosis\n\nwhy does it fail?";
        assert_eq!(s.answer(cli, diagnosis, work.path()), "diagnosed", "{cli}");
        let lesson = "zurdo-reason: lesson\n\nwhat was learnt?";
        assert_eq!(s.answer(cli, lesson, work.path()), "", "{cli}: no rule");
        assert_eq!(s.count(), None, "{cli}: no attempt consumed");
        assert!(!work.path().join("a.txt").exists(), "{cli}");
    }
    assert_eq!(read(s.dir.path(), "script.json.reasons").trim(), "8");
    // The marker counts only at the start of the prompt.
    let inside = "# Task\nno zurdo-reason: here";
    assert_eq!(s.answer("claude", inside, work.path()), "an attempt");
    assert_eq!(s.count().as_deref(), Some("1"));
    let calls = s.log("calls.jsonl");
    assert_eq!(calls.len(), 9);
    assert!(calls[..8]
        .iter()
        .all(|c| c["reasoner"] == true && c["probe"] == false && c["attempt"].is_null()));
    assert_eq!(
        (&calls[8]["reasoner"], &calls[8]["attempt"]),
        (&json!(false), &json!(0))
    );
}

#[test]
fn the_log_records_every_invocation() {
    let work = repo();
    let s = Scripted::new(json!({
        "log": "calls.jsonl",
        "models": {"bad": "unknown"},
        "markers": {"probe": "zurdo-probe:"},
    }));
    stand_in(
        "codex",
        &unattended("codex", "zurdo-probe: hi", "m", work.path()),
        work.path(),
        &s.env(),
    );
    stand_in(
        "codex",
        &unattended("codex", "task", "m", work.path()),
        work.path(),
        &s.env(),
    );
    stand_in(
        "codex",
        &unattended("codex", "task", "bad", work.path()),
        work.path(),
        &s.env(),
    );
    let lines = s.log("calls.jsonl");
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["probe"].as_bool(), lines[0]["attempt"].as_u64()),
        (Some(true), None)
    );
    assert_eq!(
        (lines[1]["probe"].as_bool(), lines[1]["attempt"].as_u64()),
        (Some(false), Some(0))
    );
    assert_eq!(lines[2]["attempt"], Value::Null);
    assert_eq!(lines[1]["cli"], "codex");
    assert_eq!(lines[1]["args"][0], "exec");
    assert_eq!(lines[1]["prompt"], "task");
}
