//! `zurdo skills list|install`: the bundled skills in the repository's
//! provider skill directories (see [`crate::skills`]).

use std::path::Path;

use crate::agent::Provider;
use crate::cli::{Format, SkillsCommand};
use crate::config::Config;
use crate::error::{Error, Exit, Outcome};
use crate::skills::{self, InstallState, Installed, Skill, BUNDLED};

/// Runs the command and returns its exit status.
pub fn run(command: &SkillsCommand) -> Outcome {
    let root = super::repo_here()?;
    match command {
        SkillsCommand::List { format } => list(&root, *format),
        SkillsCommand::Install { name, all, force } => {
            let config = Config::load(&root)?;
            let chosen: Vec<Skill> = if *all {
                BUNDLED.to_vec()
            } else {
                let name = name.as_deref().unwrap_or_default();
                vec![Skill::named(name).ok_or_else(|| {
                    Error::invalid(format!(
                        "no bundled skill `{name}`; there are: {}",
                        BUNDLED.map(|s| s.name).join(", ")
                    ))
                })?]
            };
            let ok = install(&root, &providers(&config), &chosen, *force, &mut |line| {
                println!("{line}")
            });
            Ok(Exit::ok_if(ok))
        }
    }
}

/// The providers whose skill directories get the skills: the executor's
/// and every role's, once each.
pub fn providers(config: &Config) -> Vec<Provider> {
    let mut out = vec![config.executor];
    for role in [&config.reasoner, &config.analyzer].into_iter().flatten() {
        if !out.contains(&role.provider) {
            out.push(role.provider);
        }
    }
    out
}

/// Installs `chosen` into each of `providers`' skill directories under
/// `root` (a directory shared by two providers once), saying each outcome
/// through `say`; false when an install was refused or failed.
pub fn install(
    root: &Path,
    providers: &[Provider],
    chosen: &[Skill],
    force: bool,
    say: &mut dyn FnMut(String),
) -> bool {
    let mut dirs: Vec<&str> = Vec::new();
    for dir in providers.iter().map(|p| skills::discovery_dir(*p)) {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let mut ok = true;
    for dir in dirs {
        for skill in chosen {
            let shown = format!("{dir}/{}", skill.name);
            match skills::install(skill, &root.join(dir), force) {
                Ok(Installed::New) => say(format!("installed {shown}")),
                Ok(Installed::Replaced) => say(format!("updated {shown}")),
                Ok(Installed::Kept) => say(format!("{shown} is up to date")),
                Ok(Installed::Refused(InstallState::Edited)) => {
                    ok = false;
                    say(format!(
                        "{shown} was edited since zurdo installed it: left as it is (`zurdo skills install {} --force` replaces it)",
                        skill.name
                    ))
                }
                Ok(Installed::Refused(_)) => {
                    ok = false;
                    say(format!(
                        "{shown} exists and zurdo did not install it (no {}): left as it is",
                        skills::SENTINEL
                    ))
                }
                Err(e) => {
                    ok = false;
                    say(format!("cannot install {shown}: {e}"))
                }
            }
        }
    }
    ok
}

fn list(root: &Path, format: Format) -> Outcome {
    let dirs: Vec<&str> = {
        let mut d: Vec<&str> = Provider::ALL
            .iter()
            .map(|p| skills::discovery_dir(*p))
            .collect();
        d.dedup();
        d
    };
    let rows: Vec<serde_json::Value> = BUNDLED
        .iter()
        .map(|skill| {
            let installs: Vec<serde_json::Value> = dirs
                .iter()
                .map(|dir| {
                    let state = skills::state_of(skill, &root.join(dir).join(skill.name));
                    serde_json::json!({"dir": format!("{dir}/{}", skill.name), "state": state.name()})
                })
                .collect();
            serde_json::json!({"name": skill.name, "installs": installs})
        })
        .collect();
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        ),
        Format::Human => {
            for row in &rows {
                println!("{}", row["name"].as_str().unwrap_or_default());
                for install in row["installs"].as_array().into_iter().flatten() {
                    println!(
                        "  {:<40} {}",
                        install["dir"].as_str().unwrap_or_default(),
                        install["state"].as_str().unwrap_or_default()
                    );
                }
            }
        }
    }
    Ok(Exit::Ok)
}
