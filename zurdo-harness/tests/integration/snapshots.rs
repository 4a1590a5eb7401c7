//! What a user sees, pinned: `--help`, `validate`, `verify`, `report`,
//! `pyxis query` and the live output of `zurdo run`, each as a transcript under
//! `tests/integration/snapshots/`. Paths, timestamps and durations are
//! redacted; everything else must match to the byte. After an intended
//! change, `SNAPSHOTS=overwrite cargo test -p zurdo-harness --test integration snapshots`
//! rewrites them (and the diff is the review).

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::{run_repo, state_dir};

/// One command's transcript: the command line, its exit code, stdout and
/// stderr, redacted.
fn transcript(root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(args)
        .current_dir(root)
        .env_remove("NO_COLOR")
        .env_remove("ZURDO_STAND_IN_SCRIPT")
        .envs(env.iter().copied())
        .output()
        .expect("the zurdo binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let body = format!(
        "$ zurdo {}\n[exit {}]\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        text(&out.stdout),
        text(&out.stderr)
    );
    redact(&body, root)
}

/// Replaces what differs between machines and runs.
fn redact(text: &str, root: &Path) -> String {
    let mut out = text.replace(env!("CARGO_BIN_EXE_zurdo"), "[BIN]");
    // The root as given and as the kernel resolves it (macOS /private/tmp).
    if let Ok(real) = std::fs::canonicalize(root) {
        out = out.replace(&real.display().to_string(), "[ROOT]");
    }
    out = out.replace(&root.display().to_string(), "[ROOT]");
    let rules: [(&str, &str); 7] = [
        // A report written in the same second as another gets `-2`, `-3`….
        (r"\d{4}-\d\d-\d\dT\d\d[:-]\d\d[:-]\d\dZ(-\d+)?", "[TS]"),
        (r"\b\d+\.\d+s\b", "[SECS]s"),
        (r"\b\d+ ms\b", "[MS] ms"),
        // verify's right-aligned time column
        (r"(?m) +\d+ms$", " [MS]"),
        (r"pid \d+", "pid [PID]"),
        // A rate limit's wait, and the reset clock a CLI names.
        (r"waiting \d+:\d\d", "waiting [WAIT]"),
        (r"resets \d{1,2}(:\d\d)?[ap]m", "resets [CLOCK]"),
    ];
    for (pattern, with) in rules {
        let re = regex::Regex::new(pattern).expect("a valid pattern");
        out = re.replace_all(&out, with).into_owned();
    }
    out
}

/// The transcript of a `zurdo` command in a [`run_repo`] scratch
/// repository, whose stand-in reads `.zurdo/script.json`.
fn run_transcript(root: &Path, args: &[&str]) -> String {
    let script = root.join(".zurdo/script.json");
    let script = script.display().to_string();
    transcript(root, args, &[("ZURDO_STAND_IN_SCRIPT", &script)])
}

fn pin(name: &str, actual: String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/snapshots")
        .join(format!("{name}.txt"));
    snapbox::assert_data_eq!(actual, snapbox::Data::read_from(&path, None).raw());
}

/// A scratch directory marked as a repository root holding `files`.
fn plain_repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("repo marker");
    for (name, body) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, body).expect("write");
    }
    dir
}

#[test]
fn help() {
    let dir = tempfile::tempdir().expect("temp dir");
    let commands: &[&[&str]] = &[
        &["--help"],
        &["--version"],
        &["validate", "--help"],
        &["analyze", "--help"],
        &["verify", "--help"],
        &["run", "--help"],
        &["heal", "--help"],
        &["demo", "--help"],
        &["init", "--help"],
        &["doctor", "--help"],
        &["state", "--help"],
        &["state", "where", "--help"],
        &["report", "--help"],
        &["review", "--help"],
        &["reason", "--help"],
        &["reason", "status", "--help"],
        &["reason", "match", "--help"],
        &["reason", "clear", "--help"],
        &["lumen", "--help"],
        &["lumen", "index", "--help"],
        &["lumen", "query", "--help"],
        &["pyxis", "--help"],
        &["pyxis", "index", "--help"],
        &["pyxis", "query", "--help"],
        &["vela", "--help"],
        &["vela", "start", "--help"],
        &["vela", "stop", "--help"],
        &["vela", "status", "--help"],
        &["stand-in"],
        &["no-such-command"],
    ];
    let all: Vec<String> = commands
        .iter()
        .map(|args| transcript(dir.path(), args, &[]))
        .collect();
    pin("help", all.join("\n"));
}

const VALID: &str = "# PRD: Greeter

## Task: task-b — Second
**Effort**: low
**Depends-on**: [task-a]

### Description
Write the note.

### Acceptance Criteria
- [ ] the note exists [file-exists: note.txt]
- [ ] reviewed [manual]

## Task: task-a — First
**Effort**: low
**Depends-on**: []

### Requirements
- req-hello: it says hello
- req-bye: it says goodbye

### Description
Say hi.

### Acceptance Criteria
- [ ] says hi [shell: echo hi] [proves:req-hello]
- [ ] mentions zurdo [grep: zurdo in note.txt]
- [ ] tests pass [shell: ls no-such-dir || true]
";

const INVALID: &str = "# PRD: Broken

## Task: task_1 — Bad id
**Effort**: low
**Depends-on**: [task-9]

### Description
d

### Acceptance Criteria
- [ ] no hint at all
- [ ] a bad hint [frobnicate: x]

## Task: task-2 — Cycle
**Effort**: low
**Depends-on**: [task-2]

### Acceptance Criteria
- [ ] ok [shell: true]
";

#[test]
fn validate() {
    let r = plain_repo(&[("prds/ok.md", VALID), ("prds/bad.md", INVALID)]);
    let runs = [
        transcript(r.path(), &["validate", "prds/ok.md"], &[]),
        transcript(r.path(), &["validate", "prds/bad.md"], &[]),
        transcript(r.path(), &["validate", "prds/ok.md", "prds/bad.md"], &[]),
        transcript(
            r.path(),
            &["validate", "--format", "json", "prds/ok.md"],
            &[],
        ),
        transcript(r.path(), &["validate", "prds/missing.md"], &[]),
    ];
    pin("validate", runs.join("\n"));
}

#[test]
fn verify() {
    let r = plain_repo(&[
        ("prds/ok.md", VALID),
        ("prds/bad.md", INVALID),
        ("note.txt", "nothing here\n"),
    ]);
    let runs = [
        transcript(r.path(), &["verify", "prds/ok.md"], &[]),
        transcript(r.path(), &["verify", "--task", "task-a", "prds/ok.md"], &[]),
        transcript(r.path(), &["verify", "--task", "task-z", "prds/ok.md"], &[]),
        transcript(r.path(), &["verify", "prds/bad.md"], &[]),
    ];
    std::fs::write(r.path().join("note.txt"), "made by zurdo\n").expect("write");
    let green = transcript(r.path(), &["verify", "prds/ok.md"], &[]);
    pin("verify", format!("{}\n{green}", runs.join("\n")));
}

/// Three tasks in a git repository: the first breaks a frozen file, then
/// stalls, is diagnosed and recovers (a lesson is extracted); the second
/// spends its budget; the third is blocked by it. A standing rule holds
/// throughout.
const LOOP_PRD: &str = "# PRD: snapshot

## Task: task-1 — Make the marker
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 5
**Frozen**: tests/*.txt

### Description
Create out/done.txt holding `ok`.

### Acceptance Criteria
- [ ] the marker exists [shell: test -f out/done.txt]
- [ ] the marker says ok [grep: ^ok$ in out/done.txt]

## Task: task-2 — Never done
**Effort**: low
**Depends-on**: [task-1]
**Max-Attempts**: 2

### Description
Create out/never.txt.

### Acceptance Criteria
- [ ] the impossible file exists [file-exists: out/never.txt]

## Task: task-3 — After
**Effort**: low
**Depends-on**: [task-2]

### Description
Anything.

### Acceptance Criteria
- [ ] a later file exists [file-exists: out/later.txt]
";

const LOOP_CONFIG: &str = "[roles.reasoner]
provider = \"anthropic\"
model = \"haiku\"
[reason]
enabled = true

[[verification.standing]]
hint = \"[no-grep: dbg!\\\\( in src/*.rs]\"
why = \"no debug prints\"
";

fn loop_script() -> String {
    let touch =
        json!({"name": "Bash", "input": {"command": "touch done.txt"}, "output": "", "ok": true});
    let diagnosis = json!({
        "hypothesis": "The agent never creates the out/ directory.",
        "guidance": "Create out/ before writing the marker.",
        "verdict": "retry_with_guidance",
        "confidence": "high",
        "cited_steps": [1],
    });
    json!({
        "attempts": [
            {"write": {"tests/golden.txt": "edited\n"}, "text": "I edited the golden file.", "tool_calls": [touch]},
            {"write": {"tests/golden.txt": "golden\n"}, "text": "Reverted; done.", "tool_calls": [touch], "usage": {"input_tokens": 1000, "output_tokens": 50}},
            {"text": "Done, I think.", "tool_calls": [touch]},
            {"write": {"out/done.txt": "ok\n"}, "text": "Created out/ first."},
            {"text": "Cannot do it."},
            {"text": "Still cannot."}
        ],
        "reason": [
            {"contains": "zurdo-reason: diagnosis", "attempt": {"text": format!("```json\n{diagnosis}\n```")}},
            {"contains": "zurdo-reason: lesson", "attempt": {"text": json!({"lesson": "Create the directory before the file: `test -f out/x` fails while out/ is missing."}).to_string()}}
        ]
    })
    .to_string()
}

#[test]
fn run_live_output() {
    let r = run_repo(
        LOOP_PRD,
        LOOP_CONFIG,
        &[
            ("tests/golden.txt", "golden\n"),
            ("src/lib.rs", "pub fn f() {}\n"),
        ],
        &loop_script(),
        true,
    );
    let root = r.path();
    let first = run_transcript(root, &["run", "--no-prompt", "prds/p.md"]);
    // Settled tasks are reported from the saved state.
    let again = run_transcript(root, &["run", "--no-prompt", "prds/p.md"]);
    let report = run_transcript(root, &["report", "prds/p.md"]);
    pin("run", format!("{first}\n{again}"));
    pin("report", report);
}

/// More of the live output: a skill that is not installed, a changed file
/// no hint reads, a clean-room mismatch that stalls and is routed to heal,
/// an agent killed at its timeout, a halt, an agent that cannot start.
const MORE_PRD: &str = "# PRD: more

## Task: task-1 — Write a
**Effort**: low
**Depends-on**: []
**Skills**: missing-skill

### Description
Write out/a.txt.

### Acceptance Criteria
- [ ] a exists [file-exists: out/a.txt]

## Task: task-2 — Generate
**Effort**: low
**Depends-on**: [task-1]
**Max-Attempts**: 3

### Description
Write build/gen.txt.

### Acceptance Criteria
- [ ] the generated file exists [file-exists: build/gen.txt]

## Task: task-3 — Slow
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3
**Agent-timeout**: 1s

### Description
Write out/slow.txt.

### Acceptance Criteria
- [ ] slow exists [file-exists: out/slow.txt]
";

fn more_script() -> String {
    let reply = |verdict: &str| {
        let block = json!({
            "hypothesis": format!("hypothesis for {verdict}"),
            "guidance": "look again",
            "verdict": verdict,
            "confidence": "medium",
            "cited_steps": [],
        });
        json!({"text": format!("```json\n{block}\n```")})
    };
    json!({
        "attempts": [
            {"write": {"out/a.txt": "a\n", "notes.md": "why\n"}, "text": "Wrote a."},
            {"write": {"build/gen.txt": "g\n"}, "text": "Generated."},
            {"write": {"build/gen.txt": "g\n"}, "text": "Generated again."},
            {"write": {"build/gen.txt": "g\n"}, "text": "And again."},
            {"sleep_ms": 20000},
            {"sleep_ms": 20000}
        ],
        "reason": [
            {"contains": "task-2", "attempt": reply("suggest_heal")},
            {"contains": "task-3", "attempt": reply("halt_task")}
        ]
    })
    .to_string()
}

#[test]
fn run_live_output_more() {
    let r = run_repo(
        MORE_PRD,
        "[roles.reasoner]\nprovider = \"anthropic\"\nmodel = \"haiku\"\n[reason]\nenabled = true\n\n[verification]\nclean_room = \"checkout\"\n",
        &[(".gitignore", "build/\n.zurdo/\n")],
        &more_script(),
        true,
    );
    let root = r.path();
    let run = run_transcript(root, &["run", "--no-prompt", "prds/p.md"]);
    let report = run_transcript(root, &["report", "prds/p.md"]);
    // An agent CLI that is not there (the probe skipped).
    std::fs::write(
        root.join(".zurdo/config.toml"),
        "[providers.anthropic]\ncommand = \"/nonexistent/claude\"\n[effort_map.anthropic]\nlow = \"haiku\"\n",
    )
    .expect("config");
    let gone = run_transcript(root, &["run", "--reset", "--skip-model-check", "prds/p.md"]);
    pin("run-more", format!("{run}\n{report}\n{gone}"));
}

/// An agent CLI that cannot work, as the live output says it: not logged
/// in, out of quota after some work, retrying without a network (stopped),
/// a rate limit waited out; then a failed task given a fresh budget.
#[test]
fn run_live_output_infra() {
    let prd = SMALL_PRD.replace(
        "**Depends-on**: []",
        "**Depends-on**: []\n**Max-Attempts**: 1",
    );
    let r = run_repo(
        &prd,
        "[defaults]\nrate_limit_wait = \"1m\"\n",
        &[],
        "{}",
        false,
    );
    let root = r.path();
    let script = |attempts: serde_json::Value| {
        let text = crate::common::with_markers(&json!({ "attempts": attempts }).to_string());
        std::fs::write(root.join(".zurdo/script.json"), text).expect("script");
        let _ = std::fs::remove_file(root.join(".zurdo/script.json.count"));
    };
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--no-prompt", "--skip-model-check"];
        args.extend_from_slice(extra);
        args.push("prds/p.md");
        run_transcript(root, &args)
    };
    let mut runs = Vec::new();
    script(json!([{"fail": "auth"}]));
    runs.push(run(&[]));
    script(json!([{"write": {"half.txt": "begun\n"}, "fail": "quota"}]));
    runs.push(run(&[]));
    script(json!([{"fail": "network"}]));
    runs.push(run(&[]));
    script(json!([{"fail": "crash"}]));
    runs.push(run(&[]));
    script(json!([{"text": "Nothing to do."}]));
    runs.push(run(&[]));
    script(json!([
        {"fail": {"kind": "rate_limit", "resets_in_s": 1}},
        {"write": {"out.txt": "x\n"}, "text": "Wrote it."}
    ]));
    runs.push(run(&["--retry-failed"]));
    pin("run-infra", runs.join("\n"));
}

const SMALL_PRD: &str = "# PRD: small

## Task: task-1 — Write the file
**Effort**: low
**Depends-on**: []

### Description
Write out.txt.

### Acceptance Criteria
- [ ] the file exists [file-exists: out.txt]
";

#[test]
fn run_refusals_and_resume() {
    let script =
        json!({"attempts": [{"write": {"out.txt": "x\n"}, "text": "Wrote it."}]}).to_string();
    let r = run_repo(SMALL_PRD, "", &[], &script, false);
    let root = r.path();
    let mut runs = Vec::new();
    // An attempt that started and never finished (a hard stop) is dropped on resume.
    let state = {
        let first = run_transcript(root, &["run", "--no-prompt", "prds/p.md"]);
        runs.push(first);
        state_dir(root)
    };
    // Drift: the PRD changed since the state was written.
    let changed = format!("{SMALL_PRD}- [ ] and it is fine [file-exists: out.txt]\n");
    std::fs::write(root.join("prds/p.md"), &changed).expect("edit the PRD");
    runs.push(run_transcript(root, &["run", "--no-prompt", "prds/p.md"]));
    // A lock a running zurdo holds.
    let (mut holder, _script) = crate::common::live_zurdo();
    std::fs::write(state.join("lock"), crate::common::lock_line(holder.id())).expect("lock");
    runs.push(run_transcript(root, &["run", "--reset", "prds/p.md"]));
    let _ = holder.kill();
    let _ = holder.wait();
    // A stale lock is taken over; the reset archives and starts again.
    std::fs::write(state.join("lock"), "4194305 2026-01-01T00:00:00Z\n").expect("lock");
    runs.push(run_transcript(root, &["run", "--reset", "prds/p.md"]));
    // A crash mid-attempt: progress.log says started, prd.json has no iteration.
    let mut prd_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state.join("prd.json")).expect("prd.json"))
            .expect("JSON");
    prd_json["tasks"][0]["status"] = json!("pending");
    prd_json["tasks"][0]["attempts"] = json!(0);
    prd_json["tasks"][0]["iterations"] = json!([]);
    prd_json["tasks"][0]["preflight_results"] = serde_json::Value::Null;
    prd_json["tasks"][0]["passed_at_preflight"] = json!(false);
    crate::common::write_state(&state.join("prd.json"), &prd_json);
    std::fs::remove_file(root.join("out.txt")).expect("rm");
    let mut log = std::fs::read_to_string(state.join("progress.log")).expect("log");
    log.push_str(
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"attempt_started\",\"task\":\"task-1\",\"attempt\":1,\"model\":\"haiku\"}\n",
    );
    std::fs::write(state.join("progress.log"), log).expect("log");
    runs.push(run_transcript(root, &["run", "--resume", "prds/p.md"]));
    // A bad config is refused before the PRD is read.
    std::fs::write(
        root.join(".zurdo/config.toml"),
        "[executor]\nprovider = \"openia\"\n",
    )
    .expect("config");
    runs.push(run_transcript(root, &["run", "--no-prompt", "prds/p.md"]));
    pin("run-refusals", runs.join("\n"));
}

/// Cost budgets as the live output and the report say them: a task that
/// passes (its receipt), one whose next attempt would cross its
/// **Max-Cost** (refused, not started; its dependent blocked).
const BUDGET_PRD: &str = "# PRD: budget

## Task: task-1 — Write the file
**Effort**: low
**Depends-on**: []

### Description
Write out.txt.

### Acceptance Criteria
- [ ] the file exists [file-exists: out.txt]

## Task: task-2 — Write the other file
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3
**Max-Cost**: $0.05

### Description
Write other.txt.

### Acceptance Criteria
- [ ] the other file exists [file-exists: other.txt]

## Task: task-3 — Use it
**Effort**: low
**Depends-on**: [task-2]

### Description
Write last.txt.

### Acceptance Criteria
- [ ] the last file exists [file-exists: last.txt]
";

#[test]
fn run_budget() {
    let script = json!({"attempts": [
        {"write": {"out.txt": "x\n"}, "text": "Wrote it.", "cost_usd": 0.02},
        {"text": "Could not.", "cost_usd": 0.03}
    ]})
    .to_string();
    let r = run_repo(
        BUDGET_PRD,
        "[budget]\nmax_cost_usd = 1.0\n",
        &[],
        &script,
        false,
    );
    let root = r.path();
    let run = run_transcript(root, &["run", "--no-prompt", "prds/p.md"]);
    let report = run_transcript(root, &["report", "prds/p.md"]);
    pin("run-budget", format!("{run}\n{report}"));
}

#[test]
fn run_model_probe_failure() {
    let script = json!({"models": {"haiku": "unknown"}}).to_string();
    let r = run_repo(SMALL_PRD, "", &[], &script, false);
    let out = run_transcript(r.path(), &["run", "--no-prompt", "prds/p.md"]);
    pin("run-probe", out);
}

#[test]
fn demo() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("demo");
    let target_text = target.display().to_string();
    let out = transcript(dir.path(), &["demo", "--dir", &target_text], &[]);
    pin("demo", out);
}

#[test]
fn pyxis_query() {
    let r = plain_repo(&[
        (
            "src/config.rs",
            "/// Settings read from .zurdo/config.toml.\npub struct Config {\n    pub max_attempts: u32,\n}\n\nimpl Config {\n    pub fn load(text: &str) -> Config {\n        Config { max_attempts: text.len() as u32 }\n    }\n}\n",
        ),
        ("src/lib.rs", "pub mod config;\npub mod retry;\n"),
        (
            "src/retry.rs",
            "use crate::config::Config;\n\n/// Attempts left after `used` of them.\npub fn attempts_left(config: &Config, used: u32) -> u32 {\n    config.max_attempts.saturating_sub(used)\n}\n",
        ),
        ("docs/retries.md", "# Retries\n\nA task gets `max_attempts` attempts; see src/retry.rs.\n"),
        ("README.md", "# demo\n\nA small crate.\n"),
        ("tests/shapes.rs", "#[test]\nfn circles_are_round() {}\n"),
    ]);
    let runs = [
        transcript(
            r.path(),
            &[
                "pyxis",
                "query",
                "How many attempts does a task get before it stops retrying?",
            ],
            &[],
        ),
        transcript(
            r.path(),
            &[
                "pyxis",
                "query",
                "Make Config::load read max_attempts from docs/retries.md",
                "--limit",
                "3",
            ],
            &[],
        ),
        transcript(
            r.path(),
            &[
                "pyxis", "query", "retry", "--format", "json", "--limit", "2",
            ],
            &[],
        ),
        transcript(r.path(), &["pyxis", "query", "kubernetes"], &[]),
        transcript(r.path(), &["pyxis", "query", "the of 42"], &[]),
    ];
    pin("pyxis", runs.join("\n"));
}
