"""Scores Lumen's callers on the hand-checked samples (Rust and Go, which
have no oracle here).

Usage: handcheck.py ZURDO LANGUAGE TREES_DIR handchecked.tsv

Each row of handchecked.tsv is `language, tree, name, callers, note`
(tab-separated; `#` starts a comment): the number of distinct functions that
call `name` in that tree, counted by hand (grep, then reading each site).
For each row it asks `zurdo lumen query name --format json` and scores
`[callers: name >= N]` (should pass) and `>= N+1` (should fail; for N = 0,
`[callers: name]` should fail), as compare.py does.
"""

import json
import os
import subprocess
import sys

zurdo, language, trees, table = sys.argv[1:5]
verbose = os.environ.get("LUMEN_ACCURACY_VERBOSE") == "1"
right = total = names = exact = 0
for row in open(table):
    if not row.strip() or row.startswith("#"):
        continue
    lang, tree, name, expected, *_ = row.rstrip("\n").split("\t")
    if lang != language:
        continue
    n = int(expected)
    done = subprocess.run([zurdo, "lumen", "query", name, "--format", "json"], cwd=os.path.join(trees, tree), capture_output=True, text=True)
    answer = json.loads(done.stdout or "{}")
    found = len(answer.get("callers", [])) if answer.get("definitions") else 0
    names += 1
    exact += found == n
    if n >= 1:
        total += 2
        right += (found >= n) + (found < n + 1)
    else:
        total += 1
        right += found == 0
    if verbose and found != n:
        print(f"  {tree} {name}: hand {n}, lumen {found}: {[c['caller'] for c in answer.get('callers', [])]}")
print(f"{language:11} names {names:3}  (hand-checked)  caller hints right {right / total if total else float('nan'):.3f} ({right}/{total}); exact caller count {exact}/{names}")
