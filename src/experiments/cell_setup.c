/* What the runs of the cells share: the model a cell trains, its
 * training, and the result series it fills. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/session.h"
#include "cell.h"

void exp_model_shape(Config *c, const ExpSettings *set, uint64_t seed) {
    c->d_model = set->d_model, c->n_heads = set->heads, c->n_layers = set->layers;
    c->d_ff = set->d_ff, c->seed = seed;
}

/* A model config of the experiments' shape, for a scheme of the registry
 * or one of the results page's forms of one (design.h). */
static Config model_config(const ExpSettings *set, const char *scheme, uint64_t seed) {
    Config c;
    const PeScheme *s = exp_scheme_base(scheme);
    config_default(&c, 0, s ? s->name : scheme);
    exp_scheme_form(&c, scheme);
    exp_model_shape(&c, set, seed);
    return c;
}

Config exp_cell_config(const ExpSettings *set, const ExpCell *cell) {
    bool variant = cell->kind == EXP_VARIANT;
    bool no_mask = cell->kind == EXP_CAUSAL && cell->variant == 1;
    const char *scheme = cell->name;
    if (variant)
        scheme = exp_variant_scheme;
    else if (cell->kind == EXP_PROBE || no_mask)
        scheme = exp_floor_scheme;
    Config c = model_config(set, scheme, 1 + cell->seed);
    if (variant)
        exp_variant_config(&c, cell->variant);
    c.causal = (cell->kind == EXP_CAUSAL && !no_mask) ||
               (cell->kind == EXP_PROBE && cell->variant == 0);
    if (cell->kind == EXP_PROBE)
        c.n_layers = set->probe_layers;
    return c;
}

void exp_train_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell, bool lengths) {
    *mt = (TrainMeta){.batch = set->batch, .seed = 1 + cell->seed,
                      .steps = cell->kind == EXP_TASKS ? set->task_steps : set->length_steps,
                      .random_positions = cell->kind == EXP_RANDOM ? set->random_range : 0};
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

int exp_train_all(Session *s, Err *e) {
    StepStats st;
    int rc = 0;
    while (!rc && s->trainer.step < s->meta.steps)
        rc = session_step(s, &st, e);
    return rc;
}

int exp_train_new(Session *s, const TrainMeta *mt, const Config *c, const OptConfig *o,
                  Err *e) {
    OptConfig opt;
    opt_default(&opt);
    int rc = session_create(s, mt, c, o ? o : &opt, e);
    if (!rc && (rc = exp_train_all(s, e)))
        session_free(s);
    return rc;
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
