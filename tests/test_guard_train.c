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

/* A tiny session of task (not trained), with the causal flag as given. */
static void tiny(Session *s, const char *task, bool causal) {
    TrainMeta mt;
    train_meta_default(&mt);
    mt.batch = 4, mt.steps = 20, mt.eval_every = 10;
    snprintf(mt.task, sizeof mt.task, "%s", task);
    mt.task_opt.n_train = 100;
    OptConfig opt;
    opt_default(&opt);
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 16, cfg.n_layers = 1, cfg.causal = causal;
    Err e;
    ck_assert_msg(session_create(s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
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
    tiny(&s, "reverse", false);
    s.model.cfg.causal = true; /* forged: --causal --task reverse is refused */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "a causal model trained on reverse");
    s.model.cfg.causal = false;
    s.model.cfg.per_token = false; /* reverse labels every word */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "says its model labels the sentence, and its training data "
                "labels every word");
    session_free(&s);
    tiny(&s, "agent", false);
    s.model.cfg.per_token = true;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "says its model labels every word");
    session_free(&s);
    remove_dir(dir);
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
    return tc;
}
