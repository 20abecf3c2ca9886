/* Counts a program's matrix products: loaded before OpenBLAS
 * (LD_PRELOAD=build/sgemm_count.so), it stands in for cblas_sgemm, calls
 * OpenBLAS's, and at exit prints to stderr how many calls there were, how
 * many floating-point operations they asked for (2 M N K each) and the
 * time spent inside them, split into small products (fewer than
 * SMALL_WORK multiply-adds: attention's per-head products, whose cost is
 * the call itself) and the others. The numbers of calls and operations
 * are exact and the same every run; the times are the clock's (about 40
 * nanoseconds of it per call are the counting). bench/README.md ("Where a
 * cell's time goes") shows what it measured.
 *
 * Not linked into anything: the programs are measured as they are. A
 * program that restarts itself to choose OpenBLAS's kernels
 * (src/model/kernels.h) keeps LD_PRELOAD, so the counts are the second
 * start's, the one that runs. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <cblas.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SMALL_WORK 20000.0

typedef void SgemmFn(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,
                     const enum CBLAS_TRANSPOSE, const blasint, const blasint, const blasint,
                     const float, const float *, const blasint, const float *, const blasint,
                     const float, float *, const blasint);

/* counts and nanoseconds, [0] small and [1] large; atomic because the
 * model's two halves of a large product run on two threads */
static atomic_ullong calls[2], madds[2], nanos[2];

static unsigned long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* The stand-in: exported as cblas_sgemm, which the dynamic linker then
 * binds the programs' calls to, and named for what it does in C, so that
 * a reader (or a tool that draws who calls whom) never takes it for the
 * one the library calls. */
void counting_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
                    const enum CBLAS_TRANSPOSE tb, const blasint M, const blasint N,
                    const blasint K, const float alpha, const float *A, const blasint lda,
                    const float *B, const blasint ldb, const float beta, float *C,
                    const blasint ldc) __asm__("cblas_sgemm");
void counting_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
                    const enum CBLAS_TRANSPOSE tb, const blasint M, const blasint N,
                    const blasint K, const float alpha, const float *A, const blasint lda,
                    const float *B, const blasint ldb, const float beta, float *C,
                    const blasint ldc) {
    static SgemmFn *real;
    if (!real) {
        /* dlsym returns an object pointer; POSIX guarantees it converts
         * to a function pointer, ISO C does not, hence the copy */
        void *sym = dlsym(RTLD_NEXT, "cblas_sgemm");
        if (!sym) { /* a product skipped would make every number wrong */
            fprintf(stderr, "sgemm_count: no cblas_sgemm after this library\n");
            abort();
        }
        *(void **)&real = sym;
    }
    double work = (double)M * (double)N * (double)K;
    int big = work >= SMALL_WORK;
    unsigned long long t0 = now_ns();
    real(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    atomic_fetch_add(&nanos[big], now_ns() - t0);
    atomic_fetch_add(&calls[big], 1);
    atomic_fetch_add(&madds[big], (unsigned long long)work);
}

__attribute__((destructor)) static void report(void) {
    static const char *names[2] = {"small", "large"};
    unsigned long long all = atomic_load(&madds[0]) + atomic_load(&madds[1]);
    for (int k = 0; k < 2; k++) {
        unsigned long long c = atomic_load(&calls[k]), m = atomic_load(&madds[k]);
        double s = (double)atomic_load(&nanos[k]) * 1e-9;
        fprintf(stderr,
                "sgemm_count %s: %llu calls, %.4g GFLOP (%.1f%% of all), %.2f s, %.1f GFLOP/s\n",
                names[k], c, 2e-9 * (double)m, all ? 100.0 * (double)m / (double)all : 0.0, s,
                s > 0 ? 2e-9 * (double)m / s : 0.0);
    }
}
