/* The benchmark page's figures (accuracy by input length, a panel per
 * task) and its closing sections: Ruoss et al.'s claims checked one by
 * one under the results page's rules (verdict.h), with the numbers that
 * decide each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plot/chart.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "stats.h"
#include "tables.h"

/* ---- figures ---- */

/* The columns of each figure: the paper's (the floor, none, first, then
 * Ruoss et al.'s encodings, each randomized form dashed in its plain one's
 * colour), and none with the others. The floor is column 0 (grid.h). */
#define FLOOR exp_bench_column(0)

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
    for (size_t c = 0; c < exp_bench_paper(); c++)
        paper[c] = exp_bench_column(c);
    int rc = figure(r, path, paper, exp_bench_paper(), e);
    /* the floor, then every column past the paper's */
    const char *others[1 + EXP_BENCH_MAX] = {FLOOR};
    size_t n = 1;
    for (size_t c = exp_bench_paper(); c < r->set.bench_columns; c++)
        others[n++] = exp_bench_column(c);
    snprintf(path, sizeof path, "%s/img/benchmark/others.png", dir);
    return rc ? rc : figure(r, path, others, n, e);
}

/* ---- claims ---- */

/* The column with the highest mean over seeds on task t and band. */
static size_t best_column(const ExpResults *r, size_t t, Band band, Stat *best) {
    size_t at = 0;
    *best = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(0), band, false);
    for (size_t c = 1; c < r->set.bench_columns; c++) {
        Stat s = exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(c), band, false);
        if (s.mean > best->mean)
            *best = s, at = c;
    }
    return at;
}

/* The paper's columns that have a randomized form (which follows each):
 * their indices, in plain[], and how many. */
static size_t plain_forms(size_t *plain) {
    size_t n = 0;
    for (size_t c = 0; c + 1 < exp_bench_paper(); c++) {
        bool randomized;
        const char *scheme = exp_bench_scheme(exp_bench_column(c + 1), &randomized);
        if (randomized && strcmp(scheme, exp_bench_column(c)) == 0)
            plain[n++] = c;
    }
    return n;
}

/* Ruoss et al.'s first claim: each randomized form against its plain one,
 * on every task past N, one family (Holm); and the average gain, the
 * paper's way (best seeds) and over seeds. */
static void randomized_claim(Buf *b, const ExpResults *r) {
    size_t plain[EXP_BENCH_MAX], pairs = plain_forms(plain);
    size_t n = pairs * r->set.bench_n_tasks;
    Cmp *c = exp_table_alloc(b, n, sizeof *c);
    if (!c)
        return;
    Band in = exp_bench_trained(r), out = exp_bench_tested(r);
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    double gain_best = 0.0, gain_mean = 0.0;
    buf_printf(b, "## Ruoss et al.'s claims, checked\n\n"
               "**1. The randomized forms raise the test accuracy** (by 12.0 points on "
               "average over their 15 tasks and 5 encodings, their abstract). Each randomized "
               "form against its plain one, task by task, on %zu..%zu; the %zu pairs one "
               "family (Holm); a pair is compared only where both learned the training "
               "lengths (%.2f or more on 1..%zu) and where they are not both at the ceiling "
               "or at the floor (none's accuracy on the task + %.2f):\n\n"
               "| task | pair | random − plain (mean over seeds) | verdict |\n"
               "| --- | --- | ---: | --- |\n",
               out.lo, out.hi, n, EXP_LEARNED, in.hi, VERDICT_FLOOR_ABOVE);
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++) {
        const char *task = r->set.bench_task[t];
        double floor = exp_bench_stat(r, task, FLOOR, out, false).mean;
        for (size_t p = 0; p < pairs; p++, k++) {
            const char *rnd = exp_bench_column(plain[p] + 1), *pl = exp_bench_column(plain[p]);
            Stat w = exp_bench_stat(r, task, rnd, out, false);
            Stat wo = exp_bench_stat(r, task, pl, out, false);
            Stat w_in = exp_bench_stat(r, task, rnd, in, false);
            Stat wo_in = exp_bench_stat(r, task, pl, in, false);
            exp_cmp(&c[k], w, wo, exp_gate(w, wo, floor, true, w_in.mean, wo_in.mean), &f);
            gain_best += w.hi - wo.hi, gain_mean += w.mean - wo.mean;
        }
    }
    ClaimVerdict v = exp_claim_decide(c, n, &f);
    size_t count[V_NOT_TOLD_APART + 1] = {0};
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++)
        for (size_t p = 0; p < pairs; p++, k++) {
            count[c[k].v]++;
            buf_printf(b, "| %s | %s − %s | %+.3f | ", r->set.bench_task[t],
                       exp_bench_column(plain[p] + 1), exp_bench_column(plain[p]),
                       c[k].a.mean - c[k].b.mean);
            exp_cmp_text(b, &c[k], &f);
            buf_printf(b, " |\n");
        }
    buf_printf(b, "\nOf the %zu pairs, the randomized form is ahead in %zu, behind in %zu, "
               "equivalent within ±%.2f in %zu and not told apart in %zu; %zu are not "
               "compared (a form that did not learn the training lengths: %zu; both at the "
               "ceiling: %zu; both at the floor: %zu). On average over the tasks and the %s "
               "encodings the randomized forms change the test accuracy by %+.1f points the "
               "paper's way (the best seed of each) and by %+.1f over seeds (the mean), "
               "against +12.0 in the paper. The verdict on the claim: **%s**.\n\n",
               n, count[V_AHEAD], count[V_BEHIND], VERDICT_MARGIN, count[V_EQUIVALENT],
               count[V_NOT_TOLD_APART],
               count[V_UNLEARNED] + count[V_CEILING] + count[V_FLOOR] + count[V_NO_RUNS],
               count[V_UNLEARNED], count[V_CEILING], count[V_FLOOR], exp_words(pairs),
               100.0 * gain_best / (double)n, 100.0 * gain_mean / (double)n,
               claim_words(v));
    family_free(&f);
    free(c);
}

/* Which tasks a scheme learns on the training lengths, and which any
 * solves past them (EXP_SOLVED, on the mean over seeds and on the best
 * seed); and how the level limits the best of them. */
static void solved_claims(Buf *b, const ExpResults *r) {
    Band in = exp_bench_trained(r), out = exp_bench_tested(r);
    buf_printf(b, "**2. Which tasks an encoding solves.** A task is learned when a scheme's "
               "mean over seeds reaches %.2f on the training lengths 1..%zu, and solved when "
               "it does on %zu..%zu (Ruoss et al. read their best seeds: the best seed's "
               "number is beside it).\n\n"
               "| level | task | best on 1..%zu | best on %zu..%zu (its best seed) | none on "
               "%zu..%zu |\n| --- | --- | --- | --- | ---: |\n",
               EXP_SOLVED, in.hi, out.lo, out.hi, in.hi, out.lo, out.hi, out.lo, out.hi);
    size_t unlearned = 0, solved = 0;
    Buf not_learned = {0};
    double level_best[4] = {0}, level_none[4] = {0};
    size_t level_n[4] = {0};
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat bi, bo;
        size_t ci = best_column(r, t, in, &bi), co = best_column(r, t, out, &bo);
        Stat none = exp_bench_stat(r, r->set.bench_task[t], FLOOR, out, false);
        buf_printf(b, "| %s | %s | %s %.3f | %s %.3f (%.3f) | %.3f |\n", exp_bench_level(r, t),
                   r->set.bench_task[t], exp_bench_column(ci), bi.mean, exp_bench_column(co),
                   bo.mean, bo.hi, none.mean);
        if (!(bi.mean >= EXP_SOLVED))
            buf_printf(&not_learned, "%s%s", unlearned++ ? ", " : "", r->set.bench_task[t]);
        solved += bo.mean >= EXP_SOLVED;
        size_t lv = task_find(r->set.bench_task[t])->level;
        level_best[lv] += bo.mean, level_none[lv] += none.mean, level_n[lv]++;
    }
    buf_printf(b, "\nNo scheme learns the training lengths of %zu task%s%s%.*s; %zu of the %zu "
               "tasks %s solved past them by some scheme.\n\n",
               unlearned, unlearned == 1 ? "" : "s", unlearned ? ": " : "", TEXT(not_learned),
               solved, r->set.bench_n_tasks, solved == 1 ? "is" : "are");
    buf_free(&not_learned);
    buf_printf(b, "**3. Where the level limits every encoding.** The best scheme's mean "
               "accuracy on %zu..%zu, averaged over the tasks of each level, with none's "
               "beside it:", out.lo, out.hi);
    for (size_t lv = 1; lv < 4; lv++)
        if (level_n[lv])
            buf_printf(b, " %s %.3f (none %.3f)%s", exp_bench_level_name(lv),
                       level_best[lv] / (double)level_n[lv], level_none[lv] / (double)level_n[lv],
                       lv < 3 ? ";" : ".");
    buf_printf(b, " Delétang et al. relate which tasks a network generalizes on to their "
               "level; the figures above show, task by task, where each scheme falls off "
               "past N.\n\n");
}

void exp_bench_claims(Buf *b, const ExpResults *r) {
    buf_printf(b, "## Accuracy by length\n\nThe mean over seeds at each input length; N, the "
               "longest trained, dashed grey. Ruoss et al.'s encodings, each randomized form "
               "dashed in its plain one's colour:\n\n![accuracy by input length, Ruoss et "
               "al.'s encodings](img/benchmark/paper.png)\n\nThe other schemes:\n\n"
               "![accuracy by input length, the other schemes](img/benchmark/others.png)\n\n");
    exp_rules(b, r->set.seeds);
    randomized_claim(b, r);
    solved_claims(b, r);
}
