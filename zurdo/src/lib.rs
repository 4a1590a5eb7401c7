//! zurdo: the PRD language and its verifier.
//!
//! A PRD is Markdown in a strict grammar: tasks with dependencies and
//! acceptance criteria that carry machine-checkable hints. This crate
//! re-exports the language from `zurdo-lang` (the model [`model`], the
//! parser and validator [`parse`], the typed hints [`hint`]) and adds what
//! checks a PRD: the lints ([`lint`]), the verifier that runs each hint
//! ([`verify`], with [`exec`] running commands), the cargo-test harness
//! runtime behind `prd!` ([`harness`]), the build-script form
//! ([`build`]) and the rule that says whether an edit of a PRD weakens it
//! ([`weaken`]). It knows nothing of agents.
//!
//! Cargo features, both on by default: `lumen` checks `[symbol:]`,
//! `[references:]` and `[callers:]` (tree-sitter, through zurdo-lumen) and
//! `http` checks `[http:]` (ureq with rustls). The language and
//! [`build`] need neither: `default-features = false` suits a build script.
//! Without a feature its hints still parse; verifying one fails with
//! [`verify::Reason::NeedsFeature`].
//!
//! ```
//! let source = "# PRD: Demo\n\n## Task: task-1 — Greet\n**Effort**: low\n**Depends-on**: []\n\
//!     \n### Description\nPrint hello.\n\n### Acceptance Criteria\n\
//!     - [ ] says hello [shell: echo hello]\n";
//! let prd = zurdo::parse(source).expect("valid PRD");
//! assert_eq!(prd.tasks[0].criteria[0].hints[0].kind(), "shell");
//! ```

pub mod build;
pub mod exec;
pub mod harness;
pub mod lint;
pub mod sealed;
mod shell;
pub mod source;
pub mod verify;
pub mod weaken;

pub use zurdo_lang::{diagnostic, hint, limits, model, money, naming, paths};
pub use zurdo_lang::{parse, parse_bytes, Criterion, Diagnostic, Prd, Requirement, Task};
pub use zurdo_lang::{MARKDOWN_OPTIONS, METADATA_KEYS};
pub use zurdo_macros::prd;
