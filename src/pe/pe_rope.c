/* Rotary position embedding (RoFormer, Su et al. 2021): each head's q and
 * k are turned, pair of channels by pair, by the angle p * theta_i at
 * position p, theta_i = base^(-2i/HS). A rotation keeps lengths, and the
 * product of a query turned by p and a key turned by q is the product of
 * the query and the key turned by q - p: the logit sees the offset only.
 * It adds nothing to the word vectors. */
#include <math.h>
#include <stdio.h>

#include "pe.h"

static int rope_check(const PeConfig *pc, size_t C, size_t NH, Err *e) {
    (void)pc;
    if ((C / NH) % 2 != 0)
        return err_set(e, ERR_INPUT, "rope turns the channels of each head in pairs, but d_model "
                       "%zu / %zu heads leaves %zu channels per head, an odd number; choose "
                       "--heads or --d-model so that each head has an even number of channels",
                       C, NH, C / NH);
    return 0;
}

/* Per token: cos(p theta_i) for the HS/2 pairs, then the sines. */
static size_t rope_scratch(size_t T, size_t HS) { return T * HS; }

static void rope_prepare(float *R, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    size_t half = HS / 2;
    for (size_t t = 0; t < T; t++)
        for (size_t i = 0; i < half; i++) {
            /* In double, rounded once, as the sinusoid: the offset property
             * then holds to 1e-6 at positions in the thousands. */
            double angle = (double)pos[t] / pow(pe_base(pc), (double)(2 * i) / (double)HS);
            R[t * HS + i] = (float)cos(angle);
            R[t * HS + half + i] = (float)sin(angle);
        }
}

static void rope_rotate(const PeConfig *pc, float *x, size_t ld, const float *R, size_t T,
                        size_t HS, bool inverse) {
    /* x is (T,HS) at row stride ld, R is (T,HS) */
    size_t half = HS / 2;
    bool split = pc->layout == LAYOUT_SPLIT;
    for (size_t t = 0; t < T; t++) {
        float *row = x + t * ld;
        const float *cs = R + t * HS, *sn = cs + half;
        for (size_t i = 0; i < half; i++) {
            size_t a = split ? i : 2 * i, b = split ? i + half : 2 * i + 1;
            /* the transpose of a rotation turns by the opposite angle */
            float c = cs[i], s = inverse ? -sn[i] : sn[i];
            float xa = row[a], xb = row[b];
            row[a] = xa * c - xb * s;
            row[b] = xa * s + xb * c;
        }
    }
}

/* The rotation's table for a head of w channels is the sinusoid of width
 * w, interleaved: channel 2i the sin of p theta_i, 2i+1 its cos. The
 * analysis measures its float32 fidelity with these. */
static double rope_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    return sinusoid_value((double)p, c, w, LAYOUT_INTERLEAVED, pe_base(pc));
}

/* The float32 recipe of published code: inv_freq = 1 / base^(2i/d) and the
 * angle p * inv_freq, both in float. */
static float rope_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    float inv = 1.0f / powf((float)pe_base(pc), (float)(2 * (c / 2)) / (float)w);
    float a = (float)p * inv;
    return c % 2 ? cosf(a) : sinf(a);
}

const PeScheme pe_rope = {
    .name = "rope",
    .reads = PE_READS_LAYOUT | PE_READS_BASE,
    .about = "q and k turned pair by pair by p * theta_i in each head: the logit sees the "
             "offset (RoFormer; LLaMA)",
    .note = "nothing is added to the word vectors: each head turns q and k by their "
            "positions, so the score of two words depends on their offset",
    .default_combine = COMBINE_ADD,
    .check = rope_check,
    .value = rope_value,
    .value_f32 = rope_f32,
    .scratch = rope_scratch,
    .prepare = rope_prepare,
    .rotate = rope_rotate,
};
