/* Shaw et al.'s relative position representations (2018): a learned
 * vector for each offset j - i clipped to [-k, k], added to key j as
 * query i sees it (inside the scores) and to value j (inside the output):
 *   e_ij = q_i . (k_j + aK(j-i)) / sqrt(HS),   z_i = sum_j a_ij (v_j + aV(j-i)).
 * As in the paper, every head shares the vectors; one table serves every
 * layer too, as T5's does (Shaw et al.'s tensor2tensor code gives each
 * layer its own). The step between the sinusoid and T5, Transformer-XL
 * and RoPE: position as a property of the pair, learned, and clipped. */
#include <math.h>

#include "pe.h"

static size_t k_of(const PeConfig *pc) { return pe_resolved(pc).max_relative; }

size_t shaw_row(long offset, size_t k) {
    long K = (long)k;
    return (size_t)(K + (offset < -K ? -K : offset > K ? K : offset));
}

static int shaw_check(const PeConfig *pc, size_t C, size_t NH, Err *e) {
    (void)C, (void)NH;
    size_t k = k_of(pc);
    if (k < 1 || k > PE_MAX_RELATIVE_MAX)
        return err_set(e, ERR_INPUT, "shaw's --max-relative %zu must be from 1 to %d", k,
                       PE_MAX_RELATIVE_MAX);
    return 0;
}

/* Rows 0..2k: aK of offsets -k..k; rows 2k+1..4k+1: aV; HS columns. */
static void shaw_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                       size_t *rows, size_t *cols) {
    (void)w, (void)NH, (void)max_len;
    *rows = 2 * (2 * k_of(pc) + 1);
    *cols = HS;
}

static void shaw_init(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng) {
    (void)C;
    /* tensor2tensor's default for the two embedding tables (Glorot's
     * uniform over fan-in 2k+1 and fan-out HS) */
    size_t R = 2 * k_of(pc) + 1, HS = n / (2 * R);
    float limit = sqrtf(6.0f / (float)(R + HS));
    for (size_t i = 0; i < n; i++)
        params[i] = rng_range(rng, -limit, limit);
}

/* Per sentence: the row of every (query, key) pair, as floats (exact). */
static size_t shaw_scratch(size_t T, size_t HS) {
    (void)HS;
    return T * T;
}

static void shaw_prepare(float *S, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)HS;
    size_t k = k_of(pc);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            S[i * T + j] = (float)shaw_row((long)pos[j] - (long)pos[i], k);
}

/* aV's rows follow aK's */
static const float *values_of(const PeConfig *pc, const float *params, size_t HS) {
    return params + (2 * k_of(pc) + 1) * HS;
}

static float dot(const float *a, const float *b, size_t n) {
    float s = 0.0f;
    for (size_t d = 0; d < n; d++)
        s += a[d] * b[d];
    return s;
}

static void shaw_key_scores(const PeConfig *pc, const float *params, float *scores,
                            const float *q, size_t ld, const float *S, size_t T, size_t HS,
                            float scale) {
    (void)pc;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            scores[i * T + j] += scale * dot(q + i * ld, params + (size_t)S[i * T + j] * HS, HS);
}

static void shaw_value_mix(const PeConfig *pc, const float *params, float *out, size_t ld,
                           const float *att, const float *S, size_t T, size_t HS) {
    const float *aV = values_of(pc, params, HS);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float a = att[i * T + j];
            if (a == 0.0f) /* a masked key */
                continue;
            const float *v = aV + (size_t)S[i * T + j] * HS;
            for (size_t d = 0; d < HS; d++)
                out[i * ld + d] += a * v[d];
        }
}

static void shaw_key_scores_backward(const PeConfig *pc, const float *params, float *dparams,
                                     float *dq, const float *ds, const float *q, size_t ld,
                                     const float *S, size_t T, size_t HS, float scale) {
    (void)pc;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float g = scale * ds[i * T + j];
            if (g == 0.0f)
                continue;
            size_t r = (size_t)S[i * T + j] * HS;
            for (size_t d = 0; d < HS; d++) {
                dq[i * ld + d] += g * params[r + d];
                if (dparams)
                    dparams[r + d] += g * q[i * ld + d];
            }
        }
}

static void shaw_value_mix_backward(const PeConfig *pc, const float *params, float *dparams,
                                    float *datt, const float *dout, size_t ld, const float *att,
                                    const float *S, size_t T, size_t HS) {
    size_t off = (2 * k_of(pc) + 1) * HS;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            size_t r = off + (size_t)S[i * T + j] * HS;
            datt[i * T + j] += dot(dout + i * ld, params + r, HS);
            float a = att[i * T + j];
            if (dparams && a != 0.0f)
                for (size_t d = 0; d < HS; d++)
                    dparams[r + d] += a * dout[i * ld + d];
        }
}

const PeScheme pe_shaw = {
    .name = "shaw",
    .reads = PE_READS_RELATIVE,
    .about = "learned vectors of the offset j-i, clipped to [-k,k], added to the keys and the "
             "values (Shaw et al.)",
    .note = "nothing is added to the word vectors; untrained vectors are random, so each offset "
            "already shifts the scores and the outputs a little",
    .default_combine = COMBINE_ADD,
    .check = shaw_check,
    .param_shape = shaw_shape,
    .param_name = "relative_key_value.weight",
    .init = shaw_init,
    .scratch = shaw_scratch,
    .prepare = shaw_prepare,
    .key_scores = shaw_key_scores,
    .value_mix = shaw_value_mix,
    .key_scores_backward = shaw_key_scores_backward,
    .value_mix_backward = shaw_value_mix_backward,
};
