/* Random positions (--random-positions N, Ruoss et al. 2023): sorted
 * distinct positions drawn uniformly from 0..N-1 (rng_sorted_subset), for
 * training and for evaluate_dataset_at (positions.h). */
#include "positions.h"

#include <string.h>

void session_draw_batch_positions(size_t *pos, Rng *rng, const size_t *lens, size_t B, size_t T,
                           size_t N, bool shared) {
    for (size_t b = 0; b < B; b++) {
        size_t *p = pos + b * T;
        if (shared && b > 0) {
            memcpy(p, pos, T * sizeof *p);
            continue;
        }
        rng_sorted_subset(rng, p, lens[b], N);
        for (size_t t = lens[b]; t < T; t++)
            p[t] = t;
    }
}

