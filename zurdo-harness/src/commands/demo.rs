//! `zurdo demo`: the whole loop on an embedded example, with no agent
//! installed. A scripted stand-in speaking Claude Code's real stream-json
//! format plays the agent: its first attempt gets the greeting subtly wrong,
//! zurdo's verification catches it, the retry prompt carries the failing
//! evidence, and the second attempt passes.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use zurdo_standin::{Attempt, Markers, PromptRule, Script, SCRIPT_ENV};

use crate::cli::DemoArgs;
use crate::error::{Error, Outcome};
use crate::prompt::RETRY_MARKER;
use crate::reason::REASON_PREFIX;
use crate::run::probe::PROBE_PREFIX;
use crate::run::{self, Options};

/// The embedded example PRD.
pub const DEMO_PRD: &str = "# PRD: zurdo demo

A three-task example that runs with no agent installed: zurdo drives a scripted stand-in for
Claude Code and judges every attempt itself.

## Task: task-greeting — Write the greeting
**Effort**: low
**Depends-on**: []
**Max-Attempts**: 3

### Description
Create `greeting.txt` holding exactly the line `Hello, world!`.

### Acceptance Criteria
- [ ] the greeting file exists [file-exists: greeting.txt]
- [ ] it greets properly [grep: ^Hello, world!$ in greeting.txt]

## Task: task-readme — Describe the project
**Effort**: low
**Depends-on**: [task-greeting]

### Description
The repository needs a README. (It already has one, so pre-flight passes this task without an
agent.)

### Acceptance Criteria
- [ ] a README exists [file-exists: README.md]

## Task: task-signoff — Sign off the wording
**Effort**: low
**Depends-on**: [task-greeting]

### Description
A human reads the greeting and approves it.

### Acceptance Criteria
- [ ] a person approves the wording [manual]
";

/// Where the demo's stand-in script is written, under the example
/// repository.
pub const SCRIPT_PATH: &str = ".zurdo/demo-script.json";

/// The demo agent's script: a first attempt writes `greeting.txt` subtly
/// wrong (`hello world`); a retry, a prompt holding [`RETRY_MARKER`], writes
/// it right (`Hello, world!`). Probes and reasoner calls are told apart by
/// zurdo's own prefixes, so neither consumes an attempt.
pub fn script() -> Script {
    let greeting = |text: &str| BTreeMap::from([("greeting.txt".to_string(), text.to_string())]);
    let wrong = Attempt {
        write: greeting("hello world\n"),
        text: Some("Created greeting.txt with the greeting.".into()),
        ..Attempt::default()
    };
    let right = Attempt {
        write: greeting("Hello, world!\n"),
        text: Some("Fixed greeting.txt: it now reads exactly `Hello, world!` (capitalised, with the comma and the exclamation mark).".into()),
        ..Attempt::default()
    };
    Script {
        attempts: vec![wrong],
        on_prompt: vec![PromptRule {
            contains: RETRY_MARKER.to_string(),
            attempt: right,
        }],
        markers: Markers {
            probe: Some(PROBE_PREFIX.to_string()),
            reasoner: Some(REASON_PREFIX.to_string()),
        },
        ..Script::default()
    }
}

/// Runs the demo and returns its exit status.
pub fn run(args: &DemoArgs) -> Outcome {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("zurdo-demo-{}", std::process::id())),
    };
    lay_out(&dir).map_err(|e| Error::io(&dir, "cannot set up the demo in", e))?;
    eprintln!("zurdo demo: an example repository in {}", dir.display());
    eprintln!("  the agent is a scripted stand-in for Claude Code (`zurdo stand-in claude`), so nothing is installed or spent\n");
    let prd = dir.join("prds/demo.md");
    let exit = run::run(
        &prd,
        Options {
            resume: false,
            reset: true,
            no_prompt: true,
            skip_model_check: false,
            retry_failed: false,
            sealed: None,
        },
    )?;
    eprintln!(
        "\nLook around: {0}/.zurdo/ holds prd.json (the state), progress.log (every event), \
         iterations/ (each prompt and the agent's output; task-greeting-2.prompt opens with what failed) and \
         run-diff.patch (everything the run changed, against the baseline zurdo took in the example's git repository; \
         `git -C {0} for-each-ref refs/zurdo` lists each task's rollback point).\n\
         Next: `cd {0} && {1} report prds/demo.md` prints the run's report, and `{1} verify prds/demo.md` \
         checks the criteria again without an agent.",
        dir.display(),
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "zurdo".into())
    );
    Ok(exit)
}

/// Writes the example repository: a git repository (so the run shows
/// baselines, rollback refs and `run-diff.patch`) holding the PRD, a README
/// and a `.gitignore` in a first commit, the demo agent's script, and a
/// config whose anthropic command is the stand-in reading it.
fn lay_out(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("prds"))?;
    std::fs::create_dir_all(dir.join(".zurdo"))?;
    std::fs::write(dir.join("prds/demo.md"), DEMO_PRD)?;
    std::fs::write(
        dir.join("README.md"),
        "# demo\n\nAn example repository for `zurdo demo`.\n",
    )?;
    std::fs::write(dir.join(".gitignore"), ".zurdo/\n")?;
    init_repository(dir).map_err(std::io::Error::other)?;
    let _ = std::fs::remove_file(dir.join("greeting.txt"));
    let script_path = dir.join(SCRIPT_PATH);
    let text = serde_json::to_string_pretty(&script()).map_err(std::io::Error::other)?;
    std::fs::write(&script_path, format!("{text}\n"))?;
    for counter in ["count", "probes", "reasons"] {
        let _ = std::fs::remove_file(dir.join(format!("{SCRIPT_PATH}.{counter}")));
    }
    let exe: PathBuf = std::env::current_exe()?;
    let agent = dir.join(".zurdo/demo-agent");
    let quote = |p: &Path| p.display().to_string().replace('\'', "'\\''");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\n{SCRIPT_ENV}='{}'\nexport {SCRIPT_ENV}\nexec '{}' stand-in claude \"$@\"\n",
            quote(&script_path),
            quote(&exe)
        ),
    )?;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755))?;
    let config = format!(
        "[executor]\nprovider = \"anthropic\"\n\n[providers.anthropic]\ncommand = \"{}\"\n\n\
         [effort_map.anthropic]\nlow = \"demo-haiku\"\nmedium = \"demo-sonnet\"\nhigh = \"demo-opus\"\n",
        agent.display()
    );
    std::fs::write(dir.join(".zurdo/config.toml"), config)
}

/// Makes `dir` a git repository whose first commit holds what is there
/// (nothing when it is one already: a demo laid out again keeps its
/// history).
fn init_repository(dir: &Path) -> Result<(), git2::Error> {
    if dir.join(".git").exists() {
        return Ok(());
    }
    let repo = git2::Repository::init(dir)?;
    let mut index = repo.index()?;
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let who = git2::Signature::now("zurdo demo", "demo@zurdo.invalid")?;
    repo.commit(
        Some("HEAD"),
        &who,
        &who,
        "The demo's starting point",
        &tree,
        &[],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_is_wrong_first_and_right_on_retry() {
        let demo = script();
        let first = demo.attempt_for(0, "# Task\nwrite the greeting");
        assert_eq!(first.write["greeting.txt"], "hello world\n");
        let retry = demo.attempt_for(1, &format!("# Task\n{RETRY_MARKER}\n[grep] failed"));
        assert_eq!(retry.write["greeting.txt"], "Hello, world!\n");
        assert!(demo.markers.is_probe(&format!("{PROBE_PREFIX} reply OK")));
        assert!(demo
            .markers
            .is_reasoner(&format!("{REASON_PREFIX} diagnosis")));
    }
}
