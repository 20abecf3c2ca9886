/* One training run, evaluated on the test split per sentence length: the
 * unit that compare_pe and the experiments repeat over schemes and seeds. */
#ifndef POSENC_TRIAL_H
#define POSENC_TRIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../model/train.h"
#include "checkpoint.h"
#include "session.h"

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
    /* the share of test sentences with every label right, overall and per
     * length (NaN where per_len is), and with random test positions */
    double exact, exact_at;
    double *exact_len, *exact_len_at;
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

/* Tests m on test: accuracy and exact-match rate overall and per length
 * (per_len and exact_len allocated, test->max_len + 1 entries, NaN where
 * no sentence was scored); with N, at random positions from 0..N-1,
 * TRIAL_DRAWS draws from seed (evaluate_dataset_at), one per batch with
 * shared (a model trained with --batches by-length), drawn as how says
 * (its --random-draw). */
int trial_test(const Model *m, const Dataset *test, size_t N, bool shared, RandomDraw how,
               uint64_t seed, double *accuracy, double *exact, double **per_len, double **exact_len, Err *e);

#endif
