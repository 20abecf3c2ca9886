/* Checkpoints: a versioned binary file holding a model (configuration,
 * scheme, vocabulary, classes, parameters) and, for resuming, the training
 * state (optimizer, step, data order). The format is in docs/formats.md.
 *
 * Saving writes a temporary file in the same directory and renames it over
 * the target, so an interrupted save never leaves a broken or missing
 * model. Loading checks every field and size, and a checksum over the
 * whole file: a truncated, corrupted or foreign file is refused with a
 * message, never half-loaded. */
#ifndef POSENC_CHECKPOINT_H
#define POSENC_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "../model/model.h"
#include "../model/train.h"
#include "../text/data.h"
#include "../text/tasks.h"
#include "../text/vocab.h"

/* Version 2 added the options of the attention schemes, the learned
 * table's initial std and randomized positions; version 3 the causal
 * mask; version 4 the scaling of rope; version 5 shaw's clipping distance, alibi's slopes, dropout and the pooling.
 * Older files still load, with those at their defaults. */
#define CHECKPOINT_VERSION 5

/* What a training run was asked for (its data, batch, steps and
 * evaluations) and where its data order stands: with the model and the
 * optimizer, what a checkpoint needs to resume the run exactly where it
 * stopped. */
typedef struct {
    char task[32];        /* built-in task, e.g. "agent"; "" when trained on a file */
    char data[256];       /* the training file when task is "" */
    char valid[256];      /* the validation file, or "" */
    TaskOptions task_opt; /* the task's options, its seed included */
    size_t batch;         /* sentences per step, e.g. 32 */
    size_t steps;         /* steps the run was asked for, e.g. 2000 */
    size_t eval_every;    /* steps between evaluations, e.g. 100 */
    uint64_t seed;        /* seed of the data order */
    Rng rng;              /* the data-order generator as it stands after `step` steps */
    double seconds;       /* time spent training so far, resumed runs included */
    size_t random_positions; /* training positions drawn from 0..N-1, e.g. 64; 0 = off */
    size_t table_len;     /* rows asked of a learned table, 0 = as training needs; not
                           * saved (the model's shape holds the answer) */
    double max_memory;    /* bytes the run may use, e.g. 8e9; 0 = no limit; not saved */
} TrainMeta;

/* The limits of train's options, which a checkpoint's training state must
 * respect too. */
#define TRAIN_MAX_BATCH 4096
#define TRAIN_MAX_STEPS 100000000

/* Checks a training state against what train's options allow (batch,
 * steps, evaluation interval, the task's options, step <= steps): what a
 * valid checksum cannot vouch for. ERR_INPUT with the field at fault. */
int train_meta_check(const TrainMeta *mt, size_t step, Err *e);

typedef struct {
    Model model;
    Vocab vocab;
    LabelSet labels;
    bool has_train;   /* the training state below was saved */
    OptConfig opt;
    size_t step;
    float *m, *v;     /* (model.n_params) each, when has_train */
    TrainMeta meta;
} Checkpoint;

/* Saves the model, its vocabulary and classes; with t and meta not NULL,
 * also the training state. */
int checkpoint_save(const char *path, const Model *m, const Vocab *v, const LabelSet *labels,
                    const Trainer *t, const TrainMeta *meta, Err *e);

int checkpoint_load(Checkpoint *ck, const char *path, Err *e);
/* The loader on bytes in memory; name is used in messages. */
int checkpoint_parse(Checkpoint *ck, const unsigned char *buf, size_t len, const char *name,
                     Err *e);
void checkpoint_free(Checkpoint *ck);

/* Puts a loaded training state into a trainer made for ck->model. */
void checkpoint_restore_trainer(const Checkpoint *ck, Trainer *t);

#endif
