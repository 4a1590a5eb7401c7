//! Issue 18: the agent's sandbox (`[verification] agent_sandbox =
//! "bubblewrap"`). Through `zurdo run`, each supported CLI's stand-in
//! works inside it (its stream read by the real adapter, its work kept and
//! verified); in the same run a cheating stand-in that tries to read the
//! sealed file, rewrite zurdo's state and config, and move git refs gets
//! none of it. Without bwrap on this machine the tests say so and stop.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{run_repo, state, state_dir, task_state as task, text, zurdo_run};

/// A marker only the sealed file holds.
const SECRET: &str = "SEALED-5521";

/// Each provider, the CLI the stand-in imitates for it, and a model.
const CLIS: [(&str, &str, &str); 4] = [
    ("anthropic", "claude", "haiku"),
    ("openai", "codex", "gpt-5.4"),
    ("github", "copilot", "gpt-5.4"),
    ("google", "gemini", "gemini-2.5-flash"),
];

const PRD: &str = "# PRD: sandbox\n\n\
    ## Task: task-honest — Greeting\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nWrite hello.txt.\n\n\
    ### Acceptance Criteria\n- [ ] greets [grep: ^hello$ in hello.txt]\n\n\
    ## Task: task-cheat — Marker\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 1\n\n\
    ### Description\nWrite done.txt.\n\n\
    ### Acceptance Criteria\n- [ ] marked [file-exists: done.txt]\n";

/// The honest task writes its file and counts the processes it can see;
/// the cheat tries every door the sandbox closes, then does the work.
fn script(sealed: &Path) -> String {
    let cheat = format!(
        "cat '{}' > stolen.txt; \
         echo 'agent_sandbox = \"off\"' >> .zurdo/config.toml; \
         for f in .zurdo/*/prd.json; do echo '{{}}' > \"$f\"; done; \
         git update-ref refs/zurdo/forged HEAD; \
         ls /proc | grep -c '^[0-9]' > cheat-procs.txt; true",
        sealed.display()
    );
    serde_json::json!({"on_prompt": [
        {"contains": "Task task-honest", "attempt": {
            "write": {"hello.txt": "hello\n"},
            "run": "ls /proc | grep -c '^[0-9]' > procs.txt"
        }},
        {"contains": "Task task-cheat", "attempt": {
            "run": cheat,
            "write": {"done.txt": "done\n"}
        }}
    ]})
    .to_string()
}

/// bwrap runs here (installed, and allowed to make its namespaces).
fn bwrap_works() -> bool {
    let ran = std::process::Command::new("bwrap")
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
        .output();
    match ran {
        Ok(out) if out.status.success() => true,
        other => {
            eprintln!("note: bwrap cannot run here ({other:?}); the sandbox test did not run");
            false
        }
    }
}

/// A repository whose executor is `cli`'s stand-in, sandboxed.
fn repo_for(provider: &str, cli: &str, model: &str, sealed: &Path) -> tempfile::TempDir {
    let r = run_repo(PRD, "", &[], &script(sealed), true);
    let root = r.path();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(root)
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["add", "-A"]);
    git(&["commit", "-qm", "start"]);
    let agent = root.join(format!(".zurdo/{cli}-agent"));
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\nexec '{}' stand-in {cli} \"$@\"\n",
            env!("CARGO_BIN_EXE_zurdo")
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::write(
        root.join(".zurdo/config.toml"),
        format!(
            "[executor]\nprovider = \"{provider}\"\n[providers.{provider}]\ncommand = \"{}\"\n\
             [effort_map.{provider}]\nlow = \"{model}\"\n\
             [verification]\nagent_sandbox = \"bubblewrap\"\nsealed = \"{}\"\n",
            agent.display(),
            sealed.display()
        ),
    )
    .expect("config");
    r
}

fn sealed_file(dir: &Path) -> std::path::PathBuf {
    let sealed = dir.join("sealed.md");
    std::fs::write(
        &sealed,
        format!(
            "# PRD: hidden\n\n\
             ## Task: task-cheat — Marker\n**Effort**: low\n**Depends-on**: []\n\n\
             ### Description\n{SECRET}\n\n\
             ### Acceptance Criteria\n- [ ] {SECRET} marked [file-exists: done.txt]\n"
        ),
    )
    .expect("sealed");
    sealed
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn every_cli_works_inside_the_sandbox_and_a_cheat_reaches_nothing_it_protects() {
    if !bwrap_works() {
        return;
    }
    for (provider, cli, model) in CLIS {
        let outside = tempfile::tempdir().expect("outside");
        let sealed = sealed_file(outside.path());
        let r = repo_for(provider, cli, model, &sealed);
        let root = r.path();
        let config_before = read(&root.join(".zurdo/config.toml"));
        // The stand-in counts its invocations beside its script: outside
        // the read-only .zurdo/, where a real CLI keeps its own state.
        let script = outside.path().join("script.json");
        std::fs::copy(root.join(".zurdo/script.json"), &script).expect("script");
        let out = zurdo_run(
            root,
            &["--skip-model-check"],
            &[("ZURDO_STAND_IN_SCRIPT", &script.display().to_string())],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{cli}: {stderr}");
        let state = state(root);
        // The honest control: its work done inside the sandbox, verified.
        assert_eq!(task(&state, "task-honest")["status"], "passed", "{cli}");
        assert_eq!(read(&root.join("hello.txt")), "hello\n", "{cli}");
        let procs: usize = read(&root.join("procs.txt"))
            .trim()
            .parse()
            .unwrap_or(usize::MAX);
        assert!(
            procs < 10,
            "{cli}: the agent sees {procs} processes: not sandboxed"
        );
        // The cheat: it did its visible work, and nothing else.
        assert_eq!(task(&state, "task-cheat")["status"], "passed", "{cli}");
        let stolen = read(&root.join("stolen.txt"));
        assert!(
            !stolen.contains(SECRET),
            "{cli}: the sealed file was read: {stolen}"
        );
        assert_eq!(
            read(&root.join(".zurdo/config.toml")),
            config_before,
            "{cli}: the agent rewrote zurdo's config"
        );
        let ok = std::process::Command::new("git")
            .args(["rev-parse", "--verify", "-q", "refs/zurdo/forged"])
            .current_dir(root)
            .status()
            .expect("git");
        assert!(!ok.success(), "{cli}: the agent moved a git ref");
        // prd.json is zurdo's (it would not load if the agent had emptied it).
        assert!(
            state["tasks"].as_array().is_some_and(|t| t.len() == 2),
            "{cli}"
        );
        // The policy records the sandbox; no prompt holds the sealed text.
        let policy = read(&state_dir(root).join("policy.json"));
        assert!(
            policy.contains("\"agent_sandbox\":\"bubblewrap\""),
            "{cli}: {policy}"
        );
        for entry in std::fs::read_dir(state_dir(root).join("iterations"))
            .expect("iterations")
            .flatten()
        {
            assert!(
                !read(&entry.path()).contains(SECRET),
                "{cli}: {} holds the sealed text",
                entry.path().display()
            );
        }
    }
}

#[test]
fn a_sandbox_that_cannot_run_stops_the_run_before_any_agent_starts() {
    let outside = tempfile::tempdir().expect("outside");
    let sealed = sealed_file(outside.path());
    let r = repo_for("anthropic", "claude", "haiku", &sealed);
    let root = r.path();
    // No bwrap on PATH: only the shell's own tools and git.
    let bin = outside.path().join("bin");
    std::fs::create_dir(&bin).expect("bin");
    for tool in ["sh", "git", "cat", "ls", "grep"] {
        if let Some(found) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
        {
            std::os::unix::fs::symlink(found, bin.join(tool)).expect("link");
        }
    }
    let out = zurdo_run(
        root,
        &["--skip-model-check"],
        &[("PATH", &bin.display().to_string())],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("agent_sandbox = \"bubblewrap\" but `bwrap` is not on PATH"),
        "{stderr}"
    );
    assert!(stderr.contains("agent_sandbox = \"off\""), "{stderr}");
    assert!(!root.join("hello.txt").exists(), "an agent ran unsandboxed");
}
