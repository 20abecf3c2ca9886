/* Random positions: what a sentence gets with --random-positions N, in
 * training and in evaluate_dataset_at. */
#ifndef POSENC_POSITIONS_H
#define POSENC_POSITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/rng.h"

/* What --random-positions draws (train --random-draw): the input's sorted
 * positions once a batch, for every scheme; or what Ruoss et al.'s code
 * draws for each scheme (PeDraw, pe.h: rope's positions and alibi's and
 * relative's distances afresh in every layer, encoder_draw_layers). */
typedef enum { RANDOM_DRAW_POSITIONS = 0, RANDOM_DRAW_RUOSS = 1 } RandomDraw;

/* Sorted distinct positions for each sentence b of a batch (B,T), drawn
 * as rng_sorted_subset draws them (a uniform subset of 0..N-1) for its length lens[b]; padded
 * slots keep their index. With shared (a batch of one length), the first
 * sentence's draw is every sentence's. */
void session_draw_batch_positions(size_t *pos, Rng *rng, const size_t *lens, size_t B, size_t T,
                                  size_t N, bool shared);

#endif
