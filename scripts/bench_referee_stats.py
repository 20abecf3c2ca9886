"""The statistics of scripts/bench_referee.py, from the page's words (its docstring says
where the words left a choice): Wilcoxon's signed-rank test, the U tests, Hodges-Lehmann,
Cliff's delta, Holm, and the Monte Carlo band of a bootstrap interval. Standard library only."""
import math
import random

MARGIN = 0.02       # the equivalence margin the page states
EXACT_MAX = 200     # the signed-rank test is exact up to this many differences (the page)
MY_DRAWS = 20000    # this reader's bootstrap resamples
SIGMAS = 4.0        # the Monte Carlo band's width, in standard errors of a quantile


def tie(x, y):
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def signed_rank(d):
    """Wilcoxon's two-sided p over the differences d, and whether exact."""
    x = sorted((v for v in d if abs(v) > 1e-12), key=abs)
    m = len(x)
    if m == 0:
        return 1.0, True
    r2, i = [0] * m, 0  # doubled midranks
    while i < m:
        j = i + 1
        while j < m and abs(abs(x[j]) - abs(x[i])) <= 1e-9 * max(abs(x[j]), abs(x[i])):
            j += 1
        r2[i:j] = [i + 1 + j] * (j - i)
        i = j
    w2, total = sum(r for r, v in zip(r2, x) if v > 0), sum(r2)
    if m > EXACT_MAX:
        groups = {}
        for r in r2:
            groups[r] = groups.get(r, 0) + 1
        var = m * (m + 1) * (2 * m + 1) / 24 - sum(t ** 3 - t for t in groups.values()) / 48
        z = (abs(w2 / 2 - m * (m + 1) / 4) - 0.5) / math.sqrt(var)
        return (1.0 if z <= 0 else math.erfc(z / math.sqrt(2))), False
    ways = [1] + [0] * total
    for r in r2:
        ways = [ways[s] + (ways[s - r] if s >= r else 0) for s in range(total + 1)]
    far = abs(2 * w2 - total)
    return sum(w for s, w in enumerate(ways) if abs(2 * s - total) >= far) / 2 ** m, True


def rank_sums(r2, k):
    """How many k-subsets of the scores r2 sum to each total."""
    ways = [{0: 1}] + [{} for _ in range(k)]
    for r in r2:
        for j in range(k, 0, -1):
            for s, w in ways[j - 1].items():
                ways[j][s + r] = ways[j].get(s + r, 0) + w
    return ways[k]


def u_test(a, b, side="both"):
    """The exact U test of a against b, as a rank sum of a (ties at mean ranks)."""
    v = sorted([(x, 1) for x in a] + [(y, 0) for y in b])
    r2, i = [], 0
    while i < len(v):
        j = i + 1
        while j < len(v) and tie(v[j][0], v[i][0]):
            j += 1
        r2 += [i + 1 + j] * (j - i)
        i = j
    obs = sum(r for r, (_, mine) in zip(r2, v) if mine)
    ways = rank_sums(r2, len(a))
    mean = len(a) * (len(v) + 1)
    hit = sum(w for s, w in ways.items() if (abs(s - mean) >= abs(obs - mean) if side == "both" else
                                             s >= obs if side == "greater" else s <= obs))
    return min(1.0, hit / sum(ways.values()))


def hl_k(na, nb):
    """k of the Hodges-Lehmann interval and its coverage (ranks without ties)."""
    ways = rank_sums([2 * (i + 1) for i in range(na + nb)], na)
    total, base = sum(ways.values()), na * (na + 1)
    cdf = [0.0]
    for u in range(na * nb + 1):
        cdf.append(cdf[-1] + ways.get(base + 2 * u, 0) / total)  # cdf[u + 1] = P(U <= u)
    k = 1
    while k < na * nb and cdf[k + 1] < 0.025:
        k += 1
    return k, 1 - 2 * cdf[k]


def pair_stats(a, b):
    d = sorted(x - y for x in a for y in b)
    n = len(d)
    k, _ = hl_k(len(a), len(b))
    delta = (sum(x > y for x in a for y in b) - sum(x < y for x in a for y in b)) / n
    return {"p": u_test(a, b), "shift": d[n // 2] if n % 2 else (d[n // 2 - 1] + d[n // 2]) / 2,
            "lo": d[k - 1], "hi": d[n - k], "delta": delta,
            "tost": max(u_test(a, [y - MARGIN for y in b], "greater"),
                        u_test(a, [y + MARGIN for y in b], "less"))}


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adj, top = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        top = max(top, min(1.0, (len(ps) - rank) * ps[i]))
        adj[i] = top
    return adj


def cliff_words(d):
    d = abs(d)
    return "negligible" if d < 0.147 else "small" if d < 0.33 else "medium" if d < 0.474 else "large"


def boot_band(d, seed, page_draws):
    """Where the page's bootstrap endpoints may lie: ((lo, hi) of its 2.5% point, of its 97.5%)."""
    rng, n = random.Random(seed), len(d)
    means = sorted(sum(rng.choices(d, k=n)) / n for _ in range(MY_DRAWS))
    at = lambda p: means[min(MY_DRAWS - 1, max(0, round(p * (MY_DRAWS - 1))))]
    bands = []
    for p in (0.025, 0.975):
        e = SIGMAS * math.sqrt(p * (1 - p) * (1 / page_draws + 1 / MY_DRAWS))
        bands.append((at(p - e), at(p + e)))
    return bands
