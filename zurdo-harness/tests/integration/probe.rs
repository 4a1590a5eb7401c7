//! The model probe and what zurdo knows of each CLI offline, through the
//! binary: a probe that hangs after its CLI says it has no network ends
//! within seconds quoting the CLI; distinct models are probed at once
//! (`zurdo doctor` and `zurdo run`'s pre-flight), each announced before its
//! result; codex's model-metadata warning is shown; a stop kills every
//! probe; `zurdo doctor` shows each provider's state; `zurdo init` takes
//! codex's defaults from codex's own list.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zurdo_harness::agent::catalog;

use crate::common::{markers, text};

/// `codex debug models` of codex-cli 0.171.0, as captured.
const CODEX_MODELS: &str = include_str!("../fixtures/codex-0.171.0-models.txt");

/// A PRD of two tasks on two efforts (two distinct models).
const TWO_EFFORTS: &str = "# PRD: probes

## Task: task-a — Write a
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 1

### Description
Write a.txt.

### Acceptance Criteria
- [ ] a [file-exists: a.txt]

## Task: task-b — Write b
**Effort**: medium
**Depends-on**: []
**Max-Attempts**: 1

### Description
Write b.txt.

### Acceptance Criteria
- [ ] b [file-exists: b.txt]
";

/// A scratch repository (`repo/`) whose executor's CLI is the stand-in
/// behind a wrapper, its script and the wrapper's pid record under
/// `agent/`.
struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    agent: PathBuf,
}

impl Setup {
    /// `cli` standing in for `provider`, whose effort map is `efforts`.
    fn new(cli: &str, provider: &str, efforts: &[(&str, &str)], script: Value) -> Setup {
        let (tmp, root, agent, wrapper) = crate::common::stand_in_scratch(cli);
        let mut config = format!(
            "[executor]\nprovider = \"{provider}\"\n\n[providers.{provider}]\ncommand = \"{}\"\n\n[effort_map.{provider}]\n",
            wrapper.display()
        );
        for (effort, model) in efforts {
            config.push_str(&format!("{effort} = \"{model}\"\n"));
        }
        std::fs::write(root.join(".zurdo/config.toml"), config).expect("config");
        std::fs::write(root.join("prds/p.md"), TWO_EFFORTS).expect("prd");
        let s = Setup {
            _tmp: tmp,
            root,
            agent,
        };
        s.script(script);
        s
    }

    fn script(&self, mut script: Value) {
        script["markers"] = markers();
        std::fs::write(self.agent.join("script.json"), script.to_string()).expect("script");
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_zurdo"));
        c.args(args)
            .current_dir(&self.root)
            .env("ZURDO_STAND_IN_SCRIPT", self.agent.join("script.json"))
            .env_remove("NO_COLOR")
            .stdin(Stdio::null());
        c
    }

    /// `zurdo <args>`, and how long it took.
    fn zurdo(&self, args: &[&str]) -> (Output, Duration) {
        let started = Instant::now();
        let out = self.command(args).output().expect("zurdo runs");
        (out, started.elapsed())
    }

    /// progress.log of `prds/p.md`, parsed.
    fn events(&self) -> Vec<Value> {
        let dir = std::fs::read_dir(self.root.join(".zurdo"))
            .expect(".zurdo")
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("p-"))
            .expect("a state directory")
            .path();
        std::fs::read_to_string(dir.join("progress.log"))
            .expect("progress.log")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }

    /// Pids a file under `agent/` records, one a line.
    fn pids(&self, name: &str) -> Vec<i32> {
        std::fs::read_to_string(self.agent.join(name))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

fn alive(pid: i32) -> bool {
    // A zombie is dead for this purpose.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Waits up to `limit` for every pid to be gone.
fn all_gone(pids: &[i32], limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while pids.iter().any(|&p| alive(p)) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

fn sigint(pid: u32) {
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
}

#[test]
fn a_codex_probe_waiting_for_the_network_ends_within_seconds_quoting_codex() {
    let s = Setup::new(
        "codex",
        "openai",
        &[("low", "gpt-6.2-sol"), ("medium", "gpt-5.5")],
        json!({"network": "down"}),
    );
    let (out, took) = s.zurdo(&["run", "--no-prompt", "prds/p.md"]);
    let stderr = text(&out.stderr);
    // No network is not the model's doing: the CLI cannot work (exit 5).
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(
        took < Duration::from_secs(10),
        "took {took:?} (the probe timeout is 120 s)"
    );
    for model in ["gpt-6.2-sol", "gpt-5.5"] {
        assert!(
            stderr.contains(&format!("zurdo: `{model}` failed its probe (")),
            "{model}: {stderr}"
        );
    }
    assert!(
        stderr.contains("zurdo: codex: no network (the CLI said: Reconnecting... waiting for network (Connection failed: error sending request)); check that this machine can reach the network `codex` needs, then `zurdo run prds/p.md` resumes (no attempt was charged)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("no network or no credentials?"),
        "{stderr}"
    );
    let failed: Vec<Value> = s
        .events()
        .into_iter()
        .filter(|e| e["event"] == "model_probe")
        .collect();
    assert_eq!(failed.len(), 2);
    assert!(failed.iter().all(|e| e["ok"] == false
        && e["error"]
            .as_str()
            .is_some_and(|m| m.contains("Reconnecting... waiting for network"))));
    // Nothing of the probes is left running.
    assert!(all_gone(&s.pids("pids"), Duration::from_secs(2)));

    // `zurdo doctor` the same.
    let (out, took) = s.zurdo(&["doctor"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(
        stdout.contains("effort low: openai gpt-6.2-sol: FAILED")
            && stdout.contains("codex says: Reconnecting... waiting for network"),
        "{stdout}"
    );
}

#[test]
fn distinct_models_are_probed_at_once_each_announced_before_its_result() {
    // Each probe takes 2 s: two one after the other would take 4.
    let s = Setup::new(
        "claude",
        "anthropic",
        &[("low", "haiku"), ("medium", "sonnet"), ("high", "sonnet")],
        json!({"probe": {"sleep_ms": 2000}}),
    );
    let mut child = s
        .command(&["doctor"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zurdo runs");
    let started = Instant::now();
    let mut lines: Vec<(Duration, String)> = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        lines.push((started.elapsed(), line.expect("a line")));
    }
    let status = child.wait().expect("doctor ends");
    let took = started.elapsed();
    let shown: String = lines.iter().map(|(t, l)| format!("{t:?} {l}\n")).collect();
    assert!(status.success(), "{shown}");
    assert!(
        took < Duration::from_millis(3500),
        "two 2 s probes took {took:?}: not at once\n{shown}"
    );
    let at = |needle: &str| {
        lines
            .iter()
            .position(|(_, l)| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} missing:\n{shown}"))
    };
    let probing_haiku = at("probing anthropic haiku (effort low) …");
    let probing_sonnet = at("probing anthropic sonnet (effort medium, effort high) …");
    let haiku = at("effort low: anthropic haiku: ok");
    let sonnet = at("effort medium: anthropic sonnet: ok");
    let again = at("effort high: anthropic sonnet: ok");
    assert!(
        probing_haiku < probing_sonnet && probing_sonnet < haiku,
        "{shown}"
    );
    assert!(haiku < sonnet && sonnet < again, "entry order:\n{shown}");
    // "probing" is printed at once, the results after the probes' 2 s.
    assert!(
        lines[probing_sonnet].0 < Duration::from_millis(1500),
        "{shown}"
    );
    assert!(lines[haiku].0 >= Duration::from_secs(2), "{shown}");
    assert!(lines[again].1.contains("(probed once above)"), "{shown}");

    // `zurdo run`'s pre-flight: both probes start before either ends (each
    // notes when it started, then sleeps 2 s).
    let times = s.agent.join("probe-starts");
    s.script(json!({
        "probe": {"run": format!("date +%s.%N >> '{}'", times.display()), "sleep_ms": 2000},
        "attempts": [{"write": {"a.txt": "a", "b.txt": "b"}}]
    }));
    let (out, _) = s.zurdo(&["run", "--no-prompt", "prds/p.md"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let starts: Vec<f64> = std::fs::read_to_string(&times)
        .expect("the probes ran")
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(starts.len(), 2, "{starts:?}");
    assert!(
        (starts[0] - starts[1]).abs() < 1.5,
        "the second probe started after the first ended: {starts:?}"
    );
    let pos = |needle: &str| {
        stderr
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing:\n{stderr}"))
    };
    assert!(
        pos("zurdo: probing `haiku` (anthropic) …") < pos("zurdo: probing `sonnet` (anthropic) …")
    );
    assert!(pos("zurdo: probing `sonnet` (anthropic) …") < pos("zurdo: `haiku` answered ("));
    assert!(pos("zurdo: `haiku` answered (") < pos("zurdo: `sonnet` answered ("));
    let names: Vec<String> = s
        .events()
        .iter()
        .map(|e| e["event"].as_str().unwrap_or("").to_string())
        .filter(|n| n.contains("probe"))
        .collect();
    assert_eq!(
        names,
        [
            "probe_started",
            "probe_started",
            "model_probe",
            "model_probe"
        ]
    );
}

#[test]
fn the_codex_model_metadata_warning_is_shown() {
    let s = Setup::new(
        "codex",
        "openai",
        &[("low", "gpt-5-codex"), ("medium", "gpt-6.2-sol")],
        json!({
            "models": {"gpt-5-codex": "unlisted"},
            "attempts": [{"write": {"a.txt": "a", "b.txt": "b"}}]
        }),
    );
    let warning = "warning: codex warns: Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";
    let (out, _) = s.zurdo(&["doctor"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let ok = stdout
        .find("effort low: openai gpt-5-codex: ok")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        stdout[ok..].contains(&format!("\n    {warning}\n")),
        "{stdout}"
    );
    assert_eq!(stdout.matches("Model metadata").count(), 1, "{stdout}");

    let (out, _) = s.zurdo(&["run", "--no-prompt", "prds/p.md"]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning, not a failure: {stderr}"
    );
    assert!(stderr.contains(warning), "{stderr}");
    let probe = s
        .events()
        .into_iter()
        .find(|e| e["event"] == "model_probe" && e["model"] == "gpt-5-codex")
        .expect("its model_probe event");
    assert_eq!(probe["ok"], true);
    assert!(
        probe["warnings"][0].as_str().is_some_and(
            |w| w.starts_with("codex warns: Model metadata for `gpt-5-codex` not found.")
        )
    );
}

#[test]
fn a_stop_kills_every_probe_running() {
    // Each probe leaves a process in its group (outside PR_SET_PDEATHSIG's
    // reach) and waits: a stop must kill both groups.
    let s = Setup::new(
        "claude",
        "anthropic",
        &[("low", "haiku"), ("medium", "sonnet")],
        json!({}),
    );
    let kids = s.agent.join("kids");
    s.script(json!({"probe": {
        "run": format!("sleep 60 >/dev/null 2>&1 & echo $! >> '{}'", kids.display()),
        "sleep_ms": 60_000
    }}));
    let wait_for_kids = || {
        let until = Instant::now() + Duration::from_secs(10);
        while s.pids("kids").len() < 2 {
            assert!(Instant::now() < until, "the probes never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // doctor: one Ctrl-C.
    let mut child = s
        .command(&["doctor"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("zurdo runs");
    wait_for_kids();
    sigint(child.id());
    let status = child.wait().expect("doctor ends");
    assert_eq!(status.code(), Some(130));
    assert!(
        all_gone(&s.pids("kids"), Duration::from_secs(3)),
        "a probe's process outlived the stop: {:?}",
        s.pids("kids")
    );
    assert!(all_gone(&s.pids("pids"), Duration::from_secs(3)));

    // run: the second Ctrl-C.
    std::fs::remove_file(&kids).expect("rm kids");
    let mut child = s
        .command(&["run", "--no-prompt", "prds/p.md"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("zurdo runs");
    wait_for_kids();
    sigint(child.id());
    std::thread::sleep(Duration::from_millis(300));
    sigint(child.id());
    let status = child.wait().expect("run ends");
    assert_eq!(status.code(), Some(130));
    assert!(
        all_gone(&s.pids("kids"), Duration::from_secs(3)),
        "a probe's process outlived the stop: {:?}",
        s.pids("kids")
    );
}

#[test]
fn doctor_shows_each_providers_state() {
    let s = Setup::new("codex", "openai", &[("low", "gpt-6.2-sol")], json!({}));
    let (out, _) = s.zurdo(&["doctor"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let wrapper = s.agent.join("codex-agent");
    assert!(
        stdout.contains(&format!(
            "  openai (`{}`): installed, codex-cli 0.171.0\n    login: logged in (`codex login status`: Logged in using ChatGPT)\n    models: gpt-6.2-sol, gpt-6.2-astra, gpt-6-astra, gpt-6.1-sol, gpt-6.1-terra, gpt-6-sol, gpt-6-luna, gpt-5.6-sol, gpt-5.6-terra, gpt-5.6-luna, gpt-5.5 (`codex debug models`; 11 shown, 3 hidden)\n",
            wrapper.display()
        )),
        "{stdout}"
    );
    // Every provider has a line, installed or not.
    for p in ["anthropic", "openai", "github", "google"] {
        assert!(stdout.contains(&format!("\n  {p} (`")), "{p}: {stdout}");
    }
    assert!(
        stdout.find("providers:") < stdout.find("probes ("),
        "{stdout}"
    );

    s.script(json!({"auth": "missing"}));
    let (out, _) = s.zurdo(&["doctor"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("    login: NOT logged in (`codex login status`: Not logged in)\n"),
        "{stdout}"
    );

    // Claude: `claude auth status`; it cannot list its models.
    let s = Setup::new(
        "claude",
        "anthropic",
        &[("low", "haiku")],
        json!({"auth": "missing"}),
    );
    let (out, _) = s.zurdo(&["doctor"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("installed, 2.1.197 (Claude Code)\n    login: NOT logged in (`claude auth status`: loggedIn: false, authMethod: none)\n    models: claude cannot list its models offline\n"),
        "{stdout}"
    );
    // A CLI that is not there.
    std::fs::write(
        s.root.join(".zurdo/config.toml"),
        "[providers.google]\ncommand = \"/nonexistent/zurdo-test/gemini\"\n",
    )
    .expect("config");
    let (out, _) = s.zurdo(&["doctor", "--skip-probes"]);
    assert!(
        !text(&out.stdout).contains("providers:"),
        "--skip-probes starts no CLI"
    );
    let (out, _) = s.zurdo(&["doctor"]);
    assert!(
        text(&out.stdout).contains("  google (`/nonexistent/zurdo-test/gemini`): not installed (`/nonexistent/zurdo-test/gemini` not found)\n"),
        "{}",
        text(&out.stdout)
    );
}

/// `zurdo init --force` in `root` with `PATH` holding only `bin`.
fn init(root: &Path, bin: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["init", "--force"])
        .current_dir(root)
        .env("PATH", bin)
        .env_remove("ZURDO_STAND_IN_SCRIPT")
        .output()
        .expect("zurdo runs")
}

#[test]
fn init_writes_codex_defaults_codex_lists() {
    use std::os::unix::fs::PermissionsExt;
    let listed = catalog::parse_codex_models(CODEX_MODELS).expect("the capture parses");
    let shown = |m: &str| listed.iter().any(|l| l.slug == m && l.visible);
    let tmp = tempfile::tempdir().expect("temp");
    let root = tmp.path().join("repo");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(root.join(".git")).expect("repo");
    std::fs::create_dir_all(&bin).expect("bin");
    let openai = |root: &Path| {
        let text = std::fs::read_to_string(root.join(".zurdo/config.toml")).expect("config");
        let config = zurdo_harness::config::Config::parse(&text).expect("parses");
        let map = config.effort_map[&zurdo_harness::agent::Provider::OpenAi].clone();
        (text, map)
    };

    // No codex installed: the documented defaults, which codex 0.171.0 lists.
    let out = init(&root, &bin);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let (_, map) = openai(&root);
    assert_eq!(map.len(), 3);
    assert!(
        map.values().all(|m| shown(m)),
        "{map:?} not in codex's list"
    );
    assert!(
        stdout.contains("  openai: gpt-6.2-sol, gpt-6.2-sol, gpt-6.2-sol — `codex debug models`: not installed (`codex` not found); zurdo's documented defaults: the first model codex-cli 0.171.0 lists in `codex debug models`\n"),
        "{stdout}"
    );
    for line in [
        "  anthropic: haiku, sonnet, opus — claude cannot list its models offline",
        "  github: gpt-5.4-mini, gpt-5.4, claude-sonnet-5 — copilot cannot list its models offline",
        "  google: gemini-2.5-flash, gemini-2.5-pro, gemini-2.5-pro — gemini cannot list its models offline",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }

    // codex installed (the stand-in, which prints the captured list): from
    // its list, said so in the file too.
    let codex = bin.join("codex");
    std::fs::write(
        &codex,
        format!(
            "#!/bin/sh\nexec '{}' stand-in codex \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("codex");
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = init(&root, &bin);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  openai: gpt-6.2-sol, gpt-6.2-sol, gpt-6.2-sol — the first model `codex debug models` lists (codex-cli 0.171.0)\n"),
        "{stdout}"
    );
    let (text_written, map) = openai(&root);
    assert!(map.values().all(|m| shown(m)), "{map:?}");
    assert!(
        text_written.contains("# from the first model `codex debug models` lists (codex-cli 0.171.0)\n[effort_map.openai]\n"),
        "{text_written}"
    );
}

#[test]
fn the_stand_in_lists_the_captured_codex_models() {
    assert_eq!(
        include_str!("../../standin/src/codex-0.171.0-models.txt"),
        CODEX_MODELS,
        "the stand-in's copy of the capture drifted from the fixture"
    );
}
