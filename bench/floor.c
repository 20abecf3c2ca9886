/* floor: how near a cell of the grids comes to the machine's arithmetic
 * floor (make floor CELL=ID; bench/README.md).
 *
 * It runs the cell as `experiments --cell ID` does, on the thread count it
 * is given (make floor gives one), counting the floating-point operations
 * of the model's matrix products from their shapes (matmul_counted: the
 * products as the code makes them, so that a kernel doing one's work by
 * other means leaves the count alone). In the same run it measures one
 * core's sgemm peak, 1024^3 on the kernels the programs pin, best of a
 * few calls. The floor is the count at that peak; the fraction, the floor
 * over the cell's CPU seconds. --paper-size trains the cell at Ruoss et
 * al.'s size (5 layers, width 64, 8 heads, d_ff 256) instead of the grid's. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/clock.h"
#include "../src/core/rng.h"
#include "../src/experiments/cell.h"
#include "../src/experiments/grid.h"
#include "../src/model/attention.h"
#include "../src/model/kernels.h"
#include "../src/model/matmul.h"
#include "../src/model/par.h"
#include "../examples/cli.h"

/* The help, as the programs' (examples/cli.c parses the options alike:
 * "--repeat N" or "--repeat=N", each once). */
static const char *const USAGE[] = {
    "Usage: floor CELL [--paper-size] [--products] [--repeat N]\n"
    "Runs one cell of the experiments' or the benchmark's grid (experiments --list,\n"
    "experiments --bench --list, with --all-schemes for the schemes only that one has)\n"
    "and prints its CPU seconds, the GFLOP of its matrix products (counted from their\n"
    "shapes), one core's sgemm peak measured in the same run, and the fraction of the\n"
    "floor it reaches. Run it on one thread (make floor CELL=ID does).\n"
    "  --paper-size  the model at Ruoss et al.'s size: 5 layers, width 64, 8 heads,\n"
    "                d_ff 256\n"
    "  --products    the heads' products by OpenBLAS, not head_products.c's loops\n"
    "  --repeat N    run the cell N times (1..100, default 1), each after a measure\n"
    "                of the peak: the least CPU seconds against the highest peak,\n"
    "                the least disturbed of each on a shared machine\n",
    NULL};

#define PEAK_N 1024
#define PEAK_CALLS 20

/* One core's sgemm, PEAK_N^3, the best of PEAK_CALLS calls (after one
 * warm-up): GFLOP/s. */
static double sgemm_peak(void) {
    size_t n = PEAK_N;
    float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    float *c = malloc(n * n * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return 0.0;
    }
    Rng r;
    rng_seed(&r, 1);
    for (size_t i = 0; i < n * n; i++)
        a[i] = rng_range(&r, -0.5f, 0.5f), b[i] = rng_range(&r, -0.5f, 0.5f);
    double best = 1e30;
    for (int k = 0; k <= PEAK_CALLS; k++) {
        double t0 = clock_seconds();
        matmul(c, n, a, n, false, b, n, false, n, n, n, 1.0f, 0.0f);
        double t = clock_seconds() - t0;
        if (k > 0 && t < best)
            best = t;
    }
    free(a), free(b), free(c);
    return 2.0 * (double)n * (double)n * (double)n / best / 1e9;
}

/* The cell named id in the experiments' grid, the benchmark's standard
 * one, or the benchmark's with every scheme: its settings in set. */
static const ExpCell *find_cell(const char *id, ExpSettings *set, ExpCell **cells, Err *e) {
    for (int grid = 0; grid < 3; grid++) {
        if (grid == 0)
            exp_settings(set, false, 0);
        else
            exp_settings_bench(set, false, 0);
        if (grid == 2)
            set->bench_columns = exp_bench_all();
        size_t n;
        if (exp_cells(set, cells, &n, e))
            return NULL;
        const ExpCell *c = exp_cell_find(*cells, n, id);
        if (c)
            return c;
        free(*cells);
        *cells = NULL;
    }
    err_set(e, ERR_INPUT, "no cell of the grids is named '%s'; `build/experiments --list` and "
            "`build/experiments --bench --all-schemes --list` name them", id);
    return NULL;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "floor"); /* the kernels, then the team */
    const char *id = NULL;
    bool paper = false, products = false;
    int repeat = 1;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_flag(&cli, "--paper-size")) {
            paper = true;
        } else if (cli_flag(&cli, "--products")) {
            products = true;
        } else if (cli_opt(&cli, "--repeat")) {
            repeat = (int)cli_size(&cli, "--repeat", cli.val, 1, 100);
        } else if (arg[0] == '-') {
            cli_unknown(&cli, arg);
        } else if (!id) {
            id = arg;
        } else {
            cli_usage_error(&cli, "one cell at a time: give '%s' or '%s', not both", id, arg);
        }
    }
    if (!id)
        cli_usage_error(&cli, "name the cell to run, CELL: experiments --list names the "
                        "experiments' cells, experiments --bench --list the benchmark's");
    if (products)
        attention_small_heads(false);
    Err e;
    ExpSettings set;
    ExpCell *cells = NULL;
    const ExpCell *cell = find_cell(id, &set, &cells, &e);
    if (!cell) {
        fprintf(stderr, "floor: %s\n", e.msg);
        return e.code == ERR_INPUT ? 2 : 1;
    }
    if (paper)
        set.layers = 5, set.d_model = 64, set.heads = 8, set.d_ff = 256;
    double peak = 0.0, seconds = 1e30, flops = 0.0;
    for (int r = 0; r < repeat; r++) {
        double p = sgemm_peak();
        peak = p > peak ? p : peak;
        ExpCellResult res;
        matmul_counting(true);
        double t0 = cpu_seconds();
        int rc = exp_cell_run(&set, cell, &res, &e);
        double t = cpu_seconds() - t0;
        flops = matmul_counted();
        matmul_counting(false);
        if (rc) {
            fprintf(stderr, "floor: %s\n", e.msg);
            free(cells);
            return 1;
        }
        exp_cell_result_free(&res);
        seconds = t < seconds ? t : seconds;
    }
    double floor_s = flops / (peak * 1e9);
    printf("%s%s%s on %d thread%s, %s kernels: %.2f CPU s (best of %d); its products %.1f "
           "GFLOP; sgemm %d^3 %.1f GFLOP/s (best of %d calls, this run): floor %.2f s, %.2f "
           "of it\n",
           id, paper ? " (paper's size)" : "", products ? " (heads by OpenBLAS)" : "", par_threads(), par_threads() == 1 ? "" : "s",
           kernels_name(), seconds, repeat, flops / 1e9, PEAK_N, peak, repeat * PEAK_CALLS, floor_s,
           floor_s / seconds);
    free(cells);
    return 0;
}
