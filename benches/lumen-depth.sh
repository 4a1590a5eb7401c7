#!/usr/bin/env bash
# Lumen on hostile nesting: peak memory, time and index size of `zurdo lumen index` over one
# generated, deeply nested file per language (issue 12).
#
# Usage (from anywhere; no network needed once `cargo fetch` has run):
#
#   benches/lumen-depth.sh                 # every shape at DEPTH=4000
#   DEPTH=10000 benches/lumen-depth.sh js  # one shape
#
# Shapes (each a repository of one file, plus `.git/` so it is a repository root):
#   js        `function f0(){function f1(){ … }}`: DEPTH nested named functions, no calls (the
#             71 KB file of the issue at DEPTH=4000)
#   js-calls  the same with a call `g()` at every level (caller paths)
#   ts        nested classes and methods: `class C0{m(){class C1{m(){ … g() }}}}` in TypeScript
#   rust      `fn f0(){g();fn f1(){g(); … }}`
#   go        a generic function with 1,000 type parameters around DEPTH nested function literals
#             calling `g()`
#   python    `def f0():` nested DEPTH levels by one space each (a Python file that deep is
#             quadratic in its own size: PY_DEPTH=1400 by default, just under the 2 MB Lumen indexes;
#             tree-sitter-python parses about 500 levels of it)
#   ts-ns     `namespace N0 { export const c0 = 1; namespace N1 { … } }` in TypeScript
#   rust-mods `mod m0 { fn f() { g(); } mod m1 { … } }`
#   py-chain  `f().a.a.a…`: an attribute chain DEPTH long on a call
#   go-lits   `map[string]any{K: map[string]any{K: … }}` and `&T{Next: &T{Next: … }}`, DEPTH deep
#   py-import `from a0.a1.….aN import (x0, …, xN)` with N = DEPTH (a long list, not nesting)
#   rust-use  `use a0::…::aN::{X0, …, XN};` with N = DEPTH (private: it records nothing)
#
# Each run is `/usr/bin/time -v zurdo lumen index` on a fresh tree; the script prints the input
# size, wall time, peak RSS (`Maximum resident set size`) and the size of `.zurdo/lumen/` and of
# the file's entry.
#
# Settings: DEPTH=4000, PY_DEPTH=1400, BIN=path (time this zurdo binary instead of building one),
# KEEP=1 (keep the temp dir), BENCH_TMP=dir (where the trees go; default target/).
set -euo pipefail

DEPTH=${DEPTH:-4000}
PY_DEPTH=${PY_DEPTH:-1400}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${BIN:-}" ]; then
    (cd "$here" && cargo build --release -q -p zurdo-harness)
    BIN="$here/target/release/zurdo"
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
if [ ! -x /usr/bin/time ]; then
    echo "needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
    exit 2
fi
mkdir -p "$here/target"
tmp=$(mktemp -d -p "${BENCH_TMP:-$here/target}")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "temp dir: $tmp"; fi
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
    shapes=(js js-calls ts rust go python ts-ns rust-mods py-chain go-lits py-import rust-use)
fi

python3 - "$BIN" "$tmp" "$DEPTH" "$PY_DEPTH" "${shapes[@]}" <<'PY'
import os, re, subprocess, sys

binary, tmp, depth, py_depth = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def generate(shape, d):
    if shape == "js":
        return "src/deep.js", "".join(f"function f{i}(){{" for i in range(d)) + "}" * d + "\n"
    if shape == "js-calls":
        return "src/deep.js", "".join(f"function f{i}(){{g();" for i in range(d)) + "}" * d + "\n"
    if shape == "ts":
        return "src/deep.ts", "".join(f"class C{i}{{m(){{" for i in range(d)) + "g()" + "}}" * d + "\n"
    if shape == "rust":
        return "src/deep.rs", "".join(f"fn f{i}(){{g();" for i in range(d)) + "}" * d + "\n"
    if shape == "go":
        params = ", ".join(f"T{i}" for i in range(1000))
        body = "func(){g();" * d + "}()" * d
        return "deep/deep.go", f"package deep\n\nfunc F[{params} any]() {{ {body} }}\n"
    if shape == "python":
        return "deep.py", "".join(" " * i + f"def f{i}():\n" + " " * (i + 1) + "g()\n" for i in range(d))
    if shape == "ts-ns":
        return "src/deep.ts", "".join(f"namespace N{i} {{ export const c{i} = 1; " for i in range(d)) + "}" * d + "\n"
    if shape == "rust-mods":
        return "src/deep.rs", "".join(f"mod m{i} {{ fn f() {{ g(); }} " for i in range(d)) + "}" * d + "\n"
    if shape == "py-chain":
        return "deep.py", "f()" + ".a" * d + "\n"
    if shape == "go-lits":
        return "deep/deep.go", ("package deep\n\nvar M = " + "map[string]any{K: " * d + "1" + "}" * d
                                + "\nvar S = " + "&T{Next: " * d + "nil" + "}" * d + "\n")
    if shape == "py-import":
        module = ".".join(f"a{i}" for i in range(d))
        return "m.py", f"from {module} import (" + ", ".join(f"x{i}" for i in range(d)) + ")\n"
    if shape == "rust-use":
        path = "::".join(f"a{i}" for i in range(d))
        return "src/lib.rs", f"use {path}::{{" + ", ".join(f"X{i}" for i in range(d)) + "};\n"
    sys.exit(f"unknown shape {shape}")

print(f"zurdo: {binary}")
print(f"{'shape':9} {'depth':>6} {'input':>10} {'wall':>8} {'peak RSS':>10} {'.zurdo/lumen':>13} {'entry':>11}")
for shape in sys.argv[5:]:
    d = py_depth if shape == "python" else depth
    path, text = generate(shape, d)
    tree = os.path.join(tmp, f"{shape}-{d}")
    os.makedirs(os.path.join(tree, ".git"), exist_ok=True)
    full = os.path.join(tree, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    out = subprocess.run(["/usr/bin/time", "-v", binary, "lumen", "index"], cwd=tree,
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"{shape:9} {d:>6} {len(text):>10,} failed (exit {out.returncode}): {out.stderr.strip().splitlines()[-3:]}")
        continue
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr).group(1)
    lumen = os.path.join(tree, ".zurdo", "lumen")
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(lumen) for f in fs)
    entries = [os.path.getsize(os.path.join(lumen, "files", f)) for f in os.listdir(os.path.join(lumen, "files"))]
    print(f"{shape:9} {d:>6} {len(text):>10,} {wall:>8} {rss_kb/1024:>8.1f} MB {total:>13,} {max(entries):>11,}")
PY
