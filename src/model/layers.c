#include "layers.h"

#include <math.h>
#include <string.h>

#include "matmul.h"

void embedding_forward(float *out, const int *ids, const float *wte, size_t BT, size_t E,
                       size_t C, float scale) {
    /* ids is (BT), wte is (V,E), out is (BT,C) */
    for (size_t i = 0; i < BT; i++) {
        const float *row = wte + (size_t)ids[i] * E;
        float *o = out + i * C;
        for (size_t c = 0; c < E; c++)
            o[c] = row[c] * scale;
        /* Zeroed so that a concatenated position code has a clean slot. */
        memset(o + E, 0, (C - E) * sizeof *o);
    }
}

void linear_forward(float *out, const float *inp, const float *w, const float *b, size_t BT,
                    size_t C, size_t OC, int accumulate) {
    /* inp is (BT,C), w is (OC,C), b is (OC), out is (BT,OC) */
    if (!accumulate) {
        for (size_t i = 0; i < BT; i++) {
            float *o = out + i * OC;
            if (b)
                memcpy(o, b, OC * sizeof *o);
            else
                memset(o, 0, OC * sizeof *o);
        }
    } else if (b) {
        for (size_t i = 0; i < BT; i++)
            for (size_t j = 0; j < OC; j++)
                out[i * OC + j] += b[j];
    }
    /* Bias first, then the product with beta = 1: one pass over out fewer. */
    matmul(out, OC, inp, C, false, w, C, true, BT, OC, C, 1.0f, 1.0f);
}

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, size_t BT, size_t C) {
    /* inp, out are (BT,C); w, b are (C); mean, rstd are (BT) */
    for (size_t i = 0; i < BT; i++) {
        const float *x = inp + i * C;
        /* Two passes (mean, then variance about it) rather than E[x^2] - m^2,
         * which cancels badly when a row carries a large constant shift. */
        float m = 0.0f;
        for (size_t c = 0; c < C; c++)
            m += x[c];
        m /= (float)C;
        float v = 0.0f;
        for (size_t c = 0; c < C; c++)
            v += (x[c] - m) * (x[c] - m);
        v /= (float)C;
        float s = 1.0f / sqrtf(v + LAYERNORM_EPS);
        float *o = out + i * C;
        for (size_t c = 0; c < C; c++)
            o[c] = (x[c] - m) * s * w[c] + b[c];
        mean[i] = m;
        rstd[i] = s;
    }
}

void activation_forward(float *out, const float *inp, size_t n, Activation act) {
    if (act == ACT_RELU) {
        for (size_t i = 0; i < n; i++)
            out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
    } else {
        for (size_t i = 0; i < n; i++)
            out[i] = 0.5f * inp[i] * (1.0f + erff(inp[i] * 0.70710678118654752f));
    }
}

void meanpool_forward(float *pooled, const float *x, const size_t *lens, size_t B, size_t T,
                      size_t C) {
    /* x is (B,T,C), lens is (B), pooled is (B,C) */
    for (size_t b = 0; b < B; b++) {
        float *p = pooled + b * C;
        memset(p, 0, C * sizeof *p);
        for (size_t t = 0; t < lens[b]; t++) {
            const float *row = x + (b * T + t) * C;
            for (size_t c = 0; c < C; c++)
                p[c] += row[c];
        }
        float inv = 1.0f / (float)lens[b];
        for (size_t c = 0; c < C; c++)
            p[c] *= inv;
    }
}
