/* The hand-built steps of the notes, before the paper's formula. Each counts
 * positions from 1, as the notes do: in "Rohan killed the lion", Rohan is 1
 * and lion is 4. */
#include <math.h>

#include "pe.h"

static size_t width_zero(const PeConfig *pc, size_t C, Combine combine) {
    (void)pc, (void)C, (void)combine;
    return 0;
}

static size_t width_one(const PeConfig *pc, size_t C, Combine combine) {
    (void)pc, (void)C, (void)combine;
    return 1;
}

static void fill_none(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                      size_t w) {
    (void)P, (void)pc, (void)params, (void)T, (void)n, (void)w;
}

/* The count itself: unbounded, it grows with the length of the text. */
static void fill_integer(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                         size_t w) {
    (void)pc, (void)params, (void)n, (void)w;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)(t + 1);
}

/* pos/N: bounded by 1, but word 2 of 2 gets 1 and word 2 of 4 gets 0.5,
 * so one position means different things at different lengths. */
static void fill_normalized(float *P, const PeConfig *pc, const float *params, size_t T,
                            size_t n, size_t w) {
    (void)pc, (void)params, (void)w;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)((double)(t + 1) / (double)n);
}

/* sin(pos): bounded and smooth, but periodic, so distant positions collide
 * (sin 8 and sin 14 differ by 0.0012). */
static void fill_sine(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                      size_t w) {
    (void)pc, (void)params, (void)n, (void)w;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)sin((double)(t + 1));
}

static size_t sincos_pairs(const PeConfig *pc) { return pc->pairs ? pc->pairs : 1; }

static size_t width_sincos(const PeConfig *pc, size_t C, Combine combine) {
    (void)C, (void)combine;
    return 2 * sincos_pairs(pc);
}

/* K pairs sin(pos/k), cos(pos/k), k = 1..K: the notes' step of adding
 * slower waves so that a collision of one wave is broken by another. */
static void fill_sincos(float *P, const PeConfig *pc, const float *params, size_t T, size_t n,
                        size_t w) {
    (void)params, (void)n;
    size_t K = sincos_pairs(pc);
    for (size_t t = 0; t < T; t++) {
        for (size_t k = 0; k < K; k++) {
            double a = (double)(t + 1) / (double)(k + 1);
            P[t * w + 2 * k] = (float)sin(a);
            P[t * w + 2 * k + 1] = (float)cos(a);
        }
    }
}

const PeScheme pe_none = {
    .name = "none",
    .first_position = 1,
    .about = "no position: self-attention sees a bag of words",
    .default_combine = COMBINE_ADD,
    .width = width_zero,
    .fill = fill_none,
};

const PeScheme pe_integer = {
    .name = "integer",
    .first_position = 1,
    .about = "the count 1, 2, 3, ... in one channel (unbounded)",
    .default_combine = COMBINE_CONCAT,
    .width = width_one,
    .fill = fill_integer,
};

const PeScheme pe_normalized = {
    .name = "normalized",
    .first_position = 1,
    .about = "pos/N in one channel (bounded, but depends on the length N)",
    .default_combine = COMBINE_CONCAT,
    .length_dependent = true,
    .width = width_one,
    .fill = fill_normalized,
};

const PeScheme pe_sine = {
    .name = "sine",
    .first_position = 1,
    .about = "sin(pos) in one channel (bounded, but periodic: positions collide)",
    .default_combine = COMBINE_CONCAT,
    .width = width_one,
    .fill = fill_sine,
};

const PeScheme pe_sincos = {
    .name = "sincos",
    .first_position = 1,
    .about = "K pairs sin(pos/k), cos(pos/k), k = 1..K (the notes' hand-built step)",
    .default_combine = COMBINE_CONCAT,
    .width = width_sincos,
    .fill = fill_sincos,
};
