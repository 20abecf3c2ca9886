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
 * model's have, for every scheme); an odd d_model, which their code
 * refuses, gives R one sine more than cosines, as sinusoid_value's split
 * layout does (the sines of frequencies 0..(d-1)/2, then the cosines of
 * 0..(d-3)/2: R ends with a cosine).
 * Their randomized form ("noisy relative", compute_attention_with_noisy_relative_
 * encodings) draws, in every layer, one distance per offset from 1..N-1
 * and mirrors them, which --random-draw ruoss does too (PE_DRAW_LAYER_
 * DISTANCES), where --random-positions alone draws positions, an offset
 * the difference of two. It then reads a table of the sinusoids of
 * 0..N-1 (N rows, without the negative side) at row N + o: a key d to
 * the left reads row N - d, the sinusoid of N - d, and the query itself
 * and every key to its right read past the end, which JAX's gather (its
 * default mode for x[idx], PROMISE_IN_BOUNDS) clamps to row N - 1, so all
 * of those get one encoding. Its comment says row N was to be offset 0,
 * as in a table with the negative side: R(o), which is what this scheme
 * computes by default. --xl-rows clamped computes R of the rows their code
 * reads instead (the benchmark's "random xl (as run)"). Their plain form
 * builds its table with the negative side, 2T rows, and reads row T + o,
 * always inside it: R(o), with or without --xl-rows.
 *
 * The hooks run per sentence and head (a scheme has no call per layer in
 * which the keys could be made once for every sentence). The sentence's
 * distinct offsets (2T - 1 of them at positions 0..T-1, more at random
 * positions) are found once, by prepare; the score hook turns each into
 * head h's key W_R R(o) once, by tiles of offsets and head channels on the
 * stack, not once per pair (pe_xl_keys.c, with the memo that makes them
 * once a batch and the pair loops at random positions). Offsets are floats
 * in the scratch, exact below 2^24 as ALiBi's positions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pe.h"
#include "pe_xl_keys.h"
#include "pe_sinusoidal.h"

/* --xl-rows: the sinusoid a layer's drawn offset o reads (the head
 * comment): R(o), or as Ruoss et al.'s code runs, R(N + o) clamped to
 * R(N - 1). */
typedef enum { XL_ROWS_OFFSET = 0, XL_ROWS_CLAMPED } XlRows;

static const char *const ROWS_NAMES[] = {"offset", "clamped", NULL};

static const PeOption opt_rows = {
    .flag = "--xl-rows",
    .type = PE_VALUE_NAME,
    .names = ROWS_NAMES,
    .def = XL_ROWS_OFFSET,
    .def_text = "offset",
    .help = "xl at the distances --random-draw ruoss draws from 1..N-1 (--random-positions "
            "N): an offset o's key reads the sinusoid of o; or (clamped) row N+o of a table of "
            "the sinusoids of 0..N-1, past its end clamped to row N-1, as Ruoss et al.'s code "
            "runs: the word and every key to its right read row N-1 (default offset)",
    .example = "clamped",
    .layer_draws = true,
};

static XlRows rows_of(const PeConfig *pc) { return (XlRows)pe_get(pc, &opt_rows); }

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

static void xl_init(const PeConfig *pc, float *params, size_t n, size_t C, size_t NH,
                    Rng *rng) {
    (void)pc, (void)NH;
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
 * of its offset among them (T,T). Under --xl-rows clamped, a layer's
 * drawn offsets give the rows their code reads instead (read_at), each
 * row once: what R is taken of, as the offsets are otherwise. */
static size_t xl_scratch(const PeConfig *pc, size_t T, size_t HS) {
    (void)pc;
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

/* Pair (i, j)'s offset: p_j - p_i, or with a layer's drawn distances
 * (dist not NULL) dist[j - i] to the right of the query and -dist[i - j]
 * to its left. */
static float offset_at(const size_t *pos, const size_t *dist, size_t i, size_t j) {
    if (!dist)
        return offset_of(pos, i, j);
    return j >= i ? (float)dist[j - i] : -(float)dist[i - j];
}

/* What pair (i, j)'s key is the sinusoid of: its offset, or with rows N
 * (--xl-rows clamped at a layer's drawn distances from 1..N-1) the row of
 * the table of 0..N-1 that Ruoss et al.'s code reads, N + o, which JAX
 * clamps to N - 1 past the end (o >= 0). Whole numbers below N, exact in
 * float. */
typedef struct {
    const size_t *pos, *dist;
    size_t rows; /* N, or 0: the offset itself */
} Reads;

static float read_at(const Reads *r, size_t i, size_t j) {
    float o = offset_at(r->pos, r->dist, i, j);
    if (!r->rows)
        return o;
    return o < 0.0f ? (float)r->rows + o : (float)(r->rows - 1);
}

static void prepare_offsets(float *S, const Reads *r, size_t T) {
    float *D = S + 1, *index = D + T * T;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++)
            D[i * T + j] = read_at(r, i, j);
    qsort(D, T * T, sizeof *D, by_value);
    size_t n = 0;
    for (size_t k = 0; k < T * T; k++)
        if (n == 0 || D[k] != D[n - 1])
            D[n++] = D[k];
    S[0] = (float)n;
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j < T; j++) {
            float o = read_at(r, i, j);
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

static void xl_prepare(float *S, const PeConfig *pc, const size_t *pos, size_t T, size_t HS) {
    (void)pc, (void)HS;
    prepare_offsets(S, &(Reads){.pos = pos}, T);
}

/* The offsets of a layer's drawn distances: 2T - 1 of them, in the order
 * of j - i, as at consecutive positions; under --xl-rows clamped the rows
 * they read, at most T of them. */
static void xl_prepare_distances(float *S, const PeConfig *pc, const size_t *dist, size_t T,
                                 size_t N, size_t HS) {
    (void)HS;
    prepare_offsets(S, &(Reads){.dist = dist, .rows = rows_of(pc) == XL_ROWS_CLAMPED ? N : 0},
                    T);
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

/* Positions p, p + 1, ..., p + T - 1 (training without random positions,
 * and every test): then the offsets are -(T-1)..T-1, each once, and pair
 * (i, j)'s is number j - i + T - 1 of them, so query i's keys read one
 * run of consecutive offsets and the loops below need no index. */
static bool consecutive(const PeHead *hd) {
    if (hd->dist) /* offset number j - i + T - 1 too (xl_prepare_distances), unless the
                   * rows their code reads took the offsets' place */
        return rows_of(hd->pc) == XL_ROWS_OFFSET;
    for (size_t t = 0; t + 1 < hd->T; t++)
        if (hd->pos[t + 1] != hd->pos[t] + 1)
            return false;
    return true;
}

/* Keys j0..j1-1 of query i whose offsets fall in the tile: its offsets
 * from u0 hold keys j = t + u0 + i - (T - 1). */
static void run_of(const Tile *tl, size_t i, size_t T, size_t *j0, size_t *j1) {
    size_t first = tl->u0 + i; /* the tile's first offset's key, plus T - 1 */
    *j0 = first >= T - 1 ? first - (T - 1) : 0;
    size_t end = first + tl->nu; /* one past the last's, plus T - 1 */
    *j1 = end > T - 1 ? min_size(end - (T - 1), T) : 0;
}

/* Query i's terms (b) and (d) over its run of nt keys: row[t] += scale
 * sum_d a[d] rk[d][t], the sum over d in order. Along the keys, the
 * channels unrolled for 8 of them (the common head size), so each key's
 * sum stays in a register instead of a row of sums stored and reloaded
 * for every channel. */
static inline void run_score(float *restrict row, const float *restrict a,
                             const float *restrict rk, size_t ld, size_t nt, float scale,
                             size_t nd) {
    for (size_t t = 0; t < nt; t++) {
        float o = 0.0f;
        for (size_t d = 0; d < nd; d++)
            o += a[d] * rk[d * ld + t];
        row[t] += scale * o;
    }
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
    bool by_pair = pairwise(n, T), run = consecutive(hd);
    const KeyMemo *memo = xl_keys_of(&x, D, n, hd->h);
    if (by_pair && memo) {
        xl_pair_score(hd, &x, memo, index);
        return;
    }
    for (size_t u0 = 0; u0 < n; u0 += TILE_OFFSETS)
        for (size_t d0 = 0; d0 < x.HS; d0 += TILE_CHANNELS) {
            Tile tl = {u0, min_size(n - u0, TILE_OFFSETS), d0, min_size(x.HS - d0, TILE_CHANNELS)};
            const float *rk = memo ? memo->keys + u0 * x.HS + d0 * tl.nu : own;
            if (!memo)
                xl_offset_keys(own, NULL, &x, D, &tl);
            for (size_t i = 0; i < T; i++) {
                for (size_t d = 0; d < tl.nd; d++)
                    a[d] = hd->q[i * ld + d0 + d] + x.v[d0 + d];
                if (run) { /* only the run of i's keys, the same sums, no index */
                    size_t j0, j1;
                    run_of(&tl, i, T, &j0, &j1);
                    if (j0 >= j1)
                        continue;
                    size_t t0 = j0 + T - 1 - i - u0, nt = j1 - j0;
                    float *row = hd->scores + i * T + j0;
                    if (tl.nd == 8)
                        run_score(row, a, rk + t0, tl.nu, nt, hd->scale, 8);
                    else
                        run_score(row, a, rk + t0, tl.nu, nt, hd->scale, tl.nd);
                    continue;
                }
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

/* The u . k_j term's backward: dk_j += (sum_i g_ij) u, du += (sum_i g_ij) k_j. */
static void u_key(const PeHead *hd, const Head *x, size_t j, float g) {
    size_t ld = hd->ld;
    g *= hd->scale;
    for (size_t d = 0; d < x->HS; d++) {
        hd->dk[j * ld + d] += g * x->u[d];
        if (x->du)
            x->du[d] += g * hd->k[j * ld + d];
    }
}

/* The column sums of the scores' gradient, row by row (each column's in
 * order of i), a loop along the row that the compiler vectorizes, by
 * blocks of columns. */
#define U_COLUMNS 256
static void u_backward(const PeHead *hd, const Head *x) {
    size_t T = hd->T;
    float col[U_COLUMNS];
    for (size_t j0 = 0; j0 < T; j0 += U_COLUMNS) {
        size_t nj = min_size(T - j0, U_COLUMNS);
        memset(col, 0, nj * sizeof *col);
        for (size_t i = 0; i < T; i++)
            for (size_t j = 0; j < nj; j++)
                col[j] += hd->dscores[i * T + j0 + j];
        for (size_t j = 0; j < nj; j++)
            u_key(hd, x, j0 + j, col[j]);
    }
}

/* The backward's two pair loops where the positions run (consecutive):
 * the same sums in the same order as the loops by index below, over each
 * query's run of offsets only (the others add nothing there either).
 * First the keys' gradient of the tile, G (channels by offsets): G(o) +=
 * g_ij (q_i + v) over the queries in order. */
static void run_keys_grad(const PeHead *hd, const Head *x, const Tile *tl, float *G) {
    size_t T = hd->T, ld = hd->ld;
    float g[TILE_OFFSETS];
    for (size_t i = 0; i < T; i++) {
        size_t j0, j1;
        run_of(tl, i, T, &j0, &j1);
        size_t t0 = j0 + T - 1 - i - tl->u0, nt = j1 > j0 ? j1 - j0 : 0;
        for (size_t j = 0; j < nt; j++) /* 0 + g: the loops' gi[t] from 0 */
            g[j] = 0.0f + hd->scale * hd->dscores[i * T + j0 + j];
        const float *qi = hd->q + i * ld + tl->d0, *vi = x->v + tl->d0;
        for (size_t d = 0; nt && d < tl->nd; d++)
            axpy(G + d * tl->nu + t0, g, qi[d] + vi[d], nt);
    }
}

/* Then dq_i += sum_j g_ij K(i,j), and dv the same summed over i, from the
 * tile's keys rk (channels by offsets), turned so that the channels of an
 * offset are one row: the sums along j in order, the channels side by
 * side. */
static inline void run_dq_sums(float *r, const float *g, float (*k)[TILE_CHANNELS],
                               size_t nj, size_t nd) {
    for (size_t d = 0; d < nd; d++)
        r[d] = 0.0f;
    for (size_t j = 0; j < nj; j++) {
        if (g[j] == 0.0f)
            continue;
        for (size_t d = 0; d < nd; d++)
            r[d] += g[j] * k[j][d];
    }
}

static void run_dq(const PeHead *hd, const Head *x, const Tile *tl, const float *rk) {
    size_t T = hd->T, ld = hd->ld;
    float kt[TILE_OFFSETS][TILE_CHANNELS], r[TILE_CHANNELS], g[TILE_OFFSETS];
    for (size_t d = 0; d < tl->nd; d++)
        for (size_t t = 0; t < tl->nu; t++)
            kt[t][d] = rk[d * tl->nu + t];
    for (size_t i = 0; i < T; i++) {
        size_t j0, j1;
        run_of(tl, i, T, &j0, &j1);
        size_t nj = j1 > j0 ? j1 - j0 : 0;
        for (size_t j = 0; j < nj; j++)
            g[j] = hd->scale * hd->dscores[i * T + j0 + j];
        float(*k)[TILE_CHANNELS] = nj ? kt + (j0 + T - 1 - i - tl->u0) : kt;
        if (tl->nd == 8) /* 8 channels a head, the common case: a constant
                          * count, so that the sums stay in registers (in
                          * memory, each add waited on the store before it) */
            run_dq_sums(r, g, k, nj, 8);
        else
            run_dq_sums(r, g, k, nj, tl->nd);
        for (size_t d = 0; d < tl->nd; d++) {
            hd->dq[i * ld + tl->d0 + d] += r[d];
            if (x->dv)
                x->dv[tl->d0 + d] += r[d];
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
    u_backward(hd, &x);
    float own[TILE_OFFSETS * TILE_CHANNELS], G[TILE_OFFSETS * TILE_CHANNELS], r[TILE_CHANNELS];
    float gi[TILE_OFFSETS];
    bool by_pair = pairwise(n, T), run = consecutive(hd);
    const KeyMemo *memo = xl_keys_of(&x, D, n, hd->h);
    if (by_pair && memo && xl_pair_backward(hd, &x, memo, index))
        return;
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
            if (run && x.dW)
                run_keys_grad(hd, &x, &tl, G);
            for (size_t i = 0; !run && x.dW && i < T; i++) {
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
            const float *rk = memo ? memo->keys + u0 * x.HS + d0 * tl.nu : own;
            if (!memo)
                xl_offset_keys(own, x.dW ? G : NULL, &x, D, &tl);
            else if (x.dW)
                xl_memo_grad(&x, G, memo, &tl);
            if (run) {
                run_dq(hd, &x, &tl, rk);
                continue;
            }
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

/* The same score of one pair in double, from the formula: R of the
 * offset, or of the row their code reads for a drawn one under
 * --xl-rows clamped. */
static double xl_ref_score(const PeRefRow *r) {
    size_t HS = r->HS, C = HS * r->NH;
    const double *W = r->params + r->h * HS * C, *u = r->params + C * C + r->h * HS, *v = u + C;
    double at = (double)r->pj - (double)r->pi, s = 0.0;
    if (r->drawn && rows_of(r->pc) == XL_ROWS_CLAMPED)
        at = at < 0.0 ? (double)r->drawn + at : (double)r->drawn - 1.0;
    for (size_t d = 0; d < HS; d++) {
        double key = 0.0; /* (W_R R(at))_d */
        for (size_t c = 0; c < C; c++)
            key += W[d * C + c] * sinusoid_value(at, c, C, LAYOUT_SPLIT, XL_BASE);
        s += u[d] * r->k[d] + (r->q[d] + v[d]) * key;
    }
    return s / sqrt((double)HS);
}

const PeScheme pe_xl = {
    .name = "xl",
    .since = 6,
    .options = (const PeOption *const[]){&opt_rows, NULL},
    .about = "(q+u).k + (q+v).W_R R(j-i) per head: R the sinusoid of the offset, W_R, u, v "
             "learned (Transformer-XL)",
    .note = "nothing is added to the word vectors; each head scores every offset through a "
            "sinusoid of it and an untrained W_R, so the offset already shifts the scores",
    .ruoss_column = "relative",
    .ruoss_randomized = true,
    .ruoss_draw = PE_DRAW_LAYER_DISTANCES,
    .bench_place = 3,
    .bench_as_run = "--xl-rows clamped",
    .default_combine = COMBINE_ADD,
    .param_shape = xl_shape,
    .param_name = "relative_position.weight",
    .per_layer = true,
    .grad_by_head = true,
    .init = xl_init,
    .scratch = xl_scratch,
    .prepare = xl_prepare,
    .prepare_distances = xl_prepare_distances,
    .score = xl_score,
    .score_backward = xl_score_backward,
    .ref_score = xl_ref_score,
};
