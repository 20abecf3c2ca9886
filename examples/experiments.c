/* experiments: the comparisons of docs/results.md, run as cells and
 * written up.
 *
 * Each training of the grid (section, task, scheme, seed) is a cell with
 * its own small file; a cell already done is not run again, several run at
 * once (--jobs), and other machines can run them (--list, --cell, --store:
 * GNU parallel over ssh or a Slurm array, docs/experiments.md). The page,
 * its CSVs and figures are written from the cells' files, as one set. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/core/clock.h"
#include "../src/core/cpus.h"
#include "../src/core/fileio.h"
#include "../src/model/matmul.h"
#include "../src/model/par.h"
#include "../src/run/experiment.h"
#include "../src/run/outputs.h"
#include "cli.h"

/* The sources this binary was built from (the Makefile's hash of src/ and
 * examples/ at HEAD and of their uncommitted changes): a cell made by
 * other sources is run again, and one from another machine refused. */
#ifndef POSENC_SOURCE_ID
#define POSENC_SOURCE_ID "unknown"
#endif

static const char *const USAGE[] = {
    "Usage: experiments [--out DIR] [--cells DIR] [--jobs N] [--quick] [--seeds N]\n"
    "       experiments --list [--missing] [--cells DIR] [--quick] [--seeds N]\n"
    "       experiments --cell ID [--cells DIR|-] [--quick] [--seeds N]\n"
    "       experiments --store [--cells DIR] [--quick] [--seeds N] < RECORDS\n"
    "\n"
    "Runs the experiments of docs/results.md and writes DIR/results.md, its figures\n"
    "DIR/img/results/*.png and the CSV files behind every table, DIR/results/*.csv:\n"
    "  1. order: the permutation test on untrained models, every scheme;\n"
    "  2. who did it (agent) and which came first (direction), every scheme;\n"
    "  3. length generalization: reverse, sort and previous trained on lengths up to\n"
    "     L and tested per length up to 4L, every scheme;\n"
    "  4. the same with and without --random-positions 4L for sinusoidal, learned\n"
    "     and rope;\n"
    "  5. interleaved vs split sinusoid, add vs concat, sqrt(d_model) scaling.\n"
    "\n"
    "Each training is a cell, e.g. lengths-reverse-rope-s2, whose result goes to its\n"
    "own file CELLS/ID.cell. A cell already done (by this build, with these\n"
    "settings) is skipped, so a run stopped anywhere goes on where it stopped; the\n"
    "page is written from the cells' files once all are done, and replaces the old\n"
    "page, CSVs and figures as one set. A cell's numbers do not depend on --jobs or\n"
    "on threads. `make experiments` runs the whole grid into docs/ (JOBS=N, HOSTS=FILE\n"
    "for other machines: docs/experiments.md); `make experiments QUICK=1` the same\n"
    "pipeline on tiny settings into build/experiments-quick/.\n"
    "\n"
    "Options:\n"
    "  --out DIR             where to write the page (default docs; created if missing)\n"
    "  --cells DIR           the cells' files (default build/cells, or\n"
    "                        build/cells-quick with --quick)\n"
    "  --jobs N              cells at once, 1..256 (default: the CPUs this process may\n"
    "                        use); each runs on the threads left free\n"
    "  --quick               tiny models and few steps: checks the pipeline, not\n"
    "                        the schemes\n"
    "  --seeds N             seeds per configuration, 2..20 (default 5; 2 with\n"
    "                        --quick); each seed draws the weights, the batch order\n"
    "                        and the data; cells of the first seeds are kept\n"
    "  --list                print the cells' names, one per line, and stop\n"
    "  --missing             with --list: only the cells not done yet\n"
    "  --cell ID             run that one cell and write CELLS/ID.cell; with\n"
    "                        --cells - print its record on stdout instead\n"
    "  --store               read cell records (what --cell ID --cells - prints) from\n"
    "                        stdin and write each to CELLS/ID.cell\n"
    "  --help                show this help\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options or refused records, 1 when a cell\n"
    "fails (the cells done are kept).\n",
    NULL};

typedef struct {
    Cli cli;
    ExpSettings set;
    ExpCell *cells;
    size_t n;
    const char *cells_dir, *out;
    bool quick;
    size_t seeds, jobs;
} Grid;

static void make_dir(const Cli *cli, const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        Err e;
        err_set(&e, ERR_INPUT, "cannot create the directory %s: %s; check its parent exists "
                "and is writable", path, strerror(errno));
        cli_fail(cli, &e);
    }
}

/* mkdir -p for the default build/cells */
static void make_dirs(const Cli *cli, const char *path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            make_dir(cli, buf);
            *p = '/';
        }
    make_dir(cli, buf);
}

/* ---- one cell, here ---- */

static int run_cell(Grid *g, const char *id) {
    const ExpCell *cell = exp_cell_find(g->cells, g->n, id);
    if (!cell)
        cli_usage_error(&g->cli, "no cell is named '%s'; `experiments --list%s` names them",
                        id, g->quick ? " --quick" : "");
    Err e;
    ExpRun run;
    double t0 = clock_seconds();
    if (exp_cell_run(&g->set, cell, &run, &e))
        cli_fail(&g->cli, &e);
    Buf b = {0};
    int rc = exp_cell_format(&b, &g->set, cell, &run, POSENC_SOURCE_ID, matmul_kernels(),
                             clock_seconds() - t0);
    exp_run_free(&run);
    if (rc)
        err_set(&e, ERR_RUNTIME, "out of memory writing cell %s", id);
    else if (strcmp(g->cells_dir, "-") == 0)
        rc = fwrite(b.p, 1, b.n, stdout) == b.n && fflush(stdout) == 0
                 ? 0 : err_set(&e, ERR_RUNTIME, "writing the standard output failed");
    else
        rc = exp_cell_save_text(g->cells_dir, id, (const char *)b.p, b.n, &e);
    buf_free(&b);
    if (rc)
        cli_fail(&g->cli, &e);
    return 0;
}

/* ---- records from other machines ---- */

static int store(Grid *g) {
    Err e;
    char *text = NULL;
    size_t n = 0, stored = 0, at = 0;
    if (read_stream(stdin, "the standard input", (size_t)1 << 30, &text, &n, &e))
        cli_fail(&g->cli, &e);
    char key[512];
    exp_settings_key(key, sizeof key, &g->set);
    while (at < n) {
        ExpCellFile f;
        size_t used;
        if (exp_cell_parse(text + at, n - at, &used, &f, &e)) {
            fprintf(stderr, "experiments: after %zu records: %s; the rest of the input is "
                    "dropped (its cells are still missing: run them again)\n", stored, e.msg);
            free(text);
            return 1;
        }
        const char *why = !exp_cell_find(g->cells, g->n, f.id) ? "is no cell of this grid"
                          : strcmp(f.settings, key) ? "was made with other settings"
                          : strcmp(f.source, POSENC_SOURCE_ID)
                              ? "was made by a build of other sources" : NULL;
        if (why) {
            fprintf(stderr, "experiments: the record of %s %s (source %s, this build %s); "
                    "build every machine at the same commit with the same options%s\n",
                    f.id, why, f.source, POSENC_SOURCE_ID, g->quick ? " (--quick)" : "");
            exit(2);
        }
        if (exp_cell_save_text(g->cells_dir, f.id, text + at, used, &e))
            cli_fail(&g->cli, &e);
        exp_cell_file_free(&f);
        at += used, stored++;
    }
    free(text);
    fprintf(stderr, "experiments: stored %zu cell records in %s\n", stored, g->cells_dir);
    return 0;
}

/* ---- the grid, here, several cells at once ---- */

typedef struct {
    pid_t pid;
    size_t cell;
} Child;

/* The threads of one cell: the CPUs shared among the cells at once (a cell
 * would follow the load by itself, but a short one ends before its first
 * look); the user's OMP_NUM_THREADS stands. Numbers do not depend on it. */
static void cell_threads(size_t jobs) {
    if (getenv("OMP_NUM_THREADS"))
        return;
    size_t cpus = cpus_usable(), per = cpus / jobs;
    char n[32];
    snprintf(n, sizeof n, "%zu", per ? per : 1);
    setenv("OMP_NUM_THREADS", n, 1);
}

static pid_t spawn(const Grid *g, const char *exe, const ExpCell *cell) {
    char seeds[32];
    snprintf(seeds, sizeof seeds, "%zu", g->seeds);
    const char *argv[12];
    size_t k = 0;
    argv[k++] = exe;
    argv[k++] = "--cell";
    argv[k++] = cell->id;
    argv[k++] = "--cells";
    argv[k++] = g->cells_dir;
    if (g->quick)
        argv[k++] = "--quick";
    if (g->seeds)
        argv[k++] = "--seeds", argv[k++] = seeds;
    argv[k] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        cell_threads(g->jobs);
        execv("/proc/self/exe", (char *const *)argv);
        fprintf(stderr, "experiments: cannot start a cell: %s\n", strerror(errno));
        _exit(127);
    }
    return pid;
}

/* A signal that ends the run (Ctrl-C, kill): the cells running get it too,
 * so none goes on alone; what is done stays done. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

static void stop_cells(const Child *kids, size_t running) {
    for (size_t k = 0; k < running; k++)
        kill(kids[k].pid, stop_signal);
    for (size_t k = 0; k < running; k++)
        waitpid(kids[k].pid, NULL, 0);
    signal(stop_signal, SIG_DFL);
    raise(stop_signal);
}

/* "4m10s" */
static void duration(char *buf, size_t cap, double s) {
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, cap, "%lds", t);
    else
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
}

static int run_grid(Grid *g, const size_t *todo, size_t n_todo, size_t skipped) {
    Child *kids = cli_alloc(&g->cli, g->jobs, sizeof *kids, "the running cells");
    double left_cost = 0.0, done_cost = 0.0, start = clock_seconds();
    for (size_t i = 0; i < n_todo; i++)
        left_cost += g->cells[todo[i]].cost;
    size_t next = 0, running = 0, done = skipped, failed = 0;
    struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: wait() returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    while (next < n_todo || running) {
        if (stop_signal)
            stop_cells(kids, running);
        while (running < g->jobs && next < n_todo && !failed) {
            const ExpCell *c = &g->cells[todo[next]];
            pid_t pid = spawn(g, g->cli.argv[0], c);
            if (pid < 0) {
                fprintf(stderr, "experiments: cannot start cell %s: %s\n", c->id,
                        strerror(errno));
                failed++;
                break;
            }
            kids[running++] = (Child){pid, todo[next++]};
        }
        if (!running)
            break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;
        size_t k = 0;
        while (k < running && kids[k].pid != pid)
            k++;
        if (k == running)
            continue;
        const ExpCell *c = &g->cells[kids[k].cell];
        kids[k] = kids[--running];
        Err e;
        ExpCellFile f;
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                  exp_cell_load(g->cells_dir, &g->set, c, POSENC_SOURCE_ID, &f, &e) == CELL_DONE;
        if (!ok) {
            fprintf(stderr, "experiments: cell %s failed (%s %d); no new cell starts\n", c->id,
                    WIFEXITED(status) ? "exit status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            failed++;
            continue;
        }
        done++;
        done_cost += c->cost, left_cost -= c->cost;
        char left[32];
        duration(left, sizeof left, (clock_seconds() - start) / done_cost * left_cost);
        fprintf(stderr, "experiments: [%3zu/%zu] %-40s %.4f  (%.1f s; about %s left)\n", done,
                g->n, c->id, f.value, f.seconds, left);
        exp_cell_file_free(&f);
    }
    free(kids);
    if (failed) {
        fprintf(stderr, "experiments: %zu cell%s failed; the %zu done are kept: run the same "
                "command again to retry the rest\n", failed, failed == 1 ? "" : "s", done);
        return 1;
    }
    return 0;
}

/* ---- the page, from the cells ---- */

static void write_page(Grid *g) {
    Err e;
    ExpResults res;
    if (exp_results_init(&res, &g->set, &e))
        cli_fail(&g->cli, &e);
    char kernels[64] = "";
    for (size_t i = 0; i < g->n; i++) {
        ExpCellFile f;
        if (exp_cell_load(g->cells_dir, &g->set, &g->cells[i], POSENC_SOURCE_ID, &f, &e) !=
            CELL_DONE) {
            fprintf(stderr, "experiments: cell %s is not done; run the grid to finish it\n",
                    g->cells[i].id);
            exit(1);
        }
        /* OpenBLAS's kernels round differently: one page, one set of them */
        if (!kernels[0])
            snprintf(kernels, sizeof kernels, "%s", f.kernels);
        else if (strcmp(kernels, f.kernels) != 0) {
            fprintf(stderr, "experiments: cell %s ran on OpenBLAS's %s kernels, others on %s; "
                    "set OPENBLAS_CORETYPE alike on every machine and run it again\n",
                    g->cells[i].id, f.kernels, kernels);
            exit(2);
        }
        const ExpCell *c = &g->cells[i];
        /* a scaling cell's own result is rope as trained: "none" */
        exp_record(&res, c->kind, c->task, c->kind == EXP_SCALING ? exp_scaling_names[0] : c->name,
                   c->seed, f.value, f.per_len, f.max_len);
        if (f.per_len_at)
            exp_record(&res, EXP_RANDOM_TEST, c->task, c->name, c->seed, f.value_at,
                       f.per_len_at, f.max_len);
        for (size_t k = 0; k < f.n_extra; k++)
            exp_record(&res, c->kind, c->task, f.extra[k].name, c->seed, f.extra[k].value,
                       f.extra[k].per_len, f.max_len);
        exp_cell_file_free(&f);
    }
    char staging[4096], path[4096 + 32];
    if (publish_stage(g->out, "results", staging, sizeof staging, &e))
        cli_fail(&g->cli, &e);
    snprintf(path, sizeof path, "%s/results", staging);
    make_dir(&g->cli, path);
    snprintf(path, sizeof path, "%s/img", staging);
    make_dir(&g->cli, path);
    snprintf(path, sizeof path, "%s/img/results", staging);
    make_dir(&g->cli, path);
    if (exp_write(&res, staging, &e) || publish_commit(g->out, staging, &e))
        cli_fail(&g->cli, &e);
    exp_results_free(&res);
}

int main(int argc, char **argv) {
    Grid g = {.out = "docs", .cells_dir = NULL};
    cli_init(&g.cli, argc, argv, "experiments");
    const char *cell = NULL;
    bool list = false, missing = false, do_store = false;
    for (const char *arg; (arg = cli_next(&g.cli));) {
        cli_help(&g.cli, USAGE);
        if (cli_flag(&g.cli, "--quick"))
            g.quick = true;
        else if (cli_opt(&g.cli, "--out"))
            g.out = g.cli.val;
        else if (cli_opt(&g.cli, "--cells"))
            g.cells_dir = g.cli.val;
        else if (cli_opt(&g.cli, "--seeds"))
            g.seeds = cli_size(&g.cli, "--seeds", g.cli.val, 2, EXP_MAX_SEEDS);
        else if (cli_opt(&g.cli, "--jobs"))
            g.jobs = cli_size(&g.cli, "--jobs", g.cli.val, 1, 256);
        else if (cli_opt(&g.cli, "--cell"))
            cell = g.cli.val;
        else if (cli_flag(&g.cli, "--list"))
            list = true;
        else if (cli_flag(&g.cli, "--missing"))
            missing = true;
        else if (cli_flag(&g.cli, "--store"))
            do_store = true;
        else
            cli_unknown(&g.cli, arg);
    }
    if ((cell != NULL) + list + do_store > 1)
        cli_usage_error(&g.cli, "--cell, --list and --store are three different jobs; give "
                        "one");
    if (missing && !list)
        cli_usage_error(&g.cli, "--missing goes with --list");
    if (g.cells_dir && strcmp(g.cells_dir, "-") == 0 && !cell)
        cli_usage_error(&g.cli, "--cells - (the record on stdout) goes with --cell ID");
    if (!g.cells_dir)
        g.cells_dir = g.quick ? "build/cells-quick" : "build/cells";
    exp_settings(&g.set, g.quick, g.seeds);
    Err e;
    if (exp_cells(&g.set, &g.cells, &g.n, &e))
        cli_fail(&g.cli, &e);
    if (cell || do_store) {
        if (!cell && strcmp(g.cells_dir, "-") != 0)
            make_dirs(&g.cli, g.cells_dir);
        int rc = cell ? run_cell(&g, cell) : store(&g);
        free(g.cells);
        return rc;
    }
    if (strcmp(g.cells_dir, "-") != 0)
        make_dirs(&g.cli, g.cells_dir);

    /* what is done, what is to run */
    size_t *todo = cli_alloc(&g.cli, g.n, sizeof *todo, "the cells to run");
    size_t n_todo = 0, stale = 0;
    for (size_t i = 0; i < g.n; i++) {
        ExpCellFile f;
        ExpCellState st = exp_cell_load(g.cells_dir, &g.set, &g.cells[i], POSENC_SOURCE_ID,
                                        &f, &e);
        if (st == CELL_DONE)
            exp_cell_file_free(&f);
        else
            todo[n_todo++] = i, stale += st != CELL_MISSING;
    }
    if (list) {
        for (size_t i = 0, k = 0; i < g.n; i++) {
            bool is_todo = k < n_todo && todo[k] == i;
            k += is_todo;
            if (!missing || is_todo)
                printf("%s\n", g.cells[i].id);
        }
        free(todo);
        free(g.cells);
        return 0;
    }

    /* two runs on one page, or on one set of cells, would overwrite each
     * other file by file: the second is refused, as train refuses */
    OutputLock page_lock, cells_lock;
    char page[4096], cells_name[4096];
    make_dirs(&g.cli, g.out);
    snprintf(page, sizeof page, "%s/results.md", g.out);
    snprintf(cells_name, sizeof cells_name, "%s/cells", g.cells_dir);
    if (output_lock(&page_lock, page, "--out", true, &e) ||
        output_lock(&cells_lock, cells_name, "--cells", true, &e) ||
        publish_recover(g.out, "results", &e))
        cli_fail(&g.cli, &e);
    if (!g.jobs)
        g.jobs = cpus_usable();
    fprintf(stderr, "experiments: %zu cells%s (d_model %zu, %zu layers, %zu seeds): %zu done, "
            "skipped; %zu to run%s, %zu at once; threads: %s\n", g.n,
            g.quick ? ", quick settings" : "", g.set.d_model, g.set.layers, g.set.seeds,
            g.n - n_todo, n_todo, stale ? " (some made by other sources or settings)" : "",
            g.jobs, par_describe());
    double t0 = clock_seconds();
    int rc = run_grid(&g, todo, n_todo, g.n - n_todo);
    if (!rc) {
        write_page(&g);
        fprintf(stderr, "experiments: wrote %s/results.md from %zu cells (%zu run now, in %.1f "
                "minutes)\n", g.out, g.n, n_todo, (clock_seconds() - t0) / 60.0);
    }
    output_unlock(&cells_lock);
    output_unlock(&page_lock);
    free(todo);
    free(g.cells);
    return rc;
}
