"""What scripts/bench_referee.py reads (the cells, the page, the chance floors), how it
records a difference, and its checks of the cells, the CSV files and the numbers in the page's
text. Standard library only."""
import decimal
import fractions
import math
import os
import re

from bench_referee_stats import U_EXACT_ALL, hl_k

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rules as the page states them: learned at N, solved, the ceiling, the floor above chance,
# alpha, the fewest units a signed-rank test can reject with, and the earlier protocol's M.
LEARNED, SOLVED, CEILING, FLOOR_ABOVE, ALPHA = 0.90, 0.95, 0.99, 0.05, 0.05
MIN_UNITS, EARLIER_M = 6, 25
# Delétang et al.'s levels (their Table 1); a task not here takes chance.csv's.
LEVELS = {t: "regular" for t in "even_pairs modular_arithmetic parity_check cycle_navigation".split()}
LEVELS.update({t: "deterministic context-free" for t in
               "stack_manipulation reverse_string modular_arithmetic_brackets solve_equation".split()})
LEVELS.update({t: "context-sensitive" for t in (
    "duplicate_string missing_duplicate_string odds_first binary_addition binary_multiplication "
    "compute_sqrt bucket_sort").split()})
LEVEL_ORDER = ["regular", "deterministic context-free", "context-sensitive"]
SHORT = dict(zip(LEVEL_ORDER, ["regular", "dcf", "cs"]))  # the CSV files' names of the levels


class Usage(Exception):
    pass


def half_at(fmt, x):
    """Whether x, exactly as its binary value, is half a unit of the last digit fmt prints
    ("%.3f", "%+.1f", "%#.2g", "%.1e": a % format of one conversion)."""
    m = re.fullmatch(r"%[+#]*(?:\.(\d+))?([efg])", fmt)
    if m is None:
        raise ValueError(f"not a number's format: {fmt!r}")
    if not math.isfinite(x) or x == 0:
        return False
    prec = int(m.group(1)) if m.group(1) else 6
    top = decimal.Decimal(x).adjusted()  # the exponent of x's first digit, before rounding
    place = {"f": prec, "e": prec - top, "g": max(prec, 1) - 1 - top}[m.group(2)]
    twice = 2 * fractions.Fraction(x) * fractions.Fraction(10) ** place
    return twice.denominator == 1 and twice.numerator % 2 == 1


def printed(fmt, x):
    """x as the page and its CSV files print every number, as the page's last section says: with
    the % format fmt, on x's exact binary value, a half of the last digit printed rounded away
    from zero (up, for the shares) where Python's % and C's printf round it to even: the next
    double away from zero is past the half and short of anything else, so % rounds it away."""
    if half_at(fmt, x):
        x = math.nextafter(x, math.copysign(math.inf, x))
    return fmt % x


def six(x):
    """x as the CSV files give it: to the sixth decimal (printed)."""
    return printed("%.6f", x)


# ---- the cells ----

def checksum(data):
    h = 1469598103934665603  # docs/formats.md, "The checksum"
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def read_cell(path):
    try:
        data = open(path, "rb").read().replace(b"\r\n", b"\n")
        text = data.decode("utf-8")
    except (OSError, UnicodeError) as e:
        raise Usage(f"{path}: cannot read it ({e})")
    lines = text.split("\n")
    if lines[0] != "posenc cell 4" or lines[-2:] != ["end", ""]:
        raise Usage(f"{path}: not a posenc cell 4 record ending in 'end'")
    at = text.rfind("\nchecksum ") + 1
    if at <= 0 or "%016x" % checksum(data[:at]) != text[at:].split("\n")[0][9:]:
        raise Usage(f"{path}: its checksum does not match its bytes: a damaged cell")
    f = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in lines[1:-2] if " " in ln}
    try:
        main = re.fullmatch(r"main value (\S+) exact (\S+)", f["result"])
        acc, ex = [float(v) for v in f["per_len"].split()], [float(v) for v in f["exact_len"].split()]
        rec = {"task": f["task"], "name": f["name"], "seed": int(f["seed"]), "id": f["id"],
               "settings": f["settings"], "value": float(main.group(1)),
               "exact": float(main.group(2)), "acc": acc[2:], "ex": ex[2:]}
        # one result, main; per_len and exact_len: their count, then lengths 0..M, 0 not tested
        ok = (f["kind"] == "bench" and f["results"] == "1" and acc[0] == len(acc) - 1
              and ex[0] == len(ex) - 1 and math.isnan(acc[1]) and math.isnan(ex[1]))
    except (KeyError, AttributeError, ValueError, IndexError):
        ok = False
    if not ok or os.path.basename(path) != rec["id"] + ".cell":
        raise Usage(f"{path}: not a benchmark cell this reader can read (fields, counts or id)")
    return rec


class Grid:
    """The cells: per (task, column) the seeds' accuracies by input length."""

    def __init__(self, folder):
        if not os.path.isdir(folder):
            raise Usage(f"{folder}: no such folder of cells")
        names = sorted(n for n in os.listdir(folder) if n.endswith(".cell"))
        if not names:
            raise Usage(f"{folder}: no .cell files")
        self.cells = [read_cell(os.path.join(folder, n)) for n in names]
        # a plain column never reads the range of the random positions, and
        # its cells' settings do not name it (docs/formats.md): the grid's
        # settings are the randomized columns', the plain ones the same less
        # the range
        ranged = {c["settings"] for c in self.cells if c["name"].startswith("random ")}
        if len(ranged) != 1:
            raise Usage(f"{folder}: randomized cells of {len(ranged)} different settings")
        self.settings_line = ranged.pop()
        plain = re.sub(r" random_range=\d+", "", self.settings_line, count=1)
        for c in self.cells:
            if c["settings"] != (self.settings_line if c["name"].startswith("random ") else plain):
                raise Usage(f"{c['id']}: settings other than its grid's ({c['settings']})")
        self.set = dict(kv.split("=", 1) for kv in self.settings_line.split()[1:] if "=" in kv)
        self.N, self.M = int(self.set["N"]), int(self.set["M"])
        if "/" in self.set["lr"]:
            raise Usage("a sweep of learning rates: this reader reads one rate")
        self.runs = {}
        for c in self.cells:
            if len(c["acc"]) != self.M:
                raise Usage(f"{c['id']}: {len(c['acc'])} lengths where M = {self.M}")
            self.runs.setdefault((c["task"], c["name"]), []).append(c)
        self.tasks = sorted({t for t, _ in self.runs})
        self.columns = sorted({c for _, c in self.runs})
        for k, v in self.runs.items():
            v.sort(key=lambda c: c["seed"])
        seeds = {tuple(c["seed"] for c in v) for v in self.runs.values()}
        if len(self.runs) != len(self.tasks) * len(self.columns) or len(seeds) != 1:
            raise Usage(f"{folder}: not a whole grid (every task x column x the same seeds): "
                        + not_whole(self.cells))
        self.S = len(seeds.pop())
        self.memo = {}

    def seeds(self, task, col, lo, hi, exact=False):
        """Each seed's mean over the lengths lo..hi (kept: a judge of many pages asks again)."""
        at = (task, col, lo, hi, exact)
        if at not in self.memo:
            key = "ex" if exact else "acc"
            self.memo[at] = [sum(c[key][lo - 1:hi]) / (hi - lo + 1) for c in self.runs[(task, col)]]
        return list(self.memo[at])

    def mean(self, task, col, lo, hi, exact=False):
        v = self.seeds(task, col, lo, hi, exact)
        return sum(v) / len(v)


def not_whole(cells, first=5):
    """What keeps cells from a whole grid, by id: the grid is the tasks, columns and seeds that
    most of the others have (a task in half the columns or more, a column in half the tasks or
    more, a seed in half the task-columns or more); a cell outside it is extra, a cell of it not
    there is missing (its id as its siblings' are made). Of many, the count and the first few."""
    tasks = sorted({c["task"] for c in cells})
    cols = sorted({c["name"] for c in cells})
    have = {(c["task"], c["name"], c["seed"]): c["id"] for c in cells}
    pairs = {(t, n) for t, n, _ in have}
    tasks_in = [t for t in tasks if 2 * sum((t, n) in pairs for n in cols) >= len(cols)]
    cols_in = [n for n in cols if 2 * sum((t, n) in pairs for t in tasks) >= len(tasks)]
    runs = [(t, n) for t in tasks_in for n in cols_in if (t, n) in pairs]
    seeds_in = sorted({s for *_, s in have if 2 * sum((t, n, s) in have for t, n in runs) >= len(runs)})
    extra = sorted(i for (t, n, s), i in have.items() if t not in tasks_in or n not in cols_in
                   or s not in seeds_in)
    # a missing cell's id: its task's and seed's place in a sibling's id of the same column
    slug = {}
    for (t, n, s), i in sorted(have.items()):
        head, tail = "bench-" + t + "-", "-s%d" % s
        if i.startswith(head) and i.endswith(tail):
            slug.setdefault(n, i[len(head):len(i) - len(tail)])
    missing = [f"bench-{t}-{slug[n]}-s{s}" if n in slug else f"{t}, {n}, seed {s}"
               for t in tasks_in for n in cols_in for s in seeds_in if (t, n, s) not in have]

    def listed(what, ids):
        if not ids:
            return f"no cell {what}"
        few = ", ".join(ids[:first])
        return (f"{len(ids)} cell{'' if len(ids) == 1 else 's'} {what}: {few}"
                + (f" and {len(ids) - first} more" if len(ids) > first else ""))
    return (f"{listed('missing', missing)}; {listed('extra', extra)} (the grid: {len(tasks_in)} tasks x "
            f"{len(cols_in)} columns x seeds {', '.join(map(str, seeds_in))})")


def sd(v):
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0


class Page:
    """The page's text, and its tables by section: (section, header, rows)."""

    def __init__(self, text):
        self.text = text
        lines, section, i, self.tables = self.text.split("\n"), "", 0, []
        while i < len(lines):
            if lines[i].startswith("## "):
                section = lines[i][3:]
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            if j > i:
                rows = [[c.strip() for c in ln.strip()[1:-1].split("|")] for ln in lines[i:j]]
                rows = [r for r in rows if not all(re.fullmatch(r":?-{3,}:?", c) for c in r)]
                self.tables.append((section, rows[0], rows[1:]))
            i = max(j, i + 1)

    @staticmethod
    def read(path):
        try:
            return open(path, encoding="utf-8").read()
        except (OSError, UnicodeError) as e:
            raise Usage(f"{path}: cannot read the page ({e})")

    def table(self, section, nth=0, head=None):
        found = [t for t in self.tables if t[0].startswith(section) and
                 (head is None or " | ".join(t[1]).startswith(head))]
        return found[nth] if nth < len(found) else None


class Referee:
    """What was checked, by part of the page, and every difference found."""

    def __init__(self):
        self.counts, self.diffs = {}, []

    def tally(self, part, n=1):
        self.counts[part] = self.counts.get(part, 0) + n

    def differs(self, part, where, shown, expected):
        self.diffs.append(f"{part}, {where}: shown {shown!r}, recomputed {expected!r}")

    def same(self, part, where, shown, expected, n=1):
        self.tally(part, n)
        if shown != expected:
            self.differs(part, where, shown, expected)

    def num(self, part, where, shown, value, fmt):
        """shown against value printed with fmt (a % format or a function)."""
        self.tally(part)
        f = fmt if callable(fmt) else (lambda x: printed(fmt, x))
        if value is None or math.isnan(value):
            ok, expected = shown == "n/a", "n/a"
        else:
            e = 1e-9 * abs(value)
            expected = f(value)
            # a value exactly on a rounding boundary (a half of its last digit, exact in binary: a
            # sum of shares over a power of two) prints one way alone, rounded away from zero
            exact = not callable(fmt) and half_at(fmt, value)
            ok = shown == expected if exact else shown in (expected, f(value + e), f(value - e))
        if not ok:
            self.differs(part, where, shown, expected)


def say(ref, page, part, pattern, *expected):
    """A sentence of the page (a regular expression) and the numbers in it."""
    m = re.search(pattern, page.text)
    if m is None:
        ref.tally(part)
        ref.diffs.append(f"{part}: no sentence matching {pattern!r} on the page")
        return None
    for k, e in enumerate(expected, 1):
        if e is not None:
            ref.same(part, f"'{m.group(0)[:50]}...' value {k}", m.group(k), str(e))
    return m


def cell(text):
    """'**97.6** ± 3.2' as (bold, '97.6', '3.2')."""
    m = re.fullmatch(r"(\*\*)?([^*±\s]+)(?:\*\*)?(?: ± (\S+))?", text)
    return (bool(m.group(1)), m.group(2), m.group(3)) if m else (False, text, None)


def rows_named(ref, part, shown, want):
    """A table's rows (their keys) against the rows expected: each one missing, extra or out of
    place named."""
    ref.tally(part)
    missing = [k for k in want if k not in shown]
    extra = [k for k in shown if k not in want]
    for k in missing:
        ref.diffs.append(f"{part}: missing row: {k}")
    for k in extra:
        ref.diffs.append(f"{part}: extra row: {k}")
    if not missing and not extra and list(shown) != list(want):
        ref.diffs.append(f"{part}: the rows out of order: shown {list(shown)}, expected {list(want)}")


def rows_of(ref, part, table, tasks, average=False):
    """The task rows of a table (the average row apart, which it must have when average),
    checking its rows are the tasks in order."""
    if table is None:
        ref.tally(part)
        ref.diffs.append(f"{part}: the table is not on the page")
        return [], None
    body = [r for r in table[2] if "**average**" not in r]
    average_row = next((r for r in table[2] if "**average**" in r), None)
    rows_named(ref, part, [r[1] if "**average**" not in r else "average" for r in table[2]],
               list(tasks) + (["average"] if average else []))
    return body, average_row


class Reading:
    """The grid, the chance floors and the page; the checks of the cells, the CSVs and the text."""

    def __init__(self, grid, page, csv_dir, ref):
        self.g, self.p, self.csv, self.ref = grid, page, csv_dir, ref
        self.N, self.M, self.S = grid.N, grid.M, grid.S
        head = page.table("Table 1")
        self.cols = head[1][2:] if head else grid.columns
        self.ref.same("columns", "the columns", sorted(self.cols), grid.columns)
        self.cols = [c for c in self.cols if c in grid.columns]
        # the tasks in the page's order: Delétang et al.'s levels as LEVELS lists them, then any
        # other in Table 1's order (or by name); a row missing from Table 1 is named, not followed
        shown = [r[1] for r in (head[2] if head else []) if r[1] in grid.tasks]
        known = [t for t in LEVELS if t in grid.tasks]
        other = [t for t in shown if t not in LEVELS] + sorted(t for t in grid.tasks
                                                               if t not in LEVELS and t not in shown)
        self.tasks = known + other
        self.pairs = [(c, "random " + c) for c in self.cols if "random " + c in self.cols]
        self.read_chance()

    # -- chance.csv: each task's commonest answer and its count a length --
    def read_chance(self):
        path = os.path.join(self.csv, "chance.csv")
        try:
            rows = [ln.split(",") for ln in open(path, encoding="utf-8").read().split("\n")[1:] if ln]
        except OSError as e:
            raise Usage(f"{path}: cannot read the chance floors ({e})")
        self.chance, self.level = {}, {}
        try:
            rows = [(t, lv, a, int(n), int(b), s, round(float(s) * int(b))) for t, lv, a, n, b, s in rows]
        except ValueError:
            raise Usage(f"{path}: not task,level,answer,length,blanks,share rows")
        for task, level, answer, length, n, share, count in rows:
            c = self.chance.setdefault(task, {"answer": answer, "at": {}})
            self.ref.same("chance.csv", f"{task} at {length}, its share as count/blanks",
                          share, six(count / n))
            self.ref.same("chance.csv", f"{task} at {length}, one answer a task", answer, c["answer"])
            c["at"][length] = (count, n)
            long = {v: k for k, v in SHORT.items()}.get(level, level)
            self.level[task] = LEVELS.get(task, long)
            self.ref.same("chance.csv", f"{task}'s level", level, SHORT.get(self.level[task]))
        for t in self.g.tasks:
            got = sorted(self.chance.get(t, {"at": {}})["at"])
            self.ref.same("chance.csv", f"{t}'s lengths", got, list(range(self.N + 1, self.M + 1)))
            if got != list(range(self.N + 1, self.M + 1)):
                raise Usage(f"{path}: {t} lacks the test lengths {self.N + 1}..{self.M}")

    def floor(self, task, lo, hi):
        at = self.chance[task]["at"]
        return sum(at[n][0] / at[n][1] for n in range(lo, hi + 1)) / (hi - lo + 1)

    def one_answer(self):
        k = self.g.set.get("per_len")
        return [t for t in self.tasks if all(b == int(k) * self.S
                                             for _, b in self.chance[t]["at"].values())]

    # -- the cells themselves and the CSV files made from them --
    def cells(self, folder):
        g, part = self.g, "cells"
        for c in g.cells:
            span = self.M - self.N
            self.ref.same(part, f"{c['id']}: value = mean of per_len N+1..M",
                          c["value"], sum(c["acc"][self.N:]) / span)
            self.ref.same(part, f"{c['id']}: exact = mean of exact_len N+1..M",
                          c["exact"], sum(c["ex"][self.N:]) / span)
            self.ref.same(part, f"{c['id']}: accuracies within 0..1", True,
                          all(0 <= v <= 1 for v in c["acc"] + c["ex"]))
        grid = os.path.join(folder, "grid.settings")
        if os.path.exists(grid):
            lines = open(grid, encoding="utf-8").read().split("\n")
            self.ref.same(part, "grid.settings", lines[1] if len(lines) > 1 else "",
                          "settings " + g.settings_line)

    def csvs(self):
        g, lr = self.g, "%g" % float(self.g.set["lr"])
        for name, header in (("scores.csv", "task,level,scheme,lr,seed,train_accuracy,test_accuracy,"
                              "test_exact_match"),
                             ("lengths.csv", "task,level,scheme,lr,seed,length,accuracy,exact_match")):
            path = os.path.join(self.csv, name)
            try:
                lines = open(path, encoding="utf-8").read().split("\n")
            except OSError as e:
                raise Usage(f"{path}: cannot read it ({e})")
            self.ref.same(name, "its header", lines[0], header)
            shown = {tuple(ln.split(",")[:5] + (ln.split(",")[5:6] if name == "lengths.csv" else [])):
                     ln for ln in lines[1:] if ln}
            want = {}
            for c in g.cells:
                key = [c["task"], SHORT.get(self.level.get(c["task"]), "?"), c["name"], lr, str(c["seed"])]
                if name == "scores.csv":
                    train = sum(c["acc"][:self.N]) / self.N
                    want[tuple(key)] = ",".join(key + [six(v) for v in
                                                       (train, c["value"], c["exact"])])
                else:
                    for n in range(1, self.M + 1):
                        k = key + [str(n)]
                        want[tuple(k)] = ",".join(k + [six(c["acc"][n - 1]),
                                                       six(c["ex"][n - 1])])
            self.ref.same(name, "its rows (one a cell" + (" and length)" if name == "lengths.csv"
                                                            else ")"), len(shown), len(want))
            for k, line in want.items():
                self.ref.same(name, ",".join(k), shown.get(k), line, n=3 if name == "scores.csv" else 2)

    def pilots(self):
        path, t = os.path.join(self.csv, "pilots.csv"), self.p.table("The recipe")
        if not os.path.exists(path):
            return say(self.ref, self.p, "pilots.csv", r"(No recipe pilots are kept)", "No recipe pilots are kept")
        rows = [ln.split(",") for ln in open(path, encoding="utf-8").read().split("\n") if ln]
        self.ref.same("pilots.csv", "the recipe's table", [t[1]] + t[2] if t else None, rows)
        if t:
            rows_named(self.ref, "the recipe's table", [" | ".join(x) for x in t[2]], [" | ".join(x) for x in rows[1:]])
        # what the page says the pilots show: on reverse_string, the standard recipe is the cheapest
        # tried (fewest steps of a model no larger) under which the three columns learn at N;
        # random learned learns under none; random alibi was not tried at it
        s, g, part = self.g.set, self.g, "the recipe"
        head, body = rows[0], [dict(zip(rows[0], x)) for x in rows[1:]]
        key = lambda x: tuple(x[k] for k in ("layers", "d_model", "heads", "d_ff", "steps", "lr", "dropout"))
        rev = [x for x in body if x["task"] == "reverse_string"]
        three = ("random rope", "random sinusoidal", "random xl")
        learns = lambda k: all(any(key(x) == k and x["column"] == c and float(x["acc_at_N"]) >= LEARNED
                                   for x in rev) for c in three)
        ours = (s["layers"], s["d_model"], s["heads"], s["d_ff"], s["steps"], "%g" % float(s["lr"]),
                "%g" % float(s["dropout"]))
        norm = lambda k: k[:5] + ("%g" % float(k[5]), "%g" % float(k[6]))
        size = lambda k: (int(k[0]) * int(k[1]) * int(k[3]), int(k[4]))
        recipes = {norm(key(x)) for x in rev}
        self.ref.same(part, "the three learn reverse_string under the standard recipe",
                      learns(next((key(x) for x in rev if norm(key(x)) == ours), None)), True)
        cheaper = [k for k in recipes if k != ours and size(k)[0] <= size(ours)[0] and size(k)[1] <= size(ours)[1]
                   and learns(next(key(x) for x in rev if norm(key(x)) == k))]
        self.ref.same(part, "no cheaper recipe tried under which the three learn", cheaper, [])
        self.ref.same(part, "random learned learns reverse_string under no recipe tried",
                      [key(x) for x in rev if x["column"] == "random learned" and float(x["acc_at_N"]) >= LEARNED], [])
        self.ref.same(part, "random alibi not tried at the standard recipe",
                      [x for x in rev if x["column"] == "random alibi" and norm(key(x)) == ours], [])
        learned = sum(g.mean(task, c, self.N, self.N) >= LEARNED for task in self.tasks for c in self.cols)
        say(self.ref, self.p, part, r"The standard run's recipe, the paper's model at (\d+) steps, the rate (\S+) and "
            r"dropout (\S+) \(.*? Under it, (\d+) of this run's (\d+) task-columns learn the training lengths \(a "
            r"mean over seeds of ([\d.]+) or more at length (\d+)\)\.", s["steps"], s["lr"], s["dropout"], learned,
            len(self.tasks) * len(self.cols), printed("%.2f", LEARNED), self.N)

    # -- the numbers in the text --
    def prose(self, n_cells):
        g, p, r, N, M, S = self.g, self.p, self.ref, self.N, self.M, self.S
        T, C, lo = len(self.tasks), len(self.cols), N + 1
        s = g.set
        say(r, p, "text: head", r"(\d+) of the algorithmic tasks", T)
        say(r, p, "text: head", r", (\d+) seeds\. Each model trains on inputs of 1\.\.(\d+) words and is "
            r"tested at every length to (\d+): M/N = ([\d.]+),", S, N, M, printed("%.1f", M / N))
        say(r, p, "text: protocol", r"It trains on inputs of 1\.\.(\d+) words, .*? tested at every input "
            r"length 1\.\.(\d+), (\d+) fresh tapes a length; .*? averaged over the lengths (\d+)\.\.(\d+),",
            N, M, s["per_len"], lo, M)
        say(r, p, "text: protocol", r"\| dropout \|[^|]*\| (\S+) in training", printed("%.2g", float(s["dropout"])))
        say(r, p, "text: protocol", r"\| training lengths N, test lengths to M \|[^|]*\| (\d+) and (\d+) "
            r"\(M/N = ([\d.]+),", N, M, printed("%.1f", M / N))
        say(r, p, "text: protocol", r"\| random positions from \|[^|]*\| 0\.\.(\d+) ",
            int(s["random_range"]) - 1)
        say(r, p, "text: protocol", r"\| model \|[^|]*\| encoder, (\d+) layers?, width (\d+), (\d+) heads, "
            r"d_ff (\d+),", s["layers"], s["d_model"], s["heads"], s["d_ff"])
        say(r, p, "text: protocol", r"\| training \|[^|]*\| batch (\d+), lr ([^,]+), (\d+) steps",
            s["batch"], "%g" % float(s["lr"]), s["steps"])
        say(r, p, "text: protocol", r"\| test tapes per length \|[^|]*\| (\d+), in batches of (\d+),",
            s["per_len"], s["test_batch"])
        say(r, p, "text: protocol", r"\| the score's lengths \|[^|]*\| N\+1\.\.M \((\d+)\.\.(\d+); the "
            r"reference's range would be (\d+)\.\.(\d+)\)", lo, M, N + 2, M)
        say(r, p, "text: protocol", r"\| a cell of Table 1 \|[^|]*\| the best of (\d+) seeds", S)
        ref_forms = s.get("reference", "0") == "1"
        for row, mark in (("first draws", "`--first-draws reference`"), ("model", "`--no-out-bias`"),
                          ("the loss", "`--pad-loss`"), ("randomized relative, the code's indexing",
                                                         "`--xl-rows clamped`")):
            m = re.search(r"\n\| " + re.escape(row) + r" \|[^\n]*", p.text)
            r.same("text: protocol", f"the '{row}' row names {mark} (reference={int(ref_forms)})",
                   bool(m and mark in m.group(0)), ref_forms)
        say(r, p, "text: protocol", r"`--random-positions (\d+) --random-draw ruoss`", s["random_range"])
        say(r, p, "text: protocol", r"The grid is (\d+) tasks x (\d+) columns x (\d+) seeds = (\d+) cells",
            T, C, S, n_cells)
        say(r, p, "text: tables", r"averaged over the test lengths (\d+)\.\.(\d+), of the best seed "
            r"\(of (\d+) seeds", lo, M, S)
        say(r, p, "text: tables", r"as the mean over the (\d+) seeds ± their standard deviation", S)
        m = say(r, p, "text: tables", r"Exact match \(%\), [^\n]*?, on (\d+)\.\.(\d+)(?:\. On the tasks "
                r"with one answer \(([^)]*)\))?", lo, M)
        one = re.split(r", | and ", m.group(3)) if m and m.group(3) else []
        r.same("text: tables", "the tasks with one answer (one blank a tape in chance.csv)",
               one, self.one_answer())
        for t in one:
            r.same("text: tables", f"{t}: exact match = accuracy in every cell", True,
                   all(c["acc"] == c["ex"] for col in self.cols for c in g.runs[(t, col)]))
        say(r, p, "text: tables", r"at the longest training length, (\d+) \(mean over seeds\)", N)
        say(r, p, "text: tables", r"On all the training lengths 1\.\.(\d+) \(mean over seeds\)", N)
        say(r, p, "text: chance", r"\((\d+) a length for each of the (\d+) seeds, at every length "
            r"(\d+)\.\.(\d+),", s["per_len"], S, lo, M)
        say(r, p, "text: lengths", r"averaged over the (\d+) tasks: a line per column", T)
        # the rules: what S seeds against S allow
        k, cover = hl_k(S, S)
        say(r, p, "text: rules", r"The seeds are the units: (\d+) models a configuration", S)
        # the U test's method as it runs with S seeds a side, and "learned" in the pages' one wording
        say(r, p, "text: rules", r"Mann-Whitney U test on their seeds \((.*?)\), for a difference",
            "exact" if 2 * S <= U_EXACT_ALL else "the normal approximation with the tie correction: the test is "
            f"exact only up to {U_EXACT_ALL // 2} seeds a side")
        say(r, p, "text: rules", r"when either did not learn those \(a mean over seeds of ([\d.]+) or more at "
            r"length (\d+), the longest trained\)\.", printed("%.2f", LEARNED), N)
        say(r, p, "text: rules", r"distribution-free interval \(([\d.]+)% with (\d+) seeds against (\d+)\)",
            printed("%.1f", 100 * cover), S, S)
        two = 2 / math.comb(2 * S, S)
        m = re.search(r"With (\d+) seeds against (\d+), the smallest p the U test can give is ([\d.]+) "
                      r"\(2/C\((\d+), (\d+)\)\)( and the equivalence test's is half of it)?", p.text)
        r.same("text: rules", "the sentence on too few seeds is there", bool(m), two >= ALPHA)
        if m and two >= ALPHA:
            for k, e in enumerate((S, S, printed("%.3f", two), 2 * S, S), 1):
                r.same("text: rules", f"too few seeds, value {k}", m.group(k), str(e))
            r.same("text: rules", "the equivalence test's smallest p is named", bool(m.group(6)),
                   two / 2 >= ALPHA)
