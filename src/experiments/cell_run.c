/* The grid of docs/results.md as cells: one training (or, for section 1,
 * one untrained model) per (section, task, scheme, seed), each with its own
 * small result file, so that a run can stop anywhere, go on later, run
 * several cells at once, or hand them to other machines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fileio.h"
#include "../core/rng.h"
#include "../model/encoder.h"
#include "../text/order.h"
#include "page/sections.h"
#include "../run/trial.h"

const char *const exp_kind_names[EXP_KINDS] = {"order",   "tasks",       "lengths",
                                               "random",  "variants",    "random-test",
                                               "scaling", "causal",      "probe"};
static const char *const tasks2[2] = {"agent", "direction"};
static const char *const random_schemes[3] = {"sinusoidal", "learned", "rope"};

/* "interleaved, add, scaled" -> "interleaved-add-scaled" */
static void slug(char *dst, size_t cap, const char *name) {
    size_t j = 0;
    for (size_t i = 0; name[i] && j + 1 < cap; i++) {
        if (name[i] == ',')
            continue;
        dst[j++] = name[i] == ' ' ? '-' : name[i];
    }
    dst[j] = '\0';
}

static void add(ExpCell *cells, size_t *n, ExpKind kind, const char *task, const char *name,
                size_t seed, size_t variant, double cost) {
    ExpCell *c = &cells[(*n)++];
    memset(c, 0, sizeof *c);
    c->kind = kind, c->seed = seed, c->variant = variant, c->cost = cost;
    snprintf(c->task, sizeof c->task, "%s", task);
    snprintf(c->name, sizeof c->name, "%s", name);
    char s[sizeof c->name];
    slug(s, sizeof s, name);
    if (kind == EXP_ORDER)
        snprintf(c->id, sizeof c->id, "%s-%s-s%zu", exp_kind_names[kind], s, seed + 1);
    else
        snprintf(c->id, sizeof c->id, "%s-%s-%s-s%zu", exp_kind_names[kind], task, s, seed + 1);
}

int exp_cells(const ExpSettings *set, ExpCell **out, size_t *n_out, Err *e) {
    size_t S = exp_scheme_count(), k = set->seeds;
    size_t total = S * k + 2 * S * k + EXP_LENGTH_TASKS * (S + 3) * k +
                   EXP_VARIANTS * set->variant_seeds + EXP_LENGTH_TASKS * k +
                   EXP_CAUSAL_TASKS * (EXP_CAUSAL_SCHEMES + 1) * k + EXP_PROBES * k;
    ExpCell *c = xcalloc(total, sizeof *c, "the experiments' cells", e);
    if (!c)
        return ERR_RUNTIME;
    size_t n = 0;
    /* the cost of a cell, for the time left: its training steps (the
     * length runs also evaluate four times the lengths) */
    double order = 1.0, task = (double)set->task_steps, len = 1.3 * (double)set->length_steps;
    for (size_t s = 0; s < S; s++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_ORDER, "order", exp_scheme_at(s), i, 0, order);
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < S; s++)
            for (size_t i = 0; i < k; i++)
                add(c, &n, EXP_TASKS, tasks2[t], exp_scheme_at(s), i, 0, task);
    for (int rnd = 0; rnd < 2; rnd++)
        for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
            for (size_t s = 0; s < (rnd ? 3 : S); s++)
                for (size_t i = 0; i < k; i++)
                    add(c, &n, rnd ? EXP_RANDOM : EXP_LENGTHS, exp_length_tasks[t],
                        rnd ? random_schemes[s] : exp_scheme_at(s), i, 0, len);
    for (size_t v = 0; v < EXP_VARIANTS; v++)
        for (size_t i = 0; i < set->variant_seeds; i++)
            add(c, &n, EXP_VARIANT, "reverse", exp_variant_names[v], i, v, len);
    /* one training at L, then 7 evaluations and 7 fine-tunings */
    double scaling = len + (double)EXP_SCALINGS * 1.3 * (double)set->tune_steps;
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_SCALING, exp_length_tasks[t], "rope", i, 0, scaling);
    /* and none without the mask, variant 1: what the mask alone gives */
    for (size_t t = 0; t < EXP_CAUSAL_TASKS; t++)
        for (size_t s = 0; s <= EXP_CAUSAL_SCHEMES; s++)
            for (size_t i = 0; i < k; i++)
                add(c, &n, EXP_CAUSAL, exp_causal_tasks[t],
                    s < EXP_CAUSAL_SCHEMES ? exp_causal_schemes[s] : EXP_NO_MASK, i,
                    s == EXP_CAUSAL_SCHEMES, len);
    for (size_t p = 0; p < EXP_PROBES; p++)
        for (size_t i = 0; i < k; i++)
            add(c, &n, EXP_PROBE, "previous", exp_probe_names[p], i, p,
                (double)set->length_steps * (double)set->probe_layers / (double)set->layers);
    *out = c;
    *n_out = n;
    return 0;
}

const ExpCell *exp_cell_find(const ExpCell *cells, size_t n, const char *id) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(cells[i].id, id) == 0)
            return &cells[i];
    return NULL;
}

void exp_settings_key(char *buf, size_t cap, const ExpSettings *s) {
    snprintf(buf, cap, "quick=%d d_model=%zu heads=%zu layers=%zu d_ff=%zu batch=%zu "
             "task_steps=%zu length_steps=%zu min_len=%zu L=%zu n_test=%zu n_test_lengths=%zu "
             "tune_steps=%zu probe_layers=%zu",
             s->quick, s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->task_steps,
             s->length_steps, s->min_len, s->L, s->n_test, s->n_test_lengths, s->tune_steps,
             s->probe_layers);
}

Config exp_model_config(const ExpSettings *set, const char *scheme, uint64_t seed) {
    Config c;
    const PeScheme *s = exp_scheme_base(scheme);
    config_default(&c, 0, s ? s->name : scheme);
    exp_scheme_form(&c, scheme);
    c.d_model = set->d_model, c.n_heads = set->heads, c.n_layers = set->layers;
    c.d_ff = set->d_ff, c.seed = seed;
    return c;
}

/* Section 1: the largest |difference| of aligned output rows of an
 * untrained model, over sentences of 8 distinct words and random
 * reorderings of them; the reorderings are the seed's, the same for every
 * scheme. A model that pools by [CLS] reads it first in both (word
 * N + 2, the same place). */
static int order_gap(const Config *c, uint64_t seed, double *gap, Err *e) {
    enum { N = 8, PAIRS = 4 };
    Model m;
    Acts a;
    Config cc = *c;
    size_t f = c->pool == POOL_CLS ? 1 : 0, T = N + f; /* f: the [CLS] before the words */
    cc.vocab_size = N + 2 + f;
    cc.max_len = T;
    int rc = model_create(&m, &cc, e);
    if (rc)
        return rc;
    if ((rc = acts_create(&a, &m, 2, T, e))) {
        model_free(&m);
        return rc;
    }
    Rng r;
    rng_seed(&r, seed);
    double worst = 0.0;
    for (int k = 0; k < PAIRS && !rc; k++) {
        int ids[2 * (N + 1)];
        size_t perm[N + 1], lens[2] = {T, T};
        for (size_t i = 0; i < N; i++)
            perm[i] = i;
        rng_shuffle(&r, perm, N);
        if (f) { /* [CLS] at 0, lined up with itself */
            memmove(perm + 1, perm, N * sizeof *perm);
            perm[0] = 0;
            for (size_t i = 1; i <= N; i++)
                perm[i]++;
            ids[0] = ids[T] = N + 2;
        }
        for (size_t i = f; i < T; i++)
            ids[i] = 2 + (int)(i - f), ids[T + i] = 2 + (int)perm[i] - (int)f;
        rc = encoder_forward(&m, &a, ids, lens, 2, T, e);
        size_t C = m.cfg.d_model;
        if (!rc)
            worst = fmax(worst, max_aligned_diff(a.hidden, a.hidden + T * C, perm, T, C));
    }
    acts_free(&a);
    model_free(&m);
    *gap = worst;
    return rc;
}

/* Sections 2 to 5 and 7: one training and its test (per length for the
 * length runs, and at random positions too for EXP_RANDOM). */
static int run_trial(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    Config c = exp_cell_config(set, cell);
    bool lengths = cell->kind == EXP_LENGTHS || cell->kind == EXP_RANDOM ||
                   cell->kind == EXP_CAUSAL;
    TrainMeta mt;
    exp_train_meta(&mt, set, cell, lengths);
    OptConfig opt;
    opt_default(&opt);
    Trial t;
    int rc = trial_run(&t, &mt, &c, &opt, e);
    if (rc)
        return rc;
    size_t n = lengths ? t.max_len + 1 : 0;
    exp_series_add(res, "main", t.accuracy, t.exact, lengths ? t.per_len : NULL, n,
                   lengths ? t.exact_len : NULL, n);
    if (lengths)
        t.per_len = t.exact_len = NULL;
    if (t.per_len_at) {
        exp_series_add(res, "at", t.accuracy_at, t.exact_at, t.per_len_at, n, t.exact_len_at, n);
        t.per_len_at = t.exact_len_at = NULL;
    }
    trial_free(&t);
    return 0;
}

void exp_train_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell, bool lengths) {
    *mt = (TrainMeta){.batch = set->batch, .seed = 1 + cell->seed,
                      .steps = cell->kind == EXP_TASKS ? set->task_steps : set->length_steps,
                      .random_positions = cell->kind == EXP_RANDOM ? 4 * set->L : 0};
    mt->eval_every = mt->steps;
    /* the seed draws the data too: the spread over seeds is then that of
     * a new experiment, not of one data set's initialisations */
    mt->task_opt = (TaskOptions){.seed = 1 + cell->seed,
                                 .n_test = lengths ? set->n_test_lengths : set->n_test};
    if (lengths)
        mt->task_opt.min_len = set->min_len, mt->task_opt.max_train_len = set->L,
        mt->task_opt.max_len = 4 * set->L;
    snprintf(mt->task, sizeof mt->task, "%s", cell->task);
}

void exp_series_add(ExpCellResult *res, const char *name, double value, double exact,
                    double *per_len, size_t n_per_len, double *exact_len, size_t n_exact_len) {
    ExpSeries *x = &res->series[res->n_series++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->value = value, x->exact = exact;
    x->per_len = per_len, x->exact_len = exact_len;
    res->n_per_len = n_per_len, res->n_exact_len = n_exact_len;
}

void exp_cell_result_free(ExpCellResult *res) {
    for (size_t i = 0; i < res->n_series; i++) {
        free(res->series[i].per_len);
        free(res->series[i].exact_len);
    }
    memset(res, 0, sizeof *res);
}

Config exp_cell_config(const ExpSettings *set, const ExpCell *cell) {
    bool variant = cell->kind == EXP_VARIANT;
    bool no_mask = cell->kind == EXP_CAUSAL && cell->variant == 1;
    const char *scheme = cell->name;
    if (variant)
        scheme = "sinusoidal";
    else if (cell->kind == EXP_SCALING)
        scheme = "rope";
    else if (cell->kind == EXP_PROBE || no_mask)
        scheme = "none";
    Config c = exp_model_config(set, scheme, 1 + cell->seed);
    if (variant)
        exp_variant_config(&c, cell->variant);
    c.causal = (cell->kind == EXP_CAUSAL && !no_mask) ||
               (cell->kind == EXP_PROBE && cell->variant == 0);
    if (cell->kind == EXP_PROBE)
        c.n_layers = set->probe_layers;
    return c;
}

int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    memset(res, 0, sizeof *res);
    int rc;
    if (cell->kind == EXP_SCALING)
        rc = exp_run_scaling(set, cell, res, e);
    else if (cell->kind == EXP_PROBE)
        rc = exp_run_probe(set, cell, res, e);
    else if (cell->kind == EXP_ORDER) {
        Config c = exp_cell_config(set, cell);
        double gap;
        /* a gap is no accuracy: exact means nothing */
        if (!(rc = order_gap(&c, 1 + cell->seed, &gap, e)))
            exp_series_add(res, "main", gap, NAN, NULL, 0, NULL, 0);
    } else
        rc = run_trial(set, cell, res, e);
    if (rc)
        exp_cell_result_free(res);
    return rc;
}
