"""The section "sparser positions" of docs/benchmark.md, checked (bench_referee.py's part).

The page sets this grid's randomized columns beside the same grid with its
random positions from a wider range, whose cells are kept in a folder of
their own (docs/benchmark/range2048 for the standard grid). Here: that the
folder is this grid at another range (its randomized cells' settings are
ours but for random_range, its plain cells' settings are ours), that the
section is on the page exactly when the folder is read, and every number
of its sentences and tables, on the seeds both grids ran.
"""
import re

from bench_referee_read import LEARNED, printed, rows_named, say


def settings_less_range(line):
    return re.sub(r" random_range=\d+", "", line, count=1)


def check(bench, w, folder):
    """w: the companion folder's Grid (read once by the caller), or None."""
    r, p, part = bench.ref, bench.p, "sparser positions"
    shown = "\n## Sparser positions" in p.text
    if w is None:
        return r.same(part, "no companion folder, no section", shown, False)
    g, N, M = bench.g, bench.N, bench.M
    ours_range, wide_range = int(g.set["random_range"]), int(w.set["random_range"])
    r.same(part, "the folder's grid is ours at another range",
           (settings_less_range(w.settings_line), wide_range != ours_range),
           (settings_less_range(g.settings_line), True))
    r.same(part, "the folder holds our tasks and columns", (w.tasks, w.columns), (g.tasks, g.columns))
    if not shown:
        return r.same(part, "the section is on the page", False, True)
    k = min(w.S, g.S)
    wide, ours = f"0..{wide_range - 1}", f"0..{ours_range - 1}"
    cols = [c for c in bench.cols if c.startswith("random ")]
    T = len(bench.tasks)

    def seen(grid, task, col):
        runs = grid.runs[(task, col)][:k]
        at_N = sum(sum(c["acc"][N - 1:N]) for c in runs) / len(runs)
        past = sum(sum(c["acc"][N:M]) / (M - N) for c in runs) / len(runs)
        return at_N >= LEARNED, past

    say(r, p, part, r"## Sparser positions: the same grid at (\S+)\n", wide)
    ratio = wide_range / ours_range
    say(r, p, part, r"This grid draws its random positions from (\S+); the same grid with them from (\S+), "
        r"(\S+) times as wide \(a training tape's positions (\S+) times further apart\), is kept as data "
        r"\(`([^`]+)`, (\d+) seeds\)", ours, wide, printed("%g", ratio), printed("%g", ratio), None, w.S)
    say(r, p, part, r"Side by side on the seeds both ran \(1\.\.(\d+)\): per column, the tasks whose training "
        r"lengths it learned \(a mean over those seeds of ([\d.]+) or more at length (\d+)\), its mean on "
        r"(\d+)\.\.(\d+) averaged over the (\d+) tasks, and the tasks on which it scores higher at (\S+):", k,
        printed("%.2f", LEARNED), N, N + 1, M, T, ours)
    t = p.table("Sparser positions", 0, "column")
    if t is None:
        return r.same(part, "its table by column", None, "on the page")
    r.same(part, "by column: the header", t[1],
           ["column", f"learned at N, {wide}", f"learned at N, {ours}", f"{N + 1}..{M}, {wide} (%)",
            f"{N + 1}..{M}, {ours} (%)", f"tasks higher at {ours}"])
    rows_named(r, part + ", by column", [row[0] for row in t[2]], cols)
    total = {"lw": 0, "lo": 0, "pw": 0.0, "po": 0.0, "h": 0}
    for row, col in zip(t[2], cols):
        s = [(seen(w, task, col), seen(g, task, col)) for task in bench.tasks]
        lw, lo = sum(a[0] for a, _ in s), sum(b[0] for _, b in s)
        pw, po = sum(a[1] for a, _ in s), sum(b[1] for _, b in s)
        h = sum(b[1] > a[1] for a, b in s)
        r.same(part, f"{col}: learned at N and tasks higher", [row[1], row[2], row[5]], [str(lw), str(lo), str(h)])
        r.num(part, f"{col}: mean at {wide}", row[3], 100 * pw / T, "%.1f")
        r.num(part, f"{col}: mean at {ours}", row[4], 100 * po / T, "%.1f")
        total = {"lw": total["lw"] + lw, "lo": total["lo"] + lo, "pw": total["pw"] + pw,
                 "po": total["po"] + po, "h": total["h"] + h}
    cells = T * len(cols)
    m = say(r, p, part, r"Over the (\d+) randomized task-columns, (\d+) learned the training lengths at (\S+) "
            r"and (\d+) at (\S+); their mean on (\d+)\.\.(\d+) is (\S+)% at (\S+) and (\S+)% at (\S+), higher at "
            r"(\S+) in (\d+) of the (\d+)\. Task by task, over the (\d+) randomized columns",
            cells, total["lw"], wide, total["lo"], ours, N + 1, M, None, wide, None, ours, ours, total["h"],
            cells, len(cols))
    if m:
        r.num(part, "the mean over every task-column at the wider range", m.group(8), 100 * total["pw"] / cells,
              "%.1f")
        r.num(part, "the mean over every task-column at ours", m.group(10), 100 * total["po"] / cells, "%.1f")
    t = p.table("Sparser positions", 0, "task")
    if t is None:
        return r.same(part, "its table by task", None, "on the page")
    C = len(cols)
    r.same(part, "by task: the header", t[1],
           ["task", f"learned at N, of {C}, {wide}", f"learned at N, of {C}, {ours}", f"{N + 1}..{M}, {wide} (%)",
            f"{N + 1}..{M}, {ours} (%)"])
    rows_named(r, part + ", by task", [row[0] for row in t[2]], bench.tasks)
    for row, task in zip(t[2], bench.tasks):
        s = [(seen(w, task, c), seen(g, task, c)) for c in cols]
        r.same(part, f"{task}: learned at N", [row[1], row[2]],
               [str(sum(a[0] for a, _ in s)), str(sum(b[0] for _, b in s))])
        r.num(part, f"{task}: mean at {wide}", row[3], 100 * sum(a[1] for a, _ in s) / C, "%.1f")
        r.num(part, f"{task}: mean at {ours}", row[4], 100 * sum(b[1] for _, b in s) / C, "%.1f")

