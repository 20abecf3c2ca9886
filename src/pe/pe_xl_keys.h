/* Transformer-XL's keys W_R R(o) for a sentence's offsets (pe_xl.c's
 * scheme): the sines and cosines of the offsets, the keys made by tiles of
 * offsets and head channels, the memo that makes them once a batch, and
 * the pair loops at random positions. Private to pe_xl.c and
 * pe_xl_keys.c. */
#ifndef POSENC_PE_XL_KEYS_H
#define POSENC_PE_XL_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "pe.h"
#include "pe_sinusoidal.h"

#define XL_BASE PE_DEFAULT_BASE /* their max_time, 10000 */
#define TILE_OFFSETS 32
#define TILE_CHANNELS 32
#define TILE_FREQS 16

/* Head h's parts of one layer's table (C+2,C), and of its gradient. */
typedef struct {
    const float *W;       /* (HS,C) rows h*HS.. of W_R */
    const float *u, *v;   /* (HS) */
    float *dW, *du, *dv;  /* their gradients, or NULL */
    size_t C, HS;
} Head;

/* Offsets u0..u0+nu-1 of the sentence's list, head channels d0..d0+nd-1. */
typedef struct {
    size_t u0, nu, d0, nd;
} Tile;

static inline size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* A head's keys for every offset of a sentence and the sines and cosines
 * they were made of, kept by the thread (xl_keys_of). */
typedef struct {
    const float *at; /* W_R's rows, where they were read */
    float *w, *D, *keys, *sn, *cs;
    size_t HS, C, n, cap_w, cap_D, cap_keys, cap_sn, cap_cs;
} KeyMemo;

/* The tile's keys W_R R(o) into rk (channels by offsets), and with G the
 * gradient of W_R from the keys'; either may be NULL. */
void xl_offset_keys(float *rk, const float *G, const Head *x, const float *D, const Tile *tl);
/* A head's keys for the sentence's n offsets D, kept from the last call
 * when made of the same; NULL when memory ran out. */
const KeyMemo *xl_keys_of(const Head *x, const float *D, size_t n, size_t h);
/* W_R's gradient from a tile's keys' gradient G, with the memo's sines. */
void xl_memo_grad(const Head *x, const float *G, const KeyMemo *m, const Tile *tl);
/* The score hook's terms (b) and (d) and their backward, pair by pair (at
 * random positions); the backward is false when memory ran out. */
void xl_pair_score(const PeHead *hd, const Head *x, const KeyMemo *m, const float *index);
bool xl_pair_backward(const PeHead *hd, const Head *x, const KeyMemo *m, const float *index);

#endif
