//! Resolution: definitions, references and callers of a `::` name.
//!
//! * **Definitions.** A name matches a symbol whose qualified path ends with
//!   the name's segments (`Config::load` matches `config::Config::load`).
//!   Only what an adapter mapped is found; nothing is guessed.
//! * **References** are matched syntactically, since no type checker runs:
//!   - a reference written as a path (`Config::load`, `helper`) matches when
//!     its segments end the definition's path (`Self` matches any type);
//!   - an unqualified reference is attributed to a definition in its own
//!     file when that file defines the name, and otherwise to every
//!     definition of the name (imports bring names in);
//!   - the object of a member use (`VERSION` in `VERSION.length`) is a use
//!     of that name, under the same own-file rule;
//!   - a member use (`x.load()`, `pkg.Func()`) matches when its qualifier is
//!     the definition's parent (`store.New` → `store::New`), or, when the
//!     receiver is a value whose type is unknown, any method or field of
//!     that name.
//! * **Other sites only.** A definition's own line, and a function's uses
//!   of itself (recursion), do not count as references or callers.

use std::collections::HashSet;

use crate::index::Index;
use crate::model::{FileIndex, Kind, QualifiedPath, Reference, Symbol};

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
}

/// How many aliases a name is followed through (`a` → `b` → `c` …).
const MAX_ALIAS_HOPS: usize = 4;

/// An alias's target as a name: relative-import dots and `crate`, `self`,
/// `super` segments dropped (`[".", "store", "Store"]` → `store::Store`).
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
        .cloned()
        .collect()
}

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

impl Index {
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
    /// then defined under its public path too.
    pub fn hint_definitions(&self, name: &[String]) -> Vec<Definition<'_>> {
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
                return found;
            }
            // Follow the first alias whose target is a name.
            names.extend(
                all.iter()
                    .filter(|d| d.symbol.kind == Kind::Alias)
                    .map(|d| alias_target(&d.symbol.target))
                    .find(|t| !t.is_empty()),
            );
        }
        Vec::new()
    }

    /// Uses of any of `targets` at sites other than the definitions
    /// themselves.
    pub fn references(&self, targets: &[Definition<'_>]) -> Vec<Use<'_>> {
        let mut out = Vec::new();
        for file in self.files.values() {
            for reference in &file.references {
                if targets.iter().any(|t| self.refers(file, reference, t)) {
                    out.push(Use { file, reference });
                }
            }
        }
        out
    }

    /// The distinct functions and methods that call any of `targets`, with
    /// one call site each.
    pub fn callers(&self, targets: &[Definition<'_>]) -> Vec<Use<'_>> {
        // Hashing a caller reads the digest it keeps, however deep it is.
        let mut seen: HashSet<(&str, &QualifiedPath)> = HashSet::new();
        self.references(targets)
            .into_iter()
            .filter(|u| u.reference.call && !u.reference.caller.is_empty())
            .filter(|u| seen.insert((u.file.path.as_str(), &u.reference.caller)))
            .collect()
    }

    fn refers(&self, file: &FileIndex, r: &Reference, target: &Definition<'_>) -> bool {
        let path = &target.symbol.path;
        let (Some(last), Some(written)) = (path.last(), r.path.last()) else {
            return false;
        };
        // Not the definition itself, nor a function's use of itself
        // (recursion). A type used inside its own methods (`new App()` in a
        // factory) is a use like any other.
        if std::ptr::eq(file, target.file)
            && (r.line == target.symbol.line
                || (target.symbol.kind.callable() && r.caller.starts_with_path(path)))
        {
            return false;
        }
        if last != written {
            // `VERSION.length`, `settings.TIMEOUT`: the object of a member
            // use is itself a use of that name.
            return r.member
                && r.path.len() >= 2
                && r.path[0] == *last
                && !matches!(target.symbol.kind, Kind::Method | Kind::Field)
                && self.unqualified(file, last, target);
        }
        if r.member {
            let qualifier = r.path.len().checked_sub(2).map(|i| &r.path[i]);
            let parent = path.rev().nth(1);
            return match qualifier {
                Some(q) if parent == Some(q) => true,
                _ => matches!(target.symbol.kind, Kind::Method | Kind::Field),
            };
        }
        if !ends_with(path, &r.path) {
            return false;
        }
        r.path.len() > 1 || self.unqualified(file, last, target)
    }

    /// An unqualified use of `name` in `file` goes to `file`'s own
    /// definition of it when there is one, else to every definition.
    fn unqualified(&self, file: &FileIndex, name: &str, target: &Definition<'_>) -> bool {
        let local = file
            .symbols
            .iter()
            .any(|s| s.kind.hint_target() && s.path.last().map(String::as_str) == Some(name));
        !local || std::ptr::eq(file, target.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(s: &str) -> Vec<String> {
        s.split("::").map(String::from).collect()
    }

    fn symbol(path: &str, kind: Kind, line: u32) -> Symbol {
        Symbol {
            path: seg(path).into(),
            kind,
            line,
            target: Vec::new(),
        }
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
        }
    }

    fn index() -> Index {
        let mut index = Index::default();
        let config = FileIndex {
            path: "src/config.rs".into(),
            language: "rust".into(),
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
                symbol("main", Kind::Function, 1),
                symbol("run", Kind::Function, 5),
                symbol("helper", Kind::Function, 20),
            ],
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
