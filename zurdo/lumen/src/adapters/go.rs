//! The Go adapter.
//!
//! Qualified names start with the file's `package` clause name (the module
//! path derived from the file's directory is used only when a file has no
//! package clause), so `func (c *Config) Load()` in `package store` is
//! `store::Config::Load`.
//!
//! Definitions mapped:
//!
//! * the `package` clause → [`Kind::Module`] `[package]` (one per file);
//! * `function_declaration` → [`Kind::Function`];
//! * `method_declaration` → [`Kind::Method`], qualified by its receiver's
//!   type name with pointer and type arguments stripped
//!   (`func (l *List[T]) Push` → `List::Push`);
//! * `type_spec` with a `struct_type` → [`Kind::Class`], and each named
//!   field of that struct → [`Kind::Field`] (`Type::field`; embedded
//!   fields have no name of their own and are not fields here);
//! * `type_spec` with an `interface_type` → [`Kind::Interface`], and each
//!   of its `method_elem`s → [`Kind::Method`] (`Iface::M`);
//! * any other `type_spec` (`type Celsius float64`) → [`Kind::Type`];
//! * `type_alias` (`type A = B`) → [`Kind::Alias`], its target the aliased
//!   type's name segments (`["B"]`, `["pkg", "B"]`; pointer and type
//!   arguments stripped, empty for a composite type);
//! * `const_spec` names → [`Kind::Constant`];
//! * package-level `var_spec` names → [`Kind::Constant`].
//!
//! Types and constants declared inside a function are qualified by that
//! function (`store::F::local`). The blank name `_` is never a definition.
//!
//! References mapped, each with the innermost enclosing function or method
//! as its caller (function literals belong to the function they are in):
//!
//! * a call whose callee is an identifier, `helper()` → `["helper"]`;
//! * a call whose callee is a selector, `c.Load()` / `pkg.Func()` →
//!   `["c", "Load"]` with `member` set (a package and a value cannot be
//!   told apart syntactically; a chain of names keeps every segment, a
//!   chain rooted in anything else keeps the names after it);
//! * an explicitly instantiated generic call, `Map[int](xs)` → `["Map"]`;
//! * type uses: a `type_identifier` (`var c Config`, `&Config{}`) →
//!   `["Config"]` and a `qualified_type` `pkg.Type` → `["pkg", "Type"]`,
//!   neither a call. Predeclared types (`int`, `error`, `any`, …) and the
//!   type parameters in scope are not recorded, nor is a method's receiver
//!   type (it is part of the method's definition);
//! * a name used as a value without a call (`n := MaxRetries`,
//!   `sort.Slice(xs, less)`, `f := helper`, `[N]int`) → `["MaxRetries"]`,
//!   not a call. Not recorded: definitions' own names, binding sites
//!   (parameters, results, receivers, type parameters, `:=`, `var`, `range`
//!   and `select` variables, type-switch bindings), struct-literal keys
//!   (`Config{Port: 1}`; a key is a value only in a map, slice or array
//!   literal), labels, `_`, the predeclared identifiers (`nil`, `true`,
//!   `iota`, `len`, `int`, …), and **locals**: a name bound anywhere in the
//!   enclosing top-level function or method (its receiver, parameters and
//!   results, and every `:=`, `var`, `range`, `select` and type-switch
//!   binding in its body, function literals included; a simple per-function
//!   set, so shadowing is not tracked). Package-level names are not locals;
//!   local `const`s are definitions, so reading one is recorded;
//! * a selector read without a call whose operand is a name that is not a
//!   local, `t := config.Timeout` → `["config", "Timeout"]` with `member`
//!   set (a longer chain `pkg.Var.Field` records its first two segments);
//!   a selector on a local or on an expression (`c.Port`, `f().X`) records
//!   nothing for the field, and the expression is walked.
//!
//! Not mapped: field reads on values (`c.Port`), function literals
//! (anonymous), labels, and imports.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::{member_chain, text, Extracted, ScopedNames};
use crate::model::{Kind, QualifiedPath, Receiver};

/// Go's predeclared type names: uses of these are not references.
const PREDECLARED: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// Go's other predeclared identifiers (constants, zero value, builtin
/// functions) and the blank name: never recorded as values.
const PREDECLARED_VALUES: &[&str] = &[
    "_", "true", "false", "iota", "nil", "append", "cap", "clear", "close", "complex", "copy",
    "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real",
    "recover",
];

/// The scope a node is read in. Paths and type parameters are shared with
/// the enclosing contexts, so a context (one per function literal) costs
/// the same at any depth.
#[derive(Clone)]
struct Ctx {
    /// What definitions here are qualified with.
    scope: QualifiedPath,
    /// The innermost enclosing function or method (empty at package level).
    caller: QualifiedPath,
    /// Inside a function body (or function literal): `var` is not a constant.
    local: bool,
    /// Type parameter names in scope: uses of these are not references.
    type_params: ScopedNames,
    /// The locals of the enclosing top-level function (an index into
    /// `Walker::locals`); `None` at package level.
    locals: Option<usize>,
}

/// One pending node: the node and the index of its context.
type Item<'t> = (Node<'t>, usize);

/// The walk's state.
struct Walker<'s> {
    source: &'s [u8],
    ctxs: Vec<Ctx>,
    /// One set of local names per top-level function or method.
    locals: Vec<HashSet<String>>,
    /// What those locals hold, when a declaration, composite literal or
    /// constructor call says so (`None`: several or unknown values).
    local_types: Vec<HashMap<String, Option<Receiver>>>,
    /// The `keyed_element`s whose key is a value, marked by their composite
    /// literal (asking each element for its parents would cost the depth
    /// of the tree per element).
    value_keys: HashSet<usize>,
    out: Extracted,
}

/// Extracts the definitions and references of one Go file's syntax tree.
/// `module` is used as the qualifier only when the file has no `package`
/// clause. Walks with an explicit stack, so deeply nested input cannot
/// overflow the call stack.
pub fn extract(tree: &Tree, source: &[u8], module: &[String]) -> Extracted {
    let root = tree.root_node();
    let package = package_name(root, source);
    let scope = match package {
        Some(name) => QualifiedPath::new().child(name),
        None => QualifiedPath::from(module),
    };
    let mut walker = Walker {
        source,
        ctxs: vec![Ctx {
            scope,
            caller: QualifiedPath::new(),
            local: false,
            type_params: ScopedNames::default(),
            locals: None,
        }],
        locals: Vec::new(),
        local_types: Vec::new(),
        value_keys: HashSet::new(),
        out: Extracted::for_source(source),
    };
    let mut stack: Vec<Item> = vec![(root, 0)];
    while let Some((node, ctx)) = stack.pop() {
        walker.visit(node, ctx, &mut stack);
    }
    walker.out
}

/// The name in the file's `package` clause.
fn package_name(root: Node, source: &[u8]) -> Option<String> {
    let mut cursor = root.walk();
    let clause = root
        .named_children(&mut cursor)
        .find(|c| c.kind() == "package_clause")?;
    let mut cursor = clause.walk();
    let name = clause
        .named_children(&mut cursor)
        .find(|c| c.kind() == "package_identifier")?;
    let text = text(name, source);
    (!text.is_empty()).then_some(text)
}

/// `scope` with `name` appended (sharing `scope`).
fn join(scope: &QualifiedPath, name: &str) -> QualifiedPath {
    scope.child(name)
}

/// Pushes `node`'s children (except those in `skip`) so that they pop in
/// source order.
fn push_children<'t>(stack: &mut Vec<Item<'t>>, node: Node<'t>, ctx: usize, skip: &[Node<'t>]) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node
        .children(&mut cursor)
        .filter(|c| c.is_named() && !skip.iter().any(|s| s.id() == c.id()))
        .collect();
    stack.extend(children.into_iter().rev().map(|c| (c, ctx)));
}

/// Pushes `node`'s named children except those in the fields named in
/// `skip`, so that they pop in source order.
fn push_except_fields<'t>(stack: &mut Vec<Item<'t>>, node: Node<'t>, ctx: usize, skip: &[&str]) {
    let mut items: Vec<Item<'t>> = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            let skipped = cursor.field_name().is_some_and(|f| skip.contains(&f));
            if child.is_named() && !skipped {
                items.push((child, ctx));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    stack.extend(items.into_iter().rev());
}

/// The operand at the root of a selector chain (`a` in `a.b.c`).
fn chain_root(node: Node) -> Option<Node> {
    let mut current = node;
    while current.kind() == "selector_expression" {
        current = current.child_by_field_name("operand")?;
    }
    Some(current)
}

/// True when `node` (a `range_clause` or `receive_statement`) declares its
/// left side with `:=`.
fn declares(node: Node) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| c.kind() == ":=");
    found
}

/// The identifiers a binding's side lists: the node itself, or the
/// identifiers of an `expression_list`.
fn bound_identifiers(node: Node) -> Vec<Node> {
    match node.kind() {
        "identifier" => vec![node],
        "expression_list" => {
            let mut cursor = node.walk();
            let names: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "identifier")
                .collect();
            names
        }
        _ => Vec::new(),
    }
}

/// True when the keys of a composite literal of type `ty` are values: in
/// a map, slice or array literal (a struct literal's keys are field names;
/// an element of a nested literal has an unknown type and is taken as a
/// struct).
fn keys_are_values(ty: Option<Node>) -> bool {
    matches!(
        ty.map(|t| t.kind()),
        Some("map_type" | "slice_type" | "array_type" | "implicit_length_array_type")
    )
}

impl<'s> Walker<'s> {
    fn text(&self, node: Node) -> String {
        text(node, self.source)
    }

    /// The names bound anywhere in the function `root` (its receiver,
    /// parameters, results and body, function literals included).
    fn scan_locals(&self, root: Node) -> (HashSet<String>, HashMap<String, Option<Receiver>>) {
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
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let mut bound: Vec<Node> = Vec::new();
            match n.kind() {
                "parameter_declaration" | "variadic_parameter_declaration" | "var_spec" => {
                    let mut cursor = n.walk();
                    let declared: Vec<Node> = n
                        .children_by_field_name("name", &mut cursor)
                        .filter(|c| c.kind() == "identifier")
                        .collect();
                    let held = match n.child_by_field_name("type") {
                        Some(t) if n.kind() != "variadic_parameter_declaration" => {
                            let path = self.type_name(Some(t));
                            (!path.is_empty()).then_some(Receiver::Type(path))
                        }
                        Some(_) => None,
                        None => n
                            .child_by_field_name("value")
                            .and_then(|v| v.named_child(0))
                            .filter(|_| declared.len() == 1)
                            .and_then(|v| self.held(v)),
                    };
                    for d in &declared {
                        record(self.text(*d), held.clone());
                    }
                    bound.extend(declared);
                }
                "short_var_declaration" => {
                    let left = n
                        .child_by_field_name("left")
                        .map(bound_identifiers)
                        .unwrap_or_default();
                    let right: Vec<Node> = n
                        .child_by_field_name("right")
                        .map(|r| {
                            let mut c = r.walk();
                            r.named_children(&mut c).collect()
                        })
                        .unwrap_or_default();
                    for (i, l) in left.iter().enumerate() {
                        let held = if left.len() == right.len() {
                            self.held(right[i])
                        } else if i == 0 && right.len() == 1 {
                            // `x, err := New()`: the first result.
                            self.held(right[0])
                        } else {
                            None
                        };
                        record(self.text(*l), held);
                    }
                    bound.extend(left);
                }
                "range_clause" | "receive_statement" | "type_switch_statement"
                    if n.kind() == "type_switch_statement" || declares(n) =>
                {
                    let field = if n.kind() == "type_switch_statement" {
                        "alias"
                    } else {
                        "left"
                    };
                    let left = n
                        .child_by_field_name(field)
                        .map(bound_identifiers)
                        .unwrap_or_default();
                    for l in &left {
                        record(self.text(*l), None);
                    }
                    bound.extend(left);
                }
                _ => {}
            }
            for b in bound {
                names.insert(self.text(b));
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        (names, types)
    }

    /// What an expression assigned to a variable holds: `T{}`, `&T{}`,
    /// `new(T)` a `T`; `f()`, `pkg.F()`, `x.M()` what that returns.
    fn held(&self, value: Node) -> Option<Receiver> {
        match value.kind() {
            "composite_literal" => {
                let path = self.type_name(value.child_by_field_name("type"));
                (!path.is_empty()).then_some(Receiver::Type(path))
            }
            "unary_expression" => self.held(value.child_by_field_name("operand")?),
            "call_expression" => {
                let f = value.child_by_field_name("function")?;
                match f.kind() {
                    "identifier" if self.text(f) == "new" => {
                        let args = value.child_by_field_name("arguments")?;
                        let path = self.type_name(args.named_child(0));
                        (!path.is_empty()).then_some(Receiver::Type(path))
                    }
                    "identifier" => Some(Receiver::Call(vec![self.text(f)])),
                    "selector_expression"
                        if chain_root(f).is_some_and(|r| r.kind() == "identifier") =>
                    {
                        let (path, _) = self.selector_path(f);
                        Some(Receiver::Call(path))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// What a name read in `ctx` holds when it is a local (a value);
    /// `None` for any other name (a package, a package-level name).
    fn local(&self, name: &str, ctx: usize) -> Option<Receiver> {
        let i = self.ctxs[ctx].locals?;
        if !self.locals.get(i).is_some_and(|l| l.contains(name)) {
            return None;
        }
        let held = self
            .local_types
            .get(i)
            .and_then(|t| t.get(name).cloned().flatten());
        Some(held.unwrap_or(Receiver::Unknown))
    }

    /// Records a selector chain (a call's callee, a read): rooted in a
    /// local, the names after it on that value; rooted in another name (a
    /// package, a package-level variable), the whole chain as a path;
    /// rooted in an expression, the names after it on what the expression
    /// holds (the expression is walked).
    fn chain<'t>(&mut self, node: Node<'t>, call: bool, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let (names, root, at) =
            member_chain(node, "selector_expression", "field", "operand", self.source);
        if names.is_empty() || names.iter().any(|n| n.is_empty()) {
            push_children(stack, node, ctx, &[]);
            return;
        }
        let caller = self.ctxs[ctx].caller.clone();
        if root.kind() == "identifier" {
            let name = self.text(root);
            if let Some(held) = self.local(&name, ctx) {
                self.out.refer_chain(names, held, call, at, caller);
                return;
            }
            if name.is_empty() || name == "_" || PREDECLARED_VALUES.contains(&name.as_str()) {
                self.out
                    .refer_chain(names, Receiver::Unknown, call, at, caller);
                return;
            }
            let mut path = vec![name];
            path.extend(names);
            self.refer(path, true, call, at, ctx);
            return;
        }
        let held = self.held(root).unwrap_or(Receiver::Unknown);
        self.out.refer_chain(names, held, call, at, caller);
        stack.push((root, ctx));
    }

    /// The locals index for a function `node` read in `ctx`: the enclosing
    /// function's when there is one, else a new set scanned from `node`.
    fn locals_for(&mut self, node: Node, ctx: usize) -> usize {
        if let Some(i) = self.ctxs[ctx].locals {
            return i;
        }
        let (names, types) = self.scan_locals(node);
        self.locals.push(names);
        self.local_types.push(types);
        self.locals.len() - 1
    }

    /// True when `name` read in `ctx` may name something defined elsewhere:
    /// not blank, predeclared, a type parameter or a local.
    fn is_value_name(&self, name: &str, ctx: usize) -> bool {
        let c = &self.ctxs[ctx];
        !name.is_empty()
            && !PREDECLARED.contains(&name)
            && !PREDECLARED_VALUES.contains(&name)
            && !c.type_params.contains(name)
            && !c
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

    /// A selector read without a call (see [`Walker::chain`]).
    fn selector_read<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        self.chain(node, false, ctx, stack);
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

    /// Type parameter names declared by a `type_parameter_list`.
    fn type_params(&self, list: Option<Node>) -> Vec<String> {
        let Some(list) = list else {
            return Vec::new();
        };
        let mut names = Vec::new();
        let mut cursor = list.walk();
        for decl in list.named_children(&mut cursor) {
            if decl.kind() != "type_parameter_declaration" {
                continue;
            }
            let mut inner = decl.walk();
            for name in decl.children_by_field_name("name", &mut inner) {
                if name.kind() == "identifier" {
                    names.push(self.text(name));
                }
            }
        }
        names
    }

    fn visit<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        match node.kind() {
            "package_clause" => {
                let mut cursor = node.walk();
                let name = node
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "package_identifier");
                if let Some(name) = name {
                    let name_text = self.text(name);
                    if !name_text.is_empty() {
                        let path = QualifiedPath::new().child(name_text);
                        self.define(path, Kind::Module, name, Vec::new());
                    }
                }
            }
            "import_spec" => self.import(node),
            "function_declaration" => self.function(node, ctx, stack),
            "method_declaration" => self.method(node, ctx, stack),
            "func_literal" => {
                let locals = self.locals_for(node, ctx);
                let inner = self.child_ctx(ctx, |c| {
                    c.local = true;
                    c.locals = Some(locals);
                });
                push_children(stack, node, inner, &[]);
            }
            "type_spec" => self.type_spec(node, ctx, stack),
            "type_alias" => self.type_alias(node, ctx, stack),
            "const_spec" => self.value_spec(node, ctx, stack, true),
            "var_spec" => {
                let define = !self.ctxs[ctx].local;
                self.value_spec(node, ctx, stack, define);
            }
            "call_expression" => {
                // The callee is recorded as a call, not walked again as a
                // value; a selector chain rooted in an expression
                // (`f(x).Load()`) still walks that expression.
                let mut skip = Vec::new();
                let mut deferred = Vec::new();
                if let Some(callee) = node.child_by_field_name("function") {
                    match callee.kind() {
                        "identifier" => {
                            let name = self.text(callee);
                            self.refer(vec![name], false, true, callee, ctx);
                            skip.push(callee);
                        }
                        "selector_expression" => {
                            self.chain(callee, true, ctx, &mut deferred);
                            skip.push(callee);
                        }
                        _ => {}
                    }
                }
                push_children(stack, node, ctx, &skip);
                stack.extend(deferred);
            }
            "identifier" => self.value(node, ctx),
            "selector_expression" => self.selector_read(node, ctx, stack),
            // Binding sites: only their types and values are walked.
            "parameter_declaration"
            | "variadic_parameter_declaration"
            | "type_parameter_declaration" => push_except_fields(stack, node, ctx, &["name"]),
            "short_var_declaration" => push_except_fields(stack, node, ctx, &["left"]),
            "range_clause" | "receive_statement" if declares(node) => {
                push_except_fields(stack, node, ctx, &["left"])
            }
            "type_switch_statement" => push_except_fields(stack, node, ctx, &["alias"]),
            "composite_literal" => {
                let body = node.child_by_field_name("body");
                if let Some(body) =
                    body.filter(|_| keys_are_values(node.child_by_field_name("type")))
                {
                    let mut cursor = body.walk();
                    let keyed = body
                        .named_children(&mut cursor)
                        .filter(|c| c.kind() == "keyed_element")
                        .map(|c| c.id());
                    self.value_keys.extend(keyed);
                }
                push_children(stack, node, ctx, &[]);
            }
            "keyed_element" if !self.value_keys.remove(&node.id()) => {
                // A struct literal's field key is not a value; a key that is
                // an expression (`{f(): 1}`) is walked.
                let key = node.child_by_field_name("key");
                let bare = key.filter(|k| {
                    let mut cursor = k.walk();
                    let named: Vec<Node> = k.named_children(&mut cursor).collect();
                    k.kind() == "identifier"
                        || (named.len() == 1 && named[0].kind() == "identifier")
                });
                match bare {
                    Some(_) => push_except_fields(stack, node, ctx, &["key"]),
                    None => push_children(stack, node, ctx, &[]),
                }
            }
            "type_conversion_expression" => self.conversion(node, ctx, stack),
            "type_identifier" => {
                let name = self.text(node);
                let c = &self.ctxs[ctx];
                if !PREDECLARED.contains(&name.as_str()) && !c.type_params.contains(&name) {
                    self.refer(vec![name], false, false, node, ctx);
                }
            }
            "qualified_type" => {
                let path = self.qualified_path(node);
                self.refer(path, false, false, node, ctx);
            }
            _ => push_children(stack, node, ctx, &[]),
        }
    }

    /// `import "a/b"`, `import c "a/b"`, `import . "a/b"` (a glob); a
    /// blank import binds nothing.
    fn import(&mut self, node: Node) {
        let Some(path) = node.child_by_field_name("path") else {
            return;
        };
        let spec = self.text(path);
        let spec = spec.trim_matches(|c| c == '"' || c == '`');
        let target: Vec<String> = spec.split('/').map(str::to_string).collect();
        let name = node.child_by_field_name("name").map(|n| self.text(n));
        let scope = self.ctxs[0].scope.clone();
        match name.as_deref() {
            Some("_") => {}
            Some(".") => self.out.import(String::new(), target, node, scope, true),
            Some(alias) => self
                .out
                .import(alias.to_string(), target, node, scope, false),
            None => {
                // The package's name: the last segment, a major version
                // suffix (`/v2`) and a `go-`/`.go` decoration left out.
                let mut last = target.last().cloned().unwrap_or_default();
                if target.len() > 1
                    && last.len() > 1
                    && last.starts_with('v')
                    && last[1..].chars().all(|c| c.is_ascii_digit())
                {
                    last = target[target.len() - 2].clone();
                }
                let last = last
                    .trim_start_matches("go-")
                    .trim_end_matches(".go")
                    .split('.')
                    .next()
                    .unwrap_or_default()
                    .replace('-', "_");
                self.out.import(last, target, node, scope, false);
            }
        }
    }

    /// `func name(...)`.
    fn function<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &self.text(name));
        self.define(path.clone(), Kind::Function, name, Vec::new());
        let returns = self.result_type(node);
        if let Some(symbol) = self.out.last_symbol() {
            symbol.returns = returns;
        }
        let params = self.type_params(node.child_by_field_name("type_parameters"));
        let locals = self.locals_for(node, ctx);
        let inner = self.child_ctx(ctx, |c| {
            c.scope = path.clone();
            c.caller = path;
            c.local = true;
            c.type_params = c.type_params.with(params);
            c.locals = Some(locals);
        });
        push_children(stack, node, inner, &[name]);
    }

    /// `func (r *Recv[T]) name(...)`.
    fn method<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, &[]);
            return;
        };
        let receiver = node.child_by_field_name("receiver");
        let (receiver_type, params) = match receiver {
            Some(r) => self.receiver(r),
            None => (None, Vec::new()),
        };
        let mut path = self.ctxs[ctx].scope.clone();
        if let Some(t) = receiver_type {
            path = path.child(t);
        }
        path = path.child(self.text(name));
        self.define(path.clone(), Kind::Method, name, Vec::new());
        let returns = self.result_type(node);
        if let Some(symbol) = self.out.last_symbol() {
            symbol.returns = returns;
        }
        let locals = self.locals_for(node, ctx);
        let inner = self.child_ctx(ctx, |c| {
            c.scope = path.clone();
            c.caller = path;
            c.local = true;
            c.type_params = c.type_params.with(params);
            c.locals = Some(locals);
        });
        let mut skip = vec![name];
        skip.extend(receiver);
        push_children(stack, node, inner, &skip);
    }

    /// A function's (first) result type: `T`, `*T`, `(T, error)` → `T`.
    fn result_type(&self, node: Node) -> Vec<String> {
        let Some(result) = node.child_by_field_name("result") else {
            return Vec::new();
        };
        if result.kind() == "parameter_list" {
            let mut c = result.walk();
            let first = result.named_children(&mut c).next();
            return self.type_name(first.and_then(|p| p.child_by_field_name("type")));
        }
        self.type_name(Some(result))
    }

    /// The receiver's type name (pointer and type arguments stripped) and
    /// the type parameter names its type arguments introduce.
    fn receiver(&self, list: Node) -> (Option<String>, Vec<String>) {
        let mut cursor = list.walk();
        let Some(decl) = list
            .named_children(&mut cursor)
            .find(|c| c.kind() == "parameter_declaration")
        else {
            return (None, Vec::new());
        };
        let mut ty = decl.child_by_field_name("type");
        let mut params = Vec::new();
        // A receiver type is at most a few layers deep: `*T`, `T[A]`, `(*T)`.
        for _ in 0..8 {
            let Some(t) = ty else { break };
            match t.kind() {
                "type_identifier" => return (Some(self.text(t)), params),
                "pointer_type" | "parenthesized_type" => {
                    let mut c = t.walk();
                    ty = t.named_children(&mut c).next();
                }
                "generic_type" => {
                    if let Some(args) = t.child_by_field_name("type_arguments") {
                        let mut c = args.walk();
                        for elem in args.named_children(&mut c) {
                            let mut e = elem.walk();
                            for id in elem.named_children(&mut e) {
                                if id.kind() == "type_identifier" {
                                    params.push(self.text(id));
                                }
                            }
                        }
                    }
                    ty = t.child_by_field_name("type");
                }
                _ => break,
            }
        }
        (None, params)
    }

    /// `type Name T`: a struct, interface or other named type.
    fn type_spec<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &self.text(name));
        let ty = node.child_by_field_name("type");
        let kind = match ty.map(|t| t.kind()) {
            Some("struct_type") => Kind::Class,
            Some("interface_type") => Kind::Interface,
            _ => Kind::Type,
        };
        self.define(path.clone(), kind, name, Vec::new());
        let at = self.out.symbols.len() - 1;
        if let Some(ty) = ty {
            match kind {
                Kind::Class => {
                    let embedded = self.struct_fields(ty, &path);
                    self.out.symbols[at].bases = embedded;
                }
                Kind::Interface => self.interface_methods(ty, &path),
                _ => {}
            }
        }
        let params = self.type_params(node.child_by_field_name("type_parameters"));
        let inner = if params.is_empty() {
            ctx
        } else {
            self.child_ctx(ctx, |c| c.type_params = c.type_params.with(params))
        };
        push_children(stack, node, inner, &[name]);
    }

    /// The named fields of a struct type, as `Type::field` (with their
    /// declared types); returns the embedded types.
    fn struct_fields(&mut self, ty: Node, path: &QualifiedPath) -> Vec<Vec<String>> {
        let mut embedded = Vec::new();
        let mut cursor = ty.walk();
        let Some(list) = ty
            .named_children(&mut cursor)
            .find(|c| c.kind() == "field_declaration_list")
        else {
            return embedded;
        };
        let mut cursor = list.walk();
        for decl in list.named_children(&mut cursor) {
            if decl.kind() != "field_declaration" {
                continue;
            }
            let declared = self.type_name(decl.child_by_field_name("type"));
            let mut inner = decl.walk();
            let names: Vec<Node> = decl.children_by_field_name("name", &mut inner).collect();
            if names.is_empty() {
                // An embedded type: its methods and fields are promoted.
                if !declared.is_empty() {
                    embedded.push(declared.clone());
                }
                continue;
            }
            for name in names {
                let field = self.text(name);
                if name.kind() == "field_identifier" && !field.is_empty() && field != "_" {
                    self.define(join(path, &field), Kind::Field, name, Vec::new());
                    if let Some(symbol) = self.out.last_symbol() {
                        symbol.returns = declared.clone();
                    }
                }
            }
        }
        embedded
    }

    /// The methods an interface type lists, as `Iface::M`.
    fn interface_methods(&mut self, ty: Node, path: &QualifiedPath) {
        let mut cursor = ty.walk();
        for elem in ty.named_children(&mut cursor) {
            if elem.kind() != "method_elem" {
                continue;
            }
            if let Some(name) = elem.child_by_field_name("name") {
                let method = self.text(name);
                if !method.is_empty() {
                    self.define(join(path, &method), Kind::Method, name, Vec::new());
                }
            }
        }
    }

    /// `type Name = Target`.
    fn type_alias<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let Some(name) = node.child_by_field_name("name") else {
            push_children(stack, node, ctx, &[]);
            return;
        };
        let path = join(&self.ctxs[ctx].scope, &self.text(name));
        let target = self.type_name(node.child_by_field_name("type"));
        self.define(path, Kind::Alias, name, target);
        let params = self.type_params(node.child_by_field_name("type_parameters"));
        let inner = if params.is_empty() {
            ctx
        } else {
            self.child_ctx(ctx, |c| c.type_params = c.type_params.with(params))
        };
        push_children(stack, node, inner, &[name]);
    }

    /// A type's name segments: `T` → `["T"]`, `pkg.T` → `["pkg", "T"]`,
    /// with pointers and type arguments stripped; empty for anything else.
    fn type_name(&self, ty: Option<Node>) -> Vec<String> {
        let mut ty = ty;
        for _ in 0..8 {
            let Some(t) = ty else { break };
            match t.kind() {
                "type_identifier" => return vec![self.text(t)],
                "qualified_type" => return self.qualified_path(t),
                "generic_type" => ty = t.child_by_field_name("type"),
                "pointer_type" | "parenthesized_type" => {
                    let mut c = t.walk();
                    ty = t.named_children(&mut c).next();
                }
                _ => break,
            }
        }
        Vec::new()
    }

    /// `pkg.Type` → `["pkg", "Type"]`.
    fn qualified_path(&self, node: Node) -> Vec<String> {
        let mut path = Vec::new();
        if let Some(pkg) = node.child_by_field_name("package") {
            path.push(self.text(pkg));
        }
        if let Some(name) = node.child_by_field_name("name") {
            path.push(self.text(name));
        }
        path
    }

    /// `const`/`var` specs: each name a constant when `define` is set.
    fn value_spec<'t>(
        &mut self,
        node: Node<'t>,
        ctx: usize,
        stack: &mut Vec<Item<'t>>,
        define: bool,
    ) {
        let mut names = Vec::new();
        {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                if name.kind() == "identifier" {
                    names.push(name);
                }
            }
        }
        if define {
            for name in &names {
                let text = self.text(*name);
                if !text.is_empty() && text != "_" {
                    let path = join(&self.ctxs[ctx].scope, &text);
                    self.define(path, Kind::Constant, *name, Vec::new());
                }
            }
        }
        push_children(stack, node, ctx, &names);
    }

    /// A selector chain's segments (`a.b.C` → `["a", "b", "C"]`; a chain
    /// rooted in a call or index keeps only the names after it) and the
    /// node of its last name.
    fn selector_path<'t>(&self, node: Node<'t>) -> (Vec<String>, Node<'t>) {
        let mut segments = Vec::new();
        let mut at = node;
        let mut current = Some(node);
        let mut first = true;
        while let Some(n) = current {
            match n.kind() {
                "selector_expression" => {
                    if let Some(field) = n.child_by_field_name("field") {
                        if first {
                            at = field;
                            first = false;
                        }
                        segments.push(self.text(field));
                    }
                    current = n.child_by_field_name("operand");
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

    /// `T(x)` parsed as a conversion: with a generic type (`Map[int](xs)`)
    /// it is an instantiated generic call.
    fn conversion<'t>(&mut self, node: Node<'t>, ctx: usize, stack: &mut Vec<Item<'t>>) {
        let generic = node
            .child_by_field_name("type")
            .filter(|t| t.kind() == "generic_type");
        let Some(generic) = generic else {
            push_children(stack, node, ctx, &[]);
            return;
        };
        let base = generic.child_by_field_name("type");
        match base.map(|b| (b, b.kind())) {
            Some((b, "type_identifier")) => {
                let name = self.text(b);
                self.refer(vec![name], false, true, b, ctx);
            }
            Some((b, "qualified_type")) => {
                let path = self.qualified_path(b);
                self.refer(path, true, true, b, ctx);
            }
            _ => {
                push_children(stack, node, ctx, &[]);
                return;
            }
        }
        // The type arguments, then the operand.
        let mut items: Vec<Item<'t>> = Vec::new();
        if let Some(args) = generic.child_by_field_name("type_arguments") {
            items.push((args, ctx));
        }
        if let Some(operand) = node.child_by_field_name("operand") {
            items.push((operand, ctx));
        }
        stack.extend(items.into_iter().rev());
    }
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Receiver};

    const CONFIG: &str = r#"package store

import "fmt"

type Config struct {
	Port int
	Host, Name string
	Inner
}

func (c *Config) Load() error { return helper() }

func helper() error { return nil }

func New() *Config { c := &Config{}; c.Load(); fmt.Println(c); return c }

type Getter interface { Get() int }

type Celsius float64

type Alias = Config

const Max = 3

var Default = New()

func Map[T any](xs []T) []T { var local int; _ = local; return xs }

func (l *List[T]) Push(v T) { l.items = append(l.items, v) }

func Use() { _ = Map[int](nil); var s pkg.Store; _ = s }
"#;

    fn index(path: &str, source: &str) -> FileIndex {
        index_file(Language::Go, path, source.as_bytes())
    }

    #[test]
    fn definitions_are_qualified_by_the_package() {
        let f = index("store/config.go", CONFIG);
        assert!(!f.syntax_errors);
        for (path, kind) in [
            ("store", Kind::Module),
            ("store::Config", Kind::Class),
            ("store::Config::Port", Kind::Field),
            ("store::Config::Host", Kind::Field),
            ("store::Config::Name", Kind::Field),
            ("store::Config::Load", Kind::Method),
            ("store::helper", Kind::Function),
            ("store::New", Kind::Function),
            ("store::Getter", Kind::Interface),
            ("store::Getter::Get", Kind::Method),
            ("store::Celsius", Kind::Type),
            ("store::Alias", Kind::Alias),
            ("store::Max", Kind::Constant),
            ("store::Default", Kind::Constant),
            ("store::Map", Kind::Function),
            ("store::List::Push", Kind::Method),
            ("store::Use", Kind::Function),
        ] {
            assert_eq!(f.kind_of(path), Some(kind), "{path}: {:#?}", f.symbols);
        }
        // Embedded fields, locals and the module path are not definitions.
        assert_eq!(f.kind_of("store::Config::Inner"), None);
        assert_eq!(f.kind_of("store::Map::local"), None);
        assert_eq!(f.kind_of("store::local"), None);
        assert!(f.symbols.iter().all(|s| s.path[0] == "store"));
        let alias = f
            .symbols
            .iter()
            .find(|s| s.path.join("::") == "store::Alias");
        assert_eq!(
            alias.map(|s| s.target.clone()),
            Some(vec!["Config".to_string()])
        );
        let load = f
            .symbols
            .iter()
            .find(|s| s.path.join("::") == "store::Config::Load");
        assert_eq!(load.map(|s| s.line), Some(11));
        let module = f.symbols.iter().find(|s| s.kind == Kind::Module);
        assert_eq!(module.map(|s| s.line), Some(1));
    }

    #[test]
    fn calls_and_type_uses_are_references_with_their_caller() {
        let f = index("store/config.go", CONFIG);
        let helper = f
            .references
            .iter()
            .find(|r| r.path == ["helper"])
            .expect("helper() is referenced");
        assert!(helper.call && !helper.member);
        assert_eq!(helper.caller, ["store", "Config", "Load"]);
        assert_eq!(helper.line, 11);

        // `c := &Config{}`: `c.Load()` is `Load` on a `Config`.
        let load = f
            .references
            .iter()
            .find(|r| r.path == ["Load"])
            .expect("c.Load() is referenced");
        assert!(load.call && load.member);
        assert_eq!(load.receiver, Receiver::Type(vec!["Config".into()]));
        assert_eq!(load.caller, ["store", "New"]);
        assert!(!f.references.iter().any(|r| r.path == ["c", "Load"]));

        let println = f.references.iter().find(|r| r.path == ["fmt", "Println"]);
        assert!(println.is_some_and(|r| r.call && r.member));

        let config_uses: Vec<_> = f
            .references
            .iter()
            .filter(|r| r.path == ["Config"])
            .collect();
        assert!(config_uses.iter().all(|r| !r.call));
        // `&Config{}` and `*Config` in New, and the alias's target; never the
        // definition's own name nor Load's receiver.
        assert!(config_uses.iter().any(|r| r.caller == ["store", "New"]));
        assert!(!config_uses
            .iter()
            .any(|r| r.caller == ["store", "Config", "Load"]));
        assert!(!config_uses.iter().any(|r| r.line == 5));

        let default = f.references.iter().find(|r| r.path == ["New"]);
        assert!(default.is_some_and(|r| r.call && r.caller.is_empty()));

        let generic = f.references.iter().find(|r| r.path == ["Map"]);
        assert!(generic.is_some_and(|r| r.call && r.caller == ["store", "Use"]));
        let qualified = f.references.iter().find(|r| r.path == ["pkg", "Store"]);
        assert!(qualified.is_some_and(|r| !r.call && r.caller == ["store", "Use"]));

        // Predeclared types and type parameters are not references.
        for noise in ["int", "error", "float64", "any", "T"] {
            assert!(
                !f.references.iter().any(|r| r.path == [noise]),
                "{noise}: {:#?}",
                f.references
            );
        }
    }

    #[test]
    fn function_literals_and_grouped_declarations() {
        let src = r#"package app

const (
	A, B = 1, 2
	_ = 3
)

var (
	X int
	Y = compute()
)

type (
	P struct{ a, b int }
	Q interface{ Run(); Stop() error }
)

func Run() {
	var inner int
	f := func() { work() }
	f()
	x.y.Z()
	_ = inner
}
"#;
        let f = index("cmd/app/main.go", src);
        for (path, kind) in [
            ("app", Kind::Module),
            ("app::A", Kind::Constant),
            ("app::B", Kind::Constant),
            ("app::X", Kind::Constant),
            ("app::Y", Kind::Constant),
            ("app::P", Kind::Class),
            ("app::P::a", Kind::Field),
            ("app::P::b", Kind::Field),
            ("app::Q", Kind::Interface),
            ("app::Q::Run", Kind::Method),
            ("app::Q::Stop", Kind::Method),
            ("app::Run", Kind::Function),
        ] {
            assert_eq!(f.kind_of(path), Some(kind), "{path}: {:#?}", f.symbols);
        }
        assert!(!f
            .symbols
            .iter()
            .any(|s| s.path.last().is_some_and(|n| n == "_")));
        assert!(!f
            .symbols
            .iter()
            .any(|s| s.path.contains(&"inner".to_string())));
        let work = f.references.iter().find(|r| r.path == ["work"]);
        assert!(work.is_some_and(|r| r.caller == ["app", "Run"]));
        let chain = f.references.iter().find(|r| r.path == ["x", "y", "Z"]);
        assert!(chain.is_some_and(|r| r.member && r.call));
        let y = f.references.iter().find(|r| r.path == ["compute"]);
        assert!(y.is_some_and(|r| r.caller.is_empty()));
    }

    fn has(f: &FileIndex, path: &[&str]) -> bool {
        f.references
            .iter()
            .any(|r| r.path.iter().map(String::as_str).eq(path.iter().copied()))
    }

    #[test]
    fn names_used_as_values_are_references_and_locals_are_not() {
        let src = "package store\nconst MaxRetries = 3\nfunc less(a, b int) bool { return a < b }\nfunc Run(xs []int) int { n := MaxRetries; sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) }); f := less; _ = f; t := config.Timeout; return n + t }";
        let f = index("store/run.go", src);
        assert!(!f.syntax_errors);
        let max: Vec<_> = f
            .references
            .iter()
            .filter(|r| r.path == ["MaxRetries"])
            .collect();
        assert_eq!(max.len(), 1, "{:#?}", f.references);
        assert!(!max[0].call && !max[0].member);
        assert_eq!(max[0].caller, ["store", "Run"]);
        assert_eq!(max[0].line, 4);

        let less: Vec<_> = f.references.iter().filter(|r| r.path == ["less"]).collect();
        assert_eq!(less.len(), 2, "the call and `f := less`: {less:#?}");
        assert!(less.iter().any(|r| r.call));
        assert!(less
            .iter()
            .any(|r| !r.call && !r.member && r.caller == ["store", "Run"]));

        let timeout: Vec<_> = f
            .references
            .iter()
            .filter(|r| r.path == ["config", "Timeout"])
            .collect();
        assert_eq!(timeout.len(), 1);
        assert!(timeout[0].member && !timeout[0].call);
        assert_eq!(timeout[0].caller, ["store", "Run"]);
        // The selector's field is not recorded on its own.
        assert!(!has(&f, &["Timeout"]));

        // The callee of `sort.Slice(...)` is recorded once, as a call.
        let slice: Vec<_> = f
            .references
            .iter()
            .filter(|r| r.path == ["sort", "Slice"])
            .collect();
        assert!(slice.len() == 1 && slice[0].call);
        for local in [
            "n", "xs", "i", "j", "f", "t", "a", "b", "_", "sort", "config",
        ] {
            assert!(!has(&f, &[local]), "{local}: {:#?}", f.references);
        }
    }

    #[test]
    fn binding_sites_keys_and_predeclared_names_are_not_values() {
        let src = r#"package app

var Default = Limit
const Size = 4

type Handler func(w Writer) error

func (s *Server) Serve(items map[string]int) (err error) {
	for k, v := range items { use(k, v, Default) }
	switch x := s.cfg.(type) { default: _ = x }
	select { case m, ok := <-s.ch: _, _ = m, ok }
	c := Config{Port: Size, Host: host.Name}
	m := map[Kind]int{KindA: 1}
	arr := [Size]int{}
	var local = nil
	done := len(arr) > 0 && true
	_, _, _, _ = c, m, local, done
	s.port = DefaultPort
	return err
}

func Gen[T any](v T) T { var zero T; _ = zero; return v }
"#;
        let f = index("app/server.go", src);
        assert!(!f.syntax_errors);
        // Package-level and package-qualified names are values.
        for (path, member) in [
            (&["Limit"][..], false),
            (&["Default"][..], false),
            (&["Size"][..], false),
            (&["host", "Name"][..], true),
            (&["KindA"][..], false),
            (&["DefaultPort"][..], false),
        ] {
            let found = f
                .references
                .iter()
                .find(|r| r.path.iter().map(String::as_str).eq(path.iter().copied()));
            assert!(
                found.is_some_and(|r| !r.call && r.member == member),
                "{path:?}: {:#?}",
                f.references
            );
        }
        let size: Vec<_> = f.references.iter().filter(|r| r.path == ["Size"]).collect();
        assert_eq!(size.len(), 2, "the struct value and the array length");
        assert!(size.iter().all(|r| r.caller == ["app", "Server", "Serve"]));
        let limit = f.references.iter().find(|r| r.path == ["Limit"]);
        assert!(limit.is_some_and(|r| r.caller.is_empty()));
        // Binding sites, locals, struct keys, predeclared names and type
        // parameters are not.
        for noise in [
            "w", "s", "items", "err", "k", "v", "x", "m", "ok", "c", "arr", "local", "done",
            "Port", "Host", "nil", "true", "len", "T", "zero", "cfg", "ch", "port",
        ] {
            assert!(
                !f.references
                    .iter()
                    .any(|r| r.path == [noise] && !r.call && r.receiver == Receiver::None),
                "{noise}: {:#?}",
                f.references
            );
        }
        assert!(!has(&f, &["s", "cfg"]) && !has(&f, &["s", "port"]));
        // Reads of a field on a local value are members on that value.
        assert!(f
            .references
            .iter()
            .any(|r| r.path.first().is_some_and(|p| p == "cfg") && r.receiver != Receiver::None));
    }

    #[test]
    fn a_file_without_a_package_clause_uses_the_module_path() {
        let f = index("a/b/x.go", "func F() {}\n");
        assert!(f.symbols.iter().any(|s| s.path.join("::") == "a::b::F"));
    }

    #[test]
    fn garbage_never_panics() {
        for src in [
            "",
            "package",
            "package p\nfunc (",
            "package p\nfunc (x *) M() {}",
            "package p\ntype = struct {",
            "}}}} func ( type <<< \u{fffd}",
            "package p\nvar x = [](",
        ] {
            let _ = index("p/x.go", src);
        }
        let _ = index_file(Language::Go, "p/x.go", b"package p\n\xff\xfe func \xc3(");
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 10_000;
        let src = format!(
            "package deep\n\nfunc F() int {{ return {}1{} }}\n",
            "f(".repeat(depth),
            ")".repeat(depth)
        );
        let f = index("deep/x.go", &src);
        assert!(f.kind_of("deep::F").is_some());
        let calls = f.references.iter().filter(|r| r.path == ["f"]).count();
        assert_eq!(calls, depth);
        // Nested function literals and parentheses around a value.
        let src = format!(
            "package deep\n\nfunc G() {{ _ = {}({}R{}){} }}\n",
            "func(x int) int { return ".repeat(depth),
            "(".repeat(depth),
            ")".repeat(depth),
            " }(1)".repeat(depth)
        );
        let f = index("deep/x.go", &src);
        let r: Vec<_> = f.references.iter().filter(|r| r.path == ["R"]).collect();
        assert!(r.len() == 1 && r[0].caller == ["deep", "G"] && !r[0].call);
        assert!(!f.references.iter().any(|r| r.path == ["x"]));
    }

    #[test]
    fn deep_nesting_keeps_the_entry_linear() {
        // A generic function with 1,000 type parameters around N nested
        // function literals, each calling `g`, reading a local of a type
        // parameter's type and declaring a struct with a field of type
        // `U`. Go names no nested function, so paths stay short: what grew
        // here was memory (every literal copied the type parameters).
        let source = |depth: usize| {
            let params: Vec<String> = (0..1_000).map(|i| format!("T{i}")).collect();
            format!(
                "package deep\n\nfunc F[{} any]() {{ {}{} }}\n",
                params.join(", "),
                "func() { g(); var x T7; _ = x; type S struct{ f U }; ".repeat(depth),
                "}()".repeat(depth)
            )
        };
        let check = |f: &FileIndex, depth: usize| {
            assert!(!f.syntax_errors);
            assert_eq!(f.symbols.len(), 2 + 2 * depth);
            assert_eq!(f.kind_of("deep::F::S::f"), Some(Kind::Field));
            let calls: Vec<_> = f.references.iter().filter(|r| r.path == ["g"]).collect();
            assert_eq!(calls.len(), depth);
            assert!(calls.iter().all(|r| r.caller == ["deep", "F"]));
            let uses = f.references.iter().filter(|r| r.path == ["U"]).count();
            assert_eq!(uses, depth);
            assert!(!f
                .references
                .iter()
                .any(|r| r.path == ["T7"] || r.path == ["x"]));
        };
        crate::adapters::assert_deep_linear(Language::Go, "deep/deep.go", source, check);
    }

    #[test]
    fn deeply_nested_composite_literals_take_linear_time() {
        // A map literal's keys are values, a struct literal's are field
        // names: told for each element without asking for its parents
        // (which costs the depth of the tree per element).
        let source = |depth: usize| {
            format!(
                "package deep\n\nvar M = {}1{}\nvar S = {}nil{}\n",
                "map[string]any{K: ".repeat(depth),
                "}".repeat(depth),
                "&T{Next: ".repeat(depth),
                "}".repeat(depth)
            )
        };
        let check = |f: &FileIndex, depth: usize| {
            assert!(!f.syntax_errors);
            let count = |name: &str| f.references.iter().filter(|r| r.path == [name]).count();
            assert_eq!((count("K"), count("T"), count("Next")), (depth, depth, 0));
        };
        crate::adapters::assert_deep_linear(Language::Go, "deep/deep.go", source, check);
    }
}
