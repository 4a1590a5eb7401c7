//! One module per subcommand (and [`proposals`], what `analyze --fix` and
//! `heal` share).

pub mod analyze;
pub mod demo;
pub mod doctor;
pub mod heal;
pub mod init;
pub mod lumen;
mod proposals;
pub mod pyxis;
pub mod reason;
pub mod report;
pub mod review;
pub mod run;
pub mod skills;
pub mod state;
pub mod validate;
pub mod vela;
pub mod verify;

/// The repository root holding the current directory (for the commands
/// that take no PRD: `init`, `doctor`, `lumen`, `pyxis`, `vela`, `reason
/// status|clear`).
pub fn repo_here() -> Result<std::path::PathBuf, crate::error::Error> {
    let dir = std::env::current_dir().map_err(|e| {
        crate::error::Error::new(
            crate::error::ErrorKind::Io,
            format!("cannot read the current directory: {e}"),
        )
    })?;
    // repo_root looks up from a file's directory: name one in the cwd.
    Ok(zurdo::source::repo_root(&dir.join("zurdo")))
}
