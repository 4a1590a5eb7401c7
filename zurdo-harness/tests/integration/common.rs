//! Helpers shared by the CLI tests: run the built binary in a scratch repository.

use std::path::Path;
use std::process::{Command, Output};

/// A scratch repository for a stand-in agent: `<tmp>/repo` (with `.git`,
/// `.zurdo` and `prds`) and beside it `<tmp>/agent`, holding
/// `<cli>-agent`, a wrapper that records its pid in `agent/pids` (the
/// agent's process group: it runs in a group of its own and `exec` keeps
/// the pid, so a test can find an agent a killed zurdo left behind) and
/// runs `zurdo stand-in <cli>`. Returns the temp dir, `repo`, `agent` and
/// the wrapper.
pub fn stand_in_scratch(
    cli: &str,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("repo");
    let agent = tmp.path().join("agent");
    for d in [
        root.join(".git"),
        root.join(".zurdo"),
        root.join("prds"),
        agent.clone(),
    ] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let wrapper = agent.join(format!("{cli}-agent"));
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho $$ >> '{}'\nexec '{}' stand-in {cli} \"$@\"\n",
            agent.join("pids").display(),
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (tmp, root, agent, wrapper)
}

/// Runs the `zurdo` binary with `args` in `dir`.
pub fn zurdo(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the zurdo binary runs")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `script` (a stand-in script's JSON) with zurdo's own prompt markers
/// declared, so the stand-in tells its probes and reasoner calls from
/// attempts; unchanged when it declares markers itself or is not a JSON
/// object (a test of a bad script).
pub fn with_markers(script: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(script) {
        Ok(serde_json::Value::Object(mut fields)) if !fields.contains_key("markers") => {
            fields.insert("markers".into(), markers());
            serde_json::Value::Object(fields).to_string()
        }
        _ => script.to_string(),
    }
}

/// The stand-in script's `markers`: the prefixes zurdo's probes and
/// reasoner calls start with.
pub fn markers() -> serde_json::Value {
    serde_json::json!({
        "probe": zurdo_harness::run::probe::PROBE_PREFIX,
        "reasoner": zurdo_harness::reason::REASON_PREFIX,
    })
}

/// A temp dir marked as a repository root (`.git/`) holding `files`.
pub fn repo<B: AsRef<[u8]>>(files: &[(&str, B)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mark repo root");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
    dir
}

/// A scratch repository for `zurdo run`: `prds/p.md` holding `prd`, the
/// `files` given, and `.zurdo/config.toml` whose anthropic command is a
/// wrapper running `zurdo stand-in claude` (effort `low` = `haiku`), with
/// `config_extra` appended. The stand-in's script is `.zurdo/script.json`
/// ([`with_markers`]).
/// With `real_git` the root is a `git init` repository, else a `.git/`
/// marker makes it the root.
pub fn run_repo(
    prd: &str,
    config_extra: &str,
    files: &[(&str, &str)],
    script: &str,
    real_git: bool,
) -> tempfile::TempDir {
    run_repo_in(
        &std::env::temp_dir(),
        prd,
        config_extra,
        files,
        script,
        real_git,
    )
}

/// [`run_repo`] under `parent` (for trees of many files, a directory on
/// the repository's own filesystem can be much faster than `/tmp`).
pub fn run_repo_in(
    parent: &Path,
    prd: &str,
    config_extra: &str,
    files: &[(&str, &str)],
    script: &str,
    real_git: bool,
) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir_in(parent).expect("temp dir");
    let root = dir.path();
    if real_git {
        let ok = Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .status()
            .expect("git runs")
            .success();
        assert!(ok, "git init");
    } else {
        std::fs::create_dir(root.join(".git")).expect("repo marker");
    }
    for d in [".zurdo", "prds"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    for (path, body) in files {
        std::fs::create_dir_all(root.join(path).parent().expect("parent")).expect("mkdir");
        std::fs::write(root.join(path), body).expect("write");
    }
    std::fs::write(root.join("prds/p.md"), prd).expect("prd");
    let agent = root.join(".zurdo/agent");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\nexec '{}' stand-in claude \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        root.join(".zurdo/config.toml"),
        format!("[providers.anthropic]\ncommand = \"{}\"\n[effort_map.anthropic]\nlow = \"haiku\"\n{config_extra}", agent.display()),
    )
    .expect("config");
    std::fs::write(root.join(".zurdo/script.json"), with_markers(script)).expect("script");
    dir
}

/// `zurdo run --no-prompt <extra…> prds/p.md` in `root`, with the stand-in's
/// script set and `env` added.
pub fn zurdo_run(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["run", "--no-prompt"];
    args.extend_from_slice(extra);
    args.push("prds/p.md");
    zurdo_scripted(root, &args, env)
}

/// `zurdo <args>` in `root`, its stand-ins reading `.zurdo/script.json`.
pub fn zurdo_scripted(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(args)
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .envs(env.iter().copied())
        .output()
        .expect("zurdo runs")
}

/// `[roles.analyzer]` on the Claude stand-in.
pub const ANALYZER: &str = "[roles.analyzer]\nprovider = \"anthropic\"\nmodel = \"haiku\"\n";

/// The state directory of `prds/p.md` (`.zurdo/p-<hash>`).
pub fn state_dir(root: &Path) -> std::path::PathBuf {
    std::fs::read_dir(root.join(".zurdo"))
        .expect("state")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("p-"))
        .expect("a state directory")
        .path()
}

/// `prd.json` of `prds/p.md`.
pub fn state(root: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(state_dir(root).join("prd.json")).expect("prd.json"))
        .expect("valid JSON")
}

/// A live process whose command name is `zurdo` (a stand-in that sleeps
/// 30 s), for lock tests: kill it when done.
pub fn live_zurdo() -> (std::process::Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("script.json");
    std::fs::write(&script, r#"{"attempts": [{"sleep_ms": 30000}]}"#).expect("script");
    let child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(["stand-in", "gemini", "-p", "wait", "--skip-trust", "-y"])
        .current_dir(dir.path())
        .env("ZURDO_STAND_IN_SCRIPT", &script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the zurdo binary runs");
    (child, dir)
}

/// The lock line a live process `pid` would have written now.
pub fn lock_line(pid: u32) -> String {
    let id = zurdo_base::process::identity(pid).expect("a live process");
    format!(
        "{pid} {} {} {}\n",
        zurdo_base::time::now(),
        id.start,
        id.boot
    )
}

/// Makes a FIFO at `path` (`mkfifo` is in coreutils, so every test machine
/// has it).
pub fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

/// Writes `state` to `path` as zurdo writes prd.json, with its MAC under
/// the user's key: for a test that stands for a stop (a state a crash left
/// behind), not a forgery (which zurdo distrusts).
pub fn write_state(path: &Path, state: &serde_json::Value) {
    let mut state = state.clone();
    if let Some(o) = state.as_object_mut() {
        o.remove("mac");
    }
    let body = serde_json::to_vec_pretty(&state).expect("JSON");
    let bytes = zurdo_harness::state::run_state::with_mac(body, zurdo_base::mac::Key::user());
    std::fs::write(path, bytes).expect("write state");
}

/// The state of task `id` in `state` (a prd.json read back).
pub fn task_state<'a>(state: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    state["tasks"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["id"] == id))
        .unwrap_or_else(|| panic!("{id} in {state:#}"))
}
