//! Evidence integrity: where a verdict's evidence came from, not only the verdict.
//!
//! [`baseline`] snapshots the working tree as a git tree object through a scratch index
//! (the spec's "Baseline capture" and "Tree-to-tree comparison"), lists and renders the
//! differences between two such trees (`run-diff.patch`), and keeps each task's baseline
//! alive under `refs/zurdo/<slug>/<task-id>` ("Rollback points and git refs").

pub mod baseline;
pub mod frozen;
pub mod room;
pub mod toolchain;

pub use baseline::{
    capture, changed_paths, delete_refs, diff_patch, diff_patch_bytes, record_ref, Baseline,
    BaselineError,
};
