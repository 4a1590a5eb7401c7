//! The TypeScript and JavaScript adapter: it reads TypeScript, TSX and
//! JavaScript (JSX included) trees, whose node kinds are largely shared.
//!
//! Qualified names start with the file's module path (`src/ui/app.tsx` →
//! `ui::app`), then the enclosing namespaces, classes, interfaces and
//! functions.
//!
//! Definitions mapped:
//!
//! * `function_declaration`, `generator_function_declaration` and
//!   `function_signature` (overloads, `declare function`) →
//!   [`Kind::Function`], anywhere (inside a function it is qualified by it:
//!   `outer::inner`);
//! * `class_declaration`, `abstract_class_declaration`, and a `class`
//!   expression bound by a declarator (`const A = class {}` → `A`) →
//!   [`Kind::Class`];
//! * in a class body, `method_definition` and `abstract_method_signature`
//!   → [`Kind::Method`] (`Class::m`, the constructor `Class::constructor`,
//!   getters and setters by their name, private `#x` names with their
//!   `#`); a field (`public_field_definition`,
//!   `field_definition`) → [`Kind::Field`], or [`Kind::Method`] when its
//!   value is an arrow function or function expression (`onClick = () =>
//!   …`);
//! * `interface_declaration` → [`Kind::Interface`]; in its body
//!   `method_signature` → [`Kind::Method`] and `property_signature` →
//!   [`Kind::Field`];
//! * `type_alias_declaration` → [`Kind::Type`];
//! * `enum_declaration` → [`Kind::Enum`], its members → [`Kind::Variant`];
//! * `namespace X {}` / `module X {}` (`internal_module`, `module`) →
//!   [`Kind::Module`], qualifying what is inside (`namespace A.B` defines
//!   `A` and `A::B`; `declare module "pkg"` is named by the string's last
//!   path segment);
//! * `lexical_declaration` / `variable_declaration` declarators named by an
//!   identifier, at module top level or directly in a namespace (`export`
//!   and `declare` wrappers included): an `arrow_function`,
//!   `function_expression` or generator value → [`Kind::Function`] named by
//!   the variable, a `class` value → [`Kind::Class`], anything else →
//!   [`Kind::Constant`] (`let` and `var` included). Inside a function, only
//!   the function- and class-valued ones are recorded, qualified by it;
//! * import renames and namespace imports → [`Kind::Alias`]:
//!   `import { a as b } from './x'` → `b` with target `["x", "a"]`,
//!   `import * as ns from './x'` and `import ns = require('./x')` → `ns`
//!   with target `["x"]` (the source's last path segment without its
//!   extension; `dir/index` → `dir`);
//! * exports that name something → [`Kind::Alias`]: `export { a as b }` →
//!   `b` with target `["a"]`, `export { a } from './x'` → `a` with target
//!   `["x", "a"]`, `export * as ns from './x'` → `ns` with target `["x"]`.
//!
//! References mapped, each with the innermost enclosing function or method
//! symbol as its caller (anonymous callbacks belong to the function they
//! are in; empty at top level):
//!
//! * a call of an identifier, `format(x)` → `["format"]`;
//! * a call of a member chain, `obj.m()` → `["obj", "m"]`, `this.m()` →
//!   `["m"]`, `a.b.c()` → `["a", "b", "c"]` (a chain rooted in a call or
//!   subscript keeps the names after it), with `member` set;
//! * `new X()` → `["X"]` (`new ns.X()` → `["ns", "X"]`, `member` set), a
//!   call;
//! * JSX elements whose name starts upper-case (`<Button />`, `<Button>`)
//!   or is a member chain (`<ns.Item />`) → a call (a component use is a
//!   call); closing tags are not counted again;
//! * `extends Base` (a value) and `implements I` → references, not calls;
//! * TypeScript type uses: `type_identifier` → `["Foo"]`,
//!   `nested_type_identifier` → `["ns", "Foo"]`, not calls. Type parameters
//!   in scope are not recorded;
//! * a name used as a value without a call (`const v = VERSION`,
//!   `xs.reduce(add, 0)`, `export default App`, `{ add }`, `typeof X`) →
//!   `["VERSION"]`, not a call. Not recorded: definitions' own names,
//!   binding sites (parameters, `const`/`let`/`var` declarators,
//!   destructuring patterns, `for … of/in` and `catch` variables, a named
//!   function expression's name), object-literal keys, property names
//!   (`b` in `a.b`), JSX element and attribute names, labels, `this`,
//!   `super`, `undefined`, `arguments`, and **locals**: a name bound
//!   anywhere in the enclosing outermost function (its parameters and every
//!   declarator, destructuring, `for` and `catch` binding in its body,
//!   nested callbacks included; a simple per-function set, so shadowing is
//!   not tracked). Module-level names are not locals; nested function
//!   declarations and function- or class-valued declarators inside a
//!   function are definitions (`outer::inner`), so using one as a value is
//!   recorded;
//! * a member read without a call whose object is a name that is not a
//!   local (nor `this`), `config.TIMEOUT` → `["config", "TIMEOUT"]` with
//!   `member` set (a longer chain `a.b.c` records its first two segments);
//!   on a local or an expression (`v.length`, `f().x`) the property records
//!   nothing and the expression is walked.
//!
//! A definition's own name is never a reference. Not mapped: property
//! reads on values (`v.length`, `this.title`), default imports, plain
//! (unrenamed) imports and local `export { a }` lists, `export * from`,
//! destructured declarations
//! (`const { a } = …`), CommonJS exports (`module.exports = …`,
//! `exports.f = function …`), prototype assignments, object-literal
//! methods, computed member names, `declare global`, and calls through
//! `super(...)` or a dynamic `import(...)`.

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

use std::collections::HashMap;
use std::rc::Rc;

use super::{member_chain, text, Extracted, NamesInScope, ScopedNames};
use crate::model::{Kind, Param, QualifiedPath, Receiver};

/// Where a node sits, for the definitions that depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// A statement of the module or of a namespace body (through `export`
    /// and `declare` wrappers).
    Top,
    /// A direct member of a named class's or an interface's body.
    Member,
    /// Anywhere else.
    Other,
    /// A binding pattern (a parameter, a destructuring target): its names
    /// are not uses; only default values and computed keys are walked.
    Pattern,
}

/// Names that are never references when used as values.
const NOT_VALUES: &[&str] = &[
    "this",
    "super",
    "undefined",
    "arguments",
    "null",
    "true",
    "false",
];

/// The scope a node is read in. Paths and type parameters are shared with
/// the enclosing contexts, so a context costs the same at any depth.
#[derive(Clone)]
struct Ctx {
    /// What definitions here are qualified with.
    scope: QualifiedPath,
    /// The innermost enclosing function or method symbol (empty outside).
    caller: QualifiedPath,
    /// Inside a function or method symbol's body.
    in_function: bool,
    /// Type parameter names in scope: uses of these are not references.
    type_params: ScopedNames,
    /// The locals of the enclosing outermost function (an index into
    /// `Walker::locals`); `None` outside functions.
    locals: Option<usize>,
    /// What `this` is: the class (or the object a CommonJS method is
    /// assigned to) whose method this code is in.
    this: Option<QualifiedPath>,
    /// The type a `this: T` parameter of the enclosing function declares
    /// (`function (this: OperatorSubscriber<T>) { this.unsubscribe() }`);
    /// it takes precedence over `this`.
    this_type: Option<Rc<Vec<String>>>,
}

/// One pending node: the node, the index of its context, and its position.
type Item<'t> = (Node<'t>, usize, Pos);

/// The walk's state.
struct Walker<'s> {
    source: &'s [u8],
    ctxs: Vec<Ctx>,
    /// One set of local names per outermost function.
    locals: Vec<HashSet<String>>,
    /// What those locals hold, when one annotation or constructor says so
    /// (`None`: several or unknown values).
    local_types: Vec<HashMap<String, Option<Receiver>>>,
    /// Answers whether a name is a type parameter in a context.
    type_params: NamesInScope,
    /// Parameter lists of callbacks passed to calls walked so far (see
    /// [`Walker::mark_callbacks`]).
    callbacks: HashMap<usize, (Vec<String>, u32)>,
    out: Extracted,
}

/// Extracts the definitions and references of one TypeScript, TSX or
/// JavaScript syntax tree, qualified with `module`. Walks with an explicit
/// stack, so deeply nested input cannot overflow the call stack.
pub fn extract(tree: &Tree, source: &[u8], module: &[String]) -> Extracted {
    let mut walker = Walker {
        source,
        ctxs: vec![Ctx {
            scope: QualifiedPath::from(module),
            caller: QualifiedPath::new(),
            in_function: false,
            type_params: ScopedNames::default(),
            locals: None,
            this: None,
            this_type: None,
        }],
        locals: Vec::new(),
        local_types: Vec::new(),
        type_params: NamesInScope::default(),
        callbacks: HashMap::new(),
        out: Extracted::for_source(source),
    };
    let root = tree.root_node();
    let mut stack: Vec<Item> = Vec::new();
    push_children(&mut stack, root, 0, Pos::Top, &[]);
    while let Some((node, ctx, pos)) = stack.pop() {
        walker.visit(node, ctx, pos, &mut stack);
    }
    walker.out
}

/// `scope` with `name` appended (sharing `scope`).
fn join(scope: &QualifiedPath, name: &str) -> QualifiedPath {
    scope.child(name)
}

/// Pushes `node`'s named children (except those in `skip`) so that they
/// pop in source order.
fn push_children<'t>(
    stack: &mut Vec<Item<'t>>,
    node: Node<'t>,
    ctx: usize,
    pos: Pos,
    skip: &[Node<'t>],
) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node
        .children(&mut cursor)
        .filter(|c| c.is_named() && !skip.iter().any(|s| s.id() == c.id()))
        .collect();
    stack.extend(children.into_iter().rev().map(|c| (c, ctx, pos)));
}

/// Pushes `node`'s named children so that they pop in source order, each
/// with the position `pos_of` gives it from its field name (`None`: not
/// pushed).
fn push_fields<'t>(
    stack: &mut Vec<Item<'t>>,
    node: Node<'t>,
    ctx: usize,
    pos_of: impl Fn(Option<&str>) -> Option<Pos>,
) {
    let mut items: Vec<Item<'t>> = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                if let Some(pos) = pos_of(cursor.field_name()) {
                    items.push((child, ctx, pos));
                }
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    stack.extend(items.into_iter().rev());
}

/// True for an anonymous function value (or an object-literal or
/// anonymous-class method) that opens a scope of locals.
fn is_function_node(kind: &str) -> bool {
    is_function_value(kind) || kind == "method_definition"
}

/// The object at the root of a member chain (`a` in `a.b.c`).
fn chain_root(node: Node) -> Option<Node> {
    let mut current = node;
    while current.kind() == "member_expression" {
        current = current.child_by_field_name("object")?;
    }
    Some(current)
}

/// True for a value that makes its variable a function.
fn is_function_value(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// The module an import source names: its last path segment without a
/// script extension, `dir/index` → `dir` (empty for `.`, `..`).
fn source_segment(source: &str) -> String {
    let parts: Vec<&str> = source
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    let Some(last) = parts.last() else {
        return String::new();
    };
    let mut stem = *last;
    for ext in [
        ".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs", ".json",
    ] {
        if let Some(s) = stem.strip_suffix(ext) {
            if !s.is_empty() {
                stem = s;
                break;
            }
        }
    }
    if stem == "index" && parts.len() >= 2 {
        return parts[parts.len() - 2].to_string();
    }
    stem.to_string()
}

impl<'s> Walker<'s> {
    fn text(&self, node: Node) -> String {
        text(node, self.source)
    }

    /// A string literal's contents.
    fn string_text(&self, node: Node) -> String {
        let mut cursor = node.walk();
        let fragment = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "string_fragment");
        match fragment {
            Some(f) => self.text(f),
            None => self
                .text(node)
                .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                .to_string(),
        }
    }

    /// A member or enum member's name: identifiers, strings and numbers;
    /// `None` for a computed name.
    fn member_name(&self, node: Node) -> Option<String> {
        let name = match node.kind() {
            "property_identifier"
            | "private_property_identifier"
            | "identifier"
            | "type_identifier"
            | "number" => self.text(node),
            "string" => self.string_text(node),
            _ => return None,
        };
        (!name.is_empty()).then_some(name)
    }

    fn define(&mut self, path: QualifiedPath, kind: Kind, at: Node, target: Vec<String>) {
        self.out.define(path, kind, at, target);
    }

    fn refer(&mut self, path: Vec<String>, member: bool, call: bool, at: Node, ctx: usize) {
        let caller = self.ctxs[ctx].caller.clone();
        self.out.refer(path, member, call, at, caller);
    }

    /// A new context derived from `parent`, returning its index.
    fn child_ctx(&mut self, parent: usize, f: impl FnOnce(&mut Ctx)) -> usize {
        let mut ctx = self.ctxs[parent].clone();
        f(&mut ctx);
        self.ctxs.push(ctx);
        self.ctxs.len() - 1
    }

    /// Type parameter names a declaration introduces (`<T, U>`).
    fn type_params(&self, node: Node) -> Vec<String> {
        let Some(list) = node.child_by_field_name("type_parameters") else {
            return Vec::new();
        };
        let mut cursor = list.walk();
        list.named_children(&mut cursor)
            .filter(|p| p.kind() == "type_parameter")
            .filter_map(|p| p.child_by_field_name("name"))
            .map(|n| self.text(n))
            .collect()
    }

    /// A context for the body of the function or method symbol `path`;
    /// `this` is what `this` is in it (an arrow function keeps its
    /// context's).
    fn function_ctx(
        &mut self,
        parent: usize,
        path: QualifiedPath,
        node: Node,
        this: Option<QualifiedPath>,
    ) -> usize {
        let params = self.type_params(node);
        let locals = self.locals_for(node, parent, true);
        let arrow = node.kind() == "arrow_function";
        let this = if arrow {
            self.ctxs[parent].this.clone()
        } else {
            this
        };
        let this_type = if arrow {
            self.ctxs[parent].this_type.clone()
        } else {
            self.this_param(node)
        };
        self.child_ctx(parent, |c| {
            c.scope = path.clone();
            c.caller = path;
            c.in_function = true;
            c.type_params = c.type_params.with(params);
            c.locals = Some(locals);
            c.this = this;
            c.this_type = this_type;
        })
    }

    /// The locals index for a function `node` read in `ctx`: the enclosing
    /// function's when there is one, else a new set scanned from `node`.
    /// `defines` tells whether function- and class-valued declarators in it
    /// are definitions (and so not locals).
    fn locals_for(&mut self, node: Node, ctx: usize, defines: bool) -> usize {
        if let Some(i) = self.ctxs[ctx].locals {
            return i;
        }
        let (names, types) = self.scan_locals(node, defines);
        self.locals.push(names);
        self.local_types.push(types);
        self.locals.len() - 1
    }

    /// The names bound anywhere in the function `root`: parameters,
    /// declarators, destructuring, `for … of/in` and `catch` bindings, named
    /// function expressions, nested functions' included.
    fn scan_locals(
        &self,
        root: Node,
        defines: bool,
    ) -> (HashSet<String>, HashMap<String, Option<Receiver>>) {
        let mut names = HashSet::new();
        let mut types: HashMap<String, Option<Receiver>> = HashMap::new();
        let mut record = |name: String, receiver: Option<Receiver>| match types.get(&name) {
            Some(existing) if *existing != receiver => {
                types.insert(name, None);
            }
            Some(_) => {}
            None => {
                types.insert(name, receiver);
            }
        };
        // The parameter lists of callbacks passed to a call of a name: the
        // callee and the argument's position.
        let mut callbacks: HashMap<usize, (Vec<String>, u32)> = HashMap::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "formal_parameters" => {
                    // A callback's untyped parameters: what the function it
                    // is passed to declares they receive (found at the call,
                    // walking down: asking a node for its parent costs the
                    // tree's depth).
                    let site = callbacks
                        .get(&n.id())
                        .or_else(|| self.callbacks.get(&n.id()))
                        .cloned();
                    let mut cursor = n.walk();
                    let mut position = 0u32;
                    for p in n.named_children(&mut cursor) {
                        self.pattern_names(p, &mut names);
                        let name = p
                            .child_by_field_name("pattern")
                            .filter(|x| x.kind() == "identifier");
                        if let Some(name) = name {
                            let ty = p
                                .child_by_field_name("type")
                                .and_then(|t| self.type_path(t))
                                .map(Receiver::Type)
                                .or_else(|| {
                                    site.clone()
                                        .map(|(callee, arg)| Receiver::Param(callee, arg, position))
                                });
                            record(self.text(name), ty);
                        }
                        if p.child_by_field_name("pattern")
                            .is_none_or(|x| x.kind() != "this")
                        {
                            position += 1;
                        }
                    }
                }
                "arrow_function" => {
                    if let Some(p) = n.child_by_field_name("parameter") {
                        self.pattern_names(p, &mut names);
                        if p.kind() == "identifier" {
                            let held = callbacks
                                .get(&p.id())
                                .or_else(|| self.callbacks.get(&p.id()))
                                .cloned()
                                .map(|(callee, arg)| Receiver::Param(callee, arg, 0));
                            record(self.text(p), held);
                        }
                    }
                }
                "call_expression" | "new_expression" => {
                    self.mark_callbacks(n, &mut callbacks);
                }
                "variable_declarator" => {
                    if let Some(name) = n
                        .child_by_field_name("name")
                        .filter(|x| x.kind() == "identifier")
                    {
                        record(self.text(name), self.held(n));
                    }
                    let value = n.child_by_field_name("value").map(|v| v.kind());
                    let defined =
                        defines && value.is_some_and(|v| is_function_value(v) || v == "class");
                    match n.child_by_field_name("name") {
                        Some(name) if !(defined && name.kind() == "identifier") => {
                            self.pattern_names(name, &mut names)
                        }
                        _ => {}
                    }
                }
                "for_in_statement" if n.child_by_field_name("kind").is_some() => {
                    if let Some(left) = n.child_by_field_name("left") {
                        self.pattern_names(left, &mut names);
                    }
                }
                "catch_clause" => {
                    if let Some(p) = n.child_by_field_name("parameter") {
                        self.pattern_names(p, &mut names);
                    }
                }
                "function_expression" | "function" | "generator_function" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        names.insert(self.text(name));
                    }
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        (names, types)
    }

    /// What a declarator's variable holds: its annotation's type, the
    /// class it `new`s, or what the function it calls returns.
    fn held(&self, declarator: Node) -> Option<Receiver> {
        if let Some(ty) = declarator.child_by_field_name("type") {
            return self.type_path(ty).map(Receiver::Type);
        }
        self.held_value(declarator.child_by_field_name("value")?)
    }

    /// What a `new X()` or a call of a name or chain of names holds.
    fn held_value(&self, value: Node) -> Option<Receiver> {
        match value.kind() {
            "new_expression" => {
                let c = value.child_by_field_name("constructor")?;
                let path = self.dotted_path(c);
                (!path.is_empty()).then_some(Receiver::Type(path))
            }
            "call_expression" => {
                let f = value.child_by_field_name("function")?;
                if !matches!(f.kind(), "identifier" | "member_expression") {
                    return None;
                }
                let path = self.dotted_path(f);
                (!path.is_empty() && f.kind() == "identifier"
                    || chain_root(f).is_some_and(|r| r.kind() == "identifier"))
                .then_some(Receiver::Call(path))
            }
            _ => None,
        }
    }

    /// A type annotation as a path: `T`, `ns.T`, `T<…>` (its name),
    /// `Promise<T>`, `T | undefined` and `T | null` (`T`); `None` for
    /// anything else.
    fn type_path(&self, node: Node) -> Option<Vec<String>> {
        let mut current = node;
        loop {
            match current.kind() {
                "type_annotation" | "parenthesized_type" => current = current.named_child(0)?,
                "type_identifier" | "nested_type_identifier" | "identifier" => {
                    let path = self.dotted_path(current);
                    return (!path.is_empty()).then_some(path);
                }
                "predefined_type" => return Some(vec![self.text(current)]),
                "generic_type" => {
                    let name = current.child_by_field_name("name")?;
                    let path = self.dotted_path(name);
                    if path == ["Promise"] {
                        let args = current.child_by_field_name("type_arguments")?;
                        current = args.named_child(0)?;
                        continue;
                    }
                    return (!path.is_empty()).then_some(path);
                }
                "union_type" => {
                    let parts: Vec<Node> = {
                        let mut c = current.walk();
                        current
                            .named_children(&mut c)
                            .filter(|p| {
                                !matches!(self.text(*p).as_str(), "undefined" | "null" | "void")
                            })
                            .collect()
                    };
                    if parts.len() != 1 {
                        return None;
                    }
                    current = parts[0];
                }
                _ => return None,
            }
        }
    }

    /// What a name read in `ctx` holds when it is a value rather than a
    /// module, class or function: `this`, or a local (`None`: a name to
    /// resolve).
    fn receiver_of(&self, root: Node, ctx: usize) -> Option<Receiver> {
        let c = &self.ctxs[ctx];
        match root.kind() {
            "this" => Some(match &c.this_type {
                Some(ty) => Receiver::Type(ty.to_vec()),
                None => c.this.clone().map_or(Receiver::Unknown, Receiver::This),
            }),
            "super" => Some(c.this.clone().map_or(Receiver::Unknown, Receiver::Super)),
            "identifier" => {
                let name = self.text(root);
                let i = c.locals?;
                if !self.locals.get(i).is_some_and(|l| l.contains(&name)) {
                    return None;
                }
                let held = self
                    .local_types
                    .get(i)
                    .and_then(|t| t.get(&name).cloned().flatten());
                Some(held.unwrap_or(Receiver::Unknown))
            }
            _ => Some(Receiver::Unknown),
        }
    }

    /// Records a member chain (a call's callee, a read): rooted in a name
    /// that is not a local, the whole chain as a path; rooted in `this`, a
    /// local or an expression, the names after the root on that value
    /// (the root expression is pushed to be walked).
    fn chain<'t>(&mut self, node: Node<'t>, call: bool, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let (names, root, at) =
            member_chain(node, "member_expression", "property", "object", self.source);
        if names.is_empty() || names.iter().any(|n| n.is_empty()) {
            push_children(stack, node, ctx, Pos::Other, &[]);
            return;
        }
        if root.kind() == "identifier"
            && !NOT_VALUES.contains(&self.text(root).as_str())
            && self.receiver_of(root, ctx).is_none()
        {
            let mut path = vec![self.text(root)];
            path.extend(names);
            self.refer(path, true, call, at, ctx);
            return;
        }
        let receiver = match root.kind() {
            // `new X().m()`, `make().m()`: what the expression holds.
            "new_expression" | "call_expression" => {
                self.held_value(root).unwrap_or(Receiver::Unknown)
            }
            _ => self.receiver_of(root, ctx).unwrap_or(Receiver::Unknown),
        };
        let caller = self.ctxs[ctx].caller.clone();
        self.out.refer_chain(names, receiver, call, at, caller);
        if !matches!(root.kind(), "identifier" | "this" | "super") {
            stack.push((root, ctx, Pos::Other));
        }
    }

    /// Adds the names a binding pattern binds (not its default values).
    fn pattern_names(&self, node: Node, names: &mut HashSet<String>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    names.insert(self.text(n));
                }
                "object_pattern" | "array_pattern" | "rest_pattern" => {
                    let mut cursor = n.walk();
                    stack.extend(n.named_children(&mut cursor));
                }
                "pair_pattern" => stack.extend(n.child_by_field_name("value")),
                "assignment_pattern" | "object_assignment_pattern" => {
                    stack.extend(n.child_by_field_name("left"))
                }
                "required_parameter" | "optional_parameter" => {
                    stack.extend(n.child_by_field_name("pattern"))
                }
                _ => {}
            }
        }
    }

    /// True when `name` read in `ctx` may name something defined elsewhere:
    /// not `this`, `undefined`, … nor a local.
    fn is_value_name(&self, name: &str, ctx: usize) -> bool {
        !name.is_empty()
            && !NOT_VALUES.contains(&name)
            && !self.ctxs[ctx]
                .locals
                .and_then(|i| self.locals.get(i))
                .is_some_and(|l| l.contains(name))
    }

    /// An identifier in a value position.
    fn value(&mut self, node: Node, ctx: usize) {
        let name = self.text(node);
        if self.is_value_name(&name, ctx) {
            self.refer(vec![name], false, false, node, ctx);
        }
    }

    /// A member read without a call (see [`Walker::chain`]).
    fn member_read<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        self.chain(node, false, ctx, stack);
    }

    /// A node in a binding pattern: names are not walked, default values
    /// and computed keys are; anything else (an assignment target such as
    /// `a.b`) is walked as an expression.
    fn pattern<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" | "this" => {}
            "object_pattern" | "array_pattern" | "rest_pattern" => {
                push_children(stack, node, ctx, Pos::Pattern, &[])
            }
            "pair_pattern" => push_fields(stack, node, ctx, |f| match f {
                Some("key") => Some(Pos::Other),
                Some("value") => Some(Pos::Pattern),
                _ => None,
            }),
            "assignment_pattern" | "object_assignment_pattern" => {
                push_fields(stack, node, ctx, |f| match f {
                    Some("left") => Some(Pos::Pattern),
                    _ => Some(Pos::Other),
                })
            }
            "required_parameter" | "optional_parameter" => {
                push_fields(stack, node, ctx, |f| match f {
                    Some("pattern") => Some(Pos::Pattern),
                    _ => Some(Pos::Other),
                })
            }
            _ => stack.push((node, ctx, Pos::Other)),
        }
    }

    fn visit<'t>(&mut self, node: Node<'t>, ctx: usize, pos: Pos, stack: &mut Vec<Item<'t>>) {
        if pos == Pos::Pattern {
            self.pattern(node, ctx, stack);
            return;
        }
        match node.kind() {
            "import_statement" => self.import(node, ctx),
            "export_statement" => {
                let skip = self.export(node, ctx);
                let inner = if pos == Pos::Top {
                    Pos::Top
                } else {
                    Pos::Other
                };
                push_children(stack, node, ctx, inner, &skip);
            }
            "ambient_declaration" => {
                let inner = if pos == Pos::Top {
                    Pos::Top
                } else {
                    Pos::Other
                };
                push_children(stack, node, ctx, inner, &[]);
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let Some(name) = node.child_by_field_name("name") else {
                    push_children(stack, node, ctx, Pos::Other, &[]);
                    return;
                };
                let path = join(&self.ctxs[ctx].scope, &self.text(name));
                self.define(path.clone(), Kind::Function, name, Vec::new());
                let returns = self.returns(node);
                let params = self.params(node);
                if let Some(symbol) = self.out.last_symbol() {
                    symbol.returns = returns;
                    symbol.params = params;
                }
                let inner = self.function_ctx(ctx, path, node, None);
                push_children(stack, node, inner, Pos::Other, &[name]);
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                let name = node.child_by_field_name("name");
                self.class(node, name, ctx, stack);
            }
            "interface_declaration" => self.interface(node, ctx, stack),
            "type_alias_declaration" => {
                let Some(name) = node.child_by_field_name("name") else {
                    push_children(stack, node, ctx, Pos::Other, &[]);
                    return;
                };
                let path = join(&self.ctxs[ctx].scope, &self.text(name));
                self.define(path, Kind::Type, name, Vec::new());
                let params = self.type_params(node);
                let inner = self.child_ctx(ctx, |c| c.type_params = c.type_params.with(params));
                push_children(stack, node, inner, Pos::Other, &[name]);
            }
            "enum_declaration" => self.enumeration(node, ctx, stack),
            "internal_module" | "module" => self.namespace(node, ctx, stack),
            "expression_statement" if pos == Pos::Top && self.commonjs(node, ctx, stack) => {}
            "lexical_declaration" | "variable_declaration" => {
                self.declaration(node, ctx, pos, stack)
            }
            "method_definition" | "method_signature" | "abstract_method_signature"
                if pos == Pos::Member =>
            {
                let name = node.child_by_field_name("name");
                let Some((name, text)) = name.and_then(|n| Some((n, self.member_name(n)?))) else {
                    push_children(stack, node, ctx, Pos::Other, &[]);
                    return;
                };
                let path = join(&self.ctxs[ctx].scope, &text);
                self.define(path.clone(), Kind::Method, name, Vec::new());
                let returns = self.returns(node);
                let params = self.params(node);
                if let Some(symbol) = self.out.last_symbol() {
                    symbol.returns = returns;
                    symbol.params = params;
                }
                let inner = self.function_ctx(ctx, path, node, Some(self.ctxs[ctx].scope.clone()));
                push_children(stack, node, inner, Pos::Other, &[name]);
            }
            "public_field_definition" | "field_definition" | "property_signature"
                if pos == Pos::Member =>
            {
                self.field(node, ctx, stack)
            }
            "call_expression" => self.call(node, "function", ctx, stack),
            "new_expression" => self.call(node, "constructor", ctx, stack),
            "identifier" | "shorthand_property_identifier" => self.value(node, ctx),
            "member_expression" => self.member_read(node, ctx, stack),
            // Binding sites: their names are not uses.
            "formal_parameters" => push_children(stack, node, ctx, Pos::Pattern, &[]),
            "object_pattern"
            | "array_pattern"
            | "rest_pattern"
            | "pair_pattern"
            | "assignment_pattern"
            | "object_assignment_pattern" => self.pattern(node, ctx, stack),
            "for_in_statement" => push_fields(stack, node, ctx, |f| match f {
                Some("left") => Some(Pos::Pattern),
                _ => Some(Pos::Other),
            }),
            "catch_clause" => push_fields(stack, node, ctx, |f| match f {
                Some("parameter") => Some(Pos::Pattern),
                _ => Some(Pos::Other),
            }),
            "index_signature" | "type_predicate" => push_fields(stack, node, ctx, |f| {
                (f != Some("name")).then_some(Pos::Other)
            }),
            "import_alias" | "jsx_namespace_name" => {}
            kind if is_function_node(kind) => {
                // An anonymous function (or one whose symbol was defined by
                // its declarator): the outermost one opens a set of locals.
                let locals = self.locals_for(node, ctx, true);
                // A `function` has a `this` of its own (unknown, or what a
                // `this: T` parameter declares); an arrow function keeps
                // its context's.
                let own_this = kind != "arrow_function";
                let declared = if own_this {
                    self.this_param(node)
                } else {
                    None
                };
                let loses_this = own_this
                    && (self.ctxs[ctx].this.is_some()
                        || self.ctxs[ctx].this_type.is_some()
                        || declared.is_some());
                let inner = if self.ctxs[ctx].locals == Some(locals) && !loses_this {
                    ctx
                } else {
                    self.child_ctx(ctx, |c| {
                        c.locals = Some(locals);
                        if loses_this {
                            c.this = None;
                            c.this_type = declared;
                        }
                    })
                };
                // A function expression's own name is a binding; a method's
                // is a property name (a computed one is walked).
                let named_binding = kind != "method_definition";
                push_fields(stack, node, inner, |f| match f {
                    Some("parameter") => Some(Pos::Pattern),
                    Some("name") if named_binding => None,
                    _ => Some(Pos::Other),
                });
            }
            "jsx_opening_element" | "jsx_self_closing_element" => {
                if let Some(name) = node.child_by_field_name("name") {
                    match name.kind() {
                        "identifier" => {
                            let text = self.text(name);
                            if text.starts_with(|c: char| c.is_uppercase()) {
                                self.refer(vec![text], false, true, name, ctx);
                            }
                        }
                        "member_expression" => {
                            let (path, at) = self.member_path(name);
                            self.refer(path, true, true, at, ctx);
                        }
                        _ => {}
                    }
                }
                // The element's name is not walked as a value.
                push_fields(stack, node, ctx, |f| {
                    (f != Some("name")).then_some(Pos::Other)
                });
            }
            "jsx_closing_element" => {}
            "class_heritage" => {
                // JavaScript: the superclass expression itself; TypeScript:
                // `extends_clause` / `implements_clause`.
                let mut cursor = node.walk();
                let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
                let mut rest = Vec::new();
                for child in children {
                    if !self.heritage(child, ctx) {
                        rest.push((child, ctx, Pos::Other));
                    }
                }
                stack.extend(rest.into_iter().rev());
            }
            "extends_clause" => {
                let value = node.child_by_field_name("value");
                let skip: Vec<Node<'t>> = value
                    .filter(|v| self.heritage(*v, ctx))
                    .into_iter()
                    .collect();
                push_children(stack, node, ctx, Pos::Other, &skip);
            }
            "type_identifier" => {
                let name = self.text(node);
                if !self
                    .type_params
                    .contains(&self.ctxs[ctx].type_params, &name)
                {
                    self.refer(vec![name], false, false, node, ctx);
                }
            }
            "nested_type_identifier" => {
                let path = self.dotted_path(node);
                self.refer(path, false, false, node, ctx);
            }
            "type_parameter" => {
                let skip: Vec<Node<'t>> = node.child_by_field_name("name").into_iter().collect();
                push_children(stack, node, ctx, Pos::Other, &skip);
            }
            _ => push_children(stack, node, ctx, Pos::Other, &[]),
        }
    }

    /// A call or `new`: its callee (the child in `field`) is recorded as a
    /// call and not walked again as a value; a member chain rooted in an
    /// expression (`f(x).m()`) still walks that expression.
    fn call<'t>(&mut self, node: Node<'t>, field: &str, ctx: usize, stack: &mut Vec<Item<'t>>) {
        // A callback passed here whose locals are scanned later (one at
        // the top level opens its own set) finds its site.
        if self.ctxs[ctx].locals.is_none() {
            let mut marked = HashMap::new();
            self.mark_callbacks(node, &mut marked);
            self.callbacks.extend(marked);
        }
        let callee = node.child_by_field_name(field);
        let mut deferred = Vec::new();
        let recorded = callee.filter(|c| self.callee(*c, ctx, &mut deferred));
        push_children(stack, node, ctx, Pos::Other, &Vec::from_iter(recorded));
        stack.extend(deferred);
    }

    /// Records a call of `callee` (an identifier or member chain; the
    /// chain's root expression, when it is not a name, goes to `stack`);
    /// false for anything else (to be walked instead).
    fn callee<'t>(&mut self, callee: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) -> bool {
        match callee.kind() {
            // `super(…)`: the base class's constructor.
            "super" => {
                if let Some(this) = self.ctxs[ctx].this.clone() {
                    let caller = self.ctxs[ctx].caller.clone();
                    self.out.refer_chain(
                        vec!["constructor".into()],
                        Receiver::Super(this),
                        true,
                        callee,
                        caller,
                    );
                }
                true
            }
            "identifier" => {
                let name = self.text(callee);
                self.refer(vec![name], false, true, callee, ctx);
                true
            }
            "member_expression" => {
                self.chain(callee, true, ctx, stack);
                true
            }
            _ => false,
        }
    }

    /// Records a superclass written as a name or member chain; false for
    /// anything else (to be walked instead).
    fn heritage(&mut self, node: Node, ctx: usize) -> bool {
        match node.kind() {
            "identifier" => {
                let name = self.text(node);
                self.refer(vec![name], false, false, node, ctx);
                true
            }
            "member_expression" => {
                let (path, at) = self.member_path(node);
                self.refer(path, true, false, at, ctx);
                true
            }
            _ => false,
        }
    }

    /// A member chain's segments (`a.b.c` → `["a", "b", "c"]`, `this.m` →
    /// `["m"]`; a chain rooted in a call or subscript keeps the names after
    /// it) and the node of its last name.
    fn member_path<'t>(&self, node: Node<'t>) -> (Vec<String>, Node<'t>) {
        let mut segments = Vec::new();
        let mut at = node;
        let mut first = true;
        let mut current = Some(node);
        while let Some(n) = current {
            match n.kind() {
                "member_expression" => {
                    if let Some(property) = n.child_by_field_name("property") {
                        if first {
                            at = property;
                            first = false;
                        }
                        segments.push(self.text(property));
                    }
                    current = n.child_by_field_name("object");
                }
                "identifier" => {
                    segments.push(self.text(n));
                    current = None;
                }
                _ => current = None,
            }
        }
        segments.reverse();
        (segments, at)
    }

    /// A dotted name's segments: `nested_identifier` (`A.B.C`) or
    /// `nested_type_identifier` (`ns.Type`).
    fn dotted_path(&self, node: Node) -> Vec<String> {
        let mut segments = Vec::new();
        let mut current = Some(node);
        while let Some(n) = current {
            match n.kind() {
                "nested_identifier" => {
                    if let Some(p) = n.child_by_field_name("property") {
                        segments.push(self.text(p));
                    }
                    current = n.child_by_field_name("object");
                }
                "nested_type_identifier" => {
                    if let Some(p) = n.child_by_field_name("name") {
                        segments.push(self.text(p));
                    }
                    current = n.child_by_field_name("module");
                }
                "member_expression" => {
                    if let Some(p) = n.child_by_field_name("property") {
                        segments.push(self.text(p));
                    }
                    current = n.child_by_field_name("object");
                }
                "identifier" | "type_identifier" => {
                    segments.push(self.text(n));
                    current = None;
                }
                _ => current = None,
            }
        }
        segments.reverse();
        segments
    }

    /// A class declaration or expression, named by `name` (its own name,
    /// or the variable a class expression is bound to).
    fn class<'t>(
        &mut self,
        node: Node<'t>,
        name: Option<Node<'t>>,
        ctx: usize,
        stack: &mut Vec<Item<'t>>,
    ) {
        let body = node.child_by_field_name("body");
        let own_name = node.child_by_field_name("name");
        let mut skip: Vec<Node<'t>> = own_name.into_iter().collect();
        skip.extend(body);
        let named = name
            .map(|n| (n, self.text(n)))
            .filter(|(_, t)| !t.is_empty());
        let (inner, member_pos) = match named {
            Some((at, text)) => {
                let path = join(&self.ctxs[ctx].scope, &text);
                self.define(path.clone(), Kind::Class, at, Vec::new());
                let bases = self.class_bases(node);
                if let Some(symbol) = self.out.last_symbol() {
                    symbol.bases = bases;
                }
                let params = self.type_params(node);
                let inner = self.child_ctx(ctx, |c| {
                    c.scope = path;
                    c.in_function = false;
                    c.type_params = c.type_params.with(params);
                });
                (inner, Pos::Member)
            }
            // An anonymous class: its members are not definitions.
            None => (ctx, Pos::Other),
        };
        // Body members after the heritage and decorators, in source order.
        if let Some(body) = body {
            push_children(stack, body, inner, member_pos, &[]);
        }
        push_children(stack, node, inner, Pos::Other, &skip);
    }

    /// `interface Name { … }`.
    fn interface<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, Pos::Other, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &self.text(name));
        self.define(path.clone(), Kind::Interface, name, Vec::new());
        let bases = self.class_bases(node);
        if let Some(symbol) = self.out.last_symbol() {
            symbol.bases = bases;
        }
        let params = self.type_params(node);
        let inner = self.child_ctx(ctx, |c| {
            c.scope = path;
            c.type_params = c.type_params.with(params);
        });
        let body = node.child_by_field_name("body");
        let mut skip = vec![name];
        skip.extend(body);
        if let Some(body) = body {
            push_children(stack, body, inner, Pos::Member, &[]);
        }
        push_children(stack, node, inner, Pos::Other, &skip);
    }

    /// `enum Name { A, B = 2 }`.
    fn enumeration<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, Pos::Other, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &self.text(name));
        self.define(path.clone(), Kind::Enum, name, Vec::new());
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        let mut values = Vec::new();
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            let member_name = if member.kind() == "enum_assignment" {
                values.extend(member.child_by_field_name("value"));
                member.child_by_field_name("name")
            } else {
                Some(member)
            };
            let Some(member_name) = member_name else {
                continue;
            };
            if let Some(text) = self.member_name(member_name) {
                self.define(join(&path, &text), Kind::Variant, member_name, Vec::new());
            }
        }
        stack.extend(values.into_iter().rev().map(|v| (v, ctx, Pos::Other)));
    }

    /// `namespace A.B { … }`, `module X { … }`, `declare module "x" { … }`.
    fn namespace<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let name = node.child_by_field_name("name");
        let segments = match name.map(|n| (n, n.kind())) {
            Some((n, "identifier")) => vec![self.text(n)],
            Some((n, "nested_identifier")) => self.dotted_path(n),
            Some((n, "string")) => vec![source_segment(&self.string_text(n))],
            _ => Vec::new(),
        };
        let body = node.child_by_field_name("body");
        if segments.is_empty() || segments.iter().any(|s| s.is_empty()) {
            if let Some(body) = body {
                push_children(stack, body, ctx, Pos::Other, &[]);
            }
            return;
        }
        let mut path = self.ctxs[ctx].scope.clone();
        if let Some(at) = name {
            for segment in segments {
                path = path.child(segment);
                self.define(path.clone(), Kind::Module, at, Vec::new());
            }
        }
        let inner = self.child_ctx(ctx, |c| c.scope = path);
        if let Some(body) = body {
            push_children(stack, body, inner, Pos::Top, &[]);
        }
    }

    /// `const`/`let`/`var` declarators.
    fn declaration<'t>(&mut self, node: Node<'t>, ctx: usize, pos: Pos, stack: &mut Vec<Item<'t>>) {
        let mut items: Vec<Item<'t>> = Vec::new();
        let mut cursor = node.walk();
        let declarators: Vec<Node<'t>> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "variable_declarator")
            .collect();
        for declarator in declarators {
            let name = declarator.child_by_field_name("name");
            let value = declarator.child_by_field_name("value");
            if let Some(ty) = declarator.child_by_field_name("type") {
                items.push((ty, ctx, Pos::Other));
            }
            // `const x = require('./x')`, `const { a, b: c } = require('./x')`:
            // imports.
            if let Some(required) = value.and_then(|v| self.required(v)) {
                match name {
                    Some(n) if n.kind() == "identifier" => {
                        let text = self.text(n);
                        self.bind(text, required, n, ctx);
                    }
                    Some(n) if n.kind() == "object_pattern" => {
                        self.required_names(n, &required, ctx);
                    }
                    _ => {}
                }
                continue;
            }
            let Some(name) = name.filter(|n| n.kind() == "identifier") else {
                // A destructuring pattern: only its default values are walked.
                items.extend(name.map(|n| (n, ctx, Pos::Pattern)));
                items.extend(value.map(|v| (v, ctx, Pos::Other)));
                continue;
            };
            let text = self.text(name);
            let path = join(&self.ctxs[ctx].scope, &text);
            // Function- and class-valued declarators are definitions
            // anywhere (inside an anonymous callback too); other values
            // only at the top level.
            let may_define = true;
            match value {
                Some(v) if may_define && is_function_value(v.kind()) => {
                    self.define(path.clone(), Kind::Function, name, Vec::new());
                    let inner = self.function_ctx(ctx, path, v, None);
                    items.push((v, inner, Pos::Other));
                }
                Some(v) if may_define && v.kind() == "class" => {
                    // Walked now so that the class is defined before its members.
                    let mut class_items = Vec::new();
                    self.class(v, Some(name), ctx, &mut class_items);
                    class_items.reverse();
                    items.extend(class_items);
                }
                _ => {
                    if pos == Pos::Top && !text.is_empty() {
                        self.define(path, Kind::Constant, name, Vec::new());
                        // What it holds, when a type or `new` says so.
                        let held = match self.held(declarator) {
                            Some(Receiver::Type(t)) => t,
                            _ => Vec::new(),
                        };
                        if let Some(symbol) = self.out.last_symbol() {
                            symbol.returns = held;
                        }
                    }
                    items.extend(value.map(|v| (v, ctx, Pos::Other)));
                }
            }
        }
        stack.extend(items.into_iter().rev());
    }

    /// A class field or interface property, or a function-valued class
    /// field (a method).
    fn field<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let name = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"));
        let Some((name, text)) = name.and_then(|n| Some((n, self.member_name(n)?))) else {
            push_children(stack, node, ctx, Pos::Other, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &text);
        let value = node
            .child_by_field_name("value")
            .filter(|v| is_function_value(v.kind()));
        match value {
            Some(v) => {
                self.define(path.clone(), Kind::Method, name, Vec::new());
                let inner = self.function_ctx(ctx, path, v, Some(self.ctxs[ctx].scope.clone()));
                // Decorators and the type in the class's context, the value
                // in the method's, in source order.
                let mut cursor = node.walk();
                let items: Vec<Item<'t>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.id() != name.id())
                    .map(|c| {
                        let c_ctx = if c.id() == v.id() { inner } else { ctx };
                        (c, c_ctx, Pos::Other)
                    })
                    .collect();
                stack.extend(items.into_iter().rev());
            }
            None => {
                self.define(path, Kind::Field, name, Vec::new());
                // Its declared type, or the class its value `new`s.
                let declared = node
                    .child_by_field_name("type")
                    .and_then(|t| self.type_path(t))
                    .or_else(|| {
                        let v = node.child_by_field_name("value")?;
                        let c = (v.kind() == "new_expression")
                            .then(|| v.child_by_field_name("constructor"))??;
                        let p = self.dotted_path(c);
                        (!p.is_empty()).then_some(p)
                    });
                if let (Some(declared), Some(symbol)) = (declared, self.out.last_symbol()) {
                    symbol.returns = declared;
                }
                push_children(stack, node, ctx, Pos::Other, &[name]);
            }
        }
    }

    /// An `import` statement: each name it binds is an import (`import { a
    /// as b } from './x'` binds `b` to `["./x", "a"]`, a default import to
    /// `["./x", "default"]`, `import * as ns` and `import ns = require()` to
    /// `["./x"]`).
    fn import(&mut self, node: Node, ctx: usize) {
        let source = node
            .child_by_field_name("source")
            .map(|s| self.string_text(s));
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "import_clause" => {
                    let Some(source) = source.clone() else {
                        continue;
                    };
                    let mut inner = child.walk();
                    let parts: Vec<Node> = child.named_children(&mut inner).collect();
                    for part in parts {
                        match part.kind() {
                            "identifier" => {
                                let name = self.text(part);
                                self.bind(name, vec![source.clone(), "default".into()], part, ctx);
                            }
                            "named_imports" => self.named_imports(part, &source, ctx),
                            "namespace_import" => {
                                let mut c = part.walk();
                                let alias = part
                                    .named_children(&mut c)
                                    .find(|n| n.kind() == "identifier");
                                if let Some(alias) = alias {
                                    let name = self.text(alias);
                                    self.bind(name, vec![source.clone()], alias, ctx);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "import_require_clause" => {
                    let required = child
                        .child_by_field_name("source")
                        .map(|s| self.string_text(s));
                    let mut c = child.walk();
                    let alias = child
                        .named_children(&mut c)
                        .find(|n| n.kind() == "identifier");
                    if let (Some(alias), Some(required)) = (alias, required) {
                        let name = self.text(alias);
                        self.bind(name, vec![required], alias, ctx);
                    }
                }
                _ => {}
            }
        }
    }

    /// `{ a, b as c }` in an import: each binds its (local) name.
    fn named_imports(&mut self, node: Node, source: &str, ctx: usize) {
        let mut cursor = node.walk();
        let specifiers: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|s| s.kind() == "import_specifier")
            .collect();
        for specifier in specifiers {
            let Some(name) = specifier.child_by_field_name("name") else {
                continue;
            };
            let original = self.name_text(name);
            let bound = specifier.child_by_field_name("alias").unwrap_or(name);
            let local = self.name_text(bound);
            self.bind(local, vec![source.to_string(), original], bound, ctx);
        }
    }

    /// Records an import binding `name` in `ctx`'s scope.
    fn bind(&mut self, name: String, target: Vec<String>, at: Node, ctx: usize) {
        if name.is_empty() {
            return;
        }
        let scope = self.ctxs[ctx].scope.clone();
        self.out.import(name, target, at, scope, false);
    }

    /// What a class extends (`extends B`, `extends ns.B<T>`) or an
    /// interface extends (`extends A, B`), as paths.
    fn class_bases(&self, node: Node) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if !matches!(
                child.kind(),
                "class_heritage" | "extends_type_clause" | "extends_clause"
            ) {
                continue;
            }
            let mut stack = vec![child];
            while let Some(n) = stack.pop() {
                match n.kind() {
                    "class_heritage" | "extends_clause" | "extends_type_clause" => {
                        let mut c = n.walk();
                        stack.extend(n.named_children(&mut c));
                    }
                    "identifier"
                    | "type_identifier"
                    | "member_expression"
                    | "nested_type_identifier" => {
                        let path = self.dotted_path(n);
                        if !path.is_empty() {
                            out.push(path);
                        }
                    }
                    "generic_type" => stack.extend(n.child_by_field_name("name")),
                    _ => {}
                }
            }
        }
        out
    }

    /// The type a function's `this: T` parameter declares, when it is a
    /// plain type name.
    fn this_param(&self, node: Node) -> Option<Rc<Vec<String>>> {
        let list = node.child_by_field_name("parameters")?;
        let first = list.named_child(0)?;
        first
            .child_by_field_name("pattern")
            .filter(|n| n.kind() == "this")?;
        let ty = first.child_by_field_name("type")?;
        // `this: any`, `this: void`: no type to look members up on.
        if ty
            .named_child(0)
            .is_some_and(|t| t.kind() == "predefined_type")
        {
            return None;
        }
        self.type_path(ty).map(Rc::new)
    }

    /// Each parameter's declared type (a function type: its parameters'),
    /// `this` parameters left out.
    fn params(&self, node: Node) -> Vec<Param> {
        let Some(list) = node.child_by_field_name("parameters") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut cursor = list.walk();
        for p in list.named_children(&mut cursor) {
            if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
                continue;
            }
            // `this: T` declares what `this` is, not an argument.
            if p.child_by_field_name("pattern")
                .is_some_and(|n| n.kind() == "this")
            {
                continue;
            }
            let ty = p.child_by_field_name("type").and_then(|t| t.named_child(0));
            let mut param = Param::default();
            match ty {
                Some(t) if t.kind() == "function_type" => {
                    if let Some(inner) = t.child_by_field_name("parameters") {
                        let mut c = inner.walk();
                        for q in inner.named_children(&mut c) {
                            let is_this = q
                                .child_by_field_name("pattern")
                                .is_some_and(|n| n.kind() == "this");
                            if is_this {
                                continue;
                            }
                            let qt = q
                                .child_by_field_name("type")
                                .and_then(|t| self.type_path(t))
                                .unwrap_or_default();
                            param.callback.push(qt);
                        }
                    }
                }
                Some(t) => param.ty = self.type_path(t).unwrap_or_default(),
                None => {}
            }
            out.push(param);
        }
        if out.iter().all(|p| p.ty.is_empty() && p.callback.is_empty()) {
            return Vec::new();
        }
        out
    }

    /// Marks the parameter lists of the function values passed to `call`
    /// (a call or `new` of a name or chain of names), through `c ? … : …`
    /// and parentheses, with the callee's path and the argument's position.
    fn mark_callbacks(&self, call: Node, callbacks: &mut HashMap<usize, (Vec<String>, u32)>) {
        let Some(arguments) = call.child_by_field_name("arguments") else {
            return;
        };
        // The function values among the arguments first: most calls pass
        // none, and then the callee's path is never built.
        let mut found: Vec<(usize, u32)> = Vec::new();
        let mut cursor = arguments.walk();
        for (position, arg) in arguments.named_children(&mut cursor).enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            let mut values = vec![arg];
            let mut steps = 0;
            while let Some(v) = values.pop() {
                steps += 1;
                if steps > 16 {
                    break;
                }
                match v.kind() {
                    "ternary_expression" => {
                        values.extend(v.child_by_field_name("consequence"));
                        values.extend(v.child_by_field_name("alternative"));
                    }
                    "parenthesized_expression" => values.extend(v.named_child(0)),
                    kind if is_function_value(kind) => {
                        let list = v
                            .child_by_field_name("parameters")
                            .or_else(|| v.child_by_field_name("parameter"));
                        if let Some(list) = list {
                            found.push((list.id(), position));
                        }
                    }
                    _ => {}
                }
            }
        }
        if found.is_empty() {
            return;
        }
        let callee = match call.kind() {
            "call_expression" => call.child_by_field_name("function"),
            _ => call.child_by_field_name("constructor"),
        };
        let Some(callee) = callee else { return };
        if !matches!(callee.kind(), "identifier" | "member_expression")
            || chain_root(callee).is_none_or(|r| r.kind() != "identifier")
        {
            return;
        }
        let path = self.dotted_path(callee);
        if path.is_empty() {
            return;
        }
        for (id, position) in found {
            callbacks.insert(id, (path.clone(), position));
        }
    }

    /// A function's declared return type (see [`Walker::type_path`]).
    fn returns(&self, node: Node) -> Vec<String> {
        node.child_by_field_name("return_type")
            .and_then(|t| self.type_path(t))
            .unwrap_or_default()
    }

    /// `require('./x')`'s specifier, also through `.name` (`require('./x').y`
    /// → `["./x", "y"]`).
    fn required(&self, value: Node) -> Option<Vec<String>> {
        match value.kind() {
            "call_expression" => {
                let f = value.child_by_field_name("function")?;
                if f.kind() != "identifier" || self.text(f) != "require" {
                    return None;
                }
                let args = value.child_by_field_name("arguments")?;
                let first = args.named_child(0)?;
                (first.kind() == "string").then(|| vec![self.string_text(first)])
            }
            "member_expression" => {
                let object = value.child_by_field_name("object")?;
                let property = value.child_by_field_name("property")?;
                let mut target = self.required(object)?;
                target.push(self.text(property));
                Some(target)
            }
            _ => None,
        }
    }

    /// `{ a, b: c }` destructured from a `require()`: `a` binds
    /// `[…, "a"]`, `c` binds `[…, "b"]`.
    fn required_names(&mut self, pattern: Node, required: &[String], ctx: usize) {
        let mut cursor = pattern.walk();
        let parts: Vec<Node> = pattern.named_children(&mut cursor).collect();
        for part in parts {
            let (key, bound) = match part.kind() {
                "shorthand_property_identifier_pattern" => (self.text(part), part),
                "pair_pattern" => {
                    let (Some(k), Some(v)) = (
                        part.child_by_field_name("key"),
                        part.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    if v.kind() != "identifier" {
                        continue;
                    }
                    (self.name_text(k), v)
                }
                _ => continue,
            };
            let mut target = required.to_vec();
            target.push(key);
            let name = self.text(bound);
            self.bind(name, target, bound, ctx);
        }
    }

    /// A top-level CommonJS or prototype assignment that defines something:
    /// `exports.f = function …` and `module.exports.f = …` (a function,
    /// class or constant `f` of the module), `module.exports = X` and
    /// `exports = module.exports = X` (the module's default export names
    /// `X`; an object literal's keys are its names), `A.prototype.m =
    /// function …` and `A.prototype = { m() {} }` (methods `A::m`), `obj.m =
    /// function …` on a top-level name (a method `obj::m`, `this` being
    /// `obj` in it). False for any other statement (walked as usual).
    fn commonjs<'t>(&mut self, statement: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) -> bool {
        let Some(assign) = statement
            .named_child(0)
            .filter(|a| a.kind() == "assignment_expression")
        else {
            return false;
        };
        let mut lefts = Vec::new();
        let mut right = Some(assign);
        while let Some(a) = right.filter(|a| a.kind() == "assignment_expression") {
            lefts.extend(a.child_by_field_name("left"));
            right = a.child_by_field_name("right");
        }
        let Some(right) = right else { return false };
        let scope = self.ctxs[ctx].scope.clone();
        let mut handled = false;
        let mut body: Option<(QualifiedPath, Option<QualifiedPath>)> = None;
        for left in &lefts {
            let text = self.text(*left);
            let segments: Vec<String> = text.split('.').map(|p| p.trim().to_string()).collect();
            if segments.iter().any(|p| {
                p.is_empty()
                    || !p
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            }) {
                continue;
            }
            let at = left.child_by_field_name("property").unwrap_or(*left);
            match segments
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                ["module", "exports"] | ["exports"] => {
                    handled = true;
                    match right.kind() {
                        "identifier" => {
                            let target = vec![self.text(right)];
                            if self.out.take_target(1) {
                                self.define(scope.child("default"), Kind::Alias, *left, target);
                            }
                        }
                        "object" => self.exported_object(right, ctx, stack),
                        kind if is_function_value(kind)
                            && right.child_by_field_name("name").is_none() =>
                        {
                            // An anonymous function: the module's default.
                            let path = scope.child("default");
                            self.define(path.clone(), Kind::Function, *left, Vec::new());
                            body = Some((path, None));
                        }
                        kind if is_function_value(kind) || kind == "class" => {
                            let named = right.child_by_field_name("name").map(|n| self.text(n));
                            if let Some(name) = named.filter(|n| !n.is_empty()) {
                                let kind = if right.kind() == "class" {
                                    Kind::Class
                                } else {
                                    Kind::Function
                                };
                                self.define(scope.child(name.clone()), kind, right, Vec::new());
                                if self.out.take_target(1) {
                                    self.define(
                                        scope.child("default"),
                                        Kind::Alias,
                                        *left,
                                        vec![name.clone()],
                                    );
                                }
                                if kind == Kind::Function {
                                    body = Some((scope.child(name), None));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                ["module", "exports", name] | ["exports", name] => {
                    handled = true;
                    let path = scope.child(*name);
                    match right.kind() {
                        kind if is_function_value(kind) => {
                            self.define(path.clone(), Kind::Function, at, Vec::new());
                            body.get_or_insert((path, None));
                        }
                        "class" => self.define(path, Kind::Class, at, Vec::new()),
                        "identifier" => {
                            let target = vec![self.text(right)];
                            if self.out.take_target(1) {
                                self.define(path, Kind::Alias, at, target);
                            }
                        }
                        _ => self.define(path, Kind::Constant, at, Vec::new()),
                    }
                }
                [class, "prototype", name] if is_function_value(right.kind()) => {
                    handled = true;
                    self.prototype_owner(*left, ctx);
                    let owner = scope.child(*class);
                    let path = owner.child(*name);
                    self.define(path.clone(), Kind::Method, at, Vec::new());
                    body.get_or_insert((path, Some(owner)));
                }
                [class, "prototype"] if right.kind() == "object" => {
                    handled = true;
                    self.prototype_owner(*left, ctx);
                    let owner = scope.child(*class);
                    self.object_methods(right, &owner, ctx, stack);
                }
                [object, name]
                    if is_function_value(right.kind())
                        && !matches!(
                            *object,
                            "this" | "module" | "exports" | "window" | "global" | "globalThis"
                        ) =>
                {
                    handled = true;
                    self.prototype_owner(*left, ctx);
                    let owner = scope.child(*object);
                    let path = owner.child(*name);
                    self.define(path.clone(), Kind::Method, at, Vec::new());
                    body.get_or_insert((path, Some(owner)));
                }
                _ => {}
            }
        }
        if !handled {
            return false;
        }
        match body {
            Some((path, this)) => {
                let inner = self.function_ctx(ctx, path, right, this);
                let skip: Vec<Node<'t>> = right.child_by_field_name("name").into_iter().collect();
                push_children(stack, right, inner, Pos::Other, &skip);
            }
            None if right.kind() != "object" => stack.push((right, ctx, Pos::Other)),
            None => {}
        }
        true
    }

    /// The object a CommonJS method is assigned on (`A` in `A.prototype.m
    /// = …`, `obj` in `obj.m = …`) is used there.
    fn prototype_owner(&mut self, left: Node, ctx: usize) {
        if let Some(root) = chain_root(left).filter(|r| r.kind() == "identifier") {
            self.value(root, ctx);
        }
    }

    /// `module.exports = { a, b: c, d() {}, e: function () {} }`: `a`, `b`
    /// name what they are given; function values and methods are the
    /// module's functions.
    fn exported_object<'t>(&mut self, object: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let scope = self.ctxs[ctx].scope.clone();
        let mut cursor = object.walk();
        let parts: Vec<Node<'t>> = object.named_children(&mut cursor).collect();
        for part in parts {
            match part.kind() {
                "shorthand_property_identifier" => {
                    let name = self.text(part);
                    if self.out.take_target(1) {
                        self.define(scope.child(name.clone()), Kind::Alias, part, vec![name]);
                    }
                    self.value(part, ctx);
                }
                "pair" => {
                    let (Some(key), Some(value)) = (
                        part.child_by_field_name("key"),
                        part.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    let Some(name) = self.member_name(key) else {
                        stack.push((part, ctx, Pos::Other));
                        continue;
                    };
                    let path = scope.child(name);
                    if is_function_value(value.kind()) {
                        self.define(path.clone(), Kind::Function, key, Vec::new());
                        let inner = self.function_ctx(ctx, path, value, None);
                        stack.push((value, inner, Pos::Other));
                    } else if value.kind() == "identifier" {
                        if self.out.take_target(1) {
                            self.define(path, Kind::Alias, key, vec![self.text(value)]);
                        }
                        self.value(value, ctx);
                    } else {
                        stack.push((value, ctx, Pos::Other));
                    }
                }
                "method_definition" => {
                    let Some(name) = part
                        .child_by_field_name("name")
                        .and_then(|n| self.member_name(n))
                    else {
                        continue;
                    };
                    let path = scope.child(name);
                    if let Some(n) = part.child_by_field_name("name") {
                        self.define(path.clone(), Kind::Function, n, Vec::new());
                    }
                    let inner = self.function_ctx(ctx, path, part, None);
                    let skip: Vec<Node<'t>> =
                        part.child_by_field_name("name").into_iter().collect();
                    push_children(stack, part, inner, Pos::Other, &skip);
                }
                _ => stack.push((part, ctx, Pos::Other)),
            }
        }
    }

    /// `A.prototype = { m() {}, n: function () {} }`: methods of `owner`.
    fn object_methods<'t>(
        &mut self,
        object: Node<'t>,
        owner: &QualifiedPath,
        ctx: usize,
        stack: &mut Vec<Item<'t>>,
    ) {
        let mut cursor = object.walk();
        let parts: Vec<Node<'t>> = object.named_children(&mut cursor).collect();
        for part in parts {
            let (key, value) = match part.kind() {
                "pair" => (
                    part.child_by_field_name("key"),
                    part.child_by_field_name("value"),
                ),
                "method_definition" => (part.child_by_field_name("name"), Some(part)),
                _ => (None, None),
            };
            let (Some(key), Some(value)) = (key, value) else {
                stack.push((part, ctx, Pos::Other));
                continue;
            };
            let name = self.member_name(key);
            let function = value.kind() == "method_definition" || is_function_value(value.kind());
            match name {
                Some(name) if function => {
                    let path = owner.child(name);
                    self.define(path.clone(), Kind::Method, key, Vec::new());
                    let inner = self.function_ctx(ctx, path, value, Some(owner.clone()));
                    let skip: Vec<Node<'t>> = vec![key];
                    push_children(stack, value, inner, Pos::Other, &skip);
                }
                _ => stack.push((value, ctx, Pos::Other)),
            }
        }
    }

    /// An identifier's or string's text.
    fn name_text(&self, node: Node) -> String {
        if node.kind() == "string" {
            self.string_text(node)
        } else {
            self.text(node)
        }
    }

    /// Defines the alias named by `at`, targeting `target` (a module
    /// specifier and a name, or a local name).
    fn alias(&mut self, at: Node, target: Vec<String>, ctx: usize) {
        let name = self.name_text(at);
        if name.is_empty() || target.is_empty() || target.iter().any(|t| t.is_empty()) {
            return;
        }
        let target = if self.out.take_target(target.len()) {
            target
        } else {
            Vec::new()
        };
        let path = join(&self.ctxs[ctx].scope, &name);
        self.define(path, Kind::Alias, at, target);
    }

    /// Aliases an `export` statement defines (`export { a as b }` → `b`
    /// naming the local `a`; `export { a } from './x'` → `a` naming `["./x",
    /// "a"]`; `export * as ns from './x'` → `ns`; `export default X` →
    /// `default` naming `X`), and `export * from './x'`, a public glob;
    /// returns the children already read (not to be walked).
    fn export<'t>(&mut self, node: Node<'t>, ctx: usize) -> Vec<Node<'t>> {
        let source_node = node.child_by_field_name("source");
        let source = source_node.map(|s| self.string_text(s));
        let mut read: Vec<Node<'t>> = source_node.into_iter().collect();
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        let mut clause = false;
        for child in &children {
            match child.kind() {
                "export_clause" => {
                    clause = true;
                    read.push(*child);
                    let mut c = child.walk();
                    let specifiers: Vec<Node> = child
                        .named_children(&mut c)
                        .filter(|s| s.kind() == "export_specifier")
                        .collect();
                    for specifier in specifiers {
                        let Some(name) = specifier.child_by_field_name("name") else {
                            continue;
                        };
                        let alias = specifier.child_by_field_name("alias");
                        let original = self.name_text(name);
                        let target = match &source {
                            Some(source) => vec![source.clone(), original.clone()],
                            None => vec![original.clone()],
                        };
                        match alias {
                            Some(alias) => self.alias(alias, target, ctx),
                            None if source.is_some() => self.alias(name, target, ctx),
                            None => {}
                        }
                    }
                }
                "namespace_export" => {
                    clause = true;
                    read.push(*child);
                    let mut c = child.walk();
                    let alias = child
                        .named_children(&mut c)
                        .find(|n| matches!(n.kind(), "identifier" | "string"));
                    if let (Some(alias), Some(source)) = (alias, &source) {
                        self.alias(alias, vec![source.clone()], ctx);
                    }
                }
                _ => {}
            }
        }
        if let (false, Some(source)) = (clause, &source) {
            // `export * from './x'`.
            let scope = self.ctxs[ctx].scope.clone();
            let before = self.out.imports.len();
            self.out
                .import(String::new(), vec![source.clone()], node, scope, true);
            if let Some(import) = self.out.imports.get_mut(before) {
                import.public = true;
            }
        }
        // `export default X`, `export default function f() {}`.
        if node.child_by_field_name("value").is_some()
            || self.text(node).starts_with("export default")
        {
            let declared = node
                .child_by_field_name("declaration")
                .and_then(|d| d.child_by_field_name("name"));
            let value = node.child_by_field_name("value");
            let named = declared.or(value.filter(|v| v.kind() == "identifier"));
            if let Some(named) = named {
                let target = vec![self.text(named)];
                let path = join(&self.ctxs[ctx].scope, "default");
                let at = named;
                if self.out.take_target(1) {
                    self.define(path, Kind::Alias, at, target);
                }
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Receiver, Reference};

    const APP: &str = r#"import { a as b } from './x';
import * as icons from '../icons/index.ts';
import React from 'react';

export interface Props { title: string; onClick(id: Id): void }
export type Id = string;
export enum Color { Red, Blue = 2 }

export class App extends Base implements Props {
  title = '';
  constructor() { super(); }
  render() { return <Button label={this.title} /> }
  static make(): App { return new App() }
}

export function helper(id: Id) { return format(id) }
const format = (x: string) => x.trim();
export const VERSION = "1";
namespace Util { export function pad() {} }
export { helper as h };
export { Thing } from './things';
"#;

    fn assert_kinds(file: &FileIndex, expected: &[(&str, Kind)]) {
        for (path, kind) in expected {
            assert_eq!(
                file.kind_of(path),
                Some(*kind),
                "{path}: {:#?}",
                file.symbols
            );
        }
    }

    fn find<'f>(file: &'f FileIndex, path: &[&str]) -> Vec<&'f Reference> {
        file.references
            .iter()
            .filter(|r| r.path.iter().map(String::as_str).eq(path.iter().copied()))
            .collect()
    }

    fn target(file: &FileIndex, path: &str) -> Option<String> {
        file.symbols
            .iter()
            .find(|s| s.path.join("::") == path)
            .map(|s| s.target.join("::"))
    }

    #[test]
    fn tsx_definitions_are_qualified_by_the_module_path() {
        let f = index_file(Language::Tsx, "src/ui/app.tsx", APP.as_bytes());
        assert!(!f.syntax_errors);
        assert_kinds(
            &f,
            &[
                ("ui::app::Props", Kind::Interface),
                ("ui::app::Props::title", Kind::Field),
                ("ui::app::Props::onClick", Kind::Method),
                ("ui::app::Id", Kind::Type),
                ("ui::app::Color", Kind::Enum),
                ("ui::app::Color::Red", Kind::Variant),
                ("ui::app::Color::Blue", Kind::Variant),
                ("ui::app::App", Kind::Class),
                ("ui::app::App::title", Kind::Field),
                ("ui::app::App::constructor", Kind::Method),
                ("ui::app::App::render", Kind::Method),
                ("ui::app::App::make", Kind::Method),
                ("ui::app::helper", Kind::Function),
                ("ui::app::format", Kind::Function),
                ("ui::app::VERSION", Kind::Constant),
                ("ui::app::Util", Kind::Module),
                ("ui::app::Util::pad", Kind::Function),
                ("ui::app::h", Kind::Alias),
                ("ui::app::Thing", Kind::Alias),
            ],
        );
        assert_eq!(target(&f, "ui::app::h").as_deref(), Some("helper"));
        assert_eq!(
            target(&f, "ui::app::Thing").as_deref(),
            Some("./things::Thing")
        );
        // Imports bind names; they are not definitions.
        for name in ["b", "icons", "React"] {
            assert_eq!(f.kind_of(&format!("ui::app::{name}")), None);
        }
        let imports: Vec<(String, String)> = f
            .imports
            .iter()
            .map(|i| (i.name.clone(), i.target.join("::")))
            .collect();
        assert_eq!(
            imports,
            [
                ("b".into(), "./x::a".into()),
                ("icons".into(), "../icons/index.ts".into()),
                ("React".into(), "react::default".into())
            ]
        );
        assert!(f
            .symbols
            .iter()
            .all(|s| s.path.starts_with(&["ui".into(), "app".into()])));
        let render = f
            .symbols
            .iter()
            .find(|s| s.path.join("::") == "ui::app::App::render");
        assert_eq!(render.map(|s| s.line), Some(12));
    }

    #[test]
    fn tsx_references_carry_their_caller() {
        let f = index_file(Language::Tsx, "src/ui/app.tsx", APP.as_bytes());
        let format = find(&f, &["format"]);
        assert_eq!(format.len(), 1, "{:#?}", f.references);
        assert!(format[0].call && !format[0].member);
        assert_eq!(format[0].caller, ["ui", "app", "helper"]);
        assert_eq!(format[0].line, 16);

        let button = find(&f, &["Button"]);
        assert_eq!(button.len(), 1);
        assert!(button[0].call);
        assert_eq!(button[0].caller, ["ui", "app", "App", "render"]);

        let app = find(&f, &["App"]);
        let new_app: Vec<_> = app.iter().filter(|r| r.call).collect();
        assert_eq!(new_app.len(), 1);
        assert_eq!(new_app[0].caller, ["ui", "app", "App", "make"]);
        // `: App` is a type use; the class's own name is never a reference.
        assert!(app.iter().any(|r| !r.call && r.line == 13));
        assert!(!app.iter().any(|r| r.line == 9));

        let base = find(&f, &["Base"]);
        assert!(base.len() == 1 && !base[0].call && base[0].caller.is_empty());
        let props = find(&f, &["Props"]);
        assert!(props.iter().any(|r| r.line == 9 && !r.call));
        assert!(!props.iter().any(|r| r.line == 5));
        let id = find(&f, &["Id"]);
        assert!(id.iter().any(|r| r.caller == ["ui", "app", "helper"]));
        assert!(id
            .iter()
            .any(|r| r.caller == ["ui", "app", "Props", "onClick"]));
        assert!(!id.iter().any(|r| r.line == 6));

        // `x: string` is a parameter: `trim` is called on a value of a type
        // the index does not define.
        let trim = find(&f, &["trim"]);
        assert!(trim.len() == 1 && trim[0].member && trim[0].call);
        assert_eq!(trim[0].receiver, Receiver::Type(vec!["string".into()]));
        assert_eq!(trim[0].caller, ["ui", "app", "format"]);
        // `super()` is the base's constructor; `this.title` reads the field.
        assert!(find(&f, &["super"]).is_empty());
        let ctor = find(&f, &["constructor"]);
        assert!(ctor.len() == 1 && ctor[0].call);
        assert_eq!(
            ctor[0].receiver,
            Receiver::Super(vec!["ui".to_string(), "app".into(), "App".into()].into())
        );
        let title = find(&f, &["title"]);
        assert!(title.len() == 1 && !title[0].call);
        assert_eq!(
            title[0].receiver,
            Receiver::This(vec!["ui".to_string(), "app".into(), "App".into()].into())
        );
    }

    #[test]
    fn javascript_functions_classes_and_top_level_calls() {
        let src = "function add(a,b){return a+b}\n\
                   const mul = function(a,b){return a*b}\n\
                   class Calc { sum(xs) { return xs.reduce(add, 0) } twice(x) { return this.sum([x, x]) } }\n\
                   module.exports = { add }\n\
                   add(1,2)\n";
        let f = index_file(Language::JavaScript, "lib/math.js", src.as_bytes());
        assert!(!f.syntax_errors);
        assert_kinds(
            &f,
            &[
                ("math::add", Kind::Function),
                ("math::mul", Kind::Function),
                ("math::Calc", Kind::Class),
                ("math::Calc::sum", Kind::Method),
                ("math::Calc::twice", Kind::Method),
            ],
        );
        let add: Vec<_> = find(&f, &["add"]).into_iter().filter(|r| r.call).collect();
        assert_eq!(add.len(), 1, "{:#?}", f.references);
        assert!(add[0].caller.is_empty());
        assert_eq!(add[0].line, 5);
        // `xs` is a parameter: `reduce` is read on a value of unknown type.
        let reduce = find(&f, &["reduce"]);
        assert!(reduce.len() == 1 && reduce[0].member && reduce[0].receiver == Receiver::Unknown);
        assert_eq!(reduce[0].caller, ["math", "Calc", "sum"]);
        let this_sum = find(&f, &["sum"]);
        assert!(this_sum.len() == 1 && this_sum[0].member && this_sum[0].call);
        assert_eq!(this_sum[0].caller, ["math", "Calc", "twice"]);
        assert_eq!(
            this_sum[0].receiver,
            Receiver::This(vec!["math".to_string(), "Calc".into()].into())
        );
        // `module.exports = { add }` names `add` as the module's `add`.
        assert_eq!(target(&f, "math::add").as_deref(), Some(""));
        assert!(f
            .symbols
            .iter()
            .any(|s| s.kind == Kind::Alias && s.target == ["add"]));
        assert!(!f
            .symbols
            .iter()
            .any(|s| s.path.iter().any(|p| p == "exports")));
    }

    #[test]
    fn jsx_components_are_calls() {
        let src = "import { useState as useLocal } from 'react';\n\
                   export const Card = ({ title }) => {\n  const [open, setOpen] = useLocal(false);\n  return <Panel.Frame><Title text={title} /><div onClick={() => setOpen(!open)} /></Panel.Frame>;\n};\n\
                   export default function Page() { return <Card title=\"x\" /> }\n\
                   class Old extends React.Component { handle = () => { this.props.go() }; render() { return <><Card /></> } }\n";
        let f = index_file(
            Language::JavaScript,
            "src/components/card.jsx",
            src.as_bytes(),
        );
        assert!(!f.syntax_errors);
        assert_kinds(
            &f,
            &[
                ("components::card::Card", Kind::Function),
                ("components::card::Page", Kind::Function),
                ("components::card::Old", Kind::Class),
                ("components::card::Old::handle", Kind::Method),
                ("components::card::Old::render", Kind::Method),
            ],
        );
        assert_eq!(f.imports[0].name, "useLocal");
        assert_eq!(f.imports[0].target, ["react", "useState"]);
        // Locals of a component are not definitions.
        assert_eq!(f.kind_of("components::card::Card::open"), None);
        let title = find(&f, &["Title"]);
        assert!(title.len() == 1 && title[0].call);
        assert_eq!(title[0].caller, ["components", "card", "Card"]);
        let frame = find(&f, &["Panel", "Frame"]);
        assert_eq!(frame.len(), 1, "the closing tag is not counted");
        assert!(frame[0].member && frame[0].call);
        assert!(find(&f, &["div"]).is_empty());
        let card = find(&f, &["Card"]);
        assert_eq!(card.len(), 2);
        assert_eq!(card[0].caller, ["components", "card", "Page"]);
        assert_eq!(card[1].caller, ["components", "card", "Old", "render"]);
        let set_open = find(&f, &["setOpen"]);
        assert_eq!(set_open.len(), 1);
        assert_eq!(set_open[0].caller, ["components", "card", "Card"]);
        let go = find(&f, &["props", "go"]);
        assert!(go.len() == 1 && go[0].member);
        assert_eq!(go[0].caller, ["components", "card", "Old", "handle"]);
        let base = find(&f, &["React", "Component"]);
        assert!(base.len() == 1 && !base[0].call && base[0].member);
    }

    #[test]
    fn typescript_scopes_generics_and_declarations() {
        let src = r#"export abstract class Repo<T> implements store.Source<T> {
  abstract load(id: string): Promise<T>;
  private cache: Map<string, T> = new Map();
}
namespace A.B { export const C = 1; export interface I { run(): void } }
declare function boot(opts: Options): void;
const Widget = class { paint() { draw(); } };
let counter = 0, reset = () => { counter = 0 };
const { x, y } = point;
function outer() {
  const limit = 3;
  function inner(): Result { return compute(limit) }
  const arrow = () => inner();
  return arrow;
}
export * as shapes from './shapes/index';
import fs = require("fs");
"#;
        let f = index_file(Language::TypeScript, "src/data/repo.ts", src.as_bytes());
        assert!(!f.syntax_errors);
        assert_kinds(
            &f,
            &[
                ("data::repo::Repo", Kind::Class),
                ("data::repo::Repo::load", Kind::Method),
                ("data::repo::Repo::cache", Kind::Field),
                ("data::repo::A", Kind::Module),
                ("data::repo::A::B", Kind::Module),
                ("data::repo::A::B::C", Kind::Constant),
                ("data::repo::A::B::I", Kind::Interface),
                ("data::repo::A::B::I::run", Kind::Method),
                ("data::repo::boot", Kind::Function),
                ("data::repo::Widget", Kind::Class),
                ("data::repo::Widget::paint", Kind::Method),
                ("data::repo::counter", Kind::Constant),
                ("data::repo::reset", Kind::Function),
                ("data::repo::outer", Kind::Function),
                ("data::repo::outer::inner", Kind::Function),
                ("data::repo::outer::arrow", Kind::Function),
                ("data::repo::shapes", Kind::Alias),
            ],
        );
        assert_eq!(
            target(&f, "data::repo::shapes").as_deref(),
            Some("./shapes/index")
        );
        assert!(f
            .imports
            .iter()
            .any(|i| i.name == "fs" && i.target == ["fs"]));
        for absent in [
            "data::repo::x",
            "data::repo::outer::limit",
            "data::repo::limit",
        ] {
            assert_eq!(f.kind_of(absent), None, "{absent}");
        }
        // Type parameters are not references; real type uses are.
        assert!(find(&f, &["T"]).is_empty(), "{:#?}", f.references);
        assert!(!find(&f, &["Promise"]).is_empty());
        let source = find(&f, &["store", "Source"]);
        assert!(source.len() == 1 && !source[0].call && !source[0].member);
        let options = find(&f, &["Options"]);
        assert_eq!(options.len(), 1);
        assert_eq!(options[0].caller, ["data", "repo", "boot"]);
        let draw = find(&f, &["draw"]);
        assert_eq!(draw.len(), 1);
        assert_eq!(draw[0].caller, ["data", "repo", "Widget", "paint"]);
        let compute = find(&f, &["compute"]);
        assert_eq!(compute.len(), 1);
        assert_eq!(compute[0].caller, ["data", "repo", "outer", "inner"]);
        let inner = find(&f, &["inner"]);
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].caller, ["data", "repo", "outer", "arrow"]);
        let map = find(&f, &["Map"]);
        assert!(map.iter().any(|r| r.call) && map.iter().any(|r| !r.call));
    }

    /// A value use: not a call, `member` as given.
    fn value_use<'f>(file: &'f FileIndex, path: &[&str], member: bool) -> Vec<&'f Reference> {
        find(file, path)
            .into_iter()
            .filter(|r| !r.call && r.member == member)
            .collect()
    }

    #[test]
    fn typescript_names_used_as_values_are_references_and_locals_are_not() {
        let src = "export const VERSION = \"1\";\nfunction add(a: number, b: number) { return a + b }\nexport function total(xs: number[]) { const sum = xs.reduce(add, 0); const v = VERSION; const t = config.TIMEOUT; return sum + v.length + t }\n";
        let f = index_file(Language::TypeScript, "src/calc.ts", src.as_bytes());
        assert!(!f.syntax_errors);
        let version = value_use(&f, &["VERSION"], false);
        assert_eq!(version.len(), 1, "{:#?}", f.references);
        assert_eq!(version[0].caller, ["calc", "total"]);
        assert_eq!(version[0].line, 3);
        let add = value_use(&f, &["add"], false);
        assert_eq!(add.len(), 1, "{:#?}", f.references);
        assert_eq!(add[0].caller, ["calc", "total"]);
        let timeout = value_use(&f, &["config", "TIMEOUT"], true);
        assert_eq!(timeout.len(), 1, "{:#?}", f.references);
        assert_eq!(timeout[0].caller, ["calc", "total"]);
        // The property is not recorded on its own; the callee `xs.reduce`
        // is recorded once, as a call on the parameter `xs`.
        assert!(find(&f, &["TIMEOUT"]).is_empty());
        let reduce = find(&f, &["reduce"]);
        assert!(reduce.len() == 1 && reduce[0].call && reduce[0].receiver != Receiver::None);
        // `v.length` reads `length` on the local `v`.
        let length = find(&f, &["length"]);
        assert!(length.len() == 1 && !length[0].call && length[0].receiver == Receiver::Unknown);
        for local in ["sum", "xs", "v", "t", "a", "b", "config"] {
            assert!(
                find(&f, &[local]).is_empty(),
                "{local}: {:#?}",
                f.references
            );
        }
        assert!(find(&f, &["v", "length"]).is_empty());
    }

    #[test]
    fn javascript_names_used_as_values_and_binding_sites() {
        let src = "import { LIMIT } from './limits';\n\
                   const handlers = { onSave };\n\
                   export default function run(items, { retries = RETRIES, ...rest }, [first] = DEFAULTS) {\n\
                   \x20 let count = 0;\n\
                   \x20 for (const item of items) { count += item.size > LIMIT ? 1 : 0; }\n\
                   \x20 try { items.forEach((x, i) => use(x, i, first, rest, arguments)); } catch (err) { report(err, this, undefined) }\n\
                   \x20 const named = function self() { return self; };\n\
                   \x20 outer: for (const k in handlers) { if (k) break outer; }\n\
                   \x20 const o = { [KEY]: count, label: TEXT, named };\n\
                   \x20 return <Panel title={TITLE} onClick={handlers.onSave}>{o}</Panel>;\n\
                   }\n\
                   export { handlers as byName };\n";
        let f = index_file(Language::JavaScript, "src/jobs/run.jsx", src.as_bytes());
        assert!(!f.syntax_errors);
        let run = ["jobs", "run", "run"];
        // Read inside the function: imported and module-level names,
        // default values of parameters, computed keys and JSX expressions.
        for name in [
            "LIMIT", "RETRIES", "DEFAULTS", "KEY", "TEXT", "TITLE", "handlers",
        ] {
            let uses = value_use(&f, &[name], false);
            assert!(
                uses.iter().any(|r| r.caller == run),
                "{name}: {:#?}",
                f.references
            );
        }
        // `{ onSave }` at top level reads `onSave`.
        let on_save = value_use(&f, &["onSave"], false);
        assert!(on_save.len() == 1 && on_save[0].caller.is_empty());
        // `handlers.onSave` read (not called) in the function.
        let member = value_use(&f, &["handlers", "onSave"], true);
        assert!(member.len() == 1 && member[0].caller == run);
        // Parameters, destructuring, `for`/`catch` bindings, locals, labels,
        // keys, property names, JSX names and `this`/`arguments` are not.
        for noise in [
            "items",
            "retries",
            "rest",
            "first",
            "count",
            "item",
            "size",
            "x",
            "i",
            "err",
            "self",
            "k",
            "outer",
            "o",
            "label",
            "title",
            "onClick",
            "Panel",
            "arguments",
            "this",
            "undefined",
            "run",
        ] {
            assert!(
                value_use(&f, &[noise], false).is_empty(),
                "{noise}: {:#?}",
                f.references
            );
        }
        assert!(find(&f, &["item", "size"]).is_empty());
        // A function-valued declarator in a function is a definition
        // (`run::named`), not a local: `{ named }` uses it.
        assert_eq!(f.kind_of("jobs::run::run::named"), Some(Kind::Function));
        assert_eq!(value_use(&f, &["named"], false).len(), 1);
        assert_eq!(find(&f, &["Panel"]).len(), 1, "the component, as a call");
        // Calls keep their single record.
        assert_eq!(find(&f, &["use"]).len(), 1);
        assert_eq!(find(&f, &["report"]).len(), 1);
    }

    #[test]
    fn module_level_names_read_in_callbacks_and_nested_functions() {
        let src = "const rate = 2;\n\
                   export const scale = (xs: number[]) => xs.map(x => x * rate);\n\
                   [1, 2].forEach(n => console.log(n, rate));\n\
                   function outer() { function inner() { return rate } const arrow = () => 1; return [inner, arrow]; }\n";
        let f = index_file(Language::TypeScript, "src/scale.ts", src.as_bytes());
        let rate = value_use(&f, &["rate"], false);
        let callers: Vec<String> = rate.iter().map(|r| r.caller.join("::")).collect();
        assert_eq!(callers, ["scale::scale", "", "scale::outer::inner"]);
        assert!(value_use(&f, &["n"], false).is_empty());
        assert!(value_use(&f, &["x"], false).is_empty());
        // Nested functions are definitions, not locals: using them as
        // values is recorded.
        for name in ["inner", "arrow"] {
            let uses = value_use(&f, &[name], false);
            assert!(
                uses.len() == 1 && uses[0].caller == ["scale", "outer"],
                "{name}: {:#?}",
                f.references
            );
        }
    }

    #[test]
    fn garbage_never_panics() {
        for language in [Language::TypeScript, Language::Tsx, Language::JavaScript] {
            for src in [
                &b""[..],
                b"class {",
                b"export { as } from",
                b"import * as from ''",
                b"namespace . { function",
                b"const = () =>",
                b"<Foo.<",
                b"enum { = }",
                b"}}}} fn ( class <<< \xff\xfe",
                b"class A { [x]() {} 'q' = 1; 3() {} }",
            ] {
                let _ = index_file(language, "src/x.ts", src);
            }
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 10_000;
        let calls = format!(
            "function f(x) {{ return {}1{} }}\n",
            "g(".repeat(depth),
            ")".repeat(depth)
        );
        let arrays = format!("const a = {}0{};\n", "[".repeat(depth), "]".repeat(depth));
        // Nested arrows and a nested destructuring pattern: the locals scan
        // and the pattern walk are iterative too.
        let arrows = format!(
            "const R = 1;\nfunction f() {{ return {}R }}\n",
            "(x) => ".repeat(depth)
        );
        let pattern = format!(
            "function f() {{ const {}z{} = o; return z }}\n",
            "{a: ".repeat(depth),
            "}".repeat(depth)
        );
        for language in [Language::TypeScript, Language::Tsx, Language::JavaScript] {
            let f = index_file(language, "src/deep.ts", calls.as_bytes());
            assert_eq!(find(&f, &["g"]).len(), depth);
            assert!(find(&f, &["g"]).iter().all(|r| r.caller == ["deep", "f"]));
            let f = index_file(language, "src/deep.ts", arrays.as_bytes());
            assert_eq!(f.kind_of("deep::a"), Some(Kind::Constant));
            let f = index_file(language, "src/deep.ts", arrows.as_bytes());
            let r = find(&f, &["R"]);
            assert!(r.len() == 1 && r[0].caller == ["deep", "f"] && !r[0].call);
            assert!(find(&f, &["x"]).is_empty());
            let f = index_file(language, "src/deep.ts", pattern.as_bytes());
            assert_eq!(find(&f, &["o"]).len(), 1);
            assert!(find(&f, &["z"]).is_empty() && find(&f, &["a"]).is_empty());
        }
    }

    /// `function f0(){g();function f1(){g(); … }}`: N definitions N deep,
    /// each calling `g`.
    fn nested_functions(depth: usize) -> String {
        let mut src: String = (0..depth)
            .map(|i| format!("function f{i}(){{g();"))
            .collect();
        src.push_str(&"}".repeat(depth));
        src
    }

    /// Definition `i` is `f0::…::fi` under the module, and the `i`-th call
    /// of `g` is made from it.
    fn check_nested_functions(f: &FileIndex, depth: usize) {
        assert!(!f.syntax_errors);
        assert_eq!(f.symbols.len(), depth);
        let calls = find(f, &["g"]);
        assert_eq!(calls.len(), depth);
        for (i, (symbol, call)) in f.symbols.iter().zip(&calls).enumerate() {
            assert_eq!(symbol.path.len(), i + 2);
            assert_eq!(symbol.path.last(), Some(&format!("f{i}")));
            assert_eq!(call.caller, symbol.path);
        }
        let deepest = &f.symbols[depth - 1];
        assert_eq!(deepest.path.get(0).map(String::as_str), Some("deep"));
        assert_eq!(deepest.kind, Kind::Function);
    }

    #[test]
    fn deep_nesting_keeps_the_entry_linear() {
        for (language, path) in [
            (Language::JavaScript, "src/deep.js"),
            (Language::TypeScript, "src/deep.ts"),
            (Language::Tsx, "src/deep.tsx"),
        ] {
            crate::adapters::assert_deep_linear(
                language,
                path,
                nested_functions,
                check_nested_functions,
            );
        }
        // Classes in methods, each generic: `T{i}` is a type parameter in
        // scope (not a use), `U` is a use at every level.
        let classes = |depth: usize| {
            let mut src: String = (0..depth)
                .map(|i| format!("class C{i}<T{i}>{{m(x: T{i}, y: U){{g();"))
                .collect();
            src.push_str(&"}}".repeat(depth));
            src
        };
        let check = |f: &FileIndex, depth: usize| {
            assert!(!f.syntax_errors);
            assert_eq!(f.symbols.len(), 2 * depth);
            let deepest = &f.symbols[2 * depth - 1];
            assert_eq!(
                (deepest.kind, deepest.path.len()),
                (Kind::Method, 2 * depth + 1)
            );
            let calls = find(f, &["g"]);
            assert_eq!(calls.len(), depth);
            assert_eq!(calls[depth - 1].caller, deepest.path);
            assert_eq!(find(f, &["U"]).len(), depth);
            assert!(
                find(f, &["T0"]).is_empty() && find(f, &[&format!("T{}", depth - 1)]).is_empty()
            );
        };
        for (language, path) in [
            (Language::TypeScript, "src/deep.ts"),
            (Language::Tsx, "src/deep.tsx"),
        ] {
            crate::adapters::assert_deep_linear(language, path, classes, check);
        }
    }
}
