//! (being written)

use super::Extracted;

/// Extracts definitions and references.
pub fn extract(tree: &tree_sitter::Tree, source: &[u8], module: &[String]) -> Extracted {
    let _ = (tree, source, module);
    Extracted::default()
}
