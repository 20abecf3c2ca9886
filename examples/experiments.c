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
#include "../src/model/kernels.h"
#include "../src/model/par.h"
#include "../src/experiments/cellfile.h"
#include "../src/experiments/grid.h"
#include "../src/experiments/page/page.h"
#include "../src/run/outputs.h"
#include "cli.h"

/* The sources this binary was built from (the Makefile's hash of the C
 * files of src/ and examples/ as they are on disk): a cell made by other
 * sources is run again, and one from another machine refused. A build
 * without it refuses to run (main). */
#ifndef POSENC_SOURCE_ID
#define POSENC_SOURCE_ID "unknown"
#endif

static const char *const USAGE[] = {
    "Usage: experiments [--out DIR] [--cells DIR] [--jobs N] [--quick] [--seeds N]\n"
    "       experiments --list [--missing] [--cells DIR] [--quick] [--seeds N]\n"
    "       experiments --cell ID [--cells DIR|-] [--quick] [--seeds N]\n"
    "       experiments --store [--cells DIR] [--quick] [--seeds N] < RECORDS\n"
    "       experiments --bench [--all-schemes] [any of the above]\n"
    "\n"
    "Runs the experiments of docs/results.md and writes DIR/results.md, its figures\n"
    "DIR/img/results/*.png and the CSV files behind every table, DIR/results/*.csv:\n"
    "  1. order: the permutation test on untrained models, every scheme;\n"
    "  2. who did it (agent) and which came first (direction), every scheme;\n"
    "  3. length generalization: reverse, sort and previous trained on lengths up to\n"
    "     L and tested per length up to 4L, every scheme;\n"
    "  4. the same with and without --random-positions 4L, for the sinusoid, a\n"
    "     learned table and a rotation;\n"
    "  5. interleaved vs split sinusoid, add vs concat, sqrt(d_model) scaling;\n"
    "  6. the long-context scalings of the scheme that has them, before and after\n"
    "     fine-tuning;\n"
    "  7. the causal mask, and a linear probe of position layer by layer.\n"
    "With --bench, the benchmark of docs/benchmark.md instead, a grid of its own:\n"
    "Deletang et al.'s tasks on Ruoss et al.'s protocol (train on inputs of 1..N,\n"
    "test every length N+1..M), every scheme and the randomized forms, into\n"
    "DIR/benchmark.md, DIR/benchmark/*.csv and DIR/img/benchmark/*.png (cells\n"
    "bench-TASK-SCHEME-sK, default folder build/cells-bench; `make benchmark`).\n"
    "\n"
    "Each training is a cell, e.g. lengths-reverse-SCHEME-s2, whose result goes to\n"
    "its own file CELLS/ID.cell (checksummed, and checked field by field when read:\n"
    "a damaged cell runs again). A cell already done (by this build, with these\n"
    "settings) is skipped, so a run stopped anywhere goes on where it stopped; the\n"
    "page is written from the cells' files once all are done, and replaces the old\n"
    "page, CSVs and figures as one set. A cell's numbers do not depend on --jobs or\n"
    "on threads. `make experiments` runs the whole grid into docs/ (JOBS=N, HOSTS=FILE\n"
    "for other machines: docs/experiments.md); `make experiments QUICK=1` the same\n"
    "pipeline on tiny settings into build/experiments-quick/.\n"
    "\n",
    "Options:\n"
    "  --out DIR             where to write the page (default docs, or\n"
    "                        build/experiments-quick with --quick; created if\n"
    "                        missing); --quick never writes over a full grid's page\n"
    "  --cells DIR           the cells' files (default build/cells, or\n"
    "                        build/cells-quick with --quick); a folder holds one\n"
    "                        grid's cells (DIR/grid.settings) and refuses another's\n"
    "  --jobs N              cells at once, 1..256 (default: the CPUs this process may\n"
    "                        use); each runs on the threads left free\n"
    "  --quick               tiny models and few steps: checks the pipeline, not\n"
    "                        the schemes (the page in build/benchmark-quick with\n"
    "                        --bench)\n"
    "  --bench               the benchmark's grid and page (above)\n"
    "  --all-schemes         with --bench: the registry's other schemes too, each\n"
    "                        with our columns' seeds (--list names their cells);\n"
    "                        the page in build/benchmark-all by default, the cells\n"
    "                        beside the standard run's\n"
    "  --seeds N             seeds per configuration, 2..20 (default 10; 2 with\n"
    "                        --quick; with --bench, the columns that are not Ruoss\n"
    "                        et al.'s get at most 5); each seed draws the weights,\n"
    "                        the batch order and the data; cells of the first\n"
    "                        seeds are kept\n"
    "  --list                print the cells' names, one per line, and stop\n"
    "  --missing             with --list: only the cells not done yet\n"
    "  --cell ID             run that one cell and write CELLS/ID.cell; with\n"
    "                        --cells - print its record on stdout instead\n"
    "  --store               read cell records (what --cell ID --cells - prints) from\n"
    "                        stdin and write each to CELLS/ID.cell as soon as it is\n"
    "                        whole; a damaged record, or one made by other sources\n"
    "                        or settings, is refused and the others stored\n"
    "  --help                show this help\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options, a cells folder of another grid or\n"
    "refused records, 1 when a cell fails (the cells done are kept); a run stopped by\n"
    "a signal while it publishes finishes the page, then ends with the signal's\n"
    "status. A signal ignored on entry (nohup) stays ignored.\n",
    NULL};

typedef struct {
    Cli cli;
    ExpSettings set;
    ExpCell *cells;
    size_t n;
    const char *cells_dir, *out;
    const char *page; /* "results", or "benchmark" with --bench: DIR/PAGE.md */
    bool quick, bench, all_schemes;
    size_t seeds, jobs;
    /* the job: one cell (--cell ID), storing records (--store), listing
     * the cells (--list, --missing), or else the whole grid */
    const char *cell;
    bool do_store, list, missing;
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

static bool writable(const char *dir) { return access(dir, W_OK) == 0; }

/* The options that name this grid, as --list wants them: " --bench
 * --quick --seeds 4" */
static void grid_options(char *buf, size_t cap, const Grid *g) {
    snprintf(buf, cap, "%s%s%s", g->bench ? " --bench" : "", g->all_schemes ? " --all-schemes"
             : "", g->quick ? " --quick" : "");
    if (g->seeds)
        snprintf(buf + strlen(buf), cap - strlen(buf), " --seeds %zu", g->seeds);
}

/* ---- one cell, here ---- */

static int run_cell(Grid *g, const char *id) {
    const ExpCell *cell = exp_cell_find(g->cells, g->n, id);
    if (!cell) {
        char list[160];
        grid_options(list, sizeof list, g);
        cli_usage_error(&g->cli, "no cell of this grid is named '%s'; `experiments --list%s` "
                        "names them", id, list);
    }
    /* the folder is checked before the work, not after it */
    if (strcmp(g->cells_dir, "-") != 0 && !writable(g->cells_dir)) {
        fprintf(stderr, "experiments: cannot write the cell into %s: %s; make it writable, "
                "or give another --cells folder (or --cells - for the record on stdout)\n",
                g->cells_dir, strerror(errno));
        exit(2);
    }
    Err e;
    ExpCellResult res;
    double t0 = clock_seconds();
    if (exp_cell_run(&g->set, cell, &res, &e))
        cli_fail(&g->cli, &e);
    Buf b = {0};
    int rc = exp_cell_format(&b, &g->set, cell, &res, POSENC_SOURCE_ID, kernels_name(),
                             clock_seconds() - t0);
    exp_cell_result_free(&res);
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

/* Each record is stored as soon as its last line arrives: a run stopped
 * midway keeps every record that came whole. */
static int store(Grid *g) {
    if (!writable(g->cells_dir)) {
        fprintf(stderr, "experiments: --store: cannot write into %s: %s; make it writable, or "
                "give another --cells folder (no record was read)\n", g->cells_dir,
                strerror(errno));
        return 2;
    }
    Err e;
    ExpRecordReader r = {0};
    size_t stored = 0, refused = 0, failed = 0, cap = 0;
    char *line = NULL;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        int k = exp_record_line(&r, line, (size_t)len, &e);
        if (k == EXP_RECORD_BAD) {
            fprintf(stderr, "experiments: --store: %s\n", e.msg);
            refused++;
        } else if (k == EXP_RECORD_DONE) {
            char id[96];
            int rc = exp_cell_store(g->cells_dir, &g->set, g->cells, g->n, POSENC_SOURCE_ID,
                                    (const char *)r.text.p, r.text.n, id, sizeof id, &e);
            if (rc == 0)
                fprintf(stderr, "experiments: stored %s\n", id), stored++;
            else if (rc == ERR_INPUT)
                fprintf(stderr, "experiments: --store: the record of %s refused: %s\n", id,
                        e.msg), refused++;
            else /* the disk, not the record */
                fprintf(stderr, "experiments: --store: %s\n", e.msg), failed++;
        }
    }
    if (ferror(stdin)) {
        fprintf(stderr, "experiments: --store: reading the standard input failed: %s\n",
                strerror(errno));
        failed++;
    }
    if (exp_record_end(&r, &e)) {
        fprintf(stderr, "experiments: --store: %s\n", e.msg);
        refused++;
    }
    free(line);
    exp_record_reader_free(&r);
    fprintf(stderr, "experiments: stored %zu cell records in %s", stored, g->cells_dir);
    if (refused + failed)
        fprintf(stderr, "; %zu refused or damaged, %zu not written (above): their cells are "
                "still missing\n", refused, failed);
    else
        fprintf(stderr, "\n");
    return failed ? 1 : refused ? 2 : 0;
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
    /* one cell at a time: the library's own team, which follows the load
     * (a count set here would be taken as the user's, and kept however
     * busy the machine: waiting threads spin) */
    if (per >= cpus)
        return;
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
    if (g->bench)
        argv[k++] = "--bench";
    if (g->all_schemes)
        argv[k++] = "--all-schemes";
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

/* A signal that ends the run (Ctrl-C, kill, a hang-up): the cells running
 * get it too, so none goes on alone; what is done stays done. One that
 * comes while the page is published ends the run once the set is in
 * place. A signal ignored on entry (nohup) stays ignored, here and, through
 * exec, in the cells. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

static void catch_stop_signals(void) {
    static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof SIGS / sizeof *SIGS; i++) {
        struct sigaction old, sa = {.sa_handler = on_stop}; /* no SA_RESTART: wait() returns */
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGS[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(SIGS[i], &sa, NULL);
    }
}

/* Ends the process as the signal that stopped it would have. */
static void die_of_signal(void) {
    signal(stop_signal, SIG_DFL);
    raise(stop_signal);
    _exit(128 + stop_signal);
}

static void stop_cells(const Child *kids, size_t running) {
    for (size_t k = 0; k < running; k++)
        kill(kids[k].pid, stop_signal);
    for (size_t k = 0; k < running; k++)
        waitpid(kids[k].pid, NULL, 0);
    die_of_signal();
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
        bool exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!exited || exp_cell_load(g->cells_dir, &g->set, c, POSENC_SOURCE_ID, &f, &e) !=
                           CELL_DONE) {
            if (exited) /* it ran, but its file is not what it should be */
                fprintf(stderr, "experiments: cell %s failed: %s/%s.cell: %s; no new cell "
                        "starts\n", c->id, g->cells_dir, c->id, e.msg);
            else
                fprintf(stderr, "experiments: cell %s failed (%s %d); no new cell starts\n",
                        c->id, WIFEXITED(status) ? "exit status" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            failed++;
            continue;
        }
        done++;
        done_cost += c->cost, left_cost -= c->cost;
        char left[32];
        duration(left, sizeof left, (clock_seconds() - start) / done_cost * left_cost);
        fprintf(stderr, "experiments: [%3zu/%zu] %-40s %.4f  (%.1f s; about %s left)\n", done,
                g->n, c->id, f.res.series[0].value, f.seconds, left);
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

/* OpenBLAS's kernels round differently: one page, one set of them. Those
 * of fewer cells than the most common set are to be run again: says which
 * and exits 2. */
static void check_kernels(const Grid *g, const ExpCellFile *f) {
    size_t most = 0, n_most = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t n = 0;
        for (size_t j = 0; j < g->n; j++)
            n += strcmp(f[i].kernels, f[j].kernels) == 0;
        if (n > n_most)
            most = i, n_most = n;
    }
    if (n_most == g->n)
        return;
    fprintf(stderr, "experiments: %zu cells ran on other OpenBLAS kernels than the %zu of %s; "
            "one page takes one set: delete them and run again with OPENBLAS_CORETYPE=%s on "
            "every machine (the Makefile sets it where the CPU has AVX2):\n  rm",
            g->n - n_most, n_most, f[most].kernels, f[most].kernels);
    for (size_t i = 0, shown = 0; i < g->n; i++)
        if (strcmp(f[i].kernels, f[most].kernels) != 0 && shown++ < 8)
            fprintf(stderr, " %s/%s.cell", g->cells_dir, g->cells[i].id);
    fprintf(stderr, "%s\n", g->n - n_most > 8 ? " ..." : "");
    exit(2);
}

/* The page from every cell's file: each series of a cell is a run of the
 * page's (a scaling cell's main series is rope as trained, "none"), in
 * the order of the page's list, where a cell another holds reads its
 * holder's file. */
static void write_page(Grid *g) {
    Err e;
    ExpResults res;
    ExpCellFile *f = cli_alloc(&g->cli, g->n, sizeof *f, "the cells' results");
    for (size_t i = 0; i < g->n; i++)
        if (exp_cell_load(g->cells_dir, &g->set, &g->cells[i], POSENC_SOURCE_ID, &f[i], &e) !=
            CELL_DONE) {
            fprintf(stderr, "experiments: cell %s is not done (%s/%s.cell: %s); run the grid "
                    "to finish it\n", g->cells[i].id, g->cells_dir, g->cells[i].id, e.msg);
            exit(1);
        }
    check_kernels(g, f);
    if (exp_results_init(&res, &g->set, &e))
        cli_fail(&g->cli, &e);
    const char *p = g->page;
    ExpCell *page;
    size_t n_page;
    if (exp_page_cells(&g->set, &page, &n_page, &e))
        cli_fail(&g->cli, &e);
    for (size_t i = 0; i < n_page; i++) {
        const ExpCell *c = &page[i];
        const ExpCell *from = exp_cell_find(g->cells, g->n, c->held_by[0] ? c->held_by : c->id);
        exp_results_add_cell(&res, c, &f[from - g->cells].res);
    }
    free(page);
    for (size_t i = 0; i < g->n; i++)
        exp_cell_file_free(&f[i]);
    free(f);
    char staging[4096], path[4096 + 32];
    if (publish_stage(g->out, p, staging, sizeof staging, &e))
        cli_fail(&g->cli, &e);
    snprintf(path, sizeof path, "%s/%s", staging, p);
    make_dir(&g->cli, path);
    snprintf(path, sizeof path, "%s/img", staging);
    make_dir(&g->cli, path);
    snprintf(path, sizeof path, "%s/img/%s", staging, p);
    make_dir(&g->cli, path);
    if ((g->bench ? exp_bench_write(&res, staging, &e) : exp_write(&res, staging, &e)) ||
        publish_commit(g->out, staging, &e))
        cli_fail(&g->cli, &e);
    exp_results_free(&res);
}

/* A page is written only where there is none, or over one its own grid
 * made: the first `make ...` command in a page's head names the grid that
 * made it (the page writers say so in their first paragraphs). So the
 * quick grid never writes over a full grid's page, nor every scheme's page
 * over the standard one, nor any run over a file of someone else's; and
 * the quick grid, whose numbers say nothing, never writes into docs/. */
static void refuse_other_page(const Grid *g) {
    char path[4096], ours[64];
    snprintf(path, sizeof path, "%s/%s.md", g->out, g->page);
    exp_grid_make(ours, sizeof ours, &g->set);
    const char *slash = strrchr(g->out, '/');
    if (g->quick && strcmp(slash ? slash + 1 : g->out, "docs") == 0) {
        fprintf(stderr, "experiments: --quick writes tiny models' numbers, never into docs/: "
                "give --quick another --out (its default is %s)\n", exp_grid_out(&g->set));
        exit(2);
    }
    FILE *in = fopen(path, "rb");
    if (!in)
        return; /* no page yet (a folder in the way is publishing's to refuse) */
    char head[4096];
    size_t n = fread(head, 1, sizeof head - 1, in);
    head[n] = '\0';
    fclose(in);
    const char *from = strstr(head, "`make ");
    size_t len = from ? strcspn(from + 1, "`\n") : 0;
    if (from && len == strlen(ours) && strncmp(from + 1, ours, len) == 0)
        return;
    if (from)
        fprintf(stderr, "experiments: %s was made by `%.*s`, and this run is `%s`: one page, "
                "one grid; give this run another --out (its default is %s)\n", path,
                (int)len, from + 1, ours, exp_grid_out(&g->set));
    else
        fprintf(stderr, "experiments: %s is not a page this program wrote (it names no `make "
                "...` command in its first lines): give this run another --out, or move that "
                "file away\n", path);
    exit(2);
}

/* ---- parse, check, run ---- */

static void parse(Grid *g, int argc, char **argv) {
    cli_init(&g->cli, argc, argv, "experiments");
    for (const char *arg; (arg = cli_next(&g->cli));) {
        cli_help(&g->cli, USAGE);
        if (cli_flag(&g->cli, "--quick"))
            g->quick = true;
        else if (cli_flag(&g->cli, "--bench"))
            g->bench = true;
        else if (cli_flag(&g->cli, "--all-schemes"))
            g->all_schemes = true;
        else if (cli_opt(&g->cli, "--out"))
            g->out = g->cli.val;
        else if (cli_opt(&g->cli, "--cells"))
            g->cells_dir = g->cli.val;
        else if (cli_opt(&g->cli, "--seeds"))
            g->seeds = cli_size(&g->cli, "--seeds", g->cli.val, 2, EXP_MAX_SEEDS);
        else if (cli_opt(&g->cli, "--jobs"))
            g->jobs = cli_size(&g->cli, "--jobs", g->cli.val, 1, 256);
        else if (cli_opt(&g->cli, "--cell"))
            g->cell = g->cli.val;
        else if (cli_flag(&g->cli, "--list"))
            g->list = true;
        else if (cli_flag(&g->cli, "--missing"))
            g->missing = true;
        else if (cli_flag(&g->cli, "--store"))
            g->do_store = true;
        else
            cli_unknown(&g->cli, arg);
    }
}

static bool whole_grid(const Grid *g) { return !g->cell && !g->do_store && !g->list; }

/* The options together, the defaults, the grid's cells, and the cells
 * folder: it holds this grid's cells, or is claimed for them. */
static void check(Grid *g) {
    if ((g->cell != NULL) + g->list + g->do_store > 1)
        cli_usage_error(&g->cli, "--cell, --list and --store are three different jobs; give "
                        "one");
    if (g->missing && !g->list)
        cli_usage_error(&g->cli, "--missing goes with --list");
    if (g->all_schemes && !g->bench)
        cli_usage_error(&g->cli, "--all-schemes goes with --bench");
    if (g->cells_dir && strcmp(g->cells_dir, "-") == 0 && !g->cell)
        cli_usage_error(&g->cli, "--cells - (the record on stdout) goes with --cell ID");
    g->page = g->bench ? "benchmark" : "results";
    if (g->bench) {
        exp_settings_bench(&g->set, g->quick, g->seeds);
        if (g->all_schemes)
            g->set.bench_columns = exp_bench_all();
    } else
        exp_settings(&g->set, g->quick, g->seeds);
    if (!g->cells_dir)
        g->cells_dir = exp_grid_cells(&g->set);
    if (!g->out)
        g->out = exp_grid_out(&g->set);
    Err e;
    if (exp_cells(&g->set, &g->cells, &g->n, &e))
        cli_fail(&g->cli, &e);
    if (whole_grid(g))
        refuse_other_page(g);
    if (strcmp(g->cells_dir, "-") != 0) {
        /* a folder holds one grid's cells (--list only reads) */
        if (!g->list)
            make_dirs(&g->cli, g->cells_dir);
        if (exp_cells_dir_check(g->cells_dir, &g->set, !g->list && writable(g->cells_dir), &e))
            cli_fail(&g->cli, &e);
    }
}

/* The cells not done yet into todo (in the grid's order); *stale counts
 * those whose file is there but made by other sources or settings, or
 * damaged (each damaged one named). */
static size_t find_todo(const Grid *g, size_t *todo, size_t *stale) {
    size_t n_todo = 0;
    *stale = 0;
    for (size_t i = 0; i < g->n; i++) {
        Err e;
        ExpCellFile f;
        ExpCellState st = exp_cell_load(g->cells_dir, &g->set, &g->cells[i], POSENC_SOURCE_ID,
                                        &f, &e);
        if (st == CELL_DONE) {
            exp_cell_file_free(&f);
            continue;
        }
        if (st == CELL_DAMAGED)
            fprintf(stderr, "experiments: %s/%s.cell is damaged: %s; it runs again\n",
                    g->cells_dir, g->cells[i].id, e.msg);
        todo[n_todo++] = i, *stale += st != CELL_MISSING;
    }
    return n_todo;
}

static void list_cells(const Grid *g, const size_t *todo, size_t n_todo) {
    for (size_t i = 0, k = 0; i < g->n; i++) {
        bool is_todo = k < n_todo && todo[k] == i;
        k += is_todo;
        if (!g->missing || is_todo)
            printf("%s\n", g->cells[i].id);
    }
}

/* The cells to run, here, then the page from every cell. Two runs on one
 * page, or on one set of cells, would overwrite each other file by file:
 * the second is refused, as train refuses. A folder of cells all done is
 * only read: it may be read-only. */
static int run_here(Grid *g, const size_t *todo, size_t n_todo, size_t stale) {
    Err e;
    OutputLock page_lock, cells_lock = {.fd = -1};
    char page[4096], cells_name[4096];
    bool cells_writable = writable(g->cells_dir);
    if (n_todo && !cells_writable) {
        fprintf(stderr, "experiments: %zu cells are to run and %s is not writable: make it "
                "writable, or give another --cells folder\n", n_todo, g->cells_dir);
        exit(2);
    }
    make_dirs(&g->cli, g->out);
    snprintf(page, sizeof page, "%s/%s.md", g->out, g->page);
    snprintf(cells_name, sizeof cells_name, "%s/cells", g->cells_dir);
    if (output_lock(&page_lock, page, "--out", true, &e) ||
        (cells_writable && output_lock(&cells_lock, cells_name, "--cells", true, &e)) ||
        publish_recover(g->out, g->page, &e))
        cli_fail(&g->cli, &e);
    if (!g->jobs)
        g->jobs = cpus_usable();
    fprintf(stderr, "experiments: %zu cells%s (d_model %zu, %zu layers, %zu seeds): %zu done, "
            "skipped; %zu to run%s, %zu at once; threads: %s\n", g->n,
            g->quick ? ", quick settings" : "", g->set.d_model, g->set.layers, g->set.seeds,
            g->n - n_todo, n_todo, stale ? " (some made by other sources or settings, or "
            "damaged)" : "", g->jobs, par_describe());
    double t0 = clock_seconds();
    int rc = run_grid(g, todo, n_todo, g->n - n_todo);
    if (!rc) {
        write_page(g);
        fprintf(stderr, "experiments: wrote %s/%s.md from %zu cells (%zu run now, in %.1f "
                "minutes)\n", g->out, g->page, g->n, n_todo, (clock_seconds() - t0) / 60.0);
    }
    if (cells_lock.fd >= 0)
        output_unlock(&cells_lock);
    output_unlock(&page_lock);
    return rc;
}

int main(int argc, char **argv) {
    Grid g = {0};
    parse(&g, argc, argv);
    /* a cell names the sources that made it; without a name, cells of
     * other sources would count as done */
    if (strcmp(POSENC_SOURCE_ID, "unknown") == 0) {
        fprintf(stderr, "experiments: this build does not know its sources (it was built "
                "without the Makefile's source id): build it with make\n");
        return 2;
    }
    check(&g);
    if (g.cell || g.do_store) {
        int rc = g.cell ? run_cell(&g, g.cell) : store(&g);
        free(g.cells);
        return rc;
    }
    if (whole_grid(&g))
        catch_stop_signals();
    size_t *todo = cli_alloc(&g.cli, g.n, sizeof *todo, "the cells to run"), stale;
    size_t n_todo = find_todo(&g, todo, &stale);
    int rc = 0;
    if (g.list)
        list_cells(&g, todo, n_todo);
    else
        rc = run_here(&g, todo, n_todo, stale);
    free(todo);
    free(g.cells);
    if (stop_signal)
        die_of_signal();
    return rc;
}
