/* The CSV files behind the page's tables, DIR/results/KIND.csv: one row
 * per run, and per length (or per layer, for the probe) for the runs
 * tested by length. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/fileio.h"
#include "sections.h"
#include "tables.h"

static const char *const kind_file[EXP_BENCH] = {"order",   "tasks",       "lengths",
                                                 "random",  "variants",    "random_test",
                                                 "scaling", "causal",      "probe"};

/* A value, then end: an undefined one (NaN) as an empty field. */
static void number(Buf *b, double v, const char *end) {
    if (!isnan(v))
        exp_csv_value(b, v);
    buf_printf(b, "%s", end);
}

int exp_write_csv(const ExpResults *r, const char *dir, Err *e) {
    /* the benchmark's runs have a page of their own (bench_page.c) */
    for (int k = 0; k < EXP_BENCH; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/results/%s.csv", dir, kind_file[k]);
        Buf b = {0};
        bool per_len = k == EXP_LENGTHS || k == EXP_RANDOM || k == EXP_RANDOM_TEST ||
                       k == EXP_SCALING || k == EXP_CAUSAL || k == EXP_PROBE;
        buf_printf(&b, "%s\n", k == EXP_ORDER    ? "scheme,seed,max_abs_diff"
                               : k == EXP_PROBE  ? "task,model,seed,layer,r2"
                               : k == EXP_SCALING ? "task,scaling,seed,length,accuracy,exact_match"
                               : per_len ? "task,scheme,seed,length,accuracy,exact_match"
                               : k == EXP_VARIANT ? "task,variant,seed,test_accuracy,exact_match"
                                                  : "task,scheme,seed,test_accuracy,exact_match");
        for (size_t i = 0; i < r->n; i++) {
            const ExpRun *run = &r->runs[i];
            if ((int)run->kind != k)
                continue;
            if (k == EXP_ORDER) {
                buf_printf(&b, "%s,%zu,%.6e\n", run->name, run->seed + 1, run->value);
            } else if (!per_len) {
                buf_printf(&b, "%s,\"%s\",%zu,", run->task, run->name, run->seed + 1);
                exp_csv_value(&b, run->value);
                buf_printf(&b, ",");
                number(&b, run->exact, "\n");
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
                    number(&b, v, layers ? "\n" : ",");
                    if (!layers)
                        number(&b, run->exact_len ? run->exact_len[len] : NAN, "\n");
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
