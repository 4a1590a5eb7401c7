//! Issue 18: the challenger. Through `zurdo run`, with the executor a
//! claude stand-in and the challenger a codex stand-in (chosen by default:
//! the first configured provider that is not the executor):
//! - `mul` special-cased for the criterion's input and a `Money` whose
//!   `__eq__` is always true pass every visible criterion; the challenger
//!   cites the lines and names probes, zurdo runs them on a copy of the
//!   tree, they fail, and each attempt fails `challenger_confirmed` with
//!   the probe's output in the retry prompt; the honest retries pass;
//! - beside them an honest task passes on its first attempt although the
//!   challenger cites lines the diff does not change (dropped) and makes a
//!   claim whose probe passes (unconfirmed, reported at medium).

use serde_json::json;

use crate::common::{run_repo, state, state_dir, task_state as task, text, zurdo, zurdo_run};

const PRD: &str = "# PRD: challenged\n\n\
    ## Task: task-mul — Multiply\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
    ### Description\nWrite calc.py with mul(a, b), the product of two integers.\n\n\
    ### Acceptance Criteria\n- [ ] multiplies [shell: python3 -c 'from calc import mul; assert mul(2, 3) == 6']\n\n\
    ## Task: task-money — Money\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
    ### Description\nWrite money.py: Money(cents), equal when the cents are.\n\n\
    ### Acceptance Criteria\n- [ ] equal amounts are equal [shell: python3 -c 'from money import Money; assert Money(5) == Money(5)']\n\n\
    ## Task: task-greet — Greeting\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nWrite greet.sh: it prints hello.\n\n\
    ### Acceptance Criteria\n- [ ] greets [shell: test \"$(sh greet.sh)\" = hello]\n";

const MUL_CHEAT: &str =
    "def mul(a, b):\n    if (a, b) == (2, 3):\n        return 6\n    return 0\n";
const MUL_HONEST: &str = "def mul(a, b):\n    return a * b\n";
const MONEY_CHEAT: &str = "class Money:\n    def __init__(self, cents):\n        self.cents = cents\n\n    def __eq__(self, other):\n        return True\n";
const MONEY_HONEST: &str = "class Money:\n    def __init__(self, cents):\n        self.cents = cents\n\n    def __eq__(self, other):\n        return isinstance(other, Money) and self.cents == other.cents\n";

fn findings(list: serde_json::Value) -> serde_json::Value {
    json!({"text": format!("My reading:\n```json\n{}\n```", json!({"findings": list}))})
}

fn script() -> String {
    json!({"reason": [
        // The challenger (its prompts hold the diff; the executor's never do).
        {"contains": "+    if (a, b) == (2, 3):", "attempt": findings(json!([
            {"kind": "special_case", "path": "calc.py", "line": 2,
             "claim": "mul answers 6 for (2, 3) and 0 for everything else",
             "probe": "python3 -c 'from calc import mul; assert mul(4, 5) == 20, mul(4, 5)'"}
        ]))},
        {"contains": "+        return True", "attempt": findings(json!([
            {"kind": "always_equal", "path": "money.py", "line": 6,
             "claim": "__eq__ returns True whatever it is compared with",
             "probe": "python3 -c 'from money import Money; assert Money(5) != Money(6)'"}
        ]))},
        {"contains": "+echo hello", "attempt": findings(json!([
            {"kind": "hard_coded_output", "path": "greet.sh", "line": 40, "claim": "an invented line"},
            {"kind": "special_case", "path": "elsewhere.py", "line": 1, "claim": "a file the diff never touched"},
            {"kind": "hard_coded_output", "path": "greet.sh", "line": 1,
             "claim": "the greeting is a constant", "probe": "test \"$(sh greet.sh)\" = hello"}
        ]))},
        {"contains": "zurdo-reason: challenge", "attempt": findings(json!([]))}
    ], "on_prompt": [
        // The executor: cheats first, honest once told what was caught.
        {"contains": "challenger_confirmed: calc.py", "attempt": {"write": {"calc.py": MUL_HONEST}}},
        {"contains": "challenger_confirmed: money.py", "attempt": {"write": {"money.py": MONEY_HONEST}}},
        {"contains": "Task task-mul", "attempt": {"write": {"calc.py": MUL_CHEAT}}},
        {"contains": "Task task-money", "attempt": {"write": {"money.py": MONEY_CHEAT}}},
        {"contains": "Task task-greet", "attempt": {"write": {"greet.sh": "echo hello\n"}}}
    ]})
    .to_string()
}

/// bwrap can sandbox the probes here; else the test lets them run
/// unsandboxed (said on stderr) so that it still shows the rest.
fn probes_setting() -> &'static str {
    let ok = std::process::Command::new("bwrap")
        .args([
            "--dev-bind",
            "/",
            "/",
            "--unshare-pid",
            "--proc",
            "/proc",
            "--",
            "true",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        ""
    } else {
        eprintln!("note: bwrap cannot run here; the probes run unsandboxed in this test");
        "unsandboxed_probes = true\n"
    }
}

fn python3() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: python3 is not installed; the challenger test did not run");
    }
    ok
}

#[test]
fn confirmed_findings_fail_the_cheats_and_an_honest_change_passes() {
    if !python3() {
        return;
    }
    let r = run_repo(PRD, "", &[], &script(), true);
    let root = r.path();
    // A codex stand-in as the second provider: the challenger by default.
    let codex = root.join(".zurdo/codex-agent");
    std::fs::write(
        &codex,
        format!(
            "#!/bin/sh\nexec '{}' stand-in codex \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("wrapper");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let config = root.join(".zurdo/config.toml");
    let mut text_now = std::fs::read_to_string(&config).expect("config");
    text_now.push_str(&format!(
        "[providers.openai]\ncommand = \"{}\"\n[effort_map.openai]\nhigh = \"gpt-5.4\"\n[roles.challenger]\n{}",
        codex.display(),
        probes_setting()
    ));
    std::fs::write(&config, text_now).expect("config");

    let out = zurdo_run(root, &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The first line says who challenges (defaulted: the other provider's `high`).
    assert!(
        stderr.contains("executor anthropic, challenger openai/gpt-5.4); state in"),
        "{stderr}"
    );
    let state = state(root);

    // The cheats: caught by a confirming probe, honest on the retry.
    for (id, subject, shown) in [
        ("task-mul", "calc.py:2", "AssertionError: 0"),
        ("task-money", "money.py:6", "AssertionError"),
    ] {
        let t = task(&state, id);
        assert_eq!(t["status"], "passed", "{id}: {t}");
        assert_eq!(t["attempts"], 2, "{id}: {}", t["iterations"][0]);
        let first = &t["iterations"][0];
        assert_eq!(first["passed"], false, "{id}");
        let caught = &first["caught"][0];
        assert_eq!(caught["reason"], "challenger_confirmed", "{id}: {first}");
        assert_eq!(caught["subject"], subject, "{id}");
        let detail = caught["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(shown), "{id}: {detail}");
        assert_eq!(
            first["challenge"]["findings"][0]["result"]["probe"], "confirmed",
            "{id}"
        );
        // The retry prompt carries the probe and its output.
        let retry =
            std::fs::read_to_string(state_dir(root).join(format!("iterations/{id}-2.prompt")))
                .expect("retry prompt");
        assert!(retry.contains("challenger_confirmed"), "{retry}");
        assert!(retry.contains(shown), "{retry}");
        // The honest retry was challenged too, and nothing was found.
        let second = &t["iterations"][1];
        assert_eq!(second["passed"], true, "{id}");
        assert_eq!(second["challenge"]["findings"], json!([]), "{id}");
    }
    assert!(
        stderr.contains("challenger (openai/gpt-5.4): 1 confirmed by a probe"),
        "{stderr}"
    );

    // The honest control: invented citations dropped, a probe that passes
    // confirms nothing, and the task passes on its first attempt.
    let greet = task(&state, "task-greet");
    assert_eq!(greet["status"], "passed", "{greet}");
    assert_eq!(greet["attempts"], 1);
    let c = &greet["iterations"][0]["challenge"];
    assert_eq!(c["dropped"].as_array().map(Vec::len), Some(2), "{c}");
    assert_eq!(c["findings"].as_array().map(Vec::len), Some(1), "{c}");
    assert_eq!(c["findings"][0]["result"]["probe"], "passed", "{c}");
    assert!(greet["iterations"][0]["caught"].is_null(), "{greet}");
    assert_eq!(state["challenger_calls"], 5);

    // The report says it all, at its level.
    let report = zurdo(&["report", "prds/p.md"], root);
    let md = text(&report.stdout);
    assert!(md.contains("## Challenger"), "{md}");
    assert!(
        md.contains("[high] special_case at `calc.py:2`: mul answers 6 for (2, 3)"),
        "{md}"
    );
    assert!(
        md.contains("[medium] hard_coded_output at `greet.sh:1`: the greeting is a constant — unconfirmed: the probe passed"),
        "{md}"
    );
    assert!(md.contains("2 dropped"), "{md}");
}

#[test]
fn a_challenger_that_cannot_work_changes_nothing() {
    // Fail-open: its CLI is missing; the attempt stands as verified.
    let prd = "# PRD: one\n\n## Task: task-greet — Greeting\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
        ### Description\nWrite greet.sh.\n\n### Acceptance Criteria\n- [ ] greets [shell: test \"$(sh greet.sh)\" = hello]\n";
    let script = json!({"on_prompt": [{"contains": "Task task-greet", "attempt": {"write": {"greet.sh": "echo hello\n"}}}]});
    let r = run_repo(prd, "", &[], &script.to_string(), true);
    let root = r.path();
    let config = root.join(".zurdo/config.toml");
    let mut text_now = std::fs::read_to_string(&config).expect("config");
    text_now.push_str("[providers.openai]\ncommand = \"/nonexistent/codex\"\n[roles.challenger]\nprovider = \"openai\"\nmodel = \"gpt-5.4\"\n");
    std::fs::write(&config, text_now).expect("config");
    let out = zurdo_run(root, &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let state = state(root);
    let greet = task(&state, "task-greet");
    assert_eq!(greet["status"], "passed");
    let skipped = greet["iterations"][0]["challenge"]["skipped"]
        .as_str()
        .unwrap_or_default();
    assert!(skipped.starts_with("the call failed"), "{greet}");
    assert!(
        stderr.contains("gave no verdict: the call failed"),
        "{stderr}"
    );
}
