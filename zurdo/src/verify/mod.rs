//! Hint execution: the verifier that `zurdo verify`, the cargo-test harness
//! and the run loop share.

mod outcome;

pub use outcome::{Blob, Captured, CriterionVerdict, Evidence, HintResult, Reason, Verdict};
