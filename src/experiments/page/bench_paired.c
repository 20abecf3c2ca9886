/* The benchmark page's paired tests (bench.h): each randomized form
 * against its plain one, a pair a task and an encoding, tested with the
 * task as the unit (a task's encodings share its data and its
 * difficulty: its pairs are not independent draws). One rule decides
 * which pairs a test takes, the pair table's: claim 1's gates, its
 * stability and the cost on the training lengths all read through it.
 * The sections are bench_claim1.c's and bench_cost.c's; the last
 * section, how each number is computed, is this file's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../stats/stats.h"
#include "bench.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

const double exp_bench_gates[BENCH_GATES] = {0.0, 0.80, 0.85, 0.90, 0.95};

int exp_bench_pair_grid(BenchPairGrid *g, const BenchPage *bp, Band band, bool floors) {
    const ExpResults *r = bp->r;
    size_t N = r->set.bench_N;
    *g = (BenchPairGrid){.tasks = r->set.bench_n_tasks, .pairs = bp->pairs.n, .band = band};
    g->at = exp_page_alloc(g->tasks * g->pairs + 1, sizeof *g->at);
    g->floor = exp_page_alloc(g->tasks + 1, sizeof *g->floor);
    if (!g->at || !g->floor) {
        exp_bench_pair_grid_free(g);
        return -1;
    }
    for (size_t t = 0; t < g->tasks; t++) {
        const char *task = r->set.bench_task[t];
        g->floor[t] = floors ? exp_bench_chance_at(&bp->chance, t, band) : NAN;
        for (size_t p = 0; p < g->pairs; p++) {
            const char *rnd = exp_bench_column(&r->set, bp->pairs.rnd[p]),
                       *pl = exp_bench_column(&r->set, bp->pairs.plain[p]);
            g->at[t * g->pairs + p] = (BenchPair){
                .rnd = exp_bench_stat(r, task, rnd, band, false),
                .plain = exp_bench_stat(r, task, pl, band, false),
                .rnd_N = exp_bench_stat(r, task, rnd, (Band){N, N}, false),
                .plain_N = exp_bench_stat(r, task, pl, (Band){N, N}, false)};
        }
    }
    return 0;
}

void exp_bench_pair_grid_free(BenchPairGrid *g) {
    free(g->at);
    free(g->floor);
    g->at = NULL, g->floor = NULL;
}

/* The pair table's rule (verdict.h's gate), the learned gate at `gate`
 * in place of EXP_LEARNED (none at 0), on the grid's band. */
PairVerdict exp_bench_pair_in(const BenchPairGrid *g, size_t t, size_t p, double gate) {
    const BenchPair *x = &g->at[t * g->pairs + p];
    return verdict_gate(x->rnd.mean, x->plain.mean, g->floor[t], VERDICT_CEILING, gate > 0.0,
                        x->rnd_N.mean >= gate, x->plain_N.mean >= gate);
}

void exp_bench_differences(const BenchPairGrid *g, double gate, bool rule, double *d,
                           size_t *n_d, double *task, size_t *n_task) {
    *n_d = *n_task = 0;
    for (size_t t = 0; t < g->tasks; t++) {
        double sum = 0.0;
        size_t k = 0;
        for (size_t p = 0; p < g->pairs; p++) {
            const BenchPair *x = &g->at[t * g->pairs + p];
            bool in = rule ? exp_bench_pair_in(g, t, p, gate) == V_TESTABLE
                           : !isnan(x->rnd.mean) && !isnan(x->plain.mean);
            if (in)
                d[(*n_d)++] = x->rnd.mean - x->plain.mean, sum += x->rnd.mean - x->plain.mean,
                k++;
        }
        if (k)
            task[(*n_task)++] = sum / (double)k;
    }
}

Paired exp_bench_test_units(const double *d, size_t n, size_t pairs, bool interval) {
    Paired x = {.n = n, .pairs = pairs, .mean = NAN, .lo = NAN, .hi = NAN, .p = NAN,
                .v = CLAIM_UNTESTABLE};
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += d[i], x.lower += d[i] < 0.0;
    if (n)
        x.mean = sum / (double)n;
    if (n < BENCH_PAIRED_MIN)
        return x;
    x.p = wilcoxon_signed_rank_p(d, n, &x.exact);
    if (interval) {
        bootstrap_mean_ci(d, n, BENCH_PAIRED_DRAWS, BENCH_PAIRED_SEED, &x.mean, &x.lo, &x.hi);
        x.v = x.p < VERDICT_ALPHA && x.lo > 0.0   ? CLAIM_AGREES
              : x.p < VERDICT_ALPHA && x.hi < 0.0 ? CLAIM_DISAGREES
                                                  : CLAIM_CANNOT_TELL;
        return x;
    }
    /* the stability's resamples: the verdict alone, the interval's side
     * drawn only where p rejects (the same verdict, faster) */
    int side = x.p < VERDICT_ALPHA
                   ? bootstrap_mean_side(d, n, BENCH_PAIRED_DRAWS, BENCH_PAIRED_SEED)
                   : 0;
    x.v = side > 0 ? CLAIM_AGREES : side < 0 ? CLAIM_DISAGREES : CLAIM_CANNOT_TELL;
    return x;
}

void exp_bench_tests_at(const BenchPairGrid *g, double gate, bool rule, bool interval,
                        Paired units[2]) {
    size_t n_d, n_task;
    double *d = exp_page_alloc(g->tasks * g->pairs + 1, sizeof *d);
    double *task = exp_page_alloc(g->tasks + 1, sizeof *task);
    if (!d || !task) { /* exp_page_end reports it: the page is not written */
        units[0] = units[1] = exp_bench_test_units(NULL, 0, 0, false);
    } else {
        exp_bench_differences(g, gate, rule, d, &n_d, task, &n_task);
        units[0] = exp_bench_test_units(task, n_task, n_d, interval);
        units[1] = interval ? exp_bench_test_units(d, n_d, n_d, true) : units[0];
    }
    free(d);
    free(task);
}

ClaimVerdict exp_bench_claim1(const BenchPairGrid *g, Paired x[BENCH_GATES][2],
                              bool interval, bool *moved) {
    ClaimVerdict v0 = CLAIM_UNTESTABLE;
    *moved = false;
    for (size_t k = 0; k < BENCH_GATES; k++) {
        exp_bench_tests_at(g, exp_bench_gates[k], true, interval, x[k]);
        if (k == 0)
            v0 = x[k][0].v;
        else if (x[k][0].v != CLAIM_UNTESTABLE && x[k][0].v != v0)
            *moved = true;
    }
    return *moved ? CLAIM_CANNOT_TELL : v0;
}

void exp_bench_p_text(Buf *b, const Paired *x) {
    buf_printf(b, "%#.2g ", exp_half_away(x->p, 'g', 2));
    PROSE_TEXT(b, x->exact ? "bench.method.exact" : "bench.method.normal");
}

/* Each test's procedure to the detail a reader needs to redo it: the U
 * test (stats.c's mw_tail and tost_p), Hodges-Lehmann (hl_rank), Cliff's
 * delta (cliffs_size), the verdict's sign (verdict_compare), the
 * bootstrap (paired.c's bootstrap_mean_ci, core/rng.c): its generator,
 * its draws, the units' order (exp_bench_differences: the grid's tasks,
 * a task's pairs in bp->pairs' order) and the order statistics it reads;
 * and the stability's resamples (bench_claim1.c). */
void exp_bench_how(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    Buf tie = {0}, order = {0};
    exp_tiny_text(&tie, RANK_TIE);
    for (size_t p = 0; p < bp->pairs.n; p++)
        buf_printf(&order, "%s%s", p == 0 ? "" : p + 1 == bp->pairs.n ? " and " : ", ",
                   exp_bench_column(&r->set, bp->pairs.plain[p]));
    double last = (double)(BENCH_PAIRED_DRAWS - 1);
    PROSE(b, "bench.how", pv_buf("tie", &tie), pv_count("exact_all", MW_EXACT_MAX),
          pv_count("exact_most", MW_EXACT_MAX / 2),
          pv_real("margin", VERDICT_MARGIN), pv_real("small", CLIFF_SMALL),
          pv_real("medium", CLIFF_MEDIUM), pv_real("large", CLIFF_LARGE),
          pv_real("alpha", VERDICT_ALPHA), pv_count("seed", BENCH_PAIRED_SEED),
          pv_count("draws", BENCH_PAIRED_DRAWS), pv_buf("order", &order),
          pv_count("lo_at", (size_t)floor(0.025 * last)),
          pv_count("hi_at", (size_t)ceil(0.975 * last)),
          pv_count("resamples", BENCH_STABILITY_RESAMPLES),
          pv_count("resample_seed", BENCH_STABILITY_SEED + 1),
          pv_count("resample_last", BENCH_STABILITY_SEED + BENCH_STABILITY_RESAMPLES));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &tie);
    exp_bench_part_done(b, &order);
}
