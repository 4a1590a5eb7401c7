#!/usr/bin/env bash
# What Pyxis's index costs: `zurdo pyxis index` cold, unchanged and after one edit, a query, and
# the size of .zurdo/pyxis/index.json, on real trees.
#
# Usage (offline once the repositories are on disk; see benches/pyxis-recall.sh for where they
# come from):
#
#   benches/pyxis-index.sh
#
# Each tree is `git archive` of a pinned commit, unpacked under target/ (a `.git` directory marks
# its root). RUNS timed runs of each (median reported), whole-process wall time, release build:
#   cold       no .zurdo/ at all: Lumen parses every source file, Pyxis reads every file
#   unchanged  both indexes on disk and nothing changed: every file hashed, nothing re-read for words
#   one edit   one source file appended to: that file parsed and tokenized again
#   query      `zurdo pyxis query` of a sentence on the unchanged tree (refresh included)
# Settings: RUNS=5, BIN=path (this zurdo binary instead of building one), KEEP=1, BENCH_TMP=dir.
set -euo pipefail

RUNS=${RUNS:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${BIN:-}" ]; then
    (cd "$here" && cargo build --release -q -p zurdo-harness)
    BIN="$here/target/release/zurdo"
fi
mkdir -p "$here/target"
tmp=$(mktemp -d -p "${BENCH_TMP:-$here/target}")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "temp dir: $tmp"; fi

TREES=${TREES:-"nextest-rs/nextest@b2a481b1ab77c9615742e5afbb8d831e3e1f6b0b
vitejs/vite@a98c8d95d552c6fa98ab66fb810f5b39ad5abf49"}

for spec in $TREES; do
    name=${spec%@*} commit=${spec#*@} key=${name/\//+} dir=""
    for d in ${PYXIS_REPOS:-/work/.mirror "$here/target/pyxis-repos"}; do
        for g in "$d/$key/repo/.git" "$d/$key/repo" "$d/$key" "$d/$key.git"; do
            if [ -z "$dir" ] && [ -d "$g" ] && git --git-dir="$g" cat-file -e "$commit^{commit}" 2> /dev/null; then
                dir=$g
            fi
        done
    done
    if [ -z "$dir" ]; then
        echo "note: $name at $commit is not on disk (run benches/pyxis-recall.sh once); skipped" >&2
        continue
    fi
    mkdir -p "$tmp/$key/.git"
    git --git-dir="$dir" archive "$commit" | tar -x -C "$tmp/$key"
done

python3 - "$BIN" "$tmp" "$RUNS" <<'PY'
import os, shutil, statistics, subprocess, sys, time
binary, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(f"machine: {os.cpu_count()} cores; zurdo: {binary}")

def timed(args, cwd):
    start = time.perf_counter()
    out = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode not in (0, 1):
        sys.exit(f"zurdo {' '.join(args)} failed in {cwd}:\n{out.stdout}{out.stderr}")
    return took, out.stdout

for key in sorted(os.listdir(tmp)):
    tree = os.path.join(tmp, key)
    state = os.path.join(tree, ".zurdo")
    sources = sorted(os.path.join(d, f) for d, _, fs in os.walk(tree) if "/.git" not in d
                     for f in fs if f.endswith((".rs", ".ts", ".py", ".go", ".js")))
    victim = sources[len(sources) // 2]
    results = {"cold": [], "unchanged": [], "one edit": [], "query": []}
    summary = ""
    for i in range(runs):
        shutil.rmtree(state, ignore_errors=True)
        t, out = timed(["pyxis", "index"], tree)
        results["cold"].append(t)
        summary = out.splitlines()[0]
        results["unchanged"].append(timed(["pyxis", "index"], tree)[0])
        with open(victim, "a") as f:
            f.write(f"\n// bench edit {i}\n")
        t, out = timed(["pyxis", "index"], tree)
        if " 1 read," not in out:
            sys.exit(f"one edit re-read more than the file: {out}")
        results["one edit"].append(t)
        results["query"].append(timed(["pyxis", "query", "retry a test that failed with a timeout"], tree)[0])
    size = os.path.getsize(os.path.join(state, "pyxis", "index.json"))
    print(f"\n{key}: {summary.split(' in ')[0]} (cold); index.json {size / 1e6:.1f} MB")
    for k, xs in results.items():
        print(f"  {k:10} median {statistics.median(xs) * 1000:8.0f} ms   min {min(xs) * 1000:8.0f} ms")
PY
