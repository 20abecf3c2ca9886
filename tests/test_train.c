/* Training: determinism, resuming, divergence, checkpoints that survive
 * any damage, the learning-rate schedules, and per-length evaluation. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../src/core/buf.h"
#include "../src/core/rng.h"
#include "../src/run/checkpoint.h"
#include "../src/run/session.h"
#include "suites.h"

/* A small run: the agent task, 2 layers of width 16. */
static void small_run(TrainMeta *mt, Config *cfg, OptConfig *opt, const char *pe) {
    memset(mt, 0, sizeof *mt);
    snprintf(mt->task, sizeof mt->task, "agent");
    mt->task_opt.seed = 3;
    mt->task_opt.n_train = 200;
    mt->task_opt.n_valid = 20;
    mt->task_opt.n_test = 20;
    mt->batch = 8;
    mt->steps = 40;
    mt->eval_every = 10;
    mt->seed = 5;
    config_default(cfg, 0, pe);
    cfg->d_model = 16, cfg->n_heads = 2, cfg->d_ff = 32, cfg->seed = 5;
    opt_default(opt);
    opt->warmup = 5;
}

static void run_steps(Session *s, size_t n, float *losses) {
    Err e;
    for (size_t i = 0; i < n; i++) {
        StepStats st;
        ck_assert_msg(session_step(s, &st, &e) == 0, "%s", e.msg);
        losses[i] = st.loss;
    }
}

START_TEST(same_seed_same_loss_curve) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "learned");
    Session a, b;
    Err e;
    float la[30], lb[30];
    ck_assert_msg(session_create(&a, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    ck_assert(session_create(&b, &mt, &cfg, &opt, &e) == 0);
    run_steps(&a, 30, la);
    run_steps(&b, 30, lb);
    ck_assert_msg(memcmp(la, lb, sizeof la) == 0, "two runs with one seed differ");
    ck_assert(memcmp(a.model.mem, b.model.mem, a.model.n_params * sizeof(float)) == 0);
    session_free(&b);
    mt.seed = cfg.seed = 6;
    ck_assert(session_create(&b, &mt, &cfg, &opt, &e) == 0);
    run_steps(&b, 30, lb);
    ck_assert(memcmp(la, lb, sizeof la) != 0);
    session_free(&a);
    session_free(&b);
}
END_TEST

START_TEST(resume_continues_the_same_curve) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "learned");
    Session whole, half, rest;
    Err e;
    float lw[40], lh[20], lr[20];
    ck_assert(session_create(&whole, &mt, &cfg, &opt, &e) == 0);
    run_steps(&whole, 40, lw);
    ck_assert(session_create(&half, &mt, &cfg, &opt, &e) == 0);
    run_steps(&half, 20, lh);
    char *path = temp_file();
    ck_assert_msg(session_save(&half, path, &e) == 0, "%s", e.msg);
    session_free(&half);
    ck_assert_msg(session_resume(&rest, path, 0, 0.0, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(rest.trainer.step, 20);
    run_steps(&rest, 20, lr);
    ck_assert(memcmp(lw, lh, sizeof lh) == 0);
    ck_assert_msg(memcmp(lw + 20, lr, sizeof lr) == 0, "resumed steps 21..40 differ from an "
                  "uninterrupted run");
    ck_assert(memcmp(whole.model.mem, rest.model.mem, whole.model.n_params * sizeof(float)) == 0);
    session_free(&whole);
    session_free(&rest);
    unlink(path);
}
END_TEST

START_TEST(save_then_load_is_bit_identical) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "sincos");
    Session s;
    Err e;
    float l[10];
    ck_assert(session_create(&s, &mt, &cfg, &opt, &e) == 0);
    run_steps(&s, 10, l);
    char *path = temp_file();
    ck_assert(checkpoint_save(path, &s.model, &s.vocab, &s.labels, NULL, NULL, &e) == 0);
    Checkpoint ck;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert(!ck.has_train);
    ck_assert_uint_eq(ck.vocab.n, s.vocab.n);
    ck_assert_str_eq(ck.labels.names[1], s.labels.names[1]);
    ck_assert(memcmp(&ck.model.cfg, &s.model.cfg, sizeof cfg) == 0);
    int ids[5] = {2, 3, 4, 5, 6};
    size_t lens[1] = {5};
    float *y1 = run_model(&s.model, ids, lens, 1, 5, NULL);
    float *y2 = run_model(&ck.model, ids, lens, 1, 5, NULL);
    ck_assert(memcmp(y1, y2, 5 * 16 * sizeof *y1) == 0);
    free(y1), free(y2);
    checkpoint_free(&ck);
    session_free(&s);
    unlink(path);
}
END_TEST

static unsigned char *file_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n);
    ck_assert(b && fread(b, 1, *n, f) == *n);
    fclose(f);
    return b;
}

START_TEST(damaged_checkpoints_are_refused) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "learned");
    cfg.d_model = 8, cfg.d_ff = 8, cfg.n_layers = 1;
    Session s;
    Err e;
    ck_assert(session_create(&s, &mt, &cfg, &opt, &e) == 0);
    char *path = temp_file();
    ck_assert(session_save(&s, path, &e) == 0);
    session_free(&s);
    size_t n;
    unsigned char *b = file_bytes(path, &n);
    Checkpoint ck;
    ck_assert_int_eq(checkpoint_parse(&ck, b, n, "ok", &e), 0);
    checkpoint_free(&ck);
    /* truncated at every byte */
    for (size_t k = 0; k < n; k++) {
        ck_assert_msg(checkpoint_parse(&ck, b, k, "cut", &e) == ERR_INPUT, "a file cut to %zu "
                      "of %zu bytes was accepted", k, n);
        ck_assert(strstr(e.msg, "cut") != NULL);
    }
    /* one byte changed, anywhere */
    for (size_t k = 0; k < n; k += 3) {
        b[k] ^= 0x5a;
        ck_assert_msg(checkpoint_parse(&ck, b, n, "flip", &e) == ERR_INPUT, "byte %zu changed "
                      "and the file was accepted", k);
        b[k] ^= 0x5a;
    }
    /* a valid checksum over a bad field: the field checks speak */
    size_t off_dmodel = 24 + 8; /* after the header and vocab_size */
    b[off_dmodel] = 0;
    uint64_t h = buf_fnv1a(b, n - 8);
    for (int i = 0; i < 8; i++)
        b[n - 8 + i] = (unsigned char)(h >> (8 * i));
    ck_assert_int_eq(checkpoint_parse(&ck, b, n, "forged", &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "d_model") != NULL, "%s", e.msg);
    /* foreign files */
    const char png[] = "\x89PNG\r\n\x1a\n0000000000000000000000000000000000";
    ck_assert_int_eq(checkpoint_parse(&ck, (const unsigned char *)png, sizeof png, "png", &e),
                     ERR_INPUT);
    ck_assert(strstr(e.msg, "not a posenc checkpoint") != NULL);
    ck_assert_int_eq(checkpoint_parse(&ck, b, 0, "empty", &e), ERR_INPUT);
    ck_assert_int_eq(checkpoint_load(&ck, "/nonexistent/model.bin", &e), ERR_INPUT);
    free(b);
    unlink(path);
}
END_TEST

static void load_cleanly(const unsigned char *bytes, size_t n, const char *path) {
    Checkpoint ck;
    Err e;
    int rc = checkpoint_parse(&ck, bytes, n, path, &e);
    ck_assert_msg(rc == 0 || rc == ERR_INPUT, "%s: rc %d", path, rc);
    /* the seeds are checkpoints of this format: the fuzzer starts from
     * valid files (regenerate them with build/train when it changes) */
    if (strstr(path, "/seeds/"))
        ck_assert_msg(rc == 0, "%s no longer loads: %s", path, e.msg);
    if (rc == 0)
        checkpoint_free(&ck);
}

START_TEST(fuzz_inputs_load_cleanly) {
    /* the seed checkpoints load; any crash the fuzzer finds is kept in
     * tests/fuzz/regressions/fuzz_checkpoint and replayed here */
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_checkpoint", load_cleanly), 0);
}
END_TEST

START_TEST(divergence_stops_and_leaves_the_model) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "sinusoidal");
    Session s;
    Err e;
    float l[3];
    ck_assert(session_create(&s, &mt, &cfg, &opt, &e) == 0);
    run_steps(&s, 3, l);
    s.model.p.layer[0].ff1_w[0] = INFINITY;
    size_t n = s.model.n_params;
    float *before = malloc(n * sizeof *before);
    ck_assert_ptr_nonnull(before);
    memcpy(before, s.model.mem, n * sizeof *before);
    StepStats st;
    ck_assert_int_eq(session_step(&s, &st, &e), ERR_RUNTIME);
    ck_assert_msg(strstr(e.msg, "step 4") != NULL, "%s", e.msg);
    ck_assert_uint_eq(s.trainer.step, 3);
    ck_assert(memcmp(before, s.model.mem, n * sizeof *before) == 0);
    free(before);
    session_free(&s);
}
END_TEST

START_TEST(learning_rate_schedules) {
    OptConfig o;
    opt_default(&o);
    o.lr = 1e-3f, o.warmup = 100;
    ck_assert_float_eq_tol(opt_lr(&o, 1), 1e-5f, 1e-9f);
    ck_assert_float_eq_tol(opt_lr(&o, 50), 5e-4f, 1e-9f);
    ck_assert_float_eq(opt_lr(&o, 100), 1e-3f);
    ck_assert_float_eq(opt_lr(&o, 5000), 1e-3f);
    o.schedule = SCHEDULE_NOAM;
    /* the paper's shape: linear up to the warm-up, then 1/sqrt(step) */
    ck_assert_float_eq_tol(opt_lr(&o, 100), 1e-3f, 1e-9f);
    ck_assert_float_eq_tol(opt_lr(&o, 400), 5e-4f, 1e-9f);
    ck_assert_float_eq_tol(opt_lr(&o, 25), 2.5e-4f, 1e-9f);
    /* with lr = (d warmup)^-0.5 it is exactly the paper's formula */
    o.lr = (float)(1.0 / sqrt(512.0 * 4000.0)), o.warmup = 4000;
    double paper = pow(512.0, -0.5) * fmin(pow(1000.0, -0.5), 1000.0 * pow(4000.0, -1.5));
    ck_assert_float_eq_tol(opt_lr(&o, 1000), (float)paper, 1e-9f);
    Err e;
    o.warmup = 0;
    ck_assert_int_eq(opt_check(&o, &e), ERR_INPUT);
}
END_TEST

START_TEST(evaluation_per_length_skips_past_the_table) {
    /* train on lengths 4..6, evaluate on 4..9: the learned table has rows
     * for 6 positions, so lengths 7..9 are reported, not run */
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "learned");
    snprintf(mt.task, sizeof mt.task, "reverse");
    mt.task_opt = (TaskOptions){.min_len = 4, .max_len = 9, .max_train_len = 6, .n_train = 200,
                                .n_valid = 50, .n_test = 200, .seed = 2};
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(model_max_positions(&s.model), 6);
    EvalStats per[10], total;
    ck_assert(s.test.max_len == 9);
    ck_assert(evaluate_dataset(&s.model, &s.test, 16, per, &total, &e) == 0);
    size_t examples = 0, skipped = 0;
    for (size_t len = 4; len <= 9; len++) {
        examples += per[len].examples;
        if (len > 6) {
            ck_assert_uint_eq(per[len].skipped, per[len].examples);
            ck_assert_uint_eq(per[len].missed, per[len].examples * len);
            skipped += per[len].skipped;
        } else {
            ck_assert_uint_eq(per[len].skipped, 0);
            ck_assert_uint_eq(per[len].labelled, per[len].examples * len);
        }
    }
    ck_assert_uint_eq(examples, 200);
    ck_assert_uint_eq(total.skipped, skipped);
    ck_assert(skipped > 0);
    ck_assert(eval_accuracy_all(&total) <= eval_accuracy(&total));
    session_free(&s);
}
END_TEST

/* Ruoss et al.'s evaluation (evaluate_dataset_at): with no position the
 * draws cannot matter, so every draw scores what 0..T-1 scores and the
 * counts are that many times theirs; with the sinusoid they do; sentences
 * longer than N are skipped; the same seed gives the same numbers. */
START_TEST(random_test_positions_are_drawn_and_averaged) {
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    const char *schemes[2] = {"none", "sinusoidal"};
    for (int k = 0; k < 2; k++) {
        small_run(&mt, &cfg, &opt, schemes[k]);
        snprintf(mt.task, sizeof mt.task, "reverse");
        mt.task_opt = (TaskOptions){.min_len = 4, .max_len = 9, .max_train_len = 6,
                                    .n_train = 200, .n_valid = 50, .n_test = 200, .seed = 2};
        Session s;
        Err e;
        ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
        float losses[40];
        run_steps(&s, 40, losses);
        EvalStats plain[10], at[10], again[10], total, total_at, total_again;
        ck_assert(evaluate_dataset(&s.model, &s.test, 16, plain, &total, &e) == 0);
        RandomDraw how = RANDOM_DRAW_POSITIONS;
        ck_assert(evaluate_dataset_at(&s.model, &s.test, 16, 8, 3, false, how, 7, at, &total_at,
                                      &e) == 0);
        ck_assert(evaluate_dataset_at(&s.model, &s.test, 16, 8, 3, false, how, 7, again,
                                      &total_again, &e) == 0);
        ck_assert_uint_eq(total_at.correct, total_again.correct);
        ck_assert(total_at.loss_sum == total_again.loss_sum);
        bool differs = false;
        for (size_t len = 4; len <= 9; len++) {
            if (len > 8) { /* no 9 sorted positions in 0..7 */
                ck_assert_uint_eq(at[len].skipped, at[len].examples);
                continue;
            }
            ck_assert_uint_eq(at[len].labelled, 3 * plain[len].labelled);
            if (k == 0)
                ck_assert_uint_eq(at[len].correct, 3 * plain[len].correct);
            /* the same sums in another order: equal to rounding */
            differs |= fabs(at[len].loss_sum - 3 * plain[len].loss_sum) >
                       1e-9 * fabs(plain[len].loss_sum) + 1e-12;
        }
        ck_assert_msg(differs == (k == 1), "%s: the drawn positions %s the outputs",
                      schemes[k], k ? "must change" : "cannot change");
        session_free(&s);
    }
}
END_TEST

/* The draws of 0..n-1 the generator made since `before` (it steps one
 * u64 at a time), or SIZE_MAX past `most`. */
static size_t draws_since(Rng before, const Rng *after, size_t most) {
    for (size_t k = 0; k <= most; k++, rng_u64(&before))
        if (memcmp(&before, after, sizeof before) == 0)
            return k;
    return SIZE_MAX;
}

/* Issue 25: --random-positions 1000000 drew in O(N) per sentence (an hour
 * for evaluate --draws 1000). The draw is O(n) whatever N; it stays
 * uniform over the n-subsets; where the docs, tests and experiments draw
 * (N at most 8 n) the numbers are the selection sampling's of before. */
START_TEST(random_positions_are_uniform_in_o_n_draws) {
    Rng r, before;
    size_t p[16];
    rng_seed(&r, 11);
    for (size_t n = 1; n <= 16; n *= 2) {
        before = r;
        rng_sorted_subset(&r, p, n, (size_t)1 << 20);
        ck_assert_msg(draws_since(before, &r, 4 * n) != SIZE_MAX, "n = %zu of 2^20: more "
                      "than %zu draws", n, 4 * n);
        for (size_t i = 1; i < n; i++)
            ck_assert(p[i - 1] < p[i]);
    }
    /* selection sampling, as it was, for N = 32 and the lengths 4..12 */
    for (size_t n = 4; n <= 12; n++) {
        Rng a, b;
        rng_seed(&a, 100 + n);
        b = a;
        size_t want[12], got = 0;
        for (size_t x = 0; x < 32 && got < n; x++)
            if (rng_below(&a, 32 - x) < n - got)
                want[got++] = x;
        rng_sorted_subset(&b, p, n, 32);
        ck_assert(memcmp(p, want, n * sizeof *p) == 0 && memcmp(&a, &b, sizeof a) == 0);
    }
    /* the pairs of 0..129 (past 64 n: drawn, not scanned): chi^2 over
     * the 8385 of them, each as likely, against its mean 8384 (sd 129) */
    enum { N = 130, PAIRS = N * (N - 1) / 2, DRAWS = 200000 };
    static unsigned count[N][N];
    memset(count, 0, sizeof count);
    rng_seed(&r, 12);
    for (size_t i = 0; i < DRAWS; i++) {
        rng_sorted_subset(&r, p, 2, N);
        ck_assert(p[0] < p[1] && p[1] < N);
        count[p[0]][p[1]]++;
    }
    double expect = (double)DRAWS / PAIRS, chi2 = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++)
            chi2 += ((double)count[i][j] - expect) * ((double)count[i][j] - expect) / expect;
    ck_assert_msg(chi2 < PAIRS + 6.0 * sqrt(2.0 * PAIRS), "chi^2 %g over %d pairs", chi2, PAIRS);
}
END_TEST

/* Trains with the programs' defaults (d_model 64, batch 32) for `steps`
 * and returns the test accuracy. */
static double train_task(const char *task, const char *pe, size_t steps) {
    TrainMeta mt = {.batch = 32, .steps = steps, .eval_every = 100, .seed = 42};
    mt.task_opt.seed = 1;
    snprintf(mt.task, sizeof mt.task, "%s", task);
    Config cfg;
    config_default(&cfg, 0, pe);
    OptConfig opt;
    opt_default(&opt);
    Session s;
    Err e;
    ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
    StepStats st;
    while (s.trainer.step < steps)
        ck_assert_msg(session_step(&s, &st, &e) == 0, "%s", e.msg);
    EvalStats test;
    ck_assert(evaluate_dataset(&s.model, &s.test, 64, NULL, &test, &e) == 0);
    session_free(&s);
    return eval_accuracy_all(&test);
}

START_TEST(position_is_what_the_agent_task_needs) {
    /* The README's and the tutorial's claims: without position the agent
     * test set (both orders of the same words) stays at chance; with the
     * sinusoid or a learned table the model learns who did it. The
     * contains control needs no order at all. */
    double none = train_task("agent", "none", 600);
    ck_assert_msg(none >= 0.45 && none <= 0.55, "agent without position: %.4f", none);
    double sin = train_task("agent", "sinusoidal", 600);
    ck_assert_msg(sin >= 0.98, "agent with the sinusoid: %.4f", sin);
    double learned = train_task("agent", "learned", 600);
    ck_assert_msg(learned >= 0.98, "agent with a learned table: %.4f", learned);
    double contains = train_task("contains", "none", 600);
    ck_assert_msg(contains >= 0.98, "contains without position: %.4f", contains);
}
END_TEST

/* Trains `steps` steps on a fixed random batch of 6 sentences (lengths
 * 1..12 of 12), keeping the layers' activations of Bm sentences at a
 * time; returns the parameters (or, with grad set, the last step's
 * gradients) and the last loss. */
static float micro_dropout; /* the models' dropout */

static float *micro_run(const char *pe, size_t Bm, size_t steps, bool grad, float *loss) {
    size_t B = 6, T = 12;
    Config cfg;
    config_default(&cfg, 20, pe);
    cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 32, cfg.n_classes = 3, cfg.max_len = T;
    cfg.norm = NORM_PRE, cfg.act = ACT_GELU, cfg.per_token = true;
    cfg.dropout = micro_dropout;
    Model m;
    Acts a;
    Trainer t;
    OptConfig opt;
    opt_default(&opt);
    Err e;
    ck_assert_msg(model_create(&m, &cfg, &e) == 0, "%s", e.msg);
    ck_assert_msg(acts_create_micro(&a, &m, B, T, Bm, &e) == 0, "%s", e.msg);
    ck_assert_msg(trainer_create(&t, &m, &opt, B, T, &e) == 0, "%s", e.msg);
    int ids[6 * 12], labels[6 * 12];
    size_t lens[6];
    Rng r;
    rng_seed(&r, 11);
    for (size_t b = 0; b < B; b++) {
        lens[b] = 1 + rng_below(&r, T);
        for (size_t i = 0; i < T; i++) {
            ids[b * T + i] = (int)rng_below(&r, 20);
            labels[b * T + i] = i < lens[b] ? (int)rng_below(&r, 3) : -1;
        }
    }
    StepStats st;
    for (size_t s = 0; s < steps; s++)
        ck_assert_msg(train_step(&t, &m, &a, ids, lens, NULL, labels, B, T, &st, &e) == 0,
                      "%s", e.msg);
    *loss = st.loss;
    float *p = malloc(m.n_params * sizeof *p);
    ck_assert_ptr_nonnull(p);
    memcpy(p, grad ? t.grad : m.mem, m.n_params * sizeof *p);
    trainer_free(&t);
    acts_free(&a);
    model_free(&m);
    return p;
}

/* Micro-batches (acts_create_micro) give the gradients of the whole
 * batch up to the rounding of the weights' gradients, summed in parts
 * (compared after one step: AdamW's first steps turn any difference in a
 * near-zero gradient into a whole step), and the same numbers run after
 * run. With dropout too: its masks count over the whole batch. */
static bool has_a_table_or_acts_in_attention(const PeScheme *s) {
    return s->param_shape || pe_in_attention(s);
}

START_TEST(micro_batches_train_like_one_batch) {
    /* _i: each such scheme; with dropout 0.2 too where it has a table */
    const char *pe = scheme_nth(has_a_table_or_acts_in_attention, (size_t)_i)->name;
    for (size_t k = 0; k < (pe_find(pe)->param_shape ? 2 : 1); k++) {
        micro_dropout = k ? 0.2f : 0.0f;
        Config cfg;
        config_default(&cfg, 20, pe);
        cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 32, cfg.n_classes = 3, cfg.max_len = 12;
        cfg.norm = NORM_PRE, cfg.act = ACT_GELU, cfg.per_token = true;
        cfg.dropout = micro_dropout;
        size_t n = config_param_count(&cfg);
        ck_assert(n > 0);
        float l1, l2, l3, l4;
        float *whole = micro_run(pe, 6, 1, true, &l1);
        float *micro = micro_run(pe, 4, 1, true, &l2);
        double worst = 0.0, top = 0.0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)micro[i] - whole[i]);
            worst = d > worst ? d : worst;
            top = fabs((double)whole[i]) > top ? fabs((double)whole[i]) : top;
        }
        printf("micro-batches %s, dropout %.1f: loss %.7f (whole batch %.7f), gradients within "
               "%.2e of their max\n", pe, (double)micro_dropout, (double)l2, (double)l1,
               worst / top);
        ck_assert_msg(worst <= 1e-5 * top, "%s: micro-batches moved a gradient by %.2e of "
                      "the largest", pe, worst / top);
        ck_assert(fabsf(l1 - l2) <= 1e-6f * fabsf(l1));
        free(whole), free(micro);
        float *p1 = micro_run(pe, 4, 3, false, &l3);
        float *p2 = micro_run(pe, 4, 3, false, &l4);
        ck_assert_msg(memcmp(p1, p2, n * sizeof *p1) == 0 && l3 == l4,
                      "%s: two runs with micro-batches differ", pe);
        free(p1), free(p2);
    }
    micro_dropout = 0.0f;
}
END_TEST

START_TEST(any_thread_count_trains_the_same_model) {
    /* Width 64 and batches of 32: products large enough to be cut in
     * halves (rows, columns, and the (C,C) gradients with too few of
     * either), on 1, 2 and 3 threads; t5 for a table inside attention. */
    TrainMeta mt;
    Config cfg;
    OptConfig opt;
    small_run(&mt, &cfg, &opt, "t5");
    mt.batch = 32;
    cfg.d_model = 64, cfg.n_heads = 4, cfg.d_ff = 256;
    float *first = NULL, losses[3][12];
#ifdef _OPENMP
    int team = omp_get_max_threads();
#endif
    for (int threads = 1; threads <= 3; threads++) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        Session s;
        Err e;
        ck_assert_msg(session_create(&s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
        run_steps(&s, 12, losses[threads - 1]);
        size_t bytes = s.model.n_params * sizeof(float);
        if (!first) {
            first = malloc(bytes);
            ck_assert_ptr_nonnull(first);
            memcpy(first, s.model.mem, bytes);
        } else {
            ck_assert_msg(memcmp(losses[threads - 1], losses[0], sizeof losses[0]) == 0,
                          "the losses on %d threads differ from one thread's", threads);
            ck_assert_msg(memcmp(s.model.mem, first, bytes) == 0,
                          "the weights after 12 steps on %d threads differ from one thread's",
                          threads);
        }
        session_free(&s);
    }
#ifdef _OPENMP
    omp_set_num_threads(team);
#endif
    free(first);
}
END_TEST

Suite *suite_train(void) {
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("training");
    tcase_add_test(tc, same_seed_same_loss_curve);
    tcase_add_test(tc, resume_continues_the_same_curve);
    tcase_add_test(tc, save_then_load_is_bit_identical);
    tcase_add_test(tc, damaged_checkpoints_are_refused);
    tcase_add_test(tc, fuzz_inputs_load_cleanly);
    tcase_add_test(tc, divergence_stops_and_leaves_the_model);
    tcase_add_test(tc, learning_rate_schedules);
    tcase_add_test(tc, evaluation_per_length_skips_past_the_table);
    tcase_add_test(tc, random_test_positions_are_drawn_and_averaged);
    tcase_add_test(tc, random_positions_are_uniform_in_o_n_draws);
    tcase_add_loop_test(tc, micro_batches_train_like_one_batch, 0,
                        (int)scheme_count(has_a_table_or_acts_in_attention));
    tcase_add_test(tc, any_thread_count_trains_the_same_model);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_checkpoint_format());
    suite_add_tcase(s, tcase_pad_loss());
    suite_add_tcase(s, tcase_batches());
    suite_add_tcase(s, tcase_draws());
    suite_add_tcase(s, tcase_xl_rows());
    suite_add_tcase(s, tcase_reference_model());
    tc = tcase_create("outcomes");
    tcase_add_test(tc, position_is_what_the_agent_task_needs);
    tcase_set_timeout(tc, 900);
    /* trainings to the end, scheme by scheme: make check, not make test */
    tcase_set_tags(tc, "slow");
    suite_add_tcase(s, tc);
    return s;
}
