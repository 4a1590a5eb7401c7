//! Lumen: zurdo's structural index. It reads Rust, Python, Go, TypeScript
//! and JavaScript (TSX and JSX included) with tree-sitter into definitions
//! and references, keeps them as generations under `.zurdo/lumen/`, and
//! answers the `[symbol:]`, `[references:]` and `[callers:]` hints.

pub mod adapters;
pub mod index;
pub mod model;
pub mod qualified;
pub mod query;
pub mod resolve;

pub use index::{Index, Refresh};
pub use model::{FileIndex, Import, Kind, Param, Receiver, Reference, Symbol};
pub use qualified::QualifiedPath;
