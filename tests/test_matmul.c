/* The sgemm wrapper against the plain-loop oracle, every transpose and a
 * leading dimension wider than the matrix (how attention reads one head). */
#include <math.h>
#include <stdlib.h>

#include "../src/model/matmul.h"
#include "../src/core/rng.h"
#include "suites.h"

static float *random_buf(Rng *r, size_t n) {
    float *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_range(r, -1.0f, 1.0f);
    return x;
}

START_TEST(matmul_matches_reference) {
    Rng r;
    rng_seed(&r, 7);
    for (int trial = 0; trial < 40; trial++) {
        size_t M = 1 + rng_below(&r, 40), N = 1 + rng_below(&r, 40), K = 1 + rng_below(&r, 70);
        bool ta = trial & 1, tb = (trial >> 1) & 1;
        size_t pad = rng_below(&r, 5);
        size_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
        float *A = random_buf(&r, (ta ? K : M) * lda);
        float *B = random_buf(&r, (tb ? N : K) * ldb);
        float *C1 = random_buf(&r, M * ldc);
        float *C2 = malloc(M * ldc * sizeof *C2);
        ck_assert_ptr_nonnull(C2);
        for (size_t i = 0; i < M * ldc; i++)
            C2[i] = C1[i];
        float beta = (trial % 3) * 0.5f;
        matmul(C1, ldc, A, lda, ta, B, ldb, tb, M, N, K, 0.75f, beta);
        matmul_ref(C2, ldc, A, lda, ta, B, ldb, tb, M, N, K, 0.75f, beta);
        double worst = 0.0;
        for (size_t i = 0; i < M; i++)
            for (size_t j = 0; j < ldc; j++) {
                double d = fabs((double)C1[i * ldc + j] - C2[i * ldc + j]);
                /* columns past N are padding: neither may touch them */
                if (j >= N)
                    ck_assert_float_eq(C1[i * ldc + j], C2[i * ldc + j]);
                worst = d > worst ? d : worst;
            }
        ck_assert_msg(worst <= 1e-5 * (double)K, "trial %d (%zux%zux%zu ta=%d tb=%d): max "
                      "difference %.3g", trial, M, N, K, ta, tb, worst);
        free(A);
        free(B);
        free(C1);
        free(C2);
    }
}
END_TEST

START_TEST(beta_zero_ignores_nan_in_output) {
    /* BLAS does not read C when beta is 0; the model relies on it to write
     * into uninitialized buffers. */
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4] = {NAN, NAN, NAN, NAN};
    matmul(C, 2, A, 2, false, B, 2, false, 2, 2, 2, 1.0f, 0.0f);
    for (int i = 0; i < 4; i++)
        ck_assert_float_eq(C[i], A[i]);
}
END_TEST

Suite *suite_matmul(void) {
    Suite *s = suite_create("matmul");
    TCase *tc = tcase_create("sgemm");
    tcase_add_test(tc, matmul_matches_reference);
    tcase_add_test(tc, beta_zero_ignores_nan_in_output);
    suite_add_tcase(s, tc);
    return s;
}
