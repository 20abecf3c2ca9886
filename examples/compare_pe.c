/* compare_pe: trains one model per scheme and seed on a task and tabulates
 * the test accuracy: which schemes let a model learn order. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/par.h"
#include "../src/run/session.h"
#include "../src/run/trial.h"
#include "cli.h"

#define MAX_SEEDS 100

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: compare_pe [--task NAME] [--schemes LIST|all] [--seeds N] [options]\n"
    "\n"
    "Trains a model for every scheme and seed on a built-in task, evaluates each\n"
    "on the task's test split, and prints a Markdown table: the mean test accuracy\n"
    "over seeds, its spread (standard deviation, lowest and highest), and the\n"
    "training time. Each run's result also goes to a CSV file. The seeds change\n"
    "the weights and the batch order; the data stays the same (--data-seed).\n"
    "\n"
    "Options:\n"
    "  --task NAME           a built-in task (listed below; default agent)\n"
    "  --schemes LIST|all    comma-separated schemes (listed below; default all)\n"
    "  --seeds N             runs per scheme, seeds S, S+1, ... from --seed (default 3)\n"
    "  --out FILE            the CSV of every run (default compare_pe.csv)\n"
    "  --quiet               no progress on stderr: only errors and warnings\n"
    "  --help                show this help\n"
    "\n", CLI_TRAIN_HELP, "\n", CLI_TASK_HELP, "\n", CLI_MODEL_HELP, "\n", CLI_SCHEMES, "\n",
    CLI_TASKS,
    "\n"
    "Each run is scored on the model of its last step. With --random-positions N\n"
    "each is also scored as Ruoss et al. score it, test sentences at sorted\n"
    "positions drawn from 0..N-1 (the mean of 10 draws): a second column of the\n"
    "table and of the CSV. The defaults (agent, every scheme, 3 seeds, 1500 steps)\n"
    "took 3 minutes on one core of the machine these lines were written on\n"
    "(2026-11), 3 to 8 seconds a run; after each run compare_pe says how long the\n"
    "rest should take, from the runs so far.\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options, 1 when a run fails.\n",
    NULL};

typedef struct {
    double acc[MAX_SEEDS];
    double acc_at[MAX_SEEDS]; /* with --random-positions: at random test positions */
    double seconds;
    Combine combine; /* how the code met the embeddings */
    size_t w;        /* channels of the code: 0 when the scheme adds none */
} SchemeResult;

/* The mean, sample SD, lowest and highest of n values. */
static void spread(const double *v, size_t n, double *mean, double *sd, double *lo, double *hi) {
    double m = 0.0, var = 0.0;
    *lo = 1.0, *hi = 0.0;
    for (size_t k = 0; k < n; k++) {
        m += v[k] / (double)n;
        *lo = fmin(*lo, v[k]);
        *hi = fmax(*hi, v[k]);
    }
    for (size_t k = 0; k < n; k++)
        var += (v[k] - m) * (v[k] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(var / (double)(n - 1)) : 0.0;
}

static _Noreturn void write_failed(const Cli *cli, const char *path) {
    Err e;
    err_set(&e, ERR_RUNTIME, "writing %s failed: %s", path, strerror(errno));
    cli_fail(cli, &e);
}

/* The command line, as given, and the schemes it names. */
typedef struct {
    TrainMeta mt;
    OptConfig opt;
    Config cfg;
    const char *schemes, *out;
    size_t seeds;
    const char **names; /* the schemes, n of them */
    size_t n;
    bool quiet; /* --quiet: no progress on stderr */
} Args;

static void parse(Cli *cli, Args *a) {
    *a = (Args){.mt = {.batch = 32, .steps = 1500, .eval_every = 100, .task_opt = {.seed = 1}},
                .schemes = "all", .out = "compare_pe.csv", .seeds = 3};
    snprintf(a->mt.task, sizeof a->mt.task, "agent");
    a->mt.max_memory = cli_default_memory();
    opt_default(&a->opt);
    config_default(&a->cfg, 0, "none");
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_task(cli, a->mt.task, sizeof a->mt.task)) {
        } else if (cli_opt(cli, "--schemes")) {
            a->schemes = cli->val;
        } else if (cli_opt(cli, "--seeds")) {
            a->seeds = cli_size(cli, "--seeds", cli->val, 1, MAX_SEEDS);
        } else if (cli_opt(cli, "--out")) {
            a->out = cli->val;
        } else if (cli_flag(cli, "--quiet")) {
            a->quiet = true;
        } else if (cli_task_option(cli, &a->mt.task_opt) ||
                   cli_train_option(cli, &a->mt, &a->opt)) {
        } else if (cli_model_option(cli, &a->cfg)) {
            if (strncmp(arg, "--table-len", 11) == 0)
                a->mt.table_len = a->cfg.max_len;
        } else {
            cli_unknown(cli, arg);
        }
    }
}

/* Every option against every scheme before hours of training: one no
 * scheme reads, then what a run of each would refuse. */
static void check(Cli *cli, Args *a) {
    a->n = cli_scheme_list(cli, "--schemes", a->schemes, &a->names);
    cli_refuse_unread(cli, &a->cfg.pe, a->names, a->n);
    Err e;
    TaskOptions resolved;
    if (task_options_resolve(&resolved, &a->mt.task_opt, a->mt.task, &e))
        cli_usage_error(cli, "%s", e.msg);
    for (size_t i = 0; i < a->n; i++) {
        Config probe = a->cfg;
        probe.vocab_size = 2;
        probe.pe = pe_config_for(&a->cfg.pe, pe_find(a->names[i]));
        if (config_check(&probe, &e) || opt_check(&a->opt, &e) ||
            session_check_options(&a->mt, &probe, resolved.max_train_len, &e))
            cli_usage_error(cli, "%s", e.msg);
    }
}

/* --out with its header, flushed at once, so that a file that cannot be
 * written (a full disk) is reported before any training rather than
 * after all of it. */
static FILE *open_csv(const Cli *cli, const Args *a, bool at) {
    Err e;
    /* one run per file, refused before its training: two would interleave
     * their rows in it */
    if (cli_hold_output(a->out, "--out", false, &e))
        cli_error(cli, &e);
    FILE *csv = fopen(a->out, "w");
    if (!csv) {
        err_open(&e, errno, "--out", a->out, 1);
        cli_fail(cli, &e);
    }
    if (fprintf(csv, "scheme,combine,seed,test_accuracy,%sseconds\n",
                at ? "test_accuracy_random_positions," : "") < 0 || fflush(csv) != 0)
        write_failed(cli, a->out);
    return csv;
}

/* Every scheme with every seed, a row of csv each, into res. */
static void run_all(const Cli *cli, Args *a, FILE *csv, bool at, SchemeResult *res) {
    uint64_t base = a->cfg.seed;
    double spent = 0.0;
    Err e;
    for (size_t i = 0; i < a->n; i++) {
        Config c = a->cfg;
        c.pe = pe_config_for(&a->cfg.pe, pe_find(a->names[i]));
        for (size_t k = 0; k < a->seeds; k++) {
            c.seed = a->mt.seed = base + k;
            Trial t;
            if (trial_run(&t, &a->mt, &c, &a->opt, &e))
                cli_fail(cli, &e);
            double dt = t.seconds;
            res[i].acc[k] = t.accuracy;
            res[i].acc_at[k] = t.accuracy_at;
            res[i].combine = t.combine;
            res[i].w = t.w;
            res[i].seconds += dt;
            trial_free(&t);
            /* the time left, from the runs so far: no fixed figure holds
             * from one machine, or one load, to the next */
            size_t done = i * a->seeds + k + 1, runs = a->n * a->seeds;
            spent += dt;
            if (!a->quiet)
                fprintf(stderr, "compare_pe: %-10s seed %llu: test accuracy %.4f (%.1f s; %zu of "
                        "%zu runs, about %.0f s left)\n", a->names[i],
                        (unsigned long long)c.seed, res[i].acc[k], dt, done, runs,
                        spent / (double)done * (double)(runs - done));
            /* as the table: '-' for a scheme that adds no code to the input */
            char extra[32] = "";
            if (at)
                snprintf(extra, sizeof extra, "%.6f,", res[i].acc_at[k]);
            if (fprintf(csv, "%s,%s,%llu,%.6f,%s%.3f\n", a->names[i],
                        res[i].w == 0 ? "-" : combine_name(res[i].combine),
                        (unsigned long long)c.seed, res[i].acc[k], extra, dt) < 0 ||
                fflush(csv) != 0)
                write_failed(cli, a->out);
        }
    }
}

static void print_table(const Args *a, bool at, const SchemeResult *res) {
    size_t seeds = a->seeds;
    printf("Task %s: test accuracy over %zu seed%s (%zu steps, batch %zu, d_model %zu).\n\n",
           a->mt.task, seeds, seeds == 1 ? "" : "s", a->mt.steps, a->mt.batch, a->cfg.d_model);
    printf("| scheme | combine | mean | std | min | max |%s seconds per run |\n",
           at ? " random positions at test: mean | std |" : "");
    printf("| --- | --- | ---: | ---: | ---: | ---: |%s ---: |\n", at ? " ---: | ---: |" : "");
    for (size_t i = 0; i < a->n; i++) {
        double mean, sd, lo, hi, mean_at, sd_at;
        spread(res[i].acc, seeds, &mean, &sd, &lo, &hi);
        printf("| %s | %s | %.4f | %.4f | %.4f | %.4f |", a->names[i],
               res[i].w == 0 ? "-" : combine_name(res[i].combine), mean, sd, lo, hi);
        if (at) {
            spread(res[i].acc_at, seeds, &mean_at, &sd_at, &lo, &hi);
            printf(" %.4f | %.4f |", mean_at, sd_at);
        }
        printf(" %.1f |\n", res[i].seconds / (double)seeds);
    }
    printf("\nEvery run is in %s.\n", a->out);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "compare_pe");
    Args a;
    parse(&cli, &a);
    check(&cli, &a);
    bool at = a.mt.random_positions > 0; /* Ruoss et al.'s evaluation too */
    FILE *csv = open_csv(&cli, &a, at);
    if (!a.quiet)
        fprintf(stderr, "compare_pe: %s, %zu schemes x %zu seeds, %zu steps each; threads: "
                "%s\n", a.mt.task, a.n, a.seeds, a.mt.steps, par_describe());
    SchemeResult *res = cli_alloc(&cli, a.n, sizeof *res, "the results");
    run_all(&cli, &a, csv, at, res);
    if (fclose(csv) != 0)
        write_failed(&cli, a.out);
    print_table(&a, at, res);
    free(res);
    free(a.names);
    return 0;
}
