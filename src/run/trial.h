/* One training run, evaluated on the test split per sentence length: the
 * unit that compare_pe and the experiments repeat over schemes and seeds. */
#ifndef POSENC_TRIAL_H
#define POSENC_TRIAL_H

#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../model/train.h"
#include "checkpoint.h"

typedef struct {
    double accuracy; /* on the test split; sentences the model cannot encode count as wrong */
    size_t max_len;  /* per_len has entries 0..max_len */
    double *per_len; /* accuracy at each length; NaN where the split has no sentence of that
                      * length or the model cannot encode them (past a learned table) */
    double *per_len_at; /* with random positions in training (meta.random_positions N):
                         * the accuracy at each length with test positions drawn from
                         * 0..N-1 as well (Ruoss et al.'s protocol, TRIAL_DRAWS draws);
                         * NULL otherwise */
    double accuracy_at; /* the same over every length */
    Combine combine; /* how the code met the embeddings */
    size_t w;        /* channels of the code: 0 when the scheme adds none */
    double seconds;  /* spent training */
} Trial;

/* Draws of test positions per sentence in per_len_at. */
#define TRIAL_DRAWS 10

/* Trains a model on the task of mt (a built-in task: the test split is the
 * task's) for mt->steps steps and evaluates it. */
int trial_run(Trial *t, const TrainMeta *mt, const Config *cfg, const OptConfig *opt, Err *e);
void trial_free(Trial *t);

#endif
