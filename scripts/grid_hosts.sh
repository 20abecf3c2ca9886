#!/bin/bash
# make experiments HOSTS=FILE (and make benchmark HOSTS=FILE): the grid's
# missing cells on the machines of FILE (GNU parallel's --sshloginfile
# format: "N/login", ":" for this machine), each record stored here as soon
# as it comes back (docs/experiments.md).
#
#   scripts/grid_hosts.sh HOSTS EXE CELLS REMOTE_DIR [--bench] [--quick] [--seeds N]
#
# The options after REMOTE_DIR name the grid and its settings: they go to
# every call of EXE, here (--list, --store) and on the hosts (--cell), so
# that all of them name the same cells (--bench: the benchmark's grid).
#
# Every machine is tried first, all at once, with ssh's ConnectTimeout
# (GRID_CONNECT_TIMEOUT seconds, default 10) and BatchMode (no password
# prompt): one that does not answer, or has no EXE in REMOTE_DIR, is named
# in one line with what ssh said and left out, and the others run the
# cells. GNU parallel retries a cell that fails on another machine
# (--retries), and ssh's keep-alive notices a machine that goes away. At
# the end one summary: the records stored, the cells left to run and the
# machines that failed. Exit 0 when no cell is left, 1 when some are, 2
# for bad usage.
set -u -o pipefail
if [ $# -lt 4 ]; then
    echo "usage: scripts/grid_hosts.sh HOSTS EXE CELLS REMOTE_DIR [--bench] [--quick] [--seeds N]" >&2
    exit 2
fi
hosts=$1 exe=$2 cells=$3 remote=$4
shift 4
# The file's machines, checked before any is tried: a folder, an empty
# file and one of comments alone are refused; CRLF line ends (a file
# written on Windows) and blanks at a line's end are taken off, so that
# "1/:\r" is this machine, not a host named ":\r".
format="one machine a line, N/login or login (':' for this machine), as GNU parallel's --sshloginfile takes"
[ -d "$hosts" ] &&
    { echo "experiments: the hosts file $hosts is a folder; give a file of $format" >&2; exit 2; }
[ -r "$hosts" ] || { echo "experiments: cannot read the hosts file $hosts; check the path" >&2; exit 2; }
machines=()
while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    line=${line%"${line##*[![:blank:]]}"}
    case $line in '' | '#'*) continue ;; esac
    machines+=("$line")
done < "$hosts" || { echo "experiments: cannot read the hosts file $hosts" >&2; exit 2; }
[ ${#machines[@]} -gt 0 ] ||
    { echo "experiments: the hosts file $hosts names no machine (it is empty, or comments alone); give $format" >&2; exit 2; }
command -v parallel >/dev/null ||
    { echo "experiments: GNU parallel is missing: scripts/deps.sh grid installs it" >&2; exit 2; }
opts="-o ConnectTimeout=${GRID_CONNECT_TIMEOUT:-10} -o BatchMode=yes -o ServerAliveInterval=15 -o ServerAliveCountMax=4"
tmp=$(mktemp -d /tmp/posenc-hosts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the ssh command of a login: "ssh -p 2222 alice@laptop" as given, with
# the options after its first word; "alice@node1" through ssh
ssh_of() {
    case ${1%% *} in
    *ssh) echo "${1%% *} $opts ${1#* }" ;;
    *) echo "ssh $opts $1" ;;
    esac
}

# try every machine at once
n=0
for line in "${machines[@]}"; do
    n=$((n + 1))
    slots= login=$line
    case $line in [0-9]*/*) slots=${line%%/*}/ login=${line#*/} ;; esac
    echo "$line" > "$tmp/line.$n"
    if [ "$login" = : ]; then
        echo ":" > "$tmp/ok.$n"
        continue
    fi
    cmd=$(ssh_of "$login")
    (
        if msg=$($cmd "cd '$remote' && test -x '$exe'" </dev/null 2>&1); then
            echo "$slots$cmd" > "$tmp/ok.$n"
        elif [ $? -eq 255 ]; then
            echo "ssh said: $(echo "$msg" | tail -1)" > "$tmp/failed.$n"
        else
            echo "it has no $exe in $remote: build this project there at this commit (or set REMOTE_DIR)" > "$tmp/failed.$n"
        fi
    ) &
done
wait
: > "$tmp/hosts"
failed=0
for i in $(seq 1 $n); do
    if [ -f "$tmp/ok.$i" ]; then
        cat "$tmp/ok.$i" >> "$tmp/hosts"
    else
        failed=$((failed + 1))
        echo "experiments: host '$(cat "$tmp/line.$i")' is left out: $(cat "$tmp/failed.$i")" >&2
    fi
done

"$exe" --list --missing "$@" --cells "$cells" > "$tmp/todo" || exit 2
todo=$(wc -l < "$tmp/todo")
store_rc=0
if [ "$todo" -gt 0 ] && [ -s "$tmp/hosts" ]; then
    echo "experiments: $todo cells on $(wc -l < "$tmp/hosts") of $n hosts" >&2
    parallel --will-cite --sshloginfile "$tmp/hosts" --workdir "$remote" --retries 2 \
        --joblog "$tmp/joblog" \
        ${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} \
        "$exe" --cell {} --cells - "$@" < "$tmp/todo" 2> >(tee "$tmp/parallel.err" >&2) |
        "$exe" --store "$@" --cells "$cells"
    rcs=("${PIPESTATUS[@]}")
    store_rc=${rcs[1]}
    # hosts whose jobs failed on the way: ssh gives 255
    if [ -s "$tmp/joblog" ]; then
        awk -F'\t' 'NR > 1 && $7 != 0 { n[$2]++; if ($7 == 255) s[$2]++ }
            END { for (h in n) printf "experiments: host %s: %d cell runs failed%s\n", h, n[h],
                  s[h] ? sprintf(" (%d lost by ssh)", s[h]) : "" }' "$tmp/joblog" >&2
    fi
fi
left=$("$exe" --list --missing "$@" --cells "$cells" | wc -l)
msg="experiments: hosts: stored $((todo - left)) of $todo cells; $left left to run"
[ $failed -gt 0 ] && msg="$msg; $failed of $n hosts left out (above)"
[ "$store_rc" -ne 0 ] && msg="$msg; some records were refused (above)"
echo "$msg" >&2
if [ "$left" -gt 0 ]; then
    target=experiments
    case " $* " in *" --bench "*) target=benchmark ;; esac
    echo "experiments: run the same command again once the hosts answer, or make $target without HOSTS to run the $left here" >&2
    exit 1
fi
exit 0
