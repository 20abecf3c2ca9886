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
 * al.'s size (5 layers, width 64, 8 heads, d_ff 256) instead of the grid's.
 *
 * A benchmark cell is reported whole and in its two parts, the training
 * and the tests (a forward pass over every test tape), each with the
 * exps its softmaxes take besides its products: with heads of 8 channels
 * and tapes of hundreds of tokens, a head's scores are a T x T matrix of
 * inner dimension 8, and every score needs an exp. Their floor is the
 * products at the sgemm peak plus the exps at the rate of the vector exp
 * (exp_shifted on rows of EXP_ROW, best of a few passes), both measured
 * in the same run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/clock.h"
#include "../src/core/rng.h"
#include "../src/experiments/cell.h"
#include "../src/experiments/grid.h"
#include "../src/experiments/protocol.h"
#include "../src/model/attention.h"
#include "../src/model/kernels.h"
#include "../src/model/matmul.h"
#include "../src/model/par.h"
#include "../src/model/vexp.h"
#include "../examples/cli.h"

/* The help, as the programs' (examples/cli.c parses the options alike:
 * "--repeat N" or "--repeat=N", each once). */
static const char *const USAGE[] = {
    "Usage: floor CELL [--paper-size] [--products] [--repeat N] [--set K=V[,K=V...]]\n"
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
    "                the least disturbed of each on a shared machine\n"
    "  --set K=V,...  a benchmark cell under another protocol, as experiments --bench\n"
    "                --set takes it (M=25,range=256: the earlier protocol's tests\n"
    "                to 25)\n",
    NULL};

#define PEAK_N 1024
#define PEAK_CALLS 20
#define EXP_ROW 256    /* a softmax row of a long tape */
#define EXP_ROWS 4096  /* rows a pass: 1M values, 4 MB */
#define EXP_PASSES 10

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

/* One core's exp_shifted over rows of EXP_ROW, the best of EXP_PASSES
 * passes (after one warm-up): values a second. */
static double exp_rate(void) {
    size_t n = (size_t)EXP_ROW * EXP_ROWS;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y) {
        free(x), free(y);
        return 0.0;
    }
    Rng r;
    rng_seed(&r, 2);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_range(&r, -8.0f, 0.0f);
    double best = 1e30;
    for (int k = 0; k <= EXP_PASSES; k++) {
        memcpy(y, x, n * sizeof *y);
        double t0 = clock_seconds();
        for (size_t row = 0; row < EXP_ROWS; row++)
            exp_shifted(y + row * EXP_ROW, EXP_ROW, 0.0f);
        double t = clock_seconds() - t0;
        if (k > 0 && t < best)
            best = t;
    }
    free(x), free(y);
    return (double)n / best;
}

/* What a part of the cell took: CPU seconds, products' FLOP, exps. */
typedef struct {
    double seconds, flops, exps;
} Part;

static Part at_tests; /* the counts and the clock when the tests began */

static double cpu_seconds(void);

static void on_tests(void) {
    at_tests = (Part){cpu_seconds(), matmul_counted(), exp_counted()};
}

/* "training: 12.3 CPU s, its products 45.6 GFLOP and 0.12 G exps: floor
 * 4.5 s, 0.37 of it" */
static void print_part(const char *what, Part p, double peak, double rate) {
    double floor_s = p.flops / (peak * 1e9) + p.exps / rate;
    printf("  %-9s %8.2f CPU s, products %7.1f GFLOP, %6.3f G exps: floor %6.2f s, %.2f of "
           "it\n", what, p.seconds, p.flops / 1e9, p.exps / 1e9, floor_s, floor_s / p.seconds);
}

/* The cell named id in the experiments' grid, the benchmark's standard
 * one, or the benchmark's with every scheme: its settings in set. */
static const ExpCell *find_cell(const char *id, const char *protocol, ExpSettings *set,
                                ExpCell **cells, Err *e) {
    for (int grid = protocol ? 1 : 0; grid < 3; grid++) {
        if (grid == 0)
            exp_settings(set, false, 0);
        else
            exp_settings_bench(set, false, 0);
        if (grid == 2)
            set->bench_columns = exp_bench_all(set);
        if (protocol && exp_bench_set(set, protocol, e))
            return NULL;
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
    const char *protocol = NULL;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_flag(&cli, "--paper-size")) {
            paper = true;
        } else if (cli_flag(&cli, "--products")) {
            products = true;
        } else if (cli_opt(&cli, "--repeat")) {
            repeat = (int)cli_size(&cli, "--repeat", cli.val, 1, 100);
        } else if (cli_opt(&cli, "--set")) {
            protocol = cli.val;
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
    const ExpCell *cell = find_cell(id, protocol, &set, &cells, &e);
    if (!cell) {
        fprintf(stderr, "floor: %s\n", e.msg);
        return e.code == ERR_INPUT ? 2 : 1;
    }
    if (paper)
        set.layers = 5, set.d_model = 64, set.heads = 8, set.d_ff = 256;
    double peak = 0.0, rate = 0.0, seconds = 1e30, flops = 0.0;
    Part train = {1e30, 0, 0}, tests = {1e30, 0, 0};
    exp_cell_on_tests = on_tests;
    for (int r = 0; r < repeat; r++) {
        double p = sgemm_peak(), x = exp_rate();
        peak = p > peak ? p : peak;
        rate = x > rate ? x : rate;
        ExpCellResult res;
        at_tests = (Part){0};
        matmul_counting(true);
        exp_counting(true);
        double t0 = cpu_seconds();
        int rc = exp_cell_run(&set, cell, &res, &e);
        double t = cpu_seconds() - t0;
        Part all = {t, matmul_counted(), exp_counted()};
        matmul_counting(false);
        exp_counting(false);
        if (rc) {
            fprintf(stderr, "floor: %s\n", e.msg);
            free(cells);
            return 1;
        }
        exp_cell_result_free(&res);
        flops = all.flops;
        seconds = t < seconds ? t : seconds;
        if (at_tests.seconds > 0.0) { /* each part's best, over the repeats */
            Part a = {at_tests.seconds - t0, at_tests.flops, at_tests.exps};
            Part b = {all.seconds - a.seconds, all.flops - a.flops, all.exps - a.exps};
            train = a.seconds < train.seconds ? a : train;
            tests = b.seconds < tests.seconds ? b : tests;
        }
    }
    double floor_s = flops / (peak * 1e9);
    printf("%s%s%s on %d thread%s, %s kernels: %.2f CPU s (best of %d); its products %.1f "
           "GFLOP; sgemm %d^3 %.1f GFLOP/s (best of %d calls, this run): floor %.2f s, %.2f "
           "of it\n",
           id, paper ? " (paper's size)" : "", products ? " (heads by OpenBLAS)" : "", par_threads(), par_threads() == 1 ? "" : "s",
           kernels_name(), seconds, repeat, flops / 1e9, PEAK_N, peak, repeat * PEAK_CALLS, floor_s,
           floor_s / seconds);
    if (train.flops > 0.0) {
        printf("its parts, with the exps of the softmaxes at %.2f G a second (exp_shifted on rows "
               "of %d, this run):\n", rate / 1e9, EXP_ROW);
        print_part("training", train, peak, rate);
        print_part("tests", tests, peak, rate);
    }
    free(cells);
    return 0;
}
