//! `zurdo init`: writes a commented `.zurdo/config.toml`, its effort maps
//! taken from each CLI's own model list where the CLI can list offline
//! (`codex debug models`), else zurdo's documented defaults; it says where
//! each map came from. It also installs the bundled skills into each
//! configured provider's skill directory (see [`crate::skills`]).

use crate::agent::{catalog, Provider};
use crate::cli::InitArgs;
use crate::commands::doctor;
use crate::config::{self, Config};
use crate::error::{Error, Exit, Outcome};

/// Runs the command and returns its exit status.
pub fn run(args: &InitArgs) -> Outcome {
    let root = super::repo_here()?;
    let path = root.join(zurdo::verify::CONFIG_PATH);
    if std::fs::symlink_metadata(&path).is_ok() && !args.force {
        eprintln!(
            "zurdo: {} exists; `zurdo init --force` overwrites it",
            path.display()
        );
    } else {
        // The CLIs as the config being replaced names them, else as their
        // defaults.
        let existing = Config::load(&root).ok();
        let command = |p: Provider| {
            existing
                .as_ref()
                .map_or(p.default_command(), |c| c.command(p))
                .to_string()
        };
        let defaults: Vec<catalog::Defaults> = Provider::ALL
            .iter()
            .map(|&p| catalog::defaults(p, &command(p)))
            .collect();
        let listed: Vec<(Provider, [String; 3], String)> = defaults
            .iter()
            .filter(|d| d.listed)
            .map(|d| (d.provider, d.models.clone(), format!("from {}", d.source)))
            .collect();
        let text = config::template_with(&listed);
        // Through .zurdo/ held open: a symlink planted there (or at the
        // config itself) is refused or replaced, never written through.
        zurdo_base::dir::Dir::open(&root)
            .and_then(|d| d.child(".zurdo", true))
            .and_then(|d| {
                d.replace(
                    "config.toml",
                    text.as_bytes(),
                    zurdo_base::files::Durability::Synced,
                )
            })
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        println!("wrote {}", path.display());
        println!("effort maps (low, medium, high):");
        for d in &defaults {
            println!(
                "  {}: {} — {}",
                d.provider.name(),
                d.models.join(", "),
                d.source
            );
        }
    }
    if let Some(hint) = crate::config::gitignore_hint(&root) {
        println!("{hint}");
    }
    // The bundled skills, into each configured provider's skill directory
    // (idempotent; an install someone edited is left alone).
    match Config::load(&root) {
        Ok(config) => {
            let providers = super::skills::providers(&config);
            super::skills::install(
                &root,
                &providers,
                &crate::skills::BUNDLED,
                false,
                &mut |line| println!("skills: {line}"),
            );
        }
        Err(e) => eprintln!("zurdo: the skills are not installed: {e}"),
    }
    if args.check_models {
        match Config::load(&root) {
            Ok(config) => {
                doctor::probe_all(&config, &root);
            }
            Err(e) => eprintln!("zurdo: {e}"),
        }
    }
    Ok(Exit::Ok)
}
