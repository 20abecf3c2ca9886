#include "rng.h"

#include <math.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(Rng *r, uint64_t seed) {
    /* splitmix64 spreads any seed, 0 included, over the whole state. */
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t rng_hash(uint64_t key, uint64_t counter) {
    uint64_t h = splitmix64(&key) + counter;
    return splitmix64(&h);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_u64(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(Rng *r) { return (double)(rng_u64(r) >> 11) * 0x1.0p-53; }

float rng_range(Rng *r, float lo, float hi) {
    return lo + (hi - lo) * (float)rng_uniform(r);
}

float rng_normal(Rng *r) {
    /* 1 - u lies in (0, 1], so the log is finite. */
    double u1 = 1.0 - rng_uniform(r);
    double u2 = rng_uniform(r);
    return (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
}

float rng_truncated_normal(Rng *r) {
    /* about 1 draw in 22 falls outside and is drawn again */
    float z;
    do {
        z = rng_normal(r);
    } while (z < -2.0f || z > 2.0f);
    return z;
}

size_t rng_below(Rng *r, size_t n) {
    /* Rejection sampling removes the modulo bias. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;
    uint64_t x;
    do {
        x = rng_u64(r);
    } while (x >= limit);
    return (size_t)(x % (uint64_t)n);
}

void rng_shuffle(Rng *r, size_t *perm, size_t n) {
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(r, i);
        size_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Where N is at most this many times n, rng_sorted_subset scans. */
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
void rng_sorted_subset(Rng *rng, size_t *p, size_t n, size_t N) {
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
