/* A cell of the benchmark (experiments --bench, docs/benchmark.md): one
 * scheme trained on one of Delétang et al.'s tasks with Ruoss et al.'s
 * protocol, then tested length by length.
 *
 * Training, as the reference code trains (google-deepmind/randomized_
 * positional_encodings, experiments/training.py and example.py): inputs
 * of 1..N words, each batch of one length drawn uniformly (--batches
 * by-length), new sentences every step (--train-draw fresh), the
 * randomized forms drawn from 0..range-1 as its code draws them
 * (--random-draw ruoss: positions once a batch for the sinusoid and the
 * learned table, afresh in every layer for rope, a distance per offset in
 * every layer for alibi and relative), Adam without decay or warm-up, the
 * gradient clipped at 1, dropout, the embeddings drawn at 0.02 and scaled
 * by sqrt(d_model), and each column's own options (alibi's encoder form).
 * docs/benchmark.md lists what still differs. Test: for each input length
 * 1..M, bench_per_len fresh tapes of that length in batches of
 * bench_test_batch, the randomized forms at positions drawn once per
 * batch as in training (the reference scores 512 per length in batches of
 * 64, its noise drawn per batch). The cell's value is the per-token accuracy on the blanks
 * averaged over the test lengths N+1..M, its exact the share of tapes
 * with every blank right, averaged the same way. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/session.h"
#include "cell.h"
#include "protocol.h"

void (*exp_cell_on_tests)(void);

/* Options as the command line writes them, "--name value --name value",
 * set on the scheme's config; what names them (a scheme's bench_options,
 * a column's) is in the message. */
static int set_options(PeConfig *pe, const char *text, const char *whose, Err *e) {
    char opts[128];
    snprintf(opts, sizeof opts, "%s", text ? text : "");
    for (char *save = NULL, *name = strtok_r(opts, " ", &save); name;
         name = strtok_r(NULL, " ", &save)) {
        char *value = strtok_r(NULL, " ", &save);
        if (!value || pe_set_named(pe, name, value, e))
            return err_set(e, ERR_INPUT, "%s's options '%s' do not read as --name value pairs",
                           whose, text);
    }
    return 0;
}

/* The model of a column as the reference builds it: the scheme with the
 * options its column sets (alibi's encoder form, a learned table drawn at
 * 1; xl's rows as its code reads them in the column as run), dropout, and
 * the token embeddings scaled by sqrt(d_model). A column's scheme is the
 * registry's, never one of the results page's forms of it (design.h). */
static int bench_model(Config *c, const ExpSettings *set, const char *column,
                       const ExpBenchColumn *col, uint64_t seed, Err *e) {
    config_default(c, 0, col->scheme);
    exp_model_shape(c, set, seed);
    c->dropout = (float)set->bench_dropout;
    c->scale_embed = true;
    if (set->bench_reference) { /* its Linear layers' draws, no output bias (transformer.py) */
        c->first_draws = DRAWS_REFERENCE;
        c->no_out_bias = true;
    }
    const PeScheme *s = pe_find(col->scheme);
    if (set_options(&c->pe, s ? s->bench_options : NULL, col->scheme, e) ||
        set_options(&c->pe, col->options, column, e))
        return ERR_INPUT;
    return 0;
}

/* The reference's optimizer: optax.adam (b2 0.999, eps 1e-8) at the rate,
 * no weight decay, no warm-up, the gradient's norm clipped at 1. */
static OptConfig bench_optimizer(double lr) {
    OptConfig o;
    opt_default(&o);
    o.lr = (float)lr;
    o.beta1 = 0.9f, o.beta2 = 0.999f, o.eps = 1e-8f;
    o.weight_decay = 0.0f, o.warmup = 0, o.clip = 1.0f;
    return o;
}

/* The training of a cell as the reference trains: fresh sentences every
 * step, and the randomized forms drawn as the reference draws them (pe.h,
 * PeDraw); the token embeddings drawn at 0.02 (its TruncatedNormal). */
static void bench_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell,
                       const Task *task, size_t range) {
    *mt = (TrainMeta){.batch = set->batch, .seed = 1 + cell->seed, .steps = set->bench_steps,
                      .eval_every = set->bench_steps, .random_positions = range,
                      .batches = BATCHES_BY_LENGTH, .train_draw = TRAIN_DRAW_FRESH,
                      .random_draw = range ? RANDOM_DRAW_RUOSS : RANDOM_DRAW_POSITIONS,
                      .embed_std = 0.02f};
    /* the seed draws the data too, as on the results page; the valid and
     * test splits are not used (the test is test_length's) */
    mt->task_opt = (TaskOptions){.min_len = 1, .max_len = set->bench_N,
                                 .n_train = set->bench_n_train, .n_valid = 1, .n_test = 1,
                                 .seed = 1 + cell->seed,
                                 .pad_loss = set->bench_reference != 0 && task->pad_loss};
    snprintf(mt->task, sizeof mt->task, "%s", cell->task);
}

/* The tokens of task's longest tape of input length n. */
static int longest_tape(size_t *tokens, const Task *task, size_t n, Err *e) {
    TaskOptions o = {.min_len = n, .max_len = n}, r;
    int rc = task_options_resolve(&r, &o, task->name, e);
    if (!rc)
        *tokens = task_longest(task, &r);
    return rc;
}

int exp_bench_resolve(ExpBenchRun *r, const ExpSettings *set, const ExpCell *cell, Err *e) {
    memset(r, 0, sizeof *r);
    ExpBenchColumn col = exp_bench_column_of(cell->name);
    r->task = task_find(cell->task);
    if (!r->task)
        return err_set(e, ERR_INPUT, "%s: no task '%s'", cell->id, cell->task);
    r->N = set->bench_N, r->M = set->bench_M;
    r->range = col.randomized ? set->random_range : 0;
    r->per_len = set->bench_per_len, r->test_batch = set->bench_test_batch;
    r->data_seed = 1 + cell->seed;
    r->opt = bench_optimizer(set->bench_lr[cell->variant]);
    bench_meta(&r->meta, set, cell, r->task, r->range);
    int rc = bench_model(&r->model, set, cell->name, &col, 1 + cell->seed, e);
    if (!rc)
        rc = longest_tape(&r->longest, r->task, r->M, e);
    /* a table of positions (learned's: a scheme whose positions end
     * where its table does) gets a row for every position a test tape
     * reaches, those past the training tapes left as initialized, as the
     * reference's table has rows up to its longest test (a plan that
     * fails here fails again, with its message, as the session makes the
     * model) */
    PePlan plan;
    Err unplanned;
    if (!rc && !col.randomized &&
        pe_plan(&plan, &r->model.pe, r->model.d_model, r->model.n_heads, r->N, &unplanned) ==
            0 &&
        plan.max_positions != SIZE_MAX)
        r->meta.table_len = r->longest;
    return rc;
}

/* Test tapes of one input length n, scored; the data's seed is the cell's
 * and the length's, apart from the training data's. */
static int test_length(const ExpBenchRun *run, Session *s, Acts *room, size_t n, double *acc,
                       double *exact, Err *e) {
    TaskOptions o = exp_bench_test_tapes(n, run->per_len, run->data_seed), r;
    TextData txt[3];
    memset(txt, 0, sizeof txt);
    Dataset d;
    memset(&d, 0, sizeof d);
    const char *task = run->task->name;
    int rc = task_options_resolve(&r, &o, task, e);
    if (!rc)
        rc = task_make(&txt[0], &txt[1], &txt[2], task, &r, e);
    size_t unknown = 0;
    if (!rc)
        rc = data_encode(&d, &txt[2], &s->vocab, &s->labels, false, &unknown, e);
    EvalStats total;
    if (!rc)
        rc = evaluate_dataset_in(room, &s->model, &d, run->test_batch, run->range, 1, true,
                                 s->meta.random_draw, run->data_seed ^ (uint64_t)n, NULL, &total,
                                 e);
    if (!rc) {
        *acc = eval_accuracy_all(&total);
        *exact = total.examples ? (double)total.exact / (double)total.examples : NAN;
    }
    dataset_free(&d);
    for (int i = 0; i < 3; i++)
        textdata_free(&txt[i]);
    return rc;
}

/* The trained model s at every input length 1..M into acc and exact (M +
 * 1 each, entry 0 NaN: no input of no words). */
static int test_lengths(const ExpBenchRun *run, Session *s, double *acc, double *exact,
                        Err *e) {
    acc[0] = exact[0] = NAN;
    if (exp_cell_on_tests)
        exp_cell_on_tests();
    /* one set of the forward pass's buffers for every test length, made
     * for the longest tape: made (and its pages first touched) once */
    Acts room = {0};
    int rc = eval_room_fit(&room, &s->model, run->test_batch, run->longest, e);
    for (size_t n = 1; n <= run->M && !rc; n++)
        rc = test_length(run, s, &room, n, &acc[n], &exact[n], e);
    acts_free(&room);
    return rc;
}

int exp_run_bench(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    ExpBenchRun run;
    int rc = exp_bench_resolve(&run, set, cell, e);
    if (rc)
        return rc;
    Session s;
    if ((rc = exp_train_new(&s, &run.meta, &run.model, &run.opt, e)))
        return rc;
    size_t N = run.N, M = run.M;
    double *acc = calloc(M + 1, sizeof *acc), *exact = calloc(M + 1, sizeof *exact);
    rc = acc && exact ? test_lengths(&run, &s, acc, exact, e)
                      : err_set(e, ERR_RUNTIME, "out of memory");
    session_free(&s);
    if (rc) {
        free(acc), free(exact);
        return rc;
    }
    double sum = 0.0, sum_exact = 0.0;
    for (size_t n = N + 1; n <= M; n++)
        sum += acc[n], sum_exact += exact[n];
    exp_series_add(res, "main", sum / (double)(M - N), sum_exact / (double)(M - N), acc, M + 1,
                   exact, M + 1);
    return 0;
}
