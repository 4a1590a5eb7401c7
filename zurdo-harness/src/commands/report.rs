//! `zurdo report <prd>` (being written).

use crate::cli::ReportArgs;

/// Runs the command and returns its exit status.
pub fn run(args: &ReportArgs) -> u8 {
    let _ = args;
    super::EXIT_INVALID
}
