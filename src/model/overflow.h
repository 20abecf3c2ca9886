/* Numbers past float's range in a pass: the one cause that can be known
 * before the pass (a scheme's factor of the positions, pe_check_span),
 * refused there; and, when a pass gave a number that is not finite, the
 * cause found, so that a message names it instead of guessing (the
 * weights, the learning rate). */
#ifndef POSENC_OVERFLOW_H
#define POSENC_OVERFLOW_H

#include <stddef.h>

#include "../core/err.h"
#include "model.h"

/* ERR_INPUT before the pass when the scheme's factor of the positions is
 * past float's range for the positions some layer prepares: a sentence's
 * (a->pos, all T slots, as prepare gets them; lens names the sentence)
 * or, under a draw per layer (a->layers_in_use), a layer's own. */
int overflow_check_positions(const Model *m, const Acts *a, const size_t *lens, size_t B,
                             size_t T, Err *e);

typedef enum {
    OVERFLOW_WEIGHT,     /* a weight is NaN or infinite */
    OVERFLOW_SCHEME,     /* the scheme's factor of the positions takes more than half of
                          * float's range (pe_gain_cause): the larger part of the overflow */
    OVERFLOW_ARITHMETIC  /* neither: finite weights whose arithmetic overflowed */
} OverflowCause;

/* Why a pass over sentences b0..b0+n-1 of a batch of T slots (lens
 * their tokens; the positions and draws a holds from the pass) gave a
 * number that is not finite, looked for in the order of the causes
 * above; a clause saying what was found into buf (cap bytes): the weight
 * and its value, the scheme's factor with what to change, or the largest
 * weight and its tensor. */
OverflowCause overflow_cause(char *buf, size_t cap, const Model *m, const Acts *a,
                             const size_t *lens, size_t b0, size_t n, size_t T);

#endif
