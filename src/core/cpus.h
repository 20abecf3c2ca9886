/* The processors a process may really use, and how busy other programs
 * keep them: what the thread count follows (src/model/par.h), so that a
 * run is fast alone and stays near its share of a shared machine.
 *
 * Linux only where it matters (sched_getaffinity, cgroup files,
 * /proc/stat); elsewhere every answer falls back to "no limit, no load". */
#ifndef POSENC_CPUS_H
#define POSENC_CPUS_H

#include <stdbool.h>
#include <stddef.h>

/* The CPUs in the process's affinity mask (`taskset -c 0` leaves one), at
 * least 1. */
size_t cpus_affinity(void);

/* The CPUs a cgroup's quota grants the process, e.g. 1.5 for
 * `docker --cpus=1.5`: the tightest quota/period from its own cgroup up to
 * the root, cgroup v2 (cpu.max) or v1 (cpu.cfs_quota_us and
 * cpu.cfs_period_us); 0 when no level sets one or the files cannot be
 * read. proc_cgroup is /proc/self/cgroup and root /sys/fs/cgroup, except
 * in the tests, which hand it a tree of their own. */
double cpus_quota_at(const char *proc_cgroup, const char *root);
double cpus_quota(void);

/* min(affinity, quota rounded up), at least 1: the threads worth running. */
size_t cpus_usable(void);

/* Threads of other programs that are running or ready to run at this
 * instant (/proc/stat's procs_running, less the caller), 0 if unknown: a
 * glance at the load for a program about to start its threads. */
size_t cpus_running_others(void);

/* A reading of the machine's CPU time and of this process's, for
 * cpus_others. */
typedef struct {
    double wall;     /* seconds, monotonic clock */
    double own;      /* this process's CPU seconds, all threads */
    double busy;     /* CPU seconds the usable CPUs spent on anything but idle */
    bool ok;         /* /proc/stat could be read */
} CpuSample;

void cpus_sample(CpuSample *s);

/* How many CPUs other programs kept busy between two samples (of the CPUs
 * in the affinity mask): their busy time less this process's, over the
 * wall time; 0 when a sample failed or no time passed. Time the hypervisor
 * stole does not count (cpus.c says why). */
double cpus_others(const CpuSample *before, const CpuSample *after);

#endif
