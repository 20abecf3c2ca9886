#!/usr/bin/env python3
"""Reruns every command the pages show in ```console blocks (README.md and
docs/*.md) and writes its real output into the page, for maintainers
after a change that moves the numbers. The docs test (tests/test_docs.c)
then checks the pages against the programs on every `make test`.

    python3 scripts/docs_regen.py [PAGE ...]

A line "..." in a block stands for lines the page leaves out; the lines
around it are refreshed from the output lines of the same shape (the same
words, numbers aside). `make demo` runs build/demo_order; other make
commands are left alone, as the docs test leaves them. Read the diff
before committing: a changed conclusion needs new prose, not just numbers.
"""
import glob
import os
import re
import subprocess
import sys

NUM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[,;:)\]%]*$")


def shape(line):
    return [("#" if NUM.match(t) else t) for t in re.split(r"[ \t,]+", line.strip()) if t]


def run(cmd):
    if cmd == "make demo":
        cmd = "build/demo_order"
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"'{cmd}' exited with {out.returncode}: {out.stderr.strip()}")
    return [l.rstrip() for l in out.stdout.rstrip("\n").split("\n")] if out.stdout else []


def refresh(want, got):
    if "..." not in want:
        return got
    new, j = [], 0
    for line in want:
        if line == "...":
            new.append(line)
            continue
        k = j
        while k < len(got) and shape(got[k]) != shape(line):
            k += 1
        if k == len(got):
            new.append(line)  # left for a human: the docs test will say so
            continue
        new.append(got[k])
        j = k + 1
    return new


def regen(page):
    lines = open(page).read().split("\n")
    out, i, changed = [], 0, 0
    in_console = False
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not in_console:
            in_console = line == "```console"
            continue
        if line.startswith("```"):
            in_console = False
            continue
        if not line.startswith("$ "):
            continue
        cmd = line[2:]
        j = i
        while j < len(lines) and not lines[j].startswith("$ ") and not lines[j].startswith("```"):
            j += 1
        want = lines[i:j]
        if cmd.startswith("make") and cmd != "make demo":
            out.extend(want)
        else:
            got = refresh(want, run(cmd))
            changed += got != want
            out.extend(got)
        i = j
    open(page, "w").write("\n".join(out))
    print(f"{page}: {changed} command outputs changed")


if __name__ == "__main__":
    # the kernels and threads the docs test uses (see the Makefile's BLAS_ENV)
    os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    for page in sys.argv[1:] or ["README.md"] + sorted(glob.glob("docs/*.md")):
        regen(page)
