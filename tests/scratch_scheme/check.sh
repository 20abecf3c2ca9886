#!/bin/sh
# Adding a scheme takes its file, its registry line and its docs rows,
# nothing else (docs/architecture.md, "Adding a scheme, step by step"),
# and this shows it on a copy of the tree: it adds the scratch scheme
# (tests/scratch_scheme/pe_scratchbias.c, a learned slope per head with
# one option and a table), its line in src/pe/pe_list.h, and the docs rows
# the docs test names for every scheme (page 4's lineage, formats.md's
# scheme row); builds; finds the draws' rows and the pages' counts
# wrong, with the tests naming `make fixtures`; runs `make fixtures`; and
# then runs the conformance checks (the contract of the hooks, the
# reference model's gradients, the scheme's declaration, its first
# draws) and the docs checks that read the pages, which must pass.
#   tests/scratch_scheme/check.sh TOP BUILD WORK
# TOP is the tree, BUILD its build folder (its objects are copied with
# their times, so that make rebuilds only what the scheme touches), WORK
# a folder for the copy (emptied first). make check runs it
# (tests/test_pe.c); it prints what it does, and exits 1 at the first
# step that fails.
set -eu
top=$(cd "${1:?usage: check.sh TOP BUILD WORK}" && pwd)
build=$(cd "${2:?usage: check.sh TOP BUILD WORK}" && pwd)
work=${3:?usage: check.sh TOP BUILD WORK}
rm -rf "$work"
mkdir -p "$work/build"
work=$(cd "$work" && pwd)

say() { printf 'scratch scheme: %s\n' "$*"; }
fail() { printf 'scratch scheme: FAILED: %s\n' "$*"; exit 1; }

# The tree (not the benchmark's cells, which no check here reads), and the
# build's objects and configuration, times kept.
say "copying $top to $work"
tar -C "$top" --exclude=docs/benchmark/cells --exclude=docs/benchmark/next -cf - \
    Makefile README.md src examples tests docs web scripts data bench | tar -C "$work" -xf -
cp -p "$top/build/config.mk" "$work/build/"
if [ -d "$build/obj" ]; then
    tar -C "$build" -cf - obj $(cd "$build" && ls libposenc.a 2>/dev/null) | tar -C "$work/build" -xf -
fi
cd "$work"

# The scheme: its file, its registry line, its docs rows. Nothing else.
say "adding scratchbias: its file, its registry line, its docs rows"
cp tests/scratch_scheme/pe_scratchbias.c src/pe/
echo 'PE_SCHEME(scratchbias)' >> src/pe/pe_list.h
printf '\nA last step, for the check that adding a scheme takes no more than this: the scratch scheme `scratchbias` learns one slope per head, -w_h |i - j|, ALiBi with its slopes learned.\n' >> docs/04b-more-relative.md
sed -i 's/^\(| scheme | string | the scheme.s name: \)/\1`scratchbias`, /' docs/formats.md
grep -q '`scratchbias`' docs/formats.md ||
    fail "docs/formats.md has no row '| scheme | string | the scheme's name: ...' to name it in"

# The same make as the tree's, from a test that make runs: no jobserver
# of the outer make.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -s BUILD=build "$@"; }
say "building"
mk all >/dev/null
mk build/run_tests build/regen >/dev/null

# The suites as the tree's tests run them, but these checks alone.
checks() { # SUITE [CASE] [TAGS TO LEAVE OUT]
    env -u CK_INCLUDE_TAGS -u CK_RUN_CASE -u POSENC_TEST_LOG -u POSENC_SHARD -u POSENC_CLAIMS \
        -u POSENC_DOCS_WORK -u OPENBLAS_CORETYPE OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        POSENC_BIN=build CK_DEFAULT_TIMEOUT=600 CK_RUN_SUITE="$1" \
        ${2:+CK_RUN_CASE="$2"} CK_EXCLUDE_TAGS="${3:-}" build/run_tests
}

# Before make fixtures: the new scheme's draws have no rows, and page 5
# counts the schemes and compare_pe's runs without it; each test says so
# and names the command.
say "before make fixtures: the draws' rows and the pages' counts"
if out=$(checks train "reference model" 2>&1); then
    fail "the first draws' test passed without the scheme's rows: $out"
fi
echo "$out" | grep -q 'scratchbias has 0 rows' || fail "the draws' test did not name the scheme: $out"
echo "$out" | grep -q 'make fixtures' || fail "the draws' test did not name make fixtures: $out"
if out=$(checks docs "" slow 2>&1); then
    fail "the docs' counts passed without the scheme: $out"
fi
echo "$out" | grep -q 'make fixtures' || fail "the docs test did not name make fixtures: $out"

say "make fixtures"
mk fixtures
build/regen --check >/dev/null || fail "make fixtures left something to write"

say "the conformance checks"
checks attn contract
checks grad
checks pe values
checks train "reference model"
say "the docs checks that read the pages"
checks docs "" slow
say "passed: the scheme took its file, its registry line and its docs rows"
