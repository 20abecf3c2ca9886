/* What the randomized forms cost on the lengths the models trained on,
 * beside claim 1's gain past them: the task-level test at N and over
 * 1..N, every pair (the training lengths have no chance floor, and a
 * ceiling there is where nothing was lost), then the same split by what
 * learned the training lengths (both forms, only the plain one, only the
 * randomized one, neither), since a form that did not learn them loses
 * there by definition: the cost is called a finding only where both
 * learned. The sentences are templates (templates/bench-4-claim1.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../stats/stats.h"
#include "bench.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

/* How the randomized forms stand on a band, in words: lower, higher, or
 * not told apart from the plain ones, with the points and p. */
static void cost_words(Buf *b, const Paired *x) {
    if (x->v == CLAIM_UNTESTABLE) {
        PROSE(b, "bench.cost.too_few", pv_real("points", 100.0 * x->mean),
              pv_count("min_units", BENCH_PAIRED_MIN));
        return;
    }
    Buf p = {0};
    buf_printf(&p, "%#.2g", exp_half_away(x->p, 'g', 2));
    PROSE(b, x->v == CLAIM_DISAGREES ? "bench.cost.lower"
             : x->v == CLAIM_AGREES  ? "bench.cost.higher"
                                     : "bench.cost.untold",
          pv_real("points", 100.0 * x->mean), pv_buf("p", &p),
          pv_tmpl("method", x->exact ? "bench.cost.exact" : "bench.cost.normal"));
    exp_bench_part_done(b, &p);
}

/* "[-1.2, +3.4]": the interval in points. */
static void interval(Buf *rows, const Paired *x) {
    buf_printf(rows, "[");
    exp_fixed(rows, 100.0 * x->lo, 1, true);
    buf_printf(rows, ", ");
    exp_fixed(rows, 100.0 * x->hi, 1, true);
    buf_printf(rows, "]");
}

/* A row of the cost's table: the lengths, the task-level test in points,
 * and the pairs below 0. */
static void cost_row(Buf *rows, Band band, const Paired x[2]) {
    buf_printf(rows, "%s| ", rows->n ? "\n" : "");
    if (band.lo == band.hi)
        buf_printf(rows, "%zu", band.lo);
    else
        buf_printf(rows, "%zu..%zu", band.lo, band.hi);
    buf_printf(rows, " | ");
    exp_fixed(rows, 100.0 * x[0].mean, 1, true);
    buf_printf(rows, " | %zu | ", x[0].lower);
    if (x[0].v == CLAIM_UNTESTABLE) {
        buf_printf(rows, "| ");
        PROSE_TEXT(rows, "bench.claim1.too_few");
    } else {
        interval(rows, &x[0]);
        buf_printf(rows, " | ");
        exp_bench_p_text(rows, &x[0]);
    }
    buf_printf(rows, " | %zu |", x[1].lower);
}

/* What learned the training lengths: both forms, only the plain one, only
 * the randomized one, neither (EXP_LEARNED at N). */
enum { BOTH, PLAIN_ONLY, RANDOM_ONLY, NEITHER, GROUPS };
static const char *const GROUP_NAME[GROUPS] = {"bench.cost.both", "bench.cost.plain_only",
                                               "bench.cost.random_only", "bench.cost.neither"};

static size_t group_of(const BenchPair *x) {
    bool r = x->rnd_N.mean >= EXP_LEARNED, p = x->plain_N.mean >= EXP_LEARNED;
    return r && p ? BOTH : p ? PLAIN_ONLY : r ? RANDOM_ONLY : NEITHER;
}

/* g restricted to one group: the other pairs' means NaN, so that they
 * drop out of every test (exp_bench_differences takes measured pairs). */
static int grid_of_group(BenchPairGrid *to, const BenchPairGrid *g, size_t group) {
    *to = *g;
    to->at = exp_page_alloc(g->tasks * g->pairs + 1, sizeof *to->at);
    if (!to->at)
        return -1;
    for (size_t k = 0; k < g->tasks * g->pairs; k++) {
        to->at[k] = g->at[k];
        if (group_of(&g->at[k]) != group)
            to->at[k].rnd.mean = NAN;
    }
    to->floor = NULL;
    return 0;
}

/* The split's table: a row per group and band (past N, at N, over 1..N):
 * its pairs and tasks, the mean random - plain over its pairs in points,
 * the pairs lower, and the task-level test where it can be made. The
 * test at N and on 1..N of the pairs where both learned in *both[0..1]. */
static void split_rows(Buf *rows, BenchPairGrid grids[3], Paired both[2]) {
    for (size_t gr = 0; gr < GROUPS; gr++)
        for (size_t k = 0; k < 3; k++) {
            BenchPairGrid one;
            if (grid_of_group(&one, &grids[k], gr))
                return;
            Paired x[2];
            exp_bench_tests_at(&one, 0.0, false, true, x);
            if (gr == BOTH && k)
                both[k - 1] = x[0];
            buf_printf(rows, "%s| ", rows->n ? "\n" : "");
            if (k == 0)
                PROSE_TEXT(rows, GROUP_NAME[gr]);
            Band band = grids[k].band;
            if (band.lo == band.hi)
                buf_printf(rows, " | %zu", band.lo);
            else
                buf_printf(rows, " | %zu..%zu", band.lo, band.hi);
            buf_printf(rows, " | %zu | %zu |", x[1].n, x[0].n);
            if (x[1].n) {
                buf_printf(rows, " ");
                exp_fixed(rows, 100.0 * x[1].mean, 1, true);
                buf_printf(rows, " | %zu | ", x[1].lower);
            } else
                buf_printf(rows, " | | ");
            if (x[0].v == CLAIM_UNTESTABLE)
                PROSE_TEXT(rows, x[0].n ? "bench.claim1.too_few" : "bench.claim1.no_pair");
            else {
                exp_fixed(rows, 100.0 * x[0].mean, 1, true);
                buf_printf(rows, " ");
                interval(rows, &x[0]);
                buf_printf(rows, ", p = ");
                exp_bench_p_text(rows, &x[0]);
            }
            buf_printf(rows, " |");
            free(one.at);
        }
}

/* The in-distribution cost beside the gain: the task-level test at N and
 * over 1..N, every pair, with the test lengths' row first; then split by
 * what learned. */
void exp_bench_cost(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    size_t N = r->set.bench_N;
    Band bands[3] = {exp_bench_tested(r), {N, N}, exp_bench_trained(r)};
    BenchPairGrid grids[3];
    for (size_t k = 0; k < 3; k++)
        if (exp_bench_pair_grid(&grids[k], bp, bands[k], false)) {
            while (k--)
                exp_bench_pair_grid_free(&grids[k]);
            return; /* exp_page_end reports it */
        }
    Buf rows = {0}, words[2] = {{0}, {0}}, split = {0}, both_words[2] = {{0}, {0}};
    bool paid = false;
    for (size_t k = 0; k < 3; k++) {
        Paired x[2];
        exp_bench_tests_at(&grids[k], 0.0, false, true, x);
        cost_row(&rows, bands[k], x);
        if (k)
            cost_words(&words[k - 1], &x[0]);
    }
    Paired both[2] = {{0}, {0}};
    split_rows(&split, grids, both);
    for (size_t k = 0; k < 2; k++) {
        cost_words(&both_words[k], &both[k]);
        paid = paid || both[k].v == CLAIM_DISAGREES;
    }
    Buf where = {0}; /* where both learned: the test, or that no pair did */
    if (both[0].n)
        PROSE(&where, "bench.cost.where_both", pv_count("N", N), pv_buf("both_at_N", &both_words[0]),
              pv_buf("both_trained", &both_words[1]),
              pv_tmpl("finding", paid ? "bench.cost.paid" : "bench.cost.unpaid"));
    else
        PROSE_TEXT(&where, "bench.cost.where_none");
    PROSE(b, "bench.cost", pv_count("N", N), pv_count("tasks", r->set.bench_n_tasks),
          pv_count("pairs", bp->pairs.n * r->set.bench_n_tasks), pv_buf("rows", &rows),
          pv_buf("at_N", &words[0]), pv_buf("trained", &words[1]),
          pv_real("learned", EXP_LEARNED), pv_buf("split", &split), pv_buf("both", &where));
    buf_printf(b, "\n\n");
    Buf *parts[] = {&rows, &words[0], &words[1], &split, &both_words[0], &both_words[1], &where};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        exp_bench_part_done(b, parts[i]);
    for (size_t k = 0; k < 3; k++)
        exp_bench_pair_grid_free(&grids[k]);
}
