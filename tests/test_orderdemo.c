/* The order demonstration shared by demo_order and the web page
 * (src/run/orderdemo.c): the sentences' checks, and the run against the
 * figures demo_order prints; and the same claim made across two runs of
 * encode, which page 1's exercise 4 asks of a learner. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/run/orderdemo.h"
#include "suites.h"
#include "../src/pe/pe_alibi.h"

START_TEST(pair_defaults_to_the_sentence_backwards) {
    OrderPair p;
    Err e;
    ck_assert_int_eq(order_pair_init(&p, "Rohan killed  the lion", NULL, &e), 0);
    ck_assert_uint_eq(p.b.n, 4);
    ck_assert_str_eq(p.b.w[0], "lion");
    ck_assert_str_eq(p.b.w[3], "Rohan");
    ck_assert(p.perm[0] == 3 && p.perm[1] == 2 && p.perm[2] == 1 && p.perm[3] == 0);
    order_pair_free(&p);
}
END_TEST

/* The messages demo_order prints after "demo_order: ", and the page shows. */
START_TEST(pair_says_what_is_wrong) {
    OrderPair p;
    Err e;
    ck_assert_int_eq(order_pair_init(&p, "  ", "a b", &e), ERR_INPUT);
    ck_assert_str_eq(e.msg, "SENTENCE is empty: give at least two words, in quotes");
    ck_assert_ptr_null(p.perm);
    ck_assert_int_eq(order_pair_init(&p, "a b", "a c", &e), ERR_INPUT);
    ck_assert_str_eq(e.msg, "PERMUTED is not a reordering of SENTENCE: 'c' appears 1 time in "
                     "the second sentence but 0 in the first: the second must use exactly the "
                     "same words in another order");
    ck_assert_int_eq(order_pair_init(&p, "a b", "", &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "the second sentence is empty"));
    order_pair_free(&p); /* safe on a failed pair */
}
END_TEST

START_TEST(scheme_checks_before_running) {
    Config c;
    Err e;
    order_config_default(&c);
    c.vocab_size = 6;
    ck_assert_int_eq(order_check_scheme(&c, "sinusoidal", 4, &e), 0);
    c.n_heads = 3;
    ck_assert_int_eq(order_check_scheme(&c, "sinusoidal", 4, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "3 heads do not divide d_model 16"));
    c.n_heads = 2;
    c.max_len = 3;
    ck_assert_int_eq(order_check_scheme(&c, "learned", 4, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--table-len 4"));
    ck_assert_int_eq(order_check_scheme(&c, "no-such-scheme", 4, &e), ERR_INPUT);
}
END_TEST

/* Issue 25: with --pool cls the message counted the [CLS] as a word ("10
 * words" for 9); options that change nothing, or leave one vector for
 * every sentence, are refused with the reason. */
START_TEST(checks_count_words_and_refuse_what_does_nothing) {
    Config c;
    Err e;
    order_config_default(&c);
    c.vocab_size = 12;
    c.pool = POOL_CLS;
    c.max_len = 9;
    ck_assert_int_eq(order_check_scheme(&c, "learned", 10, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "the sentence has 9 words (and the [CLS] before them: 10 "
                         "positions) but the learned table has rows for positions 0..8 only; "
                         "use --table-len 10 or more"), "%s", e.msg);
    c.causal = true;
    ck_assert_int_eq(order_check_scheme(&c, "none", 4, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--pool cls with --causal: under the mask the [CLS] row"), "%s",
                  e.msg);
    c.pool = POOL_MEAN;
    ck_assert_int_eq(order_check_scheme(&c, "none", 4, &e), 0);
    set_opt(&c.pe, "--alibi-slopes", "asymmetric");
    ck_assert_int_eq(order_check_scheme(&c, "alibi", 4, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--alibi-slopes asymmetric does nothing under --causal"), "%s",
                  e.msg);
    c.causal = false;
    c.n_heads = 1;
    ck_assert_int_eq(order_check_scheme(&c, "alibi", 4, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "--alibi-slopes asymmetric with 1 head is the symmetric bias"),
                  "%s", e.msg);
    /* an odd count: the middle head's slopes are one, the others' differ,
     * and that is enough to tell a sentence from its reverse */
    c.d_model = 18, c.n_heads = 3;
    ck_assert_int_eq(order_check_scheme(&c, "alibi", 4, &e), 0);
    PeConfig pc = c.pe;
    snprintf(pc.name, sizeof pc.name, "alibi");
    ck_assert(alibi_slope_side(&pc, 1, 3, true) == alibi_slope_side(&pc, 1, 3, false));
    ck_assert(alibi_slope_side(&pc, 0, 3, true) != alibi_slope_side(&pc, 0, 3, false));
}
END_TEST

/* README's table: none is order-blind, the sinusoid is not (2.107082e+00,
 * 0.996360097 there; OpenBLAS's rounding differs from run to run by far
 * less than the tolerance). */
START_TEST(run_gives_the_readme_figures) {
    const char *scheme[2] = {"none", "sinusoidal"};
    for (int s = 0; s < 2; s++) {
        OrderPair p;
        Vocab v;
        Config c;
        Model m;
        Acts acts;
        OrderResult r;
        Err e;
        ck_assert_int_eq(order_pair_init(&p, "Rohan killed the lion", "lion killed the Rohan", &e),
                         0);
        ck_assert_int_eq(vocab_init(&v, &e), 0);
        ck_assert_int_eq(vocab_add_text(&v, "Rohan killed the lion", &e), 0);
        order_config_default(&c);
        c.vocab_size = v.n;
        snprintf(c.pe.name, sizeof c.pe.name, "%s", scheme[s]);
        ck_assert_msg(model_create(&m, &c, &e) == 0, "%s", e.msg);
        ck_assert_msg(order_run(&r, &acts, &m, &v, &p.a, &p.b, p.perm, &e) == 0, "%s", e.msg);
        if (s == 0) {
            ck_assert_msg(r.max_diff <= ORDER_BLIND_TOL, "none: %g", r.max_diff);
            ck_assert_double_eq_tol(r.cos, 1.0, 1e-6);
            ck_assert_str_eq(order_verdict(r.max_diff), "order-blind");
        } else {
            ck_assert_double_eq_tol(r.max_diff, 2.107082, 1e-5);
            ck_assert_double_eq_tol(r.cos, 0.996360097, 1e-6);
            ck_assert_str_eq(order_verdict(r.max_diff), "order-sensitive");
        }
        acts_free(&acts);
        model_free(&m);
        vocab_free(&v);
        order_pair_free(&p);
    }
}
END_TEST

/* The pooled vector encode prints for sentence s under options opts, in
 * out[0..C); returns C. */
static size_t encode_pooled(const char *opts, const char *s, double *out, size_t cap) {
    char args[512];
    snprintf(args, sizeof args, "%s '%s'", opts, s);
    Run r = run("encode", args);
    ck_assert_msg(r.status == 0, "encode %s: %s", args, r.err);
    const char *p = strstr(r.out, "pooled (");
    ck_assert_msg(p != NULL, "encode %s printed no pooled vector: %s", args, r.out);
    p = strchr(p, '\n');
    size_t n = 0;
    for (char *end; n < cap; p = end) {
        double x = strtod(p, &end);
        if (end == p)
            break;
        out[n++] = x;
    }
    run_free(&r);
    return n;
}

static double pooled_distance(const char *opts, const char *s1, const char *s2) {
    double a[64], b[64], d = 0.0;
    size_t na = encode_pooled(opts, s1, a, 64), nb = encode_pooled(opts, s2, b, 64);
    ck_assert_uint_eq(na, 16);
    ck_assert_uint_eq(nb, 16);
    for (size_t c = 0; c < na; c++)
        d = fmax(d, fabs(a[c] - b[c]));
    return d;
}

/* Issue 29: encode without --model numbered words by first appearance, so
 * "Rohan killed the lion", "lion killed the Rohan" and "cats eat fresh
 * fish" were all ids 2, 3, 4, 5 and gave one vector even with the
 * sinusoid. A word keeps its row from one run to the next: the same words
 * reordered give the same mean without position and another with it, and
 * other words give another mean. */
START_TEST(encode_keeps_word_identity_across_runs) {
    const char *small = "--d-model 16 --heads 2";
    char opts[128];
    snprintf(opts, sizeof opts, "%s --pe none", small);
    double none = pooled_distance(opts, "Rohan killed the lion", "lion killed the Rohan");
    ck_assert_msg(none <= 1e-4, "--pe none: the pooled vectors differ by %g", none);
    double other = pooled_distance(opts, "Rohan killed the lion", "cats eat fresh fish");
    ck_assert_msg(other > 1e-2, "other words give the same pooled vector (%g apart)", other);
    snprintf(opts, sizeof opts, "%s --pe sinusoidal", small);
    double sin = pooled_distance(opts, "Rohan killed the lion", "lion killed the Rohan");
    ck_assert_msg(sin > 1e-2, "--pe sinusoidal: the pooled vectors are %g apart", sin);
}
END_TEST

Suite *suite_orderdemo(void) {
    Suite *s = suite_create("orderdemo");
    TCase *tc = tcase_create("orderdemo");
    tcase_add_test(tc, pair_defaults_to_the_sentence_backwards);
    tcase_add_test(tc, pair_says_what_is_wrong);
    tcase_add_test(tc, scheme_checks_before_running);
    tcase_add_test(tc, checks_count_words_and_refuse_what_does_nothing);
    tcase_add_test(tc, run_gives_the_readme_figures);
    suite_add_tcase(s, tc);
    TCase *enc = tcase_create("encode");
    tcase_add_test(enc, encode_keeps_word_identity_across_runs);
    suite_add_tcase(s, enc);
    return s;
}
