#include "trial.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "session.h"

int trial_test(const Model *m, const Dataset *test, size_t N, bool shared, RandomDraw how,
               uint64_t seed, double *accuracy, double *exact, double **per_len, double **exact_len, Err *e) {
    size_t L = test->max_len, draws = N ? TRIAL_DRAWS : 1;
    EvalStats total, *per = xcalloc(L + 1, sizeof *per, "the results per length", e);
    *per_len = xcalloc(L + 1, sizeof **per_len, "the results per length", e);
    *exact_len = xcalloc(L + 1, sizeof **exact_len, "the results per length", e);
    int rc = per && *per_len && *exact_len
                 ? evaluate_dataset_at(m, test, 64, N, draws, shared, how, seed, per, &total, e)
                 : ERR_RUNTIME;
    if (!rc) {
        /* sentences the model cannot encode count as wrong overall; exact
         * counts a sentence once per draw */
        *accuracy = eval_accuracy_all(&total);
        *exact = total.examples
                     ? (double)total.exact / ((double)total.examples * (double)draws) : NAN;
        for (size_t len = 0; len <= L; len++) {
            bool scored = per[len].examples && !per[len].skipped;
            (*per_len)[len] = scored ? eval_accuracy(&per[len]) : NAN;
            (*exact_len)[len] = scored ? (double)per[len].exact /
                                             ((double)per[len].examples * (double)draws)
                                       : NAN;
        }
    }
    free(per);
    if (rc) {
        free(*per_len), free(*exact_len);
        *per_len = *exact_len = NULL;
    }
    return rc;
}

int trial_run(Trial *t, const TrainMeta *mt, const Config *cfg, const OptConfig *opt, Err *e) {
    memset(t, 0, sizeof *t);
    Session s;
    double t0 = clock_seconds();
    int rc = session_create(&s, mt, cfg, opt, e);
    if (rc)
        return rc;
    t->combine = s.model.pe.combine;
    t->w = s.model.pe.w;
    StepStats st;
    while (!rc && s.trainer.step < s.meta.steps)
        rc = session_step(&s, &st, e);
    t->seconds = clock_seconds() - t0;
    t->max_len = s.test.max_len;
    if (!rc)
        rc = trial_test(&s.model, &s.test, 0, false, RANDOM_DRAW_POSITIONS, 0, &t->accuracy, &t->exact, &t->per_len,
                        &t->exact_len, e);
    /* Ruoss et al.'s randomized encodings have no switch for evaluation:
     * test sentences get sorted random positions from the same range.
     * The draws' generator is the run's seed's, apart from the data's. */
    size_t N = s.meta.random_positions;
    if (!rc && N)
        rc = trial_test(&s.model, &s.test, N, s.meta.batches == BATCHES_BY_LENGTH,
                        s.meta.random_draw, s.meta.seed ^ 0x52554f5353ULL, &t->accuracy_at,
                        &t->exact_at, &t->per_len_at, &t->exact_len_at, e);
    session_free(&s);
    if (rc)
        trial_free(t);
    return rc;
}

void trial_free(Trial *t) {
    free(t->per_len);
    free(t->per_len_at);
    free(t->exact_len);
    free(t->exact_len_at);
    memset(t, 0, sizeof *t);
}
