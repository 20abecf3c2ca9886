/* The pages' statistics (src/stats) and verdict rules against values worked
 * out apart from the code: by hand, by enumerating every split here, from
 * closed forms and published tables, and from R's documented results. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/experiments/page/errors.h"
#include "../src/experiments/page/prose.h"
#include "../src/experiments/page/verdict.h"
#include "../src/stats/stats.h"
#include "suites.h"

START_TEST(wilson_interval) {
    double lo, hi;
    /* 500 of 1000: 0.469 to 0.531, so 0.53 from 1000 items is chance
     * and 0.59 is not */
    wilson95(500, 1000, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.46907, 1e-5);
    ck_assert_double_eq_tol(hi, 0.53093, 1e-5);
    /* 0 of 10 does not give an interval of width 0 */
    wilson95(0, 10, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.0, 1e-12);
    ck_assert_double_eq_tol(hi, 0.27753, 1e-5);
}
END_TEST

START_TEST(mann_whitney_exact) {
    double a[5] = {1, 2, 3, 4, 5}, b[5] = {6, 7, 8, 9, 10};
    /* apart completely: 2 of the 252 splits are as extreme */
    ck_assert_double_eq_tol(mann_whitney_p(a, 5, b, 5), 2.0 / 252.0, 1e-12);
    ck_assert_double_eq_tol(mann_whitney_p(b, 5, a, 5), 2.0 / 252.0, 1e-12);
    /* three seeds against three can never be below 0.1 */
    ck_assert_double_eq_tol(mann_whitney_p(a, 3, b, 3), 0.1, 1e-12);
    /* the same values: nothing to tell apart */
    ck_assert_double_eq_tol(mann_whitney_p(a, 5, a, 5), 1.0, 1e-12);
    /* interleaved 1 3 5 7 9 against 2 4 6 8 10: rank sum 25 against a
     * mean of 27.5; of the 252 splits of 1..10, 87 sum to 25 or less and
     * 87 to 30 or more (counted with Python's itertools.combinations) */
    double odd[5] = {1, 3, 5, 7, 9}, even[5] = {2, 4, 6, 8, 10};
    ck_assert_double_eq_tol(mann_whitney_p(odd, 5, even, 5), 174.0 / 252.0, 1e-12);
    /* ties: every value equal */
    double same[4] = {0.5, 0.5, 0.5, 0.5};
    ck_assert_double_eq_tol(mann_whitney_p(same, 2, same + 2, 2), 1.0, 1e-12);
    /* nothing to test */
    ck_assert(isnan(mann_whitney_p(a, 0, b, 5)));
    double nan1[2] = {NAN, 1.0};
    ck_assert(isnan(mann_whitney_p(nan1, 2, b, 5)));
}
END_TEST

/* The smallest p's the seed counts allow: with 5 seeds against 5 no
 * correction over 7 tests can reject (7 x 2/252 = 0.056), with 10 against
 * 10 (20 values, still exact) it can. */
START_TEST(mann_whitney_smallest_p) {
    double a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = 0.5 + 0.01 * i, b[i] = 0.7 + 0.01 * i;
    ck_assert_double_eq_tol(mann_whitney_p(a, 5, b, 5), 2.0 / 252.0, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_p(a, 10, b, 10), 2.0 / 184756.0, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_greater_p(b, 5, a, 5), 1.0 / 252.0, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_greater_p(b, 10, a, 10), 1.0 / 184756.0, 1e-15);
    /* the other way round: every split is at least as high */
    ck_assert_double_eq_tol(mann_whitney_greater_p(a, 10, b, 10), 1.0, 1e-15);
    double p7[7], adj[7];
    for (int i = 0; i < 7; i++)
        p7[i] = mann_whitney_p(a, 5, b, 5);
    ck_assert_int_eq(holm_adjust(p7, 7, adj), 0);
    for (int i = 0; i < 7; i++)
        ck_assert_msg(adj[i] > 0.05, "Holm over 7 at 5 seeds: %g", adj[i]);
    for (int i = 0; i < 7; i++)
        p7[i] = mann_whitney_p(a, 10, b, 10);
    ck_assert_int_eq(holm_adjust(p7, 7, adj), 0);
    ck_assert_double_eq_tol(adj[0], 14.0 / 184756.0, 1e-15);
    /* the page's rule reads the same smallest p's without running a test */
    for (size_t n = 3; n <= 10; n++) {
        ck_assert_double_eq_tol(mann_whitney_min_p(n, n, 2), mann_whitney_p(a, n, b, n), 1e-15);
        ck_assert_double_eq_tol(mann_whitney_min_p(n, n, 1), mann_whitney_greater_p(b, n, a, n),
                                1e-15);
    }
    ck_assert_double_eq_tol(mann_whitney_min_p(3, 3, 2), 0.1, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_min_p(3, 4, 2), 2.0 / 35.0, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_min_p(1, 1, 2), 1.0, 1e-15);
}
END_TEST

/* A small generator, so that the cases below are the same on every run. */
static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* The tail p of a's rank sum by enumerating every split of the n <= 20
 * pooled values as a bit mask, the mid-ranks counted pair by pair: apart
 * from stats.c's doubled ranks and knapsack. tail: 0 both, 1 greater, -1
 * less. */
static double brute_p(const double *a, size_t na, const double *b, size_t nb, int tail) {
    size_t n = na + nb;
    double v[20], rank[20], obs = 0.0, hit = 0.0, all = 0.0;
    for (size_t i = 0; i < n; i++)
        v[i] = i < na ? a[i] : b[i - na];
    for (size_t i = 0; i < n; i++) {
        double below = 0.0, equal = 0.0;
        for (size_t j = 0; j < n; j++)
            below += v[j] < v[i], equal += v[j] == v[i];
        rank[i] = below + (equal + 1.0) / 2.0;
        obs += i < na ? rank[i] : 0.0;
    }
    double mean = (double)na * ((double)n + 1.0) / 2.0;
    /* every mask of n bits with na set, in order (Gosper's hack) */
    for (uint32_t m = (1u << na) - 1, c, r; m < (1u << n);
         c = m & -m, r = m + c, m = (((r ^ m) >> 2) / c) | r) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += (m >> i & 1u) ? rank[i] : 0.0;
        all += 1.0;
        hit += tail == 0  ? fabs(s - mean) >= fabs(obs - mean) - 1e-9
               : tail > 0 ? s >= obs - 1e-9
                          : s <= obs + 1e-9;
    }
    return hit / all;
}

START_TEST(mann_whitney_against_enumeration) {
    uint64_t seed = 27;
    size_t sizes[][2] = {{3, 4}, {5, 5}, {4, 8}, {6, 6}, {7, 5}, {10, 10}, {9, 11}};
    for (size_t c = 0; c < sizeof sizes / sizeof *sizes; c++)
        for (int rep = 0; rep < (sizes[c][0] + sizes[c][1] == 20 ? 1 : 5); rep++) {
            size_t na = sizes[c][0], nb = sizes[c][1];
            double a[20], b[20];
            /* few distinct values, so that ties are common; b a little lower */
            for (size_t i = 0; i < na; i++)
                a[i] = 0.1 * (double)(lcg(&seed) % 6);
            for (size_t i = 0; i < nb; i++)
                b[i] = 0.1 * (double)(lcg(&seed) % 5);
            double two = mann_whitney_p(a, na, b, nb), gt = mann_whitney_greater_p(a, na, b, nb);
            ck_assert_msg(fabs(two - brute_p(a, na, b, nb, 0)) < 1e-12, "%zu v %zu: %g vs %g", na,
                          nb, two, brute_p(a, na, b, nb, 0));
            ck_assert_msg(fabs(gt - brute_p(a, na, b, nb, 1)) < 1e-12, "%zu v %zu: %g vs %g", na,
                          nb, gt, brute_p(a, na, b, nb, 1));
        }
}
END_TEST

START_TEST(mann_whitney_large_sets_use_the_normal) {
    /* 15 against 15 apart completely: rank sum 345 against a mean of
     * 232.5 and a variance of 15 x 15 x 31 / 12: z = 4.666, two-sided p
     * 3.07e-6, one-sided half of it */
    double a[15], b[15];
    for (int i = 0; i < 15; i++)
        a[i] = i, b[i] = 100 + i;
    double p = mann_whitney_p(a, 15, b, 15), z = 112.5 / sqrt(581.25);
    ck_assert_msg(p > 1e-6 && p < 1e-5, "p = %g", p);
    ck_assert_double_eq_tol(p, erfc(z / sqrt(2.0)), 1e-15);
    ck_assert_double_eq_tol(mann_whitney_greater_p(b, 15, a, 15), p / 2.0, 1e-15);
    ck_assert_double_eq_tol(mann_whitney_greater_p(a, 15, b, 15), 1.0 - p / 2.0, 1e-12);
    /* ties shrink the variance: x ten 0's and a 1, y ten 1's and a 0;
     * pooled, 11 zeros (ranks 1..11, mid-rank 6) and 11 ones (mid-rank
     * 17): y's rank sum 10 x 17 + 6 = 176 against a mean of 126.5, the
     * ties 2 x (11^3 - 11) = 2640, the variance 121/12 x (23 - 2640 /
     * (22 x 21)) */
    double x[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, y[11] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
    double var = 121.0 / 12.0 * (23.0 - 2640.0 / 462.0);
    ck_assert_double_eq_tol(mann_whitney_greater_p(y, 11, x, 11),
                            0.5 * erfc(49.5 / sqrt(var) / sqrt(2.0)), 1e-15);
}
END_TEST

START_TEST(equivalence_within_a_margin) {
    /* ten seeds each, spread 0.009, the means 0.001 apart: alike within
     * 0.02, not within 0.001 */
    double a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = 0.700 + 0.001 * i, b[i] = 0.701 + 0.001 * i;
    ck_assert_msg(tost_p(a, 10, b, 10, 0.02) < 0.01, "%g", tost_p(a, 10, b, 10, 0.02));
    ck_assert_msg(tost_p(a, 10, b, 10, 0.001) > 0.3, "%g", tost_p(a, 10, b, 10, 0.001));
    /* at most as small as a one-sided test can be: 1/252 at 5 seeds */
    ck_assert_double_eq_tol(tost_p(a, 5, a, 5, 1.0), 1.0 / 252.0, 1e-15);
    ck_assert(isnan(tost_p(a, 5, b, 5, 0.0)));
    ck_assert(isnan(tost_p(a, 0, b, 5, 0.02)));
    /* a shift of exactly the margin ties: 0.082 + 0.02 is an ulp off
     * 0.102 (so for a quarter of the accuracies k/1000), and the test must
     * read it as the integers 82 + 20 = 102 */
    double x[5] = {0.102, 0.103, 0.086, 0.087, 0.088}, y[5] = {0.082, 0.083, 0.066, 0.067, 0.068};
    double xi[5] = {102, 103, 86, 87, 88}, yi[5] = {82, 83, 66, 67, 68};
    ck_assert(y[0] + 0.02 != x[0]);
    ck_assert_double_eq_tol(tost_p(x, 5, y, 5, 0.02), tost_p(xi, 5, yi, 5, 20.0), 1e-15);
    ck_assert_double_eq_tol(tost_p(y, 5, x, 5, 0.02), tost_p(yi, 5, xi, 5, 20.0), 1e-15);
}
END_TEST

/* Without ties the two one-sided tests at 0.025 each reject exactly when
 * the Hodges-Lehmann 95% interval lies inside the margins: one from rank
 * counts, the other from sorted differences. */
START_TEST(equivalence_agrees_with_the_interval) {
    uint64_t seed = 1;
    size_t sizes[][2] = {{5, 5}, {4, 7}, {10, 10}};
    double margins[] = {0.01, 0.03, 0.05, 0.1};
    for (size_t c = 0; c < 3; c++)
        for (int rep = 0; rep < 20; rep++) {
            size_t na = sizes[c][0], nb = sizes[c][1];
            double a[10], b[10], est, lo, hi;
            for (size_t i = 0; i < na; i++)
                a[i] = 0.7 + 1e-6 * (double)(lcg(&seed) % 40000);
            for (size_t i = 0; i < nb; i++)
                b[i] = 0.7 + 1e-6 * (double)(lcg(&seed) % 40000);
            ck_assert_int_eq(hodges_lehmann(a, na, b, nb, &est, &lo, &hi), 0);
            for (size_t m = 0; m < 4; m++) {
                bool inside = lo > -margins[m] && hi < margins[m];
                double p = tost_p(a, na, b, nb, margins[m]);
                ck_assert_msg((p < 0.025) == inside, "%zu v %zu margin %g: p %g, [%g, %g]", na, nb,
                              margins[m], p, lo, hi);
            }
        }
}
END_TEST

START_TEST(hodges_lehmann_interval) {
    /* k and coverage from the null of U enumerated in Python (R's
     * qwilcox(0.025, m, n), with k = 1 when it is 0) */
    ck_assert_double_eq_tol(hl_coverage(5, 5), 1.0 - 8.0 / 252.0, 1e-12);
    ck_assert_double_eq_tol(hl_coverage(3, 3), 0.9, 1e-12);
    ck_assert_double_eq_tol(hl_coverage(4, 7), 0.9575757575757575, 1e-12);
    ck_assert_double_eq_tol(hl_coverage(10, 10), 0.9567429474550218, 1e-12);
    /* 11 against 11 by the normal (continuity corrected): k = 31 and
     * 1 - 2 Phi((31 - 0.5 - 60.5) / sqrt(121 x 23 / 12)) = 0.95116; the
     * exact k would be 32 (0.9527), a little narrower */
    ck_assert_double_eq_tol(hl_coverage(11, 11), 0.9511559358, 1e-9);

    /* a = 10..50 by 10, b = 1..5: the 25 differences are 5..49; the
     * median 27 (30 - 3); k = 3 at 5 against 5: the 3rd smallest (5, 6, 7)
     * and the 3rd largest (49, 48, 47) */
    double a[5] = {50, 10, 30, 20, 40}, b[5] = {3, 1, 2, 5, 4}, est, lo, hi;
    ck_assert_int_eq(hodges_lehmann(a, 5, b, 5, &est, &lo, &hi), 0);
    ck_assert_double_eq(est, 27.0);
    ck_assert_double_eq(lo, 7.0);
    ck_assert_double_eq(hi, 47.0);
    /* an even count of differences: the mean of the middle two; 3 against
     * 3 (k = 1): the range of the differences */
    double c[2] = {0, 10}, d[1] = {1};
    ck_assert_int_eq(hodges_lehmann(c, 2, d, 1, &est, &lo, &hi), 0);
    ck_assert_double_eq(est, 4.0);
    ck_assert_int_eq(hodges_lehmann(a, 3, b, 3, &est, &lo, &hi), 0);
    ck_assert_double_eq(lo, 7.0);  /* 10 - 3 */
    ck_assert_double_eq(hi, 49.0); /* 50 - 1 */
    ck_assert_int_eq(hodges_lehmann(a, 0, b, 3, &est, &lo, &hi), -1);
    ck_assert(isnan(est) && isnan(lo) && isnan(hi));
}
END_TEST

START_TEST(student_t) {
    /* df 1 is Cauchy, 1/2 + atan(t)/pi; df 2 is 1/2 + t / (2 sqrt(2 + t^2)) */
    for (double t = -30.0; t <= 30.0; t += 0.7) {
        ck_assert_double_eq_tol(student_t_cdf(t, 1.0), 0.5 + atan(t) / acos(-1.0), 1e-13);
        ck_assert_double_eq_tol(student_t_cdf(t, 2.0), 0.5 + t / (2.0 * sqrt(2.0 + t * t)), 1e-13);
    }
    /* the tables' points (Abramowitz and Stegun, table 26.10) */
    ck_assert_double_eq_tol(student_t_cdf(2.262157, 9.0), 0.975, 1e-7);
    ck_assert_double_eq_tol(student_t_quantile(0.975, 9.0), 2.262157, 1e-6);
    ck_assert_double_eq_tol(student_t_quantile(0.975, 4.0), 2.776445, 1e-6);
    ck_assert_double_eq_tol(student_t_quantile(0.995, 9.0), 3.249836, 1e-6);
    ck_assert_double_eq_tol(student_t_quantile(0.975, 29.0), 2.045230, 1e-6);
    ck_assert_double_eq_tol(student_t_quantile(0.95, 1.0), 6.313752, 1e-6);
    ck_assert_double_eq_tol(student_t_quantile(0.025, 9.0), -2.262157, 1e-6);
    /* P(T >= 1.5) at df 3 by numerical integration of the density */
    ck_assert_double_eq_tol(student_t_cdf(-1.5, 3.0), 0.11529193262, 1e-9);
    ck_assert(isnan(student_t_cdf(1.0, 0.0)));
}
END_TEST

START_TEST(one_sample_t_test) {
    /* R: t.test(1:5) gives t = 4.2426, df = 4, p-value = 0.01324, 95
     * percent confidence interval 1.036757 4.963243 */
    double x[5] = {1, 2, 3, 4, 5}, mean, lo, hi;
    ck_assert_double_eq_tol(one_sample_t(x, 5, 0.0, &mean, &lo, &hi), 0.0132356, 1e-7);
    ck_assert_double_eq_tol(mean, 3.0, 1e-15);
    ck_assert_double_eq_tol(lo, 1.036757, 1e-6);
    ck_assert_double_eq_tol(hi, 4.963243, 1e-6);
    /* every seed the same: the interval is a point */
    double same[3] = {0.1, 0.1, 0.1};
    ck_assert_double_eq(one_sample_t(same, 3, 0.1, &mean, &lo, &hi), 1.0);
    ck_assert_double_eq(lo, 0.1);
    ck_assert_double_eq(one_sample_t(same, 3, 0.5, &mean, &lo, &hi), 0.0);
    ck_assert(isnan(one_sample_t(x, 1, 0.0, &mean, &lo, &hi)) && isnan(mean));
    /* at chance within 0.02: mean 0.5, SE 0.00316, t = 6.32 at df 4 on
     * either side, P(T >= 6.32) = 0.0015991 (by integration) */
    double c[5] = {0.49, 0.50, 0.51, 0.50, 0.50};
    ck_assert_double_eq_tol(one_sample_tost_p(c, 5, 0.5, 0.02), 0.0015991011, 1e-9);
    /* ... and not within 0.02 of 0.45; nor with a margin of 0 */
    ck_assert_msg(one_sample_tost_p(c, 5, 0.45, 0.02) > 0.9, "%g",
                  one_sample_tost_p(c, 5, 0.45, 0.02));
    ck_assert(isnan(one_sample_tost_p(c, 5, 0.5, 0.0)));
}
END_TEST

START_TEST(holm_and_bh) {
    /* R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") and "BH" */
    double p[5] = {0.01, 0.02, 0.03, 0.04, 0.05}, adj[5];
    double holm[5] = {0.05, 0.08, 0.09, 0.09, 0.09};
    ck_assert_int_eq(holm_adjust(p, 5, adj), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_double_eq_tol(adj[i], holm[i], 1e-15);
    ck_assert_int_eq(bh_adjust(p, 5, adj), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_double_eq_tol(adj[i], 0.05, 1e-15);
    /* out of order, a NaN left out (m = 4), in place: sorted 0.005 0.01
     * 0.03 0.04; Holm 4 x 0.005, 3 x 0.01, 2 x 0.03, then max(0.04,
     * 0.06); BH 4/1 x 0.005, 4/2 x 0.01, then min(4/3 x 0.03, 0.04) */
    double q[5] = {0.01, NAN, 0.04, 0.03, 0.005};
    double q_holm[5] = {0.03, NAN, 0.06, 0.06, 0.02}, q_bh[5] = {0.02, NAN, 0.04, 0.04, 0.02};
    double r[5];
    for (int i = 0; i < 5; i++)
        r[i] = q[i];
    ck_assert_int_eq(holm_adjust(r, 5, r), 0);
    for (int i = 0; i < 5; i++)
        ck_assert(isnan(q_holm[i]) ? isnan(r[i]) : fabs(r[i] - q_holm[i]) < 1e-15);
    ck_assert_int_eq(bh_adjust(q, 5, adj), 0);
    for (int i = 0; i < 5; i++)
        ck_assert(isnan(q_bh[i]) ? isnan(adj[i]) : fabs(adj[i] - q_bh[i]) < 1e-15);
    /* capped at 1 */
    double big[2] = {0.5, 0.6};
    ck_assert_int_eq(holm_adjust(big, 2, adj), 0);
    ck_assert(adj[0] == 1.0 && adj[1] == 1.0);
    ck_assert_int_eq(bh_adjust(big, 2, adj), 0);
    ck_assert(adj[0] == 0.6 && adj[1] == 0.6);
    ck_assert_int_eq(holm_adjust(big, 0, adj), 0);
}
END_TEST

/* ---- the rules, each fed fixed numbers ---- */

START_TEST(rule_ceiling) {
    /* both at 0.99 or more: no verdict */
    ck_assert_int_eq(verdict_gate(0.995, 1.0, 0.5, VERDICT_CEILING, false, true, true), V_CEILING);
    ck_assert_int_eq(verdict_gate(0.99, 0.99, 0.5, VERDICT_CEILING, true, true, true), V_CEILING);
    /* one at the ceiling and one below it is a difference to test (none
     * 1.00 against rope 0.97 on first, 17..32) */
    ck_assert_int_eq(verdict_gate(1.0, 0.97, 0.5, VERDICT_CEILING, true, true, true), V_TESTABLE);
    /* no task left to test: the claim cannot be tested here */
    PairVerdict v[2] = {V_CEILING, V_CEILING};
    ck_assert_int_eq(verdict_claim(v, 2), CLAIM_UNTESTABLE);
    ck_assert_str_eq(claim_words(verdict_claim(v, 2)), "cannot be tested here");
}
END_TEST

START_TEST(rule_floor) {
    /* floor 0.50 (no position): both at 0.55 or less is the floor */
    ck_assert_int_eq(verdict_gate(0.53, 0.55, 0.50, VERDICT_CEILING, false, true, true), V_FLOOR);
    ck_assert_int_eq(verdict_gate(0.53, 0.60, 0.50, VERDICT_CEILING, false, true, true),
                     V_TESTABLE);
    /* no floor run: no floor gate */
    ck_assert_int_eq(verdict_gate(0.53, 0.55, NAN, VERDICT_CEILING, false, true, true), V_TESTABLE);
    ck_assert_int_eq(verdict_gate(NAN, 0.55, 0.5, VERDICT_CEILING, false, true, true), V_NO_RUNS);
    PairVerdict v[3] = {V_FLOOR, V_NO_RUNS, V_FLOOR};
    ck_assert_int_eq(verdict_claim(v, 3), CLAIM_UNTESTABLE);
}
END_TEST

START_TEST(rule_unlearned) {
    /* past L, rope never learned reverse's trained lengths: no verdict,
     * whatever the band's numbers; within L the flag is not asked */
    ck_assert_int_eq(verdict_gate(0.40, 0.24, 0.1, VERDICT_CEILING, true, true, false),
                     V_UNLEARNED);
    ck_assert_int_eq(verdict_gate(0.40, 0.24, 0.1, VERDICT_CEILING, true, false, true),
                     V_UNLEARNED);
    ck_assert_int_eq(verdict_gate(0.40, 0.24, 0.1, VERDICT_CEILING, false, false, true),
                     V_TESTABLE);
    /* the words the pages give it, from its template (verdicts.md) */
    Buf words = {0};
    Err e;
    prose_begin();
    PROSE_TEXT(&words, pair_verdict_name(V_UNLEARNED));
    ck_assert_int_eq(prose_end(&e), 0);
    ck_assert_int_eq((int)words.n, (int)strlen("did not learn the trained lengths"));
    ck_assert_mem_eq(words.p, "did not learn the trained lengths", words.n);
    buf_free(&words);
}
END_TEST

START_TEST(rule_null_is_cannot_tell) {
    /* neither rejects: not told apart, and the claim cannot tell (never
     * "disagrees") */
    ck_assert_int_eq(verdict_compare(0.05, 0.2, 0.3, VERDICT_ALPHA), V_NOT_TOLD_APART);
    ck_assert_int_eq(verdict_compare(NAN, NAN, NAN, VERDICT_ALPHA), V_NOT_TOLD_APART);
    PairVerdict v[3] = {V_NOT_TOLD_APART, V_CEILING, V_NOT_TOLD_APART};
    ck_assert_int_eq(verdict_claim(v, 3), CLAIM_CANNOT_TELL);
    ck_assert_str_eq(claim_words(CLAIM_CANNOT_TELL), "cannot tell");
    /* as often ahead as behind is no direction either */
    PairVerdict w[2] = {V_AHEAD, V_BEHIND};
    ck_assert_int_eq(verdict_claim(w, 2), CLAIM_CANNOT_TELL);
    /* ahead somewhere, behind nowhere: agrees; behind more: disagrees */
    PairVerdict x[3] = {V_AHEAD, V_NOT_TOLD_APART, V_EQUIVALENT};
    ck_assert_int_eq(verdict_claim(x, 3), CLAIM_AGREES);
    PairVerdict y[3] = {V_BEHIND, V_NOT_TOLD_APART, V_AHEAD};
    ck_assert_int_eq(verdict_claim(y, 2), CLAIM_DISAGREES);
    ck_assert_int_eq(verdict_claim(y, 3), CLAIM_CANNOT_TELL);
}
END_TEST

START_TEST(rule_equivalence) {
    /* the equivalence test rejects: alike, even if the difference is
     * real too (smaller than the margin that matters) */
    ck_assert_int_eq(verdict_compare(0.001, 0.6, 0.01, VERDICT_ALPHA), V_EQUIVALENT);
    ck_assert_int_eq(verdict_compare(0.01, 0.001, 0.01, VERDICT_ALPHA), V_EQUIVALENT);
    /* alike on every testable task: the claim "better" disagrees */
    PairVerdict v[3] = {V_EQUIVALENT, V_CEILING, V_EQUIVALENT};
    ck_assert_int_eq(verdict_claim(v, 3), CLAIM_DISAGREES);
    /* alike on one, not told apart on another: cannot tell */
    PairVerdict w[2] = {V_EQUIVALENT, V_NOT_TOLD_APART};
    ck_assert_int_eq(verdict_claim(w, 2), CLAIM_CANNOT_TELL);
    /* from seeds: ten each, 0.001 apart, spread 0.009 */
    double a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = 0.700 + 0.001 * i, b[i] = 0.701 + 0.001 * i;
    PairTest t;
    ck_assert_int_eq(pair_test(&t, a, 10, b, 10, VERDICT_MARGIN), 0);
    ck_assert_double_eq_tol(t.shift, -0.001, 1e-12);
    ck_assert_int_eq(verdict_compare(t.shift, t.p, t.tost, VERDICT_ALPHA), V_EQUIVALENT);
}
END_TEST

START_TEST(rule_corrected_significance) {
    /* a raw p of 0.03 would be "ahead"; among 5 tests Holm makes it 0.15
     * and it is no longer */
    ck_assert_int_eq(verdict_compare(0.1, 0.03, 0.9, VERDICT_ALPHA), V_AHEAD);
    ck_assert_int_eq(verdict_compare(-0.1, 0.03, 0.9, VERDICT_ALPHA), V_BEHIND);
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    double raw[5] = {0.03, 0.2, 0.4, 0.6, 0.8};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(family_add(&f, raw[i], NAN), (size_t)i);
    ck_assert_int_eq(family_adjust(&f), 0);
    ck_assert_double_eq_tol(f.t[0].p_adj, 0.15, 1e-15);
    ck_assert(isnan(f.t[0].tost_adj));
    ck_assert_int_eq(verdict_compare(0.1, f.t[0].p_adj, f.t[0].tost_adj, VERDICT_ALPHA),
                     V_NOT_TOLD_APART);
    family_free(&f);
    /* both tests of each pair are one family: 5 pairs, 10 hypotheses;
     * under BH the smallest of 10 is p x 10 / 1 */
    family_init(&f, CORRECT_BH);
    for (int i = 0; i < 5; i++)
        family_add(&f, raw[i], 0.9);
    ck_assert_int_eq(family_adjust(&f), 0);
    ck_assert_double_eq_tol(f.t[0].p_adj, 0.3, 1e-15);
    ck_assert_double_eq_tol(f.t[4].tost_adj, 0.9, 1e-15);
    family_free(&f);
    /* ten seeds against ten apart completely survive Holm over 7 pairs
     * (14 hypotheses): 14 x 2/184756 */
    double a[10], b[10];
    for (int i = 0; i < 10; i++)
        a[i] = 0.8 + 0.01 * i, b[i] = 0.6 + 0.01 * i;
    PairTest t;
    ck_assert_int_eq(pair_test(&t, a, 10, b, 10, VERDICT_MARGIN), 0);
    family_init(&f, CORRECT_HOLM);
    for (int i = 0; i < 7; i++)
        family_add(&f, t.p, t.tost);
    ck_assert_int_eq(family_adjust(&f), 0);
    ck_assert_double_eq_tol(f.t[6].p_adj, 14.0 * 2.0 / 184756.0, 1e-15);
    ck_assert_int_eq(verdict_compare(t.shift, f.t[6].p_adj, f.t[6].tost_adj, VERDICT_ALPHA),
                     V_AHEAD);
    family_free(&f);
}
END_TEST

/* Memory the statistics could not get makes the page fail, never a NaN
 * turned into a verdict: the writers end with exp_page_end. */
START_TEST(out_of_memory_is_an_error_not_a_number) {
    Err e;
    exp_page_begin();
    ck_assert_int_eq(exp_page_end("p.md", &e), 0);
    void *p = exp_page_alloc(4, sizeof(double));
    ck_assert_ptr_nonnull(p);
    free(p);
    ck_assert_int_eq(exp_page_end("p.md", &e), 0);
    ck_assert_ptr_null(exp_page_realloc(NULL, SIZE_MAX));
    ck_assert_int_eq(exp_page_end("p.md", &e), ERR_RUNTIME);
    ck_assert_msg(strstr(e.msg, "p.md") && strstr(e.msg, "not written"), "%s", e.msg);
    exp_page_begin();
    ck_assert_int_eq(exp_page_end("p.md", &e), 0);
    /* a statistic's own failure (src/stats keeps its own count): NaN
     * here, and the page fails; its next page starts clean */
    double d = 0.0;
    ck_assert(!stats_failed());
    ck_assert(isnan(wilcoxon_signed_rank_p(&d, SIZE_MAX / 8, NULL)));
    ck_assert(stats_failed());
    ck_assert_int_eq(exp_page_end("p.md", &e), ERR_RUNTIME);
    exp_page_begin();
    ck_assert(!stats_failed());
    ck_assert_int_eq(exp_page_end("p.md", &e), 0);
}
END_TEST

Suite *suite_stats(void) {
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, wilson_interval);
    tcase_add_test(tc, out_of_memory_is_an_error_not_a_number);
    tcase_add_test(tc, mann_whitney_exact);
    tcase_add_test(tc, mann_whitney_smallest_p);
    tcase_add_test(tc, mann_whitney_against_enumeration);
    tcase_add_test(tc, mann_whitney_large_sets_use_the_normal);
    tcase_add_test(tc, equivalence_within_a_margin);
    tcase_add_test(tc, equivalence_agrees_with_the_interval);
    tcase_add_test(tc, hodges_lehmann_interval);
    tcase_add_test(tc, student_t);
    tcase_add_test(tc, one_sample_t_test);
    tcase_add_test(tc, holm_and_bh);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_paired());
    TCase *rules = tcase_create("rules");
    tcase_add_test(rules, rule_ceiling);
    tcase_add_test(rules, rule_floor);
    tcase_add_test(rules, rule_unlearned);
    tcase_add_test(rules, rule_null_is_cannot_tell);
    tcase_add_test(rules, rule_equivalence);
    tcase_add_test(rules, rule_corrected_significance);
    suite_add_tcase(s, rules);
    return s;
}
