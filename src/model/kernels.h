/* OpenBLAS's kernels: which ones the products run on, and better ones when
 * OpenBLAS fell back to old ones on a CPU it did not recognise. OpenBLAS
 * reads its choice (OPENBLAS_CORETYPE) once, as it loads, so asking for
 * other kernels means starting the program again: kernels_choose, a
 * program's first call, before any thread starts (examples/cli.c's
 * cli_init calls it, then par_start). Each set of kernels rounds
 * differently; the docs are made with Haswell's (the Makefile's
 * KERNEL_ENV). */
#ifndef POSENC_KERNELS_H
#define POSENC_KERNELS_H

/* When OpenBLAS fell back to old kernels (kernels_better) and the
 * user set no OPENBLAS_CORETYPE, starts the program again with better
 * ones (restart_with, src/core/restart.h; argv is main's); in that second
 * start, takes the setting out of the environment again, so that the
 * programs this one starts see the user's. Returns otherwise, and when
 * the exec fails (the kernels then stay OpenBLAS's choice). */
void kernels_choose(char **argv);

/* The OpenBLAS kernels to ask for (OPENBLAS_CORETYPE) when the ones it
 * chose are older than the CPU: "Haswell" when it fell back to a pre-AVX2
 * core (Prescott, on a virtual CPU whose model it does not know) on a CPU
 * with AVX2 and FMA; NULL otherwise, and without BLAS. */
const char *kernels_better(void);

/* The kernels the products run on: OpenBLAS's name for them ("Haswell"),
 * or "plain loops (matmul_loops)" without BLAS. */
const char *kernels_name(void);

#endif
