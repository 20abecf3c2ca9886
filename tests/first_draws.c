/* The shapes and the rows of the first draws' fixture (first_draws.h). */
#include "first_draws.h"

#include "../src/core/buf.h"

/* Two layers post-norm with three classes; three layers pre-norm with one
 * class (a head of one row); one layer with GELU and no head. */
bool first_draws_shape(Config *c, char which, const char *pe) {
    if (which == 'a') {
        config_default(c, 11, pe);
        c->d_model = 16, c->n_heads = 4, c->n_layers = 2, c->d_ff = 32, c->n_classes = 3;
        c->max_len = 9, c->seed = 7;
    } else if (which == 'b') {
        config_default(c, 5, pe);
        c->d_model = 32, c->n_heads = 2, c->n_layers = 3, c->d_ff = 48, c->n_classes = 1;
        c->max_len = 20, c->seed = 12345, c->norm = NORM_PRE;
    } else if (which == 'c') {
        config_default(c, 7, pe);
        c->d_model = 8, c->n_heads = 2, c->n_layers = 1, c->d_ff = 24, c->n_classes = 0;
        c->max_len = 4, c->seed = 0, c->act = ACT_GELU;
    } else {
        return false;
    }
    return true;
}

int first_draws_row(size_t *n, uint64_t *sum, const char *pe, char which, Err *e) {
    Config c;
    if (!first_draws_shape(&c, which, pe))
        return err_set(e, ERR_INPUT, "%s: no shape '%c' (the shapes are %s)", pe, which,
                       FIRST_DRAWS_SHAPES);
    Model m;
    int rc = model_create(&m, &c, e);
    if (rc)
        return rc;
    *n = m.n_params;
    *sum = buf_fnv1a(m.mem, m.n_params * sizeof *m.mem);
    model_free(&m);
    return 0;
}
