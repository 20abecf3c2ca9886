/* What the benchmark's page reads from its runs (bench.h): the bands of
 * lengths, a column's statistics on a task, the tasks' levels; and the
 * fragments its templates place. The page's writers (bench_page.c,
 * bench_claims.c) both build on it. */
#include "../../text/tasks.h"
#include "bench.h"
#include "stats.h"

Band exp_bench_trained(const ExpResults *r) { return (Band){1, r->set.bench_N}; }
Band exp_bench_tested(const ExpResults *r) {
    return (Band){r->set.bench_N + 1, r->set.bench_M};
}

Stat exp_bench_stat(const ExpResults *r, const char *task, const char *column, Band band,
                    bool exact) {
    return exp_stat(r, EXP_BENCH, task, column, exact ? exp_band_exact : exp_band_value, &band);
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
