#!/usr/bin/env python3
"""Reruns every command the pages show in ```console blocks (README.md and
docs/*.md) and writes its real output into the page, for maintainers
after a change that moves the numbers. The docs test (tests/test_docs.c)
then checks the pages against the programs on every `make check`.

    python3 scripts/docs_regen.py [PAGE ...]

A line "..." in a block stands for lines the page leaves out; the lines
around it are refreshed from the output lines of the same shape (the same
words, numbers aside). `make demo` runs build/demo_order; other make
commands are left alone, as the docs test leaves them. The commands run
from the top of the repository and write to work/, as a reader's do
(docs/index.md), whatever folder a PAGE is named from; start from none
(`rm -rf work`), and give the pages in reading order, so that no page
reads a file an older run left. Read the diff before committing: a
changed conclusion needs new prose, not just numbers.

Numbers the prose quotes from a named block (`<!-- from #NAME: 0.9945@sinusoidal
-->` after the paragraph; tests/test_docs.c describes the markers) are
checked afterwards on every page: where a number no longer matches its
block and the block's line kept its shape, the number is rewritten to the
new value at the digits the prose shows (in the paragraph and the marker)
and listed; the rest are listed for a human to fix. `--check` only lists
them, running nothing.
"""
import glob
import os
import re
import subprocess
import sys

LABEL = re.compile(r"^<!-- block: (\S+) -->$")
DRAWN = re.compile(r"\]\((img/[^/)]+\.png)\)<!-- drawn: (work/\S+\.png) -->")
MARK = re.compile(r"^( {0,3})<!-- from ([^#]*)#([^:]+):(.*) -->$")
# a number as the docs test reads one (docs_as_number in tests/test_docs.c)
TOK = re.compile(r"^-?\d+(\.(\d*))?([eE]([-+]?\d+))?[,;:)\]%]*$")
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


def number(tok):
    """(value, one unit in the last digit shown), or None."""
    m = TOK.match(tok)
    if not m:
        return None
    body = tok.rstrip(",;:)]%")
    unit = 10.0 ** ((int(m.group(4)) if m.group(4) else 0) - len(m.group(2) or ""))
    return float(body), unit


def close(a, b):
    """Does the prose's number a quote the block's b (each (value, unit))? As
    docs_quotes in tests/test_docs_read.c: at the same digits only b itself
    (a unit off is another number); at other digits, within half a unit of
    each, both being rounded."""
    if abs(a[1] - b[1]) <= 1e-9 * a[1]:
        return abs(a[0] - b[0]) < 0.5 * a[1]
    return abs(a[0] - b[0]) <= 0.5 * (a[1] + b[1]) * (1 + 1e-9)


def blocks(pages):
    """{(page, name): output lines} of every named console block."""
    found = {}
    for page in pages:
        lines = open(page).read().split("\n")
        for i, line in enumerate(lines):
            m = LABEL.match(line)
            if m and i + 1 < len(lines) and lines[i + 1] == "```console":
                j = i + 2
                while j < len(lines) and not lines[j].startswith("```"):
                    j += 1
                found[(page, m.group(1))] = lines[i + 2:j]
    return found


def where(block, num, word):
    """(line, token) of each number in block that num rounds from."""
    want, hits = number(num), []
    for i, line in enumerate(block):
        if line.startswith("$ ") or (word and not set(word.split("@")) <= set(re.split(r"[ \t,|]+", line))):
            continue
        for k, t in enumerate(re.split(r"[ \t,]+", line.strip())):
            got = number(t.lstrip("([|"))
            if want and got and close(want, got):
                hits.append((i, k))
    return hits


def at_digits(value, like):
    """value written with the digits and form of the prose's number like."""
    body = like.rstrip(",;:)]%")
    m = TOK.match(body)
    decimals = len(m.group(2) or "")
    if not m.group(3):
        return f"{value:.{decimals}f}"
    mant, ex = f"{value:.{decimals}e}".split("e")
    sign = "-" if ex.startswith("-") else ("+" if "+" in m.group(4) else "")
    digits = ex.lstrip("+-")
    if not re.match(r"[-+]?0\d", m.group(4)):
        digits = digits.lstrip("0") or "0"
    return f"{mant}{m.group(3)[0]}{sign}{digits}"


def in_prose(line, num):
    """The span of num as a word of its own in line, or None."""
    for m in re.finditer(re.escape(num), line):
        a, b = m.start(), m.end()
        before = line[a - 1] if a else " "
        after = line[b] if b < len(line) else " "
        if before.isalnum() or before in "._" or (before == "-" and num[0] != "-"):
            continue
        if after.isalnum() or after == "_" or (after == "." and line[b + 1:b + 2].isdigit()):
            continue
        return a, b
    return None


def check_prose(pages, old, fix):
    """Checks every marker against the blocks; with fix, rewrites numbers
    whose block line kept its shape. Returns the number left wrong."""
    new, wrong = blocks(pages), 0
    for page in pages:
        lines = open(page).read().split("\n")
        changed = False
        for i, line in enumerate(lines):
            m = MARK.match(line)
            if not m:
                if re.match(r"^ {0,3}<!-- (from|block)", line) and not LABEL.match(line):
                    print(f"{page}:{i + 1}: malformed marker: {line}")
                    wrong += 1
                continue
            indent, where_to, name, listed = m.groups()
            ref = os.path.normpath(os.path.join(os.path.dirname(page), where_to)) if where_to else page
            key = (ref, name)
            if key not in new:
                print(f"{page}:{i + 1}: no console block '{name}' in {ref}")
                wrong += 1
                continue
            top = i
            while top > 0 and lines[top - 1] and not lines[top - 1].startswith("```"):
                top -= 1
            tokens = listed.split()
            for n, tok in enumerate(tokens):
                num, _, word = tok.partition("@")
                if where(new[key], num, word):
                    continue
                hits = where(old.get(key, []), num, word) if fix else []
                values = set()
                for li, ti in hits:
                    o, nw = old[key][li], new[key][li] if li < len(new[key]) else ""
                    if shape(o) == shape(nw):
                        values.add(number(re.split(r"[ \t,]+", nw.strip())[ti].lstrip("([|"))[0])
                rows = [k for k in range(top, i) if not lines[k].lstrip().startswith("<!--") and in_prose(lines[k], num)]
                if len(values) == 1 and rows:
                    value = at_digits(values.pop(), num)
                    a, b = in_prose(lines[rows[0]], num)
                    lines[rows[0]] = lines[rows[0]][:a] + value + lines[rows[0]][b:]
                    tokens[n] = value + (f"@{word}" if word else "")
                    print(f"{page}:{rows[0] + 1}: {num} -> {value} (from {ref}#{name}): read the sentence again")
                    changed = True
                else:
                    print(f"{page}:{i + 1}: {num}{' on a line with ' + word if word else ''} is not in {ref}#{name}: fix the prose by hand")
                    wrong += 1
            lines[i] = f"{indent}<!-- from {where_to}#{name}: {' '.join(tokens)} -->"
        if changed:
            open(page, "w").write("\n".join(lines))
    return wrong


def pictures(pages):
    """{work file: [docs/img files]} from the pictures' markers."""
    found = {}
    for page in pages:
        for m in DRAWN.finditer(open(page).read()):
            found.setdefault(m.group(2), []).append(os.path.join("docs", m.group(1)))
    return found


def copy_pictures(cmd, drawn):
    """Copies each page's picture cmd drew into docs/img, listing those that changed."""
    for work in sorted(set(re.findall(r"(?:^|[ (=])(work/[^ ;&|)'\"]+\.png)", cmd))):
        for img in sorted(set(drawn.get(work, []))):
            new = open(work, "rb").read()
            if not os.path.exists(img) or open(img, "rb").read() != new:
                open(img, "wb").write(new)
                print(f"{img}: drawn again by '{cmd}': look at it")


def regen(page, drawn):
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
            copy_pictures(cmd, drawn)
            changed += got != want
            out.extend(got)
        i = j
    open(page, "w").write("\n".join(out))
    return changed


def usage_error(prog, msg):
    """msg and a pointer to --help on stderr, and exit 2 (bad input), as
    the programs report a bad command line."""
    print(f"{prog}: {msg}\nTry 'python3 {sys.argv[0]} --help'.", file=sys.stderr)
    sys.exit(2)


def read_pages(prog, names):
    """[(name as given, its lines)] of each page, read before environment()
    moves to the top of the repository, so that a path given from another
    folder names the page it named there; each a readable UTF-8 file, or a
    usage error naming it (and nothing has run yet)."""
    pages = []
    for name in names:
        if os.path.isdir(name):
            usage_error(prog, f"{name} is a folder, not a page: give its pages, as "
                              f"{os.path.join(name, '*.md')}")
        try:
            with open(name, encoding="utf-8") as f:
                pages.append((name, f.read().split("\n")))
        except OSError as e:
            usage_error(prog, f"cannot read the page {name}: {e.strerror}; check the path "
                              "(README.md and docs/*.md are the pages)")
        except UnicodeDecodeError as e:
            usage_error(prog, f"{name} is not a page: its byte {e.start + 1} is not UTF-8 "
                              "text; give a Markdown page (README.md, docs/*.md)")
    return pages


def environment(threads=True):
    """The kernels and threads the docs test uses (see the Makefile's
    BLAS_ENV), from the top of the repository; without threads, the
    programs' own count, which follows the load, as a reader's does."""
    # the programs' own choice of kernels
    os.environ.pop("OPENBLAS_CORETYPE", None)
    if threads:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
        # the OpenMP build of OpenBLAS, and the model's loops, follow OpenMP's count
        os.environ.setdefault("OMP_NUM_THREADS", "2")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main():
    args = sys.argv[1:]
    if "-h" in args or "--help" in args:
        print(__doc__.strip())
        return 0
    names = [a for a in args if a != "--check"]
    for a in names:
        if a.startswith("-"):
            usage_error("docs_regen.py", f"unknown option '{a}': the options are --check and "
                                         "--help, the other arguments pages")
    read_pages("docs_regen.py", names)
    # each page by its absolute path: the commands run from the top
    pages = [(name, os.path.abspath(name)) for name in names]
    environment()
    every = ["README.md"] + sorted(glob.glob("docs/*.md"))
    old, drawn = blocks(every), pictures(every)
    if "--check" not in args:
        for name, path in pages or [(p, p) for p in every]:
            changed = regen(path, drawn)
            print(f"{name}: {changed} command outputs changed")
    wrong = check_prose(every, old, "--check" not in args)
    print(f"prose numbers: {wrong} left wrong" if wrong else "prose numbers: all match their blocks")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
