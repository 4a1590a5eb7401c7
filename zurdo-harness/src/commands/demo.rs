//! `zurdo demo`: the whole loop on an embedded example, with no agent
//! installed. A scripted stand-in speaking Claude Code's real stream-json
//! format plays the agent: its first attempt gets the greeting subtly wrong,
//! zurdo's verification catches it, the retry prompt carries the failing
//! evidence, and the second attempt passes.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::cli::DemoArgs;
use crate::error::{Error, Outcome};
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
        },
    )?;
    eprintln!(
        "\nLook around: {0}/.zurdo/ holds prd.json (the state), progress.log (every event) and \
         iterations/ (each prompt and the agent's output; task-greeting-2.prompt opens with what failed).\n\
         Next: `cd {0} && {1} report prds/demo.md` prints the run's report, and `{1} verify prds/demo.md` \
         checks the criteria again without an agent.",
        dir.display(),
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "zurdo".into())
    );
    Ok(exit)
}

/// Writes the example repository: the PRD, a README, and a config whose
/// anthropic command is the stand-in.
fn lay_out(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("prds"))?;
    std::fs::create_dir_all(dir.join(".zurdo"))?;
    std::fs::write(dir.join("prds/demo.md"), DEMO_PRD)?;
    std::fs::write(
        dir.join("README.md"),
        "# demo\n\nAn example repository for `zurdo demo`.\n",
    )?;
    let _ = std::fs::remove_file(dir.join("greeting.txt"));
    let exe: PathBuf = std::env::current_exe()?;
    let agent = dir.join(".zurdo/demo-agent");
    let quoted = exe.display().to_string().replace('\'', "'\\''");
    std::fs::write(
        &agent,
        format!("#!/bin/sh\nexec '{quoted}' stand-in claude \"$@\"\n"),
    )?;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755))?;
    let config = format!(
        "[executor]\nprovider = \"anthropic\"\n\n[providers.anthropic]\ncommand = \"{}\"\n\n\
         [effort_map.anthropic]\nlow = \"demo-haiku\"\nmedium = \"demo-sonnet\"\nhigh = \"demo-opus\"\n",
        agent.display()
    );
    std::fs::write(dir.join(".zurdo/config.toml"), config)
}
