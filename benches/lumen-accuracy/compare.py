"""Scores Lumen against an oracle's answers on one or more trees.

Usage: compare.py ZURDO LANGUAGE ORACLE.json [ORACLE.json ...]

Each ORACLE.json (from oracle_py.py or oracle_ts.js) names its tree, whose
Lumen index is already built. For the tree's definitions it compares
(file, line, name) with Lumen's definitions of the hint kinds; for each
sampled name it asks `zurdo lumen query <qualified name> --format json` (the
path the hints take) and compares the references as (file, line) sites, and
the number of distinct callers with the oracle's, as the verdicts of
`[callers: X >= N]` (N the oracle's count: it should pass) and `>= N+1` (it
should fail; for N = 0, `[callers: X]` should fail).

Prints one line per language and, with LUMEN_ACCURACY_VERBOSE=1, each
sampled name's misses and extras.
"""

import json
import os
import subprocess
import sys

HINT_KINDS = {"function", "method", "class", "interface", "type", "enum", "constant"}
VERBOSE = os.environ.get("LUMEN_ACCURACY_VERBOSE") == "1"


def lumen_symbols(tree):
    """Every definition in the tree's published generation: (file, line, name) → [(path, kind)]."""
    lumen = os.path.join(tree, ".zurdo", "lumen")
    with open(os.path.join(lumen, "CURRENT")) as f:
        manifest = json.load(open(os.path.join(lumen, f.read().strip())))
    out = {}
    for path, entry in manifest["files"].items():
        with open(os.path.join(lumen, entry["entry"])) as f:
            e = json.load(f)
        paths = [[]]
        for parent, segment in e["scopes"]:
            paths.append(paths[parent] + [segment])
        for s in e["symbols"]:
            segments = paths[s["path"]]
            key = (path, s["line"], segments[-1])
            out.setdefault(key, []).append(("::".join(segments), s["kind"]))
    return out


def query(zurdo, tree, name):
    done = subprocess.run([zurdo, "lumen", "query", name, "--format", "json"], cwd=tree, capture_output=True, text=True)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"zurdo lumen query {name} in {tree}: {done.stdout}{done.stderr}")


def main():
    zurdo, language, oracles = sys.argv[1], sys.argv[2], sys.argv[3:]
    d_tp = d_oracle = d_lumen = 0
    r_tp = r_oracle = r_lumen = 0
    hints_right = hints = 0
    pass_right = pass_total = fail_right = fail_total = 0
    names = 0
    for path in oracles:
        with open(path) as f:
            oracle = json.load(f)
        tree = oracle["tree"]
        symbols = lumen_symbols(tree)
        lumen_defs = {k for k, v in symbols.items() if any(kind in HINT_KINDS for _, kind in v)}
        oracle_defs = {(d["file"], d["line"], d["name"]) for d in oracle["definitions"]}
        d_tp += len(lumen_defs & oracle_defs)
        d_oracle += len(oracle_defs)
        d_lumen += len(lumen_defs)
        if VERBOSE:
            for k in sorted(oracle_defs - lumen_defs)[:40]:
                print(f"  definition missed: {k}")
            for k in sorted(lumen_defs - oracle_defs)[:40]:
                print(f"  definition extra:  {k}")
        for d in oracle["sample"]:
            names += 1
            expected = {
                (r["file"], r["line"])
                for r in d["references"]
                if not r["inside"] and not (r["file"] == d["file"] and r["line"] == d["line"])
            }
            callers = {r["caller"] for r in d["references"] if r["call"] and r["caller"] and not r["inside"]}
            found = set()
            lumen_callers = 0
            qualified = [p for p, kind in symbols.get((d["file"], d["line"], d["name"]), []) if kind in HINT_KINDS]
            if qualified:
                answer = query(zurdo, tree, qualified[0])
                found = {(u["file"], u["line"]) for u in answer.get("references", [])}
                lumen_callers = len(answer.get("callers", []))
            r_tp += len(found & expected)
            r_oracle += len(expected)
            r_lumen += len(found)
            n = len(callers)
            if n >= 1:
                pass_total += 1
                pass_right += lumen_callers >= n
                fail_total += 1
                fail_right += lumen_callers < n + 1
            else:
                fail_total += 1
                fail_right += lumen_callers == 0
            if VERBOSE and (found != expected or lumen_callers != n):
                label = qualified[0] if qualified else f"{d['name']} (not defined in Lumen)"
                print(f"  {label} [{d['kind']}] at {d['file']}:{d['line']}: callers oracle {n}, lumen {lumen_callers}")
                for m in sorted(expected - found):
                    print(f"    missed {m[0]}:{m[1]}")
                for m in sorted(found - expected):
                    print(f"    extra  {m[0]}:{m[1]}")
    ratio = lambda a, b: a / b if b else float("nan")
    hints = pass_total + fail_total
    right = pass_right + fail_right
    print(
        f"{language:11} names {names:3}  definitions R {ratio(d_tp, d_oracle):.3f} P {ratio(d_tp, d_lumen):.3f}"
        f"  references R {ratio(r_tp, r_oracle):.3f} P {ratio(r_tp, r_lumen):.3f} ({r_oracle} oracle, {r_lumen} lumen)"
        f"  caller hints right {ratio(right, hints):.3f} ({right}/{hints}; >=N {pass_right}/{pass_total}, >=N+1 {fail_right}/{fail_total})"
    )


main()
