/* The schemes inside attention: RoPE's logit depends on the offset alone,
 * ALiBi's slopes, T5's buckets, KERPLE's and FIRE's biases by hand, what
 * each refuses, that each breaks the symmetry of self-attention, and that
 * the ones whose bias is the same for a pair and its mirror image cannot
 * tell a sentence from its reverse while the others can. Their gradients
 * are checked in test_grad_encoder.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/pe/analysis.h"
#include "../src/pe/pe.h"
#include "../src/text/order.h"
#include "suites.h"
#include "../src/pe/pe_alibi.h"
#include "../src/pe/pe_t5.h"

/* Row t (HS channels) of a head of a sentence at positions pos[0..T),
 * every row x0, turned as q (or k, which) through the scheme's own
 * prepare and rotate. */
static void turn_at(float *x, const float *x0, size_t HS, const size_t *pos, size_t T, size_t t,
                    const PeConfig *pc, PeOperand which) {
    const PeScheme *s = pe_find(pc->name);
    float *R = malloc(s->scratch(pc, T, HS) * sizeof *R), *X = calloc(T * HS, sizeof *X);
    ck_assert(R && X);
    s->prepare(R, pc, pos, T, HS);
    for (size_t i = 0; i < T * HS; i++)
        X[i] = x0[i % HS];
    PeHead hd = {.pc = pc, .scratch = R, .pos = pos, .T = T, .HS = HS, .NH = 1, .ld = HS};
    s->rotate(&hd, X, which, false);
    memcpy(x, X + t * HS, HS * sizeof *x);
    free(R);
    free(X);
}

/* q (or k) at position p, a sentence of one token. */
static void rope_at(float *x, const float *x0, size_t HS, size_t p, const PeConfig *pc,
                    PeOperand which) {
    turn_at(x, x0, HS, &p, 1, 0, pc, which);
}

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

START_TEST(rope_logit_depends_on_the_offset_only) {
    /* _i: the paper's pairs, then the half-split pairs of GPT-NeoX */
    PeConfig pc;
    pe_config_default(&pc, "rope");
    if (_i)
        set_opt(&pc, "--layout", "split");
    size_t HS = 32;
    Rng r;
    rng_seed(&r, 5);
    float q0[32], k0[32], q[32], k[32];
    for (size_t i = 0; i < HS; i++)
        q0[i] = rng_normal(&r), k0[i] = rng_normal(&r);
    double worst = 0.0, norm = 0.0;
    for (size_t off = 0; off <= 512; off += 37) {
        /* the logit of query position m and key position m + off, for
         * shifts m up to 512, against m = 0 */
        rope_at(q, q0, HS, 0, &pc, PE_QUERY);
        rope_at(k, k0, HS, off, &pc, PE_KEY);
        double base = dotf(q, k, HS);
        for (size_t m = 1; m <= 512; m += 73) {
            rope_at(q, q0, HS, m, &pc, PE_QUERY);
            rope_at(k, k0, HS, m + off, &pc, PE_KEY);
            worst = fmax(worst, fabs(dotf(q, k, HS) - base));
            /* a rotation keeps the length of q */
            norm = fmax(norm, fabs(sqrt(dotf(q, q, HS)) - sqrt(dotf(q0, q0, HS))));
        }
    }
    ck_assert_msg(worst <= 1e-5, "q_m . k_(m+off) moves with m by %.3g", worst);
    ck_assert_msg(norm <= 1e-5, "|R q| - |q| = %.3g", norm);
}
END_TEST

START_TEST(rope_pairs_follow_the_layout) {
    /* position 1, HS = 4: pair 0 turns by 1 radian, pair 1 by 1/100 */
    PeConfig pc;
    pe_config_default(&pc, "rope");
    const float e0[4] = {1, 0, 0, 0};
    float x[4];
    rope_at(x, e0, 4, 1, &pc, PE_QUERY);
    /* (x0, x1) is the pair: x1 gets sin(1) */
    ck_assert_float_eq_tol(x[0], cosf(1.0f), 1e-6f);
    ck_assert_float_eq_tol(x[1], sinf(1.0f), 1e-6f);
    ck_assert_float_eq(x[2], 0.0f);
    set_opt(&pc, "--layout", "split");
    rope_at(x, e0, 4, 1, &pc, PE_QUERY);
    /* (x0, x2) is the pair */
    ck_assert_float_eq_tol(x[0], cosf(1.0f), 1e-6f);
    ck_assert_float_eq(x[1], 0.0f);
    ck_assert_float_eq_tol(x[2], sinf(1.0f), 1e-6f);
}
END_TEST

START_TEST(rope_refuses_an_odd_head) {
    PeConfig pc;
    PePlan plan;
    Err e;
    pe_config_default(&pc, "rope");
    ck_assert_int_eq(pe_plan(&plan, &pc, 18, 2, 64, &e), ERR_INPUT); /* 9 channels a head */
    ck_assert_ptr_nonnull(strstr(e.msg, "odd"));
    ck_assert_ptr_nonnull(strstr(e.msg, "--heads"));
    ck_assert_int_eq(pe_plan(&plan, &pc, 18, 3, 64, &e), 0);
    ck_assert_uint_eq(plan.head_size, 6);
    ck_assert_uint_eq(plan.w, 0);
}
END_TEST

START_TEST(alibi_slopes_by_the_papers_rule) {
    /* Press et al.: 2^(-8h/n) for a power of two n; otherwise those of the
     * power of two below, then every other slope of twice that. */
    static const struct {
        size_t n;
        double log2[16]; /* -log2 of each head's slope */
    } want[] = {
        {1, {8}},
        {2, {4, 8}},
        {3, {4, 8, 2}},
        {6, {2, 4, 6, 8, 1, 3}},
        {8, {1, 2, 3, 4, 5, 6, 7, 8}},
        {12, {1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5}},
        {16, {0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8}},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        for (size_t h = 0; h < want[k].n; h++)
            ck_assert_msg(fabs(alibi_slope(h, want[k].n) - pow(2.0, -want[k].log2[h])) <= 1e-15,
                          "%zu heads, head %zu: slope %.17g, want 2^-%g", want[k].n, h,
                          alibi_slope(h, want[k].n), want[k].log2[h]);
}
END_TEST

START_TEST(t5_buckets_by_hand) {
    /* 32 buckets, max distance 128: keys to the left take 0..15, to the
     * right 16..31; |offset| < 8 exact, then 8 + floor(8 log(n/8)/log 16). */
    static const struct {
        long offset;
        size_t bucket;
    } want[] = {
        {0, 0},     {-1, 1},     {1, 17},     {-7, 7},     {7, 23},     {-8, 8},
        {-15, 9},   {-16, 10},   {-31, 11},   {-32, 12},   {-63, 13},   {-64, 14},
        {-127, 15}, {-128, 15},  {-129, 15},  {-5000, 15}, {128, 31},   {5000, 31},
        {16, 26},   {64, 30},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++)
        ck_assert_msg(t5_bucket(want[k].offset, 32, 128) == want[k].bucket,
                      "offset %ld: bucket %zu, want %zu", want[k].offset,
                      t5_bucket(want[k].offset, 32, 128), want[k].bucket);
    /* past the maximum distance every offset shares the last bucket */
    for (long n = 128; n < 4000; n += 97) {
        ck_assert_uint_eq(t5_bucket(-n, 32, 128), 15);
        ck_assert_uint_eq(t5_bucket(n, 32, 128), 31);
    }
}
END_TEST

/* The part of the scores scheme s adds for one head h of NH, for tokens at
 * positions pos (T), with table params: its own prepare and score, on
 * scores that start at 0. */
static void bias_of(float *S, const char *name, const PeConfig *pc, const float *params,
                    const size_t *pos, size_t T, size_t h, size_t NH) {
    const PeScheme *s = pe_find(name);
    float *scratch = malloc(s->scratch(pc, T, 4) * sizeof *scratch);
    ck_assert_ptr_nonnull(scratch);
    s->prepare(scratch, pc, pos, T, 4);
    memset(S, 0, T * T * sizeof *S);
    PeHead hd = {.pc = pc, .params = params, .scratch = scratch, .pos = pos, .T = T, .HS = 4,
                 .h = h, .NH = NH, .scale = 0.5f, .scores = S};
    s->score(&hd);
    free(scratch);
}

START_TEST(kerple_bias_by_hand) {
    /* -r1 log(1 + r2 d) at positions 0, 1, 3, 7: head 0 has r1 1.5, r2 0.5;
     * head 1's r1 0.004 is clamped to 0.01, r2 2 */
    PeConfig pc;
    pe_config_default(&pc, "kerple");
    const float table[4] = {1.5f, 0.004f, 0.5f, 2.0f}; /* (2,NH): r1 row, r2 row */
    const size_t pos[4] = {0, 1, 3, 7};
    /* by distance d = 0..7: -1.5 ln(1 + d/2), and -0.01 ln(1 + 2d) */
    const double want[2][8] = {
        {0, -0.6081976622, -1.0397207708, -1.3744360978, -1.6479184330, 0, -2.0794415417,
         -2.2561160952},
        {0, -0.0109861229, -0.0160943791, -0.0194591015, -0.0219722458, 0, -0.0256494936,
         -0.0270805020}};
    float S[16];
    for (size_t h = 0; h < 2; h++) {
        bias_of(S, "kerple", &pc, table, pos, 4, h, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                size_t d = pos[i] > pos[j] ? pos[i] - pos[j] : pos[j] - pos[i];
                ck_assert_msg(fabs(S[i * 4 + j] - want[h][d]) <= 1e-6, "head %zu, positions "
                              "%zu and %zu: bias %.9f, want %.9f", h, pos[i], pos[j],
                              S[i * 4 + j], want[h][d]);
            }
    }
    /* backward of the pair (0, 3) alone: dr1 = -ln(2.5) and dr2 = -1.5 * 3 / 2.5
     * for head 0; for head 1 nothing reaches the clamped r1, and dr2 =
     * -0.01 * 3 / 7 */
    float ds[16] = {0}, g[4] = {0};
    ds[0 * 4 + 2] = 1.0f;
    float *scratch = malloc(4 * sizeof *scratch);
    ck_assert_ptr_nonnull(scratch);
    pe_find("kerple")->prepare(scratch, &pc, pos, 4, 4);
    for (size_t h = 0; h < 2; h++) {
        PeHead hd = {.pc = &pc, .params = table, .dparams = g, .scratch = scratch, .pos = pos,
                     .T = 4, .HS = 4, .h = h, .NH = 2, .dscores = ds};
        pe_find("kerple")->score_backward(&hd);
    }
    free(scratch);
    const float gwant[4] = {-0.9162907319f, 0.0f, -1.8f, -0.0042857143f};
    for (size_t k = 0; k < 4; k++)
        ck_assert_msg(fabsf(g[k] - gwant[k]) <= 1e-6f, "gradient %zu: %.9f, want %.9f", k,
                      (double)g[k], (double)gwant[k]);
}
END_TEST

START_TEST(fire_bias_by_hand) {
    /* Two hidden units and two heads, c = 1 and L = 3, at positions 0, 1,
     * 3, 7. The first layer (w1 = (1, -1), b1 = 0) gives relu(u) and
     * relu(-u); head 0 weighs them (1, -1), so its bias is the input u
     * itself; head 1 is 0.5 + 2 relu(u). */
    PeConfig pc;
    pe_config_default(&pc, "fire");
    set_opt(&pc, "--fire-width", "2");
    const float table[4 * 3] = {
        1, -1, 1,              /* w1, then c */
        0, 0, 3.0f / 512.0f,   /* b1, then the multiplier of 512: L = 3 */
        1, -1, 0,              /* head 0: w2, then b2 */
        2, 0, 0.5f,            /* head 1 */
    };
    const size_t pos[4] = {0, 1, 3, 7};
    /* u = sign(i-j) ln(|i-j| + 1) / ln(max(3, i) + 1): queries 0, 1 and 3
     * divide by ln 4, query 7 by ln 8; keys to the right are negative */
    double l3 = log(3.0), l4 = log(4.0), l5 = log(5.0), l7 = log(7.0), l8 = log(8.0);
    const double u[4][4] = {{0, -0.5, -1, -1.5},
                            {0.5, 0, -l3 / l4, -l7 / l4},
                            {1, l3 / l4, 0, -l5 / l4},
                            {1, l7 / l8, l5 / l8, 0}};
    float S[16];
    for (size_t h = 0; h < 2; h++) {
        bias_of(S, "fire", &pc, table, pos, 4, h, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                double want = h == 0 ? u[i][j] : 0.5 + 2.0 * fmax(u[i][j], 0.0);
                ck_assert_msg(fabs(S[i * 4 + j] - want) <= 1e-5, "head %zu, query %zu, key "
                              "%zu: bias %.7f, want %.7f", h, pos[i], pos[j], S[i * 4 + j],
                              want);
            }
    }
    /* distances past the 64 whose logs a head takes once, and at the edge */
    const size_t far[5] = {0, 1, 63, 64, 200};
    float F[25];
    bias_of(F, "fire", &pc, table, far, 5, 0, 2);
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 5; j++) {
            double d = (double)far[i] - (double)far[j];
            double want = (d > 0 ? 1 : d < 0 ? -1 : 0) * log(fabs(d) + 1.0) /
                          log(fmax(3.0, (double)far[i]) + 1.0);
            ck_assert_msg(fabs(F[i * 5 + j] - want) <= 1e-5, "query %zu, key %zu: bias %.7f, "
                          "want %.7f", far[i], far[j], F[i * 5 + j], want);
        }
}
END_TEST

START_TEST(attention_schemes_take_no_combine) {
    for (size_t k = 0; k < scheme_count(pe_in_attention); k++) {
        PeConfig pc;
        PePlan plan;
        Err e;
        pe_config_default(&pc, scheme_nth(pe_in_attention, k)->name);
        ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), 0);
        ck_assert(pe_in_attention(plan.scheme) && !pe_in_input(plan.scheme));
        ck_assert_uint_eq(plan.max_positions, SIZE_MAX);
        set_opt(&pc, "--combine", "concat");
        ck_assert_int_eq(pe_plan(&plan, &pc, 16, 2, 64, &e), ERR_INPUT);
        ck_assert_ptr_nonnull(strstr(e.msg, "acts inside attention"));
        ck_assert_ptr_nonnull(strstr(e.msg, "--combine"));
    }
}
END_TEST

/* The pooled vectors of a sentence and of the same words in another order
 * (perm[i]: the word of sentence 2 at i is word perm[i] of sentence 1). */
static double pooled_gap(const Model *m, const int *ids, const size_t *perm, size_t n,
                         double *rows) {
    size_t C = m->cfg.d_model, lens[2] = {n, n};
    int *both = malloc(2 * n * sizeof *both);
    ck_assert_ptr_nonnull(both);
    for (size_t i = 0; i < n; i++) {
        both[i] = ids[i];
        both[n + i] = ids[perm[i]];
    }
    float *pooled, *y = run_model(m, both, lens, 2, n, &pooled);
    double gap = 0.0;
    for (size_t c = 0; c < C; c++)
        gap = fmax(gap, fabs(pooled[c] - pooled[C + c]));
    *rows = max_aligned_diff(y, y + n * C, perm, n, C);
    free(y);
    free(pooled);
    free(both);
    return gap;
}

START_TEST(a_mirror_blind_bias_cannot_tell_a_sentence_from_its_reverse) {
    /* _i: each scheme inside attention x post, pre-norm. The report's
     * reflection measure sorts them: a bias that is the same for a pair of
     * positions and its mirror image (alibi's -m|i-j|, kerple's) is
     * unchanged when both positions are reflected, so reversing the words
     * reverses the output rows; any other scheme tells the two apart. */
    const PeScheme *s = scheme_nth(pe_in_attention, (size_t)_i / 2);
    PeConfig pc;
    PeProps p;
    Err e;
    pe_config_default(&pc, s->name);
    ck_assert_msg(pe_properties(&p, &pc, 9, 16, 4, 16, 1000, &e) == 0, "%s", e.msg);
    bool blind = p.reflection <= 1e-12;
    Model m;
    make_model(&m, 20, 16, 4, 2, 32, _i % 2 ? NORM_PRE : NORM_POST, ACT_RELU, s->name,
               COMBINE_DEFAULT, 9);
    int ids[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
    size_t rev[9], rot[9];
    for (size_t n = 2; n <= 9; n++) {
        for (size_t i = 0; i < n; i++)
            rev[i] = n - 1 - i, rot[i] = (i + 1) % n;
        double rows;
        double gap = pooled_gap(&m, ids, rev, n, &rows);
        if (blind)
            ck_assert_msg(gap <= 1e-5 && rows <= 1e-5, "%s, n = %zu: reversed, the pooled "
                          "vectors differ by %.3g and the rows by %.3g", s->name, n, gap, rows);
        else
            ck_assert_msg(gap >= 1e-4 && rows >= 1e-3, "%s (reflection %.3g), n = %zu: "
                          "reversed, the pooled vectors differ by %.3g and the rows by %.3g "
                          "only", s->name, p.reflection, n, gap, rows);
        /* any other order it sees (a rotation is a reflection only for n = 2) */
        if (blind && n > 2) {
            gap = pooled_gap(&m, ids, rot, n, &rows);
            ck_assert_msg(rows >= 1e-3, "%s, n = %zu: rotated, the rows move by %.3g only",
                          s->name, n, rows);
        }
    }
    model_free(&m);
}
END_TEST

START_TEST(asymmetric_alibi_tells_a_sentence_from_its_reverse) {
    /* _i: post, pre-norm. Left slope m_h, right m_(NH-1-h): the mirror is
     * broken in every head of four. */
    PeConfig pc;
    pe_config_default(&pc, "alibi");
    set_opt(&pc, "--alibi-slopes", "asymmetric");
    for (size_t h = 0; h < 4; h++) {
        ck_assert(alibi_slope_side(&pc, h, 4, false) == alibi_slope(h, 4));
        ck_assert(alibi_slope_side(&pc, h, 4, true) == alibi_slope(3 - h, 4));
    }
    Model m;
    make_model(&m, 20, 16, 4, 2, 32, _i ? NORM_PRE : NORM_POST, ACT_RELU, "alibi",
               COMBINE_DEFAULT, 9);
    set_opt(&m.cfg.pe, "--alibi-slopes", "asymmetric");
    int ids[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10};
    size_t rev[9];
    for (size_t n = 2; n <= 9; n++) {
        for (size_t i = 0; i < n; i++)
            rev[i] = n - 1 - i;
        double rows, gap = pooled_gap(&m, ids, rev, n, &rows);
        ck_assert_msg(gap >= 1e-3 && rows >= 1e-3, "n = %zu: reversed, the pooled vectors "
                      "differ by %.3g and the rows by %.3g", n, gap, rows);
    }
    /* under the causal mask no key is to the right: the paper's bias, the
     * same outputs as the symmetric slopes give */
    m.cfg.causal = true;
    size_t lens[1] = {9};
    float *pooled, *y = run_model(&m, ids, lens, 1, 9, &pooled);
    pe_unset(&m.cfg.pe, pe_option_find("--alibi-slopes"));
    float *pooled2, *y2 = run_model(&m, ids, lens, 1, 9, &pooled2);
    ck_assert_mem_eq(y, y2, 9 * 16 * sizeof *y);
    free(y), free(y2), free(pooled), free(pooled2);
    model_free(&m);
}
END_TEST

START_TEST(each_attention_scheme_breaks_the_symmetry) {
    /* _i: each scheme inside attention x post, pre-norm: rotating the words
     * by one moves every word's row */
    const PeScheme *s = scheme_nth(pe_in_attention, (size_t)_i / 2);
    for (uint64_t seed = 0; seed < 3; seed++) {
        Model m;
        make_model(&m, 20, 16, 2, 2, 32, _i % 2 ? NORM_PRE : NORM_POST, ACT_RELU, s->name,
                   COMBINE_DEFAULT, seed);
        int ids[12];
        size_t rot[12];
        for (size_t i = 0; i < 12; i++)
            ids[i] = 2 + (int)i;
        for (size_t n = 3; n <= 12; n += 3) {
            for (size_t i = 0; i < n; i++)
                rot[i] = (i + 1) % n;
            double rows;
            pooled_gap(&m, ids, rot, n, &rows);
            ck_assert_msg(rows >= 1e-3, "%s n = %zu seed %llu: max_abs_diff %.3g", s->name, n,
                          (unsigned long long)seed, rows);
        }
        model_free(&m);
    }
}
END_TEST

START_TEST(attention_properties_on_the_logits) {
    PeProps p;
    Err e;
    PeConfig pc;
    /* ALiBi: Toeplitz, symmetric, reflection-blind, and growing past N */
    pe_config_default(&pc, "alibi");
    ck_assert_msg(pe_properties(&p, &pc, 42, 64, 4, 64, 1000000, &e) == 0, "%s", e.msg);
    ck_assert(p.in_attention);
    ck_assert_double_le(p.translation_invariance, 1e-12);
    ck_assert_double_le(p.symmetry, 1e-12);
    ck_assert_double_le(p.reflection, 1e-12);
    ck_assert_double_gt(p.growth, 3.9); /* -m|i-j| grows with the distance */
    ck_assert(p.deterministic && !p.bounded && p.unique);
    ck_assert(isnan(p.shift_residual) && isnan(p.layernorm_erasure));
    /* RoPE: Toeplitz (the offset alone), not symmetric; bounded (by
     * |q||k|/sqrt(HS)), which 256 positions show */
    pe_config_default(&pc, "rope");
    ck_assert(pe_properties(&p, &pc, 42, 64, 4, 256, 1000000, &e) == 0);
    ck_assert_double_le(p.translation_invariance, 1e-5);
    ck_assert_double_gt(p.symmetry, 0.1);
    ck_assert_double_gt(p.reflection, 0.1);
    ck_assert(p.deterministic && p.bounded && p.consistent);
    /* T5: a table drawn from the seed; Toeplitz; flat past max_distance */
    pe_config_default(&pc, "t5");
    ck_assert(pe_properties(&p, &pc, 42, 64, 4, 64, 1000000, &e) == 0);
    ck_assert_double_le(p.translation_invariance, 1e-12);
    ck_assert(!p.deterministic && p.bounded);
}
END_TEST

/* xPos by hand, centred as torchscale's XPOS centres it: in a sentence at
 * positions 0..4 the scale counts from c = ceil(5/2) = 3 (its min_pos =
 * -5 // 2 = -3), at 0..3 from 2, and the angles from 0. At the centre
 * pair 0 turns by the position in radians, unscaled; at position 0 it
 * does not turn and is scaled by zeta_0^(-3/512) as a query, zeta_0^(3/512)
 * as a key, zeta_0 = 0.4/1.4; pair 1 at position 1 turns by 0.01 and is
 * scaled by zeta_1^(-+2/512), zeta_1 = 0.9/1.4. Then the score of query m
 * and key m + off, the two one sentence, is zeta_0^(-off/512) cos(off)
 * for unit vectors on pair 0, whatever m: a factor of the offset alone,
 * out to m = 10^5, where a scale counted from 0 (3.5^(10^5/512) for the
 * key) is past any float. */
START_TEST(xpos_scales_the_query_and_the_key_apart) {
    PeConfig pc;
    pe_config_default(&pc, "xpos");
    const float e0[4] = {1, 0, 0, 0}, e2[4] = {0, 0, 1, 0};
    const size_t five[5] = {0, 1, 2, 3, 4};
    double z0 = 0.4 / 1.4, z1 = 0.9 / 1.4;
    float x[4];
    for (int which = 0; which < 2; which++) {
        PeOperand op = which ? PE_KEY : PE_QUERY;
        double sign = which ? -1.0 : 1.0;
        for (size_t T = 4; T <= 5; T++) {
            size_t c = (T + 1) / 2;
            turn_at(x, e0, 4, five, T, c, &pc, op);
            ck_assert_msg(fabs(x[0] - cos((double)c)) <= 1e-6 && fabs(x[1] - sin((double)c)) <=
                          1e-6, "T %zu, the centre %zu: (%.7f, %.7f) is not the turn alone", T,
                          c, (double)x[0], (double)x[1]);
        }
        turn_at(x, e0, 4, five, 5, 0, &pc, op);
        ck_assert_float_eq_tol(x[0], pow(z0, sign * -3.0 / 512.0), 1e-6);
        ck_assert_float_eq(x[1], 0.0f);
        turn_at(x, e2, 4, five, 5, 1, &pc, op);
        double s1 = pow(z1, sign * -2.0 / 512.0);
        ck_assert_float_eq_tol(x[2], cos(0.01) * s1, 1e-6);
        ck_assert_float_eq_tol(x[3], sin(0.01) * s1, 1e-6);
    }
    float q[4], k[4];
    for (size_t off = 0; off <= 300; off += 60)
        for (size_t m = 0; m <= 100000; m += 20000) {
            size_t two[2] = {m, m + off};
            turn_at(q, e0, 4, two, 2, 0, &pc, PE_QUERY);
            turn_at(k, e0, 4, two, 2, 1, &pc, PE_KEY);
            double want = pow(z0, -(double)off / 512.0) * cos((double)off);
            ck_assert_msg(fabs(dotf(q, k, 4) - want) <= 2e-5, "query %zu, key %zu: %.7f, want "
                          "%.7f", m, m + off, dotf(q, k, 4), want);
        }
}
END_TEST

START_TEST(kerple_power_bias_by_hand) {
    /* -r1 d^r2 at positions 0, 1, 3, 7: head 0 has r1 0.5, r2 1.5; head
     * 1's r1 0.004 is read as 0.01 and its r2 2.5 as 2, the form's most */
    PeConfig pc;
    pe_config_default(&pc, "kerple");
    set_opt(&pc, "--kerple-form", "power");
    float table[4] = {0.5f, 0.004f, 1.5f, 2.5f}; /* (2,NH): r1 row, r2 row */
    const size_t pos[4] = {0, 1, 3, 7};
    const double want[2][8] = {
        {0, -0.5, -1.4142135624, -2.5980762114, -4.0, 0, -7.3484692283, -9.2601295887},
        {0, -0.01, -0.04, -0.09, -0.16, 0, -0.36, -0.49}};
    float S[16];
    for (size_t h = 0; h < 2; h++) {
        bias_of(S, "kerple", &pc, table, pos, 4, h, 2);
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                size_t d = pos[i] > pos[j] ? pos[i] - pos[j] : pos[j] - pos[i];
                ck_assert_msg(fabs(S[i * 4 + j] - want[h][d]) <= 1e-5 * (1 + fabs(want[h][d])),
                              "head %zu, positions %zu and %zu: bias %.9f, want %.9f", h,
                              pos[i], pos[j], S[i * 4 + j], want[h][d]);
            }
    }
    /* backward of the pair (0, 3) alone: dr1 = -3^1.5 and dr2 = -0.5 3^1.5
     * ln 3 for head 0; nothing reaches head 1's values outside their range */
    const PeScheme *s = pe_find("kerple");
    float ds[16] = {0}, g[4] = {0}, P[4];
    ds[0 * 4 + 2] = 1.0f;
    s->prepare(P, &pc, pos, 4, 4);
    for (size_t h = 0; h < 2; h++) {
        PeHead hd = {.pc = &pc, .params = table, .dparams = g, .scratch = P, .pos = pos, .T = 4,
                     .HS = 4, .h = h, .NH = 2, .dscores = ds};
        s->score_backward(&hd);
    }
    const float gwant[4] = {-5.1961524227f, 0.0f, -2.8542784527f, 0.0f};
    for (size_t k = 0; k < 4; k++)
        ck_assert_msg(fabsf(g[k] - gwant[k]) <= 1e-5f, "gradient %zu: %.9f, want %.9f", k,
                      (double)g[k], (double)gwant[k]);
    /* after an optimizer step the table is put back in range, as the
     * authors' code clamps it before every forward pass: trainable from
     * there, where a clamp on reading alone would leave it frozen */
    s->constrain(&pc, table, 4);
    const float back[4] = {0.5f, 0.01f, 1.5f, 2.0f};
    for (size_t k = 0; k < 4; k++)
        ck_assert_float_eq(table[k], back[k]);
    pe_config_default(&pc, "kerple"); /* the log form: r2 has no most */
    float log_table[4] = {-1.0f, 3.0f, 0.001f, 7.0f};
    s->constrain(&pc, log_table, 4);
    ck_assert_float_eq(log_table[0], 0.01f);
    ck_assert_float_eq(log_table[2], 0.01f);
    ck_assert_float_eq(log_table[3], 7.0f);
}
END_TEST

/* xl at positions that run (0..T-1: training, and every test) takes
 * loops that need no index of the offsets; they must give the loops by
 * index's floats, bit for bit: scores, dq, dk and the table's gradient.
 * The same scratch (made from the run) is read both ways; a position list
 * that does not run (hd.pos, which only decides the way) sends the hooks
 * by index. Both sides of a tile of offsets, and sentences past it. */
START_TEST(xl_runs_give_the_indexed_floats) {
    const PeScheme *s = pe_find("xl");
    PeConfig pc;
    pe_config_default(&pc, "xl");
    Rng r;
    rng_seed(&r, 3);
    static const size_t Ts[] = {1, 2, 5, 16, 17, 40};
    size_t HS = 8, NH = 2, C = HS * NH, ld = 3 * C;
    size_t n_par = (C + 2) * C;
    float *params = malloc(n_par * sizeof *params);
    ck_assert_ptr_nonnull(params);
    s->init(&pc, params, n_par, C, NH, &r);
    for (size_t k = 0; k < sizeof Ts / sizeof *Ts; k++) {
        size_t T = Ts[k];
        size_t run[40], jumbled[40];
        for (size_t t = 0; t < T; t++)
            run[t] = t, jumbled[t] = 3 * t + 1;
        float *scr = malloc(s->scratch(&pc, T, HS) * sizeof *scr), *out[2], *grad[2], *dqkv[2];
        float *qkv = malloc(T * ld * sizeof *qkv), *ds = malloc(T * T * sizeof *ds);
        ck_assert(scr && qkv && ds);
        s->prepare(scr, &pc, run, T, HS);
        for (size_t i = 0; i < T * ld; i++)
            qkv[i] = rng_range(&r, -1.0f, 1.0f);
        for (size_t i = 0; i < T * T; i++)
            ds[i] = rng_range(&r, -1.0f, 1.0f);
        for (int way = 0; way < 2; way++) {
            out[way] = calloc(T * T, sizeof *out[way]);
            grad[way] = calloc(n_par, sizeof *grad[way]);
            dqkv[way] = calloc(T * ld, sizeof *dqkv[way]);
            ck_assert(out[way] && grad[way] && dqkv[way]);
            for (size_t h = 0; h < NH; h++) {
                PeHead hd = {.pc = &pc, .params = params, .dparams = grad[way], .scratch = scr,
                             .pos = way ? jumbled : run, .T = T, .HS = HS, .h = h, .NH = NH,
                             .scale = 0.35f, .q = qkv + h * HS, .k = qkv + C + h * HS,
                             .ld = ld, .scores = out[way], .dq = dqkv[way] + h * HS,
                             .dk = dqkv[way] + C + h * HS, .dscores = ds};
                s->score(&hd);
                s->score_backward(&hd);
            }
        }
        ck_assert_msg(memcmp(out[0], out[1], T * T * sizeof(float)) == 0, "scores, T = %zu", T);
        ck_assert_msg(!memcmp(dqkv[0], dqkv[1], T * ld * sizeof(float)), "dq, dk, T = %zu", T);
        ck_assert_msg(!memcmp(grad[0], grad[1], n_par * sizeof(float)), "table, T = %zu", T);
        for (int way = 0; way < 2; way++)
            free(out[way]), free(grad[way]), free(dqkv[way]);
        free(scr), free(qkv), free(ds);
    }
    free(params);
}
END_TEST

Suite *suite_attn(void) {
    Suite *s = suite_create("attn");
    TCase *tc = tcase_create("schemes");
    tcase_add_loop_test(tc, rope_logit_depends_on_the_offset_only, 0, 2);
    tcase_add_test(tc, rope_pairs_follow_the_layout);
    tcase_add_test(tc, rope_refuses_an_odd_head);
    tcase_add_test(tc, alibi_slopes_by_the_papers_rule);
    tcase_add_test(tc, t5_buckets_by_hand);
    tcase_add_test(tc, kerple_bias_by_hand);
    tcase_add_test(tc, kerple_power_bias_by_hand);
    tcase_add_test(tc, xpos_scales_the_query_and_the_key_apart);
    tcase_add_test(tc, fire_bias_by_hand);
    tcase_add_test(tc, xl_runs_give_the_indexed_floats);
    tcase_add_test(tc, attention_schemes_take_no_combine);
    int attn = 2 * (int)scheme_count(pe_in_attention);
    tcase_add_loop_test(tc, a_mirror_blind_bias_cannot_tell_a_sentence_from_its_reverse, 0,
                        attn);
    tcase_add_loop_test(tc, each_attention_scheme_breaks_the_symmetry, 0, attn);
    tcase_add_loop_test(tc, asymmetric_alibi_tells_a_sentence_from_its_reverse, 0, 2);
    tcase_add_test(tc, attention_properties_on_the_logits);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_conformance());
    suite_add_tcase(s, tcase_dpb());
    return s;
}
