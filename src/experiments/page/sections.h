/* What experiment.c and experiment_doc.c share; not part of the library's
 * interface. */
#ifndef POSENC_EXP_INTERNAL_H
#define POSENC_EXP_INTERNAL_H

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "../../run/checkpoint.h"
#include "../grid.h"

/* Mean, sample standard deviation and range over seeds; all NaN when a
 * seed's value is undefined (a learned table past its rows) or none ran. */
typedef struct {
    double mean, sd, lo, hi;
    size_t n;
    double v[EXP_MAX_SEEDS]; /* the n values, for the tests between two Stats */
} Stat;

/* The runs of (kind, task, name), by value(run, arg), or by run->value when
 * value is NULL. */
Stat exp_stat(const ExpResults *r, ExpKind kind, const char *task, const char *name,
              double (*value)(const ExpRun *, const void *), const void *arg);

/* A run's mean accuracy over test lengths lo..hi; NaN if any is undefined. */
double exp_band(const ExpRun *run, size_t lo, size_t hi);

int exp_write_csv(const ExpResults *r, const char *dir, Err *e);

/* ---- the page (experiment_doc.c, experiment_doc_long.c) ---- */

#define EXP_SOLVED 0.95 /* an accuracy this high solves a task */
#define EXP_P_REAL 0.05 /* two sets of seeds differ when the U test gives less */

/* Lengths lo..hi, for exp_band_value. */
typedef struct {
    size_t lo, hi;
} Band;

/* A run's mean accuracy over the Band at arg (exp_stat's value). */
double exp_band_value(const ExpRun *run, const void *arg);
/* The mean accuracy at each length 0..max_len over a configuration's
 * seeds (NaN where undefined), for the figures. */
void exp_mean_curve(double *y, const ExpResults *r, ExpKind kind, const char *task,
                    const char *name, size_t max_len);
/* " mean ± SD [lowest, highest] |": a table cell, "n/a" when undefined. */
void exp_cell_range(Buf *b, Stat s);
/* Two-sided p of the U test between the seeds of a and b. */
double exp_p(Stat a, Stat b);
/* "p = 0.008, Cliff's delta 0.84 (large)" for a against b. */
void exp_test_text(Buf *b, Stat x, Stat y);
/* A Buf's bytes for "%.*s" (a Buf holds no terminating NUL). */
#define TEXT(buf) (buf).failed ? 0 : (int)(buf).n, (buf).p ? (const char *)(buf).p : ""

/* Sections 6 to 8: rope's scalings, the causal mask, the causal probe. */
void exp_scaling_section(Buf *b, const ExpResults *r);
void exp_causal_section(Buf *b, const ExpResults *r);
void exp_probe_section(Buf *b, const ExpResults *r);

/* ---- the runs of the cells (exp_cells.c, exp_long.c) ---- */

/* A model config of the experiments' shape. */
Config exp_model_config(const ExpSettings *set, const char *scheme, uint64_t seed);
/* The training of a cell: its steps, batch, seed, task and (lengths: the
 * length runs' lengths, L in training and 4L in test) lengths. */
void exp_train_meta(TrainMeta *mt, const ExpSettings *set, const ExpCell *cell, bool lengths);
/* EXP_SCALING's cell and EXP_PROBE's (exp_long.c). */
int exp_run_scaling(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
int exp_run_probe(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
/* Adds a series to res, which owns per_len and exact_len from then on
 * (the counts are every series' of a cell). */
void exp_series_add(ExpCellResult *res, const char *name, double value, double exact,
                    double *per_len, size_t n_per_len, double *exact_len, size_t n_exact_len);
/* The cell kinds' names, as in ids and cell files ("lengths"). */
extern const char *const exp_kind_names[EXP_KINDS];
/* The model config a cell trains (exp_model_config for its scheme, form
 * or variant, the causal mask), without the task's sizes. */
Config exp_cell_config(const ExpSettings *set, const ExpCell *cell);

#endif
