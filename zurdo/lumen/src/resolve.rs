//! Name resolution: what a reference written in a file names, by the rules
//! syntax allows (no type checker runs). See `docs/lumen.md`, "References
//! and callers", for the rules in prose.
//!
//! A reference's first segment is looked up in its file's scopes: the
//! definitions and imports of the enclosing functions, then of the module,
//! then what the language adds (a Go package's other files, a Rust crate's
//! name, `crate`/`self`/`super`, glob imports). Each later segment is looked
//! up on what the one before resolved to: in a module, its top-level names,
//! re-exports and submodules; on a type, its members and then its bases'; on
//! a value, its type's members when syntax says what the type is (`self`,
//! `this`, an annotation, a constructor or a function's declared return type
//! in the same scope), else every member of that name in the index, which is
//! an answer only when exactly one type declares it and the name is not a
//! method of the language's built-in types: otherwise the use is ambiguous.
//! A name bound to something outside the index (an import of another
//! package, a builtin) resolves to nothing there: a call through an imported
//! module is never a method call.

use std::collections::{HashMap, HashSet};

use crate::adapters;
use crate::index::Index;
use crate::model::{FileIndex, Kind, QualifiedPath, Receiver, Reference, Symbol};
use crate::query::Definition;

/// How deep alias chains, re-export globs and base classes are followed.
const MAX_DEPTH: usize = 8;

/// Tables over the whole index, built once per index state.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tables {
    /// Files by module key (a module path joined with `::`; a Go file's
    /// directory).
    modules: HashMap<String, Vec<String>>,
    /// Module keys by their last segment (suffix lookups).
    module_last: HashMap<String, Vec<String>>,
    /// Members (methods, fields, variants) by their type's key: `(file,
    /// symbol index)`.
    members: HashMap<String, Vec<(String, usize)>>,
    /// Members by name, for values of unknown type.
    member_names: HashMap<String, Vec<(String, usize)>>,
    /// Other definitions by their parent's path (inline modules'
    /// contents).
    children: HashMap<String, Vec<(String, usize)>>,
    /// The definitions that are neither members nor of a query-only kind,
    /// by their last segment, in path order (names bound nowhere).
    top_names: HashMap<String, Vec<(String, usize)>>,
    /// Rust crate names (the first module segment of a crate's files).
    crates: HashSet<String>,
}

/// The language family of a file, for the rules that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    Go,
    Script,
}

pub(crate) fn lang_of(file: &FileIndex) -> Lang {
    match file.language.as_str() {
        "rust" => Lang::Rust,
        "python" => Lang::Python,
        "go" => Lang::Go,
        _ => Lang::Script,
    }
}

fn is_member(kind: Kind) -> bool {
    matches!(kind, Kind::Method | Kind::Field | Kind::Variant)
}

fn is_type(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Class | Kind::Enum | Kind::Interface | Kind::Type
    )
}

/// The prefix a file's top-level definitions are qualified with: its
/// module path (a Go file's package name).
fn top_len(file: &FileIndex) -> usize {
    match lang_of(file) {
        Lang::Go => 1,
        _ => file.module.len(),
    }
}

/// The key of the type `path` (a type defined or implemented in `file`)
/// under which its members are found: a Rust type by its name (impls may
/// sit in any file of the crate), a Go type by its package directory and
/// name, others by their qualified path.
fn type_key(file: &FileIndex, path: &QualifiedPath) -> String {
    match lang_of(file) {
        Lang::Rust => format!("rust#{}", path.last().map_or("", String::as_str)),
        Lang::Go => format!("go#{}#{}", file.module.join("/"), path.join("::")),
        _ => path.join("::"),
    }
}

/// The key of the module (or namespace) `d` defines: a Go package's
/// directory, else the module's path.
fn module_key(d: &Definition<'_>) -> String {
    match lang_of(d.file) {
        Lang::Go => d.file.module.join("/"),
        _ => d.symbol.path.join("::"),
    }
}

impl Tables {
    pub(crate) fn build(index: &Index) -> Tables {
        let mut t = Tables::default();
        for (path, file) in &index.files {
            let key = match lang_of(file) {
                Lang::Go => file.module.join("/"),
                _ => file.module.join("::"),
            };
            if lang_of(file) == Lang::Rust {
                if let Some(first) = file.module.first() {
                    if adapters::in_crate_src(&file.path) {
                        t.crates.insert(first.clone());
                    }
                }
            }
            if let Some(last) = file.module.last() {
                let keys = t.module_last.entry(last.clone()).or_default();
                if !keys.contains(&key) {
                    keys.push(key.clone());
                }
            }
            t.modules.entry(key).or_default().push(path.clone());
            // Inline modules and namespaces (hashing a path reads the
            // digest it keeps: no walk per symbol, however deep).
            let inline: HashSet<&QualifiedPath> = file
                .symbols
                .iter()
                .filter(|s| s.kind == Kind::Module && s.path.len() > top_len(file))
                .map(|s| &s.path)
                .collect();
            // Types nested in a class are read through it (`self.Inner`,
            // `Outer.Inner`), as its members are.
            let classes: HashSet<&QualifiedPath> = file
                .symbols
                .iter()
                .filter(|s| s.kind == Kind::Class && lang_of(file) != Lang::Rust)
                .map(|s| &s.path)
                .collect();
            for (i, s) in file.symbols.iter().enumerate() {
                if !is_member(s.kind) && s.kind.hint_target() {
                    if let Some(name) = s.path.last() {
                        t.top_names
                            .entry(name.clone())
                            .or_default()
                            .push((path.clone(), i));
                    }
                }
                if is_type(s.kind) && !classes.is_empty() && classes.contains(&s.path.parent()) {
                    t.members
                        .entry(type_key(file, &s.path.parent()))
                        .or_default()
                        .push((path.clone(), i));
                }
                if !is_member(s.kind) {
                    if !inline.is_empty() && inline.contains(&s.path.parent()) {
                        t.children
                            .entry(s.path.parent().join("::"))
                            .or_default()
                            .push((path.clone(), i));
                    }
                    continue;
                }
                let Some(name) = s.path.last() else { continue };
                t.members
                    .entry(type_key(file, &s.path.parent()))
                    .or_default()
                    .push((path.clone(), i));
                t.member_names
                    .entry(name.clone())
                    .or_default()
                    .push((path.clone(), i));
            }
        }
        t
    }
}

/// A type whose members are looked up: its key, and its definitions (for
/// their bases), when the index has them.
#[derive(Debug, Clone)]
struct TypeRef<'a> {
    key: String,
    defs: Vec<Definition<'a>>,
}

impl<'a> TypeRef<'a> {
    /// The type `d` defines, with `d` as its one definition.
    fn of(d: &Definition<'a>) -> TypeRef<'a> {
        TypeRef {
            key: type_key(d.file, &d.symbol.path),
            defs: vec![*d],
        }
    }
}

/// What a name or chain resolves to so far.
#[derive(Debug, Clone)]
enum Value<'a> {
    /// Definitions; `certain` unless they are every member of that name a
    /// value of unknown type might have.
    Named {
        defs: Vec<Definition<'a>>,
        certain: bool,
    },
    /// Rust: the methods of one name of several trait impls of a known type
    /// (`Display::fmt` and `Debug::fmt`), one of which is named; which one
    /// depends on the traits in scope. Ambiguous, but what calling it
    /// returns is known when they all declare the same type.
    Impls(Vec<Definition<'a>>),
    /// A module, by key.
    Module(String),
    /// A value of one of these types.
    Instance(Vec<TypeRef<'a>>),
    /// A value of unknown type.
    Opaque,
    /// Something outside the index (another package, a builtin).
    External,
    /// A name bound nowhere the index can see.
    Unbound,
}

/// One step of a reference's resolution: the segment at `index` named
/// these definitions.
#[derive(Debug, Clone)]
pub(crate) struct Step<'a> {
    pub(crate) index: usize,
    pub(crate) defs: Vec<Definition<'a>>,
    pub(crate) certain: bool,
}

/// A file's symbols by name: their positions.
type NamesOf<'a> = std::rc::Rc<HashMap<&'a str, Vec<usize>>>;

/// Resolves references against an index.
pub(crate) struct Resolver<'a> {
    index: &'a Index,
    tables: &'a Tables,
    /// Each file's symbols by name, built for the files asked about.
    by_name: std::cell::RefCell<HashMap<*const FileIndex, NamesOf<'a>>>,
}

fn def<'a>(file: &'a FileIndex, i: usize) -> Definition<'a> {
    Definition {
        file,
        symbol: &file.symbols[i],
    }
}

/// The file a module-key lookup or a relative import starts from: a Python
/// package's own key for `__init__.py`, else its parent's.
fn python_package(file: &FileIndex) -> Vec<String> {
    let mut package = file.module.clone();
    let is_init = file
        .path
        .rsplit('/')
        .next()
        .is_some_and(|f| f.starts_with("__init__."));
    if !is_init {
        package.pop();
    }
    package
}

/// Normalizes a relative JavaScript/TypeScript module specifier against
/// the importing file's directory: the repository-relative path, without
/// an extension.
fn join_specifier(file: &str, specifier: &str) -> Option<String> {
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for part in specifier.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(index: &'a Index, tables: &'a Tables) -> Resolver<'a> {
        Resolver {
            index,
            tables,
            by_name: Default::default(),
        }
    }

    /// The positions of `file`'s symbols named `name`.
    fn named_in(&self, file: &'a FileIndex, name: &str) -> Vec<usize> {
        let key = std::ptr::from_ref(file);
        let table = self.by_name.borrow().get(&key).cloned();
        let table = match table {
            Some(t) => t,
            None => {
                let mut map: HashMap<&'a str, Vec<usize>> = HashMap::new();
                for (i, s) in file.symbols.iter().enumerate() {
                    if let Some(last) = s.path.last() {
                        map.entry(last.as_str()).or_default().push(i);
                    }
                }
                let t = std::rc::Rc::new(map);
                self.by_name.borrow_mut().insert(key, t.clone());
                t
            }
        };
        table.get(name).cloned().unwrap_or_default()
    }

    fn file(&self, path: &str) -> Option<&'a FileIndex> {
        self.index.files.get(path)
    }

    /// What each segment of `r`, written in `file`, names.
    pub(crate) fn steps(&self, file: &'a FileIndex, r: &Reference) -> Vec<Step<'a>> {
        let mut out = Vec::new();
        let mut value = match (&r.receiver, r.member, r.path.len()) {
            (Receiver::None, true, 1) => self.step(lang_of(file), Value::Opaque, &r.path[0], 0),
            (Receiver::None | Receiver::Dispatch { .. }, _, _) => {
                let head = self.head(file, &r.path[0], &r.caller, 0);
                if matches!(head, Value::Unbound) {
                    // Bound nowhere the index sees (a builtin, a global, a
                    // name an import form Lumen does not read brought in):
                    // any top-level definition of the name, ambiguous.
                    let defs = self.everywhere(&r.path[0]);
                    if !defs.is_empty() {
                        out.push(Step {
                            index: 0,
                            defs,
                            certain: false,
                        });
                    }
                }
                head
            }
            (receiver, _, _) => {
                let on = self.receiver(file, receiver, &r.caller);
                self.step(lang_of(file), on, &r.path[0], 0)
            }
        };
        let last = r.path.len() - 1;
        for (index, segment) in r.path.iter().enumerate() {
            if index > 0 {
                value = self.step(lang_of(file), value, segment, 0);
            }
            if index == last && r.call {
                // Calling a CommonJS module calls its default export.
                if let Value::Module(key) = &value {
                    value = self.namespace(key, "default", 0);
                }
            }
            if let Value::Impls(defs) = &value {
                out.push(Step {
                    index,
                    defs: defs.clone(),
                    certain: false,
                });
            }
            if let Value::Named { defs, certain } = &value {
                out.push(Step {
                    index,
                    defs: defs.clone(),
                    certain: *certain,
                });
                // `new X()` calls X's constructor.
                if index == last && r.call && lang_of(file) == Lang::Script {
                    let classes: Vec<Definition<'a>> = defs
                        .iter()
                        .filter(|d| is_type(d.symbol.kind))
                        .copied()
                        .collect();
                    let constructors = self.inherited(&classes, "constructor");
                    if !constructors.is_empty() {
                        out.push(Step {
                            index,
                            defs: constructors,
                            certain: *certain,
                        });
                    }
                }
            }
        }
        if let Receiver::Dispatch { on, explicit } = &r.receiver {
            out.extend(self.dispatch(file, r, on, *explicit));
        }
        out
    }

    /// A trait-qualified call `Trait::m(x, …)` (or `<T as Trait>::m(…)`)
    /// dispatched on `on`: the method `m` of the impl of a trait named
    /// `Trait` (its last segment) for `on`'s type, which must take `self`
    /// unless the type is written (`explicit`). `on` of a known type: that
    /// impl's method, counted (several such impls: ambiguous); else none.
    fn dispatch(
        &self,
        file: &'a FileIndex,
        r: &Reference,
        on: &Receiver,
        explicit: bool,
    ) -> Option<Step<'a>> {
        let last = r.path.len().checked_sub(1)?;
        let of_trait = r.path.get(last.checked_sub(1)?)?;
        if !r.call {
            return None;
        }
        let value = match (on, explicit) {
            (Receiver::Type(path), true) => self.instance(self.path(file, path, &r.caller), 0),
            _ => self.receiver(file, on, &r.caller),
        };
        let Value::Instance(types) = value else {
            return None;
        };
        let defs: Vec<Definition<'a>> = self
            .members(&types, &r.path[last], 0)
            .into_iter()
            .filter(|d| d.symbol.of_trait.last() == Some(of_trait))
            .filter(|d| explicit || d.symbol.takes_self())
            .collect();
        if defs.is_empty() {
            return None;
        }
        Some(Step {
            index: last,
            certain: defs.len() == 1,
            defs,
        })
    }

    /// The element `n` of the tuple `inner` is: the type at `n` of the
    /// tuple the function a call (`f()`, `x.m()`) names returns.
    fn element(
        &self,
        file: &'a FileIndex,
        inner: &Receiver,
        n: usize,
        caller: &QualifiedPath,
    ) -> Value<'a> {
        let callee = match inner {
            Receiver::Call(path) => self.path(file, path, caller),
            Receiver::Chain(base, calls) => {
                let mut value = self.receiver(file, base, caller);
                for (k, names) in calls.iter().enumerate() {
                    if k > 0 {
                        value = self.returned(value, 0);
                    }
                    for name in names {
                        value = self.step(lang_of(file), value, name, 0);
                    }
                }
                value
            }
            _ => return Value::Opaque,
        };
        let defs = match callee {
            Value::Named {
                defs,
                certain: true,
            } => defs,
            // A value outside the index has none of its members.
            Value::Module(_) | Value::External => return Value::External,
            _ => return Value::Opaque,
        };
        let mut found = defs
            .iter()
            .filter_map(|d| Some((d, d.symbol.tuple.get(n).filter(|t| !t.is_empty())?)));
        match (found.next(), found.next()) {
            (Some((d, ty)), None) => self.typed(*d, ty, 1),
            _ => Value::Opaque,
        }
    }

    /// Every definition named `name` that is not a member or an alias.
    fn everywhere(&self, name: &str) -> Vec<Definition<'a>> {
        self.tables
            .top_names
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|(p, i)| self.file(p).map(|f| def(f, *i)))
            .collect()
    }

    /// The value a receiver describes.
    fn receiver(
        &self,
        file: &'a FileIndex,
        receiver: &Receiver,
        caller: &QualifiedPath,
    ) -> Value<'a> {
        match receiver {
            Receiver::Param(callee, arg, param) => {
                self.callback_param(file, callee, *arg as usize, *param as usize, caller)
            }
            Receiver::Chain(base, calls) => {
                let mut value = self.receiver(file, base, caller);
                for names in calls {
                    for name in names {
                        value = self.step(lang_of(file), value, name, 0);
                    }
                    value = self.returned(value, 0);
                }
                value
            }
            Receiver::Element(inner, n) => self.element(file, inner, *n as usize, caller),
            Receiver::None | Receiver::Unknown | Receiver::Dispatch { .. } => Value::Opaque,
            Receiver::This(class) => Value::Instance(vec![self.type_ref(file, class)]),
            Receiver::Super(class) => {
                let this = self.type_ref(file, class);
                Value::Instance(self.bases(&this, 0))
            }
            // A declared type the index does not define (`string`, `dict`,
            // another package's) has none of the index's members.
            Receiver::Type(path) => match self.path(file, path, caller) {
                Value::Unbound => Value::External,
                value => self.instance(value, 0),
            },
            Receiver::Call(path) => self.returned(self.path(file, path, caller), 0),
        }
    }

    /// What a callback passed as argument `arg` to `callee` receives as its
    /// `param`th parameter: the type the function's (a class's
    /// constructor's) declared parameter type gives it.
    fn callback_param(
        &self,
        file: &'a FileIndex,
        callee: &[String],
        arg: usize,
        param: usize,
        caller: &QualifiedPath,
    ) -> Value<'a> {
        let Value::Named {
            defs,
            certain: true,
        } = self.path(file, callee, caller)
        else {
            return Value::Opaque;
        };
        let classes: Vec<Definition<'a>> =
            defs.iter().filter(|d| self.is_class(d)).copied().collect();
        let functions: Vec<Definition<'a>> = if classes.is_empty() {
            defs
        } else {
            self.inherited(&classes, "constructor")
        };
        for f in functions {
            let ty = f
                .symbol
                .params
                .get(arg)
                .and_then(|p| p.callback.get(param))
                .filter(|t| !t.is_empty());
            if let Some(ty) = ty {
                let scope = f.symbol.path.parent();
                return self.instance(self.path(f.file, ty, &scope), 0);
            }
        }
        Value::Opaque
    }

    /// A type defined (or implemented) in `file` at `path`.
    fn type_ref(&self, file: &'a FileIndex, path: &QualifiedPath) -> TypeRef<'a> {
        let defs = file
            .symbols
            .iter()
            .filter(|s| is_type(s.kind) && s.path == *path)
            .map(|symbol| Definition { file, symbol })
            .collect();
        TypeRef {
            key: type_key(file, path),
            defs,
        }
    }

    /// `path` written in `file` (a type annotation, a callee).
    fn path(&self, file: &'a FileIndex, path: &[String], caller: &QualifiedPath) -> Value<'a> {
        let Some(first) = path.first() else {
            return Value::External;
        };
        let mut value = self.head(file, first, caller, 0);
        for segment in &path[1..] {
            value = self.step(lang_of(file), value, segment, 0);
        }
        value
    }

    /// True for a type, or a function with prototype methods (a
    /// JavaScript class written as a constructor function).
    fn is_class(&self, d: &Definition<'a>) -> bool {
        is_type(d.symbol.kind)
            || (d.symbol.kind == Kind::Function
                && self
                    .tables
                    .members
                    .contains_key(&type_key(d.file, &d.symbol.path)))
    }

    /// An instance of what `value` names, when it names types.
    fn instance(&self, value: Value<'a>, depth: usize) -> Value<'a> {
        match value {
            Value::Named {
                defs,
                certain: true,
            } => {
                let types: Vec<TypeRef<'a>> = defs
                    .iter()
                    .filter(|d| self.is_class(d))
                    .map(TypeRef::of)
                    .collect();
                if !types.is_empty() {
                    return Value::Instance(types);
                }
                // `Self` in a Rust impl names the impl's type.
                if depth < MAX_DEPTH {
                    if let Some(d) = defs.first() {
                        if d.symbol.kind == Kind::Field && !d.symbol.returns.is_empty() {
                            return self.declared(*d, depth + 1);
                        }
                    }
                }
                Value::Opaque
            }
            Value::Named { .. } | Value::Impls(_) | Value::Opaque | Value::Unbound => Value::Opaque,
            // A CommonJS module's default export (`new (require('./view'))`).
            Value::Module(key) if depth < MAX_DEPTH => {
                let default = self.namespace(&key, "default", depth + 1);
                match default {
                    Value::Named { .. } => self.instance(default, depth + 1),
                    _ => Value::External,
                }
            }
            Value::Module(_) | Value::External => Value::External,
            Value::Instance(_) => Value::Opaque,
        }
    }

    /// The type a definition's `returns` names (`Self`: its enclosing type).
    fn declared(&self, d: Definition<'a>, depth: usize) -> Value<'a> {
        self.typed(d, &d.symbol.returns, depth)
    }

    /// An instance of the type `ty`, written in the signature of `d`
    /// (`Self`: `d`'s enclosing type).
    fn typed(&self, d: Definition<'a>, ty: &[String], depth: usize) -> Value<'a> {
        if ty.len() == 1 && ty[0] == "Self" {
            let parent = d.symbol.path.parent();
            return Value::Instance(vec![self.type_ref(d.file, &parent)]);
        }
        let caller = d.symbol.path.parent();
        self.instance(self.path(d.file, ty, &caller), depth + 1)
    }

    /// What calling what `value` names returns: an instance of a class, or
    /// the declared return type of a function.
    fn returned(&self, value: Value<'a>, depth: usize) -> Value<'a> {
        match value {
            Value::Named {
                defs,
                certain: true,
            } => {
                if defs.iter().any(|d| self.is_class(d)) {
                    return self.instance(
                        Value::Named {
                            defs,
                            certain: true,
                        },
                        depth,
                    );
                }
                match defs.iter().find(|d| !d.symbol.returns.is_empty()) {
                    Some(d) if depth < MAX_DEPTH => self.declared(*d, depth + 1),
                    _ => Value::Opaque,
                }
            }
            Value::Module(key) if depth < MAX_DEPTH => {
                let default = self.namespace(&key, "default", depth + 1);
                match default {
                    Value::Named { .. } => self.returned(default, depth + 1),
                    _ => Value::External,
                }
            }
            Value::Module(_) | Value::External => Value::External,
            // Whichever impl's method is called, when they all return one
            // type, the value is of that type.
            Value::Impls(defs) if depth < MAX_DEPTH => {
                let mut types: Option<Vec<TypeRef<'a>>> = None;
                for d in &defs {
                    if d.symbol.returns.is_empty() {
                        return Value::Opaque;
                    }
                    let Value::Instance(these) = self.declared(*d, depth + 1) else {
                        return Value::Opaque;
                    };
                    match &types {
                        Some(seen) if !same_types(seen, &these) => return Value::Opaque,
                        Some(_) => {}
                        None => types = Some(these),
                    }
                }
                types.map_or(Value::Opaque, Value::Instance)
            }
            _ => Value::Opaque,
        }
    }

    /// The first segment of a name written in `file` inside `caller`.
    fn head(
        &self,
        file: &'a FileIndex,
        name: &str,
        caller: &QualifiedPath,
        depth: usize,
    ) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::Unbound;
        }
        let top = top_len(file);
        // The innermost enclosing scope that binds the name: a scope is the
        // module (the file's top level) or an enclosing function.
        let visible = |scope: &QualifiedPath| {
            scope.len() == top || (scope.len() > top && caller.starts_with_path(scope))
        };
        let mut best: Option<usize> = None;
        let mut found: Vec<usize> = Vec::new();
        for i in self.named_in(file, name) {
            let s = &file.symbols[i];
            if is_member(s.kind) {
                continue;
            }
            let parent = s.path.parent();
            if !visible(&parent) {
                continue;
            }
            // A Python module's own symbol is not a binding of its name.
            if s.kind == Kind::Module && s.path.len() == top && lang_of(file) == Lang::Python {
                continue;
            }
            // A JavaScript or TypeScript re-export (`exports.a = b`,
            // `module.exports = { a: b }`, `export { b as a }`) binds no
            // name in its file: `a` there is what it was before (the
            // import `exports.a = a` passes on, or nothing).
            if s.kind == Kind::Alias && lang_of(file) == Lang::Script {
                continue;
            }
            match best {
                Some(b) if parent.len() < b => {}
                Some(b) if parent.len() == b => found.push(i),
                _ => {
                    best = Some(parent.len());
                    found = vec![i];
                }
            }
        }
        let import = file
            .imports
            .iter()
            .filter(|i| !i.glob && i.name == name && visible(&i.scope))
            .max_by_key(|i| i.scope.len());
        if let Some(import) = import {
            if best.is_none_or(|b| import.scope.len() > b) {
                return self.target(file, &import.target, depth + 1);
            }
        }
        if !found.is_empty() {
            return self.named(file, found, depth);
        }
        // What the language adds.
        match lang_of(file) {
            Lang::Go => {
                let key = file.module.join("/");
                let defs = self.top_level(&key, name);
                if !defs.is_empty() {
                    return Value::Named {
                        defs,
                        certain: true,
                    };
                }
            }
            Lang::Rust => match name {
                "crate" => {
                    if let Some(first) = file
                        .module
                        .first()
                        .filter(|f| self.tables.crates.contains(*f))
                    {
                        return Value::Module(first.clone());
                    }
                    // No Cargo package known: the root of the source tree.
                    return Value::Module(String::new());
                }
                "self" => return Value::Module(file.module.join("::")),
                "super" => {
                    let mut up = file.module.clone();
                    up.pop();
                    return Value::Module(up.join("::"));
                }
                _ if self.tables.crates.contains(name) => return Value::Module(name.to_string()),
                _ => {}
            },
            _ => {}
        }
        for glob in file.imports.iter().filter(|i| i.glob && visible(&i.scope)) {
            match self.target(file, &glob.target, depth + 1) {
                Value::Module(key) => {
                    let v = self.namespace(&key, name, depth + 1);
                    if !matches!(v, Value::External | Value::Unbound) {
                        return v;
                    }
                }
                // `use Enum::*`: its variants.
                Value::Named {
                    defs,
                    certain: true,
                } => {
                    let found = self.inherited(&defs, name);
                    if !found.is_empty() {
                        return Value::Named {
                            defs: found,
                            certain: true,
                        };
                    }
                }
                _ => {}
            }
        }
        Value::Unbound
    }

    /// The value of the symbols `found` of `file` (aliases followed): the
    /// definitions among them (a name both imported and defined, as in
    /// `if win32: def f(): …` after `from x import f`, is both), else what
    /// the first alias names.
    fn named(&self, file: &'a FileIndex, found: Vec<usize>, depth: usize) -> Value<'a> {
        let mut defs = Vec::new();
        let mut other: Option<Value<'a>> = None;
        for i in found {
            let s = &file.symbols[i];
            match s.kind {
                Kind::Alias => {
                    if s.target.is_empty() {
                        continue;
                    }
                    match self.target(file, &s.target, depth + 1) {
                        Value::Named { defs: more, .. } => defs.extend(more),
                        value => {
                            other.get_or_insert(value);
                        }
                    }
                }
                Kind::Module if lang_of(file) != Lang::Python || s.path.len() != top_len(file) => {
                    other.get_or_insert(Value::Module(module_key(&def(file, i))));
                }
                _ => defs.push(def(file, i)),
            }
        }
        if defs.is_empty() {
            other.unwrap_or(Value::External)
        } else {
            Value::Named {
                defs,
                certain: true,
            }
        }
    }

    /// What an import's or alias's target, written in `file`, names.
    fn target(&self, file: &'a FileIndex, target: &[String], depth: usize) -> Value<'a> {
        if depth > MAX_DEPTH || target.is_empty() {
            return Value::External;
        }
        let (base, rest): (Vec<String>, &[String]) = match lang_of(file) {
            Lang::Python => {
                let first = &target[0];
                if !first.is_empty() && first.chars().all(|c| c == '.') {
                    let mut base = python_package(file);
                    for _ in 1..first.len() {
                        base.pop();
                    }
                    (base, &target[1..])
                } else {
                    (Vec::new(), target)
                }
            }
            Lang::Script => {
                let spec = &target[0];
                if spec.starts_with('.') {
                    let Some(joined) = join_specifier(&file.path, spec) else {
                        return Value::External;
                    };
                    // The specifier names the module; the rest are its
                    // exports (never a longer module path).
                    let key = script_module(&joined).join("::");
                    if !self.tables.modules.contains_key(&key) {
                        return Value::External;
                    }
                    let mut value = Value::Module(key);
                    for segment in &target[1..] {
                        value = self.step(Lang::Script, value, segment, depth + 1);
                    }
                    return value;
                }
                // A name of this file (`export { a as b }`, `module.exports
                // = a`).
                if target.len() == 1 && !spec.contains('/') && !spec.starts_with('@') {
                    let local = self.head(file, spec, &QualifiedPath::new(), depth + 1);
                    if !matches!(local, Value::Unbound) {
                        return local;
                    }
                }
                // A bare specifier: another package, unless the index has
                // a module of that path.
                let module: Vec<String> = spec.split('/').map(str::to_string).collect();
                if self.tables.modules.contains_key(&module.join("::")) {
                    return self.walk_module(Lang::Script, module, &target[1..], false, depth);
                }
                return Value::External;
            }
            Lang::Rust => {
                let mut base: Vec<String> = Vec::new();
                let mut i = 0;
                match target[0].as_str() {
                    "crate" | "$crate" => {
                        if let Some(first) = file
                            .module
                            .first()
                            .filter(|f| self.tables.crates.contains(*f))
                        {
                            base.push(first.clone());
                        }
                        i = 1;
                    }
                    "self" | "super" => {
                        base = file.module.clone();
                        while target.get(i).is_some_and(|s| s == "self" || s == "super") {
                            if target[i] == "super" {
                                base.pop();
                            }
                            i += 1;
                        }
                    }
                    first if self.tables.crates.contains(first) => {}
                    first => {
                        // A name in scope (a `mod` or another import).
                        let value = self.head(file, first, &QualifiedPath::new(), depth + 1);
                        let mut value = match value {
                            Value::Unbound => return Value::External,
                            v => v,
                        };
                        for segment in &target[1..] {
                            value = self.step(lang_of(file), value, segment, depth + 1);
                        }
                        return value;
                    }
                }
                (base, &target[i..])
            }
            Lang::Go => {
                // An import path: the deepest directory it ends with.
                let Some(last) = target.last() else {
                    return Value::External;
                };
                let candidates = self.tables.module_last.get(last);
                let best = candidates.and_then(|keys| {
                    keys.iter()
                        .filter(|k| {
                            let dirs: Vec<&str> = k.split('/').collect();
                            dirs.len() <= target.len()
                                && dirs
                                    .iter()
                                    .rev()
                                    .zip(target.iter().rev())
                                    .all(|(a, b)| a == b)
                        })
                        .max_by_key(|k| k.split('/').count())
                });
                return match best {
                    Some(key) => Value::Module(key.clone()),
                    None => Value::External,
                };
            }
        };
        let mut module = base;
        module.extend(rest.iter().cloned());
        let relative = rest.len() < target.len();
        self.walk_module(
            lang_of(file),
            module,
            &[],
            !relative && lang_of(file) == Lang::Python,
            depth,
        )
    }

    /// The longest prefix of `path` that is a module (for Python absolute
    /// imports, a module whose path ends with it), then the rest looked up
    /// from it, then `more`.
    fn walk_module(
        &self,
        lang: Lang,
        path: Vec<String>,
        more: &[String],
        suffix: bool,
        depth: usize,
    ) -> Value<'a> {
        let mut all = path;
        all.extend(more.iter().cloned());
        for k in (0..=all.len()).rev() {
            let key = all[..k].join("::");
            let module = if self.tables.modules.contains_key(&key) {
                Some(key)
            } else if suffix && k > 0 {
                self.suffix_module(&all[..k])
            } else {
                None
            };
            if let Some(key) = module {
                let mut value = Value::Module(key);
                for segment in &all[k..] {
                    value = self.step(lang, value, segment, depth + 1);
                }
                return value;
            }
        }
        Value::External
    }

    /// A module whose path ends with `segments` (the shortest such path).
    fn suffix_module(&self, segments: &[String]) -> Option<String> {
        let last = segments.last()?;
        let keys = self.tables.module_last.get(last)?;
        let joined = segments.join("::");
        keys.iter()
            .filter(|k| k.as_str() == joined || k.ends_with(&format!("::{joined}")))
            .min_by_key(|k| k.len())
            .cloned()
    }

    /// The top-level definitions named `name` of the module `key`.
    fn top_level(&self, key: &str, name: &str) -> Vec<Definition<'a>> {
        let mut out = Vec::new();
        for path in self.tables.modules.get(key).into_iter().flatten() {
            let Some(file) = self.file(path) else {
                continue;
            };
            let top = top_len(file);
            for (i, s) in file.symbols.iter().enumerate() {
                if s.path.len() == top + 1
                    && s.kind != Kind::Alias
                    && !is_member(s.kind)
                    && s.path.last().map(String::as_str) == Some(name)
                {
                    out.push(def(file, i));
                }
            }
        }
        out
    }

    /// `name` looked up in the module `key`: its top-level definitions,
    /// re-exports and (Python) imports, its public globs, its submodules.
    fn namespace(&self, key: &str, name: &str, depth: usize) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::External;
        }
        let files: Vec<&'a FileIndex> = self
            .tables
            .modules
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|p| self.file(p))
            .collect();
        let mut defs = Vec::new();
        for file in &files {
            let top = top_len(file);
            let found: Vec<usize> = self
                .named_in(file, name)
                .into_iter()
                .filter(|&i| {
                    let s = &file.symbols[i];
                    s.path.len() == top + 1 && !is_member(s.kind)
                })
                .collect();
            if !found.is_empty() {
                match self.named(file, found, depth + 1) {
                    Value::Named { defs: more, .. } => defs.extend(more),
                    other if defs.is_empty() => return other,
                    _ => {}
                }
            }
        }
        if !defs.is_empty() {
            return Value::Named {
                defs,
                certain: true,
            };
        }
        if files.is_empty() {
            // An inline module (`mod a { … }`, a namespace): its members.
            let mut by_file: Vec<(&'a FileIndex, Vec<usize>)> = Vec::new();
            for (p, i) in self.tables.children.get(key).into_iter().flatten() {
                let Some(file) = self.file(p) else { continue };
                if file.symbols[*i].path.last().map(String::as_str) != Some(name) {
                    continue;
                }
                match by_file.iter_mut().find(|(f, _)| std::ptr::eq(*f, file)) {
                    Some((_, indices)) => indices.push(*i),
                    None => by_file.push((file, vec![*i])),
                }
            }
            for (file, indices) in by_file {
                match self.named(file, indices, depth + 1) {
                    Value::Named { defs: more, .. } => defs.extend(more),
                    other if defs.is_empty() => return other,
                    _ => {}
                }
            }
            if !defs.is_empty() {
                return Value::Named {
                    defs,
                    certain: true,
                };
            }
        }
        for file in &files {
            let top = top_len(file);
            let python = lang_of(file) == Lang::Python;
            for import in &file.imports {
                if import.scope.len() != top {
                    continue;
                }
                if !import.glob && python && import.name == name {
                    return self.target(file, &import.target, depth + 1);
                }
                if import.glob && (python || import.public) {
                    if let Value::Module(inner) = self.target(file, &import.target, depth + 1) {
                        if inner != key {
                            let v = self.namespace(&inner, name, depth + 1);
                            if !matches!(v, Value::External) {
                                return v;
                            }
                        }
                    }
                }
            }
        }
        let sub = if key.is_empty() {
            name.to_string()
        } else if files.first().is_some_and(|f| lang_of(f) == Lang::Go) {
            format!("{key}/{name}")
        } else {
            format!("{key}::{name}")
        };
        if self.tables.modules.contains_key(&sub) {
            return Value::Module(sub);
        }
        Value::External
    }

    /// `name` looked up on `value` (the segment after it).
    fn step(&self, language: Lang, value: Value<'a>, name: &str, depth: usize) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::External;
        }
        match value {
            Value::Module(key) => self.namespace(&key, name, depth + 1),
            Value::Named { defs, certain } => {
                if let Some(module) = defs.iter().find(|d| d.symbol.kind == Kind::Module) {
                    return self.namespace(&module_key(module), name, depth + 1);
                }
                let types: Vec<TypeRef<'a>> = defs
                    .iter()
                    .filter(|d| self.is_class(d))
                    .map(TypeRef::of)
                    .collect();
                if !types.is_empty() {
                    let (found, one) = impl_of(language, self.members(&types, name, 0));
                    return if found.is_empty() {
                        Value::External
                    } else if certain && !one {
                        Value::Impls(found)
                    } else {
                        Value::Named {
                            defs: found,
                            certain,
                        }
                    };
                }
                // A value: a field or constant of a declared type, else
                // of unknown type.
                let typed = defs.iter().find(|d| {
                    matches!(d.symbol.kind, Kind::Field | Kind::Constant)
                        && !d.symbol.returns.is_empty()
                });
                let on = match typed {
                    Some(d) if certain => self.declared(*d, depth + 1),
                    _ => Value::Opaque,
                };
                let on = if certain { on } else { Value::Unbound };
                self.step(language, on, name, depth + 1)
            }
            Value::Instance(types) => {
                let (found, one) = impl_of(language, self.members(&types, name, 0));
                if found.is_empty() {
                    Value::External
                } else if one {
                    Value::Named {
                        defs: found,
                        certain: true,
                    }
                } else {
                    Value::Impls(found)
                }
            }
            Value::Impls(defs) => self.step(
                language,
                Value::Named {
                    defs,
                    certain: false,
                },
                name,
                depth + 1,
            ),
            Value::Opaque | Value::Unbound => {
                let candidates: Vec<Definition<'a>> = self
                    .tables
                    .member_names
                    .get(name)
                    .into_iter()
                    .flatten()
                    .filter_map(|(p, i)| self.file(p).map(|f| def(f, *i)))
                    .collect();
                if candidates.is_empty() {
                    return Value::External;
                }
                let owners: HashSet<String> = candidates
                    .iter()
                    .map(|d| type_key(d.file, &d.symbol.path.parent()))
                    .collect();
                let unique = owners.len() == 1
                    && matches!(value, Value::Opaque)
                    && !builtin_member(language, name);
                let (candidates, one) = if unique {
                    impl_of(language, candidates)
                } else {
                    (candidates, true)
                };
                Value::Named {
                    defs: candidates,
                    certain: unique && one,
                }
            }
            Value::External => Value::External,
        }
    }

    /// The members named `name` of `types`, else of their bases.
    fn members(&self, types: &[TypeRef<'a>], name: &str, depth: usize) -> Vec<Definition<'a>> {
        let mut out = Vec::new();
        for t in types {
            for (p, i) in self.tables.members.get(&t.key).into_iter().flatten() {
                if let Some(file) = self.file(p) {
                    if file.symbols[*i].path.last().map(String::as_str) == Some(name) {
                        out.push(def(file, *i));
                    }
                }
            }
        }
        if !out.is_empty() || depth >= MAX_DEPTH {
            return out;
        }
        let mut bases = Vec::new();
        for t in types {
            bases.extend(self.bases(t, depth));
        }
        if bases.is_empty() {
            return out;
        }
        self.members(&bases, name, depth + 1)
    }

    /// The types `t`'s definitions name as bases.
    fn bases(&self, t: &TypeRef<'a>, depth: usize) -> Vec<TypeRef<'a>> {
        let mut out = Vec::new();
        if depth >= MAX_DEPTH {
            return out;
        }
        for d in &t.defs {
            let scope = d.symbol.path.parent();
            for base in &d.symbol.bases {
                if let Value::Named {
                    defs,
                    certain: true,
                } = self.path(d.file, base, &scope)
                {
                    for b in defs.iter().filter(|b| is_type(b.symbol.kind)) {
                        if b.symbol.path != d.symbol.path || !std::ptr::eq(b.file, d.file) {
                            out.push(TypeRef::of(b));
                        }
                    }
                }
            }
        }
        out
    }

    /// The members named `name` of the types `defs` name, their bases' when
    /// they declare none (`[symbol: Flask::add_url_rule]`).
    pub(crate) fn inherited(&self, defs: &[Definition<'a>], name: &str) -> Vec<Definition<'a>> {
        let types: Vec<TypeRef<'a>> = defs
            .iter()
            .filter(|d| is_type(d.symbol.kind))
            .map(TypeRef::of)
            .collect();
        self.members(&types, name, 0)
    }

    /// What an alias symbol of `file` names, when that is in the index.
    pub(crate) fn alias(&self, file: &'a FileIndex, symbol: &Symbol) -> Vec<Definition<'a>> {
        match self.target(file, &symbol.target, 0) {
            Value::Named {
                defs,
                certain: true,
            } => defs,
            _ => Vec::new(),
        }
    }
}

/// True when two lists name the same types (by key).
fn same_types(a: &[TypeRef<'_>], b: &[TypeRef<'_>]) -> bool {
    let keys = |t: &[TypeRef<'_>]| t.iter().map(|t| t.key.clone()).collect::<HashSet<String>>();
    keys(a) == keys(b)
}

/// Rust: which of a type's same-named members `x.m()` or `T::m()` calls.
/// An inherent method (or a field) is found before any trait's; among
/// several trait impls' methods only (`impl Display` and `impl Debug`,
/// each with `fmt`), the one called depends on the traits in scope, which
/// Lumen does not read: ambiguous (`false`). Other languages: all, and
/// `true`.
fn impl_of(lang: Lang, defs: Vec<Definition<'_>>) -> (Vec<Definition<'_>>, bool) {
    if lang != Lang::Rust || defs.len() < 2 {
        return (defs, true);
    }
    let of_trait =
        |d: &Definition<'_>| d.symbol.kind == Kind::Method && !d.symbol.of_trait.is_empty();
    if defs.iter().all(of_trait) {
        return (defs, false);
    }
    if defs.iter().any(of_trait) {
        return (defs.into_iter().filter(|d| !of_trait(d)).collect(), true);
    }
    (defs, true)
}

/// The module path of a JavaScript/TypeScript file at `path` (no
/// extension), as `module_path` makes it.
fn script_module(path: &str) -> Vec<String> {
    let mut path = path.to_string();
    for ext in [
        ".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs", ".json",
    ] {
        if let Some(stem) = path.strip_suffix(ext) {
            path = stem.to_string();
            break;
        }
    }
    crate::adapters::module_path(crate::adapters::Language::TypeScript, &format!("{path}.ts"))
}

/// Methods of a language's built-in types (strings, lists, maps, promises,
/// …): a value of unknown type calling one of these is as likely one of
/// those as a type of the index, so such a use stays ambiguous.
fn builtin_member(lang: Lang, name: &str) -> bool {
    const PYTHON: &[&str] = &[
        "get",
        "items",
        "keys",
        "values",
        "update",
        "pop",
        "popitem",
        "setdefault",
        "append",
        "extend",
        "insert",
        "remove",
        "clear",
        "copy",
        "count",
        "index",
        "sort",
        "reverse",
        "join",
        "split",
        "rsplit",
        "splitlines",
        "strip",
        "lstrip",
        "rstrip",
        "replace",
        "format",
        "startswith",
        "endswith",
        "lower",
        "upper",
        "encode",
        "decode",
        "find",
        "rfind",
        "read",
        "write",
        "readline",
        "readlines",
        "close",
        "flush",
        "seek",
        "tell",
        "add",
        "discard",
        "union",
        "intersection",
        "difference",
        "issubset",
        "group",
        "groups",
        "match",
        "search",
        "sub",
        "fullmatch",
        "title",
        "partition",
        "rpartition",
        "isdigit",
        "isalpha",
        "casefold",
        "__init__",
        "__call__",
        "__enter__",
        "__exit__",
        "__eq__",
        "__hash__",
        "__repr__",
        "__str__",
        "__iter__",
        "__next__",
        "__len__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__contains__",
        "__bool__",
        "__getattr__",
        "__setattr__",
        "send",
        "name",
        "value",
        "args",
        "close",
        "put",
        "start",
        "run",
        "stop",
        "wait",
        "set",
        "cancel",
        "result",
        "exception",
        "done",
        "acquire",
        "release",
        "is_set",
    ];
    const SCRIPT: &[&str] = &[
        "push",
        "pop",
        "shift",
        "unshift",
        "slice",
        "splice",
        "map",
        "filter",
        "reduce",
        "reduceRight",
        "forEach",
        "find",
        "findIndex",
        "some",
        "every",
        "includes",
        "indexOf",
        "lastIndexOf",
        "join",
        "concat",
        "keys",
        "values",
        "entries",
        "get",
        "set",
        "has",
        "delete",
        "clear",
        "add",
        "then",
        "catch",
        "finally",
        "toString",
        "valueOf",
        "call",
        "apply",
        "bind",
        "trim",
        "split",
        "replace",
        "match",
        "test",
        "exec",
        "startsWith",
        "endsWith",
        "toLowerCase",
        "toUpperCase",
        "charAt",
        "charCodeAt",
        "substring",
        "substr",
        "length",
        "size",
        "next",
        "return",
        "throw",
        "emit",
        "on",
        "once",
        "off",
        "write",
        "end",
        "sort",
        "reverse",
        "fill",
        "flat",
        "flatMap",
        "at",
        "padStart",
        "padEnd",
        "repeat",
        "hasOwnProperty",
        "toFixed",
        "toJSON",
        "name",
        "message",
        "stack",
        "constructor",
        "prototype",
        "length",
        "slice",
        "dispatchEvent",
        "addEventListener",
        "removeEventListener",
        "resolve",
        "reject",
        "all",
        "race",
        "now",
        "log",
        "error",
        "warn",
        "info",
        "debug",
    ];
    const RUST: &[&str] = &[
        "new",
        "clone",
        "len",
        "is_empty",
        "push",
        "pop",
        "insert",
        "remove",
        "get",
        "get_mut",
        "iter",
        "iter_mut",
        "into_iter",
        "map",
        "and_then",
        "unwrap",
        "expect",
        "unwrap_or",
        "ok",
        "err",
        "as_ref",
        "as_mut",
        "as_str",
        "to_string",
        "to_owned",
        "into",
        "from",
        "contains",
        "extend",
        "clear",
        "join",
        "split",
        "trim",
        "starts_with",
        "ends_with",
        "find",
        "filter",
        "collect",
        "next",
        "take",
        "skip",
        "any",
        "all",
        "count",
        "first",
        "last",
        "sort",
        "lock",
        "read",
        "write",
        "send",
        "recv",
        "fmt",
        "eq",
        "cmp",
        "hash",
        "default",
        "drop",
        "deref",
        "borrow",
        "with_capacity",
        "entry",
        "keys",
        "values",
        "replace",
        "parse",
        "display",
        "as_bytes",
        "build",
        "finish",
        "flush",
        "close",
        "run",
        "start",
        "stop",
        "set",
        "kind",
        "name",
        "path",
        "with",
        "call",
    ];
    const GO: &[&str] = &[
        "String",
        "Error",
        "Close",
        "Read",
        "Write",
        "Len",
        "Less",
        "Swap",
        "Lock",
        "Unlock",
        "Get",
        "Set",
        "Add",
        "Del",
        "Done",
        "Err",
        "Value",
        "Run",
        "Start",
        "Stop",
        "Wait",
        "Next",
        "Reset",
        "Write",
        "WriteString",
        "Bytes",
        "Flush",
        "Header",
        "Name",
    ];
    let list: &[&str] = match lang {
        Lang::Python => PYTHON,
        Lang::Script => SCRIPT,
        Lang::Rust => RUST,
        Lang::Go => GO,
    };
    list.contains(&name)
}
