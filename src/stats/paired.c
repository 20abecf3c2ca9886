/* Paired differences (stats.h): Wilcoxon's signed-rank test and a
 * bootstrap interval of their mean, for a claim about an average over
 * units that each give one number (a task, or a task and an encoding). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "alloc.h"
#include "stats.h"

static int by_abs(const void *a, const void *b) {
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Two |d| this close tie: differences of mean accuracies that are one
 * rational number reach here through different sums and differ in the
 * last bits (0.0659722... twice, 3e-16 apart, on the benchmark's page);
 * accuracies differ by 1/items at least, far above this. */
static bool same(double a, double b) { return fabs(a - b) <= RANK_TIE * fmax(fabs(a), fabs(b)); }

/* The m nonzero differences of d, sorted by |d|, in x; their doubled
 * midranks (integers: a group of tied |d| from place i to j - 1 shares
 * i + 1 + j) in r2; the doubled W+ in *w2 and the tie term, the sum of
 * t^3 - t over the groups, in *ties. Zero differences carry no sign and
 * are dropped (Wilcoxon's way). */
static void signed_ranks(double *x, size_t m, size_t *r2, size_t *w2, double *ties) {
    qsort(x, m, sizeof *x, by_abs);
    *w2 = 0, *ties = 0.0;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && same(fabs(x[j]), fabs(x[i])); j++)
            ;
        for (size_t k = i; k < j; k++) {
            r2[k] = i + 1 + j;
            *w2 += x[k] > 0 ? r2[k] : 0;
        }
        double t = (double)(j - i);
        *ties += t * t * t - t;
    }
}

/* The exact two-sided p given the ties: under the null each sign is + or
 * - with chance 1/2 apart from the others, so the doubled W+ is the sum
 * of the r2 with a + sign; its distribution over the 2^m patterns, built
 * one rank at a time (prob[s] after rank k: the chance that the first k
 * give s), and p = P(|S - mean| >= |W - mean|). The sums are integers,
 * so the comparison is exact; the chances are sums of multiples of
 * 2^-m, exact in a double for m < 53 and within rounding beyond. NaN
 * when memory ran out. */
static double exact_p(const size_t *r2, size_t m, size_t w2) {
    size_t total = 0;
    for (size_t k = 0; k < m; k++)
        total += r2[k];
    double *prob = stats_alloc(total + 1, sizeof *prob);
    if (!prob)
        return NAN;
    prob[0] = 1.0;
    for (size_t k = 0, top = 0; k < m; k++) {
        top += r2[k];
        for (size_t s = top + 1; s-- > 0;)
            prob[s] = 0.5 * prob[s] + (s >= r2[k] ? 0.5 * prob[s - r2[k]] : 0.0);
    }
    /* doubled distances from the mean, total / 2: integers */
    size_t far = w2 * 2 > total ? w2 * 2 - total : total - w2 * 2;
    double p = 0.0;
    for (size_t s = 0; s <= total; s++)
        p += (s * 2 > total ? s * 2 - total : total - s * 2) >= far ? prob[s] : 0.0;
    free(prob);
    return p > 1.0 ? 1.0 : p;
}

/* The normal approximation to W+ with midranks, the tie correction of its
 * variance and the continuity correction. */
static double normal_p(size_t m, size_t w2, double ties) {
    double mu = (double)m * (double)(m + 1) / 4.0, w = (double)w2 / 2.0;
    double var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24.0 - ties / 48.0;
    if (var <= 0.0)
        return 1.0;
    double z = (fabs(w - mu) - 0.5) / sqrt(var);
    return z <= 0.0 ? 1.0 : erfc(z / sqrt(2.0));
}

double wilcoxon_signed_rank_p(const double *d, size_t n, bool *exact) {
    if (exact)
        *exact = true;
    double *x = stats_alloc(n, sizeof *x);
    size_t *r2 = stats_alloc(n, sizeof *r2);
    double p = NAN;
    size_t m = 0;
    for (size_t i = 0; x && r2 && i < n; i++) {
        if (isnan(d[i]))
            goto done;
        if (fabs(d[i]) > WILCOXON_ZERO)
            x[m++] = d[i];
    }
    if (!x || !r2)
        goto done;
    if (m == 0) { /* nothing left carries a sign: no evidence */
        p = 1.0;
        goto done;
    }
    size_t w2;
    double ties;
    signed_ranks(x, m, r2, &w2, &ties);
    bool small = m <= WILCOXON_EXACT_MAX;
    if (exact)
        *exact = small;
    p = small ? exact_p(r2, m, w2) : normal_p(m, w2, ties);
done:
    free(x);
    free(r2);
    return p;
}

/* The means of draws resamples of d, each n indices drawn in turn from
 * the generator seeded with seed and its units summed in the order drawn
 * over n, into m. */
static void resampled_means(const double *d, size_t n, size_t draws, uint64_t seed, double *m) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t b = 0; b < draws; b++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += d[rng_below(&r, n)];
        m[b] = s / (double)n;
    }
}

/* The percentile interval's order statistics: the 2.5% and 97.5% points
 * of the resampled means, each the nearest outwards. */
static size_t lo_at(size_t draws) { return (size_t)floor(0.025 * (double)(draws - 1)); }
static size_t hi_at(size_t draws) { return (size_t)ceil(0.975 * (double)(draws - 1)); }

int bootstrap_mean_ci(const double *d, size_t n, size_t draws, uint64_t seed, double *mean,
                      double *lo, double *hi) {
    *mean = *lo = *hi = NAN;
    if (n == 0 || draws < 40)
        return -1;
    double *m = stats_alloc(draws, sizeof *m);
    if (!m)
        return -1;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += d[i];
    *mean = sum / (double)n;
    resampled_means(d, n, draws, seed, m);
    qsort(m, draws, sizeof *m, by_value);
    *lo = m[lo_at(draws)];
    *hi = m[hi_at(draws)];
    free(m);
    return 0;
}

int bootstrap_mean_side(const double *d, size_t n, size_t draws, uint64_t seed) {
    if (n == 0 || draws < 40)
        return 0;
    double *m = stats_alloc(draws, sizeof *m);
    if (!m)
        return 0;
    resampled_means(d, n, draws, seed, m);
    /* the sorted means' entry lo_at lies above 0 when no more than lo_at
     * of them are at or below it, and entry hi_at below 0 when no more
     * than draws - 1 - hi_at are at or above it: the interval's side
     * without the sort */
    size_t at_or_below = 0, at_or_above = 0;
    for (size_t b = 0; b < draws; b++)
        at_or_below += m[b] <= 0.0, at_or_above += m[b] >= 0.0;
    free(m);
    return at_or_below <= lo_at(draws) ? 1 : at_or_above <= draws - 1 - hi_at(draws) ? -1 : 0;
}
