/* OpenBLAS's kernels: which ones the products run on. Each set rounds
 * differently (they add in another order), so a page's digits hold only on
 * the kernels it was made with: Haswell's, which every x86-64 CPU with
 * AVX2 and FMA runs (Intel since 2013, AMD since 2015). Left to itself,
 * OpenBLAS picks the newest its CPU allows (SkylakeX, Cooperlake, Zen...),
 * or falls back to old ones on a virtual CPU it does not know. So the
 * programs ask for Haswell's wherever the CPU has them and the user did not
 * choose (OPENBLAS_CORETYPE set, to anything, is the user's choice).
 * OpenBLAS reads OPENBLAS_CORETYPE once, as it loads, so asking means
 * starting the program again: kernels_choose, a program's first call,
 * before any thread starts (examples/cli.c's cli_init calls it, then
 * par_start). Without AVX2 the kernels stay OpenBLAS's, and the last
 * digits of the pages can differ. */
#ifndef POSENC_KERNELS_H
#define POSENC_KERNELS_H

/* When OpenBLAS chose other kernels than the docs' (kernels_better) and
 * the user set no OPENBLAS_CORETYPE, starts the program again with those (restart_with, src/core/restart.h; argv is main's); in that second
 * start, takes the setting out of the environment again, so that the
 * programs this one starts see the user's. Returns otherwise, and when
 * the exec fails (the kernels then stay OpenBLAS's choice). */
void kernels_choose(char **argv);

/* The OpenBLAS kernels to ask for (OPENBLAS_CORETYPE): "Haswell" when
 * OpenBLAS chose others on a CPU with AVX2 and FMA; NULL when it chose
 * Haswell's, on a CPU without them, and without BLAS. */
const char *kernels_better(void);

/* The kernels the products run on: OpenBLAS's name for them ("Haswell"),
 * or "plain loops (matmul_loops)" without BLAS. */
const char *kernels_name(void);

#endif
