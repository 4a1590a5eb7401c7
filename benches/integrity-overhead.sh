#!/usr/bin/env bash
# What the evidence-integrity guards cost an honest run: the wall time of two zurdo binaries,
# run in turn (A B A B …) so a drifting machine hits both alike, on
#   1. `zurdo demo` (the embedded example: a scripted stand-in, one wrong attempt, one retry), and
#   2. `zurdo run prds/zurdo.md` on a copy of this repository's tree, with a stand-in agent that is
#      never needed: every task holds at pre-flight, so the run is zurdo's own work plus the
#      criteria (which run cargo's tests of the copy).
# Each run starts from fresh state. The guards measured (issue 13): reaping every process the
# agent and the criteria leave, per-runner test counts, the verdict surface and the environment
# surface, the run-start ignore rules, MACs on prd.json and Lumen entries, and the run-end
# regression guard (which re-checks every passed task: on an unchanged tree it re-runs only the
# cheap path checks).
#
# Usage: benches/integrity-overhead.sh BEFORE_BIN AFTER_BIN
# Settings (environment): RUNS (default 5; for prds/zurdo.md, ZURDO_RUNS, default 3), KEEP=1.
# Needs no network once the copy's build is warm (the first, uncounted run builds it).
set -euo pipefail

before=${1:?usage: $0 BEFORE_BIN AFTER_BIN}
after=${2:?usage: $0 BEFORE_BIN AFTER_BIN}
RUNS=${RUNS:-5}
ZURDO_RUNS=${ZURDO_RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/zurdo-integrity.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi

ms() { echo $(( $(date +%s%N) / 1000000 )); }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One timed `zurdo demo` in a fresh directory; prints milliseconds.
demo() {
    local bin=$1 dir
    dir=$(mktemp -d "$work/demo.XXXXXX")
    local start end
    start=$(ms)
    "$bin" demo --dir "$dir" > /dev/null 2>&1
    end=$(ms)
    rm -rf "$dir"
    echo $((end - start))
}

# The copy of this repository's tree that prds/zurdo.md runs on.
copy="$work/repo"
mkdir -p "$copy"
git -C "$root" archive HEAD | tar -x -C "$copy"
git -C "$copy" init -q
git -C "$copy" add -A
git -C "$copy" -c user.name=bench -c user.email=bench@localhost commit -q -m copy
mkdir -p "$copy/.zurdo"
printf '#!/bin/sh\nexec "%s" stand-in claude "$@"\n' "$after" > "$work/agent"
chmod +x "$work/agent"
cat >> "$copy/.zurdo/config.toml" <<TOML
[providers.anthropic]
command = "$work/agent"
[effort_map.anthropic]
low = "haiku"
medium = "sonnet"
high = "opus"
TOML
export CARGO_TARGET_DIR="$work/target"

# One timed `zurdo run prds/zurdo.md` from fresh state; prints milliseconds.
dogfood() {
    local bin=$1 start end
    rm -rf "$copy"/.zurdo/zurdo-* "$copy/.zurdo/lumen"
    start=$(ms)
    (cd "$copy" && "$bin" run --no-prompt --skip-model-check prds/zurdo.md > "$work/last.out" 2> "$work/last.err") || {
        echo "zurdo run prds/zurdo.md failed with $bin:" >&2
        tail -20 "$work/last.err" >&2
        exit 1
    }
    end=$(ms)
    echo $((end - start))
}

report() {
    local name=$1 a=$2 b=$3
    local ma mb
    ma=$(tr ' ' '\n' <<< "$a" | median)
    mb=$(tr ' ' '\n' <<< "$b" | median)
    printf '%-28s before %8.0f ms   after %8.0f ms   after/before %.3f\n' "$name" "$ma" "$mb" \
        "$(awk -v a="$ma" -v b="$mb" 'BEGIN { print b / a }')"
    printf '%-28s before runs: %s\n%-28s after runs:  %s\n' "" "$a" "" "$b"
}

echo "warming up (the copy's first build is not counted) …" >&2
demo "$before" > /dev/null
demo "$after" > /dev/null
dogfood "$after" > /dev/null

a=() b=()
for ((r = 0; r < RUNS; r++)); do
    a+=("$(demo "$before")")
    b+=("$(demo "$after")")
done
report "zurdo demo" "${a[*]}" "${b[*]}"

a=() b=()
for ((r = 0; r < ZURDO_RUNS; r++)); do
    a+=("$(dogfood "$before")")
    b+=("$(dogfood "$after")")
done
report "zurdo run prds/zurdo.md" "${a[*]}" "${b[*]}"
