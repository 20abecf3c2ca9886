#include "head_products.h"

#include <string.h>

#include "matmul.h"

/* Eight floats, one AVX2 register (two SSE ones on the baseline). */
typedef float v8 __attribute__((vector_size(32)));
#define LANES 8

/* Built for AVX2 and for the baseline, chosen when the program loads
 * (GCC's ifunc); the same numbers either way (head_products.h). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif
/* The tiles below take their sizes as constants, so that each copy keeps
 * its sums in registers: inlined into each clone, whatever the compiler
 * would decide. */
#define TILE static inline __attribute__((always_inline))

/* The first n (at most 8) lanes of *v, times alpha, to p. (Vectors go by
 * pointer: passed by value they would take the AVX calling convention in
 * one clone and not in the other.) */
TILE void store8(float *p, const v8 *v, float alpha, size_t n) {
    v8 out = *v * alpha;
    if (n == LANES) /* a constant size: one store, not a call */
        memcpy(p, &out, sizeof out);
    else
        for (size_t l = 0; l < n; l++)
            p[l] = out[l];
}

bool head_small(size_t T, size_t HS) {
    return HS % LANES == 0 && HS <= HEAD_SMALL_MAX_HS && T >= 1 && T <= HEAD_SMALL_MAX_T;
}

bool head_small_qk(size_t T, size_t HS) { return head_small(T, HS) && T <= LANES; }

/* ---- S = alpha Q K^T: along S's rows, from K turned (HS rows of T) ---- */

/* R rows of S from row i: each block of 8 keys summed over the channels
 * c = 0..HS-1 in order. */
TILE void qk_tile(float *S, size_t lds, const float *Q, size_t ldq, const v8 *kt, size_t blocks,
                  size_t i, size_t T, const size_t HS, float alpha, const size_t R) {
    for (size_t b = 0; b < blocks; b++) {
        v8 acc[4] = {{0}};
        for (size_t c = 0; c < HS; c++) {
            v8 kc = kt[c * blocks + b];
            for (size_t r = 0; r < R; r++)
                acc[r] += Q[(i + r) * ldq + c] * kc;
        }
        size_t n = T - b * LANES < LANES ? T - b * LANES : LANES;
        for (size_t r = 0; r < R; r++)
            store8(S + (i + r) * lds + b * LANES, &acc[r], alpha, n);
    }
}

/* S's rows, four at a time then one, for a head size HS made a constant
 * (head_qk's switch), so that the sums over the channels unroll. */
TILE void qk_rows(float *S, size_t lds, const float *Q, size_t ldq, const v8 *kt, size_t blocks,
                  size_t T, float alpha, const size_t HS) {
    size_t i = 0;
    for (; i + 4 <= T; i += 4)
        qk_tile(S, lds, Q, ldq, kt, blocks, i, T, HS, alpha, 4);
    for (; i < T; i++)
        qk_tile(S, lds, Q, ldq, kt, blocks, i, T, HS, alpha, 1);
}

CLONES void head_qk(float *S, size_t lds, const float *Q, size_t ldq, const float *K, size_t ldk,
                    size_t T, size_t HS, float alpha) {
    matmul_count(T, T, HS);
    size_t blocks = (T + LANES - 1) / LANES;
    /* K turned: channel c's row holds key j's value in lane j % 8 of block
     * j / 8, the lanes past T zero */
    v8 kt[HEAD_SMALL_MAX_HS * HEAD_SMALL_MAX_T / LANES];
    float *ktf = (float *)kt;
    for (size_t c = 0; c < HS; c++) {
        float *row = ktf + c * blocks * LANES;
        for (size_t j = 0; j < T; j++)
            row[j] = K[j * ldk + c];
        for (size_t j = T; j < blocks * LANES; j++)
            row[j] = 0.0f;
    }
    switch (HS / LANES) {
    case 1:
        qk_rows(S, lds, Q, ldq, kt, blocks, T, alpha, 8);
        break;
    case 2:
        qk_rows(S, lds, Q, ldq, kt, blocks, T, alpha, 16);
        break;
    case 3:
        qk_rows(S, lds, Q, ldq, kt, blocks, T, alpha, 24);
        break;
    default:
        qk_rows(S, lds, Q, ldq, kt, blocks, T, alpha, 32);
        break;
    }
}

/* ---- O = alpha A X and alpha A^T X: along O's rows, HS / 8 registers ---- */

/* R rows of O from row i, NV registers wide (HS = 8 NV), summed over
 * j = 0..T-1 in order; A's entry for output row o and term j is
 * A[o * ar + j * ac] (A: ar = lda, ac = 1; A^T: ar = 1, ac = lda). */
TILE void ax_tile(float *O, size_t ldo, const float *A, size_t ar, size_t ac, const float *X,
                  size_t ldx, size_t i, size_t T, float alpha, const size_t R, const size_t NV) {
    v8 acc[4][4] = {{{0}}};
    for (size_t j = 0; j < T; j++)
        for (size_t v = 0; v < NV; v++) {
            v8 x;
            memcpy(&x, X + j * ldx + v * LANES, sizeof x);
            for (size_t r = 0; r < R; r++)
                acc[r][v] += A[(i + r) * ar + j * ac] * x;
        }
    for (size_t r = 0; r < R; r++)
        for (size_t v = 0; v < NV; v++)
            store8(O + (i + r) * ldo + v * LANES, &acc[r][v], alpha, LANES);
}

/* Every row of O, four or two at a time (as many sums as registers allow),
 * then one at a time. */
TILE void ax_rows(float *O, size_t ldo, const float *A, size_t ar, size_t ac, const float *X,
                  size_t ldx, size_t T, float alpha, const size_t NV) {
    const size_t R = NV <= 2 ? 4 : 2;
    size_t i = 0;
    for (; i + R <= T; i += R)
        ax_tile(O, ldo, A, ar, ac, X, ldx, i, T, alpha, R, NV);
    for (; i < T; i++)
        ax_tile(O, ldo, A, ar, ac, X, ldx, i, T, alpha, 1, NV);
}

TILE void ax(float *O, size_t ldo, const float *A, size_t ar, size_t ac, const float *X,
             size_t ldx, size_t T, size_t HS, float alpha) {
    matmul_count(T, HS, T);
    switch (HS / LANES) {
    case 1:
        ax_rows(O, ldo, A, ar, ac, X, ldx, T, alpha, 1);
        break;
    case 2:
        ax_rows(O, ldo, A, ar, ac, X, ldx, T, alpha, 2);
        break;
    case 3:
        ax_rows(O, ldo, A, ar, ac, X, ldx, T, alpha, 3);
        break;
    default:
        ax_rows(O, ldo, A, ar, ac, X, ldx, T, alpha, 4);
        break;
    }
}

CLONES void head_ax(float *O, size_t ldo, const float *A, size_t lda, const float *X, size_t ldx,
                    size_t T, size_t HS, float alpha) {
    ax(O, ldo, A, lda, 1, X, ldx, T, HS, alpha);
}

CLONES void head_atx(float *O, size_t ldo, const float *A, size_t lda, const float *X,
                     size_t ldx, size_t T, size_t HS, float alpha) {
    ax(O, ldo, A, 1, lda, X, ldx, T, HS, alpha);
}
