/* Edge cases round four (issue 36), train's resumes and logs: see
 * test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/run/session.h"
#include "suites.h"

#define TINY "--d-model 8 --heads 2 --d-ff 16 --layers 1"

/* A resumed run trains on the data it trained on: the same relative
 * --data path from another folder names another file, and is refused by
 * its contents, not its name. */
START_TEST(resume_checks_its_data_by_content_not_name) {
    char *dir = scratch(), top[256];
    snprintf(top, sizeof top, "%s", dir);
    expect_sh(top, "mkdir a b && printf 'labels: sentence\\nA\\tx y\\nB\\ty x\\nA\\tx x y\\n' > "
              "a/d.txt && printf 'labels: sentence\\nA\\tx y\\nB\\ty x\\nB\\tx x y\\n' > b/d.txt",
              0, NULL);
    expect_sh(top, "cd a && $B/train --data d.txt " TINY " --steps 2 --eval-every 2 --out "
              "m.bin", 0, NULL);
    /* the same words and classes, other labels: only the contents tell */
    expect_sh(top, "cd b && $B/train --resume ../a/m.bin --steps 4 --out m.bin", 2,
              "--data d.txt is not the file this run trained on");
    expect_sh(top, "test ! -e b/m.bin", 0, NULL);
    expect_sh(top, "cd a && $B/train --resume m.bin --steps 4 --out m.bin", 0, NULL);
    remove_dir(top);
}
END_TEST

/* A tiny session of task (not trained) of scheme pe, with an option of it
 * (flag NULL: none), --random-positions N (0: none) drawn as draw. */
static void tiny_of(Session *s, const char *task, const char *pe, const char *flag,
                    const char *value, size_t N, RandomDraw draw) {
    TrainMeta mt;
    train_meta_default(&mt);
    mt.batch = 4, mt.steps = 20, mt.eval_every = 10;
    mt.random_positions = N, mt.random_draw = draw;
    snprintf(mt.task, sizeof mt.task, "%s", task);
    mt.task_opt.n_train = 100;
    OptConfig opt;
    opt_default(&opt);
    Config cfg;
    config_default(&cfg, 0, pe);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 16, cfg.n_layers = 1;
    if (flag)
        set_opt(&cfg.pe, flag, value);
    Err e;
    ck_assert_msg(session_create(s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
}

/* A tiny session of task (not trained). */
static void tiny(Session *s, const char *task) {
    tiny_of(s, task, "sinusoidal", NULL, NULL, 0, RANDOM_DRAW_POSITIONS);
}

/* What the command line refuses, a checkpoint cannot bring in: a causal
 * model of a task that needs later words, and a per_token flag that
 * contradicts the task's labels (each saved with a sound checksum). */
START_TEST(resume_refuses_flags_the_command_line_refuses) {
    char *dir = scratch(), path[256], args[512];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    snprintf(args, sizeof args, "--resume %s --steps 30", path);
    Session s;
    Err e;
    tiny(&s, "reverse");
    s.model.cfg.causal = true; /* forged: --causal --task reverse is refused */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "a causal model trained on reverse");
    s.model.cfg.causal = false;
    s.model.cfg.per_token = false; /* reverse labels every word */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "says its model labels the sentence, and its training data "
                "labels every word");
    session_free(&s);
    tiny(&s, "agent");
    s.model.cfg.per_token = true;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "says its model labels every word");
    session_free(&s);
    remove_dir(dir);
}
END_TEST

/* A checkpoint whose run options contradict its model (issue 61: xl's
 * --xl-rows clamped without the layer draws that alone read it; cope,
 * which has no positions, with --random-positions) says so, on --resume
 * and for evaluate: it printed "the run has positions for 94171421964160",
 * a number never set, in place of the real error. */
START_TEST(resume_names_options_that_contradict_the_model) {
    char *dir = scratch(), path[256], args[512];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    snprintf(args, sizeof args, "--resume %s --steps 30", path);
    const struct {
        size_t N;
        RandomDraw draw;
    } forged[] = {{64, RANDOM_DRAW_POSITIONS}, {0, RANDOM_DRAW_POSITIONS}};
    for (size_t k = 0; k < 2; k++) {
        Session s;
        Err e;
        tiny_of(&s, "reverse_string", "xl", "--xl-rows", "clamped", 64, RANDOM_DRAW_RUOSS);
        s.meta.random_positions = forged[k].N, s.meta.random_draw = forged[k].draw;
        ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
        session_free(&s);
        expect_exit("train", args, 2, "its model reads --xl-rows clamped, which only the "
                    "distances --random-draw ruoss draws in every layer reach, and its run "
                    "drew none");
        Run r = run("train", args);
        ck_assert_msg(!strstr(r.err, "positions for"), "%s", r.err);
        run_free(&r);
        char eval[512];
        snprintf(eval, sizeof eval, "--model %s --task reverse_string", path);
        /* evaluate, which has no --xl-rows, names it without the dashes */
        expect_exit("evaluate", eval, 2, "bad checkpoint: its model reads xl-rows clamped");
    }
    /* cope counts its positions from the content: a run of it with
     * --random-positions train refuses */
    Session s;
    Err e;
    tiny_of(&s, "agent", "cope", NULL, NULL, 0, RANDOM_DRAW_POSITIONS);
    s.meta.random_positions = 64;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    session_free(&s);
    expect_exit("train", args, 2, "holds run options that do not go with its model, which "
                "train would not have saved (--random-positions does nothing for cope");
    remove_dir(dir);
}
END_TEST

/* Issue 61, item 4: a model trained with --xl-rows clamped (at the
 * distances --random-draw ruoss draws) is evaluated, with the draws its
 * checkpoint records or without: evaluate refused every one with advice to
 * drop an option it does not have. Fine-tuning it without the draws says
 * what this run lacks, in the terms of the command line given: it said
 * "drop --xl-rows", which the user never gave. */
START_TEST(a_model_of_clamped_rows_is_evaluated_and_fine_tuned) {
    char *dir = scratch(), top[256];
    snprintf(top, sizeof top, "%s", dir);
    expect_sh(top, "$B/train --task reverse_string --pe xl --xl-rows clamped --random-positions "
              "64 --random-draw ruoss --steps 2 --eval-every 2 " TINY " --out m.bin", 0, NULL);
    expect_sh(top, "$B/evaluate --model m.bin --task reverse_string --random-positions 64 "
              "--draws 1 --examples 20 | grep -q '^accuracy: '", 0, NULL);
    expect_sh(top, "$B/evaluate --model m.bin --task reverse_string --examples 20 | grep -q "
              "'^accuracy: '", 0, NULL);
    const char *init = "$B/train --init m.bin --task reverse_string --steps 2 --eval-every 2";
    expect_sh(top, init, 2, "the model to start from was trained with --xl-rows clamped, which "
              "only the distances --random-draw ruoss draws in every layer reach, and this run "
              "draws none: give --random-positions N --random-draw ruoss");
    refute_sh(top, init, "drop --xl-rows");
    expect_sh(top, "$B/train --init m.bin --task reverse_string --steps 2 --eval-every 2 "
              "--random-positions 64 --random-draw ruoss --out f.bin && $B/evaluate --model "
              "f.bin --task reverse_string --examples 20 | grep -q '^accuracy: '", 0, NULL);
    remove_dir(top);
}
END_TEST

/* A log row names the kept model only once it is on disk: with every
 * save failing (the file size limit below a checkpoint, above the log's
 * rows), no row claims a kept step. */
START_TEST(log_names_a_kept_model_only_after_it_is_saved) {
    char *dir = scratch(), top[256];
    snprintf(top, sizeof top, "%s", dir);
    /* sh counts ulimit -f in 512-byte blocks: 1 KB; SIGXFSZ ignored, so a
     * write past it fails with EFBIG as a full disk's does with ENOSPC */
    expect_sh(top, "trap '' XFSZ; ulimit -f 2; $B/train --task agent " TINY " --steps 20 "
              "--eval-every 10 --out m.bin --log log.csv", 1, "failed");
    char path[512];
    snprintf(path, sizeof path, "%s/log.csv", top);
    char *log = slurp(path);
    ck_assert_msg(strncmp(log, "step,", 5) == 0, "the log lacks its header: %s", log);
    ck_assert_msg(strchr(log, '\n') && strchr(log, '\n')[1] == '\0',
                  "a row was logged for a model that was never saved:\n%s", log);
    free(log);
    snprintf(path, sizeof path, "%s/m.bin", top);
    ck_assert_msg(access(path, F_OK) != 0, "m.bin exists");
    remove_dir(top);
}
END_TEST

/* Fine-tuning a learned table that cannot grow: the advice names the
 * option that asked for more rows, and an option train has. */
START_TEST(init_advice_names_the_option_that_asks) {
    char *dir = scratch(), top[256];
    snprintf(top, sizeof top, "%s", dir);
    expect_sh(top, "$B/train --task previous --pe learned --max-train-len 6 --max-len 8 " TINY
              " --steps 2 --eval-every 2 --out l.bin", 0, NULL);
    expect_sh(top, "$B/train --init l.bin --task previous --max-train-len 6 --max-len 8 "
              "--random-positions 100 --steps 2", 2, "give --random-positions 6 or less");
    char *err;
    sh_in(top, "$B/train --init l.bin --task previous --max-train-len 6 --max-len 8 "
          "--random-positions 100 --steps 2", &err);
    ck_assert_msg(!strstr(err, "--max-train-len"), "advice names --max-train-len: %s", err);
    free(err);
    expect_sh(top, "$B/train --init l.bin --task previous --max-train-len 9 --max-len 12 "
              "--steps 2", 2, "(--max-train-len 6)");
    remove_dir(top);
}
END_TEST

TCase *tcase_guard_train(void) {
    TCase *tc = tcase_create("train");
    tcase_add_test(tc, resume_checks_its_data_by_content_not_name);
    tcase_add_test(tc, resume_refuses_flags_the_command_line_refuses);
    tcase_add_test(tc, log_names_a_kept_model_only_after_it_is_saved);
    tcase_add_test(tc, init_advice_names_the_option_that_asks);
    tcase_add_test(tc, resume_names_options_that_contradict_the_model);
    tcase_add_test(tc, a_model_of_clamped_rows_is_evaluated_and_fine_tuned);
    return tc;
}
