/* What session.c reads a run's data with (session_data.c): the text of
 * its task, or of its files (whose contents' hash the run keeps, and a
 * resumed run checks), the vocabulary and classes built from the training
 * split, and the three splits encoded by them. */
#ifndef POSENC_SESSION_DATA_H
#define POSENC_SESSION_DATA_H

#include "../core/err.h"
#include "session.h"

/* Fills s's vocabulary, classes and splits from s->meta's task or files
 * (a new run records the files' hashes in s->meta); a model that pools by
 * [CLS] (pool) reads it before every sentence. ERR_INPUT names what the
 * data lacks: examples, two classes, a label of validation or test that
 * training never shows. */
int session_load_data(Session *s, Pooling pool, Err *e);

#endif
