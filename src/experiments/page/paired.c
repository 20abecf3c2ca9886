/* Paired differences (stats.h): Wilcoxon's signed-rank test and a
 * bootstrap interval of their mean, for a claim about an average over
 * pairs ("on average over tasks and encodings"), each pair one number. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../core/rng.h"
#include "stats.h"

/* Where no rank ties and n <= this, the exact null distribution (the
 * counts of the 2^n sign patterns by rank sum, n(n+1)/2 + 1 of them). */
#define WILCOXON_EXACT_MAX 60

static int by_abs(const void *a, const void *b) {
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool same(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

double wilcoxon_signed_rank_p(const double *d, size_t n) {
    double *x = exp_page_alloc(n ? n : 1, sizeof *x);
    if (!x)
        return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(d[i])) {
            free(x);
            return NAN;
        }
        if (fabs(d[i]) > 1e-12) /* zero differences carry no sign: dropped (Wilcoxon's way) */
            x[m++] = d[i];
    }
    if (m == 0) {
        free(x);
        return 1.0;
    }
    qsort(x, m, sizeof *x, by_abs);
    /* W+ with midranks; the ties' sum of t^3 - t for the variance */
    double w = 0.0, ties = 0.0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && same(fabs(x[j]), fabs(x[i])))
            j++;
        double rank = 0.5 * (double)(i + 1 + j), t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            w += x[k] > 0 ? rank : 0.0;
        ties += t * t * t - t;
        i = j;
    }
    free(x);
    double mu = (double)m * (double)(m + 1) / 4.0;
    if (ties == 0.0 && m <= WILCOXON_EXACT_MAX) {
        size_t top = m * (m + 1) / 2;
        double *count = exp_page_alloc(top + 1, sizeof *count);
        if (!count)
            return NAN;
        count[0] = 1.0;
        for (size_t r = 1; r <= m; r++)
            for (size_t s = top; s >= r; s--)
                count[s] += count[s - r];
        /* two-sided: twice the smaller tail, at most 1 */
        double lo = 0.0, hi = 0.0, total = ldexp(1.0, (int)m);
        for (size_t s = 0; s <= top; s++) {
            if ((double)s <= w + 1e-9)
                lo += count[s];
            if ((double)s >= w - 1e-9)
                hi += count[s];
        }
        free(count);
        double p = 2.0 * fmin(lo, hi) / total;
        return p > 1.0 ? 1.0 : p;
    }
    double var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24.0 - ties / 48.0;
    if (var <= 0.0)
        return 1.0;
    double z = (fabs(w - mu) - 0.5) / sqrt(var); /* with the continuity correction */
    return z <= 0.0 ? 1.0 : erfc(z / sqrt(2.0));
}

int bootstrap_mean_ci(const double *d, size_t n, size_t draws, uint64_t seed, double *mean,
                      double *lo, double *hi) {
    *mean = *lo = *hi = NAN;
    if (n == 0 || draws < 40)
        return -1;
    double *m = exp_page_alloc(draws, sizeof *m);
    if (!m)
        return -1;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += d[i];
    *mean = sum / (double)n;
    Rng r;
    rng_seed(&r, seed);
    for (size_t b = 0; b < draws; b++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += d[rng_below(&r, n)];
        m[b] = s / (double)n;
    }
    qsort(m, draws, sizeof *m, by_value);
    /* the percentile interval: the 2.5% and 97.5% points of the resampled
     * means, each the nearest order statistic below */
    *lo = m[(size_t)floor(0.025 * (double)(draws - 1))];
    *hi = m[(size_t)ceil(0.975 * (double)(draws - 1))];
    free(m);
    return 0;
}
