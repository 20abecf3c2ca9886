/* The one matrix product of the project. Every matmul of the model goes
 * through matmul(), a wrapper over OpenBLAS's cblas_sgemm that cuts a large
 * product into two halves, one per thread, the same halves whatever the
 * thread count, so that the numbers do not depend on it (matmul.c says
 * why); matmul_ref() is the same product in plain loops (double
 * accumulators), kept as the test oracle. Built with -DPOSENC_NO_BLAS (the
 * WebAssembly page), matmul() calls matmul_loops() instead, and nothing
 * includes cblas.h.
 *
 *   C (M,N) = alpha * op(A) op(B) + beta * C
 *
 * Row-major; op(X) is X, or X^T when its trans flag is set. A is (M,K) as
 * stored, or (K,M) when transposed; B is (K,N), or (N,K) when transposed.
 * The leading dimensions (row strides) let a call read one head's columns
 * out of a wider buffer without copying. */
#ifndef POSENC_MATMUL_H
#define POSENC_MATMUL_H

#include <stdbool.h>
#include <stddef.h>

void matmul(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
            const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
            float alpha, float beta);

/* The arithmetic of the products, counted from their shapes (2 M N K a
 * call) while matmul_counting(true) holds: what make floor divides by the
 * machine's peak (bench/floor.c). A kernel that does a product's work by
 * other means adds it with matmul_count, so that the count stays the
 * products' whatever computes them. Off by default, and then free. */
void matmul_counting(bool on);
void matmul_count(size_t M, size_t N, size_t K);
double matmul_counted(void); /* floating-point operations since counting began */

/* The product in float accumulators, in the loop order that reads memory
 * in rows and that a compiler vectorizes: the WebAssembly build's matmul,
 * built everywhere so that the native tests check it against the oracle. */
void matmul_loops(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                  const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                  float alpha, float beta);

void matmul_ref(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                float alpha, float beta);

#endif
