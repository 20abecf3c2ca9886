/* long_forward: the model's forward pass on long tapes, the evaluation's
 * work past the training lengths, timed for bench/long_forward.py, which
 * runs the same model in PyTorch beside it (bench/README.md, "Long
 * tapes").
 *
 *   long_forward MODEL T [COUNT]
 *
 * reads a checkpoint, and runs COUNT tapes (default 1000) of T random
 * tokens through it, 32 at a time (the benchmark's test batch), on the
 * threads it is given (the script gives one), in one set of buffers made
 * once (evaluate_dataset_in's room); one batch first, untimed. Prints the
 * CPU seconds per 1000 tapes and the GFLOP/s of the products (counted from
 * their shapes, matmul_counting). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/core/rng.h"
#include "../src/model/encoder.h"
#include "../src/model/matmul.h"
#include "../src/model/par.h"
#include "../src/run/checkpoint.h"
#include "../src/run/evaluation.h"
#include "../examples/cli.h"

#define BATCH 32

static const char *const USAGE[] = {
    "Usage: long_forward MODEL T [COUNT]\n"
    "Runs COUNT tapes (default 1000) of T random tokens through the model of the\n"
    "checkpoint MODEL, 32 at a time, and prints the CPU seconds per 1000 tapes and the\n"
    "GFLOP/s of its products. bench/long_forward.py runs it beside PyTorch.\n",
    NULL};

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "long_forward");
    const char *path = NULL;
    size_t T = 0, count = 1000;
    int k = 0;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (arg[0] == '-')
            cli_unknown(&cli, arg);
        else if (k == 0)
            path = arg;
        else if (k == 1)
            T = cli_size(&cli, "T", arg, 1, 4096);
        else if (k == 2)
            count = cli_size(&cli, "COUNT", arg, 1, 1000000);
        else
            cli_usage_error(&cli, "too many arguments: MODEL T [COUNT]");
        k++;
    }
    if (!path || !T)
        cli_usage_error(&cli, "give the checkpoint and the tapes' length: MODEL T [COUNT]");
    Checkpoint ck;
    Err e;
    if (checkpoint_load(&ck, path, &e))
        cli_error(&cli, &e);
    const Model *m = &ck.model;
    Acts room = {0};
    int *ids = malloc(BATCH * T * sizeof *ids);
    size_t lens[BATCH];
    if (!ids || eval_room_fit(&room, m, BATCH, T, &e)) {
        fprintf(stderr, "long_forward: %s\n", ids ? e.msg : "out of memory");
        return 1;
    }
    Rng r;
    rng_seed(&r, 1);
    for (size_t i = 0; i < BATCH * T; i++)
        ids[i] = 2 + (int)(rng_u64(&r) % (m->cfg.vocab_size - 2));
    for (size_t b = 0; b < BATCH; b++)
        lens[b] = T;
    if (encoder_forward(m, &room, ids, lens, BATCH, T, &e)) /* untimed: the pages touched */
        cli_error(&cli, &e);
    matmul_counting(true);
    double t0 = cpu_seconds();
    for (size_t done = 0; done < count; done += BATCH) {
        size_t B = count - done < BATCH ? count - done : BATCH;
        if (encoder_forward(m, &room, ids, lens, B, T, &e))
            cli_error(&cli, &e);
    }
    double t = cpu_seconds() - t0, flops = matmul_counted();
    printf("T %zu: %zu tapes in %.3f CPU s on %d thread%s: %.3f s per 1000 tapes, products "
           "%.1f GFLOP/s\n", T, count, t, par_threads(), par_threads() == 1 ? "" : "s",
           1000.0 * t / (double)count, flops / t / 1e9);
    acts_free(&room);
    free(ids);
    checkpoint_free(&ck);
    return 0;
}
