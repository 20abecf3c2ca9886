/* Section 8's cell: the linear probe of position (src/run/probe.h), layer
 * by layer, of a model with no position, with and without the causal
 * mask. */
#include <math.h>

#include "../core/err.h"
#include "../run/probe.h"
#include "../run/session.h"
#include "cell.h"

int exp_run_probe(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e) {
    /* the model of docs/04's probe: deeper than the grid's, so that
     * position can build up layer by layer; lengths min_len..L in
     * training, fit and test alike */
    Config c = exp_cell_config(set, cell);
    TrainMeta mt;
    exp_train_meta(&mt, set, cell, true);
    mt.task_opt.max_len = set->L;
    Session s;
    int rc = exp_train_new(&s, &mt, &c, NULL, e);
    if (rc)
        return rc;
    ProbeResult pr;
    rc = probe_position(&pr, &s.model, &s.valid, &s.test, 1e-3, e);
    double *r2 = rc ? NULL : xcalloc(pr.n_rows, sizeof *r2, "the probe's results", e);
    if (!rc && !r2)
        rc = ERR_RUNTIME;
    if (!rc) {
        /* per_len holds the rows: 0 the input, l the output of layer l; an
         * R^2 is no accuracy, and exact means nothing here */
        for (size_t l = 0; l < pr.n_rows; l++)
            r2[l] = pr.r2[l];
        exp_series_add(res, "main", pr.r2[pr.n_rows - 1], NAN, r2, pr.n_rows, NULL, 0);
    }
    session_free(&s);
    return rc;
}
