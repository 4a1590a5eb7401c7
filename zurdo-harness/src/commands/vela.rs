//! `zurdo vela start|stop|status` (being written).

use crate::cli::VelaCommand;

/// Runs the command and returns its exit status.
pub fn run(command: &VelaCommand) -> u8 {
    let _ = command;
    super::EXIT_INVALID
}
