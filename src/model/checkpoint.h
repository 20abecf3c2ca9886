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

#include "data.h"
#include "encoder.h"
#include "err.h"
#include "train.h"
#include "vocab.h"

#define CHECKPOINT_VERSION 1

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
