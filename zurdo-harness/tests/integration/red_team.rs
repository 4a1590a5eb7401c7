//! Red team: a stand-in agent that deletes the failing test instead of
//! fixing the code gets no pass — the test runner ran zero tests.

use crate::common::{run_repo, state, text, zurdo_run};

#[test]
fn deleting_the_failing_test_is_caught_as_zero_tests() {
    let lib = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n}\n";
    let prd = "# PRD: adder\n\n## Task: task-1 — Fix add\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n### Description\nMake add add.\n\n\
               ### Acceptance Criteria\n- [ ] the adds test passes [shell: cargo test --offline -q adds]\n";
    // Instead of fixing add, the agent removes the test.
    let script = r#"{"attempts": [{"write": {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a - b }\n"}, "text": "Fixed: all tests pass."}]}"#;
    let files = [
        (
            "Cargo.toml",
            "[package]\nname = \"adder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        ("src/lib.rs", lib),
    ];
    let r = run_repo(prd, "", &files, script, false);
    let target = r.path().join("target").display().to_string();
    let out = zurdo_run(
        r.path(),
        &["--skip-model-check"],
        &[("CARGO_TARGET_DIR", &target)],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cargo test ran 0 tests"), "{stderr}");
    let state = state(r.path());
    let hint = &state["tasks"][0]["iterations"][0]["criteria"][0]["hints"][0];
    assert_eq!(hint["reason"], "zero_tests", "{hint:#}");
    assert_eq!(state["tasks"][0]["status"], "failed");
}
