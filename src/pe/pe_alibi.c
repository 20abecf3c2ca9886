/* ALiBi (Press et al. 2022, "Train Short, Test Long"): head h adds
 * -m_h |i - j| to the score of query i and key j, so attention fades with
 * distance at a rate that differs by head. The paper's bias is causal;
 * this encoder has no mask, so the bias is symmetric, and a sentence read
 * backwards looks to it exactly like the sentence: it cannot tell left
 * from right. It adds nothing to the word vectors and has no parameters. */
#include <math.h>

#include "pe.h"

double alibi_slope(size_t h, size_t NH) {
    size_t p2 = 1; /* the largest power of two <= NH */
    while (p2 * 2 <= NH)
        p2 *= 2;
    if (h < p2)
        return pow(2.0, -8.0 * (double)(h + 1) / (double)p2);
    /* the rest: every other slope of 2 * p2 heads, from the first */
    return pow(2.0, -8.0 * (double)(2 * (h - p2) + 1) / (double)(2 * p2));
}

/* Per token: its position, as a float (exact below 2^24). */
static size_t alibi_scratch(size_t T, size_t HS) {
    (void)HS;
    return T;
}

static void alibi_prepare(float *P, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)pc, (void)HS;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)pos[t];
}

static void alibi_bias(const PeConfig *pc, const float *params, float *scores, const float *P,
                       size_t T, size_t h, size_t NH) {
    /* scores is (T,T) */
    (void)pc, (void)params;
    float m = (float)alibi_slope(h, NH);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            scores[i * T + j] -= m * fabsf(P[i] - P[j]);
}

const PeScheme pe_alibi = {
    .name = "alibi",
    .about = "a bias -m|i-j| on each head's scores, symmetric: it cannot tell left from right "
             "(Press et al.; BLOOM)",
    .note = "nothing is added to the word vectors; the bias -m|i-j| is the same to the left "
            "and to the right, so a sentence and its reverse give the same sentence vector "
            "(a single sentence is compared with its reverse: build/demo_order --pe alibi "
            "\"Rohan killed the lion\")",
    .default_combine = COMBINE_ADD,
    .scratch = alibi_scratch,
    .prepare = alibi_prepare,
    .bias = alibi_bias,
};
