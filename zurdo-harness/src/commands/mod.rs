//! One module per subcommand.

pub mod demo;
pub mod doctor;
pub mod init;
pub mod lumen;
pub mod reason;
pub mod report;
pub mod run;
pub mod state;
pub mod validate;
pub mod vela;
pub mod verify;

/// Exit status: success.
pub const EXIT_OK: u8 = 0;
/// Exit status: a criterion failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit status: a bad PRD or config (or an unreadable file).
pub const EXIT_INVALID: u8 = 2;

/// The repository root holding the current directory (for the commands
/// that take no PRD: `lumen`, `vela`, `reason status|clear`).
pub fn repo_here() -> std::path::PathBuf {
    // repo_root looks up from a file's directory: name one in the cwd.
    zurdo::source::repo_root(std::path::Path::new("zurdo"))
}
