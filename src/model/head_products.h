/* The six products of one attention head (attention.c), in loops made for
 * small heads: OpenBLAS packs its operands and starts a driver for every
 * call, which at a head size of 8 and 20 tokens costs more than the
 * arithmetic (bench/README.md). Here each product keeps its running sums
 * in vector registers (8 floats, GCC's vector extension) along a
 * dimension of its output, never across a sum, so the compiler needs no
 * license to reorder additions: every sum runs in index order, the same on
 * every machine and thread count. On x86-64 the loops are built twice,
 * for AVX2 and for the baseline (GCC's target_clones), and both do the
 * same operations in the same order (no fused multiply-add: ISO C's
 * -ffp-contract=off), so their numbers are the same.
 *
 * Shapes are those of one head: T tokens, head size HS, each operand a
 * block of rows at its own stride (ld), as attention reads a head's
 * columns from the wide q, k, v buffer. The outputs are written (=). */
#ifndef POSENC_HEAD_PRODUCTS_H
#define POSENC_HEAD_PRODUCTS_H

#include <stdbool.h>
#include <stddef.h>

/* The largest head and sentence the loops take: above them the products
 * go to matmul (OpenBLAS). */
#define HEAD_SMALL_MAX_HS 32
#define HEAD_SMALL_MAX_T 512

/* Whether the loops take a head of size HS over T tokens: HS a multiple of
 * 8 up to HEAD_SMALL_MAX_HS, T up to HEAD_SMALL_MAX_T. */
bool head_small(size_t T, size_t HS);
/* Whether head_qk beats OpenBLAS there too: its sums are only HS long, so
 * each 8 outputs pay a store for few products, and past 8 tokens OpenBLAS
 * was as fast or faster (bench/README.md: 80 against 108 ns at T = 8, 332
 * against 263 at T = 20, head size 8). */
bool head_small_qk(size_t T, size_t HS);

/* S (T,T) = alpha Q K^T: the scores, or datt = dout v^T. */
void head_qk(float *S, size_t lds, const float *Q, size_t ldq, const float *K, size_t ldk,
             size_t T, size_t HS, float alpha);
/* O (T,HS) = alpha A X, A (T,T): the weighted sum att v, or dq = ds k. */
void head_ax(float *O, size_t ldo, const float *A, size_t lda, const float *X, size_t ldx,
             size_t T, size_t HS, float alpha);
/* O (T,HS) = alpha A^T X: dv = att^T dout, or dk = ds^T q. */
void head_atx(float *O, size_t ldo, const float *A, size_t lda, const float *X, size_t ldx,
              size_t T, size_t HS, float alpha);

#endif
