/* Random positions (--random-positions N, Ruoss et al. 2023): sorted
 * distinct positions drawn uniformly from 0..N-1, for training and for
 * evaluate_dataset_at (positions.h). */
#include "positions.h"

#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Where N is at most this many times n, session_draw_positions scans. */
#define SCAN_PER_POSITION 64

/* Two ways, each O(n) draws. Where N <= SCAN_PER_POSITION n, selection
 * sampling (Knuth's algorithm S) scans 0..N-1 and keeps x with
 * probability wanted/left: one draw per x up to the last kept, at most N.
 * Past that, it draws from 0..N-1 until n values are distinct: the set of
 * values drawn is a uniform subset (no step of it tells one value from
 * another), and with N > 64 n a draw repeats an earlier one with
 * probability under 1/64, so it takes about n draws and a sort. The bound
 * 64 keeps the numbers of every N the docs, the tests and the experiments
 * use (N at most 8 times the shortest sentence): those of the scan, which
 * was the only way before. */
void session_draw_positions(size_t *p, Rng *rng, size_t n, size_t N) {
    if (N <= SCAN_PER_POSITION * n) {
        size_t got = 0;
        for (size_t x = 0; x < N && got < n; x++)
            if (rng_below(rng, N - x) < n - got)
                p[got++] = x;
        return;
    }
    for (size_t got = 0; got < n;) {
        for (size_t i = got; i < n; i++)
            p[i] = rng_below(rng, N);
        qsort(p, n, sizeof *p, cmp_size);
        got = 1;
        for (size_t i = 1; i < n; i++)
            if (p[i] != p[got - 1])
                p[got++] = p[i];
    }
}

void session_draw_batch_positions(size_t *pos, Rng *rng, const size_t *lens, size_t B, size_t T,
                           size_t N, bool shared) {
    for (size_t b = 0; b < B; b++) {
        size_t *p = pos + b * T;
        if (shared && b > 0) {
            memcpy(p, pos, T * sizeof *p);
            continue;
        }
        session_draw_positions(p, rng, lens[b], N);
        for (size_t t = lens[b]; t < T; t++)
            p[t] = t;
    }
}

