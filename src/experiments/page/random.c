/* Section 4 of the page, randomized positions (Ruoss et al. 2023): the
 * length runs of sinusoidal, learned and rope with and without random
 * positions, judged case by case by the U test, under Ruoss et al.'s
 * evaluation and under plain positions. */
#include <math.h>
#include <string.h>

#include "../../run/trial.h"
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
    buf_printf(b, "| task | scheme | %zu..%zu | | %zu..%zu | | %zu..%zu | |\n"
               "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
               bands[0].lo, bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo, bands[2].hi);
    family_init(&v->f_in, CORRECT_BH);
    family_init(&v->f_past, CORRECT_HOLM);
    for (size_t t = 0, n = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < EXP_RANDOM_SCHEMES; i++, n++) {
            const char *task = exp_length_tasks[t];
            buf_printf(b, "| %s | %s |", task, rnd[i]);
            Stat w[3], wo[3];
            for (int k = 0; k < 3; k++) {
                wo[k] = exp_stat(r, EXP_LENGTHS, task, rnd[i], exp_band_value, &bands[k]);
                w[k] = exp_stat(r, kind, task, rnd[i], exp_band_value, &bands[k]);
                exp_cell_range(b, wo[k]), exp_cell_range(b, w[k]);
            }
            buf_printf(b, "\n");
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
        if (c[n].gate == V_TESTABLE)
            buf_printf(b, "%+.2f [%+.2f, %+.2f]%s%s", c[n].t.shift, c[n].t.lo, c[n].t.hi,
                       want == V_TESTABLE ? " " : "",
                       want == V_TESTABLE ? pair_verdict_words(c[n].v) : "");
        else
            buf_printf(b, "(%s)", pair_verdict_words(c[n].gate));
    }
    if (!k)
        buf_printf(b, "no case");
    return k;
}

/* "raise the accuracy for A; lower it for B; neither for C" */
static void random_says(Buf *b, const RandomVerdicts *v, const Cmp *c) {
    buf_printf(b, "raise the accuracy for ");
    pairs_with(b, v, c, V_AHEAD);
    buf_printf(b, "; lower it for ");
    pairs_with(b, v, c, V_BEHIND);
    buf_printf(b, "; neither, as far as the tests tell or the gate lets them, for ");
    pairs_with(b, v, c, V_TESTABLE);
}

static void random_verdicts_free(RandomVerdicts *v) {
    family_free(&v->f_in), family_free(&v->f_past);
}

void exp_random_section(Buf *b, const ExpResults *r) {
    size_t L = r->set.L, N = r->set.random_range;
    buf_printf(b, "## 4. Randomized positions\n\nThe runs of section 3 for sinusoidal, learned "
               "and rope, again with `--random-positions %zu` (Ruoss et al. 2023): each "
               "training sentence gets sorted positions drawn from 0..%zu, so positions past "
               "L are seen in training. Ruoss et al.'s randomized encodings have no switch "
               "for evaluation: in their reference code a test sentence gets sorted random "
               "positions from the same range too. This page follows them: each test "
               "sentence is scored with %d draws of its positions and the accuracy is the "
               "mean over the draws (`results/random_test.csv`). The models trained without "
               "random positions are evaluated at 0..T-1, as section 3 does. Cells as in "
               "section 3, without | with; every (task, scheme) is judged on its own, with "
               "no average over them.\n\n",
               N, N - 1, TRIAL_DRAWS);
    RandomVerdicts v;
    random_table(b, r, EXP_RANDOM_TEST, &v);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        buf_printf(b, "%s![%s with and without random positions](img/results/random_%s.png)\n",
                   t ? "" : "\n", exp_length_tasks[t], exp_length_tasks[t]);
    buf_printf(b, "\nOn %zu..%zu (with against without, one family, Holm; the page's gate, "
               "both having learned the trained lengths), random positions ", L + 1, 2 * L);
    random_says(b, &v, v.past);
    buf_printf(b, " (task/scheme, with minus without, with its interval); the learned table, "
               "undefined past L without them, gets rows for every position with them. On "
               "the trained lengths (one family, Benjamini-Hochberg) they ");
    random_says(b, &v, v.in);
    buf_printf(b, ". Ruoss et al. report +12.0 points on average over 15 tasks for randomized "
               "encodings (their Table 1); with their evaluation, on 3 tasks and small "
               "models, %s. They draw one set of positions per batch, and this "
               "page one per sentence.\n\n", exp_claim_text(v.past_claim));
    random_verdicts_free(&v);

    buf_printf(b, "The same models evaluated at positions 0..T-1 instead (a variant, not "
               "Ruoss et al.'s protocol: every test sentence then sits packed at the start "
               "of the range, an arrangement training drew rarely; `results/random.csv`):\n\n");
    random_table(b, r, EXP_RANDOM, &v);
    buf_printf(b, "\nEvaluated so, on %zu..%zu random positions ", L + 1, 2 * L);
    random_says(b, &v, v.past);
    buf_printf(b, "; on the trained lengths they ");
    random_says(b, &v, v.in);
    buf_printf(b, ".\n\n");
    random_verdicts_free(&v);
}
