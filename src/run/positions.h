/* Random positions: what a sentence gets with --random-positions N, in
 * training and in evaluate_dataset_at. */
#ifndef POSENC_POSITIONS_H
#define POSENC_POSITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/rng.h"

/* n sorted distinct positions of 0..N-1 into p (n <= N), every n-subset
 * equally likely, in O(n) draws of rng whatever N: what a sentence of n
 * tokens gets with --random-positions N, in training and in
 * evaluate_dataset_at. */
void session_draw_positions(size_t *p, Rng *rng, size_t n, size_t N);

/* Sorted distinct positions for each sentence b of a batch (B,T), drawn
 * as session_draw_positions draws them for its length lens[b]; padded
 * slots keep their index. With shared (a batch of one length), the first
 * sentence's draw is every sentence's. */
void session_draw_batch_positions(size_t *pos, Rng *rng, const size_t *lens, size_t B, size_t T,
                                  size_t N, bool shared);

#endif
