"""The page's rules and the figures it quotes, as the numbers scripts/bench_referee.py expects
(issue 61: an edited rule must not pass): every paragraph that states a rule, a constant of the
bootstrap, a figure of the paper or of its code, or a citation's year has the list of its numbers
checked here, each either recomputed from the cells' settings or one of the constants below,
each named. The constants are the rules this referee applies (bench_referee_read.py's and
bench_referee_stats.py's) and the paper's figures as the page quotes them: written here apart
from the C sources, not read from them. And every table's rows, by name: a row missing, extra or
out of its place is named. Standard library only."""
import math
import os
import re

from bench_referee_read import (ALPHA, CEILING, EARLIER_M, FLOOR_ABOVE, LEARNED, MIN_UNITS, ROOT, SOLVED,
                                printed, rows_named)
from bench_referee_stats import CLIFF, EXACT_MAX, MARGIN, TIE, U_EXACT_ALL, ZERO, hl_k

# -- the page's rules this reader applies, beside those of bench_referee_read/_stats --
BOLD_WITHIN = "0.05"         # a table's bold: within half a unit of its last digit (claim 3's: 0.0005)
BOLD_WITHIN_CLAIM3 = "0.0005"
GATES = ("0.80", "0.85", "0.90", "0.95")  # claim 1's gates at N, beside the ungated test
CI = 95                      # the bootstrap intervals' level (%)
BOOT_SEED, BOOT_DRAWS = 1, 10000          # the bootstrap's generator's seed and its resamples
STABILITY_RESAMPLES, STABILITY_BASE = 1000, 1000  # claim 1's stability: resample i from seed base + i
SIGNS = 2                    # the signed-rank test's 2^n sign patterns
# -- facts the page states of other runs and of the literature --
PILOTS_M, PILOTS_RANGE = EARLIER_M, 256   # the pilots' protocol: tests to 25, positions from 0..255
PREVIOUS_GATE = "0.95"       # the gate at which the run before this rule had two pairs decide claim 1
CITATIONS = {"Delétang et al. (ICLR": 2023, "Ruoss et al. (ACL": 2023, "Hauschke et al.": 1990,
             "Romano et al.": 2006}
ALL_COLUMNS = 1              # `make benchmark ALL=1`, the Makefile's switch for every scheme's column
CLAIMS = {"The randomized forms raise the test accuracy on average": 1,
          "Which tasks an encoding solves": 2, "Each encoding by level": 3}
# Ruoss et al.'s paper and code (google-deepmind/randomized_positional_encodings) as the page quotes
# them: their N and M (and their example's M), the abstract's average gain over its 15 tasks, the
# random positions' range, the longest test tape (duplicate_string's: 3 x M tokens).
PAPER_N, PAPER_M, PAPER_EXAMPLE_M, PAPER_GAIN, PAPER_TASKS = 40, 500, 100, "12.0", 15
PAPER_RANGE, TAPE_PER_WORD = 2048, 3
# The protocol table: its rows in order, and the numbers of its column "the reference code"
REFERENCE_CODE = {
    "training sentences": [], "randomized sin/cos, learned": ["0"], "randomized RoPE": [],
    "randomized ALiBi and relative": ["1"], "ALiBi without a causal mask": ["0.5"],
    "optimizer": ["0.999", "1e-8", "1"], "first draws": ["1", "0.02", "1"], "dropout": ["0.1"],
    "training lengths N, test lengths to M": [str(PAPER_N), str(PAPER_M), str(PAPER_EXAMPLE_M)],
    "random positions from": ["0", str(PAPER_RANGE - 1), printed("%.2f", PAPER_RANGE / (TAPE_PER_WORD * PAPER_M)),
                              str(TAPE_PER_WORD), str(PAPER_M), "{:,}".format(TAPE_PER_WORD * PAPER_M)],
    "model": ["5", "64", "8", "256"], "the loss": ["0"], "training": ["128", "1e-3", "10,000"],
    "inputs": [], "randomized relative, the code's indexing": ["0", "1", "0"],
    "test tapes per length": ["512", "64"], "a length's accuracy": ["8", "64"],
    "the score's lengths": ["2", "1", "0", "1", "1"], "a cell of Table 1": [],
}

# A number of the page: digits, with a decimal point, thousands' commas, an exponent or a sign,
# not part of a word (xoshiro256, d_ff, L-1).
NUM = re.compile(r"(?<![\w\-])(?<!\d\.)[-+]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?![A-Za-z_0-9]|\.\w)")
ANY = "*"  # in an expected list: a number another check of this reader recomputes


def numbers(ref, page, part, pattern, expected, whole=True):
    """The numbers of the page's first stretch matching pattern against expected (ANY: checked
    elsewhere); whole=False: expected is a prefix of them (the rest checked elsewhere)."""
    ref.tally(part)
    m = re.search(pattern, page.text)
    if m is None:
        ref.diffs.append(f"{part}: no sentence matching {pattern!r} on the page")
        return None
    shown = [x.group(0) for x in NUM.finditer(m.group(0))]
    want = [str(e) for e in expected]
    got = shown if whole else shown[:len(want)]
    if len(got) != len(want) or any(w != ANY and s != w for s, w in zip(got, want)):
        ref.diffs.append(f"{part}, the numbers of '{m.group(0)[:70]}...': shown {shown}, "
                         f"expected {want}{'' if whole else ' first'}")
    return m


def check(b):
    """Every rule and quoted figure of the page: b is bench_referee.Bench, after its checks."""
    r, p, s = b.ref, b.p, b.g.set
    N, M, S, T, C = b.N, b.M, b.S, len(b.tasks), len(b.cols)
    E, P = len(b.pairs), len(b.pairs) * len(b.tasks)
    f2 = lambda x: printed("%.2f", x)
    tiny = lambda x: re.sub(r"e([-+])0*(\d)", r"e\1\2", "%.0e" % x)
    part = "the rules and quoted figures"
    # the head
    m = numbers(r, p, part, r"`\): \d+ of the algorithmic tasks of Delétang[^\n]*",
                [T, CITATIONS["Delétang et al. (ICLR"], CITATIONS["Ruoss et al. (ACL"], ALL_COLUMNS, S, 1, N, M,
                 printed("%.1f", M / N), PAPER_N, PAPER_M, printed("%.1f", PAPER_M / PAPER_N), ANY, ANY])
    link = re.search(r"\[Page (\d+)\]\((\d+)-([\w-]+)\.md\)", m.group(0)) if m else None
    r.same(part, "the page's link to the page that takes one task through",
           bool(link and int(link.group(1)) == int(link.group(2)) and
                os.path.exists(os.path.join(ROOT, "docs", f"{link.group(2)}-{link.group(3)}.md"))), True)
    # a quick grid's command, as the page gives it
    for q in re.finditer(r"`make benchmark QUICK=(\d+)", p.text):
        r.same(part, "a quick grid's make command", (q.group(1), s.get("quick")), ("1", "1"))
    # the protocol table
    t = p.table("The protocol")
    if t is None:
        return r.same(part, "the protocol's table", None, "on the page")
    rows_named(r, "the protocol's table", [row[0] for row in t[2]], list(REFERENCE_CODE))
    rng = int(s["random_range"])
    here = {
        "first draws": ["0", "0.02", "0", "1"] if s.get("reference", "0") == "1" else None,
        "dropout": [printed("%.2g", float(s["dropout"]))],
        "training lengths N, test lengths to M": [N, M, printed("%.1f", M / N), printed("%.1f", PAPER_EXAMPLE_M / PAPER_N)],
        "random positions from": ["0", rng - 1, ANY, ANY, ANY],
        "model": [s["layers"], s["d_model"], s["heads"], s["d_ff"]],
        "training": [s["batch"], "%g" % float(s["lr"]), s["steps"]],
        "test tapes per length": [s["per_len"], s["test_batch"]],
        "the score's lengths": [1, N + 1, M, N + 2, M], "a cell of Table 1": [S],
    }
    for row in t[2]:
        if row[0] not in REFERENCE_CODE or len(row) < 3:
            continue
        got = [x.group(0) for x in NUM.finditer(row[1])]
        r.same(part, f"the protocol's row '{row[0]}', the reference code's numbers", got, REFERENCE_CODE[row[0]])
        want = here.get(row[0], [])
        got = [x.group(0) for x in NUM.finditer(row[2])]
        if want is not None and not (row[0] == "random positions from" and "the paper's density" in row[2]):
            r.same(part, f"the protocol's row '{row[0]}', this run's numbers", got,
                   [g if w == ANY else str(w) for g, w in zip(got, want)] if len(got) == len(want) else want)
        if row[0] == "random positions from" and "the paper's density" in row[2]:
            # the paper's density: its range scaled as its lengths are, 2048 x M/500 = the range, the
            # tape's ratio within 5% of the paper's (the rule that names it so)
            longest = int(got[3]) if len(got) > 3 and got[3].isdigit() else 0
            r.same(part, "the protocol's row 'random positions from', at the paper's density", got,
                   ["0", str(rng - 1), printed("%.2f", rng / longest) if longest else "?",
                    str(TAPE_PER_WORD * M if "duplicate_string" in b.tasks else longest), str(PAPER_RANGE), str(M),
                    str(PAPER_M), str(rng)])
            scaled = re.search(r"(\d+) x (\d+)/(\d+) = (\d+)", row[2])
            r.same(part, "the paper's range scaled as its lengths are", scaled.groups() if scaled else None,
                   (str(PAPER_RANGE), str(M), str(PAPER_M), str(rng)))
            r.same(part, "the paper's density: 2048 x M/500 is the range, the ratio within 5% of the paper's",
                   (PAPER_RANGE * M == PAPER_M * rng,
                    bool(longest) and abs((rng / longest) / (PAPER_RANGE / (TAPE_PER_WORD * PAPER_M)) - 1) < 0.05),
                   (True, True))
        elif row[0] == "random positions from" and len(got) == 5:
            # the longest test tape is the tasks' (their formats are not in the cells), but with
            # duplicate_string among them it is its 3 x M tokens, as the paper's 3 x 500; the
            # ratios are recomputed from it
            longest = int(got[3])
            r.same(part, "the longest test tape and the ratios to it", got[2:],
                   [printed("%.2f", rng / longest), str(TAPE_PER_WORD * M if "duplicate_string" in b.tasks else longest),
                    printed("%.1f", (rng / longest) / (PAPER_RANGE / (TAPE_PER_WORD * PAPER_M)))])
    # the recipe (only with the pilots kept)
    if p.table("The recipe"):
        numbers(r, p, part, r"The standard run's recipe, [^\n]*",
                [s["steps"], "%g" % float(s["lr"]), "%g" % float(s["dropout"]), f2(LEARNED), PILOTS_M, 0,
                 PILOTS_RANGE - 1, 1, ANY, ANY, f2(LEARNED), N])
    # the tables' sentences
    numbers(r, p, part, r"The per-token accuracy \(%\) on the blanks, averaged over[^\n]*",
            [N + 1, M, S, 1, BOLD_WITHIN])
    numbers(r, p, part, r"This run is compared with the paper's text[^\n]*", [1, 1, PAPER_GAIN, PAPER_TASKS])
    numbers(r, p, part, r"The accuracy at the longest training length, [^\n]*", [N, f2(LEARNED)])
    numbers(r, p, part, r"The floor a verdict below reads as [^\n]*", [s["per_len"], S, N + 1, M, f2(FLOOR_ABOVE)])
    # the rules
    k, cover = hl_k(S, S)
    two = 2 / math.comb(2 * S, S)
    few = [S, S, printed("%.3f", two), 2, 2 * S, S, f2(ALPHA)] if two >= ALPHA else []
    # past U_EXACT_ALL seeds in all the U test's method names its limit, seeds a side
    limit = [U_EXACT_ALL // 2] if 2 * S > U_EXACT_ALL else []
    numbers(r, p, part, r"\*\*How a verdict is reached\.\*\*[^\n]*",
            [S, *limit, f2(MARGIN), CITATIONS["Hauschke et al."], f2(MARGIN), printed("%.1f", 100 * cover), S, S, f2(ALPHA),
             f2(CEILING), f2(FLOOR_ABOVE), f2(LEARNED), N] + few, whole=bool(few))
    # claim 1
    numbers(r, p, part, r"\*\*1\. The randomized forms raise[^\n]*",
            [CLAIMS["The randomized forms raise the test accuracy on average"], PAPER_GAIN, PAPER_TASKS, N + 1, M,
             E, E, N, f2(CEILING), N + 1, M, f2(FLOOR_ABOVE), SIGNS, tiny(TIE), tiny(ZERO), EXACT_MAX, CI,
             BOOT_DRAWS, printed("%g", (100 - CI) / 2), printed("%g", 100 - (100 - CI) / 2), f2(ALPHA), 0, f2(ALPHA), 0,
             MIN_UNITS, 2, 2, MIN_UNITS - 1, printed("%g", 2 / 2 ** (MIN_UNITS - 1)), f2(ALPHA), *GATES, f2(LEARNED), 1, PREVIOUS_GATE])
    for name, n in CLAIMS.items():
        numbers(r, p, part, r"\*\*\d+\. " + re.escape(name), [n])
    numbers(r, p, part, r"\*\*The \d+ pairs, a secondary reading\.\*\*[^\n]*", [P, P, E])
    numbers(r, p, part, r"equivalent within ±\S+ in", [f2(MARGIN)])
    numbers(r, p, part, r"\(a mean over seeds of \S+ or more at N\): the pairs, [^\n]*", [f2(LEARNED), 0])
    numbers(r, p, part, r"At N the randomized forms [^\n]*", [ANY, ANY, 1, N, ANY, ANY, f2(LEARNED), 0])
    if "In no pair did both forms learn the training lengths" not in p.text:
        numbers(r, p, part, r"Where both forms learned the training lengths, at N [^\n]*",
                [ANY, ANY, 1, N, ANY, ANY, 1], whole=False)
    for nth, head in ((0, [f"gate at length {N}", "tasks", "pairs", "pairs left out: did not learn, ceiling, floor",
                           "mean random − plain", f"{CI}% interval", "p, signed-rank over tasks", "verdict"]),
                      (1, [f"gate at length {N}", "pairs", "mean random − plain", f"{CI}% interval",
                           "p, signed-rank over pairs"])):
        t = p.table("Ruoss et al.'s claims", nth, "gate at length")
        r.same(part, f"claim 1's table {nth + 1}'s header", t[1] if t else None, head)
    t = p.table("Ruoss et al.'s claims", 0, "lengths")
    r.same(part, "the cost's header", t[1] if t else None,
           ["lengths", "mean random − plain (points)", f"tasks lower, of {T}", f"{CI}% interval (points)",
            "p, signed-rank over tasks", f"pairs lower, of {P}"])
    # claims 2 and 3
    numbers(r, p, part, r"\*\*2\. Which tasks an encoding solves\.\*\*[^\n]*",
            [CLAIMS["Which tasks an encoding solves"], f2(LEARNED), N, 1, f2(SOLVED), N + 1, M])
    t = p.table("Ruoss et al.'s claims", 0, "level | task | best at")
    r.same(part, "claim 2's header", t[1] if t else None,
           ["level", "task", f"best at {N}", f"best on {N + 1}..{M} (its best seed)", f"none on {N + 1}..{M}",
            f"chance on {N + 1}..{M}"])
    numbers(r, p, part, r"\*\*3\. Each encoding by level\.\*\*[^\n]*",
            [CLAIMS["Each encoding by level"], N + 1, M, BOLD_WITHIN_CLAIM3, C])
    # the last section
    numbers(r, p, part, r"\(Romano et al\. \d+\)", [CITATIONS["Romano et al."]])
    numbers(r, p, part, r"\*\*The bootstrap\*\* \(claim \d+'s", [1])
    numbers(r, p, part, r"Claim \d+ is then decided again", [1])
    numbers(r, p, part, r"- \*\*The bootstrap\*\*[^\n]*",
            [1, 64, BOOT_SEED, BOOT_DRAWS, 64, 2, 64, 1, 2, 64, 1, "0.025", 1, "0.975", 1, 0,
             math.floor(0.025 * (BOOT_DRAWS - 1)), math.ceil(0.975 * (BOOT_DRAWS - 1))])
    numbers(r, p, part, r"- \*\*The stability's resamples\*\*[^\n]*",
            [1, 1, STABILITY_RESAMPLES, STABILITY_BASE, STABILITY_BASE + 1, STABILITY_BASE + STABILITY_RESAMPLES, 1])
    numbers(r, p, part, r"- \*\*The U test\*\*[^\n]*", [tiny(TIE), 1, U_EXACT_ALL, U_EXACT_ALL // 2,
                                                          f2(MARGIN), f2(MARGIN)])
    numbers(r, p, part, r"- \*\*The Hodges-Lehmann estimate\*\*[^\n]*", [1, 2, 1, CI, 1, U_EXACT_ALL])
    numbers(r, p, part, r"- \*\*Cliff's delta\*\*[^\n]*", [*(printed("%g", c) for c in CLIFF), CITATIONS["Romano et al."]])
    numbers(r, p, part, r"- \*\*Ahead or behind\*\*[^\n]*", [f2(ALPHA), 0])
