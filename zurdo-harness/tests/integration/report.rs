//! `zurdo report <prd>`: the run report from `prd.json`, its exit codes, and
//! the files it leaves under `.zurdo/<slug>/reports/`.

use std::path::{Path, PathBuf};

use crate::common::{repo, text, zurdo};
use zurdo_harness::reason::diagnosis::{Block, Confidence, Verdict};
use zurdo_harness::state::run_state::{
    DiagnosisRecord, Injected, RunState, Stall, Status, TaskState,
};

const PRD: &str = "# PRD: demo

## Task: task-1 — Write it
**Effort**: low
**Depends-on**: []

### Description
Do it.

### Acceptance Criteria
- [ ] file there [file-exists: a.txt]
";

/// The state directory `zurdo state where` names for `prds/p.md`.
fn state_dir(root: &Path) -> PathBuf {
    let out = zurdo(&["state", "where", "prds/p.md"], root);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = PathBuf::from(text(&out.stdout).trim());
    if printed.is_absolute() {
        printed
    } else {
        root.join(printed)
    }
}

/// A state with a stall, an accepted diagnosis and an injected lesson, and
/// no halt, heal routing or extracted lesson.
fn state() -> RunState {
    let task = TaskState {
        id: "task-1".into(),
        status: Status::Failed,
        attempts: 3,
        max_attempts: 3,
        stalls: vec![Stall {
            attempt: 3,
            fingerprint: "f00dfeed".into(),
            repeats: 2,
            criteria: vec!["task-1::file there".into()],
            surface: Default::default(),
        }],
        diagnoses: vec![DiagnosisRecord {
            attempt: 3,
            outcome: "accepted".into(),
            why: None,
            block: Some(Block {
                hypothesis: "the agent writes b.txt, not a.txt".into(),
                guidance: "write a.txt".into(),
                verdict: Verdict::RetryWithGuidance,
                confidence: Confidence::High,
                cited_steps: vec![2],
                confidence_clamped: false,
            }),
            model: Some("anthropic/opus".into()),
            usage: Some(zurdo_harness::agent::Usage {
                input_tokens: 900,
                output_tokens: 120,
                cached_input_tokens: 0,
            }),
            file: Some(".zurdo/p/reason/task-1-3.json".into()),
        }],
        lessons_injected: vec![Injected {
            attempt: 1,
            id: "0badc0de".into(),
            mode: "prospective".into(),
            score: 2,
            from_task: "task-7".into(),
            from_prd: "prds/old.md".into(),
        }],
        ..TaskState::default()
    };
    RunState {
        version: 1,
        prd: "prds/p.md".into(),
        prd_sha1: "0".repeat(40),
        slug: "p".into(),
        executor: "anthropic".into(),
        policy: "ab".repeat(32),
        toolchain: Vec::new(),
        ignore_rules: None,
        environment: None,
        started_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:05:00Z".into(),
        tasks: vec![task],
        reasoner_calls: 1,
        challenger_calls: 0,
        review_chain: None,
    }
}

fn reports(dir: &Path, ext: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("reports"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_missing_prd_is_exit_2() {
    let root = repo::<&str>(&[]);
    let out = zurdo(&["report", "prds/none.md"], root.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("prds/none.md: no such PRD file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_prd_without_state_is_exit_2_with_the_hint() {
    let root = repo(&[("prds/p.md", PRD)]);
    let out = zurdo(&["report", "prds/p.md"], root.path());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("prds/p.md has no run state yet"), "{err}");
    assert!(err.contains("`zurdo run prds/p.md` makes one"), "{err}");
    assert!(text(&out.stdout).is_empty());
}

#[test]
fn unreadable_state_is_exit_2() {
    let root = repo(&[("prds/p.md", PRD)]);
    let dir = state_dir(root.path());
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("prd.json"), "{not json").expect("write");
    let out = zurdo(&["report", "prds/p.md"], root.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unreadable run state"),
        "{}",
        text(&out.stderr)
    );
    assert!(reports(&dir, "md").is_empty());
}

#[test]
fn the_report_shows_the_filled_sections_only() {
    let root = repo(&[("prds/p.md", PRD)]);
    let dir = state_dir(root.path());
    std::fs::create_dir_all(&dir).expect("mkdir");
    let json = serde_json::to_vec_pretty(&state()).expect("serialize");
    std::fs::write(dir.join("prd.json"), &json).expect("write");

    let out = zurdo(&["report", "prds/p.md"], root.path());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.starts_with("# zurdo run report: prds/p.md"),
        "{stdout}"
    );
    assert!(stdout.contains("- policy: `abababababab`"), "{stdout}");
    for present in [
        "## Tasks",
        "## Diagnoses",
        "retry_with_guidance, confidence high, by `anthropic/opus`, tokens 900 in / 120 out",
        "## Fingerprint Stalls",
        "fingerprint `f00dfeed`",
        "## Lessons Injected",
        "lesson `0badc0de` (prospective, score 2), learned from `task-7` in `prds/old.md`",
    ] {
        assert!(stdout.contains(present), "{present:?} missing:\n{stdout}");
    }
    for absent in [
        "## Halt Attributions",
        "## Heal Routings",
        "## Lessons Extracted",
    ] {
        assert!(!stdout.contains(absent), "{absent:?} present:\n{stdout}");
    }

    let mds = reports(&dir, "md");
    assert_eq!(mds.len(), 1, "{mds:?}");
    assert_eq!(reports(&dir, "json").len(), 1);
    assert!(
        stderr.contains(&format!("zurdo: wrote {}", mds[0].display())),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&mds[0]).expect("md"), stdout);
    // Read-only on the state: prd.json is untouched and no lock is left.
    assert_eq!(std::fs::read(dir.join("prd.json")).expect("prd.json"), json);
    assert!(!dir.join("lock").exists());

    // A second report gets its own files; --format json prints the state.
    let out = zurdo(&["report", "--format", "json", "prds/p.md"], root.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let back: RunState = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(back, state());
    assert_eq!(reports(&dir, "md").len(), 2);
    assert_eq!(reports(&dir, "json").len(), 2);
}

#[test]
fn warnings_only_the_event_log_keeps_are_in_the_report() {
    let root = repo(&[("prds/p.md", PRD)]);
    let dir = state_dir(root.path());
    std::fs::create_dir_all(&dir).expect("mkdir");
    let json = serde_json::to_vec_pretty(&state()).expect("JSON");
    std::fs::write(dir.join("prd.json"), json).expect("write state");
    // Without a log, no section.
    let out = zurdo(&["report", "prds/p.md"], root.path());
    assert!(
        !text(&out.stdout).contains("## Warnings"),
        "{}",
        text(&out.stdout)
    );
    std::fs::write(
        dir.join("progress.log"),
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"attempt_started\",\"task\":\"task-1\",\"attempt\":2,\"model\":\"m\"}\n\
         {\"ts\":\"2026-01-01T00:00:01Z\",\"event\":\"attempt_dropped\",\"task\":\"task-1\",\"attempt\":2}\n\
         {\"ts\":\"2026-01-01T00:00:02Z\",\"event\":\"evidence_changed\",\"task\":\"task-1\",\"attempt\":3,\"paths\":[\"a.txt\"]}\n\
         {\"ts\":\"2026-01-01T00:00:03Z\",\"event\":\"toolchain_changed\",\"changes\":[\"cargo moved: /a -> /b\"]}\n",
    )
    .expect("write log");
    let out = zurdo(&["report", "prds/p.md"], root.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let warnings = &md[md.find("## Warnings").expect("a Warnings section")..];
    assert!(
        warnings.contains("- `task-1` attempt 2 was interrupted: dropped, not counted\n"),
        "{warnings}"
    );
    assert!(
        warnings.contains("- `task-1` attempt 3: evidence changed during verification: a.txt"),
        "{warnings}"
    );
    assert!(
        warnings.contains("- toolchain changed: cargo moved: /a -> /b"),
        "{warnings}"
    );
}

/// Two attempts of one task, through the claude stand-in driven by `script`.
const TWO_ATTEMPTS: &str = "# PRD: logged out

## Task: task-1 — Write it
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 2

### Description
Do it.

### Acceptance Criteria
- [ ] file there [file-exists: a.txt]
";

#[test]
fn the_report_quotes_the_agents_errors_and_why_the_agent_could_not_work() {
    use crate::common::{run_repo, zurdo_run};
    // An error of the agent's own (no failure signature): each attempt
    // meets it, and the report quotes it.
    let r = run_repo(
        TWO_ATTEMPTS,
        "",
        &[],
        r#"{"attempts": [{"error": "The tests would not compile"}]}"#,
        false,
    );
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = zurdo(&["report", "prds/p.md"], r.path());
    let md = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        md.contains("- `task-1`: failed, attempts 2/2\n  - agent error at attempts 1, 2: The tests would not compile\n"),
        "{md}"
    );
    assert!(!md.contains("- stopped:"), "the run did not stop: {md}");

    // Logged out, past the probe: the CLI cannot work, the attempt is
    // dropped and the run stops on it (exit 5), and says why.
    let r = run_repo(TWO_ATTEMPTS, "", &[], r#"{"auth": "missing"}"#, false);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let md = text(&zurdo(&["report", "prds/p.md"], r.path()).stdout);
    assert!(
        md.contains("- stopped: the agent could not work: `task-1` attempt 1: `claude`: not logged in (the CLI said: Not logged in · Please run /login)\n"),
        "{md}"
    );

    // Logged out, probed: the run stops before any task, and says why.
    let r = run_repo(TWO_ATTEMPTS, "", &[], r#"{"auth": "missing"}"#, false);
    let out = zurdo_run(r.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let md = text(&zurdo(&["report", "prds/p.md"], r.path()).stdout);
    assert!(
        md.contains("- stopped: the model probe failed, before any task: `haiku`: not logged in; claude says: Not logged in · Please run /login"),
        "{md}"
    );

    // A CLI that cannot start: the run stops at the attempt.
    let r = run_repo(TWO_ATTEMPTS, "", &[], "{}", false);
    let config = r.path().join(".zurdo/config.toml");
    let text_before = std::fs::read_to_string(&config).expect("config");
    let agent = r.path().join(".zurdo/agent").display().to_string();
    std::fs::write(
        &config,
        text_before.replace(&agent, "/nonexistent/zurdo-test/claude"),
    )
    .expect("config");
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    let md = text(&zurdo(&["report", "prds/p.md"], r.path()).stdout);
    assert!(
        md.contains("- stopped: the agent could not work: `task-1` attempt 1: its CLI `/nonexistent/zurdo-test/claude` could not start: No such file or directory (os error 2)\n"),
        "{md}"
    );
}

#[test]
fn a_run_s_report_groups_its_tasks_by_category() {
    let prd = "# PRD: cat\n\n\
        ## Task: task-api — API\n**Effort**: low\n**Depends-on**: []\n**Category**: Backend\n\n\
        ### Description\nd\n\n### Acceptance Criteria\n- [ ] there [file-exists: api.txt]\n\n\
        ## Task: task-ui — UI\n**Effort**: low\n**Depends-on**: []\n**Category**: Frontend\n\n\
        ### Description\nd\n\n### Acceptance Criteria\n- [ ] there [file-exists: ui.txt]\n\n\
        ## Task: task-misc — Misc\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nd\n\n### Acceptance Criteria\n- [ ] there [file-exists: misc.txt]\n";
    let script = r#"{"attempts": [{"write": {"api.txt": "a", "ui.txt": "u", "misc.txt": "m"}}]}"#;
    let r = crate::common::run_repo(prd, "", &[], script, false);
    let out = crate::common::zurdo_run(r.path(), &["--skip-model-check"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let state = crate::common::state(r.path());
    assert_eq!(
        crate::common::task_state(&state, "task-api")["category"],
        "Backend"
    );
    assert!(crate::common::task_state(&state, "task-misc")
        .get("category")
        .is_none());
    let out = zurdo(&["report", "prds/p.md"], r.path());
    let report = text(&out.stdout);
    let at = |s: &str| report.find(s).unwrap_or_else(|| panic!("{s}:\n{report}"));
    assert!(at("### Backend (1 passed)") < at("`task-api`"), "{report}");
    assert!(at("### Frontend (1 passed)") < at("`task-ui`"), "{report}");
    assert!(
        at("`task-ui`") < at("### Uncategorized (1 passed)"),
        "{report}"
    );
    assert!(
        at("### Uncategorized (1 passed)") < at("`task-misc`"),
        "{report}"
    );
}
