/* exp over a row, the softmax's one costly step, eight floats at a time.
 *
 * The native build links SLEEF (Debian's libsleef-dev) and, on a CPU with
 * AVX2 and FMA, uses its Sleef_expf8_u10avx2: within 1 ulp, like glibc's
 * expf, and about five times as fast on rows of 128 (0.70 against 3.3 ns a
 * value on the machine of bench/README.md). Elsewhere (no AVX2, the web page,
 * a build without POSENC_SLEEF) it is expf. The two round differently in
 * the last bit now and then, so trained numbers depend on which ran, as
 * they depend on OpenBLAS's kernels. */
#ifndef POSENC_VEXP_H
#define POSENC_VEXP_H

#include <stdbool.h>
#include <stddef.h>

/* x[i] = exp(x[i] - shift) for i < n. */
void exp_shifted(float *x, size_t n, float shift);

/* Whether exp_shifted uses SLEEF on this machine. */
bool exp_vectorized(void);

/* Counts the values exp_shifted takes from now (on: the count starts at
 * 0), for the arithmetic floor (bench/floor.c), as matmul_counting counts
 * the products; exp_counted is the count so far. */
void exp_counting(bool on);
double exp_counted(void);

#endif
