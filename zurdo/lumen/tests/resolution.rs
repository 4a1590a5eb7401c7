//! The resolution rules of issue 16, per language, each both ways: the
//! use that must reach the definition, and the near miss that must not (or
//! that must stay ambiguous rather than count). Each test indexes a small
//! repository on disk, as `zurdo lumen index` would, and asks
//! [`Index::answer`], the one resolution the hints and `zurdo lumen query`
//! share.

use zurdo_lumen::query::{Answer, Use};
use zurdo_lumen::Index;

/// A repository of `files` (a `.git` marker at its root), indexed.
fn index(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("repo marker");
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }
    let mut index = Index::default();
    index.refresh(dir.path());
    (dir, index)
}

fn seg(name: &str) -> Vec<String> {
    name.split("::").map(str::to_string).collect()
}

fn answer<'a>(index: &'a Index, name: &str) -> Answer<'a> {
    index.answer(&seg(name))
}

/// `file:line` of each use.
fn sites(uses: &[Use<'_>]) -> Vec<String> {
    let mut out: Vec<String> = uses
        .iter()
        .map(|u| format!("{}:{}", u.file.path, u.reference.line))
        .collect();
    out.sort();
    out
}

/// The callers' paths.
fn callers(a: &Answer<'_>) -> Vec<String> {
    let mut out: Vec<String> = a
        .callers
        .iter()
        .map(|u| u.reference.caller.join("::"))
        .collect();
    out.sort();
    out
}

fn defined(a: &Answer<'_>) -> Vec<String> {
    a.definitions
        .iter()
        .map(|d| format!("{}:{}", d.file.path, d.symbol.line))
        .collect()
}

// ---- Package-qualified uses through re-exports ---------------------------

#[test]
fn python_a_use_through_a_package_reexport_reaches_the_definition() {
    let (_d, i) = index(&[
        ("src/req/__init__.py", "from .api import get, post\n"),
        (
            "src/req/api.py",
            "def get(url):\n    return request('get', url)\n\ndef post(url):\n    pass\n\ndef request(m, u):\n    pass\n\ndef hidden():\n    pass\n",
        ),
        (
            "tests/test_api.py",
            "import req\nimport req.api\n\ndef test_get():\n    req.get('x')\n\ndef test_again():\n    req.get('y')\n    req.api.hidden()\n\ndef test_not_exported():\n    req.hidden()\n",
        ),
    ]);
    let get = answer(&i, "req::api::get");
    assert_eq!(
        callers(&get),
        ["tests::test_api::test_again", "tests::test_api::test_get"]
    );
    // `req.hidden` is not re-exported by the package: not a use of it;
    // `req.api.hidden` through the submodule is.
    let hidden = answer(&i, "req::api::hidden");
    assert_eq!(sites(&hidden.references), ["tests/test_api.py:9"]);
    // The public path is a name of the definition too.
    assert_eq!(defined(&answer(&i, "req::get")), ["src/req/api.py:1"]);
}

#[test]
fn typescript_a_use_through_an_index_reexport_reaches_the_definition() {
    let (_d, i) = index(&[
        ("src/pkg/index.ts", "export { render } from './render';\nexport * from './util';\n"),
        ("src/pkg/render.ts", "export function render() {}\nexport function internal() {}\n"),
        ("src/pkg/util.ts", "export function pad() {}\n"),
        (
            "src/app.ts",
            "import { render, pad } from './pkg';\nimport * as pkg from './pkg';\nexport function main() { render(); pad(); }\nexport function other() { pkg.render(); pkg.internal(); }\n",
        ),
    ]);
    assert_eq!(
        callers(&answer(&i, "pkg::render::render")),
        ["app::main", "app::other"]
    );
    assert_eq!(callers(&answer(&i, "pkg::util::pad")), ["app::main"]);
    // `internal` is not re-exported by the index: `pkg.internal` is not it.
    assert!(answer(&i, "pkg::render::internal").references.is_empty());
}

#[test]
fn rust_a_crate_path_and_a_pub_use_reach_the_definition() {
    let (_d, i) = index(&[
        ("Cargo.toml", "[package]\nname = \"glob-set\"\nversion = \"0.1.0\"\n"),
        (
            "src/lib.rs",
            "mod glob;\npub use crate::glob::Glob;\nuse crate::glob::Private;\n",
        ),
        (
            "src/glob.rs",
            "pub struct Glob;\nimpl Glob {\n    pub fn new() -> Glob { Glob }\n}\npub struct Private;\n",
        ),
        (
            "tests/api.rs",
            "use glob_set::Glob;\n\nfn builds() { let _ = Glob::new(); }\nfn qualified() { let _ = glob_set::Glob::new(); }\nfn private() { let _ = glob_set::Private; }\n",
        ),
    ]);
    // The crate's name (`-` read as `_`) heads its paths.
    assert_eq!(defined(&answer(&i, "glob_set::Glob")), ["src/glob.rs:1"]);
    assert_eq!(
        defined(&answer(&i, "glob_set::glob::Glob::new")),
        ["src/glob.rs:3"]
    );
    assert_eq!(
        callers(&answer(&i, "Glob::new")),
        ["tests::api::builds", "tests::api::qualified"]
    );
    // `Type::new()` uses `Type` (not a call of it).
    let glob = answer(&i, "glob_set::Glob");
    assert!(sites(&glob.references).contains(&"tests/api.rs:3".to_string()));
    assert!(glob.callers.is_empty());
    // A private `use` re-exports nothing.
    assert!(answer(&i, "glob::Private").references.is_empty());
}

#[test]
fn go_a_package_qualified_call_reaches_its_package_only() {
    let (_d, i) = index(&[
        ("store/store.go", "package store\n\nfunc New() int { return 1 }\n"),
        ("other/other.go", "package other\n\nfunc New() int { return 2 }\n"),
        (
            "cmd/main.go",
            "package main\n\nimport (\n\t\"example.com/m/store\"\n\tx \"example.com/m/other\"\n)\n\nfunc main() { store.New() }\nfunc alt() { x.New() }\n",
        ),
    ]);
    assert_eq!(callers(&answer(&i, "store::New")), ["main::main"]);
    assert_eq!(callers(&answer(&i, "other::New")), ["main::alt"]);
}

// ---- The query and the hints: one resolution ------------------------------

#[test]
fn an_alias_name_is_answered_with_the_definitions_references() {
    let (_d, i) = index(&[
        ("app/__init__.py", "from .store import Store as Store\n"),
        ("app/store.py", "class Store:\n    pass\n"),
        (
            "app/main.py",
            "import app\n\ndef main():\n    app.Store()\n",
        ),
    ]);
    // The name matches only the alias: the answer is the class's, with its
    // use, for the query and the hints alike.
    let a = answer(&i, "app::Store");
    assert_eq!(defined(&a), ["app/store.py:1"]);
    assert_eq!(sites(&a.references), ["app/main.py:4"]);
    assert_eq!(callers(&a), ["app::main::main"]);
}

// ---- Attribute reads -------------------------------------------------------

#[test]
fn python_reads_of_a_property_and_of_a_field_are_references() {
    let (_d, i) = index(&[(
        "m.py",
        "class Req:\n    def __init__(self):\n        self.body = b''\n\n    @property\n    def path_url(self):\n        return self.body\n\ndef f(r: Req):\n    return r.path_url\n\nclass Other:\n    path_url = 1\n\ndef g(o: Other):\n    return o.path_url\n",
    )]);
    let prop = answer(&i, "Req::path_url");
    assert_eq!(
        sites(&prop.references),
        ["m.py:10"],
        "the read on a `Req`, not on an `Other`"
    );
    assert!(prop.callers.is_empty(), "a read is not a call");
    let field = answer(&i, "Req::body");
    assert_eq!(sites(&field.references), ["m.py:7"]);
}

#[test]
fn typescript_getter_and_field_reads_on_this_and_typed_values() {
    let (_d, i) = index(&[(
        "src/a.ts",
        "export class A {\n  size = 0;\n  get full(): boolean { return this.size > 3; }\n}\nexport class B { full = false; }\nexport function f(a: A, b: B) { return a.full || b.full; }\n",
    )]);
    assert_eq!(sites(&answer(&i, "A::full").references), ["src/a.ts:6"]);
    assert_eq!(sites(&answer(&i, "A::size").references), ["src/a.ts:3"]);
    assert_eq!(sites(&answer(&i, "B::full").references), ["src/a.ts:6"]);
}

#[test]
fn go_and_rust_field_reads_are_references() {
    let (_d, i) = index(&[
        (
            "cfg/cfg.go",
            "package cfg\n\ntype Config struct {\n\tPort int\n}\n\nfunc (c *Config) Addr() int { return c.Port }\n",
        ),
        (
            "src/lib.rs",
            "pub struct Config { pub port: u16 }\nimpl Config {\n    pub fn addr(&self) -> u16 { self.port }\n}\npub struct Other { pub port: u16 }\n",
        ),
    ]);
    assert_eq!(
        sites(&answer(&i, "cfg::Config::Port").references),
        ["cfg/cfg.go:7"]
    );
    assert_eq!(
        sites(&answer(&i, "Config::port").references),
        ["src/lib.rs:3"]
    );
    assert!(answer(&i, "Other::port").references.is_empty());
}

// ---- `X.m()`: the call is `m`; `X` is a use ---------------------------------

#[test]
fn the_object_of_a_call_is_a_use_not_a_call_in_every_language() {
    let (_d, i) = index(&[
        (
            "py/a.py",
            "class X:\n    @staticmethod\n    def m():\n        pass\n\ndef run():\n    X.m()\n",
        ),
        (
            "src/b.ts",
            "export class Y { static m() {} }\nexport function run() { Y.m(); }\n",
        ),
        (
            "src/c.rs",
            "pub struct Z;\nimpl Z { pub fn m() {} }\npub fn run() { Z::m(); }\n",
        ),
    ]);
    for (ty, method) in [
        ("a::X", "a::X::m"),
        ("b::Y", "b::Y::m"),
        ("c::Z", "c::Z::m"),
    ] {
        let t = answer(&i, ty);
        assert_eq!(t.references.len(), 1, "{ty} is used");
        assert!(t.callers.is_empty(), "{ty} is not called");
        assert_eq!(answer(&i, method).callers.len(), 1, "{method} is called");
    }
}

// ---- Same-named members of unrelated types ---------------------------------

#[test]
fn rust_a_method_of_a_std_type_is_not_a_local_method_of_that_name() {
    let (_d, i) = index(&[(
        "src/lib.rs",
        "use std::process::Command;\npub struct CommandError { out: String }\nimpl CommandError {\n    pub fn stderr(&self) -> &str { &self.out }\n}\npub fn run(c: &mut Command) { c.stderr(std::process::Stdio::null()); }\npub fn report(e: &CommandError) -> &str { e.stderr() }\n",
    )]);
    let a = answer(&i, "CommandError::stderr");
    assert_eq!(callers(&a), ["report"]);
    assert!(a.ambiguous.is_empty());
}

#[test]
fn python_a_call_through_an_imported_module_is_never_a_method_call() {
    let (_d, i) = index(&[
        ("req/__init__.py", "from .api import patch\n"),
        ("req/api.py", "def patch(url):\n    pass\n\nclass Session:\n    def patch(self, url):\n        pass\n"),
        (
            "tests/t.py",
            "from unittest import mock\nimport req\n\ndef test_mocked():\n    mock.patch('x')\n\ndef test_real():\n    req.patch('y')\n\ndef test_session(s: 'req.api.Session'):\n    s.patch('z')\n",
        ),
    ]);
    assert_eq!(
        callers(&answer(&i, "req::api::patch")),
        ["tests::t::test_real"]
    );
    assert_eq!(
        callers(&answer(&i, "Session::patch")),
        ["tests::t::test_session"]
    );
}

#[test]
fn go_a_package_call_is_not_a_method_of_that_name() {
    let (_d, i) = index(&[(
        "log/log.go",
        "package log\n\nimport \"fmt\"\n\ntype Logger struct{}\n\nfunc (l *Logger) Println(s string) {}\n\nfunc Use(l *Logger) {\n\tfmt.Println(\"x\")\n\tl.Println(\"y\")\n}\n",
    )]);
    let a = answer(&i, "Logger::Println");
    assert_eq!(sites(&a.references), ["log/log.go:11"]);
}

#[test]
fn a_member_of_a_value_of_unknown_type_is_ambiguous_when_several_types_declare_it() {
    let (_d, i) = index(&[(
        "m.py",
        "class A:\n    def load(self):\n        pass\n\nclass B:\n    def load(self):\n        pass\n\nclass C:\n    def only_here(self):\n        pass\n\ndef f(x, y):\n    x.load()\n    y.only_here()\n",
    )]);
    let a = answer(&i, "A::load");
    assert!(a.references.is_empty() && a.callers.is_empty());
    assert_eq!(sites(&a.ambiguous), ["m.py:14"]);
    // One type declares it, and no built-in type has a method of that name.
    assert_eq!(callers(&answer(&i, "C::only_here")), ["m::f"]);
}

// ---- Import aliases shadow -------------------------------------------------

#[test]
fn an_import_alias_shadows_a_definition_of_that_name_elsewhere() {
    let (_d, i) = index(&[
        ("src/delay.ts", "export function delay() {}\n"),
        (
            "src/app.ts",
            "import { setTimeout as delay } from 'timers';\nexport function run() { delay(); }\n",
        ),
        (
            "src/user.ts",
            "import { delay } from './delay';\nexport function go() { delay(); }\n",
        ),
        (
            "py/t.py",
            "from time import sleep as delay\n\ndef wait():\n    delay(1)\n",
        ),
    ]);
    assert_eq!(callers(&answer(&i, "delay::delay")), ["user::go"]);
}

// ---- CommonJS and prototypes ------------------------------------------------

#[test]
fn commonjs_exports_and_prototype_methods_are_definitions_and_resolve() {
    let (_d, i) = index(&[
        (
            "lib/view.js",
            "function View(name) { this.name = name; }\nView.prototype.lookup = function lookup(n) { return n; };\nView.prototype.render = function render() { return this.lookup(this.name); };\nmodule.exports = View;\n",
        ),
        (
            "lib/response.js",
            "var res = Object.create(null);\nmodule.exports = res;\nres.send = function send(body) { return body; };\nres.json = function json(obj) { return this.send(obj); };\n",
        ),
        (
            "lib/utils.js",
            "exports.etag = function etag(body) { return body; };\nfunction merge(a) { return a; }\nmodule.exports.merge = merge;\n",
        ),
        (
            "lib/app.js",
            "var View = require('./view');\nvar utils = require('./utils');\nvar etag = require('./utils').etag;\nfunction render() { var v = new View('x'); return v.render(); }\nfunction tag(b) { return utils.etag(b) + etag(b); }\n",
        ),
    ]);
    assert_eq!(
        defined(&answer(&i, "view::View::lookup")),
        ["lib/view.js:2"]
    );
    assert_eq!(
        callers(&answer(&i, "view::View::lookup")),
        ["view::View::render"]
    );
    assert_eq!(
        callers(&answer(&i, "response::res::send")),
        ["response::res::json"]
    );
    assert_eq!(callers(&answer(&i, "utils::etag")), ["app::tag"]);
    assert_eq!(callers(&answer(&i, "view::View::render")), ["app::render"]);
    assert_eq!(
        callers(&answer(&i, "view::View")),
        ["app::render"],
        "`new View()`"
    );
    // Not a definition: an unrelated object's property.
    assert!(answer(&i, "response::res::lookup").definitions.is_empty());
}

// ---- Inherited members -----------------------------------------------------

#[test]
fn a_member_declared_on_a_base_resolves_through_the_subclass() {
    let (_d, i) = index(&[
        (
            "flask/sansio/scaffold.py",
            "class Scaffold:\n    def add_url_rule(self, rule):\n        pass\n",
        ),
        (
            "flask/app.py",
            "from .sansio.scaffold import Scaffold\n\nclass Flask(Scaffold):\n    def route(self, rule):\n        self.add_url_rule(rule)\n\nclass Unrelated:\n    pass\n",
        ),
        (
            "src/base.ts",
            "export class Base { save() {} }\nexport class Child extends Base { run() { this.save(); } }\nexport function f(c: Child) { c.save(); }\n",
        ),
    ]);
    let rule = answer(&i, "Flask::add_url_rule");
    assert_eq!(defined(&rule), ["flask/sansio/scaffold.py:2"]);
    assert_eq!(callers(&rule), ["flask::app::Flask::route"]);
    assert!(answer(&i, "Unrelated::add_url_rule").definitions.is_empty());
    assert_eq!(
        callers(&answer(&i, "Child::save")),
        ["base::Child::run", "base::f"]
    );
}

// ---- TypeScript callbacks typed by the function they are passed to ----------

#[test]
fn a_callbacks_untyped_parameter_has_the_type_the_callee_declares() {
    let (_d, i) = index(&[
        (
            "src/subscriber.ts",
            "export class Subscriber { complete() {} }\nexport class Subject { complete() {} }\n",
        ),
        (
            "src/observable.ts",
            "import { Subscriber, Subject } from './subscriber';\nexport class Observable {\n  constructor(subscribe?: (this: Observable, subscriber: Subscriber) => void) {}\n}\nexport function operate(init: (source: Observable, subscriber: Subscriber) => void) {}\nexport function untyped(init: any) {}\nexport function bound(this: Observable, init: (subscriber: Subscriber) => void, other: (subject: Subject) => void) {}\n",
        ),
        (
            "src/use.ts",
            "import { Observable, operate, untyped, bound } from './observable';\nexport const EMPTY = new Observable((subscriber) => subscriber.complete());\nexport function take() { return operate((source, subscriber) => { subscriber.complete(); }); }\nexport function other() { untyped((subscriber) => subscriber.complete()); }\nexport function both() { bound((s) => s.complete(), (t) => t.complete()); }\n",
        ),
    ]);
    let a = answer(&i, "Subscriber::complete");
    // A `this` parameter is not an argument: the first argument is `init`.
    assert_eq!(
        sites(&a.references),
        ["src/use.ts:2", "src/use.ts:3", "src/use.ts:5"]
    );
    // A callback passed where no type is declared: which `complete`, syntax
    // does not tell.
    assert_eq!(sites(&a.ambiguous), ["src/use.ts:4"]);
    // The second callback's parameter is a `Subject`, not a `Subscriber`.
    assert_eq!(
        sites(&answer(&i, "Subject::complete").references),
        ["src/use.ts:5"]
    );
}

// ---- More of each rule, per language ----------------------------------------

#[test]
fn python_and_rust_import_aliases_shadow_a_definition_of_that_name() {
    let (_d, i) = index(&[
        ("py/timing.py", "def delay(s):\n    pass\n"),
        (
            "py/aliased.py",
            "from time import sleep as delay\n\ndef wait():\n    delay(1)\n",
        ),
        (
            "py/user.py",
            "from py.timing import delay as pause\n\ndef go():\n    pause(1)\n\ndef stay():\n    delay(1)\n",
        ),
        ("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n"),
        (
            "src/lib.rs",
            "pub mod timing;\npub mod aliased;\npub mod user;\n",
        ),
        ("src/timing.rs", "pub fn delay() {}\n"),
        (
            "src/aliased.rs",
            "use std::thread::sleep as delay;\npub fn wait() { delay(std::time::Duration::ZERO); }\n",
        ),
        (
            "src/user.rs",
            "use crate::timing::delay as pause;\npub fn go() { pause(); }\n",
        ),
    ]);
    // Python: the alias of `time.sleep` is not `timing.delay`; an alias of
    // `timing.delay` under another name is; an unbound `delay` is not it.
    assert_eq!(callers(&answer(&i, "py::timing::delay")), ["py::user::go"]);
    // Rust: likewise.
    assert_eq!(
        callers(&answer(&i, "app::timing::delay")),
        ["app::user::go"]
    );
}

#[test]
fn commonjs_an_exported_object_literal_names_each_key() {
    let (_d, i) = index(&[
        (
            "lib/fmt.js",
            "function pad(s) { return s; }\nfunction trim(s) { return s; }\nmodule.exports = {\n  pad,\n  strip: trim,\n  upper(s) { return s; },\n};\n",
        ),
        (
            "lib/use.js",
            "var fmt = require('./fmt');\nvar { upper } = require('./fmt');\nfunction a(s) { return fmt.pad(s) + fmt.strip(s); }\nfunction b(s) { return upper(s); }\n",
        ),
    ]);
    assert_eq!(callers(&answer(&i, "fmt::pad")), ["use::a"]);
    assert_eq!(callers(&answer(&i, "fmt::upper")), ["use::b"]);
    // `strip` is `trim` exported under another name: `fmt.strip` calls
    // `trim`, and is not a definition of its own.
    assert_eq!(callers(&answer(&i, "fmt::trim")), ["use::a"]);
    assert_eq!(defined(&answer(&i, "fmt::strip")), ["lib/fmt.js:2"]);
    // A key of another module's object is not one of these.
    assert!(answer(&i, "use::pad").definitions.is_empty());
}

#[test]
fn go_a_method_of_an_embedded_struct_resolves_through_the_outer_type() {
    let (_d, i) = index(&[(
        "srv/srv.go",
        "package srv\n\ntype Base struct{}\n\nfunc (b *Base) Close() {}\n\ntype Server struct {\n\tBase\n}\n\ntype Other struct{}\n\nfunc (o *Other) Close() {}\n\nfunc Stop(s *Server) { s.Close() }\nfunc Halt(o *Other) { o.Close() }\n",
    )]);
    assert_eq!(callers(&answer(&i, "Base::Close")), ["srv::Stop"]);
    assert_eq!(callers(&answer(&i, "Other::Close")), ["srv::Halt"]);
    assert_eq!(defined(&answer(&i, "Server::Close")), ["srv/srv.go:5"]);
}

#[test]
fn new_x_calls_the_constructor_of_x_and_of_the_base_it_inherits_it_from() {
    let (_d, i) = index(&[
        (
            "src/a.ts",
            "export class A {\n  constructor() {}\n  make() { return new A(); }\n}\nexport class B extends A {}\nexport class C extends A {\n  constructor() { super(); }\n}\nexport class D {\n  constructor() {}\n}\n",
        ),
        (
            "src/use.ts",
            "import { A as Renamed, B, C, D } from './a';\nexport function f() { return new Renamed(); }\nexport function g() { return new B(); }\nexport function h() { return new C(); }\nexport function k() { return new D(); }\n",
        ),
        (
            "lib/cmd.js",
            "class Command {\n  constructor(name) { this.name = name; }\n  createCommand(name) { return new Command(name); }\n}\nexports.Command = Command;\n",
        ),
    ]);
    // `new C()` calls C's own constructor, which calls A's through
    // `super()`; `new D()` is another class's.
    assert_eq!(
        callers(&answer(&i, "a::A::constructor")),
        ["a::A::make", "a::C::constructor", "use::f", "use::g"]
    );
    assert_eq!(callers(&answer(&i, "a::C::constructor")), ["use::h"]);
    assert_eq!(callers(&answer(&i, "a::D::constructor")), ["use::k"]);
    assert_eq!(
        callers(&answer(&i, "cmd::Command::constructor")),
        ["cmd::Command::createCommand"]
    );
}

#[test]
fn a_this_parameter_types_this_in_a_function_expression() {
    let (_d, i) = index(&[
        (
            "src/sub.ts",
            "export class Sub {\n  stop() {}\n  constructor(on: () => void) {}\n}\nexport class Other { stop() {} }\n",
        ),
        (
            "src/op.ts",
            "import { Sub, Other } from './sub';\nexport class Op extends Sub {\n  constructor() {\n    super(function (this: Sub) { this.stop(); });\n  }\n}\nexport function typed(this: Other) { this.stop(); }\nexport const loose = function (this: any) { this.stop(); };\nexport function arrows(this: Sub) { [1].forEach(() => this.stop()); }\n",
        ),
    ]);
    let sub = answer(&i, "sub::Sub::stop");
    assert_eq!(sites(&sub.references), ["src/op.ts:4", "src/op.ts:9"]);
    assert_eq!(
        sites(&answer(&i, "Other::stop").references),
        ["src/op.ts:7"]
    );
    // `this: any` says nothing: which `stop`, syntax does not tell.
    assert_eq!(sites(&sub.ambiguous), ["src/op.ts:8"]);
}

#[test]
fn commonjs_and_es_reexports_bind_no_name_in_their_file() {
    let (_d, i) = index(&[
        (
            "lib/option.js",
            "class Option {\n  constructor(flags) { this.flags = flags; }\n}\nclass Other {\n  constructor() {}\n}\nexports.Option = Option;\nexports.Other = Other;\n",
        ),
        (
            "index.js",
            "const { Option } = require('./lib/option.js');\nexports.createOption = (flags) => new Option(flags);\nfunction make() { return new Other(); }\nexports.Option = Option;\nexports.Other = Option;\n",
        ),
    ]);
    // `exports.Option = Option` re-exports the import: `new Option()` in
    // that file still constructs the imported class. `exports.Other =
    // Option` binds no `Other` there: `new Other()` is not a call of
    // `Option`'s constructor.
    assert_eq!(
        callers(&answer(&i, "option::Option::constructor")),
        ["createOption"]
    );
}

#[test]
fn a_name_that_is_a_whole_path_names_that_definition_alone() {
    let (_d, i) = index(&[
        (
            "index.js",
            "const { Command } = require('./lib/command.js');\nexports.createOption = (flags) => flags;\n",
        ),
        (
            "lib/command.js",
            "class Command {\n  createOption(flags) { return flags; }\n  option(f) { return this.createOption(f); }\n}\nexports.Command = Command;\n",
        ),
    ]);
    // `createOption` is the root module's function's whole path: the
    // method `command::Command::createOption` only ends with it.
    let root = answer(&i, "createOption");
    assert_eq!(defined(&root), ["index.js:2"]);
    assert!(callers(&root).is_empty());
    // The method, named by a longer path, keeps its caller.
    assert_eq!(
        callers(&answer(&i, "Command::createOption")),
        ["command::Command::option"]
    );
}

// ---- Rust: bindings scoped to their arm, block or body ----------------------

/// Three strategies with an `is_match` each, and an enum whose variants
/// hold two of them (globset's `GlobSetMatchStrategy`).
const STRATEGIES: &str = r#"pub struct Lit;
impl Lit { pub fn is_match(&self) -> bool { true } }
pub struct Ext;
impl Ext { pub fn is_match(&self) -> bool { false } }
pub struct Other;
impl Other { pub fn is_match(&self) -> bool { false } }
enum Strategy { Literal(Lit), Basename(Lit), Extension(Ext), Unit }
impl Strategy {
    fn is_match(&self) -> bool {
        use self::Strategy::*;
        match *self {
            Literal(ref s) => s.is_match(),
            Basename(ref s) => s.is_match(),
            Extension(ref s) => s.is_match(),
            Unit => false,
        }
    }
    fn ext_only(&self) -> bool {
        match self { Strategy::Extension(s) => s.is_match(), _ => false }
    }
}
fn scoped(v: &Strategy, s: &Other) -> bool {
    if let Strategy::Literal(s) = v { s.is_match(); }
    s.is_match()
}
fn shadowed(s: &Other) -> bool {
    { let s = Ext {}; s.is_match(); }
    s.is_match()
}
fn outside(v: Option<Lit>) -> bool {
    match v { Some(s) => s.is_match(), None => false }
}
"#;

#[test]
fn rust_a_match_arm_binding_has_the_type_of_its_variants_field() {
    let (_d, i) = index(&[("src/lib.rs", STRATEGIES)]);
    // Each arm's `s` is its own variant's field: `Literal` and `Basename`
    // hold a `Lit`, `Extension` an `Ext`.
    let lit = answer(&i, "Lit::is_match");
    assert_eq!(
        sites(&lit.references),
        ["src/lib.rs:12", "src/lib.rs:13", "src/lib.rs:23"]
    );
    assert_eq!(callers(&lit), ["Strategy::is_match", "scoped"]);
    let ext = answer(&i, "Ext::is_match");
    assert_eq!(
        callers(&ext),
        ["Strategy::ext_only", "Strategy::is_match", "shadowed"]
    );
    // The near miss: an arm of another variant is not a use, and nothing
    // about these arms is left ambiguous.
    assert_eq!(
        sites(&ext.references),
        ["src/lib.rs:14", "src/lib.rs:19", "src/lib.rs:27"]
    );
    assert!(
        lit.ambiguous.iter().all(|u| u.reference.line == 31),
        "{:?}",
        sites(&lit.ambiguous)
    );
}

#[test]
fn rust_a_binding_ends_with_its_arm_body_or_block() {
    let (_d, i) = index(&[("src/lib.rs", STRATEGIES)]);
    // After `if let Strategy::Literal(s) = v { … }` and after the block
    // with `let s = Ext {}`, `s` is the parameter again: an `Other`.
    let other = answer(&i, "Other::is_match");
    assert_eq!(sites(&other.references), ["src/lib.rs:24", "src/lib.rs:28"]);
    assert_eq!(callers(&other), ["scoped", "shadowed"]);
    // A variant the index does not declare (`Some`) gives its binding no
    // type: the call stays ambiguous, for every type with that method.
    for name in ["Lit::is_match", "Ext::is_match", "Other::is_match"] {
        let a = answer(&i, name);
        assert_eq!(sites(&a.ambiguous), ["src/lib.rs:31"], "{name}");
        assert!(!callers(&a).contains(&"outside".to_string()), "{name}");
    }
}

#[test]
fn rust_a_destructured_tuple_has_the_types_the_function_returns() {
    let (_d, i) = index(&[(
        "src/lib.rs",
        r#"pub struct Pre;
impl Pre { pub fn is_empty(&self) -> bool { true } }
pub struct Build;
impl Build { pub fn is_empty(&self) -> bool { true } }
fn pre(text: &str) -> Result<(Pre, &str), ()> { Err(()) }
fn both() -> (Build, Pre) { (Build, Pre) }
fn parse(text: &str) -> Result<(), ()> {
    let (pre, rest) = if text.starts_with('-') {
        let (pre, rest) = pre(text)?;
        if pre.is_empty() {}
        (pre, rest)
    } else {
        (Pre, text)
    };
    let (b, p) = both();
    b.is_empty();
    p.is_empty();
    let (x, y): (Build, Pre) = both();
    x.is_empty();
    pre.is_empty();
    Ok(())
}
"#,
    )]);
    // `let (pre, rest) = pre(text)?`: `pre` is the first element of the
    // tuple `pre` returns (in a `Result`), in the block it is bound in.
    let pre = answer(&i, "Pre::is_empty");
    assert_eq!(sites(&pre.references), ["src/lib.rs:10", "src/lib.rs:17"]);
    let build = answer(&i, "Build::is_empty");
    assert_eq!(sites(&build.references), ["src/lib.rs:16", "src/lib.rs:19"]);
    // The near miss: the outer `pre`, bound to an `if` (whose type syntax
    // does not tell), is not typed by the inner one: ambiguous, not
    // counted for either.
    for a in [&pre, &build] {
        assert_eq!(sites(&a.ambiguous), ["src/lib.rs:20"]);
    }
}

// ---- Rust: trait-qualified calls and trait impls' methods ----------------

const FORMATTING: &str = r#"use std::fmt::{self, Debug, Display};
pub struct Version;
impl Display for Version { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { helper() } }
impl Debug for Version { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { helper(); Display::fmt(self, f) } }
pub struct Error;
impl Display for Error { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) } }
impl Debug for Error { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) } }
fn helper() -> fmt::Result { Ok(()) }
pub fn show(v: &Version, f: &mut fmt::Formatter) { let _ = fmt::Display::fmt(&*v, f); }
pub fn explicit(f: &mut fmt::Formatter) { let _ = <Error as Debug>::fmt(&Error, f); }
pub fn unknown(x: &dyn Display, f: &mut fmt::Formatter) { let _ = Display::fmt(x, f); }
pub fn through_self(v: &Version, f: &mut fmt::Formatter) { let _ = v.fmt(f); }
pub struct Meters;
impl From<Meters> for Version { fn from(m: Meters) -> Version { Version } }
pub fn convert(m: Meters) -> Version { From::from(m) }
pub fn build(v: Version) -> Version { From::from(v) }
"#;

#[test]
fn rust_a_trait_qualified_call_reaches_the_impl_for_its_first_argument() {
    let (_d, i) = index(&[("src/lib.rs", FORMATTING)]);
    // `Display::fmt(self, f)` in `impl Debug for Version` calls Version's
    // Display `fmt` (line 3), not recursion; `fmt::Display::fmt(&*v, f)`
    // with `v: &Version` too.
    let version = answer(&i, "Version::fmt");
    let display: Vec<String> = version
        .callers
        .iter()
        .map(|u| format!("{}:{}", u.reference.caller.join("::"), u.reference.line))
        .collect();
    assert_eq!(display, ["Version::fmt:4", "show:9"]);
    // `<Error as Debug>::fmt(…)`: the type written, its Debug impl.
    let error = answer(&i, "Error::fmt");
    assert_eq!(callers(&error), ["explicit"]);
    assert_eq!(sites(&error.references), ["src/lib.rs:10"]);
    // The near misses: another type's `fmt` is not called by
    // `Display::fmt(self, f)`; a first argument of unknown type reaches no
    // impl; `v.fmt(f)`, with two traits giving `Version` an `fmt`, is
    // ambiguous, not counted.
    assert!(!callers(&error).contains(&"Version::fmt".to_string()));
    assert!(!callers(&version).contains(&"unknown".to_string()));
    assert!(!callers(&error).contains(&"unknown".to_string()));
    assert_eq!(sites(&version.ambiguous), ["src/lib.rs:12"]);
    // `From::from(m)`: `from` takes no `self`, so the first argument is not
    // what it dispatches on (the impl is chosen by the result's type).
    assert!(answer(&i, "Version::from").callers.is_empty());
}

#[test]
fn rust_two_trait_impls_methods_of_one_path_are_two_callers() {
    let (_d, i) = index(&[("src/lib.rs", FORMATTING)]);
    // `impl Display for Version { fn fmt }` and `impl Debug for Version {
    // fn fmt }` share the path `Version::fmt`; each calls `helper`.
    let helper = answer(&i, "helper");
    let at: Vec<String> = helper
        .callers
        .iter()
        .map(|u| format!("{}:{}", u.reference.caller.join("::"), u.reference.line))
        .collect();
    assert_eq!(at.len(), 2, "{at:?}");
    assert!(
        at.contains(&"Version::fmt:3".to_string()) && at.contains(&"Version::fmt:4".to_string())
    );
    // The name still names both definitions.
    assert_eq!(
        defined(&answer(&i, "Version::fmt")),
        ["src/lib.rs:3", "src/lib.rs:4"]
    );
    // The near miss: two calls in one function are one caller.
    let (_d, j) = index(&[(
        "src/lib.rs",
        "fn helper() {}\nfn twice() { helper(); helper(); }\n",
    )]);
    assert_eq!(callers(&answer(&j, "helper")), ["twice"]);
}

#[test]
fn rust_which_of_a_types_same_named_methods_a_call_reaches() {
    let (_d, i) = index(&[(
        "src/lib.rs",
        r#"pub struct Any;
pub struct V4;
pub struct V6;
impl From<V4> for Any { fn from(a: V4) -> Self { Any } }
impl From<V6> for Any { fn from(a: V6) -> Self { Any } }
impl Any { pub fn as_ptr(&self) -> u8 { 0 } }
pub trait Arg { fn as_str(&self) -> u8; }
impl Arg for Any { fn as_str(&self) -> u8 { 1 } }
impl Any { pub fn as_str(&self) -> u8 { 2 } }
fn read() -> u8 {
    let a = Any::from(V6);
    a.as_ptr();
    a.as_str()
}
"#,
    )]);
    // `Any::from(V6)` is one of two `From` impls' `from`: which one, the
    // argument's type decides; ambiguous, not counted for either.
    let from = answer(&i, "Any::from");
    assert!(from.callers.is_empty());
    assert_eq!(sites(&from.ambiguous), ["src/lib.rs:11"]);
    // Both return `Self`: `a` is an `Any` whichever it is.
    assert_eq!(callers(&answer(&i, "Any::as_ptr")), ["read"]);
    // An inherent method is found before a trait impl's of that name.
    let as_str = answer(&i, "Any::as_str");
    let at: Vec<String> = as_str
        .callers
        .iter()
        .map(|u| format!("{}:{}", u.reference.caller.join("::"), u.reference.line))
        .collect();
    assert_eq!(at, ["read:13"]);
    let of_trait: Vec<_> = as_str
        .definitions
        .iter()
        .filter(|d| d.symbol.line == 8)
        .copied()
        .collect();
    assert_eq!(of_trait.len(), 1);
    assert!(
        i.references(&of_trait).is_empty(),
        "the trait impl's as_str (line 8) is not called"
    );
}

#[test]
fn rust_alternative_definitions_of_one_path_are_callers_but_never_call_each_other() {
    let (_d, i) = index(&[(
        "src/lib.rs",
        r#"fn helper() {}
#[cfg(unix)]
pub fn read() { helper(); }
#[cfg(not(unix))]
pub fn read() { helper(); read() }
"#,
    )]);
    // Two functions call `helper`, one under each `cfg`.
    let helper = answer(&i, "helper");
    assert_eq!(helper.callers.len(), 2);
    // The near miss: `read()` in one alternative is not a call of the
    // other (one of them exists at a time): recursion, not counted.
    assert!(answer(&i, "read").callers.is_empty());
}

// ---- Names bound nowhere the index sees -----------------------------------

#[test]
fn a_name_bound_nowhere_is_an_ambiguous_use_of_each_top_level_definition_of_it() {
    let (_d, i) = index(&[
        (
            "lib/tools.py",
            "def helper():\n    pass\n\nclass Kit:\n    def tidy(self):\n        pass\n",
        ),
        // No import brings `helper` or `tidy` in: a star import, a global,
        // a builtin of the same name, who knows.
        ("app/run.py", "def main():\n    helper()\n    tidy()\n"),
    ]);
    let a = answer(&i, "helper");
    assert_eq!(sites(&a.ambiguous), ["app/run.py:2"]);
    assert!(
        sites(&a.references).is_empty(),
        "{:?}",
        sites(&a.references)
    );
    // A method is no top-level definition: a bare `tidy()` is not its use.
    let m = answer(&i, "Kit::tidy");
    assert!(sites(&m.ambiguous).is_empty(), "{:?}", sites(&m.ambiguous));
    assert!(
        sites(&m.references).is_empty(),
        "{:?}",
        sites(&m.references)
    );
}
