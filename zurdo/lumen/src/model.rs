//! What Lumen records per file: definitions (qualified with `::` in every
//! language) and references (calls included), each with its line.

use serde::{Deserialize, Serialize};

/// A kind of definition. Hints resolve the first eight; `Variant`, `Field`,
/// `Macro` and `Alias` are recorded for `zurdo lumen query` only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A free function (Rust `fn` outside an impl, Python/Go/JS top-level or nested function).
    Function,
    /// A function inside an impl, trait, class or with a Go receiver.
    Method,
    /// A Rust struct or union, a Python/TS/JS class, a Go struct type.
    Class,
    /// A Rust or TypeScript enum.
    Enum,
    /// A Rust trait, a TypeScript or Go interface.
    Interface,
    /// A named type that is not one of the above: Rust/TS `type X = …`, Go `type X int`.
    Type,
    /// A Rust `const`/`static`, a Go `const`/package `var`, a JS/TS top-level `const`,
    /// a Python module-level assignment to an UPPER_CASE name.
    Constant,
    /// A Rust `mod`, a Python module or package (its file), a Go package, a TS `namespace`/`module`.
    Module,
    /// An enum variant (query only).
    Variant,
    /// A struct field or class property (query only).
    Field,
    /// A Rust `macro_rules!` (query only).
    Macro,
    /// A re-export or import alias: `pub use a::b as c`, `import x as y`, `export { a as b }` (query only).
    Alias,
}

impl Kind {
    /// Every kind, in documentation order.
    pub const ALL: [Kind; 12] = [
        Kind::Function,
        Kind::Method,
        Kind::Class,
        Kind::Enum,
        Kind::Interface,
        Kind::Type,
        Kind::Constant,
        Kind::Module,
        Kind::Variant,
        Kind::Field,
        Kind::Macro,
        Kind::Alias,
    ];

    /// The name used in output and the index.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Enum => "enum",
            Kind::Interface => "interface",
            Kind::Type => "type",
            Kind::Constant => "constant",
            Kind::Module => "module",
            Kind::Variant => "variant",
            Kind::Field => "field",
            Kind::Macro => "macro",
            Kind::Alias => "alias",
        }
    }

    /// True for the kinds `[symbol:]`, `[references:]` and `[callers:]` resolve.
    pub fn hint_target(self) -> bool {
        !matches!(
            self,
            Kind::Variant | Kind::Field | Kind::Macro | Kind::Alias
        )
    }

    /// True for kinds that can call (and so be a caller).
    pub fn callable(self) -> bool {
        matches!(self, Kind::Function | Kind::Method)
    }
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    /// The qualified name's segments, outermost first: the module path
    /// derived from the file's path, then enclosing modules, types and
    /// functions, then the name (`["config", "Config", "load"]`).
    pub path: Vec<String>,
    /// Its kind.
    pub kind: Kind,
    /// 1-based line of the name.
    pub line: u32,
    /// For an alias: the path it names, as written (`["crate", "a", "b"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<String>,
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    /// The name as written, split into segments: `Config::load` →
    /// `["Config", "load"]`, `config.load()` on a module → `["config",
    /// "load"]`, a method call on a value `x.load()` → `["load"]` with
    /// `member` set.
    pub path: Vec<String>,
    /// True for `value.name` / `value.name()`, where the receiver's type is
    /// not known syntactically.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub member: bool,
    /// True when the use is a call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub call: bool,
    /// 1-based line.
    pub line: u32,
    /// The qualified path of the innermost function or method the use is
    /// in (empty at top level).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caller: Vec<String>,
}

/// Everything one file defines and uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIndex {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// The language adapter that read it (`rust`, `python`, `go`, `typescript`, `tsx`, `javascript`).
    pub language: String,
    /// SHA-256 of the bytes, hex: an unchanged file is not parsed again.
    pub hash: String,
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
    /// Uses in source order.
    pub references: Vec<Reference>,
    /// Set when tree-sitter reported syntax errors (the rest is still indexed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub syntax_errors: bool,
}

impl FileIndex {
    /// The kind of the definition whose `::` path is `path`, if any.
    pub fn kind_of(&self, path: &str) -> Option<Kind> {
        self.symbols
            .iter()
            .find(|s| s.path.join("::") == path)
            .map(|s| s.kind)
    }

    /// The references written exactly as `path` (`::`-joined).
    pub fn references_to(&self, path: &str) -> Vec<&Reference> {
        self.references
            .iter()
            .filter(|r| r.path.join("::") == path)
            .collect()
    }
}
