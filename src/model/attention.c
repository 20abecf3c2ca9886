#include "attention.h"

#include <math.h>
#include <string.h>

#include "matmul.h"

/* Softmax over the first n entries of row[0..T); the rest become 0. The
 * maximum is the row's own, never a sentinel, so no logit can underflow the
 * whole row. */
static void softmax_row(float *row, size_t n, size_t T) {
    float max = row[0];
    for (size_t j = 1; j < n; j++)
        if (row[j] > max)
            max = row[j];
    float sum = 0.0f;
    for (size_t j = 0; j < n; j++) {
        row[j] = expf(row[j] - max);
        sum += row[j];
    }
    float inv = 1.0f / sum;
    for (size_t j = 0; j < n; j++)
        row[j] *= inv;
    for (size_t j = n; j < T; j++)
        row[j] = 0.0f;
}

void attention_forward(float *out, float *att, float *qkv, const size_t *lens,
                       const AttnHook *hook, size_t B, size_t T, size_t C, size_t NH) {
    /* qkv is (B,T,3C), att is (B,NH,T,T), out is (B,T,C) */
    size_t HS = C / NH;
    size_t C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)HS);
    for (size_t b = 0; b < B; b++) {
        for (size_t h = 0; h < NH; h++) {
            float *q = qkv + b * T * C3 + h * HS;
            float *k = q + C;
            const float *v = q + 2 * C;
            float *a = att + (b * NH + h) * T * T;
            if (hook && hook->rotate)
                hook->rotate(hook->ctx, q, k, C3, T, HS);
            /* scores (T,T) = q k^T / sqrt(HS) */
            matmul(a, T, q, C3, false, k, C3, true, T, T, HS, scale, 0.0f);
            if (hook && hook->bias)
                hook->bias(hook->ctx, a, T, h, NH);
            /* Padded query rows attend like the others (their outputs are
             * never read); only the keys are masked. */
            for (size_t i = 0; i < T; i++)
                softmax_row(a + i * T, lens[b], T);
            /* out (T,HS) = att (T,T) v (T,HS), written into head h's columns */
            matmul(out + b * T * C + h * HS, C, a, T, false, v, C3, false, T, HS, T, 1.0f, 0.0f);
        }
    }
}
