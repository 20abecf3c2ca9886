/* Finite-difference checks of every layer's backward function, in float.
 * The whole encoder's, for every parameter tensor and every scheme, are
 * checked against the double-precision reference in test_grad_encoder.c.
 *
 * The harness is float, like the model, so it checks directional
 * derivatives: for a random direction v, the central difference
 * (L(x + eps v) - L(x - eps v)) / (2 eps) against <grad, v>. Summing over
 * all coordinates makes the signal large next to float rounding in L; a few
 * single coordinates (the largest gradients) are checked as well, against
 * the tensor's largest gradient. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/attention.h"
#include "../src/model/layers.h"
#include "../src/core/rng.h"
#include "suites.h"

/* The stated tolerance: relative error of a directional derivative, and
 * error of a single coordinate relative to the tensor's largest gradient.
 * Measured errors are near 1e-4 (smooth layers) to 1e-3 (the encoder). */
#define DIR_TOL 1e-2
#define COORD_TOL 2e-2

typedef double (*Objective)(void *ctx);

static float *randn(Rng *r, size_t n, float scale) {
    float *x = malloc((n ? n : 1) * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = scale * rng_normal(r);
    return x;
}

static double dot(const float *a, const float *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

static double central(Objective f, void *ctx, float *x, const float *v, size_t n, float eps) {
    float *save = malloc(n * sizeof *save);
    ck_assert_ptr_nonnull(save);
    memcpy(save, x, n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = save[i] + eps * v[i];
    double up = f(ctx);
    for (size_t i = 0; i < n; i++)
        x[i] = save[i] - eps * v[i];
    double down = f(ctx);
    memcpy(x, save, n * sizeof *x);
    free(save);
    return (up - down) / (2.0 * eps);
}

/* Checks g, the analytic gradient of f with respect to x (n floats). */
static void check_grad(const char *what, Objective f, void *ctx, float *x, const float *g,
                       size_t n, float eps, Rng *r) {
    double gmax = 0.0;
    for (size_t i = 0; i < n; i++)
        gmax = fmax(gmax, fabs(g[i]));
    ck_assert_msg(gmax > 0.0, "%s: the gradient is zero everywhere", what);
    for (int k = 0; k < 3; k++) {
        /* a unit direction: the step eps is the distance moved, however
         * many coordinates the tensor has */
        float *v = randn(r, n, 1.0f);
        double norm = sqrt(dot(v, v, n));
        for (size_t i = 0; i < n; i++)
            v[i] = (float)(v[i] / norm);
        double num = central(f, ctx, x, v, n, eps), ana = dot(g, v, n);
        double rel = fabs(num - ana) / fmax(fmax(fabs(num), fabs(ana)), 1e-12);
        ck_assert_msg(rel <= DIR_TOL, "%s: directional derivative %.6g by differences, %.6g "
                      "by backward (relative error %.3g)", what, num, ana, rel);
        free(v);
    }
    /* single coordinates: the largest gradient and two random ones */
    size_t pick[3] = {0, rng_below(r, n), rng_below(r, n)};
    for (size_t i = 1; i < n; i++)
        if (fabs(g[i]) > fabs(g[pick[0]]))
            pick[0] = i;
    float *e = calloc(n, sizeof *e);
    ck_assert_ptr_nonnull(e);
    for (int k = 0; k < 3; k++) {
        e[pick[k]] = 1.0f;
        double num = central(f, ctx, x, e, n, eps);
        e[pick[k]] = 0.0f;
        ck_assert_msg(fabs(num - g[pick[k]]) <= COORD_TOL * gmax, "%s[%zu]: %.6g by "
                      "differences, %.6g by backward (largest gradient %.3g)", what, pick[k],
                      num, g[pick[k]], gmax);
    }
    free(e);
}

/* ---- single layers: L = <layer(x), R> for a fixed random R ---- */

typedef struct {
    size_t BT, C, OC;
    float *inp, *w, *b, *out, *R;
    Activation act;
    int kind; /* 0 linear, 1 layernorm, 2 activation */
} LayerCase;

static double layer_objective(void *p) {
    LayerCase *c = p;
    float mean[64], rstd[64];
    if (c->kind == 0)
        linear_forward(c->out, NULL, c->inp, c->w, c->b, c->BT, c->C, c->OC);
    else if (c->kind == 1)
        layernorm_forward(c->out, mean, rstd, c->inp, c->w, c->b, c->BT, c->C);
    else
        activation_forward(c->out, c->inp, c->BT * c->C, c->act);
    return dot(c->out, c->R, c->BT * (c->kind == 0 ? c->OC : c->C));
}

START_TEST(linear_gradients) {
    Rng r;
    rng_seed(&r, 21);
    LayerCase c = {.BT = 6, .C = 5, .OC = 7, .kind = 0};
    c.inp = randn(&r, 30, 1.0f), c.w = randn(&r, 35, 0.5f), c.b = randn(&r, 7, 0.5f);
    c.out = randn(&r, 42, 0.0f), c.R = randn(&r, 42, 1.0f);
    float *dinp = randn(&r, 30, 0.0f), *dw = calloc(35, sizeof(float)), *db = calloc(7, 4);
    linear_backward(dinp, dw, db, c.R, c.inp, c.w, 6, 5, 7, false);
    check_grad("linear dinp", layer_objective, &c, c.inp, dinp, 30, 1e-2f, &r);
    check_grad("linear dw", layer_objective, &c, c.w, dw, 35, 1e-2f, &r);
    check_grad("linear db", layer_objective, &c, c.b, db, 7, 1e-2f, &r);
    /* accumulate adds onto what the buffer holds */
    float *twice = malloc(30 * sizeof *twice);
    memcpy(twice, dinp, 30 * sizeof *twice);
    linear_backward(twice, dw, db, c.R, c.inp, c.w, 6, 5, 7, true);
    for (int i = 0; i < 30; i++)
        ck_assert_float_eq_tol(twice[i], 2.0f * dinp[i], 1e-5f);
    free(twice), free(dinp), free(dw), free(db);
    free(c.inp), free(c.w), free(c.b), free(c.out), free(c.R);
}
END_TEST

START_TEST(layernorm_gradients) {
    Rng r;
    rng_seed(&r, 22);
    LayerCase c = {.BT = 5, .C = 8, .kind = 1};
    c.inp = randn(&r, 40, 2.0f), c.w = randn(&r, 8, 1.0f), c.b = randn(&r, 8, 1.0f);
    c.out = randn(&r, 40, 0.0f), c.R = randn(&r, 40, 1.0f);
    float mean[5], rstd[5], *dinp = randn(&r, 40, 0.0f);
    float *dw = calloc(8, sizeof(float)), *db = calloc(8, sizeof(float));
    layernorm_forward(c.out, mean, rstd, c.inp, c.w, c.b, 5, 8);
    layernorm_backward(dinp, dw, db, c.R, c.inp, c.w, mean, rstd, 5, 8, false);
    check_grad("layernorm dinp", layer_objective, &c, c.inp, dinp, 40, 1e-2f, &r);
    check_grad("layernorm dw", layer_objective, &c, c.w, dw, 8, 1e-2f, &r);
    check_grad("layernorm db", layer_objective, &c, c.b, db, 8, 1e-2f, &r);
    free(dinp), free(dw), free(db);
    free(c.inp), free(c.w), free(c.b), free(c.out), free(c.R);
}
END_TEST

START_TEST(activation_gradients) {
    Rng r;
    rng_seed(&r, 23);
    for (int k = 0; k < 2; k++) {
        LayerCase c = {.BT = 4, .C = 10, .kind = 2, .act = k ? ACT_GELU : ACT_RELU};
        c.inp = randn(&r, 40, 1.5f), c.out = randn(&r, 40, 0.0f), c.R = randn(&r, 40, 1.0f);
        /* keep ReLU's inputs off its kink, where differences are wrong */
        for (int i = 0; i < 40; i++)
            if (fabsf(c.inp[i]) < 0.05f)
                c.inp[i] = 0.1f;
        float *dinp = randn(&r, 40, 0.0f);
        activation_backward(dinp, c.R, c.inp, 40, c.act);
        check_grad(k ? "gelu" : "relu", layer_objective, &c, c.inp, dinp, 40, 1e-3f, &r);
        free(dinp), free(c.inp), free(c.out), free(c.R);
    }
}
END_TEST

typedef struct {
    size_t B, T, C, NH;
    size_t lens[3];
    bool causal;
    float *qkv, *work, *att, *out, *R;
} AttnCase;

static double attn_objective(void *p) {
    AttnCase *c = p;
    /* forward rotates q and k in place when a hook asks; work on a copy */
    memcpy(c->work, c->qkv, c->B * c->T * 3 * c->C * sizeof *c->work);
    attention_forward(c->out, c->att, c->work, c->lens, c->causal, NULL, NULL, c->B, c->T, c->C,
                      c->NH);
    return dot(c->out, c->R, c->B * c->T * c->C);
}

START_TEST(attention_gradients) {
    for (int causal = 0; causal < 2; causal++) {
    Rng r;
    rng_seed(&r, 24);
    AttnCase c = {.B = 3, .T = 5, .C = 8, .NH = 2, .lens = {5, 2, 4}, .causal = causal};
    size_t n = c.B * c.T * 3 * c.C;
    c.qkv = randn(&r, n, 1.0f), c.work = randn(&r, n, 0.0f);
    c.att = randn(&r, c.B * c.NH * c.T * c.T, 0.0f), c.out = randn(&r, c.B * c.T * c.C, 0.0f);
    c.R = randn(&r, c.B * c.T * c.C, 1.0f);
    float *dqkv = randn(&r, n, 0.0f), *ds = randn(&r, c.T * c.T, 0.0f);
    attn_objective(&c);
    attention_backward(dqkv, ds, 1, c.R, c.work, c.att, NULL, NULL, c.B, c.T, c.C, c.NH);
    check_grad(causal ? "causal attention dqkv" : "attention dqkv", attn_objective, &c, c.qkv,
               dqkv, n, 1e-2f, &r);
    /* padded keys and values get no gradient: nothing real reads them */
    for (size_t b = 0; b < c.B; b++)
        for (size_t t = c.lens[b]; t < c.T; t++)
            for (size_t j = c.C; j < 3 * c.C; j++)
                ck_assert_float_eq(dqkv[(b * c.T + t) * 3 * c.C + j], 0.0f);
    /* under the mask no query weighs a later key */
    for (size_t i = 0; causal && i < c.B * c.NH; i++)
        for (size_t q = 0; q < c.T; q++)
            for (size_t k = q + 1; k < c.T; k++)
                ck_assert_float_eq(c.att[(i * c.T + q) * c.T + k], 0.0f);
    free(dqkv), free(ds), free(c.qkv), free(c.work), free(c.att), free(c.out), free(c.R);
    }
}
END_TEST

typedef struct {
    size_t N, K;
    int *labels;
    float *logits;
} XentCase;

static double xent_objective(void *p) {
    XentCase *c = p;
    return softmax_xent(NULL, NULL, NULL, c->logits, c->labels, c->N, c->K);
}

START_TEST(softmax_xent_gradients) {
    Rng r;
    rng_seed(&r, 25);
    int labels[6] = {0, 3, -1, 2, 2, -1};
    XentCase c = {.N = 6, .K = 4, .labels = labels, .logits = randn(&r, 24, 2.0f)};
    float *d = randn(&r, 24, 0.0f);
    size_t correct, labelled;
    float loss = softmax_xent(d, &correct, &labelled, c.logits, labels, 6, 4);
    ck_assert_uint_eq(labelled, 4);
    ck_assert(loss > 0.0f);
    check_grad("softmax_xent", xent_objective, &c, c.logits, d, 24, 1e-2f, &r);
    for (int k = 0; k < 4; k++) /* ignored rows get nothing */
        ck_assert_float_eq(d[2 * 4 + k], 0.0f);
    /* huge logits: no overflow, the loss stays finite */
    c.logits[0] = 1e30f;
    ck_assert(isfinite(softmax_xent(d, NULL, NULL, c.logits, labels, 6, 4)));
    free(d), free(c.logits);
}
END_TEST

typedef struct {
    size_t B, T, C, E, w;
    size_t lens[2];
    int *ids;
    float *wte, *P, *x, *pooled, *R;
    Combine combine;
} InputCase;

/* embedding -> position code -> mean pooling, L = <pooled, R> */
static double input_objective(void *p) {
    InputCase *c = p;
    embedding_forward(c->x, c->ids, c->wte, c->B * c->T, c->E, c->C, 1.5f);
    for (size_t b = 0; b < c->B; b++)
        pe_combine(c->x + b * c->T * c->C, c->P, c->lens[b], c->w, c->C, c->combine);
    meanpool_forward(c->pooled, c->x, c->lens, c->B, c->T, c->C);
    return dot(c->pooled, c->R, c->B * c->C);
}

START_TEST(embedding_position_pooling_gradients) {
    Rng r;
    rng_seed(&r, 26);
    for (int k = 0; k < 3; k++) {
        /* concat, add as wide as the model, and add tiled from 2 channels */
        InputCase c = {.B = 2, .T = 4, .C = 6, .lens = {4, 3}};
        c.combine = k == 0 ? COMBINE_CONCAT : COMBINE_ADD;
        c.w = k == 0 ? 2 : k == 1 ? 6 : 2;
        c.E = k == 0 ? 4 : 6;
        int ids[8] = {2, 3, 4, 2, 5, 3, 2, 0};
        c.ids = ids;
        c.wte = randn(&r, 6 * c.E, 1.0f), c.P = randn(&r, 4 * c.w, 1.0f);
        c.x = randn(&r, 48, 0.0f), c.pooled = randn(&r, 12, 0.0f), c.R = randn(&r, 12, 1.0f);
        float *dx = randn(&r, 48, 0.0f), *dwte = calloc(6 * c.E, 4), *dP = calloc(4 * c.w, 4);
        meanpool_backward(dx, c.R, c.lens, 2, 4, 6);
        for (size_t b = 0; b < 2; b++)
            pe_combine_backward(dP, dx + b * 24, c.lens[b], c.w, 6, c.combine);
        embedding_backward(dwte, dx, ids, 8, c.E, 6, 1.5f);
        check_grad("embedding", input_objective, &c, c.wte, dwte, 6 * c.E, 1e-2f, &r);
        check_grad("position table", input_objective, &c, c.P, dP, 4 * c.w, 1e-2f, &r);
        free(dx), free(dwte), free(dP);
        free(c.wte), free(c.P), free(c.x), free(c.pooled), free(c.R);
    }
}
END_TEST

Suite *suite_grad(void) {
    Suite *s = suite_create("grad");
    TCase *tc = tcase_create("layers");
    tcase_add_test(tc, linear_gradients);
    tcase_add_test(tc, layernorm_gradients);
    tcase_add_test(tc, activation_gradients);
    tcase_add_test(tc, attention_gradients);
    tcase_add_test(tc, softmax_xent_gradients);
    tcase_add_test(tc, embedding_position_pooling_gradients);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_grad_encoder());
    return s;
}
