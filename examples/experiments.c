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
#include <unistd.h>

#include "../src/core/clock.h"
#include "../src/core/cpus.h"
#include "../src/model/kernels.h"
#include "../src/model/par.h"
#include "../src/experiments/cellfile.h"
#include "../src/experiments/grid.h"
#include "../src/experiments/page/page.h"
#include "../src/experiments/places.h"
#include "../src/experiments/protocol.h"
#include "../src/experiments/runner.h"
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
    "bench-TASK-SCHEME-sK, default folder docs/benchmark/cells; `make benchmark`).\n"
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
    "                        grid's cells (DIR/grid.settings) and refuses another's;\n"
    "                        the benchmark's committed folders (docs/benchmark/\n"
    "                        cells) take no cells of --all-schemes or other seeds\n"
    "  --jobs N              cells at once, 1..256 (default: the CPUs this process may\n"
    "                        use); each runs on the threads left free\n"
    "  --quick               tiny models and few steps: checks the pipeline, not\n"
    "                        the schemes (the page in build/benchmark-quick with\n"
    "                        --bench)\n"
    "  --bench               the benchmark's grid and page (above)\n"
    "  --all-schemes         with --bench: the registry's other schemes too, each\n"
    "                        with our columns' seeds (--list names their cells);\n"
    "                        the page in build/benchmark-all and the cells in\n"
    "                        build/cells-bench-all by default\n"
    "  --seeds N             seeds per configuration, 2..20 (default 10; with\n"
    "                        --bench 3; 2 with --quick; with --bench, the columns\n"
    "                        that are not Ruoss et al.'s get at most 5); each seed\n"
    "                        draws the weights, the batch order and the data; cells\n"
    "                        of the first seeds are kept; a page of other seeds than\n"
    "                        the default goes to a folder of its own, e.g.\n"
    "                        build/benchmark-seeds-5 (the benchmark's cells to\n"
    "                        build/cells-bench-seeds)\n"
    "  --set K=V[,K=V...]    with --bench: the protocol changed, each K once (lists\n"
    "                        of rates or tasks separated by /); its cells go to\n"
    "                        build/cells-bench-set and its page to\n"
    "                        build/benchmark-set (with --quick, ...-quick-set)\n"
    "                        unless --cells and --out say where; a page is written\n"
    "                        only over a page of its own grid (the same changes,\n"
    "                        seeds, --quick and --all-schemes).\n"
    "                        The settings and what a cell costs: docs/experiments.md\n", EXP_PROTOCOL_HELP,
    "  --retrain             with --bench: run again the cells another build made;\n"
    "                        without it they count as done (the benchmark's cells\n"
    "                        are committed, docs/benchmark/cells: `make benchmark`\n"
    "                        builds the page from them; each names its build)\n"
    "  --sparser DIR         with --bench: the cells of this grid with its random\n"
    "                        positions from a wider range (DIR/grid.settings names\n"
    "                        it), read for the page's section \"sparser positions\"\n"
    "                        (the standard grid reads docs/benchmark/range2048 when\n"
    "                        it is there)\n"
    "  --from-cells          write the page from the cells' files alone, training\n"
    "                        none: a cell missing or damaged is named, exit 2 (CI\n"
    "                        rebuilds the benchmark's page from its committed\n"
    "                        cells so)\n"
    "  --list                print the cells' names, one per line, and stop\n"
    "  --missing             with --list: only the cells not done yet (the work\n"
    "                        before a page: its templates are checked first)\n"
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
    const char *protocol; /* --set: the benchmark's protocol changed, or NULL */
    bool retrain;         /* --retrain: the benchmark's cells of other builds run again */
    bool from_cells;      /* --from-cells: the page from the cells alone, none trained */
    const char *sparser;  /* --sparser DIR, or the standard grid's folder when it is there */
    /* the job: one cell (--cell ID), storing records (--store), listing
     * the cells (--list, --missing), or else the whole grid */
    const char *cell;
    bool do_store, list, missing;
    char seeds_text[32];
    char out_default[256];
} Grid;

/* The grid as the runner runs it (src/experiments/runner.h). */
static ExpRunner runner(Grid *g) {
    ExpRunner r = {.set = g->set, .cells = g->cells, .n = g->n, .cells_dir = g->cells_dir,
                   .out = g->out, .page = g->page, .exe = g->cli.argv[0],
                   .source = POSENC_SOURCE_ID, .jobs = g->jobs,
                   .any_source = g->bench && !g->retrain, .from_cells = g->from_cells,
                   .sparser_dir = g->sparser};
    size_t k = 0;
    if (g->quick)
        r.args[k++] = "--quick";
    if (g->bench)
        r.args[k++] = "--bench";
    if (g->all_schemes)
        r.args[k++] = "--all-schemes";
    if (g->seeds) {
        snprintf(g->seeds_text, sizeof g->seeds_text, "%zu", g->seeds);
        r.args[k++] = "--seeds", r.args[k++] = g->seeds_text;
    }
    if (g->protocol)
        r.args[k++] = "--set", r.args[k++] = g->protocol;
    r.args[k] = NULL;
    return r;
}

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
    if (g->protocol)
        snprintf(buf + strlen(buf), cap - strlen(buf), " --set '%s'", g->protocol);
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

/* ---- the grid, here, several cells at once ---- */

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

/* A page is written only where there is none, or over one its own grid
 * made: the first `make ...` command in a page's head names the grid that
 * made it (the page writers say so in their first paragraphs). So the
 * quick grid never writes over a full grid's page, nor every scheme's page
 * over the standard one, nor any run over a file of someone else's; and
 * the quick grid, whose numbers say nothing, never writes into docs/. */
static void refuse_other_page(const Grid *g) {
    char path[4096], ours[EXP_GRID_TEXT + 64], out[256];
    snprintf(path, sizeof path, "%s/%s.md", g->out, g->page);
    exp_grid_make(ours, sizeof ours, &g->set);
    exp_grid_out(out, sizeof out, &g->set);
    const char *slash = strrchr(g->out, '/');
    if (g->quick && strcmp(slash ? slash + 1 : g->out, "docs") == 0) {
        fprintf(stderr, "experiments: --quick writes tiny models' numbers, never into docs/: "
                "give --quick another --out (its default is %s)\n", out);
        exit(2);
    }
    FILE *in = fopen(path, "rb");
    if (!in)
        return; /* no page yet (a folder in the way is publishing's to refuse) */
    char head[8192];
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
                (int)len, from + 1, ours, out);
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
        else if (cli_opt(&g->cli, "--set"))
            g->protocol = g->cli.val;
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
        else if (cli_flag(&g->cli, "--retrain"))
            g->retrain = true;
        else if (cli_flag(&g->cli, "--from-cells"))
            g->from_cells = true;
        else if (cli_opt(&g->cli, "--sparser"))
            g->sparser = g->cli.val;
        else
            cli_unknown(&g->cli, arg);
    }
}

static bool whole_grid(const Grid *g) { return !g->cell && !g->do_store && !g->list; }

/* A committed cells folder (docs/benchmark/cells, the sparser companion's)
 * holds a whole grid, the standard one's, which the page and CI's referee
 * read: another grid (--all-schemes, other seeds) would add cells to it,
 * and is refused before it writes anything (--list and --from-cells only
 * read). Its settings are checked as any folder's are (cellsdir.c). */
static void refuse_committed(const Grid *g) {
    const char *committed = exp_grid_committed(g->cells_dir);
    if (!committed || exp_grid_may_commit(&g->set) || g->list || g->from_cells)
        return;
    char make[EXP_GRID_TEXT];
    exp_grid_make(make, sizeof make, &g->set);
    cli_usage_error(&g->cli, "--cells %s is the benchmark's committed folder %s, the standard "
                    "grid's cells (a whole grid, which its page and CI's referee read), and "
                    "this run is another grid, `%s`, whose cells would join them; leave out "
                    "--cells (this grid's own folder is %s), or give another folder",
                    g->cells_dir, committed, make, exp_grid_cells(&g->set));
}

/* The options together, the defaults, the grid's cells, and the cells
 * folder: it holds this grid's cells, or is claimed for them. */
static void check(Grid *g) {
    if ((g->cell != NULL) + g->list + g->do_store > 1)
        cli_usage_error(&g->cli, "--cell, --list and --store are three different jobs; give "
                        "one");
    if (g->missing && !g->list)
        cli_usage_error(&g->cli, "--missing goes with --list");
    if (g->from_cells && !whole_grid(g))
        cli_usage_error(&g->cli, "--from-cells writes the page from the cells; it does not go "
                        "with --cell, --list or --store");
    if (g->from_cells && g->retrain)
        cli_usage_error(&g->cli, "--from-cells trains nothing, and --retrain trains again: "
                        "give one");
    if (g->all_schemes && !g->bench)
        cli_usage_error(&g->cli, "--all-schemes goes with --bench");
    if (g->retrain && !g->bench)
        cli_usage_error(&g->cli, "--retrain goes with --bench (the results grid always runs "
                        "again the cells another build made)");
    if (g->protocol && !g->bench)
        cli_usage_error(&g->cli, "--set changes the benchmark's protocol: it goes with --bench");
    if (g->sparser && (!g->bench || !whole_grid(g)))
        cli_usage_error(&g->cli, "--sparser DIR is read for the benchmark's page: it goes with "
                        "--bench, and not with --cell, --list or --store");
    if (g->cells_dir && strcmp(g->cells_dir, "-") == 0 && !g->cell)
        cli_usage_error(&g->cli, "--cells - (the record on stdout) goes with --cell ID");
    g->page = g->bench ? "benchmark" : "results";
    Err e;
    if (g->bench) {
        exp_settings_bench(&g->set, g->quick, g->seeds);
        if (g->all_schemes)
            g->set.bench_columns = exp_bench_all(&g->set);
        if (g->protocol && exp_bench_set(&g->set, g->protocol, &e))
            cli_fail(&g->cli, &e);
    } else
        exp_settings(&g->set, g->quick, g->seeds);
    /* another grid's cells and page go beside the standard run's, never
     * over them (grid.h) */
    if (!g->cells_dir)
        g->cells_dir = exp_grid_cells(&g->set);
    if (!g->out) {
        exp_grid_out(g->out_default, sizeof g->out_default, &g->set);
        g->out = g->out_default;
    }
    if (exp_cells(&g->set, &g->cells, &g->n, &e))
        cli_fail(&g->cli, &e);
    /* the sparser companion: named, it must be there; the standard grid's
     * is read when it is */
    struct stat st;
    const char *sparser = g->bench ? exp_grid_sparser(&g->set) : NULL;
    if (!g->sparser && sparser && stat(sparser, &st) == 0)
        g->sparser = sparser;
    else if (g->sparser && (stat(g->sparser, &st) != 0 || !S_ISDIR(st.st_mode))) {
        err_set(&e, ERR_INPUT, "--sparser %s: no such folder of cells", g->sparser);
        cli_fail(&g->cli, &e);
    }
    if (whole_grid(g))
        refuse_other_page(g);
    /* the page's words, read and checked before the first cell trains: a
     * missing or broken template folder is named now, not after the
     * grid's hours (the page is filled from what is read here); --list
     * --missing too, the plan of a run on other hosts (grid_hosts.sh) */
    if ((whole_grid(g) || (g->list && g->missing)) && exp_page_templates(&e))
        cli_fail(&g->cli, &e);
    if (strcmp(g->cells_dir, "-") != 0) {
        refuse_committed(g);
        /* a folder holds one grid's cells (--list only reads) */
        if (!g->list)
            make_dirs(&g->cli, g->cells_dir);
        if (exp_cells_dir_check(g->cells_dir, &g->set, !g->list && writable(g->cells_dir), &e))
            cli_fail(&g->cli, &e);
    }
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
/* --from-cells: the page is made from the cells alone, so a cell that is
 * not there as a sound record stops the run before anything is written,
 * named, with the two ways out; nothing trains. */
static void refuse_missing_cells(const Grid *g, const size_t *todo, size_t n_todo) {
    if (!g->from_cells || !n_todo)
        return;
    fprintf(stderr, "experiments: --from-cells: %zu of the %zu cells are not in %s as sound "
            "records (", n_todo, g->n, g->cells_dir);
    for (size_t k = 0; k < n_todo && k < 4; k++)
        fprintf(stderr, "%s%s", k ? ", " : "", g->cells[todo[k]].id);
    fprintf(stderr, "%s; a damaged one is named above), and the page is made from the cells "
            "alone: restore them (git checkout -- %s, where they are committed), or run "
            "without --from-cells to train them\n", n_todo > 4 ? ", ..." : "", g->cells_dir);
    exit(2);
}

static int run_here(Grid *g, const size_t *todo, size_t n_todo, size_t stale) {
    Err e;
    refuse_missing_cells(g, todo, n_todo);
    OutputLock page_lock, cells_lock = {.fd = -1};
    char page[4096];
    bool cells_writable = writable(g->cells_dir);
    if (n_todo && !cells_writable) {
        fprintf(stderr, "experiments: %zu cells are to run and %s is not writable: make it "
                "writable, or give another --cells folder\n", n_todo, g->cells_dir);
        exit(2);
    }
    make_dirs(&g->cli, g->out);
    snprintf(page, sizeof page, "%s/%s.md", g->out, g->page);
    if (output_lock(&page_lock, page, "--out", true, &e) ||
        (cells_writable && output_lock_folder(&cells_lock, g->cells_dir, "cells", "--cells",
                                              &e)) ||
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
    ExpRunner r = runner(g);
    e = (Err){0};
    int rc = exp_run_cells(&r, todo, n_todo, g->n - n_todo, &stop_signal, &e);
    if (stop_signal) /* the cells that ran were stopped too: what is done stays done */
        die_of_signal();
    bool failed = rc == ERR_RUNTIME && e.msg[0];
    /* a signal now ends the run once the set is in place (main) */
    if (!rc && !(failed = exp_publish_page(&r, &e) != 0))
        fprintf(stderr, "experiments: wrote %s/%s.md from %zu cells (%zu run now, in %.1f "
                "minutes)\n", g->out, g->page, g->n, n_todo, (clock_seconds() - t0) / 60.0);
    /* the locks go whatever happened: a failed run leaves no file behind */
    if (cells_lock.fd >= 0)
        output_unlock(&cells_lock);
    output_unlock(&page_lock);
    if (failed)
        cli_fail(&g->cli, &e);
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
        ExpRunner r = runner(&g);
        int rc = g.cell ? run_cell(&g, g.cell) : exp_store_records(&r, stdin);
        free(g.cells);
        return rc;
    }
    if (whole_grid(&g))
        catch_stop_signals();
    ExpRunner r = runner(&g);
    size_t *todo = cli_alloc(&g.cli, g.n, sizeof *todo, "the cells to run"), stale;
    size_t n_todo = exp_find_todo(&r, todo, &stale);
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
