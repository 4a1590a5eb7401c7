//! `zurdo init`: writes a commented `.zurdo/config.toml`.

use crate::cli::InitArgs;
use crate::commands::doctor;
use crate::config::{Config, TEMPLATE};
use crate::error::{Error, Exit, Outcome};

/// Runs the command and returns its exit status.
pub fn run(args: &InitArgs) -> Outcome {
    let root = super::repo_here()?;
    let path = root.join(zurdo::verify::CONFIG_PATH);
    if path.exists() && !args.force {
        eprintln!(
            "zurdo: {} exists; `zurdo init --force` overwrites it",
            path.display()
        );
    } else {
        if let Err(e) = std::fs::create_dir_all(root.join(".zurdo"))
            .and_then(|_| std::fs::write(&path, TEMPLATE))
        {
            return Err(Error::io(&path, "cannot write", e));
        }
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
