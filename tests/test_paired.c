/* The benchmark page's tests over units (tasks, or a task's pairs):
 * Wilcoxon's signed-rank test, exact with ties, against hand counts, a
 * published table, R's documented example and an enumeration of every
 * sign pattern here; the bootstrap interval of a mean; and the chance
 * floor, the commonest answer counted on tapes made by hand and on a
 * task's own. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/experiments/page/bench.h"
#include "../src/stats/stats.h"
#include "../src/text/tasks.h"
#include "suites.h"

/* R's wilcox.test(x, y, paired = TRUE) on its own example (the depression
 * scores of ?wilcox.test): V = 40, p = 0.03906; by hand, W- = 2 + 3 = 5,
 * and 10 of the 512 sign patterns have a sum of at most 5, so p = 2 x
 * 10/512. Zeros carry no sign; nothing left is no evidence. */
START_TEST(wilcoxon_signed_rank) {
    const double x[9] = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
    const double y[9] = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
    double d[9], neg[9];
    for (int i = 0; i < 9; i++)
        d[i] = x[i] - y[i], neg[i] = -d[i];
    bool exact = false;
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(d, 9, &exact), 20.0 / 512.0, 1e-12);
    ck_assert(exact);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(neg, 9, NULL), 20.0 / 512.0, 1e-12);
    const double z[3] = {0, 0, 0}, six[7] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.0};
    ck_assert(wilcoxon_signed_rank_p(z, 3, NULL) == 1.0);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(six, 7, NULL), 2.0 / 64.0, 1e-12);
    const double bad[2] = {0.1, NAN};
    ck_assert(isnan(wilcoxon_signed_rank_p(bad, 2, NULL)));
}
END_TEST

/* A published table: for n = 10 the one-sided P(W- <= 8) is 25/1024
 * (the critical value 8 at 0.025 of the signed-rank tables, e.g.
 * Conover, Practical Nonparametric Statistics, table A12): the subsets
 * of 1..10 summing to 8 or less are 1 + 1 + 1 + 2 + 2 + 3 + 4 + 5 + 6 =
 * 25, the partitions of 0..8 into distinct parts. Negatives at ranks 1,
 * 3 and 4 give W- = 8: two-sided p = 50/1024. And all 15 of a page's
 * tasks on one side: 2/2^15, the smallest p 15 units can give. */
START_TEST(wilcoxon_against_a_table) {
    double d[15];
    for (int i = 0; i < 10; i++)
        d[i] = (i == 0 || i == 2 || i == 3 ? -1.0 : 1.0) * (i + 1) * 0.01;
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(d, 10, NULL), 50.0 / 1024.0, 1e-15);
    for (int i = 0; i < 15; i++)
        d[i] = -0.01 * (i + 1);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(d, 15, NULL), 2.0 / 32768.0, 1e-18);
}
END_TEST

/* Ties, exact, counted by hand. {1, 1, 2}: midranks 1.5, 1.5, 3, all
 * positive, W+ = 6 = the largest of the 8 patterns' sums; the smallest
 * (0) is as far from the mean 3: p = 2/8. {1, 1, -2}: W+ = 3, the mean:
 * p = 1. {1, -1, 2, 3}: midranks 1.5, 1.5, 3, 4, W+ = 8.5 against a
 * mean of 5; of the 16 patterns' sums (0, 1.5, 1.5, 3, 3, 4, 4.5, 4.5,
 * 5.5, 5.5, 6, 7, 7, 8.5, 8.5, 10) six are 3.5 or more from 5: p = 6/16
 * (ranks 1 and 2 without the tie would give another null). Seven 1s and
 * a -1: every midrank 4.5, W+ = 31.5 = 4.5 x 7, and the count of + signs
 * is binomial(8, 1/2): p = P(k <= 1 or k >= 7) = 18/256, where the
 * normal approximation gave 0.041. Near-equal |d| (3e-16 apart, as a
 * mean of accuracies reached two ways) tie as equal ones do. */
START_TEST(wilcoxon_ties_exact) {
    const double a[3] = {1, 1, 2}, b[3] = {1, 1, -2}, c[4] = {1, -1, 2, 3};
    const double t[8] = {1, 1, 1, 1, 1, 1, 1, -1};
    bool exact = false;
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(a, 3, &exact), 2.0 / 8.0, 1e-15);
    ck_assert(exact);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(b, 3, NULL), 1.0, 1e-15);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(c, 4, NULL), 6.0 / 16.0, 1e-15);
    ck_assert_double_eq_tol(wilcoxon_signed_rank_p(t, 8, NULL), 18.0 / 256.0, 1e-15);
    const double near[4] = {0.06597222222222232, -0.06597222222222199, 0.13, 0.2};
    const double equal[4] = {0.06597222222222232, -0.06597222222222232, 0.13, 0.2};
    ck_assert(wilcoxon_signed_rank_p(near, 4, NULL) == wilcoxon_signed_rank_p(equal, 4, NULL));
}
END_TEST

/* The p of d (n <= 16, small integers, so that |d| tie exactly) by
 * enumerating all 2^n sign patterns with midranks, apart from the code. */
static double enumerate_p(const double *d, size_t n) {
    double rank[16];
    size_t m = 0;
    double v[16];
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0)
            v[m++] = d[i];
    for (size_t i = 0; i < m; i++) {
        double below = 0, same = 0;
        for (size_t j = 0; j < m; j++)
            below += fabs(v[j]) < fabs(v[i]), same += fabs(v[j]) == fabs(v[i]);
        rank[i] = below + (same + 1) / 2.0;
    }
    double w = 0, mean = 0;
    for (size_t i = 0; i < m; i++)
        w += v[i] > 0 ? rank[i] : 0, mean += rank[i] / 2.0;
    size_t hit = 0;
    for (size_t pat = 0; pat < ((size_t)1 << m); pat++) {
        double s = 0;
        for (size_t i = 0; i < m; i++)
            s += pat >> i & 1 ? rank[i] : 0;
        hit += fabs(s - mean) >= fabs(w - mean) - 1e-9;
    }
    return (double)hit / (double)((size_t)1 << m);
}

START_TEST(wilcoxon_against_enumeration) {
    Rng r;
    rng_seed(&r, 7);
    for (int trial = 0; trial < 200; trial++) {
        double d[16];
        size_t n = 1 + rng_below(&r, 14);
        for (size_t i = 0; i < n; i++) /* -4..5, skewed up: ties and zeros aplenty */
            d[i] = (double)rng_below(&r, 10) - 4.0;
        ck_assert_double_eq_tol(wilcoxon_signed_rank_p(d, n, NULL), enumerate_p(d, n), 1e-12);
    }
}
END_TEST

/* Up to WILCOXON_EXACT_MAX the test is exact: ranks 1..200, the even ones
 * to 180 negative, p = 0.023049873585614 (counted with integers apart from
 * the code), where the normal approximation gives 0.0233; one more
 * difference and the normal approximation answers, and says so. */
START_TEST(wilcoxon_exact_up_to_its_limit) {
    double d[WILCOXON_EXACT_MAX + 1];
    for (size_t i = 1; i <= WILCOXON_EXACT_MAX; i++)
        d[i - 1] = (i % 2 == 0 && i <= 180 ? -1.0 : 1.0) * (double)i;
    bool exact = false;
    double p = wilcoxon_signed_rank_p(d, WILCOXON_EXACT_MAX, &exact);
    ck_assert(exact);
    ck_assert_double_eq_tol(p, 0.023049873585614104, 1e-12);
    d[WILCOXON_EXACT_MAX] = WILCOXON_EXACT_MAX + 1.0;
    double q = wilcoxon_signed_rank_p(d, WILCOXON_EXACT_MAX + 1, &exact);
    ck_assert(!exact);
    ck_assert(q > 0.0 && q < 0.05);
}
END_TEST

/* The interval of the page's tests: seeded (the same every run), around
 * the mean, inside the values' range; a mean of equal values has an
 * interval of width 0; with 10,000 resamples of 15 tasks, as the page
 * draws, the interval holds the mean and another seed barely moves it. */
START_TEST(bootstrap_interval_of_a_mean) {
    const double d[6] = {0.1, 0.3, -0.2, 0.4, 0.0, 0.2};
    double m, lo, hi, m2, lo2, hi2;
    ck_assert_int_eq(bootstrap_mean_ci(d, 6, 2000, 5, &m, &lo, &hi), 0);
    ck_assert_double_eq_tol(m, 0.8 / 6.0, 1e-15);
    ck_assert(lo < m && m < hi && lo >= -0.2 && hi <= 0.4);
    ck_assert_int_eq(bootstrap_mean_ci(d, 6, 2000, 5, &m2, &lo2, &hi2), 0);
    ck_assert(lo == lo2 && hi == hi2);
    const double same[4] = {0.25, 0.25, 0.25, 0.25};
    ck_assert_int_eq(bootstrap_mean_ci(same, 4, 100, 1, &m, &lo, &hi), 0);
    ck_assert(m == 0.25 && lo == 0.25 && hi == 0.25);
    ck_assert_int_eq(bootstrap_mean_ci(d, 0, 100, 1, &m, &lo, &hi), -1);
    ck_assert(isnan(m) && isnan(lo) && isnan(hi));
    double tasks[15];
    for (int i = 0; i < 15; i++)
        tasks[i] = 0.01 * (double)((i * 7) % 15) - 0.03;
    ck_assert_int_eq(bootstrap_mean_ci(tasks, 15, 10000, 1, &m, &lo, &hi), 0);
    ck_assert_int_eq(bootstrap_mean_ci(tasks, 15, 10000, 2, &m2, &lo2, &hi2), 0);
    ck_assert(lo < m && m < hi && lo2 < m && m < hi2);
    ck_assert(fabs(lo - lo2) < 0.005 && fabs(hi - hi2) < 0.005);
    /* about the normal interval's half-width, 1.96 SD / sqrt(15) = 0.022 */
    ck_assert(fabs((hi - lo) / 2.0 - 0.022) < 0.003);
}
END_TEST

static int by_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The bootstrap as the benchmark page's last section states it, redone
 * from its words: xoshiro256** (rng_u64; from the state {1, 2, 3, 4} the
 * definition gives 0x2d00, 0, 0x5a007080, 0x10e0000000009d80), its state
 * the first four outputs of splitmix64 started at the seed (from 0, the
 * published 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f,
 * 0xf88bb8a8724c81ec), seeded afresh for each interval; each resample n
 * indices drawn in turn by rejection (x drawn again while x >= 2^64 - 1 -
 * ((2^64 - 1) mod n), the index x mod n), its mean the units' sum in the
 * order drawn over n; the sorted means' entries floor(0.025 (B - 1)) and
 * ceil(0.975 (B - 1)). bootstrap_mean_ci's ends are these to the bit, so
 * a reader who follows the page redraws its intervals exactly. */
START_TEST(bootstrap_as_the_page_states_it) {
    Rng r = {{1, 2, 3, 4}};
    const uint64_t out[4] = {0x2d00, 0, 0x5a007080, 0x10e0000000009d80};
    for (int i = 0; i < 4; i++)
        ck_assert(rng_u64(&r) == out[i]);
    rng_seed(&r, 0);
    const uint64_t splitmix[4] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
                                  0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL};
    for (int i = 0; i < 4; i++)
        ck_assert(r.s[i] == splitmix[i]);
    const double d[7] = {0.31, -0.02, 0.115, 0.4, 0.0625, -0.2, 0.07};
    const size_t n = 7, B = 10000;
    double *means = malloc(B * sizeof *means), m, lo, hi;
    ck_assert_ptr_nonnull(means);
    rng_seed(&r, 1);
    for (size_t b = 0; b < B; b++) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) {
            uint64_t x;
            do
                x = rng_u64(&r);
            while (x >= UINT64_MAX - UINT64_MAX % n);
            sum += d[x % n];
        }
        means[b] = sum / (double)n;
    }
    qsort(means, B, sizeof *means, by_double);
    ck_assert_int_eq(bootstrap_mean_ci(d, n, B, 1, &m, &lo, &hi), 0);
    ck_assert(lo == means[249] && hi == means[9750]); /* floor(249.975), ceil(9749.025) */
    ck_assert(lo < hi);
    free(means);
}
END_TEST

/* The commonest answer of tapes made by hand: inputs and padding ("_")
 * never count; of equal counts the first in byte order wins; a
 * sentence task's labels are refused. */
START_TEST(chance_counts_the_commonest_answer) {
    TextData d;
    textdata_init(&d, LABELS_TOKEN);
    const char *w1[4] = {"x", "y", "?", "?"}, *l1[4] = {"_", "_", "b", "a"};
    const char *w2[4] = {"x", "?", "?", "?"}, *l2[4] = {"_", "b", "b", "_"};
    Err e;
    ck_assert_int_eq(textdata_add(&d, w1, 4, l1, &e), 0);
    ck_assert_int_eq(textdata_add(&d, w2, 4, l2, &e), 0);
    BenchAnswers a = {0};
    ck_assert_int_eq(exp_answers_add(&a, &d), 0);
    ck_assert_uint_eq(a.blanks, 4); /* b, a, b, b */
    ck_assert_str_eq(a.label[exp_answers_commonest(&a)], "b");
    ck_assert_uint_eq(exp_answers_count(&a, "b"), 3);
    ck_assert_uint_eq(exp_answers_count(&a, "c"), 0);
    textdata_free(&d);
    textdata_init(&d, LABELS_TOKEN);
    const char *l3[4] = {"_", "z", "y", "_"};
    ck_assert_int_eq(textdata_add(&d, w1, 4, l3, &e), 0);
    BenchAnswers tie = {0};
    ck_assert_int_eq(exp_answers_add(&tie, &d), 0);
    ck_assert_str_eq(tie.label[exp_answers_commonest(&tie)], "y");
    textdata_free(&d);
    textdata_init(&d, LABELS_SENTENCE);
    const char *l4[1] = {"pos"};
    ck_assert_int_eq(textdata_add(&d, w1, 2, l4, &e), 0);
    ck_assert_int_eq(exp_answers_add(&tie, &d), -1);
    textdata_free(&d);
}
END_TEST

/* A task's own tapes: even_pairs at length 1 has no pair, so every
 * tape's one blank is 0, and the floor there is 1; on the quick grid's
 * test lengths the floor at each length is the share of the commonest
 * answer on the tapes cell_bench.c's test_length draws (counted here
 * from those tapes), and a sum mod 5 or a symbol of five sits near 0.2,
 * where cycle_navigation's no-position model scores 0.72 on the full
 * grid. */
START_TEST(chance_floor_from_the_tasks_tapes) {
    TextData d[3];
    Err e;
    TaskOptions one = {.min_len = 1, .max_len = 1, .n_train = 1, .n_valid = 1, .n_test = 50,
                       .seed = 3};
    ck_assert_msg(task_make(&d[0], &d[1], &d[2], "even_pairs", &one, &e) == 0, "%s", e.msg);
    BenchAnswers a = {0};
    ck_assert_int_eq(exp_answers_add(&a, &d[2]), 0);
    ck_assert_uint_eq(a.blanks, 50);
    ck_assert_str_eq(a.label[exp_answers_commonest(&a)], "0");
    ck_assert_uint_eq(exp_answers_count(&a, "0"), 50);
    for (int i = 0; i < 3; i++)
        textdata_free(&d[i]);
    ExpResults r = {0};
    exp_settings_bench(&r.set, true, 0);
    BenchChance c;
    ck_assert_msg(exp_bench_chance(&c, &r, &e) == 0, "%s", e.msg);
    size_t N = r.set.bench_N, M = r.set.bench_M;
    for (size_t t = 0; t < r.set.bench_n_tasks; t++) {
        const char *task = r.set.bench_task[t];
        ck_assert(isnan(c.share[t * (M + 1) + N]));
        double floor = exp_bench_chance_at(&c, t, (Band){N + 1, M});
        ck_assert_msg(floor > 0.0 && floor <= 1.0, "%s: %g", task, floor);
        ck_assert(isnan(exp_bench_chance_at(&c, t, (Band){1, M})));
        /* the last length again, its tapes drawn as test_length draws them */
        BenchAnswers at = {0};
        for (size_t s = 0; s < r.set.seeds; s++) {
            TaskOptions o = {.min_len = M, .max_len = M, .n_train = 1, .n_valid = 1,
                             .n_test = r.set.bench_per_len, .seed = (1 + s) * 1000003u + M};
            ck_assert(task_make(&d[0], &d[1], &d[2], task, &o, &e) == 0);
            ck_assert_int_eq(exp_answers_add(&at, &d[2]), 0);
            for (int i = 0; i < 3; i++)
                textdata_free(&d[i]);
        }
        ck_assert_uint_eq(c.blanks[t * (M + 1) + M], at.blanks);
        ck_assert_double_eq_tol(c.share[t * (M + 1) + M],
                                (double)exp_answers_count(&at, c.answer[t]) / (double)at.blanks,
                                1e-15);
        if (strcmp(task, "cycle_navigation") == 0 || strcmp(task, "bucket_sort") == 0)
            ck_assert_msg(floor > 0.1 && floor < 0.4, "%s: %g", task, floor);
    }
    exp_bench_chance_free(&c);
}
END_TEST

TCase *tcase_paired(void) {
    TCase *tc = tcase_create("paired");
    tcase_add_test(tc, wilcoxon_signed_rank);
    tcase_add_test(tc, wilcoxon_against_a_table);
    tcase_add_test(tc, wilcoxon_ties_exact);
    tcase_add_test(tc, wilcoxon_against_enumeration);
    tcase_add_test(tc, wilcoxon_exact_up_to_its_limit);
    tcase_add_test(tc, bootstrap_interval_of_a_mean);
    tcase_add_test(tc, bootstrap_as_the_page_states_it);
    tcase_add_test(tc, chance_counts_the_commonest_answer);
    tcase_add_test(tc, chance_floor_from_the_tasks_tapes);
    return tc;
}
