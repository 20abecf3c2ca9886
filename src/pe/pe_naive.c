/* The hand-built steps of the notes, before the paper's formula. Each counts
 * positions from 1, as the notes do: in "Rohan killed the lion", Rohan is 1
 * and lion is 4: position p (0-based) is numbered p + 1. */
#include <math.h>

#include "pe.h"

static size_t width_one(const PeConfig *pc, size_t C, Combine combine) {
    (void)pc, (void)C, (void)combine;
    return 1;
}

/* The count itself: unbounded, it grows with the length of the text. */
static double integer_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c, (void)n;
    return (double)(p + 1);
}

static float integer_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c, (void)n;
    return (float)(p + 1);
}

/* pos/N: bounded by 1, but word 2 of 2 gets 1 and word 2 of 4 gets 0.5,
 * so one position means different things at different lengths. */
static double normalized_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c;
    return (double)(p + 1) / (double)n;
}

static float normalized_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c;
    return (float)(p + 1) / (float)n;
}

/* sin(pos): bounded and smooth, but periodic, so distant positions collide
 * (sin 8 and sin 14 differ by 0.0012). */
static double sine_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c, (void)n;
    return sin((double)(p + 1));
}

static float sine_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)c, (void)n;
    return sinf((float)(p + 1));
}

static const PeOption opt_pairs = {
    .flag = "--pairs",
    .arg = "K",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = PE_MAX_WIDTH / 2,
    .def = 1,
    .def_text = "1",
    .help = "sin/cos pairs of the sincos scheme (default 1)",
    .example = "3",
};

static size_t sincos_pairs(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_pairs); }

static size_t width_sincos(const PeConfig *pc, size_t C, Combine combine) {
    (void)C, (void)combine;
    return 2 * sincos_pairs(pc);
}

/* K pairs sin(pos/k), cos(pos/k), k = 1..K: the notes' step of adding
 * slower waves so that a collision of one wave is broken by another.
 * Channel 2(k-1) is the sin, 2(k-1)+1 the cos. */
static double sincos_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)n;
    double a = (double)(p + 1) / (double)(c / 2 + 1);
    return c % 2 ? cos(a) : sin(a);
}

static float sincos_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)pc, (void)w, (void)n;
    float a = (float)(p + 1) / (float)(c / 2 + 1);
    return c % 2 ? cosf(a) : sinf(a);
}

const PeScheme pe_none = {
    .name = "none",
    .demo_default = true,
    .first_position = 1,
    .about = "no position: self-attention sees a bag of words",
    .since = 1,
    .ruoss_column = "none",
    .bench_place = 1,
    .default_combine = COMBINE_ADD,
};

const PeScheme pe_integer = {
    .name = "integer",
    .demo_default = true,
    .since = 1,
    .first_position = 1,
    .about = "the count 1, 2, 3, ... in one channel (unbounded)",
    .default_combine = COMBINE_CONCAT,
    .width = width_one,
    .value = integer_value,
    .value_f32 = integer_f32,
};

const PeScheme pe_normalized = {
    .name = "normalized",
    .demo_default = true,
    .since = 1,
    .first_position = 1,
    .about = "pos/N in one channel (bounded, but depends on the length N)",
    .default_combine = COMBINE_CONCAT,
    .length_dependent = true,
    .width = width_one,
    .value = normalized_value,
    .value_f32 = normalized_f32,
};

const PeScheme pe_sine = {
    .name = "sine",
    .since = 1,
    .first_position = 1,
    .about = "sin(pos) in one channel (bounded, but periodic: positions collide)",
    .default_combine = COMBINE_CONCAT,
    .width = width_one,
    .value = sine_value,
    .value_f32 = sine_f32,
};

const PeScheme pe_sincos = {
    .name = "sincos",
    .since = 1,
    .options = (const PeOption *const[]){&opt_pairs, NULL},
    .first_position = 1,
    .about = "K pairs sin(pos/k), cos(pos/k), k = 1..K (the notes' hand-built step)",
    .default_combine = COMBINE_CONCAT,
    .width = width_sincos,
    .value = sincos_value,
    .value_f32 = sincos_f32,
};
