//! The PRD language: model, parser, validator and typed hints.
//!
//! This crate is shared by `zurdo` (which re-exports all of it) and
//! `zurdo-macros` (which validates PRDs at compile time); depend on `zurdo`
//! rather than on this crate directly.
//!
//! ```
//! let source = "# PRD: Demo\n\n## Task: task-1 — Greet\n**Effort**: low\n**Depends-on**: []\n\
//!     \n### Description\nPrint hello.\n\n### Acceptance Criteria\n\
//!     - [ ] says hello [shell: echo hello]\n";
//! let prd = zurdo_lang::parse(source).expect("valid PRD");
//! assert_eq!(prd.tasks[0].criteria[0].hints[0].kind(), "shell");
//! ```

pub mod diagnostic;
mod graph;
pub mod hint;
pub mod limits;
mod lines;
pub mod model;
pub mod money;
pub mod naming;
mod parse;
pub mod paths;
pub mod suggest;

pub use diagnostic::Diagnostic;
pub use model::{Criterion, Prd, Requirement, Task};
pub use parse::metadata::KEYS as METADATA_KEYS;
pub use parse::{parse, parse_bytes, MARKDOWN_OPTIONS};
