/* Section 6's runs, which the length runs of rope hold (section 3's
 * lengths-TASK-rope-sK trains that model; exp_cell_holds_scaling): a
 * rope model trained on lengths up to L, then tested
 * to 4L under each of rope's scalings as it is (Hugging Face's
 * inference-time scaling) and after a short fine-tuning at 2L under that
 * scaling (Chen et al. 2023 fine-tune; so does YaRN). */
#include <stdio.h>

#include "../run/session.h"
#include "../run/trial.h"
#include "cell.h"
#include "../pe/pe_rope.h"

/* The scalings of exp_scaling_names, in its order. */
static const struct {
    RopeScaling scaling;
    double factor;
} SCALINGS[EXP_SCALINGS] = {
    {ROPE_SCALING_NONE, 0.0},   {ROPE_SCALING_LINEAR, 2.0}, {ROPE_SCALING_LINEAR, 4.0},
    {ROPE_SCALING_NTK, 2.0},    {ROPE_SCALING_NTK, 4.0},    {ROPE_SCALING_YARN, 2.0},
    {ROPE_SCALING_YARN, 4.0},
};

/* pc under scaling v; yarn's ramp counts turns over L, the length the
 * model first learned, also when it is fine-tuned at 2L (as YaRN's
 * original_max_position_embeddings stays the pretrained length). */
static PeConfig scaled(const PeConfig *pc, size_t v, size_t L) {
    PeConfig r = *pc;
    rope_set_scaling(&r, SCALINGS[v].scaling, SCALINGS[v].factor, L);
    return r;
}

/* Tests m on test into a new series of res. */
static int test_into(ExpCellResult *res, const char *name, const Model *m, const Dataset *test,
                     Err *e) {
    double value, exact, *per_len, *exact_len;
    int rc = trial_test(m, test, 0, false, RANDOM_DRAW_POSITIONS, 0, &value, &exact, &per_len, &exact_len, e);
    if (!rc)
        exp_series_add(res, name, value, exact, per_len, test->max_len + 1, exact_len,
                       test->max_len + 1);
    return rc;
}

int exp_run_scaling(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    Config c = exp_cell_config(set, cell);
    TrainMeta mt;
    exp_train_meta(&mt, set, cell, true);
    Session s;
    int rc = exp_train_new(&s, &mt, &c, NULL, e);
    if (rc)
        return rc;
    OptConfig opt;
    opt_default(&opt);
    const Config trained = s.model.cfg;
    /* as trained (the cell's main result), then each scaling at inference:
     * no weight changes */
    for (size_t v = 0; !rc && v < EXP_SCALINGS; v++) {
        s.model.cfg.pe = scaled(&trained.pe, v, set->L);
        rc = test_into(res, v ? exp_scaling_names[v] : "main", &s.model, &s.test, e);
    }
    s.model.cfg = trained;
    /* each scaling fine-tuned at lengths up to 2L from the trained model,
     * with a new optimizer (warm-up included); none too, the control: what
     * the fine-tuning alone gives */
    for (size_t v = 0; !rc && v < EXP_SCALINGS; v++) {
        TrainMeta ft = mt;
        ft.task_opt.max_train_len = 2 * set->L;
        ft.steps = ft.eval_every = set->tune_steps;
        Config fc = trained;
        fc.pe = scaled(&trained.pe, v, set->L);
        Session f;
        if ((rc = session_create_from(&f, &ft, &s.model, &s.vocab, &s.labels, &fc, &opt, e)))
            break;
        char name[EXP_SERIES_NAME];
        snprintf(name, sizeof name, "%s-tuned", exp_scaling_names[v]);
        if (!(rc = exp_train_all(&f, e)))
            rc = test_into(res, name, &f.model, &f.test, e);
        session_free(&f);
    }
    session_free(&s);
    return rc;
}
