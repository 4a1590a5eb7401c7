//! Evidence integrity: where a verdict's evidence came from, not only the verdict.
//!
//! [`Guards`] is the one type the run loop asks: it holds what the guards
//! share and answers with values (the verified tree, frozen-path changes,
//! toolchain changes, the clean room's mismatches, the witness).
//!
//! [`baseline`] snapshots the working tree as a git tree object through a scratch index
//! (the spec's "Baseline capture" and "Tree-to-tree comparison"), lists and renders the
//! differences between two such trees (`run-diff.patch`), and keeps each task's baseline
//! alive under `refs/zurdo/<slug>/<task-id>` ("Rollback points and git refs").
//! [`caught`] is what an attempt was caught doing besides failing a criterion (each
//! fails the iteration with its typed reason).
//! [`frozen`] hashes the files no attempt may touch, [`toolchain`] resolves and
//! hashes the tools the verdicts rest on, [`room`] builds the clean room.

pub mod baseline;
pub mod caught;
pub mod commands;
pub mod coverage;
pub mod environment;
pub mod frozen;
pub mod guards;
pub mod hash;
pub mod missing;
pub mod room;
pub mod surface;
pub mod toolchain;
pub mod vanished;

pub use caught::{Caught, CaughtKind};
pub use guards::{CleanRoom, Guards, Witness};

pub use baseline::{
    capture, changed_paths, delete_refs, diff_patch, diff_patch_bytes, record_ref, Baseline,
    BaselineError,
};
