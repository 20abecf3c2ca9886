/* Rotary position embedding (RoFormer, Su et al. 2021): each head's q and
 * k are turned, pair of channels by pair, by the angle p * theta_i at
 * position p, theta_i = base^(-2i/HS). A rotation keeps lengths, and the
 * product of a query turned by p and a key turned by q is the product of
 * the query and the key turned by q - p: the logit sees the offset only.
 * It adds nothing to the word vectors.
 *
 * Past the training length a pair meets angles it never saw; the scalings
 * of rope_inv_freq (pe.h) slow the frequencies down so that it does not:
 * all of them (linear), the slow ones most (ntk), or only those that do
 * not turn a full circle within the training length (yarn). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pe.h"
#include "pe_rope.h"
#include "pe_sinusoidal.h"

static const char *const SCALING_NAMES[] = {"none", "linear", "ntk", "yarn", NULL};

#define FACTOR_MAX 1024.0 /* --rope-factor's range: 1 to this */

const PeOption pe_opt_rope_scaling = {
    .flag = "--rope-scaling",
    .type = PE_VALUE_NAME,
    .names = SCALING_NAMES,
    .def = ROPE_SCALING_NONE,
    .def_text = "none",
    .help = "rope: stretch the frequencies for sentences longer than the training ones: "
            "positions / S (linear), the base times S^(d/(d-2)) (ntk), or YaRN's blend "
            "(default none)",
    .example = "yarn", /* the scaling that reads all three */
    .tunable = true,
};

const PeOption pe_opt_rope_factor = {
    .flag = "--rope-factor",
    .arg = "S",
    .type = PE_VALUE_REAL,
    .lo = 1.0,
    .hi = FACTOR_MAX,
    .def = 1.0,
    .def_text = "none",
    .help = "the stretch, 1 to 1024 (needed by a scaling)",
    .example = "2",
    .tunable = true,
};

const PeOption pe_opt_rope_original_len = {
    .flag = "--rope-original-len",
    .arg = "L",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = PE_MAX_WIDTH,
    .def_text = "the training length",
    .help = "yarn: the training length its ramp counts turns over (train: default the "
            "longest training sentence)",
    .example = "8",
    .tunable = true,
};

const char *rope_scaling_name(RopeScaling r) {
    return (unsigned)r < 4 ? SCALING_NAMES[r] : "unknown";
}

RopeScaling rope_scaling_of(const PeConfig *pc) {
    return (RopeScaling)pe_get(pc, &pe_opt_rope_scaling);
}

double rope_factor_of(const PeConfig *pc) {
    return rope_scaling_of(pc) == ROPE_SCALING_NONE ? 1.0 : pe_get(pc, &pe_opt_rope_factor);
}

void rope_set_scaling(PeConfig *pc, RopeScaling r, double S, size_t L) {
    pe_unset(pc, &pe_opt_rope_scaling);
    pe_unset(pc, &pe_opt_rope_factor);
    pe_unset(pc, &pe_opt_rope_original_len);
    if (r == ROPE_SCALING_NONE)
        return;
    pe_put(pc, &pe_opt_rope_scaling, (double)r);
    pe_put(pc, &pe_opt_rope_factor, S);
    if (r == ROPE_SCALING_YARN)
        pe_put(pc, &pe_opt_rope_original_len, (double)L);
}

/* YaRN's pair index at which a frequency turns r times over L positions:
 * the i with L theta_i = 2 pi r, solved for i (in channels, 2i, as the
 * reference code counts it). */
static double yarn_dim(double rotations, double HS, double base, double L) {
    return HS * log(L / (rotations * 2.0 * 3.14159265358979323846)) / (2.0 * log(base));
}

/* theta_i of pair i under pc's scaling; see rope_inv_freq. */
static double rope_theta(const PeConfig *pc, size_t HS, size_t i) {
    double base = pe_base(pc), S = rope_factor_of(pc), d = (double)HS;
    RopeScaling scaling = rope_scaling_of(pc);
    if (scaling == ROPE_SCALING_NTK)
        base *= pow(S, d / (d - 2.0));
    double theta = 1.0 / pow(base, (double)(2 * i) / d);
    switch (scaling) {
    case ROPE_SCALING_LINEAR:
        return theta / S;
    case ROPE_SCALING_YARN: {
        /* The ramp runs from the last pair that turns more than beta_fast
         * times over L (kept as trained: it has seen every angle) to the
         * first that turns less than beta_slow times (interpolated: past L
         * it would meet angles it never saw). Floor, ceil and the clamp to
         * [0, HS-1], though the ramp indexes pairs, are the reference
         * code's, kept so the frequencies equal Hugging Face's. */
        double L = pe_get(pc, &pe_opt_rope_original_len);
        double lo = floor(yarn_dim(PE_YARN_BETA_FAST, d, base, L));
        double hi = ceil(yarn_dim(PE_YARN_BETA_SLOW, d, base, L));
        lo = lo < 0.0 ? 0.0 : lo;
        hi = hi > d - 1.0 ? d - 1.0 : hi;
        if (hi == lo)
            hi += 0.001;
        double ramp = ((double)i - lo) / (hi - lo);
        ramp = ramp < 0.0 ? 0.0 : ramp > 1.0 ? 1.0 : ramp;
        return theta / S * ramp + theta * (1.0 - ramp);
    }
    default:
        return theta;
    }
}

/* YaRN's attention temperature, sqrt(1/t) = 0.1 ln S + 1 (Peng et al.
 * eq. 22; Hugging Face's default attention_factor); 1 otherwise. */
static double rope_gain(const PeConfig *pc) {
    return rope_scaling_of(pc) == ROPE_SCALING_YARN ? 0.1 * log(rope_factor_of(pc)) + 1.0 : 1.0;
}

double rope_inv_freq(const PeConfig *pc, size_t HS, double *theta) {
    for (size_t i = 0; i < HS / 2; i++)
        theta[i] = rope_theta(pc, HS, i);
    return rope_gain(pc);
}

/* yarn's ramp counts turns over the length the model learns: the longest
 * training sentence, unless --rope-original-len says otherwise */
static void rope_fill_run(PeConfig *pc, size_t trained_len) {
    if (rope_scaling_of(pc) == ROPE_SCALING_YARN && !pe_given(pc, &pe_opt_rope_original_len))
        pe_put(pc, &pe_opt_rope_original_len, (double)trained_len);
}

int rope_check_pairs(const char *name, const PeShape *sh, Err *e) {
    size_t HS = sh->C / sh->NH;
    if (HS % 2 != 0)
        return err_set(e, ERR_INPUT, "%s turns the channels of each head in pairs, but d_model "
                       "%zu / %zu heads leaves %zu channels per head, an odd number; choose "
                       "--heads or --d-model so that each head has an even number of channels",
                       name, sh->C, sh->NH, HS);
    return 0;
}

static int rope_check(const PeConfig *pc, const PeShape *sh, Err *e) {
    size_t HS = sh->C / sh->NH;
    if (rope_check_pairs("rope", sh, e))
        return ERR_INPUT;
    RopeScaling scaling = rope_scaling_of(pc);
    bool scaled = scaling != ROPE_SCALING_NONE;
    if (scaled && !pe_given(pc, &pe_opt_rope_factor))
        return err_set(e, ERR_INPUT, "--rope-scaling %s stretches by --rope-factor S, from 1 to "
                       "%g; give it (e.g. --rope-factor 4 for four times the training length)",
                       rope_scaling_name(scaling), FACTOR_MAX);
    if (!scaled && pe_given(pc, &pe_opt_rope_factor))
        return err_set(e, ERR_INPUT, "--rope-factor stretches a scaling: give --rope-scaling "
                       "linear, ntk or yarn with it");
    if (scaling == ROPE_SCALING_NTK && HS < 4)
        return err_set(e, ERR_INPUT, "ntk raises the base to the power HS/(HS-2): it needs at "
                       "least 4 channels per head, not %zu", HS);
    bool has_len = pe_given(pc, &pe_opt_rope_original_len);
    if (scaling == ROPE_SCALING_YARN && !has_len)
        return err_set(e, ERR_INPUT, "yarn's ramp counts the rotations of each pair over the "
                       "training length: give it with --rope-original-len L");
    if (scaling != ROPE_SCALING_YARN && has_len)
        return err_set(e, ERR_INPUT, "--rope-original-len is yarn's alone: drop it, or use "
                       "--rope-scaling yarn");
    return 0;
}

/* Per token: cos(p theta_i) for the HS/2 pairs, then the sines. */
static size_t rope_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc; return T * HS; }

static void rope_prepare(float *R, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    size_t half = HS / 2;
    /* YaRN's temperature multiplies cos and sin, so each q.k by its
     * square, as Hugging Face applies it; 1 for the other scalings. */
    double gain = rope_gain(pc);
    for (size_t i = 0; i < half; i++) {
        double theta = rope_theta(pc, HS, i);
        for (size_t t = 0; t < T; t++) {
            /* In double, rounded once, as the sinusoid: the offset property
             * then holds to 1e-6 at positions in the thousands. */
            double angle = (double)pos[t] * theta;
            R[t * HS + i] = (float)(gain * cos(angle));
            R[t * HS + half + i] = (float)(gain * sin(angle));
        }
    }
}

/* The transpose of a rotation turns by the opposite angle. */
void rope_turn(float *x, size_t ld, const float *R, size_t T, size_t HS, bool split,
               bool inverse) {
    size_t half = HS / 2;
    for (size_t t = 0; t < T; t++) {
        float *row = x + t * ld;
        const float *cs = R + t * HS, *sn = cs + half;
        for (size_t i = 0; i < half; i++) {
            size_t a = split ? i : 2 * i, b = split ? i + half : 2 * i + 1;
            float c = cs[i], s = inverse ? -sn[i] : sn[i];
            float xa = row[a], xb = row[b];
            row[a] = xa * c - xb * s;
            row[b] = xa * s + xb * c;
        }
    }
}

/* q and k turn alike. */
static void rope_rotate(const PeHead *hd, float *x, PeOperand which, bool inverse) {
    (void)which;
    rope_turn(x, hd->ld, hd->scratch, hd->T, hd->HS, pe_layout(hd->pc) == LAYOUT_SPLIT,
              inverse);
}

void rope_turn_pair_ref(double *x, size_t HS, bool split, size_t i, double angle, double gain) {
    size_t half = HS / 2, a = split ? i : 2 * i, b = split ? i + half : 2 * i + 1;
    double xa = x[a], xb = x[b];
    x[a] = gain * (xa * cos(angle) - xb * sin(angle));
    x[b] = gain * (xa * sin(angle) + xb * cos(angle));
}

/* The same rotation of one row in double, for the reference model:
 * pairs turned by p theta_i and multiplied by the scaling's gain. */
static void rope_ref_rotate(const PeConfig *pc, double *x, size_t HS, const size_t *pos,
                            size_t T, size_t t, PeOperand which) {
    (void)which, (void)T;
    size_t p = pos[t];
    bool split = pe_layout(pc) == LAYOUT_SPLIT;
    double gain = rope_gain(pc);
    for (size_t i = 0; i < HS / 2; i++)
        rope_turn_pair_ref(x, HS, split, i, (double)p * rope_theta(pc, HS, i), gain);
}

/* The rotation's table for a head of w channels is the sinusoid of width
 * w, interleaved: channel 2i the sin of p theta_i, 2i+1 its cos. The
 * analysis measures its float32 fidelity with these. */
static double rope_value(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    if (rope_scaling_of(pc) == ROPE_SCALING_NONE)
        return sinusoid_value((double)p, c, w, LAYOUT_INTERLEAVED, pe_base(pc));
    double a = (double)p * rope_theta(pc, w, c / 2);
    return c % 2 ? cos(a) : sin(a);
}

/* The float32 recipe of published code: inv_freq = 1 / base^(2i/d) and the
 * angle p * inv_freq, both in float. */
static float rope_f32(const PeConfig *pc, size_t w, size_t p, size_t c, size_t n) {
    (void)n;
    float inv = rope_scaling_of(pc) == ROPE_SCALING_NONE
                    ? 1.0f / powf((float)pe_base(pc), (float)(2 * (c / 2)) / (float)w)
                    : (float)rope_theta(pc, w, c / 2);
    float a = (float)p * inv;
    return c % 2 ? cosf(a) : sinf(a);
}

const PeScheme pe_rope = {
    .name = "rope",
    .demo_default = true,
    .since = 2,
    .options = (const PeOption *const[]){&pe_opt_layout, &pe_opt_base, &pe_opt_rope_scaling,
                                         &pe_opt_rope_factor, &pe_opt_rope_original_len, NULL},
    .ruoss_column = "rope",
    .ruoss_randomized = true,
    .ruoss_draw = PE_DRAW_LAYER_POSITIONS,
    .bench_place = 4,
    .about = "q and k turned pair by pair by p * theta_i in each head: the logit sees the "
             "offset (RoFormer; LLaMA)",
    .note = "nothing is added to the word vectors: each head turns q and k by their "
            "positions, so the score of two words depends on their offset",
    .default_combine = COMBINE_ADD,
    .check = rope_check,
    .fill_run = rope_fill_run,
    .value = rope_value,
    .value_f32 = rope_f32,
    .scratch = rope_scratch,
    .prepare = rope_prepare,
    .rotate = rope_rotate,
    .ref_rotate = rope_ref_rotate,
};
