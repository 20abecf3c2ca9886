/* What experiment.c and experiment_doc.c share; not part of the library's
 * interface. */
#ifndef POSENC_EXP_INTERNAL_H
#define POSENC_EXP_INTERNAL_H

#include "../core/buf.h"
#include "../core/fileio.h"
#include "experiment.h"

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

#endif
