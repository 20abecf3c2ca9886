/* A training session: the data of a task or of files, the vocabulary and
 * classes built from it, the model, the optimizer and the data order,
 * together; and the evaluation of a model, overall and per length. The
 * programs train, evaluate and compare_pe are thin layers over this. */
#ifndef POSENC_SESSION_H
#define POSENC_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/encoder.h"
#include "../model/train.h"
#include "../text/data.h"
#include "../text/tasks.h"
#include "../text/vocab.h"
#include "checkpoint.h"
#include "evaluation.h"
#include "positions.h"

typedef struct {
    Vocab vocab;
    LabelSet labels;
    Dataset train, valid, test; /* test is empty when training on files */
    Model model;
    Trainer trainer;
    Acts acts;
    TrainMeta meta;
    int *ids, *batch_labels; /* (B,T) and (B) or (B,T) */
    size_t *lens, *idx;      /* (B) */
    size_t *pos;             /* (B,T) random positions, with meta.random_positions */
    /* --batches by-length: the training sentences of length t are
     * by_len[len_from[t] .. len_from[t + 1] - 1]; lengths[0..n_lengths-1]
     * are the lengths the split holds, one of which each step draws */
    size_t *by_len, *len_from, *lengths, n_lengths;
    double memory;           /* bytes the run needs, as estimated before allocating */
} Session;

/* Reads or generates the data named by meta (a task, or files), builds the
 * vocabulary and classes from the training split, fills in cfg's
 * vocab_size, n_classes and per_token, sizes a learned table to the
 * longest training sentence, and creates the model and optimizer. */
int session_create(Session *s, const TrainMeta *meta, const Config *cfg, const OptConfig *opt,
                   Err *e);
/* session_create, then the weights of from (of the same shape, trained
 * on the same task: its words and classes, matched by name) in place of
 * the first draw, with a new optimizer: fine-tuning, e.g. a rope model at
 * longer lengths under a scaling of its frequencies (cfg is from's, with
 * the scaling changed). */
int session_create_from(Session *s, const TrainMeta *meta, const Model *from,
                        const Vocab *words, const LabelSet *classes, const Config *cfg,
                        const OptConfig *opt, Err *e);

/* Puts the options of given that a trained model may change
 * (PeOption.tunable: rope's scaling, its factor and original length) into
 * c, the model's configuration, and checks them: scaling at inference,
 * without training. yarn's original length defaults to c->max_len, the
 * last position the model was trained with. */
int session_tune(Config *c, const PeConfig *given, Err *e);

/* The training options of meta that depend on the model c, checked
 * before any data is read (--random-positions: a scheme that reads
 * positions one by one, and room for the longest training sentence,
 * longest words, and the [CLS] before it when c pools by [CLS]); compare_pe
 * checks every scheme this way before its first run. */
int session_check_options(const TrainMeta *meta, const Config *c, size_t longest, Err *e);
/* Its part about --random-positions N and the scheme alone (without the
 * rules of the draws, which are a training's): what evaluate checks of a
 * trained model at N, whose own options it takes as they are. */
int session_check_positions(const TrainMeta *meta, const Config *c, size_t longest, Err *e);

/* Continues a checkpoint saved with its training state; steps, if not 0,
 * replaces the number of steps the run was asked for (it must be past the
 * saved step); max_memory as in TrainMeta. */
int session_resume(Session *s, const char *path, size_t steps, double max_memory, Err *e);

/* Bytes a run of a model c needs, estimated before anything is
 * allocated: the parameters with their gradients and Adam's two moments,
 * a training batch of B sentences of T tokens with its gradients, and an
 * evaluation batch of 64 sentences of T_eval. session_create and
 * session_resume refuse (ERR_INPUT) a run past meta.max_memory. */
double session_memory(const Config *c, size_t B, size_t T, size_t T_eval);
void session_free(Session *s);

/* A batch of B new sentences of the task (train --train-draw fresh) into
 * s->ids, s->lens and s->batch_labels, of T slots (set): with --batches
 * by-length all of one input length drawn uniformly from the task's, as
 * the pool's by-length batches; their seed drawn from the data order. */
int session_fresh_batch(Session *s, size_t *T, Err *e);

/* One training step on a batch drawn from the training split (with
 * random positions when meta.random_positions is set). */
int session_step(Session *s, StepStats *st, Err *e);
int session_save(const Session *s, const char *path, Err *e);

/* The model a run keeps (train --keep): with best, a copy of the
 * parameters of the evaluation with the best validation accuracy (ties go
 * to the lower validation loss), since the last step can fall on a spike
 * of the loss; without it, the model as it is. build/train and the web
 * page keep the same model this way. */
typedef struct {
    bool best;     /* --keep best */
    float *params; /* (n_params) the kept parameters, with best */
    size_t step;   /* the step they come from; 0 before the first offer */
    double acc, loss;
} Kept;

int kept_init(Kept *k, const Session *s, bool best, Err *e);

/* What the steps since the last evaluation did (their sums), and what the
 * evaluation that closed them found. */
typedef struct {
    double loss_sum;
    size_t steps, correct, labelled, tokens;
    float lr;          /* the last step's learning rate */
    bool evaluated;    /* an evaluation closed them: valid and kept_changed hold it */
    EvalStats valid;   /* on the validation split */
    bool kept_changed; /* the evaluated model is now k's */
} StepWindow;

/* The training loop train and the web page share: steps the run to its
 * next evaluation (every eval_every steps, and at the last), or max_steps
 * steps if sooner, adding to w (which the caller zeroes when a window
 * starts); at the evaluation, the validation split is evaluated and the
 * model offered to k. */
int session_advance(Session *s, Kept *k, size_t max_steps, StepWindow *w, Err *e);
/* Offers the model as it stands after an evaluation on the validation
 * split; true if it is now the kept one. */
bool kept_offer(Kept *k, const Session *s, const EvalStats *valid);
/* Puts the kept parameters back into the model (with best; without, the
 * model is already the kept one). */
void kept_restore(const Kept *k, Session *s);
void kept_free(Kept *k);

#endif
