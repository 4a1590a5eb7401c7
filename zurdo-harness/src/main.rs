//! The `zurdo` command.

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let code = match cli.command {
        cli::Command::Validate(args) => commands::validate::run(&args),
        cli::Command::Verify(args) => commands::verify::run(&args),
    };
    ExitCode::from(code)
}
