/* One cell of the grid, run here: section 1's untrained model, one
 * training and its test (sections 2 to 5 and 7), or the kinds that are
 * more than that, rope's scalings and the probe (cell_scaling.c,
 * cell_probe.c). */
#include <math.h>
#include <string.h>

#include "../core/rng.h"
#include "../model/encoder.h"
#include "../run/trial.h"
#include "../text/order.h"
#include "cell.h"

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

int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    memset(res, 0, sizeof *res);
    int rc;
    if (cell->kind == EXP_SCALING || exp_cell_holds_scaling(cell))
        rc = exp_run_scaling(set, cell, res, e);
    else if (cell->kind == EXP_PROBE)
        rc = exp_run_probe(set, cell, res, e);
    else if (cell->kind == EXP_BENCH)
        rc = exp_run_bench(set, cell, res, e);
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
