/* The reference's model (issue 51): the first draws of Ruoss et al.'s code
 * (--first-draws reference: Haiku's hk.Linear, a normal cut at 2 std, std
 * 1/sqrt(fan_in), zero biases; model.c's reference_draws says where in
 * their code) and its attention output projection without a bias
 * (--no-out-bias), beside the defaults, which keep the draws made before
 * the options existed bit for bit. The checkpoint's side is in
 * test_checkpoint.c, the gradients' in test_grad_encoder.c, PyTorch's in
 * test_parity.c. Part of the train suite. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/run/checkpoint.h"
#include "first_draws.h"
#include "suites.h"

/* The default draws are those the build before the options made, for
 * every scheme of the fixture in three shapes: the weights bit for bit
 * (their checksum), so no committed number can move. A scheme added since
 * has its rows from the build that added it (`make fixtures` writes a new
 * scheme's rows, and never changes a row that is there). */
START_TEST(default_draws_are_the_earlier_builds) {
    FILE *f = fopen(FIRST_DRAWS_FILE, "r");
    ck_assert_msg(f != NULL, "no " FIRST_DRAWS_FILE " (run the tests from the repository root)");
    char line[256], name[PE_NAME_MAX];
    size_t *rows = calloc(pe_count(), sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    while (fgets(line, sizeof line, f)) {
        char which;
        size_t n, now_n;
        unsigned long long sum;
        uint64_t now;
        if (line[0] == '#')
            continue;
        ck_assert_msg(sscanf(line, "%23s %c %zu %llx", name, &which, &n, &sum) == 4,
                      "a malformed line: %s", line);
        size_t i = 0;
        while (i < pe_count() && strcmp(pe_at(i)->name, name) != 0)
            i++;
        ck_assert_msg(i < pe_count(), FIRST_DRAWS_FILE " has rows of %s, which the registry "
                      "does not have: `make fixtures` drops them", name);
        Err e;
        ck_assert_msg(first_draws_row(&now_n, &now, name, which, &e) == 0, "%s %c: %s", name,
                      which, e.msg);
        ck_assert_msg(now_n == n && now == sum, "%s, shape %c: %zu parameters, checksum "
                      "%016llx; the earlier build drew %zu, %016llx", name, which, now_n,
                      (unsigned long long)now, n, sum);
        rows[i]++;
    }
    fclose(f);
    /* every scheme of today's registry, in each shape */
    for (size_t i = 0; i < pe_count(); i++)
        ck_assert_msg(rows[i] == strlen(FIRST_DRAWS_SHAPES), "%s has %zu rows in "
                      FIRST_DRAWS_FILE ", not one a shape (%s): `make fixtures` writes a new "
                      "scheme's rows", pe_at(i)->name, rows[i], FIRST_DRAWS_SHAPES);
    free(rows);
}
END_TEST

/* The std of a normal cut at +-2, relative to the uncut one's: sqrt(1 -
 * 2 a phi(a) / (2 Phi(a) - 1)) at a = 2, 0.8796. */
static double cut_std(void) {
    double a = 2.0, phi = exp(-a * a / 2.0) / sqrt(2.0 * acos(-1.0)), mass = erf(a / sqrt(2.0));
    return sqrt(1.0 - 2.0 * a * phi / mass);
}

/* The measured std and mean of n floats, and their largest |x|. */
static void moments(const float *x, size_t n, double *sd, double *mean, double *amax) {
    double s = 0.0, ss = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        m = fmax(m, fabs(x[i]));
    }
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *sd = sqrt(ss / (double)n);
    *amax = m;
}

/* Relative: the std of a sample of n >= 4096 from this law lies within
 * about 0.6/sqrt(n) = 0.9% of its own; 5% is five of those, and the
 * wrong laws below lie 13% (uncut) and 50% or 100% (the other fan_in) off. */
#define STD_TOL 0.05

/* The model of the statistics: C = 64, F = 256 (the benchmark's), a head
 * of 64 classes so that every tensor has 4096 draws or more, and a scheme
 * with a table of each layer's own (xl) after the layers' tensors. */
static void stats_config(Config *c, FirstDraws draws, uint64_t seed) {
    config_default(c, 40, "xl");
    c->d_model = 64, c->n_heads = 8, c->n_layers = 2, c->d_ff = 256, c->n_classes = 64;
    c->first_draws = draws;
    c->seed = seed;
}

/* Under --first-draws reference every linear weight has Haiku's std
 * 0.8796/sqrt(fan_in) (q, k, v, the output projection and the FFN's first
 * layer read d_model = 64, its second d_ff = 256, the head 64), no draw
 * lies past 2 std and the largest come close to it, and every bias is 0.
 * The tolerance is a check: an uncut normal of the same size, and the
 * other fan_in's std, fall outside it. */
START_TEST(reference_draws_are_haikus) {
    Config c;
    stats_config(&c, DRAWS_REFERENCE, 42);
    Model m;
    Err e;
    ck_assert_msg(model_create(&m, &c, &e) == 0, "%s", e.msg);
    double k = cut_std();
    ck_assert_msg(fabs(k - 0.8796) < 1e-4, "the cut normal's std is %.5f", k);
    Rng rng;
    rng_seed(&rng, 99);
    size_t weights = 0, biases = 0;
    for (size_t i = 0; i < m.n_specs; i++) {
        const ParamSpec *s = &m.specs[i];
        const float *x = m.mem + s->offset;
        size_t n = s->rows * s->cols;
        if (!s->fan_in)
            continue;
        if (s->bias) {
            for (size_t j = 0; j < n; j++)
                ck_assert_msg(x[j] == 0.0f, "%s[%zu] is %g, not 0", s->name, j, (double)x[j]);
            biases++;
            continue;
        }
        size_t want_fan_in = strstr(s->name, "linear2") ? 256 : 64;
        ck_assert_msg(s->fan_in == want_fan_in, "%s: fan_in %zu", s->name, s->fan_in);
        ck_assert_msg(n >= 4096, "%s: %zu draws", s->name, n);
        float std = (float)(1.0 / sqrt((double)s->fan_in));
        double sd, mean, amax, want = k * std;
        moments(x, n, &sd, &mean, &amax);
        printf("reference draws: %-36s fan_in %3zu: std %.5f (Haiku's %.5f), mean %+.5f, "
               "max |w| %.4f of std\n", s->name, s->fan_in, sd, want, mean, amax / std);
        ck_assert_msg(fabs(sd / want - 1.0) <= STD_TOL, "%s: std %.5f, want %.5f within %g%%",
                      s->name, sd, want, 100 * STD_TOL);
        ck_assert_msg(fabs(mean) <= 5.0 * want / sqrt((double)n), "%s: mean %g", s->name, mean);
        ck_assert_msg(amax <= 2.0 * std, "%s: a draw of %g, past 2 std (%g)", s->name, amax,
                      2.0 * std);
        ck_assert_msg(amax >= 1.9 * std, "%s: the largest draw is %g std: cut nearer than 2",
                      s->name, amax / std);
        /* what the tolerance turns away: the other fan_in, and no cut */
        double other = k / sqrt(s->fan_in == 64 ? 256.0 : 64.0);
        ck_assert(fabs(sd / other - 1.0) > STD_TOL);
        float *uncut = malloc(n * sizeof *uncut);
        ck_assert_ptr_nonnull(uncut);
        for (size_t j = 0; j < n; j++)
            uncut[j] = std * rng_normal(&rng);
        double usd, umean, umax;
        moments(uncut, n, &usd, &umean, &umax);
        ck_assert_msg(fabs(usd / want - 1.0) > STD_TOL, "an uncut normal's std %.5f passes as "
                      "%.5f", usd, want);
        free(uncut);
        weights++;
    }
    /* q k v, out, ff1, ff2 of two layers, and the head */
    ck_assert_uint_eq(weights, 2 * 4 + 1);
    ck_assert_uint_eq(biases, 2 * 4 + 1);
    model_free(&m);
}
END_TEST

/* The same seed gives the same weights, another seed others; and every
 * tensor that is not a linear layer's (the embedding, xl's tables, the
 * LayerNorms) is the default draws' own, bit for bit: the two choices
 * differ in the linear layers alone. */
START_TEST(reference_draws_change_the_linear_layers_alone) {
    Model a, b, other, pytorch;
    Config c;
    Err e;
    stats_config(&c, DRAWS_REFERENCE, 42);
    ck_assert(model_create(&a, &c, &e) == 0 && model_create(&b, &c, &e) == 0);
    ck_assert(memcmp(a.mem, b.mem, a.n_params * sizeof *a.mem) == 0);
    stats_config(&c, DRAWS_REFERENCE, 43);
    ck_assert(model_create(&other, &c, &e) == 0);
    stats_config(&c, DRAWS_PYTORCH, 42);
    ck_assert(model_create(&pytorch, &c, &e) == 0);
    ck_assert_uint_eq(a.n_params, pytorch.n_params);
    for (size_t i = 0; i < a.n_specs; i++) {
        const ParamSpec *s = &a.specs[i];
        size_t n = s->rows * s->cols, bytes = n * sizeof(float);
        bool same_seed_other = memcmp(a.mem + s->offset, other.mem + s->offset, bytes) == 0;
        bool as_pytorch = memcmp(a.mem + s->offset, pytorch.mem + s->offset, bytes) == 0;
        ck_assert_str_eq(s->name, pytorch.specs[i].name);
        if (!s->fan_in) {
            ck_assert_msg(as_pytorch, "%s differs from the default draws'", s->name);
        } else if (!s->bias) {
            ck_assert_msg(!as_pytorch, "%s is the default draws'", s->name);
            ck_assert_msg(!same_seed_other, "%s is the same under seeds 42 and 43", s->name);
        }
    }
    model_free(&a), model_free(&b), model_free(&other), model_free(&pytorch);
}
END_TEST

/* Without the output projection's bias the tensor is not in the block (a
 * model C x L floats smaller, the other tensors where they were, named as
 * before), and the passes skip it: the outputs and every other gradient
 * are those of the model with that bias at 0. */
START_TEST(no_out_bias_drops_the_tensor_and_nothing_else) {
    Config c;
    config_default(&c, 12, _i ? "rope" : "learned");
    c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.d_ff = 24, c.n_classes = 3;
    c.norm = _i ? NORM_PRE : NORM_POST;
    Model with, without;
    Err e;
    ck_assert(model_create(&with, &c, &e) == 0);
    c.no_out_bias = true;
    ck_assert(model_create(&without, &c, &e) == 0);
    ck_assert_uint_eq(without.n_params, with.n_params - c.n_layers * c.d_model);
    ck_assert_uint_eq(without.n_specs, with.n_specs - c.n_layers);
    ck_assert_uint_eq(config_param_count(&c), without.n_params);
    /* the bias at 0 in the one, the rest copied over by name */
    for (size_t l = 0; l < c.n_layers; l++) {
        memset(with.p.layer[l].out_proj_b, 0, c.d_model * sizeof(float));
        ck_assert_ptr_null(without.p.layer[l].out_proj_b);
    }
    for (size_t i = 0, j = 0; i < with.n_specs; i++) {
        const ParamSpec *s = &with.specs[i];
        if (strstr(s->name, "out_proj.bias"))
            continue;
        const ParamSpec *t = &without.specs[j++];
        ck_assert_str_eq(s->name, t->name);
        memcpy(without.mem + t->offset, with.mem + s->offset,
               s->rows * s->cols * sizeof(float));
    }
    for (size_t j = 0; j < without.n_specs; j++)
        ck_assert_msg(!strstr(without.specs[j].name, "out_proj.bias"), "%s",
                      without.specs[j].name);
    size_t B = 2, T = 5, lens[2] = {5, 3};
    int ids[10] = {2, 3, 4, 5, 6, 7, 8, 9, 0, 0}, labels[2] = {0, 2};
    const Model *ms[2] = {&with, &without};
    float *hidden[2], *grads[2], loss[2];
    for (int k = 0; k < 2; k++) {
        Acts a;
        GradActs ga;
        ck_assert(acts_create(&a, ms[k], B, T, &e) == 0);
        ck_assert(gradacts_create(&ga, ms[k], B, T, &e) == 0);
        ck_assert_msg(encoder_forward(ms[k], &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
        loss[k] = encoder_loss(ms[k], &a, &ga, labels, B, T, NULL, NULL);
        hidden[k] = malloc(B * T * c.d_model * sizeof(float));
        grads[k] = calloc(ms[k]->n_params, sizeof(float));
        ck_assert(hidden[k] && grads[k]);
        memcpy(hidden[k], a.hidden, B * T * c.d_model * sizeof(float));
        Params g;
        params_carve(ms[k], &g, grads[k]);
        ck_assert_msg(encoder_backward(ms[k], &g, &a, &ga, ids, lens, B, T, &e) == 0, "%s",
                      e.msg);
        gradacts_free(&ga);
        acts_free(&a);
    }
    ck_assert_msg(loss[0] == loss[1], "loss %.9g with a zero bias, %.9g without", loss[0],
                  loss[1]);
    for (size_t i = 0; i < B * T * c.d_model; i++)
        ck_assert_msg(hidden[0][i] == hidden[1][i], "hidden %zu: %g, %g", i,
                      (double)hidden[0][i], (double)hidden[1][i]);
    for (size_t i = 0, j = 0; i < with.n_specs; i++) {
        const ParamSpec *s = &with.specs[i];
        if (strstr(s->name, "out_proj.bias"))
            continue;
        const ParamSpec *t = &without.specs[j++];
        for (size_t x = 0; x < s->rows * s->cols; x++)
            ck_assert_msg(grads[0][s->offset + x] == grads[1][t->offset + x],
                          "the gradient of %s[%zu] differs", s->name, x);
    }
    for (int k = 0; k < 2; k++)
        free(hidden[k]), free(grads[k]);
    model_free(&with);
    model_free(&without);
}
END_TEST

/* The programs: train takes both options, and evaluate, encode (and its
 * export), --resume and --init take them from the file. */
START_TEST(programs_take_the_options_from_the_file) {
    char *dir = scratch(), args[1024], path[1024];
    const char *small = "--task agent --d-model 8 --heads 2 --layers 1 --d-ff 8 --steps 2 "
                        "--eval-every 1 --quiet";
    snprintf(args, sizeof args, "%s --first-draws reference --no-out-bias --out %s/m.bin", small,
             dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "train %s: %s", args, r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert(ck.model.cfg.no_out_bias && ck.model.cfg.first_draws == DRAWS_REFERENCE);
    checkpoint_free(&ck);
    /* evaluate and encode read it; the export has no such tensor */
    snprintf(args, sizeof args, "--model %s/m.bin --task agent", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "evaluate: %s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --npy %s/x 'Rohan killed the lion'", dir, dir);
    r = run("encode", args);
    ck_assert_msg(r.status == 0, "encode: %s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/x/params/layers.0.self_attn.out_proj.weight.npy", dir);
    ck_assert(file_exists(path));
    snprintf(path, sizeof path, "%s/x/params/layers.0.self_attn.out_proj.bias.npy", dir);
    ck_assert_msg(!file_exists(path), "the export holds %s", path);
    snprintf(path, sizeof path, "%s/x/config.json", dir);
    char *json = slurp(path);
    ck_assert_msg(strstr(json, "\"out_proj_bias\": false") &&
                  strstr(json, "\"model_options\": {\"first-draws\": \"reference\", "
                         "\"out-bias\": \"false\"}"), "%s", json);
    free(json);
    /* a resumed run and a fine-tuning keep the model as the file has it */
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 3 --quiet --out %s/r.bin", dir, dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "train %s: %s", args, r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--init %s/m.bin --task agent --steps 1 --quiet --out %s/i.bin",
             dir, dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "train %s: %s", args, r.err);
    run_free(&r);
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s.bin", dir, k ? "i" : "r");
        ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
        ck_assert_msg(ck.model.cfg.no_out_bias, "%s has the output projection's bias", path);
        checkpoint_free(&ck);
    }
    /* --init takes the shape from its model: the options are refused */
    snprintf(args, sizeof args, "--init %s/m.bin --task agent --no-out-bias", dir);
    expect_exit("train", args, 2, "drop --no-out-bias");
    expect_exit("train", "--task agent --first-draws haiku", 2,
                "--first-draws is pytorch or reference, not 'haiku'");
    remove_dir(dir);
}
END_TEST

TCase *tcase_reference_model(void) {
    TCase *tc = tcase_create("reference model");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, default_draws_are_the_earlier_builds);
    tcase_add_test(tc, reference_draws_are_haikus);
    tcase_add_test(tc, reference_draws_change_the_linear_layers_alone);
    tcase_add_loop_test(tc, no_out_bias_drops_the_tensor_and_nothing_else, 0, 2);
    tcase_add_test(tc, programs_take_the_options_from_the_file);
    return tc;
}
