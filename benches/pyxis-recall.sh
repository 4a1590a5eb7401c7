#!/usr/bin/env bash
# Pyxis's recall@10 on real history, against plain BM25 over file contents.
#
# Usage (from anywhere; offline once the repositories are on disk):
#
#   benches/pyxis-recall.sh                 # the figure in docs/benchmarks.md
#   COMMITS=100 benches/pyxis-recall.sh     # more commits per repository
#   SWEEP=1 benches/pyxis-recall.sh         # also the weight sweep, on an older window
#
# For each repository below, pinned at the commit it was measured at, the newest COMMITS
# qualifying commits (default 50; after skipping the newest SKIP, default 0) are replayed oldest
# first: the tree *before* the commit is checked out into a scratch directory (a scratch index
# file; the repository itself is only read), Lumen and Pyxis are refreshed in memory (each commit
# after the first re-reads only what changed), and the commit's message is the query. The targets
# are the files the commit modified, deleted or renamed away from (an added file did not exist to
# be found). recall@k is the share of the targets among the first k files. Both rankings see the
# same files (the walk Pyxis indexes) through the same tokenizer:
#   pyxis  BM25F over path, Lumen's definitions and contents, named files pinned (zurdo pyxis query)
#   bm25   plain BM25 over the contents alone (k1 = 1.2, b = 0.75)
# A commit qualifies when it is not a merge, was not authored by a bot ([bot], dependabot,
# renovate), has a message left once trailers (Signed-off-by: …) are dropped, and has 1 to 10
# targets. The program is zurdo/pyxis/examples/recall.rs.
#
# Where the repositories come from: a bare clone (or a directory holding one as repo/ or .git/)
# named <owner>+<name> under PYXIS_REPOS (default: /work/.mirror, then target/pyxis-repos); when
# none is there, `git clone --bare https://github.com/<owner>/<name>.git` into target/pyxis-repos
# (skipped with a note when the network cannot reach GitHub, or when the pinned commit is missing).
#
# Settings: COMMITS=50, SKIP=0, WEIGHTS=k1,wp,bp,wd,bd,wc,bc (score Pyxis with other weights),
# SWEEP=1, REPOS="owner/name@commit …" (other repositories), BENCH_TMP=dir (scratch trees; default
# target/pyxis-bench, kept between runs so a rerun only replays). Never run by CI (.ci/run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMITS=${COMMITS:-50}
SKIP=${SKIP:-0}
REPOS=${REPOS:-"BurntSushi/ripgrep@3fce3b5bb0236da2df6d99672afb8a719642eca7
encode/httpx@ae1b9f66238f75ced3ced5e4485408435de10768
expressjs/express@a3714473feb3d2908add734d340e7755fd85e0a3
gin-gonic/gin@dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9
nextest-rs/nextest@b2a481b1ab77c9615742e5afbb8d831e3e1f6b0b
pallets/flask@2ac89889f4cc330eabd50f295dcef02828522c69
psf/requests@1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e
sharkdp/fd@ee20f426ddf338ac7ead5c5f00ea49258005caaf
sindresorhus/ky@3419113b48e034fdcf8fa6bd3be3da7b3d0d758f
spf13/cobra@adbc8813901bba65827259daa8e22ff94ec1f30e
tokio-rs/axum@3d78036dcac289d6c1d54934708acb6a5bd73686
vitejs/vite@a98c8d95d552c6fa98ab66fb810f5b39ad5abf49"}
tmp=${BENCH_TMP:-$here/target/pyxis-bench}
cache=$here/target/pyxis-repos
mkdir -p "$tmp" "$cache"

(cd "$here" && cargo build --release -q -p zurdo-pyxis --example recall)
recall="$here/target/release/examples/recall"

# The git directory of owner/name, or nothing.
git_dir() {
    local key=${1/\//+}
    for base in ${PYXIS_REPOS:-/work/.mirror "$cache"}; do
        for d in "$base/$key/repo/.git" "$base/$key/repo" "$base/$key/.git" "$base/$key" "$base/$key.git"; do
            if [ -d "$d" ] && git --git-dir="$d" rev-parse --git-dir > /dev/null 2>&1; then
                echo "$d"
                return
            fi
        done
    done
    if git clone -q --bare "https://github.com/$1.git" "$cache/$key.git" > /dev/null 2>&1; then
        echo "$cache/$key.git"
    fi
}

# Runs every repository with the extra arguments given; prints the JSON lines.
measure() {
    for spec in $REPOS; do
        local name=${spec%@*} commit=${spec#*@} dir
        dir=$(git_dir "$name")
        if [ -z "$dir" ]; then
            echo "note: $name: not on disk and cannot be cloned; skipped" >&2
            continue
        fi
        if ! git --git-dir="$dir" cat-file -e "$commit^{commit}" 2> /dev/null; then
            echo "note: $name: $dir lacks the pinned commit $commit; skipped" >&2
            continue
        fi
        "$recall" --git-dir "$dir" --head "$commit" --work "$tmp/${name/\//+}" --label "$name" "$@"
    done
}

weights=()
[ -n "${WEIGHTS:-}" ] && weights=(--weights "$WEIGHTS")
measure --commits "$COMMITS" --skip "$SKIP" ${weights[@]+"${weights[@]}"} > "$tmp/results.jsonl"
echo "per-commit results: $tmp/results.jsonl"

python3 - "$tmp/results.jsonl" "$COMMITS" "$SKIP" <<'PY'
import json, random, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
commits = [r for r in rows if not r.get("summary")]
summaries = [r for r in rows if r.get("summary")]
print(f"\n{len(commits)} commits of {len(summaries)} repositories (newest {sys.argv[2]} qualifying per repository, {sys.argv[3]} skipped)")
print(f"{'repository':20} {'files':>6} {'commits':>7} {'targets':>7}   {'pyxis r@1':>9} {'r@5':>6} {'r@10':>6}   {'bm25 r@1':>8} {'r@5':>6} {'r@10':>6}")
for s in summaries:
    p, b = s["pyxis"], s["bm25"]
    print(f"{s['repo']:20} {s['files']:6} {s['commits']:7} {s['targets']:7}   {p['r1']:9.3f} {p['r5']:6.3f} {p['r10']:6.3f}   {b['r1']:8.3f} {b['r5']:6.3f} {b['r10']:6.3f}")
def mean(key, k):
    return sum(c[key][k] for c in commits) / max(1, len(commits))
print(f"{'all (mean per commit)':20} {'':6} {len(commits):7} {sum(c['targets'] for c in commits):7}   "
      f"{mean('pyxis','r1'):9.3f} {mean('pyxis','r5'):6.3f} {mean('pyxis','r10'):6.3f}   "
      f"{mean('bm25','r1'):8.3f} {mean('bm25','r5'):6.3f} {mean('bm25','r10'):6.3f}")
diff = [c["pyxis"]["r10"] - c["bm25"]["r10"] for c in commits]
if diff:
    wins = sum(d > 0 for d in diff); losses = sum(d < 0 for d in diff)
    rng = random.Random(19)
    means = sorted(sum(rng.choice(diff) for _ in diff) / len(diff) for _ in range(2000))
    print(f"recall@10, pyxis - bm25: {sum(diff)/len(diff):+.3f} (95% bootstrap interval {means[50]:+.3f} to {means[1949]:+.3f}); "
          f"pyxis better on {wins} commits, worse on {losses}, equal on {len(diff) - wins - losses}")
PY

if [ -n "${SWEEP:-}" ]; then
    # One weight at a time, on the older window (the COMMITS before the measured ones), so the
    # defaults are not judged on the commits that chose them.
    echo -e "\nweight sweep on the older window (SKIP=$COMMITS), recall@10 of pyxis (k1,wp,bp,wd,bd,wc,bc):"
    for w in 1.2,3,0.3,2,0.5,1,0.75 1.2,0,0.3,2,0.5,1,0.75 1.2,1,0.3,2,0.5,1,0.75 1.2,8,0.3,2,0.5,1,0.75 \
        1.2,3,0.3,0,0.5,1,0.75 1.2,3,0.3,4,0.5,1,0.75 1.2,3,0,2,0.5,1,0.75 1.2,3,0.75,2,0.5,1,0.75 \
        1.2,3,0.3,2,0.5,1,0.5 1.2,3,0.3,2,0.5,1,0.9 0.8,3,0.3,2,0.5,1,0.75 2.0,3,0.3,2,0.5,1,0.75; do
        measure --commits "$COMMITS" --skip "$COMMITS" --weights "$w" | python3 -c '
import json, sys
c = [json.loads(l) for l in sys.stdin]
c = [r for r in c if not r.get("summary")]
n = max(1, len(c))
p = sum(r["pyxis"]["r10"] for r in c) / n
b = sum(r["bm25"]["r10"] for r in c) / n
print(f"  {sys.argv[1]:28} pyxis {p:.3f}   bm25 {b:.3f}   ({len(c)} commits)")' "$w"
    done
fi
