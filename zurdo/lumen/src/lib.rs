//! Lumen: zurdo's structural index. It reads Rust, Python, Go, TypeScript
//! and JavaScript (TSX and JSX included) with tree-sitter into definitions
//! and references, keeps them as generations under `.zurdo/lumen/`, and
//! answers the `[symbol:]`, `[references:]` and `[callers:]` hints.

pub mod adapters;
pub mod model;
