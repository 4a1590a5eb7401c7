//! `zurdo reason status|match|clear` (being written).

use crate::cli::ReasonCommand;

/// Runs the command and returns its exit status.
pub fn run(command: &ReasonCommand) -> u8 {
    let _ = command;
    super::EXIT_INVALID
}
