#include "matmul.h"

#include "par.h"

/* POSENC_NO_BLAS (the WebAssembly build, `make web`: OpenBLAS has no build
 * for it) routes matmul to the plain loops below; the native build is
 * untouched. */
#ifndef POSENC_NO_BLAS
#include <cblas.h>
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
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, (int)M, (int)N, (int)K, alpha, A,
                (int)lda, B, (int)ldb, beta, C, (int)ldc);
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
