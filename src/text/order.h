/* Measuring order-blindness: line up the words of a sentence and of a
 * permutation of it, then compare what the model made of each. */
#ifndef POSENC_ORDER_H
#define POSENC_ORDER_H

#include <stddef.h>

#include "../core/err.h"
#include "vocab.h"

/* Aligned output rows further apart than this mean the model saw the order.
 * Float32 summation order alone moves them by about 1e-7; a constant shift
 * erased by LayerNorm leaves about 1e-6. */
#define ORDER_BLIND_TOL 1e-4

/* perm[i] = the position in a of the word at position i of b, so that
 * b[i] == a[perm[i]]. Repeated words are matched in order of occurrence:
 * the first "the" of b with the first "the" of a. Fails with ERR_INPUT when
 * b is not a reordering of a's words, or is a's words in the same order. */
int align_permutation(size_t *perm, const Words *a, const Words *b, Err *e);

/* max over i < n, c < C of |yb[i,c] - ya[perm[i],c]|: zero when the rows
 * of yb are those of ya, permuted (rows of C floats). */
double max_aligned_diff(const float *ya, const float *yb, const size_t *perm, size_t n,
                        size_t C);

/* Cosine similarity of two vectors of n floats (0 if either is zero). */
double cosine(const float *u, const float *v, size_t n);

#endif
