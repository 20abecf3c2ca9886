/* The statistics of two sets of seeds, of one set and of a family of
 * tests (stats.h); paired differences are paired.c's. */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* What stats_failed reports: a statistic that could not get its memory
 * since stats_clear. */
static bool out_of_memory;

void *stats_alloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    out_of_memory |= p == NULL;
    return p;
}

void stats_clear(void) { out_of_memory = false; }

bool stats_failed(void) { return out_of_memory; }

void wilson95(double k, double n, double *lo, double *hi) {
    const double z = 1.959963984540054; /* the normal's 97.5% point */
    double p = k / n, z2 = z * z / n;
    double centre = (p + z2 / 2.0) / (1.0 + z2);
    double half = z / (1.0 + z2) * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n));
    *lo = centre - half;
    *hi = centre + half;
}

/* ---- ranks and the exact null of a rank sum ---- */

typedef struct {
    double v;
    size_t i; /* where v came from */
} Indexed;

static int by_value(const void *x, const void *y) {
    double a = ((const Indexed *)x)->v, b = ((const Indexed *)y)->v;
    return (a > b) - (a < b);
}

static int by_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Two values this close tie: b shifted by a margin (0.70 + 0.02) lands an
 * ulp or so off the same number read from a file (0.72), and must tie with
 * it, else the equivalence test's verdict at the margin is a rounding
 * accident. Accuracies differ by 1/items at least, far above this. */
static bool same_value(double x, double y) {
    return fabs(x - y) <= RANK_TIE * fmax(1.0, fmax(fabs(x), fabs(y)));
}

/* Doubled mean ranks of v[0..n) in r2 (1-based ranks; tied values share
 * the mean of theirs, which doubled is an integer, so that the exact null
 * below counts integer sums), and the tie term, the sum of t^3 - t over
 * the groups of t tied values. A group grows while a value ties the
 * group's first, so that a chain of near values cannot grow it without
 * end. Returns 0, or -1 when memory ran out. */
static int ranks2(const double *v, size_t n, size_t *r2, double *ties) {
    Indexed *s = stats_alloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < n; i++)
        s[i] = (Indexed){v[i], i};
    qsort(s, n, sizeof *s, by_value);
    *ties = 0.0;
    for (size_t from = 0, to; from < n; from = to) {
        for (to = from + 1; to < n && same_value(s[to].v, s[from].v); to++)
            ;
        for (size_t j = from; j < to; j++)
            r2[s[j].i] = from + 1 + to; /* 2 x the mean of ranks from+1..to */
        double t = (double)(to - from);
        *ties += t * t * t - t;
    }
    free(s);
    return 0;
}

/* cnt[s] (s = 0..total) counts the ways of choosing k of the n scores r2
 * whose sum is s: the exact null distribution of a rank sum, each of the
 * C(n, k) choices equally likely, ties included (the permutation
 * distribution given the ties). A 0/1 knapsack over the scores, n k total
 * steps (20 x 10 x 420 for 10 seeds against 10) where enumerating the
 * 184756 choices takes about 1 ms; the counts are integers, exact in a
 * double below 2^53. NULL when memory ran out; the caller frees. */
static double *sum_counts(const size_t *r2, size_t n, size_t k, size_t total) {
    size_t w = total + 1;
    if (k + 1 > SIZE_MAX / sizeof(double) / w)
        return NULL;
    double *t = stats_alloc((k + 1) * w, sizeof *t); /* t[j w + s]: j chosen, summing to s */
    if (!t)
        return NULL;
    t[0] = 1.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1 < k ? i + 1 : k; j >= 1; j--) /* downwards: score i used once */
            for (size_t s = total + 1; s-- > r2[i];)
                t[j * w + s] += t[(j - 1) * w + s - r2[i]];
    memmove(t, t + k * w, w * sizeof *t);
    return t;
}

typedef enum { TAIL_BOTH, TAIL_GREATER, TAIL_LESS } Tail;

/* The p of the U test of a against b + shift: of a's rank sum as far from
 * its null mean as observed or farther (TAIL_BOTH), as high or higher
 * (TAIL_GREATER: a above b), as low or lower (TAIL_LESS). Exact up to
 * MW_EXACT_MAX values; beyond, the normal approximation to the rank sum
 * with the tie correction of its variance (no continuity correction, as
 * the page's p's have always been). NaN when a set is empty, a value is
 * NaN, or memory ran out. */
static double mw_tail(const double *a, size_t na, const double *b, size_t nb, double shift,
                      Tail tail) {
    if (!na || !nb)
        return NAN;
    size_t n = na + nb;
    double *v = stats_alloc(n, sizeof *v), p = NAN, ties;
    size_t *r2 = stats_alloc(n, sizeof *r2);
    if (!v || !r2)
        goto done;
    for (size_t i = 0; i < n; i++) {
        v[i] = i < na ? a[i] : b[i - na] + shift;
        if (isnan(v[i]))
            goto done;
    }
    if (ranks2(v, n, r2, &ties))
        goto done;
    size_t obs = 0;
    for (size_t i = 0; i < na; i++)
        obs += r2[i];
    double mean = (double)na * ((double)n + 1.0); /* doubled, as obs */
    double dev = (double)obs - mean;
    if (n <= MW_EXACT_MAX) {
        double *cnt = sum_counts(r2, n, na, n * (n + 1));
        if (!cnt)
            goto done;
        double hit = 0.0, all = 0.0;
        for (size_t s = 0; s <= n * (n + 1); s++) {
            double d = (double)s - mean; /* integers: the comparisons are exact */
            bool in = tail == TAIL_BOTH      ? fabs(d) >= fabs(dev)
                      : tail == TAIL_GREATER ? d >= dev
                                             : d <= dev;
            all += cnt[s];
            hit += in ? cnt[s] : 0.0;
        }
        free(cnt);
        p = hit / all;
    } else {
        double nn = (double)n;
        double var = (double)na * (double)nb / 12.0 * (nn + 1.0 - ties / (nn * (nn - 1.0)));
        if (var <= 0.0) /* every value tied: every split gives the observed sum */
            p = 1.0;
        else {
            double z = dev / 2.0 / sqrt(var);
            p = tail == TAIL_BOTH      ? erfc(fabs(z) / sqrt(2.0))
                : tail == TAIL_GREATER ? 0.5 * erfc(z / sqrt(2.0))
                                       : 0.5 * erfc(-z / sqrt(2.0));
        }
    }
done:
    free(v);
    free(r2);
    return p > 1.0 ? 1.0 : p;
}

double mann_whitney_min_p(size_t na, size_t nb, int sides) {
    double c = 1.0; /* C(na + nb, na), built as a product of ratios */
    for (size_t k = 1; k <= na; k++)
        c = c * (double)(nb + k) / (double)k;
    double p = (double)sides / c;
    return p > 1.0 ? 1.0 : p;
}

double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb) {
    return mw_tail(a, na, b, nb, 0.0, TAIL_BOTH);
}

double mann_whitney_greater_p(const double *a, size_t na, const double *b, size_t nb) {
    return mw_tail(a, na, b, nb, 0.0, TAIL_GREATER);
}

double tost_p(const double *a, size_t na, const double *b, size_t nb, double margin) {
    if (!(margin > 0.0))
        return NAN;
    /* a above b - margin rejects a - b <= -margin; a below b + margin
     * rejects a - b >= +margin */
    double lower = mw_tail(a, na, b, nb, -margin, TAIL_GREATER);
    double upper = mw_tail(a, na, b, nb, margin, TAIL_LESS);
    return isnan(lower) || isnan(upper) ? NAN : fmax(lower, upper);
}

/* ---- the Hodges-Lehmann interval ---- */

/* k of hodges_lehmann's interval and the coverage it achieves: the null of
 * U = (rank sum of a) - na (na + 1) / 2 over ranks 1..n without ties, the
 * largest k >= 1 with P(U <= k - 1) < 0.025 (at k = 1 even if P(U = 0)
 * is larger, as R's wilcox.test), coverage 1 - 2 P(U <= k - 1). Beyond
 * MW_EXACT_MAX values, P(U <= u) from the normal with a continuity
 * correction. Returns 0, or -1 when memory ran out. */
static int hl_rank(size_t na, size_t nb, size_t *k, double *coverage) {
    const double z = 1.959963984540054, half = 0.025;
    size_t n = na + nb;
    double mu = (double)na * (double)nb / 2.0;
    if (n > MW_EXACT_MAX) {
        double sd = sqrt((double)na * (double)nb * ((double)n + 1.0) / 12.0);
        double x = ceil(mu - 0.5 - z * sd); /* largest u with cdf(u) < half, plus 1 */
        *k = x < 1.0 ? 1 : (size_t)x;
        *coverage = 1.0 - erfc(-((double)*k - 0.5 - mu) / sd / sqrt(2.0));
        return 0;
    }
    size_t r2[MW_EXACT_MAX] = {0}; /* the doubled ranks 1..n */
    for (size_t i = 0; i < n; i++)
        r2[i] = 2 * (i + 1);
    double *cnt = sum_counts(r2, n, na, n * (n + 1));
    if (!cnt)
        return -1;
    double all = 0.0;
    for (size_t s = 0; s <= n * (n + 1); s++)
        all += cnt[s];
    /* doubled rank sums of U = 0, 1, 2, ... are na (na + 1) + 2u */
    size_t base = na * (na + 1), u = 0;
    double cdf = cnt[base] / all; /* P(U <= u) */
    while (base + 2 * (u + 1) <= n * (n + 1)) {
        double next = cdf + cnt[base + 2 * (u + 1)] / all;
        if (next >= half)
            break;
        cdf = next, u++;
    }
    /* here P(U <= u) < half <= P(U <= u + 1), or P(U <= 0) >= half */
    *k = cdf < half ? u + 1 : 1;
    *coverage = 1.0 - 2.0 * cdf;
    free(cnt);
    return 0;
}

double hl_coverage(size_t na, size_t nb) {
    size_t k;
    double coverage;
    return na && nb && !hl_rank(na, nb, &k, &coverage) ? coverage : NAN;
}

int hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double *est, double *lo,
                   double *hi) {
    *est = *lo = *hi = NAN;
    size_t k;
    double coverage;
    if (!na || !nb || na > SIZE_MAX / sizeof(double) / nb || hl_rank(na, nb, &k, &coverage))
        return -1;
    size_t m = na * nb;
    double *d = stats_alloc(m, sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[i * nb + j] = a[i] - b[j];
    for (size_t i = 0; i < m; i++)
        if (isnan(d[i])) {
            free(d);
            return -1;
        }
    qsort(d, m, sizeof *d, by_double);
    *est = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2.0;
    *lo = d[k - 1];
    *hi = d[m - k];
    free(d);
    return 0;
}

/* ---- Cliff's delta ---- */

double cliffs_delta(const double *a, size_t na, const double *b, size_t nb) {
    if (!na || !nb)
        return NAN;
    double more = 0.0, less = 0.0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            more += a[i] > b[j], less += a[i] < b[j];
    return (more - less) / ((double)na * (double)nb);
}

const char *cliffs_size(double delta) {
    double d = fabs(delta);
    return d < CLIFF_SMALL    ? "negligible"
           : d < CLIFF_MEDIUM ? "small"
           : d < CLIFF_LARGE  ? "medium"
                              : "large";
}

/* ---- Student's t ---- */

/* The continued fraction of the incomplete beta function, evaluated by the
 * modified Lentz method (Numerical Recipes, 3rd ed., section 6.4); it
 * converges fast for x < (a + 1) / (a + b + 2), which betai sees to. */
static double beta_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        for (int odd = 0; odd < 2; odd++) {
            double aa = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
                            : m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m));
            d = 1.0 + aa * d;
            d = 1.0 / (fabs(d) < tiny ? tiny : d);
            c = 1.0 + aa / c;
            c = fabs(c) < tiny ? tiny : c;
            h *= d * c;
            if (odd && fabs(d * c - 1.0) < 1e-15)
                return h;
        }
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b), y = 1 - x passed
 * apart so that x near 1 keeps its precision; by the symmetry I_x(a, b) =
 * 1 - I_y(b, a) where the fraction would converge slowly. */
static double betai(double a, double b, double x, double y) {
    if (x <= 0.0)
        return 0.0;
    if (y <= 0.0)
        return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction(a, b, x) / a;
    return 1.0 - front * beta_fraction(b, a, y) / b;
}

/* P(|T| >= |t|) with df degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2). */
static double t_two_sided(double t, double df) {
    if (isinf(t))
        return 0.0;
    double t2 = t * t;
    return betai(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
}

double student_t_cdf(double t, double df) {
    if (isnan(t) || !(df > 0.0))
        return NAN;
    double tail = t_two_sided(t, df) / 2.0; /* P(T >= |t|), precise when small */
    return t > 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double prob, double df) {
    if (!(prob > 0.0 && prob < 1.0) || !(df > 0.0))
        return NAN;
    if (prob < 0.5)
        return -student_t_quantile(1.0 - prob, df);
    double lo = 0.0, hi = 1.0;
    while (student_t_cdf(hi, df) < prob && hi < 1e300)
        lo = hi, hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) { /* bisection: the cdf rises */
        double mid = (lo + hi) / 2.0;
        if (student_t_cdf(mid, df) < prob)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

/* The mean of x[0..n) and its standard error; the error is exactly 0 when
 * every value is the same (rounding in the mean would make it tiny but
 * not 0, and the t test's answer a rounding accident). -1 when n < 2 or a
 * value is NaN. */
static int mean_se(const double *x, size_t n, double *mean, double *se) {
    if (n < 2)
        return -1;
    double sum = 0.0, ss = 0.0;
    bool alike = true;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            return -1;
        sum += x[i];
        alike = alike && x[i] == x[0];
    }
    *mean = alike ? x[0] : sum / (double)n;
    for (size_t i = 0; i < n && !alike; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *se = sqrt(ss / ((double)n - 1.0) / (double)n);
    return 0;
}

double one_sample_t(const double *x, size_t n, double mu, double *mean, double *lo95,
                    double *hi95) {
    double m, se;
    *mean = *lo95 = *hi95 = NAN;
    if (mean_se(x, n, &m, &se))
        return NAN;
    double df = (double)n - 1.0, q = student_t_quantile(0.975, df);
    *mean = m;
    *lo95 = m - q * se;
    *hi95 = m + q * se;
    if (se == 0.0)
        return m == mu ? 1.0 : 0.0;
    return t_two_sided((m - mu) / se, df);
}

/* P(T >= (m - at) / se): small when the mean m lies clearly above at; at
 * se = 0, 0 above at and 1 at or below it. */
static double t_above(double m, double at, double se, double df) {
    if (se == 0.0)
        return m > at ? 0.0 : 1.0;
    return student_t_cdf(-(m - at) / se, df);
}

double one_sample_tost_p(const double *x, size_t n, double mu, double margin) {
    double m, se;
    if (!(margin > 0.0) || mean_se(x, n, &m, &se))
        return NAN;
    double df = (double)n - 1.0;
    /* above mu - margin, and below mu + margin (-m above -(mu + margin)) */
    return fmax(t_above(m, mu - margin, se, df), t_above(-m, -(mu + margin), se, df));
}

/* ---- a family of tests ---- */

/* The non-NaN values of p[0..n) sorted up, with where each came from, and
 * their count in *m; every adj[i] NaN. NULL when memory ran out. adj may
 * be p: p is read before adj is written. */
static Indexed *family_sorted(const double *p, size_t n, double *adj, size_t *m) {
    Indexed *s = stats_alloc(n, sizeof *s);
    *m = 0;
    for (size_t i = 0; s && i < n; i++)
        if (!isnan(p[i]))
            s[(*m)++] = (Indexed){p[i], i};
    for (size_t i = 0; i < n; i++)
        adj[i] = NAN;
    if (s)
        qsort(s, *m, sizeof *s, by_value);
    return s;
}

int holm_adjust(const double *p, size_t n, double *adj) {
    size_t m;
    Indexed *s = family_sorted(p, n, adj, &m);
    if (!s)
        return -1;
    double run = 0.0; /* the running maximum keeps the adjusted p's in p's order */
    for (size_t j = 0; j < m; j++) {
        run = fmax(run, fmin(1.0, (double)(m - j) * s[j].v));
        adj[s[j].i] = run;
    }
    free(s);
    return 0;
}

int bh_adjust(const double *p, size_t n, double *adj) {
    size_t m;
    Indexed *s = family_sorted(p, n, adj, &m);
    if (!s)
        return -1;
    double run = 1.0; /* the running minimum from the largest down */
    for (size_t j = m; j >= 1; j--) {
        run = fmin(run, (double)m * s[j - 1].v / (double)j);
        adj[s[j - 1].i] = run;
    }
    free(s);
    return 0;
}
