/* Edge cases round five (issue 47, item 4): xPos at long and random
 * positions, and the messages of a pass that overflows. xPos counted its
 * scale from position 0, so the key's factor zeta_0^(-p/B) overflowed
 * float once p/B passed about 70 (train --pe xpos --xpos-scale-base 32
 * --random-positions 4096 was NaN at step 1, blaming the learning rate;
 * --xpos-scale-base 1 on 90 words blamed the weights, "largest 4.49785").
 * It now counts from the centre of the positions, as torchscale does; a
 * factor that no float holds whatever the centre (the score's own,
 * zeta_0^(-span/B)) is refused before the pass, naming the scale and
 * --xpos-scale-base; an overflow found after a pass names what it found.
 * See test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/train.h"
#include "../src/pe/analysis.h"
#include "ref_model.h"
#include "suites.h"

#define TINY "--d-model 16 --heads 2 --d-ff 32 --layers 1"

/* An untrained two-class model of V words, C = 8 in 2 heads, 2 layers,
 * with the scheme pe and, when base is not NULL, --xpos-scale-base base. */
static void model_of(Model *m, const char *pe, const char *base) {
    Config c;
    config_default(&c, 12, pe);
    c.d_model = 8, c.n_heads = 2, c.n_layers = 2, c.d_ff = 12, c.n_classes = 2, c.seed = 47;
    if (base)
        set_opt(&c.pe, "--xpos-scale-base", base);
    Err e;
    ck_assert_msg(model_create(m, &c, &e) == 0, "%s", e.msg);
}

/* ids (B,T) drawn from 2..11 by seed. */
static void batch_of(int *ids, size_t B, size_t T, uint64_t seed) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < B * T; i++)
        ids[i] = 2 + (int)rng_below(&r, 10);
}

static void expect_in(const char *msg, const char *want) {
    ck_assert_msg(strstr(msg, want) != NULL, "the message lacks '%s': %s", want, msg);
}

static void expect_not_in(const char *msg, const char *unwanted) {
    ck_assert_msg(strstr(msg, unwanted) == NULL, "the message has '%s': %s", unwanted, msg);
}

/* The scores hold the offset alone, and the centre moves with the
 * positions: a sentence at positions 40000.. gives the outputs it gives
 * at 0.. (the scales are the same floats; only the angles' rounding
 * moves), and the double reference, centred by the same rule from the
 * positions it is given, agrees. Counted from 0 the key's factor there
 * was 3.5^(40005/512) = 10^42.5: no float, and a NaN output. */
START_TEST(xpos_far_positions_give_the_near_outputs) {
    Model m;
    model_of(&m, "xpos", NULL);
    enum { B = 2, T = 6, C = 8 };
    size_t lens[B] = {6, 4}, pos[B * T];
    int ids[B * T];
    batch_of(ids, B, T, 1);
    for (size_t i = 0; i < B * T; i++)
        pos[i] = 40000 + i % T;
    Acts a;
    Err e;
    ck_assert(acts_create(&a, &m, B, T, &e) == 0);
    ck_assert_msg(encoder_forward_at(&m, &a, ids, lens, pos, B, T, &e) == 0, "%s", e.msg);
    float far[B * T * C];
    memcpy(far, a.hidden, sizeof far);
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, B, T, &e) == 0, "%s", e.msg);
    double *P = malloc(m.n_params * sizeof *P), ref[B * T * C], ref_near[B * T * C];
    ck_assert_ptr_nonnull(P);
    for (size_t i = 0; i < m.n_params; i++)
        P[i] = m.mem[i];
    ref_forward(&m, P, ids, lens, pos, NULL, B, T, ref);
    ref_forward(&m, P, ids, lens, NULL, NULL, B, T, ref_near);
    double d_near = 0.0, d_ref = 0.0, d_ref_near = 0.0;
    for (size_t b = 0; b < B; b++)
        for (size_t i = b * T * C; i < (b * T + lens[b]) * C; i++) {
            d_near = fmax(d_near, fabs((double)far[i] - a.hidden[i]));
            d_ref = fmax(d_ref, fabs((double)far[i] - ref[i]));
            d_ref_near = fmax(d_ref_near, fabs(ref[i] - ref_near[i]));
        }
    printf("xpos at 40000..: max |far - near| %.2e, |far - reference| %.2e, reference far - "
           "near %.2e\n", d_near, d_ref, d_ref_near);
    ck_assert_msg(d_near <= 1e-5, "positions 40000.. differ from 0.. by %.3g", d_near);
    ck_assert_msg(d_ref <= 1e-5, "the float model differs from the reference by %.3g", d_ref);
    ck_assert_msg(d_ref_near <= 1e-9, "the reference moves with the positions by %.3g",
                  d_ref_near);
    free(P);
    acts_free(&a);
    model_free(&m);
}
END_TEST

/* --xpos-scale-base 1 on 90 tokens: the score of the first and the last
 * holds 3.5^89 = 10^48.4 whatever the centre. Refused before the pass
 * (the hidden states are not written), naming the scale, the option and
 * the least base that keeps the factor within half of float's range;
 * 71 tokens (10^38.1) still run. */
START_TEST(xpos_factor_past_float_is_refused_before_the_pass) {
    Model m;
    model_of(&m, "xpos", "1");
    enum { T = 90 };
    size_t lens[1] = {T};
    int ids[T];
    batch_of(ids, 1, T, 2);
    Acts a;
    Err e;
    ck_assert(acts_create(&a, &m, 1, T, &e) == 0);
    for (size_t i = 0; i < T * 8; i++)
        a.hidden[i] = 7.0f;
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, T, &e), ERR_INPUT);
    expect_in(e.msg, "sentence 1 (90 tokens) at positions 0..89: xpos's scale "
              "zeta_0^(-89/B) = 3.5^(89/1) = 10^48.4");
    expect_in(e.msg, "past float32's largest number");
    expect_in(e.msg, "raise --xpos-scale-base to 3 or more");
    expect_not_in(e.msg, "largest 4");
    for (size_t i = 0; i < T * 8; i++)
        ck_assert_msg(a.hidden[i] == 7.0f, "the pass ran before the refusal");
    lens[0] = 71;
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, 1, 71, &e) == 0, "%s", e.msg);
    acts_free(&a);
    model_free(&m);
}
END_TEST

/* Layer 0's in_proj (q, k and v) multiplied by f. */
static void scale_in_proj(Model *m, float f) {
    LayerParams *L = &m->p.layer[0];
    size_t C = m->cfg.d_model;
    for (size_t i = 0; i < 3 * C * C; i++)
        L->in_proj_w[i] *= f;
}

/* After a pass that overflowed, the cause found: xpos's factor when it
 * takes more than half of float's range (10^24.2 for 90 tokens at B = 2,
 * which the q.k of in_proj weights 10^9 times their draw carries past
 * 3.4e38, while the same weights on 20 tokens stay finite), with what to
 * change; for rope with in_proj 10^20 times its draw, the weights,
 * naming the largest and its tensor; for a weight that is NaN, that
 * weight. */
START_TEST(an_overflow_names_the_cause_it_found) {
    enum { T = 90 };
    size_t lens[1] = {T};
    int ids[T];
    batch_of(ids, 1, T, 3);
    Model m;
    Acts a;
    Err e;
    model_of(&m, "xpos", "2");
    ck_assert(acts_create(&a, &m, 1, T, &e) == 0);
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, 1, T, &e) == 0, "%s", e.msg);
    scale_in_proj(&m, 1e9f);
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, T, &e), ERR_INPUT);
    expect_in(e.msg, "is not a finite number (NaN or infinity): sentence 1 (90 tokens) at "
              "positions 0..89: xpos's scale zeta_0^(-89/B) = 3.5^(89/2) = 10^24.2");
    expect_in(e.msg, "more than half of float32's range");
    expect_in(e.msg, "raise --xpos-scale-base to 3 or more");
    expect_not_in(e.msg, "the weights,");
    /* the same weights on 20 tokens (a factor of 10^5.2) stay finite */
    lens[0] = 20;
    ck_assert_msg(encoder_forward(&m, &a, ids, lens, 1, 20, &e) == 0, "%s", e.msg);
    lens[0] = T;
    acts_free(&a);
    model_free(&m);

    model_of(&m, "rope", NULL);
    ck_assert(acts_create(&a, &m, 1, T, &e) == 0);
    scale_in_proj(&m, 1e20f);
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, T, &e), ERR_INPUT);
    expect_in(e.msg, "the weights, the largest ");
    expect_in(e.msg, "(layers.0.self_attn.in_proj_weight[");
    expect_in(e.msg, "overflow float arithmetic; the model cannot be used");
    m.p.layer[1].ff1_w[5] = NAN;
    ck_assert_int_eq(encoder_forward(&m, &a, ids, lens, 1, T, &e), ERR_INPUT);
    expect_in(e.msg, "weight layers.1.linear1.weight[0][5] is nan");
    acts_free(&a);
    model_free(&m);
}
END_TEST

/* A training step whose loss is not finite: before the first update the
 * weights it starts from are at fault, never the learning rate; xpos's
 * factor the options' (ERR_INPUT); after updates, with finite weights and
 * no factor to blame, the learning rate. */
START_TEST(a_diverged_step_names_the_cause_it_found) {
    enum { B = 2, T = 90 };
    size_t lens[B] = {T, 40};
    int ids[B * T], labels[B] = {0, 1};
    batch_of(ids, B, T, 4);
    OptConfig o;
    opt_default(&o);
    Err e;
    StepStats st;
    const char *pe[2] = {"xpos", "rope"};
    for (int k = 0; k < 2; k++) {
        Model m;
        Acts a;
        Trainer t;
        model_of(&m, pe[k], k ? NULL : "2");
        ck_assert(acts_create(&a, &m, B, T, &e) == 0);
        ck_assert(trainer_create(&t, &m, &o, B, T, &e) == 0);
        if (k == 0) {
            scale_in_proj(&m, 1e9f);
            ck_assert_int_eq(train_step(&t, &m, &a, ids, lens, NULL, labels, B, T, &st, &e),
                             ERR_INPUT);
            expect_in(e.msg, "at step 1: sentence 1 (90 tokens) at positions 0..89: xpos's "
                      "scale");
            expect_in(e.msg, "raise --xpos-scale-base");
            expect_not_in(e.msg, "--lr");
        } else {
            ck_assert_msg(train_step(&t, &m, &a, ids, lens, NULL, labels, B, T, &st, &e) == 0,
                          "%s", e.msg);
            scale_in_proj(&m, 1e20f);
            ck_assert_int_eq(train_step(&t, &m, &a, ids, lens, NULL, labels, B, T, &st, &e),
                             ERR_RUNTIME);
            expect_in(e.msg, "at step 2: the weights, the largest ");
            expect_in(e.msg, "every weight finite and no factor of the positions to blame: "
                      "training diverged; lower --lr");
            trainer_free(&t);
            ck_assert(trainer_create(&t, &m, &o, B, T, &e) == 0);
            ck_assert_int_eq(train_step(&t, &m, &a, ids, lens, NULL, labels, B, T, &st, &e),
                             ERR_INPUT);
            expect_in(e.msg, "at step 1, before any update, so in the weights the run starts "
                      "from: the weights, the largest ");
            expect_not_in(e.msg, "--lr");
        }
        trainer_free(&t);
        acts_free(&a);
        model_free(&m);
    }
}
END_TEST

/* The reproducers as a user meets them. 90 words at --xpos-scale-base 1
 * in encode and demo_order: the scale and its option named, not the
 * weights; at the base the message advises (3), the same words run. */
START_TEST(xpos_programs_name_the_scale_not_the_weights) {
    char words[1024] = "'", args[1200];
    for (int i = 0; i < 90; i++)
        snprintf(words + strlen(words), sizeof words - strlen(words), "%sw%d", i ? " " : "", i);
    strcat(words, "'");
    const char *progs[2] = {"encode", "demo_order"};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "--pe xpos --xpos-scale-base 1 %s", words);
        Run r = run(progs[k], args);
        ck_assert_msg(r.status == 2, "%s: exit %d: %s", progs[k], r.status, r.err);
        expect_in(r.err, "xpos's scale zeta_0^(-89/B) = 3.5^(89/1) = 10^48.4");
        expect_in(r.err, "raise --xpos-scale-base to 3 or more");
        expect_not_in(r.err, "largest 4");
        /* demo_order shows the two sentences before it runs a model */
        ck_assert_msg(k == 1 || r.out[0] == '\0', "%s printed on stdout: %s", progs[k], r.out);
        run_free(&r);
        snprintf(args, sizeof args, "--pe xpos --xpos-scale-base 3 %s", words);
        r = run(progs[k], args);
        ck_assert_msg(r.status == 0, "%s at the advised base: exit %d: %s", progs[k], r.status,
                      r.err);
        run_free(&r);
    }
}
END_TEST

/* train --random-positions 4096 at --xpos-scale-base 32: tokens 4095
 * apart have a score factor of 3.5^128 = 10^69.6, which no float holds
 * whatever the centre (it was NaN at step 1, "lower --lr"): refused
 * before the first step, exit 2, naming the scale and the least base
 * that keeps the factor within half of float's range, 116; at 116 it
 * trains, every loss finite. */
START_TEST(xpos_random_positions_refused_or_finite) {
    expect_exit("train", "--task reverse --pe xpos --xpos-scale-base 32 --random-positions 4096 "
                "--steps 3 " TINY, 2, "the positions 0..4095 training draws from "
                "(--random-positions 4096): xpos's scale zeta_0^(-4095/B) = 3.5^(4095/32) = "
                "10^69.6 multiplies the score of the two tokens farthest apart, past float32's "
                "largest number (10^38.5): attention would overflow to NaN whatever the "
                "weights; raise --xpos-scale-base to 116 or more");
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task reverse --pe xpos --xpos-scale-base 116 "
             "--random-positions 4096 --steps 4 --eval-every 1 --train-examples 200 " TINY
             " --log %s/log.csv", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/log.csv", dir);
    char *log = slurp(path), *line = strchr(log, '\n');
    size_t steps = 0;
    for (; line && line[1]; line = strchr(line + 1, '\n')) {
        size_t step;
        double loss;
        ck_assert_msg(sscanf(line + 1, "%zu,%lf", &step, &loss) == 2, "%s", line + 1);
        ck_assert_msg(isfinite(loss) && loss > 0.0, "step %zu: loss %g", step, loss);
        printf("xpos --xpos-scale-base 116 --random-positions 4096: step %zu loss %.6f\n", step,
               loss);
        steps++;
    }
    ck_assert_int_eq(steps, 4);
    free(log);
    remove_dir(dir);
}
END_TEST

/* pe_report's measures at --xpos-scale-base 1: the positions 0..1023 it
 * measures (4 times 256) give a factor of 3.5^1023, and its table was
 * inf and n/a; refused, naming the scale. At 512 it measures. */
START_TEST(xpos_properties_refuse_a_factor_past_float) {
    PeConfig pc;
    pe_config_default(&pc, "xpos");
    set_opt(&pc, "--xpos-scale-base", "1");
    PeProps p;
    Err e;
    ck_assert_int_eq(pe_properties(&p, &pc, 42, 64, 4, 256, 1000000, &e), ERR_INPUT);
    expect_in(e.msg, "the positions 0..1023 measured (4 times 256): xpos's scale "
              "zeta_0^(-1023/B) = 3.5^(1023/1)");
    expect_in(e.msg, "raise --xpos-scale-base to 29 or more");
    pe_config_default(&pc, "xpos");
    ck_assert_msg(pe_properties(&p, &pc, 42, 64, 4, 256, 1000000, &e) == 0, "%s", e.msg);
    ck_assert(isfinite(p.max_abs) && isfinite(p.norm_last));
}
END_TEST

TCase *tcase_guard_xpos(void) {
    TCase *tc = tcase_create("xpos");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, xpos_far_positions_give_the_near_outputs);
    tcase_add_test(tc, xpos_factor_past_float_is_refused_before_the_pass);
    tcase_add_test(tc, an_overflow_names_the_cause_it_found);
    tcase_add_test(tc, a_diverged_step_names_the_cause_it_found);
    tcase_add_test(tc, xpos_programs_name_the_scale_not_the_weights);
    tcase_add_test(tc, xpos_random_positions_refused_or_finite);
    tcase_add_test(tc, xpos_properties_refuse_a_factor_past_float);
    return tc;
}
