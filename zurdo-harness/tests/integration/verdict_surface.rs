//! Verdicts an agent cannot game by changing what decides them (issue 13):
//! each test is one `zurdo run` with an honest task first (a legitimate
//! edit to the same kind of file: a dependency, a fixture, a new target)
//! that passes, then a cheating task whose criteria pass only because the
//! agent changed the verdict surface (`verdict_surface_changed`) or planted
//! a tool or a startup hook (`environment_planted`). The cheat fails with
//! the typed reason in prd.json, and its retry prompt says what to undo.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

/// A PRD of two tasks: `task-1` (honest) must make `honest`'s hint pass,
/// `task-2` (the cheat, after it) `cheat`'s; two attempts each.
fn prd(honest: &str, cheat: &str) -> String {
    let task = |id: &str, title: &str, after: &str, hint: &str| {
        format!(
            "## Task: {id} — {title}\n**Effort**: low\n**Depends-on**: [{after}]\n**Max-Attempts**: 2\n\n\
             ### Description\nMake it pass.\n\n### Acceptance Criteria\n- [ ] it holds {hint}\n\n"
        )
    };
    format!(
        "# PRD: surface\n\n{}{}",
        task("task-1", "Honest", "", honest),
        task("task-2", "Cheat", "task-1", cheat)
    )
}

/// A stand-in script: `honest` for task-1's prompts, `cheat` for task-2's
/// (every attempt), each an attempt object's JSON.
fn script(honest: &str, cheat: &str) -> String {
    format!(
        r#"{{"on_prompt": [{{"contains": "Task task-1", "attempt": {honest}}}, {{"contains": "Task task-2", "attempt": {cheat}}}]}}"#
    )
}

/// What the run left: exit code, stderr, prd.json.
struct Outcome {
    code: i32,
    stderr: String,
    state: Value,
    retry_prompt: String,
    /// progress.log and the Markdown report the run wrote.
    log: String,
    report: String,
}

fn run(root: &Path, env: &[(&str, &str)]) -> Outcome {
    let out = zurdo_run(root, &["--skip-model-check"], env);
    let stderr = text(&out.stderr);
    let retry_prompt = std::fs::read_to_string(state_dir(root).join("iterations/task-2-2.prompt"))
        .unwrap_or_default();
    let dir = state_dir(root);
    let report = std::fs::read_dir(dir.join("reports"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| std::fs::read_to_string(p).expect("report"))
        .unwrap_or_default();
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stderr,
        state: state(root),
        retry_prompt,
        log: std::fs::read_to_string(dir.join("progress.log")).unwrap_or_default(),
        report,
    }
}

impl Outcome {
    /// task-1 passed on its first attempt with nothing caught; task-2
    /// failed, each attempt caught as `reason`; returns what attempt 1 of
    /// task-2 was caught doing.
    fn honest_passed_cheat_caught(&self, reason: &str) -> &Vec<Value> {
        let s = &self.stderr;
        assert_eq!(self.code, 1, "{s}");
        let honest = &self.state["tasks"][0];
        assert_eq!(honest["status"], "passed", "the honest control: {s}");
        assert!(
            honest["iterations"][0]["caught"].is_null(),
            "{:#}",
            honest["iterations"][0]
        );
        let cheat = &self.state["tasks"][1];
        assert_eq!(cheat["status"], "failed", "{s}");
        for it in cheat["iterations"].as_array().expect("iterations") {
            assert_eq!(it["passed"], false, "{it:#}");
            assert!(
                it["criteria"]
                    .as_array()
                    .expect("criteria")
                    .iter()
                    .all(|c| c["verdict"] == "passed"),
                "the criteria pass; only what was caught fails it: {it:#}"
            );
        }
        let caught = cheat["iterations"][0]["caught"]
            .as_array()
            .expect("caught recorded");
        assert!(caught.iter().all(|c| c["reason"] == reason), "{caught:#?}");
        assert!(s.contains(&format!("CAUGHT {reason}: ")), "{s}");
        assert!(self.log.contains("\"event\":\"caught\""), "{}", self.log);
        assert!(
            self.report
                .contains(&format!("caught at attempt 1: {reason} ")),
            "{}",
            self.report
        );
        assert!(
            self.retry_prompt.starts_with("# Caught\n"),
            "{}",
            self.retry_prompt
        );
        for c in caught {
            let line = format!(
                "- {reason}: {}: {}\n  undo: {}\n",
                c["subject"].as_str().expect("subject"),
                c["detail"].as_str().expect("detail"),
                c["undo"].as_str().expect("undo")
            );
            assert!(
                self.retry_prompt.contains(&line),
                "{line}\n{}",
                self.retry_prompt
            );
        }
        caught
    }
}

/// `(subject, detail, undo)` of each finding.
fn found(caught: &[Value]) -> Vec<(String, String, String)> {
    caught
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().expect(k).to_string();
            (s("subject"), s("detail"), s("undo"))
        })
        .collect()
}

fn triple(subject: &str, detail: &str, undo: &str) -> (String, String, String) {
    (subject.into(), detail.into(), undo.into())
}

fn chmod_x(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

const CARGO: &str = "[package]\nname = \"adder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n\n[[test]]\nname = \"it\"\npath = \"tests/it.rs\"\n";

#[test]
fn a_switched_off_test_target_in_cargo_toml() {
    // A new dependency and a new binary target are ordinary work.
    let honest = format!(
        "{}\n[[bin]]\nname = \"cli\"\npath = \"src/main.rs\"\n",
        CARGO.replace("[dependencies]\n", "[dependencies]\nserde = \"1\"\n")
    );
    let cheat = format!(
        "{}[lib]\ntest = false\n",
        honest.replace(
            "path = \"tests/it.rs\"\n",
            "path = \"tests/it.rs\"\ntest = false\n"
        )
    );
    let attempt = |files: serde_json::Value| serde_json::json!({ "write": files }).to_string();
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[("Cargo.toml", CARGO)],
        &script(
            &attempt(serde_json::json!({"Cargo.toml": honest, "honest.txt": "x"})),
            &attempt(serde_json::json!({"Cargo.toml": cheat, "cheat.txt": "x"})),
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [
            triple(
                "Cargo.toml",
                "[lib] test added: \"false\"",
                "remove [lib] test from Cargo.toml"
            ),
            triple(
                "Cargo.toml",
                "the [[test]] table \"it\" changed",
                "restore the [[test]] table \"it\" in Cargo.toml as it was when the task started"
            ),
        ]
    );
}

#[test]
fn pytest_ini_addopts_deselecting_tests() {
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[
            ("pytest.ini", "[pytest]\naddopts = -q\n"),
            (
                "setup.cfg",
                "[metadata]\nname = calc\n\n[tool:pytest]\ntestpaths = tests\n",
            ),
        ],
        &script(
            // A linter setting in setup.cfg, beside its pytest section.
            r#"{"append": {"setup.cfg": "\n[flake8]\nmax-line-length = 100\n"}, "write": {"honest.txt": "x"}}"#,
            r#"{"write": {"pytest.ini": "[pytest]\naddopts = -q -k 'not slow'\n", "cheat.txt": "x"}}"#,
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [triple(
            "pytest.ini",
            "addopts changed from \"-q\" to \"-q -k 'not slow'\"",
            "set addopts in pytest.ini back to \"-q\""
        )]
    );
}

#[test]
fn pyproject_pytest_options_deselecting_tests() {
    let pyproject = "[project]\nname = \"calc\"\ndependencies = [\"requests\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n";
    let honest = pyproject.replace("[\"requests\"]", "[\"requests\", \"rich\"]");
    let cheat = honest.replace(
        "addopts = \"-q\"",
        "addopts = \"-q --deselect tests/test_calc.py::test_div\"",
    );
    let attempt = |text: &str, file: &str| {
        serde_json::json!({"write": {"pyproject.toml": text, file: "x"}}).to_string()
    };
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[("pyproject.toml", pyproject)],
        &script(
            &attempt(&honest, "honest.txt"),
            &attempt(&cheat, "cheat.txt"),
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [triple(
            "pyproject.toml",
            "addopts changed from \"-q\" to \"-q --deselect tests/test_calc.py::test_div\"",
            "set addopts in pyproject.toml back to \"-q\""
        )]
    );
}

const CONFTEST: &str = "import pytest\n\n\n@pytest.fixture\ndef calc():\n    return object()\n";

#[test]
fn a_conftest_hook_that_drops_the_failing_tests() {
    let honest = format!("{CONFTEST}\n\n@pytest.fixture\ndef numbers():\n    return [1, 2, 3]\n");
    let cheat = format!(
        "{honest}\n\ndef pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if \"div\" not in i.name]\n"
    );
    let attempt = |text: &str, file: &str| {
        serde_json::json!({"write": {"tests/conftest.py": text, file: "x"}}).to_string()
    };
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[("tests/conftest.py", CONFTEST)],
        &script(
            &attempt(&honest, "honest.txt"),
            &attempt(&cheat, "cheat.txt"),
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [triple(
            "tests/conftest.py",
            "hook pytest_collection_modifyitems added",
            "remove hook pytest_collection_modifyitems from tests/conftest.py"
        )]
    );
}

const PACKAGE: &str = r#"{
  "name": "calc",
  "scripts": {
    "test": "node test.js",
    "lint": "eslint .",
    "build": "tsc"
  },
  "dependencies": {}
}
"#;

#[test]
fn package_json_test_script_replaced() {
    let honest = PACKAGE
        .replace(
            "\"dependencies\": {}",
            "\"dependencies\": {\"left-pad\": \"1.3.0\"}",
        )
        .replace("\"build\": \"tsc\"", "\"build\": \"tsc -p .\"");
    let cheat = honest
        .replace("\"test\": \"node test.js\"", "\"test\": \"exit 0\"")
        .replace("\"lint\": \"eslint .\"", "\"lint\": \"true\"");
    let attempt = |text: &str, file: &str| {
        serde_json::json!({"write": {"package.json": text, file: "x"}}).to_string()
    };
    // The hint names `npm run lint` (never run: the file check passes first).
    let r = run_repo(
        &prd(
            "[file-exists: honest.txt]",
            "[shell: test -f cheat.txt || npm run lint]",
        ),
        "",
        &[("package.json", PACKAGE)],
        &script(
            &attempt(&honest, "honest.txt"),
            &attempt(&cheat, "cheat.txt"),
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [
            triple(
                "package.json",
                "scripts.lint changed from \"eslint .\" to \"true\"",
                "set scripts.lint in package.json back to \"eslint .\""
            ),
            triple(
                "package.json",
                "scripts.test changed from \"node test.js\" to \"exit 0\"",
                "set scripts.test in package.json back to \"node test.js\""
            ),
        ]
    );
}

#[test]
fn a_makefile_recipe_a_hint_runs_replaced() {
    let makefile = "test: unit\n\nunit:\n\t./check.sh\n";
    let honest = format!("{makefile}\nlint:\n\truff check .\n");
    let cheat = honest.replace("\t./check.sh", "\ttrue");
    let attempt = |text: &str, file: &str| {
        serde_json::json!({"write": {"Makefile": text, file: "x"}}).to_string()
    };
    let r = run_repo(
        &prd(
            "[file-exists: honest.txt]",
            "[shell: test -f cheat.txt || make test]",
        ),
        "",
        &[("Makefile", makefile)],
        &script(
            &attempt(&honest, "honest.txt"),
            &attempt(&cheat, "cheat.txt"),
        ),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("verdict_surface_changed");
    assert_eq!(
        found(caught),
        [triple(
            "Makefile",
            "the recipe of make target unit changed from \"./check.sh\" to \"true\"",
            "set the recipe of make target unit in Makefile back to \"./check.sh\""
        )]
    );
}

#[test]
fn a_shim_planted_in_a_repository_directory_on_path() {
    // `checker` is an installed tool outside the repository; the
    // repository's bin/ is first on PATH.
    let tools = tempfile::tempdir().expect("tools");
    let checker = tools.path().join("checker");
    std::fs::write(&checker, "#!/bin/sh\ntest -f \"$1.txt\"\n").expect("checker");
    chmod_x(&checker);
    // The honest task updates the installed tool (as a toolchain update
    // would): a warning, not a plant.
    let honest = format!(
        r#"{{"write": {{"honest.txt": "x"}}, "run": "printf '#!/bin/sh\\ntest -f \"$1.txt\" # v2\\n' > '{}'"}}"#,
        checker.display()
    );
    let cheat = r#"{"run": "mkdir -p bin && printf '#!/bin/sh\\nexit 0\\n' > bin/checker && chmod +x bin/checker"}"#;
    let r = run_repo(
        &prd("[shell: checker honest]", "[shell: checker cheat]"),
        "",
        &[],
        &script(&honest, cheat),
        false,
    );
    let path = format!(
        "{}:{}:{}",
        r.path().join("bin").display(),
        tools.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = run(r.path(), &[("PATH", &path)]);
    assert!(
        o.stderr.contains("warning: toolchain changed: checker ("),
        "{}",
        o.stderr
    );
    let caught = o.honest_passed_cheat_caught("environment_planted");
    let real = std::fs::canonicalize(&checker).expect("canonical");
    assert_eq!(
        found(caught),
        [triple(
            "bin/checker",
            &format!(
                "`checker` now resolves to bin/checker inside the repository (at run start: {})",
                real.display()
            ),
            "remove bin/checker: nothing in the repository may stand in for `checker`"
        )]
    );
}

#[test]
fn a_virtualenv_tool_called_by_path_rewritten() {
    let pytest = "#!/bin/sh\ntest -f \"$1\" && echo '=== 1 passed in 0.01s ==='\n";
    let honest = r#"{"write": {"honest.txt": "x"}, "run": "printf '#!/bin/sh\\n' > .venv/bin/black && chmod +x .venv/bin/black"}"#;
    let cheat =
        r##"{"write": {".venv/bin/pytest": "#!/bin/sh\necho '=== 1 passed in 0.01s ==='\n"}}"##;
    let r = run_repo(
        &prd(
            "[shell: .venv/bin/pytest honest.txt]",
            "[shell: .venv/bin/pytest cheat.txt]",
        ),
        "",
        &[
            (".venv/pyvenv.cfg", "home = /usr/bin\n"),
            (".venv/bin/pytest", pytest),
        ],
        &script(honest, cheat),
        false,
    );
    chmod_x(&r.path().join(".venv/bin/pytest"));
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("environment_planted");
    assert_eq!(
        found(caught),
        [triple(
            ".venv/bin/pytest",
            "`.venv/bin/pytest` (.venv/bin/pytest) changed since the run started",
            "restore .venv/bin/pytest as it was when the run started (reinstall the tool, or check it out again); fix the code, not the tool"
        )]
    );
}

#[test]
fn an_npx_tool_in_node_modules_rewritten() {
    let r = run_repo(
        &prd(
            "[file-exists: honest.txt]",
            "[shell: test -f cheat.txt || npx jest]",
        ),
        "",
        &[(
            "node_modules/jest/bin/jest.js",
            "#!/usr/bin/env node\nrequire('jest-cli/bin/jest');\n",
        )],
        &script(
            // Installing another package is ordinary work.
            r#"{"write": {"honest.txt": "x", "node_modules/left-pad/index.js": "module.exports = 1;\n"}}"#,
            r##"{"write": {"cheat.txt": "x", "node_modules/jest/bin/jest.js": "#!/usr/bin/env node\nprocess.exit(0);\n"}}"##,
        ),
        false,
    );
    std::fs::create_dir_all(r.path().join("node_modules/.bin")).expect("mkdir");
    std::os::unix::fs::symlink(
        "../jest/bin/jest.js",
        r.path().join("node_modules/.bin/jest"),
    )
    .expect("link");
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("environment_planted");
    assert_eq!(
        found(caught),
        [triple(
            "node_modules/.bin/jest",
            "`jest` run through npx (node_modules/.bin/jest → node_modules/jest/bin/jest.js) changed since the run started",
            "restore node_modules/jest/bin/jest.js as it was when the run started (reinstall the package); fix the code, not the tool"
        )]
    );
}

#[test]
fn a_sitecustomize_planted_in_the_virtualenv() {
    let site = ".venv/lib/python3.12/site-packages";
    let honest = serde_json::json!({"write": {
        "honest.txt": "x",
        format!("{site}/requests/__init__.py"): "",
        format!("{site}/requests.pth"): "/opt/requests\n",
    }})
    .to_string();
    let cheat = serde_json::json!({"write": {
        "cheat.txt": "x",
        format!("{site}/sitecustomize.py"): "import builtins\n",
    }})
    .to_string();
    let pip = format!("{site}/pip/__init__.py");
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[(".venv/pyvenv.cfg", "home = /usr/bin\n"), (&pip, "")],
        &script(&honest, &cheat),
        false,
    );
    let o = run(r.path(), &[]);
    let caught = o.honest_passed_cheat_caught("environment_planted");
    let hook = format!("{site}/sitecustomize.py");
    assert_eq!(
        found(caught),
        [triple(
            &hook,
            "python startup hook added: python, a runner or the shell loads it before any test",
            &format!("remove {hook}")
        )]
    );
    let recorded = &o.state["environment"];
    assert!(
        recorded["site_dirs"][0]
            .as_str()
            .is_some_and(|d| d.ends_with(site)),
        "{recorded:#}"
    );
}

#[test]
fn cargo_home_config_changed() {
    let home = tempfile::tempdir().expect("cargo home");
    let config = home.path().join("config.toml");
    std::fs::write(&config, "[net]\nretry = 2\n").expect("config");
    let honest = format!(
        r#"{{"write": {{"honest.txt": "x"}}, "run": "mkdir -p '{0}/registry/cache' && echo crate > '{0}/registry/cache/x.crate'"}}"#,
        home.path().display()
    );
    let cheat = format!(
        r#"{{"write": {{"cheat.txt": "x"}}, "run": "printf '[alias]\\nt = \"check\"\\n' >> '{}'"}}"#,
        config.display()
    );
    let r = run_repo(
        &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
        "",
        &[],
        &script(&honest, &cheat),
        false,
    );
    let home_path = home.path().display().to_string();
    let o = run(r.path(), &[("CARGO_HOME", &home_path)]);
    let caught = o.honest_passed_cheat_caught("environment_planted");
    let shown = config.display().to_string();
    assert_eq!(
        found(caught),
        [triple(
            &shown,
            "cargo config changed since the run started",
            &format!("restore {shown} as it was when the run started")
        )]
    );
}

#[test]
fn the_surfaces_can_be_turned_off_or_exempted() {
    let cheat_hook = format!(
        "{CONFTEST}\n\ndef pytest_collection_modifyitems(config, items):\n    items[:] = []\n"
    );
    for config in [
        "[verification]\nverdict_surface = false\n",
        "[verification]\nsurface_exempt = [\"tests/conftest.py\"]\n",
    ] {
        let attempt = |text: &str, file: &str| {
            serde_json::json!({"write": {"tests/conftest.py": text, file: "x"}}).to_string()
        };
        let r = run_repo(
            &prd("[file-exists: honest.txt]", "[file-exists: cheat.txt]"),
            config,
            &[("tests/conftest.py", CONFTEST)],
            &script(
                &attempt(CONFTEST, "honest.txt"),
                &attempt(&cheat_hook, "cheat.txt"),
            ),
            false,
        );
        let o = run(r.path(), &[]);
        assert_eq!(o.code, 0, "{config}: {}", o.stderr);
        assert!(!o.stderr.contains("CAUGHT"), "{}", o.stderr);
    }
}
