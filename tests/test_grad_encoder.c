/* The whole encoder's backward, for every parameter tensor and every
 * scheme, against central differences of the double-precision reference
 * (ref_model.c, which holds each attention scheme's own double formula);
 * the layers' own checks are in test_grad.c. Differences of the float
 * model are swamped by its rounding for the small gradients deep in a
 * network, hence the reference, which also checks the float forward pass
 * itself. The schemes come from the registry, chosen by their fields. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/text/vocab.h"
#include "ref_model.h"
#include "suites.h"
#include "../src/pe/pe_rope.h"
#include "../src/pe/pe_alibi.h"

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
    void (*edit)(Model *m); /* changes the drawn tables before the run, or NULL */
    const char *opt[4];     /* up to two more options of the scheme, flag then value */
    /* Ruoss et al.'s draw in every layer (--random-draw ruoss) from 0..N-1
     * or 1..N-1, for a scheme that has one; 0: none */
    size_t draw_N;
    bool bench_form; /* the options of the scheme's benchmark column (bench_options) */
    bool examples;   /* every option the scheme reads at its example */
    bool no_out_bias;       /* the output projection without its bias */
    FirstDraws draws;       /* the first draws */
} GradCase;

/* Each option of the text "--name value --name value" into pc. */
static void set_pairs(PeConfig *pc, const char *text) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *name = strtok_r(buf, " ", &save); name;
         name = strtok_r(NULL, " ", &save)) {
        char *value = strtok_r(NULL, " ", &save);
        ck_assert_msg(value != NULL, "'%s' is not --name value pairs", text);
        set_opt(pc, name, value);
    }
}

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
     * ones), shaw's offsets clipped inside it, and a narrow MLP for fire */
    PeConfig all;
    pe_config_default(&all, gc->pe);
    if (gc->combine != COMBINE_DEFAULT)
        set_opt(&all, "--combine", gc->combine == COMBINE_CONCAT ? "concat" : "add");
    set_opt(&all, "--pe-dim", "3");
    set_opt(&all, "--buckets", "8");
    set_opt(&all, "--max-distance", "12");
    set_opt(&all, "--max-relative", "2");
    set_opt(&all, "--fire-width", "5");
    /* cope: counts past 3 clamped (6 keys gate up to 6), and vectors large
     * enough that the gates' path moves the loss */
    set_opt(&all, "--cope-max-pos", "4");
    set_opt(&all, "--cope-init-std", "1");
    if (gc->alibi_slopes == ALIBI_ASYMMETRIC)
        set_opt(&all, "--alibi-slopes", "asymmetric");
    rope_set_scaling(&all, gc->rope_scaling, 3.0, 4);
    for (size_t k = 0; k < 4 && gc->opt[k]; k += 2)
        set_opt(&all, gc->opt[k], gc->opt[k + 1]);
    const PeScheme *scheme = pe_find(gc->pe);
    if (gc->bench_form && scheme->bench_options)
        set_pairs(&all, scheme->bench_options);
    for (size_t o = 0; gc->examples && o < pe_option_count(); o++)
        if (pe_reads(scheme, COMBINE_DEFAULT, pe_option_at(o)))
            set_opt(&all, pe_option_at(o)->flag, pe_option_at(o)->example);
    cfg.pe = pe_config_for(&all, scheme);
    cfg.dropout = gc->dropout;
    cfg.pool = gc->pool;
    cfg.no_out_bias = gc->no_out_bias;
    cfg.first_draws = gc->draws;
    Model m;
    Acts a;
    GradActs ga;
    Err e;
    ck_assert_msg(model_create(&m, &cfg, &e) == 0, "%s", e.msg);
    if (gc->swap)
        m.pe.scheme = gc->swap;
    if (gc->edit)
        gc->edit(&m);
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
    /* each layer's draw, for the pass below and the reference's passes;
     * the layers' draws stand for the positions */
    const size_t *at = pos;
    if (gc->draw_N) {
        ck_assert_ptr_nonnull(a.layer_draw);
        encoder_draw_layers(&m, &a, &r, T, gc->draw_N);
        ref_set_layer_draw(a.layer_draw, gc->draw_N);
        at = NULL;
    }
    float *gmem = calloc(m.n_params, sizeof *gmem);
    double *P = malloc(m.n_params * sizeof *P), *hid = malloc(B * T * 8 * sizeof *hid);
    ck_assert(gmem && P && hid);
    for (size_t i = 0; i < m.n_params; i++)
        P[i] = m.mem[i];
    Params g;
    params_carve(&m, &g, gmem);
    ck_assert_msg(encoder_forward_at(&m, &a, ids, lens, at, B, T, &e) == 0, "%s", e.msg);
    float loss = encoder_loss(&m, &a, &ga, labels, B, T, NULL, NULL);
    ck_assert_msg(encoder_backward(&m, &g, &a, &ga, ids, lens, B, T, &e) == 0, "%s", e.msg);

    /* the float forward against the double one */
    RefCase c = {.m = &m, .P = P, .ids = ids, .labels = labels, .lens = lens, .pos = at,
                 .B = B, .T = T};
    double ref_loss = ref_forward(&m, P, ids, lens, at, labels, B, T, hid);
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
    ref_set_layer_draw(NULL, 0);
    gradacts_free(&ga);
    acts_free(&a);
    model_free(&m);
    return worst;
}

static void check_model(const GradCase *gc) {
    char name[64] = "";
    double err = model_error(gc, name, sizeof name);
    ck_assert_msg(err <= MODEL_TOL, "%s %s %s-norm %s %s%s%s%s: %s's gradient is off by %.3g "
                  "of its size (tolerance %g)", gc->pe, combine_name(gc->combine),
                  gc->norm == NORM_PRE ? "pre" : "post", gc->act == ACT_GELU ? "gelu" : "relu",
                  gc->per_token ? "per-token" : "pooled",
                  gc->random_positions ? ", random positions" : "",
                  gc->draw_N ? ", a draw per layer" : "",
                  gc->examples ? ", its options' examples" : "", name, err, MODEL_TOL);
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

/* The schemes that read positions one by one, whatever the sentence's
 * length: every input scheme but the length-dependent ones, every scheme
 * inside attention. */
static bool reads_positions(const PeScheme *s) {
    return pe_in_attention(s) || (pe_in_input(s) && !s->length_dependent);
}

START_TEST(encoder_gradients_random_positions) {
    /* each at sorted positions with gaps (as --random-positions draws them) */
    GradCase gc = {.pe = scheme_nth(reads_positions, (size_t)_i)->name, .act = ACT_RELU,
                   .norm = NORM_PRE, .random_positions = true, .seed = 300 + (uint64_t)_i};
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

static bool draws_by_layer(const PeScheme *s) { return s->ruoss_draw != PE_DRAW_INPUT; }

START_TEST(encoder_gradients_layer_draws) {
    /* _i: each scheme that draws in every layer under --random-draw ruoss,
     * in its benchmark column's form, then with every option it reads at
     * its example (xl's --xl-rows clamped: the rows Ruoss et al.'s code
     * reads at drawn distances); a draw of 0..15 or 1..15 per layer */
    GradCase gc = {.pe = scheme_nth(draws_by_layer, (size_t)_i / 2)->name, .act = ACT_GELU,
                   .norm = _i % 2 ? NORM_PRE : NORM_POST, .seed = 380 + (uint64_t)_i,
                   .draw_N = 16, .bench_form = true, .examples = _i % 2 == 1};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_no_out_bias) {
    /* _i: post-norm with a learned table, pre-norm rope with dropout,
     * per-token xl; each without the output projection's bias (no tensor:
     * the passes skip it) and with the reference's first draws */
    static const char *const pe[] = {"learned", "rope", "xl"};
    GradCase gc = {.pe = pe[_i], .combine = _i ? COMBINE_DEFAULT : COMBINE_ADD,
                   .norm = _i == 1 ? NORM_PRE : NORM_POST, .act = _i ? ACT_GELU : ACT_RELU,
                   .per_token = _i == 2, .dropout = _i == 1 ? 0.3f : 0.0f,
                   .seed = 395 + (uint64_t)_i, .no_out_bias = true, .draws = DRAWS_REFERENCE};
    check_model(&gc);
}
END_TEST

/* A scheme past its threshold and at its clamp: the branches a drawn
 * table does not reach in these short sentences (the layouts are the
 * schemes' files'). fire's L (row 1, last column: the multiplier of 512)
 * falls to 2.5, so the queries at 3 and after divide by their own
 * position; one of kerple's r1 and one r2 (row 0 and row 1 of (2,NH))
 * sink under the clamp at 0.01, where they get no gradient. */
static void fire_threshold_low(Model *m) {
    for (size_t l = 0; l < m->cfg.n_layers; l++) {
        float *t = model_pe_table(m, &m->p, l);
        t[m->pe.cols + m->pe.cols - 1] = 2.5f / 512.0f;
    }
}

static void kerple_below_clamp(Model *m) {
    float *t = model_pe_table(m, &m->p, 0);
    t[1] = 0.004f;             /* r1 of head 1 */
    t[m->pe.cols + 0] = -0.3f; /* r2 of head 0 */
}

START_TEST(encoder_gradients_past_a_threshold_or_clamp) {
    /* _i: fire post-norm, fire at random positions pre-norm, kerple */
    GradCase gc = {.pe = _i < 2 ? "fire" : "kerple", .act = ACT_GELU,
                   .norm = _i == 1 ? NORM_PRE : NORM_POST, .random_positions = _i == 1,
                   .seed = 360 + (uint64_t)_i, .edit = _i < 2 ? fire_threshold_low
                                                             : kerple_below_clamp};
    check_model(&gc);
}
END_TEST

START_TEST(encoder_gradients_dpb_forms) {
    /* _i: dpb reading the log distance three layers deep (pre-norm, at
     * random positions), one layer of the offset (post-norm); the
     * defaults are encoder_gradients_each_scheme's */
    GradCase gc = {.pe = "dpb", .act = ACT_GELU, .norm = _i ? NORM_POST : NORM_PRE,
                   .random_positions = _i == 0, .seed = 370 + (uint64_t)_i,
                   .opt = {"--dpb-depth", _i ? "1" : "3", _i ? NULL : "--dpb-distance", "log"}};
    check_model(&gc);
}
END_TEST

/* The schemes' backward passes with an error of 0.1% each: the checks
 * above must catch it. */
static PeScheme broken;
static const PeScheme *real;

static void rotate_off(const PeHead *hd, float *x, PeOperand which, bool inverse) {
    real->rotate(hd, x, which, inverse);
    for (size_t t = 0; inverse && t < hd->T; t++)
        for (size_t i = 0; i < hd->HS; i++)
            x[t * hd->ld + i] *= 1.001f;
}

/* A scheme that also mixes vectors into the output (shaw) shares its
 * table with them: the keys' vectors get gradients some 30 times smaller
 * than the values', whose largest the tolerance is relative to, so its
 * scores' part is off by 1% (0.1% moves the worst error to 3e-5 only). */
static void score_backward_off(const PeHead *hd) {
    size_t T = hd->T;
    float f = real->mix_backward ? 1.01f : 1.001f, *d = malloc(T * T * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (size_t i = 0; i < T * T; i++)
        d[i] = hd->dscores[i] * f;
    PeHead off = *hd;
    off.dscores = d;
    real->score_backward(&off);
    free(d);
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

/* The part logits_backward adds to dscores, off by 1%. */
static void logits_backward_off(const PeHead *hd) {
    size_t T = hd->T;
    float *before = malloc(T * T * sizeof *before);
    ck_assert_ptr_nonnull(before);
    memcpy(before, hd->dscores, T * T * sizeof *before);
    real->logits_backward(hd);
    for (size_t i = 0; i < T * T; i++)
        hd->dscores[i] = before[i] + 1.01f * (hd->dscores[i] - before[i]);
    free(before);
}

/* Every backward hook of every scheme, in the registry's order: the
 * rotation's, the scores', the mixed vectors' and the logits'. Sets *s
 * and *hook (0 to 3) to pair n and returns how many pairs there are. */
static size_t backward_hook(size_t n, const PeScheme **s, int *hook) {
    size_t k = 0;
    for (size_t i = 0; i < pe_count(); i++) {
        const PeScheme *p = pe_at(i);
        bool has[4] = {p->rotate != NULL, p->score_backward != NULL, p->mix_backward != NULL,
                       p->logits_backward != NULL};
        for (int h = 0; h < 4; h++)
            if (has[h] && k++ == n)
                *s = p, *hook = h;
    }
    return k;
}

START_TEST(a_wrong_scheme_backward_is_caught) {
    int hook = 0;
    backward_hook((size_t)_i, &real, &hook);
    broken = *real;
    if (hook == 0)
        broken.rotate = rotate_off;
    else if (hook == 1)
        broken.score_backward = score_backward_off;
    else if (hook == 2)
        broken.mix_backward = mix_backward_off;
    else
        broken.logits_backward = logits_backward_off;
    GradCase gc = {.pe = real->name, .act = ACT_GELU, .norm = NORM_POST, .seed = 400,
                   .swap = &broken};
    char tensor[64] = "";
    double err = model_error(&gc, tensor, sizeof tensor);
    static const char *const what[] = {"rotation", "scores", "mixed vectors", "logits"};
    ck_assert_msg(err > MODEL_TOL, "%s with its %s' backward off: the worst gradient error is "
                  "%.3g, within the tolerance %g", real->name, what[hook], err, MODEL_TOL);
}
END_TEST

TCase *tcase_grad_encoder(void) {
    TCase *tc = tcase_create("encoder");
    tcase_add_loop_test(tc, encoder_gradients, 0, 8);
    tcase_add_loop_test(tc, encoder_gradients_each_scheme, 0, 2 * (int)pe_count());
    tcase_add_loop_test(tc, encoder_gradients_random_positions, 0,
                        (int)scheme_count(reads_positions));
    tcase_add_loop_test(tc, encoder_gradients_rope_scalings, 0, 3);
    tcase_add_loop_test(tc, encoder_gradients_alibi_asymmetric, 0, 2);
    tcase_add_loop_test(tc, encoder_gradients_layer_draws, 0,
                        2 * (int)scheme_count(draws_by_layer));
    tcase_add_loop_test(tc, encoder_gradients_past_a_threshold_or_clamp, 0, 3);
    tcase_add_loop_test(tc, encoder_gradients_dpb_forms, 0, 2);
    tcase_add_loop_test(tc, encoder_gradients_dropout, 0, 4);
    tcase_add_loop_test(tc, encoder_gradients_cls_pooling, 0, 2);
    tcase_add_loop_test(tc, encoder_gradients_no_out_bias, 0, 3);
    const PeScheme *s;
    int hook;
    tcase_add_loop_test(tc, a_wrong_scheme_backward_is_caught, 0,
                        (int)backward_hook(SIZE_MAX, &s, &hook));
    return tc;
}
