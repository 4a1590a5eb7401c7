//! The Python adapter: one `.py`/`.pyi` file's syntax tree → definitions
//! and references.
//!
//! Definitions (each qualified by the file's module path, then the enclosing
//! classes and functions):
//!
//! * The file itself → [`Kind::Module`] with path = the module path, line 1
//!   (only when the module path is non-empty).
//! * `function_definition` (decorated or not) directly in a class body →
//!   [`Kind::Method`]; anywhere else → [`Kind::Function`] (a nested `def` is
//!   qualified by its enclosing function: `outer::inner`).
//! * `class_definition` → [`Kind::Class`] (enums are classes too).
//! * An assignment to an UPPER_CASE name (`MAX = 3`, `MAX: int = 3`,
//!   `A = B = 1`, `A, B = 1, 2`) outside every class and function →
//!   [`Kind::Constant`].
//! * An assignment to a plain name in a class body (`x: int = 0`, `x = 0`,
//!   `x: int`) → [`Kind::Field`] (`Class::x`).
//! * `import a.b as c` → [`Kind::Alias`] `c`, target `["a", "b"]`;
//!   `from a import b as c` → `c`, target `["a", "b"]`; `from a import b` →
//!   `b`, target `["a", "b"]` (so `__init__` re-exports are recorded). A
//!   relative module keeps its dots as the first segment (`from ..x import
//!   y` → `["..", "x", "y"]`). Plain `import a.b`, star imports and
//!   `__future__` imports record nothing.
//! * A `type X = …` statement → [`Kind::Type`].
//!
//! References (each with the innermost enclosing function or method as its
//! caller):
//!
//! * Calls: `foo()` → `["foo"]`; `a.b.f()` on a chain of names → `["a",
//!   "b", "f"]`, member (a module and a value cannot be told apart);
//!   `self.m()` / `cls.m()` → `["m"]`, member; a call on any other
//!   expression (`x().f()`, `self.a.f()`) → `["f"]`, member.
//! * Names in base-class lists (`class A(Base)`, keyword values like
//!   `metaclass=M` included), decorators (a bare `@name` / `@a.name` counts
//!   as a call, since applying it calls it) and annotations (parameter,
//!   return and variable types) → the name or dotted chain.
//!
//! Not recorded: other plain identifiers (locals cannot be told from other
//! names syntactically), attribute reads, string annotations, `self.x = …`
//! attributes, `global`/`nonlocal`, and every definition's own name.
//!
//! The walk uses an explicit stack, so nesting depth is bounded only by
//! memory.

use super::Extracted;
use crate::model::{Kind, Reference, Symbol};
use tree_sitter::{Node, Tree};

/// Extracts definitions and references from a parsed Python file; `module`
/// is the file's module path (see [`super::module_path`]).
pub fn extract(tree: &Tree, source: &[u8], module: &[String]) -> Extracted {
    let mut walker = Walker {
        source,
        module,
        frames: Vec::new(),
        out: Extracted::default(),
    };
    if !module.is_empty() {
        walker.out.symbols.push(Symbol {
            path: module.to_vec(),
            kind: Kind::Module,
            line: 1,
            target: Vec::new(),
        });
    }
    walker.run(tree.root_node());
    walker.out
}

/// What kind of scope a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// A class body: functions in it are methods, names assigned are fields.
    Class,
    /// A function: its path is the caller of the uses inside it.
    Function,
}

/// One enclosing scope.
#[derive(Debug)]
struct Frame {
    /// The segment it adds to qualified names.
    name: Option<String>,
    scope: Scope,
}

/// One step of the walk.
enum Work<'t> {
    /// Handle a node; `names` is set where bare names and dotted chains are
    /// uses (annotations, base classes).
    Visit(Node<'t>, bool),
    /// Record a reference computed earlier (keeps source order).
    Emit(Reference),
    /// Leave the innermost frame.
    Leave,
}

struct Walker<'s> {
    source: &'s [u8],
    module: &'s [String],
    frames: Vec<Frame>,
    out: Extracted,
}

impl<'s> Walker<'s> {
    fn run<'t>(&mut self, root: Node<'t>) {
        let mut stack: Vec<Work<'t>> = vec![Work::Visit(root, false)];
        while let Some(work) = stack.pop() {
            match work {
                Work::Visit(node, names) => self.visit(node, names, &mut stack),
                Work::Emit(reference) => self.out.references.push(reference),
                Work::Leave => {
                    self.frames.pop();
                }
            }
        }
    }

    fn visit<'t>(&mut self, node: Node<'t>, names: bool, stack: &mut Vec<Work<'t>>) {
        match node.kind() {
            "function_definition" | "class_definition" => {
                let (kind, scope) = match node.kind() {
                    "class_definition" => (Kind::Class, Scope::Class),
                    _ if self.innermost() == Some(Scope::Class) => (Kind::Method, Scope::Function),
                    _ => (Kind::Function, Scope::Function),
                };
                let name_node = node.child_by_field_name("name");
                let name = name_node.map(|n| self.text(n)).filter(|n| !n.is_empty());
                if let (Some(name), Some(at)) = (&name, name_node) {
                    self.define(name.clone(), kind, at, Vec::new());
                }
                self.frames.push(Frame { name, scope });
                stack.push(Work::Leave);
                let bases = node.child_by_field_name("superclasses");
                let mut cursor = node.walk();
                let children: Vec<Node<'t>> = node
                    .named_children(&mut cursor)
                    .filter(|c| Some(c.id()) != name_node.map(|n| n.id()))
                    .collect();
                stack.extend(children.into_iter().rev().map(|c| {
                    let is_bases = Some(c.id()) == bases.map(|b| b.id());
                    Work::Visit(c, is_bases)
                }));
            }
            "decorator" => {
                let Some(expression) = node.named_child(0) else {
                    return;
                };
                match expression.kind() {
                    "identifier" | "attribute" => match self.chain(expression) {
                        Some(chain) => {
                            let member = chain.len() > 1;
                            self.emit(chain, member, true, expression);
                        }
                        None => stack.push(Work::Visit(expression, true)),
                    },
                    _ => stack.push(Work::Visit(expression, true)),
                }
            }
            "type" => push_children(stack, node, true, &[]),
            "assignment" => self.assignment(node, names, stack),
            "import_statement" => {
                for item in named_children(node) {
                    if item.kind() == "aliased_import" {
                        self.aliased(&[], item);
                    }
                }
            }
            "import_from_statement" => self.import_from(node),
            "type_alias_statement" => {
                let mut cursor = node.walk();
                let parts: Vec<Node<'t>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "type")
                    .collect();
                if let Some(name) = parts.first().and_then(|t| self.alias_name(*t)) {
                    let text = self.text(name);
                    self.define(text, Kind::Type, name, Vec::new());
                }
                stack.extend(
                    parts
                        .into_iter()
                        .skip(1)
                        .rev()
                        .map(|t| Work::Visit(t, true)),
                );
            }
            "call" => self.call(node, stack),
            "identifier" if names => {
                let name = self.text(node);
                if !matches!(name.as_str(), "self" | "cls") {
                    self.emit(vec![name], false, false, node);
                }
            }
            "attribute" if names => match self.chain(node) {
                Some(chain) if !matches!(chain[0].as_str(), "self" | "cls") => {
                    self.emit(chain, true, false, node);
                }
                Some(_) => {}
                None => {
                    if let Some(object) = node.child_by_field_name("object") {
                        stack.push(Work::Visit(object, true));
                    }
                }
            },
            "keyword_argument" | "default_parameter" | "typed_default_parameter" => {
                let skip: Vec<Node<'t>> = node.child_by_field_name("name").into_iter().collect();
                push_children(stack, node, names, &skip);
            }
            "future_import_statement" | "comment" | "global_statement" | "nonlocal_statement" => {}
            _ => push_children(stack, node, names, &[]),
        }
    }

    /// `target = value`, `target: T = value`: constants at module level,
    /// fields in a class body; the annotation and the value are walked.
    fn assignment<'t>(&mut self, node: Node<'t>, names: bool, stack: &mut Vec<Work<'t>>) {
        let left = node.child_by_field_name("left");
        let kind = match self.innermost() {
            None => Some(Kind::Constant),
            Some(Scope::Class) => Some(Kind::Field),
            Some(Scope::Function) => None,
        };
        if let (Some(kind), Some(left)) = (kind, left) {
            let targets: Vec<Node<'t>> = match left.kind() {
                "identifier" => vec![left],
                "pattern_list" | "tuple_pattern" | "list_pattern" => named_children(left)
                    .into_iter()
                    .filter(|c| c.kind() == "identifier")
                    .collect(),
                _ => Vec::new(),
            };
            for target in targets {
                let name = self.text(target);
                if kind == Kind::Field || is_constant_name(&name) {
                    self.define(name, kind, target, Vec::new());
                }
            }
        }
        if let Some(right) = node.child_by_field_name("right") {
            stack.push(Work::Visit(right, names));
        }
        if let Some(annotation) = node.child_by_field_name("type") {
            stack.push(Work::Visit(annotation, true));
        }
        // Targets hold no uses by name, but `a[f()] = …` holds a call.
        if let Some(left) = left.filter(|l| l.kind() != "identifier") {
            stack.push(Work::Visit(left, false));
        }
    }

    /// A call: the callee is recorded as a call reference; a receiver that
    /// is not a chain of names and the arguments are walked.
    fn call<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        if let Some(arguments) = node.child_by_field_name("arguments") {
            stack.push(Work::Visit(arguments, false));
        }
        let Some(callee) = node.child_by_field_name("function") else {
            return;
        };
        match callee.kind() {
            "identifier" => {
                let name = self.text(callee);
                self.emit(vec![name], false, true, callee);
            }
            "attribute" => {
                let Some(attribute) = callee.child_by_field_name("attribute") else {
                    stack.push(Work::Visit(callee, false));
                    return;
                };
                let path = match self.chain(callee) {
                    Some(chain) if matches!(chain[0].as_str(), "self" | "cls") => {
                        vec![self.text(attribute)]
                    }
                    Some(chain) => chain,
                    None => {
                        let name = self.text(attribute);
                        if let Some(reference) = self.reference(vec![name], true, true, attribute) {
                            stack.push(Work::Emit(reference));
                        }
                        if let Some(object) = callee.child_by_field_name("object") {
                            stack.push(Work::Visit(object, false));
                        }
                        return;
                    }
                };
                self.emit(path, true, true, attribute);
            }
            _ => stack.push(Work::Visit(callee, false)),
        }
    }

    /// `from m import a, b as c`.
    fn import_from(&mut self, node: Node<'_>) {
        let Some(module) = node.child_by_field_name("module_name") else {
            return;
        };
        let mut prefix = Vec::new();
        if module.kind() == "relative_import" {
            for part in named_children(module) {
                match part.kind() {
                    "import_prefix" => prefix.push(self.text(part)),
                    "dotted_name" => prefix.extend(self.dotted(part)),
                    _ => {}
                }
            }
        } else {
            prefix.extend(self.dotted(module));
        }
        let mut cursor = node.walk();
        let items: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for item in items {
            match item.kind() {
                "aliased_import" => self.aliased(&prefix, item),
                "dotted_name" => {
                    let mut target = prefix.clone();
                    target.extend(self.dotted(item));
                    if let Some(name) = target.last().cloned() {
                        self.define(name, Kind::Alias, item, target);
                    }
                }
                _ => {}
            }
        }
    }

    /// `a.b as c` after `import` or `from prefix import`.
    fn aliased(&mut self, prefix: &[String], item: Node<'_>) {
        let (Some(name), Some(alias)) = (
            item.child_by_field_name("name"),
            item.child_by_field_name("alias"),
        ) else {
            return;
        };
        let mut target = prefix.to_vec();
        target.extend(self.dotted(name));
        let alias_name = self.text(alias);
        self.define(alias_name, Kind::Alias, alias, target);
    }

    /// The name node of `type X[T] = …`'s left side.
    fn alias_name<'t>(&self, ty: Node<'t>) -> Option<Node<'t>> {
        let inner = ty.named_child(0)?;
        match inner.kind() {
            "identifier" => Some(inner),
            "generic_type" => inner.named_child(0).filter(|n| n.kind() == "identifier"),
            _ => None,
        }
    }

    /// A `dotted_name`'s identifiers.
    fn dotted(&self, node: Node<'_>) -> Vec<String> {
        named_children(node)
            .into_iter()
            .filter(|c| c.kind() == "identifier")
            .map(|c| self.text(c))
            .collect()
    }

    /// `a.b.c` as `["a", "b", "c"]` when every part is a plain name.
    fn chain(&self, node: Node<'_>) -> Option<Vec<String>> {
        let mut segments = Vec::new();
        let mut current = node;
        loop {
            match current.kind() {
                "attribute" => {
                    segments.push(self.text(current.child_by_field_name("attribute")?));
                    current = current.child_by_field_name("object")?;
                }
                "identifier" => {
                    segments.push(self.text(current));
                    segments.reverse();
                    return Some(segments);
                }
                _ => return None,
            }
        }
    }

    fn innermost(&self) -> Option<Scope> {
        self.frames.last().map(|f| f.scope)
    }

    /// The path of the innermost enclosing function (empty at top level).
    fn caller(&self) -> Vec<String> {
        let Some(last) = self.frames.iter().rposition(|f| f.scope == Scope::Function) else {
            return Vec::new();
        };
        let mut path = self.module.to_vec();
        path.extend(self.frames[..=last].iter().filter_map(|f| f.name.clone()));
        path
    }

    fn define(&mut self, name: String, kind: Kind, at: Node<'_>, target: Vec<String>) {
        if name.is_empty() {
            return;
        }
        let mut path = self.module.to_vec();
        path.extend(self.frames.iter().filter_map(|f| f.name.clone()));
        path.push(name);
        self.out.symbols.push(Symbol {
            path,
            kind,
            line: line(at),
            target,
        });
    }

    fn emit(&mut self, segments: Vec<String>, member: bool, call: bool, at: Node<'_>) {
        if let Some(reference) = self.reference(segments, member, call, at) {
            self.out.references.push(reference);
        }
    }

    fn reference(
        &self,
        segments: Vec<String>,
        member: bool,
        call: bool,
        at: Node<'_>,
    ) -> Option<Reference> {
        if segments.is_empty() || segments.iter().any(|s| s.is_empty()) {
            return None;
        }
        Some(Reference {
            path: segments,
            member,
            call,
            line: line(at),
            caller: self.caller(),
        })
    }

    /// A node's text, lossily decoded.
    fn text(&self, node: Node<'_>) -> String {
        let bytes = self.source.get(node.byte_range()).unwrap_or_default();
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// UPPER_CASE: letters, digits and underscores, at least one uppercase
/// letter and no lowercase one.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_uppercase)
        && !name.chars().any(char::is_lowercase)
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The 1-based line a node starts on.
fn line(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Schedules `node`'s named children, in source order, except `skip`.
fn push_children<'t>(stack: &mut Vec<Work<'t>>, node: Node<'t>, names: bool, skip: &[Node<'t>]) {
    let children: Vec<Node<'t>> = named_children(node)
        .into_iter()
        .filter(|c| !skip.iter().any(|s| s.id() == c.id()))
        .collect();
    stack.extend(children.into_iter().rev().map(|c| Work::Visit(c, names)));
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Reference};

    const STORE: &str = r#"from .util import helper as h
from . import sibling
from ..base import Base
import os.path as p
import sys

MAX = 3
LIMIT: int = 10
lower = 1
A = B = 2


class Store(Base, metaclass=Meta):
    x: int = 0
    label = "s"

    def get(self) -> Item:
        return helper()

    @staticmethod
    def make(): ...

    def save(self, path: os.PathLike):
        self.get()
        p.join(path, "x")
        make_store().get()
        self.cache.clear()


def outer():
    def inner():
        pass
    inner()


if __name__ == "__main__":
    outer()
"#;

    fn index(path: &str, source: &str) -> FileIndex {
        index_file(Language::Python, path, source.as_bytes())
    }

    fn kind_of(file: &FileIndex, path: &str) -> Option<Kind> {
        file.symbols
            .iter()
            .find(|s| s.path.join("::") == path)
            .map(|s| s.kind)
    }

    fn refs<'a>(file: &'a FileIndex, path: &str) -> Vec<&'a Reference> {
        file.references
            .iter()
            .filter(|r| r.path.join("::") == path)
            .collect()
    }

    #[test]
    fn definitions_are_qualified_and_kinded() {
        let f = index("pkg/store.py", STORE);
        assert!(!f.syntax_errors);
        for (path, kind) in [
            ("pkg::store", Kind::Module),
            ("pkg::store::MAX", Kind::Constant),
            ("pkg::store::LIMIT", Kind::Constant),
            ("pkg::store::A", Kind::Constant),
            ("pkg::store::B", Kind::Constant),
            ("pkg::store::Store", Kind::Class),
            ("pkg::store::Store::x", Kind::Field),
            ("pkg::store::Store::label", Kind::Field),
            ("pkg::store::Store::get", Kind::Method),
            ("pkg::store::Store::make", Kind::Method),
            ("pkg::store::Store::save", Kind::Method),
            ("pkg::store::outer", Kind::Function),
            ("pkg::store::outer::inner", Kind::Function),
            ("pkg::store::h", Kind::Alias),
            ("pkg::store::sibling", Kind::Alias),
            ("pkg::store::Base", Kind::Alias),
            ("pkg::store::p", Kind::Alias),
        ] {
            assert_eq!(kind_of(&f, path), Some(kind), "{path}: {:?}", f.symbols);
        }
        let module = f.symbols.iter().find(|s| s.kind == Kind::Module);
        assert_eq!(module.map(|s| s.line), Some(1));
        let make = f
            .symbols
            .iter()
            .find(|s| s.path.join("::") == "pkg::store::Store::make");
        assert_eq!(
            make.map(|s| s.line),
            Some(21),
            "the def line, not the decorator's"
        );
        for (alias, target) in [
            ("pkg::store::h", ".::util::helper"),
            ("pkg::store::sibling", ".::sibling"),
            ("pkg::store::Base", "..::base::Base"),
            ("pkg::store::p", "os::path"),
        ] {
            let s = f.symbols.iter().find(|s| s.path.join("::") == alias);
            assert_eq!(
                s.map(|s| s.target.join("::")),
                Some(target.to_string()),
                "{alias}"
            );
        }
        assert_eq!(kind_of(&f, "pkg::store::lower"), None, "not UPPER_CASE");
        assert_eq!(kind_of(&f, "pkg::store::sys"), None, "a plain import");
        assert_eq!(kind_of(&f, "pkg::store::inner"), None);
    }

    #[test]
    fn calls_carry_their_caller() {
        let f = index("pkg/store.py", STORE);
        let helper = refs(&f, "helper");
        assert_eq!(helper.len(), 1, "{:?}", f.references);
        assert!(helper[0].call && !helper[0].member);
        assert_eq!(helper[0].caller.join("::"), "pkg::store::Store::get");
        assert_eq!(helper[0].line, 18);
        let inner = refs(&f, "inner");
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].caller.join("::"), "pkg::store::outer");
        let outer = refs(&f, "outer");
        assert!(outer.len() == 1 && outer[0].call && outer[0].caller.is_empty());
        // self.get() → ["get"], member; p.join() → ["p", "join"], member;
        // make_store().get() → make_store and ["get"]; self.cache.clear() → ["clear"].
        let get = refs(&f, "get");
        assert_eq!(get.len(), 2, "{get:?}");
        assert!(get
            .iter()
            .all(|r| r.call && r.member && r.caller.join("::") == "pkg::store::Store::save"));
        assert!(refs(&f, "p::join").iter().any(|r| r.call && r.member));
        assert!(refs(&f, "make_store").iter().any(|r| r.call && !r.member));
        assert!(refs(&f, "clear").iter().any(|r| r.call && r.member));
        assert!(refs(&f, "self::get").is_empty() && refs(&f, "cache::clear").is_empty());
        // Source order: make_store() before its .get().
        let pos = |p: &str, line: u32| {
            f.references
                .iter()
                .position(|r| r.path.join("::") == p && r.line == line)
        };
        assert!(pos("make_store", 26) < pos("get", 26));
    }

    #[test]
    fn bases_decorators_and_annotations_are_uses() {
        let f = index("pkg/store.py", STORE);
        let base = refs(&f, "Base");
        assert!(
            base.len() == 1 && !base[0].call && base[0].caller.is_empty(),
            "{base:?}"
        );
        assert_eq!(refs(&f, "Meta").len(), 1, "a keyword value in the bases");
        assert!(refs(&f, "metaclass").is_empty(), "a keyword is not a use");
        let decorator = refs(&f, "staticmethod");
        assert!(decorator.len() == 1 && decorator[0].call && decorator[0].caller.is_empty());
        assert_eq!(refs(&f, "Item").len(), 1, "return annotation");
        assert_eq!(refs(&f, "int").len(), 2, "variable annotations");
        assert!(refs(&f, "os::PathLike").iter().any(|r| r.member && !r.call));
        // Definitions' own names and plain names are not uses.
        assert!(refs(&f, "Store").is_empty());
        assert!(refs(&f, "path").is_empty() && refs(&f, "self").is_empty());
        assert!(refs(&f, "MAX").is_empty() && refs(&f, "x").is_empty());
    }

    #[test]
    fn nested_classes_decorated_classes_and_type_aliases() {
        let src = "@dataclass\nclass Outer:\n    class Inner:\n        def m(self):\n            @app.route('/x')\n            def view(): return render()\n\ntype Vec2 = tuple[float, float]\nclass Color(Enum):\n    RED = 1\n";
        let f = index("src/app/__init__.py", src);
        assert_eq!(kind_of(&f, "app"), Some(Kind::Module));
        assert_eq!(kind_of(&f, "app::Outer::Inner"), Some(Kind::Class));
        assert_eq!(kind_of(&f, "app::Outer::Inner::m"), Some(Kind::Method));
        assert_eq!(
            kind_of(&f, "app::Outer::Inner::m::view"),
            Some(Kind::Function)
        );
        assert_eq!(kind_of(&f, "app::Vec2"), Some(Kind::Type));
        assert_eq!(kind_of(&f, "app::Color"), Some(Kind::Class));
        assert_eq!(kind_of(&f, "app::Color::RED"), Some(Kind::Field));
        assert!(refs(&f, "dataclass").iter().any(|r| r.call));
        let route = refs(&f, "app::route");
        assert!(route.len() == 1 && route[0].call && route[0].member);
        assert_eq!(route[0].caller.join("::"), "app::Outer::Inner::m");
        let render = refs(&f, "render");
        assert_eq!(render[0].caller.join("::"), "app::Outer::Inner::m::view");
        assert!(refs(&f, "float").len() == 2 && refs(&f, "Enum").len() == 1);
        // An empty module path (a top-level __init__.py) has no module symbol.
        let top = index("__init__.py", "X = 1\n");
        assert!(top.symbols.iter().all(|s| s.kind != Kind::Module));
        assert_eq!(kind_of(&top, "X"), Some(Kind::Constant));
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed: u32 = 11;
        for round in 0..50 {
            let bytes: Vec<u8> = (0..400 + round * 10)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let alphabet = b"def class import from as @ .:=()[],\n    xY_1\"'\xff";
                    alphabet[(seed >> 16) as usize % alphabet.len()]
                })
                .collect();
            let _ = index_file(Language::Python, "g.py", &bytes);
        }
        let f = index("g.py", "class (:\n  def ):\nfrom . import\nimport as\n@\n");
        assert!(f.syntax_errors);
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 10_000;
        let src = format!(
            "def f():\n    return {}1{}\n",
            "g(".repeat(depth),
            ")".repeat(depth)
        );
        let f = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || index("deep.py", &src))
            .map(|h| h.join());
        let f = match f {
            Ok(Ok(f)) => f,
            _ => panic!("indexing a deep file failed"),
        };
        assert_eq!(refs(&f, "g").len(), depth);
        assert!(refs(&f, "g").iter().all(|r| r.caller == ["deep", "f"]));
    }
}
