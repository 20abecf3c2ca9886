#!/usr/bin/env python3
"""A referee for docs/benchmark.md: every number on it recomputed from its cells.

    python3 scripts/bench_referee.py [--cells DIR] [--page FILE] [--csv DIR]

Reads the benchmark's cell files (docs/formats.md, "Cell files"), the
chance floors of benchmark/chance.csv (counted on the test tapes, which
the cells do not hold) and the page, and recomputes what the page shows
from the rules the page states in words: the tables (best seed, mean ±
SD over seeds, exact match, the accuracy at N and over 1..N, the chance
floors, each column's score on every range the page shows), claim 1's
tests by task and by pair at each gate (the signed-rank p, the bootstrap
interval redrawn as the page says, the verdict), the cost on the
training lengths, the pairs one by one (the gate, Hodges-Lehmann, the U
test, Holm, Cliff's delta, the verdict, the counts), claims 2 and 3, the
grid's and protocol's numbers in the text, and the CSV files (scores.csv
and lengths.csv digit for digit, chance.csv's shares as counts over
blanks, pilots.csv against the recipe's table). Each cell is checked
first: its checksum, and its value and exact match as the means of its
lengths N+1..M. Nothing depends on M, N, the columns or the tasks: all
are read from the cells and the page. Written apart from the C page
writer (src/experiments/page/), with the standard library only
(bench_referee_read.py reads, bench_referee_stats.py holds the
statistics). Prints how many numbers each part checked and every
difference; exits 0 when all agree, 1 on any difference, 2 on bad usage
(a missing folder, an unreadable or damaged cell, a grid that is not
every task x column x the same seeds at one learning rate).

Not recomputed: the figures; the longest test tape (the tasks' tape
formats are not in the cells; with duplicate_string among them it must be
its 3 x M, and the ratios to it are recomputed); the chance floors' counts
themselves (chance.csv is counted on the test tapes, which the cells do
not hold). The rules' constants, the paper's figures and the reference
code's settings, which the page states rather than computes, are this
reader's own, each named (bench_referee_rules.py): every paragraph that
states one has its list of numbers checked against them, so an edited
rule is a difference, as an edited number is; and every table's rows are
checked by name, a missing one named ("missing row: ..."). The bootstrap
draws with this reader's seed and resamples, not the page's.
tests/referee_edits.py makes its edits from the page (every number of
its prose and small tables one unit off, every row deleted) and checks
that the referee catches each (judge(), below, judges a page in memory
with the cells read once).

A printed number is compared at its printed digits: the value is printed
with the page's format (Python's % rounds as C's printf). A value within
1e-9 (relative) of a rounding boundary may print either way, since sums in
another order differ in their last bits; either is accepted.

Every rule is read from the page's words, the C sources not at all: the
rules paragraph, each table's and claim's own sentences, and the page's
last section, "How each number is computed" (its constants are checked
against the ones this reader uses). In particular:
- Bold: the best of each row and any value within 0.05 of it (claim 3's
  table: 0.0005), before rounding.
- Learned: a mean over seeds of 0.90 or more at length N (claim 1's gates
  put the gate in place of 0.90); a pair failing several of the pairs'
  rules is counted under the first: did not learn, the ceiling, the
  floor (the chance floor averaged over the test lengths, plus 0.05).
- The signed-rank test: |d| <= 1e-12 is a zero, dropped; an |d| within
  1e-9 (relative) of the first of its group, sorted, ties with it; exact
  up to 200 differences, else the normal approximation with the tie and
  continuity corrections. A gate with fewer than 6 tasks is not tested
  and moves no verdict.
- The U tests: exact up to 20 seeds in all, ties (within 1e-9 x the
  larger of 1 and their size) at mean ranks; past that the normal
  approximation with the tie correction and no continuity correction.
  The equivalence test is the larger p of the one-sided tests of a
  against b - margin (greater) and b + margin (less). Hodges-Lehmann:
  the k-th smallest and largest differences, k the largest with coverage
  above 95% (k = 1 when none is; past 20 seeds in all, k from the normal
  approximation with a continuity correction); Cliff's delta's words at
  0.147, 0.33, 0.474; ahead or behind by the sign of the shift.
- The bootstrap intervals are redrawn exactly as the page's last section
  says: xoshiro256** with its state the first four outputs of splitmix64
  from the page's seed (both from their published definitions, in
  bench_referee_stats.py), afresh for each interval; B resamples of n
  indices drawn by rejection, the units in the tables' order, the sorted
  means' entries floor(0.025 (B - 1)) and ceil(0.975 (B - 1)). So an
  interval is checked digit for digit, as every other number is.
- Claim 2 names, of equal means, the first column in the tables' order
  (equal: within 1e-12, as sums in another order differ); "solved" asks
  0.95 of that mean, learned or not.
- The one-answer tasks are those whose chance.csv counts one blank a
  tape (blanks = tapes a length x seeds at every length).
"""
import argparse
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # its two modules beside it leave no __pycache__ in scripts/
from bench_referee_read import (ALPHA, CEILING, EARLIER_M, FLOOR_ABOVE, LEARNED, LEVEL_ORDER, MIN_UNITS,
                                ROOT, SOLVED, Grid, Page, Reading, Referee, Usage, cell, printed, rows_named, rows_of,
                                say, sd)
from bench_referee_stats import (CLIFF, MARGIN, TIE, U_EXACT_ALL, ZERO, bootstrap, cliff_words, holm,
                                  pair_stats, signed_rank)
from bench_referee_claim1 import Claim1
import bench_referee_rules
import bench_referee_sparser


def tiny(x):
    """A tolerance as the page prints it: 1e-9, not C's %.0e 1e-09."""
    return re.sub(r"e([-+])0*(\d)", r"e\1\2", "%.0e" % x)


class Bench(Claim1, Reading):
    """Every check of the page's tables and claims, on what Reading read."""

    tiny_tie, tiny_zero = tiny(TIE), tiny(ZERO)
    subset, subset_seed = 12, 1  # the stability's resamples redrawn (main's options)

    # -- the tables of every task and column --
    def scores(self, part, table, lo, hi, exact=False, best=False, with_sd=True):
        body, average = rows_of(self.ref, part, table, self.tasks, average=True)
        if table is None:
            return
        cols, prev = table[1][2:], None
        for row in body:
            task = row[1]
            level = self.level.get(task, "?")
            self.ref.same(part, f"{task}'s level", row[0], "" if level == prev else level)
            prev = level
            vals = {}
            for c in cols:
                v = self.g.seeds(task, c, lo, hi, exact)
                vals[c] = (max(v) if best else sum(v) / len(v), sd(v))
            top = max(v for v, _ in vals.values())
            for c, text in zip(cols, row[2:]):
                bold, num, dev = cell(text)
                v, s = vals[c]
                self.ref.num(part, f"{task}, {c}", num, 100 * v, "%.1f")
                if with_sd:
                    self.ref.num(part, f"{task}, {c}, SD", dev, 100 * s, "%.1f")
                self.ref.same(part, f"{task}, {c}, bold", bold, abs(100 * v - 100 * top) < 0.05)
        for c, text in zip(cols, (average or [])[2:]):
            v = [self.g.seeds(t, c, lo, hi, exact) for t in self.tasks]
            v = [max(x) if best else sum(x) / len(x) for x in v]
            self.ref.num(part, f"average, {c}", text, 100 * sum(v) / len(v), "%.1f")

    def tables(self):
        N, M, p = self.N, self.M, self.p
        say(self.ref, p, "Table 1", r"in bold the best of each row and any within ([\d.]+) of it \(half a "
            r"unit of the last printed digit, before rounding; every table below bolds so\)", "0.05")
        self.scores("Table 1", p.table("Table 1"), N + 1, M, best=True, with_sd=False)
        self.scores("mean over seeds", p.table("The cautious reading"), N + 1, M)
        self.scores("exact match", p.table("The cautious reading", 1), N + 1, M, exact=True)
        self.scores("learned at N", p.table("Learned at N"), N, N)
        self.scores("on 1..N", p.table("Learned at N", 1), 1, N)
        part, t = "chance", p.table("Chance")
        body, _ = rows_of(self.ref, part, t, self.tasks)
        if t:
            self.ref.same(part, "header", t[1][3:5], [f"chance on {N + 1}..{M}", f"none on {N + 1}..{M}"])
        for row in body:
            task = row[1]
            ch, none = self.floor(task, N + 1, M), self.g.mean(task, self.cols[0], N + 1, M)
            self.ref.same(part, f"{task}, answer", row[2], self.chance[task]["answer"])
            self.ref.num(part, f"{task}, chance", row[3], ch, "%.3f")
            self.ref.num(part, f"{task}, none", row[4], none, "%.3f")
            self.ref.num(part, f"{task}, none - chance", row[5], none - ch, "%+.3f")
        # each column's score on the ranges the page shows
        part, t = "scores by range", p.table("Accuracy by length")
        if t is None:
            return rows_of(self.ref, part, t, [])
        bands = [tuple(map(int, h.split(".."))) for h in t[1][1:]]
        shown = M > EARLIER_M and N < EARLIER_M
        self.ref.same(part, "the ranges shown", bands,
                      [(N + 1, M)] + ([(N + 1, EARLIER_M)] if shown else []))
        rows_named(self.ref, part, [r[0] for r in t[2]], self.cols)
        for row in t[2]:
            for (lo, hi), text in zip(bands, row[1:]):
                v = sum(self.g.mean(task, row[0], lo, hi) for task in self.tasks) / len(self.tasks)
                self.ref.num(part, f"{row[0]} on {lo}..{hi}", text, 100 * v, "%.1f")
        if shown:
            say(self.ref, p, part, r"Beside it, the same models on (\d+)\.\.(\d+), the range the earlier "
                r"protocol tested \(to (\d+); this run tests to (\d+)\)", N + 1, EARLIER_M, EARLIER_M, M)
        elif M == EARLIER_M:
            say(self.ref, p, part, r"The earlier protocol tested to (\d+); this run tests to (\d+), so its "
                r"range (\d+)\.\.(\d+) is the earlier one too", EARLIER_M, M, N + 1, M)
        else:
            say(self.ref, p, part, r"The earlier protocol's range, to (\d+), is not shown beside this "
                r"run's (\d+)\.\.(\d+): this run tests to (\d+)", EARLIER_M, N + 1, M, M)

    # -- claim 1 (bench_referee_claim1.py) and its tests --
    def test(self, part, where, units, cells, scale, fmt):
        """units' test against cells [mean, interval, p]; returns its verdict."""
        n, r = len(units), self.ref
        if n == 0:
            return None
        mean = sum(units) / n
        r.num(part, where + ", mean", cells[0], scale * mean, fmt)
        if n < MIN_UNITS:
            r.same(part, where + ", too few units", cells[1:], [""] * (len(cells) - 2) + ["too few"])
            return "cannot be tested here"
        p, exact = signed_rank(units)
        m = re.fullmatch(r"(\S+) \((exact|normal approximation)\)", cells[2])
        r.num(part, where + ", p", m.group(1) if m else cells[2], p, "%#.2g")
        r.same(part, where + ", p's method", m.group(2) if m else None,
               "exact" if exact else "normal approximation")
        lo, hi = bootstrap(units, self.draws, self.seed)
        m = re.fullmatch(r"\[(\S+), (\S+)\]", cells[1])
        shown = (m.group(1), m.group(2)) if m else ("?", "?")
        r.num(part, where + ", interval's low end", shown[0], scale * lo, fmt)
        r.num(part, where + ", interval's high end", shown[1], scale * hi, fmt)
        return "agrees" if p < ALPHA and lo > 0 else "disagrees" if p < ALPHA and hi < 0 else "cannot tell"

    def how(self):
        """The page's last section: the constants of the tests this reader runs as stated there, and
        the bootstrap's generator, draws and order statistics (bench_referee_stats.bootstrap draws as
        it says). Before claim 1, whose intervals it reads."""
        r, p, part = self.ref, self.p, "how each number is computed"
        self.seed, self.draws = bench_referee_rules.BOOT_SEED, bench_referee_rules.BOOT_DRAWS
        say(r, p, part, r"values within (\S+) × the larger of 1 and their size tie, each with the first of "
            r"its group in sorted order\)\. Up to (\d+) seeds in all \((\d+) a side\), exact: .*? past that, "
            r"the normal approximation with the tie correction of its variance and no continuity correction\. "
            r"The equivalence test's p is the larger of the one-sided p's of the random form's seeds above the "
            r"plain form's less ([\d.]+), and below them plus ([\d.]+)\.", tiny(TIE), U_EXACT_ALL,
            U_EXACT_ALL // 2, printed("%.2f", MARGIN), printed("%.2f", MARGIN))
        say(r, p, part, r"k the largest whose coverage without ties \(1 − 2 P\(U ≤ k − 1\), U's exact null\) "
            r"is above 95%, or k = 1, the widest, when none is; past (\d+) seeds in all, k from the normal "
            r"approximation with a continuity correction", U_EXACT_ALL)
        say(r, p, part, r"it is negligible below ([\d.]+) in size, small below ([\d.]+), medium below "
            r"([\d.]+), and large from there", *(printed("%g", c) for c in CLIFF))
        say(r, p, part, r"\*\*Ahead or behind\*\*: by the sign of the Hodges-Lehmann estimate, where the "
            r"equivalence test has not decided first and the corrected U test's p is below ([\d.]+); an "
            r"estimate of exactly 0 is not told apart", printed("%.2f", ALPHA))
        m = say(r, p, part, r"the generator is `xoshiro256\*\*` \(Blackman and Vigna\), its four 64-bit words "
                r"of state the first four outputs of `splitmix64` started at the seed (\d+), seeded afresh for "
                r"each interval\. Each of its B = (\d+) resamples draws n indices in turn, each by rejection: a "
                r"64-bit output x is drawn again while x ≥ 2\^64 − 1 − \(\(2\^64 − 1\) mod n\), and the index "
                r"is x mod n; the resample's mean is the sum of the units drawn, in the order drawn, divided by "
                r"n\. The units a test keeps are in the tables' order: the tasks as the rows run, a task's pairs "
                r"in the order ([^.]+)\. The interval is the sorted means' entries floor\(0\.025 \(B − 1\)\) "
                r"and ceil\(0\.975 \(B − 1\)\), counted from 0: (\d+) and (\d+)\.")
        # the constants this reader draws with, whatever the page says (bench_referee_rules checks it)
        self.seed, self.draws = bench_referee_rules.BOOT_SEED, bench_referee_rules.BOOT_DRAWS
        m2 = say(r, p, part, r"\*\*The stability's resamples\*\* \(claim 1's\): resample i, for i = 1\.\.(\d+), "
                 r"draws from the same generator started at the seed (\d+) \+ i \((\d+)\.\.(\d+)\): for each task "
                 r"as the rows run, each pair in the order ([^,]+(?:, [^,]+)*? and \w+), the randomized form and "
                 r"then the plain one, n indices of the form's n seeds \(in seed order\), each as the bootstrap "
                 r"draws one; the form's mean over seeds, past N and at N alike, is the sum of the drawn seeds' "
                 r"values in the order drawn, divided by n\.")
        self.resamples = bench_referee_rules.STABILITY_RESAMPLES
        self.resample_base = bench_referee_rules.STABILITY_BASE
        if m2:
            r.same(part, "the resamples' seeds", [int(m2.group(3)), int(m2.group(4))],
                   [self.resample_base + 1, self.resample_base + self.resamples])
            r.same(part, "the resamples' pairs' order", re.split(r", | and ", m2.group(5)),
                   [pl for pl, _ in self.pairs])
        if m:
            r.same(part, "the pairs' order", re.split(r", | and ", m.group(3)), [pl for pl, _ in self.pairs])
            r.same(part, "the order statistics", [int(m.group(4)), int(m.group(5))],
                   [math.floor(0.025 * (self.draws - 1)), math.ceil(0.975 * (self.draws - 1))])

    # -- the pairs one by one --
    def pairs_one_by_one(self):
        N, M, p, r, part, g = self.N, self.M, self.p, self.ref, "pair by pair", self.g
        t = p.table("Ruoss et al.'s claims", 0, "task | pair")
        if t is None:
            return rows_of(r, part, t, [])
        want = [(task, f"{rn} − {pl}") for task in self.tasks for pl, rn in self.pairs]
        rows_named(r, part, [f"{row[0]}, {row[1]}" for row in t[2]], [f"{a}, {b}" for a, b in want])
        found, tested = [], []
        gains = [0.0, 0.0]
        for task in self.tasks:
            floor = self.floor(task, N + 1, M)
            for pl, rn in self.pairs:
                a, b = g.seeds(task, rn, N + 1, M), g.seeds(task, pl, N + 1, M)
                ma, mb = sum(a) / len(a), sum(b) / len(b)
                gains[0] += max(a) - max(b)
                gains[1] += ma - mb
                learned = g.mean(task, rn, N, N) >= LEARNED and g.mean(task, pl, N, N) >= LEARNED
                gate = ("did not learn the trained lengths" if not learned else
                        "both at the ceiling" if ma >= CEILING and mb >= CEILING else
                        "both at the floor" if ma <= floor + FLOOR_ABOVE and mb <= floor + FLOOR_ABOVE
                        else None)
                x = {"a": a, "b": b, "ma": ma, "mb": mb, "gate": gate}
                if gate is None:
                    x.update(pair_stats(a, b))
                    tested.append(x)
                found.append(x)
        adj = holm([x["p"] for x in tested] + [x["tost"] for x in tested])
        for k, x in enumerate(tested):
            x["p_adj"], x["tost_adj"] = adj[k], adj[k + len(tested)]
            x["gate"] = ("equivalent" if x["tost_adj"] < ALPHA else
                         ("ahead" if x["shift"] > 0 else "behind") if x["p_adj"] < ALPHA and x["shift"]
                         else "not told apart")
        p_text = lambda v: printed("%.1e", v) if v < 0.001 else printed("%.3f", v)
        for row, (task, pair), x in zip(t[2], want, found):
            where = f"{task}, {pair}"
            r.num(part, where + ", difference", row[2], x["ma"] - x["mb"], "%+.3f")
            m = re.fullmatch(r"(\S+) against (\S+)(?:, (\S+) \[(\S+), (\S+)\], p = (\S+) \(Holm (\S+)\), "
                             r"Cliff's delta (\S+) \((\w+)\))?: (.+)", row[3])
            if m is None:
                r.same(part, where, row[3], "a verdict in the page's words")
                continue
            r.num(part, where + ", random's mean", m.group(1), x["ma"], "%.2f")
            r.num(part, where + ", plain's mean", m.group(2), x["mb"], "%.2f")
            r.same(part, where + ", verdict", m.group(10), x["gate"])
            if "p" in x:
                for k, key, fmt in ((3, "shift", "%+.2f"), (4, "lo", "%+.2f"), (5, "hi", "%+.2f"),
                                    (6, "p", p_text), (7, "p_adj", p_text), (8, "delta", "%+.2f")):
                    r.num(part, f"{where}, {key}", m.group(k), x[key], fmt)
                r.same(part, where + ", Cliff's delta in words", m.group(9), cliff_words(x["delta"]))
            else:
                r.same(part, where + ", untested", m.group(3), None)
        count = lambda w: sum(x["gate"] == w for x in found)
        P = len(found)
        exact = all(len(x["a"]) + len(x["b"]) <= U_EXACT_ALL for x in tested) if tested else \
            2 * self.S <= U_EXACT_ALL
        say(r, p, part, r"on (\d+)\.\.(\d+), under the rules above: a pair is compared only where both forms "
            r"learned the training lengths \(a mean over seeds of ([\d.]+) or more at length (\d+), the longest "
            r"trained\), and are neither both at the ceiling \(([\d.]+) or more\) nor both at the floor \(at "
            r"or below the task's chance floor on (\d+)\.\.(\d+) plus ([\d.]+)\); a pair that fails more than "
            r"one of these is counted under the first, in that order\. p is (the exact two-sided U test's|the "
            r"two-sided U test's by the normal approximation) .*? and the (\d+) pairs compared are one family",
            N + 1, M,
            printed("%.2f", LEARNED), N, printed("%.2f", CEILING), N + 1, M, printed("%.2f", FLOOR_ABOVE),
            "the exact two-sided U test's" if exact else "the two-sided U test's by the normal approximation",
            len(tested))
        m = say(r, p, part, r"Of the (\d+) pairs, the randomized form is ahead in (\d+), behind in (\d+), "
                r"equivalent within ±[\d.]+ in (\d+) and not told apart in (\d+)(?: \(no verdict: with (\d+) "
                r"seeds a form, no U test here can give p below ([\d.]+), as the rules above say\))?; (\d+) are "
                r"not compared \(a form that did not learn the training lengths: (\d+); both at the ceiling: "
                r"(\d+); both at the floor: (\d+)\)\. Over all (\d+) pairs the randomized forms change the test "
                r"accuracy by (\S+) points on average the paper's way \(the best seed of each, of (\d+),.*?\) "
                r"and by (\S+) over seeds", P, count("ahead"), count("behind"), count("equivalent"),
                count("not told apart"), None, None, P - len(tested),
                count("did not learn the trained lengths"), count("both at the ceiling"),
                count("both at the floor"), P, None, self.S)
        if m:
            r.num(part, "the gain the paper's way (best seeds)", m.group(13), 100 * gains[0] / P, "%+.1f")
            r.num(part, "the gain over seeds", m.group(15), 100 * gains[1] / P, "%+.1f")
            least = [(2 / math.comb(len(x["a"]) + len(x["b"]), len(x["a"])), min(len(x["a"]), len(x["b"])))
                     for x in tested]
            few = max(least) if least else (0.0, 0)
            r.same(part, "the sentence on too few seeds is there", bool(m.group(6)), few[0] >= ALPHA)
            if m.group(6) and few[0] >= ALPHA:
                r.same(part, "too few seeds: seeds", m.group(6), str(few[1]))
                r.num(part, "too few seeds: the smallest p", m.group(7), few[0], "%.3f")

    # -- claims 2 and 3 --
    def claim2(self):
        N, M, p, r, part, g = self.N, self.M, self.p, self.ref, "claim 2", self.g
        say(r, p, part, r"A scheme learns a task's training lengths with a mean over seeds of ([\d.]+) or "
            r"more at length (\d+), the longest trained \(as in claim 1\), and solves the task with a mean "
            r"over seeds of ([\d.]+) or more on (\d+)\.\.(\d+), whether or not it learned them .*? A row "
            r"names the scheme with the highest mean, of equal means the first in the tables' order\.",
            printed("%.2f", LEARNED), N, printed("%.2f", SOLVED), N + 1, M)
        t = p.table("Ruoss et al.'s claims", 0, "level | task | best at")
        body, _ = rows_of(r, part, t, self.tasks)
        unlearned, solved = [], 0
        for row in body:
            task = row[1]
            r.same(part, f"{task}'s level", row[0], self.level.get(task))
            at_n = {c: g.mean(task, c, N, N) for c in self.cols}
            out = {c: g.mean(task, c, N + 1, M) for c in self.cols}
            for text, vals, rx in ((row[2], at_n, r"(.+) (\S+)"), (row[3], out, r"(.+) (\S+) \((\S+)\)")):
                m = re.fullmatch(rx, text)
                top = max(vals.values())
                # of equal means the first; "equal" within 1e-12 (sums in another order than the C's)
                first = next(c for c in self.cols if vals[c] >= top - 1e-12 * max(1.0, top))
                name = m.group(1) if m else text
                r.same(part, f"{task}, the best column", name, first)
                r.num(part, f"{task}, the best", m.group(2) if m else text, top, "%.3f")
                if m and m.lastindex == 3 and name in vals:
                    r.num(part, f"{task}, {name}'s best seed", m.group(3),
                          max(g.seeds(task, name, N + 1, M)), "%.3f")
            r.num(part, f"{task}, none", row[4], out[self.cols[0]], "%.3f")
            r.num(part, f"{task}, chance", row[5], self.floor(task, N + 1, M), "%.3f")
            if max(at_n.values()) < LEARNED:
                unlearned.append(task)
            solved += max(out.values()) >= SOLVED
        m = say(r, p, part, r"No scheme learns the training lengths of (\d+) tasks?(?:: ([^;]*))?; (\d+) of the "
                r"(\d+) tasks (?:is|are) solved past them by some scheme\.", len(unlearned), None, solved,
                len(self.tasks))
        if m:
            r.same(part, "the tasks no scheme learns", m.group(2).split(", ") if m.group(2) else [],
                   unlearned)

    def claim3(self):
        N, M, p, r, part, g = self.N, self.M, self.p, self.ref, "claim 3", self.g
        say(r, p, part, r"Each column's mean accuracy on (\d+)\.\.(\d+) .*? not the best of the (\d+) columns",
            N + 1, M, len(self.cols))
        t = p.table("Ruoss et al.'s claims", 0, "level | tasks | chance")
        if t is None:
            return rows_of(r, part, t, [])
        levels = [lv for lv in LEVEL_ORDER if any(self.level.get(x) == lv for x in self.tasks)]
        levels += sorted({self.level.get(x) for x in self.tasks} - set(levels))
        rows_named(r, part, [row[0] for row in t[2]], levels)
        r.same(part, "its columns", t[1][3:], self.cols)
        say(r, p, part, r"in bold the best of each row and any within ([\d.]+) of it\.", "0.0005")
        for row in t[2]:
            tasks = [x for x in self.tasks if self.level.get(x) == row[0]]
            if not tasks:
                continue
            r.same(part, f"{row[0]}, tasks", row[1], str(len(tasks)))
            r.num(part, f"{row[0]}, chance", row[2],
                  sum(self.floor(x, N + 1, M) for x in tasks) / len(tasks), "%.3f")
            means = [sum(g.mean(x, c, N + 1, M) for x in tasks) / len(tasks) for c in self.cols]
            for c, v, text in zip(self.cols, means, row[3:]):
                bold, num, _ = cell(text)
                r.num(part, f"{row[0]}, {c}", num, v, "%.3f")
                r.same(part, f"{row[0]}, {c}, bold", bold, abs(v - max(means)) < 5e-4)



class Loaded:
    """What judge() reads besides the page, read once: the cells, the CSV files' folder, the
    companion folder of the sparser section (or None); and the outcome of the checks that do
    not read the page (the cells and the CSV files against them), kept after the first."""

    def __init__(self, cells, csv, sparser=None):
        self.cells_dir, self.csv = cells, csv
        self.grid = Grid(cells)
        self.sparser = Grid(sparser) if sparser else None
        self.sparser_dir = sparser
        self.kept = {}


def judge(page_text, loaded, resamples=Bench.subset, resample_seed=Bench.subset_seed):
    """Every check of page_text against loaded (a Loaded): the Referee, whose diffs list every
    difference (empty: all agree) and counts what each part checked. Raises Usage on a folder
    or file that cannot be read."""
    Bench.subset, Bench.subset_seed = resamples, resample_seed
    ref, grid = Referee(), loaded.grid
    b = Bench(grid, Page(page_text), loaded.csv, ref)

    def once(name, step):
        """A check that reads no page: its outcome kept from the first judge."""
        if name not in loaded.kept:
            mine = Referee()
            b.ref = mine
            try:
                step()
            finally:
                b.ref = ref
            loaded.kept[name] = mine
        for part, n in loaded.kept[name].counts.items():
            ref.tally(part, n)
        ref.diffs += loaded.kept[name].diffs

    for name, step in (("cells", lambda: once("cells", lambda: b.cells(loaded.cells_dir))),
                       ("CSV files", lambda: once("CSV files", b.csvs)),
                       ("pilots.csv", b.pilots), ("text", lambda: b.prose(len(grid.cells))),
                       ("tables", b.tables), ("how each number is computed", b.how),
                       ("claim 1", b.claim1), ("cost", b.cost), ("pair by pair", b.pairs_one_by_one),
                       ("claim 2", b.claim2), ("claim 3", b.claim3),
                       ("the rules and quoted figures", lambda: bench_referee_rules.check(b)),
                       ("sparser positions", lambda: bench_referee_sparser.check(b, loaded.sparser,
                                                                                loaded.sparser_dir))):
        try:
            step()
        except (IndexError, ValueError, AttributeError, KeyError, TypeError, ZeroDivisionError) as e:
            # a table or sentence of another shape than the page's words promise
            ref.tally(name)
            ref.diffs.append(f"{name}: the page is not of the shape this reader reads "
                             f"({type(e).__name__}: {e}); its checks stopped there")
    ref.b = b
    return ref


def main():
    ap = argparse.ArgumentParser(
        description="Recompute every number docs/benchmark.md shows from its cells (and the chance "
                    "floors of chance.csv), and list every difference. Exit 0: all agree; 1: a difference; "
                    "2: bad usage (a missing folder, an unreadable cell, an incomplete grid).")
    ap.add_argument("--cells", default=os.path.join(ROOT, "docs/benchmark/cells"),
                    help="the cells' folder (default docs/benchmark/cells)")
    ap.add_argument("--page", default=os.path.join(ROOT, "docs/benchmark.md"),
                    help="the page (default docs/benchmark.md)")
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs/benchmark"),
                    help="the folder of its CSV files (default docs/benchmark)")
    default_sparser = os.path.join(ROOT, "docs/benchmark/range2048")
    ap.add_argument("--sparser", metavar="DIR",
                    help="the cells of the same grid at a wider range of random positions, whose section "
                         "'sparser positions' the page shows (default docs/benchmark/range2048 when it is "
                         "there and --cells is the default; 'none' for no such folder)")
    ap.add_argument("--resamples", type=int, default=Bench.subset, metavar="K",
                    help="claim 1's stability: how many of its resamples to draw and decide again "
                         f"(default {Bench.subset}; each takes about a second)")
    ap.add_argument("--resample-seed", type=int, default=Bench.subset_seed, metavar="S",
                    help=f"which ones: a sample drawn by Python's random.Random(S) (default {Bench.subset_seed})")
    args = ap.parse_args()
    sparser = args.sparser
    if sparser is None:
        default_cells = os.path.realpath(args.cells) == os.path.realpath(os.path.join(ROOT, "docs/benchmark/cells"))
        sparser = default_sparser if default_cells and os.path.isdir(default_sparser) else None
    elif sparser == "none":
        sparser = None
    try:
        loaded = Loaded(args.cells, args.csv, sparser)
        ref = judge(Page.read(args.page), loaded, args.resamples, args.resample_seed)
    except Usage as e:
        print(f"bench_referee: {e}", file=sys.stderr)
        return 2
    grid, b = loaded.grid, ref.b
    rel = lambda path: path if os.path.relpath(path).startswith("..") else os.path.relpath(path)
    print(f"bench_referee: {rel(args.page)} and {rel(args.csv)} against {len(grid.cells)} cells in "
          f"{rel(args.cells)} "
          f"({len(b.tasks)} tasks x {len(b.cols)} columns x {grid.S} seeds, N = {grid.N}, M = {grid.M}); "
          "checked, by part (numbers, and the words and bold marks the rules decide):")
    for part, n in ref.counts.items():
        bad = sum(d.startswith(part + ",") or d.startswith(part + ":") for d in ref.diffs)
        print(f"  {part:<30} {n:>7} checked{'' if not bad else f', {bad} DIFFERENT'}")
    for d in ref.diffs:
        print("DIFFERENT: " + d)
    total = sum(ref.counts.values())
    n = len(ref.diffs)
    print(f"bench_referee: {total} checked, "
          + (f"{n} difference{'' if n == 1 else 's'}" if n else "all agree"))
    return 1 if ref.diffs else 0


if __name__ == "__main__":
    sys.exit(main())
