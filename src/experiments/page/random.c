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
 * verdicts, each case on its own by the U test, into up/down/same (past L)
 * and cost (on the trained lengths). */
typedef struct {
    Buf up, down, same, cost, gain_in;
    size_t n_up, n_down, n_cost, n_gain_in, n_pairs, n_past;
} RandomVerdicts;

static void random_table(Buf *b, const ExpResults *r, ExpKind kind, RandomVerdicts *v) {
    static const char *const rnd[3] = {"sinusoidal", "learned", "rope"};
    Band bands[3];
    exp_bands(r, bands);
    buf_printf(b, "| task | scheme | %zu..%zu | | %zu..%zu | | %zu..%zu | |\n"
               "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
               bands[0].lo, bands[0].hi, bands[1].lo, bands[1].hi, bands[2].lo, bands[2].hi);
    memset(v, 0, sizeof *v);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t i = 0; i < 3; i++) {
            const char *task = exp_length_tasks[t];
            buf_printf(b, "| %s | %s |", task, rnd[i]);
            Stat w[3], wo[3];
            for (int k = 0; k < 3; k++) {
                wo[k] = exp_stat(r, EXP_LENGTHS, task, rnd[i], exp_band_value, &bands[k]);
                w[k] = exp_stat(r, kind, task, rnd[i], exp_band_value, &bands[k]);
                exp_cell_range(b, wo[k]), exp_cell_range(b, w[k]);
            }
            buf_printf(b, "\n");
            v->n_pairs++;
            bool in_differ = exp_p(w[0], wo[0]) < EXP_P_REAL;
            if (in_differ && w[0].mean < wo[0].mean)
                buf_printf(&v->cost, "%s%s/%s %+.2f", v->n_cost++ ? ", " : "", task, rnd[i],
                           w[0].mean - wo[0].mean);
            else if (in_differ)
                buf_printf(&v->gain_in, "%s%s/%s %+.2f", v->n_gain_in++ ? ", " : "", task,
                           rnd[i], w[0].mean - wo[0].mean);
            if (isnan(w[1].mean) || isnan(wo[1].mean))
                continue;
            v->n_past++;
            bool differ = exp_p(w[1], wo[1]) < EXP_P_REAL;
            Buf *to = !differ ? &v->same : w[1].mean > wo[1].mean ? &v->up : &v->down;
            size_t *count = to == &v->up ? &v->n_up : to == &v->down ? &v->n_down : NULL;
            buf_printf(to, "%s%s/%s %+.2f", to->n ? ", " : "", task, rnd[i],
                       w[1].mean - wo[1].mean);
            if (count)
                ++*count;
        }
}

/* "raise the accuracy (p < 0.05) for A; lower it for B; ..." */
static void random_says(Buf *b, const RandomVerdicts *v) {
    const Buf *parts[3] = {&v->up, &v->down, &v->same};
    const char *says[3] = {"raise the accuracy (p < 0.05) for", "lower it for",
                           "make no difference the seeds can tell for"};
    for (int k = 0, said = 0; k < 3; k++)
        if (parts[k]->n && !parts[k]->failed)
            buf_printf(b, "%s%s %.*s", said++ ? "; " : "", says[k], (int)parts[k]->n,
                       (char *)parts[k]->p);
}

static void random_verdicts_free(RandomVerdicts *v) {
    buf_free(&v->up), buf_free(&v->down), buf_free(&v->same), buf_free(&v->cost);
    buf_free(&v->gain_in);
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
               "section 3, without | with; every (task, scheme) is judged on its own, by the "
               "U test on its seeds (p < %.2f), with no average over them.\n\n",
               N, N - 1, TRIAL_DRAWS, EXP_P_REAL);
    RandomVerdicts v;
    random_table(b, r, EXP_RANDOM_TEST, &v);
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        buf_printf(b, "%s![%s with and without random positions](img/results/random_%s.png)\n",
                   t ? "" : "\n", exp_length_tasks[t], exp_length_tasks[t]);
    buf_printf(b, "\nOn %zu..%zu, random positions ", L + 1, 2 * L);
    random_says(b, &v);
    buf_printf(b, " (task/scheme, with minus without); the learned table, undefined past L "
               "without them, gets rows for every position with them. On the trained "
               "lengths they cost accuracy in %zu of %zu cases%s%.*s%s", v.n_cost, v.n_pairs,
               v.n_cost ? " (" : "", TEXT(v.cost), v.n_cost ? ")" : "");
    if (v.n_gain_in)
        buf_printf(b, " and raise it in %zu (%.*s)", v.n_gain_in, TEXT(v.gain_in));
    buf_printf(b, ". Ruoss et al. report +12.0 points on average over 15 tasks for randomized "
               "encodings; with their evaluation, this run gains past L in %zu and loses in "
               "%zu of the %zu cases defined there, on 3 tasks and small models: %s.\n\n",
               v.n_up, v.n_down, v.n_past,
               v.n_up > v.n_down && v.n_down == 0 ? "it agrees with them in direction"
               : v.n_up > v.n_down ? "it agrees with them in most cases, not in all"
                                   : "it does not agree with them");
    random_verdicts_free(&v);

    buf_printf(b, "The same models evaluated at positions 0..T-1 instead (a variant, not "
               "Ruoss et al.'s protocol: every test sentence then sits packed at the start "
               "of the range, an arrangement training drew rarely; `results/random.csv`):\n\n");
    random_table(b, r, EXP_RANDOM, &v);
    buf_printf(b, "\nEvaluated so, on %zu..%zu random positions ", L + 1, 2 * L);
    random_says(b, &v);
    buf_printf(b, "; on the trained lengths they cost accuracy in %zu of %zu cases.\n\n",
               v.n_cost, v.n_pairs);
    random_verdicts_free(&v);
}
