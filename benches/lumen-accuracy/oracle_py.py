"""The Python oracle: jedi's definitions and references on one tree.

Usage: oracle_py.py TREE SAMPLE SEED OUT.json [SRC_DIR ...]

Definitions: every function, method and class jedi names (all scopes), and
module-level UPPER_CASE assignments (constants), by file, line and name.
References: for a random sample of SAMPLE functions, methods and classes
(seeded), jedi's `Script.get_references(scope="project")`, less what jedi
calls definitions (the definition itself, import names, assignments) and
names outside TREE. Each reference gets:

- call: the name is called (`(` follows it) or applied as a decorator;
- caller: the innermost function or method around it (jedi's
  `get_context`), as "file:line"; None at module or class level;
- inside: the reference is within the sampled callable's own body
  (recursion), which Lumen's rules leave out.

Names in import statements are left out (they bind names; Lumen records
imports apart from references), as the TypeScript oracle leaves out import
and export specifiers.
"""

import json
import os
import random
import re
import sys

import jedi

tree, sample_size, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
src_dirs = [os.path.join(tree, d) for d in sys.argv[5:]]
project = jedi.Project(tree, added_sys_path=src_dirs or [tree])

SKIP = {"node_modules", "__pycache__", ".git", ".zurdo"}
files = []
for d, subdirs, names in os.walk(tree):
    subdirs[:] = sorted(s for s in subdirs if s not in SKIP and not s.startswith("."))
    for n in sorted(names):
        if n.endswith(".py"):
            files.append(os.path.join(d, n))

CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
scripts = {}
lines_of = {}


def script(path):
    if path not in scripts:
        scripts[path] = jedi.Script(path=path, project=project)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines_of[path] = f.read().splitlines()
    return scripts[path]


def rel(path):
    return os.path.relpath(str(path), tree)


definitions = []
for path in files:
    try:
        names = script(path).get_names(all_scopes=True, definitions=True, references=False)
    except Exception as e:  # a file jedi cannot read
        print(f"jedi: {rel(path)}: {e}", file=sys.stderr)
        continue
    for n in names:
        # Imported names are bindings, not definitions.
        tree_name = getattr(n._name, "tree_name", None)
        definition = tree_name.get_definition() if tree_name is not None else None
        if definition is None or definition.type in ("import_from", "import_name"):
            continue
        parent = n.parent()
        kind = None
        if n.type == "function":
            kind = "method" if parent is not None and parent.type == "class" else "function"
        elif n.type == "class":
            kind = "class"
        elif n.type == "statement" and parent is not None and parent.type == "module" and CONSTANT.match(n.name):
            kind = "constant"
        if kind:
            definitions.append(
                {"file": rel(path), "line": n.line, "column": n.column, "name": n.name, "kind": kind}
            )

# One definition per (file, line, name): a property's getter and setter are
# two methods of one name, both kept.
seen = set()
unique = []
for d in definitions:
    key = (d["file"], d["line"], d["name"])
    if key not in seen:
        seen.add(key)
        unique.append(d)
definitions = unique

candidates = [d for d in definitions if d["kind"] in ("function", "method", "class")]
random.Random(seed).shuffle(candidates)
sample = candidates[:sample_size]


def is_call(path, line, column, name):
    text = lines_of[path][line - 1] if line - 1 < len(lines_of[path]) else ""
    rest = text[column + len(name):].lstrip()
    if rest.startswith("("):
        return True
    # A decorator applies (calls) what it names: `@name`, `@a.name`.
    head = text[:column].strip()
    return head.startswith("@") and re.fullmatch(r"@[\w.]*", head + name) is not None


def enclosing(s, line, column):
    """The innermost function around a position, as (file:line, name chain)."""
    try:
        ctx = s.get_context(line, column)
    except Exception:
        return None
    while ctx is not None and ctx.type not in ("function", "module"):
        ctx = ctx.parent()
    if ctx is None or ctx.type != "function":
        return None
    return f"{rel(ctx.module_path)}:{ctx.line}"


for d in sample:
    path = os.path.join(tree, d["file"])
    s = script(path)
    refs = []
    try:
        found = s.get_references(d["line"], d["column"], scope="project")
    except Exception as e:
        print(f"jedi: references of {d['name']} at {d['file']}:{d['line']}: {e}", file=sys.stderr)
        found = []
    own = f"{d['file']}:{d['line']}"
    for r in found:
        if r.module_path is None or r.is_definition():
            continue
        # A name in an import statement is a binding, not a use (Lumen
        # records imports apart).
        leaf = getattr(r._name, "tree_name", None)
        node = leaf.parent if leaf is not None else None
        while node is not None and node.type not in ("import_from", "import_name", "file_input"):
            node = node.parent
        if node is not None and node.type in ("import_from", "import_name"):
            continue
        rpath = str(r.module_path)
        if not rpath.startswith(tree.rstrip("/") + "/"):
            continue
        rs = script(rpath)
        caller = enclosing(rs, r.line, r.column)
        # Within the callable's own body: walk the enclosing functions.
        inside = False
        if d["kind"] != "class":
            ctx = None
            try:
                ctx = rs.get_context(r.line, r.column)
            except Exception:
                pass
            while ctx is not None and ctx.type != "module":
                if f"{rel(ctx.module_path)}:{ctx.line}" == own:
                    inside = True
                    break
                ctx = ctx.parent()
        refs.append(
            {
                "file": rel(rpath),
                "line": r.line,
                "column": r.column,
                "call": is_call(rpath, r.line, r.column, d["name"]),
                "caller": caller,
                "inside": inside,
            }
        )
    d["references"] = refs

with open(out, "w") as f:
    json.dump({"language": "python", "tree": tree, "definitions": definitions, "sample": sample}, f, indent=1)
print(f"{tree}: {len(definitions)} definitions, {len(sample)} sampled", file=sys.stderr)
