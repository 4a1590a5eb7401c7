//! What Lumen records per file: definitions (qualified with `::` in every
//! language) and references (calls included), each with its line.

use std::collections::HashMap;

use serde::{Deserialize, Serialize, Serializer};

pub use crate::qualified::QualifiedPath;

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
    /// functions, then the name (`["config", "Config", "load"]`). It shares
    /// its prefix with the enclosing scopes' definitions.
    pub path: QualifiedPath,
    /// Its kind.
    pub kind: Kind,
    /// 1-based line of the name.
    pub line: u32,
    /// For an alias: the path it names, as written (`["crate", "a", "b"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<String>,
    /// For a class, interface or struct: what it extends, as written
    /// (`class A(B, m.C)` → `[["B"], ["m", "C"]]`, a Go struct's embedded
    /// types). A member not found on the type is looked up on these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<Vec<String>>,
    /// For a function or method: the type it returns, as written (`Self`,
    /// `Config`; `Option<T>`, `Result<T, E>`, `*T`, `Promise<T>` → `T`);
    /// for a field: its declared type. Empty when not written or not a
    /// plain type name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returns: Vec<String>,
    /// For a TypeScript function, method or constructor: each parameter's
    /// declared type, and when it is a function type, its parameters'
    /// (what a callback passed there receives). For a Rust method of a
    /// trait impl that takes `self`: one parameter of type `Self` (what
    /// `Trait::m(x, …)` dispatches on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// For a method of a Rust trait impl (`impl fmt::Display for T`): the
    /// trait, as written, generics stripped (`["fmt", "Display"]`). Two
    /// impls of different traits may define a method of one name; this
    /// tells them apart.
    #[serde(default, rename = "trait", skip_serializing_if = "Vec::is_empty")]
    pub of_trait: Vec<String>,
    /// For a function that returns a tuple (a Rust `-> (A, B)`, also inside
    /// `Option`/`Result`): each element's type as written (empty: not a
    /// plain type name). What `let (a, b) = f()` binds `a` and `b` to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tuple: Vec<Vec<String>>,
}

/// A parameter's declared type (see [`Symbol::params`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The type, as a path (empty: not a plain type name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ty: Vec<String>,
    /// For a function type: its parameters' types, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callback: Vec<Vec<String>>,
}

impl Symbol {
    /// A definition at `line` with no target, bases or type.
    pub fn new(path: QualifiedPath, kind: Kind, line: u32) -> Symbol {
        Symbol {
            path,
            kind,
            line,
            target: Vec::new(),
            bases: Vec::new(),
            returns: Vec::new(),
            params: Vec::new(),
            of_trait: Vec::new(),
            tuple: Vec::new(),
        }
    }

    /// True for a Rust trait impl's method that takes `self` (see
    /// [`Symbol::params`]).
    pub fn takes_self(&self) -> bool {
        self.params.first().is_some_and(|p| p.ty == ["Self"])
    }
}

/// A name a file binds by importing it (`import os`, `use a::b::C;`,
/// `import { a } from './x'`, `const x = require('./x')`, a Go import),
/// or a glob import (`from m import *`, `use m::*`, `export * from './m'`).
/// Imports are bindings, not definitions: they resolve the names a file
/// uses and are not listed as definitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The name bound (empty for a glob).
    pub name: String,
    /// What it names, as written: `["os", "path"]`, `["crate", "a", "C"]`,
    /// `["./x", "a"]` (a JavaScript module specifier is one segment), a Go
    /// import path's segments.
    pub target: Vec<String>,
    /// 1-based line.
    pub line: u32,
    /// The scope it is bound in: the file's module path, or the function
    /// it is imported in.
    pub scope: QualifiedPath,
    /// A glob: every name of the target module is bound.
    pub glob: bool,
    /// Re-exported: the names it binds are the module's own too (`pub use
    /// m::*`, `export * from`).
    pub public: bool,
}

/// What the value before a member use is (`x` in `x.load()`), as far as
/// syntax tells: the receiver's declared or constructed type in the same
/// scope, `self`/`this`, `super`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Receiver {
    /// Not a member use on a value: the reference's path is written from a
    /// name (`config.load`, `Config::load`, `helper`). A member use with a
    /// one-segment path and no receiver is on a value of unknown type.
    #[default]
    None,
    /// `self`, `this`, `cls`: an instance of the enclosing class, by its
    /// qualified path (a Rust impl's type).
    This(QualifiedPath),
    /// `super()`, `super`: the bases of the enclosing class.
    Super(QualifiedPath),
    /// A value of the type written (`x: Config`, `new Config()`, `&Config{}`).
    Type(Vec<String>),
    /// The value a call of the path written returns (`x = make()`, `let x
    /// = Config::new()`): an instance when the path is a class, else what
    /// the function's return type says.
    Call(Vec<String>),
    /// A value of unknown type (a local, a parameter with no annotation, a
    /// call's result: `x.a.m()`, `f().m()`).
    Unknown,
    /// What calling member chains in turn on a value returns
    /// (`builder.build().unwrap()` → `builder`'s value, then `["build"]`).
    Chain(Box<Receiver>, Vec<Vec<String>>),
    /// A parameter of a callback passed as argument `arg` to the function
    /// (or constructor) the path names: what that function's declared
    /// parameter type gives its `param`th parameter (`new
    /// Observable((subscriber) => …)`).
    Param(Vec<String>, u32, u32),
    /// The element at this position of the tuple the inner value is (`a`
    /// and `b` in `let (a, b) = f()?`: elements 0 and 1 of what `f`
    /// returns).
    Element(Box<Receiver>, u32),
    /// Not a member chain: the reference's path is a trait method written
    /// from its trait (`Display::fmt`, `fmt::Display::fmt`), and this is
    /// the value it dispatches on. With `explicit` false, the call's first
    /// argument (`Display::fmt(self, f)`: `self`), which only a method
    /// taking `self` receives; with `explicit` true, the type written in
    /// `<T as Trait>::m(…)`.
    Dispatch {
        /// The value (or type) dispatched on.
        on: Box<Receiver>,
        /// True for `<T as Trait>::m`: `on` is the type written.
        explicit: bool,
    },
}

impl Receiver {
    /// True for [`Receiver::None`].
    pub fn is_none(&self) -> bool {
        *self == Receiver::None
    }

    /// This receiver when an index entry can hold it, else
    /// [`Receiver::Unknown`]: an entry holds a base receiver, then at most
    /// one tuple [`Receiver::Element`] of it, then at most one
    /// [`Receiver::Chain`] of calls on that, then at most one element of
    /// what that returns, then at most one [`Receiver::Dispatch`] on the
    /// whole. Adapters store receivers
    /// through this, so that an entry read back equals the one written.
    pub fn storable(self) -> Receiver {
        if wire::Flat::of(&self).is_some() {
            self
        } else {
            Receiver::Unknown
        }
    }
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reference {
    /// The name as written, split into segments: `Config::load` →
    /// `["Config", "load"]`, `config.load()` on a module → `["config",
    /// "load"]`, a method call on a value `x.load()` → `["load"]` with
    /// `member` set.
    pub path: Vec<String>,
    /// True for a member use, `value.name` / `value.name()` or
    /// `module.name`: the last segment is looked up on what comes before
    /// it (the rest of the path, or the [`Receiver`]).
    pub member: bool,
    /// True when the use is a call.
    pub call: bool,
    /// 1-based line.
    pub line: u32,
    /// The qualified path of the innermost function or method the use is
    /// in (empty at top level): the same path as that function's
    /// definition, shared, not copied.
    pub caller: QualifiedPath,
    /// For a member use on a value: what the value is. Its `path` is then
    /// the chain of members read from it (`self.cache.clear()` → `["cache",
    /// "clear"]` on `This`), not a name.
    pub receiver: Receiver,
}

/// Everything one file defines and uses.
///
/// As an index entry (JSON), each qualified path is stored once, in
/// `scopes`: a list of `[parent, "segment"]` pairs, where `parent` is the
/// 1-based position of the path it extends in that list (0: none). A
/// definition's `path` and a reference's `caller` are positions in it (a
/// caller of 0, the top level, is left out). Nested definitions and their
/// callers share their enclosing scopes, so an entry grows linearly with
/// nesting depth, not with its square. An entry whose positions do not
/// point backwards into the list is rejected (and the file parsed again).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "wire::File")]
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
    /// What imports name this file by: its module path (a Rust file's
    /// starts with its crate's name; a Go file's is its directory).
    #[serde(default)]
    pub module: Vec<String>,
    /// The names it imports, in source order.
    pub imports: Vec<Import>,
}

impl Serialize for FileIndex {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut scopes = wire::Scopes::default();
        let symbols: Vec<wire::SymbolOut<'_>> = self
            .symbols
            .iter()
            .map(|s| wire::SymbolOut {
                path: scopes.id(&s.path),
                kind: s.kind,
                line: s.line,
                target: &s.target,
                bases: &s.bases,
                returns: &s.returns,
                params: &s.params,
                of_trait: &s.of_trait,
                tuple: &s.tuple,
            })
            .collect();
        let references: Vec<wire::ReferenceOut<'_>> = self
            .references
            .iter()
            .map(|r| {
                // A receiver an entry cannot hold is written as unknown
                // (adapters store only ones it can: `Receiver::storable`).
                let flat = wire::Flat::of(&r.receiver).unwrap_or(wire::Flat::UNKNOWN);
                let base = flat.base;
                let (cb, cba, cbp) = match base {
                    Receiver::Param(callee, a, p) => (callee.as_slice(), *a, *p),
                    _ => (&[][..], 0, 0),
                };
                let (this, sup, ty, of) = match base {
                    Receiver::This(p) => (scopes.id(p), 0, &[][..], &[][..]),
                    Receiver::Super(p) => (0, scopes.id(p), &[][..], &[][..]),
                    Receiver::Type(t) => (0, 0, t.as_slice(), &[][..]),
                    Receiver::Call(c) => (0, 0, &[][..], c.as_slice()),
                    _ => (0, 0, &[][..], &[][..]),
                };
                wire::ReferenceOut {
                    path: &r.path,
                    member: r.member,
                    call: r.call,
                    line: r.line,
                    caller: scopes.id(&r.caller),
                    this,
                    sup,
                    ty,
                    of,
                    val: *base == Receiver::Unknown,
                    via: flat.via,
                    cb,
                    cba,
                    cbp,
                    el: flat.el,
                    vel: flat.vel,
                    dx: flat.dx,
                }
            })
            .collect();
        let imports: Vec<wire::ImportOut<'_>> = self
            .imports
            .iter()
            .map(|i| wire::ImportOut {
                name: &i.name,
                target: &i.target,
                line: i.line,
                scope: scopes.id(&i.scope),
                glob: i.glob,
                public: i.public,
            })
            .collect();
        wire::FileOut {
            path: &self.path,
            language: &self.language,
            hash: &self.hash,
            module: &self.module,
            scopes: &scopes.list,
            symbols,
            references,
            imports,
            syntax_errors: self.syntax_errors,
        }
        .serialize(serializer)
    }
}

/// An index entry as written and read: qualified paths as positions in a
/// table of scopes (see [`FileIndex`]).
mod wire {
    use super::*;

    /// Numbers the distinct paths an entry uses, parents first.
    #[derive(Default)]
    pub(super) struct Scopes<'a> {
        /// Each path's position by the address of its last link.
        ids: HashMap<*const String, u32>,
        /// `[parent, segment]`, in order.
        pub(super) list: Vec<(u32, &'a str)>,
    }

    impl<'a> Scopes<'a> {
        /// The position of `path` (0 for the empty path), adding it and
        /// the prefixes not numbered yet.
        pub(super) fn id(&mut self, path: &'a QualifiedPath) -> u32 {
            // Walk up to the first numbered prefix, then number the rest
            // outermost first; every link is visited once per entry.
            let mut pending: Vec<&'a String> = Vec::new();
            let mut parent = 0;
            for segment in path.rev() {
                if let Some(&id) = self.ids.get(&std::ptr::from_ref(segment)) {
                    parent = id;
                    break;
                }
                pending.push(segment);
            }
            for segment in pending.into_iter().rev() {
                self.list.push((parent, segment.as_str()));
                parent = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
                self.ids.insert(std::ptr::from_ref(segment), parent);
            }
            parent
        }
    }

    fn is_zero(n: &u32) -> bool {
        *n == 0
    }

    fn is_zero_u8(n: &u8) -> bool {
        *n == 0
    }

    /// A receiver as an entry holds it: a base receiver (not a chain, an
    /// element or a dispatch), the tuple element of it (`el`, 1-based; 0:
    /// none), the calls chained on that (`via`), the tuple element of what
    /// they return (`vel`, likewise), and whether the whole is what a
    /// trait-qualified call dispatches on (`dx`: 0 no, 1 its first
    /// argument, 2 the type of `<T as Trait>`).
    pub(super) struct Flat<'r> {
        pub(super) base: &'r Receiver,
        pub(super) el: u32,
        pub(super) via: &'r [Vec<String>],
        pub(super) vel: u32,
        pub(super) dx: u8,
    }

    impl<'r> Flat<'r> {
        /// [`Receiver::Unknown`], flat.
        pub(super) const UNKNOWN: Flat<'static> = Flat {
            base: &Receiver::Unknown,
            el: 0,
            via: &[],
            vel: 0,
            dx: 0,
        };

        /// `r` flattened, when an entry can hold it.
        pub(super) fn of(r: &'r Receiver) -> Option<Flat<'r>> {
            let (r, dx) = match r {
                Receiver::Dispatch { on, explicit } => (&**on, if *explicit { 2 } else { 1 }),
                other => (other, 0),
            };
            let element = |r: &'r Receiver| -> Option<(&'r Receiver, u32)> {
                Some(match r {
                    Receiver::Element(base, n) => (&**base, n.checked_add(1)?),
                    other => (other, 0),
                })
            };
            let (r, vel) = element(r)?;
            let (r, via): (&Receiver, &[Vec<String>]) = match r {
                Receiver::Chain(base, via) if !via.is_empty() => (&**base, via.as_slice()),
                other => (other, &[]),
            };
            let (r, el) = element(r)?;
            match r {
                Receiver::Chain(..) | Receiver::Element(..) | Receiver::Dispatch { .. } => None,
                base => Some(Flat {
                    base,
                    el,
                    via,
                    vel,
                    dx,
                }),
            }
        }
    }

    fn not(b: &bool) -> bool {
        !*b
    }

    #[derive(Serialize)]
    pub(super) struct FileOut<'a> {
        pub(super) path: &'a str,
        pub(super) language: &'a str,
        pub(super) hash: &'a str,
        pub(super) module: &'a [String],
        pub(super) scopes: &'a [(u32, &'a str)],
        pub(super) symbols: Vec<SymbolOut<'a>>,
        pub(super) references: Vec<ReferenceOut<'a>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub(super) imports: Vec<ImportOut<'a>>,
        #[serde(skip_serializing_if = "not")]
        pub(super) syntax_errors: bool,
    }

    #[derive(Serialize)]
    pub(super) struct SymbolOut<'a> {
        pub(super) path: u32,
        pub(super) kind: Kind,
        pub(super) line: u32,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        pub(super) target: &'a [String],
        #[serde(skip_serializing_if = "<[Vec<String>]>::is_empty")]
        pub(super) bases: &'a [Vec<String>],
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        pub(super) returns: &'a [String],
        #[serde(skip_serializing_if = "<[Param]>::is_empty")]
        pub(super) params: &'a [Param],
        #[serde(rename = "trait", skip_serializing_if = "<[String]>::is_empty")]
        pub(super) of_trait: &'a [String],
        #[serde(skip_serializing_if = "<[Vec<String>]>::is_empty")]
        pub(super) tuple: &'a [Vec<String>],
    }

    #[derive(Serialize)]
    pub(super) struct ReferenceOut<'a> {
        pub(super) path: &'a [String],
        #[serde(skip_serializing_if = "not")]
        pub(super) member: bool,
        #[serde(skip_serializing_if = "not")]
        pub(super) call: bool,
        pub(super) line: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) caller: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) this: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) sup: u32,
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        pub(super) ty: &'a [String],
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        pub(super) of: &'a [String],
        #[serde(skip_serializing_if = "not")]
        pub(super) val: bool,
        #[serde(skip_serializing_if = "<[Vec<String>]>::is_empty")]
        pub(super) via: &'a [Vec<String>],
        #[serde(skip_serializing_if = "<[String]>::is_empty")]
        pub(super) cb: &'a [String],
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) cba: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) cbp: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) el: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) vel: u32,
        #[serde(skip_serializing_if = "is_zero_u8")]
        pub(super) dx: u8,
    }

    #[derive(Serialize)]
    pub(super) struct ImportOut<'a> {
        #[serde(skip_serializing_if = "str::is_empty")]
        pub(super) name: &'a str,
        pub(super) target: &'a [String],
        pub(super) line: u32,
        #[serde(skip_serializing_if = "is_zero")]
        pub(super) scope: u32,
        #[serde(skip_serializing_if = "not")]
        pub(super) glob: bool,
        #[serde(skip_serializing_if = "not")]
        pub(super) public: bool,
    }

    #[derive(Deserialize)]
    pub(super) struct File {
        path: String,
        language: String,
        hash: String,
        #[serde(default)]
        module: Vec<String>,
        scopes: Vec<(u32, String)>,
        symbols: Vec<SymbolIn>,
        references: Vec<ReferenceIn>,
        #[serde(default)]
        imports: Vec<ImportIn>,
        #[serde(default)]
        syntax_errors: bool,
    }

    #[derive(Deserialize)]
    struct SymbolIn {
        path: u32,
        kind: Kind,
        line: u32,
        #[serde(default)]
        target: Vec<String>,
        #[serde(default)]
        bases: Vec<Vec<String>>,
        #[serde(default)]
        returns: Vec<String>,
        #[serde(default)]
        params: Vec<Param>,
        #[serde(default, rename = "trait")]
        of_trait: Vec<String>,
        #[serde(default)]
        tuple: Vec<Vec<String>>,
    }

    #[derive(Deserialize)]
    struct ReferenceIn {
        path: Vec<String>,
        #[serde(default)]
        member: bool,
        #[serde(default)]
        call: bool,
        line: u32,
        #[serde(default)]
        caller: u32,
        #[serde(default)]
        this: u32,
        #[serde(default)]
        sup: u32,
        #[serde(default)]
        ty: Vec<String>,
        #[serde(default)]
        of: Vec<String>,
        #[serde(default)]
        val: bool,
        #[serde(default)]
        via: Vec<Vec<String>>,
        #[serde(default)]
        cb: Vec<String>,
        #[serde(default)]
        cba: u32,
        #[serde(default)]
        cbp: u32,
        #[serde(default)]
        el: u32,
        #[serde(default)]
        vel: u32,
        #[serde(default)]
        dx: u8,
    }

    #[derive(Deserialize)]
    struct ImportIn {
        #[serde(default)]
        name: String,
        target: Vec<String>,
        line: u32,
        #[serde(default)]
        scope: u32,
        #[serde(default)]
        glob: bool,
        #[serde(default)]
        public: bool,
    }

    impl TryFrom<File> for FileIndex {
        type Error = String;

        fn try_from(file: File) -> Result<FileIndex, String> {
            let mut paths = Vec::with_capacity(file.scopes.len() + 1);
            paths.push(QualifiedPath::new());
            for (parent, segment) in file.scopes {
                let path = resolve(&paths, parent)?.child(segment);
                paths.push(path);
            }
            let symbols = file
                .symbols
                .into_iter()
                .map(|s| {
                    Ok(Symbol {
                        path: resolve(&paths, s.path)?.clone(),
                        kind: s.kind,
                        line: s.line,
                        target: s.target,
                        bases: s.bases,
                        returns: s.returns,
                        params: s.params,
                        of_trait: s.of_trait,
                        tuple: s.tuple,
                    })
                })
                .collect::<Result<Vec<Symbol>, String>>()?;
            let references = file
                .references
                .into_iter()
                .map(|r| {
                    let receiver = if r.this != 0 {
                        Receiver::This(resolve(&paths, r.this)?.clone())
                    } else if r.sup != 0 {
                        Receiver::Super(resolve(&paths, r.sup)?.clone())
                    } else if !r.ty.is_empty() {
                        Receiver::Type(r.ty)
                    } else if !r.of.is_empty() {
                        Receiver::Call(r.of)
                    } else if r.val {
                        Receiver::Unknown
                    } else if !r.cb.is_empty() {
                        Receiver::Param(r.cb, r.cba, r.cbp)
                    } else {
                        Receiver::None
                    };
                    let receiver = match r.el.checked_sub(1) {
                        Some(n) => Receiver::Element(Box::new(receiver), n),
                        None => receiver,
                    };
                    let receiver = if r.via.is_empty() {
                        receiver
                    } else {
                        Receiver::Chain(Box::new(receiver), r.via)
                    };
                    let receiver = match r.vel.checked_sub(1) {
                        Some(n) => Receiver::Element(Box::new(receiver), n),
                        None => receiver,
                    };
                    let receiver = match r.dx {
                        0 => receiver,
                        dx => Receiver::Dispatch {
                            on: Box::new(receiver),
                            explicit: dx == 2,
                        },
                    };
                    Ok(Reference {
                        path: r.path,
                        member: r.member,
                        call: r.call,
                        line: r.line,
                        caller: resolve(&paths, r.caller)?.clone(),
                        receiver,
                    })
                })
                .collect::<Result<Vec<Reference>, String>>()?;
            let imports = file
                .imports
                .into_iter()
                .map(|i| {
                    Ok(Import {
                        name: i.name,
                        target: i.target,
                        line: i.line,
                        scope: resolve(&paths, i.scope)?.clone(),
                        glob: i.glob,
                        public: i.public,
                    })
                })
                .collect::<Result<Vec<Import>, String>>()?;
            Ok(FileIndex {
                path: file.path,
                language: file.language,
                hash: file.hash,
                symbols,
                references,
                syntax_errors: file.syntax_errors,
                module: file.module,
                imports,
            })
        }
    }

    /// The path at position `id` among those read so far.
    fn resolve(paths: &[QualifiedPath], id: u32) -> Result<&QualifiedPath, String> {
        usize::try_from(id)
            .ok()
            .and_then(|i| paths.get(i))
            .ok_or_else(|| format!("scope {id} is not among the {} before it", paths.len()))
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{index_file, Language};

    #[test]
    fn an_entry_stores_each_scope_once_and_reads_back_the_same() {
        let src = "function outer() { a(); function mid() { b(); function inner() { c(); } } }\nfunction other() {}\n";
        let file = index_file(Language::JavaScript, "src/deep.js", src.as_bytes());
        let json = serde_json::to_string(&file).unwrap_or_default();
        // Each scope once in the table (the module path is also written
        // out on its own, once).
        let table = json.split("\"symbols\"").next().unwrap_or_default();
        let table = table.split("\"scopes\"").nth(1).unwrap_or_default();
        for segment in ["\"deep\"", "\"outer\"", "\"mid\"", "\"inner\"", "\"other\""] {
            assert_eq!(table.matches(segment).count(), 1, "{segment} in {json}");
        }
        let back: Result<FileIndex, _> = serde_json::from_str(&json);
        assert_eq!(back.ok().as_ref(), Some(&file));
        let c = file.references.iter().find(|r| r.path == ["c"]);
        assert_eq!(
            c.map(|r| r.caller.join("::")).as_deref(),
            Some("deep::outer::mid::inner")
        );
    }

    #[test]
    fn rust_tuple_elements_dispatches_and_traits_read_back_the_same() {
        let src = "use std::fmt::{self, Display};\n\
                   pub struct V;\n\
                   impl Display for V { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) } }\n\
                   fn pair() -> Option<(V, u8)> { None }\n\
                   fn g(v: &V, f: &mut fmt::Formatter) {\n\
                   let (a, b) = pair().unwrap();\n\
                   a.fmt(f);\n\
                   a.x().y();\n\
                   let (c, d) = a.split();\n\
                   c.z();\n\
                   Display::fmt(v, f);\n\
                   <V as Display>::fmt(v, f);\n\
                   }\n";
        let file = index_file(Language::Rust, "src/lib.rs", src.as_bytes());
        let json = serde_json::to_string(&file).unwrap_or_default();
        let back: Result<FileIndex, _> = serde_json::from_str(&json);
        assert_eq!(back.ok().as_ref(), Some(&file), "{json}");
        let fmt = file.symbols.iter().find(|s| s.path.join("::") == "V::fmt");
        assert_eq!(
            fmt.map(|s| (s.of_trait.clone(), s.takes_self())),
            Some((vec!["Display".to_string()], true))
        );
        let pair = file.symbols.iter().find(|s| s.path.join("::") == "pair");
        assert_eq!(
            pair.map(|s| s.tuple.clone()),
            Some(vec![vec!["V".to_string()], Vec::new()])
        );
        let element = Receiver::Element(Box::new(Receiver::Call(vec!["pair".into()])), 0);
        assert!(file
            .references
            .iter()
            .any(|r| r.path == ["fmt"] && r.receiver == element));
        // An element of a chain: `c` in `let (c, d) = a.split()`.
        assert!(file.references.iter().any(|r| r.path == ["z"]
            && r.receiver
                == Receiver::Element(
                    Box::new(Receiver::Chain(
                        Box::new(element.clone()),
                        vec![vec!["split".into()]]
                    )),
                    0
                )));
        // A chain on an element, and both dispatches.
        assert!(file.references.iter().any(|r| r.path == ["y"]
            && r.receiver == Receiver::Chain(Box::new(element.clone()), vec![vec!["x".into()]])));
        let dispatches: Vec<&Receiver> = file
            .references
            .iter()
            .filter(|r| r.path == ["Display", "fmt"])
            .map(|r| &r.receiver)
            .collect();
        assert_eq!(dispatches.len(), 2, "{:?}", file.references);
        assert!(dispatches
            .iter()
            .all(|r| matches!(r, Receiver::Dispatch { .. })));
        // An element of a chain on an element is held; deeper nesting is
        // stored as unknown.
        let chained = Receiver::Element(
            Box::new(Receiver::Chain(
                Box::new(element.clone()),
                vec![vec!["x".into()]],
            )),
            1,
        );
        assert_eq!(chained.clone().storable(), chained);
        let nested = Receiver::Element(
            Box::new(Receiver::Chain(
                Box::new(chained.clone()),
                vec![vec!["y".into()]],
            )),
            0,
        );
        assert_eq!(nested.storable(), Receiver::Unknown);
        assert_eq!(element.clone().storable(), element);
    }

    #[test]
    fn an_entry_whose_scopes_do_not_point_back_is_rejected() {
        let entry = |scopes: &str, symbol: u32, caller: u32| {
            format!(
                r#"{{"path":"a.js","language":"javascript","hash":"h","scopes":{scopes},"symbols":[{{"path":{symbol},"kind":"function","line":1}}],"references":[{{"path":["g"],"call":true,"line":1,"caller":{caller}}}]}}"#
            )
        };
        let read = |json: String| serde_json::from_str::<FileIndex>(&json).ok();
        let good = read(entry(r#"[[0,"a"],[1,"f"]]"#, 2, 2));
        assert_eq!(
            good.map(|f| (
                f.symbols[0].path.join("::"),
                f.references[0].caller.join("::")
            )),
            Some(("a::f".into(), "a::f".into()))
        );
        assert!(
            read(entry(r#"[[0,"a"],[2,"f"]]"#, 2, 2)).is_none(),
            "a parent after it"
        );
        assert!(
            read(entry(r#"[[1,"a"]]"#, 1, 0)).is_none(),
            "its own parent"
        );
        assert!(
            read(entry(r#"[[0,"a"]]"#, 2, 0)).is_none(),
            "a path past the table"
        );
        assert!(
            read(entry(r#"[[0,"a"]]"#, 1, 7)).is_none(),
            "a caller past the table"
        );
        // The format before scopes (paths written out) is not misread.
        let old = r#"{"path":"a.js","language":"javascript","hash":"h","symbols":[{"path":["a","f"],"kind":"function","line":1}],"references":[]}"#;
        assert!(serde_json::from_str::<FileIndex>(old).is_err());
    }
}
