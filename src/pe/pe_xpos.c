/* xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE's
 * rotation, with each pair also scaled, the query's by zeta_i^(n/B) and
 * the key's by its inverse, zeta_i^(-n/B), so that the score of query p
 * and key p' holds zeta_i^((p - p')/B) on pair i: a factor of the offset
 * alone, which fades with the distance to the keys on the query's left,
 * slowest on the slow pairs,
 *     zeta_i = (2i/HS + gamma) / (1 + gamma),   gamma = 0.4,
 * B (--xpos-scale-base) 512, as the authors' code (torchscale's XPOS) and
 * x-transformers take them. The rotation is rope's (pe_rope.h), at rope's
 * angles p base^(-2i/HS) and in its --layout; no scaling of rope's.
 *
 * Centred, as torchscale centres them: n is the position counted from
 * the centre of the positions the layer gets, n = p - c, where the angle
 * stays p theta_i (torchscale's sin and cos count from 0 too). The scores
 * are the same (they hold the offset only; only their rounding moves),
 * but each factor stays within zeta_0^(-(span/2 + 1)/B) instead of
 * growing with the position itself: counted from 0, the key's factor
 * overflowed float once p/B passed about 70 (3.5^70 = 10^38), at a long
 * sentence or at positions drawn far out (--random-positions), even where
 * the tokens sit close together.
 *
 * The score's own factor, zeta_0^(-span/B) for the two tokens farthest
 * apart, does not depend on the centre: past float's range (90 tokens at
 * B = 1: 3.5^89 = 10^48) no float score holds it, and score_gain tells
 * the model so before any pass (pe_check_span).
 *
 * What an encoder does with it. The paper's model is causal: a query
 * reads keys on its left only, where the factor fades. x-transformers
 * refuses xPos without a causal mask. An encoder's query reads keys on
 * both sides, and on its right the factor is the inverse, a gain that
 * grows with the distance: zeta_0^(-d/B) = 3.5^(d/512), 1.28 at d = 100.
 * Here it is allowed, and so stated: at the lengths of these pages (tens
 * of words, far below B) it is a mild tilt that tells left from right,
 * like asymmetric ALiBi; with --causal it is the paper's. It adds nothing
 * to the word vectors. */
#include <math.h>
#include <stdio.h>

#include "pe.h"
#include "pe_rope.h"
#include "pe_sinusoidal.h"

#define XPOS_GAMMA 0.4 /* the paper's and torchscale's */

static const PeOption opt_scale_base = {
    .flag = "--xpos-scale-base",
    .arg = "B",
    .type = PE_VALUE_REAL,
    .lo = 1.0,
    .hi = 1e9,
    .def = 512.0,
    .def_text = "512",
    .help = "xpos: the positions over which each pair's scale zeta_i^(p/B) changes by a "
            "factor zeta_i (default 512)",
    .example = "64",
};

/* Pair i's angle per position, rope's unscaled theta_i, and its zeta_i. */
static double theta_of(const PeConfig *pc, size_t HS, size_t i) {
    return 1.0 / pow(pe_base(pc), (double)(2 * i) / (double)HS);
}

static double zeta_of(size_t HS, size_t i) {
    return ((double)(2 * i) / (double)HS + XPOS_GAMMA) / (1.0 + XPOS_GAMMA);
}

/* The scale of pair i at n positions from the centre: the query's, or
 * the key's inverse. */
static double scale_of(const PeConfig *pc, size_t HS, size_t i, double n, PeOperand which) {
    double power = n / pe_get(pc, &opt_scale_base);
    return pow(zeta_of(HS, i), which == PE_KEY ? -power : power);
}

/* The centre the scale counts from: torchscale's for a sentence at
 * 0..T-1, whose XPOS takes the positions -(T // 2 rounded toward -inf)
 * on (min_pos = -(length + offset) // 2 in Python, offset 0), that is
 * c = ceil(T/2): 4 for T = 7, 2 for T = 4. For any positions lo..hi
 * (drawn ones, or a sentence past the model's training lengths) the same
 * rule from lo, c = lo + floor((hi - lo)/2) + 1, so that n = p - c runs
 * from -(floor(span/2) + 1) to ceil(span/2) - 1. pos is what prepare
 * gets, every slot of the batch, the padding too, as torchscale's length
 * is its padded tensor's; the reference model's ref_rotate gets the same
 * and so finds the same centre. */
static size_t centre_of(const size_t *pos, size_t T) {
    size_t lo = pos[0], hi = pos[0];
    for (size_t t = 1; t < T; t++) {
        lo = pos[t] < lo ? pos[t] : lo;
        hi = pos[t] > hi ? pos[t] : hi;
    }
    return lo + (hi - lo) / 2 + 1;
}

/* n = p - c, in double: exact below 2^53 */
static double from_centre(size_t p, size_t c) { return (double)p - (double)c; }

static int xpos_check(const PeConfig *pc, const PeShape *sh, Err *e) {
    (void)pc;
    return rope_check_pairs("xpos", sh, e);
}

/* Two of rope's tables per sentence: the query's (T,HS), then the key's,
 * each pair's cos and sin multiplied by its scale. */
static size_t xpos_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc;
    return 2 * T * HS;
}

static void xpos_prepare(float *R, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    size_t half = HS / 2, c = centre_of(pos, T);
    for (size_t w = 0; w < 2; w++)
        for (size_t i = 0; i < half; i++) {
            double theta = theta_of(pc, HS, i);
            for (size_t t = 0; t < T; t++) {
                /* in double, rounded once, as rope's */
                double p = (double)pos[t];
                double s = scale_of(pc, HS, i, from_centre(pos[t], c), (PeOperand)w);
                float *row = R + (w * T + t) * HS;
                row[i] = (float)(s * cos(p * theta));
                row[half + i] = (float)(s * sin(p * theta));
            }
        }
}

/* A scale times a rotation: its transpose is the same scale times the
 * rotation's transpose, rope's inverse turn of the same table. */
static void xpos_rotate(const PeHead *hd, float *x, PeOperand which, bool inverse) {
    const float *R = hd->scratch + (which == PE_KEY ? hd->T * hd->HS : 0);
    rope_turn(x, hd->ld, R, hd->T, hd->HS, pe_layout(hd->pc) == LAYOUT_SPLIT, inverse);
}

static void xpos_ref_rotate(const PeConfig *pc, double *x, size_t HS, const size_t *pos,
                            size_t T, size_t t, PeOperand which) {
    bool split = pe_layout(pc) == LAYOUT_SPLIT;
    double n = from_centre(pos[t], centre_of(pos, T));
    for (size_t i = 0; i < HS / 2; i++)
        rope_turn_pair_ref(x, HS, split, i, (double)pos[t] * theta_of(pc, HS, i),
                           scale_of(pc, HS, i, n, which));
}

/* The score of the query at the span's left end and the key at its right
 * holds zeta_0^(-span/B) on pair 0, the largest factor (zeta_0 = 1/3.5
 * is the smallest zeta_i, for any HS): log10 span/B log10(3.5). */
static void xpos_score_gain(PeGain *g, const PeConfig *pc, size_t HS, size_t span, double share) {
    double B = pe_get(pc, &opt_scale_base), per = -log10(zeta_of(HS, 0));
    g->log10 = (double)span / B * per;
    snprintf(g->formula, sizeof g->formula, "scale zeta_0^(-%zu/B) = %.3g^(%zu/%g)", span,
             1.0 / zeta_of(HS, 0), span, B);
    g->option = &opt_scale_base;
    g->option_min = ceil((double)span * per / share);
    g->span_max = (size_t)floor(share * B / per);
}

const PeScheme pe_xpos = {
    .name = "xpos",
    .since = 6,
    .options = (const PeOption *const[]){&pe_opt_layout, &pe_opt_base, &opt_scale_base, NULL},
    .about = "rope's turn of q and k, each pair also scaled, q by zeta_i^(p/B) and k by its "
             "inverse: the score fades with the offset (xPos, Sun et al. 2022)",
    .note = "nothing is added to the word vectors: q and k turn as in rope, and a key's score "
            "fades with its distance to the left of the query and grows, slowly, to its right: "
            "unlike rope's, a score tells left from right",
    .default_combine = COMBINE_ADD,
    .check = xpos_check,
    .scratch = xpos_scratch,
    .prepare = xpos_prepare,
    .rotate = xpos_rotate,
    .score_gain = xpos_score_gain,
    .ref_rotate = xpos_ref_rotate,
};
