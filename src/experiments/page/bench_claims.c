/* The benchmark page's chance floors and its closing sections: the rules,
 * then Ruoss et al.'s claims checked one by one under the results page's
 * rules (verdict.h), with the numbers that decide each; the first claim's
 * tests by task and by pair are bench_paired.c's. The sentences are
 * templates (templates/bench-5-claims.md): the verdicts and the tables'
 * rows are this file's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../stats/stats.h"
#include "../../text/tasks.h"
#include "bench.h"
#include "prose.h"
#include "tables.h"

#define NONE exp_bench_column(&r->set, 0) /* the no-position model is column 0 (grid.h) */

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

/* A task's chance floor beside none's score, on the test lengths: a row
 * per task, then a template's sentence. */
void exp_bench_chance_table(Buf *b, const BenchPage *p) {
    const ExpResults *r = p->r;
    Band out = exp_bench_tested(r);
    Buf rows = {0};
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        bool first = t == 0 || strcmp(exp_bench_level(r, t), exp_bench_level(r, t - 1)) != 0;
        double chance = exp_bench_chance_at(&p->chance, t, out);
        double none = exp_bench_stat(r, r->set.bench_task[t], NONE, out, false).mean;
        buf_printf(&rows, "%s| %s | %s | %s | %s | %s | %s |", t ? "\n" : "",
                   first ? exp_bench_level(r, t) : "", r->set.bench_task[t], p->chance.answer[t],
                   exp_num(chance, 3, false).s, exp_num(none, 3, false).s,
                   exp_num(none - chance, 3, true).s);
    }
    PROSE(b, "bench.chance", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_count("seeds", r->set.seeds), pv_count("per_len", r->set.bench_per_len),
          pv_real("floor_above", VERDICT_FLOOR_ABOVE), pv_buf("rows", &rows));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
}

/* The pairs of claim 1 one by one: each randomized form against its plain
 * one on every task past N, c[k] for task k / pairs and pair k % pairs;
 * the pairs that pass the gate (the floor: the task's chance) in f
 * (Holm), decided. The average gain over the pairs, the paper's way (best
 * seeds) and over seeds, in gain[0] and gain[1]. */
static void compare_pairs(const BenchPage *bp, Cmp *c, TestFamily *f, double gain[2]) {
    const ExpResults *r = bp->r;
    Band out = exp_bench_tested(r);
    gain[0] = gain[1] = 0.0;
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++) {
        const char *task = r->set.bench_task[t];
        double floor = exp_bench_chance_at(&bp->chance, t, out);
        for (size_t p = 0; p < bp->pairs.n; p++, k++) {
            const char *rnd = exp_bench_column(&r->set, bp->pairs.rnd[p]),
                       *pl = exp_bench_column(&r->set, bp->pairs.plain[p]);
            Stat w = exp_bench_stat(r, task, rnd, out, false);
            Stat wo = exp_bench_stat(r, task, pl, out, false);
            exp_cmp(&c[k], w, wo, exp_gate(w, wo, floor, true, exp_bench_at_N(r, task, rnd),
                                           exp_bench_at_N(r, task, pl)), f);
            gain[0] += w.hi - wo.hi, gain[1] += w.mean - wo.mean;
        }
    }
    exp_claim_decide(c, bp->pairs.n * r->set.bench_n_tasks, f);
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

/* The same claim pair by pair, the detail below the paired tests: each
 * randomized form against its plain one on every task past N, the pairs
 * that pass the results page's gate one family (Holm); a row each, then
 * the count of each verdict and the average gain, the paper's way (best
 * seeds) and over seeds. */
static void randomized_pairs(Buf *b, const BenchPage *bp) {
    const ExpResults *r = bp->r;
    size_t n = bp->pairs.n * r->set.bench_n_tasks;
    Cmp *c = exp_table_alloc(b, n, sizeof *c);
    if (!c)
        return;
    TestFamily f;
    family_init(&f, CORRECT_HOLM);
    double gain[2];
    compare_pairs(bp, c, &f, gain);
    Buf rows = {0}, few = few_seeds(c, n), learned = exp_bench_learned_text(r), method = {0};
    size_t count[V_NOT_TOLD_APART + 1] = {0};
    /* the U test as it ran (mw_tail): exact up to MW_EXACT_MAX values in
     * all; without a pair compared, as it would run on the grid's seeds */
    bool exact = f.n ? true : 2 * r->set.seeds <= MW_EXACT_MAX;
    for (size_t k = 0; k < n; k++)
        if (c[k].gate == V_TESTABLE)
            exact = exact && c[k].a.n + c[k].b.n <= MW_EXACT_MAX;
    if (exact)
        PROSE_TEXT(&method, "bench.pairs.u_exact");
    else
        PROSE(&method, "bench.pairs.u_normal", pv_count("most", MW_EXACT_MAX / 2));
    for (size_t t = 0, k = 0; t < r->set.bench_n_tasks; t++)
        for (size_t p = 0; p < bp->pairs.n; p++, k++) {
            count[c[k].v]++;
            buf_printf(&rows, "%s| %s | %s − %s | %s | ", k ? "\n" : "", r->set.bench_task[t],
                       exp_bench_column(&r->set, bp->pairs.rnd[p]),
                       exp_bench_column(&r->set, bp->pairs.plain[p]),
                       exp_num(c[k].a.mean - c[k].b.mean, 3, true).s);
            exp_cmp_text(&rows, &c[k], &f);
            buf_printf(&rows, " |");
        }
    Band out = exp_bench_tested(r);
    PROSE(b, "bench.pairs", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_buf("learned", &learned), pv_real("ceiling_at", VERDICT_CEILING),
          pv_real("floor_above", VERDICT_FLOOR_ABOVE), pv_buf("method", &method),
          pv_count("compared", f.n),
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
    exp_bench_part_done(b, &learned);
    exp_bench_part_done(b, &method);
    family_free(&f);
    free(c);
}

/* Which tasks a scheme learns on the training lengths, and which any
 * solves past them (EXP_SOLVED, on the mean over seeds and on the best
 * seed): a row per task, then the tasks none learns. */
static void solved_claim(Buf *b, const BenchPage *p) {
    const ExpResults *r = p->r;
    Band in = {r->set.bench_N, r->set.bench_N}, out = exp_bench_tested(r);
    size_t unlearned = 0, solved = 0;
    Buf rows = {0}, not_learned = {0};
    for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
        Stat bi, bo;
        size_t ci = best_column(r, t, in, &bi), co = best_column(r, t, out, &bo);
        Stat none = exp_bench_stat(r, r->set.bench_task[t], NONE, out, false);
        buf_printf(&rows, "%s| %s | %s | %s %s | %s %s (%s) | %s | %s |", t ? "\n" : "",
                   exp_bench_level(r, t), r->set.bench_task[t], exp_bench_column(&r->set, ci),
                   exp_num(bi.mean, 3, false).s, exp_bench_column(&r->set, co),
                   exp_num(bo.mean, 3, false).s, exp_num(bo.hi, 3, false).s,
                   exp_num(none.mean, 3, false).s,
                   exp_num(exp_bench_chance_at(&p->chance, t, out), 3, false).s);
        if (!(bi.mean >= EXP_LEARNED))
            buf_printf(&not_learned, "%s%s", unlearned++ ? ", " : ": ", r->set.bench_task[t]);
        solved += bo.mean >= EXP_SOLVED;
    }
    Buf learned = exp_bench_learned_text(r);
    PROSE(b, "bench.claim2", pv_buf("learned", &learned), pv_count("N", in.hi),
          pv_real("solved", EXP_SOLVED), pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_buf("rows", &rows), pv_count("unlearned", unlearned),
          pv_text("s", unlearned == 1 ? "" : "s"), pv_buf("which", &not_learned),
          pv_count("solved_tasks", solved), pv_count("tasks", r->set.bench_n_tasks),
          pv_text("are", solved == 1 ? "is" : "are"));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &rows);
    exp_bench_part_done(b, &not_learned);
    exp_bench_part_done(b, &learned);
}

/* Claim 3's table: a row per level, the tasks' mean chance floor, then
 * each column's mean over seeds averaged over the level's tasks, the
 * best of each row in bold; a fragment without its last line break. */
static Buf level_table(const BenchPage *p, Band out) {
    const ExpResults *r = p->r;
    size_t C = r->set.bench_columns;
    Buf b = {0};
    buf_printf(&b, "| level | tasks | chance |");
    for (size_t c = 0; c < C; c++)
        buf_printf(&b, " %s |", exp_bench_column(&r->set, c));
    buf_printf(&b, "\n| --- | ---: | ---: |");
    for (size_t c = 0; c < C; c++)
        buf_printf(&b, " ---: |");
    for (size_t lv = TASK_REGULAR; lv <= TASK_CS; lv++) {
        double mean[EXP_BENCH_MAX] = {0}, chance = 0.0, top = -1.0;
        size_t n = 0;
        for (size_t t = 0; t < r->set.bench_n_tasks; t++) {
            if (task_find(r->set.bench_task[t])->level != lv)
                continue;
            n++, chance += exp_bench_chance_at(&p->chance, t, out);
            for (size_t c = 0; c < C; c++)
                mean[c] += exp_bench_stat(r, r->set.bench_task[t], exp_bench_column(&r->set, c),
                                          out, false)
                               .mean;
        }
        if (!n)
            continue;
        for (size_t c = 0; c < C; c++)
            top = fmax(top, mean[c] / (double)n);
        buf_printf(&b, "\n| %s | %zu | %s |", exp_bench_level_name(lv), n,
                   exp_num(chance / (double)n, 3, false).s);
        for (size_t c = 0; c < C; c++) {
            const char *bold = fabs(mean[c] / (double)n - top) < BENCH_BOLD_FRACTION ? "**" : "";
            buf_printf(&b, " %s%s%s |", bold, exp_num(mean[c] / (double)n, 3, false).s, bold);
        }
    }
    return b;
}

/* How the level limits each scheme: past N, each column's mean over
 * seeds averaged over the tasks of each level, beside chance. */
static void level_claim(Buf *b, const BenchPage *p) {
    Band out = exp_bench_tested(p->r);
    Buf table = level_table(p, out);
    PROSE(b, "bench.claim3", pv_count("lo", out.lo), pv_count("hi", out.hi),
          pv_real("bold", BENCH_BOLD_FRACTION), pv_count("columns", p->r->set.bench_columns),
          pv_buf("table", &table));
    buf_printf(b, "\n\n");
    exp_bench_part_done(b, &table);
}

void exp_bench_claims(Buf *b, const BenchPage *p) {
    exp_rules(b, p->r->set.seeds, "rules.floor_chance", p->r->set.bench_N);
    PROSE_TEXT(b, "bench.claims");
    buf_printf(b, "\n\n");
    exp_bench_claim1_section(b, p);
    exp_bench_cost(b, p);
    randomized_pairs(b, p);
    solved_claim(b, p);
    level_claim(b, p);
    exp_bench_sparser(b, p);
    exp_bench_how(b, p);
}
