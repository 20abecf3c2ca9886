/* The project's one random number generator: xoshiro256** seeded through
 * splitmix64. The same seed gives the same numbers on every machine; nothing
 * is ever seeded from the clock. */
#ifndef POSENC_RNG_H
#define POSENC_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
} Rng;

void rng_seed(Rng *r, uint64_t seed);
uint64_t rng_u64(Rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double rng_uniform(Rng *r);
/* Uniform in [lo, hi). */
float rng_range(Rng *r, float lo, float hi);
/* Standard normal (Box-Muller; one draw per call so the stream never
 * depends on a cached second value). */
float rng_normal(Rng *r);
/* Standard normal truncated to [-2, 2]: rng_normal's draws, each beyond
 * +-2 drawn again (JAX's truncated_normal, which Haiku's TruncatedNormal
 * scales, gives the same distribution by its inverse CDF). */
float rng_truncated_normal(Rng *r);
/* Uniform integer in [0, n), unbiased; n > 0. */
size_t rng_below(Rng *r, size_t n);
/* n sorted distinct values of 0..N-1 into p (n <= N), every n-subset
 * equally likely, in O(n) draws whatever N: the positions of
 * --random-positions N, and the distances a layer draws (encoder.h). */
void rng_sorted_subset(Rng *r, size_t *p, size_t n, size_t N);
/* Fisher-Yates shuffle of perm[0..n). */
void rng_shuffle(Rng *r, size_t *perm, size_t n);
/* A number as random as rng_u64's that depends on (key, counter) alone,
 * for draws that must be the same whichever thread makes them and in
 * whatever order (dropout's masks): splitmix64 of the key, then of the
 * counter added to it. */
uint64_t rng_hash(uint64_t key, uint64_t counter);

#endif
