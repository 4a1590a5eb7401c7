#!/usr/bin/env bash
# Lumen's references and callers against real oracles, on pinned releases of
# real packages (issue 16). Not part of `cargo test`.
#
# Usage (from anywhere; needs the package registries the first time):
#
#   benches/lumen-accuracy/run.sh
#
# What it does:
#   1. Into a cache outside the repository ($LUMEN_ACCURACY_CACHE, default
#      ~/.cache/zurdo/lumen-accuracy): a venv with jedi 0.19.1, the npm
#      package typescript 5.4.5, and the packages under test, each pinned:
#        Python      flask 3.0.3, requests 2.32.3 (sdists, with their tests)
#        TypeScript  rxjs 7.8.1 (its npm package ships src/*.ts)
#        JavaScript  express 4.19.2, commander 12.1.0, qs 6.12.1 (CommonJS)
#        Rust        globset 0.4.22, semver 1.0.23 (crates.io sources; hand-checked)
#        Go          net/http of the Go toolchain's own sources, if installed (hand-checked)
#      jedi's bundled stubs for flask and requests are moved aside, so that
#      jedi reads the packages' own sources.
#   2. Each tree is copied afresh under $CACHE/trees and indexed by
#      `zurdo lumen index` (BIN=path times that binary; else a release build
#      of this checkout).
#   3. The oracles (oracle_py.py: jedi; oracle_ts.js: the typescript package's
#      compiler and language service) list each tree's definitions and the
#      references of a seeded random sample of functions, methods and
#      classes. Their answers are cached per tree, sample size and seed.
#   4. compare.py asks `zurdo lumen query` (the path the hints take) about
#      every sampled name and prints, per language: definition recall and
#      precision, reference recall and precision (sites as file:line), and
#      the share of `[callers: X >= N]` / `>= N+1` verdicts that are right
#      (N: the oracle's count of distinct callers), raw and "adjudicated":
#      adjudicated.tsv lists call sites the oracle cannot type that were read
#      in the source and judged real (language, package, qualified name,
#      site, why); for the adjudicated share each listed site's caller joins
#      the oracle's callers of that name, but only when Lumen reports a call
#      of the name there and the source line calls it. Any other listed site
#      is printed as a warning and not counted, and so is a listed name the
#      sample did not draw.
#   5. handcheck.py scores the hand-checked Rust and Go samples
#      (handchecked.tsv: callers counted by hand) the same way.
#
# Settings: SAMPLE=100 (names per language), SEED=16, BIN=path, VERBOSE=1
# (every sampled name's misses and extras), LANGS="python typescript
# javascript rust go" (a subset to run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
CACHE=${LUMEN_ACCURACY_CACHE:-$HOME/.cache/zurdo/lumen-accuracy}
SAMPLE=${SAMPLE:-100}
SEED=${SEED:-16}
LANGS=${LANGS:-"python typescript javascript rust go"}
export LUMEN_ACCURACY_VERBOSE=${VERBOSE:-0}
mkdir -p "$CACHE/dl" "$CACHE/trees" "$CACHE/oracle"

wants() { [[ " $LANGS " == *" $1 "* ]]; }

# --- oracles -----------------------------------------------------------------
if wants python; then
    if [ ! -x "$CACHE/venv/bin/python" ] || ! "$CACHE/venv/bin/python" -c 'import jedi; assert jedi.__version__ == "0.19.1"' 2>/dev/null; then
        python3 -m venv "$CACHE/venv"
        "$CACHE/venv/bin/pip" install -q jedi==0.19.1
    fi
    stubs=$("$CACHE/venv/bin/python" -c 'import jedi, os; print(os.path.join(os.path.dirname(jedi.__file__), "third_party/typeshed/third_party/2and3"))')
    for pkg in flask requests; do
        if [ -d "$stubs/$pkg" ]; then mv "$stubs/$pkg" "$stubs/$pkg.moved-by-lumen-accuracy"; fi
    done
fi
if wants typescript || wants javascript; then
    if [ ! -f "$CACHE/node/node_modules/typescript/package.json" ] || ! grep -q '"version": "5.4.5"' "$CACHE/node/node_modules/typescript/package.json"; then
        mkdir -p "$CACHE/node"
        (cd "$CACHE/node" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install -q --no-audit --no-fund typescript@5.4.5 >/dev/null)
    fi
fi
export ORACLE_NODE_MODULES="$CACHE/node/node_modules"

# --- the packages --------------------------------------------------------------
fetch_pypi() { # name version
    local f="$CACHE/dl/$1-$2.tar.gz"
    [ -f "$f" ] || pip download -q --no-deps --no-binary :all: "$1==$2" -d "$CACHE/dl"
}
fetch_npm() { # name version
    local f="$CACHE/dl/$1-$2.tgz"
    [ -f "$f" ] || (cd "$CACHE/dl" && npm pack -q "$1@$2" >/dev/null)
}
fetch_crate() { # name version
    local dir
    dir=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$1-$2" 2>/dev/null | head -1 || true)
    if [ -z "$dir" ]; then
        local scratch="$CACHE/cargo-fetch"
        mkdir -p "$scratch/src"
        [ -f "$scratch/src/lib.rs" ] || : > "$scratch/src/lib.rs"
        printf '[package]\nname = "lumen-accuracy-fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' "$1" "$2" > "$scratch/Cargo.toml"
        (cd "$scratch" && cargo fetch -q)
        dir=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$1-$2" | head -1)
    fi
    echo "$dir"
}
# A fresh tree: $CACHE/trees/NAME, a .git marker at its root.
fresh() {
    rm -rf "$CACHE/trees/$1"
    mkdir -p "$CACHE/trees/$1/.git"
    echo "$CACHE/trees/$1"
}

if [ -z "${BIN:-}" ]; then
    (cd "$repo" && cargo build --release -q -p zurdo-harness)
    BIN="$repo/target/release/zurdo"
fi
echo "zurdo: $BIN ($(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo '?')), sample $SAMPLE per language, seed $SEED"

index() {
    (cd "$1" && "$BIN" lumen index >/dev/null)
}

# oracle LANGUAGE NAME SAMPLE ARGS...: the cached oracle answer's path.
oracle() {
    local language=$1 name=$2 n=$3
    shift 3
    local out="$CACHE/oracle/$name-$n-$SEED.json"
    if [ ! -s "$out" ]; then
        case $language in
            python) "$CACHE/venv/bin/python" "$here/oracle_py.py" "$CACHE/trees/$name" "$n" "$SEED" "$out.tmp" "$@" ;;
            *) node "$here/oracle_ts.js" "$CACHE/trees/$name" "$n" "$SEED" "$out.tmp" "$language" "$@" ;;
        esac
        mv "$out.tmp" "$out"
    fi
    echo "$out"
}

if wants python; then
    fetch_pypi flask 3.0.3
    fetch_pypi requests 2.32.3
    t=$(fresh flask) && tar xzf "$CACHE/dl/flask-3.0.3.tar.gz" -C "$t" --strip-components=1 && index "$t"
    t=$(fresh requests) && tar xzf "$CACHE/dl/requests-2.32.3.tar.gz" -C "$t" --strip-components=1 && index "$t"
    half=$(( (SAMPLE + 1) / 2 ))
    python3 "$here/compare.py" "$BIN" python \
        "$(oracle python flask "$half" src)" \
        "$(oracle python requests "$(( SAMPLE - half ))" src)"
fi

if wants typescript; then
    fetch_npm rxjs 7.8.1
    t=$(fresh rxjs) && tar xzf "$CACHE/dl/rxjs-7.8.1.tgz" -C "$t" --strip-components=1 package/src package/package.json && index "$t"
    python3 "$here/compare.py" "$BIN" typescript "$(oracle typescript rxjs "$SAMPLE")"
fi

if wants javascript; then
    fetch_npm express 4.19.2
    fetch_npm commander 12.1.0
    fetch_npm qs 6.12.1
    t=$(fresh express) && tar xzf "$CACHE/dl/express-4.19.2.tgz" -C "$t" --strip-components=1 package/lib package/index.js && index "$t"
    t=$(fresh commander) && tar xzf "$CACHE/dl/commander-12.1.0.tgz" -C "$t" --strip-components=1 package/lib package/index.js && index "$t"
    t=$(fresh qs) && tar xzf "$CACHE/dl/qs-6.12.1.tgz" -C "$t" --strip-components=1 package/lib package/test && index "$t"
    third=$(( SAMPLE * 2 / 5 ))
    python3 "$here/compare.py" "$BIN" javascript \
        "$(oracle javascript express "$third")" \
        "$(oracle javascript commander "$third")" \
        "$(oracle javascript qs "$(( SAMPLE - 2 * third ))")"
fi

if wants rust; then
    for crate in globset=0.4.22 semver=1.0.23; do
        name=${crate%%=*} version=${crate#*=}
        src=$(fetch_crate "$name" "$version")
        t=$(fresh "$name") && cp -r "$src"/. "$t"/ && index "$t"
    done
    python3 "$here/handcheck.py" "$BIN" rust "$CACHE/trees" "$here/handchecked.tsv"
fi

if wants go; then
    goroot=$(go env GOROOT 2>/dev/null || true)
    if [ -n "$goroot" ] && [ -d "$goroot/src/net/http" ]; then
        # Under net/http, so that the import path "net/http" names it.
        t=$(fresh nethttp) && mkdir -p "$t/net" && cp -r "$goroot/src/net/http" "$t/net/http" && index "$t"
        python3 "$here/handcheck.py" "$BIN" go "$CACHE/trees" "$here/handchecked.tsv"
    else
        echo "go: no Go toolchain sources on this machine; skipped"
    fi
fi
