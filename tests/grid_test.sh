#!/bin/sh
# The experiments' cells end to end on the quick grid (make gridtest):
#   1. JOBS=1 and JOBS=2 write the same page, CSVs and figures, byte for byte;
#   2. a run killed halfway goes on where it stopped, says how many cells it
#      skips and runs, and writes the same page again;
#   3. a second run on the same page is refused with the first's pid;
#   4. what a run killed while publishing left is finished (or, cut
#      before its end, removed) by the next run;
#   5. the missing cells run on another machine through GNU parallel and
#      ssh (an sshd on localhost, started here with keys made here) and the
#      page is the same again.
#
#   tests/grid_test.sh BUILD_DIR
set -eu
build=${1:-build}
exe="$build/experiments"
tmp=$(mktemp -d /tmp/posenc-grid.XXXXXX)
sshd_pid=
cleanup() {
    [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() { echo "gridtest: FAIL: $*" >&2; exit 1; }
pass() { echo "gridtest: ok: $*" >&2; }
# the page, its CSVs and figures (not the cells, whose seconds differ)
same_page() { diff -r -x cells -x '*.lock' "$1" "$2" >/dev/null || fail "$3: pages differ ($1, $2)"; }

run() { "$exe" --quick --cells "$1/cells" --out "$1" --jobs "$2"; }

# 1. JOBS=1 and JOBS=2
run "$tmp/a" 1 2>"$tmp/a.log" || fail "JOBS=1: $(tail -3 "$tmp/a.log")"
run "$tmp/b" 2 2>"$tmp/b.log" || fail "JOBS=2: $(tail -3 "$tmp/b.log")"
[ -s "$tmp/a/results.md" ] || fail "no results.md"
same_page "$tmp/a" "$tmp/b" "JOBS=1 against JOBS=2"
total=$("$exe" --quick --list | wc -l)
pass "JOBS=1 and JOBS=2 give the same page ($total cells)"

# 2. killed halfway, then run again
mkdir -p "$tmp/c/cells"
"$exe" --quick --cells "$tmp/c/cells" --out "$tmp/c" --jobs 1 2>"$tmp/c1.log" &
pid=$!
while [ "$(ls "$tmp/c/cells" | grep -c '\.cell$')" -lt $((total / 2)) ]; do
    kill -0 "$pid" 2>/dev/null || fail "the run ended before it was killed"
    sleep 0.05
done
# the runner takes the cell it runs down with it
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null && fail "the killed run exited 0"
[ -e "$tmp/c/results.md" ] && fail "a killed run wrote a page"
done_before=$(ls "$tmp/c/cells" | grep -c '\.cell$')
run "$tmp/c" 2 2>"$tmp/c2.log" || fail "the run after the kill: $(tail -3 "$tmp/c2.log")"
grep -q ": $done_before done, skipped; $((total - done_before)) to run" "$tmp/c2.log" ||
    fail "the second run should skip $done_before cells: $(head -1 "$tmp/c2.log")"
same_page "$tmp/a" "$tmp/c" "killed and resumed"
pass "killed after $done_before of $total cells, the next run ran the other $((total - done_before))"

# 3. two runs on one page: the second is refused, naming the first
"$exe" --quick --cells "$tmp/d/cells" --out "$tmp/d" --jobs 1 2>"$tmp/d1.log" &
pid=$!
sleep 0.5
if run "$tmp/d" 1 2>"$tmp/d2.log"; then
    fail "a second run on the same page exited 0"
fi
grep -q "in use by another run (pid $pid)" "$tmp/d2.log" ||
    fail "the second run should name pid $pid: $(cat "$tmp/d2.log")"
wait "$pid" || fail "the first run failed: $(tail -3 "$tmp/d1.log")"
pass "a second run on one page is refused with the first's pid"

# 4. a publishing killed after its set was complete is finished; one
# killed while writing it is removed
mkdir -p "$tmp/a/.results.new/results"
echo "kept" > "$tmp/a/.results.new/results/extra.csv"
touch "$tmp/a/.results.new/COMPLETE"
run "$tmp/a" 1 2>"$tmp/a2.log" || fail "after a killed publishing: $(tail -3 "$tmp/a2.log")"
[ "$(cat "$tmp/a/results/extra.csv" 2>/dev/null)" = kept ] ||
    fail "the complete staged set was not moved into place"
[ -e "$tmp/a/.results.new" ] && fail "the staged folder is still there"
rm "$tmp/a/results/extra.csv"
mkdir -p "$tmp/a/.results.new/results"
echo "half" > "$tmp/a/.results.new/results/extra.csv"
run "$tmp/a" 1 2>"$tmp/a3.log" || fail "after a cut publishing: $(tail -3 "$tmp/a3.log")"
[ -e "$tmp/a/results/extra.csv" ] && fail "an unfinished staged set was moved into place"
[ -e "$tmp/a/.results.new" ] && fail "the unfinished staged folder is still there"
same_page "$tmp/b" "$tmp/a" "after the publishing tests"
pass "a killed publishing is finished when complete, removed when not"

# 5. the grid on another machine: GNU parallel over ssh to an sshd here
if ! command -v parallel >/dev/null || [ ! -x /usr/sbin/sshd ]; then
    fail "GNU parallel and sshd are needed (make gridtest installs them)"
fi
mkdir -p "$tmp/ssh"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/ssh/host" </dev/null
ssh-keygen -q -t ed25519 -N '' -f "$tmp/ssh/user" </dev/null
cp "$tmp/ssh/user.pub" "$tmp/ssh/authorized_keys"
chmod 700 "$tmp/ssh"
port=$((20000 + $$ % 20000))
user=$(id -un)
cat > "$tmp/ssh/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/ssh/host
AuthorizedKeysFile $tmp/ssh/authorized_keys
PidFile $tmp/ssh/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
EOF
[ "$(id -u)" -eq 0 ] && mkdir -p /run/sshd
/usr/sbin/sshd -D -e -f "$tmp/ssh/sshd_config" 2>"$tmp/ssh/sshd.log" &
sshd_pid=$!
login="ssh -p $port -i $tmp/ssh/user -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR $user@127.0.0.1"
tries=0
until $login true 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 50 ] || fail "cannot ssh to the sshd on port $port: $(cat "$tmp/ssh/sshd.log")"
    sleep 0.1
done
echo "2/$login" > "$tmp/hosts"
mkdir -p "$tmp/e/cells"
# as `make experiments HOSTS=...` does: the missing cells there, their
# records stored here, then the page from the cells
"$exe" --list --missing --quick --cells "$tmp/e/cells" |
    parallel --will-cite --sshloginfile "$tmp/hosts" --workdir "$(pwd)" \
        ${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} \
        "$exe" --cell {} --cells - --quick >"$tmp/e-records" 2>"$tmp/e-parallel.log" ||
    fail "parallel over ssh: $(tail -5 "$tmp/e-parallel.log")"
"$exe" --store --quick --cells "$tmp/e/cells" <"$tmp/e-records" 2>"$tmp/e-store.log" ||
    fail "storing the records: $(cat "$tmp/e-store.log")"
run "$tmp/e" 1 2>"$tmp/e.log" || fail "the page from the remote cells: $(tail -3 "$tmp/e.log")"
grep -q ": $total done, skipped; 0 to run" "$tmp/e.log" ||
    fail "every cell should have come back from ssh: $(head -1 "$tmp/e.log")"
same_page "$tmp/a" "$tmp/e" "through ssh"
# a record from a build of other sources is refused
sed 's/^source .*/source 000000000000/' "$tmp/e-records" > "$tmp/e-other"
if "$exe" --store --quick --cells "$tmp/e/cells" <"$tmp/e-other" 2>"$tmp/e-other.log"; then
    fail "a record from other sources was stored"
fi
grep -q "other sources" "$tmp/e-other.log" || fail "$(cat "$tmp/e-other.log")"
pass "the grid through ssh to localhost gives the same page; other sources are refused"
