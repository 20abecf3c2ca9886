/* Running one cell of the grid: what it found, as named result series,
 * and the setup its runs share (cell_setup.c). cell_run.c runs a cell of
 * any kind; the kinds that are more than one training and its test have
 * their own files (cell_scaling.c, cell_probe.c). */
#ifndef POSENC_CELL_H
#define POSENC_CELL_H

#include <stdint.h>

#include "../run/session.h"
#include "../run/train_options.h"
#include "grid.h"

/* What a cell found, as named result series: "main", the cell's own;
 * "at", EXP_RANDOM's tested at random positions too; each of rope's
 * scalings but the first (EXP_SCALING: "linear-x2", ..., "none-tuned",
 * ...). A new kind or series is a new name, not a new format. */
#define EXP_MAX_SERIES 16
#define EXP_SERIES_NAME 24
typedef struct {
    char name[EXP_SERIES_NAME];
    double value;      /* over every test sentence: accuracy, the order gap, the last R^2 */
    double exact;      /* the share of sentences with every label right; NaN where it
                        * means nothing (order, probe) */
    double *per_len;   /* n_per_len values: per test length (NaN: not tested, or past a
                        * learned table), or the probe's R^2 per layer */
    double *exact_len; /* n_exact_len values: the exact-match rate per test length */
} ExpSeries;

typedef struct {
    size_t n_per_len, n_exact_len; /* of every series */
    size_t n_series;
    ExpSeries series[EXP_MAX_SERIES];
} ExpCellResult;

/* Runs one cell into res (free it with exp_cell_result_free). */
int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
/* When set, called as a benchmark cell's training ends and its tests
 * begin (bench/floor.c times the two apart); NULL otherwise. */
extern void (*exp_cell_on_tests)(void);
void exp_cell_result_free(ExpCellResult *res);

/* ---- what the runs of the cells share (cell_setup.c) ---- */

/* The experiments' shape (width, heads, layers, d_ff) and seed, on c. */
void exp_model_shape(Config *c, const ExpSettings *set, uint64_t seed);
/* The model config a cell trains (exp_model_config for its scheme, form
 * or variant, the causal mask), without the task's sizes. */
Config exp_cell_config(const ExpSettings *set, const ExpCell *cell);
/* The training of a cell: its steps, batch, seed, task and (lengths: the
 * length runs' lengths, L in training and 4L in test) lengths. */
void exp_train_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell, bool lengths);
/* Trains s to its last step. */
int exp_train_all(Session *s, Err *e);
/* A session of mt and c with the optimizer o (NULL: the default), trained
 * to its last step; nothing to free when it fails. */
int exp_train_new(Session *s, const TrainMeta *mt, const Config *c, const OptConfig *o,
                  Err *e);
/* Adds a series to res, which owns per_len and exact_len from then on
 * (the counts are every series' of a cell). */
void exp_series_add(ExpCellResult *res, const char *name, double value, double exact,
                    double *per_len, size_t n_per_len, double *exact_len, size_t n_exact_len);

/* The length run of rope with section 6's scalings (cell_scaling.c), and
 * EXP_PROBE's cell (cell_probe.c). */
int exp_run_scaling(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
int exp_run_probe(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
/* EXP_BENCH's cell (cell_bench.c): main, the accuracy per input length
 * 1..M (entry 0 NaN), its value the mean over N+1..M. */
int exp_run_bench(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
/* What a benchmark cell trains and how it is tested, resolved once from
 * the cell (its task, column, seed and rate) and the grid's protocol,
 * then handed down whole: the training and the tests read nothing else. */
typedef struct {
    const Task *task;
    /* the model of its column: the scheme with the options its column
     * sets, dropout, the embeddings scaled, the reference's forms when
     * the grid has them; seeded with the cell's seed */
    Config model;
    /* its training: fresh sentences of 1..N, the column's random draws,
     * a learned table's rows up to the longest test tape */
    TrainMeta meta;
    OptConfig opt;          /* the reference's Adam at the cell's rate */
    size_t N, M;            /* tested at each input length 1..M, scored on N+1..M */
    size_t range;           /* test positions drawn from 0..range-1 (0: the plain ones) */
    size_t per_len, test_batch;
    uint64_t data_seed;     /* the test tapes' (exp_bench_test_tapes) */
    size_t longest;         /* tokens of the longest test tape: the test buffers' size */
} ExpBenchRun;
int exp_bench_resolve(ExpBenchRun *r, const ExpSettings *set, const ExpCell *cell, Err *e);

#endif
