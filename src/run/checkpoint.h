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
#include "train_options.h"

/* Version 2 added the options of the attention schemes, the learned
 * table's initial std and randomized positions; version 3 the causal
 * mask; version 4 the scaling of rope; version 5 shaw's clipping distance,
 * alibi's slopes, dropout and the pooling (in three layouts: the last two
 * came later without a new number). Version 6 stores the scheme's options
 * and the run's (train_options.h) by name, as their command-line text, so
 * that a new option needs no new version. Version 7 stores the model's own
 * options the same way (model.h's: the first draws, the output
 * projection's bias), after the scheme's. Older files still load, with
 * what they lack at its default. */
#define CHECKPOINT_VERSION 7

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
