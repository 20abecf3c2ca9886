/* train --train-draw fresh: every step a batch of new sentences of the
 * task, as Delétang et al.'s and Ruoss et al.'s code trains (their
 * task.sample_batch each step), where the pool draws from sentences made
 * once. The pool still gives the words and classes (and the validation). */
#include <stdlib.h>
#include <string.h>

#include "session.h"

int session_fresh_batch(Session *s, size_t *T, Err *e) {
    TaskOptions r;
    int rc = task_options_resolve(&r, &s->meta.task_opt, s->meta.task, e);
    if (rc)
        return rc;
    size_t B = s->meta.batch, lo = r.min_len, hi = r.max_train_len ? r.max_train_len : r.max_len;
    TaskOptions o = r;
    o.max_len = o.max_train_len = hi;
    if (s->meta.batches == BATCHES_BY_LENGTH) /* one input length, drawn uniformly */
        o.min_len = o.max_len = o.max_train_len = lo + rng_below(&s->meta.rng, hi - lo + 1);
    o.n_train = B, o.n_valid = 1, o.n_test = 1;
    o.seed = rng_u64(&s->meta.rng);
    TextData txt[3];
    memset(txt, 0, sizeof txt);
    Dataset d;
    memset(&d, 0, sizeof d);
    rc = task_make(&txt[0], &txt[1], &txt[2], s->meta.task, &o, e);
    if (!rc && s->model.cfg.pool == POOL_CLS)
        rc = textdata_prepend(&txt[0], DATA_CLS, e);
    size_t unknown = 0;
    const char *label = rc ? NULL : data_unknown_label(&txt[0], &s->labels, NULL);
    if (label) /* the pool's classes are the model's: a new one has no output */
        rc = err_set(e, ERR_INPUT, "a fresh batch of %s holds the label '%s', which its "
                     "training pool of %zu examples never shows; give the pool more examples "
                     "(--train-examples)", s->meta.task, label, s->train.n);
    if (!rc)
        rc = data_encode(&d, &txt[0], &s->vocab, &s->labels, false, &unknown, e);
    if (!rc && unknown)
        rc = err_set(e, ERR_INPUT, "%zu word%s of the fresh sentences of %s are not among the "
                     "%zu words of its training pool: give the pool more examples "
                     "(--train-examples)", unknown, unknown == 1 ? "" : "s", s->meta.task,
                     s->vocab.n);
    if (!rc && (d.n != B || d.max_len > s->train.max_len))
        rc = err_set(e, ERR_INPUT, "the fresh batch of %s holds %zu sentences of up to %zu "
                     "tokens, where the run has room for %zu of %zu", s->meta.task, d.n,
                     d.max_len, B, s->train.max_len);
    if (!rc) {
        for (size_t b = 0; b < B; b++)
            s->idx[b] = b;
        *T = d.max_len;
        dataset_batch(&d, s->idx, B, *T, s->ids, s->lens, s->batch_labels);
    }
    dataset_free(&d);
    for (int i = 0; i < 3; i++)
        textdata_free(&txt[i]);
    return rc;
}
