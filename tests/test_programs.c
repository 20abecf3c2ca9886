/* train, evaluate, encode and compare_pe as a user runs them: their
 * outputs, files, and refusals of bad input. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/run/checkpoint.h"
#include "../src/run/npy.h"
#include "../src/text/order.h"
#include "suites.h"
#include "../src/pe/pe_rope.h"

/* A short agent run: small, but long enough to learn the task. */
#define SMALL "--task agent --d-model 32 --heads 2 --d-ff 64 --eval-every 100"

START_TEST(train_writes_model_and_log) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, SMALL " --pe sinusoidal --steps 300 --out %s/m.bin --log "
             "%s/log.csv", dir, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "train: %s", r.err);
    double valid, test;
    const char *kept = strstr(r.out, "valid accuracy: ");
    ck_assert_msg(kept && sscanf(kept, "valid accuracy: %lf\ntest accuracy: %lf", &valid,
                                 &test) == 2, "%s", r.out);
    ck_assert_msg(test >= 0.98, "agent with the sinusoid after 300 steps: %g", test);
    ck_assert_ptr_nonnull(strstr(r.err, "; threads: "));
    ck_assert_ptr_nonnull(strstr(r.err, "tok/s"));
    run_free(&r);
    /* the log: a header and one line per evaluation */
    expect_csv(dir, "log.csv",
               "step,loss,accuracy,valid_loss,valid_accuracy,seconds,lr,kept_step\n", 4);
    /* the model loads; evaluate agrees with train's test accuracy (the
     * kept model's) */
    snprintf(args, sizeof args, "--model %s/m.bin --task agent", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "evaluate: %s", r.err);
    char want[64];
    snprintf(want, sizeof want, "accuracy: %.4f\n", test);
    size_t n = strlen(r.out), w = strlen(want);
    ck_assert_msg(n >= w && strcmp(r.out + n - w, want) == 0, "evaluate ends with: %s", r.out);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task agent --csv", dir);
    r = run("evaluate", args);
    ck_assert_msg(strncmp(r.out, "length,examples,accuracy\n4,", 26) == 0, "%s", r.out);
    run_free(&r);
    /* the trained model through demo_order: different, right predictions */
    snprintf(args, sizeof args, "--model %s/m.bin", dir);
    r = run("demo_order", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "prediction for sentence 1: Rohan"));
    ck_assert_ptr_nonnull(strstr(r.out, "prediction for sentence 2: lion"));
    run_free(&r);
    remove_dir(dir);
}
END_TEST

START_TEST(resume_extends_a_run) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, SMALL " --pe learned --steps 200 --keep last --out %s/m.bin",
             dir);
    Run r = run("train", args);
    ck_assert_int_eq(r.status, 0);
    run_free(&r);
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 300 --keep last --out %s/m.bin", dir,
             dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "step    300/300"));
    ck_assert_ptr_null(strstr(r.err, "step    100/"));
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(ck.step, 300);
    checkpoint_free(&ck);
    /* shaping options do not mix with --resume */
    snprintf(args, sizeof args, "--resume %s/m.bin --pe sine", dir);
    expect_exit("train", args, 2, "--pe");
    remove_dir(dir);
}
END_TEST

/* Reads the rows of a training log: step, valid_accuracy, valid_loss and
 * kept_step; returns the number of rows. */
static size_t read_log(const char *path, double rows[][4], size_t cap) {
    char *text = slurp(path), *line = strchr(text, '\n');
    size_t n = 0;
    for (; line && line[1] && n < cap; line = strchr(line + 1, '\n')) {
        double step, loss, acc, vloss, vacc, secs, lr, kept;
        ck_assert_int_eq(sscanf(line + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &step, &loss, &acc,
                                &vloss, &vacc, &secs, &lr, &kept), 8);
        rows[n][0] = step, rows[n][1] = vacc, rows[n][2] = vloss, rows[n][3] = kept;
        n++;
    }
    free(text);
    return n;
}

/* --keep best keeps the evaluation with the best validation accuracy (ties
 * to the lower loss): the log, the saved checkpoint's step and stdout all
 * say which, and evaluate scores the file as train scored the kept model. */
START_TEST(keep_best_keeps_the_best_evaluation) {
    char *dir = scratch(), args[512], path[256];
    snprintf(args, sizeof args, "--task reverse --d-model 32 --heads 2 --d-ff 64 --steps 600 "
             "--eval-every 50 --lr 5e-3 --out %s/m.bin --log %s/log.csv", dir, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    double rows[64][4];
    snprintf(path, sizeof path, "%s/log.csv", dir);
    size_t n = read_log(path, rows, 64), best = 0;
    ck_assert_uint_eq(n, 12);
    for (size_t i = 0; i < n; i++) {
        if (rows[i][1] > rows[best][1] || (rows[i][1] == rows[best][1] && rows[i][2] < rows[best][2]))
            best = i;
        ck_assert_msg(rows[i][3] == rows[best][0], "row %zu keeps step %g, not %g", i,
                      rows[i][3], rows[best][0]);
    }
    size_t kept = (size_t)rows[best][0], k_step, k_of;
    const char *line = strstr(r.out, "kept: the model of step ");
    ck_assert_msg(line && sscanf(line, "kept: the model of step %zu of %zu", &k_step, &k_of) == 2,
                  "%s", r.out);
    ck_assert_uint_eq(k_step, kept);
    ck_assert_uint_eq(k_of, 600);
    /* the last step's figures are reported too when it is another model */
    ck_assert((strstr(r.out, "last step (600): valid accuracy ") != NULL) == (kept != 600));
    double test;
    ck_assert(sscanf(strstr(r.out, "test accuracy: "), "test accuracy: %lf", &test) == 1);
    run_free(&r);
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(ck.step, kept);
    checkpoint_free(&ck);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse", dir);
    r = run("evaluate", args);
    char want[64];
    snprintf(want, sizeof want, "accuracy: %.4f\n", test);
    ck_assert_msg(r.status == 0 && strstr(r.out, want), "want %s in %s", want, r.out);
    run_free(&r);
    /* resuming from an earlier step than the log's last refuses the log
     * (steps would go back in it) */
    snprintf(path, sizeof path, "%s/log.csv", dir);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "5000,0.1,0.9,0.1,0.9,1.0,0.001,5000\n");
    fclose(f);
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 700 --log %s/log.csv", dir, dir);
    expect_exit("train", args, 2, "goes on to step 5000");
    remove_dir(dir);
}
END_TEST

/* --keep last keeps the last step; without --out train says nothing was
 * saved; --table-len sizes the learned table. */
START_TEST(keep_last_and_table_len) {
    char *dir = scratch(), args[512], path[256];
    snprintf(args, sizeof args, SMALL " --pe learned --steps 200 --keep last --table-len 20 "
             "--out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "kept: the model of step 200 of 200 (the last step)"));
    ck_assert_ptr_null(strstr(r.out, "last step ("));
    run_free(&r);
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Checkpoint ck;
    Err e;
    ck_assert_msg(checkpoint_load(&ck, path, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(ck.step, 200);
    ck_assert_uint_eq(ck.model.cfg.max_len, 20);
    checkpoint_free(&ck);
    r = run("train", SMALL " --steps 100");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.err, "no --out was given, so the trained model was not saved"));
    run_free(&r);
    expect_exit("train", "--task agent --keep first", 2, "--keep is best or last");
    expect_exit("train", "--task agent --pe learned --table-len 3", 2, "--table-len 3");
    expect_exit("train", "--data data/agent_example.txt --keep best", 2,
                "--keep best needs validation data");
    remove_dir(dir);
}
END_TEST

START_TEST(learned_table_past_its_rows_is_reported) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task reverse --pe learned --max-len 8 --max-train-len 6 "
             "--d-model 32 --heads 2 --d-ff 64 --steps 50 --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "longer than the learned table"));
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --max-len 10", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "    10"));
    ck_assert_ptr_nonnull(strstr(r.out, "not encodable"));
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --max-len 10 --csv", dir);
    r = run("evaluate", args);
    ck_assert_ptr_nonnull(strstr(r.out, "\n10,")); /* no accuracy for length 10 */
    ck_assert_ptr_nonnull(strstr(r.out, ",\n"));
    run_free(&r);
    /* --random-positions: the table's 6 rows bound N; within them the
     * draws are said, and lengths past N have no room */
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --random-positions 7", dir);
    expect_exit("evaluate", args, 2, "rows for positions 0..5 only");
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --random-positions 5 "
             "--draws 3", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "sorted draws from 0..4, 3 draws per sentence"));
    ck_assert_ptr_nonnull(strstr(r.out, "more words than the 5 positions"));
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --draws 3", dir);
    expect_exit("evaluate", args, 2, "--draws goes with --random-positions");
    remove_dir(dir);
}
END_TEST

START_TEST(encode_exports_numpy_files) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--pe learned --norm pre --d-model 16 --heads 2 --npy %s/x "
             "'the cat sat'", dir);
    Run r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "hidden states (3 words x 16 channels)"));
    /* words count from 1, as demo_order counts them */
    ck_assert_ptr_nonnull(strstr(r.out, "\n  1 the\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "\n  3 sat\n"));
    run_free(&r);
    const char *names[] = {"input_ids.npy", "input.npy", "output.npy", "pooled.npy",
                           "vocab.txt", "config.json", "params/embedding.weight.npy",
                           "params/pos_embedding.weight.npy",
                           "params/layers.1.self_attn.in_proj_weight.npy",
                           "params/layers.0.norm2.bias.npy", "params/norm.weight.npy"};
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/x/%s", dir, names[i]);
        ck_assert_msg(file_exists(path), "encode did not write %s", names[i]);
    }
    float *x;
    size_t shape[4], nd;
    Err e;
    snprintf(path, sizeof path, "%s/x/params/layers.1.self_attn.in_proj_weight.npy", dir);
    ck_assert(npy_read_f32(path, &x, shape, &nd, &e) == 0);
    ck_assert(nd == 2 && shape[0] == 48 && shape[1] == 16);
    free(x);
    snprintf(path, sizeof path, "%s/x/params/layers.0.norm2.bias.npy", dir);
    ck_assert(npy_read_f32(path, &x, shape, &nd, &e) == 0);
    ck_assert(nd == 1 && shape[0] == 16); /* vectors are 1-D, as in torch */
    free(x);
    snprintf(path, sizeof path, "%s/x/output.npy", dir);
    ck_assert(npy_read_f32(path, &x, shape, &nd, &e) == 0);
    ck_assert(nd == 3 && shape[0] == 1 && shape[1] == 3 && shape[2] == 16);
    free(x);
    remove_dir(dir);
}
END_TEST

/* Issue 17's command: the frequencies encode writes are Hugging Face's
 * (the fixture's line for a head of 16, encode's default 64 / 4). */
START_TEST(encode_writes_rope_frequencies) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--pe rope --rope-scaling yarn --rope-factor 4 "
             "--rope-original-len 8 --npy %s/y 'the cat sat'", dir);
    Run r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    char path[256];
    snprintf(path, sizeof path, "%s/y/config.json", dir);
    char *json = slurp(path);
    ck_assert_ptr_nonnull(strstr(json, "\"rope_scaling\": \"yarn\""));
    const char *p = strstr(json, "\"rope_attention_factor\": ");
    ck_assert_ptr_nonnull(p);
    double att = strtod(p + strlen("\"rope_attention_factor\": "), NULL);
    ck_assert(fabs(att - (0.1 * log(4.0) + 1.0)) < 1e-15);
    free(json);
    char *fix = slurp("tests/reference/fixtures/rope_scaling.txt");
    p = strstr(fix, "yarn 4 8 16 10000 ");
    ck_assert_ptr_nonnull(p);
    double want[8], hf_att;
    ck_assert_int_eq(sscanf(p, "yarn 4 8 16 10000 %lf %lf %lf %lf %lf %lf %lf %lf %lf", &hf_att,
                            &want[0], &want[1], &want[2], &want[3], &want[4], &want[5],
                            &want[6], &want[7]), 9);
    ck_assert(fabs(att - hf_att) < 1e-15);
    free(fix);
    float *x;
    size_t shape[4], nd;
    Err e;
    snprintf(path, sizeof path, "%s/y/rope_inv_freq.npy", dir);
    ck_assert_msg(npy_read_f32(path, &x, shape, &nd, &e) == 0, "%s", e.msg);
    ck_assert(nd == 1 && shape[0] == 8);
    for (size_t i = 0; i < 8; i++)
        ck_assert_msg(fabs(x[i] - want[i]) <= 2e-6 * want[i], "pair %zu: %.9g, Hugging Face's "
                      "%.9g", i, (double)x[i], want[i]);
    free(x);
    remove_dir(dir);
}
END_TEST

/* Rope's scalings on a trained model: at inference (evaluate) and in a
 * fine-tuning that starts from its weights (train --init). */
START_TEST(rope_scaling_at_inference_and_fine_tuning) {
    char *dir = scratch(), args[768];
    snprintf(args, sizeof args, "--task reverse --pe rope --d-model 16 --heads 2 --d-ff 32 "
             "--max-train-len 6 --max-len 12 --steps 300 --out %s/a.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    /* evaluate: the same model, other frequencies, other answers */
    double acc[2];
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "--model %s/a.bin --task reverse --min-len 7 --max-len 12%s",
                 dir, k ? " --rope-scaling linear --rope-factor 2" : "");
        r = run("evaluate", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        const char *p = strstr(r.out, "accuracy: ");
        ck_assert_ptr_nonnull(p);
        acc[k] = atof(p + strlen("accuracy: "));
        run_free(&r);
    }
    ck_assert_msg(acc[0] != acc[1], "linear x2 changed nothing: %g", acc[0]);
    /* train --init with a learning rate of 1e-8: the weights are a.bin's */
    snprintf(args, sizeof args, "--init %s/a.bin --task reverse --rope-scaling yarn "
             "--rope-factor 2 --max-train-len 12 --max-len 12 --steps 1 --lr 1e-8 --warmup 0 "
             "--out %s/b.bin", dir, dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    Checkpoint a, b;
    Err e;
    char path[256];
    snprintf(path, sizeof path, "%s/a.bin", dir);
    ck_assert_msg(checkpoint_load(&a, path, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/b.bin", dir);
    ck_assert_msg(checkpoint_load(&b, path, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(rope_scaling_of(&b.model.cfg.pe), ROPE_SCALING_YARN);
    ck_assert(rope_factor_of(&b.model.cfg.pe) == 2.0);
    /* a.bin's training length */
    ck_assert(pe_get(&b.model.cfg.pe, &pe_opt_rope_original_len) == 6.0);
    ck_assert_uint_eq(a.model.n_params, b.model.n_params);
    /* rows by word and class: the same word, the same row */
    size_t E = a.model.pe.E;
    for (size_t i = 0; i < b.vocab.n; i++) {
        int j = vocab_find(&a.vocab, b.vocab.words[i]);
        ck_assert_int_ge(j, 0);
        for (size_t c = 0; c < E; c++)
            ck_assert(fabsf(b.model.p.tok_emb[i * E + c] - a.model.p.tok_emb[(size_t)j * E + c]) <
                      1e-5f);
    }
    checkpoint_free(&a);
    checkpoint_free(&b);
    snprintf(args, sizeof args, "--init %s/a.bin --task reverse --pe sinusoidal", dir);
    expect_exit("train", args, 2, "drop --pe");
    snprintf(args, sizeof args, "--init %s/a.bin --resume %s/a.bin", dir, dir);
    expect_exit("train", args, 2, "not both");
    snprintf(args, sizeof args, "--task reverse --pe sinusoidal --d-model 16 --heads 2 --steps 1 "
             "--out %s/s.bin", dir);
    r = run("train", args);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/s.bin --task reverse --rope-scaling ntk "
             "--rope-factor 2", dir);
    expect_exit("evaluate", args, 2, "this model uses sinusoidal");
    snprintf(args, sizeof args, "--init %s/s.bin --task reverse --rope-scaling ntk "
             "--rope-factor 2", dir);
    expect_exit("train", args, 2, "this model uses sinusoidal");
    remove_dir(dir);
}
END_TEST

/* Issue 19's command: train --dropout 0.1 learns agent to 0.98 or more;
 * the dropout is kept in the model and evaluate, which never drops, gives
 * the test accuracy train printed; a run without it trains another model. */
START_TEST(dropout_trains_agent_and_evaluate_ignores_it) {
    char *dir = scratch(), args[512];
    double test[2];
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "--task agent%s --steps 1500 --out %s/%d.bin",
                 k ? " --dropout 0.1" : "", dir, k);
        Run r = run("train", args);
        ck_assert_msg(r.status == 0, "%s", r.err);
        const char *p = strstr(r.out, "test accuracy: ");
        ck_assert_ptr_nonnull(p);
        test[k] = atof(p + strlen("test accuracy: "));
        ck_assert_ptr_nonnull(strstr(r.err, k ? "dropout 0.1" : "no dropout"));
        run_free(&r);
    }
    ck_assert_msg(test[1] >= 0.98, "agent with dropout 0.1: %.4f", test[1]);
    snprintf(args, sizeof args, "--model %s/1.bin --task agent", dir);
    Run r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *p = strstr(r.out, "accuracy: ");
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(fabs(atof(p + strlen("accuracy: ")) - test[1]) < 1e-9, "evaluate: %s", r.out);
    run_free(&r);
    char path[256];
    Checkpoint a, b;
    Err e;
    snprintf(path, sizeof path, "%s/0.bin", dir);
    ck_assert_msg(checkpoint_load(&a, path, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/1.bin", dir);
    ck_assert_msg(checkpoint_load(&b, path, &e) == 0, "%s", e.msg);
    ck_assert(a.model.cfg.dropout == 0.0f && b.model.cfg.dropout == 0.1f);
    ck_assert(memcmp(a.model.mem, b.model.mem, a.model.n_params * sizeof *a.model.mem) != 0);
    checkpoint_free(&a);
    checkpoint_free(&b);
    expect_exit("train", "--task agent --dropout 1", 2, "--dropout");
    remove_dir(dir);
}
END_TEST

Suite *suite_programs(void) {
    Suite *s = suite_create("programs");
    TCase *tc = tcase_create("training programs");
    tcase_add_test(tc, train_writes_model_and_log);
    tcase_add_test(tc, resume_extends_a_run);
    tcase_add_test(tc, keep_best_keeps_the_best_evaluation);
    tcase_add_test(tc, keep_last_and_table_len);
    tcase_add_test(tc, learned_table_past_its_rows_is_reported);
    tcase_add_test(tc, encode_exports_numpy_files);
    tcase_add_test(tc, encode_writes_rope_frequencies);
    tcase_add_test(tc, rope_scaling_at_inference_and_fine_tuning);
    tcase_add_test(tc, dropout_trains_agent_and_evaluate_ignores_it);
    tcase_set_timeout(tc, 900);
    /* the programs run end to end, trainings among them: make check */
    tcase_set_tags(tc, "slow");
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_program_modes());
    return s;
}
