#include "par.h"

#include <stdio.h>
#include <stdlib.h>

#include "../core/clock.h"
#include "../core/cpus.h"

/* The most threads (the user's OMP_NUM_THREADS, or the CPUs the process
 * may use; 0 before par_start), whether the team follows the load, and
 * the load's last reading. */
static int cap;
static int following;
static CpuSample last;

/* Seconds between two looks at the load: long enough for /proc/stat's
 * clock ticks (10 ms) to count, short enough that a run notices a
 * neighbour within a few of its steps. */
#define LOAD_PERIOD 0.25

/* The team beside others CPUs' worth of other programs: a CPU counts as
 * taken from three quarters of one on, so a browser's tenth or the
 * kernel's noise costs no thread and a busy loop's whole CPU does. */
#ifdef _OPENMP
static int clamp_team(double cpus, double others) {
    int team = (int)cpus - (int)(others + 0.25);
    return team < 1 ? 1 : team > cap ? cap : team;
}
#endif

int par_start(void) {
#ifdef _OPENMP
    const char *given = getenv("OMP_NUM_THREADS");
    if (given && *given) {
        cap = omp_get_max_threads();
        following = 0;
        return cap;
    }
    cap = (int)cpus_usable();
    following = cap > 1;
    /* the threads other programs run now, until the first real reading */
    omp_set_num_threads(clamp_team(cap, (double)cpus_running_others()));
    cpus_sample(&last);
    return omp_get_max_threads();
#else
    (void)following, (void)last;
    cap = 1;
    return 1;
#endif
}

int par_max_threads(void) { return cap ? cap : par_threads(); }

void par_follow_load(void) {
#ifdef _OPENMP
    if (!following || clock_seconds() - last.wall < LOAD_PERIOD)
        return;
    CpuSample now;
    cpus_sample(&now);
    int team = clamp_team((double)cpus_affinity(), cpus_others(&last, &now));
    if (team != omp_get_max_threads())
        omp_set_num_threads(team);
    last = now;
#endif
}

void par_hold(void) {
#ifdef _OPENMP
    following = 0;
    omp_set_num_threads(par_max_threads());
#endif
}

const char *par_describe(void) {
    static char buf[256];
    int team = par_threads(), n;
    if (following && team < cap)
        n = snprintf(buf, sizeof buf, "%d of %d (other programs keep CPUs busy; more as they "
                     "free up)", team, cap);
    else if (following)
        n = snprintf(buf, sizeof buf, "%d (the CPUs this process may use; fewer while other "
                     "programs keep them busy)", team);
    else if (getenv("OMP_NUM_THREADS"))
        n = snprintf(buf, sizeof buf, "%d (OMP_NUM_THREADS)", team);
    else
        n = snprintf(buf, sizeof buf, "%d", team);
    /* how waiting threads wait, when more than one can */
    const char *policy = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    size_t at = n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0;
    if (cap > 1 && (policy || spin))
        snprintf(buf + at, sizeof buf - at, ", %s=%s as given", spin ? "GOMP_SPINCOUNT" :
                 "OMP_WAIT_POLICY", spin ? spin : policy);
    return buf;
}
