//! `zurdo init`: writes a commented `.zurdo/config.toml`.

use super::{EXIT_INVALID, EXIT_OK};
use crate::cli::InitArgs;
use crate::commands::doctor;
use crate::config::{Config, TEMPLATE};

/// Runs the command and returns its exit status.
pub fn run(args: &InitArgs) -> u8 {
    let root = match std::env::current_dir() {
        Ok(dir) => zurdo::source::repo_root(&dir.join("x")),
        Err(e) => {
            eprintln!("zurdo: cannot read the current directory: {e}");
            return EXIT_INVALID;
        }
    };
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
            eprintln!("zurdo: cannot write {}: {e}", path.display());
            return EXIT_INVALID;
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
    EXIT_OK
}
