/* What the benchmark's page reads from its runs (bench.h): the bands of
 * lengths, a column's statistics on a task, the tasks' levels, the pairs
 * of plain and randomized columns; and the fragments its templates
 * place. The page's writers all build on it. */
#include <stdio.h>
#include <string.h>

#include "../../core/fileio.h"

#include "../../text/tasks.h"
#include "bench.h"
#include "prose.h"
#include "tables.h"

Band exp_bench_trained(const ExpResults *r) { return (Band){1, r->set.bench_N}; }
Band exp_bench_tested(const ExpResults *r) {
    return (Band){r->set.bench_N + 1, r->set.bench_M};
}

Band exp_bench_earlier(const ExpResults *r, bool *shown) {
    *shown = r->set.bench_M > BENCH_EARLIER_M && r->set.bench_N < BENCH_EARLIER_M;
    return (Band){r->set.bench_N + 1, *shown ? BENCH_EARLIER_M : r->set.bench_M};
}

Stat exp_bench_stat(const ExpResults *r, const char *task, const char *column, Band band,
                    bool exact) {
    return exp_stat(r, EXP_BENCH, task, column, exact ? exp_band_exact : exp_band_value, &band);
}

double exp_bench_at_N(const ExpResults *r, const char *task, const char *column) {
    size_t N = r->set.bench_N;
    return exp_bench_stat(r, task, column, (Band){N, N}, false).mean;
}

Buf exp_bench_learned_text(const ExpResults *r) {
    Buf b = {0};
    PROSE(&b, "rules.learned_at_N", pv_real("learned", EXP_LEARNED), pv_count("N", r->set.bench_N));
    return b;
}

void exp_bench_pairs(BenchPairs *p, const ExpResults *r) {
    p->n = 0;
    for (size_t c = 0; c < exp_bench_paper(&r->set); c++) {
        bool randomized;
        exp_bench_scheme(exp_bench_column(&r->set, c), &randomized);
        char name[64];
        snprintf(name, sizeof name, "random %s", exp_bench_column(&r->set, c));
        for (size_t k = 0; !randomized && k < exp_bench_paper(&r->set); k++)
            if (strcmp(exp_bench_column(&r->set, k), name) == 0) {
                p->plain[p->n] = c, p->rnd[p->n++] = k;
                break;
            }
    }
}

const char *exp_bench_level_name(size_t level) {
    static const char *const NAMES[] = {"toy", "regular", "deterministic context-free",
                                        "context-sensitive"};
    return level < sizeof NAMES / sizeof *NAMES ? NAMES[level] : "?";
}

const char *exp_bench_level(const ExpResults *r, size_t t) {
    return exp_bench_level_name(task_find(r->set.bench_task[t])->level);
}

void exp_bench_part_done(Buf *page, Buf *part) {
    page->failed |= part->failed;
    buf_free(part);
}

int exp_bench_csv(const char *dir, const char *name, Buf *b, Err *e) {
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark/%s", dir, name);
    int rc = b->failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                       : write_file_atomic(path, b->p, b->n, e);
    buf_free(b);
    return rc;
}
