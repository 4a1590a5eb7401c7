//! The harness's integration tests: one binary with a module per concern
//! (as cargo-nextest keeps its own). Each drives the built `zurdo` binary
//! in a scratch repository, with a stand-in agent speaking the real CLI's
//! event stream through the real adapter path.

mod common;

mod analyze;
mod baseline;
mod baselines;
mod budget;
mod challenge;
mod confinement;
mod coverage;
mod detection;
mod escalation;
mod file_hints;
mod frozen;
mod heal;
mod hostile_hints;
mod hostile_input;
mod hostile_state;
mod infra;
mod interrupt;
mod leftovers;
mod live_output;
mod lumen;
mod policy;
mod probe;
mod provenance;
mod pyxis;
mod reason;
mod red_team;
mod regression;
mod report;
mod resume_prompt;
mod review;
mod run;
mod sandbox;
mod sealed;
mod skills;
mod snapshots;
mod standin;
mod standing;
mod stops;
mod validate;
mod vela;
mod verdict_surface;
mod verify;
mod window;
