/* The encoder without position: permutation equivariance (the project's
 * headline claim), padding, attention weights, determinism, bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/matmul.h"
#include "../src/text/order.h"
#include "../src/core/rng.h"
#include "suites.h"

/* In float32 f(PX) and P f(X) agree to about 1e-7 (summation order). */
#define EQUIV_TOL 1e-5

/* Fills ids (B,T) with random ids in [2, V): every real word, none <pad>. */
static void random_ids(Rng *r, int *ids, size_t n, size_t V) {
    for (size_t i = 0; i < n; i++)
        ids[i] = 2 + (int)rng_below(r, V - 2);
}

/* One trial of test 1: a sentence and a random permutation of it, run in
 * one batch, padded or not, give rows that are a permutation of each
 * other, and equal pooled vectors. */
static void check_equivariance(size_t L, NormPlace norm, Activation act, bool padded,
                               uint64_t seed) {
    Rng r;
    rng_seed(&r, seed);
    size_t V = 40, C = 32;
    Model m;
    make_model(&m, V, C, 4, L, 64, norm, act, "none", COMBINE_DEFAULT, seed);
    size_t n = 2 + rng_below(&r, 31); /* 2..32 tokens */
    size_t T = padded ? n + 1 + rng_below(&r, 8) : n;
    size_t B = padded ? 3 : 2;
    int *ids = malloc(B * T * sizeof *ids);
    size_t *perm = malloc(n * sizeof *perm);
    ck_assert(ids && perm);
    /* padded slots hold random words: the mask must keep them out */
    random_ids(&r, ids, B * T, V);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    rng_shuffle(&r, perm, n);
    for (size_t i = 0; i < n; i++)
        ids[T + i] = ids[perm[i]];
    size_t lens[3] = {n, n, T};
    float *pooled;
    float *y = run_model(&m, ids, lens, B, T, &pooled);
    double d = max_aligned_diff(y, y + T * C, perm, n, C);
    double dp = 0.0;
    for (size_t c = 0; c < C; c++)
        dp = fmax(dp, fabs((double)pooled[c] - pooled[C + c]));
    ck_assert_msg(d <= EQUIV_TOL && dp <= EQUIV_TOL,
                  "L=%zu %s-norm %s %s n=%zu: ||f(PX) - P f(X)||_inf = %.3g, pooled %.3g", L,
                  norm == NORM_PRE ? "pre" : "post", act == ACT_GELU ? "gelu" : "relu",
                  padded ? "padded" : "unpadded", n, d, dp);
    free(y);
    free(pooled);
    free(ids);
    free(perm);
    model_free(&m);
}

START_TEST(equivariance_without_position) {
    /* _i runs over the 32 combinations of layers 1..4, post/pre, relu/gelu
     * and padding; three random trials each. */
    size_t L = 1 + (size_t)(_i % 4);
    NormPlace norm = (_i / 4) % 2 ? NORM_PRE : NORM_POST;
    Activation act = (_i / 8) % 2 ? ACT_GELU : ACT_RELU;
    bool padded = (_i / 16) % 2;
    for (uint64_t trial = 0; trial < 3; trial++)
        check_equivariance(L, norm, act, padded, 1000 * (uint64_t)_i + trial);
}
END_TEST

START_TEST(padding_does_not_change_real_tokens) {
    /* The same sentence alone (T = n) and in a padded batch (T = n + 5)
     * gives the same outputs, for a scheme with position as well. */
    const char *schemes[] = {"none", "sinusoidal", "normalized", "learned"};
    for (size_t s = 0; s < 4; s++) {
        Model m;
        make_model(&m, 30, 16, 2, 2, 32, NORM_POST, ACT_GELU, schemes[s], COMBINE_DEFAULT, 5);
        Rng r;
        rng_seed(&r, 11);
        size_t n = 7, T = 12, C = 16;
        int alone[7], batch[2 * 12];
        random_ids(&r, batch, 2 * T, 30);
        memcpy(alone, batch, sizeof alone);
        size_t len1[1] = {n}, len2[2] = {n, T};
        float *y1 = run_model(&m, alone, len1, 1, n, NULL);
        float *y2 = run_model(&m, batch, len2, 2, T, NULL);
        double worst = 0.0;
        for (size_t i = 0; i < n * C; i++)
            worst = fmax(worst, fabs((double)y1[i] - y2[i]));
        ck_assert_msg(worst <= 1e-6, "%s: padding changed a real token by %.3g", schemes[s],
                      worst);
        free(y1);
        free(y2);
        model_free(&m);
    }
}
END_TEST

START_TEST(attention_rows_sum_to_one_and_padding_gets_zero) {
    Model m;
    make_model(&m, 30, 24, 3, 3, 48, NORM_PRE, ACT_RELU, "sinusoidal", COMBINE_DEFAULT, 3);
    Rng r;
    rng_seed(&r, 4);
    size_t B = 4, T = 9, NH = 3;
    int ids[4 * 9];
    random_ids(&r, ids, B * T, 30);
    size_t lens[4] = {9, 1, 5, 8};
    Acts a;
    Err e;
    ck_assert(acts_create(&a, &m, B, T, &e) == 0);
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    for (size_t l = 0; l < 3; l++)
        for (size_t b = 0; b < B; b++)
            for (size_t h = 0; h < NH; h++)
                for (size_t i = 0; i < T; i++) {
                    const float *row = a.layer[l].att + ((b * NH + h) * T + i) * T;
                    double sum = 0.0;
                    for (size_t j = 0; j < T; j++) {
                        ck_assert(row[j] >= 0.0f);
                        if (j >= lens[b])
                            ck_assert_msg(row[j] == 0.0f, "layer %zu sentence %zu head %zu: "
                                          "padded key %zu has weight %g", l, b, h, j, row[j]);
                        sum += row[j];
                    }
                    ck_assert_msg(fabs(sum - 1.0) <= 1e-5, "row sums to %.8f", sum);
                }
    acts_free(&a);
    model_free(&m);
}
END_TEST

START_TEST(same_seed_same_numbers) {
    Model m1, m2, m3;
    make_model(&m1, 20, 16, 2, 2, 32, NORM_POST, ACT_RELU, "learned", COMBINE_DEFAULT, 9);
    make_model(&m2, 20, 16, 2, 2, 32, NORM_POST, ACT_RELU, "learned", COMBINE_DEFAULT, 9);
    make_model(&m3, 20, 16, 2, 2, 32, NORM_POST, ACT_RELU, "learned", COMBINE_DEFAULT, 10);
    ck_assert_uint_eq(m1.n_params, m2.n_params);
    ck_assert(memcmp(m1.mem, m2.mem, m1.n_params * sizeof *m1.mem) == 0);
    ck_assert(memcmp(m1.mem, m3.mem, m1.n_params * sizeof *m1.mem) != 0);
    int ids[5] = {2, 3, 4, 5, 6};
    size_t lens[1] = {5};
    float *y1 = run_model(&m1, ids, lens, 1, 5, NULL);
    float *y2 = run_model(&m2, ids, lens, 1, 5, NULL);
    ck_assert(memcmp(y1, y2, 5 * 16 * sizeof *y1) == 0);
    free(y1);
    free(y2);
    model_free(&m1);
    model_free(&m2);
    model_free(&m3);
}
END_TEST

START_TEST(parameter_names_follow_pytorch) {
    Model m;
    make_model(&m, 10, 8, 2, 2, 16, NORM_PRE, ACT_RELU, "learned", COMBINE_DEFAULT, 1);
    const char *want[] = {"embedding.weight", "pos_embedding.weight",
                          "layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
                          "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
                          "layers.0.linear1.weight", "layers.0.linear1.bias",
                          "layers.0.linear2.weight", "layers.0.linear2.bias",
                          "layers.0.norm1.weight", "layers.0.norm1.bias",
                          "layers.0.norm2.weight", "layers.0.norm2.bias"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_str_eq(m.specs[i].name, want[i]);
    ck_assert_str_eq(m.specs[m.n_specs - 2].name, "norm.weight");
    ck_assert_uint_eq(m.specs[2].rows, 24);
    ck_assert_uint_eq(m.specs[2].cols, 8);
    /* the tensors tile the block with no gap */
    size_t off = 0;
    for (size_t i = 0; i < m.n_specs; i++) {
        ck_assert_uint_eq(m.specs[i].offset, off);
        off += m.specs[i].rows * m.specs[i].cols;
    }
    ck_assert_uint_eq(off, m.n_params);
    model_free(&m);
}
END_TEST

START_TEST(layers_match_their_formulas) {
    /* LayerNorm: mean 0, variance 1 before the affine; GELU and ReLU at
     * known points; linear against the plain-loop matmul. */
    float x[2 * 5] = {1, 2, 3, 4, 5, -3, 100, 100.5f, 99, 101};
    float w[5] = {1, 1, 1, 1, 1}, b[5] = {0};
    float y[10], mean[2], rstd[2];
    layernorm_forward(y, mean, rstd, x, w, b, 2, 5);
    for (int r = 0; r < 2; r++) {
        double s = 0, s2 = 0;
        for (int c = 0; c < 5; c++) {
            s += y[r * 5 + c];
            s2 += (double)y[r * 5 + c] * y[r * 5 + c];
        }
        ck_assert(fabs(s / 5) < 1e-6);
        ck_assert(fabs(s2 / 5 - 1.0) < 1e-3); /* eps = 1e-5 shrinks it slightly */
    }
    ck_assert_float_eq_tol(mean[0], 3.0f, 1e-6f);
    float g_in[4] = {-1.0f, 0.0f, 1.0f, 2.0f}, g[4];
    activation_forward(g, g_in, 4, ACT_GELU);
    /* x * Phi(x) with the exact normal CDF */
    ck_assert_float_eq_tol(g[0], -0.15865525f, 1e-6f);
    ck_assert_float_eq_tol(g[1], 0.0f, 1e-7f);
    ck_assert_float_eq_tol(g[2], 0.84134475f, 1e-6f);
    ck_assert_float_eq_tol(g[3], 1.95449974f, 1e-6f);
    activation_forward(g, g_in, 4, ACT_RELU);
    ck_assert(g[0] == 0.0f && g[1] == 0.0f && g[2] == 1.0f && g[3] == 2.0f);
    float W[3 * 5], bias[3] = {0.5f, -1.0f, 2.0f}, out[2 * 3], ref[2 * 3];
    for (int i = 0; i < 15; i++)
        W[i] = 0.1f * (float)(i - 7);
    linear_forward(out, NULL, x, W, bias, 2, 5, 3);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            ref[i * 3 + j] = bias[j];
    matmul_ref(ref, 3, x, 5, false, W, 5, true, 2, 3, 5, 1.0f, 1.0f);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq_tol(out[i], ref[i], 1e-4f);
}
END_TEST

/* Dropout's masks by their statistics: a fraction p of zeros (within 5
 * binomial SDs), the rest scaled to 1/(1-p) so that the mean stays 1, the
 * same mask for the same (key, site, index) however the tensor is cut,
 * and another for another site. */
START_TEST(dropout_by_its_statistics) {
    enum { N = 200000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    ck_assert(x && y);
    const float ps[] = {0.1f, 0.5f};
    for (int k = 0; k < 2; k++) {
        Dropout d = {.p = ps[k], .key = 7};
        for (size_t i = 0; i < N; i++)
            x[i] = y[i] = 1.0f;
        dropout_apply(x, N, &d, 3, 0);
        size_t zeros = 0;
        double sum = 0.0;
        for (size_t i = 0; i < N; i++) {
            zeros += x[i] == 0.0f;
            sum += x[i];
            ck_assert(x[i] == 0.0f || x[i] == 1.0f / (1.0f - d.p));
        }
        double p = (double)d.p, sd = sqrt(N * p * (1.0 - p));
        ck_assert_msg(fabs((double)zeros - N * p) <= 5.0 * sd, "p %.1f: %zu zeros of %d", p,
                      zeros, N);
        /* the mean's SD is sqrt(p / (1-p) / N) */
        ck_assert_msg(fabs(sum / N - 1.0) <= 5.0 * sqrt(p / (1.0 - p) / N), "mean %.5f",
                      sum / N);
        /* in two parts, the same mask */
        dropout_apply(y, N / 3, &d, 3, 0);
        dropout_apply(y + N / 3, N - N / 3, &d, 3, N / 3);
        ck_assert_mem_eq(x, y, N * sizeof *x);
        /* another site: masks that agree no more than chance says */
        for (size_t i = 0; i < N; i++)
            y[i] = 1.0f;
        dropout_apply(y, N, &d, 4, 0);
        size_t both = 0;
        for (size_t i = 0; i < N; i++)
            both += x[i] == 0.0f && y[i] == 0.0f;
        ck_assert_msg(fabs((double)both - N * p * p) <= 5.0 * sqrt(N * p * p * (1.0 - p * p)),
                      "sites 3 and 4 drop %zu of the same elements", both);
    }
    free(x), free(y);
}
END_TEST

/* Dropout is training's alone: a model with dropout gives the outputs of
 * the same weights without it, until a training step sets its masks. */
START_TEST(dropout_only_while_training) {
    Model m;
    make_model(&m, 20, 16, 2, 2, 32, NORM_POST, ACT_RELU, "sinusoidal", COMBINE_DEFAULT, 5);
    int ids[6] = {2, 3, 4, 5, 6, 7};
    size_t lens[1] = {6};
    float *pooled, *y = run_model(&m, ids, lens, 1, 6, &pooled);
    m.cfg.dropout = 0.5f;
    float *pooled2, *y2 = run_model(&m, ids, lens, 1, 6, &pooled2);
    ck_assert_mem_eq(y, y2, 6 * 16 * sizeof *y);
    free(y), free(y2), free(pooled), free(pooled2);
    model_free(&m);
}
END_TEST

START_TEST(bad_input_is_refused_with_a_message) {
    Model m;
    make_model(&m, 10, 8, 2, 1, 16, NORM_POST, ACT_RELU, "learned", COMBINE_DEFAULT, 1);
    Acts a;
    Err e;
    ck_assert(acts_create(&a, &m, 1, 80, &e) == 0);
    int ids[80] = {0};
    size_t lens[1] = {65}; /* the table has 64 rows */
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, 80, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--table-len"));
    lens[0] = 0;
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, 80, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "empty"));
    lens[0] = 3;
    ids[1] = 10;
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, 80, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "vocabulary"));
    ids[1] = -1;
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, 80, &e), ERR_INPUT);
    acts_free(&a);
    model_free(&m);

    Config c;
    config_default(&c, 10, "sinusoidal");
    c.n_heads = 3; /* does not divide 64 */
    ck_assert_int_eq(model_create(&m, &c, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--heads"));
    config_default(&c, 10, "fourier");
    ck_assert_int_eq(model_create(&m, &c, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "sinusoidal"));
    config_default(&c, 10, "sincos");
    c.d_model = 4;
    c.n_heads = 1;
    set_opt(&c.pe, "--pairs", "2"); /* 4 channels of code leave none for the embedding */
    ck_assert_int_eq(model_create(&m, &c, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "--d-model"));
    config_default(&c, 10, "none");
    c.n_layers = 0;
    ck_assert_int_eq(model_create(&m, &c, &e), ERR_INPUT);
    config_default(&c, 0, "none");
    ck_assert_int_eq(model_create(&m, &c, &e), ERR_INPUT);
}
END_TEST

/* _i: each scheme of the registry, post and pre-norm. Activations made
 * for forward passes alone (two sets of layer buffers taken in turn, a
 * head's weights in its thread's block) give the full activations'
 * numbers, bit for bit, batch after batch of other lengths in the same
 * buffers; a training step refuses them. */
START_TEST(forward_only_buffers_give_the_same_numbers) {
    const PeScheme *s = pe_at((size_t)_i / 2);
    Model m;
    make_model(&m, 20, 16, 4, 3, 32, _i % 2 ? NORM_PRE : NORM_POST, ACT_GELU, s->name,
               COMBINE_DEFAULT, 5);
    Acts full, once;
    Err e;
    ck_assert_msg(acts_create_forward(&once, &m, 3, 12, &e) == 0, "%s", e.msg);
    int ids[36];
    for (size_t i = 0; i < 36; i++)
        ids[i] = 2 + (int)((i * 7) % 17);
    for (size_t T = 12; T >= 4; T -= 4) {
        size_t lens[3] = {T, T - 1, T - 3};
        ck_assert_msg(acts_create(&full, &m, 3, T, &e) == 0, "%s", e.msg);
        ck_assert_msg(encoder_forward(&m, &full, ids, lens, 3, T, &e) == 0, "%s", e.msg);
        ck_assert_msg(encoder_forward(&m, &once, ids, lens, 3, T, &e) == 0, "%s", e.msg);
        ck_assert_msg(memcmp(full.hidden, once.hidden, 3 * T * 16 * sizeof *full.hidden) == 0 &&
                      memcmp(full.pooled, once.pooled, 3 * 16 * sizeof *full.pooled) == 0,
                      "%s, T = %zu: the forward-only buffers give other numbers", s->name, T);
        acts_free(&full);
    }
    GradActs ga;
    ck_assert(gradacts_create(&ga, &m, 3, 12, &e) == 0);
    Params g;
    float *mem = calloc(m.n_params, sizeof *mem);
    ck_assert_ptr_nonnull(mem);
    params_carve(&m, &g, mem);
    size_t lens[3] = {12, 12, 12};
    int labels[3] = {0, 1, 0};
    float loss;
    size_t correct, labelled;
    ck_assert_int_eq(encoder_train_batch(&m, &g, &once, &ga, ids, lens, NULL, labels, 3, 12,
                                         &loss, &correct, &labelled, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "forward passes alone"));
    free(mem);
    gradacts_free(&ga);
    acts_free(&once);
    model_free(&m);
}
END_TEST

Suite *suite_encoder(void) {
    Suite *s = suite_create("encoder");
    TCase *tc = tcase_create("symmetry");
    tcase_add_loop_test(tc, equivariance_without_position, 0, 32);
    tcase_add_test(tc, padding_does_not_change_real_tokens);
    tcase_add_test(tc, attention_rows_sum_to_one_and_padding_gets_zero);
    suite_add_tcase(s, tc);
    tc = tcase_create("model");
    tcase_add_test(tc, same_seed_same_numbers);
    tcase_add_test(tc, parameter_names_follow_pytorch);
    tcase_add_test(tc, layers_match_their_formulas);
    tcase_add_test(tc, bad_input_is_refused_with_a_message);
    tcase_add_test(tc, dropout_by_its_statistics);
    tcase_add_loop_test(tc, forward_only_buffers_give_the_same_numbers, 0, 2 * (int)pe_count());
    tcase_add_test(tc, dropout_only_while_training);
    suite_add_tcase(s, tc);
    return s;
}
