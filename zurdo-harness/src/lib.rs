//! The zurdo engine: the `zurdo` command's subcommands, agent adapters, and
//! (as they land) config, state and the run loop. The binary in `main.rs`
//! only parses arguments and dispatches.

pub mod agent;
pub mod cli;
pub mod commands;
pub mod config;
pub mod evidence;
pub mod policy;
pub mod prompt;
pub mod reason;
pub mod report;
pub mod run;
pub mod state;
pub mod vela;
