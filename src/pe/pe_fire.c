/* FIRE (Li et al. 2023, "Functional Interpolation for Relative Positions
 * Improves Long Context Transformers"): a small MLP f, learned, maps the
 * offset of query i and key j to one bias per head,
 *     b(i,j) = f( psi(i - j) / psi(max(L, i)) ),  psi(x) = log(c x + 1),
 * added to the scores (after the q.k scaling). Dividing by the query's own
 * position makes the input a fraction of the context seen so far
 * ("progressive interpolation"): a longer sentence puts its offsets into
 * the same range [0, 1] instead of past the trained ones. The threshold L
 * keeps short contexts from being stretched over that whole range; c
 * sets how much the log widens the near offsets against the far ones.
 *
 * As the paper (its listing of FIRE, which the copies of it agree on):
 * - f is Linear(1, W), ReLU, Linear(W, heads), W = 32 (--fire-width),
 *   each Linear drawn as PyTorch's nn.Linear draws it: U(-1/sqrt(fan_in),
 *   1/sqrt(fan_in)) for weights and biases;
 * - c starts at 0.1, and psi reads |c x| (abs, as the listing);
 * - L is |m L0| with L0 = 512 fixed and the multiplier m learned from 1;
 * - 1e-6 is added to the normalizer psi(max(L, i));
 * - each layer has its own f, c and L: the listing is a module of one
 *   attention layer, and the implementations built from it put one in
 *   every layer.
 * The table of a layer is (heads + 2, W + 1): row 0 the first layer's
 * weights then c, row 1 its biases then m, row 2 + h head h's weights of
 * the second layer then its bias.
 *
 * The paper's models are causal: keys at or before the query, i - j >= 0.
 * This encoder also attends to keys after it, and psi of |i - j| alone
 * would give them the same bias as the keys as far before: the bias would
 * be blind to reflection, as symmetric ALiBi is. So psi keeps the offset's
 * sign, psi(x) = sign(x) log(|c x| + 1): keys to the left get the paper's
 * inputs exactly (under --causal this is the paper's FIRE), keys to the
 * right the same magnitudes negated, and f, one function on both sides,
 * tells them apart. The normalizer stays the paper's, psi(max(L, i)) of
 * the query's position: it is what makes the input a fraction of the
 * context, and the hook knows no sentence length to count the keys to the
 * right by. When L falls below the sentence, a key to the right of an
 * early query can give an input past -1, where f extrapolates. It adds
 * nothing to the word vectors. */
#include <math.h>

#include "pe.h"

#define FIRE_C0 0.1    /* c's first value */
#define FIRE_L0 512.0  /* the threshold L = |m L0|, m learned from 1 */
#define FIRE_EPS 1e-6  /* added to the normalizer */

static const PeOption opt_width = {
    .flag = "--fire-width",
    .arg = "W",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = 4096,
    .def = 32, /* the paper's */
    .def_text = "32",
    .help = "fire: hidden units of the MLP from the offset to the heads' biases (default 32, "
            "the paper's)",
    .example = "8",
};

static size_t width_of(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_width); }

static void fire_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                       size_t *rows, size_t *cols) {
    (void)w, (void)HS, (void)max_len;
    *rows = NH + 2;
    *cols = width_of(pc) + 1;
}

static void fire_init(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng) {
    (void)C;
    size_t W = width_of(pc), cols = W + 1, rows = n / cols;
    float b2 = 1.0f / sqrtf((float)W); /* the second layer's fan-in is W, the first's 1 */
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < W + (r >= 2); k++)
            params[r * cols + k] = r < 2 ? rng_range(rng, -1.0f, 1.0f) : rng_range(rng, -b2, b2);
    params[W] = (float)FIRE_C0;
    params[cols + W] = 1.0f;
}

/* Per token: its position, as a float (exact below 2^24). */
static size_t fire_scratch(size_t T, size_t HS) {
    (void)HS;
    return T;
}

static void fire_prepare(float *P, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)pc, (void)HS;
    for (size_t t = 0; t < T; t++)
        P[t] = (float)pos[t];
}

/* The input of f for query position pi and key position pj, and what its
 * gradient needs: the normalizer D, and m = max(L, pi). */
typedef struct {
    float u, D, m, a; /* a = |pi - pj| */
    float sign;
    bool thresholded; /* L > pi: the normalizer reads L */
} FireInput;

static FireInput fire_input(const float *table, size_t W, float pi, float pj) {
    float c = fabsf(table[W]), L = fabsf(table[W + 1 + W] * (float)FIRE_L0);
    FireInput in;
    in.a = fabsf(pi - pj);
    in.sign = pi > pj ? 1.0f : pi < pj ? -1.0f : 0.0f;
    in.thresholded = L > pi;
    in.m = in.thresholded ? L : pi;
    in.D = log1pf(c * in.m) + (float)FIRE_EPS;
    in.u = in.sign * log1pf(c * in.a) / in.D;
    return in;
}

/* Head h's output of f at input u. */
static float fire_mlp(const float *table, size_t W, size_t h, float u) {
    const float *w1 = table, *b1 = table + W + 1, *w2 = table + (2 + h) * (W + 1);
    float out = w2[W];
    for (size_t k = 0; k < W; k++) {
        float z = w1[k] * u + b1[k];
        out += z > 0.0f ? w2[k] * z : 0.0f;
    }
    return out;
}

static void fire_score(const PeHead *hd) {
    /* scores is (T,T), P (T), params (NH+2, W+1) */
    size_t T = hd->T, W = width_of(hd->pc);
    const float *P = hd->scratch;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            FireInput in = fire_input(hd->params, W, P[i], P[j]);
            hd->scores[i * T + j] += fire_mlp(hd->params, W, hd->h, in.u);
        }
}

static void fire_score_backward(const PeHead *hd) {
    /* forward: scores_ij += b2_h + sum_k w2_hk relu(z_k), z_k = w1_k u_ij + b1_k;
     * u = s log(|c| a + 1) / D, D = log(|c| m + 1) + eps, m = max(|m_L L0|, p_i) */
    if (!hd->dparams)
        return;
    size_t T = hd->T, W = width_of(hd->pc), cols = W + 1;
    const float *t = hd->params, *P = hd->scratch;
    const float *w1 = t, *b1 = t + cols, *w2 = t + (2 + hd->h) * cols;
    float *g = hd->dparams, *gw1 = g, *gb1 = g + cols, *gw2 = g + (2 + hd->h) * cols;
    float c = fabsf(t[W]), sc = t[W] > 0.0f ? 1.0f : t[W] < 0.0f ? -1.0f : 0.0f;
    float sm = t[cols + W] > 0.0f ? 1.0f : t[cols + W] < 0.0f ? -1.0f : 0.0f;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float ds = hd->dscores[i * T + j];
            if (ds == 0.0f) /* a masked key */
                continue;
            FireInput in = fire_input(t, W, P[i], P[j]);
            gw2[W] += ds;
            float du = 0.0f; /* d scores_ij / d u */
            for (size_t k = 0; k < W; k++) {
                float z = w1[k] * in.u + b1[k];
                if (z <= 0.0f)
                    continue;
                gw2[k] += ds * z;
                gb1[k] += ds * w2[k];
                gw1[k] += ds * w2[k] * in.u;
                du += w2[k] * w1[k];
            }
            du *= ds;
            /* du/dc = sign(c) (s a / (|c| a + 1) - u m / (|c| m + 1)) / D */
            g[W] += du * sc *
                    (in.sign * in.a / (c * in.a + 1.0f) - in.u * in.m / (c * in.m + 1.0f)) / in.D;
            /* du/dm_L = -u / D |c| / (|c| m + 1) L0 sign(m_L), where L sets m */
            if (in.thresholded)
                g[cols + W] -= du * in.u / in.D * c / (c * in.m + 1.0f) * (float)FIRE_L0 * sm;
        }
}

static double fire_ref_score(const PeRefPair *r) {
    size_t W = width_of(r->pc), cols = W + 1;
    const double *t = r->params;
    double pi = (double)r->pi, pj = (double)r->pj, c = fabs(t[W]);
    double sign = pi > pj ? 1.0 : pi < pj ? -1.0 : 0.0;
    double u = sign * log(c * fabs(pi - pj) + 1.0) /
               (log(c * fmax(fabs(t[cols + W] * FIRE_L0), pi) + 1.0) + FIRE_EPS);
    const double *w2 = t + (2 + r->h) * cols;
    double out = w2[W];
    for (size_t k = 0; k < W; k++)
        out += w2[k] * fmax(t[k] * u + t[cols + k], 0.0);
    return out;
}

const PeScheme pe_fire = {
    .name = "fire",
    .since = 6,
    .options = (const PeOption *const[]){&opt_width, NULL},
    .about = "a learned MLP of the offset, log-scaled and divided by the query's position, "
             "gives each head's bias (FIRE)",
    .note = "nothing is added to the word vectors; an untrained MLP is random, so each head "
            "already prefers some offsets, and tells keys to the left from keys to the right",
    .default_combine = COMBINE_ADD,
    .param_shape = fire_shape,
    .param_name = "fire.weight",
    .per_layer = true,
    .init = fire_init,
    .scratch = fire_scratch,
    .prepare = fire_prepare,
    .score = fire_score,
    .score_backward = fire_score_backward,
    .ref_score = fire_ref_score,
};
