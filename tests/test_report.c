/* The properties of the schemes (src/pe/analysis.h) pinned to figures
 * computed independently first (docs/properties.md, "Figures checked"),
 * and pe_report's output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/pe/analysis.h"
#include "../src/pe/analysis_shift.h"
#include "suites.h"
#include "../src/pe/pe_sinusoidal.h"

static PeProps props(const char *name, size_t C, size_t N) {
    PeConfig pc;
    pe_config_default(&pc, name);
    PeProps p;
    Err e;
    ck_assert_msg(pe_properties(&p, &pc, 42, C, 4, N, 1000000, &e) == 0, "%s", e.msg);
    return p;
}

/* P (T,w) and X (T,C) of a scheme; free both. */
static float *rows(float **X, const char *name, size_t C, size_t T) {
    PeConfig pc;
    pe_config_default(&pc, name);
    PePlan plan;
    float *P;
    Err e;
    ck_assert_msg(pe_table(&P, &plan, &pc, 42, C, 4, T, &e) == 0, "%s", e.msg);
    *X = malloc(T * C * sizeof **X);
    ck_assert_ptr_nonnull(*X);
    pe_embed(*X, P, &plan, C, T);
    return P;
}

START_TEST(sinusoid_d64_known_numbers) {
    float *X, *P = rows(&X, "sinusoidal", 64, 256); /* S over the first 128 */
    double *S = malloc(128 * 128 * sizeof *S);
    ck_assert_ptr_nonnull(S);
    position_similarity(S, X, 128, 64);
    for (size_t p = 0; p < 128; p++)
        ck_assert_msg(fabs(sqrt(S[p * 128 + p]) - sqrt(32.0)) <= 1e-6, "||PE(%zu)|| = %.9f", p,
                      sqrt(S[p * 128 + p]));
    /* <PE_x, PE_y> = sum_i cos(w_i (x - y)): the same for every pair 5 apart */
    const size_t pairs[3][2] = {{10, 15}, {50, 55}, {20, 15}};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(fabs(S[pairs[i][0] * 128 + pairs[i][1]] - 23.503971) <= 2e-6,
                      "PE%zu.PE%zu = %.7f", pairs[i][0], pairs[i][1],
                      S[pairs[i][0] * 128 + pairs[i][1]]);
    ck_assert_double_le(translation_invariance(S, 128), 1e-6);
    ck_assert_double_le(symmetry_error(S, 128), 1e-12);
    ck_assert_double_le(reflection_error(S, 128), 1e-6);
    Err e;
    for (size_t k = 1; k <= 10; k++) {
        double r = shift_residual(P, 256, 64, k, &e);
        ck_assert_msg(r <= 1e-5, "residual at k = %zu: %g", k, r);
    }
    /* 99 positions cannot pin down a 64 x 64 map */
    ck_assert(isnan(shift_residual(P, 100, 64, 1, &e)));
    free(S);
    free(X);
    free(P);
}
END_TEST

START_TEST(sinusoid_monotone_radius) {
    /* checked: r* = 4, 5, 6, 12, 44 at d = 16, 32, 64, 128, 512 */
    const size_t d[5] = {16, 32, 64, 128, 512}, want[5] = {4, 5, 6, 12, 44};
    for (int i = 0; i < 5; i++) {
        PeProps p = props("sinusoidal", d[i], 128);
        ck_assert_msg(p.monotone_radius == want[i], "d = %zu: r* = %zu, want %zu", d[i],
                      p.monotone_radius, want[i]);
    }
}
END_TEST

START_TEST(sinusoid_meets_the_four_criteria) {
    PeProps p = props("sinusoidal", 64, 256);
    ck_assert(p.unique && p.consistent && p.bounded && p.deterministic);
    ck_assert_double_le(p.shift_residual, 1e-5);
    ck_assert_double_le(p.translation_invariance, 1e-6);
    ck_assert_double_eq(p.symmetry, 0.0);
    ck_assert_double_eq_tol(p.norm_first, sqrt(32.0), 1e-6);
    ck_assert_double_eq_tol(p.norm_last, sqrt(32.0), 1e-6);
    ck_assert_double_eq(p.max_abs, 1.0);
    /* bounded, yet the slow channels leave the range seen in 256 positions */
    ck_assert_double_gt(p.range_excursion, 0.5);
    /* the layouts are a permutation of channels: the same properties */
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    set_opt(&pc, "--layout", "split");
    PeProps q;
    Err e;
    ck_assert_int_eq(pe_properties(&q, &pc, 42, 64, 4, 256, 1000000, &e), 0);
    ck_assert_double_eq_tol(q.uniqueness, p.uniqueness, 1e-9);
    ck_assert_double_eq_tol(q.layernorm_erasure, p.layernorm_erasure, 1e-9);
    ck_assert_double_eq_tol(q.range_excursion, p.range_excursion, 1e-9);
    ck_assert_uint_eq(q.monotone_radius, p.monotone_radius);
    ck_assert_double_le(q.shift_residual, 1e-5);
}
END_TEST

START_TEST(naive_schemes_fail_as_the_notes_say) {
    /* integer: unbounded, max |P| grows with the positions */
    PeProps p = props("integer", 64, 64);
    ck_assert_double_eq(p.max_abs, 64.0);
    ck_assert_double_eq(p.growth, 4.0);
    ck_assert(!p.bounded && p.unique && p.consistent && p.deterministic);
    /* pos/N: word 2 is 1 in "Thank you" and 0.5 in "Rohan killed the lion" */
    float *X, *two = rows(&X, "normalized", 8, 2), *Y, *four = rows(&Y, "normalized", 8, 4);
    ck_assert_float_eq(two[1], 1.0f);
    ck_assert_float_eq(four[1], 0.5f);
    free(two), free(X), free(four), free(Y);
    p = props("normalized", 64, 64);
    ck_assert_double_eq_tol(p.length_inconsistency, 0.5, 1e-7);
    ck_assert(!p.consistent && p.bounded);
    /* sin(pos): the aliasing pairs |sin 8 - sin 14|, |sin 11 - sin 55| (positions
     * count from 1) */
    float *sine = rows(&X, "sine", 8, 64);
    ck_assert_double_eq_tol(fabs(sine[7] - sine[13]), 0.001249, 2e-6);   /* sin 8, sin 14 */
    ck_assert_double_eq_tol(fabs(sine[10] - sine[54]), 0.000235, 2e-6);  /* sin 11, sin 55 */
    free(sine), free(X);
    p = props("sine", 64, 64);
    ck_assert_uint_eq(p.closest_a, 11);
    ck_assert_uint_eq(p.closest_b, 55);
    ck_assert(!p.unique && p.bounded);
    /* one (sin, cos) pair at w = 1: 44 positions apart is 0.0177 away */
    p = props("sincos", 64, 64);
    ck_assert_uint_eq(p.closest_b - p.closest_a, 44);
    ck_assert_double_eq_tol(p.uniqueness, 0.017703, 2e-6);
    /* the learned table: neither deterministic nor defined past its rows */
    p = props("learned", 64, 64);
    ck_assert(!p.deterministic && !p.defined_past && !p.bounded && isnan(p.growth));
    ck_assert_double_gt(p.seed_sensitivity, 0.01);
    p = props("none", 64, 64);
    ck_assert(!p.unique);
    ck_assert_double_eq(p.uniqueness, 0.0);
}
END_TEST

START_TEST(small_d_is_weak) {
    /* checked: at d = 8, ||P(t+63) - P(t)||^2 = 0.42 is below
     * ||P(t+1) - P(t)||^2 = 0.93 */
    float *X, *P = rows(&X, "sinusoidal", 8, 80);
    double far = 0.0, near = 0.0;
    for (size_t c = 0; c < 8; c++) {
        far += (P[63 * 8 + c] - P[c]) * (P[63 * 8 + c] - P[c]);
        near += (P[8 + c] - P[c]) * (P[8 + c] - P[c]);
    }
    ck_assert_double_eq_tol(far, 0.4166, 1e-3);
    ck_assert_double_eq_tol(near, 0.9294, 1e-3);
    free(P), free(X);
}
END_TEST

START_TEST(layernorm_erases_a_count_on_every_channel) {
    PeConfig pc;
    pe_config_default(&pc, "integer");
    PeProps p;
    Err e;
    set_opt(&pc, "--combine", "add");
    ck_assert_int_eq(pe_properties(&p, &pc, 42, 64, 4, 64, 1000000, &e), 0);
    ck_assert_double_eq_tol(p.layernorm_erasure, 1.0, 1e-12);
    set_opt(&pc, "--combine", "concat"); /* the notes' extra channel keeps it */
    ck_assert_int_eq(pe_properties(&p, &pc, 42, 64, 4, 64, 1000000, &e), 0);
    ck_assert_double_eq_tol(p.layernorm_erasure, 1.0 / 64.0, 1e-12);
}
END_TEST

START_TEST(float32_error_of_float_angles) {
    /* PyTorch's float32 recipe against double, at single positions p, d =
     * 64, at 1e4..1e7: 1.99e-4, 2.25e-3, 3.04e-2, 0.241 (measured; an
     * earlier estimate of 1.9e-3 at 1e5 was wrong). */
    PeConfig pc;
    pe_config_default(&pc, "sinusoidal");
    const size_t at[4] = {10000, 100000, 1000000, 10000000};
    const double want[4] = {1.99e-4, 2.25e-3, 3.04e-2, 0.241};
    for (int i = 0; i < 4; i++) {
        double got = float32_error(&pc, 64, at[i], 1, at[i]);
        ck_assert_msg(fabs(got - want[i]) <= 0.05 * want[i], "at %zu: %.4g, want %.4g", at[i],
                      got, want[i]);
    }
    /* the count is exact in float32 up to 2^24; then neighbours collide */
    pe_config_default(&pc, "integer");
    ck_assert_double_eq(float32_error(&pc, 1, 16777214, 1, 1), 0.0);
    ck_assert_double_eq(float32_error(&pc, 1, 16777216, 1, 1), 1.0);
    pe_config_default(&pc, "learned");
    ck_assert(isnan(float32_error(&pc, 8, 0, 4, 4)));
}
END_TEST

/* Whether the line starting at s ends with tail. */
static bool ends_with(const char *s, const char *tail) {
    size_t n = strcspn(s, "\n"), t = strlen(tail);
    return n >= t && strncmp(s + n - t, tail, t) == 0;
}

START_TEST(pe_report_csv) {
    Run r = run("pe_report", "--csv");
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *header = "scheme,combine,channels,d_model,positions,uniqueness,closest_a,"
                         "closest_b,max_abs,norm_first,norm_last,growth,length_inconsistency,"
                         "seed_sensitivity,defined_past,range_excursion,translation_invariance,"
                         "symmetry,monotone_radius,shift_residual,reflection,layernorm_erasure,"
                         "float32_error,float32_at,unique,consistent,bounded,deterministic\n";
    ck_assert_msg(strncmp(r.out, header, strlen(header)) == 0, "header: %s", r.out);
    size_t lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, pe_count() + 1);
    const char *row = strstr(r.out, "\nsinusoidal,add,64,64,256,");
    ck_assert_ptr_nonnull(row);
    double v[9];
    /* uniqueness, closest pair, max_abs, norms, growth, length, seed */
    ck_assert_int_eq(sscanf(row + strlen("\nsinusoidal,add,64,64,256,"),
                            "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3],
                            &v[4], &v[5], &v[6], &v[7], &v[8]), 9);
    ck_assert_double_eq_tol(v[4], sqrt(32.0), 1e-6);
    ck_assert_double_eq_tol(v[5], sqrt(32.0), 1e-6);
    ck_assert_double_eq(v[7], 0.0);
    ck_assert(ends_with(row + 1, ",yes,yes,yes,yes"));
    row = strstr(r.out, "\nnormalized,concat,1,64,256,");
    ck_assert_ptr_nonnull(row);
    ck_assert(ends_with(row + 1, ",yes,no,yes,yes")); /* inconsistent across lengths */
    row = strstr(r.out, "\nlearned,add,64,64,256,");
    ck_assert_ptr_nonnull(row);
    ck_assert(ends_with(row + 1, ",yes,yes,no,no"));
    run_free(&r);
}
END_TEST

START_TEST(pe_report_markdown_and_options) {
    Run r = run("pe_report", "--pe sinusoidal,sine --d-model 32 --positions 64");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "| property "));
    ck_assert_ptr_nonnull(strstr(r.out, "| sinusoidal "));
    ck_assert_ptr_nonnull(strstr(r.out, "| 11, 55 ")); /* sine's closest pair */
    ck_assert_ptr_null(strstr(r.out, "| integer"));
    run_free(&r);
    expect_exit("pe_report", "--pe fourier", 2, "unknown scheme 'fourier'");
    expect_exit("pe_report", "--positions 1", 2, "--positions");
    expect_exit("pe_report", "--positions 5000", 2, "--positions");
    expect_exit("pe_report", "--pe integer --d-model 1", 2, "--d-model");
    expect_exit("pe_report", "--layers 2", 2, "unknown option '--layers'");
    expect_exit("pe_report", "--pe rope --d-model 18 --heads 2", 2, "odd number");
    expect_exit("pe_report", "--pe alibi --heads 5", 2, "do not divide d_model 64");
    r = run("pe_report", "--help");
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: pe_report"));
    run_free(&r);
}
END_TEST

/* --wavelengths: pair 0 of a head of 8 has wavelength 2 pi and turns
 * 8 / 2 pi = 1.273 times over L = 8; linear x4 keeps its turns over 4L,
 * which is what interpolation is for. */
START_TEST(pe_report_wavelengths) {
    Run r = run("pe_report", "--wavelengths --d-model 32 --heads 4 --rope-scaling linear "
                "--rope-factor 4 --rope-original-len 8");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.out, "| 0 | 6.3 | 1.273 | 25.1 | 1.273 |") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "| 3 | 6283.2 | 0.001 | 25132.7 | 0.001 |") != NULL, "%s", r.out);
    run_free(&r);
    r = run("pe_report", "--wavelengths --rope-scaling yarn --rope-factor 4");
    ck_assert_msg(r.status == 0 && strstr(r.out, "so q.k by 1.2965"), "%s%s", r.out, r.err);
    run_free(&r);
    expect_exit("pe_report", "--wavelengths --positions 10", 2, "--positions does nothing with "
                "--wavelengths");
    expect_exit("pe_report", "--wavelengths --heads 3", 2, "--heads 3 must divide");
}
END_TEST

static PeShift shift(const char *name, size_t HS, size_t m, size_t n, size_t s, size_t pair) {
    PeConfig pc;
    pe_config_default(&pc, name);
    PeShift sh;
    Err e;
    ck_assert_msg(pe_shift(&sh, &pc, HS, m, n, s, pair, &e) == 0, "%s", e.msg);
    return sh;
}

/* A shift of both positions turns rope's q and k by the same angle and
 * keeps q.k; it moves the sinusoid's code against q0 and k0 and changes
 * it. The page (section 4) and pe_report --shift show these numbers. */
START_TEST(shift_keeps_rope_and_moves_the_sinusoid) {
    PeShift r = shift("rope", 16, 5, 2, 3, 0), x = shift("sinusoidal", 16, 5, 2, 3, 0);
    ck_assert_msg(fabs(r.score[1] - r.score[0]) <= 1e-6, "rope: %.9f then %.9f", r.score[0],
                  r.score[1]);
    ck_assert_msg(fabs(x.score[1] - x.score[0]) >= 0.1, "sinusoidal: %.9f then %.9f", x.score[0],
                  x.score[1]);
    /* rope's score is the analysis's logit S[m][n] (one fixed q0 and k0) */
    PeConfig pc;
    pe_config_default(&pc, "rope");
    PePlan plan;
    Err e;
    double S[9 * 9];
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 1, 9, &e), 0);
    ck_assert_int_eq(attention_logits(S, &plan, &pc, 42, 9, &e), 0);
    ck_assert_double_eq_tol(r.score[0], S[5 * 9 + 2], 1e-12);
    ck_assert_double_eq_tol(r.score[1], S[8 * 9 + 5], 1e-12);
    /* a turn keeps the pair's length; the code moves it; the pairs' parts
     * add up to the score */
    for (int t = 0; t < 2; t++) {
        ck_assert_double_eq_tol(hypot(r.q[t][0], r.q[t][1]), hypot(r.q0[0], r.q0[1]), 1e-6);
        ck_assert_double_gt(fabs(hypot(x.q[t][0], x.q[t][1]) - hypot(x.q0[0], x.q0[1])), 1e-3);
        double sum = 0.0;
        for (size_t i = 0; i < 8; i++)
            sum += shift("sinusoidal", 16, 5, 2, 3, i).part[t];
        ck_assert_double_eq_tol(sum, x.score[t], 1e-9);
    }
    /* the split layout pairs channel i with i + HS/2 */
    pe_set(&pc, &pe_opt_layout, "split", &e);
    ck_assert_int_eq(pe_shift(&r, &pc, 16, 5, 2, 3, 3, &e), 0);
    ck_assert(r.ca == 3 && r.cb == 11);
    /* what it takes and refuses */
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        ck_assert_msg(pe_shift_takes(s) == (s == pe_find("rope") || s == pe_find("sinusoidal") ||
                                            s == pe_find("xpos")),
                      "%s", s->name);
    }
    pe_config_default(&pc, "t5");
    ck_assert_int_eq(pe_shift(&r, &pc, 16, 5, 2, 3, 0, &e), ERR_INPUT);
    pe_config_default(&pc, "rope");
    ck_assert_int_eq(pe_shift(&r, &pc, 15, 5, 2, 3, 0, &e), ERR_INPUT);
    ck_assert_int_eq(pe_shift(&r, &pc, 16, 5, 2, 3, 8, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "pairs 0 to 7") != NULL, "%s", e.msg);
}
END_TEST

START_TEST(pe_report_shift) {
    Run r = run("pe_report", "--shift 2,5,100 --d-model 16 --heads 1");
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* rope's whole score is --relative 3's S(p, p+3), at any p */
    ck_assert_msg(strstr(r.out, "| -1.282235 |                      |                      | "
                         "-1.282235     |") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "at the offset 3, head of 16, base 10000: 2.825791") != NULL,
                  "%s", r.out);
    run_free(&r);
    expect_exit("pe_report", "--shift 5,2", 2, "--shift wants M,N,S");
    expect_exit("pe_report", "--shift 5,2,3 --buckets 4", 2, "--buckets applies to none of "
                "sinusoidal, rope");
    expect_exit("pe_report", "--shift 5,2,3 --positions 10", 2, "--positions does nothing with "
                "--shift");
}
END_TEST

START_TEST(pe_report_worked_example) {
    Run r = run("pe_report", "--worked-example");
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* the exact row of "bank" (errata in seeds/README.md) */
    const char *bank[6] = {"0.841471", "0.540302", "0.046399", "0.998923", "0.002154",
                           "0.999998"};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(strstr(r.out, bank[i]) != NULL, "missing %s", bank[i]);
    ck_assert_ptr_nonnull(strstr(r.out, "| 0.94  | wrong: 0.94, correct 0.84"));
    ck_assert_ptr_nonnull(strstr(r.out, "| 0.04  | truncated: 0.04, correct 0.05"));
    ck_assert_ptr_nonnull(strstr(r.out, "| 0.54  | ok"));
    ck_assert_ptr_nonnull(strstr(r.out, "wrong: 0.87, correct 0.91"));
    ck_assert_ptr_nonnull(strstr(r.out, "wrong: 0.19, correct 0.14"));
    ck_assert_ptr_nonnull(strstr(r.out, "wrong: -0.90, correct -0.76"));
    /* cos(1) = 0.54 and cos(2) = -0.42, written as 0.5 and -0.4: right to
     * the one decimal the notes keep */
    ck_assert_ptr_nonnull(strstr(r.out, "| 0.5   | rounded to 1 decimal: 0.54"));
    ck_assert_ptr_nonnull(strstr(r.out, "| -0.4  | rounded to 1 decimal: -0.42"));
    size_t count[3] = {0, 0, 0};
    const char *marks[3] = {"wrong:", "truncated:", "rounded to"};
    for (int k = 0; k < 3; k++)
        for (const char *p = r.out; (p = strstr(p, marks[k])); p++)
            count[k]++;
    /* River Bank: one wrong, three truncated; the steps: four wrong, two rounded */
    ck_assert_uint_eq(count[0], 5);
    ck_assert_uint_eq(count[1], 3);
    ck_assert_uint_eq(count[2], 2);
    run_free(&r);
}
END_TEST

Suite *suite_report(void) {
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("properties");
    tcase_add_test(tc, sinusoid_d64_known_numbers);
    tcase_add_test(tc, sinusoid_monotone_radius);
    tcase_add_test(tc, sinusoid_meets_the_four_criteria);
    tcase_add_test(tc, naive_schemes_fail_as_the_notes_say);
    tcase_add_test(tc, small_d_is_weak);
    tcase_add_test(tc, layernorm_erases_a_count_on_every_channel);
    tcase_add_test(tc, float32_error_of_float_angles);
    tcase_add_test(tc, shift_keeps_rope_and_moves_the_sinusoid);
    suite_add_tcase(s, tc);
    tc = tcase_create("pe_report");
    tcase_add_test(tc, pe_report_csv);
    tcase_add_test(tc, pe_report_markdown_and_options);
    tcase_add_test(tc, pe_report_worked_example);
    tcase_add_test(tc, pe_report_wavelengths);
    tcase_add_test(tc, pe_report_shift);
    suite_add_tcase(s, tc);
    return s;
}
