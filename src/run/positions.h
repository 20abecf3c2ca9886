/* Random positions: what a sentence gets with --random-positions N, in
 * training and in evaluate_dataset_at. */
#ifndef POSENC_POSITIONS_H
#define POSENC_POSITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "../pe/pe.h"

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

/* The widest positions a run gives a sentence: 0..N-1 drawn in training
 * (--random-positions N; 0 for none), or 0..n-1 for the longest sentence
 * of the training, validation and test splits (longest[3], in tokens;
 * evaluation counts from 0). ERR_INPUT before the first step when the
 * scheme's factor of the positions is past float's range there
 * (pe_check_span): every step would be NaN. */
int positions_check_run(const PePlan *plan, const PeConfig *pc, size_t N, const size_t longest[3],
                        Err *e);

#endif
