#!/bin/sh
# The benchmark's committed cells, checked by running them again: each
# cell named, or else two drawn from the cheaper half of the folder (by
# their seconds line) by a seed that changes with the commit, so that
# CI checks other cells at every commit and one run stays within about
# three minutes, runs here (`build/experiments ARGS --cell ID --cells -`),
# and its result lines (the value and exact match, the accuracy and exact
# match at every input length) must equal the committed record's, digit
# for digit. The seconds, the build (source) and the kernels may differ;
# the kernels are pinned (make's OPENBLAS_CORETYPE), so the digits hold
# on any AVX2 machine. Exit 1 on a difference, with both lines; 2 for bad
# usage: a missing folder or cell, arguments of another grid, a cell with
# no result lines.
#   scripts/bench_recheck.sh DIR [ARGS...] [-- ID...]
# e.g. scripts/bench_recheck.sh docs/benchmark/cells --bench
#      scripts/bench_recheck.sh build/cells-bench-quick --bench --quick
# The draw's seed is the commit (git rev-parse HEAD), named in the output;
# BENCH_RECHECK_SEED=S draws with S instead (the same S, the same cells).
set -eu
usage="usage: scripts/bench_recheck.sh DIR [ARGS...] [-- ID...] (ARGS name the grid, e.g. --bench)"
dir=${1:?$usage}
shift
args=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    args="$args $1"
    shift
done
[ $# -gt 0 ] && shift
ids="$*"
if [ ! -d "$dir" ]; then
    echo "bench_recheck: no folder $dir; give the cells folder (e.g. docs/benchmark/cells)" >&2
    exit 2
fi
# the folder as the caller named it, then the repository's top, where
# build/experiments is
dir=$(cd "$dir" && pwd)
cd "$(dirname "$0")/.."
exe=build/experiments
if [ ! -x "$exe" ]; then
    echo "bench_recheck: $(pwd)/$exe is missing: build it first (make $exe)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the arguments must name the folder's grid: another grid's cells would
# "differ" only because they are another grid's (the program says whose)
# shellcheck disable=SC2086
if ! $exe $args --list --cells "$dir" >"$tmp/grid" 2>"$tmp/why"; then
    cat "$tmp/why" >&2
    echo "bench_recheck: the arguments '${args# }' do not name the grid of $dir (above): give" \
        "the options it was run with (e.g. --bench, or --bench --quick)" >&2
    exit 2
fi
if [ -z "$ids" ]; then
    seed=${BENCH_RECHECK_SEED:-$(git rev-parse HEAD 2>/dev/null || echo none)}
    # the cells of the grid in the folder, with their seconds; the cheaper
    # half (at most the median's seconds) is drawn from
    while read -r id; do
        [ -f "$dir/$id.cell" ] || continue
        printf '%s %s\n' "$(sed -n 's/^seconds //p' "$dir/$id.cell")" "$id"
    done <"$tmp/grid" | sort -g >"$tmp/timed"
    n=$(wc -l <"$tmp/timed")
    if [ "$n" -eq 0 ]; then
        echo "bench_recheck: $dir holds no cells of this grid" >&2
        exit 2
    fi
    half=$(((n + 1) / 2))
    head -n "$half" "$tmp/timed" >"$tmp/cheap"
    most=$(tail -n 1 "$tmp/cheap" | cut -d' ' -f1)
    ids=$(while read -r secs id; do
        printf '%s %s\n' "$(printf '%s %s' "$seed" "$id" | cksum | cut -d' ' -f1)" "$id"
    done <"$tmp/cheap" | sort -n | head -n 2 | cut -d' ' -f2)
    echo "bench_recheck: drawn by seed $seed (BENCH_RECHECK_SEED=$seed draws them again)" \
        "from the $half cells of $dir of at most $most s:" $ids
fi
results() { grep -E '^(result|per_len|exact_len) ' "$1" || true; }
rc=0
for id in $ids; do
    if ! grep -qx -- "$id" "$tmp/grid"; then
        echo "bench_recheck: no cell of this grid is named $id ($exe$args --list names them)" >&2
        exit 2
    fi
    if [ ! -f "$dir/$id.cell" ]; then
        echo "bench_recheck: no cell $dir/$id.cell; restore it (git checkout -- $dir)" >&2
        exit 2
    fi
    results "$dir/$id.cell" >"$tmp/want"
    if [ ! -s "$tmp/want" ]; then
        echo "bench_recheck: $dir/$id.cell holds no result lines: it is damaged ($exe$args" \
            "--list --missing --cells $dir names it and why); restore it from git" >&2
        exit 2
    fi
    # shellcheck disable=SC2086
    $exe $args --cell "$id" --cells - >"$tmp/$id.cell"
    results "$tmp/$id.cell" >"$tmp/got"
    if cmp -s "$tmp/want" "$tmp/got"; then
        echo "bench_recheck: $id: the same results ($(wc -l <"$tmp/want") lines)"
    else
        echo "bench_recheck: $id: the results differ from the committed cell's:" >&2
        diff "$tmp/want" "$tmp/got" >&2 || true
        rc=1
    fi
done
exit $rc
