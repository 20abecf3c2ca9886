/* The experiments' settings, the store of their runs, and the CSV files
 * behind the tables (the page itself: experiment_doc.c). */
#include "grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page/sections.h"

const char *const exp_length_tasks[EXP_LENGTH_TASKS] = {"reverse", "sort", "previous"};

const char *const exp_scaling_names[EXP_SCALINGS] = {"none",   "linear-x2", "linear-x4",
                                                     "ntk-x2", "ntk-x4",    "yarn-x2",
                                                     "yarn-x4"};

/* previous needs the word before, first the sentence's first word: both
 * within what a causal reader sees */
const char *const exp_causal_tasks[EXP_CAUSAL_TASKS] = {"previous", "first"};
const char *const exp_causal_schemes[EXP_CAUSAL_SCHEMES] = {"none", "sinusoidal", "learned",
                                                           "rope", "alibi",      "t5"};
const char *const exp_probe_names[EXP_PROBES] = {"none, causal", "none"};

/* ALiBi as an encoder can use it: different slopes by side, or a [CLS]
 * word at position 0 read as the sentence vector */
static const struct {
    const char *name, *base;
    const char *option, *value; /* the scheme option the form gives, or NULL */
    Pooling pool;
} FORMS[] = {{"asymmetric alibi", "alibi", "--alibi-slopes", "asymmetric", POOL_MEAN},
             {"cls alibi", "alibi", NULL, NULL, POOL_CLS}};
#define N_FORMS (sizeof FORMS / sizeof *FORMS)

/* The index in FORMS of the form called name, N_FORMS for a scheme's own name. */
static size_t form_of(const char *name) {
    size_t i = 0;
    while (i < N_FORMS && strcmp(name, FORMS[i].name) != 0)
        i++;
    return i;
}

size_t exp_scheme_count(void) { return pe_count() + N_FORMS; }

const char *exp_scheme_at(size_t i) {
    return i < pe_count() ? pe_at(i)->name
           : i < exp_scheme_count() ? FORMS[i - pe_count()].name
                                    : NULL;
}

const PeScheme *exp_scheme_base(const char *name) {
    size_t f = form_of(name);
    return pe_find(f < N_FORMS ? FORMS[f].base : name);
}

void exp_scheme_form(Config *c, const char *name) {
    size_t f = form_of(name);
    if (f == N_FORMS)
        return;
    c->pool = FORMS[f].pool;
    /* constants, which cannot fail (tests/test_cells.c holds each form to
     * its option) */
    Err e;
    if (FORMS[f].option)
        (void)pe_set_named(&c->pe, FORMS[f].option, FORMS[f].value, &e);
}

const char *const exp_variant_names[EXP_VARIANTS] = {"interleaved, add", "split, add",
                                                     "interleaved, concat",
                                                     "interleaved, add, scaled"};

void exp_variant_config(Config *c, size_t variant) {
    if (variant == 1)
        pe_put(&c->pe, &pe_opt_layout, LAYOUT_SPLIT);
    pe_put(&c->pe, &pe_opt_combine, variant == 2 ? 1 : 0); /* concat, or add */
    c->scale_embed = variant == 3;
}

void exp_settings(ExpSettings *s, bool quick, size_t seeds) {
    memset(s, 0, sizeof *s);
    s->quick = quick;
    if (quick) {
        s->d_model = 16, s->heads = 2, s->layers = 1, s->d_ff = 32, s->batch = 16;
        s->seeds = 2, s->variant_seeds = 2;
        s->task_steps = 60, s->length_steps = 60, s->tune_steps = 10, s->probe_layers = 2;
        s->min_len = 2, s->L = 4;
        s->n_test = 100, s->n_test_lengths = 200;
    } else {
        s->d_model = 32, s->heads = 4, s->layers = 2, s->d_ff = 128, s->batch = 32;
        s->seeds = 5, s->variant_seeds = 5;
        s->task_steps = 1500, s->length_steps = 4000, s->tune_steps = 400, s->probe_layers = 4;
        s->min_len = 4, s->L = 8;
        s->n_test = 1000, s->n_test_lengths = 2000;
    }
    if (seeds)
        s->seeds = seeds, s->variant_seeds = seeds > s->variant_seeds ? seeds : s->variant_seeds;
}

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

/* ---- CSV files: one row per run (and per length for the length runs) ---- */

static const char *const kind_file[EXP_KINDS] = {"order",   "tasks",       "lengths",
                                                 "random",  "variants",    "random_test",
                                                 "scaling", "causal",      "probe"};

int exp_write_csv(const ExpResults *r, const char *dir, Err *e) {
    for (int k = 0; k < EXP_KINDS; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/results/%s.csv", dir, kind_file[k]);
        Buf b = {0};
        bool per_len = k == EXP_LENGTHS || k == EXP_RANDOM || k == EXP_RANDOM_TEST ||
                       k == EXP_SCALING || k == EXP_CAUSAL || k == EXP_PROBE;
        buf_printf(&b, "%s\n", k == EXP_ORDER    ? "scheme,seed,max_abs_diff"
                               : k == EXP_PROBE  ? "task,model,seed,layer,r2"
                               : k == EXP_SCALING ? "task,scaling,seed,length,accuracy"
                               : per_len         ? "task,scheme,seed,length,accuracy"
                               : k == EXP_VARIANT ? "task,variant,seed,test_accuracy"
                                                  : "task,scheme,seed,test_accuracy");
        for (size_t i = 0; i < r->n; i++) {
            const ExpRun *run = &r->runs[i];
            if ((int)run->kind != k)
                continue;
            if (k == EXP_ORDER) {
                buf_printf(&b, "%s,%zu,%.6e\n", run->name, run->seed + 1, run->value);
            } else if (!per_len) {
                buf_printf(&b, "%s,\"%s\",%zu,%.6f\n", run->task, run->name, run->seed + 1,
                           run->value);
            } else {
                /* a probe's rows are layers, from 0 (the input) */
                bool layers = k == EXP_PROBE;
                for (size_t len = layers ? 0 : 1; len <= run->max_len; len++) {
                    double v = run->per_len[len];
                    if (!layers && len < r->set.min_len)
                        continue;
                    /* "none, causal" holds a comma */
                    const char *q = strchr(run->name, ',') ? "\"" : "";
                    buf_printf(&b, "%s,%s%s%s,%zu,%zu,", run->task, q, run->name, q,
                               run->seed + 1, len);
                    if (isnan(v))
                        buf_printf(&b, "\n");
                    else
                        buf_printf(&b, "%.6f\n", v);
                }
            }
        }
        int rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                          : write_file_atomic(path, b.p, b.n, e);
        buf_free(&b);
        if (rc)
            return rc;
    }
    return 0;
}
