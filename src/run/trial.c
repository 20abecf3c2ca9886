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
    free(per);
    session_free(&s);
    if (rc)
        trial_free(t);
    return rc;
}

void trial_free(Trial *t) {
    free(t->per_len);
    memset(t, 0, sizeof *t);
}
