#!/usr/bin/env bash
# Lumen indexing throughput on real open-source trees, cold and warm, against Universal Ctags.
#
# Usage (from anywhere; no network needed once `cargo fetch` has run):
#
#   benches/lumen-index.sh
#
# The trees (copied to a temp dir so nothing of theirs is touched):
#   rustix   the newest rustix-1.* in the cargo registry (a dependency of tempfile; ~320 .rs files)
#   pip      the pip package of the machine's python3 (~490 .py files)
#
# For each tree, RUNS timed runs (median and minimum reported) of:
#   cold     `zurdo lumen index` with no .zurdo/lumen (every file parsed, a generation written)
#   warm     `zurdo lumen index` after one file changed (one file parsed, the rest reused by content hash)
#   cold-1t  cold with ZURDO_LUMEN_THREADS=1 (one parser thread, like ctags)
#   ctags    `ctags -R --languages=<lang> --fields=+n -f <tmp>/tags .` (Universal Ctags, Debian's
#            universal-ctags package; skipped when `ctags --version` is not Universal Ctags)
# and prints files/s and the ratios cold/ctags, cold-1t/ctags and warm/ctags (time over time:
# below 1 means Lumen was faster). Whole-process wall time is measured for both tools.
#
# Settings: RUNS=7, BIN=path (time this zurdo binary instead of building one), KEEP=1 (keep the temp dir),
# BENCH_TMP=dir (where the copies go; default target/).
set -euo pipefail

RUNS=${RUNS:-7}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${BIN:-}" ]; then
    (cd "$here" && cargo build --release -q -p zurdo-harness)
    BIN="$here/target/release/zurdo"
fi
# The trees go under target/ (the repository's own filesystem, where a real .zurdo/ lives), not
# /tmp: file creation costs differ a lot between the two on some machines.
mkdir -p "$here/target"
tmp=$(mktemp -d -p "${BENCH_TMP:-$here/target}")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "temp dir: $tmp"; fi

rustix=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/rustix-1.* 2>/dev/null | sort -V | tail -1 || true)
pip=$(python3 -c 'import os, pip; print(os.path.dirname(pip.__file__))' 2>/dev/null || true)

ctags_ok=0
if ctags --version 2>/dev/null | grep -q "Universal Ctags"; then ctags_ok=1; fi

python3 - "$BIN" "$tmp" "$RUNS" "$ctags_ok" "rustix=$rustix=Rust=rs" "pip=$pip=Python=py" <<'PY'
import os, shutil, statistics, subprocess, sys, time

binary, tmp, runs, ctags_ok = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
print(f"machine: {os.cpu_count()} cores; zurdo: {binary}")
if ctags_ok:
    print(subprocess.run(["ctags", "--version"], capture_output=True, text=True).stdout.splitlines()[0])

def timed(cmd, cwd, env=None):
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed in {cwd}:\n{out.stdout}{out.stderr}")
    return took, out.stdout

def fmt(xs):
    return f"median {statistics.median(xs)*1000:8.1f} ms  min {min(xs)*1000:8.1f} ms"

for spec in sys.argv[5:]:
    name, source, lang, ext = spec.split("=")
    if not source or not os.path.isdir(source):
        print(f"\n{name}: not found on this machine; skipped")
        continue
    tree = os.path.join(tmp, name)
    shutil.copytree(source, tree, symlinks=True)
    os.makedirs(os.path.join(tree, ".git"), exist_ok=True)
    files = sum(1 for d, _, fs in os.walk(tree) for f in fs if f.endswith("." + ext))
    lumen = os.path.join(tree, ".zurdo", "lumen")
    victim = sorted(os.path.join(d, f) for d, _, fs in os.walk(tree) for f in fs if f.endswith("." + ext))[0]
    one = dict(os.environ, ZURDO_LUMEN_THREADS="1")
    results = {"cold": [], "cold-1t": [], "warm": [], "ctags": []}
    indexed = None
    for i in range(runs):
        shutil.rmtree(lumen, ignore_errors=True)
        t, out = timed([binary, "lumen", "index"], tree)
        results["cold"].append(t)
        indexed = out.split()[0]
        with open(victim, "a") as f:
            f.write(("\n// " if ext == "rs" else "\n# ") + f"bench edit {i}\n")
        t, out = timed([binary, "lumen", "index"], tree)
        if " 1 parsed" not in out:
            sys.exit(f"warm run parsed more than the changed file: {out}")
        results["warm"].append(t)
        shutil.rmtree(lumen, ignore_errors=True)
        results["cold-1t"].append(timed([binary, "lumen", "index"], tree, one)[0])
        if ctags_ok:
            results["ctags"].append(timed(["ctags", "-R", f"--languages={lang}", "--fields=+n", "-f", os.path.join(tmp, "tags"), "."], tree)[0])
    print(f"\n{name}: {files} .{ext} files, {indexed} indexed by Lumen")
    for key, xs in results.items():
        if xs:
            print(f"  {key:8} {fmt(xs)}  {files / statistics.median(xs):10.0f} files/s")
    if ctags_ok:
        c = statistics.median(results["ctags"])
        for key in ("cold", "cold-1t", "warm"):
            print(f"  {key}/ctags = {statistics.median(results[key]) / c:.2f}")
PY
