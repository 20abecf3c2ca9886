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
#include "pe_shaw.h"

#define MAX_RELATIVE_MAX 4096 /* --max-relative's range: 1 to this */

static const PeOption opt_max_relative = {
    .flag = "--max-relative",
    .arg = "K",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = MAX_RELATIVE_MAX,
    .def = 16, /* the paper's */
    .def_text = "16",
    .help = "shaw: offsets clipped to [-K, K] (default 16, the paper's)",
    .example = "4",
};

static size_t k_of(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_max_relative); }

size_t shaw_row(long offset, size_t k) {
    long K = (long)k;
    return (size_t)(K + (offset < -K ? -K : offset > K ? K : offset));
}

/* Rows 0..2k: aK of offsets -k..k; rows 2k+1..4k+1: aV; HS columns. */
static void shaw_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                       size_t *rows, size_t *cols) {
    (void)w, (void)NH, (void)max_len;
    *rows = 2 * (2 * k_of(pc) + 1);
    *cols = HS;
}

static void shaw_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                      Rng *rng) {
    /* tensor2tensor's default for the two embedding tables (Glorot's
     * uniform over fan-in 2k+1 and fan-out HS) */
    size_t R = 2 * k_of(pc) + 1, HS = C / NH;
    float limit = sqrtf(6.0f / (float)(R + HS));
    for (size_t i = 0; i < n; i++)
        params[i] = rng_range(rng, -limit, limit);
}

/* Per sentence: the row of every (query, key) pair, as floats (exact). */
static size_t shaw_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc;
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

static void shaw_score(const PeHead *hd) {
    /* scores (T,T) += scale q_i . aK(i,j) */
    const float *S = hd->scratch;
    size_t T = hd->T, HS = hd->HS;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            hd->scores[i * T + j] +=
                hd->scale * dot(hd->q + i * hd->ld, hd->params + (size_t)S[i * T + j] * HS, HS);
}

static void shaw_mix(const PeHead *hd) {
    /* out_i (HS) += sum_j att_ij aV(i,j) */
    const float *aV = values_of(hd->pc, hd->params, hd->HS), *S = hd->scratch;
    size_t T = hd->T, HS = hd->HS;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float a = hd->att[i * T + j];
            if (a == 0.0f) /* a masked key */
                continue;
            const float *v = aV + (size_t)S[i * T + j] * HS;
            for (size_t d = 0; d < HS; d++)
                hd->out[i * hd->ld_out + d] += a * v[d];
        }
}

static void shaw_score_backward(const PeHead *hd) {
    /* forward: scores_ij += scale q_i . aK(i,j);
     * dq_i += scale ds_ij aK(i,j), daK(i,j) += scale ds_ij q_i */
    const float *S = hd->scratch;
    size_t T = hd->T, HS = hd->HS, ld = hd->ld;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float g = hd->scale * hd->dscores[i * T + j];
            if (g == 0.0f)
                continue;
            size_t r = (size_t)S[i * T + j] * HS;
            for (size_t d = 0; d < HS; d++) {
                hd->dq[i * ld + d] += g * hd->params[r + d];
                if (hd->dparams)
                    hd->dparams[r + d] += g * hd->q[i * ld + d];
            }
        }
}

static void shaw_mix_backward(const PeHead *hd) {
    /* forward: out_i += sum_j att_ij aV(i,j);
     * datt_ij += dout_i . aV(i,j), daV(i,j) += att_ij dout_i */
    const float *S = hd->scratch;
    size_t T = hd->T, HS = hd->HS, off = (2 * k_of(hd->pc) + 1) * HS;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            size_t r = off + (size_t)S[i * T + j] * HS;
            const float *dy = hd->dout + i * hd->ld_out;
            hd->datt[i * T + j] += dot(dy, hd->params + r, HS);
            float a = hd->att[i * T + j];
            if (hd->dparams && a != 0.0f)
                for (size_t d = 0; d < HS; d++)
                    hd->dparams[r + d] += a * dy[d];
        }
}

/* Row pj - pi (clipped) of the keys' (part 0) or the values' (part 1)
 * table, in double. */
static const double *ref_row(const PeRefRow *r, size_t part) {
    size_t k = k_of(r->pc);
    return r->params + (part * (2 * k + 1) + shaw_row((long)r->pj - (long)r->pi, k)) * r->HS;
}

static double shaw_ref_score(const PeRefRow *r) {
    const double *aK = ref_row(r, 0);
    double s = 0.0;
    for (size_t d = 0; d < r->HS; d++)
        s += r->q[d] * aK[d];
    return s / sqrt((double)r->HS);
}

static void shaw_ref_value(const PeRefRow *r, double *v) {
    const double *aV = ref_row(r, 1);
    for (size_t d = 0; d < r->HS; d++)
        v[d] += aV[d];
}

const PeScheme pe_shaw = {
    .name = "shaw",
    .since = 5,
    .options = (const PeOption *const[]){&opt_max_relative, NULL},
    .about = "learned vectors of the offset j-i, clipped to [-k,k], added to the keys and the "
             "values (Shaw et al.)",
    .note = "nothing is added to the word vectors; untrained vectors are random, so each offset "
            "already shifts the scores and the outputs a little",
    .default_combine = COMBINE_ADD,
    .param_shape = shaw_shape,
    .param_name = "relative_key_value.weight",
    .init = shaw_init,
    .scratch = shaw_scratch,
    .prepare = shaw_prepare,
    .score = shaw_score,
    .score_backward = shaw_score_backward,
    .mix = shaw_mix,
    .mix_backward = shaw_mix_backward,
    .ref_score = shaw_ref_score,
    .ref_value = shaw_ref_value,
};
