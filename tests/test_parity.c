/* Parity with PyTorch: the fixtures under tests/reference/fixtures, made by
 * make_fixtures.py from torch's nn.TransformerEncoder (or, for RoPE, xPos,
 * ALiBi, xl, KERPLE in both forms, FIRE and dpb, the same layers with an
 * explicit attention in PyTorch, xPos, KERPLE and FIRE written from their
 * papers' code, dpb from x-transformers' DynamicPositionBias), loaded into
 * the C model; two are causal, given torch's square subsequent mask, and
 * one has no bias on the attention output projection (--no-out-bias).
 * Forward within 1e-5 (the causal ones 1e-6); every parameter gradient
 * within 1e-4 of the tensor's largest gradient. The largest difference of each tensor is
 * printed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/run/npy.h"
#include "suites.h"

#define FIXTURES "tests/reference/fixtures"
#define FORWARD_TOL 1e-5
#define CAUSAL_TOL 1e-6
#define GRAD_TOL 1e-4

static const char *const cases[] = {"post_relu_sinusoidal",        "pre_gelu_learned",
                                    "post_relu_rope",              "pre_gelu_rope_split",
                                    "pre_gelu_alibi",              "post_relu_sinusoidal_causal",
                                    "pre_gelu_none_causal",        "post_gelu_xl",
                                    "post_relu_kerple",            "pre_gelu_fire",
                                    "post_gelu_xpos",              "pre_relu_kerple_power",
                                    "post_relu_cope",              "pre_gelu_cope_causal",
                                    "post_gelu_dpb",               "pre_relu_dpb_log",
                                    "post_relu_alibi_no_out_bias"};

/* Loads DIR/name.npy, checking it holds n floats. */
static float *load(const char *dir, const char *name, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    float *x;
    size_t shape[4], ndim, count = 1;
    Err e;
    ck_assert_msg(npy_read_f32(path, &x, shape, &ndim, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < ndim; i++)
        count *= shape[i];
    ck_assert_msg(count == n, "%s holds %zu values, the model wants %zu", path, count, n);
    return x;
}

static double max_diff(const float *a, const float *b, size_t n, double *ref_max) {
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    if (ref_max)
        *ref_max = m;
    return d;
}

static void read_config(const char *dir, Config *c, size_t *B, size_t *T) {
    char path[512], key[32], val[PE_NAME_MAX];
    snprintf(path, sizeof path, "%s/config.txt", dir);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run the tests from the repository root)", path);
    config_default(c, 0, "none");
    while (fscanf(f, "%31s %23s", key, val) == 2) {
        size_t v = strtoul(val, NULL, 10);
        if (!strcmp(key, "vocab")) c->vocab_size = v;
        else if (!strcmp(key, "d_model")) c->d_model = v;
        else if (!strcmp(key, "heads")) c->n_heads = v;
        else if (!strcmp(key, "layers")) c->n_layers = v;
        else if (!strcmp(key, "d_ff")) c->d_ff = v;
        else if (!strcmp(key, "classes")) c->n_classes = v;
        else if (!strcmp(key, "batch")) *B = v;
        else if (!strcmp(key, "length")) *T = c->max_len = v;
        else if (!strcmp(key, "norm")) c->norm = strcmp(val, "pre") ? NORM_POST : NORM_PRE;
        else if (!strcmp(key, "act")) c->act = strcmp(val, "gelu") ? ACT_RELU : ACT_GELU;
        else if (!strcmp(key, "pe")) snprintf(c->pe.name, sizeof c->pe.name, "%s", val);
        else if (!strcmp(key, "layout") && !strcmp(val, "split"))
            set_opt(&c->pe, "--layout", "split");
        else if (!strcmp(key, "causal")) c->causal = v != 0;
        else if (!strcmp(key, "out_bias")) c->no_out_bias = v == 0; /* --no-out-bias */
        else if (!strncmp(key, "--", 2)) set_opt(&c->pe, key, val); /* a scheme's option */
    }
    fclose(f);
    /* torch adds the input schemes' code; the others take no combine mode */
    const PeScheme *s = pe_find(c->pe.name);
    ck_assert_ptr_nonnull(s);
    if (!pe_in_attention(s))
        set_opt(&c->pe, "--combine", "add");
}

START_TEST(matches_pytorch) {
    char dir[256];
    snprintf(dir, sizeof dir, FIXTURES "/%s", cases[_i]);
    Config cfg;
    size_t B = 0, T = 0;
    read_config(dir, &cfg, &B, &T);
    Model m;
    Err e;
    ck_assert_msg(model_create(&m, &cfg, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < m.n_specs; i++) {
        const ParamSpec *s = &m.specs[i];
        char name[128];
        snprintf(name, sizeof name, "params/%s", s->name);
        float *x = load(dir, name, s->rows * s->cols);
        memcpy(m.mem + s->offset, x, s->rows * s->cols * sizeof *x);
        free(x);
    }
    float *fids = load(dir, "ids", B * T), *flens = load(dir, "lens", B);
    float *flabels = load(dir, "labels", B);
    int *ids = malloc(B * T * sizeof *ids), labels[16];
    size_t lens[16];
    ck_assert(ids && B <= 16);
    for (size_t i = 0; i < B * T; i++)
        ids[i] = (int)fids[i];
    for (size_t b = 0; b < B; b++) {
        lens[b] = (size_t)flens[b];
        labels[b] = (int)flabels[b];
    }
    Acts a;
    GradActs ga;
    ck_assert(acts_create(&a, &m, B, T, &e) == 0 && gradacts_create(&ga, &m, B, T, &e) == 0);
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    float loss = encoder_loss(&m, &a, &ga, labels, B, T, NULL, NULL);

    size_t C = cfg.d_model, K = cfg.n_classes;
    float *hidden = load(dir, "hidden", B * T * C), *pooled = load(dir, "pooled", B * C);
    float *logits = load(dir, "logits", B * K), *ref_loss = load(dir, "loss", 1);
    double dh = 0.0; /* padded rows are not outputs: compare the real ones */
    for (size_t b = 0; b < B; b++)
        dh = fmax(dh, max_diff(a.hidden + b * T * C, hidden + b * T * C, lens[b] * C, NULL));
    double dp = max_diff(a.pooled, pooled, B * C, NULL);
    double dl = max_diff(a.logits, logits, B * K, NULL);
    double dloss = fabs((double)loss - ref_loss[0]);
    printf("parity %s: forward max |C - torch|: hidden %.2e, pooled %.2e, logits %.2e, loss "
           "%.2e\n", cases[_i], dh, dp, dl, dloss);
    /* the causal fixtures are held to 1e-6, the bound their issue set */
    double tol = cfg.causal ? CAUSAL_TOL : FORWARD_TOL;
    ck_assert_msg(dh <= tol && dp <= tol && dl <= tol && dloss <= tol,
                  "%s: forward differs from PyTorch by more than %g", cases[_i], tol);

    float *gmem = calloc(m.n_params, sizeof *gmem);
    ck_assert_ptr_nonnull(gmem);
    Params g;
    params_carve(&m, &g, gmem);
    ck_assert_msg(encoder_backward(&m, &g, &a, &ga, ids, lens, B, T, &e) == 0, "%s", e.msg);
    double worst = 0.0;
    for (size_t i = 0; i < m.n_specs; i++) {
        const ParamSpec *s = &m.specs[i];
        char name[128];
        snprintf(name, sizeof name, "grads/%s", s->name);
        size_t n = s->rows * s->cols;
        float *ref = load(dir, name, n);
        double ref_max, d = max_diff(gmem + s->offset, ref, n, &ref_max);
        double rel = ref_max > 0.0 ? d / ref_max : d;
        worst = fmax(worst, rel);
        printf("parity %s: grad %-36s max diff %.2e (%.2e of its max)\n", cases[_i], s->name, d,
               rel);
        ck_assert_msg(rel <= GRAD_TOL, "%s: gradient of %s differs from PyTorch by %.3g of its "
                      "largest value", cases[_i], s->name, rel);
        free(ref);
    }
    printf("parity %s: every gradient within %.2e of its tensor's max\n", cases[_i], worst);
    free(gmem), free(ids), free(fids), free(flens), free(flabels);
    free(hidden), free(pooled), free(logits), free(ref_loss);
    gradacts_free(&ga);
    acts_free(&a);
    model_free(&m);
}
END_TEST

Suite *suite_parity(void) {
    Suite *s = suite_create("parity");
    TCase *tc = tcase_create("pytorch");
    tcase_add_loop_test(tc, matches_pytorch, 0, (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_one_file());
    return s;
}
