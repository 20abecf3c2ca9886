#!/usr/bin/env python3
"""Times the commands the pages show in ```console blocks, as a reader runs
them: each page's wall seconds and CPU seconds (its commands' user + system
time), its slowest commands, and the load of the machine while it ran. The
figures behind the times the pages and README state (docs/index.md says on
which machine).

    python3 scripts/docs_times.py [--top N] PAGE ...

Give the pages in reading order from an empty work/ (`rm -rf work`), as
scripts/docs_regen.py does: a page reads the files of those before it.
Nothing is written to the pages. `make` commands other than `make demo`
are left out, as the docs test leaves them. The programs pick their own
thread count (export nothing): with OMP_NUM_THREADS set, a team no
longer follows the load, and on a busy machine its threads wait on each
other for many times the work.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_regen  # noqa: E402  (the same commands, kernels and threads)


def commands(page):
    """The `$ ` lines of the page's console blocks, in order."""
    found, in_console = [], False
    for line in open(page).read().split("\n"):
        if not in_console:
            in_console = line == "```console"
        elif line.startswith("```"):
            in_console = False
        elif line.startswith("$ "):
            cmd = line[2:]
            if not cmd.startswith("make") or cmd == "make demo":
                found.append(cmd)
    return found


def cpu_of_children():
    t = os.times()
    return t.children_user + t.children_system


def main():
    args, top = sys.argv[1:], 3
    if args[:1] == ["--top"]:
        top, args = int(args[1]), args[2:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    # a reader's environment: the kernels the programs choose, and their own
    # thread count, which follows the load (src/model/par.c)
    docs_regen.environment(threads=False)
    for page in args:
        load0 = os.getloadavg()[0]
        times = []
        for cmd in commands(page):
            w0, c0 = time.monotonic(), cpu_of_children()
            docs_regen.run(cmd)
            times.append((time.monotonic() - w0, cpu_of_children() - c0, cmd))
        wall, cpu = sum(t[0] for t in times), sum(t[1] for t in times)
        load1 = os.getloadavg()[0]
        print(f"{page}: {len(times)} commands, {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"(load {load0:.1f} before, {load1:.1f} after)")
        for w, c, cmd in sorted(times, reverse=True)[:top]:
            print(f"    {w:6.1f} s wall {c:6.1f} s CPU  {cmd[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
