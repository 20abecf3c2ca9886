#include "matmul.h"

#include <stdlib.h>

#include "par.h"

/* POSENC_NO_BLAS (the WebAssembly build, `make web`: OpenBLAS has no build
 * for it) routes matmul to matmul_loops below. */
#ifndef POSENC_NO_BLAS
#include <cblas.h>

static void sgemm(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                  const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                  float alpha, float beta) {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, alpha, A,
                (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* Products smaller than this (multiply-adds) run as one call. OpenBLAS
 * runs them on the calling thread: its own threading starts above
 * 65536 x 4 multiply-adds (interface/gemm.c). */
#define SPLIT_MIN_WORK 100000.0
/* The larger products are cut in two halves: of rows when they have this
 * many, or more rows than columns; of columns otherwise. */
#define SPLIT_MIN_ROWS 128
#endif

static bool counting;
static double counted;

void matmul_counting(bool on) {
    counting = on;
    counted = 0.0;
}

void matmul_count(size_t M, size_t N, size_t K) {
    if (!counting)
        return;
    double flops = 2.0 * (double)M * (double)N * (double)K;
    /* attention's heads count from their threads */
#ifdef _OPENMP
#pragma omp atomic
#endif
    counted += flops;
}

double matmul_counted(void) { return counted; }

/* Model sizes are checked against INT_MAX when a model is created
 * (encoder.c), so the narrowing to BLAS's int cannot wrap here. */
void matmul(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
            const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
            float alpha, float beta) {
    if (M == 0 || N == 0)
        return;
    matmul_count(M, N, K);
#ifdef POSENC_NO_BLAS
    matmul_loops(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, alpha, beta);
#else
    /* A large product is cut in two halves, each a single-threaded sgemm,
     * whatever the number of threads: OpenBLAS rounds a block of rows
     * differently from the same rows inside a larger call (its kernels take
     * the edges with other code), so a cut that followed the threads would
     * make the numbers follow them too. With two fixed halves, one thread
     * or eight give the same model, bit for bit (tests/test_train.c); more
     * blocks would keep more threads busy, but each block packs the shared
     * operand again, and eight blocks cost 8 to 12% on one and two threads
     * (bench/README.md). OpenBLAS's own threaded driver is never used: a
     * call inside a parallel loop runs on its thread (omp_in_parallel),
     * and one outside a loop is under its threshold or on one thread.
     * Inside a parallel loop already (attention's heads) the product stays
     * whole on its thread. */
    if (par_in_loop() || (double)M * (double)N * (double)K < SPLIT_MIN_WORK) {
        sgemm(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, alpha, beta);
        return;
    }
    bool by_rows = M >= SPLIT_MIN_ROWS || M >= N;
    size_t len = by_rows ? M : N, blocks = len > 1 ? 2 : 1, per = (len + 1) / blocks;
    /* with one thread the loop is no parallel region, and OpenBLAS, seeing
     * one OpenMP thread, stays on it */
    PAR_FOR_IF(par_threads() > 1)
    for (size_t t = 0; t < blocks; t++) {
        size_t o = t * per, n = len - o < per ? len - o : per;
        if (by_rows)
            sgemm(C + o * ldc, ldc, trans_a ? A + o : A + o * lda, lda, trans_a, B, ldb,
                  trans_b, n, N, K, alpha, beta);
        else
            sgemm(C + o, ldc, A, lda, trans_a, trans_b ? B + o * ldb : B + o, ldb, trans_b, M,
                  n, K, alpha, beta);
    }
#endif
}

void matmul_ref(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                float alpha, float beta) {
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            double acc = 0.0;
            for (size_t k = 0; k < K; k++) {
                float a = trans_a ? A[k * lda + i] : A[i * lda + k];
                float b = trans_b ? B[j * ldb + k] : B[k * ldb + j];
                acc += (double)a * b;
            }
            /* BLAS does not read C when beta is 0, so neither do we:
             * C may hold garbage or NaN. */
            double prev = beta == 0.0f ? 0.0 : (double)beta * C[i * ldc + j];
            C[i * ldc + j] = (float)(alpha * acc + prev);
        }
    }
}

/* c += a b, n floats: the inner loop of matmul_loops, with restrict so
 * that the compiler may vectorize it (wasm's SIMD, or SSE natively)
 * without checking that c and b overlap. */
static void axpy(float *restrict c, const float *restrict b, float a, size_t n) {
    for (size_t j = 0; j < n; j++)
        c[j] += a * b[j];
}

void matmul_loops(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                  const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                  float alpha, float beta) {
    if (M == 0 || N == 0)
        return;
    /* Row i of C is a sum of rows of B, k by k: every inner loop runs
     * along a row, contiguous in memory. A transposed B is copied upright
     * first (the model's linear layers are all x W^T: this is the common
     * case); without the memory for the copy, the oracle's loops do. */
    float *upright = NULL;
    if (trans_b) {
        upright = malloc(K * N * sizeof *upright);
        if (!upright) {
            matmul_ref(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, alpha, beta);
            return;
        }
        for (size_t j = 0; j < N; j++)
            for (size_t k = 0; k < K; k++)
                upright[k * N + j] = B[j * ldb + k];
        B = upright;
        ldb = N;
    }
    for (size_t i = 0; i < M; i++) {
        float *c = C + i * ldc;
        for (size_t j = 0; j < N; j++) /* as BLAS: C is not read when beta is 0 */
            c[j] = beta == 0.0f ? 0.0f : beta * c[j];
        for (size_t k = 0; k < K; k++)
            axpy(c, B + k * ldb, alpha * (trans_a ? A[k * lda + i] : A[i * lda + k]), N);
    }
    free(upright);
}
