/* The results page's statistics against values worked out by hand and
 * from the published tables. */
#include <math.h>

#include "../src/experiments/page/stats.h"
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
}
END_TEST

START_TEST(mann_whitney_large_sets_use_the_normal) {
    /* 15 against 15 apart completely: U = 0, z = 4.67, p about 3e-6 */
    double a[15], b[15];
    for (int i = 0; i < 15; i++)
        a[i] = i, b[i] = 100 + i;
    double p = mann_whitney_p(a, 15, b, 15);
    ck_assert_msg(p > 1e-6 && p < 1e-5, "p = %g", p);
}
END_TEST

START_TEST(cliffs_delta_sizes) {
    double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3] = {1, 2, 3};
    ck_assert_double_eq(cliffs_delta(a, 3, b, 3), -1.0);
    ck_assert_double_eq(cliffs_delta(b, 3, a, 3), 1.0);
    ck_assert_double_eq(cliffs_delta(a, 3, c, 3), 0.0);
    ck_assert_str_eq(cliffs_size(0.1), "negligible");
    ck_assert_str_eq(cliffs_size(-0.2), "small");
    ck_assert_str_eq(cliffs_size(0.4), "medium");
    ck_assert_str_eq(cliffs_size(-1.0), "large");
}
END_TEST

Suite *suite_stats(void) {
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, wilson_interval);
    tcase_add_test(tc, mann_whitney_exact);
    tcase_add_test(tc, mann_whitney_large_sets_use_the_normal);
    tcase_add_test(tc, cliffs_delta_sizes);
    suite_add_tcase(s, tc);
    return s;
}
