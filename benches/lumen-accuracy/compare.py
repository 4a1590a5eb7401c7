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

Adjudicated verdicts: adjudicated.tsv (beside this script) lists, per
language, package (the tree's name) and qualified name, call sites that the
oracle cannot type but that were read in the source and judged real calls.
Beside the raw verdict share, the line prints an "adjudicated" share, where
the oracle's callers of a name are extended by the caller of each listed
site: only a site where Lumen reports a call of the name (the caller then
being Lumen's, as the oracle names callers: the file and line of the
function's definition) and whose source line calls the name; any other
listed site is printed as a warning and not counted, so the list cannot
silently raise the figure.

Prints one line per language and, with LUMEN_ACCURACY_VERBOSE=1, each
sampled name's misses and extras.
"""

import json
import os
import re
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


def adjudicated_sites(language):
    """adjudicated.tsv's rows for `language`: (package, name) → [(file, line, why)]."""
    out = {}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adjudicated.tsv")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for row in f:
            if not row.strip() or row.startswith("#"):
                continue
            lang, package, name, site, why = (row.rstrip("\n").split("\t") + [""] * 5)[:5]
            file, _, line = site.rpartition(":")
            if lang != language or not file or not line.isdigit():
                continue
            out.setdefault((package, name), []).append((file, int(line), why))
    return out


def source_calls(tree, file, line, name):
    """True when line `line` of `file` calls `name` (`name(` or `.name(`)."""
    try:
        with open(os.path.join(tree, file), encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return False
    if not 1 <= line <= len(text):
        return False
    return re.search(r"(?<![\w$])" + re.escape(name) + r"\s*\(", text[line - 1]) is not None


def caller_id(symbols, file, caller, line):
    """The oracle's name for Lumen's caller `caller` of a call at `file:line`:
    `file:line` of the function's definition (of several with that path, the
    last starting at or before the call)."""
    lines = [l for (f, l, _), defs in symbols.items() if f == file and l <= line and any(p == caller for p, _ in defs)]
    return f"{file}:{max(lines)}" if lines else None


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
    # The same verdicts with the oracle's callers extended by adjudicated.tsv.
    adjudicated = adjudicated_sites(language)
    a_pass_right = a_pass_total = a_fail_right = a_fail_total = 0
    a_sites = 0
    warnings = []
    for path in oracles:
        with open(path) as f:
            oracle = json.load(f)
        tree = oracle["tree"]
        package = os.path.basename(os.path.normpath(tree))
        sampled = set()
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
            answer = {}
            qualified = [p for p, kind in symbols.get((d["file"], d["line"], d["name"]), []) if kind in HINT_KINDS]
            if qualified:
                answer = query(zurdo, tree, qualified[0])
                found = {(u["file"], u["line"]) for u in answer.get("references", [])}
                lumen_callers = len(answer.get("callers", []))
            extended = set(callers)
            for file, line, _why in adjudicated.get((package, qualified[0]), []) if qualified else []:
                sampled.add(qualified[0])
                site = f"{package} {qualified[0]} at {file}:{line}"
                call = next(
                    (u for u in answer.get("references", []) if u["file"] == file and u["line"] == line and u.get("call")),
                    None,
                )
                if call is None or not call.get("caller"):
                    warnings.append(f"adjudicated site not counted: {site}: Lumen reports no call from a function there")
                    continue
                if not source_calls(tree, file, line, qualified[0].split("::")[-1]):
                    warnings.append(f"adjudicated site not counted: {site}: the source line does not call it")
                    continue
                who = caller_id(symbols, file, call["caller"], line)
                if who is None:
                    warnings.append(f"adjudicated site not counted: {site}: no definition of its caller {call['caller']}")
                    continue
                a_sites += 1
                extended.add(who)
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
            m = len(extended)
            if m >= 1:
                a_pass_total += 1
                a_pass_right += lumen_callers >= m
                a_fail_total += 1
                a_fail_right += lumen_callers < m + 1
            else:
                a_fail_total += 1
                a_fail_right += lumen_callers == 0
            if VERBOSE and m != n:
                print(f"  adjudicated: {qualified[0]}: callers oracle {n}, with adjudicated.tsv {m}, lumen {lumen_callers}")
            if VERBOSE and (found != expected or lumen_callers != n):
                label = qualified[0] if qualified else f"{d['name']} (not defined in Lumen)"
                print(f"  {label} [{d['kind']}] at {d['file']}:{d['line']}: callers oracle {n}, lumen {lumen_callers}")
                for m in sorted(expected - found):
                    print(f"    missed {m[0]}:{m[1]}")
                for m in sorted(found - expected):
                    print(f"    extra  {m[0]}:{m[1]}")
        # Listed names of this tree that the sample did not draw.
        for (p, name), rows in adjudicated.items():
            if p == package and name not in sampled:
                warnings.append(f"adjudicated sites not used: {package} {name} ({len(rows)}): not in this sample")
    ratio = lambda a, b: a / b if b else float("nan")
    hints = pass_total + fail_total
    right = pass_right + fail_right
    a_hints = a_pass_total + a_fail_total
    a_right = a_pass_right + a_fail_right
    adjudicated_note = ""
    if adjudicated:
        adjudicated_note = (
            f"; adjudicated {ratio(a_right, a_hints):.3f} ({a_right}/{a_hints}; >=N {a_pass_right}/{a_pass_total},"
            f" >=N+1 {a_fail_right}/{a_fail_total}; {a_sites} sites of adjudicated.tsv counted)"
        )
    for w in warnings:
        print(f"  warning: {w}")
    print(
        f"{language:11} names {names:3}  definitions R {ratio(d_tp, d_oracle):.3f} P {ratio(d_tp, d_lumen):.3f}"
        f"  references R {ratio(r_tp, r_oracle):.3f} P {ratio(r_tp, r_lumen):.3f} ({r_oracle} oracle, {r_lumen} lumen)"
        f"  caller hints right {ratio(right, hints):.3f} raw ({right}/{hints}; >=N {pass_right}/{pass_total}, >=N+1 {fail_right}/{fail_total})"
        f"{adjudicated_note}"
    )


main()
