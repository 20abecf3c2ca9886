/* The sgemm wrapper against the plain-loop oracle, every transpose and a
 * leading dimension wider than the matrix (how attention reads one head),
 * products large enough to be split among threads; the softmax's exp; and
 * the loops around the products, which give the plain serial loop's
 * numbers bit for bit with any number of threads; and the kernels the
 * programs choose. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../src/model/head_products.h"
#include "../src/model/layers.h"
#include "../src/model/matmul.h"
#include "../src/model/train.h"
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

typedef void Product(float *C, size_t ldc, const float *A, size_t lda, bool trans_a,
                     const float *B, size_t ldb, bool trans_b, size_t M, size_t N, size_t K,
                     float alpha, float beta);

/* One product (matmul, or the web build's matmul_loops) against the
 * oracle; padding columns must stay untouched. */
static void check_with(Product *f, Rng *r, size_t M, size_t N, size_t K, bool ta, bool tb,
                       size_t pad, float beta, const char *what) {
    size_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    float *A = random_buf(r, (ta ? K : M) * lda);
    float *B = random_buf(r, (tb ? N : K) * ldb);
    float *C1 = random_buf(r, M * ldc);
    float *C2 = malloc(M * ldc * sizeof *C2);
    ck_assert_ptr_nonnull(C2);
    for (size_t i = 0; i < M * ldc; i++)
        C2[i] = C1[i];
    f(C1, ldc, A, lda, ta, B, ldb, tb, M, N, K, 0.75f, beta);
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

static void check_product(Rng *r, size_t M, size_t N, size_t K, bool ta, bool tb, size_t pad,
                          float beta, const char *what) {
    check_with(matmul, r, M, N, K, ta, tb, pad, beta, what);
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

/* The WebAssembly page's product (matmul_loops), every transpose, padded
 * strides, beta 0 over NaN (C must not be read then). */
START_TEST(web_loops_match_reference) {
    Rng r;
    rng_seed(&r, 9);
    for (int trial = 0; trial < 40; trial++) {
        size_t M = 1 + rng_below(&r, 40), N = 1 + rng_below(&r, 40), K = 1 + rng_below(&r, 70);
        check_with(matmul_loops, &r, M, N, K, trial & 1, (trial >> 1) & 1, rng_below(&r, 5),
                   (float)(trial % 3) * 0.5f, "plain loops");
    }
    float C[4] = {NAN, NAN, NAN, NAN}, A[2] = {1.0f, 2.0f}, B[2] = {3.0f, 4.0f};
    matmul_loops(C, 2, A, 1, false, B, 2, false, 2, 2, 1, 1.0f, 0.0f);
    ck_assert_float_eq(C[0], 3.0f);
    ck_assert_float_eq(C[3], 8.0f);
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

/* LayerNorm's backward and a bias's gradient as plain serial loops: every
 * column summed in row order, every row's means in column order. */
static void serial_backward(float *dinp, float *dw, float *db, float *dbias, const float *dout,
                            const float *inp, const float *w, const float *mean,
                            const float *rstd, size_t BT, size_t C) {
    for (size_t i = 0; i < BT; i++) {
        const float *dy = dout + i * C, *x = inp + i * C;
        float m = mean[i], s = rstd[i], g_mean = 0.0f, gx_mean = 0.0f;
        for (size_t c = 0; c < C; c++) {
            dw[c] += dy[c] * ((x[c] - m) * s);
            db[c] += dy[c];
            dbias[c] += dy[c];
            float xhat = (x[c] - m) * s, g = dy[c] * w[c];
            g_mean += g;
            gx_mean += g * xhat;
        }
        g_mean /= (float)C;
        gx_mean /= (float)C;
        for (size_t c = 0; c < C; c++) {
            float xhat = (x[c] - m) * s;
            dinp[i * C + c] += s * (dy[c] * w[c] - g_mean - xhat * gx_mean);
        }
    }
}

START_TEST(loops_give_the_serial_numbers) {
    /* 301 rows (not a multiple of the 8 taken side by side) of 72 columns
     * (not a multiple of the 16 summed in registers), on 1, 2 and 3
     * threads: enough work that the loops run in parallel */
    enum { BT = 301, C = 72 };
    Rng r;
    rng_seed(&r, 10);
    float *dout = random_buf(&r, BT * C), *inp = random_buf(&r, BT * C);
    float *w = random_buf(&r, C), *mean = random_buf(&r, BT), *rstd = random_buf(&r, BT);
    float *start = random_buf(&r, BT * C + 3 * C);
    float *wl = random_buf(&r, C * C); /* a linear layer's (C,C) weights */
    size_t n = BT * C + 3 * C; /* dinp, then LayerNorm's dw and db, the bias's gradient */
    float *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    float *scratch = malloc(BT * C * sizeof *scratch), *dwl = malloc(C * C * sizeof *dwl);
    ck_assert(want && got && scratch && dwl);
#ifdef _OPENMP
    int team = omp_get_max_threads();
#endif
    memcpy(want, start, n * sizeof *want);
    serial_backward(want, want + BT * C, want + BT * C + C, want + BT * C + 2 * C, dout, inp, w,
                    mean, rstd, BT, C);
    for (int threads = 1; threads <= 3; threads++) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        memcpy(got, start, n * sizeof *got);
        layernorm_backward(got, got + BT * C, got + BT * C + C, dout, inp, w, mean, rstd, BT, C,
                           true);
        memset(dwl, 0, C * C * sizeof *dwl);
        linear_backward(scratch, dwl, got + BT * C + 2 * C, dout, inp, wl, BT, C, C, false);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(memcmp(&got[i], &want[i], sizeof *got) == 0,
                          "%d threads: entry %zu is %.9g, the serial loop's %.9g", threads, i,
                          (double)got[i], (double)want[i]);
    }
#ifdef _OPENMP
    omp_set_num_threads(team);
#endif
    free(dout), free(inp), free(w), free(mean), free(rstd), free(start), free(wl);
    free(want), free(got), free(scratch), free(dwl);
}
END_TEST

/* The pages' digits on a learner's machine, with nothing exported: the
 * programs choose the Haswell kernels the docs are made with wherever the
 * CPU has AVX2 and FMA (OpenBLAS alone picks Cooperlake's on this
 * machine's AMD EPYC, whose sums round otherwise), and a kernel set the
 * user asks for stands. The digits are README.md's (its --csv block) and
 * docs/maintainers.md's (block demo-kernels). */
START_TEST(the_docs_kernels_are_the_default) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("kernels: no AVX2 here, OpenBLAS's own kernels stand (not tested)\n");
        return;
    }
    const char *args = "--pe none --csv 'the cat sat on the mat' 'the mat sat on the cat'";
    unsetenv("OPENBLAS_CORETYPE");
    Run r = run("demo_order", args);
    ck_assert_msg(r.status == 0 && strstr(r.out, "none,3.576279e-07,1.000000000"),
                  "with nothing exported: %s%s", r.out, r.err);
    run_free(&r);
    setenv("OPENBLAS_CORETYPE", "Nehalem", 1);
    r = run("demo_order", "--pe none --csv");
    ck_assert_msg(r.status == 0 && strstr(r.out, "none,2.384186e-07,1.000000000"),
                  "with OPENBLAS_CORETYPE=Nehalem: %s%s", r.out, r.err);
    run_free(&r);
}
END_TEST

/* A head's product written plainly, each sum in index order from 0, then
 * times alpha: the order head_products.h promises. transA: A^T X; K null:
 * A X; else Q K^T (X is then Q, A the keys). */
static float plain_entry(const float *A, size_t lda, bool trans, const float *X, size_t ldx,
                         const float *K, size_t ldk, size_t i, size_t c, size_t T, size_t HS,
                         float alpha) {
    float s = 0.0f;
    if (K)
        for (size_t m = 0; m < HS; m++)
            s += X[i * ldx + m] * K[c * ldk + m];
    else
        for (size_t j = 0; j < T; j++)
            s += (trans ? A[j * lda + i] : A[i * lda + j]) * X[j * ldx + c];
    return s * alpha;
}

/* The small heads' loops give the plain loop's numbers bit for bit (the
 * sums in order, on either clone: no reordering, no fused multiply-add),
 * within rounding of the double oracle, and touch nothing past their
 * output's columns; at every head size they take and sentence lengths
 * around the blocks of 8 and the tiles of 4 and 2 rows. */
START_TEST(small_heads_sum_in_order) {
    static const size_t Ts[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 20, 33, 50, 128, 512};
    Rng r;
    rng_seed(&r, 7);
    ck_assert(!head_small(20, 12) && !head_small(20, 64) && !head_small(513, 8));
    for (size_t hs = 8; hs <= HEAD_SMALL_MAX_HS; hs += 8)
        for (size_t t = 0; t < sizeof Ts / sizeof *Ts; t++) {
            size_t T = Ts[t], HS = hs, ld = 3 * HS + 5, lda = T + 3, ldo = HS + 4;
            ck_assert(head_small(T, HS));
            float *Q = random_buf(&r, T * ld), *A = random_buf(&r, T * lda);
            float *S = random_buf(&r, T * lda), *O = random_buf(&r, T * ldo);
            const float *K = Q + HS, *X = Q + 2 * HS;
            head_qk(S, lda, Q, ld, K, ld, T, HS, 0.35f);
            /* ck_check: a check for each entry, a million in all */
            for (size_t i = 0; i < T; i++)
                for (size_t j = 0; j < T; j++)
                    ck_check(S[i * lda + j] ==
                                 plain_entry(NULL, 0, false, Q, ld, K, ld, i, j, T, HS, 0.35f),
                             "head_qk T=%zu HS=%zu (%zu,%zu)", T, HS, i, j);
            for (int trans = 0; trans < 2; trans++) {
                float pad = O[HS];
                (trans ? head_atx : head_ax)(O, ldo, A, lda, X, ld, T, HS, 1.25f);
                ck_assert_float_eq(O[HS], pad);
                for (size_t i = 0; i < T; i++) {
                    double want[HEAD_SMALL_MAX_HS];
                    for (size_t c = 0; c < HS; c++) {
                        want[c] = 0.0;
                        for (size_t j = 0; j < T; j++)
                            want[c] += 1.25 * (double)(trans ? A[j * lda + i] : A[i * lda + j]) *
                                       X[j * ld + c];
                        float got = O[i * ldo + c];
                        ck_check(got == plain_entry(A, lda, trans, X, ld, NULL, 0, i, c, T, HS,
                                                    1.25f),
                                 "head_a%sx T=%zu HS=%zu (%zu,%zu)", trans ? "t" : "", T, HS, i,
                                 c);
                        ck_check(fabs(got - want[c]) <= 1e-5 * (double)T,
                                 "head_a%sx against the oracle: %g, %g", trans ? "t" : "", got,
                                 want[c]);
                    }
                }
            }
            free(Q), free(A), free(S), free(O);
        }
}
END_TEST

/* make floor's count (bench/floor.c) is the products' arithmetic from
 * their shapes: a forward pass of B sentences of T tokens counts, per
 * layer, q, k, v and the output projection (4 of C x C), the feed-forward
 * (C x F twice), each head's scores and weighted sum (T x T x HS twice a
 * head, 2 T T C a sentence), then the classifier (C x classes), each 2
 * flops a multiply-add; and counts nothing once counting is off. */
START_TEST(the_count_is_the_products_of_the_shapes) {
    const size_t B = 3, T = 5, V = 12, C = 16, NH = 2, F = 32, L = 2, K = 3;
    Config cfg;
    config_default(&cfg, V, "sinusoidal");
    cfg.d_model = C, cfg.n_heads = NH, cfg.d_ff = F, cfg.n_layers = L;
    cfg.max_len = T, cfg.n_classes = K;
    Model m;
    Acts a;
    Err e;
    ck_assert_int_eq(model_create(&m, &cfg, &e), 0);
    ck_assert_int_eq(acts_create(&a, &m, B, T, &e), 0);
    int ids[3 * 5];
    size_t lens[3] = {T, T, T};
    for (size_t i = 0; i < B * T; i++)
        ids[i] = 2 + (int)(i % (V - 2));
    matmul_counting(true);
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, B, T, &e), 0);
    double BT = (double)(B * T);
    double per_layer = 2.0 * BT * (4.0 * C * C + 2.0 * C * F) + 2.0 * 2.0 * BT * T * C;
    double want = (double)L * per_layer + 2.0 * (double)B * C * K;
    ck_assert_double_eq(matmul_counted(), want);
    matmul_counting(false);
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, B, T, &e), 0);
    ck_assert_double_eq(matmul_counted(), 0.0);
    acts_free(&a);
    model_free(&m);
}
END_TEST

Suite *suite_matmul(void) {
    Suite *s = suite_create("matmul");
    TCase *tc = tcase_create("sgemm");
    tcase_add_test(tc, matmul_matches_reference);
    tcase_add_test(tc, web_loops_match_reference);
    tcase_add_test(tc, beta_zero_ignores_nan_in_output);
    tcase_add_test(tc, split_products_match_reference);
    tcase_add_test(tc, exp_is_expf_to_an_ulp);
    tcase_add_test(tc, loops_give_the_serial_numbers);
    tcase_add_test(tc, the_docs_kernels_are_the_default);
    tcase_add_test(tc, the_count_is_the_products_of_the_shapes);
    tcase_add_test(tc, small_heads_sum_in_order);
    suite_add_tcase(s, tc);
    return s;
}
