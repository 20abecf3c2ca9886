/* Transformer-XL's relative attention (Dai et al. 2019, section 3.3).
 * Query i and key j, at positions p_i and p_j, score
 *     (q_i + u) . k_j + (q_i + v) . W_R R(p_j - p_i),
 * scaled by 1/sqrt(HS) with the rest: the paper's four terms, (a) q.k,
 * (b) q.W_R R, (c) u.k and (d) v.W_R R. R is the sinusoid of the signed
 * offset; W_R R(o) is a key for the offset o, like Shaw's aK(o), but drawn
 * from the sinusoid through one learned matrix instead of a free table,
 * so that every offset has one, however far. u and v are learned per head:
 * u a bias of every key whatever its place (what a word is worth), v of
 * every offset whatever the query (where a head looks). Nothing is added
 * to the word vectors.
 *
 * The details the paper leaves open are those of Ruoss et al.'s code
 * (google-deepmind/randomized_positional_encodings, compute_attention_with_
 * relative_encodings in models/positional_encodings.py), the "relative"
 * column of their Table 1:
 * - the offset is key minus query, p_j - p_i: their relative_shift puts
 *   the sinusoid of j - i at (i, j). The paper writes R_{i-j}; the two
 *   differ by the sign of W_R's sine columns only.
 * - R is d_model wide, in the split layout (all sines, then all cosines),
 *   at angles o / 10000^(2k/d_model): sinusoid_value's LAYOUT_SPLIT.
 * - W_R is a linear map d_model -> d_model without bias, head h reading
 *   its rows h*HS..(h+1)*HS-1, drawn as Haiku's Linear draws it: normal,
 *   std 1/sqrt(d_model), truncated at two std. u and v (NH,HS) are drawn
 *   from N(0, 0.02^2).
 * - every layer has its own W_R, u and v (each attention module makes its
 *   own): here one table (C+2,C) per layer, rows 0..C-1 W_R (out, in) as
 *   torch's nn.Linear stores it, row C u and row C+1 v (head h at columns
 *   h*HS..), so head h's gradient touches head h's part only.
 * Where this differs: their q, k and v projections have no bias (the
 * model's have, for every scheme); their randomized form ("noisy
 * relative") draws the offsets of one sentence from a wider range and
 * mirrors them, where train --random-positions draws positions here, so an
 * offset is the difference of two drawn positions; and an odd d_model,
 * which their code refuses, ends R with a sine, as sinusoid_value does.
 *
 * The hooks run per sentence and head (a scheme has no call per layer in
 * which the keys could be made once for every sentence). The sentence's
 * distinct offsets (2T - 1 of them at positions 0..T-1, more at random
 * positions) are found once, by prepare; the score hook turns each into
 * head h's key W_R R(o) once, by tiles of offsets and head channels on the
 * stack, not once per pair. Offsets are floats in the scratch, exact below
 * 2^24 as ALiBi's positions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pe.h"

#define XL_BASE PE_DEFAULT_BASE /* their max_time, 10000 */
#define TILE_OFFSETS 32
#define TILE_CHANNELS 32
#define TILE_FREQS 16

/* Head h's parts of one layer's table (C+2,C), and of its gradient. */
typedef struct {
    const float *W;       /* (HS,C) rows h*HS.. of W_R */
    const float *u, *v;   /* (HS) */
    float *dW, *du, *dv;  /* their gradients, or NULL */
    size_t C, HS;
} Head;

static Head head_of(const PeHead *hd) {
    size_t HS = hd->HS, C = HS * hd->NH, W = hd->h * HS * C, u = C * C + hd->h * HS;
    Head x = {.W = hd->params + W, .u = hd->params + u, .v = hd->params + u + C, .C = C,
              .HS = HS};
    if (hd->dparams)
        x.dW = hd->dparams + W, x.du = hd->dparams + u, x.dv = hd->dparams + u + C;
    return x;
}

static void xl_shape(const PeConfig *pc, size_t w, size_t HS, size_t NH, size_t max_len,
                     size_t *rows, size_t *cols) {
    (void)pc, (void)w, (void)max_len;
    *rows = HS * NH + 2;
    *cols = HS * NH;
}

static void xl_init(const PeConfig *pc, float *params, size_t n, size_t C, Rng *rng) {
    (void)pc;
    float std = 1.0f / sqrtf((float)C);
    for (size_t i = 0; i < C * C; i++) {
        float z;
        do /* Haiku's TruncatedNormal: N(0,1) redrawn outside [-2, 2] */
            z = rng_normal(rng);
        while (fabsf(z) > 2.0f);
        params[i] = std * z;
    }
    for (size_t i = C * C; i < n; i++)
        params[i] = 0.02f * rng_normal(rng);
}

/* Per sentence: [0] the number n of distinct offsets, then those offsets
 * (n, sorted, in a room of T*T), then for each (query, key) pair the index
 * of its offset among them (T,T). */
static size_t xl_scratch(size_t T, size_t HS) {
    (void)HS;
    return 1 + 2 * T * T;
}

static float offset_of(const size_t *pos, size_t i, size_t j) {
    return (float)((double)pos[j] - (double)pos[i]);
}

static int by_value(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void xl_prepare(float *S, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)pc, (void)HS;
    float *D = S + 1, *index = D + T * T;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            D[i * T + j] = offset_of(pos, i, j);
    qsort(D, T * T, sizeof *D, by_value);
    size_t n = 0;
    for (size_t k = 0; k < T * T; k++)
        if (n == 0 || D[k] != D[n - 1])
            D[n++] = D[k];
    S[0] = (float)n;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float o = offset_of(pos, i, j);
            size_t lo = 0, hi = n - 1; /* D[lo] <= o <= D[hi] */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (D[mid] < o)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            index[i * T + j] = (float)lo;
        }
}

/* Offsets u0..u0+nu-1 of the sentence's list, head channels d0..d0+nd-1. */
typedef struct {
    size_t u0, nu, d0, nd;
} Tile;

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

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

/* The tile's keys W_R R(o) into rk (channels by offsets), and with G the
 * gradient of W_R from the keys' (offset_grad); either may be NULL. */
static void offset_keys(float *rk, const float *G, const Head *x, const float *D,
                        const Tile *tl) {
    size_t C = x->C, n_sin = (C + 1) / 2, nu = tl->nu;
    if (rk)
        memset(rk, 0, tl->nd * nu * sizeof *rk);
    float Gt[TILE_OFFSETS][TILE_CHANNELS]; /* G transposed: offsets by channels */
    for (size_t d = 0; G && d < tl->nd; d++)
        for (size_t t = 0; t < nu; t++)
            Gt[t][d] = G[d * nu + t];
    for (size_t k0 = 0; k0 < n_sin; k0 += TILE_FREQS) {
        size_t nk = min_size(n_sin - k0, TILE_FREQS);
        /* The next offset up, `gap` positions on, is a turn by the gap, a
         * power of two at a time: angle addition, in double, in place of a
         * sin and a cos (at random positions the offsets are rarely
         * consecutive, and sincos was 46% of a step); over a tile it
         * drifts by some 1e-14, far below float's rounding. A frequency's
         * turns wait on each other, so a tile of frequencies turns
         * together, a loop the compiler vectorizes. */
        double s[TILE_FREQS], c[TILE_FREQS], sb[XL_BITS][TILE_FREQS], cb[XL_BITS][TILE_FREQS];
        double wl[TILE_FREQS];
        for (size_t f = 0; f < nk; f++) {
            Freq spare;
            const Freq *q = freq_of(C, k0 + f, &spare);
            wl[f] = q->wavelength;
            for (size_t b = 0; b < XL_BITS; b++)
                sb[b][f] = q->s[b], cb[b][f] = q->c[b];
        }
        float sn[TILE_FREQS][TILE_OFFSETS], cs[TILE_FREQS][TILE_OFFSETS];
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
                sn[f][t] = (float)s[f], cs[f][t] = (float)c[f];
        }
        for (size_t f = 0; f < nk; f++) {
            size_t k = k0 + f;
            bool has_cos = n_sin + k < C; /* an odd d_model's last sine has none */
            if (!has_cos)
                memset(cs[f], 0, nu * sizeof cs[f][0]);
            for (size_t d = 0; rk && d < tl->nd; d++) {
                size_t row = (tl->d0 + d) * C;
                float ws = x->W[row + k], wc = has_cos ? x->W[row + n_sin + k] : 0.0f;
                float *r = rk + d * nu;
                for (size_t t = 0; t < nu; t++)
                    r[t] += ws * sn[f][t] + wc * cs[f][t];
            }
            if (G)
                offset_grad(x, Gt, sn[f], cs[f], k, has_cos, tl);
        }
    }
}

/* A head's keys for every offset of a sentence, by tiles in the order the
 * hooks walk them: tile (u0, d0) at u0 HS + d0 nu, as offset_keys fills
 * it. The sentences of a batch share their offsets (0..T-1 for all, or
 * one draw of random positions with --batches by-length) and a layer its
 * W_R, so each thread keeps a head's last keys with what they were made
 * from (W_R's rows, compared by value: a step changes them in place, and
 * the offsets), and makes them again only when either differs: the same
 * floats, once a batch instead of once a sentence (xl_score and its
 * backward, the keys made inside them, were 64% of a benchmark cell's
 * step at random positions, perf). Heads past XL_MEMO_HEADS share slots. */
#define XL_MEMO_HEADS 16
typedef struct {
    const float *at; /* W_R's rows, where they were read */
    float *w, *D, *keys;
    size_t HS, C, n, cap_w, cap_D, cap_keys;
} KeyMemo;

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
static const float *keys_of(const Head *x, const float *D, size_t n, size_t h) {
    static _Thread_local KeyMemo memo[XL_MEMO_HEADS];
    KeyMemo *m = &memo[h % XL_MEMO_HEADS];
    size_t HS = x->HS, C = x->C;
    if (m->keys && m->at == x->W && m->HS == HS && m->C == C && m->n == n &&
        memcmp(m->w, x->W, HS * C * sizeof *x->W) == 0 &&
        memcmp(m->D, D, n * sizeof *D) == 0)
        return m->keys;
    if (!grow(&m->w, &m->cap_w, HS * C) || !grow(&m->D, &m->cap_D, n) ||
        !grow(&m->keys, &m->cap_keys, n * HS)) {
        m->n = 0;
        return NULL;
    }
    m->at = x->W, m->HS = HS, m->C = C, m->n = n;
    memcpy(m->w, x->W, HS * C * sizeof *x->W);
    memcpy(m->D, D, n * sizeof *D);
    for (size_t u0 = 0; u0 < n; u0 += TILE_OFFSETS)
        for (size_t d0 = 0; d0 < HS; d0 += TILE_CHANNELS) {
            Tile tl = {u0, min_size(n - u0, TILE_OFFSETS), d0, min_size(HS - d0, TILE_CHANNELS)};
            offset_keys(m->keys + u0 * HS + d0 * tl.nu, NULL, x, D, &tl);
        }
    return m->keys;
}

/* The pair loops: a query's term for every offset of a tile (qo, gi: a
 * loop along the offsets that the compiler vectorizes) costs T x n per
 * head, where n, the distinct offsets, is 2T - 1 at positions 0..T-1 but
 * about T^2 at random ones (T^3: 30 times the pairs at T = 30, the most of
 * a step). Past 4T offsets each pair sums its own term instead, the same
 * terms in the same order: the same floats either way. */
static bool pairwise(size_t n, size_t T) { return n > 4 * T; }

/* y += a x, n floats; restrict lets the compiler vectorize it. */
static void axpy(float *restrict y, const float *restrict x, float a, size_t n) {
    for (size_t t = 0; t < n; t++)
        y[t] += a * x[t];
}

static float dot(const float *a, const float *b, size_t n) {
    float s = 0.0f;
    for (size_t d = 0; d < n; d++)
        s += a[d] * b[d];
    return s;
}

static void xl_score(const PeHead *hd) {
    /* scores (T,T) += scale (u . k_j + (q_i + v) . W_R R(p_j - p_i)) */
    Head x = head_of(hd);
    size_t T = hd->T, ld = hd->ld, n = (size_t)hd->scratch[0];
    const float *D = hd->scratch + 1, *index = D + T * T;
    /* (c): the same for every query */
    for (size_t j = 0; j < T; j++) {
        float c = hd->scale * dot(x.u, hd->k + j * ld, x.HS);
        for (size_t i = 0; i < T; i++)
            hd->scores[i * T + j] += c;
    }
    /* (b) and (d): query i's term for every offset of the tile, qo[t],
     * a loop along the offsets that the compiler vectorizes, then read
     * at each key's offset. Each sum runs over d in order, as a sum per
     * pair would. */
    float own[TILE_OFFSETS * TILE_CHANNELS], qo[TILE_OFFSETS], a[TILE_CHANNELS];
    bool by_pair = pairwise(n, T);
    const float *keys = keys_of(&x, D, n, hd->h);
    for (size_t u0 = 0; u0 < n; u0 += TILE_OFFSETS)
        for (size_t d0 = 0; d0 < x.HS; d0 += TILE_CHANNELS) {
            Tile tl = {u0, min_size(n - u0, TILE_OFFSETS), d0, min_size(x.HS - d0, TILE_CHANNELS)};
            const float *rk = keys ? keys + u0 * x.HS + d0 * tl.nu : own;
            if (!keys)
                offset_keys(own, NULL, &x, D, &tl);
            for (size_t i = 0; i < T; i++) {
                for (size_t d = 0; d < tl.nd; d++)
                    a[d] = hd->q[i * ld + d0 + d] + x.v[d0 + d];
                if (!by_pair) {
                    memset(qo, 0, tl.nu * sizeof *qo);
                    for (size_t d = 0; d < tl.nd; d++)
                        axpy(qo, rk + d * tl.nu, a[d], tl.nu);
                }
                for (size_t j = 0; j < T; j++) {
                    size_t t = (size_t)index[i * T + j] - u0; /* wraps past nu below u0 */
                    if (t >= tl.nu)
                        continue;
                    float o = 0.0f;
                    if (by_pair) /* qo[t]'s sum, the same terms in the same order */
                        for (size_t d = 0; d < tl.nd; d++)
                            o += a[d] * rk[d * tl.nu + t];
                    hd->scores[i * T + j] += hd->scale * (by_pair ? o : qo[t]);
                }
            }
        }
}

static void xl_score_backward(const PeHead *hd) {
    /* forward: scores_ij += scale (u . k_j + (q_i + v) . K(i,j)), K(i,j) = W_R R(p_j - p_i);
     * g_ij = scale ds_ij: dk_j += (sum_i g_ij) u, du += (sum_i g_ij) k_j,
     * dq_i += sum_j g_ij K(i,j), dv += the same summed over i,
     * dK(o) = sum over the pairs of offset o of g_ij (q_i + v), dW_R += dK(o) R(o)^T */
    Head x = head_of(hd);
    size_t T = hd->T, ld = hd->ld, n = (size_t)hd->scratch[0];
    const float *D = hd->scratch + 1, *index = D + T * T;
    for (size_t j = 0; j < T; j++) {
        float g = 0.0f;
        for (size_t i = 0; i < T; i++)
            g += hd->dscores[i * T + j];
        g *= hd->scale;
        for (size_t d = 0; d < x.HS; d++) {
            hd->dk[j * ld + d] += g * x.u[d];
            if (x.du)
                x.du[d] += g * hd->k[j * ld + d];
        }
    }
    float own[TILE_OFFSETS * TILE_CHANNELS], G[TILE_OFFSETS * TILE_CHANNELS], r[TILE_CHANNELS];
    float gi[TILE_OFFSETS];
    bool by_pair = pairwise(n, T);
    const float *keys = keys_of(&x, D, n, hd->h);
    for (size_t u0 = 0; u0 < n; u0 += TILE_OFFSETS)
        for (size_t d0 = 0; d0 < x.HS; d0 += TILE_CHANNELS) {
            Tile tl = {u0, min_size(n - u0, TILE_OFFSETS), d0, min_size(x.HS - d0, TILE_CHANNELS)};
            /* the keys' gradient first: W_R's comes with the keys. gi[t]
             * is query i's g summed over the keys at offset t: one key at
             * most with a g (the sentence's positions are distinct; a
             * padded key may repeat one, with g = 0), so G sums over the
             * queries in order, as a sum per pair would. */
            memset(G, 0, tl.nd * tl.nu * sizeof *G);
            memset(gi, 0, tl.nu * sizeof *gi);
            for (size_t i = 0; x.dW && i < T; i++) {
                const float *qi = hd->q + i * ld + d0, *vi = x.v + d0;
                for (size_t j = 0; j < T; j++) {
                    size_t t = (size_t)index[i * T + j] - u0;
                    if (t < tl.nu)
                        gi[t] += hd->scale * hd->dscores[i * T + j];
                }
                if (!by_pair) {
                    for (size_t d = 0; d < tl.nd; d++)
                        axpy(G + d * tl.nu, gi, qi[d] + vi[d], tl.nu);
                    memset(gi, 0, tl.nu * sizeof *gi);
                    continue;
                }
                /* only the offsets of query i's keys: the others would add
                 * 0 (a duplicate, a padded key's, is added once and zeroed) */
                for (size_t j = 0; j < T; j++) {
                    size_t t = (size_t)index[i * T + j] - u0;
                    if (t >= tl.nu)
                        continue;
                    for (size_t d = 0; d < tl.nd; d++)
                        G[d * tl.nu + t] += gi[t] * (qi[d] + vi[d]);
                    gi[t] = 0.0f;
                }
            }
            /* the keys' sums do not depend on G's: made with it or
             * apart, the same floats */
            const float *rk = keys ? keys + u0 * x.HS + d0 * tl.nu : own;
            if (!keys)
                offset_keys(own, x.dW ? G : NULL, &x, D, &tl);
            else if (x.dW)
                offset_keys(NULL, G, &x, D, &tl);
            for (size_t i = 0; i < T; i++) {
                memset(r, 0, tl.nd * sizeof *r);
                for (size_t j = 0; j < T; j++) {
                    size_t t = (size_t)index[i * T + j] - u0;
                    float g = hd->scale * hd->dscores[i * T + j];
                    if (t >= tl.nu || g == 0.0f)
                        continue;
                    for (size_t d = 0; d < tl.nd; d++)
                        r[d] += g * rk[d * tl.nu + t];
                }
                for (size_t d = 0; d < tl.nd; d++) {
                    hd->dq[i * ld + d0 + d] += r[d];
                    if (x.dv)
                        x.dv[d0 + d] += r[d];
                }
            }
        }
}

/* The same score of one pair in double, from the formula. */
static double xl_ref_score(const PeRefPair *r) {
    size_t HS = r->HS, C = HS * r->NH;
    const double *W = r->params + r->h * HS * C, *u = r->params + C * C + r->h * HS, *v = u + C;
    double offset = (double)r->pj - (double)r->pi, s = 0.0;
    for (size_t d = 0; d < HS; d++) {
        double key = 0.0; /* (W_R R(offset))_d */
        for (size_t c = 0; c < C; c++)
            key += W[d * C + c] * sinusoid_value(offset, c, C, LAYOUT_SPLIT, XL_BASE);
        s += u[d] * r->k[d] + (r->q[d] + v[d]) * key;
    }
    return s / sqrt((double)HS);
}

const PeScheme pe_xl = {
    .name = "xl",
    .since = 6,
    .about = "(q+u).k + (q+v).W_R R(j-i) per head: R the sinusoid of the offset, W_R, u, v "
             "learned (Transformer-XL)",
    .note = "nothing is added to the word vectors; each head scores every offset through a "
            "sinusoid of it and an untrained W_R, so the offset already shifts the scores",
    .ruoss_column = "relative",
    .ruoss_randomized = true,
    .default_combine = COMBINE_ADD,
    .param_shape = xl_shape,
    .param_name = "relative_position.weight",
    .per_layer = true,
    .grad_by_head = true,
    .init = xl_init,
    .scratch = xl_scratch,
    .prepare = xl_prepare,
    .score = xl_score,
    .score_backward = xl_score_backward,
    .ref_score = xl_ref_score,
};
