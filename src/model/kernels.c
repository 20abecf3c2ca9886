#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include "kernels.h"

#include <stdlib.h>
#include <strings.h>

#include "../core/restart.h"

#ifndef POSENC_NO_BLAS
#include <cblas.h>
#endif

void kernels_choose(char **argv) {
    /* OpenBLAS reads its kernels as it loads: when the user left them to
     * it and it chose others than the docs', a second start asks for those */
    const char *kernels = getenv("OPENBLAS_CORETYPE") ? NULL : kernels_better();
    EnvSetting set = {"OPENBLAS_CORETYPE", kernels};
    restart_with(argv, &set, kernels ? 1 : 0);
}

const char *kernels_better(void) {
#if !defined(POSENC_NO_BLAS) && (defined(__x86_64__) || defined(__i386__))
    const char *core = openblas_get_corename();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return NULL;
    if (!core || strcasecmp(core, "Haswell") != 0)
        return "Haswell";
#endif
    return NULL;
}

const char *kernels_name(void) {
#ifdef POSENC_NO_BLAS
    return "plain loops (matmul_loops)";
#else
    const char *core = openblas_get_corename();
    return core ? core : "unknown";
#endif
}
