/* The benchmark page's figures (accuracy by input length, a panel per
 * task) and its closing sections: Ruoss et al.'s claims checked one by
 * one under the results page's rules (verdict.h), with the numbers that
 * decide each. The sentences are templates (templates/bench-3-claims.md):
 * the verdicts and the tables' rows are this file's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plot/chart.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "prose.h"
#include "stats.h"
#include "tables.h"

/* ---- figures ---- */

/* The columns of each figure: the paper's (the floor, none, first, then
 * Ruoss et al.'s encodings, each randomized form dashed in its plain one's
 * colour), and none with the others. The floor is column 0 (grid.h). */
#define FLOOR exp_bench_column(&r->set, 0)

static int figure(const ExpResults *r, const char *path, const char *const *cols, size_t n_cols,
                  Err *e) {
    size_t M = r->set.bench_M, T = r->set.bench_n_tasks;
    double *x = xcalloc((1 + T * n_cols) * (M + 1), sizeof *x, "a benchmark figure", e);
    Series *s = xcalloc(T * (n_cols + 1), sizeof *s, "a benchmark figure", e);
    LineChart *lc = xcalloc(T, sizeof *lc, "a benchmark figure", e);
    char(*titles)[96] = xcalloc(T, sizeof *titles, "a benchmark figure", e);
    if (!x || !s || !lc || !titles) {
        free(x), free(s), free(lc), free(titles);
        return ERR_RUNTIME;
    }
    for (size_t len = 0; len <= M; len++)
        x[len] = (double)len;
    static const double vy[2] = {0.0, 1.0};
    double vx[2] = {(double)r->set.bench_N, (double)r->set.bench_N};
    for (size_t t = 0; t < T; t++) {
        Series *panel = s + t * (n_cols + 1);
        for (size_t c = 0, colour = 0; c < n_cols; c++) {
            double *y = x + (1 + t * n_cols + c) * (M + 1);
            for (size_t len = 1; len <= M; len++)
                y[len] = exp_bench_stat(r, r->set.bench_task[t], cols[c], (Band){len, len}, false)
                             .mean;
            bool randomized = strncmp(cols[c], "random ", 7) == 0;
            colour += c > 0 && !randomized;
            panel[c] = (Series){.x = x + 1, .y = y + 1, .n = M, .label = cols[c],
                                .color = series_color(colour), .dashed = randomized,
                                .markers = !randomized};
        }
        panel[n_cols] = (Series){.x = vx, .y = vy, .n = 2, .label = "N, the longest trained",
                                 .color = RGB_GREY, .dashed = true};
        snprintf(titles[t], sizeof titles[t], "%s (%s)", r->set.bench_task[t],
                 task_level_name(task_find(r->set.bench_task[t])->level));
        /* the legend once, beside the first panel */
        lc[t] = (LineChart){.series = panel, .n_series = n_cols + 1, .title = titles[t],
                            .xlabel = "input length", .ylabel = "accuracy", .plot_w = 300,
                            .plot_h = 170, .fixed_y = true, .ymin = 0.0, .ymax = 1.0,
                            .x_integer = true, .legend = t == 0};
    }
    int rc = linecharts_png(path, lc, T, 3, e);
    free(x), free(s), free(lc), free(titles);
    return rc;
}

int exp_bench_figures(const ExpResults *r, const char *dir, Err *e) {
    char path[4096];
    snprintf(path, sizeof path, "%s/img/benchmark/paper.png", dir);
    const char *paper[EXP_BENCH_MAX];
    for (size_t c = 0; c < exp_bench_paper(&r->set); c++)
        paper[c] = exp_bench_column(&r->set, c);
    int rc = figure(r, path, paper, exp_bench_paper(&r->set), e);
    /* the floor, then every column past the paper's */
    const char *others[1 + EXP_BENCH_MAX] = {FLOOR};
    size_t n = 1;
    for (size_t c = exp_bench_paper(&r->set); c < r->set.bench_columns; c++)
        others[n++] = exp_bench_column(&r->set, c);
    if (n == 1) /* none alone: no figure (exp_publish_page removes an old one) */
        return rc;
    snprintf(path, sizeof path, "%s/img/benchmark/others.png", dir);
    return rc ? rc : figure(r, path, others, n, e);
}

/* ---- claims ---- */

/* The column with the highest mean over seeds on task t and band. */
static size_t best_column(const ExpResults *r, size_t t, Band band, Stat *best) {
    size_t at = 0;
    *best = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, 0), band, false);
    for (size_t c = 1; c < r->set.bench_columns; c++) {
        Stat s = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, c), band, false);
        if (s.mean > best->mean)
            *best = s, at = c;
    }
    return at;
}

/* The paper's columns that have a randomized form (which follows each):
 * their indices, in plain[], and how many. */
static size_t plain_forms(const ExpResults *r, size_t *plain) {
    size_t n = 0;
    for (size_t c = 0; c + 1 < exp_bench_paper(&r->set); c++) {
        bool randomized;
        const char *scheme = exp_bench_scheme(exp_bench_column(&r->set, c + 1), &randomized);
        if (randomized && strcmp(scheme, exp_bench_column(&r->set, c)) == 0)
            plain[n++] = c;
    }
    return n;
}

/* The accuracy at the longest trained length N, the mean over seeds: what
 * "learned the training lengths" reads on this page (a mean over 1..N
 * would pass a model that fails at N). */
static double at_N(const ExpResults *r, const char *task, const char *column) {
    size_t N = r->set.bench_N;
    return exp_bench_stat(r, task, column, (Band){N, N}, false).mean;
}

/* The paired test's gates on the accuracy at N, 0 for none. */
static const double GATES[] = {0.0, 0.80, 0.85, 0.90, 0.95};
#define N_GATES (sizeof GATES / sizeof *GATES)
#define PAIRED_MIN 6        /* fewer pairs cannot reach p < 0.05: 2 / 2^5 = 0.0625 */
#define PAIRED_DRAWS 10000  /* bootstrap resamples */

typedef struct {
    size_t n;
    double mean, lo, hi, p;
    ClaimVerdict v;
} Paired;

/* Each (task, encoding) pair's difference, randomized minus plain, of the
 * means over seeds on the test lengths; only the pairs where both forms
 * reach gate at N (gate 0: every pair with both measured). */
static Paired paired_at(const ExpResults *r, const size_t *plain, size_t pairs, double gate) {
    Paired x = {.mean = NAN, .lo = NAN, .hi = NAN, .p = NAN, .v = CLAIM_UNTESTABLE};
    double *d = exp_page_alloc(pairs * r->set.bench_n_tasks + 1, sizeof *d);
    if (!d)
        return x;
    Band out = exp_bench_tested(r);
    for (size_t t = 0; t < r->set.bench_n_tasks; t++)
        for (size_t p = 0; p < pairs; p++) {
            const char *task = r->set.bench_task[t], *rnd = exp_bench_column(&r->set, plain[p] + 1),
                       *pl = exp_bench_column(&r->set, plain[p]);
            double a = exp_bench_stat(r, task, rnd, out, false).mean;
            double b = exp_bench_stat(r, task, pl, out, false).mean;
            bool in = gate == 0.0 || (at_N(r, task, rnd) >= gate && at_N(r, task, pl) >= gate);
            if (in && !isnan(a) && !isnan(b))
                d[x.n++] = a - b;
        }
    if (x.n >= PAIRED_MIN) {
        x.p = wilcoxon_signed_rank_p(d, x.n);
        bootstrap_mean_ci(d, x.n, PAIRED_DRAWS, 1, &x.mean, &x.lo, &x.hi);
        x.v = x.p < VERDICT_ALPHA && x.lo > 0.0   ? CLAIM_AGREES
              : x.p < VERDICT_ALPHA && x.hi < 0.0 ? CLAIM_DISAGREES
                                                  : CLAIM_CANNOT_TELL;
    } else if (x.n) {
        double s = 0.0;
        for (size_t i = 0; i < x.n; i++)
            s += d[i];
        x.mean = s / (double)x.n;
    }
    free(d);
    return x;
}

/* One row of claim 1's table (after the first, on a line of its own):
 * the gate, the pairs it keeps, and their test. */
static void paired_row(Buf *rows, double gate, const Paired *x) {
    if (gate == 0.0)
        buf_printf(rows, "%s| none | %zu | ", rows->n ? "\n" : "", x->n);
    else
        buf_printf(rows, "%s| %.2f | %zu | ", rows->n ? "\n" : "", gate, x->n);
    if (x->n == 0) {
        buf_printf(rows, "| | | ");
        PROSE_TEXT(rows, "bench.claim1.no_pair");
        buf_printf(rows, " |");
    } else if (x->v == CLAIM_UNTESTABLE) {
        buf_printf(rows, "%+.3f | | | ", x->mean);
        PROSE_TEXT(rows, "bench.claim1.too_few");
        buf_printf(rows, " |");
    } else {
        buf_printf(rows, "%+.3f | [%+.3f, %+.3f] | %.2g | %s |", x->mean, x->lo, x->hi, x->p,
                   claim_words(x->v));
    }
}

/* Ruoss et al.'s first claim as they state it: the randomized forms raise
 * the test accuracy on average over tasks and encodings. One difference a
 * pair; ungated, then gated on the accuracy at N; the verdict stands only
 * if no gate changes it. */
static void paired_claim(Buf *b, const ExpResults *r, const size_t *plain, size_t pairs) {
    Band out = exp_bench_tested(r);
    Buf rows = {0};
    ClaimVerdict v0 = CLAIM_UNTESTABLE;
    bool moved = false;
    for (size_t g = 0; g < N_GATES; g++) {
        Paired x = paired_at(r, plain, pairs, GATES[g]);
        paired_row(&rows, GATES[g], &x);
        if (g == 0)
            v0 = x.v;
        else if (x.v != CLAIM_UNTESTABLE && x.v != v0)
            moved = true;
    }
    PROSE(b, "bench.claim1", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_count("draws", PAIRED_DRAWS), pv_real("alpha", VERDICT_ALPHA),
          pv_count("min_pairs", PAIRED_MIN), pv_count("N", r->set.bench_N),
          pv_real("lowest_gate", GATES[1]), pv_real("highest_gate", GATES[N_GATES - 1]),
          pv_buf("rows", &rows), pv_text("verdict", claim_words(moved ? CLAIM_CANNOT_TELL : v0)),
          moved ? pv_tmpl("why", "bench.claim1.moved") : pv_text("why", ""));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
}

/* The pairs of claim 1 one by one: each randomized form against its plain
 * one on every task past N, c[k] for task k / pairs and pair k % pairs;
 * the pairs that pass the results page's gate in f (Holm), decided. The
 * average gain over the pairs, the paper's way (best seeds) and over
 * seeds, in gain[0] and gain[1]. */
static void compare_pairs(const ExpResults *r, const size_t *plain, size_t pairs, Cmp *c,
                          TestFamily *f, double gain[2]) {
    Band out = exp_bench_tested(r);
    gain[0] = gain[1] = 0.0;
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++) {
        const char *task = r->set.bench_task[t];
        double floor = exp_bench_stat(r, task, FLOOR, out, false).mean;
        for (size_t p = 0; p < pairs; p++, k++) {
            const char *rnd = exp_bench_column(&r->set, plain[p] + 1), *pl = exp_bench_column(&r->set, plain[p]);
            Stat w = exp_bench_stat(r, task, rnd, out, false);
            Stat wo = exp_bench_stat(r, task, pl, out, false);
            exp_cmp(&c[k], w, wo, exp_gate(w, wo, floor, true, at_N(r, task, rnd),
                                           at_N(r, task, pl)), f);
            gain[0] += w.hi - wo.hi, gain[1] += w.mean - wo.mean;
        }
    }
    exp_claim_decide(c, pairs * r->set.bench_n_tasks, f);
}

/* The sentence that no pair could be told apart, when the fewest seeds of
 * a compared pair leave no U test a p below alpha; empty otherwise. */
static Buf few_seeds(const Cmp *c, size_t n) {
    Buf text = {0};
    double min_p = 0.0;
    size_t fewest = 0;
    for (size_t k = 0; k < n; k++)
        if (c[k].gate == V_TESTABLE) {
            double p = mann_whitney_min_p(c[k].a.n, c[k].b.n, 2);
            if (p > min_p)
                min_p = p, fewest = c[k].a.n < c[k].b.n ? c[k].a.n : c[k].b.n;
        }
    if (min_p >= VERDICT_ALPHA)
        PROSE(&text, "bench.pairs.few_seeds", pv_count("seeds", fewest),
              pv_real("min_p", min_p));
    return text;
}

/* The same claim pair by pair, the detail below the paired test: each
 * randomized form against its plain one on every task past N, the pairs
 * that pass the results page's gate one family (Holm); a row each, then
 * the count of each verdict and the average gain, the paper's way (best
 * seeds) and over seeds. */
static void randomized_pairs(Buf *b, const ExpResults *r, const size_t *plain, size_t pairs) {
    size_t n = pairs * r->set.bench_n_tasks;
    Cmp *c = exp_table_alloc(b, n, sizeof *c);
    if (!c)
        return;
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    double gain[2];
    compare_pairs(r, plain, pairs, c, &f, gain);
    Buf rows = {0}, few = few_seeds(c, n);
    size_t count[V_NOT_TOLD_APART + 1] = {0};
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++)
        for (size_t p = 0; p < pairs; p++, k++) {
            count[c[k].v]++;
            buf_printf(&rows, "%s| %s | %s − %s | %+.3f | ", k ? "\n" : "", r->set.bench_task[t],
                       exp_bench_column(&r->set, plain[p] + 1), exp_bench_column(&r->set, plain[p]),
                       c[k].a.mean - c[k].b.mean);
            exp_cmp_text(&rows, &c[k], &f);
            buf_printf(&rows, " |");
        }
    Band out = exp_bench_tested(r);
    PROSE(b, "bench.pairs", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_real("learned", EXP_LEARNED), pv_count("N", r->set.bench_N),
          pv_real("floor_above", VERDICT_FLOOR_ABOVE), pv_count("compared", f.n),
          pv_buf("rows", &rows), pv_count("pairs", n), pv_count("ahead", count[V_AHEAD]),
          pv_count("behind", count[V_BEHIND]), pv_real("margin", VERDICT_MARGIN),
          pv_count("equivalent", count[V_EQUIVALENT]),
          pv_count("not_told_apart", count[V_NOT_TOLD_APART]), pv_buf("few_seeds", &few),
          pv_count("not_compared",
                   count[V_UNLEARNED] + count[V_CEILING] + count[V_FLOOR] + count[V_NO_RUNS]),
          pv_count("unlearned", count[V_UNLEARNED]), pv_count("ceiling", count[V_CEILING]),
          pv_count("floor", count[V_FLOOR]), pv_real("gain_best", 100.0 * gain[0] / (double)n),
          pv_count("seeds", r->set.seeds), pv_real("gain_mean", 100.0 * gain[1] / (double)n));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
    exp_bench_part_done(b, &few);
    family_free(&f);
    free(c);
}

static void randomized_claim(Buf *b, const ExpResults *r) {
    size_t plain[EXP_BENCH_MAX], pairs = plain_forms(r, plain);
    paired_claim(b, r, plain, pairs);
    randomized_pairs(b, r, plain, pairs);
}

/* Which tasks a scheme learns on the training lengths, and which any
 * solves past them (EXP_SOLVED, on the mean over seeds and on the best
 * seed): a row per task, then the tasks none learns. */
static void solved_claim(Buf *b, const ExpResults *r) {
    Band in = {r->set.bench_N, r->set.bench_N}, out = exp_bench_tested(r);
    size_t unlearned = 0, solved = 0;
    Buf rows = {0}, not_learned = {0};
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat bi, bo;
        size_t ci = best_column(r, t, in, &bi), co = best_column(r, t, out, &bo);
        Stat none = exp_bench_stat(r, r->set.bench_task[t], FLOOR, out, false);
        buf_printf(&rows, "%s| %s | %s | %s %.3f | %s %.3f (%.3f) | %.3f |", t ? "\n" : "",
                   exp_bench_level(r, t), r->set.bench_task[t], exp_bench_column(&r->set, ci), bi.mean,
                   exp_bench_column(&r->set, co), bo.mean, bo.hi, none.mean);
        if (!(bi.mean >= EXP_LEARNED))
            buf_printf(&not_learned, "%s%s", unlearned++ ? ", " : ": ", r->set.bench_task[t]);
        solved += bo.mean >= EXP_SOLVED;
    }
    PROSE(b, "bench.claim2", pv_real("learned", EXP_LEARNED), pv_count("N", in.hi),
          pv_real("solved", EXP_SOLVED), pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_buf("rows", &rows), pv_count("unlearned", unlearned),
          pv_text("s", unlearned == 1 ? "" : "s"), pv_buf("which", &not_learned),
          pv_count("solved_tasks", solved), pv_count("tasks", r->set.bench_n_tasks),
          pv_text("are", solved == 1 ? "is" : "are"));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
    exp_bench_part_done(b, &not_learned);
}

/* How the level limits the best scheme: past N, the best column's mean
 * over seeds and none's, averaged over the tasks of each level. */
static void level_claim(Buf *b, const ExpResults *r) {
    Band out = exp_bench_tested(r);
    double level_best[4] = {0}, level_none[4] = {0};
    size_t level_n[4] = {0};
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat bo;
        best_column(r, t, out, &bo);
        size_t lv = task_find(r->set.bench_task[t])->level;
        level_best[lv] += bo.mean, level_n[lv]++;
        level_none[lv] += exp_bench_stat(r, r->set.bench_task[t], FLOOR, out, false).mean;
    }
    Buf levels = {0};
    for (size_t lv = 1; lv < 4; lv++)
        if (level_n[lv]) {
            buf_printf(&levels, " ");
            PROSE(&levels, "bench.claim3.level", pv_text("level", exp_bench_level_name(lv)),
                  pv_real("best", level_best[lv] / (double)level_n[lv]),
                  pv_real("none", level_none[lv] / (double)level_n[lv]));
            buf_printf(&levels, "%s", lv < 3 ? ";" : ".");
        }
    PROSE(b, "bench.claim3", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_buf("levels", &levels));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &levels);
}

void exp_bench_claims(Buf *b, const ExpResults *r) {
    PROSE_TEXT(b, "bench.figures");
    buf_printf(b, "\n\n");
    if (r->set.bench_columns > exp_bench_paper(&r->set)) {
        PROSE_TEXT(b, "bench.figures.others");
        buf_printf(b, "\n\n");
    }
    exp_rules(b, r->set.seeds);
    PROSE_TEXT(b, "bench.claims");
    buf_printf(b, "\n\n");
    randomized_claim(b, r);
    solved_claim(b, r);
    level_claim(b, r);
}
