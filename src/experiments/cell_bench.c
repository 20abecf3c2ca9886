/* A cell of the benchmark (experiments --bench, docs/benchmark.md): one
 * scheme trained on one of Delétang et al.'s tasks with Ruoss et al.'s
 * protocol, then tested length by length.
 *
 * Training: inputs of 1..N words, each batch of one length drawn
 * uniformly (--batches by-length), with the randomized forms' positions
 * drawn once per batch from 0..range-1. Test: for each input length
 * 1..M, bench_per_len fresh tapes of that length in batches of
 * bench_test_batch, the randomized forms at positions drawn once per
 * batch as in training (the reference scores 512 per length in batches of
 * 64, its noise drawn per batch). The cell's value is the per-token accuracy on the blanks
 * averaged over the test lengths N+1..M, its exact the share of tapes
 * with every blank right, averaged the same way. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/session.h"
#include "cell.h"

/* Test tapes of one input length n, scored; the data's seed is the cell's
 * and the length's, apart from the training data's. */
static int test_length(Session *s, const char *task, size_t n, size_t count, size_t batch,
                       uint64_t seed, size_t range, double *acc, double *exact, Err *e) {
    TaskOptions o = {.min_len = n, .max_len = n, .n_train = 1, .n_valid = 1, .n_test = count,
                     .seed = seed * 1000003u + n}, r;
    TextData txt[3];
    memset(txt, 0, sizeof txt);
    Dataset d;
    memset(&d, 0, sizeof d);
    int rc = task_options_resolve(&r, &o, task, e);
    if (!rc)
        rc = task_make(&txt[0], &txt[1], &txt[2], task, &r, e);
    size_t unknown = 0;
    if (!rc)
        rc = data_encode(&d, &txt[2], &s->vocab, &s->labels, false, &unknown, e);
    EvalStats total;
    if (!rc)
        rc = evaluate_dataset_at(&s->model, &d, batch, range, 1, true, s->meta.random_draw,
                                 seed ^ (uint64_t)n, NULL,
                                 &total, e);
    if (!rc) {
        *acc = eval_accuracy_all(&total);
        *exact = total.examples ? (double)total.exact / (double)total.examples : NAN;
    }
    dataset_free(&d);
    for (int i = 0; i < 3; i++)
        textdata_free(&txt[i]);
    return rc;
}

int exp_run_bench(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    bool randomized;
    const char *scheme = exp_bench_scheme(cell->name, &randomized);
    Config c = exp_model_config(set, scheme, 1 + cell->seed);
    size_t N = set->bench_N, M = set->bench_M, range = randomized ? set->random_range : 0;
    TrainMeta mt = {.batch = set->batch, .seed = 1 + cell->seed, .steps = set->bench_steps,
                    .eval_every = set->bench_steps, .random_positions = range,
                    .batches = BATCHES_BY_LENGTH};
    /* the seed draws the data too, as on the results page; the valid and
     * test splits are not used (the test is test_length's) */
    mt.task_opt = (TaskOptions){.min_len = 1, .max_len = N, .n_train = set->bench_n_train,
                                .n_valid = 1, .n_test = 1, .seed = 1 + cell->seed};
    snprintf(mt.task, sizeof mt.task, "%s", cell->task);
    /* a table of positions (learned's: a scheme whose positions end
     * where its table does) gets a row for every position a test tape
     * reaches, those past the training tapes left as initialized, as the
     * reference's table has rows up to its longest test */
    PePlan plan;
    if (!randomized && pe_plan(&plan, &c.pe, c.d_model, c.n_heads, N, e) == 0 &&
        plan.max_positions != SIZE_MAX) {
        TaskOptions o = {.min_len = 1, .max_len = M}, r;
        int rc = task_options_resolve(&r, &o, cell->task, e);
        if (rc)
            return rc;
        mt.table_len = task_longest(task_find(cell->task), &r);
    }
    Session s;
    int rc = exp_train_new(&s, &mt, &c, e);
    if (rc)
        return rc;
    double *acc = calloc(M + 1, sizeof *acc), *exact = calloc(M + 1, sizeof *exact);
    if (!rc && (!acc || !exact))
        rc = err_set(e, ERR_RUNTIME, "out of memory");
    double sum = 0.0, sum_exact = 0.0;
    if (!rc)
        acc[0] = exact[0] = NAN; /* no input of no words */
    for (size_t n = 1; n <= M && !rc; n++) {
        rc = test_length(&s, cell->task, n, set->bench_per_len, set->bench_test_batch,
                         1 + cell->seed, range, &acc[n], &exact[n], e);
        if (!rc && n > N)
            sum += acc[n], sum_exact += exact[n];
    }
    session_free(&s);
    if (rc) {
        free(acc), free(exact);
        return rc;
    }
    exp_series_add(res, "main", sum / (double)(M - N), sum_exact / (double)(M - N), acc, M + 1,
                   exact, M + 1);
    return 0;
}
