#!/bin/sh
# The benchmark's committed cells, checked by running them again: each
# cell named (or, without names, the two of the folder that took the
# least time) runs here (`build/experiments ARGS --cell ID --cells -`),
# and its result lines (the value and exact match, the accuracy and exact
# match at every input length) must equal the committed record's, digit
# for digit. The seconds, the build (source) and the kernels may differ;
# the kernels are pinned (make's OPENBLAS_CORETYPE), so the digits hold
# on any AVX2 machine. Exit 1 on a difference, with both lines; 2 for a
# missing folder or cell.
#   scripts/bench_recheck.sh DIR [ARGS...] [-- ID...]
# e.g. scripts/bench_recheck.sh docs/benchmark/cells --bench
#      scripts/bench_recheck.sh build/cells-bench-quick --bench --quick
set -eu
dir=${1:?usage: scripts/bench_recheck.sh DIR [ARGS...] [-- ID...]}
shift
args=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    args="$args $1"
    shift
done
[ $# -gt 0 ] && shift
ids="$*"
if [ ! -d "$dir" ]; then
    echo "bench_recheck: no folder $dir" >&2
    exit 2
fi
if [ -z "$ids" ]; then
    # the two quickest cells of the folder, by their seconds line
    ids=$(for f in "$dir"/*.cell; do
        [ -e "$f" ] || continue
        printf '%s %s\n' "$(sed -n 's/^seconds //p' "$f")" "$(basename "$f" .cell)"
    done | sort -g | head -n 2 | cut -d' ' -f2)
fi
if [ -z "$ids" ]; then
    echo "bench_recheck: $dir holds no cells" >&2
    exit 2
fi
results() { grep -E '^(result|per_len|exact_len) ' "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
for id in $ids; do
    if [ ! -f "$dir/$id.cell" ]; then
        echo "bench_recheck: no cell $dir/$id.cell" >&2
        exit 2
    fi
    # shellcheck disable=SC2086
    build/experiments $args --cell "$id" --cells - >"$tmp/$id.cell"
    results "$dir/$id.cell" >"$tmp/want"
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
