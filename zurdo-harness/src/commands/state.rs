//! `zurdo state where <prd>`.

use zurdo::source;

use super::{EXIT_INVALID, EXIT_OK};
use crate::cli::StateCommand;
use crate::state::StateDir;

/// Runs the command and returns its exit status.
pub fn run(command: &StateCommand) -> u8 {
    match command {
        StateCommand::Where { prd } => {
            if !prd.is_file() {
                eprintln!("zurdo: {}: no such PRD file", prd.display());
                return EXIT_INVALID;
            }
            let root = source::repo_root(prd);
            let relative =
                source::relative_to(&root, prd).unwrap_or_else(|| prd.display().to_string());
            println!("{}", StateDir::new(&root, &relative).dir.display());
            EXIT_OK
        }
    }
}
