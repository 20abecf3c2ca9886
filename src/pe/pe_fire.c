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
 * - L is |m L0| with L0 = 512 fixed and the multiplier m learned from 1
 *   (in sentences of a few dozen words every query starts below L, and
 *   the input psi(i - j) / psi(512) is 0.07 at offset 3 and 0.41 at 40:
 *   an untrained bias changes slowly with the offset);
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
#include "pe_mlp.h"

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

static void fire_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                      Rng *rng) {
    (void)C, (void)NH;
    size_t W = width_of(pc), cols = W + 1, rows = n / cols;
    float b2 = 1.0f / sqrtf((float)W); /* the second layer's fan-in is W, the first's 1 */
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < W + (r >= 2); k++)
            params[r * cols + k] = r < 2 ? rng_range(rng, -1.0f, 1.0f) : rng_range(rng, -b2, b2);
    params[W] = (float)FIRE_C0;
    params[cols + W] = 1.0f;
}

/* What the inputs of f in one head of one sentence share: |c|, L, and
 * for the queries that L sets the normalizer of (the thresholded ones:
 * all of them in a sentence shorter than L), everything but the signed
 * distance d = pi - pj. Their pairs at |d| below FIRE_NEAR take f from a
 * table of 2 FIRE_NEAR - 1 values made once (at positions 0..T-1 the T x T
 * pairs hold 2T - 1 distances); the rest compute their own. */
#define FIRE_NEAR 64

typedef struct {
    float c, L;
    float D;         /* the thresholded queries' normalizer, log(|c| L + 1) + eps */
    size_t near;     /* the table holds |d| < near */
    float log[FIRE_NEAR]; /* log(|c| a + 1) for a < near */
} FireShared;

static void fire_shared(FireShared *k, const float *table, size_t W, const float *P, size_t T) {
    k->c = fabsf(table[W]);
    k->L = fabsf(table[W + 1 + W] * (float)FIRE_L0);
    k->D = log1pf(k->c * k->L) + (float)FIRE_EPS;
    float lo = P[0], hi = P[0];
    for (size_t t = 1; t < T; t++)
        lo = fminf(lo, P[t]), hi = fmaxf(hi, P[t]);
    k->near = hi - lo < (float)FIRE_NEAR ? (size_t)(hi - lo) + 1 : FIRE_NEAR;
    for (size_t a = 0; a < k->near; a++)
        k->log[a] = log1pf(k->c * (float)a);
}

/* The input of f for query position pi and key position pj, and what its
 * gradient needs: u = s log(|c| a + 1) / D, D = log(|c| m + 1) + eps with
 * m = max(L, pi). */
typedef struct {
    float u, s, a, m, D;
    bool thresholded; /* L > pi: m is L */
} FireInput;

static FireInput fire_input(const FireShared *k, float pi, float pj) {
    FireInput in = {.a = fabsf(pi - pj), .s = pi > pj ? 1.0f : pi < pj ? -1.0f : 0.0f,
                    .thresholded = k->L > pi};
    in.m = in.thresholded ? k->L : pi;
    in.D = in.thresholded ? k->D : log1pf(k->c * pi) + (float)FIRE_EPS;
    in.u = in.s * (in.a < (float)k->near ? k->log[(size_t)in.a] : log1pf(k->c * in.a)) / in.D;
    return in;
}

/* Whether pair (pi, pj) takes the shared table, and its index there. */
static bool fire_near(const FireShared *k, float pi, float pj, size_t *idx) {
    float d = pi - pj;
    *idx = (size_t)(d + (float)(FIRE_NEAR - 1));
    return k->L > pi && fabsf(d) < (float)k->near;
}

/* f in the table's layout (pe_mlp.h): row 0 the first layer's weights,
 * row 1 its biases, row 2 + h head h's weights then its bias; c and m
 * are column W of rows 0 and 1, outside f. */
static PeMlp fire_f(size_t W) {
    size_t cols = W + 1;
    return (PeMlp){.W = W, .depth = 1, .act = PE_MLP_RELU, .in_w = 0, .in_b = cols,
                   .out_w = 2 * cols, .out_w_stride = cols, .out_b = 2 * cols + W,
                   .out_b_stride = cols};
}

/* Head h's output of f at input u. */
static float fire_mlp(const float *table, size_t W, size_t h, float u) {
    PeMlp f = fire_f(W);
    return pe_mlp_forward(&f, table, h, u, NULL);
}

static void fire_score(const PeHead *hd) {
    /* scores is (T,T), P (T), params (NH+2, W+1) */
    size_t T = hd->T, W = width_of(hd->pc), idx;
    const float *P = hd->scratch;
    FireShared k;
    fire_shared(&k, hd->params, W, P, T);
    /* f of the thresholded pairs by d + FIRE_NEAR - 1; a query at 0 stands
     * for them all (when L is 0 none is thresholded, and f goes unused) */
    float f[2 * FIRE_NEAR - 1];
    for (long d = 1 - (long)k.near; d < (long)k.near; d++)
        f[FIRE_NEAR - 1 + d] = fire_mlp(hd->params, W, hd->h, fire_input(&k, 0.0f, (float)-d).u);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            hd->scores[i * T + j] += fire_near(&k, P[i], P[j], &idx)
                                         ? f[idx]
                                         : fire_mlp(hd->params, W, hd->h,
                                                    fire_input(&k, P[i], P[j]).u);
}

/* The gradient of ds times head h's f at input in, into g. */
static void fire_backward_at(float *g, const float *t, size_t W, size_t h, const FireShared *k,
                             const FireInput *in, float ds) {
    /* forward: f_h(u), then u of c and m */
    size_t cols = W + 1;
    PeMlp f = fire_f(W);
    float sc = t[W] > 0.0f ? 1.0f : t[W] < 0.0f ? -1.0f : 0.0f;
    float sm = t[cols + W] > 0.0f ? 1.0f : t[cols + W] < 0.0f ? -1.0f : 0.0f;
    float c = k->c, u = in->u;
    float du = pe_mlp_backward(g, &f, t, h, u, ds, NULL); /* d f / d u */
    du *= ds;
    /* du/dc = sign(c) (s a / (|c| a + 1) - u m / (|c| m + 1)) / D */
    g[W] += du * sc * (in->s * in->a / (c * in->a + 1.0f) - u * in->m / (c * in->m + 1.0f)) /
            in->D;
    /* du/dm_L = -u / D |c| / (|c| m + 1) L0 sign(m_L), where L sets m */
    if (in->thresholded)
        g[cols + W] -= du * u / in->D * c / (c * in->m + 1.0f) * (float)FIRE_L0 * sm;
}

static void fire_score_backward(const PeHead *hd) {
    /* forward: scores_ij += f_h(u_ij); the pairs that share a value of f
     * share its gradient, so their dscores are summed first */
    if (!hd->dparams)
        return;
    size_t T = hd->T, W = width_of(hd->pc), idx;
    const float *P = hd->scratch;
    FireShared k;
    fire_shared(&k, hd->params, W, P, T);
    float G[2 * FIRE_NEAR - 1] = {0};
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float ds = hd->dscores[i * T + j];
            if (ds == 0.0f) /* a masked key */
                continue;
            if (fire_near(&k, P[i], P[j], &idx)) {
                G[idx] += ds;
            } else {
                FireInput in = fire_input(&k, P[i], P[j]);
                fire_backward_at(hd->dparams, hd->params, W, hd->h, &k, &in, ds);
            }
        }
    for (long d = 1 - (long)k.near; d < (long)k.near; d++)
        if (G[FIRE_NEAR - 1 + d] != 0.0f) {
            FireInput in = fire_input(&k, 0.0f, (float)-d);
            fire_backward_at(hd->dparams, hd->params, W, hd->h, &k, &in, G[FIRE_NEAR - 1 + d]);
        }
}

static double fire_ref_score(const PeRefRow *r) {
    size_t W = width_of(r->pc), cols = W + 1;
    const double *t = r->params;
    double pi = (double)r->pi, pj = (double)r->pj, c = fabs(t[W]);
    double sign = pi > pj ? 1.0 : pi < pj ? -1.0 : 0.0;
    double u = sign * log(c * fabs(pi - pj) + 1.0) /
               (log(c * fmax(fabs(t[cols + W] * FIRE_L0), pi) + 1.0) + FIRE_EPS);
    PeMlp f = fire_f(W);
    return pe_mlp_ref(&f, t, r->h, u);
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
    .scratch = pe_positions_scratch,
    .prepare = pe_positions_prepare,
    .score = fire_score,
    .score_backward = fire_score_backward,
    .ref_score = fire_ref_score,
};
