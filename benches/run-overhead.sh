#!/usr/bin/env bash
# zurdo's own overhead per iteration of `zurdo run`: run wall time minus the time spent in the
# agent and in the criteria, divided by the number of iterations, with a no-op stand-in agent
# (`zurdo stand-in claude`) that writes one file and exits.
#
# Usage: benches/run-overhead.sh            (needs no network)
# Settings (environment): TASKS (default 50), RUNS (default 5), ZURDO_BIN (skip the build), KEEP=1.
#
# Each task has one criterion, [file-exists: files/f-<i>], false at pre-flight, so every task
# costs one pre-flight, one agent attempt and one verification. The agent and criteria times
# come from prd.json (each iteration's agent duration_ms, each hint's elapsed ms, pre-flight
# included), so what remains is zurdo: parsing, config, the model probe excluded
# (--skip-model-check), state writes (prd.json atomically after every step, progress.log),
# prompt rendering, iteration files and the summary.
set -euo pipefail

TASKS=${TASKS:-50}
RUNS=${RUNS:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${ZURDO_BIN:-} ]]; then
    (cd "$root" && cargo build --release --offline -q -p zurdo-harness)
    ZURDO_BIN="$root/target/release/zurdo"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zurdo-run-overhead.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/.git" "$work/.zurdo" "$work/prds" "$work/files"
printf '#!/bin/sh\nexec "%s" stand-in claude "$@"\n' "$ZURDO_BIN" > "$work/.zurdo/agent"
chmod +x "$work/.zurdo/agent"
cat > "$work/.zurdo/config.toml" <<TOML
[executor]
provider = "anthropic"
[providers.anthropic]
command = "$work/.zurdo/agent"
[effort_map.anthropic]
low = "noop"
TOML

{
    echo "# PRD: run overhead"
    for ((i = 0; i < TASKS; i++)); do
        printf '\n## Task: task-%d — Write file %d\n**Effort**: low\n**Depends-on**: []\n\n### Description\nWrite files/f-%d (marker task-%d-end).\n\n### Acceptance Criteria\n- [ ] the file exists [file-exists: files/f-%d]\n' "$i" "$i" "$i" "$i" "$i"
    done
} > "$work/prds/gen.md"
{
    printf '{"on_prompt": ['
    for ((i = 0; i < TASKS; i++)); do
        ((i > 0)) && printf ','
        printf '{"contains": "task-%d-end", "attempt": {"write": {"files/f-%d": "x"}, "text": "done"}}' "$i" "$i"
    done
    printf '], "attempts": [{"text": "nothing to do"}]}\n'
} > "$work/script.json"

results=()
for ((r = 0; r < RUNS; r++)); do
    rm -rf "$work/files" "$work/.zurdo/gen-"* "$work/script.json.count"
    mkdir -p "$work/files"
    start=$(date +%s%N)
    (cd "$work" && ZURDO_STAND_IN_SCRIPT="$work/script.json" "$ZURDO_BIN" run --no-prompt --skip-model-check prds/gen.md > /dev/null 2>&1)
    end=$(date +%s%N)
    state=$(ls -d "$work"/.zurdo/gen-*)/prd.json
    results+=("$(python3 - "$state" "$start" "$end" <<'PY'
import json, sys
state = json.load(open(sys.argv[1]))
wall_ms = (int(sys.argv[3]) - int(sys.argv[2])) / 1e6
agent = criteria = 0.0
iterations = 0
for t in state["tasks"]:
    assert t["status"] == "passed", t
    for rec in t.get("preflight_results") or []:
        criteria += sum(h.get("elapsed", 0) for h in rec["hints"])
    for it in t["iterations"]:
        iterations += 1
        agent += it["agent"]["duration_ms"]
        for rec in it["criteria"]:
            criteria += sum(h.get("elapsed", 0) for h in rec["hints"])
own = wall_ms - agent - criteria
print(f"{wall_ms:.1f} {agent:.1f} {criteria:.1f} {own:.1f} {iterations} {own / iterations:.2f}")
PY
)")
done

printf 'zurdo run overhead: %d tasks, 1 iteration each, no-op stand-in agent, %d runs\n' "$TASKS" "$RUNS"
printf '  %10s %10s %10s %10s %6s %14s\n' wall_ms agent_ms criteria own_ms iters own_per_iter
printf '%s\n' "${results[@]}" | sort -n -k6 | while read -r w a c o i p; do
    printf '  %10s %10s %10s %10s %6s %11s ms\n' "$w" "$a" "$c" "$o" "$i" "$p"
done
median=$(printf '%s\n' "${results[@]}" | awk '{print $6}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
echo "median overhead per iteration: ${median} ms"
