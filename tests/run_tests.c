/* Runs every suite; the exit status is the number of failed tests (capped),
 * so make test fails when any test does. */
#define _POSIX_C_SOURCE 200809L /* dup, fdopen, clock_gettime */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/model/kernels.h"
#include "../src/model/par.h"
#include "suites.h"

float *run_model(const Model *m, const int *ids, const size_t *lens, size_t B, size_t T,
                 float **pooled) {
    Acts a;
    Err e;
    ck_assert_msg(acts_create(&a, m, B, T, &e) == 0, "%s", e.msg);
    ck_assert_msg(encoder_forward(m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    size_t C = m->cfg.d_model;
    float *out = malloc(B * T * C * sizeof *out);
    ck_assert_ptr_nonnull(out);
    memcpy(out, a.hidden, B * T * C * sizeof *out);
    if (pooled) {
        *pooled = malloc(B * C * sizeof **pooled);
        ck_assert_ptr_nonnull(*pooled);
        memcpy(*pooled, a.pooled, B * C * sizeof **pooled);
    }
    acts_free(&a);
    return out;
}

void make_model(Model *m, size_t V, size_t C, size_t NH, size_t L, size_t F, NormPlace norm,
                Activation act, const char *pe, Combine combine, uint64_t seed) {
    Config c;
    config_default(&c, V, pe);
    c.d_model = C;
    c.n_heads = NH;
    c.n_layers = L;
    c.d_ff = F;
    c.norm = norm;
    c.act = act;
    if (combine != COMBINE_DEFAULT)
        pe_put(&c.pe, &pe_opt_combine, combine == COMBINE_CONCAT ? 1 : 0);
    c.seed = seed;
    Err e;
    ck_assert_msg(model_create(m, &c, &e) == 0, "%s", e.msg);
}

size_t scheme_count(bool (*keep)(const PeScheme *s)) {
    size_t n = 0;
    for (size_t i = 0; i < pe_count(); i++)
        n += keep(pe_at(i));
    return n;
}

const PeScheme *scheme_nth(bool (*keep)(const PeScheme *s), size_t n) {
    for (size_t i = 0; i < pe_count(); i++)
        if (keep(pe_at(i)) && n-- == 0)
            return pe_at(i);
    ck_abort_msg("the registry has no scheme %zu of that kind", n);
    return NULL;
}

void set_opt(PeConfig *pc, const char *flag, const char *text) {
    Err e;
    ck_assert_msg(pe_set_named(pc, flag, text, &e) == 0, "%s", e.msg);
}

/* In the order they run: the units first, the programs and the docs last
 * (the names are the suites' own, for CK_RUN_SUITE). Runners that share
 * the suites (make test's, POSENC_SUITE_CLAIMS) take them heaviest first,
 * by the seconds each takes, so that they end together: each suite's
 * seconds beside a busy machine's load (issue 61: one runner at nice -5
 * beside a run on both cores), scaled by the whole's ratio to a quiet
 * machine's, 0.27; the order is what counts. */
static const struct {
    const char *name;
    Suite *(*make)(void);
    unsigned seconds;
} SUITES[] = {
    {"matmul", suite_matmul, 0},     {"encoder", suite_encoder, 1},
    {"pe", suite_pe, 1},             {"attn", suite_attn, 0},
    {"vocab", suite_vocab, 0},       {"cli", suite_cli, 8},
    {"grad", suite_grad, 2},         {"parity", suite_parity, 2},
    {"train", suite_train, 2},       {"plot", suite_plot, 2},
    {"figures", suite_figures, 1},   {"probe", suite_probe, 1},
    {"report", suite_report, 1},     {"data", suite_data, 0},
    {"tasks", suite_tasks, 2},       {"orderdemo", suite_orderdemo, 0},
    {"edges", suite_edges, 2},       {"fuzz", suite_fuzz, 0},
    {"threads", suite_threads, 2},   {"stats", suite_stats, 0},
    {"rules", suite_rules, 3},       {"cells", suite_cells, 17},
    {"guards", suite_guards, 14},    {"programs", suite_programs, 1},
    {"docs", suite_docs, 0},
};
#define N_SUITES (sizeof SUITES / sizeof *SUITES)

/* The suites' places, heaviest first (ties in the list's order). */
static void heaviest_first(size_t *order) {
    for (size_t i = 0; i < N_SUITES; i++) {
        size_t k = i;
        while (k > 0 && SUITES[order[k - 1]].seconds < SUITES[i].seconds)
            order[k] = order[k - 1], k--;
        order[k] = i;
    }
}

/* Whether this runner runs suite name: always alone; among runners that
 * share the suites, when it is the first to claim it (a folder made in
 * POSENC_SUITE_CLAIMS: mkdir is atomic, so exactly one runner does). */
static bool claim(const char *name) {
    const char *dir = getenv("POSENC_SUITE_CLAIMS");
    if (!dir || !*dir)
        return true;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return mkdir(path, 0777) == 0;
}

bool shard_of(size_t *k, size_t *n) {
    const char *s = getenv("POSENC_SHARD");
    unsigned a, b;
    char end;
    if (!s || sscanf(s, "%u/%u%c", &a, &b, &end) != 2 || b == 0 || a >= b)
        return false;
    *k = a, *n = b;
    return true;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The terminal gets one line per suite as it ends, and each failure. With
 * POSENC_TEST_LOG set (make test sets it), what the tests and the
 * programs they run print goes to that file instead of between those
 * lines. Returns the stream for the lines (stdout without the log). */
static FILE *progress_stream(void) {
    /* line by line: Check forks each test, which must not inherit (and
     * print again) a line still in the buffer */
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *log = getenv("POSENC_TEST_LOG");
    if (!log || !*log)
        return stdout;
    int tty = dup(STDOUT_FILENO);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (tty < 0 || fd < 0) {
        fprintf(stderr, "run_tests: cannot write %s (%s); the tests print here\n", log,
                strerror(errno));
        return stdout;
    }
    fflush(stdout);
    fflush(stderr);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    FILE *out = fdopen(tty, "w");
    if (!out)
        return stdout;
    setvbuf(out, NULL, _IOLBF, 0);
    return out;
}

/* Progress inside a suite, on a terminal (a slow suite runs for minutes on
 * a busy machine): Check writes a line to a suite's log as each of its
 * tests ends; a thread reads them from a pipe and rewrites one line of
 * the terminal, which the suite's result then replaces. */
typedef struct {
    FILE *log;
    int out; /* the terminal, written without stdio: Check forks each
              * test, and a child would print a buffered line again */
    const char *name;
    int fd; /* the pipe's end Check writes to, through /dev/fd */
    int n;  /* the tests ended so far */
    pthread_t thread;
} Watch;

static void say(int fd, const char *text) {
    for (size_t n = strlen(text), k; n > 0; text += k, n -= k) {
        ssize_t got = write(fd, text, n);
        if (got <= 0)
            return; /* only a status line: nothing to do about it */
        k = (size_t)got;
    }
}

static void *count_tests(void *arg) {
    Watch *w = arg;
    char line[8192], status[128];
    while (fgets(line, sizeof line, w->log))
        /* a test's result: FILE:LINE:P|F|E:CASE:TEST:ITERATION: message */
        if (strstr(line, ":P:") || strstr(line, ":F:") || strstr(line, ":E:")) {
            snprintf(status, sizeof status, "\r  %-10s %3d checks so far", w->name, ++w->n);
            say(w->out, status);
        }
    fclose(w->log);
    return NULL;
}

/* Starts watching sr on a terminal that shows nothing else (the tests'
 * output goes to POSENC_TEST_LOG); false (nothing to stop) elsewhere. */
static bool watch_start(Watch *w, SRunner *sr, FILE *out, const char *name) {
    int fds[2];
    if (out == stdout || !isatty(fileno(out)) || pipe(fds) != 0)
        return false;
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    *w = (Watch){.log = fdopen(fds[0], "r"), .out = fileno(out), .name = name, .fd = fds[1]};
    if (!w->log || pthread_create(&w->thread, NULL, count_tests, w) != 0) {
        if (w->log)
            fclose(w->log);
        else
            close(fds[0]);
        close(fds[1]);
        return false;
    }
    srunner_set_log(sr, path);
    return true;
}

/* After the suite (Check has closed its log): the pipe's end closed, the
 * thread joined, the status line cleared for the result. */
static void watch_stop(Watch *w) {
    close(w->fd);
    pthread_join(w->thread, NULL);
    if (w->n)
        say(w->out, "\r                                          \r");
}

int main(int argc, char **argv) {
    (void)argc;
    /* as the programs do: the kernels, then the team from the CPUs (the
     * Makefile's OMP_NUM_THREADS stands) */
    kernels_choose(argv);
    par_start();
    FILE *out = progress_stream();
    int failed = 0, run = 0;
    double t0 = now();
    size_t shard, shards, order[N_SUITES];
    bool sharded = shard_of(&shard, &shards);
    const char *shared = getenv("POSENC_SUITE_CLAIMS");
    if (shared && *shared)
        heaviest_first(order);
    else
        for (size_t i = 0; i < N_SUITES; i++)
            order[i] = i;
    for (size_t o = 0; o < N_SUITES; o++) {
        size_t i = order[o];
        /* a runner past the first shares the docs' pages, nothing else */
        if (sharded && shard > 0 && strcmp(SUITES[i].name, "docs") != 0)
            continue;
        if (!claim(SUITES[i].name))
            continue;
        Suite *s = SUITES[i].make();
        SRunner *sr = srunner_create(s);
        double t = now();
        Watch w;
        bool watched = watch_start(&w, sr, out, SUITES[i].name);
        srunner_run_all(sr, CK_SILENT);
        if (watched)
            watch_stop(&w);
        int n = srunner_ntests_run(sr), f = srunner_ntests_failed(sr);
        if (n > 0) {
            /* CK_RUN_SUITE and CK_EXCLUDE_TAGS leave the others with none */
            /* the times only for make test: a docs page shows this output */
            fprintf(out, "  %-10s %3d checks, %s", SUITES[i].name, n, f ? "FAILED" : "passed");
            if (out != stdout)
                fprintf(out, " (%.0f s)", now() - t);
            fprintf(out, "\n");
            TestResult **r = srunner_failures(sr);
            for (int k = 0; k < f; k++)
                fprintf(out, "    %s:%d: %s: %s\n", tr_lfile(r[k]), tr_lno(r[k]), tr_tcname(r[k]),
                        tr_msg(r[k]));
            free(r);
        }
        run += n;
        failed += f;
        srunner_free(sr);
    }
    /* runners that share the suites: their counts for one summary */
    const char *result = getenv("POSENC_TEST_RESULT");
    FILE *rf = result && *result ? fopen(result, "w") : NULL;
    if (rf) {
        fprintf(rf, "%d %d\n", run, failed);
        fclose(rf);
        if (out != stdout)
            fclose(out);
        return failed > 100 ? 100 : failed;
    }
    fprintf(out, "%d of %d checks %s", failed ? failed : run, run, failed ? "FAILED" : "passed");
    if (out != stdout) {
        fprintf(out, " in %.0f s; the tests' own output is in %s\n", now() - t0,
                getenv("POSENC_TEST_LOG"));
        fclose(out);
    } else {
        fprintf(out, "\n");
    }
    return failed > 100 ? 100 : failed;
}
