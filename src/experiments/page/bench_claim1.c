/* Ruoss et al.'s first claim on the benchmark's page: the randomized
 * forms raise the test accuracy on average over tasks and encodings.
 * The primary test takes the task as the unit, ungated and at each gate,
 * each taking the pairs the pair table would compare under it
 * (bench_paired.c); which pairs each gate keeps; how the verdict stands
 * when each cell's seeds are drawn again; how much of the gain one task
 * carries; and the pairs as a secondary reading. The sentences are
 * templates (templates/bench-4-claim1.md): the numbers, the rows and the
 * verdicts are this file's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/rng.h"
#include "../../stats/stats.h"
#include "bench.h"
#include "errors.h"
#include "prose.h"
#include "tables.h"

/* ---- the stability: each cell's seeds drawn again ---- */

/* A form's seeds drawn again: n indices of its n seeds, the same for
 * its accuracy past N (s) and at N (at_N); each mean the sum in the
 * order drawn over n. */
static void redraw(Rng *rng, Stat *s, Stat *at_N) {
    size_t n = s->n;
    if (n == 0 || isnan(s->mean))
        return;
    Stat a = *s, b = *at_N;
    double sum = 0.0, sum_N = 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t k = rng_below(rng, n);
        a.v[i] = s->v[k], sum += a.v[i];
        if (at_N->n == n)
            b.v[i] = at_N->v[k], sum_N += b.v[i];
    }
    a.mean = sum / (double)n;
    *s = a;
    if (at_N->n == n) {
        b.mean = sum_N / (double)n;
        *at_N = b;
    }
}

int exp_bench_stability(BenchStability *s, const BenchPage *bp, size_t resamples) {
    memset(s, 0, sizeof *s);
    BenchPairGrid g, one;
    if (exp_bench_pair_grid(&g, bp, exp_bench_tested(bp->r), true))
        return -1;
    size_t cells = g.tasks * g.pairs;
    one = g;
    one.at = exp_page_alloc(cells + 1, sizeof *one.at);
    s->verdict = exp_page_alloc(resamples * (BENCH_GATES + 1) + 1, 1);
    if (!one.at || !s->verdict) {
        free(one.at);
        exp_bench_pair_grid_free(&g);
        exp_bench_stability_free(s);
        return -1;
    }
    for (size_t i = 0; i < resamples; i++) {
        Rng rng;
        rng_seed(&rng, BENCH_STABILITY_SEED + i + 1);
        memcpy(one.at, g.at, cells * sizeof *one.at);
        for (size_t k = 0; k < cells; k++) {
            redraw(&rng, &one.at[k].rnd, &one.at[k].rnd_N);
            redraw(&rng, &one.at[k].plain, &one.at[k].plain_N);
        }
        Paired x[BENCH_GATES][2];
        bool moved;
        ClaimVerdict v = exp_bench_claim1(&one, x, false, &moved);
        unsigned char *row = &s->verdict[i * (BENCH_GATES + 1)];
        for (size_t k = 0; k < BENCH_GATES; k++)
            row[k] = (unsigned char)x[k][0].v;
        row[BENCH_GATES] = (unsigned char)v;
        s->count[v]++;
    }
    s->n = resamples;
    free(one.at);
    exp_bench_pair_grid_free(&g);
    return 0;
}

void exp_bench_stability_free(BenchStability *s) {
    free(s->verdict);
    memset(s, 0, sizeof *s);
}

/* A verdict as the CSV writes it: one word, no spaces. */
static const char *verdict_token(unsigned v) {
    static const char *const T[] = {"agrees", "disagrees", "cannot_tell", "too_few"};
    return v < 4 ? T[v] : "?";
}

int exp_bench_stability_csv(const BenchPage *bp, const char *dir, Err *e) {
    const BenchStability *s = &bp->stability;
    Buf b = {0};
    buf_printf(&b, "resample,seed");
    for (size_t k = 0; k < BENCH_GATES; k++)
        buf_printf(&b, exp_bench_gates[k] > 0.0 ? ",gate_%.2f" : ",ungated", exp_bench_gates[k]);
    buf_printf(&b, ",verdict\n");
    for (size_t i = 0; i < s->n; i++) {
        buf_printf(&b, "%zu,%zu", i + 1, (size_t)BENCH_STABILITY_SEED + i + 1);
        for (size_t k = 0; k <= BENCH_GATES; k++)
            buf_printf(&b, ",%s", verdict_token(s->verdict[i * (BENCH_GATES + 1) + k]));
        buf_printf(&b, "\n");
    }
    return exp_bench_csv(dir, "stability.csv", &b, e);
}

/* ---- the section ---- */

/* A row of a gate's table (after the first, on a line of its own): the
 * gate, the units it keeps (by task, the pairs it leaves out too: a form
 * did not learn, both at the ceiling, both at the floor), their test;
 * with the verdict when by task. */
static void gate_row(Buf *rows, const BenchPairGrid *g, size_t k, const Paired *x,
                     bool by_task) {
    double gate = exp_bench_gates[k];
    buf_printf(rows, "%s| ", rows->n ? "\n" : "");
    if (gate == 0.0)
        PROSE_TEXT(rows, "bench.claim1.ungated");
    else
        buf_printf(rows, "%.2f", gate);
    buf_printf(rows, " | %zu |", x->n);
    if (by_task) {
        size_t out[V_NO_RUNS + 1] = {0};
        for (size_t t = 0; t < g->tasks; t++)
            for (size_t p = 0; p < g->pairs; p++)
                out[exp_bench_pair_in(g, t, p, gate)]++;
        buf_printf(rows, " %zu | %zu, %zu, %zu |", x->pairs, out[V_UNLEARNED], out[V_CEILING],
                   out[V_FLOOR]);
    }
    if (x->n == 0 || x->v == CLAIM_UNTESTABLE) { /* the words in the last column */
        if (x->n) {
            buf_printf(rows, " ");
            exp_fixed(rows, x->mean, 3, true);
        }
        buf_printf(rows, by_task ? " | | | " : " | | ");
        PROSE_TEXT(rows, x->n ? "bench.claim1.too_few" : "bench.claim1.no_pair");
        buf_printf(rows, " |");
        return;
    }
    buf_printf(rows, " ");
    exp_fixed(rows, x->mean, 3, true);
    buf_printf(rows, " | [");
    exp_fixed(rows, x->lo, 3, true);
    buf_printf(rows, ", ");
    exp_fixed(rows, x->hi, 3, true);
    buf_printf(rows, "] | ");
    exp_bench_p_text(rows, x);
    buf_printf(rows, " |");
    if (by_task)
        buf_printf(rows, " %s |", claim_words(x->v));
}

/* Which pairs each gate keeps: a row per task, a cell per gate naming the
 * encodings that enter (their plain names), "—" for none: a pair not
 * named is left out, the gate table says why. */
static void kept_table(Buf *rows, const BenchPairGrid *g, const BenchPage *bp) {
    const ExpSettings *set = &bp->r->set;
    buf_printf(rows, "| task |");
    for (size_t k = 0; k < BENCH_GATES; k++) {
        buf_printf(rows, " ");
        if (exp_bench_gates[k] > 0.0)
            buf_printf(rows, "%.2f", exp_bench_gates[k]);
        else
            PROSE_TEXT(rows, "bench.claim1.ungated");
        buf_printf(rows, " |");
    }
    buf_printf(rows, "\n| --- |");
    for (size_t k = 0; k < BENCH_GATES; k++)
        buf_printf(rows, " --- |");
    for (size_t t = 0; t < g->tasks; t++) {
        buf_printf(rows, "\n| %s |", set->bench_task[t]);
        for (size_t k = 0; k < BENCH_GATES; k++) {
            size_t in = 0;
            buf_printf(rows, " ");
            for (size_t p = 0; p < g->pairs; p++)
                if (exp_bench_pair_in(g, t, p, exp_bench_gates[k]) == V_TESTABLE)
                    buf_printf(rows, "%s%s", in++ ? ", " : "",
                               exp_bench_column(set, bp->pairs.plain[p]));
            buf_printf(rows, "%s |", in ? "" : "—");
        }
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How much of the ungated gain one task carries: the mean over the other
 * tasks without each (its lowest and highest, and the tasks left out
 * then), the median task, and the abstract's 12.0 points against the
 * interval. */
static void one_task(Buf *b, const BenchPairGrid *g, const BenchPage *bp, const Paired *x) {
    const ExpSettings *set = &bp->r->set;
    double *d = exp_page_alloc(g->tasks * g->pairs + 1, sizeof *d);
    double *task = exp_page_alloc(g->tasks + 1, sizeof *task);
    size_t *which = exp_page_alloc(g->tasks + 1, sizeof *which);
    size_t n_d, n = 0;
    if (!d || !task || !which || x->n < 2)
        goto done;
    exp_bench_differences(g, 0.0, true, d, &n_d, task, &n);
    /* the tasks that entered, by their place in the grid */
    for (size_t t = 0, k = 0; t < g->tasks; t++)
        for (size_t p = 0; p < g->pairs; p++)
            if (exp_bench_pair_in(g, t, p, 0.0) == V_TESTABLE) {
                which[k++] = t;
                break;
            }
    double sum = 0.0, lo = INFINITY, hi = -INFINITY;
    size_t at_lo = 0, at_hi = 0;
    for (size_t i = 0; i < n; i++)
        sum += task[i];
    for (size_t i = 0; i < n; i++) {
        double without = (sum - task[i]) / (double)(n - 1);
        if (without < lo)
            lo = without, at_lo = which[i];
        if (without > hi)
            hi = without, at_hi = which[i];
    }
    qsort(task, n, sizeof *task, by_value);
    double median = n % 2 ? task[n / 2] : 0.5 * (task[n / 2 - 1] + task[n / 2]);
    double paper = BENCH_PAPER_GAIN / 100.0;
    Buf against = {0}; /* the abstract's gain against the interval, where there is one */
    if (isnan(x->lo))
        PROSE(&against, "bench.claim1.paper_no_interval", pv_real("paper", BENCH_PAPER_GAIN));
    else
        PROSE(&against, "bench.claim1.paper", pv_real("paper", BENCH_PAPER_GAIN),
              pv_real("ci_lo", 100.0 * x->lo), pv_real("ci_hi", 100.0 * x->hi),
              pv_tmpl("where", paper > x->hi   ? "bench.claim1.paper_above"
                               : paper < x->lo ? "bench.claim1.paper_below"
                                               : "bench.claim1.paper_inside"));
    PROSE(b, "bench.claim1.one_task", pv_count("tasks", n),
          pv_real("lo", 100.0 * lo), pv_text("lo_task", set->bench_task[at_lo]),
          pv_real("hi", 100.0 * hi), pv_text("hi_task", set->bench_task[at_hi]),
          pv_real("median", 100.0 * median), pv_buf("against", &against));
    exp_bench_part_done(b, &against);
done:
    free(d);
    free(task);
    free(which);
}

/* The stability's sentence: the share of resamples giving each verdict. */
static void stability_text(Buf *b, const BenchPage *bp) {
    const BenchStability *s = &bp->stability;
    double n = s->n ? (double)s->n : NAN;
    PROSE(b, "bench.claim1.stability", pv_count("resamples", s->n),
          pv_count("seeds", bp->r->set.seeds),
          pv_real("agrees", (double)s->count[CLAIM_AGREES] / n),
          pv_real("cannot_tell", (double)s->count[CLAIM_CANNOT_TELL] / n),
          pv_real("disagrees", (double)s->count[CLAIM_DISAGREES] / n),
          pv_real("untestable", (double)s->count[CLAIM_UNTESTABLE] / n));
}

void exp_bench_claim1_section(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    Band out = exp_bench_tested(r);
    BenchPairGrid g;
    if (exp_bench_pair_grid(&g, bp, out, true))
        return; /* exp_page_end reports it */
    Paired x[BENCH_GATES][2];
    bool moved;
    ClaimVerdict v = exp_bench_claim1(&g, x, true, &moved);
    Buf rows = {0}, pair_rows = {0}, tie = {0}, zero = {0}, gates = {0}, kept = {0},
        extra = {0};
    for (size_t k = 0; k < BENCH_GATES; k++) {
        gate_row(&rows, &g, k, &x[k][0], true);
        gate_row(&pair_rows, &g, k, &x[k][1], false);
    }
    exp_tiny_text(&tie, RANK_TIE);
    exp_tiny_text(&zero, WILCOXON_ZERO);
    for (size_t k = 1; k < BENCH_GATES; k++) /* "0.80, 0.85, 0.90 and 0.95" */
        buf_printf(&gates, "%s%.2f", k == 1 ? "" : k + 1 == BENCH_GATES ? " and " : ", ",
                   exp_bench_gates[k]);
    kept_table(&kept, &g, bp);
    one_task(&extra, &g, bp, &x[0][0]);
    if (extra.n)
        buf_printf(&extra, " ");
    stability_text(&extra, bp);
    PROSE(b, "bench.claim1", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_count("encodings", bp->pairs.n),
          pv_buf("tie", &tie), pv_buf("zero", &zero), pv_count("draws", BENCH_PAIRED_DRAWS),
          pv_count("exact_max", WILCOXON_EXACT_MAX), pv_real("alpha", VERDICT_ALPHA),
          pv_count("min_units", BENCH_PAIRED_MIN), pv_real("learned", EXP_LEARNED),
          pv_real("ceiling_at", VERDICT_CEILING), pv_real("floor_above", VERDICT_FLOOR_ABOVE),
          pv_count("N", r->set.bench_N), pv_buf("gates", &gates), pv_buf("rows", &rows),
          pv_text("verdict", claim_words(v)),
          moved ? pv_tmpl("why", "bench.claim1.moved") : pv_text("why", ""),
          pv_buf("extra", &extra), pv_buf("kept", &kept),
          pv_real("paper", BENCH_PAPER_GAIN));
    buf_printf(b, "\n\n");
    PROSE(b, "bench.claim1.pairs", pv_count("pairs", bp->pairs.n * r->set.bench_n_tasks),
          pv_count("encodings", bp->pairs.n), pv_count("N", r->set.bench_N),
          pv_buf("rows", &pair_rows));
    buf_printf(b, "\n\n");
    Buf *parts[] = {&rows, &pair_rows, &tie, &zero, &gates, &kept, &extra};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        exp_bench_part_done(b, parts[i]);
    exp_bench_pair_grid_free(&g);
}
