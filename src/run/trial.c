#include "trial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "session.h"

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
    EvalStats total, *per = NULL;
    if (!rc) {
        t->max_len = s.test.max_len;
        per = xcalloc(t->max_len + 1, sizeof *per, "the results per length", e);
        t->per_len = xcalloc(t->max_len + 1, sizeof *t->per_len, "the results per length", e);
        rc = per && t->per_len ? 0 : ERR_RUNTIME;
    }
    if (!rc)
        rc = evaluate_dataset(&s.model, &s.test, 64, per, &total, e);
    if (!rc) {
        t->accuracy = eval_accuracy_all(&total);
        for (size_t len = 0; len <= t->max_len; len++)
            t->per_len[len] = per[len].examples && !per[len].skipped ? eval_accuracy(&per[len])
                                                                     : NAN;
    }
    /* Ruoss et al.'s randomized encodings have no switch for evaluation:
     * test sentences get sorted random positions from the same range.
     * The draws' generator is the run's seed's, apart from the data's. */
    size_t N = s.meta.random_positions;
    if (!rc && N) {
        t->per_len_at = xcalloc(t->max_len + 1, sizeof *t->per_len_at, "the results per length",
                                e);
        rc = t->per_len_at ? evaluate_dataset_at(&s.model, &s.test, 64, N, TRIAL_DRAWS,
                                                 s.meta.seed ^ 0x52554f5353ULL, per, &total, e)
                           : ERR_RUNTIME;
    }
    if (!rc && N) {
        t->accuracy_at = eval_accuracy_all(&total);
        for (size_t len = 0; len <= t->max_len; len++)
            t->per_len_at[len] = per[len].examples && !per[len].skipped
                                     ? eval_accuracy(&per[len]) : NAN;
    }
    free(per);
    session_free(&s);
    if (rc)
        trial_free(t);
    return rc;
}

void trial_free(Trial *t) {
    free(t->per_len);
    free(t->per_len_at);
    memset(t, 0, sizeof *t);
}
