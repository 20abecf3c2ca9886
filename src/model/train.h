/* Training: AdamW with gradient clipping and an optional warm-up
 * schedule, one step at a time. */
#ifndef POSENC_TRAIN_H
#define POSENC_TRAIN_H

#include <stddef.h>

#include "../core/err.h"
#include "encoder.h"

typedef enum { SCHEDULE_CONSTANT = 0, SCHEDULE_NOAM = 1 } Schedule;

typedef struct {
    float lr;           /* peak learning rate, e.g. 1e-3 */
    float beta1, beta2; /* e.g. 0.9 and 0.98, the paper's */
    float eps;          /* e.g. 1e-9, the paper's */
    float weight_decay; /* decoupled (AdamW), on weight matrices only, e.g. 0.01 */
    float clip;         /* largest global gradient norm, e.g. 1.0; 0 = no clipping */
    Schedule schedule;  /* constant (after warm-up) or the paper's (section 5.3) */
    size_t warmup;      /* steps of warm-up, e.g. 100; 0 = none */
} OptConfig;

typedef struct {
    OptConfig opt;
    size_t n;       /* parameters */
    size_t step;    /* steps taken */
    float *grad;    /* (n) gradients, laid out as the parameters */
    float *m, *v;   /* (n) AdamW's moments */
    Params g;       /* named views into grad */
    GradActs ga;
    float *mem;
    double *part;   /* the gradient norm's partial sums, one per chunk (train.c) */
} Trainer;

typedef struct {
    float loss;         /* mean cross-entropy over the slots in the loss */
    size_t correct;     /* scored predictions equal to their label */
    size_t labelled;    /* scored slots */
    size_t in_loss;     /* slots in the loss: the scored ones and those trained
                         * on alone (core/label.h); labelled without them */
    float grad_norm;    /* before clipping */
    float lr;           /* the learning rate this step used */
} StepStats;

void opt_default(OptConfig *o);
int opt_check(const OptConfig *o, Err *e);
/* The learning rate of step s (counted from 1). Constant: lr after a
 * linear warm-up. Noam: the paper's d^-0.5 min(s^-0.5, s w^-1.5), scaled
 * so that its peak, at s = warmup, is lr. */
float opt_lr(const OptConfig *o, size_t s);

int trainer_create(Trainer *t, const Model *m, const OptConfig *o, size_t B, size_t T, Err *e);
void trainer_free(Trainer *t);

/* One step on a batch: forward, loss, backward, clipping, AdamW. pos
 * (B,T) gives the tokens' positions, or is NULL for 0..T-1 (see
 * encoder_forward_at). A loss or gradient that is NaN or infinite leaves
 * the model untouched and fails with ERR_RUNTIME naming the step. */
int train_step(Trainer *t, Model *m, Acts *a, const int *ids, const size_t *lens,
               const size_t *pos, const int *labels, size_t B, size_t T, StepStats *st, Err *e);

/* Forward and loss only (no gradients): for evaluation. */
int eval_batch(const Model *m, Acts *a, const int *ids, const size_t *lens, const int *labels,
               size_t B, size_t T, StepStats *st, Err *e);
/* The same with token t of sentence b at position pos[b,t], or 0..T-1
 * when pos is NULL (encoder_forward_at). */
int eval_batch_at(const Model *m, Acts *a, const int *ids, const size_t *lens,
                  const size_t *pos, const int *labels, size_t B, size_t T, StepStats *st,
                  Err *e);

#endif
