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

use super::{Extracted, NamesInScope, ScopedNames};
use crate::model::{Kind, QualifiedPath};

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
}

/// One pending node: the node, the index of its context, and its position.
type Item<'t> = (Node<'t>, usize, Pos);

/// The walk's state.
struct Walker<'s> {
    source: &'s [u8],
    ctxs: Vec<Ctx>,
    /// One set of local names per outermost function.
    locals: Vec<HashSet<String>>,
    /// Answers whether a name is a type parameter in a context.
    type_params: NamesInScope,
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
        }],
        locals: Vec::new(),
        type_params: NamesInScope::default(),
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

/// The node's source text (lossy for invalid UTF-8; empty when out of range).
fn text(node: Node, source: &[u8]) -> String {
    source
        .get(node.byte_range())
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
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

    /// A context for the body of the function or method symbol `path`.
    fn function_ctx(&mut self, parent: usize, path: QualifiedPath, node: Node) -> usize {
        let params = self.type_params(node);
        let locals = self.locals_for(node, parent, true);
        self.child_ctx(parent, |c| {
            c.scope = path.clone();
            c.caller = path;
            c.in_function = true;
            c.type_params = c.type_params.with(params);
            c.locals = Some(locals);
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
        let names = self.scan_locals(node, defines);
        self.locals.push(names);
        self.locals.len() - 1
    }

    /// The names bound anywhere in the function `root`: parameters,
    /// declarators, destructuring, `for … of/in` and `catch` bindings, named
    /// function expressions, nested functions' included.
    fn scan_locals(&self, root: Node, defines: bool) -> HashSet<String> {
        let mut names = HashSet::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "formal_parameters" => {
                    let mut cursor = n.walk();
                    for p in n.named_children(&mut cursor) {
                        self.pattern_names(p, &mut names);
                    }
                }
                "arrow_function" => {
                    if let Some(p) = n.child_by_field_name("parameter") {
                        self.pattern_names(p, &mut names);
                    }
                }
                "variable_declarator" => {
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
        names
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

    /// A member read without a call: `ns.NAME` on a non-local name is a
    /// member reference; otherwise the object is walked.
    fn member_read<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let object = node.child_by_field_name("object");
        let property = node.child_by_field_name("property");
        match (object, property) {
            (Some(o), Some(p)) if o.kind() == "identifier" => {
                let name = self.text(o);
                if self.is_value_name(&name, ctx) {
                    let path = vec![name, self.text(p)];
                    self.refer(path, true, false, p, ctx);
                }
            }
            _ => push_fields(stack, node, ctx, |f| {
                (f != Some("property")).then_some(Pos::Other)
            }),
        }
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
                let inner = self.function_ctx(ctx, path, node);
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
                let inner = self.function_ctx(ctx, path, node);
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
                let locals = self.locals_for(node, ctx, self.ctxs[ctx].in_function);
                let inner = if self.ctxs[ctx].locals == Some(locals) {
                    ctx
                } else {
                    self.child_ctx(ctx, |c| c.locals = Some(locals))
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
        let callee = node.child_by_field_name(field);
        let recorded = callee.filter(|c| self.callee(*c, ctx));
        push_children(stack, node, ctx, Pos::Other, &Vec::from_iter(recorded));
        let root = recorded
            .filter(|c| c.kind() == "member_expression")
            .and_then(chain_root)
            .filter(|r| !matches!(r.kind(), "identifier" | "this" | "super"));
        stack.extend(root.map(|r| (r, ctx, Pos::Other)));
    }

    /// Records a call of `callee` (an identifier or member chain); false
    /// for anything else (to be walked instead).
    fn callee(&mut self, callee: Node, ctx: usize) -> bool {
        match callee.kind() {
            "identifier" => {
                let name = self.text(callee);
                self.refer(vec![name], false, true, callee, ctx);
                true
            }
            "member_expression" => {
                let (path, at) = self.member_path(callee);
                self.refer(path, true, true, at, ctx);
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
        let in_function = self.ctxs[ctx].in_function;
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
            let Some(name) = name.filter(|n| n.kind() == "identifier") else {
                // A destructuring pattern: only its default values are walked.
                items.extend(name.map(|n| (n, ctx, Pos::Pattern)));
                items.extend(value.map(|v| (v, ctx, Pos::Other)));
                continue;
            };
            let text = self.text(name);
            let path = join(&self.ctxs[ctx].scope, &text);
            let may_define = pos == Pos::Top || in_function;
            match value {
                Some(v) if may_define && is_function_value(v.kind()) => {
                    self.define(path.clone(), Kind::Function, name, Vec::new());
                    let inner = self.function_ctx(ctx, path, v);
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
                let inner = self.function_ctx(ctx, path, v);
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
                push_children(stack, node, ctx, Pos::Other, &[name]);
            }
        }
    }

    /// Import renames and namespace imports.
    fn import(&mut self, node: Node, ctx: usize) {
        let source = node
            .child_by_field_name("source")
            .map(|s| source_segment(&self.string_text(s)));
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "import_clause" => {
                    let mut inner = child.walk();
                    let parts: Vec<Node> = child.named_children(&mut inner).collect();
                    for part in parts {
                        match part.kind() {
                            "named_imports" => self.named_imports(part, source.as_deref(), ctx),
                            "namespace_import" => {
                                let mut c = part.walk();
                                let alias = part
                                    .named_children(&mut c)
                                    .find(|n| n.kind() == "identifier");
                                if let Some(alias) = alias {
                                    self.alias(alias, source.as_deref(), None, ctx);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "import_require_clause" => {
                    let required = child
                        .child_by_field_name("source")
                        .map(|s| source_segment(&self.string_text(s)));
                    let mut c = child.walk();
                    let alias = child
                        .named_children(&mut c)
                        .find(|n| n.kind() == "identifier");
                    if let Some(alias) = alias {
                        self.alias(alias, required.as_deref(), None, ctx);
                    }
                }
                _ => {}
            }
        }
    }

    /// `{ a as b }` in an import: each rename is an alias.
    fn named_imports(&mut self, node: Node, source: Option<&str>, ctx: usize) {
        let mut cursor = node.walk();
        let specifiers: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|s| s.kind() == "import_specifier")
            .collect();
        for specifier in specifiers {
            let (Some(name), Some(alias)) = (
                specifier.child_by_field_name("name"),
                specifier.child_by_field_name("alias"),
            ) else {
                continue;
            };
            let original = self.name_text(name);
            self.alias(alias, source, Some(&original), ctx);
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

    /// Defines the alias named by `at`, targeting `source::original`.
    fn alias(&mut self, at: Node, source: Option<&str>, original: Option<&str>, ctx: usize) {
        let name = self.name_text(at);
        if name.is_empty() {
            return;
        }
        let mut target: Vec<String> = Vec::new();
        target.extend(source.filter(|s| !s.is_empty()).map(str::to_string));
        target.extend(original.filter(|s| !s.is_empty()).map(str::to_string));
        if target.is_empty() {
            return;
        }
        let path = join(&self.ctxs[ctx].scope, &name);
        self.define(path, Kind::Alias, at, target);
    }

    /// Aliases an `export` statement defines; returns the children already
    /// read (not to be walked).
    fn export<'t>(&mut self, node: Node<'t>, ctx: usize) -> Vec<Node<'t>> {
        let source_node = node.child_by_field_name("source");
        let source = source_node.map(|s| source_segment(&self.string_text(s)));
        let mut read: Vec<Node<'t>> = source_node.into_iter().collect();
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "export_clause" => {
                    read.push(child);
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
                        match (alias, &source) {
                            (Some(alias), _) => {
                                self.alias(alias, source.as_deref(), Some(&original), ctx)
                            }
                            (None, Some(_)) => {
                                self.alias(name, source.as_deref(), Some(&original), ctx)
                            }
                            (None, None) => {}
                        }
                    }
                }
                "namespace_export" => {
                    read.push(child);
                    let mut c = child.walk();
                    let alias = child
                        .named_children(&mut c)
                        .find(|n| matches!(n.kind(), "identifier" | "string"));
                    if let Some(alias) = alias {
                        self.alias(alias, source.as_deref(), None, ctx);
                    }
                }
                _ => {}
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Reference};

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
                ("ui::app::b", Kind::Alias),
                ("ui::app::icons", Kind::Alias),
                ("ui::app::h", Kind::Alias),
                ("ui::app::Thing", Kind::Alias),
            ],
        );
        assert_eq!(target(&f, "ui::app::b").as_deref(), Some("x::a"));
        assert_eq!(target(&f, "ui::app::icons").as_deref(), Some("icons"));
        assert_eq!(target(&f, "ui::app::h").as_deref(), Some("helper"));
        assert_eq!(
            target(&f, "ui::app::Thing").as_deref(),
            Some("things::Thing")
        );
        // A default import is not an alias; nothing escapes the module path.
        assert_eq!(f.kind_of("ui::app::React"), None);
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

        let trim = find(&f, &["x", "trim"]);
        assert!(trim.len() == 1 && trim[0].member && trim[0].call);
        assert_eq!(trim[0].caller, ["ui", "app", "format"]);
        // `super()` is not a reference; `this.title` is not a call.
        assert!(find(&f, &["super"]).is_empty());
        assert!(find(&f, &["title"]).is_empty());
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
        let reduce = find(&f, &["xs", "reduce"]);
        assert!(reduce.len() == 1 && reduce[0].member);
        assert_eq!(reduce[0].caller, ["math", "Calc", "sum"]);
        let this_sum = find(&f, &["sum"]);
        assert!(this_sum.len() == 1 && this_sum[0].member && this_sum[0].call);
        assert_eq!(this_sum[0].caller, ["math", "Calc", "twice"]);
        // `module.exports = …` defines nothing.
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
                ("components::card::useLocal", Kind::Alias),
            ],
        );
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
                ("data::repo::fs", Kind::Alias),
            ],
        );
        assert_eq!(target(&f, "data::repo::shapes").as_deref(), Some("shapes"));
        assert_eq!(target(&f, "data::repo::fs").as_deref(), Some("fs"));
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
        // is recorded once, as a call.
        assert!(find(&f, &["TIMEOUT"]).is_empty());
        let reduce = find(&f, &["xs", "reduce"]);
        assert!(reduce.len() == 1 && reduce[0].call);
        for local in ["sum", "xs", "v", "t", "a", "b", "length", "config"] {
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
