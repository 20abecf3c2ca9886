/* bench: speed and memory of the encoder at two fixed shapes, against
 * OpenBLAS's own sgemm measured in the same run.
 *
 * For each shape: tokens per second of the forward pass and of a training
 * step (forward, backward, AdamW), the model's GFLOP/s from its matmul FLOP
 * count, sgemm's GFLOP/s on the shape of the model's largest product (the
 * roofline the model's matmuls run against), their ratio, and memory. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../src/model/kernels.h"
#include "../src/model/matmul.h"
#include "../src/model/par.h"
#include "../src/core/clock.h"
#include "../src/core/rng.h"
#include "../src/model/train.h"

typedef struct {
    const char *name;
    size_t V, C, NH, F, L, T, B;
} Shape;

static const Shape shapes[] = {
    {"toy", 32, 64, 4, 256, 2, 16, 32},
    {"medium", 1000, 256, 8, 1024, 4, 128, 16},
};

/* Matmul FLOPs of one forward pass (multiply-adds count 2). */
static double forward_flops(const Shape *s) {
    double BT = (double)(s->B * s->T), C = (double)s->C, F = (double)s->F;
    double T = (double)s->T;
    double per_layer = 2.0 * BT * (3 * C * C + C * C + 2 * C * F) + 4.0 * BT * T * C;
    return (double)s->L * per_layer + 2.0 * (double)s->B * C * 2;
}

typedef int (*Bench)(void *ctx);

/* The machine is shared: other programs take a core for moments at a
 * time, and a mean over seconds mixes their load into every figure. So
 * the measures take turns in ROUNDS rounds of seconds / ROUNDS each
 * (after one warm-up call of each), and each figure is the seconds per
 * call of its best round, the least disturbed: the figures of one run
 * then see the same machine, and their ratios hold. */
#define ROUNDS 10
static int time_rounds(const Bench *f, double *best, size_t n, void *ctx, double seconds) {
    for (size_t i = 0; i < n; i++) {
        if (f[i](ctx))
            return -1;
        best[i] = 1e30;
    }
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < n; i++) {
            size_t calls = 0;
            double t0 = clock_seconds(), t;
            do {
                if (f[i](ctx))
                    return -1;
                calls++;
                t = clock_seconds() - t0;
            } while (t < seconds / ROUNDS);
            best[i] = t / (double)calls < best[i] ? t / (double)calls : best[i];
        }
    return 0;
}

typedef struct {
    Model m;
    Acts a;
    Trainer tr;
    int *ids, *labels;
    size_t *lens, B, T;
    float *A, *Bm, *Cm; /* sgemm operands */
    Rng rng;            /* the labels of each step */
    size_t M, N, K;
} Ctx;

static int fwd(void *p) {
    Ctx *c = p;
    Err e;
    return encoder_forward(&c->m, &c->a, c->ids, c->lens, c->B, c->T, &e);
}

static int step(void *p) {
    Ctx *c = p;
    Err e;
    StepStats st;
    /* Fresh random labels each step: one fixed batch would be learned to a
     * loss of 0, and the vanishing gradients would turn into denormal
     * floats that slow everything down, which real training does not do. */
    for (size_t b = 0; b < c->B; b++)
        c->labels[b] = (int)rng_below(&c->rng, 2);
    return train_step(&c->tr, &c->m, &c->a, c->ids, c->lens, NULL, c->labels, c->B, c->T, &st,
                      &e);
}

static int gemm(void *p) {
    Ctx *c = p;
    matmul(c->Cm, c->N, c->A, c->K, false, c->Bm, c->K, true, c->M, c->N, c->K, 1.0f, 0.0f);
    return 0;
}

static float *rand_buf(Rng *r, size_t n) {
    float *x = malloc(n * sizeof *x);
    if (!x)
        exit(1);
    for (size_t i = 0; i < n; i++)
        x[i] = rng_range(r, -1.0f, 1.0f);
    return x;
}

/* The model, its activations and trainer, a batch of shape s, and the
 * product sgemm is timed on; 1 on failure (said on stderr). */
static int ctx_make(Ctx *c, const Shape *s) {
    *c = (Ctx){.B = s->B, .T = s->T};
    Config cfg;
    config_default(&cfg, s->V, "sinusoidal");
    cfg.d_model = s->C, cfg.n_heads = s->NH, cfg.d_ff = s->F, cfg.n_layers = s->L;
    cfg.max_len = s->T, cfg.n_classes = 2;
    OptConfig opt;
    opt_default(&opt);
    Err e;
    /* The layers' activations of one micro-batch only (model.h): the
     * training step runs forward and backward micro-batch by micro-batch,
     * as train does with a large batch. */
    if (model_create(&c->m, &cfg, &e) ||
        acts_create_micro(&c->a, &c->m, s->B, s->T, micro_sentences(s->B, s->T), &e) ||
        trainer_create(&c->tr, &c->m, &opt, s->B, s->T, &e)) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return 1;
    }
    Rng r;
    rng_seed(&r, 1);
    rng_seed(&c->rng, 2);
    c->ids = malloc(s->B * s->T * sizeof *c->ids);
    c->labels = malloc(s->B * sizeof *c->labels);
    c->lens = malloc(s->B * sizeof *c->lens);
    if (!c->ids || !c->labels || !c->lens)
        return 1;
    for (size_t i = 0; i < s->B * s->T; i++)
        c->ids[i] = 2 + (int)rng_below(&r, s->V - 2);
    for (size_t b = 0; b < s->B; b++) {
        c->lens[b] = s->T;
        c->labels[b] = (int)rng_below(&r, 2);
    }
    /* the FFN's first product, (BT,C) x (C,F): the model's largest */
    c->M = s->B * s->T, c->N = s->F, c->K = s->C;
    c->A = rand_buf(&r, c->M * c->K), c->Bm = rand_buf(&r, c->N * c->K);
    c->Cm = rand_buf(&r, c->M * c->N);
    return 0;
}

/* One shape timed: its line of the table, and its CSV line into csv. */
static int bench_shape(const Shape *s, double seconds, char *csv, size_t cap) {
    Ctx c;
    if (ctx_make(&c, s))
        return 1;
    const Bench f[3] = {fwd, step, gemm};
    double t[3];
    if (time_rounds(f, t, 3, &c, seconds))
        return 1;
    double t_fwd = t[0], t_step = t[1], t_gemm = t[2];
    double tokens = (double)(s->B * s->T), flops = forward_flops(s);
    double gf_fwd = flops / t_fwd * 1e-9, gf_step = 3.0 * flops / t_step * 1e-9;
    double gf_gemm = 2.0 * (double)(c.M * c.N * c.K) / t_gemm * 1e-9;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* parameters, gradients and AdamW's two moments */
    double model_mb = (double)c.m.n_params * 4.0 * sizeof(float) / 1048576.0;
    printf("%-7s %12.0f %12.0f %10.1f %10.1f %10.1f %6.2f %10.1f %10.1f\n", s->name,
           tokens / t_fwd, tokens / t_step, gf_fwd, gf_step, gf_gemm, gf_step / gf_gemm,
           model_mb, (double)ru.ru_maxrss / 1024.0);
    snprintf(csv, cap, "csv,%s,%.1f,%.1f,%.2f,%.2f,%.2f,%.1f", s->name, tokens / t_fwd,
             tokens / t_step, gf_fwd, gf_step, gf_gemm, (double)ru.ru_maxrss / 1024.0);
    free(c.ids), free(c.labels), free(c.lens), free(c.A), free(c.Bm), free(c.Cm);
    trainer_free(&c.tr);
    acts_free(&c.a);
    model_free(&c.m);
    return 0;
}

int main(int argc, char **argv) {
    double seconds = 3.0;
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("Usage: bench [SECONDS [SHAPE]]\n\nTimes the forward pass, the training step and "
               "OpenBLAS sgemm at the toy and medium shapes\nof bench/README.md, each for "
               "about SECONDS (default 3) in 10 rounds, taking turns;\neach figure is its "
               "best round's. Prints a table, then the same figures as\nCSV lines "
               "starting with 'csv,' (bench/torch_ref.py reads them).\n");
        return 0;
    }
    if (argc > 1)
        seconds = atof(argv[1]);
    if (!(seconds > 0.0) || seconds > 600.0) {
        fprintf(stderr, "bench: SECONDS must be a number in (0, 600]\n");
        return 2;
    }
    /* OpenBLAS's kernels (kernels.h: it may start the program again),
     * then the team: its OpenMP build and the model's loops share one pool */
    kernels_choose(argv);
    par_start();
    par_hold(); /* the figures are the machine's at full strength */
    printf("threads: %s\n\n", par_describe());
    printf("%-7s %12s %12s %10s %10s %10s %6s %10s %10s\n", "shape", "fwd tok/s", "train tok/s",
           "fwd GF/s", "step GF/s", "sgemm GF/s", "ratio", "model MB", "peak RSS MB");
    char csv[2][256];
    /* a third argument runs one shape only (for `perf record`) */
    const char *only = argc > 2 ? argv[2] : NULL;
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        csv[k][0] = '\0';
        if (only && strcmp(only, shapes[k].name) != 0)
            continue;
        if (bench_shape(&shapes[k], seconds, csv[k], sizeof csv[k]))
            return 1;
    }
    printf("\nratio: the training step's GFLOP/s over sgemm's on the (BT,C)x(C,F) product.\n");
    printf("model MB: parameters, gradients and AdamW's two moments; peak RSS includes the\n"
           "activations of the shapes run so far.\n\n");
    printf("csv,shape,fwd_tok_s,train_tok_s,fwd_gflops,step_gflops,sgemm_gflops,peak_rss_mb\n");
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        if (csv[k][0])
            printf("%s\n", csv[k]);
    return 0;
}
