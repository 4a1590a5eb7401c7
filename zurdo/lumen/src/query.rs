//! Answers: the definitions, references and callers of a `::` name, the
//! same for `[symbol:]`, `[references:]`, `[callers:]` and `zurdo lumen
//! query` ([`Index::answer`]).
//!
//! * **Definitions.** A name matches a symbol whose qualified path ends with
//!   the name's segments (`Config::load` matches `config::Config::load`).
//!   A name that matches only an alias (a re-export) resolves to what the
//!   alias names; `Type::member` that the type does not declare resolves to
//!   the member a base declares. Only what an adapter mapped is found;
//!   nothing is guessed.
//! * **References** are resolved by the rules of [`crate::resolve`]: what
//!   each segment of a use names in its file's scopes. A use whose last
//!   segment names the definition is a use of it (a call when the use is a
//!   call); one whose earlier segment names it is a non-call use (`X` in
//!   `X.m()`, `Type::new()`). A member use on a value of unknown type that
//!   could be any of several types' members is *ambiguous*: listed, not
//!   counted.
//! * **Other sites only.** A definition's own line, and a function's uses
//!   of itself (recursion), do not count as references or callers.
//! * **A caller is a definition.** Two functions with one qualified path
//!   in one file (`impl Display for V { fn fmt }` and `impl Debug for V {
//!   fn fmt }`; a Rust function defined twice under different `#[cfg]`s, a
//!   Python function defined in both branches of an `if`) are two callers,
//!   told apart by where each starts. A call in one trait impl's method of
//!   another trait impl's method of that path is not recursion; between
//!   other definitions of one path (alternatives, of which one exists at a
//!   time) it is.

use std::collections::{HashMap, HashSet};

use crate::index::Index;
use crate::model::{FileIndex, Kind, QualifiedPath, Reference, Symbol};
use crate::resolve::{lang_of, Lang, Resolver};

/// A definition found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definition<'a> {
    /// The file.
    pub file: &'a FileIndex,
    /// The symbol.
    pub symbol: &'a Symbol,
}

/// A use found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use<'a> {
    /// The file.
    pub file: &'a FileIndex,
    /// The reference.
    pub reference: &'a Reference,
    /// True when the use calls the definition (`X.m()` calls `m`; it uses
    /// `X` without calling it).
    pub call: bool,
}

/// What Lumen answers about a name: one resolution for the hints and for
/// `zurdo lumen query`.
#[derive(Debug, Clone, Default)]
pub struct Answer<'a> {
    /// The definitions hints resolve (query-only kinds left out; aliases
    /// and inherited members followed).
    pub definitions: Vec<Definition<'a>>,
    /// Definitions of the name of query-only kinds (fields, variants,
    /// macros, aliases).
    pub query_only: Vec<Definition<'a>>,
    /// Uses of the definitions (of the query-only ones when there are no
    /// others), at other sites.
    pub references: Vec<Use<'a>>,
    /// Uses that may be of them but could as well be of another type's
    /// member of that name (a value of unknown type): not counted.
    pub ambiguous: Vec<Use<'a>>,
    /// The distinct functions and methods among `references` that call
    /// them, one call site each (two definitions of one path, like two
    /// trait impls' `fmt`, are two callers).
    pub callers: Vec<Use<'a>>,
}

/// How many aliases a name is followed through (`a` → `b` → `c` …).
const MAX_ALIAS_HOPS: usize = 4;

/// True when `path` ends with `name` at segment boundaries (`Self` in
/// `name` matches any segment). Reads only the last `name.len()` segments.
pub fn ends_with(path: &QualifiedPath, name: &[String]) -> bool {
    !name.is_empty()
        && name.len() <= path.len()
        && path
            .rev()
            .zip(name.iter().rev())
            .all(|(p, n)| p == n || n == "Self")
}

/// The definitions of a name, without its uses: [`Answer`]'s first part.
#[derive(Debug, Clone, Default)]
pub struct Defined<'a> {
    /// As [`Answer::definitions`].
    pub definitions: Vec<Definition<'a>>,
    /// As [`Answer::query_only`].
    pub query_only: Vec<Definition<'a>>,
}

impl Index {
    /// Everything Lumen answers about `name`.
    pub fn answer(&self, name: &[String]) -> Answer<'_> {
        self.answer_for(self.defined(name))
    }

    /// What `name` defines (the hints' definitions and the query-only
    /// ones), without looking for its uses.
    pub fn defined(&self, name: &[String]) -> Defined<'_> {
        let definitions = self.hint_definitions(name);
        let query_only: Vec<Definition<'_>> = self
            .definitions(name)
            .into_iter()
            .filter(|d| !d.symbol.kind.hint_target())
            .collect();
        Defined {
            definitions,
            query_only,
        }
    }

    /// The [`Answer`] for what [`Index::defined`] found: its uses (of the
    /// query-only definitions when there are no others) and callers.
    pub fn answer_for<'a>(&'a self, defined: Defined<'a>) -> Answer<'a> {
        let Defined {
            definitions,
            query_only,
        } = defined;
        let targets: &[Definition<'_>] = if definitions.is_empty() {
            &query_only
        } else {
            &definitions
        };
        let (references, ambiguous) = self.uses(targets);
        let callers = distinct_callers(&references);
        Answer {
            definitions,
            query_only,
            references,
            ambiguous,
            callers,
        }
    }

    /// Every definition matching `name`, of any kind, in path order.
    pub fn definitions(&self, name: &[String]) -> Vec<Definition<'_>> {
        let mut out = Vec::new();
        for file in self.files.values() {
            for symbol in &file.symbols {
                if ends_with(&symbol.path, name) {
                    out.push(Definition { file, symbol });
                }
            }
        }
        out
    }

    /// The definitions of `name` hints may resolve (the query-only kinds
    /// left out). A name that is only a re-export or import alias
    /// (`from .store import Store` in `app/__init__.py` makes `app::Store`)
    /// resolves to what the alias names, when that is defined: the name is
    /// then defined under its public path too. `Type::member` that `Type`
    /// does not declare resolves to what a base of it declares.
    pub fn hint_definitions(&self, name: &[String]) -> Vec<Definition<'_>> {
        let tables = self.tables();
        let resolver = Resolver::new(self, tables);
        let mut names = vec![name.to_vec()];
        for _ in 0..MAX_ALIAS_HOPS {
            let Some(current) = names.pop() else {
                break;
            };
            let all = self.definitions(&current);
            let found: Vec<Definition<'_>> = all
                .iter()
                .copied()
                .filter(|d| d.symbol.kind.hint_target())
                .collect();
            if !found.is_empty() {
                // A name that is some definition's whole path names it
                // alone (a function of a root `index.js` is `f`, which
                // also ends `Command::f`).
                let whole: Vec<Definition<'_>> = found
                    .iter()
                    .copied()
                    .filter(|d| d.symbol.path.len() == current.len())
                    .collect();
                if !whole.is_empty() {
                    return whole;
                }
                return found;
            }
            // An alias whose target resolves.
            let mut through: Vec<Definition<'_>> = Vec::new();
            for d in all.iter().filter(|d| d.symbol.kind == Kind::Alias) {
                for t in resolver.alias(d.file, d.symbol) {
                    if t.symbol.kind.hint_target() && !through.contains(&t) {
                        through.push(t);
                    }
                }
            }
            if !through.is_empty() {
                return through;
            }
            // A member a base declares.
            if let Some((member, owner)) = current.split_last() {
                if !owner.is_empty() {
                    let types = self.hint_definitions(owner);
                    let inherited = resolver.inherited(&types, member);
                    let found: Vec<Definition<'_>> = inherited
                        .into_iter()
                        .filter(|d| d.symbol.kind.hint_target())
                        .collect();
                    if !found.is_empty() {
                        return found;
                    }
                }
            }
            // Else the first alias whose target is a name (written as a
            // path the index may define under a longer one).
            names.extend(
                all.iter()
                    .filter(|d| d.symbol.kind == Kind::Alias)
                    .map(|d| alias_target(&d.symbol.target))
                    .find(|t| !t.is_empty()),
            );
        }
        Vec::new()
    }

    /// Certain uses of any of `targets` at sites other than the definitions
    /// themselves.
    pub fn references(&self, targets: &[Definition<'_>]) -> Vec<Use<'_>> {
        self.uses(targets).0
    }

    /// The distinct functions and methods that call any of `targets`, with
    /// one call site each.
    pub fn callers(&self, targets: &[Definition<'_>]) -> Vec<Use<'_>> {
        distinct_callers(&self.references(targets))
    }

    /// The certain and the ambiguous uses of any of `targets`.
    pub fn uses(&self, targets: &[Definition<'_>]) -> (Vec<Use<'_>>, Vec<Use<'_>>) {
        let mut certain = Vec::new();
        let mut ambiguous = Vec::new();
        if targets.is_empty() {
            return (certain, ambiguous);
        }
        let tables = self.tables();
        let resolver = Resolver::new(self, tables);
        let wanted: HashSet<*const Symbol> = targets
            .iter()
            .map(|t| std::ptr::from_ref(t.symbol))
            .collect();
        let names = self.names_of(targets);
        let mut shared = SharedPaths::default();
        for file in self.files.values() {
            for reference in &file.references {
                if !reference.path.iter().any(|s| names.contains(s.as_str())) {
                    continue;
                }
                let last = reference.path.len() - 1;
                let mut verdict: Option<(bool, bool)> = None;
                for step in resolver.steps(file, reference) {
                    let Some(t) = step
                        .defs
                        .iter()
                        .find(|d| wanted.contains(&std::ptr::from_ref(d.symbol)))
                    else {
                        continue;
                    };
                    if own_site(file, reference, t, &mut shared) {
                        continue;
                    }
                    let call = reference.call && step.index == last;
                    verdict = Some(match verdict {
                        Some((c, was_call)) => (c || step.certain, was_call || call),
                        None => (step.certain, call),
                    });
                }
                if let Some((is_certain, call)) = verdict {
                    let u = Use {
                        file,
                        reference,
                        call,
                    };
                    if is_certain {
                        certain.push(u);
                    } else {
                        ambiguous.push(u);
                    }
                }
            }
        }
        (certain, ambiguous)
    }

    /// The class names `new X()` calls a JavaScript/TypeScript constructor
    /// among `targets` with: its class's, and its subclasses' (which
    /// inherit it unless they declare their own; resolution tells).
    fn constructed_with(&self, targets: &[Definition<'_>]) -> HashSet<String> {
        let mut classes: HashSet<String> = targets
            .iter()
            .filter(|t| lang_of(t.file) == Lang::Script)
            .filter(|t| t.symbol.path.last().is_some_and(|l| l == "constructor"))
            .filter_map(|t| t.symbol.path.parent().last().cloned())
            .collect();
        if classes.is_empty() {
            return classes;
        }
        // Subclasses, a bounded number of levels down.
        for _ in 0..MAX_ALIAS_HOPS {
            let mut more = Vec::new();
            for file in self.files.values() {
                for s in file.symbols.iter().filter(|s| !s.bases.is_empty()) {
                    let Some(name) = s.path.last() else { continue };
                    let extends = s
                        .bases
                        .iter()
                        .any(|b| b.last().is_some_and(|l| classes.contains(l)));
                    if extends && !classes.contains(name) {
                        more.push(name.clone());
                    }
                }
            }
            if more.is_empty() {
                break;
            }
            classes.extend(more);
        }
        classes
    }

    /// The names a use of `targets` may be written with: their own, and
    /// the names imports and aliases give them (`import { a as b }`).
    fn names_of(&self, targets: &[Definition<'_>]) -> HashSet<String> {
        let mut names: HashSet<String> = targets
            .iter()
            .filter_map(|t| t.symbol.path.last().cloned())
            .collect();
        names.extend(self.constructed_with(targets));
        for _ in 0..2 {
            let mut more = Vec::new();
            for file in self.files.values() {
                let aliases = file
                    .symbols
                    .iter()
                    .filter(|s| s.kind == Kind::Alias)
                    .filter_map(|s| Some((s.path.last()?, &s.target)));
                let imports = file.imports.iter().map(|i| (&i.name, &i.target));
                for (name, target) in aliases.chain(imports) {
                    if target.last().is_some_and(|t| names.contains(t)) && !names.contains(name) {
                        more.push(name.clone());
                    }
                }
            }
            if more.is_empty() {
                break;
            }
            names.extend(more);
        }
        names
    }
}

/// A definition's own line, or a function's use of itself (recursion): a
/// use inside a definition of the target's path, unless another definition
/// of that path in the file holds it (see [`SharedPaths`]).
fn own_site<'a>(
    file: &'a FileIndex,
    r: &Reference,
    target: &Definition<'_>,
    shared: &mut SharedPaths<'a>,
) -> bool {
    if !std::ptr::eq(file, target.file) {
        return false;
    }
    if r.line == target.symbol.line {
        return true;
    }
    if !(target.symbol.kind.callable() && r.caller.starts_with_path(&target.symbol.path)) {
        return false;
    }
    match shared.enclosing(file, &target.symbol.path, r.line) {
        Some(holder) if holder.line != target.symbol.line => {
            // Another definition of the path holds the use: a method of
            // another trait's impl is another function; an alternative
            // definition (`#[cfg]`, `if`) stands for this one.
            let of_trait = |s: &Symbol| s.of_trait.last().cloned();
            !(of_trait(holder).is_some()
                && of_trait(target.symbol).is_some()
                && of_trait(holder) != of_trait(target.symbol))
        }
        _ => true,
    }
}

/// The uses that are calls from inside a function, one per distinct caller:
/// a caller is a definition, so two of one path in one file are two.
fn distinct_callers<'a>(uses: &[Use<'a>]) -> Vec<Use<'a>> {
    let mut shared = SharedPaths::default();
    // Hashing a caller reads the digest it keeps, however deep it is.
    let mut seen: HashSet<(&str, &QualifiedPath, u32)> = HashSet::new();
    uses.iter()
        .filter(|u| u.call && !u.reference.caller.is_empty())
        .filter(|u| {
            let r = u.reference;
            let at = shared
                .enclosing(u.file, &r.caller, r.line)
                .map_or(0, |s| s.line);
            seen.insert((u.file.path.as_str(), &r.caller, at))
        })
        .copied()
        .collect()
}

/// The functions and methods of a file that share their qualified path
/// with another (two trait impls' `fmt`s, a function defined in both
/// branches of an `if`): their lines by path, per file, built when a file
/// is first asked about.
#[derive(Default)]
struct SharedPaths<'a> {
    files: HashMap<*const FileIndex, HashMap<&'a QualifiedPath, Vec<&'a Symbol>>>,
}

impl<'a> SharedPaths<'a> {
    /// When `file` defines `path` more than once: the definition a use at
    /// `line` inside that path belongs to (the last starting at or before
    /// it). Else `None`: the path names one definition.
    fn enclosing(
        &mut self,
        file: &'a FileIndex,
        path: &QualifiedPath,
        line: u32,
    ) -> Option<&'a Symbol> {
        let shared = self
            .files
            .entry(std::ptr::from_ref(file))
            .or_insert_with(|| {
                let mut defs: HashMap<&'a QualifiedPath, Vec<&'a Symbol>> = HashMap::new();
                for s in file.symbols.iter().filter(|s| s.kind.callable()) {
                    defs.entry(&s.path).or_default().push(s);
                }
                defs.retain(|_, d| d.len() > 1);
                defs
            });
        shared
            .get(path)?
            .iter()
            .copied()
            .filter(|s| s.line <= line)
            .max_by_key(|s| s.line)
    }
}

/// An alias's target as a name: relative-import dots, module specifiers
/// and `crate`, `self`, `super` segments dropped (`[".", "store", "Store"]`
/// → `store::Store`).
fn alias_target(target: &[String]) -> Vec<String> {
    target
        .iter()
        .filter(|s| {
            !matches!(
                s.as_str(),
                "." | ".." | "crate" | "self" | "super" | "$crate"
            )
        })
        .filter(|s| !s.chars().all(|c| c == '.'))
        .map(|s| match s.rsplit_once('/') {
            Some((_, last)) => last.to_string(),
            None => s.clone(),
        })
        .filter(|s| !s.is_empty() && !s.starts_with('.'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(s: &str) -> Vec<String> {
        s.split("::").map(String::from).collect()
    }

    fn symbol(path: &str, kind: Kind, line: u32) -> Symbol {
        Symbol::new(seg(path).into(), kind, line)
    }

    fn reference(path: &str, member: bool, call: bool, line: u32, caller: &str) -> Reference {
        Reference {
            path: seg(path),
            member,
            call,
            line,
            caller: if caller.is_empty() {
                Vec::new()
            } else {
                seg(caller)
            }
            .into(),
            receiver: crate::model::Receiver::None,
        }
    }

    fn index() -> Index {
        let mut index = Index::default();
        let config = FileIndex {
            path: "src/config.rs".into(),
            language: "rust".into(),
            module: seg("config"),
            symbols: vec![
                symbol("config::Config", Kind::Class, 1),
                symbol("config::Config::load", Kind::Method, 3),
                symbol("config::Config::port", Kind::Field, 2),
                symbol("config::helper", Kind::Function, 9),
                symbol("config::fact", Kind::Function, 12),
            ],
            references: vec![
                reference("helper", false, true, 4, "config::Config::load"),
                reference("fact", false, true, 13, "config::fact"),
            ],
            ..FileIndex::default()
        };
        let main = FileIndex {
            path: "src/main.rs".into(),
            language: "rust".into(),
            symbols: vec![
                symbol("config", Kind::Module, 1),
                symbol("main", Kind::Function, 1),
                symbol("run", Kind::Function, 5),
                symbol("helper", Kind::Function, 20),
            ],
            // `use config::Config;`
            imports: vec![crate::model::Import {
                name: "Config".into(),
                target: seg("config::Config"),
                line: 1,
                scope: QualifiedPath::new(),
                glob: false,
                public: false,
            }],
            references: vec![
                reference("Config::load", false, true, 2, "main"),
                reference("Config::load", false, true, 6, "run"),
                reference("load", true, true, 7, "run"),
                reference("helper", false, true, 8, "run"),
            ],
            ..FileIndex::default()
        };
        index.files.insert(config.path.clone(), config);
        index.files.insert(main.path.clone(), main);
        index
    }

    #[test]
    fn names_resolve_by_suffix_at_segment_boundaries() {
        let i = index();
        assert_eq!(i.definitions(&seg("Config::load")).len(), 1);
        assert_eq!(i.definitions(&seg("config::Config::load")).len(), 1);
        assert!(i.definitions(&seg("fig::Config::load")).is_empty());
        assert!(i.definitions(&seg("Config::save")).is_empty());
        assert_eq!(i.definitions(&seg("Config::port")).len(), 1);
        assert!(
            i.hint_definitions(&seg("Config::port")).is_empty(),
            "fields are for lumen query only"
        );
    }

    #[test]
    fn references_and_distinct_callers() {
        let i = index();
        let load = i.hint_definitions(&seg("Config::load"));
        assert_eq!(i.references(&load).len(), 3, "two paths and a member call");
        let callers: Vec<String> = i
            .callers(&load)
            .iter()
            .map(|u| u.reference.caller.join("::"))
            .collect();
        assert_eq!(callers, ["main", "run"]);
    }

    #[test]
    fn an_unqualified_name_prefers_its_own_file_and_recursion_is_not_a_caller() {
        let i = index();
        let helper = i.hint_definitions(&seg("config::helper"));
        let uses = i.references(&helper);
        assert_eq!(uses.len(), 1, "main.rs defines its own helper");
        assert_eq!(uses[0].file.path, "src/config.rs");
        let fact = i.hint_definitions(&seg("fact"));
        assert!(i.references(&fact).is_empty(), "only recursion");
    }

    #[test]
    fn callers_in_a_deeply_nested_file_take_linear_time() {
        // 10,000 nested functions, each calling `g`: 10,000 distinct
        // callers, the deepest 10,001 segments long.
        let depth = 10_000;
        let mut src = String::new();
        src.extend((0..depth).map(|i| format!("function f{i}(){{g();")));
        src.push_str(&"}".repeat(depth));
        src.push_str("\nfunction g() {}\n");
        let file = crate::adapters::index_file(
            crate::adapters::Language::JavaScript,
            "src/deep.js",
            src.as_bytes(),
        );
        let mut index = Index::default();
        index.files.insert(file.path.clone(), file);
        let started = std::time::Instant::now();
        let g = index.hint_definitions(&seg("deep::g"));
        let callers = index.callers(&g);
        assert_eq!(callers.len(), depth);
        assert_eq!(callers[depth - 1].reference.caller.len(), depth + 1);
        let elapsed = started.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    }
}
