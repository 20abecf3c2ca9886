/* ALiBi (Press et al. 2022, "Train Short, Test Long"): head h adds
 * -m_h |i - j| to the score of query i and key j, so attention fades with
 * distance at a rate that differs by head. The paper's bias is causal
 * (keys at or before the query). Without the mask the bias is symmetric
 * by default, and a sentence read backwards looks to it exactly like the
 * sentence: it cannot tell left from right. --alibi-slopes asymmetric
 * gives the keys to the right another slope (alibi_slope_side), one way an
 * encoder can break the mirror; a [CLS] token at position 0 (--pool cls)
 * is another. Head h's right slope is head H-1-h's left one, so the form
 * needs two heads or more (one head's two slopes are one, and it is
 * refused, as it is under --causal, where no key is to the right); with
 * an odd count the middle head stays symmetric while the others break the
 * mirror, which is enough, so that is taken. It adds nothing to the word
 * vectors and has no parameters. */
#include <math.h>
#include <string.h>

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

double alibi_slope_side(const PeConfig *pc, size_t h, size_t NH, bool right) {
    if (right && pc->alibi_slopes == ALIBI_ASYMMETRIC)
        return alibi_slope(NH - 1 - h, NH);
    return alibi_slope(h, NH);
}

const char *alibi_slopes_name(AlibiSlopes a) {
    return a == ALIBI_ASYMMETRIC ? "asymmetric" : "symmetric";
}

int alibi_slopes_parse(const char *s, AlibiSlopes *out, Err *e) {
    if (strcmp(s, "symmetric") == 0)
        *out = ALIBI_SYMMETRIC;
    else if (strcmp(s, "asymmetric") == 0)
        *out = ALIBI_ASYMMETRIC;
    else
        return err_set(e, ERR_INPUT, "--alibi-slopes is symmetric or asymmetric, not '%s'", s);
    return 0;
}

static int alibi_check(const PeConfig *pc, size_t C, size_t NH, Err *e) {
    (void)C;
    if (pc->alibi_slopes == ALIBI_ASYMMETRIC && NH == 1)
        return err_set(e, ERR_INPUT, "--alibi-slopes asymmetric with 1 head is the symmetric "
                       "bias: head h's right slope is the left slope of head H-1-h, and with one "
                       "head that is its own; use --heads 2 or more, or drop --alibi-slopes");
    return 0;
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
    (void)params;
    float left = (float)alibi_slope_side(pc, h, NH, false);
    float right = (float)alibi_slope_side(pc, h, NH, true);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            scores[i * T + j] -= (P[j] > P[i] ? right : left) * fabsf(P[i] - P[j]);
}

const PeScheme pe_alibi = {
    .name = "alibi",
    .reads = PE_READS_SLOPES,
    .about = "a bias -m|i-j| on each head's scores, symmetric unless --alibi-slopes "
             "asymmetric: then it tells left from right (Press et al.; BLOOM)",
    .note = "nothing is added to the word vectors; the symmetric bias -m|i-j| is the same to "
            "the left and to the right, so a sentence and its reverse give the same sentence "
            "vector (a single sentence is compared with its reverse: build/demo_order --pe "
            "alibi \"Rohan killed the lion\"), unless something breaks the mirror: "
            "--alibi-slopes asymmetric, or --pool cls (a [CLS] word at position 0)",
    .default_combine = COMBINE_ADD,
    .check = alibi_check,
    .scratch = alibi_scratch,
    .prepare = alibi_prepare,
    .bias = alibi_bias,
};
