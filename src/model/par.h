/* The threads of the work outside the matrix products: OpenMP, the same
 * pool as OpenBLAS's (the build links Debian's OpenMP build of OpenBLAS,
 * scripts/deps.sh), so the two never run more threads than cores.
 *
 * Every loop marked PAR_FOR splits its iterations into fixed contiguous
 * blocks (schedule(static)), and no iteration reads what another writes:
 * each computes its rows, heads or elements exactly as a serial loop
 * would, so the results do not depend on the number of threads at all.
 * Sums across iterations (a bias's gradient, LayerNorm's weights) are
 * taken by a second loop over the columns, each column summed in row
 * order as before.
 *
 * Built without -fopenmp (the web page, the fuzzers) the marks expand to
 * nothing and the loops run on one thread; the pragmas are written with
 * _Pragma so that such a build sees no unknown #pragma (-Werror). */
#ifndef POSENC_PAR_H
#define POSENC_PAR_H

#include <stddef.h>

#ifdef _OPENMP
#include <omp.h>
#define PAR_PRAGMA(x) _Pragma(#x)
/* A parallel loop when cond holds (enough work to pay for waking the
 * threads, a few microseconds), a serial one otherwise. */
#define PAR_FOR_IF(cond) PAR_PRAGMA(omp parallel for schedule(static) if (cond))
#else
#define PAR_FOR_IF(cond)
#endif

/* Elements of work below which a loop stays on one thread. */
#define PAR_MIN_WORK 16384

/* Threads the next parallel loop will use (1 without OpenMP). */
static inline int par_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Whether the caller runs inside a parallel loop already. */
static inline int par_in_loop(void) {
#ifdef _OPENMP
    return omp_in_parallel();
#else
    return 0;
#endif
}

/* Elements per thread when n are cut into one block per thread, rounded
 * up to a multiple of align (16 floats: a cache line, so no two threads
 * write one line when the array starts on one). */
static inline size_t par_block(size_t n, size_t align) {
    size_t team = (size_t)par_threads(), per = (n + team - 1) / team;
    return (per + align - 1) / align * align;
}

/* Sets the team, before the first parallel loop (and after kernels_choose,
 * src/model/kernels.h, which may start the program again): the user's
 * OMP_NUM_THREADS when given, else the CPUs the process may use (its
 * affinity and its cgroup's quota), where libgomp alone would count the
 * affinity only, less the threads other programs run at that moment.
 * libgomp's waiting threads keep their default spin (bench/README.md: a
 * shorter one cost a third of the speed alone, and the team that follows
 * the load is what keeps two programs from spinning each other down).
 * Returns the team. */
int par_start(void);

/* The most threads the team may have: par_start's cap (the threads'
 * scratch is sized for it), or the team now when par_start was not called. */
int par_max_threads(void);

/* Called between steps (train_step, eval_batch): every quarter second,
 * the team shrinks to the CPUs other programs leave free, or grows back,
 * never past par_start's; a user's OMP_NUM_THREADS stands as given. The
 * numbers do not depend on the team (matmul.c, and the loops above), so
 * this changes the speed and nothing else. */
void par_follow_load(void);

/* The team goes back to its cap and stays there, whatever the load: for a
 * benchmark, whose figures are the machine's at full strength (run it on
 * a quiet machine). */
void par_hold(void);

/* "2 (the CPUs this process may use; fewer while ...)" for the programs'
 * first lines. */
const char *par_describe(void);

/* The calling thread's number within its loop, 0..par_threads()-1. */
static inline int par_thread(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

#endif
