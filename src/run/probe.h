/* A linear probe of position: how well a linear map reads each word's
 * position back from the hidden states of each layer of a model.
 *
 * For every layer the probe fits, by ridge regression on the words of one
 * set of sentences, a map from a word's row (C channels and a constant)
 * to its position written two ways: one-hot over the positions, and the
 * position as a number. On the words of other sentences it then reports
 * how often the largest one-hot output is the right position (accuracy),
 * and how much of the variance of the position the number explains (R^2).
 * A probe that reads the position back shows that a linear map of the
 * layer's rows holds it; one that cannot shows that no linear map does.
 * It reads words only: the [CLS] of a model that pools by it (always at
 * position 0) is not one, and a word's position counts words from 0. */
#ifndef POSENC_PROBE_H
#define POSENC_PROBE_H

#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../text/data.h"

/* Widest model the probe takes: its normal equations are (C+1) x (C+1). */
#define PROBE_MAX_DIM 1024
/* Sentences run through the model at once (the activations are sized for
 * this many of the longest). */
#define PROBE_BATCH 64

typedef struct {
    size_t n_rows;                      /* L + 1: the input, then each layer's output */
    double accuracy[MAX_LAYERS + 1];    /* share of test words whose position is read right */
    double r2[MAX_LAYERS + 1];          /* R^2 of the position read as a number */
    double chance;                      /* accuracy of always guessing the commonest position */
    size_t n_positions;                 /* word positions 0..n_positions-1 occur */
    size_t fit_sentences, fit_words;    /* what the maps were fitted on */
    size_t test_sentences, test_words;  /* what they were scored on */
    size_t skipped;                     /* sentences longer than a learned table */
} ProbeResult;

/* Row l of the result reads: l = 0, the encoder's input (embedding and
 * position code); 1 <= l < L, the output of layer l, the input of the next
 * (after its LayerNorm in post-norm, the residual stream in pre-norm);
 * l = L, the encoder's output, what the head reads (after the final
 * LayerNorm in pre-norm). ridge (e.g. 1e-3) is the penalty on the weights,
 * relative to the mean squared channel. Fits on fit, scores on test;
 * sentences a learned table cannot encode are skipped and counted. */
int probe_position(ProbeResult *r, const Model *m, const Dataset *fit, const Dataset *test,
                   double ridge, Err *e);

#endif
