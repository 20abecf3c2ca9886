#!/bin/sh
# The experiments' cells end to end on the quick grid (make gridtest):
#   1. JOBS=1 and JOBS=2 write the same page, CSVs and figures, byte for byte;
#   2. a run killed halfway goes on where it stopped, says how many cells it
#      skips and runs, and writes the same page again;
#   3. a second run on the same page is refused with the first's pid;
#   4. what a run killed while publishing left is finished (or, cut
#      before its end, removed) by the next run;
#   5. a signal ignored on entry (nohup) stays ignored; one that comes
#      once the run is under way ends it after the page is in place, with
#      the signal's status; a complete read-only folder of cells publishes;
#      a FIFO named like a cell blocks nothing; --quick's own default page
#      is build/experiments-quick, never docs;
#   6. the missing cells run on another machine through GNU parallel and
#      ssh (an sshd on localhost, started here with keys made here) and the
#      page is the same again; a machine that does not answer, or is not
#      known, is named in one line and left out (scripts/grid_hosts.sh).
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

# 5. signals, a read-only folder, a FIFO, the default page
mkdir -p "$tmp/f"
cp -r "$tmp/a/cells" "$tmp/f/cells"
setsid nohup "$exe" --quick --cells "$tmp/f/fresh" --out "$tmp/f/hup" --jobs 2 \
    >"$tmp/f/nohup.out" 2>&1 &
pid=$!
count() { ls "$tmp/f/fresh" 2>/dev/null | grep -c '\.cell$' || true; }
until [ "$(count)" -ge 10 ]; do
    kill -0 "$pid" 2>/dev/null || fail "the run under nohup ended early: $(tail -3 "$tmp/f/nohup.out")"
    sleep 0.05
done
kill -HUP -- -"$pid" 2>/dev/null || true
# it goes on: ten more cells, then it is stopped
after=$(($(count) + 10))
until [ "$(count)" -ge "$after" ] || [ -s "$tmp/f/hup/results.md" ]; do
    kill -0 "$pid" 2>/dev/null || fail "a run under nohup died of a hang-up: $(tail -3 "$tmp/f/nohup.out")"
    sleep 0.05
done
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
# all cells done: the run goes straight to the page, and a TERM once it has
# said so ends it after the page is written, with the signal's status
"$exe" --quick --cells "$tmp/f/cells" --out "$tmp/f/term" --jobs 1 2>"$tmp/f/term.log" &
pid=$!
until grep -q "done, skipped" "$tmp/f/term.log"; do
    kill -0 "$pid" 2>/dev/null || fail "the run ended before it said what it skips"
    sleep 0.01
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 143 ] || fail "a TERM during the publish gave exit status $rc, not 143"
same_page "$tmp/a" "$tmp/f/term" "a TERM during the publish"
# read-only: as another user when root (root writes anywhere)
chmod -R a+rX "$tmp/f/cells"
chmod a-w "$tmp/f/cells"
chmod 777 "$tmp/f"
chmod 755 "$tmp"
as=
[ "$(id -u)" -eq 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
$as "$exe" --quick --cells "$tmp/f/cells" --out "$tmp/f/ro" --jobs 1 2>"$tmp/f/ro.log" ||
    fail "a complete read-only cells folder: $(tail -3 "$tmp/f/ro.log")"
same_page "$tmp/a" "$tmp/f/ro" "from a read-only folder"
chmod u+w "$tmp/f/cells"
# a FIFO where a cell file belongs: named, never waited on
rm "$tmp/f/cells/tasks-agent-rope-s1.cell"
mkfifo "$tmp/f/cells/tasks-agent-rope-s1.cell"
if "$exe" --quick --cells "$tmp/f/cells" --out "$tmp/f/fifo" --jobs 1 2>"$tmp/f/fifo.log"; then
    fail "a run with a FIFO for a cell exited 0"
fi
grep -q "tasks-agent-rope-s1.cell is damaged: it is not a regular file" "$tmp/f/fifo.log" ||
    fail "the FIFO is not named: $(head -3 "$tmp/f/fifo.log")"
# --quick's default page, run from another folder
mkdir -p "$tmp/f/cwd/docs"
abs_exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
(cd "$tmp/f/cwd" && "$abs_exe" --quick --cells "$tmp/a/cells" 2>../cwd.log) ||
    fail "--quick without --out: $(tail -3 "$tmp/f/cwd.log")"
[ -s "$tmp/f/cwd/build/experiments-quick/results.md" ] ||
    fail "--quick without --out did not write build/experiments-quick"
[ -z "$(ls "$tmp/f/cwd/docs")" ] || fail "--quick without --out wrote into docs"
pass "nohup, TERM during the publish, a read-only folder, a FIFO, --quick's default page"

# 6. the grid on another machine: GNU parallel over ssh to an sshd here
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
# beside it, a machine that does not answer and one that is not known
printf '1/10.255.255.1\n2/%s\n1/nosuchhost.invalid\n' "$login" > "$tmp/hosts"
mkdir -p "$tmp/e/cells"
# as `make experiments HOSTS=...` does: the missing cells there, their
# records stored here, then the page from the cells
GRID_CONNECT_TIMEOUT=5 scripts/grid_hosts.sh "$tmp/hosts" "$exe" "$tmp/e/cells" "$(pwd)" \
    --quick 2>"$tmp/e-hosts.log" || fail "the grid over ssh: $(tail -5 "$tmp/e-hosts.log")"
grep -q "host '1/10.255.255.1' is left out: ssh said: " "$tmp/e-hosts.log" ||
    fail "the unreachable host is not named: $(head -5 "$tmp/e-hosts.log")"
grep -q "host '1/nosuchhost.invalid' is left out: ssh said: .*nosuchhost.invalid" \
    "$tmp/e-hosts.log" || fail "the unknown host is not named: $(head -5 "$tmp/e-hosts.log")"
[ "$(grep -c "nosuchhost" "$tmp/e-hosts.log")" -eq 1 ] ||
    fail "the unknown host is named more than once: $(grep -c nosuchhost "$tmp/e-hosts.log")"
grep -q "hosts: stored $total of $total cells; 0 left to run; 2 of 3 hosts left out" \
    "$tmp/e-hosts.log" || fail "no summary: $(tail -3 "$tmp/e-hosts.log")"
run "$tmp/e" 1 2>"$tmp/e.log" || fail "the page from the remote cells: $(tail -3 "$tmp/e.log")"
grep -q ": $total done, skipped; 0 to run" "$tmp/e.log" ||
    fail "every cell should have come back from ssh: $(head -1 "$tmp/e.log")"
same_page "$tmp/a" "$tmp/e" "through ssh"
# no machine answers: the cells left are said, and the exit is 1
printf '1/nosuchhost.invalid\n' > "$tmp/hosts-none"
mkdir -p "$tmp/g/cells"
if scripts/grid_hosts.sh "$tmp/hosts-none" "$exe" "$tmp/g/cells" "$(pwd)" --quick \
    2>"$tmp/g-hosts.log"; then
    fail "with no host answering, the grid over ssh exited 0"
fi
grep -q "stored 0 of $total cells; $total left to run" "$tmp/g-hosts.log" ||
    fail "no summary of what is left: $(cat "$tmp/g-hosts.log")"
# records changed on the way are refused by their checksum, exit 2 (one
# from a build of other sources: tests/test_cells.c)
for id in order-none-s1 tasks-agent-rope-s1; do
    "$exe" --quick --cell $id --cells -
done > "$tmp/e-records"
sed 's/^source .*/source 000000000000/' "$tmp/e-records" > "$tmp/e-other"
rc=0
"$exe" --store --quick --cells "$tmp/e/cells" <"$tmp/e-other" 2>"$tmp/e-other.log" || rc=$?
[ "$rc" -eq 2 ] || fail "a changed record: exit status $rc, not 2"
grep -q "checksum" "$tmp/e-other.log" || fail "$(cat "$tmp/e-other.log")"
pass "the grid through ssh to localhost gives the same page; hosts that fail are named and left out; a changed record is refused"
