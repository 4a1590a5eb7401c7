//! `zurdo init`: writes a commented `.zurdo/config.toml`.

use crate::cli::InitArgs;
use crate::commands::doctor;
use crate::config::{Config, TEMPLATE};
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
        // Through .zurdo/ held open: a symlink planted there (or at the
        // config itself) is refused or replaced, never written through.
        zurdo_base::dir::Dir::open(&root)
            .and_then(|d| d.child(".zurdo", true))
            .and_then(|d| {
                d.replace(
                    "config.toml",
                    TEMPLATE.as_bytes(),
                    zurdo_base::files::Durability::Synced,
                )
            })
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        println!("wrote {}", path.display());
    }
    if let Some(hint) = crate::config::gitignore_hint(&root) {
        println!("{hint}");
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
