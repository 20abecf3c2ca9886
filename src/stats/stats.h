/* The statistics the pages state their verdicts with (docs/results.md,
 * docs/benchmark.md), on the seeds as units: whether two sets of seeds
 * differ (the Mann-Whitney U test, exact for small sets), whether they are
 * alike within a margin (two one-sided tests), by how much they differ
 * (Hodges-Lehmann with its interval, Cliff's delta), whether one set sits
 * at a rate (the one-sample t test and its equivalence form), and the
 * correction of a family of p-values (Holm, Benjamini-Hochberg); for units
 * that each give one number (a task), paired differences: Wilcoxon's
 * signed-rank test and a bootstrap interval of their mean (paired.c).
 * Plain arrays in, numbers out, with nothing of the project's but its
 * random number generator (the bootstrap's): the pages use them
 * (src/experiments/page/), and nothing below the pages does. A function
 * that cannot answer (an empty set, memory) returns NaN or a nonzero int,
 * never a number that looks like an answer. The rules that turn these
 * numbers into verdicts are the pages' (src/experiments/page/verdict.h). */
#ifndef POSENC_STATS_H
#define POSENC_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A statistic that cannot get its memory returns NaN or -1 (each says
 * which below), never a number that looks like an answer; and the failure
 * is remembered: stats_failed is true from then until stats_clear. A
 * writer that turns these numbers into a page asks it before writing
 * (the pages' exp_page_end), so that the failure is an error, never a
 * NaN on the page. Single-threaded, as the pages are written. */
void stats_clear(void);
bool stats_failed(void);

/* The U tests enumerate every split of the pooled values up to this many
 * values in all (10 seeds against 10), and use the normal approximation
 * beyond. */
#define MW_EXACT_MAX 20

/* Two values of a rank test tie within this: the U tests' values within
 * RANK_TIE max(1, |x|, |y|), the signed-rank test's |d| within RANK_TIE
 * max(|x|, |y|), each of the first of its group in sorted order. A
 * difference |d| <= WILCOXON_ZERO is a zero, dropped (paired.c). The
 * benchmark's page states both. */
#define RANK_TIE 1e-9
#define WILCOXON_ZERO 1e-12

/* The Wilson score interval at 95% for k successes in n trials (n > 0):
 * where the true rate lies, 19 times in 20, if the n trials are
 * independent (test sentences of one model are not independent of the
 * seed that trained it: for seeds as units see one_sample_t). */
void wilson95(double k, double n, double *lo, double *hi);

/* ---- two sets of seeds: rank tests ---- */

/* The two-sided p-value of the Mann-Whitney U test that a (na values) and
 * b (nb) come from one distribution: exact for na + nb <= MW_EXACT_MAX,
 * the normal approximation with the tie correction beyond. The smallest p
 * possible is 2 / C(na + nb, na): 0.1 with 3 seeds against 3, 2/252 =
 * 0.0079 with 5 against 5 (so no family-wise correction over 7 tests or
 * more can reject), 2/184756 = 1.1e-5 with 10 against 10. Values within
 * 1e-9 (relative) of each other tie. NaN when a set is empty, a value is
 * NaN, or memory ran out. */
double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
/* The smallest p the exact test can give for na seeds against nb, ties
 * aside: 2 / C(na + nb, na) two-sided (sides 2), 1 / C one-sided (sides
 * 1), at most 1. A page whose seeds are this few says no pair can be
 * told apart at its alpha, whatever the models do. */
double mann_whitney_min_p(size_t na, size_t nb, int sides);

/* The one-sided p-value P(U >= observed U of a) of the same test, against
 * the null that a is not stochastically greater than b: small when a's
 * values lie above b's. Exact and approximate as mann_whitney_p; the
 * smallest p possible is 1 / C(na + nb, na). */
double mann_whitney_greater_p(const double *a, size_t na, const double *b, size_t nb);

/* Equivalence of two sets of seeds within margin (> 0) on a shift of
 * location: the larger p of the two one-sided U tests of a - b > -margin
 * and a - b < +margin, b shifted by -margin and by +margin (Schuirmann's
 * two one-sided tests, 1987, in the distribution-free form of Hauschke,
 * Steinijans and Diletti, 1990; Wellek's Mann-Whitney equivalence test
 * bounds P(a > b) instead of a shift). The two are alike within margin
 * when tost_p < alpha. Without ties (and 1 / C(na + nb, na) < 0.025),
 * tost_p < 0.025 exactly when hodges_lehmann's 95% interval lies inside
 * (-margin, margin): at alpha = 0.05 the test matches a 90% interval.
 * NaN when a set is empty, margin is not positive, or memory ran out. */
double tost_p(const double *a, size_t na, const double *b, size_t nb, double margin);

/* The Hodges-Lehmann estimate of the shift a - b (the median of the na*nb
 * differences a_i - b_j) and its distribution-free confidence interval
 * [lo, hi] of at least 95%: the k-th smallest and the k-th largest
 * difference, k the largest with P(U <= k - 1) < 0.025 under the exact
 * null of U without ties (Hodges and Lehmann 1963; the interval from
 * Lehmann, Nonparametrics, 1975, chapter 2; k as R's wilcox.test with
 * conf.int). Its coverage is hl_coverage(na, nb) for continuous values,
 * and only about that with ties. Beyond MW_EXACT_MAX values in all, k
 * from the normal approximation with a continuity correction (31 at 11
 * against 11, where the exact k is 32). Returns 0, or -1 (all three NaN)
 * when a set is empty, a value is NaN, or memory ran out. */
int hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double *est, double *lo,
                   double *hi);

/* The coverage hodges_lehmann's interval achieves for na against nb
 * values without ties: 1 - 2 P(U <= k - 1), e.g. 0.968 for 5 against 5
 * and 0.957 for 10 against 10. When even the widest interval (k = 1)
 * covers less than 95% (3 against 3: 0.90), that is what it returns. NaN
 * when a set is empty or memory ran out. */
double hl_coverage(size_t na, size_t nb);

/* Cliff's delta, P(a > b) - P(a < b) over all pairs: -1 to 1, the effect
 * size that goes with the U test. */
double cliffs_delta(const double *a, size_t na, const double *b, size_t nb);

/* "negligible", "small", "medium" or "large" for a delta: |d| below
 * CLIFF_SMALL, below CLIFF_MEDIUM, below CLIFF_LARGE, else (Romano et al.
 * 2006's bounds; the benchmark's page states them). */
#define CLIFF_SMALL 0.147
#define CLIFF_MEDIUM 0.33
#define CLIFF_LARGE 0.474
const char *cliffs_size(double delta);

/* ---- one set of seeds: the t test ---- */

/* Student's t distribution with df > 0 degrees of freedom: P(T <= t), by
 * the identity P(|T| >= |t|) = I_x(df/2, 1/2) at x = df / (df + t^2)
 * with the regularized incomplete beta function I (Abramowitz and Stegun,
 * chapter 26; Numerical Recipes, 3rd ed., section 6.4); and the t with
 * P(T <= t) = prob (0 < prob < 1), by bisection. */
double student_t_cdf(double t, double df);
double student_t_quantile(double prob, double df);

/* The one-sample t test that x's n (>= 2) values have mean mu: returns the
 * two-sided p, and sets the mean and its 95% confidence interval (mean
 * +- t(0.975, n - 1) SD / sqrt(n)). The seeds are the units: the test
 * sentences of one seed's model are not independent draws. When every
 * value is the same the interval is that value and p is 1 if it equals mu,
 * else 0. NaN (p and all three) when n < 2 or a value is NaN. */
double one_sample_t(const double *x, size_t n, double mu, double *mean, double *lo95, double *hi95);

/* Equivalence of x's mean to mu within margin (> 0): the larger p of the
 * two one-sided t tests of mean > mu - margin and mean < mu + margin
 * (Schuirmann 1987). At mu within margin when it is below alpha. NaN when
 * n < 2, a value is NaN, or margin is not positive. */
double one_sample_tost_p(const double *x, size_t n, double mu, double margin);

/* ---- paired differences (paired.c) ---- */

/* The signed-rank test is exact up to this many nonzero differences:
 * its distribution is built rank by rank over the sums of doubled
 * midranks, m (m + 1) + 1 of them, m steps (200 ranks: 8 million
 * additions). */
#define WILCOXON_EXACT_MAX 200

/* The two-sided p-value of Wilcoxon's signed-rank test that the n
 * differences d are symmetric about 0 (one per unit: a task, or a task
 * and an encoding). Zeros are dropped (Wilcoxon's way); tied |d| (within
 * 1e-9, relative) share their mean rank. Up to WILCOXON_EXACT_MAX left,
 * exact given the ties: the chance, over the 2^m equally likely sign
 * patterns of those midranks, of a W+ as far from its mean as observed
 * (*exact set true); beyond, the normal approximation with the tie and
 * continuity corrections (*exact false). exact may be NULL. 1 when no
 * difference is left; NaN when a d is NaN or memory ran out. */
double wilcoxon_signed_rank_p(const double *d, size_t n, bool *exact);

/* The mean of d (n values) and its 95% percentile bootstrap interval:
 * draws resamples of n with replacement from a generator seeded with
 * seed (the same interval every run). -1 (all NaN) when n is 0, draws is
 * under 40, or memory ran out. */
int bootstrap_mean_ci(const double *d, size_t n, size_t draws, uint64_t seed, double *mean,
                      double *lo, double *hi);
/* The same interval's side of 0 alone, from the same draws: 1 when it
 * lies above 0, -1 below, 0 when it holds 0 (or n is 0, draws under 40,
 * or memory ran out). Without sorting: the stability's thousand resamples
 * of claim 1 ask only this. */
int bootstrap_mean_side(const double *d, size_t n, size_t draws, uint64_t seed);

/* ---- a family of tests ---- */

/* Holm-Bonferroni adjusted p-values (Holm 1979; R's p.adjust "holm"): the
 * i-th smallest of m becomes max over j <= i of min(1, (m - j + 1) p_(j)).
 * Rejecting where adj < alpha keeps the chance of any false rejection in
 * the family at most alpha. NaN p's are left out of the family (m counts
 * the others) and their adj is NaN; adj may be p. Returns 0, or -1 when
 * memory ran out (adj all NaN). */
int holm_adjust(const double *p, size_t n, double *adj);

/* Benjamini-Hochberg adjusted p-values (Benjamini and Hochberg 1995; R's
 * p.adjust "BH"): the i-th smallest of m becomes min over j >= i of min(1,
 * m p_(j) / j). Rejecting where adj < alpha keeps the expected share of
 * false rejections among the rejections at most alpha (for independent or
 * positively dependent tests). NaN as holm_adjust. */
int bh_adjust(const double *p, size_t n, double *adj);

#endif
