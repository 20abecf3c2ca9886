/* The statistics the results page states its verdicts with: whether an
 * accuracy is at chance (a binomial interval), whether two sets of seeds
 * differ (the Mann-Whitney U test, exact for small sets) and by how much
 * (Cliff's delta). Plain arrays in, numbers out. */
#ifndef POSENC_EXP_STATS_H
#define POSENC_EXP_STATS_H

#include <stddef.h>

/* The Wilson score interval at 95% for k successes in n trials (n > 0):
 * where the true rate lies, 19 times in 20. An accuracy is "at chance"
 * when its interval holds the chance rate. */
void wilson95(double k, double n, double *lo, double *hi);

/* The two-sided p-value of the Mann-Whitney U test that a (na values) and
 * b (nb) come from one distribution: exact, by every way of splitting the
 * pooled ranks (ties take their mean rank), for na + nb <= 20; the normal
 * approximation beyond. With 3 seeds against 3 the smallest p possible is
 * 0.1, with 5 against 5 it is 0.0079: a difference called real at p <
 * 0.05 needs 5 seeds or more. NaN when a set is empty. */
double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* Cliff's delta, P(a > b) - P(a < b) over all pairs: -1 to 1, the effect
 * size that goes with the U test (|d| < 0.15 negligible, < 0.33 small,
 * < 0.47 medium, else large: Romano et al. 2006). */
double cliffs_delta(const double *a, size_t na, const double *b, size_t nb);

/* "negligible", "small", "medium" or "large" for a delta. */
const char *cliffs_size(double delta);

#endif
