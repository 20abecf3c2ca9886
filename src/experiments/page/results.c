/* The runs as the page reads them (a cell's every result series is a run
 * of the page's), and their statistics over seeds: a configuration's mean,
 * spread and values, overall or over a band of lengths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/err.h"
#include "results.h"

int exp_results_init(ExpResults *r, const ExpSettings *set, Err *e) {
    memset(r, 0, sizeof *r);
    r->set = *set;
    r->cap = 64;
    r->runs = xcalloc(r->cap, sizeof *r->runs, "the experiments' results", e);
    return r->runs ? 0 : ERR_RUNTIME;
}

void exp_results_free(ExpResults *r) {
    for (size_t i = 0; i < r->n; i++)
        free(r->runs[i].per_len);
    free(r->runs);
    memset(r, 0, sizeof *r);
}

void exp_record(ExpResults *r, ExpKind kind, const char *task, const char *name, size_t seed,
                double value, const double *per_len, size_t max_len) {
    if (r->n == r->cap) {
        ExpRun *p = realloc(r->runs, 2 * r->cap * sizeof *p);
        if (!p) {
            r->failed = true;
            return;
        }
        r->runs = p, r->cap *= 2;
    }
    ExpRun *run = &r->runs[r->n];
    memset(run, 0, sizeof *run);
    run->kind = kind, run->seed = seed, run->value = value;
    /* a cut name would match no table row later: fail instead */
    if (strlen(task) >= sizeof run->task || strlen(name) >= sizeof run->name) {
        r->failed = true;
        return;
    }
    snprintf(run->task, sizeof run->task, "%s", task);
    snprintf(run->name, sizeof run->name, "%s", name);
    if (per_len) {
        run->per_len = malloc((max_len + 1) * sizeof *run->per_len);
        if (!run->per_len) {
            r->failed = true;
            return;
        }
        memcpy(run->per_len, per_len, (max_len + 1) * sizeof *per_len);
        run->max_len = max_len;
    }
    r->n++;
}

void exp_results_add_cell(ExpResults *r, const ExpCell *c, const ExpCellResult *res) {
    for (size_t k = 0; k < res->n_series; k++) {
        const ExpSeries *x = &res->series[k];
        ExpKind kind = c->kind;
        const char *name = x->name;
        if (strcmp(x->name, "main") == 0)
            name = c->kind == EXP_SCALING ? exp_scaling_names[0] : c->name;
        else if (strcmp(x->name, "at") == 0)
            kind = EXP_RANDOM_TEST, name = c->name;
        exp_record(r, kind, c->task, name, c->seed, x->value, x->per_len,
                   res->n_per_len ? res->n_per_len - 1 : 0);
    }
}

/* The mean of a run's per-length accuracies over lengths lo..hi; NaN when
 * any of them is undefined (a learned table past its rows), or the run
 * has none (a run of a kind without lengths). */
double exp_band(const ExpRun *run, size_t lo, size_t hi) {
    if (!run->per_len)
        return NAN;
    double sum = 0.0;
    size_t n = 0;
    for (size_t len = lo; len <= hi && len <= run->max_len; len++) {
        if (isnan(run->per_len[len]))
            return NAN;
        sum += run->per_len[len];
        n++;
    }
    return n ? sum / (double)n : NAN;
}

Stat exp_stat(const ExpResults *r, ExpKind kind, const char *task, const char *name,
              double (*value)(const ExpRun *, const void *), const void *arg) {
    Stat s = {.lo = INFINITY, .hi = -INFINITY};
    double sum = 0.0, sq = 0.0;
    bool undefined = false;
    for (size_t i = 0; i < r->n; i++) {
        const ExpRun *run = &r->runs[i];
        if (run->kind != kind || strcmp(run->task, task) || strcmp(run->name, name))
            continue;
        double v = value ? value(run, arg) : run->value;
        if (isnan(v)) {
            undefined = true;
            continue;
        }
        if (s.n < EXP_MAX_SEEDS)
            s.v[s.n] = v;
        sum += v, sq += v * v, s.n++;
        s.lo = fmin(s.lo, v), s.hi = fmax(s.hi, v);
    }
    if (undefined || s.n == 0)
        return (Stat){.mean = NAN, .sd = NAN, .lo = NAN, .hi = NAN};
    s.mean = sum / (double)s.n;
    s.sd = s.n > 1 ? sqrt(fmax(0.0, (sq - sum * s.mean) / (double)(s.n - 1))) : 0.0;
    return s;
}

double exp_band_value(const ExpRun *run, const void *arg) {
    const Band *band = arg;
    return exp_band(run, band->lo, band->hi);
}
