//! `zurdo state where <prd>`.

use zurdo::source;

use crate::cli::StateCommand;
use crate::error::{Error, Exit, Outcome};
use crate::state::StateDir;

/// Runs the command and returns its exit status.
pub fn run(command: &StateCommand) -> Outcome {
    match command {
        StateCommand::Where { prd } => {
            if !prd.is_file() {
                return Err(Error::invalid(format!(
                    "{}: no such PRD file",
                    prd.display()
                )));
            }
            let root = source::repo_root(prd);
            let relative =
                source::relative_to(&root, prd).unwrap_or_else(|| prd.display().to_string());
            println!("{}", StateDir::new(&root, &relative).dir.display());
            Ok(Exit::Ok)
        }
    }
}
