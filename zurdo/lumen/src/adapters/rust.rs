//! The Rust adapter: one `.rs` file's syntax tree → definitions and
//! references.
//!
//! Definitions (each qualified by the file's module path, then the enclosing
//! inline `mod`s, types and functions):
//!
//! * `function_item` → [`Kind::Function`]; directly inside an `impl` or a
//!   `trait` → [`Kind::Method`], as is a trait's `function_signature_item`
//!   (one in an `extern` block is a `Function`). A nested `fn` is qualified
//!   by its enclosing function (`outer::inner`).
//! * `impl Type` / `impl Trait for Type` qualify their items by the type's
//!   last segment, generics stripped (`impl<T> a::Foo<T>` → `Foo`, `&Foo` →
//!   `Foo`); a type with no name (`impl T for [u8]`) qualifies by its text
//!   without whitespace. A trait body qualifies by the trait's name.
//! * `struct_item`, `union_item` → [`Kind::Class`], their named fields →
//!   [`Kind::Field`] (`Struct::field`); `enum_item` → [`Kind::Enum`], each
//!   variant → [`Kind::Variant`] (`Enum::Variant`), a struct-like variant's
//!   fields → `Field` (`Enum::Variant::field`); `trait_item` →
//!   [`Kind::Interface`]; `type_item` and a trait's `type Item;` →
//!   [`Kind::Type`]; `const_item`, `static_item` (associated ones too) →
//!   [`Kind::Constant`]; `mod_item` (with or without a body) →
//!   [`Kind::Module`]; `macro_rules!` → [`Kind::Macro`].
//! * `use a::b as c;` (any visibility) → [`Kind::Alias`] `c`, target
//!   `["a", "b"]`; a re-export (`pub`, `pub(crate)`, … `use a::b::C;`) →
//!   `Alias` `C`, target `["a", "b", "C"]`; group forms and nested groups
//!   likewise (`pub use a::{b, c as d, self}`). Targets are as written
//!   (`crate`/`self`/`super` kept). A private plain `use a::b::C;` is an
//!   import binding `C` (in the function it is written in, or the
//!   module); `use a::*` a glob import (public with `pub`). A file's targets hold at most one segment per byte of it,
//!   plus 4,096 (`pub use a0::…::aN::{X0, …, XN}` would hold N²): past that,
//!   an alias is recorded without its target.
//!
//! References (each with the innermost enclosing function or method as its
//! caller):
//!
//! * Calls: `foo()` → `["foo"]`; `a::b::c()` → `["a", "b", "c"]`
//!   (`crate`/`self`/`super` kept, `$crate` read as `crate`); `Self::f()` →
//!   `["f"]` on the enclosing impl's (or trait's) type; `x.load()` →
//!   `["load"]`, member, on what `x` holds (`self`: the impl's type; a
//!   local: what its binding in scope there says, below; else unknown),
//!   `self.a.b()` → `["a", "b"]`; `foo::<T>()` unwrapped; macro invocations
//!   `name!(…)` → `["name"]`.
//! * Trait-qualified calls: `<T as Tr>::f()` → `["Tr", "f"]`, dispatched on
//!   the type `T`; `Tr::f(x, …)` (`Display::fmt(self, f)`,
//!   `fmt::Display::fmt(&*v, f)`) → the path as written, dispatched on the
//!   first argument when it is `self` or a local of a known type (borrowed,
//!   or dereferenced once). Resolution links them to the method of that
//!   type's impl of a trait of that name (one taking `self`, for the second
//!   form). A trait impl's methods record the trait (`impl fmt::Display
//!   for V` → `["fmt", "Display"]`) and whether they take `self`.
//! * What a local holds is scoped as Rust scopes it: a parameter in its
//!   function, a `let` from the end of its statement to the end of its
//!   block, a `match` arm's pattern in its guard and value, an `if let` /
//!   `while let` pattern in its body (not the `else`), a `for` pattern and
//!   a closure's parameters in their body; the innermost binding in scope
//!   wins. A binding holds what its annotation says, or its initializer (a
//!   struct literal, a constructor or function call, a method chain on a
//!   local); through the pattern: the one field of a tuple variant (`V(s)`,
//!   `V(ref s)`: what `V` declares), or a tuple's parts (`let (a, b) =
//!   f()?`: the elements of the tuple `f` declares it returns, also inside
//!   `Option`/`Result`; `let (a, b): (A, B)`). One name bound twice in one
//!   pattern (`A(s) | B(s)`) to different things holds an unknown value.
//! * Field reads `self.port`, `x.a.b` → the names read, on what the root
//!   holds, not calls.
//! * Inside macro arguments and `macro_rules!` bodies (token trees, which
//!   tree-sitter does not parse), a token heuristic finds `path(…)` calls,
//!   `.name(…)` member calls, `name!` invocations and `a::b` paths; a name
//!   after `fn`, `struct`, `#`, … is skipped.
//! * Non-call uses: type names (`type_identifier`, except `Self` and the
//!   item's own generic parameters), scoped paths in expressions, types and
//!   patterns (`Mode::Fast`, `io::Result`), tuple-struct pattern names.
//! * Names used as values (non-call `["name"]`): an identifier in an
//!   expression position that is not a local of the innermost enclosing
//!   function: a constant or static read (`let n = MAX_RETRIES;`), a
//!   function passed or stored (`.map(parse_port)`, `let f = parse_port;`),
//!   the value of a shorthand field (`S { port }`), a range bound in a
//!   pattern (`1..=LIMIT`), the left side of `X = …` (a `static mut`). A
//!   function's locals are one set per function, collected before its body
//!   is walked: the names bound by its parameters and by every `let`, `for`,
//!   `if let`/`while let`, `match` arm and closure parameter anywhere in it
//!   (nested `fn` items have their own set). In patterns an identifier is a
//!   binding, except an UPPER_CASE one (`MAX => …`), which is a constant
//!   being matched and so a use. `self`, `Self`, `super`, `crate`, `None`,
//!   `_` and const generic parameters are never recorded.
//! * In macro arguments and bodies, a lone UPPER_CASE name of two or more
//!   characters (`assert_eq!(n, MAX_RETRIES)`) is a non-call use.
//!
//! Not recorded: bindings (parameters, `let`/`for`/closure/`match`
//! patterns), locals read, field names (`x.port`, `S { port: 1 }`'s label),
//! labels and lifetimes, other lone names in macro token trees (they are
//! not parsed, so their locals are unknown), `use` paths, attributes
//! (`#[derive(…)]`), visibility paths, an `impl`'s own self type and every
//! definition's own name. Items produced by macros are not seen.
//!
//! The walk uses an explicit stack, so nesting depth is bounded only by
//! memory.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::{line, Extracted};
use crate::model::{Kind, Param, QualifiedPath, Receiver, Reference};
use tree_sitter::{Node, Tree};

/// Extracts definitions and references from a parsed Rust file; `module` is
/// the file's module path (see [`super::module_path`]).
pub fn extract(tree: &Tree, source: &[u8], module: &[String]) -> Extracted {
    let mut walker = Walker {
        source,
        module: QualifiedPath::from(module),
        frames: Vec::new(),
        generics: HashMap::new(),
        bound: HashMap::new(),
        scopes: Vec::new(),
        out: Extracted::for_source(source),
    };
    walker.run(tree.root_node());
    walker.out
}

/// What kind of scope a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// An inline `mod`.
    Module,
    /// An `impl` or `trait` body: functions in it are methods.
    Impl,
    /// A struct, union, enum or struct-like variant: qualifies fields.
    Type,
    /// A function: its path is the caller of the uses inside it.
    Function,
    /// Only carries generic parameters (a `type` item).
    Plain,
}

/// One enclosing scope.
#[derive(Debug)]
struct Frame {
    /// The segment it adds to qualified names, if any.
    name: Option<String>,
    scope: Scope,
    /// Generic type and const parameters declared here (not references).
    generics: Vec<String>,
    /// What `Self` means inside (an impl's type, a trait's name).
    self_type: Option<String>,
    /// For a function: the names its parameters and body bind (see
    /// [`Walker::locals`]); never recorded as uses.
    locals: HashSet<String>,
    /// For a trait impl (`impl fmt::Display for T`): the trait as written,
    /// generics stripped.
    of_trait: Vec<String>,
}

/// A frame as entered, with what it inherits from the frames around it
/// (shared or indexed, so that entering a frame costs the same at any
/// depth and no lookup walks the frames).
struct Entered {
    frame: Frame,
    /// What definitions inside are qualified with: the enclosing path and
    /// this frame's name, if any.
    path: QualifiedPath,
    /// The innermost function at or around this frame (empty outside).
    caller: QualifiedPath,
    /// The index of that function's frame.
    function: Option<usize>,
    /// What `Self` means here: the innermost impl's or trait's type.
    self_type: Option<Rc<str>>,
}

/// One step of the walk.
enum Work<'t> {
    /// Handle a node in an expression, type or item position.
    Visit(Node<'t>),
    /// Handle a node in a pattern: a plain identifier there is a binding.
    Pattern(Node<'t>),
    /// Record a reference computed earlier (keeps source order).
    Emit(Reference),
    /// Leave the innermost frame.
    Leave,
    /// Open a lexical scope (a block, a match arm, the body of an `if let`,
    /// a loop or a closure): the names bound in it are dropped at its
    /// [`Work::Close`].
    Open,
    /// Close the innermost lexical scope.
    Close,
    /// Bind the names `pattern` binds, in the innermost lexical scope, with
    /// what `value` (a `let` initializer) or `ty` (an annotation) says
    /// they hold.
    Bind {
        pattern: Node<'t>,
        value: Option<Node<'t>>,
        ty: Option<Node<'t>>,
    },
}

/// One binding of a local name.
struct Binding {
    /// The index of the function frame it belongs to.
    function: usize,
    /// What it holds, when syntax says (`None`: unknown).
    held: Option<Receiver>,
}

/// Rust keywords the grammar leaves as `identifier` inside token trees, or
/// that must never start a path there.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "union", "unsafe", "use",
    "where", "while", "yield",
];

/// Tokens after which a name in a token tree is being defined or is not a
/// Rust path at all.
const NOT_A_USE_AFTER: &[&str] = &[
    "fn",
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "mod",
    "const",
    "static",
    "let",
    "#",
    "$",
    "'",
    "macro_rules!",
];

struct Walker<'s> {
    source: &'s [u8],
    module: QualifiedPath,
    frames: Vec<Entered>,
    /// How many entered frames declare each generic parameter name (kept
    /// as frames are entered and left, so a lookup does not walk them).
    generics: HashMap<String, usize>,
    /// The bindings in scope of each local name, innermost last (kept as
    /// lexical scopes open and close, so a lookup does not walk them).
    bound: HashMap<String, Vec<Binding>>,
    /// The names each open lexical scope bound, innermost last.
    scopes: Vec<Vec<String>>,
    out: Extracted,
}

impl<'s> Walker<'s> {
    fn run<'t>(&mut self, root: Node<'t>) {
        let mut stack: Vec<Work<'t>> = vec![Work::Visit(root)];
        while let Some(work) = stack.pop() {
            match work {
                Work::Visit(node) => self.visit(node, &mut stack),
                Work::Pattern(node) => self.pattern(node, &mut stack),
                Work::Emit(reference) => self.out.references.push(reference),
                Work::Leave => self.leave(),
                Work::Open => self.open(),
                Work::Close => self.close(),
                Work::Bind { pattern, value, ty } => self.bind(pattern, value, ty),
            }
        }
    }

    fn visit<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        match node.kind() {
            "function_item" | "function_signature_item" => {
                let kind = if self.innermost() == Some(Scope::Impl) {
                    Kind::Method
                } else {
                    Kind::Function
                };
                let name = self.define_named(node, kind);
                let return_type = node.child_by_field_name("return_type");
                let returns = return_type.map(|t| self.type_path(t)).unwrap_or_default();
                let tuple = return_type.map(|t| self.tuple_types(t)).unwrap_or_default();
                // A trait impl's method: its trait, and whether it takes
                // `self` (what `Trait::m(x, …)` dispatches on).
                let of_trait = match self.frames.last() {
                    Some(f) if kind == Kind::Method => f.frame.of_trait.clone(),
                    _ => Vec::new(),
                };
                let params = node.child_by_field_name("parameters");
                let takes_self = params.is_some_and(|p| {
                    let mut c = p.walk();
                    let found = p
                        .named_children(&mut c)
                        .any(|p| p.kind() == "self_parameter");
                    found
                });
                if let (Some(symbol), true) = (self.out.last_symbol(), name.is_some()) {
                    symbol.returns = returns;
                    symbol.tuple = tuple;
                    if !of_trait.is_empty() && takes_self {
                        symbol.params = vec![Param {
                            ty: vec!["Self".to_string()],
                            callback: Vec::new(),
                        }];
                    }
                    symbol.of_trait = of_trait;
                }
                let locals = self.locals(node);
                let frame = Frame {
                    name,
                    scope: Scope::Function,
                    generics: self.generics(node),
                    self_type: None,
                    locals,
                    of_trait: Vec::new(),
                };
                // The parameters are bound in the whole function: a scope
                // opened on entering it, closed after leaving it.
                stack.push(Work::Close);
                self.enter(stack, node, frame, &skip_name(node));
                self.open();
                if let Some(params) = params {
                    let mut c = params.walk();
                    let params: Vec<Node<'t>> = params
                        .named_children(&mut c)
                        .filter(|p| p.kind() == "parameter")
                        .collect();
                    for p in params {
                        if let Some(pattern) = p.child_by_field_name("pattern") {
                            self.bind(pattern, None, p.child_by_field_name("type"));
                        }
                    }
                }
            }
            "struct_item" | "union_item" | "enum_item" | "trait_item" => {
                let (kind, scope) = match node.kind() {
                    "enum_item" => (Kind::Enum, Scope::Type),
                    "trait_item" => (Kind::Interface, Scope::Impl),
                    _ => (Kind::Class, Scope::Type),
                };
                let name = self.define_named(node, kind);
                let frame = Frame {
                    self_type: if scope == Scope::Impl {
                        name.clone()
                    } else {
                        None
                    },
                    name,
                    scope,
                    generics: self.generics(node),
                    locals: HashSet::new(),
                    of_trait: Vec::new(),
                };
                self.enter(stack, node, frame, &skip_name(node));
            }
            "enum_variant" => {
                let name = self.define_named(node, Kind::Variant);
                // `V(T)`: what a pattern `V(x)` binds `x` to.
                let single = node
                    .child_by_field_name("body")
                    .filter(|b| b.kind() == "ordered_field_declaration_list")
                    .and_then(|b| {
                        let mut c = b.walk();
                        let types: Vec<Node<'_>> =
                            b.children_by_field_name("type", &mut c).collect();
                        (types.len() == 1).then(|| types[0])
                    });
                if let (Some(t), true) = (single, name.is_some()) {
                    let field = self.type_path(t);
                    if let Some(symbol) = self.out.last_symbol() {
                        symbol.returns = field;
                    }
                }
                let frame = Frame {
                    name,
                    scope: Scope::Type,
                    generics: Vec::new(),
                    self_type: None,
                    locals: HashSet::new(),
                    of_trait: Vec::new(),
                };
                self.enter(stack, node, frame, &skip_name(node));
            }
            "impl_item" => self.impl_item(node, stack),
            "mod_item" => {
                let name = self.define_named(node, Kind::Module);
                if node.child_by_field_name("body").is_some() {
                    let frame = Frame {
                        name,
                        scope: Scope::Module,
                        generics: Vec::new(),
                        self_type: None,
                        locals: HashSet::new(),
                        of_trait: Vec::new(),
                    };
                    self.enter(stack, node, frame, &skip_name(node));
                }
            }
            "type_item" | "associated_type" => {
                self.define_named(node, Kind::Type);
                let frame = Frame {
                    name: None,
                    scope: Scope::Plain,
                    generics: self.generics(node),
                    self_type: None,
                    locals: HashSet::new(),
                    of_trait: Vec::new(),
                };
                self.enter(stack, node, frame, &skip_name(node));
            }
            "const_item" | "static_item" => {
                self.define_named(node, Kind::Constant);
                push_children(stack, node, &skip_name(node));
            }
            "field_declaration" => {
                if self.define_named(node, Kind::Field).is_some() {
                    let declared = node
                        .child_by_field_name("type")
                        .map(|t| self.type_path(t))
                        .unwrap_or_default();
                    if let Some(symbol) = self.out.last_symbol() {
                        symbol.returns = declared;
                    }
                }
                push_children(stack, node, &skip_name(node));
            }
            "field_expression" => self.chain(node, false, stack),
            "block" => {
                stack.push(Work::Close);
                push_children(stack, node, &[]);
                stack.push(Work::Open);
            }
            "let_declaration" => {
                // Bound after the whole statement: not in its own
                // initializer or `else` block.
                if let Some(pattern) = node.child_by_field_name("pattern") {
                    stack.push(Work::Bind {
                        pattern,
                        value: node.child_by_field_name("value"),
                        ty: node.child_by_field_name("type"),
                    });
                }
                push_children(stack, node, &[]);
            }
            "match_arm" => {
                // The pattern's names are bound in the guard and the value.
                let mut work = vec![Work::Open];
                if let Some(pattern) = node.child_by_field_name("pattern") {
                    let condition = pattern.child_by_field_name("condition");
                    let mut c = pattern.walk();
                    let inner: Vec<Node<'t>> = pattern
                        .named_children(&mut c)
                        .filter(|p| Some(p.id()) != condition.map(|c| c.id()))
                        .collect();
                    for p in inner {
                        work.push(Work::Pattern(p));
                        work.push(Work::Bind {
                            pattern: p,
                            value: None,
                            ty: None,
                        });
                    }
                    if let Some(condition) = condition {
                        condition_work(condition, &mut work);
                    }
                }
                if let Some(value) = node.child_by_field_name("value") {
                    work.push(Work::Visit(value));
                }
                work.push(Work::Close);
                stack.extend(work.into_iter().rev());
            }
            "if_expression" | "while_expression" => {
                // `if let P = v { … } else { … }`: P's names are bound in
                // the body only.
                let mut work = vec![Work::Open];
                if let Some(condition) = node.child_by_field_name("condition") {
                    condition_work(condition, &mut work);
                }
                let body = if node.kind() == "if_expression" {
                    "consequence"
                } else {
                    "body"
                };
                if let Some(body) = node.child_by_field_name(body) {
                    work.push(Work::Visit(body));
                }
                work.push(Work::Close);
                if let Some(alternative) = node.child_by_field_name("alternative") {
                    work.push(Work::Visit(alternative));
                }
                stack.extend(work.into_iter().rev());
            }
            "for_expression" => {
                let mut work = Vec::new();
                let pattern = node.child_by_field_name("pattern");
                if let Some(p) = pattern {
                    work.push(Work::Pattern(p));
                }
                if let Some(value) = node.child_by_field_name("value") {
                    work.push(Work::Visit(value));
                }
                work.push(Work::Open);
                if let Some(p) = pattern {
                    work.push(Work::Bind {
                        pattern: p,
                        value: None,
                        ty: None,
                    });
                }
                if let Some(body) = node.child_by_field_name("body") {
                    work.push(Work::Visit(body));
                }
                work.push(Work::Close);
                stack.extend(work.into_iter().rev());
            }
            "closure_expression" => {
                let mut work = vec![Work::Open];
                if let Some(params) = node.child_by_field_name("parameters") {
                    work.push(Work::Visit(params));
                    let mut c = params.walk();
                    for p in params.named_children(&mut c) {
                        let (pattern, ty) = if p.kind() == "parameter" {
                            match p.child_by_field_name("pattern") {
                                Some(pattern) => (pattern, p.child_by_field_name("type")),
                                None => continue,
                            }
                        } else {
                            (p, None)
                        };
                        work.push(Work::Bind {
                            pattern,
                            value: None,
                            ty,
                        });
                    }
                }
                for field in ["return_type", "body"] {
                    if let Some(child) = node.child_by_field_name(field) {
                        work.push(Work::Visit(child));
                    }
                }
                work.push(Work::Close);
                stack.extend(work.into_iter().rev());
            }
            "macro_definition" => {
                self.define_named(node, Kind::Macro);
                push_children(stack, node, &skip_name(node));
            }
            "macro_rule" => {
                if let Some(right) = node.child_by_field_name("right") {
                    stack.push(Work::Visit(right));
                }
            }
            "use_declaration" => self.use_declaration(node),
            "call_expression" => self.call(node, stack),
            "macro_invocation" => {
                if let Some(name) = node.child_by_field_name("macro") {
                    let (segments, _) = self.segments(name);
                    self.emit(segments, false, true, name);
                }
                let mut cursor = node.walk();
                let trees: Vec<Node<'t>> = node
                    .children(&mut cursor)
                    .filter(|c| c.kind() == "token_tree")
                    .collect();
                stack.extend(trees.into_iter().rev().map(Work::Visit));
            }
            "token_tree" | "token_repetition" => self.token_tree(node, stack),
            "scoped_identifier" | "scoped_type_identifier" => {
                let (segments, extras) = self.segments(node);
                if segments.len() > 1 || node.kind() == "scoped_type_identifier" {
                    self.emit(segments, false, false, node);
                }
                stack.extend(extras.into_iter().rev().map(Work::Visit));
            }
            "type_identifier" => {
                let name = self.text(node);
                if name != "Self" && name != "_" && !self.is_generic(&name) {
                    self.emit(vec![name], false, false, node);
                }
            }
            "identifier" => {
                let name = self.text(node);
                if self.is_value_use(&name) {
                    self.emit(vec![name], false, false, node);
                }
            }
            // `const N: usize`: the name is a generic parameter, not a use.
            "const_parameter" => push_children(stack, node, &skip_name(node)),
            "tuple_struct_pattern" => {
                let ty = node.child_by_field_name("type");
                if let Some(ty) = ty.filter(|t| t.kind() == "identifier") {
                    let name = self.text(ty);
                    self.emit(vec![name], false, false, ty);
                }
                push_children(stack, node, &ty.into_iter().collect::<Vec<_>>());
            }
            "attribute_item"
            | "inner_attribute_item"
            | "visibility_modifier"
            | "line_comment"
            | "block_comment"
            | "extern_crate_declaration"
            | "token_tree_pattern"
            | "label"
            | "lifetime" => {}
            _ => push_children(stack, node, &[]),
        }
    }

    /// A node in a pattern: a plain identifier binds a name (already among
    /// the function's locals), unless it is UPPER_CASE, a constant being
    /// matched; anything else is handled as usual, its children's pattern
    /// positions following [`child_is_pattern`].
    fn pattern<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        if node.kind() != "identifier" {
            self.visit(node, stack);
            return;
        }
        let name = self.text(node);
        if is_constant_name(&name) && !self.is_generic(&name) {
            self.emit(vec![name], false, false, node);
        }
    }

    /// The names a function binds: its parameters, and every `let`, `for`,
    /// `if let`/`while let`, `match` arm and closure parameter in its body,
    /// wherever they are (one set per function: none of them is a use
    /// anywhere in it). Nested `fn` items have their own set; macro token
    /// trees are not parsed and bind nothing. UPPER_CASE names in patterns
    /// are constants, not bindings. What each holds is scoped (see
    /// [`Walker::bind`]).
    fn locals(&self, function: Node<'_>) -> HashSet<String> {
        let mut names = HashSet::new();
        let mut stack = vec![(function, false)];
        while let Some((node, in_pattern)) = stack.pop() {
            match node.kind() {
                "identifier" if in_pattern => {
                    let name = self.text(node);
                    if !is_constant_name(&name) {
                        names.insert(name);
                    }
                }
                "shorthand_field_identifier" => {
                    names.insert(self.text(node));
                }
                "function_item" | "function_signature_item" if node.id() != function.id() => {}
                "token_tree" | "attribute_item" | "inner_attribute_item" => {}
                _ => stack.extend(child_modes(node)),
            }
        }
        names
    }

    /// Opens a lexical scope.
    fn open(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Closes the innermost lexical scope: its bindings go out of scope.
    fn close(&mut self) {
        let Some(names) = self.scopes.pop() else {
            return;
        };
        for name in names {
            if let Some(bindings) = self.bound.get_mut(&name) {
                bindings.pop();
                if bindings.is_empty() {
                    self.bound.remove(&name);
                }
            }
        }
    }

    /// Binds, in the innermost lexical scope, the names `pattern` binds:
    /// what each holds is what `ty` (an annotation) or `value` (an
    /// initializer, read in the scope before the binding) says, through the
    /// pattern (see [`Walker::bindings`]).
    fn bind(&mut self, pattern: Node<'_>, value: Option<Node<'_>>, ty: Option<Node<'_>>) {
        let Some(function) = self.frames.last().and_then(|f| f.function) else {
            return;
        };
        if self.scopes.is_empty() {
            return;
        }
        let (held, tuple) = match ty {
            Some(t) => (
                Some(self.type_path(t))
                    .filter(|t| !t.is_empty())
                    .map(Receiver::Type),
                self.tuple_types(t),
            ),
            None => (
                value.and_then(|v| self.held(v, &|name| self.known_local(name))),
                Vec::new(),
            ),
        };
        for (name, held) in self.bindings(pattern, held, &tuple) {
            self.bound
                .entry(name.clone())
                .or_default()
                .push(Binding { function, held });
            if let Some(scope) = self.scopes.last_mut() {
                scope.push(name);
            }
        }
    }

    /// The names a pattern binds and what each holds, when syntax says:
    ///
    /// * a plain name (`x`, `mut x`, `ref x`): `held`;
    /// * a tuple's parts (`(a, b)`): the types of `tuple` (an annotation
    ///   `(A, B)`), else the elements of what `held` is when that is a
    ///   call's result (`let (a, b) = f()?`);
    /// * the one field of a tuple variant or struct (`V(x)`, `V(ref x)`,
    ///   anywhere in the pattern): what `V` holds (a variant's declared
    ///   field type);
    /// * anything else: unknown.
    ///
    /// A name bound twice in one pattern (`A(s) | B(s)`) to different
    /// things is unknown.
    fn bindings(
        &self,
        pattern: Node<'_>,
        held: Option<Receiver>,
        tuple: &[Vec<String>],
    ) -> Vec<(String, Option<Receiver>)> {
        let root = unwrap_binding(pattern);
        if root.kind() == "identifier" {
            let name = self.text(root);
            if is_constant_name(&name) {
                return Vec::new();
            }
            return vec![(name, held)];
        }
        // What the identifiers at these node ids hold.
        let mut typed: HashMap<usize, Receiver> = HashMap::new();
        if root.kind() == "tuple_pattern" {
            let mut c = root.walk();
            for (i, part) in root.named_children(&mut c).enumerate() {
                let id = unwrap_binding(part);
                if id.kind() != "identifier" {
                    continue;
                }
                let ty = match tuple.get(i).filter(|t| !t.is_empty()) {
                    Some(t) => Some(Receiver::Type(t.clone())),
                    None => held
                        .as_ref()
                        .filter(|h| matches!(h, Receiver::Call(_) | Receiver::Chain(..)))
                        .and_then(|h| {
                            let i = u32::try_from(i).ok()?;
                            Some(Receiver::Element(Box::new(h.clone()), i))
                        }),
                };
                if let Some(ty) = ty {
                    typed.insert(id.id(), ty);
                }
            }
        }
        let mut out: Vec<(String, Option<Receiver>)> = Vec::new();
        let mut stack = vec![(root, true)];
        while let Some((node, in_pattern)) = stack.pop() {
            match node.kind() {
                "identifier" if in_pattern => {
                    let name = self.text(node);
                    if !is_constant_name(&name) {
                        out.push((name, typed.get(&node.id()).cloned()));
                    }
                }
                "shorthand_field_identifier" => out.push((self.text(node), None)),
                "closure_expression" | "function_item" | "token_tree" => {}
                "tuple_struct_pattern" => {
                    // `V(x)`, `V(ref x)`: what the variant holds.
                    let ty = node.child_by_field_name("type");
                    let mut c = node.walk();
                    let parts: Vec<Node<'_>> = node
                        .named_children(&mut c)
                        .filter(|p| Some(p.id()) != ty.map(|t| t.id()))
                        .collect();
                    if let (Some(ty), [one]) = (ty, parts.as_slice()) {
                        let bound = unwrap_binding(*one);
                        if bound.kind() == "identifier" {
                            let (path, _) = self.segments(ty);
                            let path = self.self_resolved(path);
                            if !path.is_empty() {
                                typed.insert(bound.id(), Receiver::Call(path));
                            }
                        }
                    }
                    stack.extend(child_modes(node));
                }
                _ => stack.extend(child_modes(node)),
            }
        }
        // One name bound twice to different things: unknown.
        let mut merged: Vec<(String, Option<Receiver>)> = Vec::with_capacity(out.len());
        for (name, held) in out {
            match merged.iter_mut().find(|(n, _)| *n == name) {
                Some((_, existing)) => {
                    if *existing != held {
                        *existing = None;
                    }
                }
                None => merged.push((name, held)),
            }
        }
        merged
    }

    /// What an expression holds: `T { … }` a `T`; `f()`, `T::new()`,
    /// `a::f()` what the called function returns; `x.m()` what calling `m`
    /// on `x` returns (`x` a local in `locals`, `self`, or another such
    /// expression); `&x`, `x?`, `.unwrap()`, `.expect()`, `.clone()`
    /// looked through.
    fn held(&self, value: Node<'_>, locals: &dyn Fn(&str) -> Option<Receiver>) -> Option<Receiver> {
        match value.kind() {
            "struct_expression" => {
                let name = value.child_by_field_name("name")?;
                let (path, _) = self.segments(name);
                let path = self.self_resolved(path);
                (!path.is_empty()).then_some(Receiver::Type(path))
            }
            "reference_expression" | "try_expression" | "parenthesized_expression" => self.held(
                value.named_child(value.named_child_count().checked_sub(1)?)?,
                locals,
            ),
            "identifier" => locals(&self.text(value)),
            "self" => self.impl_path().map(Receiver::This),
            "call_expression" => {
                let mut f = value.child_by_field_name("function")?;
                if f.kind() == "generic_function" {
                    f = f.child_by_field_name("function")?;
                }
                match f.kind() {
                    "identifier" | "scoped_identifier" => {
                        let (path, _) = self.segments(f);
                        let path = self.self_resolved(path);
                        if path.len() > 1 && path[0] == "Self" {
                            return None;
                        }
                        (!path.is_empty()).then_some(Receiver::Call(path))
                    }
                    "field_expression" => {
                        let mut names = Vec::new();
                        let mut current = f;
                        while current.kind() == "field_expression" {
                            let field = current.child_by_field_name("field")?;
                            if field.kind() != "field_identifier" {
                                return None;
                            }
                            names.push(self.text(field));
                            current = current.child_by_field_name("value")?;
                        }
                        names.reverse();
                        let base = self.held(current, locals)?;
                        let transparent = names.len() == 1
                            && matches!(
                                names[0].as_str(),
                                "unwrap"
                                    | "expect"
                                    | "clone"
                                    | "to_owned"
                                    | "borrow"
                                    | "as_ref"
                                    | "lock"
                                    | "borrow_mut"
                                    | "as_mut"
                                    | "unwrap_or_default"
                            );
                        if transparent {
                            return Some(base);
                        }
                        Some(match base {
                            Receiver::Chain(b, mut calls) => {
                                calls.push(names);
                                Receiver::Chain(b, calls)
                            }
                            other => Receiver::Chain(Box::new(other), vec![names]),
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `Self` at the head of a path read as the enclosing impl's type.
    fn self_resolved(&self, mut path: Vec<String>) -> Vec<String> {
        if path.first().is_some_and(|s| s == "Self") {
            if let Some(ty) = self.frames.last().and_then(|f| f.self_type.as_deref()) {
                path[0] = ty.to_string();
            }
        }
        path
    }

    /// A type as a path: `T`, `a::T`, `&T`, `&mut T`, `T<…>` (its name);
    /// `Option<T>`, `Result<T, E>`, `Box<T>`, `Rc<T>`, `Arc<T>` → `T`.
    fn type_path(&self, node: Node<'_>) -> Vec<String> {
        let mut current = node;
        for _ in 0..16 {
            match current.kind() {
                "reference_type" | "pointer_type" => match current.child_by_field_name("type") {
                    Some(t) => current = t,
                    None => return Vec::new(),
                },
                "type_identifier" | "scoped_type_identifier" => {
                    let (path, _) = self.segments(current);
                    return path;
                }
                "generic_type" => {
                    let Some(ty) = current.child_by_field_name("type") else {
                        return Vec::new();
                    };
                    let (path, _) = self.segments(ty);
                    let wrapper = path.len() == 1
                        && matches!(path[0].as_str(), "Option" | "Result" | "Box" | "Rc" | "Arc");
                    if !wrapper {
                        return path;
                    }
                    let first = current
                        .child_by_field_name("type_arguments")
                        .and_then(|a| a.named_child(0));
                    match first {
                        Some(t) => current = t,
                        None => return Vec::new(),
                    }
                }
                _ => return Vec::new(),
            }
        }
        Vec::new()
    }

    /// The path of the innermost `impl` or trait around here.
    fn impl_path(&self) -> Option<QualifiedPath> {
        self.frames
            .iter()
            .rev()
            .find(|f| f.frame.scope == Scope::Impl)
            .map(|f| f.path.clone())
    }

    /// What a local read here holds (`None`: not a local; unknown when no
    /// binding of it in scope here says): the innermost binding in scope
    /// of the innermost function's.
    fn local(&self, name: &str) -> Option<Receiver> {
        let function = self.frames.last().and_then(|f| f.function)?;
        let f = self.frames.get(function)?;
        if !f.frame.locals.contains(name) {
            return None;
        }
        let held = self
            .bound
            .get(name)
            .and_then(|b| b.last())
            .filter(|b| b.function == function)
            .and_then(|b| b.held.clone());
        Some(held.unwrap_or(Receiver::Unknown))
    }

    /// What a local read here holds, when syntax says (`None`: not a
    /// local, or unknown).
    fn known_local(&self, name: &str) -> Option<Receiver> {
        self.local(name).filter(|r| *r != Receiver::Unknown)
    }

    /// A function's tuple return type's elements, as paths (`(A, B)`, also
    /// inside `Option`, `Result`, `Box`, `&`): empty when it returns no
    /// tuple.
    fn tuple_types(&self, node: Node<'_>) -> Vec<Vec<String>> {
        let mut current = node;
        for _ in 0..16 {
            match current.kind() {
                "tuple_type" => {
                    let mut c = current.walk();
                    let elements: Vec<Node<'_>> = current.named_children(&mut c).collect();
                    return elements.into_iter().map(|t| self.type_path(t)).collect();
                }
                "reference_type" | "pointer_type" => match current.child_by_field_name("type") {
                    Some(t) => current = t,
                    None => return Vec::new(),
                },
                "generic_type" => {
                    let wrapper = current
                        .child_by_field_name("type")
                        .map(|t| self.segments(t).0)
                        .is_some_and(|p| {
                            p.len() == 1
                                && matches!(
                                    p[0].as_str(),
                                    "Option" | "Result" | "Box" | "Rc" | "Arc"
                                )
                        });
                    let first = current
                        .child_by_field_name("type_arguments")
                        .and_then(|a| a.named_child(0));
                    match first {
                        Some(t) if wrapper => current = t,
                        _ => return Vec::new(),
                    }
                }
                _ => return Vec::new(),
            }
        }
        Vec::new()
    }

    /// A field or method chain on a value (`self.a.b`, `x.m()`, `f().g`):
    /// the names read, in turn, from what the root holds (`self` in an
    /// impl: the impl's type; a local: what it holds; a call or struct
    /// literal: what it makes); a root that is another expression is
    /// walked.
    fn chain<'t>(&mut self, node: Node<'t>, call: bool, stack: &mut Vec<Work<'t>>) {
        let mut names = Vec::new();
        let mut current = node;
        let mut at = node;
        while current.kind() == "field_expression" {
            let Some(field) = current.child_by_field_name("field") else {
                break;
            };
            if field.kind() != "field_identifier" {
                // A tuple index (`x.0`): nothing nameable after it.
                names.clear();
            } else {
                if names.is_empty() {
                    at = field;
                }
                names.push(self.text(field));
            }
            let Some(value) = current.child_by_field_name("value") else {
                break;
            };
            current = value;
        }
        names.reverse();
        let root = current;
        let receiver = match root.kind() {
            "self" => self.impl_path().map_or(Receiver::Unknown, Receiver::This),
            "identifier" => {
                let name = self.text(root);
                match self.local(&name) {
                    Some(held) => held,
                    None => {
                        // A static or constant: a use of it, then members
                        // of a value of unknown type.
                        stack.push(Work::Visit(root));
                        Receiver::Unknown
                    }
                }
            }
            _ => {
                stack.push(Work::Visit(root));
                self.held(root, &|name| self.known_local(name))
                    .unwrap_or(Receiver::Unknown)
            }
        };
        if names.is_empty() {
            return;
        }
        let caller = self.caller();
        self.out
            .refer_chain(names, receiver.storable(), call, at, caller);
    }

    /// Whether a plain identifier in an expression is recorded as a use: not
    /// a keyword-like name, a const generic parameter or a local of the
    /// innermost enclosing function.
    fn is_value_use(&self, name: &str) -> bool {
        if matches!(
            name,
            "" | "_" | "self" | "Self" | "super" | "crate" | "None"
        ) || self.is_generic(name)
        {
            return false;
        }
        !self
            .frames
            .last()
            .and_then(|f| f.function)
            .and_then(|i| self.frames.get(i))
            .is_some_and(|f| f.frame.locals.contains(name))
    }

    /// `impl [Trait for] Type { … }`: a frame named after the type; the
    /// trait is a reference, the type itself is not (only its arguments).
    fn impl_item<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        let ty = node.child_by_field_name("type");
        let name = ty.map(|t| self.type_name(t));
        let of_trait = node
            .child_by_field_name("trait")
            .map(|t| self.segments(t).0)
            .unwrap_or_default();
        let frame = Frame {
            self_type: name.clone(),
            name,
            scope: Scope::Impl,
            generics: self.generics(node),
            locals: HashSet::new(),
            of_trait,
        };
        let mut skip = Vec::new();
        if let Some(ty) = ty {
            skip.push(ty);
        }
        self.enter(stack, node, frame, &skip);
        // Generic arguments of the self type are uses (`impl X for Vec<Config>`).
        if let Some(args) = ty
            .filter(|t| t.kind() == "generic_type")
            .and_then(|t| t.child_by_field_name("type_arguments"))
        {
            stack.push(Work::Visit(args));
        }
    }

    /// A call: the callee is recorded as a call reference; the receiver and
    /// the arguments are walked.
    fn call<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        if let Some(arguments) = node.child_by_field_name("arguments") {
            stack.push(Work::Visit(arguments));
        }
        let Some(mut callee) = node.child_by_field_name("function") else {
            return;
        };
        if callee.kind() == "generic_function" {
            if let Some(args) = callee.child_by_field_name("type_arguments") {
                stack.push(Work::Visit(args));
            }
            match callee.child_by_field_name("function") {
                Some(inner) => callee = inner,
                None => return,
            }
        }
        match callee.kind() {
            "identifier" => {
                let name = self.text(callee);
                self.emit(vec![name], false, true, callee);
            }
            "scoped_identifier" => {
                let (segments, extras) = self.segments(callee);
                let dispatch = self.dispatch(callee, &segments, node);
                match dispatch {
                    Some((path, on, explicit)) => {
                        if let Some(mut r) = self.reference(path, false, true, callee) {
                            r.receiver = Receiver::Dispatch {
                                on: Box::new(on),
                                explicit,
                            }
                            .storable();
                            self.out.references.push(r);
                        }
                    }
                    None => self.emit(segments, false, true, callee),
                }
                stack.extend(extras.into_iter().rev().map(Work::Visit));
            }
            "field_expression" => {
                let mut deferred = Vec::new();
                self.chain(callee, true, &mut deferred);
                stack.extend(deferred);
            }
            _ => stack.push(Work::Visit(callee)),
        }
    }

    /// A trait-qualified call's path and what it dispatches on, when syntax
    /// tells: `<T as Trait>::m(…)` → `Trait::m` on the type `T` (explicit);
    /// `Trait::m(x, …)`, `fmt::Display::fmt(self, f)` → the path as written,
    /// on the first argument when it is `self` (the enclosing impl's type),
    /// a local of a known type, or either borrowed or dereferenced once
    /// (`&self`, `&*self`). Whether the path names a trait is for
    /// resolution to tell: only an impl of a trait of that name for that
    /// type, of a method that takes `self`, matches.
    fn dispatch(
        &self,
        callee: Node<'_>,
        segments: &[String],
        call: Node<'_>,
    ) -> Option<(Vec<String>, Receiver, bool)> {
        let name = callee.child_by_field_name("name")?;
        if let Some(qualified) = callee
            .child_by_field_name("path")
            .filter(|p| p.kind() == "bracketed_type")
            .and_then(|b| b.named_child(0))
            .filter(|q| q.kind() == "qualified_type")
        {
            let ty = qualified.child_by_field_name("type")?;
            let of_trait = qualified.child_by_field_name("alias")?;
            let on = if ty.kind() == "type_identifier" && self.text(ty) == "Self" {
                Receiver::This(self.impl_path()?)
            } else {
                let path = self.type_path(ty);
                if path.is_empty() || self.is_generic(&path[0]) {
                    return None;
                }
                Receiver::Type(path)
            };
            let mut path = self.segments(of_trait).0;
            if path.is_empty() {
                return None;
            }
            path.push(self.text(name));
            return Some((path, on, true));
        }
        if segments.len() < 2 || segments[0] == "Self" {
            return None;
        }
        let arguments = call.child_by_field_name("arguments")?;
        let mut c = arguments.walk();
        let mut first = arguments.named_children(&mut c).find(|a| {
            !matches!(
                a.kind(),
                "attribute_item" | "line_comment" | "block_comment"
            )
        })?;
        let mut derefs = 0;
        loop {
            match first.kind() {
                "reference_expression" | "parenthesized_expression" => {
                    first = first.named_child(first.named_child_count().checked_sub(1)?)?;
                }
                "unary_expression"
                    if derefs == 0 && first.child(0).is_some_and(|o| o.kind() == "*") =>
                {
                    derefs += 1;
                    first = first.named_child(0)?;
                }
                _ => break,
            }
        }
        let on = match first.kind() {
            "self" => Receiver::This(self.impl_path()?),
            "identifier" => self.known_local(&self.text(first))?,
            _ => return None,
        };
        Some((segments.to_vec(), on, false))
    }

    /// The token heuristic for macro arguments and bodies. Nested trees are
    /// walked through the stack, interleaved with this level's references so
    /// source order holds.
    fn token_tree<'t>(&mut self, node: Node<'t>, stack: &mut Vec<Work<'t>>) {
        let mut cursor = node.walk();
        let tokens: Vec<Node<'t>> = node.children(&mut cursor).collect();
        let mut work: Vec<Work<'t>> = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let token = tokens[i];
            if matches!(token.kind(), "token_tree" | "token_repetition") {
                work.push(Work::Visit(token));
                i += 1;
                continue;
            }
            if !self.path_start(token) {
                i += 1;
                continue;
            }
            let before = i.checked_sub(1).map(|p| tokens[p].kind());
            if before.is_some_and(|b| NOT_A_USE_AFTER.contains(&b) || b == "::") {
                i += 1;
                continue;
            }
            let member = before == Some(".");
            let mut segments = vec![self.text(token)];
            let mut end = i;
            while !member
                && end + 2 < tokens.len()
                && tokens[end + 1].kind() == "::"
                && matches!(tokens[end + 2].kind(), "identifier" | "self" | "super")
            {
                segments.push(self.text(tokens[end + 2]));
                end += 2;
            }
            let next = tokens.get(end + 1);
            let opens_call = next.is_some_and(|n| {
                n.kind() == "token_tree" && n.child(0).is_some_and(|c| c.kind() == "(")
            });
            let is_macro = next.is_some_and(|n| n.kind() == "!")
                && tokens
                    .get(end + 2)
                    .is_some_and(|n| n.kind() == "token_tree");
            let starts_with_keyword =
                token.kind() != "identifier" || KEYWORDS.contains(&segments[0].as_str());
            let reference = if member {
                // `x.m(…)` on a local `x` or `self` (the token before the
                // dot): a member of what it holds; else of a value of
                // unknown type.
                let receiver = i
                    .checked_sub(2)
                    .map(|p| tokens[p])
                    .filter(|_| {
                        // Not `a.b.m(…)` nor `f().m(…)`: only a lone root.
                        i < 3 || !matches!(tokens[i - 3].kind(), "." | "::")
                    })
                    .and_then(|r| match r.kind() {
                        "self" => self.impl_path().map(Receiver::This),
                        "identifier" => self.local(&self.text(r)),
                        _ => None,
                    });
                (opens_call && token.kind() == "identifier")
                    .then(|| self.reference(segments, true, true, token))
                    .flatten()
                    .map(|mut r| {
                        if let Some(receiver) = receiver {
                            r.receiver = receiver.storable();
                        }
                        r
                    })
            } else if opens_call || is_macro {
                let usable = !starts_with_keyword || segments.len() > 1;
                usable
                    .then(|| self.reference(segments, false, true, token))
                    .flatten()
            } else if segments.len() > 1 {
                self.reference(segments, false, false, token)
            } else if token.kind() == "identifier"
                && segments[0].chars().count() > 1
                && is_constant_name(&segments[0])
                && !next.is_some_and(|n| matches!(n.kind(), "=" | ":" | "::"))
                && self.is_value_use(&segments[0])
            {
                // A lone UPPER_CASE name: a constant or static read.
                self.reference(segments, false, false, token)
            } else {
                None
            };
            if let Some(reference) = reference {
                work.push(Work::Emit(reference));
            }
            i = end + 1;
        }
        stack.extend(work.into_iter().rev());
    }

    /// Whether a token in a token tree can start a path.
    fn path_start(&self, token: Node<'_>) -> bool {
        match token.kind() {
            "identifier" => {
                let text = self.text(token);
                text == "Self" || !KEYWORDS.contains(&text.as_str())
            }
            "self" | "crate" | "super" | "primitive_type" => true,
            "metavariable" => self.text(token) == "$crate",
            _ => false,
        }
    }

    /// `use` declarations define aliases only (see the module doc).
    fn use_declaration(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let public = node
            .children(&mut cursor)
            .any(|c| c.kind() == "visibility_modifier");
        let Some(argument) = node.child_by_field_name("argument") else {
            return;
        };
        // A group's prefix is shared by its items (not copied per item).
        let mut work: Vec<(QualifiedPath, Node<'_>)> = vec![(QualifiedPath::new(), argument)];
        while let Some((prefix, tree)) = work.pop() {
            match tree.kind() {
                "use_as_clause" => {
                    let (Some(path), Some(alias)) = (
                        tree.child_by_field_name("path"),
                        tree.child_by_field_name("alias"),
                    ) else {
                        continue;
                    };
                    let mut target = extend(prefix, self.segments(path).0);
                    if target.len() > 1 && target.last().is_some_and(|s| s == "self") {
                        target = target.parent();
                    }
                    let name = self.text(alias);
                    let target = self.target(&target);
                    self.define(name, Kind::Alias, alias, target);
                }
                "scoped_use_list" => {
                    let mut next = prefix;
                    if let Some(path) = tree.child_by_field_name("path") {
                        next = extend(next, self.segments(path).0);
                    }
                    if let Some(list) = tree.child_by_field_name("list") {
                        let mut cursor = list.walk();
                        let items: Vec<Node<'_>> = list.named_children(&mut cursor).collect();
                        work.extend(items.into_iter().rev().map(|i| (next.clone(), i)));
                    }
                }
                "use_list" => {
                    let mut cursor = tree.walk();
                    let items: Vec<Node<'_>> = tree.named_children(&mut cursor).collect();
                    work.extend(items.into_iter().rev().map(|i| (prefix.clone(), i)));
                }
                "identifier" | "scoped_identifier" | "self" => {
                    let mut target = extend(prefix, self.segments(tree).0);
                    if target.len() > 1 && target.last().is_some_and(|s| s == "self") {
                        target = target.parent();
                    }
                    let Some(name) = target.last().cloned() else {
                        continue;
                    };
                    if matches!(name.as_str(), "self" | "crate" | "super") {
                        continue;
                    }
                    let line_node = tree.child_by_field_name("name").unwrap_or(tree);
                    if public {
                        let target = self.target(&target);
                        self.define(name, Kind::Alias, line_node, target);
                    } else {
                        // A private `use`: an import.
                        let scope = self.import_scope();
                        self.out
                            .import(name, target.to_vec(), line_node, scope, false);
                    }
                }
                "use_wildcard" => {
                    let mut cursor = tree.walk();
                    let path = tree.named_children(&mut cursor).next();
                    let target = match path {
                        Some(p) => extend(prefix, self.segments(p).0),
                        None => prefix,
                    };
                    let scope = self.import_scope();
                    let before = self.out.imports.len();
                    self.out
                        .import(String::new(), target.to_vec(), tree, scope, true);
                    if let Some(import) = self.out.imports.get_mut(before) {
                        import.public = public;
                    }
                }
                _ => {}
            }
        }
    }

    /// Where a `use` here binds its names: the enclosing function, else the
    /// module (or inline module).
    fn import_scope(&self) -> QualifiedPath {
        let caller = self.caller();
        if caller.is_empty() {
            self.frames
                .iter()
                .rev()
                .find(|f| f.frame.scope == Scope::Module)
                .map_or_else(|| self.module.clone(), |f| f.path.clone())
        } else {
            caller
        }
    }

    /// `path` as an alias target, when the file's budget allows (see
    /// [`Extracted::for_source`]); else empty.
    fn target(&mut self, path: &QualifiedPath) -> Vec<String> {
        if self.out.take_target(path.len()) {
            path.to_vec()
        } else {
            Vec::new()
        }
    }

    /// The segments of a path node as written, and any nodes inside it that
    /// still need walking (generic arguments, bracketed types).
    fn segments<'t>(&self, node: Node<'t>) -> (Vec<String>, Vec<Node<'t>>) {
        let mut segments = Vec::new();
        let mut extras = Vec::new();
        let mut current = Some(node);
        while let Some(n) = current {
            current = None;
            match n.kind() {
                "scoped_identifier" | "scoped_type_identifier" => {
                    if let Some(name) = n.child_by_field_name("name") {
                        segments.push(self.text(name));
                    }
                    current = n.child_by_field_name("path");
                }
                "generic_type" => {
                    if let Some(args) = n.child_by_field_name("type_arguments") {
                        extras.push(args);
                    }
                    current = n.child_by_field_name("type");
                }
                "bracketed_type" => {
                    extras.push(n);
                    let inner = n.named_child(0);
                    current = match inner {
                        Some(q) if q.kind() == "qualified_type" => q.child_by_field_name("type"),
                        other => other,
                    };
                }
                "identifier" | "type_identifier" | "primitive_type" | "crate" | "self"
                | "super" | "metavariable" => segments.push(self.text(n)),
                _ => {}
            }
        }
        segments.reverse();
        extras.reverse();
        (segments, extras)
    }

    /// The name an impl's self type qualifies its items with.
    fn type_name(&self, node: Node<'_>) -> String {
        let mut current = node;
        loop {
            let next = match current.kind() {
                "type_identifier" | "primitive_type" => return self.text(current),
                "generic_type" | "reference_type" | "pointer_type" => {
                    current.child_by_field_name("type")
                }
                "scoped_type_identifier" => current.child_by_field_name("name"),
                "dynamic_type" | "abstract_type" => current.child_by_field_name("trait"),
                _ => None,
            };
            match next {
                Some(n) => current = n,
                None => {
                    return self
                        .text(node)
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect()
                }
            }
        }
    }

    /// The generic type and const parameter names an item declares.
    fn generics(&self, node: Node<'_>) -> Vec<String> {
        let Some(params) = node.child_by_field_name("type_parameters") else {
            return Vec::new();
        };
        let mut cursor = params.walk();
        params
            .named_children(&mut cursor)
            .filter(|p| matches!(p.kind(), "type_parameter" | "const_parameter"))
            .filter_map(|p| p.child_by_field_name("name"))
            .map(|n| self.text(n))
            .collect()
    }

    fn is_generic(&self, name: &str) -> bool {
        self.generics.contains_key(name)
    }

    fn innermost(&self) -> Option<Scope> {
        self.frames.last().map(|f| f.frame.scope)
    }

    fn enter<'t>(
        &mut self,
        stack: &mut Vec<Work<'t>>,
        node: Node<'t>,
        frame: Frame,
        skip: &[Node<'t>],
    ) {
        let outer = self.frames.last();
        let path = match &frame.name {
            Some(name) => self.scope_path().child(name.as_str()),
            None => self.scope_path(),
        };
        let (caller, function) = if frame.scope == Scope::Function {
            (path.clone(), Some(self.frames.len()))
        } else {
            (
                outer.map_or_else(QualifiedPath::new, |f| f.caller.clone()),
                outer.and_then(|f| f.function),
            )
        };
        let self_type = match &frame.self_type {
            Some(ty) => Some(Rc::from(ty.as_str())),
            None => outer.and_then(|f| f.self_type.clone()),
        };
        for name in &frame.generics {
            *self.generics.entry(name.clone()).or_insert(0) += 1;
        }
        self.frames.push(Entered {
            frame,
            path,
            caller,
            function,
            self_type,
        });
        stack.push(Work::Leave);
        push_children(stack, node, skip);
    }

    /// Leaves the innermost frame.
    fn leave(&mut self) {
        let Some(entered) = self.frames.pop() else {
            return;
        };
        for name in entered.frame.generics {
            if let Some(count) = self.generics.get_mut(&name) {
                *count -= 1;
                if *count == 0 {
                    self.generics.remove(&name);
                }
            }
        }
    }

    /// The qualified path of the current scope.
    fn scope_path(&self) -> QualifiedPath {
        self.frames
            .last()
            .map_or_else(|| self.module.clone(), |f| f.path.clone())
    }

    /// The path of the innermost enclosing function (empty at top level).
    fn caller(&self) -> QualifiedPath {
        self.frames
            .last()
            .map_or_else(QualifiedPath::new, |f| f.caller.clone())
    }

    /// Defines the item `node` names by its `name` field; returns the name.
    fn define_named(&mut self, node: Node<'_>, kind: Kind) -> Option<String> {
        let name_node = node.child_by_field_name("name")?;
        let name = self.text(name_node);
        if name.is_empty() || name == "_" {
            return None;
        }
        self.define(name.clone(), kind, name_node, Vec::new());
        Some(name)
    }

    fn define(&mut self, name: String, kind: Kind, at: Node<'_>, target: Vec<String>) {
        let path = self.scope_path().child(name);
        self.out.define(path, kind, at, target);
    }

    fn emit(&mut self, segments: Vec<String>, member: bool, call: bool, at: Node<'_>) {
        if let Some(reference) = self.reference(segments, member, call, at) {
            self.out.references.push(reference);
        }
    }

    /// A reference with `crate`/`self`/`super` dropped and `Self` resolved;
    /// `None` when nothing nameable is left.
    fn reference(
        &self,
        mut segments: Vec<String>,
        member: bool,
        call: bool,
        at: Node<'_>,
    ) -> Option<Reference> {
        if segments.first().is_some_and(|s| s == "$crate") {
            segments[0] = "crate".into();
        }
        // `Self` alone is the enclosing type naming itself, as is its own name.
        if segments.is_empty() || segments == ["Self"] || segments.iter().any(|s| s.is_empty()) {
            return None;
        }
        // `Self::f()`: a member of the impl's type.
        let mut receiver = Receiver::None;
        if segments.len() > 1 && segments[0] == "Self" {
            match self.impl_path() {
                Some(path) => {
                    segments.remove(0);
                    receiver = Receiver::This(path);
                }
                None => {
                    if let Some(ty) = self.frames.last().and_then(|f| f.self_type.as_deref()) {
                        segments[0] = ty.to_string();
                    }
                }
            }
        }
        // A path that is only `crate`, `self` or `super` names nothing.
        if segments
            .iter()
            .all(|s| matches!(s.as_str(), "crate" | "self" | "super"))
        {
            return None;
        }
        Some(Reference {
            path: segments,
            member: member || receiver != Receiver::None,
            call,
            line: line(at),
            caller: self.caller(),
            receiver,
        })
    }

    /// A node's text, lossily decoded, without a raw identifier's `r#`.
    fn text(&self, node: Node<'_>) -> String {
        let bytes = self.source.get(node.byte_range()).unwrap_or_default();
        let text = String::from_utf8_lossy(bytes);
        text.strip_prefix("r#").unwrap_or(&text).to_string()
    }
}

/// The name node a binding pattern comes down to: `mut x`, `ref x`, `ref
/// mut x` → `x`; any other pattern is itself.
fn unwrap_binding(mut node: Node<'_>) -> Node<'_> {
    for _ in 0..4 {
        if !matches!(node.kind(), "mut_pattern" | "ref_pattern") {
            break;
        }
        let Some(last) = node.named_child(node.named_child_count().saturating_sub(1)) else {
            break;
        };
        node = last;
    }
    node
}

/// The steps of a condition (`if`, `while`, a match guard), in order: a
/// `let P = v` walks `P` and `v`, then binds `P`'s names (in the scope the
/// caller opened); `let` chains each in turn; an expression is visited.
fn condition_work<'t>(condition: Node<'t>, work: &mut Vec<Work<'t>>) {
    let parts: Vec<Node<'t>> = if condition.kind() == "let_chain" {
        let mut c = condition.walk();
        let parts = condition.named_children(&mut c).collect();
        parts
    } else {
        vec![condition]
    };
    for part in parts {
        if part.kind() != "let_condition" {
            work.push(Work::Visit(part));
            continue;
        }
        let pattern = part.child_by_field_name("pattern");
        let value = part.child_by_field_name("value");
        if let Some(p) = pattern {
            work.push(Work::Pattern(p));
        }
        if let Some(v) = value {
            work.push(Work::Visit(v));
        }
        if let Some(p) = pattern {
            work.push(Work::Bind {
                pattern: p,
                value,
                ty: None,
            });
        }
    }
}

/// `prefix` with `segments` appended.
fn extend(prefix: QualifiedPath, segments: Vec<String>) -> QualifiedPath {
    segments.into_iter().fold(prefix, |path, s| path.child(s))
}

/// A definition's own name node, never walked as a use.
fn skip_name(node: Node<'_>) -> Vec<Node<'_>> {
    node.child_by_field_name("name").into_iter().collect()
}

/// Schedules `node`'s named children, in source order, except `skip`;
/// those in a pattern position (see [`child_is_pattern`]) as patterns.
fn push_children<'t>(stack: &mut Vec<Work<'t>>, node: Node<'t>, skip: &[Node<'t>]) {
    let children = child_modes(node)
        .into_iter()
        .filter(|(c, _)| !skip.iter().any(|s| s.id() == c.id()));
    stack.extend(children.map(|(c, in_pattern)| {
        if in_pattern {
            Work::Pattern(c)
        } else {
            Work::Visit(c)
        }
    }));
}

/// `node`'s named children in reverse source order (ready to push on a
/// stack), each with whether it is in a pattern position.
fn child_modes(node: Node<'_>) -> Vec<(Node<'_>, bool)> {
    let kind = node.kind();
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                out.push((child, child_is_pattern(kind, cursor.field_name())));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out.reverse();
    out
}

/// Whether the child of a `parent` node under `field` is a pattern, where
/// a plain identifier binds a name: the pattern of a parameter, `let`,
/// `for`, `if let`/`while let`, `match` arm or closure parameter, and the
/// parts of a pattern (not a tuple-struct or struct pattern's type, a match
/// guard, a range's bounds or a field pattern's name).
fn child_is_pattern(parent: &str, field: Option<&str>) -> bool {
    match parent {
        "parameter" | "variadic_parameter" | "let_declaration" | "for_expression"
        | "let_condition" | "field_pattern" => field == Some("pattern"),
        "match_pattern" => field != Some("condition"),
        "tuple_struct_pattern" | "struct_pattern" => field != Some("type"),
        "closure_parameters" | "tuple_pattern" | "slice_pattern" | "or_pattern" | "ref_pattern"
        | "mut_pattern" | "captured_pattern" | "reference_pattern" => true,
        _ => false,
    }
}

/// UPPER_CASE: letters, digits and underscores, at least one uppercase
/// letter and no lowercase one (a constant or static by convention).
fn is_constant_name(name: &str) -> bool {
    name.chars().any(char::is_uppercase)
        && !name.chars().any(char::is_lowercase)
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use crate::adapters::{index_file, Language};
    use crate::model::{FileIndex, Kind, Receiver};

    const CONFIG: &str = r#"
pub struct Config { port: u16 }

impl Config {
    pub fn load() -> Self {
        helper();
        Config::default_port();
        Self { port: 1 }
    }
    fn default_port() -> u16 { 8080 }
}

fn helper() {}

mod inner {
    pub fn deep() {}
    pub mod more { pub struct X; }
}

pub trait Store {
    fn get(&self);
    type Item;
    const N: usize;
}

impl Store for Config {
    fn get(&self) { self.port.to_string(); }
    type Item = u8;
    const N: usize = 1;
}

pub enum Mode { Fast, Slow }

macro_rules! m { () => {} }

pub use inner::more::X as Y;

type Alias = Vec<u8>;

static S: u8 = 1;

pub struct Wrapper<T> { inner: T }

impl<T: Clone> Wrapper<T> {
    fn new() {}
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() { super::helper(); }
}
"#;

    fn index(path: &str, source: &str) -> FileIndex {
        index_file(Language::Rust, path, source.as_bytes())
    }

    #[test]
    fn definitions_are_qualified_and_kinded() {
        let f = index("src/config.rs", CONFIG);
        assert!(!f.syntax_errors);
        for (path, kind) in [
            ("config::Config", Kind::Class),
            ("config::Config::port", Kind::Field),
            ("config::Config::load", Kind::Method),
            ("config::Config::default_port", Kind::Method),
            ("config::helper", Kind::Function),
            ("config::inner", Kind::Module),
            ("config::inner::deep", Kind::Function),
            ("config::inner::more", Kind::Module),
            ("config::inner::more::X", Kind::Class),
            ("config::Store", Kind::Interface),
            ("config::Store::get", Kind::Method),
            ("config::Store::Item", Kind::Type),
            ("config::Store::N", Kind::Constant),
            ("config::Config::get", Kind::Method),
            ("config::Config::Item", Kind::Type),
            ("config::Config::N", Kind::Constant),
            ("config::Mode", Kind::Enum),
            ("config::Mode::Fast", Kind::Variant),
            ("config::Mode::Slow", Kind::Variant),
            ("config::m", Kind::Macro),
            ("config::Y", Kind::Alias),
            ("config::Alias", Kind::Type),
            ("config::S", Kind::Constant),
            ("config::Wrapper", Kind::Class),
            ("config::Wrapper::new", Kind::Method),
            ("config::tests", Kind::Module),
            ("config::tests::t", Kind::Function),
        ] {
            assert_eq!(f.kind_of(path), Some(kind), "{path}");
        }
        let alias = f.symbols.iter().find(|s| s.path.join("::") == "config::Y");
        assert_eq!(
            alias.map(|s| s.target.join("::")),
            Some("inner::more::X".to_string())
        );
        let load = f
            .symbols
            .iter()
            .find(|s| s.path.join("::") == "config::Config::load");
        assert_eq!(load.map(|s| s.line), Some(5));
        // No definition named by the whole path of another scope leaked.
        assert_eq!(f.kind_of("config::load"), None);
        assert_eq!(f.kind_of("config::Wrapper<T>::new"), None);
    }

    #[test]
    fn calls_carry_their_caller() {
        let f = index("src/config.rs", CONFIG);
        let helper = f.references_to("helper");
        assert!(
            helper.iter().any(|r| r.call
                && !r.member
                && r.caller.join("::") == "config::Config::load"
                && r.line == 6),
            "{helper:?}"
        );
        // `super::helper()` in the test module: `super` kept (it names
        // the parent module).
        assert!(
            f.references_to("super::helper")
                .iter()
                .any(|r| r.call && r.caller.join("::") == "config::tests::t"),
            "{:?}",
            f.references
        );
        let scoped = f.references_to("Config::default_port");
        assert_eq!(scoped.len(), 1, "{:?}", f.references);
        assert!(scoped[0].call && !scoped[0].member);
        assert_eq!(scoped[0].caller.join("::"), "config::Config::load");
        // `self.port.to_string()`: `port`, then `to_string`, on the impl's type.
        let to_string = f.references_to("port::to_string");
        assert_eq!(to_string.len(), 1);
        assert!(to_string[0].call && to_string[0].member);
        assert_eq!(
            to_string[0].receiver,
            Receiver::This(vec!["config".to_string(), "Config".into()].into())
        );
        assert_eq!(to_string[0].caller.join("::"), "config::Config::get");
    }

    #[test]
    fn definition_names_are_not_references() {
        let f = index("src/config.rs", CONFIG);
        // `Config` is used only by `impl Store for Config`'s self type (not a
        // use) and `Config::default_port()`; its own name is never a use.
        assert!(f.references_to("Config").is_empty(), "{:?}", f.references);
        assert!(f.references_to("Mode").is_empty());
        assert!(
            f.references_to("T").is_empty(),
            "generic parameters are not uses"
        );
        assert!(f.references_to("Self").is_empty());
        assert!(
            f.references_to("inner::more::X").is_empty(),
            "use paths are not uses"
        );
        // The trait in `impl Store for Config` is a use, as is `Clone`.
        assert_eq!(f.references_to("Store").len(), 1);
        assert_eq!(f.references_to("Clone").len(), 1);
    }

    #[test]
    fn types_paths_macros_and_self_are_resolved_syntactically() {
        let src = r#"
use std::fmt;
pub use crate::a::{b, c as d, e::{self, f}};
pub(crate) use self::g::H;
use x::y::*;
use private::Thing;
impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<Item> = Vec::<Config>::new();
        Self::helper(Mode::Fast);
        crate::util::go::<u8>();
        write!(f, "{}", render(self.x.y()))?;
        assert_eq!(Config::load().port, util::two(), "{}", Self::N);
        items.iter().map(Self::convert).count();
        match m { Mode::Slow => {}, Some(v) => {} }
        if let Config { port } = c {}
        <Config as Store>::get(&c);
        Ok(())
    }
}
macro_rules! mm { ($x:expr) => { $crate::expand($x); fn not_a_call() {} } }
"#;
        let f = index("src/lib.rs", src);
        assert_eq!(f.kind_of("Config::fmt"), Some(Kind::Method));
        for (path, target) in [
            ("b", "crate::a::b"),
            ("d", "crate::a::c"),
            ("e", "crate::a::e"),
            ("f", "crate::a::e::f"),
            ("H", "self::g::H"),
        ] {
            let s = f.symbols.iter().find(|s| s.path.join("::") == path);
            assert_eq!(
                s.map(|s| (s.kind, s.target.join("::"))),
                Some((Kind::Alias, target.into())),
                "{path}"
            );
        }
        assert_eq!(f.kind_of("Thing"), None, "a private plain use is an import");
        assert_eq!(f.kind_of("fmt"), None);
        let call = |p: &str| {
            f.references_to(p)
                .iter()
                .any(|r| r.call && r.caller.join("::") == "Config::fmt")
        };
        let call_member = |p: &str| f.references_to(p).iter().any(|r| r.call && r.member);
        let used = |p: &str| f.references_to(p).iter().any(|r| !r.call);
        let this = Receiver::This(vec!["Config".to_string()].into());
        let on_self = |p: &str, call: bool| {
            f.references_to(p)
                .iter()
                .any(|r| r.call == call && r.receiver == this)
        };
        assert!(
            on_self("helper", true),
            "Self::helper(): {:?}",
            f.references
        );
        assert!(call("crate::util::go"), "crate kept, turbofish unwrapped");
        assert!(call("Vec::new"));
        assert!(call("write"), "macro invocation");
        assert!(call("render"), "call inside macro arguments");
        assert!(call_member("y"));
        assert!(call("Config::load"));
        assert!(call("util::two"));
        // `<Config as Store>::get(&c)`: the trait's method, dispatched on
        // the type written.
        assert!(call("Store::get"), "<Config as Store>::get");
        assert!(f.references_to("Store::get").iter().any(|r| r.receiver
            == Receiver::Dispatch {
                on: Box::new(Receiver::Type(vec!["Config".into()])),
                explicit: true,
            }));
        assert!(on_self("N", false), "Self::N in a macro");
        assert!(on_self("convert", false), "a path used as a value");
        assert!(used("Mode::Fast") && used("Mode::Slow"));
        assert!(used("fmt::Display") && used("fmt::Formatter") && used("fmt::Result"));
        assert!(used("Item") && used("Config") && used("Store"));
        assert!(used("Some"), "tuple-struct pattern");
        assert!(f
            .references_to("crate::expand")
            .iter()
            .any(|r| r.call && r.caller.is_empty()));
        // Private uses are imports; a glob is a glob import.
        assert!(f
            .imports
            .iter()
            .any(|i| i.name == "Thing" && i.target == ["private", "Thing"] && !i.glob));
        assert!(f
            .imports
            .iter()
            .any(|i| i.glob && i.target == ["x", "y"] && !i.public));
        // `let items: Vec<Item>`: `items.iter()` is on a `Vec`.
        assert!(f
            .references_to("iter")
            .iter()
            .any(|r| r.receiver == Receiver::Type(vec!["Vec".into()])));
        assert!(f.references_to("not_a_call").is_empty());
        assert!(f.references_to("fmt").is_empty(), "the method's own name");
        // Source order: `render` (line 12) comes after `write` (line 12) and
        // before `Config::load` (line 13).
        let pos = |p: &str| f.references.iter().position(|r| r.path.join("::") == p);
        assert!(pos("write") < pos("render") && pos("render") < pos("Config::load"));
    }

    #[test]
    fn nested_functions_and_items_are_qualified_by_their_function() {
        let src = "fn outer() { fn inner() { outer(); } struct Local; impl Local { fn m() { inner(); } } }\n\
                   extern \"C\" { fn ffi(); }";
        let f = index("src/a/mod.rs", src);
        assert_eq!(f.kind_of("a::outer::inner"), Some(Kind::Function));
        assert_eq!(f.kind_of("a::outer::Local"), Some(Kind::Class));
        assert_eq!(f.kind_of("a::outer::Local::m"), Some(Kind::Method));
        assert_eq!(f.kind_of("a::ffi"), Some(Kind::Function));
        let outer = f.references_to("outer");
        assert_eq!(outer[0].caller.join("::"), "a::outer::inner");
        let inner = f.references_to("inner");
        assert_eq!(inner[0].caller.join("::"), "a::outer::Local::m");
    }

    #[test]
    fn names_used_as_values_are_references_and_locals_are_not() {
        let src = "const MAX_RETRIES: u32 = 3;\n\
                   fn parse_port(s: &str) -> u16 { 0 }\n\
                   fn run(xs: Vec<&str>) -> u32 {\n\
                   let n = MAX_RETRIES;\n\
                   let ports: Vec<u16> = xs.iter().map(|s| parse_port(s)).collect();\n\
                   let f = parse_port;\n\
                   let local = 1;\n\
                   let y = local + n;\n\
                   y\n\
                   }\n";
        let f = index("src/lib.rs", src);
        let max = f.references_to("MAX_RETRIES");
        assert!(
            max.len() == 1 && !max[0].call && !max[0].member && max[0].caller == ["run"],
            "{:?}",
            f.references
        );
        assert_eq!(max[0].line, 4);
        let parse_port = f.references_to("parse_port");
        assert!(
            parse_port.iter().any(|r| r.call && r.line == 5),
            "the call in the closure: {parse_port:?}"
        );
        assert!(
            parse_port
                .iter()
                .any(|r| !r.call && !r.member && r.line == 6 && r.caller == ["run"]),
            "`let f = parse_port` is a use: {parse_port:?}"
        );
        assert_eq!(parse_port.len(), 2, "the callee is not recorded twice");
        for local in ["n", "local", "s", "xs", "y", "f", "ports"] {
            assert!(
                f.references_to(local).is_empty(),
                "{local}: {:?}",
                f.references
            );
        }
    }

    #[test]
    fn patterns_bind_but_constants_ranges_and_statics_are_uses() {
        let src = r#"
static mut COUNTER: u32 = 0;
fn g<const N: usize>(v: Option<Config>, (a, b): (u8, u8)) -> usize {
    'outer: for (i, x) in ITEMS.iter().enumerate() { break 'outer; }
    if let Some(Config { port, name: alias, .. }) = v { port + alias; }
    while let Some(w) = next(a) { w; }
    match b { MAX => {}, c @ 1..=LIMIT if c > b => {}, Mode::Fast => {} }
    let s = S { port: DEFAULT_PORT, b, handler };
    unsafe { COUNTER = a as u32; }
    let h = |q: u8, r| q + r + OFFSET;
    assert_eq!(N, MAX_N, "{}", q);
    fn inner(k: u8) -> u8 { k + a }
    N
}
"#;
        let f = index("src/lib.rs", src);
        let used = |p: &str| {
            f.references_to(p)
                .iter()
                .any(|r| !r.call && r.caller == ["g"])
        };
        for name in [
            "ITEMS",
            "MAX",
            "LIMIT",
            "DEFAULT_PORT",
            "handler",
            "COUNTER",
            "OFFSET",
            "MAX_N",
        ] {
            assert!(used(name), "{name}: {:?}", f.references);
        }
        assert!(used("Mode::Fast") && used("Some") && used("Config"));
        for name in [
            "v", "b", "i", "x", "port", "alias", "w", "c", "s", "h", "q", "r", "N", "outer",
            "static", "name", "k", "inner",
        ] {
            assert!(
                f.references_to(name).is_empty(),
                "{name}: {:?}",
                f.references
            );
        }
        // `inner` is a function of its own: `a` is not its local, so it is
        // a use there (a nested fn cannot capture `g`'s locals).
        let a = f.references_to("a");
        assert!(a.len() == 1 && a[0].caller == ["g", "inner"], "{a:?}");
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed: u32 = 7;
        for round in 0..50 {
            let bytes: Vec<u8> = (0..400 + round * 10)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let alphabet = b"fn impl struct mod use pub ::{}()<>[];!.,#'$ aZ_0\n\xff";
                    alphabet[(seed >> 16) as usize % alphabet.len()]
                })
                .collect();
            let _ = index_file(Language::Rust, "src/g.rs", &bytes);
        }
        let f = index(
            "src/g.rs",
            "impl<T for { fn (x: ) use a::{b as ; pub use ::; mod",
        );
        assert!(f.syntax_errors);
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 10_000;
        let src = format!(
            "fn f() {{ let x = {}1{}; }}",
            "g(".repeat(depth),
            ")".repeat(depth)
        );
        let f = crate::adapters::index_on_small_stack(Language::Rust, "src/deep.rs", src);
        assert_eq!(f.references_to("g").len(), depth);
        assert!(f
            .references_to("g")
            .iter()
            .all(|r| r.caller == ["deep", "f"]));
    }

    #[test]
    fn deep_nesting_keeps_the_entry_linear() {
        // `fn f0<T0>(x: T0, y: U) { g(); fn f1<T1>(…) { g(); … } }`: N
        // functions N deep, each calling `g`, using `U` and its own generic.
        let source = |depth: usize| {
            let mut src: String = (0..depth)
                .map(|i| format!("fn f{i}<T{i}>(x: T{i}, y: U) {{ g(); "))
                .collect();
            src.push_str(&"}".repeat(depth));
            src
        };
        let check = |f: &FileIndex, depth: usize| {
            assert!(!f.syntax_errors);
            assert_eq!(f.symbols.len(), depth);
            let calls: Vec<_> = f.references.iter().filter(|r| r.path == ["g"]).collect();
            assert_eq!(calls.len(), depth);
            for (i, (symbol, call)) in f.symbols.iter().zip(&calls).enumerate() {
                assert_eq!(symbol.path.len(), i + 2);
                assert_eq!(symbol.path.last(), Some(&format!("f{i}")));
                assert_eq!(call.caller, symbol.path);
            }
            assert_eq!(
                f.symbols[depth - 1].path.get(0).map(String::as_str),
                Some("deep")
            );
            let uses = f.references.iter().filter(|r| r.path == ["U"]).count();
            assert_eq!(uses, depth);
            assert!(!f.references.iter().any(|r| r.path[0].starts_with('T')));
        };
        crate::adapters::assert_deep_linear(Language::Rust, "src/deep.rs", source, check);
    }

    #[test]
    fn long_and_nested_use_lists_keep_the_entry_linear() {
        // `pub use a0::…::aN::{X0, …, XN};`: the targets are bounded by the
        // file's budget; a private one records nothing and, its prefix
        // shared by its items, takes linear time.
        for public in ["pub ", ""] {
            let source = |n: usize| {
                let path: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
                let names: Vec<String> = (0..n).map(|i| format!("X{i}")).collect();
                format!(
                    "{public}use {}::{{{}}};\n",
                    path.join("::"),
                    names.join(", ")
                )
            };
            let check = |f: &FileIndex, n: usize| {
                let aliases: Vec<_> = f.symbols.iter().filter(|s| s.kind == Kind::Alias).collect();
                if public.is_empty() {
                    assert!(aliases.is_empty());
                    return;
                }
                assert_eq!(aliases.len(), n);
                assert_eq!(aliases[0].target.len(), n + 1);
                assert_eq!(aliases[0].target.last().map(String::as_str), Some("X0"));
                assert!(aliases[n - 1].target.is_empty());
            };
            crate::adapters::assert_deep_linear(Language::Rust, "src/lib.rs", source, check);
        }
        // `pub use a::{X, b::{X, c::{X, …}}}`: nested groups.
        let groups = |depth: usize| {
            let mut src: String = (0..depth).map(|i| format!("m{i}::{{X, ")).collect();
            src.push('Y');
            format!("pub use {}{};\n", src, "}".repeat(depth))
        };
        let check = |f: &FileIndex, depth: usize| {
            let aliases: Vec<_> = f.symbols.iter().filter(|s| s.kind == Kind::Alias).collect();
            assert_eq!(aliases.len(), depth + 1);
            assert_eq!(aliases[2].target, ["m0", "m1", "m2", "X"]);
        };
        crate::adapters::assert_deep_linear(Language::Rust, "src/lib.rs", groups, check);
    }
}
