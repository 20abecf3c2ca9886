/* The small MLP of pe_mlp.h: forward and backward in float, forward in
 * double. One hidden layer is computed unit by unit with no workspace,
 * in the order FIRE has always summed it (its checkpoints and fixtures
 * stay bit for bit); deeper ones keep every layer's pre-activations and
 * activations in the caller's buf for the backward. */
#include "pe_mlp.h"

#include <math.h>

static float silu(float z) { return z / (1.0f + expf(-z)); }

static float act_of(PeMlpAct act, float z) {
    return act == PE_MLP_RELU ? (z > 0.0f ? z : 0.0f) : silu(z);
}

/* w act(z), ReLU's zero added as a zero (not w times it), as FIRE's sum
 * always took it */
static float weighted(PeMlpAct act, float w, float z) {
    return act == PE_MLP_RELU ? (z > 0.0f ? w * z : 0.0f) : w * silu(z);
}

/* act'(z): ReLU's 1 or 0; SiLU's s (1 + z (1 - s)), s = sigmoid(z) */
static float act_grad(PeMlpAct act, float z) {
    if (act == PE_MLP_RELU)
        return z > 0.0f ? 1.0f : 0.0f;
    float s = 1.0f / (1.0f + expf(-z));
    return s * (1.0f + z * (1.0f - s));
}

static double act_ref(PeMlpAct act, double z) {
    return act == PE_MLP_RELU ? fmax(z, 0.0) : z / (1.0 + exp(-z));
}

size_t pe_mlp_work(const PeMlp *m) {
    /* every layer's z and a, then two layers' deltas */
    return m->depth > 1 ? 2 * m->depth * m->W + 2 * m->W : 0;
}

/* Layer l's (W,W) weights (l = 2..depth); its biases follow them. */
static size_t layer_at(const PeMlp *m, size_t l) {
    return m->hidden + (l - 2) * (m->W + 1) * m->W;
}

/* Every hidden layer at input x: layer l's pre-activations into
 * Z + (l-1)W, its activations into A + (l-1)W. */
static void layers_forward(const PeMlp *m, const float *t, float x, float *Z, float *A) {
    /* w_1, b_1 are (W); W_l is (W,W), b_l (W); Z and A are (depth,W) */
    size_t W = m->W;
    for (size_t k = 0; k < W; k++) {
        Z[k] = t[m->in_w + k] * x + t[m->in_b + k];
        A[k] = act_of(m->act, Z[k]);
    }
    for (size_t l = 2; l <= m->depth; l++) {
        const float *Wl = t + layer_at(m, l), *bl = Wl + W * W, *a = A + (l - 2) * W;
        float *z = Z + (l - 1) * W, *an = A + (l - 1) * W;
        for (size_t o = 0; o < W; o++) {
            float s = bl[o];
            for (size_t i = 0; i < W; i++)
                s += Wl[o * W + i] * a[i];
            z[o] = s;
            an[o] = act_of(m->act, s);
        }
    }
}

float pe_mlp_forward(const PeMlp *m, const float *t, size_t h, float x, float *buf) {
    size_t W = m->W;
    const float *wo = t + m->out_w + h * m->out_w_stride;
    float out = t[m->out_b + h * m->out_b_stride];
    if (m->depth == 1) {
        for (size_t k = 0; k < W; k++)
            out += weighted(m->act, wo[k], t[m->in_w + k] * x + t[m->in_b + k]);
        return out;
    }
    float *Z = buf, *A = buf + m->depth * W;
    layers_forward(m, t, x, Z, A);
    const float *z = Z + (m->depth - 1) * W;
    for (size_t k = 0; k < W; k++)
        out += weighted(m->act, wo[k], z[k]);
    return out;
}

float pe_mlp_backward(float *g, const PeMlp *m, const float *t, size_t h, float x, float ds,
                      float *buf) {
    /* forward: out = b_h + w_h . a_depth; each layer a = act(z). The
     * deltas d = d out / d z are taken without ds, which multiplies each
     * gradient as it is added: d theta += ds d z / d theta */
    size_t W = m->W;
    const float *wo = t + m->out_w + h * m->out_w_stride;
    const float *w1 = t + m->in_w;
    float *gwo = g + m->out_w + h * m->out_w_stride, *gw1 = g + m->in_w, *gb1 = g + m->in_b;
    g[m->out_b + h * m->out_b_stride] += ds;
    float dx = 0.0f; /* d out / d x = sum_k d_1k w1_k */
    if (m->depth == 1) {
        for (size_t k = 0; k < W; k++) {
            float z = w1[k] * x + t[m->in_b + k];
            if (m->act == PE_MLP_RELU && z <= 0.0f)
                continue;
            /* ReLU's act' is 1 where it passes: d is the weight itself */
            float d = m->act == PE_MLP_RELU ? wo[k] : wo[k] * act_grad(m->act, z);
            gwo[k] += ds * act_of(m->act, z);
            gb1[k] += ds * d;
            gw1[k] += ds * d * x;
            dx += d * w1[k];
        }
        return dx;
    }
    float *Z = buf, *A = buf + m->depth * W, *d = A + m->depth * W, *dn = d + W;
    layers_forward(m, t, x, Z, A);
    const float *z = Z + (m->depth - 1) * W, *a = A + (m->depth - 1) * W;
    for (size_t k = 0; k < W; k++) {
        gwo[k] += ds * a[k];
        d[k] = wo[k] * act_grad(m->act, z[k]);
    }
    /* layer l = depth..2: a_l = act(W_l a_(l-1) + b_l) */
    for (size_t l = m->depth; l >= 2; l--) {
        const float *Wl = t + layer_at(m, l), *ap = A + (l - 2) * W, *zp = Z + (l - 2) * W;
        float *gWl = g + layer_at(m, l), *gbl = gWl + W * W;
        for (size_t i = 0; i < W; i++)
            dn[i] = 0.0f;
        for (size_t o = 0; o < W; o++) {
            if (d[o] == 0.0f)
                continue;
            gbl[o] += ds * d[o];
            for (size_t i = 0; i < W; i++) {
                gWl[o * W + i] += ds * d[o] * ap[i];
                dn[i] += Wl[o * W + i] * d[o];
            }
        }
        for (size_t i = 0; i < W; i++)
            dn[i] *= act_grad(m->act, zp[i]);
        float *swap = d;
        d = dn, dn = swap;
    }
    /* the first layer: a_1 = act(w_1 x + b_1) */
    for (size_t k = 0; k < W; k++) {
        gb1[k] += ds * d[k];
        gw1[k] += ds * d[k] * x;
        dx += d[k] * w1[k];
    }
    return dx;
}

double pe_mlp_ref(const PeMlp *m, const double *t, size_t h, double x) {
    size_t W = m->W;
    const double *wo = t + m->out_w + h * m->out_w_stride;
    double out = t[m->out_b + h * m->out_b_stride];
    if (m->depth == 1) {
        for (size_t k = 0; k < W; k++)
            out += wo[k] * act_ref(m->act, t[m->in_w + k] * x + t[m->in_b + k]);
        return out;
    }
    if (W > PE_MLP_MAX_WIDTH) /* the schemes refuse it first */
        return NAN;
    double a[2][PE_MLP_MAX_WIDTH];
    for (size_t k = 0; k < W; k++)
        a[0][k] = act_ref(m->act, t[m->in_w + k] * x + t[m->in_b + k]);
    for (size_t l = 2; l <= m->depth; l++) {
        const double *Wl = t + layer_at(m, l), *bl = Wl + W * W, *in = a[(l - 2) % 2];
        double *next = a[(l - 1) % 2];
        for (size_t o = 0; o < W; o++) {
            double s = bl[o];
            for (size_t i = 0; i < W; i++)
                s += Wl[o * W + i] * in[i];
            next[o] = act_ref(m->act, s);
        }
    }
    const double *last = a[(m->depth - 1) % 2];
    for (size_t k = 0; k < W; k++)
        out += wo[k] * last[k];
    return out;
}
