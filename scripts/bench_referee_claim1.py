"""Claim 1 of docs/benchmark.md, checked from the page's words (bench_referee.py's part).

The rule the page states: a pair (a task and an encoding) enters claim 1
under a gate only where the pair table would compare it under that gate:
both forms' means over seeds at N at the gate or above (ungated, no such
condition), not both at the ceiling on the test lengths, not both at the
floor (the task's chance floor plus 0.05), asked in that order; a task
enters with the mean of its pairs that remain. Here: the gate table (its
counts of pairs left out by reason), the verdict, the pairs each gate
keeps, how much of the gain one task carries, the stability's shares
(against stability.csv, of which a seeded subset of resamples is redrawn
and decided again as the page's last section says), the secondary test
by pair, and the cost on the training lengths with its split by what
learned.
"""
import math
import os
import random
import re

from bench_referee_read import ALPHA, CEILING, FLOOR_ABOVE, LEARNED, MIN_UNITS, printed, rows_named, say
from bench_referee_stats import Xoshiro256, bootstrap, signed_rank

UNLEARNED, AT_CEILING, AT_FLOOR = "did not learn", "ceiling", "floor"
VERDICT_WORDS = {"agrees": "agrees", "disagrees": "disagrees", "cannot_tell": "cannot tell",
                 "too_few": "cannot be tested here"}


def verdict_of(units, draws, seed):
    """The page's verdict on units (tasks' numbers): too few, or the signed-rank p with the
    bootstrap interval's sign; (verdict, p, exact, lo, hi)."""
    if len(units) < MIN_UNITS:
        return "cannot be tested here", None, None, None, None
    p, exact = signed_rank(units)
    lo, hi = bootstrap(units, draws, seed) if p < ALPHA else (None, None)
    v = "agrees" if p < ALPHA and lo > 0 else "disagrees" if p < ALPHA and hi < 0 else "cannot tell"
    return v, p, exact, lo, hi


class Claim1:
    """Mixed into bench_referee.Bench: self.g (the grid), self.p (the page), self.ref, self.N,
    self.M, self.tasks, self.pairs, self.floor(), self.seed and self.draws (read by how())."""

    # -- the pairs as the rule sees them: each form's seeds past N and at N --
    def pair_seeds(self):
        N, M, g = self.N, self.M, self.g
        return {(t, pl): {"rnd": (g.seeds(t, rn, N + 1, M), g.seeds(t, rn, N, N)),
                          "plain": (g.seeds(t, pl, N + 1, M), g.seeds(t, pl, N, N))}
                for t in self.tasks for pl, rn in self.pairs}

    def why_out(self, task, means, gate):
        """None when the pair enters at gate, else why not; means: rnd and plain (past N, at N)."""
        (a, a_N), (b, b_N) = means["rnd"], means["plain"]
        floor = self.floors[task]
        if gate is not None and not (a_N >= gate and b_N >= gate):
            return UNLEARNED
        if a >= CEILING and b >= CEILING:
            return AT_CEILING
        if a <= floor + FLOOR_ABOVE and b <= floor + FLOOR_ABOVE:
            return AT_FLOOR
        return None

    def units_at(self, means, gate):
        """(each pair's difference, each task's mean over its pairs, why each pair is out)."""
        d, per_task, out = [], [], []
        for t in self.tasks:
            k = []
            for pl, _ in self.pairs:
                m = means[(t, pl)]
                why = self.why_out(t, m, gate)
                out.append(why)
                if why is None:
                    k.append(m["rnd"][0] - m["plain"][0])
            d += k
            if k:
                per_task.append(sum(k) / len(k))
        return d, per_task, out

    @staticmethod
    def means_of(seeds):
        mean = lambda v: sum(v) / len(v)
        return {k: {f: (mean(s[f][0]), mean(s[f][1])) for f in ("rnd", "plain")} for k, s in seeds.items()}

    def claim_verdict(self, means, gates):
        """Each gate's verdict and the claim's (the ungated one unless a gate moves it)."""
        each = []
        for gate in gates:
            _, per_task, _ = self.units_at(means, gate)
            each.append(verdict_of(per_task, self.draws, self.seed)[0])
        moved = any(v != "cannot be tested here" and v != each[0] for v in each[1:])
        return each, "cannot tell" if moved else each[0]

    # -- the section --
    def claim1(self):
        N, M, p, r = self.N, self.M, self.p, self.ref
        self.floors = {t: self.floor(t, N + 1, M) for t in self.tasks}
        seeds = self.pair_seeds()
        means = self.means_of(seeds)
        say(r, p, "claim 1", r"\((\d+) resamples, the 2\.5% and 97\.5% points of their means, drawn as the "
            r"last section says", self.draws)
        say(r, p, "claim 1", r"with tied differences at their mean rank \(an \|d\| within (\S+), relative, "
            r"of the first of its group in sorted order ties with it: .*?\) and zero differences "
            r"\(\|d\| ≤ (\S+)\) dropped", self.tiny_tie, self.tiny_zero)
        E = len(self.pairs)
        say(r, p, "claim 1", r"\(by ([\d.]+) points \"on average\" over their 15 tasks, their abstract\)", "12.0")
        say(r, p, "claim 1", r"the randomized form's mean over seeds minus the plain form's, on (\d+)\.\.(\d+): "
            r"one number a task\. The task is the unit because a task's (\d+) encodings .*? count each task "
            r"(\d+) times", N + 1, M, E, E)
        say(r, p, "claim 1", r"both forms' means over seeds at length (\d+) at the gate or above; ungated, no "
            r"such condition\), where both forms are at the ceiling \(([\d.]+) or more on (\d+)\.\.(\d+)\), or "
            r"where both are at the floor \(at or below the task's chance floor plus ([\d.]+)\), asked in that "
            r"order", N, printed("%.2f", CEILING), N + 1, M, printed("%.2f", FLOOR_ABOVE))
        say(r, p, "claim 1", r"A gate that leaves fewer than (\d+) tasks is not tested", MIN_UNITS)
        m = say(r, p, "claim 1", r"then with each gate of ([\d., and]+) in place of the pair table's ([\d.]+);",
                None, printed("%.2f", LEARNED))
        stated = ["none"] + (re.split(r", | and ", m.group(1)) if m else [])
        gates = [None] + [float(x) for x in stated[1:]]
        r.same("claim 1", "the gates in ascending order", gates[1:], sorted(gates[1:]))
        by_task = p.table("Ruoss et al.'s claims", 0, "gate at length")
        by_pair = p.table("Ruoss et al.'s claims", 1, "gate at length")
        verdicts = []
        for nth, t in ((0, by_task), (1, by_pair)):
            part = "claim 1 by task" if nth == 0 else "claim 1 by pair"
            if t is None:
                r.same(part, "the table is on the page", False, True)
                continue
            r.same(part, "header", t[1][0], f"gate at length {N}")
            rows_named(r, part, [row[0] for row in t[2]], stated)
            for row, gate in zip(t[2], gates):
                d, per_task, out = self.units_at(means, gate)
                units, where = (per_task if nth == 0 else d), f"gate {row[0]}"
                r.same(part, where + ", units", row[1], str(len(units)))
                cells = row[4:] if nth == 0 else row[2:]
                if nth == 0:
                    r.same(part, where + ", pairs", row[2], str(len(d)))
                    r.same(part, where + ", left out", row[3],
                           ", ".join(str(out.count(w)) for w in (UNLEARNED, AT_CEILING, AT_FLOOR)))
                if not units:
                    r.same(part, where + ", no unit", cells[-1], "no pair passes the gate")
                    if nth == 0:
                        verdicts.append("cannot be tested here")
                    continue
                v = self.test(part, where, units, cells, 1, "%+.3f")
                if nth == 0:
                    verdicts.append(v)
                    if v != "cannot be tested here":
                        r.same(part, where + ", verdict", cells[3], v)
        moved = any(v != "cannot be tested here" and v != verdicts[0] for v in verdicts[1:])
        self.verdict = "cannot tell" if moved else (verdicts[0] if verdicts else None)
        say(r, p, "claim 1 by task", r"The verdict on the claim: \*\*(.+?)\*\*(.*?)\. ", self.verdict,
            " (the gate changes the verdict, so none is given)" if moved else "")
        self.kept(means, gates, stated)
        self.one_task(means)
        self.stability(seeds, gates)
        P = len(self.pairs) * len(self.tasks)
        say(r, p, "claim 1 by pair", r"\*\*The (\d+) pairs, a secondary reading\.\*\*", P)
        say(r, p, "claim 1 by pair", r"which they are not \((\d+) to a task\)", E)

    def kept(self, means, gates, stated):
        r, part = self.ref, "pairs each gate keeps"
        t = self.p.table("Ruoss et al.'s claims", 0, "task | none")
        if t is None:
            return r.same(part, "the table is on the page", False, True)
        r.same(part, "header", t[1], ["task"] + stated)
        rows_named(r, part, [row[0] for row in t[2]], self.tasks)
        for gate, col in zip(gates, range(1, len(stated) + 1)):
            _, _, out = self.units_at(means, gate)
            for i, (task, row) in enumerate(zip(self.tasks, t[2])):
                names = [pl for k, (pl, _) in enumerate(self.pairs) if out[i * len(self.pairs) + k] is None]
                r.same(part, f"{task}, gate {stated[col - 1]}", row[col], ", ".join(names) or "—")

    def one_task(self, means):
        r, part = self.ref, "one task's share of the gain"
        _, per_task, _ = self.units_at(means, None)
        n = len(per_task)
        if n < 2:
            return
        entered = [t for t in self.tasks
                   if any(self.why_out(t, means[(t, pl)], None) is None for pl, _ in self.pairs)]
        total = sum(per_task)
        without = [(total - x) / (n - 1) for x in per_task]
        lo = min(range(n), key=lambda i: (without[i], i))
        hi = max(range(n), key=lambda i: (without[i], -i))
        s = sorted(per_task)
        median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
        m = say(r, self.p, part, r"Without any single one of its (\d+) tasks the ungated mean gain runs from "
                r"(\S+) points \(without (\w+)\) to (\S+) \(without (\w+)\); the median task gains (\S+) points\. ",
                n, None, entered[lo], None, entered[hi], None)
        if m is None:
            return
        r.num(part, "the lowest mean without one task", m.group(2), 100 * without[lo], "%+.1f")
        r.num(part, "the highest mean without one task", m.group(4), 100 * without[hi], "%+.1f")
        r.num(part, "the median task", m.group(6), 100 * median, "%+.1f")
        if n < MIN_UNITS:
            say(r, self.p, part, r"The ungated test has too few tasks for an interval, so the abstract's "
                r"([\d.]+) points are set against none\.", "12.0")
            return
        m = say(r, self.p, part, r"The abstract's ([\d.]+) points lie (above|below|inside) the ungated interval "
                r"\[(\S+), (\S+)\]\.", "12.0")
        if m is None:
            return
        ci = bootstrap(per_task, self.draws, self.seed)
        r.num(part, "the interval's low end", m.group(3), 100 * ci[0], "%+.1f")
        r.num(part, "the interval's high end", m.group(4), 100 * ci[1], "%+.1f")
        r.same(part, "12.0 against the interval", m.group(2),
               "above" if 0.12 > ci[1] else "below" if 0.12 < ci[0] else "inside")

    # -- the stability: stability.csv, its shares, and a seeded subset redrawn --
    def stability(self, seeds, gates):
        r, part = self.ref, "stability of claim 1"
        path = os.path.join(self.csv, "stability.csv")
        try:
            lines = open(path, encoding="utf-8").read().split("\n")
        except OSError as e:
            return r.same(part, f"{path} can be read ({e})", False, True)
        head = ["resample", "seed", "ungated"] + ["gate_%.2f" % g for g in gates[1:]] + ["verdict"]
        r.same(part, "stability.csv's header", lines[0].split(","), head)
        rows = [ln.split(",") for ln in lines[1:] if ln]
        n = len(rows)
        r.same(part, "stability.csv's resamples, numbered", [(x[0], x[1]) for x in rows],
               [(str(i), str(self.resample_base + i)) for i in range(1, n + 1)])
        words = lambda x: [VERDICT_WORDS.get(w, "?") for w in x[2:]]
        for x in rows:  # the claim's verdict from its gates', by the page's rule
            each = words(x)[:-1]
            moved = any(v != "cannot be tested here" and v != each[0] for v in each[1:])
            r.same(part, f"resample {x[0]}: the claim from its gates", words(x)[-1],
                   "cannot tell" if moved else each[0])
        share = lambda v: sum(words(x)[-1] == v for x in rows) / n if n else float("nan")
        m = say(r, self.p, part, r"drawing each cell's (\d+) seeds again with replacement, (\d+) times .*? the "
                r"claim's verdict comes out \"agrees\" in (\S+) of them, \"cannot tell\" in (\S+), \"disagrees\" "
                r"in (\S+), and untestable in (\S+)\.", self.S, self.resamples)
        r.same(part, "the resamples the page states are stability.csv's", n, self.resamples)
        if m:
            for k, v in ((3, "agrees"), (4, "cannot tell"), (5, "disagrees"), (6, "cannot be tested here")):
                r.num(part, f"the share '{v}'", m.group(k), share(v), "%.3f")
        # a seeded subset of the resamples redrawn and decided again, as the last section says
        for i in random.Random(self.subset_seed).sample(range(1, n + 1), min(self.subset, n)):
            g = Xoshiro256(self.resample_base + i)
            drawn = {}
            for t in self.tasks:
                for pl, _ in self.pairs:
                    s = seeds[(t, pl)]
                    drawn[(t, pl)] = {}
                    for f in ("rnd", "plain"):
                        past, at_N = s[f]
                        idx = [g.below(len(past)) for _ in past]
                        mean = lambda v: sum(v[k] for k in idx) / len(idx)
                        drawn[(t, pl)][f] = (mean(past), mean(at_N))
            each, claim = self.claim_verdict(drawn, gates)
            r.same(part, f"resample {i} redrawn", words(rows[i - 1]), each + [claim])

    # -- the cost on the training lengths, and its split by what learned --
    def cost(self):
        N, M, p, r, part, g = self.N, self.M, self.p, self.ref, "cost on the trained lengths", self.g
        T, P = len(self.tasks), len(self.pairs) * len(self.tasks)
        say(r, p, part, r"at N = (\d+) and over all of 1\.\.(\d+) ", N, N)
        say(r, p, part, r"with the pairs below 0 of the (\d+):", P)
        bands = [(N + 1, M), (N, N), (1, N)]
        label = lambda lo, hi: str(lo) if lo == hi else f"{lo}..{hi}"

        def diffs(lo, hi, keep):
            d, per_task = [], []
            for t in self.tasks:
                k = [g.mean(t, rn, lo, hi) - g.mean(t, pl, lo, hi) for pl, rn in self.pairs if keep(t, pl, rn)]
                d += k
                if k:
                    per_task.append(sum(k) / len(k))
            return d, per_task

        t = p.table("Ruoss et al.'s claims", 0, "lengths")
        if t is None:
            return r.same(part, "the table is on the page", False, True)
        r.same(part, "header", [t[1][2], t[1][5]], [f"tasks lower, of {T}", f"pairs lower, of {P}"])
        rows_named(r, part, [row[0] for row in t[2]], [label(*b) for b in bands])
        words = []
        for row, (lo, hi) in zip(t[2], bands):
            d, per_task = diffs(lo, hi, lambda *_: True)
            where = f"lengths {label(lo, hi)}"
            r.same(part, where + ", tasks lower", row[2], str(sum(x < 0 for x in per_task)))
            r.same(part, where + ", pairs lower", row[5], str(sum(x < 0 for x in d)))
            v = self.test(part, where, per_task, [row[1], row[3], row[4]], 100, "%+.1f")
            words.append((v, 100 * sum(per_task) / len(per_task), signed_rank(per_task)))
        m = say(r, p, part, r"At N the randomized forms (.*?\)); over 1\.\.(\d+) they (.*?\))\. A form that "
                r"did not learn", None, N)
        if m:
            self.cost_words(part, (m.group(1), m.group(3)), words[1:])
        # the split by what learned at N
        learned = lambda t, c: g.mean(t, c, N, N) >= LEARNED
        groups = (("both forms", lambda t, pl, rn: learned(t, rn) and learned(t, pl)),
                  ("only the plain form", lambda t, pl, rn: learned(t, pl) and not learned(t, rn)),
                  ("only the randomized form", lambda t, pl, rn: learned(t, rn) and not learned(t, pl)),
                  ("neither", lambda t, pl, rn: not learned(t, rn) and not learned(t, pl)))
        say(r, p, part, r"split by what learned them \(a mean over seeds of ([\d.]+) or more at N\)",
            printed("%.2f", LEARNED))
        t = p.table("Ruoss et al.'s claims", 0, "learned at N")
        if t is None:
            return r.same(part, "the split's table is on the page", False, True)
        want = [(name if k == 0 else "", label(*b)) for name, _ in groups for k, b in enumerate(bands)]
        r.same(part, "the split's rows", [(row[0], row[1]) for row in t[2]], want)
        group, keys = "", []
        for row in t[2]:  # a group's name on its first row only
            group = row[0] or group
            keys.append(f"{group}, {row[1]}")
        rows_named(r, part + ", the split", keys, [f"{name}, {label(*b)}" for name, _ in groups for b in bands])
        both = []
        for row, (name, keep), (lo, hi) in zip(t[2], [x for x in groups for _ in bands], bands * len(groups)):
            d, per_task = diffs(lo, hi, keep)
            where = f"{name}, lengths {label(lo, hi)}"
            r.same(part, where + ", pairs and tasks", row[2:4], [str(len(d)), str(len(per_task))])
            if d:
                r.num(part, where + ", mean over the pairs", row[4], 100 * sum(d) / len(d), "%+.1f")
                r.same(part, where + ", pairs lower", row[5], str(sum(x < 0 for x in d)))
            if len(per_task) < MIN_UNITS:
                r.same(part, where + ", no test", row[6], "too few" if per_task else "no pair passes the gate")
                if name == "both forms" and (lo, hi) != (N + 1, M):
                    both.append(("cannot be tested here", 100 * sum(per_task) / max(1, len(per_task)),
                                 (None, None)))
                continue
            cm = re.fullmatch(r"(\S+) \[(\S+), (\S+)\], p = (.+)", row[6])
            cells = [cm.group(1), f"[{cm.group(2)}, {cm.group(3)}]", cm.group(4)] if cm else [row[6], "", ""]
            v = self.test(part, where, per_task, cells, 100, "%+.1f")
            if name == "both forms" and (lo, hi) != (N + 1, M):
                both.append((v, 100 * sum(per_task) / len(per_task), signed_rank(per_task)))
        if not any(keep(t, pl, rn) for t in self.tasks for pl, rn in self.pairs
                   for name, keep in groups[:1]):
            say(r, p, "cost where both learned", r"(In no pair did both forms learn the training lengths), so "
                r"the cost cannot be told", "In no pair did both forms learn the training lengths")
            return
        m = say(r, p, part, r"Where both forms learned the training lengths, at N the randomized forms "
                r"(.*?\)), and over 1\.\.(\d+) they (.*?\))\.( The gain past N comes with a loss)?", None, N)
        if m and len(both) == 2:
            self.cost_words("cost where both learned", (m.group(1), m.group(3)), both)
            r.same("cost where both learned", "the finding that the gain comes with a loss", bool(m.group(4)),
                   any(v == "disagrees" for v, _, _ in both))

    def cost_words(self, part, phrases, words):
        r = self.ref
        for phrase, (v, points, (pv, exact)), where in zip(phrases, words, ("at N", "over 1..N")):
            if v == "cannot be tested here":
                r.num(part, where, re.sub(r"^cannot be tested \((\S+) points.*", r"\1", phrase), points, "%+.1f")
                few = re.search(r"; fewer than (\d+) tasks\)", phrase)
                r.same(part, where + ", the fewest tasks tested", few.group(1) if few else phrase, str(MIN_UNITS))
                continue
            w = re.fullmatch(r"(score lower than|score higher than|are not told apart from) their plain "
                             r"forms \((\S+) points, (exact|normal-approximation) p = (\S+)\)", phrase)
            kind = {"disagrees": "score lower than", "agrees": "score higher than"}.get(v, "are not told apart from")
            r.same(part, where + ", in words", w.group(1) if w else phrase, kind)
            if w:
                r.num(part, where + ", points", w.group(2), points, "%+.1f")
                r.same(part, where + ", method", w.group(3), "exact" if exact else "normal-approximation")
                r.num(part, where + ", p", w.group(4), pv, "%#.2g")
