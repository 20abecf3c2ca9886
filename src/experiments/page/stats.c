#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

void wilson95(double k, double n, double *lo, double *hi) {
    const double z = 1.959963984540054; /* the normal's 97.5% point */
    double p = k / n, z2 = z * z / n;
    double centre = (p + z2 / 2.0) / (1.0 + z2);
    double half = z / (1.0 + z2) * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n));
    *lo = centre - half;
    *hi = centre + half;
}

/* Mean ranks (1-based) of v[0..n): tied values share the mean of theirs. */
static void midranks(const double *v, size_t n, double *rank) {
    for (size_t i = 0; i < n; i++) {
        size_t below = 0, equal = 0;
        for (size_t j = 0; j < n; j++)
            below += v[j] < v[i], equal += v[j] == v[i];
        rank[i] = (double)below + ((double)equal + 1.0) / 2.0;
    }
}

/* Counts the splits of rank[0..n) into a first set of k whose rank sum is
 * as far from its mean as dev or farther (the exact null distribution,
 * every split equally likely); total counts them all. */
static void splits(const double *rank, size_t n, size_t k, size_t from, double sum,
                   double mean, double dev, double *extreme, double *total) {
    if (k == 0) {
        *total += 1.0;
        *extreme += fabs(sum - mean) >= dev - 1e-9;
        return;
    }
    for (size_t i = from; i + k <= n; i++)
        splits(rank, n, k - 1, i + 1, sum + rank[i], mean, dev, extreme, total);
}

double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb) {
    if (!na || !nb)
        return NAN;
    size_t n = na + nb;
    double *v = malloc(2 * n * sizeof *v);
    if (!v)
        return NAN;
    double *rank = v + n, ra = 0.0;
    for (size_t i = 0; i < n; i++)
        v[i] = i < na ? a[i] : b[i - na];
    midranks(v, n, rank);
    for (size_t i = 0; i < na; i++)
        ra += rank[i];
    double mean = (double)na * ((double)n + 1.0) / 2.0, p;
    if (n <= 20) {
        double extreme = 0.0, total = 0.0;
        splits(rank, n, na, 0, 0.0, mean, fabs(ra - mean), &extreme, &total);
        p = extreme / total;
    } else {
        /* normal approximation with the tie correction */
        double t = 0.0;
        for (size_t i = 0; i < n; i++) {
            size_t eq = 0;
            for (size_t j = 0; j < n; j++)
                eq += v[j] == v[i];
            t += (double)eq * (double)eq - 1.0; /* over a tie group of m: m^3 - m */
        }
        double nn = (double)n;
        double var = (double)na * (double)nb / 12.0 * (nn + 1.0 - t / (nn * (nn - 1.0)));
        p = var > 0.0 ? erfc(fabs(ra - mean) / sqrt(2.0 * var)) : 1.0;
    }
    free(v);
    return p > 1.0 ? 1.0 : p;
}

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
    return d < 0.147 ? "negligible" : d < 0.33 ? "small" : d < 0.474 ? "medium" : "large";
}
