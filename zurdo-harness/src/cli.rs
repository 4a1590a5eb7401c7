//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// zurdo makes a PRD executable: it validates the PRD's grammar, verifies
/// its acceptance criteria, and drives coding agents task by task.
#[derive(Debug, Parser)]
#[command(name = "zurdo", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check PRDs against the grammar and the dependency graph, and lint their criteria.
    ///
    /// Prints every error as `<path>:<line>: <message>` with the fix, then the
    /// lint warnings. Exits 0 when every PRD is valid (warnings allowed) and 2
    /// when any has an error or cannot be read.
    Validate(ValidateArgs),

    /// Run every acceptance criterion of a PRD against the working tree now.
    ///
    /// The same verifier as `cargo test --test prd` and `zurdo run`: hints run
    /// at the repository root, `[shell:]` with an allowlisted environment and
    /// a deadline. Exits 0 when every automated criterion passes (`[manual]`
    /// ones await review), 1 when any fails, 2 on a bad PRD or config.
    Verify(VerifyArgs),

    /// A scripted stand-in for an agent CLI (the demo agent and the tests'
    /// agents): `zurdo stand-in <claude|codex|copilot|gemini> <that CLI's args>…`.
    #[command(hide = true)]
    StandIn(StandInArgs),
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Readable lines.
    Human,
    /// One JSON document on stdout: the parsed model, errors and lints.
    Json,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// PRD files to validate.
    #[arg(required = true, value_name = "PRD")]
    pub prds: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The PRD whose criteria to run.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Only these tasks (repeatable).
    #[arg(long = "task", value_name = "TASK-ID")]
    pub tasks: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct StandInArgs {
    /// Which CLI to imitate: claude, codex, copilot or gemini.
    pub cli: String,

    /// The arguments the real CLI would get.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}
