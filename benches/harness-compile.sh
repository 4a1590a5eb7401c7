#!/usr/bin/env bash
# What a change to the engine costs in compile time: the harness's tests built from scratch (its
# dependencies already built), and rebuilt after a one-line edit to zurdo-harness/src/lib.rs, at
# each revision given. Also the wall time of the whole CI script (.ci/run) on a clean clone, with
# CI=1.
#
# Usage: benches/harness-compile.sh REV...      e.g. benches/harness-compile.sh 36efeb8 HEAD
# Settings (environment): RUNS (default 3; medians are printed), CI=1 (also time .ci/run, once per
# revision, from an empty target directory), KEEP=1.
#
# Each revision is cloned into its own directory with its own target directory, so the
# revisions never share build artifacts; its dependencies are built first (not timed).
set -euo pipefail

RUNS=${RUNS:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zurdo-harness-compile.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The wall time of a command, in seconds; a command that fails stops the script.
seconds() {
    local start end
    start=$(date +%s.%N)
    if ! "$@" > "$work/last.log" 2>&1; then
        echo "failed: $* (in $PWD):" >&2
        tail -20 "$work/last.log" >&2
        return 1
    fi
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

for rev in "$@"; do
    dir="$work/$rev"
    ci=""
    git clone -q "$root" "$dir"
    git -C "$dir" checkout -q "$rev"
    cd "$dir"
    if [[ ${CI:-0} == 1 ]]; then
        ci=$(seconds ./.ci/run)
    else
        cargo test -q -p zurdo-harness --no-run > /dev/null 2>&1
    fi
    # Every package the harness's tests build that lives in this repository's engine.
    packages=(-p zurdo-harness)
    if [[ -d zurdo-harness/standin ]]; then packages+=(-p zurdo-standin); fi
    clean=() edit=()
    for _ in $(seq "$RUNS"); do
        cargo clean -q "${packages[@]}"
        clean+=("$(seconds cargo test -q -p zurdo-harness --no-run)")
        echo '// edit' >> zurdo-harness/src/lib.rs
        edit+=("$(seconds cargo test -q -p zurdo-harness --no-run)")
        git checkout -q zurdo-harness/src/lib.rs
    done
    shopt -s nullglob
    targets=(zurdo-harness/tests/*.rs zurdo-harness/tests/*/main.rs)
    shopt -u nullglob
    binaries=${#targets[@]}
    printf '%s: %s test binaries; from scratch %.1f s, after a one-line edit %.1f s (medians of %s)%s\n' \
        "$rev" "$binaries" "$(printf '%s\n' "${clean[@]}" | median)" "$(printf '%s\n' "${edit[@]}" | median)" \
        "$RUNS" "${ci:+; .ci/run ${ci} s}"
    cd "$root"
done
