/* The position schemes: their values, the sinusoid's rotation property, and
 * that each one breaks the symmetry of self-attention, except where
 * LayerNorm erases it by construction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/text/order.h"
#include "../src/core/rng.h"
#include "../src/pe/pe.h"
#include "../src/run/checkpoint.h"
#include "suites.h"
#include "../src/pe/pe_sinusoidal.h"
#include "../src/pe/pe_rope.h"

/* An independent evaluation in double, written the way many tutorials do:
 * exp(2i * -ln(10000)/d) instead of a power. */
static double ref_sinusoid(double pos, size_t c, size_t d) {
    double freq = exp((double)(c / 2 * 2) * (-log(10000.0) / (double)d));
    return c % 2 ? cos(pos * freq) : sin(pos * freq);
}

START_TEST(sinusoid_position_zero_is_zero_one) {
    for (size_t d = 1; d <= 17; d++) {
        float P[17];
        sinusoid_table(P, 0, 1, d, LAYOUT_INTERLEAVED, 0.0);
        for (size_t c = 0; c < d; c++)
            ck_assert_float_eq(P[c], c % 2 ? 1.0f : 0.0f);
    }
}
END_TEST

START_TEST(sinusoid_river_bank) {
    /* The notes' example, d_model = 6: "River" at 0 and "bank" at 1. The
     * notes print 0.94 for the first value of "bank"; it is sin(1). */
    const double bank[6] = {0.841471, 0.540302, 0.046399, 0.998923, 0.002154, 0.999998};
    float P[2 * 6];
    sinusoid_table(P, 0, 2, 6, LAYOUT_INTERLEAVED, 0.0);
    for (size_t c = 0; c < 6; c++) {
        ck_assert_float_eq(P[c], c % 2 ? 1.0f : 0.0f);
        ck_assert_msg(fabs(P[6 + c] - bank[c]) <= 1e-6, "PE(1,%zu) = %.7f, want %.6f", c,
                      P[6 + c], bank[c]);
    }
}
END_TEST

START_TEST(sinusoid_matches_double_formula) {
    const size_t dims[] = {1,  2,  3,  4,  5,  6,   7,   8,   9,   10,  11,  12, 13,
                           14, 15, 16, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256, 511, 512};
    size_t T = 2048;
    float *P = malloc(T * 512 * sizeof *P);
    ck_assert_ptr_nonnull(P);
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
        size_t d = dims[k];
        sinusoid_table(P, 0, T, d, LAYOUT_INTERLEAVED, 0.0);
        double worst = 0.0;
        for (size_t t = 0; t < T; t++)
            for (size_t c = 0; c < d; c++)
                worst = fmax(worst, fabs(P[t * d + c] - ref_sinusoid((double)t, c, d)));
        /* rounding a value in [-1, 1] to float moves it by at most 2^-25 */
        ck_assert_msg(worst <= 3.0e-8, "d = %zu: max |float - double| = %.3g", d, worst);
    }
    free(P);
}
END_TEST

START_TEST(sinusoid_layouts_hold_the_same_channels) {
    /* split channel i is interleaved channel 2i (sin), split channel
     * ceil(d/2)+i is interleaved 2i+1 (cos) */
    const size_t dims[] = {1, 2, 5, 6, 7, 64, 65, 512};
    size_t T = 300;
    float *A = malloc(T * 512 * sizeof *A), *B = malloc(T * 512 * sizeof *B);
    ck_assert(A && B);
    for (size_t k = 0; k < sizeof dims / sizeof *dims; k++) {
        size_t d = dims[k], n_sin = (d + 1) / 2;
        sinusoid_table(A, 0, T, d, LAYOUT_INTERLEAVED, 0.0);
        sinusoid_table(B, 0, T, d, LAYOUT_SPLIT, 0.0);
        for (size_t t = 0; t < T; t++)
            for (size_t c = 0; c < d; c++) {
                size_t s = c % 2 ? n_sin + c / 2 : c / 2;
                ck_assert_msg(A[t * d + c] == B[t * d + s], "d=%zu t=%zu channel %zu", d, t, c);
            }
    }
    free(A);
    free(B);
}
END_TEST

START_TEST(sinusoid_odd_width_ends_with_a_sine) {
    float P[3 * 7];
    sinusoid_table(P, 0, 3, 7, LAYOUT_INTERLEAVED, 0.0);
    ck_assert_float_eq_tol(P[2 * 7 + 6], (float)sin(2.0 / pow(10000.0, 6.0 / 7.0)), 1e-7f);
}
END_TEST

/* PE(t+k) = M_k PE(t) with M_k made of 2x2 rotations by k*w_i that do not
 * depend on t (paper 3.5): measured in float for all t, k < 512. */
static double rotation_error(size_t d) {
    size_t T = 1024;
    float *P = malloc(T * d * sizeof *P);
    float *cs = malloc(d * sizeof *cs);
    ck_assert(P && cs);
    sinusoid_table(P, 0, T, d, LAYOUT_INTERLEAVED, 0.0);
    double worst = 0.0;
    for (size_t k = 0; k < 512; k++) {
        /* M_k from k alone: cos and sin of k * w_i, rounded to float */
        for (size_t i = 0; i < d / 2; i++) {
            double w = 1.0 / pow(10000.0, (double)(2 * i) / (double)d);
            cs[2 * i] = (float)cos((double)k * w);
            cs[2 * i + 1] = (float)sin((double)k * w);
        }
        for (size_t t = 0; t < 512; t++) {
            const float *p = P + t * d, *q = P + (t + k) * d;
            for (size_t i = 0; i < d / 2; i++) {
                float c = cs[2 * i], s = cs[2 * i + 1];
                /* [sin(a+b); cos(a+b)] = [[cos b, sin b]; [-sin b, cos b]] [sin a; cos a] */
                float sn = c * p[2 * i] + s * p[2 * i + 1];
                float cn = -s * p[2 * i] + c * p[2 * i + 1];
                worst = fmax(worst, fabs(sn - q[2 * i]));
                worst = fmax(worst, fabs(cn - q[2 * i + 1]));
            }
        }
    }
    free(P);
    free(cs);
    return worst;
}

START_TEST(sinusoid_shift_is_a_rotation) {
    /* The issue asks for 1e-5. A table computed in double and rounded once
     * does far better (about 1e-7); angles computed in float would give
     * about 4e-5 and fail, which is why sinusoid_table works in double. */
    double e64 = rotation_error(64), e512 = rotation_error(512);
    ck_assert_msg(e64 <= 1e-6 && e512 <= 1e-6, "max |M_k PE(t) - PE(t+k)|: d=64 %.3g, d=512 %.3g",
                  e64, e512);
}
END_TEST

static void fill(const char *name, float *P, size_t T, size_t n, size_t pairs) {
    PeConfig pc;
    pe_config_default(&pc, name);
    if (pairs)
        pe_put(&pc, pe_option_find("pairs"), (double)pairs);
    PePlan plan;
    Err e;
    ck_assert_msg(pe_plan(&plan, &pc, 64, 1, T, &e) == 0, "%s", e.msg);
    pe_fill(P, &plan, &pc, NULL, T, n);
}

START_TEST(naive_schemes_follow_the_notes) {
    float P[16];
    fill("integer", P, 4, 4, 0);
    for (int t = 0; t < 4; t++)
        ck_assert_float_eq(P[t], (float)(t + 1));
    /* "Thank you": word 2 of 2 is 1; "Rohan killed the lion": word 2 of 4 is 0.5 */
    fill("normalized", P, 2, 2, 0);
    ck_assert_float_eq(P[0], 0.5f);
    ck_assert_float_eq(P[1], 1.0f);
    fill("normalized", P, 4, 4, 0);
    ck_assert_float_eq(P[1], 0.5f);
    ck_assert_float_eq(P[3], 1.0f);
    /* sin(1..4), the correct values (the notes have 0.87, 0.19, -0.90 for 2..4) */
    fill("sine", P, 4, 4, 0);
    const float sines[4] = {0.841471f, 0.909297f, 0.141120f, -0.756802f};
    for (int t = 0; t < 4; t++)
        ck_assert_float_eq_tol(P[t], sines[t], 1e-6f);
    /* three pairs at position 1: sin(1), cos(1), sin(1/2), cos(1/2), sin(1/3), cos(1/3) */
    fill("sincos", P, 1, 1, 3);
    const float pairs[6] = {0.841471f, 0.540302f, 0.479426f, 0.877583f, 0.327195f, 0.944957f};
    for (int c = 0; c < 6; c++)
        ck_assert_float_eq_tol(P[c], pairs[c], 1e-6f);
}
END_TEST

START_TEST(combine_concat_and_tiled_add) {
    float x[2 * 5] = {0}, P[2 * 2] = {1, 2, 3, 4};
    pe_combine(x, P, 2, 2, 5, COMBINE_ADD);
    const float add[10] = {1, 2, 1, 2, 1, 3, 4, 3, 4, 3};
    for (int i = 0; i < 10; i++)
        ck_assert_float_eq(x[i], add[i]);
    memset(x, 0, sizeof x);
    pe_combine(x, P, 2, 2, 5, COMBINE_CONCAT);
    const float cat[10] = {0, 0, 0, 1, 2, 0, 0, 0, 3, 4};
    for (int i = 0; i < 10; i++)
        ck_assert_float_eq(x[i], cat[i]);
}
END_TEST

/* max_abs_diff for a sentence and a permutation of it, as demo_order
 * measures it. */
static double order_diff(const Model *m, Rng *r, size_t n) {
    size_t C = m->cfg.d_model;
    int *ids = malloc(2 * n * sizeof *ids);
    size_t *perm = malloc(n * sizeof *perm), lens[2] = {n, n};
    ck_assert(ids && perm);
    /* distinct words: swapping two copies of one word would change nothing */
    size_t V = m->cfg.vocab_size, *pool = malloc((V - 2) * sizeof *pool);
    ck_assert(pool && n <= V - 2);
    for (size_t i = 0; i < V - 2; i++)
        pool[i] = 2 + i;
    rng_shuffle(r, pool, V - 2);
    for (size_t i = 0; i < n; i++)
        ids[i] = (int)pool[i];
    free(pool);
    /* a permutation that moves every word: rotate by one */
    for (size_t i = 0; i < n; i++)
        perm[i] = (i + 1) % n;
    for (size_t i = 0; i < n; i++)
        ids[n + i] = ids[perm[i]];
    float *y = run_model(m, ids, lens, 2, n, NULL);
    double d = max_aligned_diff(y, y + n * C, perm, n, C);
    free(y);
    free(ids);
    free(perm);
    return d;
}

START_TEST(each_scheme_breaks_the_symmetry) {
    /* _i: each scheme that adds a code to the input x combine (add, concat)
     * x norm (post, pre); the ones inside attention are test_attn_pe.c's.
     * A one-channel code added to every channel is a constant shift of each
     * row: with pre-norm every sublayer reads it through a LayerNorm, which
     * subtracts the row mean and erases it, and the final LayerNorm erases
     * it from the output. That case is order-blind by construction. */
    const PeScheme *s = scheme_nth(pe_in_input, (size_t)_i / 4);
    Combine combine = (_i / 2) % 2 ? COMBINE_CONCAT : COMBINE_ADD;
    NormPlace norm = _i % 2 ? NORM_PRE : NORM_POST;
    Rng r;
    rng_seed(&r, 77);
    for (uint64_t seed = 0; seed < 4; seed++) {
        Model m;
        make_model(&m, 30, 16, 2, 2, 32, norm, ACT_RELU, s->name, combine, seed);
        bool blind = m.pe.w == 1 && combine == COMBINE_ADD && norm == NORM_PRE;
        for (size_t n = 2; n <= 12; n += 5) {
            double d = order_diff(&m, &r, n);
            if (blind)
                ck_assert_msg(d <= ORDER_BLIND_TOL, "%s add pre-norm should be order-blind: "
                              "max_abs_diff %.3g", s->name, d);
            else
                ck_assert_msg(d >= 1e-3, "%s %s %s-norm n=%zu seed %llu: max_abs_diff %.3g, "
                              "want >= 1e-3", s->name, combine_name(combine),
                              norm == NORM_PRE ? "pre" : "post", n, (unsigned long long)seed, d);
        }
        model_free(&m);
    }
}
END_TEST

START_TEST(none_is_order_blind_in_every_mode) {
    Rng r;
    rng_seed(&r, 78);
    for (int k = 0; k < 4; k++) {
        Model m;
        make_model(&m, 30, 16, 2, 2, 32, k % 2 ? NORM_PRE : NORM_POST, ACT_RELU, "none",
                   k / 2 ? COMBINE_CONCAT : COMBINE_ADD, (uint64_t)k);
        ck_assert(order_diff(&m, &r, 9) <= 1e-5);
        model_free(&m);
    }
}
END_TEST

START_TEST(plan_refuses_what_does_not_fit) {
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, "integer");
    ck_assert_int_eq(pe_plan(&plan, &pc, 1, 1, 64, &e), ERR_INPUT); /* nothing left for words */
    ck_assert_int_eq(pe_plan(&plan, &pc, 2, 1, 64, &e), 0);
    ck_assert_uint_eq(plan.E, 1);
    pe_config_default(&pc, "sinusoidal");
    set_opt(&pc, "--combine", "concat");
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 64, &e), 0);
    ck_assert_uint_eq(plan.w, 32);
    set_opt(&pc, "--pe-dim", "64");
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 64, &e), ERR_INPUT);
    pe_config_default(&pc, "sincos");
    set_opt(&pc, "--pairs", "40"); /* 80 channels added to 64 */
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 64, &e), ERR_INPUT);
    set_opt(&pc, "--combine", "add");
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 64, &e), ERR_INPUT);
    pe_config_default(&pc, "learned");
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 50, &e), 0);
    ck_assert_uint_eq(plan.rows, 50);
    pe_config_default(&pc, "Sinusoidal"); /* names are case-sensitive */
    ck_assert_int_eq(pe_plan(&plan, &pc, 64, 1, 64, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "sinusoidal"));
}
END_TEST

/* RoPE's scalings against fixtures/rope_scaling.txt, which
 * tests/reference/rope_scaling.py computes in float32 with torch as
 * Hugging Face transformers does. Ours are in double: the bound is
 * float32's rounding of base^(2i/d), a few parts in 1e7. */
START_TEST(rope_scalings_match_hugging_face) {
    FILE *f = fopen("tests/reference/fixtures/rope_scaling.txt", "r");
    ck_assert_ptr_nonnull(f);
    char name[16];
    double factor, base, attention;
    size_t len, HS, lines = 0;
    while (fscanf(f, "%15s %lf %zu %zu %lf %lf", name, &factor, &len, &HS, &base,
                  &attention) == 6) {
        PeConfig pc;
        pe_config_default(&pc, "rope");
        set_opt(&pc, "--rope-scaling", name);
        RopeScaling r = rope_scaling_of(&pc);
        rope_set_scaling(&pc, r, factor, len);
        pe_put(&pc, &pe_opt_base, base);
        double theta[64];
        ck_assert_uint_le(HS / 2, 64);
        double gain = rope_inv_freq(&pc, HS, theta);
        ck_assert_msg(fabs(gain - attention) < 1e-12, "%s x%g: attention factor %.17g, Hugging "
                      "Face's %.17g", name, factor, gain, attention);
        for (size_t i = 0; i < HS / 2; i++) {
            double want;
            ck_assert_int_eq(fscanf(f, "%lf", &want), 1);
            ck_assert_msg(fabs(theta[i] - want) <= 2e-6 * want, "%s x%g L %zu HS %zu pair %zu: "
                          "%.9g, Hugging Face's %.9g", name, factor, len, HS, i, theta[i], want);
        }
        lines++;
    }
    fclose(f);
    ck_assert_uint_ge(lines, 12);
}
END_TEST

/* The formulas of the papers, read off directly: PI divides every
 * frequency by S; NTK leaves the fastest pair alone and slows the
 * slowest by S exactly (base' = base S^(d/(d-2)) is built for that);
 * YaRN keeps pairs that turn 32+ times within L and interpolates those
 * that turn less than once, and scales q.k by (0.1 ln S + 1)^2. */
START_TEST(rope_scalings_follow_their_papers) {
    enum { HS = 16 };
    PeConfig pc, plain;
    pe_config_default(&plain, "rope");
    double t0[HS / 2], t[HS / 2];
    ck_assert(rope_inv_freq(&plain, HS, t0) == 1.0);
    pc = plain;
    rope_set_scaling(&pc, ROPE_SCALING_LINEAR, 4, 0);
    ck_assert(rope_inv_freq(&pc, HS, t) == 1.0);
    for (size_t i = 0; i < HS / 2; i++)
        ck_assert(fabs(t[i] - t0[i] / 4) <= 1e-15 * t0[i]);
    rope_set_scaling(&pc, ROPE_SCALING_NTK, 4, 0);
    rope_inv_freq(&pc, HS, t);
    ck_assert(t[0] == 1.0);
    /* the slowest pair is i = HS/2 - 1: base^(-(HS-2)/HS) turns S times slower */
    ck_assert(fabs(t[HS / 2 - 1] - t0[HS / 2 - 1] / 4) <= 1e-12 * t0[HS / 2 - 1]);
    pc = plain;
    rope_set_scaling(&pc, ROPE_SCALING_YARN, 4, 4096);
    double gain = rope_inv_freq(&pc, HS, t);
    ck_assert(fabs(gain - (0.1 * log(4.0) + 1.0)) < 1e-15);
    for (size_t i = 0; i < HS / 2; i++) {
        double turns = 4096.0 * t0[i] / (2 * 3.14159265358979323846);
        if (turns > 32.0 * 2) /* past the ramp's floor and ceil */
            ck_assert(t[i] == t0[i]);
        else if (turns < 0.5)
            ck_assert(fabs(t[i] - t0[i] / 4) <= 1e-15 * t0[i]);
        else
            ck_assert(t[i] <= t0[i] && t[i] >= t0[i] / 4);
    }
}
END_TEST

START_TEST(rope_scaling_options_are_checked) {
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, "rope");
    set_opt(&pc, "--rope-scaling", "linear"); /* no factor */
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--rope-factor"));
    pe_put(&pc, &pe_opt_rope_factor, 0.5);
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    pe_put(&pc, &pe_opt_rope_factor, NAN);
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    pe_put(&pc, &pe_opt_rope_factor, 2);
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), 0);
    set_opt(&pc, "--rope-original-len", "8"); /* yarn's alone */
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    set_opt(&pc, "--rope-scaling", "yarn");
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), 0);
    pe_unset(&pc, &pe_opt_rope_original_len); /* yarn needs it */
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--rope-original-len"));
    set_opt(&pc, "--rope-scaling", "ntk"); /* a head of 2: HS/(HS-2) */
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 8, 64, &e), ERR_INPUT);
    pe_put(&pc, &pe_opt_rope_scaling, 7);
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
    pe_config_default(&pc, "sinusoidal"); /* only rope reads them */
    rope_set_scaling(&pc, ROPE_SCALING_LINEAR, 2, 0);
    ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), 0);
    ck_assert_str_eq(pe_unused_option(&plan, &pc)->flag, "--rope-scaling");
}
END_TEST

/* The registry's options: each once, each scheme's own (with --combine
 * and --pe-dim) within what a PeConfig gives at once, with a distinct flag, an example the option takes that is not its
 * default, and a text that reads back as the value it was written from. */
START_TEST(the_registry_declares_each_option_once) {
    size_t n = pe_option_count();
    ck_assert_uint_ge(n, 13);
    ck_assert_ptr_null(pe_option_at(n));
    for (size_t i = 0; i < n; i++) {
        const PeOption *o = pe_option_at(i);
        ck_assert_uint_eq(pe_option_index(o), i);
        ck_assert_ptr_eq(pe_option_find(o->flag), o);
        ck_assert_ptr_eq(pe_option_find(o->flag + 2), o);
        ck_assert_msg(strncmp(o->flag, "--", 2) == 0 && o->help && o->def_text, "%s", o->flag);
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(pe_option_at(j)->flag, o->flag);
        PeConfig pc, back;
        pe_config_default(&pc, "none");
        Err e;
        ck_assert_msg(pe_set(&pc, o, o->example, &e) == 0, "%s %s: %s", o->flag, o->example,
                      e.msg);
        ck_assert_msg(pe_get(&pc, o) != o->def, "%s's example %s is its default", o->flag,
                      o->example);
        char text[64];
        pe_option_text(&pc, o, text, sizeof text);
        pe_config_default(&back, "none");
        ck_assert_int_eq(pe_set(&back, o, text, &e), 0);
        ck_assert(pe_get(&back, o) == pe_get(&pc, o) && pe_given(&back, o));
        pe_unset(&back, o);
        ck_assert(!pe_given(&back, o) && pe_get(&back, o) == o->def);
    }
    /* every scheme's options are among them, and fit a PeConfig given
     * all at once, with --combine and --pe-dim */
    for (size_t i = 0; i < pe_count(); i++) {
        size_t k = 0;
        for (; pe_at(i)->options && pe_at(i)->options[k]; k++)
            ck_assert_uint_lt(pe_option_index(pe_at(i)->options[k]), n);
        ck_assert_msg(k + 2 <= PE_GIVEN_MAX, "%s has %zu options; a PeConfig holds %d, with "
                      "--combine and --pe-dim", pe_at(i)->name, k, PE_GIVEN_MAX);
    }
}
END_TEST

/* A PeConfig holds the options given, not a slot for every option of the
 * registry: the same options given in any order are the same bytes, one
 * taken back leaves what the others give, and an option no scheme
 * declares is refused. */
START_TEST(a_config_holds_the_options_given) {
    size_t n = pe_option_count();
    PeConfig a, b, c;
    pe_config_default(&a, "none");
    pe_config_default(&b, "none");
    pe_config_default(&c, "none");
    Err e;
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(pe_set(&a, pe_option_at(i), pe_option_at(i)->example, &e), 0);
    for (size_t i = n; i-- > 0;)
        ck_assert_int_eq(pe_set(&b, pe_option_at(i), pe_option_at(i)->example, &e), 0);
    ck_assert_uint_eq(a.n_given, n);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    for (size_t i = 0; i < n; i++)
        if (i != n / 2)
            ck_assert_int_eq(pe_set(&c, pe_option_at(i), pe_option_at(i)->example, &e), 0);
    pe_unset(&a, pe_option_at(n / 2));
    ck_assert(memcmp(&a, &c, sizeof a) == 0);
    ck_assert(!pe_given(&a, pe_option_at(n / 2)));
    ck_assert(pe_get(&a, pe_option_at(n / 2)) == pe_option_at(n / 2)->def);
    static const PeOption stray = {.flag = "--stray", .type = PE_VALUE_SIZE, .lo = 0, .hi = 9,
                                   .def = 1};
    ck_assert_int_eq(pe_put(&c, &stray, 3), -1);
    ck_assert(!pe_given(&c, &stray) && pe_get(&c, &stray) == 1);
    ck_assert(memcmp(&a, &c, sizeof a) == 0);
}
END_TEST

/* What adding a scheme takes (docs/architecture.md, section 8): its file,
 * one registry line, its tests and its docs. This names what a new
 * scheme's file or docs lack, field by field. */
START_TEST(each_scheme_declares_what_its_readers_need) {
    /* the schemes inside attention: page 4's four, or the optional page's
     * (where every scheme that joins later goes) */
    char *formats = slurp("docs/formats.md"), *lineage = slurp("docs/04-relative.md"),
         *more = slurp("docs/04b-more-relative.md");
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *s = pe_at(i);
        const char *n = s->name;
        ck_assert_msg(n && *n && strlen(n) < PE_NAME_MAX, "scheme %zu has no name", i);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(pe_at(j)->name, n) != 0, "%s is in the registry twice", n);
        ck_assert_msg(s->about && *s->about, "%s: no about (the --help line)", n);
        ck_assert_msg(s->since >= 1 && s->since <= CHECKPOINT_VERSION, "%s: since %u, where the "
                      "checkpoint versions are 1..%d (since: the first that stores it)", n,
                      s->since, CHECKPOINT_VERSION);
        ck_assert_msg(!s->width || s->value || s->param_shape, "%s: a width but no value "
                      "formula and no table", n);
        ck_assert_msg(!s->param_shape || (s->param_name && s->init), "%s: a table without "
                      "param_name or init", n);
        ck_assert_msg(!s->rotate || (s->ref_rotate && s->prepare && s->scratch), "%s: rotate "
                      "without ref_rotate, prepare or scratch", n);
        ck_assert_msg(!s->score || s->ref_score, "%s: score without ref_score (the reference "
                      "model's formula)", n);
        ck_assert_msg(!s->mix || (s->ref_value && s->mix_backward), "%s: mix without "
                      "ref_value or mix_backward", n);
        for (size_t j = 0; j < i && s->bench_place; j++)
            ck_assert_msg(pe_at(j)->bench_place != s->bench_place, "%s and %s share the "
                          "benchmark's place %u", pe_at(j)->name, n, s->bench_place);
        char quoted[PE_NAME_MAX + 2];
        snprintf(quoted, sizeof quoted, "`%s`", n);
        ck_assert_msg(strstr(formats, quoted), "%s: docs/formats.md does not name it (the "
                      "checkpoint's scheme row)", n);
        ck_assert_msg(!pe_in_attention(s) || strstr(lineage, quoted) || strstr(more, quoted),
                      "%s: neither docs/04-relative.md nor docs/04b-more-relative.md names it "
                      "(a new scheme inside attention: a section of the latter)", n);
    }
    free(formats);
    free(lineage);
    free(more);
}
END_TEST

/* Adding a scheme takes its file, its registry line and its docs rows
 * (docs/architecture.md, section 8): tests/scratch_scheme/check.sh adds
 * one to a copy of the tree, sees the first draws' test and the docs'
 * counts fail naming `make fixtures`, runs it, and runs the conformance
 * and docs checks there, which must pass. Slow: a copy and a build. */
START_TEST(a_new_scheme_is_its_file_its_line_and_its_docs_rows) {
    char top[256];
    snprintf(top, sizeof top, "%s", scratch());
    expect_sh(top, "\"$TOP/tests/scratch_scheme/check.sh\" \"$TOP\" \"$B\" tree > log 2>&1 || "
              "{ tail -n 40 log >&2; exit 1; }", 0, NULL);
    remove_dir(top);
}
END_TEST

Suite *suite_pe(void) {
    Suite *s = suite_create("pe");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, sinusoid_position_zero_is_zero_one);
    tcase_add_test(tc, each_scheme_declares_what_its_readers_need);
    tcase_add_test(tc, sinusoid_river_bank);
    tcase_add_test(tc, sinusoid_matches_double_formula);
    tcase_add_test(tc, sinusoid_layouts_hold_the_same_channels);
    tcase_add_test(tc, sinusoid_odd_width_ends_with_a_sine);
    tcase_add_test(tc, sinusoid_shift_is_a_rotation);
    tcase_add_test(tc, naive_schemes_follow_the_notes);
    tcase_add_test(tc, combine_concat_and_tiled_add);
    tcase_add_test(tc, plan_refuses_what_does_not_fit);
    tcase_add_test(tc, rope_scalings_match_hugging_face);
    tcase_add_test(tc, rope_scalings_follow_their_papers);
    tcase_add_test(tc, rope_scaling_options_are_checked);
    tcase_add_test(tc, the_registry_declares_each_option_once);
    tcase_add_test(tc, a_config_holds_the_options_given);
    suite_add_tcase(s, tc);
    tc = tcase_create("order");
    tcase_add_loop_test(tc, each_scheme_breaks_the_symmetry, 0,
                        4 * (int)scheme_count(pe_in_input));
    tcase_add_test(tc, none_is_order_blind_in_every_mode);
    suite_add_tcase(s, tc);
    tc = tcase_create("scratch");
    tcase_add_test(tc, a_new_scheme_is_its_file_its_line_and_its_docs_rows);
    tcase_set_timeout(tc, 1500);
    tcase_set_tags(tc, "slow"); /* make check */
    suite_add_tcase(s, tc);
    return s;
}
