/* A model evaluated on a data set, split by length: the accuracies train,
 * evaluate and the experiments report, and the data a checkpoint's model
 * is evaluated on. */
#ifndef POSENC_EVALUATION_H
#define POSENC_EVALUATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../text/data.h"
#include "../text/tasks.h"
#include "checkpoint.h"
#include "positions.h"

/* Accuracy of a model on the examples of one length (or on all). */
typedef struct {
    size_t examples;  /* sentences */
    size_t skipped;   /* sentences the model cannot encode (past a learned table) */
    size_t labelled;  /* predictions scored: sentences, or tokens for per-token tasks */
    size_t correct;   /* of those, right */
    size_t exact;     /* sentences with every scored label right */
    size_t missed;    /* labels of the skipped sentences, counted as wrong overall */
    size_t in_loss;   /* predictions in the loss: labelled, and the slots trained on
                       * alone (core/label.h: the padding train --pad-loss trains) */
    double loss_sum;  /* cross-entropy summed over the predictions in the loss */
} EvalStats;

/* Evaluates m on every example of d, in batches of at most B sentences of
 * one length. per_len (if not NULL) has d->max_len + 1 entries, indexed by
 * length in words (a model that pools by [CLS] reads one token more); total
 * sums them. */
int evaluate_dataset(const Model *m, const Dataset *d, size_t B, EvalStats *per_len,
                     EvalStats *total, Err *e);

/* evaluate_dataset with Ruoss et al.'s (2023) positions at test: each
 * sentence gets sorted distinct positions drawn uniformly from 0..N-1, as
 * in training with --random-positions N, draws times (a generator seeded
 * from seed), every draw scored; the counts add up over the draws, so an
 * accuracy is their mean (exact counts sentences once per draw). With
 * shared, the sentences of a batch (all of one length) share one draw, as
 * in training with --batches by-length. how RANDOM_DRAW_RUOSS draws as
 * training with --random-draw ruoss does: for a scheme that draws in every
 * layer, every layer its own, for the whole batch (shared or not).
 * Sentences longer than N are skipped as a learned table's are. N = 0 is
 * evaluate_dataset (positions 0..T-1, one pass). */
int evaluate_dataset_at(const Model *m, const Dataset *d, size_t B, size_t N, size_t draws,
                        bool shared, RandomDraw how, uint64_t seed, EvalStats *per_len,
                        EvalStats *total, Err *e);
/* The same in room, the forward pass's buffers, which the call fits to B
 * sentences of d's longest (eval_room_fit) and leaves for the next call:
 * a caller that evaluates many sets (a cell's test lengths, each a set of
 * its own) pays for the buffers, and the first touch of their pages, once.
 * A zeroed Acts is an empty room; acts_free frees it. */
int evaluate_dataset_in(Acts *room, const Model *m, const Dataset *d, size_t B, size_t N,
                        size_t draws, bool shared, RandomDraw how, uint64_t seed,
                        EvalStats *per_len, EvalStats *total, Err *e);
/* room made to hold B sentences of T tokens, kept if it already does (it
 * grows, never shrinks). */
int eval_room_fit(Acts *room, const Model *m, size_t B, size_t T, Err *e);

/* correct / labelled, or 0 with nothing labelled. */
double eval_accuracy(const EvalStats *s);
/* loss_sum / in_loss, or 0 with nothing in the loss. */
double eval_loss(const EvalStats *s);
/* Accuracy over every example, those the model cannot encode counted wrong. */
double eval_accuracy_all(const EvalStats *s);

/* The data a model was trained on, for evaluating it: the task (options
 * from meta, lengths overridden by lo/hi when not 0) or a file, encoded
 * through the model's vocabulary and classes. which is "test" or "valid"
 * for a task; a file is read as it is. */
int session_eval_data(Dataset *out, const Checkpoint *ck, const char *task, const char *path,
                      const TaskOptions *overrides, const char *which, size_t *n_unknown,
                      Err *e);

/* The words of the same data without their labels (all -1), for a
 * position probe, which needs none: a model trained on a file can be
 * probed on a task and the other way round. From a file (path), "valid" is
 * its first half and "test" its second. */
int session_words_data(Dataset *out, const Checkpoint *ck, const char *task, const char *path,
                       const TaskOptions *overrides, const char *which, Err *e);

#endif
