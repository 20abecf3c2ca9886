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
    if (n == 1) /* none alone: no figure (exp_publish_page removes an old one) */
        return rc;
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
            const char *task = r->set.bench_task[t], *rnd = exp_bench_column(plain[p] + 1),
                       *pl = exp_bench_column(plain[p]);
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

/* Ruoss et al.'s first claim as they state it: the randomized forms raise
 * the test accuracy on average over tasks and encodings. One difference a
 * pair; ungated, then gated on the accuracy at N; the verdict stands only
 * if no gate changes it. */
static void paired_claim(Buf *b, const ExpResults *r, const size_t *plain, size_t pairs) {
    Band out = exp_bench_tested(r);
    buf_printf(b, "## Ruoss et al.'s claims, checked\n\n"
               "**1. The randomized forms raise the test accuracy on average** (by 12.0 points "
               "\"on average\" over their 15 tasks, their abstract). Tested as stated, on the "
               "average: for each task and encoding, the randomized form's mean over seeds "
               "minus the plain form's, on %zu..%zu, one difference a pair; Wilcoxon's "
               "signed-rank test on them (two-sided) and a bootstrap 95%% interval of their "
               "mean (%d resamples). It agrees when p < %.2f and the interval lies above 0, "
               "disagrees when p < %.2f and it lies below 0, and cannot tell otherwise, or "
               "with fewer than %d pairs (2/2^5 = 0.0625: no p below 0.05 is possible). "
               "First every pair, then only those where both forms learned the training "
               "lengths (both means at length %zu at the gate or above), the gate from %.2f "
               "to %.2f; the verdict is the ungated one only if no gate changes it.\n\n"
               "| gate at length %zu | pairs | mean random − plain | 95%% interval | "
               "Wilcoxon p | verdict |\n| --- | ---: | ---: | --- | ---: | --- |\n",
               out.lo, out.hi, PAIRED_DRAWS, VERDICT_ALPHA, VERDICT_ALPHA, PAIRED_MIN,
               r->set.bench_N, GATES[1], GATES[N_GATES - 1], r->set.bench_N);
    ClaimVerdict v0 = CLAIM_UNTESTABLE;
    bool moved = false;
    for (size_t g = 0; g < N_GATES; g++) {
        Paired x = paired_at(r, plain, pairs, GATES[g]);
        if (g == 0)
            buf_printf(b, "| none | %zu | ", x.n);
        else
            buf_printf(b, "| %.2f | %zu | ", GATES[g], x.n);
        if (x.n == 0)
            buf_printf(b, "| | | no pair passes the gate |\n");
        else if (x.v == CLAIM_UNTESTABLE)
            buf_printf(b, "%+.3f | | | too few pairs |\n", x.mean);
        else
            buf_printf(b, "%+.3f | [%+.3f, %+.3f] | %.2g | %s |\n", x.mean, x.lo, x.hi, x.p,
                       claim_words(x.v));
        if (g == 0)
            v0 = x.v;
        else if (x.v != CLAIM_UNTESTABLE && x.v != v0)
            moved = true;
    }
    ClaimVerdict v = moved ? CLAIM_CANNOT_TELL : v0;
    buf_printf(b, "\nThe verdict on the claim: **%s**%s.\n\n", claim_words(v),
               moved ? " (the gate changes the verdict, so none is given)" : "");
}

/* The same claim pair by pair, the detail below the paired test: each
 * randomized form against its plain one on every task past N, the pairs
 * that pass the results page's gate one family (Holm); and the average
 * gain, the paper's way (best seeds) and over seeds. */
static void randomized_pairs(Buf *b, const ExpResults *r, const size_t *plain, size_t pairs) {
    size_t n = pairs * r->set.bench_n_tasks;
    Cmp *c = exp_table_alloc(b, n, sizeof *c);
    if (!c)
        return;
    Band out = exp_bench_tested(r);
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    double gain_best = 0.0, gain_mean = 0.0;
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++) {
        const char *task = r->set.bench_task[t];
        double floor = exp_bench_stat(r, task, FLOOR, out, false).mean;
        for (size_t p = 0; p < pairs; p++, k++) {
            const char *rnd = exp_bench_column(plain[p] + 1), *pl = exp_bench_column(plain[p]);
            Stat w = exp_bench_stat(r, task, rnd, out, false);
            Stat wo = exp_bench_stat(r, task, pl, out, false);
            exp_cmp(&c[k], w, wo, exp_gate(w, wo, floor, true, at_N(r, task, rnd),
                                           at_N(r, task, pl)), &f);
            gain_best += w.hi - wo.hi, gain_mean += w.mean - wo.mean;
        }
    }
    exp_claim_decide(c, n, &f);
    buf_printf(b, "**Pair by pair.** Each randomized form against its plain one, task by task, "
               "on %zu..%zu, under the rules above: a pair is compared only where both learned "
               "the training lengths (%.2f or more at length %zu) and where they are not both "
               "at the ceiling or at the floor (at or below none's accuracy on the task plus "
               "%.2f); the %zu pairs compared are one family (Holm):\n\n"
               "| task | pair | random − plain (mean over seeds) | verdict |\n"
               "| --- | --- | ---: | --- |\n",
               out.lo, out.hi, EXP_LEARNED, r->set.bench_N, VERDICT_FLOOR_ABOVE, f.n);
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
    /* the fewest seeds of a compared pair decide whether any could be told */
    double min_p = 0.0;
    size_t fewest = 0;
    for (size_t k = 0; k < n; k++)
        if (c[k].gate == V_TESTABLE) {
            double p = mann_whitney_min_p(c[k].a.n, c[k].b.n, 2);
            if (p > min_p)
                min_p = p, fewest = c[k].a.n < c[k].b.n ? c[k].a.n : c[k].b.n;
        }
    char few[160] = "";
    if (min_p >= VERDICT_ALPHA)
        snprintf(few, sizeof few, " (no verdict: with %zu seeds a form, no U test here can "
                 "give p below %.3f, as the rules above say)", fewest, min_p);
    buf_printf(b, "\nOf the %zu pairs, the randomized form is ahead in %zu, behind in %zu, "
               "equivalent within ±%.2f in %zu and not told apart in %zu%s; %zu are not "
               "compared (a form that did not learn the training lengths: %zu; both at the "
               "ceiling: %zu; both at the floor: %zu). Over all %zu pairs the randomized forms "
               "change the test accuracy by %+.1f points on average the paper's way (the best "
               "seed of each, of %zu, at one learning rate; the paper's best is over seeds and "
               "three rates) and by %+.1f over seeds (the mean).\n\n",
               n, count[V_AHEAD], count[V_BEHIND], VERDICT_MARGIN, count[V_EQUIVALENT],
               count[V_NOT_TOLD_APART], few,
               count[V_UNLEARNED] + count[V_CEILING] + count[V_FLOOR] + count[V_NO_RUNS],
               count[V_UNLEARNED], count[V_CEILING], count[V_FLOOR], n,
               100.0 * gain_best / (double)n, r->set.seeds, 100.0 * gain_mean / (double)n);
    family_free(&f);
    free(c);
}

static void randomized_claim(Buf *b, const ExpResults *r) {
    size_t plain[EXP_BENCH_MAX], pairs = plain_forms(plain);
    paired_claim(b, r, plain, pairs);
    randomized_pairs(b, r, plain, pairs);
}

/* Which tasks a scheme learns on the training lengths, and which any
 * solves past them (EXP_SOLVED, on the mean over seeds and on the best
 * seed); and how the level limits the best of them. */
static void solved_claims(Buf *b, const ExpResults *r) {
    Band in = {r->set.bench_N, r->set.bench_N}, out = exp_bench_tested(r);
    buf_printf(b, "**2. Which tasks an encoding solves.** A task is learned when a scheme's "
               "mean over seeds reaches %.2f at the longest training length, %zu (as in claim "
               "1), and solved when it reaches %.2f on %zu..%zu (Ruoss et al. read their best "
               "seeds: the best seed's number is beside it).\n\n"
               "| level | task | best at %zu | best on %zu..%zu (its best seed) | none on "
               "%zu..%zu |\n| --- | --- | --- | --- | ---: |\n",
               EXP_LEARNED, in.hi, EXP_SOLVED, out.lo, out.hi, in.hi, out.lo, out.hi, out.lo,
               out.hi);
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
        if (!(bi.mean >= EXP_LEARNED))
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
    buf_printf(b, "**3. The best encoding by level, beside none.** The best scheme's mean "
               "accuracy on %zu..%zu, averaged over the tasks of each level, with none's "
               "beside it (none sits near chance, and chance differs by task: one over the "
               "symbols a blank may take, 0.5 for a bit, 0.2 for a digit modulo 5):",
               out.lo, out.hi);
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
               "al.'s encodings](img/benchmark/paper.png)\n\n");
    if (r->set.bench_columns > exp_bench_paper())
        buf_printf(b, "The other schemes:\n\n![accuracy by input length, the other "
                   "schemes](img/benchmark/others.png)\n\n");
    exp_rules(b, r->set.seeds);
    randomized_claim(b, r);
    solved_claims(b, r);
}
