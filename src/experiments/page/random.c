/* Section 4 of the page, randomized positions (Ruoss et al. 2023): the
 * length runs of sinusoidal, learned and rope with and without random
 * positions, judged case by case by the U test, under Ruoss et al.'s
 * evaluation and under plain positions. */
#include <math.h>
#include <string.h>

#include "../../run/trial.h"
#include "prose.h"
#include "sections.h"
#include "tables.h"

/* Section 4's table: every (task, scheme) trained without random positions
 * (at 0..T-1) against the same with them, evaluated as kind says; and its
 * comparisons, with against without: on the trained lengths (what they
 * cost, a family corrected by Benjamini-Hochberg) and on L+1..2L (Ruoss et
 * al.'s claim, a family corrected by Holm), each through the page's gate. */
#define PAIRS (EXP_LENGTH_TASKS * EXP_RANDOM_SCHEMES)
typedef struct {
    Cmp in[PAIRS], past[PAIRS];
    const char *task[PAIRS], *scheme[PAIRS];
    TestFamily f_in, f_past;
    ClaimVerdict past_claim; /* with beats without past L: Ruoss et al.'s claim */
} RandomVerdicts;

static void random_table(Buf *b, const ExpResults *r, ExpKind kind, RandomVerdicts *v) {
    const char *const *rnd = exp_random_schemes;
    Band bands[3];
    exp_bands(r, bands);
    Buf rows = {0};
    family_init(&v->f_in, CORRECT_BH);
    family_init(&v->f_past, CORRECT_HOLM);
    for (size_t t = 0, n = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < EXP_RANDOM_SCHEMES; i++, n++) {
            const char *task = exp_length_tasks[t];
            buf_printf(&rows, "%s| %s | %s |", n ? "\n" : "", task, rnd[i]);
            Stat w[3], wo[3];
            for (int k = 0; k < 3; k++) {
                wo[k] = exp_stat(r, EXP_LENGTHS, task, rnd[i], exp_band_value, &bands[k]);
                w[k] = exp_stat(r, kind, task, rnd[i], exp_band_value, &bands[k]);
                exp_cell_range(&rows, wo[k]), exp_cell_range(&rows, w[k]);
            }
            Stat none0 = exp_stat(r, EXP_LENGTHS, task, exp_floor_scheme, exp_band_value, &bands[0]);
            Stat none1 = exp_stat(r, EXP_LENGTHS, task, exp_floor_scheme, exp_band_value, &bands[1]);
            v->task[n] = task, v->scheme[n] = rnd[i];
            exp_cmp(&v->in[n], w[0], wo[0], exp_gate(w[0], wo[0], none0.mean, false, 1, 1),
                    &v->f_in);
            exp_cmp(&v->past[n], w[1], wo[1],
                    exp_gate(w[1], wo[1], none1.mean, true, w[0].mean, wo[0].mean), &v->f_past);
        }
    exp_claim_decide(v->in, PAIRS, &v->f_in);
    v->past_claim = exp_claim_decide(v->past, PAIRS, &v->f_past);
    PROSE(b, "random.table", pv_count("lo0", bands[0].lo), pv_count("hi0", bands[0].hi),
          pv_count("lo1", bands[1].lo), pv_count("hi1", bands[1].hi),
          pv_count("lo2", bands[2].lo), pv_count("hi2", bands[2].hi), pv_buf("rows", &rows));
    exp_part_done(b, &rows);
}

/* "reverse/sinusoidal +0.51 (ahead), ..." for the pairs whose verdict is
 * want (V_AHEAD, V_BEHIND) or, with want V_TESTABLE, neither; returns how
 * many. */
static size_t pairs_with(Buf *b, const RandomVerdicts *v, const Cmp *c, PairVerdict want) {
    size_t k = 0;
    for (size_t n = 0; n < PAIRS; n++) {
        bool differ = c[n].v == V_AHEAD || c[n].v == V_BEHIND;
        if (want == V_TESTABLE ? differ : c[n].v != want)
            continue;
        buf_printf(b, "%s%s/%s ", k++ ? ", " : "", v->task[n], v->scheme[n]);
        if (c[n].gate == V_TESTABLE) {
            buf_printf(b, "%+.2f [%+.2f, %+.2f]", c[n].t.shift, c[n].t.lo, c[n].t.hi);
            /* the list of neither says which of the two it is */
            if (want == V_TESTABLE) {
                buf_printf(b, " ");
                PROSE_TEXT(b, pair_verdict_name(c[n].v));
            }
        } else {
            buf_printf(b, "(");
            PROSE_TEXT(b, pair_verdict_name(c[n].gate));
            buf_printf(b, ")");
        }
    }
    if (!k)
        PROSE_TEXT(b, "random.no_case");
    return k;
}

/* "raise the accuracy for A; lower it for B; neither for C" */
static void random_says(Buf *b, const RandomVerdicts *v, const Cmp *c) {
    static const PairVerdict WANT[3] = {V_AHEAD, V_BEHIND, V_TESTABLE};
    Buf list[3] = {{0}};
    for (int k = 0; k < 3; k++)
        pairs_with(&list[k], v, c, WANT[k]);
    PROSE(b, "random.says", pv_buf("raise", &list[0]), pv_buf("lower", &list[1]),
          pv_buf("neither", &list[2]));
    for (int k = 0; k < 3; k++)
        exp_part_done(b, &list[k]);
}

static void random_verdicts_free(RandomVerdicts *v) {
    family_free(&v->f_in), family_free(&v->f_past);
}

void exp_random_section(Buf *b, const ExpResults *r) {
    size_t N = r->set.random_range;
    Band bands[3];
    exp_bands(r, bands);
    /* evaluated as Ruoss et al. do, at random positions; then at 0..T-1 */
    static const ExpKind KIND[2] = {EXP_RANDOM_TEST, EXP_RANDOM};
    RandomVerdicts v[2];
    Buf table[2] = {{0}}, says[4] = {{0}}, figures = {0};
    for (int e = 0; e < 2; e++) {
        random_table(&table[e], r, KIND[e], &v[e]);
        random_says(&says[2 * e], &v[e], v[e].past);
        random_says(&says[2 * e + 1], &v[e], v[e].in);
    }
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++) {
        buf_printf(&figures, "%s", t ? "\n" : "");
        PROSE(&figures, "random.figure", pv_text("task", exp_length_tasks[t]));
    }
    PROSE(b, "random", pv_count("range", N), pv_count("last", N - 1),
          pv_count("draws", (size_t)TRIAL_DRAWS), pv_buf("table_test", &table[0]),
          pv_buf("figures", &figures), pv_count("lo", bands[1].lo), pv_count("hi", bands[1].hi),
          pv_buf("past", &says[0]), pv_buf("trained", &says[1]),
          pv_tmpl("claim", exp_claim_name(v[0].past_claim)), pv_buf("table_plain", &table[1]),
          pv_buf("plain_past", &says[2]), pv_buf("plain_trained", &says[3]));
    buf_printf(b, "\n\n");
    for (int e = 0; e < 2; e++)
        random_verdicts_free(&v[e]), exp_part_done(b, &table[e]);
    for (int k = 0; k < 4; k++)
        exp_part_done(b, &says[k]);
    exp_part_done(b, &figures);
}
