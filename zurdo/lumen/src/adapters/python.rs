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
//!   `__future__` imports record nothing. A file's targets hold at most one
//!   segment per byte of it, plus 4,096 (`from a0.….aN import (x0, …, xN)`
//!   would hold N²): past that, an alias is recorded without its target.
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
//! * Names used as values (non-call): an identifier in an expression that
//!   is not a local → `["name"]` (`retries = MAX_RETRIES`, `sorted(xs,
//!   key=helper)`, a default value `def f(n=TIMEOUT)`, attributed to `f`
//!   like the rest of its header); an attribute read `a.b.c` on a chain of
//!   names whose first name is not `self`/`cls` or a local → the whole
//!   chain, member (`settings.TIMEOUT` → `["settings", "TIMEOUT"]`). In a
//!   `case` pattern, a dotted value (`Color.RED`) and a class pattern's
//!   class (`Point(x=…)`) are uses; subscripted targets use their object
//!   and index (`CACHE[k] = v`).
//! * Locals are one set per function, collected before its body is walked:
//!   its parameters and every assignment, augmented-assignment, `for`,
//!   comprehension, walrus, `with … as`, `except … as`, lambda-parameter
//!   and `case` capture target in it, less the names it declares `global`
//!   or `nonlocal`; a nested function also sees its enclosing functions'.
//!   Directly in a class body, the names the class body binds (its
//!   attributes) are locals too.
//!   Names assigned at module level are module variables, not locals, so
//!   reading them anywhere is a use; outside functions only lambda,
//!   comprehension, `for`, `with`, `except` and `case` targets are locals.
//!   `self`, `cls`, `super`, `None`, `True` and `False` are never uses.
//!
//! Not recorded: bindings (targets, parameters, `global`/`nonlocal`,
//! import names), keyword-argument names, locals read, attribute reads on
//! `self`/`cls`, on a local or on a non-name (`f().x`), attribute writes
//! (`obj.x = …`), string annotations, names inside strings other than
//! f-string expressions, and every definition's own name. A name bound only
//! by an import inside a function is not a local (`os.sep` there is still
//! a use).
//!
//! The walk uses an explicit stack, so nesting depth is bounded only by
//! memory.

use std::collections::{HashMap, HashSet};

use super::{line, Extracted};
use crate::model::{Kind, QualifiedPath, Receiver, Reference, Symbol};
use tree_sitter::{Node, Tree};

/// Extracts definitions and references from a parsed Python file; `module`
/// is the file's module path (see [`super::module_path`]).
pub fn extract(tree: &Tree, source: &[u8], module: &[String]) -> Extracted {
    let mut walker = Walker {
        source,
        module: QualifiedPath::from(module),
        frames: Vec::new(),
        function_locals: HashMap::new(),
        module_locals: HashSet::new(),
        module_types: HashMap::new(),
        fields: HashSet::new(),
        scan_this: None,
        out: Extracted::for_source(source),
    };
    let (locals, types) = walker.bindings(tree.root_node(), false);
    walker.module_locals = locals;
    walker.module_types = types;
    if !module.is_empty() {
        walker
            .out
            .symbols
            .push(Symbol::new(walker.module.clone(), Kind::Module, 1));
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
    /// What definitions inside are qualified with: the enclosing scope's
    /// path and this scope's name, if it has one (shared, not copied).
    path: QualifiedPath,
    /// The innermost function at or around this scope (empty outside).
    caller: QualifiedPath,
    /// This scope is a function or is inside one.
    in_function: bool,
    scope: Scope,
    /// The names it binds (see [`Walker::bindings`]): a function's locals, a
    /// class body's attributes.
    locals: HashSet<String>,
    /// What its locals hold, when one annotation or constructor says so
    /// (`None`: assigned values of different or unknown types).
    types: HashMap<String, Option<Receiver>>,
    /// In a method (or a function nested in one): the class `self` and
    /// `cls` are an instance of.
    this: Option<QualifiedPath>,
}

/// How the names under a node are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// An expression: a name, or a chain of names (`a.b`), that is not a
    /// local is a use.
    Value,
    /// An annotation or a base-class list: every name and chain is a use.
    Names,
    /// An assignment, `for`, `with … as`, `except … as` or walrus target,
    /// or a parameter: names there are bound, not used.
    Target,
    /// A `case` pattern: a lone name captures (a binding), a dotted name is
    /// a value compared with, a class pattern's class is a use.
    Case,
}

/// Nodes whose children stay targets inside a target (`a, (b, *c) = …`).
const TARGET_CONTAINERS: &[&str] = &[
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "tuple",
    "list",
    "parenthesized_expression",
    "expression_list",
    "list_splat_pattern",
    "list_splat",
    "dictionary_splat_pattern",
    "as_pattern_target",
    "typed_parameter",
    "parameters",
    "lambda_parameters",
];

/// Names never recorded as uses.
const NOT_USES: &[&str] = &["self", "cls", "super", "None", "True", "False"];

/// One step of the walk.
enum Work<'t> {
    /// Handle a node in a mode.
    Visit(Node<'t>, Mode),
    /// Record a reference computed earlier (keeps source order).
    Emit(Reference),
    /// Leave the innermost frame.
    Leave,
}

struct Walker<'s> {
    source: &'s [u8],
    module: QualifiedPath,
    frames: Vec<Frame>,
    /// How many enclosing function frames bind each name: a use is a local
    /// when its count is positive (kept as frames are entered and left,
    /// so a lookup does not walk the frames).
    function_locals: HashMap<String, usize>,
    /// Outside every function: the names bound by lambda parameters,
    /// comprehension, `for`, `with`, `except` and `case` targets (module
    /// assignments are module variables, so not in it).
    module_locals: HashSet<String>,
    /// What module-level variables hold (see [`Frame::types`]).
    module_types: HashMap<String, Option<Receiver>>,
    /// The fields defined so far (`Class::name`, joined), so that `self.x
    /// = …` in several methods defines `x` once.
    fields: HashSet<String>,
    /// While a method's bindings are scanned: its class (what `self` is).
    scan_this: Option<QualifiedPath>,
    out: Extracted,
}

impl<'s> Walker<'s> {
    fn run<'t>(&mut self, root: Node<'t>) {
        let mut stack: Vec<Work<'t>> = vec![Work::Visit(root, Mode::Value)];
        while let Some(work) = stack.pop() {
            match work {
                Work::Visit(node, mode) => self.visit(node, mode, &mut stack),
                Work::Emit(reference) => self.out.references.push(reference),
                Work::Leave => self.leave(),
            }
        }
    }

    fn visit<'t>(&mut self, node: Node<'t>, mode: Mode, stack: &mut Vec<Work<'t>>) {
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
                    let bases = self.bases(node);
                    if let Some(symbol) = self.out.last_symbol() {
                        symbol.bases = bases;
                    }
                    let returns = node
                        .child_by_field_name("return_type")
                        .and_then(|t| self.annotation(t));
                    if let (Some(returns), Some(symbol)) = (returns, self.out.last_symbol()) {
                        symbol.returns = returns;
                    }
                }
                // `self` in a method (or a function nested in one).
                let this = match (scope, self.frames.last()) {
                    (Scope::Function, Some(f)) if f.scope == Scope::Class => Some(f.path.clone()),
                    (Scope::Function, Some(f)) => f.this.clone(),
                    _ => None,
                };
                self.scan_this = this;
                let (locals, types) = self.bindings(node, true);
                self.scan_this = None;
                self.enter(name, scope, locals, types);
                stack.push(Work::Leave);
                let skip: Vec<Node<'t>> = name_node.into_iter().collect();
                push_children(stack, node, Mode::Value, &skip);
            }
            "decorator" => {
                let Some(expression) = node.named_child(0) else {
                    return;
                };
                match expression.kind() {
                    "identifier" | "attribute" => match self.chain(expression) {
                        // `@bp.route` on a local `bp`: a member of its value.
                        Some(chain) if chain.len() > 1 && self.receiver_of(&chain[0]).is_some() => {
                            let receiver = self.receiver_of(&chain[0]).unwrap_or(Receiver::Unknown);
                            self.emit_on(chain[1..].to_vec(), receiver, true, expression);
                        }
                        Some(chain) => {
                            let member = chain.len() > 1;
                            self.emit(chain, member, true, expression);
                        }
                        None => stack.push(Work::Visit(expression, Mode::Names)),
                    },
                    _ => stack.push(Work::Visit(expression, Mode::Names)),
                }
            }
            "type" => push_children(stack, node, Mode::Names, &[]),
            "assignment" => self.assignment(node, mode, stack),
            "import_statement" => {
                for item in named_children(node) {
                    match item.kind() {
                        "aliased_import" => self.aliased(&[], item),
                        // `import a.b` binds `a`.
                        "dotted_name" => {
                            if let Some(first) = self.dotted(item).into_iter().next() {
                                let scope = self.import_scope();
                                self.out
                                    .import(first.clone(), vec![first], item, scope, false);
                            }
                        }
                        _ => {}
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
                        .map(|t| Work::Visit(t, Mode::Names)),
                );
            }
            "call" => self.call(node, stack),
            "identifier" => {
                let name = self.text(node);
                // In a class body, a name the class defined earlier (`tag =
                // to_json`) is that member.
                if mode == Mode::Value {
                    if let Some(class) = self
                        .frames
                        .last()
                        .filter(|f| f.scope == Scope::Class)
                        .map(|f| f.path.clone())
                    {
                        if self.fields.contains(&class.child(name.clone()).join("::")) {
                            self.emit_on(vec![name], Receiver::This(class), false, node);
                            return;
                        }
                    }
                }
                let used = match mode {
                    Mode::Names => !matches!(name.as_str(), "self" | "cls"),
                    Mode::Value => self.is_value_use(&name),
                    Mode::Target | Mode::Case => false,
                };
                if used {
                    self.emit(vec![name], false, false, node);
                }
            }
            "attribute" => self.attribute(node, mode, stack),
            // In a `case`, `Color.RED` is a value; a lone name captures. A
            // class pattern's class (pushed as `Names`) is a use.
            "dotted_name" => {
                let chain = self.dotted(node);
                let used = match mode {
                    Mode::Names => !chain.is_empty(),
                    Mode::Case => chain.len() > 1,
                    Mode::Value | Mode::Target => false,
                };
                if used {
                    let member = chain.len() > 1;
                    self.emit(chain, member, false, node);
                }
            }
            "future_import_statement" | "comment" | "global_statement" | "nonlocal_statement" => {}
            _ => push_children(stack, node, mode, &[]),
        }
    }

    /// `a.b` outside a call. In an expression, a chain of names whose first
    /// name is not `self`/`cls` or a local is a member use of the whole
    /// chain (`settings.TIMEOUT` → `["settings", "TIMEOUT"]`); in an
    /// annotation or base list, any chain not on `self`/`cls` is; as a
    /// target (`a.b = …`) it is a write, not a use. When the object is not
    /// a chain of names (`f().x`), the object is walked and the attribute
    /// is not recorded.
    fn attribute<'t>(&mut self, node: Node<'t>, mode: Mode, stack: &mut Vec<Work<'t>>) {
        let Some(chain) = self.chain(node) else {
            // Below an attribute that has its name, the object is not a
            // chain of names either and would only walk its own object: go
            // straight down (one pass, however long `f().a.b.c…` is).
            let mut current = node;
            let mut object = node.child_by_field_name("object");
            while let Some(o) = object.filter(|o| {
                o.kind() == "attribute" && current.child_by_field_name("attribute").is_some()
            }) {
                current = o;
                object = o.child_by_field_name("object");
            }
            if let Some(object) = object {
                let inner = if mode == Mode::Names {
                    Mode::Names
                } else {
                    Mode::Value
                };
                stack.push(Work::Visit(object, inner));
            }
            return;
        };
        let root = chain.first().map_or("", String::as_str);
        if mode == Mode::Value {
            if let Some(receiver) = self.receiver_of(root) {
                // `self.x`, `obj.x` on a local: a read of `x` on that value.
                let members = chain[1..].to_vec();
                self.emit_on(members, receiver, false, node);
                return;
            }
        }
        let used = !root.is_empty()
            && match mode {
                Mode::Names => !matches!(root, "self" | "cls"),
                Mode::Value => self.is_value_use(root),
                Mode::Target | Mode::Case => false,
            };
        if used {
            self.emit(chain, true, false, node);
        }
    }

    /// Whether a plain name read in an expression is a use: not `self`,
    /// `cls`, `super`, `None`, `True`, `False`, nor a local of an enclosing
    /// function (outside functions: nor a name in [`Walker::module_locals`]),
    /// nor, directly in a class body, one of the class's own attributes
    /// (methods do not see the class scope).
    fn is_value_use(&self, name: &str) -> bool {
        if name.is_empty() || NOT_USES.contains(&name) {
            return false;
        }
        if self
            .frames
            .last()
            .is_some_and(|f| f.scope == Scope::Class && f.locals.contains(name))
        {
            return false;
        }
        if !self.frames.last().is_some_and(|f| f.in_function) {
            return !self.module_locals.contains(name);
        }
        !self.function_locals.contains_key(name)
    }

    /// Enters a class or function scope named `name` (a nameless one adds
    /// no segment) that binds `locals`.
    fn enter(
        &mut self,
        name: Option<String>,
        scope: Scope,
        locals: HashSet<String>,
        types: HashMap<String, Option<Receiver>>,
    ) {
        let enclosing = self.scope_path();
        let this = match (scope, self.frames.last()) {
            (Scope::Class, _) => None,
            (Scope::Function, Some(f)) if f.scope == Scope::Class => Some(enclosing.clone()),
            (Scope::Function, Some(f)) => f.this.clone(),
            (Scope::Function, None) => None,
        };
        let path = match name {
            Some(name) => enclosing.child(name),
            None => enclosing,
        };
        let caller = match scope {
            Scope::Function => path.clone(),
            Scope::Class => self.caller(),
        };
        if scope == Scope::Function {
            for name in &locals {
                *self.function_locals.entry(name.clone()).or_insert(0) += 1;
            }
        }
        let in_function =
            scope == Scope::Function || self.frames.last().is_some_and(|f| f.in_function);
        self.frames.push(Frame {
            path,
            caller,
            in_function,
            scope,
            locals,
            types,
            this,
        });
    }

    /// Leaves the innermost scope.
    fn leave(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        if frame.scope == Scope::Function {
            for name in frame.locals {
                if let Some(count) = self.function_locals.get_mut(&name) {
                    *count -= 1;
                    if *count == 0 {
                        self.function_locals.remove(&name);
                    }
                }
            }
        }
    }

    /// The names a scope binds, one set per scope (no block scoping). For a
    /// function or a class body (`function` set): its parameters and,
    /// anywhere in its body,
    /// assignment, augmented-assignment, `for`, comprehension, walrus,
    /// `with … as`, `except … as`, lambda-parameter and `case` capture
    /// targets, less the names it declares `global` or `nonlocal`; nested
    /// `def`s and classes are scopes of their own, and imports are not
    /// counted (`os.sep` after a local `import os` is still a use). For the
    /// module (`function` unset): the same outside every function, except
    /// assignment targets, which are module variables and stay uses.
    fn bindings(
        &self,
        scope: Node<'_>,
        function: bool,
    ) -> (HashSet<String>, HashMap<String, Option<Receiver>>) {
        let mut names = HashSet::new();
        let mut types: HashMap<String, Option<Receiver>> = HashMap::new();
        let mut declared = Vec::new();
        let mut stack = vec![(scope, Mode::Value, true)];
        while let Some((node, mode, counted)) = stack.pop() {
            let kind = node.kind();
            // What the names bound here hold: one annotation or constructor.
            if counted {
                self.typed(node, &mut types);
            }
            match kind {
                "identifier" => {
                    if counted && matches!(mode, Mode::Target | Mode::Case) {
                        names.insert(self.text(node));
                    }
                }
                "dotted_name" => {
                    let chain = self.dotted(node);
                    if counted && mode == Mode::Case && chain.len() == 1 {
                        names.extend(chain);
                    }
                }
                "function_definition" if node.id() != scope.id() => {}
                "class_definition" if function && node.id() != scope.id() => {}
                "global_statement" | "nonlocal_statement" => {
                    declared.extend(
                        named_children(node)
                            .into_iter()
                            .filter(|c| c.kind() == "identifier")
                            .map(|c| self.text(c)),
                    );
                }
                _ => {
                    let assigns =
                        !function && matches!(kind, "assignment" | "augmented_assignment");
                    for (child, child_mode, field) in child_modes(node, mode) {
                        let counted = counted && !(assigns && field == Some("left"));
                        stack.push((child, child_mode, counted));
                    }
                }
            }
        }
        for name in declared {
            names.remove(&name);
            types.remove(&name);
        }
        (names, types)
    }

    /// Records what the name a binding node binds holds: `x: T = …` and a
    /// parameter `x: T` hold a `T`, `x = f(…)` what `f` returns; any other
    /// value makes it unknown.
    fn typed(&self, node: Node<'_>, types: &mut HashMap<String, Option<Receiver>>) {
        match node.kind() {
            "assignment" => {
                let Some(left) = node.child_by_field_name("left") else {
                    return;
                };
                if left.kind() != "identifier" {
                    return;
                }
                let name = self.text(left);
                let receiver = match node.child_by_field_name("type") {
                    Some(t) => self.annotation(t).map(Receiver::Type),
                    None => node
                        .child_by_field_name("right")
                        .and_then(|r| self.value_of(r, types, self.scan_this.as_ref())),
                };
                record(types, name, receiver);
            }
            "typed_parameter" | "typed_default_parameter" => {
                let name = match node.kind() {
                    "typed_parameter" => named_children(node)
                        .into_iter()
                        .find(|c| c.kind() == "identifier"),
                    _ => node.child_by_field_name("name"),
                };
                let Some(name) = name else { return };
                let receiver = node
                    .child_by_field_name("type")
                    .and_then(|t| self.annotation(t))
                    .map(Receiver::Type);
                record(types, self.text(name), receiver);
            }
            "identifier" if node.parent().is_some_and(|p| p.kind() == "parameters") => {
                record(types, self.text(node), None);
            }
            "default_parameter" => {
                if let Some(name) = node.child_by_field_name("name") {
                    record(types, self.text(name), None);
                }
            }
            "augmented_assignment"
            | "for_statement"
            | "for_in_clause"
            | "named_expression"
            | "as_pattern" => {
                let target = node
                    .child_by_field_name("left")
                    .or_else(|| node.child_by_field_name("name"))
                    .or_else(|| node.child_by_field_name("alias"));
                if let Some(t) = target.filter(|t| t.kind() == "identifier") {
                    record(types, self.text(t), None);
                }
            }
            _ => {}
        }
    }

    /// What an expression holds: `C(…)`, `m.f(…)` what calling that name
    /// returns (an instance of a class); `x.m(…)` on `self` or a local in
    /// `locals` what calling `m` on it returns; `None` when unknown.
    fn value_of(
        &self,
        node: Node<'_>,
        locals: &HashMap<String, Option<Receiver>>,
        this: Option<&QualifiedPath>,
    ) -> Option<Receiver> {
        if node.kind() != "call" {
            return None;
        }
        let function = node.child_by_field_name("function")?;
        if let Some(chain) = self.chain(function) {
            let root = chain[0].as_str();
            let base = if matches!(root, "self" | "cls") {
                this.cloned().map(Receiver::This)
            } else {
                locals.get(root).cloned().flatten()
            };
            if matches!(root, "self" | "cls") || locals.contains_key(root) {
                let base = base?;
                if chain.len() < 2 {
                    return None;
                }
                return Some(chained(base, chain[1..].to_vec()));
            }
            return Some(Receiver::Call(chain));
        }
        // `f(…).m(…)`: what `m` returns on what `f(…)` holds.
        if function.kind() == "attribute" {
            let name = self.text(function.child_by_field_name("attribute")?);
            let base = self.value_of(function.child_by_field_name("object")?, locals, this)?;
            return Some(chained(base, vec![name]));
        }
        None
    }

    /// A type annotation as a path: `T`, `m.T`, `Optional[T]`, `T | None`,
    /// `"T"`; `None` for anything else (unions, generics of other kinds).
    fn annotation(&self, node: Node<'_>) -> Option<Vec<String>> {
        let mut current = node;
        loop {
            match current.kind() {
                "type" => current = current.named_child(0)?,
                "identifier" | "attribute" => {
                    return self.chain(current).filter(|c| c[0] != "None");
                }
                "string" => {
                    let text = self.text(current);
                    let inner = text.trim_matches(|c| c == '"' || c == '\'');
                    let parts: Vec<String> = inner.split('.').map(str::to_string).collect();
                    let ok = parts.iter().all(|p| {
                        !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_')
                    });
                    return ok.then_some(parts);
                }
                "generic_type" | "subscript" => {
                    let head = current
                        .named_child(0)
                        .map(|h| self.text(h))
                        .unwrap_or_default();
                    if !matches!(head.as_str(), "Optional" | "t.Optional" | "typing.Optional") {
                        return None;
                    }
                    let args = current.named_child(1)?;
                    current = if args.kind() == "type_parameter" {
                        args.named_child(0)?
                    } else {
                        args
                    };
                }
                "binary_operator" | "union_type" => {
                    let parts: Vec<Node<'_>> = named_children(current)
                        .into_iter()
                        .filter(|c| self.text(*c) != "None")
                        .collect();
                    if parts.len() != 1 {
                        return None;
                    }
                    current = parts[0];
                }
                _ => return None,
            }
        }
    }

    /// A class's bases as written (keyword arguments such as `metaclass=`
    /// left out).
    fn bases(&self, class: Node<'_>) -> Vec<Vec<String>> {
        let Some(list) = class.child_by_field_name("superclasses") else {
            return Vec::new();
        };
        named_children(list)
            .into_iter()
            .filter(|c| matches!(c.kind(), "identifier" | "attribute"))
            .filter_map(|c| self.chain(c))
            .collect()
    }

    /// What the value a name read here holds, when the name is a value
    /// rather than a module, class or function: `self`/`cls` in a method,
    /// a local, or a module variable assigned a constructed value. `None`:
    /// the name is read as a name (a path to resolve).
    fn receiver_of(&self, root: &str) -> Option<Receiver> {
        if matches!(root, "self" | "cls") {
            if let Some(this) = self.frames.last().and_then(|f| f.this.clone()) {
                return Some(Receiver::This(this));
            }
        }
        let in_function = self.frames.last().is_some_and(|f| f.in_function);
        if in_function && self.function_locals.contains_key(root) {
            let held = self
                .frames
                .iter()
                .rev()
                .filter(|f| f.scope == Scope::Function)
                .find(|f| f.locals.contains(root))
                .and_then(|f| f.types.get(root).cloned().flatten());
            return Some(held.unwrap_or(Receiver::Unknown));
        }
        if !in_function && self.module_locals.contains(root) {
            return Some(Receiver::Unknown);
        }
        match self.module_types.get(root) {
            Some(Some(held)) => Some(held.clone()),
            _ => None,
        }
    }

    /// Where an import made here binds its name: the enclosing function,
    /// else the module.
    fn import_scope(&self) -> QualifiedPath {
        if self.frames.last().is_some_and(|f| f.in_function) {
            self.caller()
        } else {
            self.module.clone()
        }
    }

    /// Records a member use of `members` on a value.
    fn emit_on(&mut self, members: Vec<String>, receiver: Receiver, call: bool, at: Node<'_>) {
        if members.is_empty() || members.iter().any(|s| s.is_empty()) {
            return;
        }
        let caller = self.caller();
        self.out.references.push(Reference {
            path: members,
            member: true,
            call,
            line: line(at),
            caller,
            receiver,
        });
    }

    /// `target = value`, `target: T = value`: constants at module level,
    /// fields in a class body; the target binds, the annotation and the
    /// value are walked.
    fn assignment<'t>(&mut self, node: Node<'t>, mode: Mode, stack: &mut Vec<Work<'t>>) {
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
            let declared = node
                .child_by_field_name("type")
                .and_then(|t| self.annotation(t));
            for target in targets {
                let name = self.text(target);
                if kind == Kind::Field {
                    let key = self.scope_path().child(name.clone()).join("::");
                    if !self.fields.insert(key) {
                        continue;
                    }
                }
                if kind == Kind::Field || is_constant_name(&name) {
                    self.define(name, kind, target, Vec::new());
                    if let (Some(t), Some(symbol)) = (&declared, self.out.last_symbol()) {
                        symbol.returns = t.clone();
                    }
                }
            }
        }
        // `self.x = …` in a method declares the field `x` of its class (once).
        let this = self.frames.last().and_then(|f| f.this.clone());
        if let (Some(this), Some(left)) = (this, left.filter(|l| l.kind() == "attribute")) {
            let object = left.child_by_field_name("object");
            let attribute = left.child_by_field_name("attribute");
            if let (Some(object), Some(attribute)) = (object, attribute) {
                let name = self.text(attribute);
                let key = this.child(name.clone()).join("::");
                if object.kind() == "identifier"
                    && self.text(object) == "self"
                    && !name.is_empty()
                    && self.fields.insert(key)
                {
                    let declared = match node.child_by_field_name("type") {
                        Some(t) => self.annotation(t),
                        None => node
                            .child_by_field_name("right")
                            .filter(|r| r.kind() == "call")
                            .and_then(|r| r.child_by_field_name("function"))
                            .and_then(|f| self.chain(f))
                            // A constructor, by the class naming convention.
                            .filter(|c| {
                                c.last().is_some_and(|l| l.starts_with(char::is_uppercase))
                            }),
                    };
                    let mut symbol = Symbol::new(this.child(name), Kind::Field, line(attribute));
                    symbol.returns = declared.unwrap_or_default();
                    self.out.symbols.push(symbol);
                }
            }
        }
        // Targets bind, but `a[f()] = …` holds a call and `CACHE[k] = …`
        // uses `CACHE` and `k`.
        push_children(stack, node, mode, &[]);
    }

    /// A call: the callee is recorded as a call reference; a receiver that
    /// is not a chain of names and the arguments are walked.
    fn call<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        if let Some(arguments) = node.child_by_field_name("arguments") {
            stack.push(Work::Visit(arguments, Mode::Value));
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
                    stack.push(Work::Visit(callee, Mode::Value));
                    return;
                };
                let path = match self.chain(callee) {
                    Some(chain) => match self.receiver_of(&chain[0]) {
                        Some(receiver) => {
                            self.emit_on(chain[1..].to_vec(), receiver, true, attribute);
                            return;
                        }
                        None => chain,
                    },
                    None => {
                        let name = self.text(attribute);
                        let object = callee.child_by_field_name("object");
                        // `super().m()`: a method of a base.
                        let receiver = match object {
                            Some(o) if self.is_super_call(o) => self
                                .frames
                                .last()
                                .and_then(|f| f.this.clone())
                                .map_or(Receiver::Unknown, Receiver::Super),
                            // `Store().get()`, `x.make().get()`: what the
                            // call returns.
                            Some(o) if o.kind() == "call" => {
                                let frame = self
                                    .frames
                                    .iter()
                                    .rev()
                                    .find(|f| f.scope == Scope::Function);
                                let this = self.frames.last().and_then(|f| f.this.as_ref());
                                let locals = frame.map_or(&self.module_types, |f| &f.types);
                                self.value_of(o, locals, this).unwrap_or(Receiver::Unknown)
                            }
                            _ => Receiver::Unknown,
                        };
                        if let Some(mut reference) =
                            self.reference(vec![name], true, true, attribute)
                        {
                            reference.receiver = receiver;
                            stack.push(Work::Emit(reference));
                        }
                        if let Some(object) = object.filter(|o| !self.is_super_call(*o)) {
                            stack.push(Work::Visit(object, Mode::Value));
                        }
                        return;
                    }
                };
                self.emit(path, true, true, attribute);
            }
            _ => stack.push(Work::Visit(callee, Mode::Value)),
        }
    }

    /// `super()` (no arguments or any).
    fn is_super_call(&self, node: Node<'_>) -> bool {
        node.kind() == "call"
            && node
                .child_by_field_name("function")
                .is_some_and(|f| f.kind() == "identifier" && self.text(f) == "super")
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
        if named_children(node)
            .iter()
            .any(|c| c.kind() == "wildcard_import")
        {
            let scope = self.import_scope();
            self.out.import(String::new(), prefix, node, scope, true);
            return;
        }
        let mut cursor = node.walk();
        let items: Vec<Node<'_>> = node.children_by_field_name("name", &mut cursor).collect();
        for item in items {
            match item.kind() {
                "aliased_import" => self.aliased(&prefix, item),
                "dotted_name" => {
                    let names = self.dotted(item);
                    let Some(name) = names.last().or(prefix.last()).cloned() else {
                        continue;
                    };
                    let target = self.target(&prefix, names);
                    self.define(name, Kind::Alias, item, target);
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
        let names = self.dotted(name);
        let target = self.target(prefix, names);
        let alias_name = self.text(alias);
        self.define(alias_name, Kind::Alias, alias, target);
    }

    /// `prefix` and `names`, as an alias target, when the file's budget
    /// allows (see [`Extracted::for_source`]); else empty.
    fn target(&mut self, prefix: &[String], names: Vec<String>) -> Vec<String> {
        if !self.out.take_target(prefix.len() + names.len()) {
            return Vec::new();
        }
        let mut target = prefix.to_vec();
        target.extend(names);
        target
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
    fn caller(&self) -> QualifiedPath {
        self.frames
            .last()
            .map_or_else(QualifiedPath::new, |f| f.caller.clone())
    }

    /// The path definitions here are qualified with.
    fn scope_path(&self) -> QualifiedPath {
        self.frames
            .last()
            .map_or_else(|| self.module.clone(), |f| f.path.clone())
    }

    fn define(&mut self, name: String, kind: Kind, at: Node<'_>, target: Vec<String>) {
        if name.is_empty() {
            return;
        }
        let path = self.scope_path().child(name);
        if kind == Kind::Method {
            // Read by name later in the class body (`tag = to_json`).
            self.fields.insert(path.join("::"));
        }
        self.out.define(path, kind, at, target);
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
            receiver: crate::model::Receiver::None,
        })
    }

    /// A node's text, lossily decoded.
    fn text(&self, node: Node<'_>) -> String {
        let bytes = self.source.get(node.byte_range()).unwrap_or_default();
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Records what a local holds: the same thing each time, or unknown
/// (`None`) once two bindings disagree.
fn record(types: &mut HashMap<String, Option<Receiver>>, name: String, held: Option<Receiver>) {
    match types.get(&name) {
        Some(existing) if *existing != held => {
            types.insert(name, None);
        }
        Some(_) => {}
        None => {
            types.insert(name, held);
        }
    }
}

/// What calling `names` on the value `base` describes returns.
fn chained(base: Receiver, names: Vec<String>) -> Receiver {
    match base {
        Receiver::Chain(b, mut calls) => {
            calls.push(names);
            Receiver::Chain(b, calls)
        }
        other => Receiver::Chain(Box::new(other), vec![names]),
    }
}

/// UPPER_CASE: letters, digits and underscores, at least one uppercase
/// letter and no lowercase one.
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_uppercase)
        && !name.chars().any(char::is_lowercase)
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Schedules `node`'s named children (read in `mode`), in source order,
/// except `skip`, each in its own mode (see [`child_mode`]).
fn push_children<'t>(stack: &mut Vec<Work<'t>>, node: Node<'t>, mode: Mode, skip: &[Node<'t>]) {
    let children = child_modes(node, mode)
        .into_iter()
        .filter(|(c, _, _)| !skip.iter().any(|s| s.id() == c.id()));
    stack.extend(children.map(|(c, m, _)| Work::Visit(c, m)));
}

/// `node`'s named children in reverse source order (ready to push on a
/// stack), each with its mode and field name; children that hold no uses
/// (a keyword argument's name) are left out.
fn child_modes(node: Node<'_>, mode: Mode) -> Vec<(Node<'_>, Mode, Option<&'static str>)> {
    let kind = node.kind();
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            let field = cursor.field_name();
            if child.is_named() {
                if let Some(m) = child_mode(kind, field, child.kind(), mode) {
                    out.push((child, m, field));
                }
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out.reverse();
    out
}

/// The mode of a `child` node under `field` of a `parent` read in `mode`;
/// `None` for a child that holds no uses. Annotations (`type`) and base
/// lists are `Names`; targets and parameters are `Target`, and stay so
/// through tuples and lists (not through attributes or subscripts, whose
/// object and index are values); `case` patterns are `Case`.
fn child_mode(parent: &str, field: Option<&str>, child: &str, mode: Mode) -> Option<Mode> {
    if child == "type" {
        return Some(Mode::Names);
    }
    if child == "case_pattern" {
        return Some(Mode::Case);
    }
    Some(match (parent, field) {
        ("keyword_argument", Some("name")) => return None,
        ("keyword_pattern", _) if child == "identifier" => return None,
        ("class_definition", Some("superclasses")) => Mode::Names,
        ("class_pattern", _) if child == "dotted_name" => Mode::Names,
        (
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause",
            Some("left"),
        )
        | ("named_expression" | "default_parameter" | "typed_default_parameter", Some("name"))
        | ("as_pattern", Some("alias"))
        | ("parameters" | "lambda_parameters", _) => Mode::Target,
        ("default_parameter" | "typed_default_parameter", Some("value")) => Mode::Value,
        _ => match mode {
            Mode::Target if TARGET_CONTAINERS.contains(&parent) => Mode::Target,
            Mode::Target => Mode::Value,
            other => other,
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Receiver};

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
            assert_eq!(f.kind_of(path), Some(kind), "{path}: {:?}", f.symbols);
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
        assert_eq!(f.kind_of("pkg::store::lower"), None, "not UPPER_CASE");
        assert_eq!(f.kind_of("pkg::store::sys"), None, "a plain import");
        assert_eq!(f.kind_of("pkg::store::inner"), None);
    }

    #[test]
    fn calls_carry_their_caller() {
        let f = index("pkg/store.py", STORE);
        let helper = f.references_to("helper");
        assert_eq!(helper.len(), 1, "{:?}", f.references);
        assert!(helper[0].call && !helper[0].member);
        assert_eq!(helper[0].caller.join("::"), "pkg::store::Store::get");
        assert_eq!(helper[0].line, 18);
        let inner = f.references_to("inner");
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].caller.join("::"), "pkg::store::outer");
        let outer = f.references_to("outer");
        assert!(outer.len() == 1 && outer[0].call && outer[0].caller.is_empty());
        // self.get() → ["get"] on `This`; p.join() → ["p", "join"], member;
        // make_store().get() → make_store and ["get"] on an unknown value;
        // self.cache.clear() → ["cache", "clear"] on `This`.
        let get = f.references_to("get");
        assert_eq!(get.len(), 2, "{get:?}");
        assert!(get
            .iter()
            .all(|r| r.call && r.member && r.caller.join("::") == "pkg::store::Store::save"));
        let this = Receiver::This(vec!["pkg".to_string(), "store".into(), "Store".into()].into());
        assert_eq!(get[0].receiver, this);
        assert_eq!(get[1].receiver, Receiver::Call(vec!["make_store".into()]));
        assert!(f
            .references_to("p::join")
            .iter()
            .any(|r| r.call && r.member));
        assert!(f
            .references_to("make_store")
            .iter()
            .any(|r| r.call && !r.member));
        let clear = f.references_to("cache::clear");
        assert!(clear.len() == 1 && clear[0].call && clear[0].member && clear[0].receiver == this);
        assert!(f.references_to("self::get").is_empty() && f.references_to("clear").is_empty());
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
        let base = f.references_to("Base");
        assert!(
            base.len() == 1 && !base[0].call && base[0].caller.is_empty(),
            "{base:?}"
        );
        assert_eq!(
            f.references_to("Meta").len(),
            1,
            "a keyword value in the bases"
        );
        assert!(
            f.references_to("metaclass").is_empty(),
            "a keyword is not a use"
        );
        let decorator = f.references_to("staticmethod");
        assert!(decorator.len() == 1 && decorator[0].call && decorator[0].caller.is_empty());
        assert_eq!(f.references_to("Item").len(), 1, "return annotation");
        assert_eq!(f.references_to("int").len(), 2, "variable annotations");
        assert!(f
            .references_to("os::PathLike")
            .iter()
            .any(|r| r.member && !r.call));
        // Definitions' own names and plain names are not uses.
        assert!(f.references_to("Store").is_empty());
        assert!(f.references_to("path").is_empty() && f.references_to("self").is_empty());
        assert!(f.references_to("MAX").is_empty() && f.references_to("x").is_empty());
    }

    #[test]
    fn nested_classes_decorated_classes_and_type_aliases() {
        let src = "@dataclass\nclass Outer:\n    class Inner:\n        def m(self):\n            @app.route('/x')\n            def view(): return render()\n\ntype Vec2 = tuple[float, float]\nclass Color(Enum):\n    RED = 1\n";
        let f = index("src/app/__init__.py", src);
        assert_eq!(f.kind_of("app"), Some(Kind::Module));
        assert_eq!(f.kind_of("app::Outer::Inner"), Some(Kind::Class));
        assert_eq!(f.kind_of("app::Outer::Inner::m"), Some(Kind::Method));
        assert_eq!(
            f.kind_of("app::Outer::Inner::m::view"),
            Some(Kind::Function)
        );
        assert_eq!(f.kind_of("app::Vec2"), Some(Kind::Type));
        assert_eq!(f.kind_of("app::Color"), Some(Kind::Class));
        assert_eq!(f.kind_of("app::Color::RED"), Some(Kind::Field));
        assert!(f.references_to("dataclass").iter().any(|r| r.call));
        let route = f.references_to("app::route");
        assert!(route.len() == 1 && route[0].call && route[0].member);
        assert_eq!(route[0].caller.join("::"), "app::Outer::Inner::m");
        let render = f.references_to("render");
        assert_eq!(render[0].caller.join("::"), "app::Outer::Inner::m::view");
        assert!(f.references_to("float").len() == 2 && f.references_to("Enum").len() == 1);
        // An empty module path (a top-level __init__.py) has no module symbol.
        let top = index("__init__.py", "X = 1\n");
        assert!(top.symbols.iter().all(|s| s.kind != Kind::Module));
        assert_eq!(top.kind_of("X"), Some(Kind::Constant));
    }

    #[test]
    fn names_used_as_values_are_references_and_locals_are_not() {
        let src = "TIMEOUT = 5\n\
                   def helper(x): return x\n\
                   def run(items, n=TIMEOUT):\n    \
                       total = 0\n    \
                       for i in items:\n        \
                           total += i\n    \
                       s = sorted(items, key=helper)\n    \
                       return settings.LIMIT + total + TIMEOUT\n";
        let f = index("app.py", src);
        assert!(!f.syntax_errors);
        let timeout = f.references_to("TIMEOUT");
        // The default value (line 3) is attributed to `run`, like the
        // annotations of its header; then the read in its body (line 8).
        let at: Vec<(u32, bool, String)> = timeout
            .iter()
            .map(|r| (r.line, r.call || r.member, r.caller.join("::")))
            .collect();
        assert_eq!(
            at,
            [(3, false, "app::run".into()), (8, false, "app::run".into())],
            "{:?}",
            f.references
        );
        let helper = f.references_to("helper");
        assert!(
            helper.len() == 1 && !helper[0].call && !helper[0].member && helper[0].line == 7,
            "a function passed as a value: {helper:?}"
        );
        let limit = f.references_to("settings::LIMIT");
        assert!(
            limit.len() == 1 && limit[0].member && !limit[0].call,
            "{limit:?}"
        );
        assert!(f.references_to("sorted").iter().any(|r| r.call));
        for local in ["total", "i", "items", "s", "n", "x", "key", "settings"] {
            assert!(
                f.references_to(local).is_empty(),
                "{local}: {:?}",
                f.references
            );
        }
    }

    #[test]
    fn binding_sites_are_not_uses_and_module_variables_are() {
        let src = r#"
counter = 0
squares = [k * k for k in RANGE]
handler = lambda ev: ev.name
for row in ROWS:
    pass

def work(a, *args, b: int = LIMIT, **kw):
    global counter
    counter = counter + 1
    with open(PATH) as fh, lock as (c, d):
        pass
    try:
        pass
    except ValueError as e:
        log(f"{e} {WIDTH}", "{NOT_READ}")
    if (m := pattern.match(a)):
        pass
    f = lambda q, r=DEFAULT: q + r + OFFSET
    ys = {z: w for z, w in kw.items()}
    match a:
        case Color.RED: pass
        case Point(x=px, y=0) | [first, *rest]: pass
        case {"k": v}: pass
        case str() as sv: pass
    obj.attr = VALUE
    CACHE[key_fn(a)] = a
    callbacks.append(on_done)
    def inner():
        return a + counter + fh
    return self.x + cls.y + row + squares

class Settings(Base):
    debug = DEBUG
    level = debug
"#;
        let f = index("job.py", src);
        assert!(!f.syntax_errors);
        let used_in = |p: &str, caller: &str| {
            f.references_to(p)
                .iter()
                .any(|r| !r.call && r.caller.join("::") == caller)
        };
        for name in [
            "LIMIT",
            "PATH",
            "lock",
            "ValueError",
            "DEFAULT",
            "OFFSET",
            "VALUE",
            "CACHE",
            "on_done",
            "counter",
            "row",
            "squares",
        ] {
            assert!(used_in(name, "job::work"), "{name}: {:?}", f.references);
        }
        // `global counter`: module variables read in a function are uses.
        assert!(used_in("counter", "job::work::inner"));
        // Inner functions see their enclosing function's locals.
        assert!(f.references_to("a").is_empty() && f.references_to("fh").is_empty());
        assert!(used_in("RANGE", "") && used_in("ROWS", "") && used_in("DEBUG", ""));
        // A class attribute read in its own class body reads that member.
        let debug = f.references_to("debug");
        assert!(
            debug.len() == 1
                && debug[0].receiver
                    == Receiver::This(vec!["job".to_string(), "Settings".into()].into()),
            "{debug:?}"
        );
        assert!(f.references_to("NOT_READ").is_empty(), "not an f-string");
        assert!(f
            .references_to("Color::RED")
            .iter()
            .any(|r| r.member && !r.call));
        assert!(used_in("Point", "job::work") && used_in("str", "job::work"));
        assert!(f.references_to("pattern::match").iter().any(|r| r.call));
        for name in [
            "k",
            "ev",
            "a",
            "args",
            "b",
            "kw",
            "fh",
            "c",
            "d",
            "e",
            "m",
            "f",
            "q",
            "r",
            "z",
            "w",
            "ys",
            "px",
            "x",
            "y",
            "first",
            "rest",
            "v",
            "sv",
            "obj",
            "obj::attr",
            "attr",
            "self",
            "cls",
            "key",
            "level",
            "handler",
        ] {
            assert!(
                f.references_to(name).is_empty(),
                "{name}: {:?}",
                f.references
            );
        }
        // Module-level assignments are not locals: `counter` is read at
        // line 10, and the module-level `for` target `row` only inside
        // `work`.
        assert_eq!(f.references_to("row").len(), 1);
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
        let f = crate::adapters::index_on_small_stack(Language::Python, "deep.py", src);
        assert_eq!(f.references_to("g").len(), depth);
        assert!(f
            .references_to("g")
            .iter()
            .all(|r| r.caller == ["deep", "f"]));
    }

    #[test]
    fn deep_nesting_keeps_the_entry_linear() {
        // `def f0():` / ` g()` / ` def f1():` …, one more space per level. A
        // Python file N levels deep holds N²/2 bytes of indentation, and
        // tree-sitter-python parses about 500 levels (deeper, it reports
        // errors), so the depths are 250 and 500 and the bound is one entry
        // byte per input byte: full paths took about 7.
        let source = |depth: usize| -> String {
            (0..depth)
                .map(|i| format!("{:i$}def f{i}():\n{:j$}g()\n", "", "", j = i + 1))
                .collect()
        };
        let check = |f: &FileIndex, depth: usize| {
            assert!(!f.syntax_errors);
            assert_eq!(f.symbols.len(), depth + 1, "the module and every def");
            let calls: Vec<_> = f.references.iter().filter(|r| r.path == ["g"]).collect();
            assert_eq!(calls.len(), depth);
            for (i, (symbol, call)) in f.symbols[1..].iter().zip(&calls).enumerate() {
                assert_eq!(symbol.path.len(), i + 2);
                assert_eq!(symbol.path.last(), Some(&format!("f{i}")));
                assert_eq!(call.caller, symbol.path);
            }
        };
        crate::adapters::assert_linear(Language::Python, "deep.py", 1, &[250, 500], source, check);
    }

    #[test]
    fn a_long_import_list_keeps_the_entry_linear() {
        // `from a0.a1.….aN import (x0, …, xN)`: written out, the targets
        // hold N² segments; the file's budget stops them at one per byte.
        let source = |n: usize| {
            let module: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
            let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
            format!("from {} import ({})\n", module.join("."), names.join(", "))
        };
        let check = |f: &FileIndex, n: usize| {
            let aliases: Vec<_> = f.symbols.iter().filter(|s| s.kind == Kind::Alias).collect();
            assert_eq!(aliases.len(), n, "every name is still an alias");
            assert_eq!(
                aliases[0].target.len(),
                n + 1,
                "the first ones keep their target"
            );
            assert_eq!(aliases[0].target.last().map(String::as_str), Some("x0"));
            let kept: usize = aliases.iter().map(|a| a.target.len()).sum();
            assert!(kept <= source(n).len() + super::super::TARGET_SEGMENTS_FREE);
            assert!(
                aliases[n - 1].target.is_empty(),
                "past the budget: no target"
            );
        };
        crate::adapters::assert_deep_linear(Language::Python, "m.py", source, check);
    }
}
