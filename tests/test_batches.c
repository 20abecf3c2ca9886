/* train --batches by-length (Ruoss et al.'s batches, the benchmark's):
 * every batch holds sentences of one length, the lengths drawn uniformly
 * from those of the training split; with --random-positions the batch
 * shares one draw, in training and in evaluate_dataset_at(shared); a
 * resumed run goes on with the same batches. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../src/run/session.h"
#include "suites.h"

/* reverse_string on inputs of 1..6 (tapes of 2..12 tokens), width 16 */
static void by_length_run(TrainMeta *mt, Config *cfg, OptConfig *opt, size_t random) {
    train_meta_default(mt);
    snprintf(mt->task, sizeof mt->task, "reverse_string");
    mt->task_opt = (TaskOptions){.min_len = 1, .max_len = 6, .n_train = 300, .n_valid = 20,
                                 .n_test = 60, .seed = 4};
    mt->batch = 8, mt->steps = 40, mt->seed = 7;
    mt->batches = BATCHES_BY_LENGTH;
    mt->random_positions = random;
    config_default(cfg, 0, "sinusoidal");
    cfg->d_model = 16, cfg->n_heads = 2, cfg->d_ff = 32, cfg->seed = 7;
    opt_default(opt);
}

START_TEST(a_batch_is_one_length_and_lengths_are_drawn_uniformly) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    by_length_run(&mt, &cfg, &opt, 64);
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(s.n_lengths, 6); /* tapes of 2, 4, ..., 12 tokens */
    size_t seen[13] = {0}, steps = 120;
    for (size_t i = 0; i < steps; i++) {
        StepStats st;
        ck_assert_msg(session_step(&s, &st, &e) == 0, "%s", e.msg);
        size_t T = s.lens[0];
        seen[T]++;
        for (size_t b = 1; b < mt.batch; b++) {
            ck_assert_uint_eq(s.lens[b], T);
            /* one draw of positions for the whole batch */
            ck_assert(memcmp(s.pos + b * T, s.pos, T * sizeof *s.pos) == 0);
        }
        for (size_t t = 1; t < T; t++)
            ck_assert(s.pos[t] > s.pos[t - 1] && s.pos[t] < 64);
    }
    /* 120 draws of 6 lengths: each about 20 times; every one at least 5
     * (a binomial(120, 1/6) falls below that with probability ~1e-5) */
    for (size_t T = 2; T <= 12; T += 2)
        ck_assert_msg(seen[T] >= 5, "length %zu drawn %zu times in %zu", T, seen[T], steps);
    session_free(&s);
}
END_TEST

START_TEST(a_resumed_by_length_run_goes_on_with_the_same_batches) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    by_length_run(&mt, &cfg, &opt, 64);
    Session whole, half, rest;
    Err e;
    float lw[40], lr[20];
    ck_assert(session_create(&whole, &mt, &cfg, &opt, &e) == 0);
    ck_assert(session_create(&half, &mt, &cfg, &opt, &e) == 0);
    for (size_t i = 0; i < 40; i++) {
        StepStats st;
        ck_assert(session_step(&whole, &st, &e) == 0);
        lw[i] = st.loss;
        if (i < 20)
            ck_assert(session_step(&half, &st, &e) == 0);
    }
    char *path = temp_file();
    ck_assert_msg(session_save(&half, path, &e) == 0, "%s", e.msg);
    ck_assert_msg(session_resume(&rest, path, 0, 0.0, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(rest.meta.batches, BATCHES_BY_LENGTH);
    for (size_t i = 0; i < 20; i++) {
        StepStats st;
        ck_assert(session_step(&rest, &st, &e) == 0);
        lr[i] = st.loss;
    }
    ck_assert_msg(memcmp(lw + 20, lr, sizeof lr) == 0, "resumed steps differ");
    session_free(&whole), session_free(&half), session_free(&rest);
    unlink(path);
}
END_TEST

/* At test, shared draws score each batch at one set of positions: with no
 * position the scores cannot depend on them; with the sinusoid, a shared
 * draw and a draw per sentence score the same sentences differently. */
START_TEST(shared_test_draws_are_one_per_batch) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    by_length_run(&mt, &cfg, &opt, 64);
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < 20; i++) {
        StepStats st;
        ck_assert(session_step(&s, &st, &e) == 0);
    }
    EvalStats shared, apart, again;
    RandomDraw how = RANDOM_DRAW_POSITIONS;
    ck_assert(evaluate_dataset_at(&s.model, &s.test, 16, 64, 2, true, how, 3, NULL, &shared, &e)
              == 0);
    ck_assert(evaluate_dataset_at(&s.model, &s.test, 16, 64, 2, true, how, 3, NULL, &again, &e)
              == 0);
    ck_assert(evaluate_dataset_at(&s.model, &s.test, 16, 64, 2, false, how, 3, NULL, &apart, &e)
              == 0);
    ck_assert_uint_eq(shared.labelled, apart.labelled);
    ck_assert(shared.loss_sum == again.loss_sum);
    ck_assert(shared.loss_sum != apart.loss_sum);
    session_free(&s);
}
END_TEST

TCase *tcase_batches(void) {
    TCase *tc = tcase_create("batches by length");
    tcase_add_test(tc, a_batch_is_one_length_and_lengths_are_drawn_uniformly);
    tcase_add_test(tc, a_resumed_by_length_run_goes_on_with_the_same_batches);
    tcase_add_test(tc, shared_test_draws_are_one_per_batch);
    return tc;
}
