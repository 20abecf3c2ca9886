#!/usr/bin/env python3
"""Times the commands the pages show in ```console blocks, as a reader runs
them: each page's wall seconds and CPU seconds (its commands' user + system
time), its slowest commands, and the load of the machine while it ran. The
figures behind the times the pages and README state (docs/index.md says on
which machine).

    python3 scripts/docs_times.py [--top N] PAGE ...

Give the pages in reading order from an empty work/ (`rm -rf work`), as
scripts/docs_regen.py does: a page reads the files of those before it.
A PAGE is named from the folder you run the script in; its commands run
from the top of the repository, as a reader's do. A bad argument (a
page that is missing, a folder or not text; --top without a whole
number) stops it before anything runs, with exit status 2.
Nothing is written to the pages. `make` commands other than `make demo`
are left out, as the docs test leaves them. The programs pick their own
thread count (export nothing): with OMP_NUM_THREADS set, a team no
longer follows the load, and on a busy machine its threads wait on each
other for many times the work.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_regen  # noqa: E402  (the same commands, kernels and threads)
from docs_regen import usage_error  # noqa: E402

PROG = "docs_times.py"


def commands(lines):
    """The `$ ` lines of a page's console blocks, in order."""
    found, in_console = [], False
    for line in lines:
        if not in_console:
            in_console = line == "```console"
        elif line.startswith("```"):
            in_console = False
        elif line.startswith("$ "):
            cmd = line[2:]
            if not cmd.startswith("make") or cmd == "make demo":
                found.append(cmd)
    return found


def parse(args):
    """(top, page names) of the command line; a usage error (exit 2) for
    anything else, before anything runs."""
    top, pages, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if a == "--top" or a.startswith("--top="):
            if a == "--top" and i + 1 == len(args):
                usage_error(PROG, "option --top needs a value: give it as '--top N'")
            value = a[len("--top="):] if a != "--top" else args[i + 1]
            i += a == "--top"
            if top is not None:
                usage_error(PROG, f"--top is given twice ('{top}', then '{value}'); give it once")
            if not re.fullmatch(r"[0-9]{1,6}", value):
                usage_error(PROG, f"--top wants a whole number from 0 to 999999 (the slowest "
                                  f"commands listed under each page), not '{value}'")
            top = int(value)
        elif a.startswith("-") and a != "-":
            usage_error(PROG, f"unknown option '{a}': the options are --top N and --help, the "
                              "other arguments pages")
        else:
            pages.append(a)
        i += 1
    if not pages:
        usage_error(PROG, "name the pages to time, in reading order (README.md docs/01-*.md ...)")
    return 3 if top is None else top, pages


def cpu_of_children():
    t = os.times()
    return t.children_user + t.children_system


def main():
    top, names = parse(sys.argv[1:])
    # each page read here, before the move to the top of the repository
    # where the commands run: a path given from another folder is the page
    # it names there
    pages = docs_regen.read_pages(PROG, names)
    # a reader's environment: the kernels the programs choose, and their own
    # thread count, which follows the load (src/model/par.c)
    docs_regen.environment(threads=False)
    for page, lines in pages:
        load0 = os.getloadavg()[0]
        times = []
        for cmd in commands(lines):
            w0, c0 = time.monotonic(), cpu_of_children()
            try:
                docs_regen.run(cmd)
            except RuntimeError as e:
                print(f"{PROG}: {page}: {e}; build the programs first (make), and give the "
                      "pages in reading order from an empty work/ (rm -rf work): a page reads "
                      "the files of those before it", file=sys.stderr)
                return 1
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
