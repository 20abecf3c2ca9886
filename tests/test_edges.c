/* The edges of checkpoints, outputs and resumes (issue 9): each test
 * reproduces one defect as a user or an attacker would meet it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/run/session.h"
#include "suites.h"

static char *scratch(void) {
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/posenc_edgeXXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static void remove_dir(const char *dir) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* A session of a tiny agent run, not trained. */
static void tiny_session(Session *s) {
    TrainMeta mt = {.batch = 4, .steps = 20, .eval_every = 10, .task_opt = {.seed = 1}};
    snprintf(mt.task, sizeof mt.task, "agent");
    mt.task_opt.n_train = 400;
    OptConfig opt;
    opt_default(&opt);
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    cfg.d_model = 8;
    cfg.n_heads = 2;
    cfg.d_ff = 16;
    cfg.n_layers = 1;
    Err e;
    ck_assert_msg(session_create(s, &mt, &cfg, &opt, &e) == 0, "%s", e.msg);
}

/* Defect 1: a training state valid by checksum but not by meaning. */
START_TEST(resume_refuses_a_meaningless_state) {
    char *dir = scratch(), path[256], args[512];
    snprintf(path, sizeof path, "%s/m.bin", dir);
    Session s;
    Err e;
    tiny_session(&s);
    s.meta.eval_every = 0; /* saved with a correct checksum */
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    snprintf(args, sizeof args, "--resume %s", path);
    expect_exit("train", args, 2, "evaluation interval is 0");
    snprintf(args, sizeof args, "--model %s --task agent", path);
    expect_exit("evaluate", args, 2, "evaluation interval is 0");
    s.meta.eval_every = 10;
    s.meta.batch = 0;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    snprintf(args, sizeof args, "--resume %s", path);
    expect_exit("train", args, 2, "batch");
    s.meta.batch = 4;
    s.trainer.opt.lr = 0.0f / 0.0f;
    ck_assert_msg(session_save(&s, path, &e) == 0, "%s", e.msg);
    expect_exit("train", args, 2, "optimizer");
    session_free(&s);
    remove_dir(dir);
}
END_TEST

/* Defect 8: the header's size is checked against the file's before any
 * allocation. Without the sanitizers a memory limit proves it: a 16 GiB
 * allocation would fail with "out of memory" (exit 1). */
START_TEST(loader_trusts_the_file_size_not_the_header) {
    char *dir = scratch(), path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    unsigned char head[40] = {'P', 'O', 'S', 'E', 'N', 'C', 'M', 'D', 2};
    uint64_t claim = (uint64_t)16 << 30;
    for (int i = 0; i < 8; i++)
        head[16 + i] = (unsigned char)(claim >> (8 * i));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    Checkpoint ck;
    Err e;
    ck_assert_int_eq(checkpoint_load(&ck, path, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "has 40 bytes but its header says 17179869184"), "%s", e.msg);
#if !defined(__SANITIZE_ADDRESS__)
    const char *bin = getenv("POSENC_BIN");
    snprintf(cmd, sizeof cmd, "ulimit -v 1000000; %s/evaluate --model %s --task agent "
             ">/dev/null 2>%s/err", bin ? bin : "build", path, dir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "evaluate under ulimit: status %d",
                  st);
#endif
    remove_dir(dir);
}
END_TEST

/* Defect 12 (part): a directory given as the model is bad input. */
START_TEST(model_that_is_a_directory_exits_2) {
    expect_exit("evaluate", "--model /tmp --task agent", 2, "is a directory");
    expect_exit("encode", "--model /tmp 'a b'", 2, "is a directory");
}
END_TEST

/* Defect 4: resume checks the classes' names, not only their number. */
START_TEST(resume_refuses_swapped_labels) {
    char *dir = scratch(), data[256], args[1024];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    write_text(data, "labels: sentence\nA\tx y\nB\ty x\nA\tx x y\n");
    snprintf(args, sizeof args, "--data %s --d-model 8 --heads 2 --d-ff 16 --steps 4 "
             "--eval-every 2 --steps 2 --out %s/m.bin", data, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    write_text(data, "labels: sentence\nB\tx y\nA\ty x\nB\tx x y\n");
    snprintf(args, sizeof args, "--resume %s/m.bin --steps 4", dir);
    expect_exit("train", args, 2, "class 0 is 'B', not 'A'");
    remove_dir(dir);
}
END_TEST

Suite *suite_edges(void) {
    Suite *s = suite_create("edges");
    TCase *tc = tcase_create("edges");
    tcase_add_test(tc, resume_refuses_a_meaningless_state);
    tcase_add_test(tc, loader_trusts_the_file_size_not_the_header);
    tcase_add_test(tc, model_that_is_a_directory_exits_2);
    tcase_add_test(tc, resume_refuses_swapped_labels);
    tcase_set_timeout(tc, 900);
    suite_add_tcase(s, tc);
    return s;
}
