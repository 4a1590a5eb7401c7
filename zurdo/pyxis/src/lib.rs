//! Pyxis: zurdo's retrieval index. For a text (a task's description and
//! criteria, a commit message), which files of the repository to look at
//! first, which of their definitions, and why.
//!
//! It is lexical and deterministic: BM25F over each file's path, the names
//! it defines (Lumen's definitions, reused, never parsed again) and its
//! contents, with one tokenizer for all of them ([`tokens`]: identifiers
//! split at case changes, `_` and `-`, and kept whole too). Files a text
//! names, and files defining a qualified name it mentions, come first.
//! The index lives at `.zurdo/pyxis/index.json`, refreshed by content hash
//! and believed only when its MAC checks ([`index`]).
//!
//! Nothing here knows what a task, a prompt or an agent is: the harness
//! builds the query and renders the answer.

pub mod index;
pub mod query;
pub mod rank;
pub mod tokens;

pub use index::{open, Def, Doc, Index, Loaded, Refresh, Refreshed, Retriever};
pub use query::Query;
pub use rank::{Hit, Pin, Scoring};
