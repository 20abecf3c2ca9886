#include "matmul.h"

#include "par.h"

/* POSENC_NO_BLAS (the WebAssembly build, `make web`: OpenBLAS has no build
 * for it) routes matmul to the plain loops below. */
#ifndef POSENC_NO_BLAS
#include <cblas.h>

static void sgemm(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                  const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                  float alpha, float beta) {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, alpha, A,
                (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

/* Products smaller than this (multiply-adds) run on the calling thread. */
#define SPLIT_MIN_WORK 100000.0
#endif

/* Model sizes are checked against INT_MAX when a model is created
 * (encoder.c), so the narrowing to BLAS's int cannot wrap here. */
void matmul(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
            const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
            float alpha, float beta) {
    if (M == 0 || N == 0)
        return;
#ifdef POSENC_NO_BLAS
    matmul_ref(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, alpha, beta);
#else
    /* With several threads, C is cut into one block of rows per thread (of
     * columns when it has few rows) and each thread runs a single-threaded
     * sgemm on its block. OpenBLAS's own threaded driver shares the packed
     * panels between its threads and hands them over with sched_yield;
     * at the model's sizes that costs more than packing twice (the toy
     * training step of bench/README.md 13% faster). Inside a parallel
     * loop (attention's heads) the product stays on its thread. */
    size_t team = (size_t)par_threads(), min = 64 * team;
    if (team > 1 && !par_in_loop() && (M >= min || N >= min) &&
        (double)M * (double)N * (double)K >= SPLIT_MIN_WORK) {
        bool by_rows = M >= min;
        size_t len = by_rows ? M : N, per = (len + team - 1) / team;
        PAR_FOR_IF(1)
        for (size_t t = 0; t < team; t++) {
            size_t o = t * per, n = o < len ? (len - o < per ? len - o : per) : 0;
            if (n && by_rows)
                sgemm(C + o * ldc, ldc, trans_a ? A + o : A + o * lda, lda, trans_a, B, ldb,
                      trans_b, n, N, K, alpha, beta);
            else if (n)
                sgemm(C + o, ldc, A, lda, trans_a, trans_b ? B + o * ldb : B + o, ldb, trans_b,
                      M, n, K, alpha, beta);
        }
        return;
    }
    sgemm(C, ldc, A, lda, trans_a, B, ldb, trans_b, M, N, K, alpha, beta);
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

/* With OpenMP, OpenBLAS's OpenMP build takes its thread count from
 * OpenMP's at every call, and so do the project's loops (par.h). */
#if defined(_OPENMP)
int matmul_threads(void) { return par_threads(); }
#elif defined(POSENC_NO_BLAS)
int matmul_threads(void) { return 1; }
#else
int matmul_threads(void) { return openblas_get_num_threads(); }
#endif
