#include "layers.h"

#include <math.h>
#include <string.h>

#include "../core/label.h"
#include "../core/rng.h"
#include "matmul.h"
#include "par.h"

/* The sums over rows (a bias's gradient, LayerNorm's weights') go column
 * by column, each column in row order, in tiles of TILE columns summed in
 * locals while the rows go by and stored once: no chain of stores and
 * loads from one row to the next, and no cache line written by two
 * threads row after row (a gradient sits at any offset in its buffer, so
 * the edge of one thread's columns may share a line with the next's).
 * Each thread takes one block of columns (fixed blocks of 64 had left a
 * 64-wide model's sums to one thread). */
#define TILE 16

/* Four floats that +, - and * take lane by lane (GCC's and Clang's
 * vector extension; the same IEEE operations as on each float alone).
 * The compiler made poor vector code of the tile loops below written on
 * plain floats, keeping the sums in memory. */
typedef float F4 __attribute__((vector_size(16)));
#define TILE_VECS (TILE / 4)

static F4 f4_load(const float *p) {
    F4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void f4_store(float *p, F4 v) { memcpy(p, &v, sizeof v); }

/* db[j] += the sum of dout[i][j] over the rows i, for j in j0..j1-1. */
static void col_sums(float *db, const float *dout, size_t BT, size_t OC, size_t j0, size_t j1) {
    size_t t = j0;
    for (; t + TILE <= j1; t += TILE) {
        F4 acc[TILE_VECS];
        for (size_t k = 0; k < TILE_VECS; k++)
            acc[k] = f4_load(db + t + 4 * k);
        for (size_t i = 0; i < BT; i++)
            for (size_t k = 0; k < TILE_VECS; k++)
                acc[k] += f4_load(dout + i * OC + t + 4 * k);
        for (size_t k = 0; k < TILE_VECS; k++)
            f4_store(db + t + 4 * k, acc[k]);
    }
    for (size_t i = 0; i < BT; i++)
        for (size_t j = t; j < j1; j++)
            db[j] += dout[i * OC + j];
}

/* LayerNorm's weights: dw[c] += dy xhat and db[c] += dy over the rows,
 * for c in c0..c1-1, with xhat = (x - mean) rstd. */
static void ln_col_sums(float *dw, float *db, const float *dout, const float *inp,
                        const float *mean, const float *rstd, size_t BT, size_t C, size_t c0,
                        size_t c1) {
    size_t t = c0;
    for (; t + TILE <= c1; t += TILE) {
        F4 aw[TILE_VECS], ab[TILE_VECS];
        for (size_t k = 0; k < TILE_VECS; k++)
            aw[k] = f4_load(dw + t + 4 * k), ab[k] = f4_load(db + t + 4 * k);
        for (size_t i = 0; i < BT; i++) {
            F4 m = {mean[i], mean[i], mean[i], mean[i]}, s = {rstd[i], rstd[i], rstd[i], rstd[i]};
            for (size_t k = 0; k < TILE_VECS; k++) {
                F4 dy = f4_load(dout + i * C + t + 4 * k), x = f4_load(inp + i * C + t + 4 * k);
                aw[k] += dy * ((x - m) * s);
                ab[k] += dy;
            }
        }
        for (size_t k = 0; k < TILE_VECS; k++)
            f4_store(dw + t + 4 * k, aw[k]), f4_store(db + t + 4 * k, ab[k]);
    }
    for (size_t i = 0; i < BT; i++)
        for (size_t c = t; c < c1; c++) {
            dw[c] += dout[i * C + c] * ((inp[i * C + c] - mean[i]) * rstd[i]);
            db[c] += dout[i * C + c];
        }
}

float sum_lanes(const float *x, size_t n) {
    float lane[SUM_LANES] = {0};
    size_t j = 0;
    for (; j + SUM_LANES <= n; j += SUM_LANES)
        for (size_t k = 0; k < SUM_LANES; k++)
            lane[k] += x[j + k];
    float sum = 0.0f;
    for (size_t k = 0; k < SUM_LANES; k++)
        sum += lane[k];
    for (; j < n; j++)
        sum += x[j];
    return sum;
}

float dot_lanes(const float *x, const float *y, size_t n) {
    float lane[SUM_LANES] = {0};
    size_t j = 0;
    for (; j + SUM_LANES <= n; j += SUM_LANES)
        for (size_t k = 0; k < SUM_LANES; k++)
            lane[k] += x[j + k] * y[j + k];
    float sum = 0.0f;
    for (size_t k = 0; k < SUM_LANES; k++)
        sum += lane[k];
    for (; j < n; j++)
        sum += x[j] * y[j];
    return sum;
}

void embedding_forward(float *out, const int *ids, const float *wte, size_t BT, size_t E,
                       size_t C, float scale) {
    /* ids is (BT), wte is (V,E), out is (BT,C) */
    PAR_FOR_IF(BT * C > PAR_MIN_WORK)
    for (size_t i = 0; i < BT; i++) {
        const float *row = wte + (size_t)ids[i] * E;
        float *o = out + i * C;
        for (size_t c = 0; c < E; c++)
            o[c] = row[c] * scale;
        /* Zeroed so that a concatenated position code has a clean slot. */
        memset(o + E, 0, (C - E) * sizeof *o);
    }
}

void embedding_backward(float *dwte, const float *dout, const int *ids, size_t BT, size_t E,
                        size_t C, float scale) {
    /* dout is (BT,C), dwte is (V,E) */
    for (size_t i = 0; i < BT; i++) {
        float *row = dwte + (size_t)ids[i] * E;
        const float *d = dout + i * C;
        for (size_t c = 0; c < E; c++)
            row[c] += scale * d[c];
    }
}

void linear_forward(float *out, const float *res, const float *inp, const float *w,
                    const float *b, size_t BT, size_t C, size_t OC) {
    /* inp is (BT,C), w is (OC,C), b is (OC), res and out are (BT,OC) */
    /* res + b first, in one pass over out, then the product with beta = 1:
     * each element is (res + b) + product. */
    PAR_FOR_IF(BT * OC > PAR_MIN_WORK)
    for (size_t i = 0; i < BT; i++) {
        float *o = out + i * OC;
        const float *r = res ? res + i * OC : NULL;
        if (r && b)
            for (size_t j = 0; j < OC; j++)
                o[j] = r[j] + b[j];
        else if (r || b)
            memcpy(o, r ? r : b, OC * sizeof *o);
        else
            memset(o, 0, OC * sizeof *o);
    }
    matmul(out, OC, inp, C, false, w, C, true, BT, OC, C, 1.0f, 1.0f);
}

void linear_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                     const float *w, size_t BT, size_t C, size_t OC, bool accumulate) {
    /* dout is (BT,OC), inp is (BT,C), w is (OC,C) */
    /* dinp (BT,C) = dout (BT,OC) W (OC,C) */
    matmul(dinp, C, dout, OC, false, w, C, false, BT, C, OC, 1.0f, accumulate ? 1.0f : 0.0f);
    /* dW (OC,C) += dout^T (OC,BT) inp (BT,C) */
    matmul(dw, C, dout, OC, true, inp, C, false, OC, C, BT, 1.0f, 1.0f);
    if (!db)
        return;
    size_t blk = par_block(OC, TILE); /* one block of columns per thread */
    PAR_FOR_IF(BT * OC > PAR_MIN_WORK)
    for (size_t j0 = 0; j0 < OC; j0 += blk)
        col_sums(db, dout, BT, OC, j0, j0 + blk < OC ? j0 + blk : OC);
}

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, size_t BT, size_t C) {
    /* inp, out are (BT,C); w, b are (C); mean, rstd are (BT) */
    PAR_FOR_IF(BT * C > PAR_MIN_WORK)
    for (size_t i = 0; i < BT; i++) {
        const float *x = inp + i * C;
        float *o = out + i * C;
        /* Two passes (mean, then variance about it) rather than E[x^2] - m^2,
         * which cancels badly when a row carries a large constant shift.
         * The squared deviations wait in o, which the last loop overwrites. */
        float m = sum_lanes(x, C) / (float)C;
        for (size_t c = 0; c < C; c++)
            o[c] = (x[c] - m) * (x[c] - m);
        float v = sum_lanes(o, C) / (float)C;
        float s = 1.0f / sqrtf(v + LAYERNORM_EPS);
        for (size_t c = 0; c < C; c++)
            o[c] = (x[c] - m) * s * w[c] + b[c];
        mean[i] = m;
        rstd[i] = s;
    }
}

/* LayerNorm's backward for rows at a time: with xhat = (x - m) s and
 * g = dy * w, dx = s * (g - mean(g) - xhat * mean(g * xhat)). Each row's
 * two means are sums taken in column order, one add waiting on the last;
 * LN_ROWS rows side by side make that many independent chains, which
 * the CPU overlaps, and every row gets the same numbers as alone. */
#define LN_ROWS 8

/* The two sums of rows 0..n-1 over their columns, in column order. */
static inline void ln_row_sums(float *g_sum, float *gx_sum, const float *dy, const float *x,
                               const float *w, const float *mean, const float *rstd, size_t n,
                               size_t C) {
    for (size_t c = 0; c < C; c++)
        for (size_t r = 0; r < n; r++) {
            float xhat = (x[r * C + c] - mean[r]) * rstd[r];
            float g = dy[r * C + c] * w[c];
            g_sum[r] += g;
            gx_sum[r] += g * xhat;
        }
}

static void ln_rows_backward(float *dx, const float *dy, const float *x, const float *w,
                             const float *mean, const float *rstd, size_t n, size_t C,
                             bool accumulate) {
    float g_mean[LN_ROWS] = {0}, gx_mean[LN_ROWS] = {0};
    if (n == LN_ROWS) /* a constant count: the sums stay in registers */
        ln_row_sums(g_mean, gx_mean, dy, x, w, mean, rstd, LN_ROWS, C);
    else
        ln_row_sums(g_mean, gx_mean, dy, x, w, mean, rstd, n, C);
    for (size_t r = 0; r < n; r++) {
        float m = mean[r], s = rstd[r], gm = g_mean[r] / (float)C, gxm = gx_mean[r] / (float)C;
        const float *dyr = dy + r * C, *xr = x + r * C;
        float *dxr = dx + r * C;
        for (size_t c = 0; c < C; c++) {
            float xhat = (xr[c] - m) * s;
            float d = s * (dyr[c] * w[c] - gm - xhat * gxm);
            dxr[c] = accumulate ? dxr[c] + d : d;
        }
    }
}

void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                        const float *w, const float *mean, const float *rstd, size_t BT,
                        size_t C, bool accumulate) {
    /* dout, inp, dinp are (BT,C); w, dw, db are (C); mean, rstd are (BT) */
    /* dw and db sum over the rows: a loop of their own, by columns */
    size_t blk = par_block(C, TILE);
    PAR_FOR_IF(BT * C > PAR_MIN_WORK)
    for (size_t c0 = 0; c0 < C; c0 += blk)
        ln_col_sums(dw, db, dout, inp, mean, rstd, BT, C, c0, c0 + blk < C ? c0 + blk : C);
    PAR_FOR_IF(BT * C > PAR_MIN_WORK)
    for (size_t i = 0; i < BT; i += LN_ROWS) {
        size_t n = BT - i < LN_ROWS ? BT - i : LN_ROWS;
        ln_rows_backward(dinp + i * C, dout + i * C, inp + i * C, w, mean + i, rstd + i, n, C,
                         accumulate);
    }
}

void activation_forward(float *out, const float *inp, size_t n, Activation act) {
    if (act == ACT_RELU) {
        PAR_FOR_IF(n > 4 * PAR_MIN_WORK)
        for (size_t i = 0; i < n; i++)
            out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
    } else {
        PAR_FOR_IF(n > PAR_MIN_WORK)
        for (size_t i = 0; i < n; i++)
            out[i] = 0.5f * inp[i] * (1.0f + erff(inp[i] * 0.70710678118654752f));
    }
}

void activation_backward(float *dinp, const float *dout, const float *inp, size_t n,
                         Activation act) {
    if (act == ACT_RELU) {
        PAR_FOR_IF(n > 4 * PAR_MIN_WORK)
        for (size_t i = 0; i < n; i++) {
            float d = dout[i]; /* read unconditionally, so the loop vectorizes */
            dinp[i] = inp[i] > 0.0f ? d : 0.0f;
        }
    } else {
        /* d/dx x Phi(x) = Phi(x) + x phi(x) */
        const float inv_sqrt_2pi = 0.39894228040143268f;
        PAR_FOR_IF(n > PAR_MIN_WORK)
        for (size_t i = 0; i < n; i++) {
            float x = inp[i];
            float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
            float pdf = inv_sqrt_2pi * expf(-0.5f * x * x);
            dinp[i] = dout[i] * (cdf + x * pdf);
        }
    }
}

void meanpool_forward(float *pooled, const float *x, const size_t *lens, size_t B, size_t T,
                      size_t C) {
    /* x is (B,T,C), lens is (B), pooled is (B,C) */
    for (size_t b = 0; b < B; b++) {
        float *p = pooled + b * C;
        memset(p, 0, C * sizeof *p);
        for (size_t t = 0; t < lens[b]; t++) {
            const float *row = x + (b * T + t) * C;
            for (size_t c = 0; c < C; c++)
                p[c] += row[c];
        }
        float inv = 1.0f / (float)lens[b];
        for (size_t c = 0; c < C; c++)
            p[c] *= inv;
    }
}

void clspool_forward(float *pooled, const float *x, size_t B, size_t T, size_t C) {
    /* x is (B,T,C), pooled is (B,C) */
    for (size_t b = 0; b < B; b++)
        memcpy(pooled + b * C, x + b * T * C, C * sizeof *pooled);
}

void clspool_backward(float *dx, const float *dpooled, size_t B, size_t T, size_t C) {
    memset(dx, 0, B * T * C * sizeof *dx);
    for (size_t b = 0; b < B; b++)
        memcpy(dx + b * T * C, dpooled + b * C, C * sizeof *dx);
}

void meanpool_backward(float *dx, const float *dpooled, const size_t *lens, size_t B, size_t T,
                       size_t C) {
    /* dpooled is (B,C), dx is (B,T,C) */
    for (size_t b = 0; b < B; b++) {
        float inv = 1.0f / (float)lens[b];
        for (size_t t = 0; t < T; t++) {
            float *row = dx + (b * T + t) * C;
            for (size_t c = 0; c < C; c++)
                row[c] = t < lens[b] ? dpooled[b * C + c] * inv : 0.0f;
        }
    }
}

void softmax_xent_rows(float *dlogits, size_t *correct, double *loss, const float *logits,
                       const int *labels, size_t N, size_t K, float inv_n) {
    /* logits, dlogits are (N,K); labels is (N) */
    for (size_t i = 0; i < N; i++) {
        const float *z = logits + i * K;
        float *dz = dlogits ? dlogits + i * K : NULL;
        int y = label_trained(labels[i]); /* the class the loss wants, or -1 */
        if (y < 0) {
            if (dz)
                memset(dz, 0, K * sizeof *dz);
            continue;
        }
        size_t arg = 0;
        for (size_t k = 1; k < K; k++)
            if (z[k] > z[arg])
                arg = k;
        /* a slot trained on alone (label.h) is no prediction scored */
        *correct += labels[i] >= 0 && arg == (size_t)y;
        /* log-sum-exp about the row's own maximum: no overflow */
        float sum = 0.0f;
        for (size_t k = 0; k < K; k++)
            sum += expf(z[k] - z[arg]);
        *loss += (double)logf(sum) - (double)(z[y] - z[arg]);
        if (dz) {
            for (size_t k = 0; k < K; k++)
                dz[k] = expf(z[k] - z[arg]) / sum * inv_n;
            dz[y] -= inv_n;
        }
    }
}

size_t xent_rows_in_loss(const int *labels, size_t N, size_t *scored) {
    size_t n = 0, s = 0;
    for (size_t i = 0; i < N; i++) {
        n += label_trained(labels[i]) >= 0;
        s += labels[i] >= 0;
    }
    if (scored)
        *scored = s;
    return n;
}

float softmax_xent(float *dlogits, size_t *correct, size_t *labelled, const float *logits,
                   const int *labels, size_t N, size_t K) {
    size_t scored, n = xent_rows_in_loss(labels, N, &scored), right = 0;
    double loss = 0.0;
    softmax_xent_rows(dlogits, &right, &loss, logits, labels, N, K, n ? 1.0f / (float)n : 0.0f);
    if (correct)
        *correct = right;
    if (labelled)
        *labelled = scored;
    return n ? (float)(loss / (double)n) : 0.0f;
}

bool dropout_keep(const Dropout *d, size_t site, size_t index) {
    /* 24 bits of the hash against p: a float p is exact at that grain */
    uint64_t u = rng_hash(d->key ^ ((uint64_t)site << 48), (uint64_t)index) >> 40;
    return (double)u >= (double)d->p * 16777216.0;
}

void dropout_apply(float *x, size_t n, const Dropout *d, size_t site, size_t first) {
    float scale = 1.0f / (1.0f - d->p);
    for (size_t i = 0; i < n; i++)
        x[i] = dropout_keep(d, site, first + i) ? x[i] * scale : 0.0f;
}
