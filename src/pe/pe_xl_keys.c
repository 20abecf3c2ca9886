/* Transformer-XL's keys (pe_xl_keys.h): what pe_xl.c's hooks read. */
#include "pe_xl_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frequency k of R for a d_model C: its wavelength, and the sine and
 * cosine of a turn by 2^b positions, b < XL_BITS. */
#define XL_BITS 12
typedef struct {
    double wavelength, s[XL_BITS], c[XL_BITS];
} Freq;

static void freq_make(Freq *q, size_t C, size_t k) {
    q->wavelength = pow(XL_BASE, (double)(2 * k) / (double)C);
    for (size_t b = 0; b < XL_BITS; b++) {
        double turn = (double)(1u << b) / q->wavelength;
        q->s[b] = sin(turn), q->c[b] = cos(turn);
    }
}

/* The pow, sines and cosines of each frequency, made again in every head
 * of every sentence, were 9% of a training step with this scheme (perf,
 * reverse): each thread keeps the last d_model's, up to XL_KEPT
 * frequencies; a frequency past them is made in *spare. */
#define XL_KEPT 256
static const Freq *freq_of(size_t C, size_t k, Freq *spare) {
    static _Thread_local Freq kept[XL_KEPT];
    static _Thread_local size_t kept_C; /* 0: none kept yet */
    if (k >= XL_KEPT) {
        freq_make(spare, C, k);
        return spare;
    }
    if (kept_C != C) {
        for (size_t f = 0; f < (C + 1) / 2 && f < XL_KEPT; f++)
            freq_make(&kept[f], C, f);
        kept_C = C;
    }
    return &kept[k];
}

/* W_R's gradient at frequency k, columns k and n_sin + k, from the keys'
 * gradient Gt (the tile's offsets by channels) and the sines and cosines
 * of the tile's offsets at k. The sums run along the offsets, one per
 * channel d, in a loop along the channels that the compiler vectorizes. */
static void offset_grad(const Head *x, float Gt[][TILE_CHANNELS], const float *sn,
                        const float *cs, size_t k, bool has_cos, const Tile *tl) {
    size_t C = x->C, n_sin = (C + 1) / 2;
    float gs[TILE_CHANNELS] = {0}, gc[TILE_CHANNELS] = {0};
    for (size_t t = 0; t < tl->nu; t++)
        for (size_t d = 0; d < tl->nd; d++)
            gs[d] += Gt[t][d] * sn[t], gc[d] += Gt[t][d] * cs[t];
    for (size_t d = 0; d < tl->nd; d++) {
        size_t row = (tl->d0 + d) * C;
        x->dW[row + k] += gs[d];
        if (has_cos)
            x->dW[row + n_sin + k] += gc[d];
    }
}

/* The sines and cosines of the tile's offsets at frequencies k0..k0+nk-1,
 * frequency k0+f's at sn + f*stride and cs + f*stride; an odd d_model's
 * last sine has no cosine, and gets zeros. */
static void offset_trig(float *sn, float *cs, size_t stride, size_t C, const float *D,
                        const Tile *tl, size_t k0, size_t nk) {
    size_t n_sin = (C + 1) / 2, nu = tl->nu;
    /* The next offset up, `gap` positions on, is a turn by the gap, a
     * power of two at a time: angle addition, in double, in place of a
     * sin and a cos (at random positions the offsets are rarely
     * consecutive, and sincos was 46% of a step); over a tile it drifts by
     * some 1e-14, far below float's rounding. A frequency's turns wait on
     * each other, so a tile of frequencies turns together, a loop the
     * compiler vectorizes. */
    double s[TILE_FREQS], c[TILE_FREQS], sb[XL_BITS][TILE_FREQS], cb[XL_BITS][TILE_FREQS];
    double wl[TILE_FREQS];
    for (size_t f = 0; f < nk; f++) {
        Freq spare;
        const Freq *q = freq_of(C, k0 + f, &spare);
        wl[f] = q->wavelength;
        for (size_t b = 0; b < XL_BITS; b++)
            sb[b][f] = q->s[b], cb[b][f] = q->c[b];
    }
    for (size_t t = 0; t < nu; t++) {
        const float *o = D + tl->u0 + t;
        float gap = t > 0 ? o[0] - o[-1] : 0.0f; /* offsets are whole numbers */
        if (gap >= 1.0f && gap < (float)(1u << XL_BITS)) {
            for (unsigned b = 0, g = (unsigned)gap; g; b++, g >>= 1)
                for (size_t f = 0; g & 1u && f < nk; f++) {
                    double turned = s[f] * cb[b][f] + c[f] * sb[b][f];
                    c[f] = c[f] * cb[b][f] - s[f] * sb[b][f], s[f] = turned;
                }
        } else {
            for (size_t f = 0; f < nk; f++)
                s[f] = sin((double)o[0] / wl[f]), c[f] = cos((double)o[0] / wl[f]);
        }
        for (size_t f = 0; f < nk; f++)
            sn[f * stride + t] = (float)s[f], cs[f * stride + t] = (float)c[f];
    }
    for (size_t f = 0; f < nk; f++)
        if (n_sin + k0 + f >= C)
            memset(cs + f * stride, 0, nu * sizeof *cs);
}

/* rk (channels by offsets) += the tile's keys' terms of frequency k. */
static void add_keys(float *rk, const Head *x, const float *sn, const float *cs, size_t k,
                     const Tile *tl) {
    size_t C = x->C, n_sin = (C + 1) / 2, nu = tl->nu;
    bool has_cos = n_sin + k < C;
    for (size_t d = 0; d < tl->nd; d++) {
        size_t row = (tl->d0 + d) * C;
        float ws = x->W[row + k], wc = has_cos ? x->W[row + n_sin + k] : 0.0f;
        float *r = rk + d * nu;
        for (size_t t = 0; t < nu; t++)
            r[t] += ws * sn[t] + wc * cs[t];
    }
}

/* G (channels by offsets) transposed into Gt (offsets by channels). */
static void transpose_grad(float Gt[][TILE_CHANNELS], const float *G, const Tile *tl) {
    for (size_t d = 0; d < tl->nd; d++)
        for (size_t t = 0; t < tl->nu; t++)
            Gt[t][d] = G[d * tl->nu + t];
}

/* The tile's keys W_R R(o) into rk (channels by offsets), and with G the
 * gradient of W_R from the keys' (offset_grad); either may be NULL. */
void xl_offset_keys(float *rk, const float *G, const Head *x, const float *D,
                        const Tile *tl) {
    size_t C = x->C, n_sin = (C + 1) / 2, nu = tl->nu;
    if (rk)
        memset(rk, 0, tl->nd * nu * sizeof *rk);
    float Gt[TILE_OFFSETS][TILE_CHANNELS];
    if (G)
        transpose_grad(Gt, G, tl);
    for (size_t k0 = 0; k0 < n_sin; k0 += TILE_FREQS) {
        size_t nk = min_size(n_sin - k0, TILE_FREQS);
        float sn[TILE_FREQS * TILE_OFFSETS], cs[TILE_FREQS * TILE_OFFSETS];
        offset_trig(sn, cs, TILE_OFFSETS, C, D, tl, k0, nk);
        for (size_t f = 0; f < nk; f++) {
            size_t k = k0 + f;
            if (rk)
                add_keys(rk, x, sn + f * TILE_OFFSETS, cs + f * TILE_OFFSETS, k, tl);
            if (G)
                offset_grad(x, Gt, sn + f * TILE_OFFSETS, cs + f * TILE_OFFSETS, k,
                            n_sin + k < C, tl);
        }
    }
}

/* A head's keys for every offset of a sentence, by tiles in the order the
 * hooks walk them: tile (u0, d0) at u0 HS + d0 nu, as xl_offset_keys fills
 * it, and the sines and cosines of the offsets, tile u0's frequency k at
 * u0 n_sin + k nu. The sentences of a batch share their offsets (0..T-1
 * for all, or one draw of random positions with --batches by-length) and
 * a layer its W_R, so each thread keeps a head's last keys with what they
 * were made from (W_R's rows, compared by value: a step changes them in
 * place, and the offsets), and makes them again only when either differs:
 * the same floats, once a batch instead of once a sentence (xl_score and
 * its backward, the keys made inside them, were 64% of a benchmark cell's
 * step at random positions, perf; then the sines and cosines that W_R's
 * gradient takes, made again in every sentence's backward, were the most
 * of what was left). Heads past XL_MEMO_HEADS share slots. */
#define XL_MEMO_HEADS 16

static bool grow(float **p, size_t *cap, size_t need) {
    if (need <= *cap)
        return true;
    float *q = realloc(*p, need * sizeof *q);
    if (!q)
        return false;
    *p = q, *cap = need;
    return true;
}

/* NULL when memory ran out: the caller makes each tile's keys itself. */
const KeyMemo *xl_keys_of(const Head *x, const float *D, size_t n, size_t h) {
    static _Thread_local KeyMemo memo[XL_MEMO_HEADS];
    KeyMemo *m = &memo[h % XL_MEMO_HEADS];
    size_t HS = x->HS, C = x->C, n_sin = (C + 1) / 2;
    if (m->keys && m->at == x->W && m->HS == HS && m->C == C && m->n == n &&
        memcmp(m->w, x->W, HS * C * sizeof *x->W) == 0 &&
        memcmp(m->D, D, n * sizeof *D) == 0)
        return m;
    if (!grow(&m->w, &m->cap_w, HS * C) || !grow(&m->D, &m->cap_D, n) ||
        !grow(&m->keys, &m->cap_keys, n * HS) || !grow(&m->sn, &m->cap_sn, n * n_sin) ||
        !grow(&m->cs, &m->cap_cs, n * n_sin)) {
        m->n = 0;
        return NULL;
    }
    m->at = x->W, m->HS = HS, m->C = C, m->n = n;
    memcpy(m->w, x->W, HS * C * sizeof *x->W);
    memcpy(m->D, D, n * sizeof *D);
    for (size_t u0 = 0; u0 < n; u0 += TILE_OFFSETS) {
        Tile all = {u0, min_size(n - u0, TILE_OFFSETS), 0, HS};
        float *sn = m->sn + u0 * n_sin, *cs = m->cs + u0 * n_sin;
        for (size_t k0 = 0; k0 < n_sin; k0 += TILE_FREQS)
            offset_trig(sn + k0 * all.nu, cs + k0 * all.nu, all.nu, C, D, &all, k0,
                        min_size(n_sin - k0, TILE_FREQS));
        for (size_t d0 = 0; d0 < HS; d0 += TILE_CHANNELS) {
            Tile tl = {u0, all.nu, d0, min_size(HS - d0, TILE_CHANNELS)};
            float *rk = m->keys + u0 * HS + d0 * tl.nu;
            memset(rk, 0, tl.nd * tl.nu * sizeof *rk);
            for (size_t k = 0; k < n_sin; k++)
                add_keys(rk, x, sn + k * tl.nu, cs + k * tl.nu, k, &tl);
        }
    }
    return m;
}

/* W_R's gradient from the tile's keys' gradient G, with the sines and
 * cosines the memo keeps: xl_offset_keys's sums without making them again.
 * Each sum is a chain along the offsets, one add waiting on the last
 * (offset_grad's two chains a frequency were 28% of a benchmark cell at
 * random positions, perf): GRAD_FREQS frequencies at a time, the same
 * sums in the same order, side by side. */
#define GRAD_FREQS 4
static inline void grad_sums(float gs[][TILE_CHANNELS], float gc[][TILE_CHANNELS],
                             float Gt[][TILE_CHANNELS], const float *sn, const float *cs,
                             size_t nu, size_t nd) {
    for (size_t f = 0; f < GRAD_FREQS; f++)
        for (size_t d = 0; d < nd; d++)
            gs[f][d] = 0.0f, gc[f][d] = 0.0f;
    for (size_t t = 0; t < nu; t++)
        for (size_t f = 0; f < GRAD_FREQS; f++) {
            float s = sn[f * nu + t], c = cs[f * nu + t];
            for (size_t d = 0; d < nd; d++)
                gs[f][d] += Gt[t][d] * s, gc[f][d] += Gt[t][d] * c;
        }
}

void xl_memo_grad(const Head *x, const float *G, const KeyMemo *m, const Tile *tl) {
    size_t C = x->C, n_sin = (C + 1) / 2, nu = tl->nu, nd = tl->nd;
    float Gt[TILE_OFFSETS][TILE_CHANNELS];
    transpose_grad(Gt, G, tl);
    const float *sn = m->sn + tl->u0 * n_sin, *cs = m->cs + tl->u0 * n_sin;
    size_t k0 = 0;
    for (; k0 + GRAD_FREQS <= n_sin; k0 += GRAD_FREQS) {
        float gs[GRAD_FREQS][TILE_CHANNELS], gc[GRAD_FREQS][TILE_CHANNELS];
        if (nd == 8) /* 8 channels a head, the common case: sums in registers */
            grad_sums(gs, gc, Gt, sn + k0 * nu, cs + k0 * nu, nu, 8);
        else
            grad_sums(gs, gc, Gt, sn + k0 * nu, cs + k0 * nu, nu, nd);
        for (size_t f = 0; f < GRAD_FREQS; f++)
            for (size_t d = 0; d < nd; d++) {
                size_t row = (tl->d0 + d) * C, k = k0 + f;
                x->dW[row + k] += gs[f][d];
                if (n_sin + k < C)
                    x->dW[row + n_sin + k] += gc[f][d];
            }
    }
    for (; k0 < n_sin; k0++)
        offset_grad(x, Gt, sn + k0 * nu, cs + k0 * nu, k0, n_sin + k0 < C, tl);
}

/* At random positions (pairwise), a pass over the pairs per tile of
 * offsets costs T^2 n / TILE_OFFSETS, T^4 / 32 (xl_score_backward's three
 * such passes were 54% of a benchmark cell at random positions, perf): one
 * pass over the pairs instead, each reading its offset's tile of the
 * memo's keys, and sums kept a tile apart where the tiled loops keep them
 * so: the same terms added in the same order, the same floats. */

/* Offset u's tile at channels d0 in the memo's layout: its start, the
 * tile's width *nu and u's place *t in it. */
static size_t tile_at(size_t u, size_t n, size_t HS, size_t d0, size_t *t, size_t *nu) {
    size_t u0 = u - u % TILE_OFFSETS;
    *nu = min_size(n - u0, TILE_OFFSETS), *t = u - u0;
    return u0 * HS + d0 * *nu;
}

void xl_pair_score(const PeHead *hd, const Head *x, const KeyMemo *m, const float *index) {
    size_t T = hd->T, ld = hd->ld;
    float a[TILE_CHANNELS];
    for (size_t d0 = 0; d0 < x->HS; d0 += TILE_CHANNELS) {
        size_t nd = min_size(x->HS - d0, TILE_CHANNELS), t, nu;
        for (size_t i = 0; i < T; i++) {
            for (size_t d = 0; d < nd; d++)
                a[d] = hd->q[i * ld + d0 + d] + x->v[d0 + d];
            for (size_t j = 0; j < T; j++) {
                const float *rk = m->keys + tile_at((size_t)index[i * T + j], m->n, x->HS, d0, &t, &nu);
                float o = 0.0f;
                for (size_t d = 0; d < nd; d++)
                    o += a[d] * rk[d * nu + t];
                hd->scores[i * T + j] += hd->scale * o;
            }
        }
    }
}

/* The backward's sums: the keys' gradient G in the memo's layout, query
 * i's g per offset, and query i's dq per tile of offsets (T, tiles,
 * channels), added to dq and dv tile by tile as the tiled loops add them. */
typedef struct {
    float *G, *gi, *r;
    size_t cap_G, cap_gi, cap_r;
} PairSums;

bool xl_pair_backward(const PeHead *hd, const Head *x, const KeyMemo *m,
                          const float *index) {
    static _Thread_local PairSums s;
    size_t T = hd->T, ld = hd->ld, n = m->n, HS = x->HS;
    size_t tiles = (n + TILE_OFFSETS - 1) / TILE_OFFSETS, t, nu;
    if (!grow(&s.G, &s.cap_G, n * HS) || !grow(&s.gi, &s.cap_gi, n) ||
        !grow(&s.r, &s.cap_r, T * tiles * TILE_CHANNELS))
        return false;
    for (size_t d0 = 0; d0 < HS; d0 += TILE_CHANNELS) {
        size_t nd = min_size(HS - d0, TILE_CHANNELS);
        /* as xl_score_backward's tiled loop: a query's g per offset, then
         * into G at its keys' offsets */
        memset(s.G, 0, n * HS * sizeof *s.G);
        memset(s.gi, 0, n * sizeof *s.gi);
        for (size_t i = 0; x->dW && i < T; i++) {
            const float *qi = hd->q + i * ld + d0, *vi = x->v + d0;
            for (size_t j = 0; j < T; j++)
                s.gi[(size_t)index[i * T + j]] += hd->scale * hd->dscores[i * T + j];
            for (size_t j = 0; j < T; j++) {
                size_t u = (size_t)index[i * T + j];
                float *g = s.G + tile_at(u, n, HS, d0, &t, &nu);
                for (size_t d = 0; d < nd; d++)
                    g[d * nu + t] += s.gi[u] * (qi[d] + vi[d]);
                s.gi[u] = 0.0f;
            }
        }
        for (size_t u0 = 0; x->dW && u0 < n; u0 += TILE_OFFSETS) {
            Tile tl = {u0, min_size(n - u0, TILE_OFFSETS), d0, nd};
            xl_memo_grad(x, s.G + u0 * HS + d0 * tl.nu, m, &tl);
        }
        memset(s.r, 0, T * tiles * nd * sizeof *s.r);
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < T; j++) {
                float g = hd->scale * hd->dscores[i * T + j];
                size_t u = (size_t)index[i * T + j];
                if (g == 0.0f)
                    continue;
                const float *rk = m->keys + tile_at(u, n, HS, d0, &t, &nu);
                float *r = s.r + (i * tiles + u / TILE_OFFSETS) * nd;
                for (size_t d = 0; d < nd; d++)
                    r[d] += g * rk[d * nu + t];
            }
        for (size_t k = 0; k < tiles; k++)
            for (size_t i = 0; i < T; i++)
                for (size_t d = 0; d < nd; d++) {
                    float r = s.r[(i * tiles + k) * nd + d];
                    hd->dq[i * ld + d0 + d] += r;
                    if (x->dv)
                        x->dv[d0 + d] += r;
                }
    }
    return true;
}

