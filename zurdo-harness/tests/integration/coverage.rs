//! Issue 19: the coverage gate. After a task's criteria pass, the lines it
//! changed that its tests executed (read from the report the criteria's own
//! command writes) must reach `[verification.coverage] threshold`. A task
//! whose new code the tests do not run fails with `coverage_below_threshold`
//! naming the lines; beside it in the same run, a task whose new code is
//! tested passes; a report the criteria did not write this time is its own
//! failure, never a pass.

use crate::common::{run_repo, state, task_state as task, text, zurdo_run};

/// A stand-in for a coverage tool: every code line of src/*.py is
/// instrumented, and "executed" when it carries `# tested`; written as lcov.
const RUN_TESTS: &str = r##"import glob, os
os.makedirs("cov", exist_ok=True)
with open("cov/lcov.info", "w") as out:
    for path in sorted(glob.glob("src/*.py")):
        out.write("SF:%s\n" % path)
        for n, line in enumerate(open(path), 1):
            code = line.strip()
            if code and not code.startswith("#"):
                out.write("DA:%d,%d\n" % (n, 1 if "# tested" in line else 0))
        out.write("end_of_record\n")
"##;

const CONFIG: &str = "[verification.coverage]\nsources = [\"cov/lcov.info\"]\nthreshold = 0.8\n";

#[test]
fn untested_new_code_fails_the_gate_and_tested_code_passes() {
    let prd = "# PRD: cov\n\n\
        ## Task: task-untested — Add sub\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
        ### Description\nAdd sub to src/a.py.\n\n### Acceptance Criteria\n- [ ] sub is there [grep: def sub in src/a.py]\n- [ ] the tests run [shell: python3 run_tests.py]\n\n\
        ## Task: task-tested — Add mul\n**Effort**: low\n**Depends-on**: []\n\n\
        ### Description\nAdd mul to src/b.py.\n\n### Acceptance Criteria\n- [ ] mul is there [grep: def mul in src/b.py]\n- [ ] the tests run [shell: python3 run_tests.py]\n";
    let script = serde_json::json!({"on_prompt": [
        {"contains": "Task task-untested", "attempt": {"append": {"src/a.py": "def sub(a, b):  # tested\n    if a < 0:\n        raise ValueError(a)\n    return a - b\n"}}},
        {"contains": "Task task-tested", "attempt": {"append": {"src/b.py": "def mul(a, b):  # tested\n    return a * b  # tested\n"}}}
    ]})
    .to_string();
    let files = [
        ("run_tests.py", RUN_TESTS),
        (
            "src/a.py",
            "def add(a, b):  # tested\n    return a + b  # tested\n",
        ),
        ("src/b.py", "def one():  # tested\n    return 1  # tested\n"),
    ];
    let r = run_repo(prd, CONFIG, &files, &script, true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    let untested = task(&state, "task-untested");
    assert_eq!(untested["status"], "failed", "{stderr}\n{untested:#}");
    let first = &untested["iterations"][0];
    assert_eq!(
        first["criteria"][1]["verdict"], "passed",
        "the tests themselves passed"
    );
    let caught = &first["caught"][0];
    assert_eq!(caught["reason"], "coverage_below_threshold", "{first:#}");
    let detail = caught["detail"].as_str().expect("detail");
    assert!(
        detail.contains("executed 1 of the 4 changed code lines (25%, under the 80% threshold); not executed: src/a.py: 4-6"),
        "{detail}"
    );
    assert_eq!(task(&state, "task-tested")["status"], "passed", "{stderr}");
}

#[test]
fn a_report_not_written_by_this_verification_is_no_pass() {
    let prd = "# PRD: cov\n\n\
        ## Task: task-1 — Add sub\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
        ### Description\nAdd sub.\n\n### Acceptance Criteria\n- [ ] sub is there [grep: def sub in src/a.py]\n";
    // The report was there before the run (committed), and nothing writes
    // it again: it describes another tree.
    let script = r#"{"attempts": [{"append": {"src/a.py": "def sub(a, b):  # tested\n    return a - b  # tested\n"}}]}"#;
    let files = [
        (
            "src/a.py",
            "def add(a, b):  # tested\n    return a + b  # tested\n",
        ),
        (
            "cov/lcov.info",
            "SF:src/a.py\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,1\nend_of_record\n",
        ),
    ];
    let r = run_repo(prd, CONFIG, &files, script, true);
    // Make the report clearly older than the run.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(r.path().join("cov/lcov.info"))
        .and_then(|f| f.set_modified(old))
        .expect("backdate");
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    let caught = &state["tasks"][0]["iterations"][0]["caught"][0];
    assert_eq!(
        caught["reason"], "coverage_source_stale",
        "{stderr}\n{caught:#}"
    );
    assert_eq!(caught["subject"], "cov/lcov.info");
}

/// True when coverage.py is importable (`.ci/run` installs it; without it
/// the end-to-end test says so and stops).
fn coverage_py() -> bool {
    std::process::Command::new("python3")
        .args(["-c", "import coverage"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn examples_pycalc_under_coverage_py_end_to_end() {
    if !coverage_py() {
        eprintln!("note: coverage.py is not installed (python3 -m pip install coverage); the end-to-end coverage test did not run");
        return;
    }
    let example = |name: &str| {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/pycalc")
                .join(name),
        )
        .expect("examples/pycalc")
    };
    let (calc, tests) = (example("calc.py"), example("test_calc.py"));
    let criterion = "[shell: python3 -m coverage run -m unittest -q test_calc && python3 -m coverage json -q -o coverage.json]";
    let prd = format!(
        "# PRD: pycalc\n\n\
         ## Task: task-mul — Multiply\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\nAdd mul(a, b) to calc.py, tested.\n\n### Acceptance Criteria\n- [ ] mul is there [grep: def mul in calc.py]\n- [ ] the tests pass under coverage {criterion}\n\n\
         ## Task: task-div — Divide\n**Effort**: low\n**Depends-on**: [task-mul]\n**Max-Attempts**: 1\n\n\
         ### Description\nAdd div(a, b) to calc.py, tested.\n\n### Acceptance Criteria\n- [ ] div is there [grep: def div in calc.py]\n- [ ] the tests pass under coverage {criterion}\n"
    );
    // mul comes with its test; div with none.
    let script = serde_json::json!({"on_prompt": [
        {"contains": "Task task-mul", "attempt": {"append": {
            "calc.py": "\n\ndef mul(a, b):\n    \"\"\"Returns a * b.\"\"\"\n    return a * b\n",
            "test_calc.py": "\n\nclass MulTest(unittest.TestCase):\n    def test_mul(self):\n        from calc import mul\n        self.assertEqual(mul(2, 3), 6)\n"
        }}},
        {"contains": "Task task-div", "attempt": {"append": {
            "calc.py": "\n\ndef div(a, b):\n    if b == 0:\n        raise ZeroDivisionError(a)\n    return a / b\n"
        }}}
    ]})
    .to_string();
    let files = [("calc.py", calc.as_str()), ("test_calc.py", tests.as_str())];
    let config = "[verification.coverage]\nsources = [\"coverage.json\"]\nthreshold = 0.8\n";
    let r = run_repo(&prd, config, &files, &script, true);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let state = state(r.path());
    assert_eq!(task(&state, "task-mul")["status"], "passed", "{stderr}");
    let div = task(&state, "task-div");
    assert_eq!(div["status"], "failed", "{stderr}\n{div:#}");
    let first = &div["iterations"][0];
    assert_eq!(
        first["criteria"][1]["verdict"], "passed",
        "the tests passed: {first:#}"
    );
    let caught = &first["caught"][0];
    assert_eq!(caught["reason"], "coverage_below_threshold", "{first:#}");
    let detail = caught["detail"].as_str().expect("detail");
    assert!(
        detail.contains("executed 1 of the 4 changed code lines")
            && detail.contains("not executed: calc.py: "),
        "{detail}"
    );
}
