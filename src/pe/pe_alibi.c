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
 * mirror, which is enough, so that is taken. --alibi-slopes ruoss is the
 * encoder form of Ruoss et al.'s code (compute_alibi_encodings_biases in
 * google-deepmind/randomized_positional_encodings, models/positional_
 * encodings.py), the benchmark's alibi column: one slope, and 0.5 added to
 * -|i - j| for the keys to the left of the query before the slope
 * multiplies it, "to (arbitrarily) break the symmetry". Its randomized form
 * there draws one distance per offset in every layer (PE_DRAW_LAYER_
 * DISTANCES, pe.h): tokens k apart are dist[k] apart instead of k. It
 * adds nothing to the word vectors and has no parameters. */
#include <math.h>

#include "pe.h"
#include "pe_alibi.h"

static const char *const SLOPES_NAMES[] = {"symmetric", "asymmetric", "ruoss", NULL};

static const PeOption opt_slopes = {
    .flag = "--alibi-slopes",
    .type = PE_VALUE_NAME,
    .names = SLOPES_NAMES,
    .def = ALIBI_SYMMETRIC,
    .def_text = "symmetric",
    .help = "alibi: head h's slope m_h on both sides of a word; or m_h to its left and "
            "m_(H-1-h) to its right; or (ruoss) m_h with the left m_h/2 closer, as Ruoss et "
            "al.'s code; the last two tell left from right (default symmetric)",
    .example = "asymmetric",
};

AlibiSlopes alibi_slopes_of(const PeConfig *pc) { return (AlibiSlopes)pe_get(pc, &opt_slopes); }

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
    if (right && alibi_slopes_of(pc) == ALIBI_ASYMMETRIC)
        return alibi_slope(NH - 1 - h, NH);
    return alibi_slope(h, NH);
}

static int alibi_check(const PeConfig *pc, const PeShape *sh, Err *e) {
    if (alibi_slopes_of(pc) == ALIBI_ASYMMETRIC && sh->NH == 1)
        return err_set(e, ERR_INPUT, "--alibi-slopes asymmetric with 1 head is the symmetric "
                       "bias: head h's right slope is the left slope of head H-1-h, and with one "
                       "head that is its own; use --heads 2 or more, or drop --alibi-slopes");
    return 0;
}

static const char *alibi_causal_conflict(const PeConfig *pc) {
    return alibi_slopes_of(pc) != ALIBI_ASYMMETRIC
               ? NULL
               : "--alibi-slopes asymmetric does nothing under --causal: no key is to the right "
                 "of its query, so only the left slopes act, which are the symmetric ones; drop "
                 "--alibi-slopes asymmetric or --causal";
}

double alibi_bias(const PeConfig *pc, size_t h, size_t NH, double d, bool right) {
    double m = alibi_slope_side(pc, h, NH, right);
    return alibi_slopes_of(pc) == ALIBI_RUOSS && !right ? -m * (d - 0.5) : -m * d;
}

static void alibi_score(const PeHead *hd) {
    /* scores is (T,T), P (T) */
    float left = (float)alibi_slope_side(hd->pc, hd->h, hd->NH, false);
    float right = (float)alibi_slope_side(hd->pc, hd->h, hd->NH, true);
    /* the ruoss form's left keys: -m (d - 0.5), the half in the float the
     * slope makes of it, as the reference adds it before the slope */
    float half = alibi_slopes_of(hd->pc) == ALIBI_RUOSS ? 0.5f : 0.0f;
    const float *P = hd->scratch;
    float *scores = hd->scores;
    size_t T = hd->T;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float d = hd->dist ? (float)hd->dist[j > i ? j - i : i - j] : fabsf(P[i] - P[j]);
            bool to_right = hd->dist ? j > i : P[j] > P[i];
            if (to_right)
                scores[i * T + j] -= right * d;
            else if (half != 0.0f && i != j)
                scores[i * T + j] -= left * (d - half);
            else
                scores[i * T + j] -= left * d;
        }
}

static double alibi_ref_score(const PeRefRow *r) {
    bool right = r->pj > r->pi;
    double d = fabs((double)r->pi - (double)r->pj);
    return r->pi == r->pj ? 0.0 : alibi_bias(r->pc, r->h, r->NH, d, right);
}

const PeScheme pe_alibi = {
    .name = "alibi",
    .demo_default = true,
    .since = 2,
    .options = (const PeOption *const[]){&opt_slopes, NULL},
    .ruoss_column = "alibi",
    .ruoss_randomized = true,
    .ruoss_draw = PE_DRAW_LAYER_DISTANCES,
    .bench_options = "--alibi-slopes ruoss",
    .bench_place = 5,
    .about = "a bias -m|i-j| on each head's scores, symmetric unless --alibi-slopes "
             "asymmetric or ruoss: then it tells left from right (Press et al.; BLOOM; Ruoss "
             "et al.'s encoder form)",
    .note = "nothing is added to the word vectors; the symmetric bias -m|i-j| is the same to "
            "the left and to the right, so a sentence and its reverse give the same sentence "
            "vector (a single sentence is compared with its reverse: build/demo_order --pe "
            "alibi \"Rohan killed the lion\"), unless something breaks the mirror: "
            "--alibi-slopes asymmetric, or --pool cls (a [CLS] word at position 0)",
    .default_combine = COMBINE_ADD,
    .check = alibi_check,
    .causal_conflict = alibi_causal_conflict,
    .scratch = pe_positions_scratch,
    .prepare = pe_positions_prepare,
    .score = alibi_score,
    .ref_score = alibi_ref_score,
};
