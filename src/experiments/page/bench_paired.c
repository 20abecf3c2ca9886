/* Ruoss et al.'s first claim on the benchmark's page: the randomized
 * forms raise the test accuracy on average over tasks and encodings.
 * The primary test takes the task as the unit (a task's encodings share
 * its data and its difficulty: its pairs are not independent draws);
 * the pairs are a secondary reading; and the same test on the training
 * lengths states what the randomized forms cost there. The sentences
 * are templates (templates/bench-4-claim1.md): the numbers, the rows and
 * the verdicts are this file's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../stats/stats.h"
#include "bench.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

/* The gates on the accuracy at N, 0 for none. */
static const double GATES[] = {0.0, 0.80, 0.85, 0.90, 0.95};
#define N_GATES (sizeof GATES / sizeof *GATES)
#define PAIRED_MIN 6       /* fewer units cannot reach p < 0.05: 2 / 2^5 = 0.0625 */
#define PAIRED_DRAWS 10000 /* bootstrap resamples */
#define PAIRED_SEED 1      /* the bootstrap's generator: the same interval every run */

/* One test of random - plain: over n units (tasks, or pairs) standing for
 * pairs pairs, lower of them below 0. */
typedef struct {
    size_t n, pairs, lower;
    double mean, lo, hi, p;
    bool exact;
    ClaimVerdict v;
} Paired;

/* The differences random - plain of the means over seeds on band: each
 * pair's (in d, *n_d of them) and each task's mean over its pairs (in
 * task, *n_task); only the pairs where both forms reach gate at N (gate
 * 0: every pair with both measured), and the tasks with one or more. */
static void differences(const BenchPage *bp, Band band, double gate, double *d, size_t *n_d,
                        double *task, size_t *n_task) {
    const ExpResults *r = bp->r;
    *n_d = *n_task = 0;
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        double sum = 0.0;
        size_t k = 0;
        for (size_t p = 0; p < bp->pairs.n; p++) {
            const char *name = r->set.bench_task[t],
                       *rnd = exp_bench_column(&r->set, bp->pairs.rnd[p]),
                       *pl = exp_bench_column(&r->set, bp->pairs.plain[p]);
            double a = exp_bench_stat(r, name, rnd, band, false).mean;
            double b = exp_bench_stat(r, name, pl, band, false).mean;
            bool in = gate == 0.0 || (exp_bench_at_N(r, name, rnd) >= gate &&
                                      exp_bench_at_N(r, name, pl) >= gate);
            if (in && !isnan(a) && !isnan(b))
                d[(*n_d)++] = a - b, sum += a - b, k++;
        }
        if (k)
            task[(*n_task)++] = sum / (double)k;
    }
}

/* The signed-rank test and the bootstrap interval over n units; the
 * verdict: agrees when p < alpha and the interval lies above 0,
 * disagrees when p < alpha and it lies below, else cannot tell, or
 * cannot be tested with fewer than PAIRED_MIN units. */
static Paired test_units(const double *d, size_t n, size_t pairs) {
    Paired x = {.n = n, .pairs = pairs, .mean = NAN, .lo = NAN, .hi = NAN, .p = NAN,
                .v = CLAIM_UNTESTABLE};
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += d[i], x.lower += d[i] < 0.0;
    if (n)
        x.mean = sum / (double)n;
    if (n < PAIRED_MIN)
        return x;
    x.p = wilcoxon_signed_rank_p(d, n, &x.exact);
    bootstrap_mean_ci(d, n, PAIRED_DRAWS, PAIRED_SEED, &x.mean, &x.lo, &x.hi);
    x.v = x.p < VERDICT_ALPHA && x.lo > 0.0   ? CLAIM_AGREES
          : x.p < VERDICT_ALPHA && x.hi < 0.0 ? CLAIM_DISAGREES
                                              : CLAIM_CANNOT_TELL;
    return x;
}

/* The tests on band at gate: by task (units[0]) and by pair (units[1]). */
static void tests_at(const BenchPage *bp, Band band, double gate, Paired units[2]) {
    size_t T = bp->r->set.bench_n_tasks, n_d, n_task;
    double *d = exp_page_alloc(T * bp->pairs.n + 1, sizeof *d);
    double *task = exp_page_alloc(T + 1, sizeof *task);
    if (!d || !task) { /* exp_page_end reports it: the page is not written */
        units[0] = units[1] = test_units(NULL, 0, 0);
    } else {
        differences(bp, band, gate, d, &n_d, task, &n_task);
        units[0] = test_units(task, n_task, n_d);
        units[1] = test_units(d, n_d, n_d);
    }
    free(d);
    free(task);
}

/* "5.0e-07 (exact)": p to two digits and the method that gave it. */
static void p_text(Buf *b, const Paired *x) {
    buf_printf(b, "%#.2g ", x->p);
    PROSE_TEXT(b, x->exact ? "bench.method.exact" : "bench.method.normal");
}

/* A row of a gate's table (after the first, on a line of its own): the
 * gate, the units it keeps, their test; with the verdict when asked. */
static void gate_row(Buf *rows, double gate, const Paired *x, bool by_task) {
    buf_printf(rows, "%s| ", rows->n ? "\n" : "");
    if (gate == 0.0)
        PROSE_TEXT(rows, "bench.claim1.ungated");
    else
        buf_printf(rows, "%.2f", gate);
    buf_printf(rows, " | %zu |", x->n);
    if (by_task)
        buf_printf(rows, " %zu |", x->pairs);
    if (x->n == 0 || x->v == CLAIM_UNTESTABLE) { /* the words in the last column */
        if (x->n)
            buf_printf(rows, " %+.3f", x->mean);
        buf_printf(rows, by_task ? " | | | " : " | | ");
        PROSE_TEXT(rows, x->n ? "bench.claim1.too_few" : "bench.claim1.no_pair");
        buf_printf(rows, " |");
        return;
    }
    buf_printf(rows, " %+.3f | [%+.3f, %+.3f] | ", x->mean, x->lo, x->hi);
    p_text(rows, x);
    buf_printf(rows, " |");
    if (by_task)
        buf_printf(rows, " %s |", claim_words(x->v));
}

/* The primary test, by task, ungated then at each gate; the verdict
 * stands only if no gate changes it. The pairs' reading below it. */
static void primary(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    Band out = exp_bench_tested(r);
    Buf rows = {0}, pair_rows = {0};
    ClaimVerdict v0 = CLAIM_UNTESTABLE;
    bool moved = false;
    for (size_t g = 0; g < N_GATES; g++) {
        Paired x[2];
        tests_at(bp, out, GATES[g], x);
        gate_row(&rows, GATES[g], &x[0], true);
        gate_row(&pair_rows, GATES[g], &x[1], false);
        if (g == 0)
            v0 = x[0].v;
        else if (x[0].v != CLAIM_UNTESTABLE && x[0].v != v0)
            moved = true;
    }
    Buf tie = {0}, zero = {0}, gates = {0};
    exp_tiny_text(&tie, RANK_TIE);
    exp_tiny_text(&zero, WILCOXON_ZERO);
    for (size_t g = 1; g < N_GATES; g++) /* "0.80, 0.85, 0.90 and 0.95" */
        buf_printf(&gates, "%s%.2f", g == 1 ? "" : g + 1 == N_GATES ? " and " : ", ", GATES[g]);
    PROSE(b, "bench.claim1", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_count("encodings", bp->pairs.n), pv_count("tasks", r->set.bench_n_tasks),
          pv_buf("tie", &tie), pv_buf("zero", &zero), pv_count("draws", PAIRED_DRAWS),
          pv_count("exact_max", WILCOXON_EXACT_MAX), pv_real("alpha", VERDICT_ALPHA),
          pv_count("min_units", PAIRED_MIN), pv_real("learned", EXP_LEARNED),
          pv_count("N", r->set.bench_N), pv_buf("gates", &gates), pv_buf("rows", &rows),
          pv_text("verdict", claim_words(moved ? CLAIM_CANNOT_TELL : v0)),
          moved ? pv_tmpl("why", "bench.claim1.moved") : pv_text("why", ""));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &tie);
    exp_bench_part_done(b, &zero);
    exp_bench_part_done(b, &gates);
    PROSE(b, "bench.claim1.pairs", pv_count("pairs", bp->pairs.n * r->set.bench_n_tasks),
          pv_count("encodings", bp->pairs.n), pv_count("N", r->set.bench_N),
          pv_buf("rows", &pair_rows));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
    exp_bench_part_done(b, &pair_rows);
}

/* How the randomized forms stand on band, in words: lower, higher, or
 * not told apart from the plain ones, with the points and p. */
static void cost_words(Buf *b, const Paired *x) {
    if (x->v == CLAIM_UNTESTABLE) {
        PROSE(b, "bench.cost.too_few", pv_real("points", 100.0 * x->mean),
              pv_count("min_units", PAIRED_MIN));
        return;
    }
    Buf p = {0};
    buf_printf(&p, "%#.2g", x->p);
    PROSE(b, x->v == CLAIM_DISAGREES ? "bench.cost.lower"
             : x->v == CLAIM_AGREES  ? "bench.cost.higher"
                                     : "bench.cost.untold",
          pv_real("points", 100.0 * x->mean), pv_buf("p", &p),
          pv_tmpl("method", x->exact ? "bench.cost.exact" : "bench.cost.normal"));
    exp_bench_part_done(b, &p);
}

/* A row of the cost's table: the lengths, the task-level test in points,
 * and the pairs below 0. */
static void cost_row(Buf *rows, Band band, const Paired x[2]) {
    buf_printf(rows, "%s| ", rows->n ? "\n" : "");
    if (band.lo == band.hi)
        buf_printf(rows, "%zu", band.lo);
    else
        buf_printf(rows, "%zu..%zu", band.lo, band.hi);
    buf_printf(rows, " | %+.1f | %zu | ", 100.0 * x[0].mean, x[0].lower);
    if (x[0].v == CLAIM_UNTESTABLE) {
        buf_printf(rows, "| ");
        PROSE_TEXT(rows, "bench.claim1.too_few");
    } else {
        buf_printf(rows, "[%+.1f, %+.1f] | ", 100.0 * x[0].lo, 100.0 * x[0].hi);
        p_text(rows, &x[0]);
    }
    buf_printf(rows, " | %zu |", x[1].lower);
}

/* The in-distribution cost beside the gain: the task-level test at N and
 * over 1..N, ungated, with the test lengths' row first. */
static void cost(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    size_t N = r->set.bench_N;
    Band bands[3] = {exp_bench_tested(r), {N, N}, exp_bench_trained(r)};
    Buf rows = {0}, words[2] = {{0}, {0}};
    bool paid = false;
    for (size_t k = 0; k < 3; k++) {
        Paired x[2];
        tests_at(bp, bands[k], 0.0, x);
        cost_row(&rows, bands[k], x);
        if (k) {
            cost_words(&words[k - 1], &x[0]);
            paid = paid || x[0].v == CLAIM_DISAGREES;
        }
    }
    PROSE(b, "bench.cost", pv_count("N", N), pv_count("tasks", r->set.bench_n_tasks),
          pv_count("pairs", bp->pairs.n * r->set.bench_n_tasks), pv_buf("rows", &rows),
          pv_buf("at_N", &words[0]), pv_buf("trained", &words[1]),
          paid ? pv_tmpl("finding", "bench.cost.paid") : pv_text("finding", ""));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
    exp_bench_part_done(b, &words[0]);
    exp_bench_part_done(b, &words[1]);
}

void exp_bench_randomized(Buf *b, const BenchPage *p) {
    primary(b, p);
    cost(b, p);
}

/* Each test's procedure to the detail a reader needs to redo it: the U
 * test (stats.c's mw_tail and tost_p), Hodges-Lehmann (hl_rank), Cliff's
 * delta (cliffs_size), the verdict's sign (verdict_compare), and the
 * bootstrap (paired.c's bootstrap_mean_ci, core/rng.c): its generator,
 * its draws, the units' order (differences(): the grid's tasks, a task's
 * pairs in bp->pairs' order) and the order statistics it reads. */
void exp_bench_how(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    Buf tie = {0}, order = {0};
    exp_tiny_text(&tie, RANK_TIE);
    for (size_t p = 0; p < bp->pairs.n; p++)
        buf_printf(&order, "%s%s", p == 0 ? "" : p + 1 == bp->pairs.n ? " and " : ", ",
                   exp_bench_column(&r->set, bp->pairs.plain[p]));
    double last = (double)(PAIRED_DRAWS - 1);
    PROSE(b, "bench.how", pv_buf("tie", &tie), pv_count("exact_all", MW_EXACT_MAX),
          pv_count("exact_most", MW_EXACT_MAX / 2),
          pv_real("margin", VERDICT_MARGIN), pv_real("small", CLIFF_SMALL),
          pv_real("medium", CLIFF_MEDIUM), pv_real("large", CLIFF_LARGE),
          pv_real("alpha", VERDICT_ALPHA), pv_count("seed", PAIRED_SEED),
          pv_count("draws", PAIRED_DRAWS), pv_buf("order", &order),
          pv_count("lo_at", (size_t)floor(0.025 * last)),
          pv_count("hi_at", (size_t)ceil(0.975 * last)));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &tie);
    exp_bench_part_done(b, &order);
}
