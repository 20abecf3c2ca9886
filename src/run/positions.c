/* Random positions (--random-positions N, Ruoss et al. 2023): sorted
 * distinct positions drawn uniformly from 0..N-1 (rng_sorted_subset), for
 * training and for evaluate_dataset_at (positions.h). */
#include "positions.h"

#include <stdio.h>
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


int positions_check_run(const PePlan *plan, const PeConfig *pc, size_t N, const size_t longest[3],
                        Err *e) {
    static const char *const split[3] = {"training", "validation", "test"};
    size_t k = 0;
    for (size_t i = 1; i < 3; i++)
        k = longest[i] > longest[k] ? i : k;
    char where[128];
    if (N >= longest[k] && N > 0)
        snprintf(where, sizeof where, "the positions 0..%zu training draws from "
                 "(--random-positions %zu)", N - 1, N);
    else if (longest[k] > 0)
        snprintf(where, sizeof where, "the longest %s sentence (%zu tokens) at positions 0..%zu",
                 split[k], longest[k], longest[k] - 1);
    else
        return 0;
    size_t n = N > longest[k] ? N : longest[k];
    return pe_check_span(plan, pc, 0, n - 1, where, e);
}
