/* The runs as the page reads them (each result series of a cell is a run
 * of the page's: experiments fills them from the cells' files), and
 * their statistics over seeds, overall or over a band of lengths
 * (results.c). */
#ifndef POSENC_RESULTS_H
#define POSENC_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/err.h"
#include "../cell.h"
#include "../grid.h"

/* One run's result, as the page reads it. */
typedef struct {
    ExpKind kind;
    char task[32];
    char name[40];   /* the scheme or variant */
    size_t seed;     /* 0-based */
    size_t variant;  /* the cell's: the benchmark's learning rate in a sweep (its place) */
    double value;      /* max_abs_diff for EXP_ORDER, else test accuracy */
    double exact;      /* the share of test sentences with every label right (NaN: none) */
    double *per_len;   /* (max_len + 1) accuracy per test length (NaN: none or undefined) */
    double *exact_len; /* (max_len + 1) exact-match rate per test length, or NULL */
    size_t max_len;
} ExpRun;

typedef struct ExpResults {
    ExpSettings set;
    ExpRun *runs;
    size_t n, cap;
    bool failed;    /* a run could not be stored (out of memory) */
    const char *out; /* the folder the page will stand in (its kept files, such as the
                      * benchmark's pilots, are read there), or NULL: where it is written */
    /* The benchmark's sparser grid: the same grid with random positions
     * from a wider range, its cells kept in a folder of its own (runner's
     * exp_sparser_gather), for the page's section "sparser positions";
     * NULL for none. */
    const struct ExpResults *sparser;
    const char *sparser_dir;
} ExpResults;

int exp_results_init(ExpResults *r, const ExpSettings *set, Err *e);
void exp_results_free(ExpResults *r);
/* Adds a run of series x; its per_len and exact_len (max_len + 1 values
 * each, when there are any) are copied. A failed allocation sets
 * r->failed, which exp_write reports. */
void exp_record(ExpResults *r, ExpKind kind, const char *task, const char *name, size_t seed,
                const ExpSeries *x, size_t max_len);

/* A cell's result as runs of the page's, a run per series: "main" is the
 * cell's own (a scaling cell's is rope as trained, the scaling "none"),
 * "at" EXP_RANDOM's tested at random positions too (EXP_RANDOM_TEST),
 * and any other is the run of that name (rope's scalings). A cell of the
 * page's list that another holds (held_by) reads its holder's result; a
 * length run keeps its "main" only. */
void exp_results_add_cell(ExpResults *r, const ExpCell *c, const ExpCellResult *res);

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

/* Lengths lo..hi, for exp_band_value. */
typedef struct {
    size_t lo, hi;
} Band;

/* A run's mean accuracy over the Band at arg (exp_stat's value). */
double exp_band_value(const ExpRun *run, const void *arg);
/* The same for its exact-match rate: the mean over the band's lengths of
 * the share of sentences with every label right. */
double exp_band_exact(const ExpRun *run, const void *arg);

#endif
