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
        free(r->runs[i].per_len), free(r->runs[i].exact_len);
    free(r->runs);
    memset(r, 0, sizeof *r);
}

/* A copy of n values, or NULL (r->failed set when memory ran out). */
static double *copy(ExpResults *r, const double *v, size_t n) {
    if (!v)
        return NULL;
    double *c = malloc(n * sizeof *c);
    if (!c) {
        r->failed = true;
        return NULL;
    }
    memcpy(c, v, n * sizeof *c);
    return c;
}

void exp_record(ExpResults *r, ExpKind kind, const char *task, const char *name, size_t seed,
                const ExpSeries *x, size_t max_len) {
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
    run->kind = kind, run->seed = seed, run->value = x->value, run->exact = x->exact;
    /* a cut name would match no table row later: fail instead */
    if (strlen(task) >= sizeof run->task || strlen(name) >= sizeof run->name) {
        r->failed = true;
        return;
    }
    snprintf(run->task, sizeof run->task, "%s", task);
    snprintf(run->name, sizeof run->name, "%s", name);
    run->per_len = copy(r, x->per_len, max_len + 1);
    run->exact_len = copy(r, x->exact_len, max_len + 1);
    run->max_len = max_len;
    r->n++;
}

void exp_results_add_cell(ExpResults *r, const ExpCell *c, const ExpCellResult *res) {
    for (size_t k = 0; k < res->n_series; k++) {
        const ExpSeries *x = &res->series[k];
        ExpKind kind = c->kind;
        const char *name = x->name;
        /* a length run's own series is its main one; rope's others are
         * section 6's, which its scaling cell of the page's list reads */
        if (kind == EXP_LENGTHS && strcmp(x->name, "main") != 0)
            continue;
        if (strcmp(x->name, "main") == 0)
            name = c->kind == EXP_SCALING ? exp_scaling_names[0] : c->name;
        else if (strcmp(x->name, "at") == 0)
            kind = EXP_RANDOM_TEST, name = c->name;
        exp_record(r, kind, c->task, name, c->seed, x, res->n_per_len ? res->n_per_len - 1 : 0);
        if (!r->failed && r->n)
            r->runs[r->n - 1].variant = c->variant;
    }
}

/* The mean of v[lo..hi] (a run's per-length values); NaN when any of them
 * is undefined (a learned table past its rows), or the run has none (a
 * run of a kind without lengths). */
static double band_mean(const double *v, size_t max_len, size_t lo, size_t hi) {
    if (!v)
        return NAN;
    double sum = 0.0;
    size_t n = 0;
    for (size_t len = lo; len <= hi && len <= max_len; len++) {
        if (isnan(v[len]))
            return NAN;
        sum += v[len];
        n++;
    }
    return n ? sum / (double)n : NAN;
}

double exp_band(const ExpRun *run, size_t lo, size_t hi) {
    return band_mean(run->per_len, run->max_len, lo, hi);
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

double exp_band_exact(const ExpRun *run, const void *arg) {
    const Band *band = arg;
    return band_mean(run->exact_len, run->max_len, band->lo, band->hi);
}
