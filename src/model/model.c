/* Creating a model: configuration checks, the parameter and activation
 * layouts (one allocation each), and the initial weights. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/options.h"
#include "../core/rng.h"
#include "par.h"

void config_default(Config *c, size_t vocab_size, const char *pe_name) {
    memset(c, 0, sizeof *c);
    c->vocab_size = vocab_size;
    c->d_model = 64;
    c->n_heads = 4;
    c->n_layers = 2;
    c->d_ff = 256;
    c->max_len = 64;
    c->norm = NORM_POST;
    c->act = ACT_RELU;
    c->seed = 42;
    pe_config_default(&c->pe, pe_name);
}

/* The advice names the option only to a program that takes it (evaluate
 * reads the shape from a model: options.h). */
static int check_dim(const char *what, const char *option, size_t v, Err *e) {
    bool say = option[0] != '-' || options_has(option);
    if (v == 0 || v > MAX_DIM)
        return err_set(e, ERR_INPUT, "%s must be between 1 and %d, not %zu%s%s", what, MAX_DIM,
                       v, say ? "; set " : "", say ? option : "");
    return 0;
}

int config_check(const Config *c, Err *e) {
    int rc;
    if ((rc = check_dim("the vocabulary size", "a smaller vocabulary", c->vocab_size, e)) ||
        (rc = check_dim("d_model", "--d-model", c->d_model, e)) ||
        (rc = check_dim("the number of heads", "--heads", c->n_heads, e)) ||
        (rc = check_dim("d_ff", "--d-ff", c->d_ff, e)) ||
        (rc = check_dim("max_len", "--table-len", c->max_len, e)))
        return rc;
    if (c->n_layers < 1 || c->n_layers > MAX_LAYERS)
        return err_set(e, ERR_INPUT, "the number of layers must be between 1 and %d, not %zu%s",
                       MAX_LAYERS, c->n_layers, options_if("--layers", "; set --layers"));
    if (c->d_model % c->n_heads != 0) {
        char advice[96] = "";
        if (options_has("--heads"))
            snprintf(advice, sizeof advice, "; choose --heads among the divisors of %zu",
                     c->d_model);
        return err_set(e, ERR_INPUT, "%zu heads do not divide d_model %zu: each head takes "
                       "d_model/heads channels%s", c->n_heads, c->d_model, advice);
    }
    if (c->norm != NORM_POST && c->norm != NORM_PRE)
        return err_set(e, ERR_INPUT, "norm must be post or pre");
    if (c->act != ACT_RELU && c->act != ACT_GELU)
        return err_set(e, ERR_INPUT, "activation must be relu or gelu");
    if (c->pool != POOL_MEAN && c->pool != POOL_CLS)
        return err_set(e, ERR_INPUT, "pooling must be mean or cls");
    if (c->first_draws != DRAWS_PYTORCH && c->first_draws != DRAWS_REFERENCE)
        return err_set(e, ERR_INPUT, "the first draws must be pytorch or reference");
    /* Options that would be taken and change nothing, or break the model
     * outright, are refused with the reason, as train refuses reverse
     * under --causal. */
    if (c->pool == POOL_CLS && c->causal)
        return err_set(e, ERR_INPUT, "--pool cls with --causal: under the mask the [CLS] row, "
                       "at position 0, attends to itself alone, so every sentence gets the same "
                       "vector; use --pool mean with --causal, or drop --causal");
    const PeScheme *s = pe_find(c->pe.name);
    const char *conflict = s && s->causal_conflict ? s->causal_conflict(&c->pe) : NULL;
    if (c->causal && conflict)
        return err_set(e, ERR_INPUT, "%s", conflict);
    if (!(c->dropout >= 0.0f && c->dropout <= MAX_DROPOUT))
        return err_set(e, ERR_INPUT, "dropout %g must be from 0 to %g%s", (double)c->dropout,
                       (double)MAX_DROPOUT, options_if("--dropout", "; set --dropout"));
    if (c->n_classes > MAX_DIM)
        return err_set(e, ERR_INPUT, "%zu classes is too many (at most %d)", c->n_classes,
                       MAX_DIM);
    PePlan plan;
    return pe_plan(&plan, &c->pe, c->d_model, c->n_heads, c->max_len, e);
}

/* One way of laying out a block of floats, for the parameters, the
 * activations and their gradients alike: a pass with base NULL counts the
 * floats (and points every field at NULL), a pass with base set points
 * each field into it. */
typedef struct {
    float *base; /* NULL while counting */
    size_t off;  /* floats laid out so far */
} Carver;

static void carve(Carver *cv, float **field, size_t n) {
    *field = cv->base ? cv->base + cv->off : NULL;
    cv->off += n;
}

/* The parameters are laid out one tensor after another, in a fixed order:
 * the order of the checkpoint and of the random draws. With specs set, a
 * walk also records each tensor's name, shape and initialization. */
typedef struct {
    Carver cv;
    ParamSpec *specs; /* NULL: do not record */
    size_t n;         /* tensors so far */
} Walk;

static void take(Walk *w, float **slot, const char *name, size_t rows, size_t cols,
                 InitKind init, float scale) {
    if (w->specs) {
        ParamSpec *s = &w->specs[w->n];
        snprintf(s->name, sizeof s->name, "%s", name);
        s->rows = rows;
        s->cols = cols;
        s->offset = w->cv.off;
        s->init = init;
        s->scale = scale;
        s->fan_in = 0;
        s->bias = false;
    }
    carve(&w->cv, slot, rows * cols);
    w->n++;
}

/* The tensor just taken is a linear layer's weight (bias false) or bias,
 * of a layer whose input is fan_in wide. */
static void linear(Walk *w, size_t fan_in, bool bias) {
    if (w->specs) {
        w->specs[w->n - 1].fan_in = fan_in;
        w->specs[w->n - 1].bias = bias;
    }
}

static size_t params_walk(const Config *c, const PePlan *plan, Params *p, Walk *w) {
    size_t C = c->d_model, F = c->d_ff;
    memset(p, 0, sizeof *p);
    /* nn.Embedding's init, N(0,1); torch's nn.Linear init bounds below. */
    take(w, &p->tok_emb, "embedding.weight", c->vocab_size, plan->E, INIT_NORMAL, 1.0f);
    bool per_layer = plan->scheme->per_layer;
    if (plan->rows && !per_layer)
        take(w, &p->pe, plan->scheme->param_name, plan->rows, plan->cols, INIT_SCHEME, 0.0f);
    float bound_c = 1.0f / sqrtf((float)C), bound_f = 1.0f / sqrtf((float)F);
    /* in_proj is xavier-uniform in torch's MultiheadAttention */
    float xavier = sqrtf(6.0f / (float)(C + 3 * C));
    for (size_t l = 0; l < c->n_layers; l++) {
        LayerParams *L = &p->layer[l];
        char name[64];
#define NAME(s) (snprintf(name, sizeof name, "layers.%u.%s", (unsigned)l, s), name)
        /* q, k and v each read the C channels of the layer's input */
        take(w, &L->in_proj_w, NAME("self_attn.in_proj_weight"), 3 * C, C, INIT_UNIFORM, xavier);
        linear(w, C, false);
        take(w, &L->in_proj_b, NAME("self_attn.in_proj_bias"), 1, 3 * C, INIT_ZERO, 0.0f);
        linear(w, C, true);
        take(w, &L->out_proj_w, NAME("self_attn.out_proj.weight"), C, C, INIT_UNIFORM, bound_c);
        linear(w, C, false);
        /* Ruoss et al.'s has none (transformer.py:257, with_bias=False):
         * no tensor, and the passes skip it (linear_forward's NULL bias) */
        if (!c->no_out_bias) {
            take(w, &L->out_proj_b, NAME("self_attn.out_proj.bias"), 1, C, INIT_ZERO, 0.0f);
            linear(w, C, true);
        }
        take(w, &L->ff1_w, NAME("linear1.weight"), F, C, INIT_UNIFORM, bound_c);
        linear(w, C, false);
        take(w, &L->ff1_b, NAME("linear1.bias"), 1, F, INIT_UNIFORM, bound_c);
        linear(w, C, true);
        take(w, &L->ff2_w, NAME("linear2.weight"), C, F, INIT_UNIFORM, bound_f);
        linear(w, F, false);
        take(w, &L->ff2_b, NAME("linear2.bias"), 1, C, INIT_UNIFORM, bound_f);
        linear(w, F, true);
        take(w, &L->ln1_w, NAME("norm1.weight"), 1, C, INIT_ONE, 0.0f);
        take(w, &L->ln1_b, NAME("norm1.bias"), 1, C, INIT_ZERO, 0.0f);
        take(w, &L->ln2_w, NAME("norm2.weight"), 1, C, INIT_ONE, 0.0f);
        take(w, &L->ln2_b, NAME("norm2.bias"), 1, C, INIT_ZERO, 0.0f);
        if (plan->rows && per_layer) {
            snprintf(name, sizeof name, "layers.%u.self_attn.%s", (unsigned)l,
                     plan->scheme->param_name);
            take(w, &L->pe, name, plan->rows, plan->cols, INIT_SCHEME, 0.0f);
        }
#undef NAME
    }
    if (c->norm == NORM_PRE) {
        take(w, &p->lnf_w, "norm.weight", 1, C, INIT_ONE, 0.0f);
        take(w, &p->lnf_b, "norm.bias", 1, C, INIT_ZERO, 0.0f);
    }
    if (c->n_classes) {
        take(w, &p->head_w, "head.weight", c->n_classes, C, INIT_UNIFORM, bound_c);
        linear(w, C, false);
        take(w, &p->head_b, "head.bias", 1, c->n_classes, INIT_UNIFORM, bound_c);
        linear(w, C, true);
    }
    return w->cv.off;
}

size_t config_param_count(const Config *c) {
    PePlan plan;
    if (config_check(c, NULL) || pe_plan(&plan, &c->pe, c->d_model, c->n_heads, c->max_len, NULL))
        return 0;
    Params p;
    Walk count = {0};
    return params_walk(c, &plan, &p, &count);
}

void params_carve(const Model *m, Params *p, float *base) {
    Walk w = {.cv = {.base = base}};
    params_walk(&m->cfg, &m->pe, p, &w);
}

/* A stream of its own for the reference's draws (rng_hash's counter): any
 * number other streams do not use. */
#define REFERENCE_DRAWS_STREAM 0x52756f7373ULL /* "Ruoss" */

/* --first-draws reference: the linear layers drawn again as Ruoss et al.'s
 * code draws them (google-deepmind/randomized_positional_encodings,
 * models/transformer.py). Every layer there is an hk.Linear left at
 * Haiku's defaults: q, k and v (lines 153-155, each reading the d_model
 * channels of the layer's input), the attention's output projection (257,
 * reading the heads' d_model), the FFN's two layers (424 and 428, reading
 * d_model and d_ff) and the output layer (487, make_transformer's
 * hk.Linear(output_size) on the encoder's d_model wide output). Haiku's
 * hk.Linear (haiku/_src/basic.py, Linear.__call__) draws its weight from
 * TruncatedNormal(stddev = 1/sqrt(input_size)) and its bias from b_init
 * or jnp.zeros; TruncatedNormal (haiku/_src/initializers.py) scales
 * jax.random.truncated_normal(key, -2, 2) by the stddev, cast to the
 * dtype, float32 here: a standard normal cut at +-2, so the draws' std is
 * 0.8796 / sqrt(fan_in). Only the linear tensors change; they are drawn
 * from a generator of their own after today's draws, so that every other
 * tensor (the embedding, a learned table, a scheme's tables: drawn before
 * and after them) is the same, bit for bit, under either choice. */
static void reference_draws(Model *m) {
    Rng rng;
    rng_seed(&rng, rng_hash(m->cfg.seed, REFERENCE_DRAWS_STREAM));
    for (size_t i = 0; i < m->n_specs; i++) {
        const ParamSpec *s = &m->specs[i];
        float *x = m->mem + s->offset;
        size_t n = s->rows * s->cols;
        if (!s->fan_in)
            continue;
        if (s->bias) {
            memset(x, 0, n * sizeof *x);
            continue;
        }
        /* the std rounded to float once, as Haiku converts it to the dtype */
        float std = (float)(1.0 / sqrt((double)s->fan_in));
        for (size_t j = 0; j < n; j++)
            x[j] = std * rng_truncated_normal(&rng);
    }
}

static void params_init(Model *m) {
    Rng rng;
    rng_seed(&rng, m->cfg.seed);
    for (size_t i = 0; i < m->n_specs; i++) {
        const ParamSpec *s = &m->specs[i];
        float *x = m->mem + s->offset;
        size_t n = s->rows * s->cols;
        switch (s->init) {
        case INIT_ZERO:
            memset(x, 0, n * sizeof *x);
            break;
        case INIT_ONE:
            for (size_t j = 0; j < n; j++)
                x[j] = 1.0f;
            break;
        case INIT_NORMAL:
            for (size_t j = 0; j < n; j++)
                x[j] = s->scale * rng_normal(&rng);
            break;
        case INIT_UNIFORM:
            for (size_t j = 0; j < n; j++)
                x[j] = rng_range(&rng, -s->scale, s->scale);
            break;
        case INIT_SCHEME:
            m->pe.scheme->init(&m->cfg.pe, x, n, m->cfg.d_model, m->cfg.n_heads, &rng);
            break;
        }
    }
    if (m->cfg.first_draws == DRAWS_REFERENCE)
        reference_draws(m);
}

int model_create(Model *m, const Config *c, Err *e) {
    memset(m, 0, sizeof *m);
    int rc = config_check(c, e);
    if (rc)
        return rc;
    m->cfg = *c;
    pe_plan(&m->pe, &c->pe, c->d_model, c->n_heads, c->max_len, e);
    Walk count = {0};
    m->n_params = params_walk(c, &m->pe, &m->p, &count);
    m->n_specs = count.n;
    m->specs = xcalloc(m->n_specs, sizeof *m->specs, "the parameter table", e);
    m->mem = xmalloc(m->n_params * sizeof *m->mem, "the parameters", e);
    if (!m->specs || !m->mem) {
        model_free(m);
        return ERR_RUNTIME;
    }
    Walk w = {.cv = {.base = m->mem}, .specs = m->specs};
    params_walk(c, &m->pe, &m->p, &w);
    params_init(m);
    return 0;
}

void model_free(Model *m) {
    free(m->mem);
    free(m->specs);
    memset(m, 0, sizeof *m);
}

size_t model_max_positions(const Model *m) { return m->pe.max_positions; }

void model_pe_constrain(Model *m) {
    const PeScheme *s = m->pe.scheme;
    if (!s->constrain || !m->pe.rows)
        return;
    size_t tables = s->per_layer ? m->cfg.n_layers : 1;
    for (size_t l = 0; l < tables; l++)
        s->constrain(&m->cfg.pe, model_pe_table(m, &m->p, l), m->pe.rows * m->pe.cols);
}

float *model_pe_table(const Model *m, const Params *p, size_t l) {
    return m->pe.scheme->per_layer ? p->layer[l].pe : p->pe;
}

size_t config_lead_tokens(const Config *c) { return c->pool == POOL_CLS ? 1 : 0; }

const char *config_words(const Config *c, size_t n_tokens, char *buf, size_t cap) {
    size_t lead = config_lead_tokens(c), n = n_tokens > lead ? n_tokens - lead : 0;
    if (lead)
        snprintf(buf, cap, "%zu word%s (and the [CLS] before them: %zu positions)", n,
                 n == 1 ? "" : "s", n_tokens);
    else
        snprintf(buf, cap, "%zu word%s", n, n == 1 ? "" : "s");
    return buf;
}

size_t micro_sentences(size_t B, size_t T) {
    size_t n = T ? MICRO_TOKENS / T : B;
    return n < 1 ? 1 : n > B ? B : n;
}

/* The activations, carved the same way: the layers' for Bm sentences, the
 * rest for B. */
static size_t acts_walk(Acts *a, Carver *cv, const Model *m, size_t B, size_t T, size_t Bm) {
    const Config *c = &m->cfg;
    size_t BT = Bm * T, C = c->d_model, F = c->d_ff, NH = c->n_heads;
    carve(cv, &a->x0, BT * C);
    carve(cv, &a->pe, T * m->pe.w);
    carve(cv, &a->scratch, B * pe_scratch(&m->pe, &m->cfg.pe, T));
    if (pe_work(&m->pe, &m->cfg.pe, T))
        carve(cv, &a->work, (size_t)par_max_threads() * pe_work(&m->pe, &m->cfg.pe, T));
    if (m->pe.scheme->ruoss_draw != PE_DRAW_INPUT)
        carve(cv, &a->layer_scratch, c->n_layers * pe_scratch(&m->pe, &m->cfg.pe, T));
    /* forward alone: two sets of the layers' buffers, the others' taken in
     * turn after the walk; a head's weights in its thread's block */
    size_t sets = a->forward_only && c->n_layers > 2 ? 2 : c->n_layers;
    size_t heads_kept = a->forward_only ? (size_t)par_max_threads() : Bm * NH;
    for (size_t l = 0; l < sets; l++) {
        LayerActs *la = &a->layer[l];
        carve(cv, &la->ln1, BT * C);
        carve(cv, &la->ln1_mean, BT);
        carve(cv, &la->ln1_rstd, BT);
        carve(cv, &la->qkv, BT * 3 * C);
        carve(cv, &la->att, heads_kept * T * T);
        if (c->dropout > 0.0f)
            carve(cv, &la->att_drop, Bm * NH * T * T);
        carve(cv, &la->atty, BT * C);
        carve(cv, &la->s, BT * C);
        carve(cv, &la->ln2, BT * C);
        carve(cv, &la->ln2_mean, BT);
        carve(cv, &la->ln2_rstd, BT);
        carve(cv, &la->ffh, BT * F);
        carve(cv, &la->u, BT * C);
        if (m->pe.scheme->reads_logits)
            carve(cv, &la->logits, heads_kept * T * T);
    }
    for (size_t l = sets; l < c->n_layers; l++)
        a->layer[l] = a->layer[l % 2];
    if (c->act != ACT_RELU || c->dropout > 0.0f)
        carve(cv, &a->ffa, BT * F);
    if (c->norm == NORM_PRE) {
        carve(cv, &a->lnf, BT * C);
        carve(cv, &a->lnf_mean, BT);
        carve(cv, &a->lnf_rstd, BT);
    }
    a->hidden = c->norm == NORM_PRE ? a->lnf : a->layer[c->n_layers - 1].ln2;
    if (Bm < B)
        carve(cv, &a->hidden, B * T * C);
    carve(cv, &a->pooled, B * C);
    if (c->n_classes)
        carve(cv, &a->logits, (c->per_token ? B * T : B) * c->n_classes);
    return cv->off;
}

int acts_create(Acts *a, const Model *m, size_t B, size_t T, Err *e) {
    return acts_create_micro(a, m, B, T, B, e);
}

static int acts_make(Acts *a, const Model *m, size_t B, size_t T, size_t Bm, bool forward_only,
                     Err *e);

int acts_create_forward(Acts *a, const Model *m, size_t B, size_t T, Err *e) {
    return acts_make(a, m, B, T, B, true, e);
}

int acts_create_micro(Acts *a, const Model *m, size_t B, size_t T, size_t Bm, Err *e) {
    return acts_make(a, m, B, T, Bm, false, e);
}

static int acts_make(Acts *a, const Model *m, size_t B, size_t T, size_t Bm, bool forward_only,
                     Err *e) {
    memset(a, 0, sizeof *a);
    a->forward_only = forward_only;
    if (B == 0 || T == 0 || B > MAX_DIM || T > MAX_DIM)
        return err_set(e, ERR_INPUT, "batch %zu x length %zu: both must be between 1 and %d",
                       B, T, MAX_DIM);
    if (Bm == 0 || Bm > B)
        return err_set(e, ERR_INPUT, "a micro-batch of %zu sentences: it must be between 1 "
                       "and the batch's %zu", Bm, B);
    Carver count = {0};
    size_t n = acts_walk(a, &count, m, B, T, Bm);
    /* calloc: padded slots are read (never used) before anything writes them */
    float *mem = xcalloc(n, sizeof *mem, "the activations", e);
    if (!mem)
        return ERR_RUNTIME;
    Carver cv = {.base = mem};
    acts_walk(a, &cv, m, B, T, Bm);
    a->mem = mem;
    a->pos = xcalloc(B * T, sizeof *a->pos, "the positions", e);
    if (m->pe.scheme->ruoss_draw != PE_DRAW_INPUT)
        a->layer_draw = xcalloc(m->cfg.n_layers * T, sizeof *a->layer_draw, "the positions", e);
    if (!a->pos || (m->pe.scheme->ruoss_draw != PE_DRAW_INPUT && !a->layer_draw)) {
        acts_free(a);
        return ERR_RUNTIME;
    }
    a->B = B;
    a->T = T;
    a->Bm = Bm;
    const Config *c = &m->cfg;
    /* A formula that depends on nothing but the position: compute it once. */
    const PeScheme *s = m->pe.scheme;
    if (s->value && !s->length_dependent)
        pe_fill(a->pe, &m->pe, &c->pe, NULL, T, T);
    return 0;
}

void acts_free(Acts *a) {
    free(a->mem);
    free(a->pos);
    free(a->layer_draw);
    memset(a, 0, sizeof *a);
}

/* The gradients of the activations: one set of buffers for all layers. */
static size_t gradacts_walk(GradActs *g, Carver *cv, const Model *m, size_t B, size_t T,
                            size_t Bm) {
    const Config *c = &m->cfg;
    size_t BT = Bm * T, C = c->d_model, F = c->d_ff;
    size_t K = c->n_classes ? c->n_classes : 1;
    carve(cv, &g->dy, BT * C);
    carve(cv, &g->du, BT * C);
    carve(cv, &g->ds, BT * C);
    if (c->dropout > 0.0f)
        carve(cv, &g->dres, BT * C);
    carve(cv, &g->dqkv, BT * 3 * C);
    carve(cv, &g->dffa, BT * F);
    /* a scheme with logits_backward keeps the scores' own gradient beside
     * (attention_scratch) */
    carve(cv, &g->dscores, g->n_scratch * T * T * (m->pe.scheme->logits_backward ? 2 : 1));
    carve(cv, &g->dpooled, Bm * C);
    carve(cv, &g->dlogits, (c->per_token ? B * T : B) * K);
    return cv->off;
}

int gradacts_create(GradActs *g, const Model *m, size_t B, size_t T, Err *e) {
    return gradacts_create_micro(g, m, B, T, B, e);
}

int gradacts_create_micro(GradActs *g, const Model *m, size_t B, size_t T, size_t Bm, Err *e) {
    memset(g, 0, sizeof *g);
    if (Bm == 0 || Bm > B)
        return err_set(e, ERR_INPUT, "a micro-batch of %zu sentences: it must be between 1 "
                       "and the batch's %zu", Bm, B);
    g->n_scratch = (size_t)par_max_threads();
    Carver count = {0};
    size_t n = gradacts_walk(g, &count, m, B, T, Bm);
    g->mem = xcalloc(n, sizeof *g->mem, "the gradients of the activations", e);
    if (!g->mem)
        return ERR_RUNTIME;
    Carver cv = {.base = g->mem};
    gradacts_walk(g, &cv, m, B, T, Bm);
    g->B = B;
    g->T = T;
    g->Bm = Bm;
    return 0;
}

size_t config_act_floats(const Config *c, size_t B, size_t T, bool train) {
    Model m;
    memset(&m, 0, sizeof m);
    m.cfg = *c;
    if (config_check(c, NULL) || pe_plan(&m.pe, &c->pe, c->d_model, c->n_heads, c->max_len, NULL))
        return 0;
    Acts a = {0};
    GradActs g = {.n_scratch = (size_t)par_max_threads()};
    Carver count = {0}, gcount = {0};
    size_t n = acts_walk(&a, &count, &m, B, T, B);
    return train ? n + gradacts_walk(&g, &gcount, &m, B, T, B) : n;
}

void gradacts_free(GradActs *g) {
    free(g->mem);
    memset(g, 0, sizeof *g);
}

double config_memory(const Config *c, size_t B, size_t T) {
    size_t params = config_param_count(c);
    if (!params)
        return 0.0;
    return 4.0 * ((double)params + (double)config_act_floats(c, B, T, false));
}
