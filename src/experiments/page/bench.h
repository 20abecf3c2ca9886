/* What the benchmark's page shares: its bands, its statistics per task and
 * column (bench_data.c, which the writers below build on), its figures and
 * claims (bench_claims.c, which bench_page.c's page calls). */
#ifndef POSENC_EXP_BENCH_H
#define POSENC_EXP_BENCH_H

#include <stdbool.h>

#include "../../core/buf.h"
#include "results.h"

/* The training lengths 1..N and the test lengths N+1..M. */
Band exp_bench_trained(const ExpResults *r);
Band exp_bench_tested(const ExpResults *r);
/* A column's seeds on a task, by their mean accuracy (or exact-match
 * rate) over band. */
Stat exp_bench_stat(const ExpResults *r, const char *task, const char *column, Band band,
                    bool exact);
/* A TaskLevel in words ("regular", "deterministic context-free", ...),
 * and the level of the grid's task t. */
const char *exp_bench_level_name(size_t level);
const char *exp_bench_level(const ExpResults *r, size_t t);

/* Frees part, a fragment the code built for a template (a table, a list,
 * a phrase), after the template placed it: out of memory in the part is
 * the page's, which then is not written. */
void exp_bench_part_done(Buf *page, Buf *part);

/* DIR/img/benchmark/paper.png (none and Ruoss et al.'s encodings with
 * their randomized forms) and others.png (the other schemes): accuracy by
 * input length, the mean over seeds, a panel per task. */
int exp_bench_figures(const ExpResults *r, const char *dir, Err *e);
/* The page's last sections: the figures, and the paper's claims checked
 * one by one under the results page's rules. */
void exp_bench_claims(Buf *b, const ExpResults *r);

#endif
