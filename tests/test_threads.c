/* The threads on a shared machine (src/core/cpus.h, src/model/par.h): the
 * CPUs a cgroup's quota grants, read from v2 and v1 trees the test makes;
 * the load of other programs from two samples; and the programs' thread
 * count under an affinity mask, OMP_NUM_THREADS, GOMP_SPINCOUNT and a busy
 * neighbour, as a user would see them. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/cpus.h"
#include "suites.h"

/* A file under dir with the given content (the directories made first). */
static void put(const char *dir, const char *rel, const char *content) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
}

static char *temp_dir(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/posenc_cgXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

START_TEST(quota_from_a_v2_tree) {
    char *root = temp_dir(), self[600];
    snprintf(self, sizeof self, "%s/self", root);
    put(root, "self", "0::/user.slice/app\n");
    /* a parent limits to 3 CPUs, the process's own cgroup to 1.5, the
     * root sets none: the tightest is 1.5 */
    put(root, "fs/user.slice/cpu.max", "300000 100000\n");
    put(root, "fs/user.slice/app/cpu.max", "150000 100000\n");
    put(root, "fs/cpu.stat", "");
    char fs[600];
    snprintf(fs, sizeof fs, "%s/fs", root);
    ck_assert_double_eq_tol(cpus_quota_at(self, fs), 1.5, 1e-12);
    /* "max": no limit at that level; the parent's 3 stands */
    put(root, "fs/user.slice/app/cpu.max", "max 100000\n");
    ck_assert_double_eq_tol(cpus_quota_at(self, fs), 3.0, 1e-12);
    put(root, "fs/user.slice/cpu.max", "max 100000\n");
    ck_assert_double_eq(cpus_quota_at(self, fs), 0.0);
    /* a container: its own cgroup is the mount, the path "/" */
    put(root, "self", "0::/\n");
    put(root, "fs/cpu.max", "100000 100000\n");
    ck_assert_double_eq_tol(cpus_quota_at(self, fs), 1.0, 1e-12);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(quota_from_a_v1_tree) {
    char *root = temp_dir(), self[600], fs[600];
    snprintf(self, sizeof self, "%s/self", root);
    snprintf(fs, sizeof fs, "%s/fs", root);
    put(root, "self", "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n");
    put(root, "fs/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "200000\n");
    put(root, "fs/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    put(root, "fs/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put(root, "fs/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    ck_assert_double_eq_tol(cpus_quota_at(self, fs), 2.0, 1e-12);
    put(root, "fs/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    ck_assert_double_eq(cpus_quota_at(self, fs), 0.0);
    /* unreadable or absent files: no limit, no failure */
    ck_assert_double_eq(cpus_quota_at("/nonexistent/cgroup", fs), 0.0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(others_are_the_busy_time_less_ours) {
    CpuSample a = {.wall = 10.0, .own = 1.0, .busy = 100.0, .ok = true};
    CpuSample b = {.wall = 10.5, .own = 1.5, .busy = 101.0, .ok = true};
    /* a second of busy time in half a second, half of it ours: one CPU */
    ck_assert_double_eq_tol(cpus_others(&a, &b), 1.0, 1e-12);
    b.own = 2.5; /* ours counted more than the machine saw: none */
    ck_assert_double_eq(cpus_others(&a, &b), 0.0);
    b.ok = false;
    ck_assert_double_eq(cpus_others(&a, &b), 0.0);
    /* a real sample: this process's time moves forward with its work */
    CpuSample s, t;
    cpus_sample(&s);
    volatile double x = 0.0;
    for (long i = 0; i < 20000000; i++)
        x += 1e-9;
    cpus_sample(&t);
    ck_assert(t.wall > s.wall && t.own > s.own);
    ck_assert_msg(cpus_affinity() >= 1, "no CPU counted");
}
END_TEST

/* The "threads: ..." text of train's first lines. */
static char *threads_line(const Run *r) {
    const char *at = strstr(r->err, "threads: ");
    ck_assert_msg(at != NULL, "no threads line: %s", r->err);
    size_t n = strcspn(at, "\n");
    char *line = malloc(n + 1);
    ck_assert_ptr_nonnull(line);
    memcpy(line, at, n);
    line[n] = '\0';
    return line;
}

#define SHORT_RUN "--task agent --steps 20 --eval-every 10"

START_TEST(the_thread_count_follows_affinity_and_the_user) {
    /* the suite runs with the Makefile's OMP_NUM_THREADS; a user's first
     * run has none */
    unsetenv("OMP_NUM_THREADS");
    unsetenv("GOMP_SPINCOUNT");
    unsetenv("OMP_WAIT_POLICY");
    cpu_set_t all, one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    /* taskset -c N: one CPU, one thread, whatever the machine has */
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    Run r = run("train", SHORT_RUN);
    ck_assert_msg(r.status == 0, "%s", r.err);
    char *line = threads_line(&r);
    ck_assert_msg(strncmp(line, "threads: 1", 10) == 0 && !strstr(line, " of "),
                  "under one CPU: %s", line);
    free(line);
    run_free(&r);
    /* the user's count stands, even past the CPUs */
    setenv("OMP_NUM_THREADS", "3", 1);
    r = run("train", SHORT_RUN);
    line = threads_line(&r);
    ck_assert_msg(strstr(line, "threads: 3 (OMP_NUM_THREADS)"), "%s", line);
    free(line);
    run_free(&r);
    unsetenv("OMP_NUM_THREADS");
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2)
        return;
    /* two CPUs or more: a wait policy the user set is said */
    setenv("GOMP_SPINCOUNT", "7", 1);
    r = run("train", SHORT_RUN);
    line = threads_line(&r);
    ck_assert_msg(strstr(line, "GOMP_SPINCOUNT=7 as given"), "%s", line);
    free(line);
    run_free(&r);
    unsetenv("GOMP_SPINCOUNT");
    setenv("OMP_WAIT_POLICY", "active", 1);
    r = run("train", SHORT_RUN);
    line = threads_line(&r);
    ck_assert_msg(strstr(line, "OMP_WAIT_POLICY=active as given"), "%s", line);
    free(line);
    run_free(&r);
}
END_TEST

START_TEST(a_busy_neighbour_takes_a_thread) {
    unsetenv("OMP_NUM_THREADS");
    cpu_set_t all, two;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2)
        return; /* nothing to give up */
    /* two CPUs, one of them kept busy by a loop pinned to it */
    CPU_ZERO(&two);
    int first = -1;
    for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &two);
            first = first < 0 ? c : first;
            n++;
        }
    ck_assert_int_eq(sched_setaffinity(0, sizeof two, &two), 0);
    pid_t busy = fork();
    ck_assert_int_ge(busy, 0);
    if (busy == 0) {
        cpu_set_t mine;
        CPU_ZERO(&mine);
        CPU_SET(first, &mine);
        sched_setaffinity(0, sizeof mine, &mine);
        for (volatile unsigned long i = 0;; i++)
            ;
    }
    usleep(300000);
    /* long enough for several looks at the load (a quarter second apart) */
    Run r = run("train", "--task agent --steps 600 --eval-every 100");
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *last = NULL;
    for (const char *p = r.err; (p = strstr(p, "tok/s, ")); p++)
        last = p;
    ck_assert_msg(last && strncmp(last, "tok/s, 1 thread ", 16) == 0,
                  "beside a busy CPU the last progress line should run on one thread: %s",
                  r.err);
    run_free(&r);
}
END_TEST

Suite *suite_threads(void) {
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_add_test(tc, quota_from_a_v2_tree);
    tcase_add_test(tc, quota_from_a_v1_tree);
    tcase_add_test(tc, others_are_the_busy_time_less_ours);
    tcase_add_test(tc, the_thread_count_follows_affinity_and_the_user);
    tcase_add_test(tc, a_busy_neighbour_takes_a_thread);
    suite_add_tcase(s, tc);
    return s;
}
