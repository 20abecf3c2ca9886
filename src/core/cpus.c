#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpus.h"

#include "clock.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#endif

size_t cpus_affinity(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (size_t)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

/* The first line of a small file, without its newline; false if unread. */
static bool read_line(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* CPUs granted at one cgroup directory, 0 if it sets no quota: v2's
 * cpu.max is "QUOTA PERIOD" or "max PERIOD"; v1 splits them in two files,
 * with -1 for none. */
static double quota_in(const char *dir) {
    char path[4096 + 32], line[128]; /* dir is at most 4095 characters */
    double quota, period;
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    if (read_line(path, line, sizeof line))
        return sscanf(line, "%lf %lf", &quota, &period) == 2 && quota > 0 && period > 0
                   ? quota / period : 0.0;
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_line(path, line, sizeof line) || sscanf(line, "%lf", &quota) != 1 || quota <= 0)
        return 0.0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_line(path, line, sizeof line) || sscanf(line, "%lf", &period) != 1 || period <= 0)
        return 0.0;
    return quota / period;
}

/* The tightest quota from root/rel up to root. */
static double tightest(const char *root, const char *rel) {
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s%s", root, strcmp(rel, "/") == 0 ? "" : rel);
    if (n < 0 || (size_t)n >= sizeof dir)
        return 0.0;
    size_t floor_len = strlen(root);
    double best = 0.0;
    for (;;) {
        double q = quota_in(dir);
        if (q > 0.0 && (best == 0.0 || q < best))
            best = q;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < floor_len)
            break;
        *slash = '\0';
    }
    return best;
}

double cpus_quota_at(const char *proc_cgroup, const char *root) {
    /* Lines of /proc/self/cgroup are "ID:CONTROLLERS:PATH": "0::PATH" for
     * v2, "N:cpu,cpuacct:PATH" for v1's cpu controller, mounted at
     * root/cpu,cpuacct or root/cpu. Inside a container the path is often
     * "/" and the container's own cgroup is the mount itself, which the
     * walk reads last. */
    FILE *f = fopen(proc_cgroup, "r");
    if (!f)
        return 0.0;
    char line[4096], dir[4096];
    double best = 0.0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/')
            continue;
        *c1 = *c2 = '\0';
        const char *ctl = c1 + 1, *rel = c2 + 1;
        double q = 0.0;
        if (strcmp(line, "0") == 0 && ctl[0] == '\0')
            q = tightest(root, rel);
        else {
            char list[256];
            snprintf(list, sizeof list, ",%s,", ctl);
            if (!strstr(list, ",cpu,"))
                continue;
            /* the v1 mount is named after its controllers */
            snprintf(dir, sizeof dir, "%s/%s", root, ctl);
            q = tightest(dir, rel);
            if (q == 0.0) {
                snprintf(dir, sizeof dir, "%s/cpu", root);
                q = tightest(dir, rel);
            }
        }
        if (q > 0.0 && (best == 0.0 || q < best))
            best = q;
    }
    fclose(f);
    return best;
}

double cpus_quota(void) { return cpus_quota_at("/proc/self/cgroup", "/sys/fs/cgroup"); }

size_t cpus_usable(void) {
    size_t n = cpus_affinity();
    double q = cpus_quota();
    if (q > 0.0 && ceil(q) < (double)n)
        n = (size_t)ceil(q);
    return n ? n : 1;
}

size_t cpus_running_others(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    char line[512];
    unsigned long running = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "procs_running %lu", &running) == 1)
            break;
    fclose(f);
    return running > 1 ? (size_t)(running - 1) : 0;
}

/* CPU seconds of all the process's threads. */
static double own_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cpus_sample(CpuSample *s) {
    s->wall = clock_seconds();
    s->own = own_seconds();
    s->busy = 0.0;
    s->ok = false;
#ifdef __linux__
    cpu_set_t set;
    bool masked = sched_getaffinity(0, sizeof set, &set) == 0;
    FILE *f = fopen("/proc/stat", "r");
    long hz = sysconf(_SC_CLK_TCK);
    if (!f || hz <= 0) {
        if (f)
            fclose(f);
        return;
    }
    /* "cpuN user nice system idle iowait irq softirq steal ...", in clock
     * ticks: user, nice, system, irq and softirq are time the CPU ran
     * something. Steal (the hypervisor ran another machine) is left out:
     * in a virtual machine it is reported in bursts, a quarter of a CPU
     * with nothing running here, which would read as a neighbour. */
    char line[512];
    unsigned long long busy = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned cpu;
        unsigned long long v[7] = {0};
        /* "cpu  ..." is the machine's total: %u would skip the blanks and
         * read its first figure as a CPU's number */
        if (strncmp(line, "cpu", 3) != 0 || !isdigit((unsigned char)line[3]))
            continue;
        if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6]) < 5)
            continue;
        if (masked && cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set))
            continue;
        busy += v[0] + v[1] + v[2] + v[5] + v[6];
        s->ok = true;
    }
    fclose(f);
    s->busy = (double)busy / (double)hz;
#endif
}

double cpus_others(const CpuSample *before, const CpuSample *after) {
    double wall = after->wall - before->wall;
    if (!before->ok || !after->ok || wall <= 0.0)
        return 0.0;
    double others = (after->busy - before->busy - (after->own - before->own)) / wall;
    return others > 0.0 ? others : 0.0;
}
