//! `zurdo heal` through the binary, after a real `zurdo run` with the
//! stand-in agent: the candidates listed without an analyzer (a command
//! not found, a heal routing, a lesson the criteria ignore), a heal the
//! stand-in analyzer proposes accepted (the PRD line replaced, the heal
//! logged, prd.json's hash moved so the next run resumes without drift,
//! while a hand edit still stops it with exit 4), and heals refused (one
//! that weakens the criterion, one whose hint still cannot run).

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{run_repo, state, state_dir, text, write_state, zurdo_run, ANALYZER};

/// Task 1's criterion (line 12) runs a command that does not exist, so it
/// fails with exit 127 whatever the agent does; task 2 depends on it.
const PRD: &str = "# PRD: heal

## Task: task-1 — Make the marker
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 1

### Description
Create out/done.txt.

### Acceptance Criteria
- [ ] the marker exists [shell: tesst -f out/done.txt]

## Task: task-2 — After the marker
**Effort**: low
**Depends-on**: [task-1]

### Description
Create out/after.txt.

### Acceptance Criteria
- [ ] the second marker exists [shell: test -f out/after.txt]
";

const HEALED: &str = "- [ ] the marker exists [shell: test -f out/done.txt]";

/// `zurdo <args>` in `root` with the stand-in's script set.
fn zurdo(root: &Path, args: &[&str]) -> Output {
    crate::common::zurdo_scripted(root, args, &[])
}

/// The agent does the work (both markers); the analyzer answers heal
/// prompts with `replacement`.
fn script(replacement: Option<&str>) -> String {
    let mut reason = Vec::new();
    if let Some(r) = replacement {
        let body = json!({"quote": "tesst -f out/done.txt", "replacement": r, "why": "TYPO: the command is `test`"});
        reason.push(json!({"contains": "zurdo-reason: heal task-1 line 12", "attempt": {"text": format!("```json\n{body}\n```")}}));
    }
    json!({
        "attempts": [{"write": {"out/done.txt": "ok\n", "out/after.txt": "ok\n"}, "text": "Done."}],
        "reason": reason,
        "log": "invocations.jsonl"
    })
    .to_string()
}

/// A repository whose run has finished: task-1 failed (exit 127), task-2
/// blocked.
fn failed_run(
    config: &str,
    files: &[(&str, &str)],
    replacement: Option<&str>,
) -> tempfile::TempDir {
    let dir = run_repo(PRD, config, files, &script(replacement), false);
    let out = zurdo_run(dir.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let st = state(dir.path());
    assert_eq!(st["tasks"][0]["status"], "failed");
    assert_eq!(st["tasks"][1]["status"], "blocked-by-dependency");
    dir
}

fn sha1(path: &Path) -> String {
    zurdo_harness::state::sha1_hex(&std::fs::read(path).expect("read"))
}

fn events(root: &Path, name: &str) -> Vec<Value> {
    std::fs::read_to_string(state_dir(root).join("progress.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == name)
        .collect()
}

#[test]
fn without_an_analyzer_heal_lists_the_candidates_and_why() {
    // A lesson the task's criteria ignore (it matches: a shell hint, the
    // `tesst` command head).
    let lesson = "---\nmatch:\n  hints: [shell]\n  commands: [tesst]\ntask: task-9\nprd: prds/old.md\ncreated: 2026-01-01T00:00:00Z\n---\nRun `mkdir -p out` before writing a marker.\n";
    let dir = failed_run("", &[("lessons/lesson-0badc0de.md", lesson)], None);
    let root = dir.path();
    // The reasoner routed the criterion to heal (as a suggest_heal
    // diagnosis records it).
    let prd_json = state_dir(root).join("prd.json");
    let mut st = state(root);
    st["tasks"][0]["heal_routings"] = json!([{
        "attempt": 1,
        "criteria": ["task_1::the_marker_exists"],
        "hypothesis": "The hint runs `tesst`, which is not a command."
    }]);
    write_state(&prd_json, &st);

    let out = zurdo(root, &["heal", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("prds/p.md: 1 heal candidate(s)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "prds/p.md:12: task-1: - [ ] the marker exists [shell: tesst -f out/done.txt]"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("sh could not find the command (exit 127) at attempt 1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("the reasoner routed it to heal at attempt 1: The hint runs"),
        "{stdout}"
    );
    assert!(
        stdout.contains("lesson-0badc0de (score 2, not addressed)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no [roles.analyzer] is configured: nothing proposed"),
        "{stdout}"
    );

    let out = zurdo(root, &["heal", "--format", "json", "prds/p.md"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let c = &doc["candidates"][0];
    assert_eq!(
        (c["task"].clone(), c["line"].clone()),
        (json!("task-1"), json!(12))
    );
    assert_eq!(c["criterion"], "task_1::the_marker_exists");
    let kinds: Vec<&str> = c["why"]
        .as_array()
        .expect("why")
        .iter()
        .map(|w| w["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(
        kinds,
        ["command_not_found", "heal_routing", "unaddressed_lesson"]
    );
    assert_eq!(c["lessons"][0]["addressed"], false);
    assert_eq!(doc["healed"], 0);
    // Listing writes nothing and moves nothing.
    assert_eq!(
        std::fs::read_to_string(root.join("prds/p.md")).expect("prd"),
        PRD
    );
    assert!(!state_dir(root).join("heal-log.jsonl").exists());

    // A prd.json zurdo cannot vouch for (rewritten without its MAC) is
    // refused: heal would otherwise sign it.
    let forged = serde_json::to_vec_pretty(&st).expect("JSON");
    std::fs::write(&prd_json, forged).expect("forge");
    let out = zurdo(root, &["heal", "prds/p.md"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("heal will not vouch for a record zurdo cannot"));
}

#[test]
fn an_accepted_heal_edits_the_line_logs_it_and_the_next_run_resumes_without_drift() {
    let dir = failed_run(ANALYZER, &[], Some(HEALED));
    let root = dir.path();
    let prd = root.join("prds/p.md");
    let before = sha1(&prd);
    assert_eq!(state(root)["prd_sha1"], before);

    let out = zurdo(root, &["heal", "--yes", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("proposed by anthropic/"), "{stdout}");
    assert!(stdout.contains("TYPO: the command is `test`"), "{stdout}");
    assert!(
        stdout.contains("-- [ ] the marker exists [shell: tesst -f out/done.txt]"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("+{HEALED}")), "{stdout}");
    assert!(
        stdout.contains("before: failed: [shell: tesst -f out/done.txt]: exited with code 127"),
        "{stdout}"
    );
    assert!(stdout.contains("after:  passed"), "{stdout}");
    assert!(stdout.contains("healed: prds/p.md:12"), "{stdout}");
    assert!(
        stdout.contains("next: task-1 is failed: `zurdo run prds/p.md` resumes without drift but keeps failed tasks")
            && stdout.contains("`zurdo run --retry-failed prds/p.md`"),
        "{stdout}"
    );

    // The PRD line, and only it, is replaced.
    let healed = std::fs::read_to_string(&prd).expect("prd");
    assert_eq!(
        healed,
        PRD.replace(
            "- [ ] the marker exists [shell: tesst -f out/done.txt]",
            HEALED
        )
    );
    // prd.json vouches for the healed PRD (through zurdo: its MAC checks).
    let after = sha1(&prd);
    assert_eq!(state(root)["prd_sha1"], after);
    // heal-log.jsonl: old line, new line, why, who, the verdicts.
    let log = std::fs::read_to_string(state_dir(root).join("heal-log.jsonl")).expect("heal log");
    let entries: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(e["prd"], "prds/p.md");
    assert_eq!(
        (e["task"].clone(), e["line"].clone()),
        (json!("task-1"), json!(12))
    );
    assert_eq!(
        e["old"],
        "- [ ] the marker exists [shell: tesst -f out/done.txt]"
    );
    assert_eq!(e["new"], HEALED);
    assert_eq!(e["why"], "TYPO: the command is `test`");
    assert!(e["who"]["proposed_by"]
        .as_str()
        .is_some_and(|p| p.starts_with("anthropic/")));
    assert_eq!(e["who"]["accepted_by"], "--yes");
    assert_eq!(e["candidate"][0]["kind"], "command_not_found");
    assert_eq!(e["before"]["verdict"], "failed");
    assert_eq!(e["after"]["verdict"], "passed");
    assert_eq!(
        (e["prd_sha1_before"].clone(), e["prd_sha1_after"].clone()),
        (json!(before), json!(after))
    );
    let healed_events = events(root, "prd_healed");
    assert_eq!(healed_events.len(), 1);
    assert_eq!(healed_events[0]["new"], HEALED);

    // The next run resumes: no drift, the state trusted; task-1 stays
    // failed (a resumed run keeps failed tasks settled).
    let out = zurdo_run(root, &[], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("changed since its run state"), "{stderr}");
    assert!(events(root, "state_distrusted").is_empty());
    assert_eq!(state(root)["tasks"][0]["status"], "failed");

    // Nothing left to heal.
    let out = zurdo(root, &["heal", "prds/p.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("prds/p.md: 0 heal candidate(s)"));

    // An edit that did not come through heal still stops the run (and heal).
    std::fs::write(
        &prd,
        healed.replace("Create out/done.txt.", "Create out/done.txt now."),
    )
    .expect("edit");
    let out = zurdo_run(root, &[], &[]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let out = zurdo(root, &["heal", "prds/p.md"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
}

#[test]
fn a_heal_that_weakens_the_criterion_or_still_cannot_run_is_refused() {
    let dir = failed_run(ANALYZER, &[], Some("- [ ] the marker exists [manual]"));
    let root = dir.path();
    let prd = root.join("prds/p.md");
    let prd_json = std::fs::read(state_dir(root).join("prd.json")).expect("prd.json");

    let out = zurdo(root, &["heal", "--yes", "prds/p.md"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "refused: weakens the PRD (replaced-by-manual): a [shell:] hint became [manual]"
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("before:"),
        "a refused heal is never run: {stdout}"
    );

    // By hand, the same checks: a command that still does not exist is run
    // and refused.
    let out = zurdo(
        root,
        &[
            "heal",
            "--yes",
            "prds/p.md",
            "--line",
            "12",
            "--with",
            "- [ ] the marker exists [shell: tessst -f out/done.txt]",
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("proposed by human"), "{stdout}");
    assert!(
        stdout.contains("refused: the healed criterion still cannot run: [shell: tessst -f out/done.txt]: exited with code 127"),
        "{stdout}"
    );
    // A line that is not a criterion is an error.
    let out = zurdo(
        root,
        &["heal", "prds/p.md", "--line", "9", "--with", HEALED],
    );
    assert_eq!(out.status.code(), Some(2));

    // Nothing was written: the PRD, prd.json, no heal log.
    assert_eq!(std::fs::read_to_string(&prd).expect("prd"), PRD);
    assert_eq!(
        std::fs::read(state_dir(root).join("prd.json")).expect("prd.json"),
        prd_json
    );
    assert!(!state_dir(root).join("heal-log.jsonl").exists());
    assert!(events(root, "prd_healed").is_empty());

    // The JSON answer says what was refused and why.
    let out = zurdo(root, &["heal", "--yes", "--format", "json", "prds/p.md"]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let heal = &doc["heals"][0];
    assert_eq!(heal["outcome"], "refused");
    assert_eq!(
        heal["checks"]["weakenings"][0]["rule"],
        "replaced-by-manual"
    );
}
