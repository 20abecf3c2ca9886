/* Section 3 of the page, length generalization: a table per task of every
 * scheme on the trained lengths and past them, the best three past L, and
 * the cited papers' findings judged task by task by the U test (ALiBi's
 * forms against the sinusoid past L, Shaw's vectors against it on L). */
#include <math.h>
#include <stdlib.h>

#include "sections.h"
#include "tables.h"

#define LEARNED 0.9 /* ALiBi is compared past L only where it reached this on L */

/* A scheme's row of a task's table: its Stat on each band. */
typedef struct {
    Stat band[3];
} Row;

/* One scheme against the sinusoid, task by task: on how many tasks it is
 * ahead or behind by the test, and the numbers and tests that say so;
 * skipped, the tasks it did not learn (ALiBi's rule). */
typedef struct {
    size_t ahead, behind, tasks;
    Buf why, skipped;
} Versus;

static void versus(Versus *v, const char *task, Stat a, Stat s) {
    bool differ = exp_p(a, s) < EXP_P_REAL;
    v->ahead += differ && a.mean > s.mean;
    v->behind += differ && a.mean < s.mean;
    v->tasks++;
    buf_printf(&v->why, "%s%s %.2f against %.2f, ", v->why.n ? "; " : "", task, a.mean, s.mean);
    exp_test_text(&v->why, a, s);
}

static void versus_free(Versus *v) { buf_free(&v->why), buf_free(&v->skipped); }

/* ALiBi's three forms, each against the sinusoid */
static const char *const ALIBI[3] = {"alibi", "asymmetric alibi", "cls alibi"};

static void table(Buf *b, const ExpResults *r, const char *task, const Band *bands, Row *rows) {
    buf_printf(b, "### %s\n\n![%s: accuracy by length](img/results/lengths_%s.png)\n\n", task,
               task, task);
    exp_band_header(b, bands, "scheme");
    for (size_t i = 0; i < exp_scheme_count(); i++) {
        buf_printf(b, "| %s |", exp_scheme_at(i));
        for (int k = 0; k < 3; k++) {
            rows[i].band[k] = exp_stat(r, EXP_LENGTHS, task, exp_scheme_at(i), exp_band_value,
                                       &bands[k]);
            exp_cell_range(b, rows[i].band[k]);
        }
        buf_printf(b, "\n");
    }
}

static bool among(const size_t *chosen, size_t n, size_t i) {
    for (size_t j = 0; j < n; j++)
        if (chosen[j] == i)
            return true;
    return false;
}

/* The best three on band k, each joined to the one before by the rule the
 * page states: a comma when their seeds differ, ≈ when they do not. */
static void best_three(Buf *b, const Row *rows, size_t k) {
    size_t S = exp_scheme_count(), chosen[3];
    for (size_t rank = 0; rank < 3; rank++) {
        size_t best = S;
        for (size_t i = 0; i < S; i++)
            if (!among(chosen, rank, i) && !isnan(rows[i].band[k].mean) &&
                (best == S || rows[i].band[k].mean > rows[best].band[k].mean))
                best = i;
        if (best == S)
            break;
        const char *sep = "";
        if (rank)
            sep = exp_p(rows[chosen[rank - 1]].band[k], rows[best].band[k]) < EXP_P_REAL
                      ? ", "
                      : " ≈ ";
        buf_printf(b, "%s%s (%.2f)", sep, exp_scheme_at(best), rows[best].band[k].mean);
        chosen[rank] = best;
    }
}

/* One task's findings: ALiBi's forms past L where they learned L, Shaw on L. */
static void judge(Versus *alibi, Versus *shaw, const char *task, const Row *rows) {
    size_t S = exp_scheme_count(), s = exp_scheme_index("sinusoidal");
    size_t sh = exp_scheme_index("shaw");
    if (s < S && sh < S)
        versus(shaw, task, rows[sh].band[0], rows[s].band[0]);
    for (int f = 0; f < 3; f++) {
        size_t a = exp_scheme_index(ALIBI[f]);
        /* Past L, ALiBi against the sinusoid only where ALiBi learned
         * the trained lengths: a model that learned nothing
         * extrapolates nothing, and the comparison would measure no
         * extrapolation. */
        if (a < S && s < S && rows[a].band[0].mean < LEARNED)
            buf_printf(&alibi[f].skipped, "%s%s (%.2f)", alibi[f].skipped.n ? ", " : "", task,
                       rows[a].band[0].mean);
        else if (a < S && s < S)
            versus(&alibi[f], task, rows[a].band[1], rows[s].band[1]);
    }
}

static void alibi_says(Buf *b, const ExpResults *r, const Versus *alibi) {
    size_t L = r->set.L;
    buf_printf(b, "Press et al. (2022) report that ALiBi extrapolates where the sinusoid does "
               "not, in causal language models (their Figure 1). Here ALiBi is compared "
               "with the sinusoid on %zu..%zu only where it learned the trained lengths "
               "(%.2f or more on %zu..%zu)",
               L + 1, 2 * L, LEARNED, r->set.min_len, L);
    for (int f = 0; f < 3; f++) {
        const Versus *v = &alibi[f];
        if (f)
            buf_printf(b, " The same rule for %s, a form an encoder can use", ALIBI[f]);
        if (v->skipped.n)
            buf_printf(b, "; it did not learn them on %.*s, where a comparison past L would "
                       "measure nothing", TEXT(v->skipped));
        if (v->tasks)
            buf_printf(b, ". On the %zu task%s left it is ahead on %zu and behind on %zu "
                       "(%.*s): this run %s.", v->tasks, v->tasks == 1 ? "" : "s", v->ahead,
                       v->behind, TEXT(v->why),
                       v->ahead * 2 > v->tasks ? "agrees" : "does not agree");
        else
            buf_printf(b, ". That leaves no task: the finding cannot be tested here.");
    }
}

static void nope_says(Buf *b, const ExpResults *r) {
    Band bands[3];
    exp_bands(r, bands);
    Stat nst = exp_stat(r, EXP_LENGTHS, "reverse", "none", exp_band_value, &bands[0]);
    bool none = exp_scheme_index("none") < exp_scheme_count();
    buf_printf(b, " Kazemnejad et al. (2023) find no position at all best for length "
               "generalization in decoders; that rests on the causal mask, and here, without "
               "it, none %s (%.2f on reverse's trained lengths); section 7 runs their "
               "comparison with the mask.\n\n",
               none && !isnan(nst.mean) && nst.mean < 0.5 ? "cannot learn the tasks at all"
                                                          : "is not the worst",
               nst.mean);
}

static void shaw_says(Buf *b, const Versus *shaw) {
    if (!shaw->why.n || shaw->why.failed)
        return;
    buf_printf(b, "Shaw et al. (2018) found relative representations alone better than the "
               "sinusoid (translation, their Table 1: +1.3 BLEU English-German, +0.3 "
               "English-French, both for the big model). The "
               "rule here: on the trained lengths, shaw against the sinusoid task by task; "
               "the run agrees when shaw is ahead by the test on more tasks than it is "
               "behind, disagrees when it is behind on more, and cannot tell otherwise. It "
               "is ahead on %zu and behind on %zu (%.*s): %s.\n\n", shaw->ahead, shaw->behind,
               TEXT(shaw->why),
               shaw->ahead > shaw->behind   ? "this run agrees"
               : shaw->ahead < shaw->behind ? "this run does not agree"
                                            : "this run cannot tell");
}

void exp_lengths_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, lo = r->set.min_len;
    Band bands[3];
    exp_bands(r, bands);
    buf_printf(b, "## 3. Length generalization\n\nA setup adapted from Kazemnejad et al. "
               "(2023), who train decoders on their synthetic tasks up to L = 20, test up to "
               "2L and score exact match (the whole output right). Here an encoder is trained "
               "on lengths %zu..%zu (L = %zu, %zu steps) and tested on %zu sentences of "
               "lengths %zu..%zu (to 4L), scored per token (`results/lengths.csv`). Three "
               "tasks: `reverse` and `sort` need each "
               "position, `previous` (each digit's label is the digit before it) only the "
               "order of neighbours (its first token has no word before it, and no label: it "
               "is not scored). Each "
               "cell is the mean over the lengths of its band, then over seeds, ± the SD, "
               "[lowest, highest seed]; n/a: the learned table has no rows past L. In the "
               "rankings below each table, ≈ joins two schemes whose seeds do not differ "
               "(two-sided Mann-Whitney, p ≥ %.2f), a comma two that do.\n\n",
               lo, L, L, r->set.length_steps, r->set.n_test_lengths, lo, 4 * L, EXP_P_REAL);
    Row *rows = exp_table_alloc(b, exp_scheme_count(), sizeof *rows);
    if (!rows)
        return;
    Versus alibi[3] = {{0}}, shaw = {0};
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        const char *task = exp_length_tasks[t];
        table(b, r, task, bands, rows);
        buf_printf(b, "\n");
        for (int k = 1; k < 3; k++) {
            buf_printf(b, "%s %zu..%zu the best are ", k == 1 ? "On" : "; on", bands[k].lo,
                       bands[k].hi);
            best_three(b, rows, (size_t)k);
        }
        judge(alibi, &shaw, task, rows);
        buf_printf(b, ".\n\n");
    }
    alibi_says(b, r, alibi);
    nope_says(b, r);
    shaw_says(b, &shaw);
    versus_free(&shaw);
    for (int f = 0; f < 3; f++)
        versus_free(&alibi[f]);
    free(rows);
}
