//! Language adapters: each turns one file's tree-sitter syntax tree into
//! definitions and references. Anything an adapter does not map is not
//! indexed, so a hint naming it fails "not found" rather than being guessed.

pub mod go;
pub mod python;
pub mod rust;
pub mod typescript;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::model::{FileIndex, Import, Kind, QualifiedPath, Receiver, Reference, Symbol};

/// A language Lumen reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.rs`
    Rust,
    /// `.py`, `.pyi`
    Python,
    /// `.go`
    Go,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.js`, `.mjs`, `.cjs`, `.jsx` (the JavaScript grammar parses JSX)
    JavaScript,
}

impl Language {
    /// The language of `path`, by its extension.
    pub fn of(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.')?.1;
        Some(match ext {
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            "go" => Language::Go,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            _ => return None,
        })
    }

    /// The name recorded in the index.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::Python => "python",
            Language::Go => "go",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        }
    }
}

/// What an adapter extracts from one syntax tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    /// Definitions, in source order.
    pub symbols: Vec<Symbol>,
    /// Uses, in source order.
    pub references: Vec<Reference>,
    /// Imports, in source order.
    pub imports: Vec<Import>,
    /// How many more alias target segments may be recorded (see
    /// [`Extracted::for_source`]).
    target_budget: usize,
}

/// Alias target segments a file may record besides one per source byte.
pub const TARGET_SEGMENTS_FREE: usize = 4096;

impl Extracted {
    /// An empty extraction for `source`, whose alias targets may hold one
    /// segment per byte of it (plus [`TARGET_SEGMENTS_FREE`]) in all. An
    /// alias target is written out in full for each name imported or
    /// re-exported, so `from a0.a1.….aN import (x0, …, xN)` or `pub use
    /// a0::…::aN::{X0, …, XN}` would otherwise hold N² segments. Real files
    /// use a fraction of the budget; past it, aliases are still defined, but
    /// with no target (so a hint does not follow them).
    pub fn for_source(source: &[u8]) -> Extracted {
        Extracted {
            target_budget: source.len().saturating_add(TARGET_SEGMENTS_FREE),
            ..Extracted::default()
        }
    }

    /// True, and `segments` taken from the budget, when an alias target of
    /// `segments` segments may still be recorded.
    pub(crate) fn take_target(&mut self, segments: usize) -> bool {
        match self.target_budget.checked_sub(segments) {
            Some(left) => {
                self.target_budget = left;
                true
            }
            None => false,
        }
    }

    /// Records a definition at `at`'s line.
    pub(crate) fn define(
        &mut self,
        path: QualifiedPath,
        kind: Kind,
        at: tree_sitter::Node<'_>,
        target: Vec<String>,
    ) {
        let mut symbol = Symbol::new(path, kind, line(at));
        symbol.target = target;
        self.symbols.push(symbol);
    }

    /// The definition recorded last (to add its bases or type to).
    pub(crate) fn last_symbol(&mut self) -> Option<&mut Symbol> {
        self.symbols.last_mut()
    }

    /// Records an import binding `name` (empty for a glob) in `scope`.
    pub(crate) fn import(
        &mut self,
        name: String,
        target: Vec<String>,
        at: tree_sitter::Node<'_>,
        scope: QualifiedPath,
        glob: bool,
    ) {
        if target.is_empty() || target.iter().any(|s| s.is_empty()) {
            return;
        }
        if !self.take_target(target.len()) {
            return;
        }
        self.imports.push(Import {
            name,
            target,
            line: line(at),
            scope,
            glob,
            public: false,
        });
    }

    /// Records a use at `at`'s line made from inside `caller`; a path with
    /// an empty segment is not a name and is dropped.
    pub(crate) fn refer(
        &mut self,
        path: Vec<String>,
        member: bool,
        call: bool,
        at: tree_sitter::Node<'_>,
        caller: QualifiedPath,
    ) {
        if path.is_empty() || path.iter().any(|s| s.is_empty()) {
            return;
        }
        self.references.push(Reference {
            path,
            member,
            call,
            line: line(at),
            caller,
            receiver: Receiver::None,
        });
    }

    /// Records a use of the members `names` read in turn from a value
    /// `receiver` describes (`self.cache.clear()` → `["cache", "clear"]`).
    pub(crate) fn refer_chain(
        &mut self,
        names: Vec<String>,
        receiver: Receiver,
        call: bool,
        at: tree_sitter::Node<'_>,
        caller: QualifiedPath,
    ) {
        if names.is_empty() || names.iter().any(|s| s.is_empty()) {
            return;
        }
        self.references.push(Reference {
            path: names,
            member: true,
            call,
            line: line(at),
            caller,
            receiver,
        });
    }
}

/// Names declared along a chain of nested scopes (type parameters): each
/// scope's own names and a shared link to the enclosing scopes', so that a
/// nested scope costs only what it declares, however deep it is.
#[derive(Clone, Default)]
pub(crate) struct ScopedNames {
    innermost: Option<Rc<NamesLink>>,
}

/// One scope's names and those around it.
struct NamesLink {
    names: HashSet<String>,
    outer: ScopedNames,
    /// The number of links up to and including this one.
    depth: usize,
}

impl ScopedNames {
    /// These names and `names` (the same chain when `names` is empty).
    pub(crate) fn with(&self, names: Vec<String>) -> ScopedNames {
        if names.is_empty() {
            return self.clone();
        }
        ScopedNames {
            innermost: Some(Rc::new(NamesLink {
                names: names.into_iter().collect(),
                outer: self.clone(),
                depth: self.depth() + 1,
            })),
        }
    }

    /// True when some scope of the chain declares `name`: one lookup per
    /// scope of the chain (see [`NamesInScope`] for long chains).
    pub(crate) fn contains(&self, name: &str) -> bool {
        let mut link = self.innermost.as_deref();
        while let Some(l) = link {
            if l.names.contains(name) {
                return true;
            }
            link = l.outer.innermost.as_deref();
        }
        false
    }

    fn depth(&self) -> usize {
        self.innermost.as_ref().map_or(0, |l| l.depth)
    }
}

/// Frees a long chain in a loop rather than with one nested drop per link.
impl Drop for ScopedNames {
    fn drop(&mut self) {
        let mut next = self.innermost.take();
        while let Some(link) = next {
            next = Rc::into_inner(link).and_then(|mut l| l.outer.innermost.take());
        }
    }
}

/// Answers "does this chain declare that name" in one hash lookup, however
/// long the chain: it keeps the names of one chain (the last one asked
/// about) counted, and moving to another chain undoes and applies only the
/// links where the two differ. A walk asks about the chains of the nodes it
/// visits in depth-first order, so moving costs, over the whole walk, about
/// twice the number of links.
#[derive(Default)]
pub(crate) struct NamesInScope {
    active: ScopedNames,
    counts: HashMap<String, usize>,
}

impl NamesInScope {
    /// True when some scope of `chain` declares `name`.
    pub(crate) fn contains(&mut self, chain: &ScopedNames, name: &str) -> bool {
        self.switch_to(chain);
        self.counts.contains_key(name)
    }

    fn switch_to(&mut self, target: &ScopedNames) {
        let mut from = self.active.innermost.clone();
        let mut to = target.innermost.clone();
        let mut entered: Vec<Rc<NamesLink>> = Vec::new();
        loop {
            let (a, b) = match (&from, &to) {
                (None, None) => break,
                (Some(a), Some(b)) if Rc::ptr_eq(a, b) => break,
                (a, b) => (
                    a.as_ref().map_or(0, |l| l.depth),
                    b.as_ref().map_or(0, |l| l.depth),
                ),
            };
            if a >= b {
                let Some(left) = from.take() else { break };
                for name in &left.names {
                    if let Some(count) = self.counts.get_mut(name) {
                        *count -= 1;
                        if *count == 0 {
                            self.counts.remove(name);
                        }
                    }
                }
                from = left.outer.innermost.clone();
            } else {
                let Some(link) = to.take() else { break };
                to = link.outer.innermost.clone();
                entered.push(link);
            }
        }
        for link in entered {
            for name in &link.names {
                *self.counts.entry(name.clone()).or_insert(0) += 1;
            }
        }
        self.active = target.clone();
    }
}

/// The 1-based line a node starts on.
pub(crate) fn line(node: tree_sitter::Node<'_>) -> u32 {
    u32::try_from(node.start_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

/// The node's source text (lossy for invalid UTF-8; empty when out of range).
pub(crate) fn text(node: tree_sitter::Node<'_>, source: &[u8]) -> String {
    source
        .get(node.byte_range())
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

/// Walks a member chain (`a.b.c`: nested `kind` nodes, each naming its
/// member by `name_field` and its object by `object_field`) from `node`
/// down: the names in source order, the root (the first node that is not
/// a `kind` with both fields) and the last name's node (`node` itself
/// when the chain has no name).
pub(crate) fn member_chain<'t>(
    node: tree_sitter::Node<'t>,
    kind: &str,
    name_field: &str,
    object_field: &str,
    source: &[u8],
) -> (Vec<String>, tree_sitter::Node<'t>, tree_sitter::Node<'t>) {
    let mut names = Vec::new();
    let mut current = node;
    let mut at = node;
    while current.kind() == kind {
        let Some(name) = current.child_by_field_name(name_field) else {
            break;
        };
        if names.is_empty() {
            at = name;
        }
        names.push(text(name, source));
        let Some(object) = current.child_by_field_name(object_field) else {
            break;
        };
        current = object;
    }
    names.reverse();
    (names, current, at)
}

/// Parses `source` as `language` and extracts its definitions and
/// references. `path` is repository-relative; the hash is left empty for
/// the caller. Never panics on any input: a file tree-sitter cannot parse
/// yields an empty index with `syntax_errors` set.
pub fn index_file(language: Language, path: &str, source: &[u8]) -> FileIndex {
    index_file_in(language, path, source, None)
}

/// [`index_file`] for a file of the Rust crate `krate` (its Cargo package
/// name, `-` read as `_`): the crate's name heads the module paths of the
/// files under its `src/`.
pub fn index_file_in(
    language: Language,
    path: &str,
    source: &[u8],
    krate: Option<&str>,
) -> FileIndex {
    let mut parser = tree_sitter::Parser::new();
    let mut file = FileIndex {
        path: path.to_string(),
        language: language.name().to_string(),
        ..FileIndex::default()
    };
    if parser.set_language(&language.grammar()).is_err() {
        file.syntax_errors = true;
        return file;
    }
    let Some(tree) = parser.parse(source, None) else {
        file.syntax_errors = true;
        return file;
    };
    file.syntax_errors = tree.root_node().has_error();
    let mut module = module_path(language, path);
    if let (Language::Rust, Some(krate)) = (language, krate) {
        if in_crate_src(path) {
            module.insert(0, krate.replace('-', "_"));
        }
    }
    let extracted = match language {
        Language::Rust => rust::extract(&tree, source, &module),
        Language::Python => python::extract(&tree, source, &module),
        Language::Go => go::extract(&tree, source, &module),
        Language::TypeScript | Language::Tsx | Language::JavaScript => {
            typescript::extract(&tree, source, &module)
        }
    };
    file.symbols = extracted.symbols;
    file.references = extracted.references;
    file.imports = extracted.imports;
    // For Go, the package's directory: what a Go import names.
    file.module = module;
    file
}

/// True for a Rust file under a `src/` directory (a crate's library or
/// binary sources, not its tests, benches or examples).
pub(crate) fn in_crate_src(path: &str) -> bool {
    path.split('/').rev().skip(1).any(|d| d == "src")
}

/// The module path a file's definitions are qualified with (Go adapters
/// replace it with the `package` clause's name):
///
/// * Rust: the path after the last `src/` component (or the whole path),
///   without `.rs`; `lib.rs`, `main.rs` → the crate root (no segment);
///   `a/mod.rs` → `a`. `zurdo/src/verify/http.rs` → `verify::http`.
/// * Python: the path without `.py`, a leading `src/` dropped;
///   `pkg/__init__.py` → `pkg`. `pkg/mod.py` → `pkg::mod`.
/// * TypeScript/JavaScript: the path without its extension, a leading
///   `src/` or `lib/` dropped; `a/index.ts` → `a`.
/// * Go: the directory path (replaced by the package name).
pub fn module_path(language: Language, path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let Some((file, dirs)) = parts.split_last() else {
        return Vec::new();
    };
    let stem = file.rsplit_once('.').map_or(*file, |(s, _)| s);
    let mut dirs: Vec<&str> = dirs.to_vec();
    let mut segments: Vec<String> = match language {
        Language::Rust => {
            if let Some(i) = dirs.iter().rposition(|d| *d == "src") {
                dirs.drain(..=i);
            }
            let mut s: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
            if !matches!(stem, "lib" | "main" | "mod") {
                s.push(stem.to_string());
            }
            s
        }
        Language::Python => {
            if dirs.first() == Some(&"src") {
                dirs.remove(0);
            }
            let mut s: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
            if stem != "__init__" {
                s.push(stem.to_string());
            }
            s
        }
        Language::TypeScript | Language::Tsx | Language::JavaScript => {
            if matches!(dirs.first(), Some(&"src") | Some(&"lib")) {
                dirs.remove(0);
            }
            let mut s: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
            if stem != "index" {
                s.push(stem.to_string());
            }
            s
        }
        Language::Go => dirs.iter().map(|d| d.to_string()).collect(),
    };
    segments.retain(|s| !s.is_empty());
    segments
}

/// Indexes `source` on a thread with a 256 KB stack: an adapter that
/// recursed per nesting level would overflow it (tests only).
#[cfg(test)]
pub(crate) fn index_on_small_stack(language: Language, path: &str, source: String) -> FileIndex {
    let path = path.to_string();
    match std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || index_file(language, &path, source.as_bytes()))
        .map(|h| h.join())
    {
        Ok(Ok(file)) => file,
        _ => panic!("indexing a deeply nested file failed"),
    }
}

/// The most index entry a test allows per byte of input: an entry is
/// linear in its file, whatever the nesting. Storing every qualified path
/// in full took over 850 bytes per input byte at 4,000 levels.
#[cfg(test)]
pub(crate) const MAX_ENTRY_BYTES_PER_INPUT_BYTE: usize = 16;

/// Indexes the file `source(depth)` for each depth on the small stack and
/// checks, for each, that it takes under 60 s, that `check` holds, and that
/// its serialized entry is at most `per_byte` bytes per input byte; then
/// that the entry grew with the input, not faster (within 10%). Returns
/// the entries' sizes (tests only).
#[cfg(test)]
pub(crate) fn assert_linear(
    language: Language,
    path: &str,
    per_byte: usize,
    depths: &[usize],
    source: impl Fn(usize) -> String,
    check: impl Fn(&FileIndex, usize),
) -> Vec<usize> {
    let mut sizes: Vec<(usize, usize)> = Vec::new();
    for &depth in depths {
        let text = source(depth);
        let input = text.len();
        let started = std::time::Instant::now();
        let file = index_on_small_stack(language, path, text);
        let elapsed = started.elapsed();
        assert!(
            elapsed < std::time::Duration::from_secs(60),
            "{path} at {depth} levels took {elapsed:?}"
        );
        check(&file, depth);
        let entry = serde_json::to_vec(&file).map_or(usize::MAX, |b| b.len());
        assert!(
            entry <= per_byte * input,
            "{path} at {depth} levels: a {entry}-byte entry for {input} bytes of input"
        );
        if let Some(&(first_input, first_entry)) = sizes.first() {
            let grew = entry as f64 / first_entry as f64;
            let input_grew = input as f64 / first_input as f64;
            assert!(
                grew <= input_grew * 1.1,
                "{path}: the input grew {input_grew:.2}x and the entry {grew:.2}x"
            );
        }
        sizes.push((input, entry));
    }
    sizes.into_iter().map(|(_, entry)| entry).collect()
}

/// [`assert_linear`] at 4,000 and 10,000 levels, within
/// [`MAX_ENTRY_BYTES_PER_INPUT_BYTE`] (tests only).
#[cfg(test)]
pub(crate) fn assert_deep_linear(
    language: Language,
    path: &str,
    source: impl Fn(usize) -> String,
    check: impl Fn(&FileIndex, usize),
) -> Vec<usize> {
    let depths = [4_000, 10_000];
    assert_linear(
        language,
        path,
        MAX_ENTRY_BYTES_PER_INPUT_BYTE,
        &depths,
        source,
        check,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_follow_each_language() {
        let m = |l, p| module_path(l, p).join("::");
        assert_eq!(
            m(Language::Rust, "zurdo/src/verify/http.rs"),
            "verify::http"
        );
        assert_eq!(m(Language::Rust, "src/lib.rs"), "");
        assert_eq!(m(Language::Rust, "src/a/mod.rs"), "a");
        assert_eq!(m(Language::Rust, "tests/api.rs"), "tests::api");
        assert_eq!(m(Language::Python, "src/pkg/mod.py"), "pkg::mod");
        assert_eq!(m(Language::Python, "pkg/__init__.py"), "pkg");
        assert_eq!(
            m(Language::TypeScript, "src/util/strings.ts"),
            "util::strings"
        );
        assert_eq!(m(Language::Tsx, "app/index.tsx"), "app");
        assert_eq!(Language::of("a/b.jsx"), Some(Language::JavaScript));
        assert_eq!(Language::of("a/b.txt"), None);
    }

    #[test]
    fn every_grammar_loads_and_garbage_never_panics() {
        for (language, path) in [
            (Language::Rust, "a.rs"),
            (Language::Python, "a.py"),
            (Language::Go, "a.go"),
            (Language::TypeScript, "a.ts"),
            (Language::Tsx, "a.tsx"),
            (Language::JavaScript, "a.js"),
        ] {
            let f = index_file(language, path, b"}}}} fn ( class <<< \xff\xfe");
            assert!(f.syntax_errors, "{path}");
            assert_eq!(f.language, language.name());
        }
    }
}
