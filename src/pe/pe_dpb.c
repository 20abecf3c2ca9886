/* Dynamic position bias (x-transformers' DynamicPositionBias, after the
 * dynamic position bias of CrossFormer, Wang et al. 2021, and the
 * continuous one of Swin Transformer V2, Liu et al. 2022): a small MLP f,
 * learned, maps the signed offset of query i and key j to one bias per
 * head,
 *     b_h(i,j) = f_h(x),  x = i - j,  or x = sign(i - j) log(|i - j| + 1)
 * with --dpb-distance log, added to the scores (after the q.k scaling).
 * f is Linear(1, W), SiLU, then depth - 1 times Linear(W, W), SiLU, then
 * Linear(W, heads) (pe_mlp.h's MLP). Unlike T5's buckets or Shaw's
 * clipped table, every offset has a bias, however far, and near offsets
 * share what f learns with their neighbours: a continuous function rather
 * than one number per offset.
 *
 * As x-transformers' definition (x_transformers.py, DynamicPositionBias,
 * and the AttentionLayers that build it with dynamic_pos_bias = True):
 * - one f for the whole model, which every layer shares (it is the
 *   attention layers' one rel_pos);
 * - width W = d_model / 4 (--dpb-width), depth 2 (--dpb-depth; the
 *   first layer counts: depth 2 is two SiLU layers), the linear offset
 *   unless dynamic_pos_bias_log_distance (--dpb-distance log);
 * - each Linear drawn as PyTorch's nn.Linear draws it: U(-1/sqrt(fan_in),
 *   1/sqrt(fan_in)) for weights and biases, from the model's seed;
 * - the offset is the signed i - j, so keys to the left and to the right
 *   get biases of their own and the bias tells a sentence from its
 *   reverse.
 * Left out: its norm option (a LayerNorm after each hidden Linear, off by
 * default there too). Where x-transformers reads the offsets of a
 * sentence 0..n-1, the hooks read the positions the head sees (hd->pos,
 * so --random-positions moves them), or a layer's drawn distances
 * (hd->dist) where a caller gives them. Its randomized form under
 * --random-draw ruoss draws the input's positions (ruoss_draw left at
 * PE_DRAW_INPUT, as t5's, kerple's and fire's: Ruoss et al.'s code has
 * none of them), so the model gives it no distances today.
 *
 * The table is f's parameters one after another in PyTorch's order
 * (torch.nn.utils.parameters_to_vector of the module): the first layer's
 * W weights and W biases, each further hidden layer's (W,W) weights (out
 * x in) and W biases, the last layer's (heads,W) weights and heads
 * biases. It adds nothing to the word vectors. */
#include <math.h>

#include "pe.h"
#include "pe_mlp.h"

static const PeOption opt_depth = {
    .flag = "--dpb-depth",
    .arg = "D",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = 8,
    .def = 2, /* x-transformers' dynamic_pos_bias_mlp_depth */
    .def_text = "2",
    .help = "dpb: SiLU layers of the MLP from the offset to the heads' biases, the first "
            "Linear(1,W) included (default 2, as x-transformers)",
    .example = "3",
};

static const PeOption opt_width = {
    .flag = "--dpb-width",
    .arg = "W",
    .type = PE_VALUE_SIZE,
    .lo = 1,
    .hi = PE_MLP_MAX_WIDTH,
    .def_text = "d_model/4",
    .help = "dpb: units of each of the MLP's layers (default d_model/4, as x-transformers)",
    .example = "8",
};

static const char *const DISTANCE_NAMES[] = {"linear", "log", NULL};

static const PeOption opt_distance = {
    .flag = "--dpb-distance",
    .type = PE_VALUE_NAME,
    .names = DISTANCE_NAMES,
    .def = 0,
    .def_text = "linear",
    .help = "dpb: the MLP reads the offset i-j (linear) or sign(i-j) log(|i-j| + 1) (log) "
            "(default linear)",
    .example = "log",
};

static size_t depth_of(const PeConfig *pc) { return (size_t)pe_get(pc, &opt_depth); }

/* W: given, or a quarter of the model's C channels (at least one). */
static size_t width_of(const PeConfig *pc, size_t C) {
    if (pe_given(pc, &opt_width))
        return (size_t)pe_get(pc, &opt_width);
    return C / 4 > 0 ? C / 4 : 1;
}

static bool log_distance(const PeConfig *pc) { return pe_get(pc, &opt_distance) != 0.0; }

/* f in the table, for a model of C channels and NH heads. */
static PeMlp dpb_f(const PeConfig *pc, size_t C, size_t NH) {
    size_t W = width_of(pc, C), D = depth_of(pc), out = 2 * W + (D - 1) * (W + 1) * W;
    return (PeMlp){.W = W, .depth = D, .act = PE_MLP_SILU, .in_w = 0, .in_b = W,
                   .hidden = 2 * W, .out_w = out, .out_w_stride = W, .out_b = out + NH * W,
                   .out_b_stride = 1};
}

static int dpb_check(const PeConfig *pc, const PeShape *sh, Err *e) {
    PeMlp f = dpb_f(pc, sh->C, sh->NH);
    if (f.W > PE_MLP_MAX_WIDTH)
        return err_set(e, ERR_INPUT, "dpb's MLP would be d_model/4 = %zu units wide, past the "
                       "%d it takes; give --dpb-width %d or fewer", f.W, PE_MLP_MAX_WIDTH,
                       PE_MLP_MAX_WIDTH);
    return 0;
}

/* One row of every parameter: a vector, as parameters_to_vector gives it. */
static void dpb_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                      size_t *rows, size_t *cols) {
    (void)w, (void)max_len;
    PeMlp f = dpb_f(pc, HS * NH, NH);
    *rows = 1;
    *cols = f.out_b + NH;
}

static void dpb_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                     Rng *rng) {
    (void)NH;
    /* the first layer's fan-in is 1, every other layer's W */
    size_t W = width_of(pc, C);
    float b = 1.0f / sqrtf((float)W);
    for (size_t i = 0; i < n; i++)
        params[i] = i < 2 * W ? rng_range(rng, -1.0f, 1.0f) : rng_range(rng, -b, b);
}

/* A value per pair (or offset), then f's own workspace. */
static size_t dpb_work(const PeConfig *pc, size_t T, size_t HS, size_t NH) {
    PeMlp f = dpb_f(pc, HS * NH, NH);
    return T * T + pe_mlp_work(&f);
}

/* f's input for the offset d = i - j, in float as torch takes it. */
static float dpb_x(bool log, long d) {
    if (!log)
        return (float)d;
    float a = logf((float)(d < 0 ? -d : d) + 1.0f);
    return d > 0 ? a : d < 0 ? -a : 0.0f;
}

/* The offset i - j of query i and key j as the head sees them: their
 * positions' difference, or with a layer's drawn distances dist[i - j]
 * to the left of the query and -dist[j - i] to its right. */
static long offset_at(const PeHead *hd, size_t i, size_t j) {
    if (hd->dist)
        return i >= j ? (long)hd->dist[i - j] : -(long)hd->dist[j - i];
    return (long)hd->pos[i] - (long)hd->pos[j];
}

/* What the hooks of one head share: f, its input's form, and the
 * workspace: a value (or gradient) per offset, then f's own. When the
 * offsets' range -span..span is no wider than the T x T pairs (always
 * at positions 0..T-1, where it is 2T - 1), f is taken once per offset
 * of the range; past that, once per pair. Each head of each sentence and
 * layer takes f anew (hooks share nothing across heads), where
 * x-transformers takes it once a forward pass: at d_model 64 on reverse,
 * f's passes are some 40% of a training step (perf). */
typedef struct {
    PeMlp f;
    bool log;
    long span;
    bool by_offset;
    float *per_offset; /* (2 span + 1) when by_offset */
    float *buf;        /* pe_mlp_work(f) */
} DpbHead;

static DpbHead dpb_head(const PeHead *hd) {
    size_t T = hd->T;
    DpbHead k = {.f = dpb_f(hd->pc, hd->HS * hd->NH, hd->NH), .log = log_distance(hd->pc),
                 .per_offset = hd->work, .buf = hd->work + T * T};
    if (hd->dist) {
        for (size_t t = 0; t < T; t++)
            k.span = (long)hd->dist[t] > k.span ? (long)hd->dist[t] : k.span;
    } else {
        size_t lo = hd->pos[0], hi = hd->pos[0];
        for (size_t t = 1; t < T; t++)
            lo = hd->pos[t] < lo ? hd->pos[t] : lo, hi = hd->pos[t] > hi ? hd->pos[t] : hi;
        k.span = (long)(hi - lo);
    }
    k.by_offset = (size_t)(2 * k.span + 1) <= T * T;
    return k;
}

static void dpb_score(const PeHead *hd) {
    /* scores is (T,T), params f's (1 -> W -> ... -> NH) */
    DpbHead k = dpb_head(hd);
    size_t T = hd->T;
    for (long d = -k.span; k.by_offset && d <= k.span; d++)
        k.per_offset[d + k.span] = pe_mlp_forward(&k.f, hd->params, hd->h, dpb_x(k.log, d), k.buf);
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            long d = offset_at(hd, i, j);
            hd->scores[i * T + j] += k.by_offset ? k.per_offset[d + k.span]
                                                 : pe_mlp_forward(&k.f, hd->params, hd->h,
                                                                  dpb_x(k.log, d), k.buf);
        }
}

static void dpb_score_backward(const PeHead *hd) {
    /* forward: scores_ij += f_h(x(i - j)); the pairs of one offset share
     * its value of f, so their dscores are summed first */
    if (!hd->dparams)
        return;
    DpbHead k = dpb_head(hd);
    size_t T = hd->T;
    for (long d = -k.span; k.by_offset && d <= k.span; d++)
        k.per_offset[d + k.span] = 0.0f;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float ds = hd->dscores[i * T + j];
            if (ds == 0.0f) /* a masked key */
                continue;
            long d = offset_at(hd, i, j);
            if (k.by_offset)
                k.per_offset[d + k.span] += ds;
            else
                pe_mlp_backward(hd->dparams, &k.f, hd->params, hd->h, dpb_x(k.log, d), ds, k.buf);
        }
    for (long d = -k.span; k.by_offset && d <= k.span; d++)
        if (k.per_offset[d + k.span] != 0.0f)
            pe_mlp_backward(hd->dparams, &k.f, hd->params, hd->h, dpb_x(k.log, d),
                            k.per_offset[d + k.span], k.buf);
}

static double dpb_ref_score(const PeRefRow *r) {
    PeMlp f = dpb_f(r->pc, r->HS * r->NH, r->NH);
    double d = (double)r->pi - (double)r->pj;
    double x = log_distance(r->pc) ? (d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0) * log(fabs(d) + 1.0) : d;
    return pe_mlp_ref(&f, r->params, r->h, x);
}

const PeScheme pe_dpb = {
    .name = "dpb",
    .since = 6,
    .options = (const PeOption *const[]){&opt_depth, &opt_width, &opt_distance, NULL},
    .about = "a learned MLP of the signed offset i-j (SiLU layers, one for the whole model) "
             "gives each head's bias (x-transformers' dynamic position bias)",
    .note = "nothing is added to the word vectors; an untrained MLP is random, so each head "
            "already prefers some offsets, and tells keys to the left from keys to the right",
    .default_combine = COMBINE_ADD,
    .check = dpb_check,
    .param_shape = dpb_shape,
    .param_name = "dynamic_pos_bias.weight",
    .init = dpb_init,
    .work = dpb_work,
    .score = dpb_score,
    .score_backward = dpb_score_backward,
    .ref_score = dpb_ref_score,
};
