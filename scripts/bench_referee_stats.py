"""The statistics of scripts/bench_referee.py, from the page's words (its rules, claim 1's
paragraph and its last section, "How each number is computed"): Wilcoxon's signed-rank test,
the U tests, Hodges-Lehmann, Cliff's delta, Holm, and the bootstrap with its generator
(xoshiro256** seeded through splitmix64, from their published definitions). Standard library
only."""
import math

MARGIN = 0.02       # the equivalence margin the page states
EXACT_MAX = 200     # the signed-rank test is exact up to this many differences (the page)
U_EXACT_ALL = 20    # the U tests are exact up to this many seeds in all (the page)
TIE = 1e-9          # values (|d|) this close, relative, tie with the first of their group (the page)
ZERO = 1e-12        # a signed-rank difference this small is a zero (the page)
CLIFF = (0.147, 0.33, 0.474)  # Cliff's delta: negligible, small, medium below these (the page)
Z975 = 1.959963984540054  # the normal's 97.5% point
M64 = (1 << 64) - 1


def tie(x, y):
    return abs(x - y) <= TIE * max(1.0, abs(x), abs(y))


def signed_rank(d):
    """Wilcoxon's two-sided p over the differences d, and whether exact."""
    x = sorted((v for v in d if abs(v) > ZERO), key=abs)
    m = len(x)
    if m == 0:
        return 1.0, True
    r2, i = [0] * m, 0  # doubled midranks
    while i < m:
        j = i + 1
        while j < m and abs(abs(x[j]) - abs(x[i])) <= TIE * max(abs(x[j]), abs(x[i])):
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
    """The U test of a against b, as a rank sum of a (ties at mean ranks): exact up to
    U_EXACT_ALL values in all, else the normal approximation with the tie correction of its
    variance and no continuity correction (the page's last section)."""
    v = sorted([(x, 1) for x in a] + [(y, 0) for y in b])
    r2, i, ties = [], 0, 0
    while i < len(v):
        j = i + 1
        while j < len(v) and tie(v[j][0], v[i][0]):
            j += 1
        r2 += [i + 1 + j] * (j - i)
        ties += (j - i) ** 3 - (j - i)
        i = j
    obs = sum(r for r, (_, mine) in zip(r2, v) if mine)
    n, na, nb = len(v), len(a), len(b)
    mean = na * (n + 1)  # doubled, as obs
    if n > U_EXACT_ALL:
        var = na * nb / 12 * (n + 1 - ties / (n * (n - 1)))
        if var <= 0:
            return 1.0
        z = (obs - mean) / 2 / math.sqrt(var)
        return min(1.0, math.erfc(abs(z) / math.sqrt(2)) if side == "both" else
                   0.5 * math.erfc((z if side == "greater" else -z) / math.sqrt(2)))
    ways = rank_sums(r2, na)
    hit = sum(w for s, w in ways.items() if (abs(s - mean) >= abs(obs - mean) if side == "both" else
                                             s >= obs if side == "greater" else s <= obs))
    return min(1.0, hit / sum(ways.values()))


def hl_k(na, nb):
    """k of the Hodges-Lehmann interval and its coverage (ranks without ties); past
    U_EXACT_ALL values, from the normal approximation with a continuity correction: the
    largest k with Phi((k - 1/2 - mu) / sd) < 0.025."""
    if na + nb > U_EXACT_ALL:
        mu, sd = na * nb / 2, math.sqrt(na * nb * (na + nb + 1) / 12)
        k = max(1, math.ceil(mu - 0.5 - Z975 * sd))
        return k, 1 - math.erfc(-(k - 0.5 - mu) / sd / math.sqrt(2))
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
    return "negligible" if d < CLIFF[0] else "small" if d < CLIFF[1] else "medium" if d < CLIFF[2] else "large"


class Xoshiro256:
    """xoshiro256** (Blackman and Vigna, https://prng.di.unimi.it/xoshiro256starstar.c), its
    state the first four outputs of splitmix64 (https://prng.di.unimi.it/splitmix64.c)
    started at the seed; below(n) draws a uniform 0..n-1 by rejection, as the page says."""

    def __init__(self, seed):
        x, self.s = seed & M64, []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def next(self):
        s0, s1, s2, s3 = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & M64
        out = (rotl((s1 * 5) & M64, 7) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        self.s = [s0, s1, s2, rotl(s3, 45)]
        return out

    def below(self, n):
        limit = M64 - M64 % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


_BOOTSTRAPS = {}  # a judge() of many pages draws each interval once


def bootstrap(d, draws, seed):
    key = (tuple(d), draws, seed)
    if key not in _BOOTSTRAPS:
        _BOOTSTRAPS[key] = _bootstrap(d, draws, seed)
    return _BOOTSTRAPS[key]


def _bootstrap(d, draws, seed):
    """The page's bootstrap interval of the mean of d, (low, high): draws resamples, each n
    indices drawn in turn and the units summed in the order drawn over n, from a generator
    seeded afresh; the sorted means' entries floor(0.025 (B - 1)) and ceil(0.975 (B - 1))."""
    # Xoshiro256.below inlined, its state in locals: the same draws, a few times faster
    s0, s1, s2, s3 = Xoshiro256(seed).s
    n = len(d)
    limit = M64 - M64 % n
    means = []
    for _ in range(draws):
        s = 0.0
        for _ in range(n):
            while True:
                x = ((s1 * 5) & M64)
                x = ((((x << 7) | (x >> 57)) & M64) * 9) & M64
                t = (s1 << 17) & M64
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = ((s3 << 45) | (s3 >> 19)) & M64
                if x < limit:
                    break
            s += d[x % n]
        means.append(s / n)
    means.sort()
    return means[math.floor(0.025 * (draws - 1))], means[math.ceil(0.975 * (draws - 1))]
