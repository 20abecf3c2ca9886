/* Finite-difference checks of every backward function, and of the whole
 * encoder for every parameter tensor and every scheme with parameters.
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
#include "../src/text/vocab.h"
#include "ref_model.h"
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

/* ---- the whole encoder: every parameter tensor ----
 *
 * Differences of the float model are swamped by its rounding for the
 * small gradients deep in a network, so the encoder is checked against
 * central differences of the double-precision reference (ref_model.c),
 * which also checks the float forward pass itself. */

/* Relative to the tensor's gradient norm (directions) or largest entry
 * (coordinates); the float backward measures about 1e-6. The step of
 * 1e-6 is small enough not to cross a ReLU's kink in these tiny models. */
#define MODEL_TOL 1e-4

typedef struct {
    const Model *m;
    double *P;
    const int *ids, *labels;
    const size_t *lens, *pos;
    size_t B, T;
} RefCase;

static double ref_central(RefCase *c, double *x, const double *v, size_t n, double eps) {
    double *save = malloc(n * sizeof *save);
    ck_assert_ptr_nonnull(save);
    memcpy(save, x, n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = save[i] + eps * v[i];
    double up = ref_forward(c->m, c->P, c->ids, c->lens, c->pos, c->labels, c->B, c->T, NULL);
    for (size_t i = 0; i < n; i++)
        x[i] = save[i] - eps * v[i];
    double down = ref_forward(c->m, c->P, c->ids, c->lens, c->pos, c->labels, c->B, c->T, NULL);
    memcpy(x, save, n * sizeof *x);
    free(save);
    return (up - down) / (2.0 * eps);
}

/* One tensor's gradient g (n floats) at offset off of the block against
 * central differences of the reference: the worst error, relative to the
 * gradient's norm (directions) or its largest entry (coordinates). */
static double tensor_error(RefCase *c, size_t off, const float *g, size_t n, Rng *r) {
    double norm = 0.0, gmax = 0.0, worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        norm += (double)g[i] * g[i];
        gmax = fmax(gmax, fabs(g[i]));
    }
    norm = sqrt(norm);
    if (norm == 0.0)
        return INFINITY; /* every tensor here reaches the loss */
    double *v = malloc(n * sizeof *v);
    ck_assert_ptr_nonnull(v);
    /* the gradient's own direction, then two random unit directions */
    for (int k = 0; k < 3; k++) {
        double vn = 0.0, ana = 0.0;
        for (size_t i = 0; i < n; i++) {
            v[i] = k == 0 ? g[i] : rng_normal(r);
            vn += v[i] * v[i];
        }
        for (size_t i = 0; i < n; i++) {
            v[i] /= sqrt(vn);
            ana += v[i] * g[i];
        }
        double num = ref_central(c, c->P + off, v, n, 1e-6);
        worst = fmax(worst, fabs(num - ana) / norm);
    }
    size_t pick[3] = {0, rng_below(r, n), rng_below(r, n)};
    for (size_t i = 1; i < n; i++)
        if (fabs(g[i]) > fabs(g[pick[0]]))
            pick[0] = i;
    for (int k = 0; k < 3; k++) {
        memset(v, 0, n * sizeof *v);
        v[pick[k]] = 1.0;
        double num = ref_central(c, c->P + off, v, n, 1e-6);
        worst = fmax(worst, fabs(num - g[pick[k]]) / gmax);
    }
    free(v);
    return worst;
}

typedef struct {
    const char *pe;
    Combine combine;
    NormPlace norm;
    Activation act;
    bool per_token;
    bool random_positions; /* sorted positions drawn from 0..15 */
    uint64_t seed;
    const PeScheme *swap;  /* run the model with this scheme's functions instead, or NULL */
    RopeScaling rope_scaling; /* with factor 3 and, for yarn, original length 4 */
    AlibiSlopes alibi_slopes;
    float dropout;         /* the model's, with one step's masks in both passes */
    Pooling pool;
} GradCase;

/* The worst error of any tensor's gradient for one model and batch, with
 * the float forward checked against the double one on the way; *name
 * gets the tensor that had it. */
static double model_error(const GradCase *gc, char *name, size_t cap) {
    Rng r;
    rng_seed(&r, gc->seed);
    size_t B = 3, T = 6, lens[3] = {6, 3, 5}, pos[18];
    int ids[18], labels[18];
    Config cfg;
    config_default(&cfg, 12, gc->pe);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2, cfg.d_ff = 12;
    cfg.max_len = gc->random_positions ? 16 : 8;
    cfg.norm = gc->norm, cfg.act = gc->act, cfg.n_classes = 3, cfg.per_token = gc->per_token;
    cfg.seed = gc->seed;
    /* each option for the schemes that read it: a code 3 wide under
     * concat, few buckets (so that a batch of 6 reaches the log-spaced
     * ones), and shaw's offsets clipped inside it */
    PeConfig all;
    pe_config_default(&all, gc->pe);
    if (gc->combine != COMBINE_DEFAULT)
        set_opt(&all, "--combine", gc->combine == COMBINE_CONCAT ? "concat" : "add");
    set_opt(&all, "--pe-dim", "3");
    set_opt(&all, "--buckets", "8");
    set_opt(&all, "--max-distance", "12");
    set_opt(&all, "--max-relative", "2");
    if (gc->alibi_slopes == ALIBI_ASYMMETRIC)
        set_opt(&all, "--alibi-slopes", "asymmetric");
    rope_set_scaling(&all, gc->rope_scaling, 3.0, 4);
    cfg.pe = pe_config_for(&all, pe_find(gc->pe));
    cfg.dropout = gc->dropout;
    cfg.pool = gc->pool;
    Model m;
    Acts a;
    GradActs ga;
    Err e;
    ck_assert_msg(model_create(&m, &cfg, &e) == 0, "%s", e.msg);
    if (gc->swap)
        m.pe.scheme = gc->swap;
    ck_assert(acts_create(&a, &m, B, T, &e) == 0 && gradacts_create(&ga, &m, B, T, &e) == 0);
    a.drop = (Dropout){.p = gc->dropout, .key = gc->seed};
    ref_set_dropout(a.drop);
    for (size_t i = 0; i < B * T; i++) {
        size_t b = i / T, t = i % T;
        ids[i] = t < lens[b] ? 2 + (int)rng_below(&r, 10) : VOCAB_PAD;
        labels[i] = gc->per_token && t >= lens[b] ? -1 : (int)rng_below(&r, 3);
    }
    for (size_t b = 0; b < B; b++) /* sorted, distinct, below 16 */
        for (size_t t = 0, p = 0; t < T; t++, p++) {
            if (gc->random_positions)
                p += rng_below(&r, 2);
            pos[b * T + t] = p;
        }
    float *gmem = calloc(m.n_params, sizeof *gmem);
    double *P = malloc(m.n_params * sizeof *P), *hid = malloc(B * T * 8 * sizeof *hid);
    ck_assert(gmem && P && hid);
    for (size_t i = 0; i < m.n_params; i++)
        P[i] = m.mem[i];
    Params g;
    params_carve(&m, &g, gmem);
    ck_assert_msg(encoder_forward_at(&m, &a, ids, lens, pos, B, T, &e) == 0, "%s", e.msg);
    float loss = encoder_loss(&m, &a, &ga, labels, B, T, NULL, NULL);
    ck_assert_msg(encoder_backward(&m, &g, &a, &ga, ids, lens, B, T, &e) == 0, "%s", e.msg);

    /* the float forward against the double one */
    RefCase c = {.m = &m, .P = P, .ids = ids, .labels = labels, .lens = lens, .pos = pos,
                 .B = B, .T = T};
    double ref_loss = ref_forward(&m, P, ids, lens, pos, labels, B, T, hid);
    ck_assert_msg(fabs(loss - ref_loss) <= 1e-5, "%s: loss %.8f, reference %.8f", gc->pe, loss,
                  ref_loss);
    for (size_t b = 0; b < B; b++)
        for (size_t i = 0; i < lens[b] * 8; i++)
            ck_assert_msg(fabs(a.hidden[b * T * 8 + i] - hid[b * T * 8 + i]) <= 1e-5,
                          "%s: hidden state differs from the reference", gc->pe);
    double worst = 0.0;
    for (size_t i = 0; i < m.n_specs; i++) {
        const ParamSpec *s = &m.specs[i];
        double err = tensor_error(&c, s->offset, gmem + s->offset, s->rows * s->cols, &r);
        if (err > worst) {
            worst = err;
            snprintf(name, cap, "%s", s->name);
        }
    }
    free(gmem), free(P), free(hid);
    ref_set_dropout((Dropout){0});
    gradacts_free(&ga);
    acts_free(&a);
    model_free(&m);
    return worst;
}

static void check_model(const GradCase *gc) {
    char name[64] = "";
    double err = model_error(gc, name, sizeof name);
    ck_assert_msg(err <= MODEL_TOL, "%s %s %s-norm %s %s%s: %s's gradient is off by %.3g of "
                  "its size (tolerance %g)", gc->pe, combine_name(gc->combine),
                  gc->norm == NORM_PRE ? "pre" : "post", gc->act == ACT_GELU ? "gelu" : "relu",
                  gc->per_token ? "per-token" : "pooled",
                  gc->random_positions ? ", random positions" : "", name, err, MODEL_TOL);
}

START_TEST(encoder_gradients) {
    /* _i: post/pre x relu/gelu x pooled/per-token, with a learned table
     * added as wide as the model */
    GradCase gc = {.pe = "learned", .combine = COMBINE_ADD, .norm = _i % 2 ? NORM_PRE : NORM_POST,
                   .act = (_i / 2) % 2 ? ACT_GELU : ACT_RELU, .per_token = (_i / 4) % 2,
                   .seed = 100 + (uint64_t)_i};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_each_scheme) {
    /* every scheme through the whole model: an input scheme with each
     * combine mode, an attention scheme (which takes none) post- and
     * pre-norm */
    const PeScheme *s = pe_at((size_t)_i / 2);
    bool attn = pe_in_attention(s);
    GradCase gc = {.pe = s->name, .act = ACT_GELU, .seed = 200 + (uint64_t)_i,
                   .combine = attn ? COMBINE_DEFAULT : _i % 2 ? COMBINE_CONCAT : COMBINE_ADD,
                   .norm = attn && _i % 2 ? NORM_PRE : NORM_POST};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_random_positions) {
    /* every scheme that reads positions one by one, at sorted positions
     * with gaps (as --random-positions draws them) */
    static const char *const schemes[] = {"integer", "sinusoidal", "learned", "rope", "alibi",
                                          "t5",      "shaw",       "xl"};
    GradCase gc = {.pe = schemes[_i], .act = ACT_RELU, .norm = NORM_PRE,
                   .random_positions = true, .seed = 300 + (uint64_t)_i};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_rope_scalings) {
    /* yarn's gain makes the rotation no longer orthogonal: its backward
     * is the gain times the transpose */
    static const RopeScaling sc[] = {ROPE_SCALING_LINEAR, ROPE_SCALING_NTK, ROPE_SCALING_YARN};
    GradCase gc = {.pe = "rope", .act = ACT_GELU, .norm = NORM_POST, .seed = 350 + (uint64_t)_i,
                   .rope_scaling = sc[_i]};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_dropout) {
    /* _i: post/pre x relu/gelu, with shaw (its values read the weights
     * after dropout): a step's masks in the forward and the backward */
    GradCase gc = {.pe = _i % 2 ? "shaw" : "learned",
                   .combine = _i % 2 ? COMBINE_DEFAULT : COMBINE_ADD,
                   .norm = _i % 2 ? NORM_PRE : NORM_POST, .act = _i / 2 ? ACT_GELU : ACT_RELU,
                   .seed = 380 + (uint64_t)_i, .dropout = 0.3f};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_cls_pooling) {
    /* _i: post, pre-norm: the head reads the first row alone */
    GradCase gc = {.pe = "sinusoidal", .combine = COMBINE_ADD, .act = ACT_GELU,
                   .norm = _i ? NORM_PRE : NORM_POST, .seed = 390 + (uint64_t)_i,
                   .pool = POOL_CLS};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_alibi_asymmetric) {
    /* _i: post, pre-norm; the bias differs by side, the backward is the
     * same dscores */
    GradCase gc = {.pe = "alibi", .act = ACT_RELU, .norm = _i ? NORM_PRE : NORM_POST,
                   .seed = 370 + (uint64_t)_i, .alibi_slopes = ALIBI_ASYMMETRIC};
    check_model(&gc);
}
END_TEST

/* The schemes' backward passes with an error of 0.1% each: the checks
 * above must catch it. */
static PeScheme broken;
static const PeScheme *real;

static void rotate_off(const PeHead *hd, float *x, bool inverse) {
    real->rotate(hd, x, inverse);
    for (size_t t = 0; inverse && t < hd->T; t++)
        for (size_t i = 0; i < hd->HS; i++)
            x[t * hd->ld + i] *= 1.001f;
}

static void score_backward_off(const PeHead *hd) {
    size_t T = hd->T;
    float *d = malloc(T * T * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (size_t i = 0; i < T * T; i++)
        d[i] = hd->dscores[i] * 1.001f;
    PeHead off = *hd;
    off.dscores = d;
    real->score_backward(&off);
    free(d);
}

/* shaw's: the keys' part (_i 2) or the values' (_i 3). The keys' vectors
 * get gradients some 30 times smaller than the values' in the table they
 * share, whose largest the tolerance is relative to: their part is off by
 * 1% (0.1% moves the worst error to 3e-5 only). */
static void key_scores_backward_off(const PeHead *hd) {
    PeHead off = *hd;
    off.scale = hd->scale * 1.01f;
    real->score_backward(&off);
}

static void mix_backward_off(const PeHead *hd) {
    size_t T = hd->T;
    float *a = malloc(T * T * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < T * T; i++)
        a[i] = hd->att[i] * 1.001f;
    PeHead off = *hd;
    off.att = a;
    real->mix_backward(&off);
    free(a);
}

START_TEST(a_wrong_scheme_backward_is_caught) {
    const char *name = _i == 0 ? "rope" : _i == 1 ? "t5" : "shaw";
    real = pe_find(name);
    broken = *real;
    if (_i == 0)
        broken.rotate = rotate_off;
    else if (_i == 1)
        broken.score_backward = score_backward_off;
    else if (_i == 2)
        broken.score_backward = key_scores_backward_off;
    else
        broken.mix_backward = mix_backward_off;
    GradCase gc = {.pe = name, .act = ACT_GELU, .norm = NORM_POST, .seed = 400,
                   .swap = &broken};
    char tensor[64] = "";
    double err = model_error(&gc, tensor, sizeof tensor);
    ck_assert_msg(err > MODEL_TOL, "%s with a backward off: the worst gradient error is %.3g, "
                  "within the tolerance %g", name, err, MODEL_TOL);
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
    tc = tcase_create("encoder");
    tcase_add_loop_test(tc, encoder_gradients, 0, 8);
    tcase_add_loop_test(tc, encoder_gradients_each_scheme, 0, 2 * (int)pe_count());
    tcase_add_loop_test(tc, encoder_gradients_random_positions, 0, 8);
    tcase_add_loop_test(tc, encoder_gradients_rope_scalings, 0, 3);
    tcase_add_loop_test(tc, encoder_gradients_alibi_asymmetric, 0, 2);
    tcase_add_loop_test(tc, encoder_gradients_dropout, 0, 4);
    tcase_add_loop_test(tc, encoder_gradients_cls_pooling, 0, 2);
    tcase_add_loop_test(tc, a_wrong_scheme_backward_is_caught, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
