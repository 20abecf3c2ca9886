/* experiments: the comparisons of docs/results.md, run and written up.
 *
 * Five experiments over every scheme and several seeds (order untrained;
 * who did it and which came first; length generalization; randomized
 * positions; layout, combine and scaling), each a table with its spread,
 * the CSV behind it, a figure where one helps, and a closing sentence that
 * the numbers decide (results_doc.c writes the page). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/core/clock.h"
#include "../src/core/rng.h"
#include "../src/model/encoder.h"
#include "../src/model/par.h"
#include "../src/run/experiment.h"
#include "../src/run/trial.h"
#include "../src/text/order.h"
#include "cli.h"

static const char *const USAGE[] = {
    "Usage: experiments [--out DIR] [--quick] [--seeds N]\n"
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
    "A progress line per run goes to stderr. `make experiments` runs the whole set\n"
    "(about 25 minutes on 2 cores) into docs/; `make experiments QUICK=1` the same\n"
    "pipeline on tiny settings (under 3 minutes) into build/experiments-quick/.\n"
    "\n"
    "Options:\n"
    "  --out DIR             where to write (default docs; created if missing)\n"
    "  --quick               tiny models and few steps: checks the pipeline, not\n"
    "                        the schemes\n"
    "  --seeds N             seeds per configuration, 2..20 (default 3; 5 for\n"
    "                        experiment 5)\n"
    "  --help                show this help\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options, 1 when a run fails.\n",
    NULL};

/* Every run of the pipeline, counted for the progress lines. */
typedef struct {
    const Cli *cli;
    const ExpSettings *set;
    size_t done, total;
    double start;
} Runner;

static void progress(Runner *r, const char *what, double value, double seconds) {
    r->done++;
    double el = clock_seconds() - r->start;
    fprintf(stderr, "experiments: [%3zu/%zu] %-44s %.4f  (%.1f s; %.0f s left)\n", r->done,
            r->total, what, value, seconds, el / (double)r->done * (double)(r->total - r->done));
}

/* A model config of the experiments' shape with scheme `name`. */
static Config model_config(const ExpSettings *set, const char *name, uint64_t seed) {
    Config c;
    config_default(&c, 0, name);
    c.d_model = set->d_model, c.n_heads = set->heads, c.n_layers = set->layers;
    c.d_ff = set->d_ff, c.seed = seed;
    return c;
}

static Trial train_one(Runner *r, const char *task, const TaskOptions *to, const Config *c,
                       size_t steps, size_t random_positions, const char *label) {
    TrainMeta mt = {.batch = r->set->batch, .steps = steps, .eval_every = steps,
                    .task_opt = *to, .seed = c->seed, .random_positions = random_positions};
    snprintf(mt.task, sizeof mt.task, "%s", task);
    OptConfig opt;
    opt_default(&opt);
    Trial t;
    Err e;
    if (trial_run(&t, &mt, c, &opt, &e))
        cli_fail(r->cli, &e);
    progress(r, label, t.accuracy, t.seconds);
    return t;
}

/* 1. The largest |difference| of aligned output rows of untrained models,
 * over sentences of 8 distinct words and random reorderings of them. */
static double order_gap(const Config *c, Rng *r) {
    enum { N = 8, PAIRS = 4 };
    Model m;
    Acts a;
    Err e;
    Config cc = *c;
    cc.vocab_size = N + 2;
    cc.max_len = N;
    if (model_create(&m, &cc, &e) || acts_create(&a, &m, 2, N, &e)) {
        fprintf(stderr, "experiments: %s\n", e.msg);
        exit(1);
    }
    double worst = 0.0;
    for (int k = 0; k < PAIRS; k++) {
        int ids[2 * N];
        size_t perm[N], lens[2] = {N, N};
        for (size_t i = 0; i < N; i++)
            perm[i] = i;
        rng_shuffle(r, perm, N);
        for (size_t i = 0; i < N; i++)
            ids[i] = 2 + (int)i;
        for (size_t i = 0; i < N; i++)
            ids[N + i] = ids[perm[i]];
        if (encoder_forward(&m, &a, ids, lens, 2, N, &e)) {
            fprintf(stderr, "experiments: %s\n", e.msg);
            exit(1);
        }
        size_t C = m.cfg.d_model;
        worst = fmax(worst, max_aligned_diff(a.hidden, a.hidden + N * C, perm, N, C));
    }
    acts_free(&a);
    model_free(&m);
    return worst;
}

static void run_order(Runner *r, ExpResults *res) {
    Rng rng;
    rng_seed(&rng, 1);
    for (size_t s = 0; s < pe_count(); s++)
        for (size_t k = 0; k < r->set->seeds; k++) {
            Config c = model_config(r->set, pe_at(s)->name, 1 + k);
            double t0 = clock_seconds(), gap = order_gap(&c, &rng);
            exp_record(res, EXP_ORDER, "order", pe_at(s)->name, k, gap, NULL, 0);
            char what[64];
            snprintf(what, sizeof what, "order %s seed %zu", pe_at(s)->name, k + 1);
            progress(r, what, gap, clock_seconds() - t0);
        }
}

static void run_tasks(Runner *r, ExpResults *res) {
    static const char *const tasks[] = {"agent", "direction"};
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < pe_count(); s++)
            for (size_t k = 0; k < r->set->seeds; k++) {
                Config c = model_config(r->set, pe_at(s)->name, 1 + k);
                TaskOptions to = {.seed = 1, .n_test = r->set->n_test};
                char what[64];
                snprintf(what, sizeof what, "%s %s seed %zu", tasks[t], pe_at(s)->name, k + 1);
                Trial tr = train_one(r, tasks[t], &to, &c, r->set->task_steps, 0, what);
                exp_record(res, EXP_TASKS, tasks[t], pe_at(s)->name, k, tr.accuracy, NULL, 0);
                trial_free(&tr);
            }
}

/* 3 and 4: trained on lengths min_len..L, tested on min_len..4L. */
static void run_lengths(Runner *r, ExpResults *res, bool randomized) {
    static const char *const random_schemes[] = {"sinusoidal", "learned", "rope"};
    const ExpSettings *set = r->set;
    size_t n_schemes = randomized ? 3 : pe_count();
    for (size_t t = 0; t < EXP_LENGTH_TASKS; t++)
        for (size_t s = 0; s < n_schemes; s++)
            for (size_t k = 0; k < set->seeds; k++) {
                const char *name = randomized ? random_schemes[s] : pe_at(s)->name;
                Config c = model_config(set, name, 1 + k);
                TaskOptions to = {.seed = 1, .min_len = set->min_len, .max_train_len = set->L,
                                  .max_len = 4 * set->L, .n_test = set->n_test_lengths};
                char what[64];
                snprintf(what, sizeof what, "%s %s%s seed %zu", exp_length_tasks[t], name,
                         randomized ? " random" : "", k + 1);
                Trial tr = train_one(r, exp_length_tasks[t], &to, &c, set->length_steps,
                                     randomized ? 4 * set->L : 0, what);
                exp_record(res, randomized ? EXP_RANDOM : EXP_LENGTHS, exp_length_tasks[t], name,
                           k, tr.accuracy, tr.per_len, tr.max_len);
                trial_free(&tr);
            }
}

/* 5. The sinusoid's variants on reverse, lengths as trained. */
static void run_variants(Runner *r, ExpResults *res) {
    for (size_t v = 0; v < EXP_VARIANTS; v++)
        for (size_t k = 0; k < r->set->variant_seeds; k++) {
            Config c = model_config(r->set, "sinusoidal", 1 + k);
            exp_variant_config(&c, v);
            TaskOptions to = {.seed = 1, .n_test = r->set->n_test};
            char what[64];
            snprintf(what, sizeof what, "reverse %s seed %zu", exp_variant_names[v], k + 1);
            Trial tr = train_one(r, "reverse", &to, &c, r->set->length_steps, 0, what);
            exp_record(res, EXP_VARIANT, "reverse", exp_variant_names[v], k, tr.accuracy, NULL,
                       0);
            trial_free(&tr);
        }
}

static void make_dir(const Cli *cli, const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        Err e;
        err_set(&e, ERR_INPUT, "cannot create the directory %s: %s; check its parent exists "
                "and is writable", path, strerror(errno));
        cli_fail(cli, &e);
    }
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "experiments");
    const char *out = "docs";
    bool quick = false;
    size_t seeds = 0;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_flag(&cli, "--quick"))
            quick = true;
        else if (cli_opt(&cli, "--out"))
            out = cli.val;
        else if (cli_opt(&cli, "--seeds"))
            seeds = cli_size(&cli, "--seeds", cli.val, 2, 20);
        else
            cli_unknown(&cli, arg);
    }
    ExpSettings set;
    exp_settings(&set, quick, seeds);
    char path[4096];
    make_dir(&cli, out);
    snprintf(path, sizeof path, "%s/img", out);
    make_dir(&cli, path);
    snprintf(path, sizeof path, "%s/img/results", out);
    make_dir(&cli, path);
    snprintf(path, sizeof path, "%s/results", out);
    make_dir(&cli, path);

    Runner r = {.cli = &cli, .set = &set, .start = clock_seconds()};
    size_t S = pe_count(), k = set.seeds;
    r.total = S * k + 2 * S * k + EXP_LENGTH_TASKS * (S + 3) * k + EXP_VARIANTS * set.variant_seeds;
    fprintf(stderr, "experiments: %zu runs%s (d_model %zu, %zu layers, %zu seeds); threads: "
            "%s\n", r.total, quick ? ", quick settings" : "", set.d_model, set.layers,
            set.seeds, par_describe());
    ExpResults res;
    Err e;
    if (exp_results_init(&res, &set, &e))
        cli_fail(&cli, &e);
    run_order(&r, &res);
    run_tasks(&r, &res);
    run_lengths(&r, &res, false);
    run_lengths(&r, &res, true);
    run_variants(&r, &res);
    res.minutes = (clock_seconds() - r.start) / 60.0;
    if (exp_write(&res, out, &e))
        cli_fail(&cli, &e);
    fprintf(stderr, "experiments: wrote %s/results.md in %.1f minutes\n", out, res.minutes);
    exp_results_free(&res);
    return 0;
}
