/* xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE's
 * rotation, with each pair also scaled, the query's by zeta_i^(p/B) and
 * the key's by its inverse, zeta_i^(-p/B), so that the score of query p
 * and key p' holds zeta_i^((p - p')/B) on pair i: a factor of the offset
 * alone, which fades with the distance to the keys on the query's left,
 * slowest on the slow pairs,
 *     zeta_i = (2i/HS + gamma) / (1 + gamma),   gamma = 0.4,
 * B (--xpos-scale-base) 512, as the authors' code (torchscale's XPOS) and
 * x-transformers take them. The rotation is rope's (pe_rope.h), at rope's
 * angles p base^(-2i/HS) and in its --layout; no scaling of rope's.
 *
 * What an encoder does with it. The paper's model is causal: a query
 * reads keys on its left only, where the factor fades. x-transformers
 * refuses xPos without a causal mask. An encoder's query reads keys on
 * both sides, and on its right the factor is the inverse, a gain that
 * grows with the distance: zeta_0^(-d/B) = 3.5^(d/512), 1.28 at d = 100.
 * Here it is allowed, and so stated: at the lengths of these pages (tens
 * of words, far below B) it is a mild tilt that tells left from right,
 * like asymmetric ALiBi; with --causal it is the paper's. The positions
 * are the tokens' own, 0-based, not centred on the sentence as torchscale
 * centres them to keep the two factors near 1 for long inputs: the scores
 * are the same (they hold the offset only), the floats near 1 for the
 * lengths used here. It adds nothing to the word vectors. */
#include <math.h>

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

/* The scale of pair i at position p: the query's, or the key's inverse. */
static double scale_of(const PeConfig *pc, size_t HS, size_t i, double p, PeOperand which) {
    double power = p / pe_get(pc, &opt_scale_base);
    return pow(zeta_of(HS, i), which == PE_KEY ? -power : power);
}

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
    size_t half = HS / 2;
    for (size_t w = 0; w < 2; w++)
        for (size_t i = 0; i < half; i++) {
            double theta = theta_of(pc, HS, i);
            for (size_t t = 0; t < T; t++) {
                /* in double, rounded once, as rope's */
                double p = (double)pos[t], s = scale_of(pc, HS, i, p, (PeOperand)w);
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

static void xpos_ref_rotate(const PeConfig *pc, double *x, size_t HS, size_t p,
                            PeOperand which) {
    bool split = pe_layout(pc) == LAYOUT_SPLIT;
    for (size_t i = 0; i < HS / 2; i++)
        rope_turn_pair_ref(x, HS, split, i, (double)p * theta_of(pc, HS, i),
                           scale_of(pc, HS, i, (double)p, which));
}

const PeScheme pe_xpos = {
    .name = "xpos",
    .since = 6,
    .grids_later = true,
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
    .ref_rotate = xpos_ref_rotate,
};
