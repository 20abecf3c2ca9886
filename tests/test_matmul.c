/* The sgemm wrapper against the plain-loop oracle, every transpose and a
 * leading dimension wider than the matrix (how attention reads one head),
 * products large enough to be split among threads; and the softmax's exp. */
#include <math.h>
#include <stdlib.h>

#include "../src/model/matmul.h"
#include "../src/model/vexp.h"
#include "../src/core/rng.h"
#include "suites.h"

static float *random_buf(Rng *r, size_t n) {
    float *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_range(r, -1.0f, 1.0f);
    return x;
}

/* One product against the oracle; padding columns must stay untouched. */
static void check_product(Rng *r, size_t M, size_t N, size_t K, bool ta, bool tb, size_t pad,
                          float beta, const char *what) {
    size_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    float *A = random_buf(r, (ta ? K : M) * lda);
    float *B = random_buf(r, (tb ? N : K) * ldb);
    float *C1 = random_buf(r, M * ldc);
    float *C2 = malloc(M * ldc * sizeof *C2);
    ck_assert_ptr_nonnull(C2);
    for (size_t i = 0; i < M * ldc; i++)
        C2[i] = C1[i];
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
    ck_assert_msg(worst <= 1e-5 * (double)K, "%s (%zux%zux%zu ta=%d tb=%d): max difference "
                  "%.3g", what, M, N, K, ta, tb, worst);
    free(A);
    free(B);
    free(C1);
    free(C2);
}

START_TEST(matmul_matches_reference) {
    Rng r;
    rng_seed(&r, 7);
    for (int trial = 0; trial < 40; trial++) {
        size_t M = 1 + rng_below(&r, 40), N = 1 + rng_below(&r, 40), K = 1 + rng_below(&r, 70);
        check_product(&r, M, N, K, trial & 1, (trial >> 1) & 1, rng_below(&r, 5),
                      (float)(trial % 3) * 0.5f, "small");
    }
}
END_TEST

START_TEST(split_products_match_reference) {
    /* with two or more threads these are cut into blocks of rows (the
     * first) or of columns (the second), sizes that do not divide evenly */
    Rng r;
    rng_seed(&r, 8);
    for (int trial = 0; trial < 8; trial++) {
        check_product(&r, 301, 37, 29, trial & 1, (trial >> 1) & 1, 3, 0.5f * (trial >> 2),
                      "split by rows");
        check_product(&r, 21, 263, 41, trial & 1, (trial >> 1) & 1, 2, 0.5f * (trial >> 2),
                      "split by columns");
    }
}
END_TEST

START_TEST(exp_is_expf_to_an_ulp) {
    /* SLEEF's exp (where the CPU has AVX2) is within 1 ulp of the exact
     * value, as glibc's expf is: within 2 ulp of each other; and a value
     * does not depend on its place in the row (the tail of a row that is
     * not a multiple of 8 goes through the same function). */
    Rng r;
    rng_seed(&r, 9);
    float x[133], y[133], z[140];
    for (size_t i = 0; i < 133; i++)
        x[i] = y[i] = rng_range(&r, -90.0f, 4.0f);
    float shift = 1.5f;
    exp_shifted(y, 133, shift);
    for (size_t i = 0; i < 133; i++) {
        float want = expf(x[i] - shift);
        ck_assert_msg(fabsf(y[i] - want) <= 2.0f * (nextafterf(want, INFINITY) - want),
                      "exp(%.9g) = %.9g, expf gives %.9g", (double)(x[i] - shift),
                      (double)y[i], (double)want);
    }
    for (size_t off = 1; off < 8; off++) {
        for (size_t i = 0; i < off; i++)
            z[i] = 0.0f;
        for (size_t i = 0; i < 133; i++)
            z[off + i] = x[i];
        exp_shifted(z, off + 133, shift);
        for (size_t i = 0; i < 133; i++)
            ck_assert_msg(z[off + i] == y[i], "entry %zu moved by %zu: %.9g, in place %.9g", i,
                          off, (double)z[off + i], (double)y[i]);
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
    tcase_add_test(tc, split_products_match_reference);
    tcase_add_test(tc, exp_is_expf_to_an_ulp);
    suite_add_tcase(s, tc);
    return s;
}
