#include "vexp.h"

#include <math.h>
#include <string.h>

#if defined(POSENC_SLEEF) && defined(__x86_64__)
#include <immintrin.h>

/* sleef.h declares its AVX2 functions only when the whole file is built
 * for AVX, which would let the compiler use AVX anywhere in it; only the
 * function below is built for AVX2, and it runs only after the check in
 * exp_vectorized. The declaration, as sleef.h gives it, with the target
 * that tells the compiler its argument is passed in an AVX register: */
__attribute__((target("avx2,fma"))) __m256 Sleef_expf8_u10avx2(__m256 x);

__attribute__((target("avx2,fma"))) static void exp_avx2(float *x, size_t n, float shift) {
    __m256 s = _mm256_set1_ps(shift);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), s)));
    if (i < n) {
        /* the tail through the same function, so that an entry's value
         * does not depend on where in the row it sits */
        float tail[8] = {0};
        memcpy(tail, x + i, (n - i) * sizeof *x);
        _mm256_storeu_ps(tail, Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), s)));
        memcpy(x + i, tail, (n - i) * sizeof *x);
    }
}

bool exp_vectorized(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
bool exp_vectorized(void) { return false; }
#endif

static bool counting;
static double counted;

void exp_counting(bool on) {
    counting = on;
    counted = 0.0;
}

double exp_counted(void) { return counted; }

void exp_shifted(float *x, size_t n, float shift) {
    if (counting) {
        /* the heads' softmaxes count from their threads */
#ifdef _OPENMP
#pragma omp atomic
#endif
        counted += (double)n;
    }
#if defined(POSENC_SLEEF) && defined(__x86_64__)
    if (exp_vectorized()) {
        exp_avx2(x, n, shift);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++)
        x[i] = expf(x[i] - shift);
}
