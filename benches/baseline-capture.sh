#!/usr/bin/env bash
# Baseline capture: how long `zurdo_harness::evidence::baseline::capture` (libgit2, in process)
# takes to snapshot a 50,000-file work tree, against the git CLI doing the same through a
# scratch index.
#
# Usage (from anywhere; needs no network):
#
#   benches/baseline-capture.sh
#
# What it does:
#
# 1. Builds the bench driver `zurdo-harness/benches/baseline.rs` in release mode
#    (`cargo bench --no-run --offline -p zurdo-harness --bench baseline`). It captures the
#    repository named by ZURDO_BENCH_REPO once per process and prints the tree.
# 2. Generates a repository of DIRS x PER_DIR small files (d-000/f-000.txt …, default
#    500 x 100 = 50,000): the first half of each directory committed in one initial commit,
#    the second half untracked. `git gc` packs the commit's objects, so every loose object
#    afterwards is one a capture wrote. The index is refreshed a second later, so no entry
#    is racily clean and both sides can trust its stat data.
# 3. Checks that all sides produce the same tree (and exits non-zero if not):
#      (a)  the bench driver: capture() in a fresh process;
#      (b)  rm -f $idx; GIT_INDEX_FILE=$idx git add -A && GIT_INDEX_FILE=$idx git write-tree
#           (a fresh scratch index: every file is read and hashed);
#      (b2) cp .git/index $idx; GIT_INDEX_FILE=$idx git add -A && … git write-tree
#           (a copy of the real index, as capture() starts from: tracked files whose stat
#           data matches are not re-read). This is the like-for-like comparison.
# 4. Times the three in three cache states, with hyperfine when it is installed (else an
#    interleaved `date +%s%N` loop):
#      warm   page cache hot, the untracked files' blobs already in .git/objects (what every
#             capture after a run's first one costs);
#      cold   `echo 3 > /proc/sys/vm/drop_caches` before every run (needs root; skipped
#             otherwise): the same work read from disk;
#      first  the loose objects earlier captures wrote are deleted and the caches dropped
#             before every run: the 25,000 untracked files' blobs are compressed and
#             written, as on a run's first capture.
#    and reports medians, minimums, the ratios (a)/(b) and (a)/(b2), and the peak RSS of
#    one capture (GNU /usr/bin/time).
#
# Settings (environment variables):
#
#   DIRS=500 PER_DIR=100   the tree's shape
#   RUNS=10 WARMUP=2       timed runs and warm-ups per side, warm state
#   COLD_RUNS=5            timed runs per side, cold and first states (0 skips them)
#   TIMER=auto|hyperfine|loop
#   BENCH_BIN=path         time this driver instead of building one
#   KEEP=1                 keep the temporary directory and print its path
#
# Exit status: 0 when the measurement ran, non-zero when something failed (build, trees
# that disagree, a missing tool).

set -euo pipefail

DIRS=${DIRS:-500}
PER_DIR=${PER_DIR:-100}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
COLD_RUNS=${COLD_RUNS:-5}
TIMER=${TIMER:-auto}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

# --- 1. the driver ---------------------------------------------------------------
if [[ -z ${BENCH_BIN:-} ]]; then
    echo "building: cargo bench --no-run --offline -p zurdo-harness --bench baseline" >&2
    BENCH_BIN=$(cd "$root" && cargo bench --no-run --offline -q -p zurdo-harness --bench baseline \
        --message-format=json 2>/dev/null | grep '"kind":\["bench"\]' |
        grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
fi
[[ -x $BENCH_BIN ]] || { echo "no bench driver at '$BENCH_BIN'" >&2; exit 1; }

# --- 2. the repository -----------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/zurdo-baseline-capture.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
    trap 'echo "kept $work" >&2' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
repo=$work/repo
mkdir "$repo"
cd "$repo"
git init -q -b main
git config user.name bench
git config user.email bench@zurdo.invalid
# No background `git gc --auto` after the big commit, racing the explicit one or the timings.
git config gc.auto 0
git config maintenance.auto false
half=$((PER_DIR / 2))
echo "generating $((DIRS * PER_DIR)) files in $DIRS directories" >&2
for ((d = 0; d < DIRS; d++)); do
    dir=$(printf 'd-%03d' "$d")
    mkdir "$dir"
    for ((f = 0; f < PER_DIR; f++)); do
        printf 'directory %d, file %d\nsome content to hash: %d\n' "$d" "$f" "$((d * PER_DIR + f))" \
            >"$dir/$(printf 'f-%03d.txt' "$f")"
    done
done
for ((d = 0; d < DIRS; d++)); do
    for ((f = 0; f < half; f++)); do printf 'd-%03d/f-%03d.txt\n' "$d" "$f"; done
done | git add --pathspec-from-file=-
git commit -q -m "half of the files"
git gc -q
sleep 1.1
git update-index -q --really-refresh
git status --porcelain >/dev/null
tracked=$(git ls-files | wc -l)
untracked=$(git ls-files --others --exclude-standard | wc -l)
echo "tracked $tracked, untracked $untracked" >&2

# The same repository again with an empty .git/info/attributes, which sends capture() down
# its libgit2 route (an attributes file rules out the direct one; see the module docs of
# zurdo_harness::evidence::baseline). The copy's index is refreshed, so its stat cache is as
# good as the original's.
repo2=$work/repo-libgit2
cp -a "$repo" "$repo2"
: >"$repo2/.git/info/attributes"
sleep 1.1
git -C "$repo2" update-index -q --really-refresh
git -C "$repo2" status --porcelain >/dev/null

idx=$work/scratch-index
cat >"$work/b.sh" <<SH
rm -f '$idx'
GIT_INDEX_FILE='$idx' git -C '$repo' add -A && GIT_INDEX_FILE='$idx' git -C '$repo' write-tree
SH
cat >"$work/b2.sh" <<SH
cp '$repo/.git/index' '$idx'
GIT_INDEX_FILE='$idx' git -C '$repo' add -A && GIT_INDEX_FILE='$idx' git -C '$repo' write-tree
SH
names=("a: capture(), direct route" "a2: capture(), libgit2 route" "b: git add -A, fresh index" "b2: git add -A, copied index")
labels=("(a)  capture(), direct route " "(a2) capture(), libgit2 route" "(b)  git add -A, fresh index " "(b2) git add -A, copied index")
cmds=("$BENCH_BIN --bench $repo" "$BENCH_BIN --bench $repo2" "bash $work/b.sh" "bash $work/b2.sh")

# --- 3. the same tree on every side ----------------------------------------------
index_sum=$(sha256sum .git/index | cut -d' ' -f1)
trees=()
for i in 0 1; do trees+=("$(${cmds[i]} | awk '{ print $5 }')"); done
for i in 2 3; do trees+=("$(${cmds[i]})"); done
echo "trees: ${trees[*]}" >&2
for t in "${trees[@]}"; do
    [[ $t == "${trees[0]}" ]] || { echo "the trees differ" >&2; exit 1; }
done
[[ $(sha256sum .git/index | cut -d' ' -f1) == "$index_sum" ]] ||
    { echo ".git/index changed" >&2; exit 1; }

# --- 4. the timing ---------------------------------------------------------------
if [[ $TIMER == auto ]]; then
    if command -v hyperfine >/dev/null; then TIMER=hyperfine; else TIMER=loop; fi
fi
can_drop=0
if [[ -w /proc/sys/vm/drop_caches ]]; then can_drop=1; fi
drop='sync; echo 3 > /proc/sys/vm/drop_caches'
unload="find '$repo/.git/objects' '$repo2/.git/objects' -path '*/objects/??/*' -type f -delete; $drop"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { sort -g | head -n 1; }

# measure STATE WARMUP RUNS PREPARE: appends medians and minimums (ms) of every command to
# the report.
measure() {
    local state=$1 warmup=$2 runs=$3 prepare=$4 i r s
    local meds=() mins=()
    case $TIMER in
    hyperfine)
        local args=(-N --warmup "$warmup" --runs "$runs" --export-json "$work/$state.json")
        [[ -n $prepare ]] && args+=(--prepare "sh -c \"$prepare\"")
        for i in "${!cmds[@]}"; do args+=(--command-name "${names[i]}" "${cmds[i]}"); done
        hyperfine "${args[@]}" >&2
        mapfile -t meds < <(grep -o '"median": *[0-9.eE+-]*' "$work/$state.json" | awk '{ print $2 * 1000 }')
        mapfile -t mins < <(grep -o '"min": *[0-9.eE+-]*' "$work/$state.json" | awk '{ print $2 * 1000 }')
        ;;
    loop)
        for ((r = 0; r < warmup; r++)); do
            for i in "${!cmds[@]}"; do ${cmds[i]} >/dev/null; done
        done
        for i in "${!cmds[@]}"; do : >"$work/t$i.txt"; done
        for ((r = 0; r < runs; r++)); do
            for i in "${!cmds[@]}"; do
                [[ -n $prepare ]] && sh -c "$prepare"
                s=$(date +%s%N)
                ${cmds[i]} >/dev/null
                echo $((($(date +%s%N) - s) / 1000)) | awk '{ print $1 / 1000 }' >>"$work/t$i.txt"
            done
        done
        for i in "${!cmds[@]}"; do
            meds+=("$(median <"$work/t$i.txt")")
            mins+=("$(minimum <"$work/t$i.txt")")
        done
        ;;
    *)
        echo "TIMER must be auto, hyperfine or loop" >&2
        exit 1
        ;;
    esac
    for i in "${!cmds[@]}"; do
        report+=("$(printf '%-6s %s  median %8.1f ms   min %8.1f ms' "$state" "${labels[i]}" "${meds[i]}" "${mins[i]}")")
    done
    report+=("$(awk -v s="$state" -v a="${meds[0]}" -v a2="${meds[1]}" -v b="${meds[2]}" -v b2="${meds[3]}" \
        'BEGIN { printf "%-6s ratios of medians: (a)/(b) %.2f  (a)/(b2) %.2f  (a2)/(b2) %.2f  (a2)/(a) %.2f", s, a / b, a / b2, a2 / b2, a2 / a }')")
}

report=()
measure warm "$WARMUP" "$RUNS" ""
if ((COLD_RUNS > 0)); then
    if ((can_drop)); then
        measure cold 0 "$COLD_RUNS" "$drop"
        measure first 0 "$COLD_RUNS" "$unload"
    else
        report+=("cold, first: skipped (/proc/sys/vm/drop_caches is not writable; run as root)")
    fi
fi

rss=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -v true 2>&1 | grep -q 'Maximum resident'; then
    for i in 0 1; do
        /usr/bin/time -v -o "$work/rss.txt" ${cmds[i]} >/dev/null
        rss+="${rss:+, }$(grep 'Maximum resident set size' "$work/rss.txt" | awk '{ print $NF }') KB (${labels[i]%% *})"
    done
fi

echo
echo "Baseline capture: $((DIRS * PER_DIR)) files ($tracked tracked, $untracked untracked, $DIRS dirs)," \
    "$(nproc) cores, timer: $TIMER, $RUNS warm runs, $COLD_RUNS cold/first runs, $(git --version)"
printf '  %s\n' "${report[@]}"
[[ -n $rss ]] && echo "  peak RSS of one capture() process: $rss"
echo "  tree ${trees[0]} on every side; .git/index unchanged"
