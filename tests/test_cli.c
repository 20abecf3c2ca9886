/* The programs, run as a user runs them: exit codes, messages, and the
 * claims the README makes about demo_order's output. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

/* Expects exit code 2, nothing on stdout, and a message naming want. */
static void expect_usage_error(const char *args, const char *want) {
    expect_exit("demo_order", args, 2, want);
}

typedef struct {
    char scheme[32];
    double diff, cos;
} Row;

/* Parses --csv output, checking the header; returns the number of rows. */
static size_t parse_csv(const char *text, Row *rows, size_t cap) {
    const char *header = "scheme,max_abs_diff,pooled_cosine\n";
    ck_assert_msg(strncmp(text, header, strlen(header)) == 0, "bad header: %s", text);
    const char *p = text + strlen(header);
    size_t n = 0;
    while (*p) {
        ck_assert(n < cap);
        int used = 0;
        ck_assert_msg(sscanf(p, "%31[^,],%lf,%lf\n%n", rows[n].scheme, &rows[n].diff,
                             &rows[n].cos, &used) == 3 && used > 0,
                      "bad csv line: %s", p);
        p += used;
        n++;
    }
    return n;
}

START_TEST(demo_default_runs) {
    Run r = run("demo_order", "");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Rohan killed the lion"));
    ck_assert_ptr_nonnull(strstr(r.out, "order-blind"));
    ck_assert_ptr_nonnull(strstr(r.out, "order-sensitive"));
    run_free(&r);
}
END_TEST

START_TEST(demo_csv_claims) {
    /* The README's claims: without position the rows are a permutation
     * (<= 1e-5) and the pooled vectors the same (>= 0.999999); every
     * scheme, those inside attention included, moves them by more than
     * 1e-3. */
    Run r = run("demo_order", "--csv");
    ck_assert_int_eq(r.status, 0);
    Row rows[16];
    size_t n = parse_csv(r.out, rows, 16);
    ck_assert_uint_eq(n, pe_count());
    ck_assert_str_eq(rows[0].scheme, "none");
    ck_assert_msg(rows[0].diff <= 1e-5 && rows[0].cos >= 0.999999, "none: %g %g", rows[0].diff,
                  rows[0].cos);
    for (size_t i = 1; i < n; i++)
        ck_assert_msg(rows[i].diff > 1e-3, "%s: max_abs_diff %g", rows[i].scheme, rows[i].diff);
    run_free(&r);
}
END_TEST

START_TEST(demo_repeated_words) {
    Run r = run("demo_order", "--csv 'the cat sat on the mat' 'the mat sat on the cat'");
    ck_assert_msg(r.status == 0, "%s", r.err);
    Row rows[16];
    ck_assert_uint_eq(parse_csv(r.out, rows, 16), pe_count());
    ck_assert(rows[0].diff <= 1e-5);
    for (size_t i = 1; i < pe_count(); i++)
        ck_assert(rows[i].diff > 1e-3);
    run_free(&r);
    /* one sentence: compared with itself backwards */
    r = run("demo_order", "--csv --pe none 'a b c d e'");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, 16), 1);
    run_free(&r);
}
END_TEST

START_TEST(demo_layernorm_erases_a_constant_shift) {
    /* docs/: a count added to every channel is erased by pre-norm's
     * LayerNorm, but leaks through attention with post-norm. */
    Row rows[4];
    Run r = run("demo_order", "--csv --pe integer --combine add --norm pre");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, 4), 1);
    ck_assert_msg(rows[0].diff <= 1e-4, "pre-norm: %g", rows[0].diff);
    run_free(&r);
    r = run("demo_order", "--csv --pe integer --combine add --norm post");
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(parse_csv(r.out, rows, 4), 1);
    ck_assert_msg(rows[0].diff > 1e-3, "post-norm: %g", rows[0].diff);
    run_free(&r);
}
END_TEST

START_TEST(demo_bad_input) {
    expect_usage_error("'Rohan killed the lion' 'tiger killed the Rohan'", "'tiger'");
    expect_usage_error("'Rohan killed the lion' 'lion killed Rohan'", "3 words");
    expect_usage_error("'Rohan killed the lion' 'Rohan killed the lion'", "same order");
    expect_usage_error("''", "empty");
    expect_usage_error("'   ' 'x'", "empty");
    expect_usage_error("--pe learned --table-len 3", "--table-len 4");
    expect_usage_error("--heads 3", "--heads");
    expect_usage_error("--pe fourier", "unknown scheme 'fourier'");
    expect_usage_error("--d-model 2 --heads 1 --pe sincos", "--d-model");
    expect_usage_error("--d-model 1 --heads 1 --pe integer", "--d-model");
    expect_usage_error("--d-model abc", "--d-model");
    expect_usage_error("--d-model -4", "--d-model");
    expect_usage_error("--layers 0", "--layers");
    expect_usage_error("--combine both", "add or concat");
    expect_usage_error("--norm middle", "--norm");
    expect_usage_error("--frobnicate", "unknown option");
    expect_usage_error("--pe", "needs a value");
    expect_usage_error("a b c", "too many");
}
END_TEST

START_TEST(demo_help) {
    Run r = run("demo_order", "--help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: demo_order"));
    ck_assert_ptr_nonnull(strstr(r.out, "--combine"));
    run_free(&r);
}
END_TEST

Suite *suite_cli(void) {
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("demo_order");
    tcase_add_test(tc, demo_default_runs);
    tcase_add_test(tc, demo_csv_claims);
    tcase_add_test(tc, demo_repeated_words);
    tcase_add_test(tc, demo_layernorm_erases_a_constant_shift);
    tcase_add_test(tc, demo_bad_input);
    tcase_add_test(tc, demo_help);
    suite_add_tcase(s, tc);
    return s;
}
