//! The harness's integration tests, one binary with a module per concern
//! (as cargo-nextest keeps its own): each drives the built `zurdo` binary
//! in a scratch repository.

#[path = "../common/mod.rs"]
mod common;

mod snapshots;
