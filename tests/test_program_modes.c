/* The programs end to end in their modes: a [CLS] word read as the
 * sentence vector, the causal mask, compare_pe's table, the quick grid of
 * the experiments, and the refusals made before anything runs. A case of
 * the programs suite (test_programs.c has the training programs'). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/run/checkpoint.h"
#include "../src/text/order.h"
#include "suites.h"

/* --pool cls: a [CLS] word at position 0 breaks ALiBi's mirror, and gives
 * nothing to a model without position (the sentence vector is the same);
 * a model trained with it learns agent, and evaluate reports lengths in
 * words. */
START_TEST(cls_pooling_end_to_end) {
    Run r = run("demo_order", "--pe alibi,none --pool cls --csv 'Rohan killed the lion'");
    ck_assert_msg(r.status == 0, "%s", r.err);
    double cos[2], diff[2];
    const char *p = strstr(r.out, "alibi,");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(sscanf(p, "alibi,%lf,%lf", &diff[0], &cos[0]), 2);
    p = strstr(r.out, "none,");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(sscanf(p, "none,%lf,%lf", &diff[1], &cos[1]), 2);
    ck_assert_msg(diff[0] > 1e-3 && cos[0] < 0.99999, "alibi with [CLS]: %s", r.out);
    ck_assert_msg(diff[1] <= 1e-4 && cos[1] > 0.999999, "none with [CLS]: %s", r.out);
    run_free(&r);
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task agent --pool cls --steps 600 --out %s/c.bin", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    p = strstr(r.out, "test accuracy: ");
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(atof(p + strlen("test accuracy: ")) >= 0.98, "%s", r.out);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/c.bin --task agent --csv", dir);
    r = run("evaluate", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    /* agent's sentences have 4 and 5 words */
    ck_assert_msg(strstr(r.out, "\n4,") && strstr(r.out, "\n5,") && !strstr(r.out, "\n6,"),
                  "%s", r.out);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/c.bin 'Rohan killed the lion'", dir);
    r = run("demo_order", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "sentence 1: [CLS] Rohan killed the lion"));
    run_free(&r);
    expect_exit("demo_order", "--pool first", 2, "--pool is mean or cls");
    remove_dir(dir);
}
END_TEST

START_TEST(compare_pe_table_and_csv) {
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task agent --schemes none,sinusoidal --seeds 2 --steps 300 "
             "--d-model 32 --heads 2 --d-ff 64 --out %s/c.csv", dir);
    Run r = run("compare_pe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "| scheme | combine | mean | std | min | max |"));
    double none, sin;
    const char *p = strstr(r.out, "| none | - | ");
    ck_assert_ptr_nonnull(p);
    ck_assert(sscanf(p, "| none | - | %lf", &none) == 1);
    p = strstr(r.out, "| sinusoidal | add | ");
    ck_assert_ptr_nonnull(p);
    ck_assert(sscanf(p, "| sinusoidal | add | %lf", &sin) == 1);
    ck_assert_msg(none >= 0.45 && none <= 0.55 && sin >= 0.98, "none %g, sinusoidal %g", none,
                  sin);
    run_free(&r);
    expect_csv(dir, "c.csv", "scheme,combine,seed,test_accuracy,seconds\n", 5);
    /* random positions in training: Ruoss et al.'s evaluation as well, a
     * second accuracy, in the table and in the CSV */
    snprintf(args, sizeof args, "--task previous --schemes rope --seeds 2 --steps 50 "
             "--random-positions 16 --max-train-len 6 --max-len 8 --d-model 16 --heads 2 "
             "--d-ff 32 --out %s/r.csv", dir);
    r = run("compare_pe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "| random positions at test: mean | std |"));
    run_free(&r);
    expect_csv(dir, "r.csv", "scheme,combine,seed,test_accuracy,test_accuracy_random_positions,"
               "seconds\n", 3);
    remove_dir(dir);
}
END_TEST

/* --causal: the mask alone makes none order-sensitive in demo_order,
 * which says why; train refuses a task that needs later words, keeps the
 * mask in the checkpoint, and the programs that load it use it. */
START_TEST(causal_mask_end_to_end) {
    Run r = run("demo_order", "--causal --pe none --csv");
    ck_assert_msg(r.status == 0, "%s", r.err);
    double d, cosv;
    const char *p = strstr(r.out, "\nnone,");
    ck_assert_ptr_nonnull(p);
    ck_assert(sscanf(p, "\nnone,%lf,%lf", &d, &cosv) == 2);
    ck_assert_msg(d > ORDER_BLIND_TOL, "none under the mask moved only %g", d);
    run_free(&r);
    r = run("demo_order", "--causal --pe none");
    ck_assert_ptr_nonnull(strstr(r.out, "the mask itself carries order"));
    ck_assert_ptr_nonnull(strstr(r.out, "order-sensitive"));
    run_free(&r);
    expect_exit("train", "--task reverse --causal", 2, "a causal reader never sees");
    expect_exit("train", "--task sort --causal", 2, "drop --causal");
    char *dir = scratch(), args[512];
    snprintf(args, sizeof args, "--task previous --pe none --causal --max-len 8 --d-model 16 "
             "--heads 2 --d-ff 32 --steps 30 --out %s/c.bin", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/c.bin \"3 1 4 1 5\"", dir);
    r = run("demo_order", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "the mask itself carries order"));
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/c.bin --npy %s/npy \"3 1 4\"", dir, dir);
    r = run("encode", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "%s/npy/config.json", dir);
    char *json = slurp(args);
    ck_assert_ptr_nonnull(strstr(json, "\"causal\": true"));
    free(json);
    remove_dir(dir);
}
END_TEST

/* True when evaluate's row for length len has says after its count of
 * examples. */
static bool row_says(const char *out, size_t len, const char *says) {
    char head[16];
    snprintf(head, sizeof head, "\n%6zu  ", len);
    const char *row = strstr(out, head);
    return row && strncmp(row + strlen(head) + 8, says, strlen(says)) == 0;
}

/* Issue 25: a model that pools by [CLS] reads one token more than the
 * sentence's words, and every program counted it as a word ("10 words"
 * for 9); each message counts words now, and says what the [CLS] takes. */
START_TEST(cls_is_not_counted_as_a_word) {
    expect_exit("train", "--task reverse --pool cls --random-positions 12 --max-len 12", 2,
                "--random-positions 12 is shorter than the longest training sentence, 12 "
                "words (and the [CLS] before them: 13 positions): give at least 13");
    char *dir = scratch(), args[512];
    const char *nine = "'1 2 3 4 5 6 7 8 9'";
    snprintf(args, sizeof args, "--task reverse --pe learned --pool cls --max-len 8 --d-model 16 "
             "--heads 2 --d-ff 32 --layers 1 --steps 1 --out %s/m.bin", dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --max-len 9", dir);
    r = run("evaluate", args);
    ck_assert_msg(row_says(r.out, 8, "    0.") && row_says(r.out, 9, "  not encodable: the "
                  "learned table has rows up to length 8 after the [CLS]\n"), "%s", r.out);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --random-positions 5", dir);
    r = run("evaluate", args);
    ck_assert_msg(row_says(r.out, 4, "    0.") && row_says(r.out, 5, "  more words than the 5 "
                  "positions of --random-positions hold after the [CLS]\n"), "%s", r.out);
    run_free(&r);
    /* every draw scores the split again: the work is bounded */
    snprintf(args, sizeof args, "--model %s/m.bin --task reverse --random-positions 9 "
             "--examples 2000 --draws 1000", dir);
    expect_exit("evaluate", args, 2, "tokens, more than the 10000000 one evaluation scores at "
                "most; give --draws");
    /* evaluate and probe size their activations for 64 of the longest
     * sentence: a file of two 1000-word sentences asks for 512 MiB */
    char path[256], *text = malloc(9000), *p = text;
    p += sprintf(p, "labels: token\n");
    for (int k = 0; k < 4; k++) /* words, labels, words, labels */
        for (int i = 0; i < 1000; i++)
            p += sprintf(p, "%d%s", i % 10, i < 999 ? " " : k % 2 ? "\n" : "\t");
    snprintf(path, sizeof path, "%s/long.txt", dir);
    write_text(path, text);
    free(text);
    const char *guarded[2] = {"evaluate", "probe"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(args, sizeof args, "--data %s --max-memory 100 %s %s/m.bin", path,
                 i ? "" : "--model", dir);
        expect_exit(guarded[i], args, 2, "of 64 sentences of 1000 words (and the [CLS] before "
                    "them: 1001 positions) would need about");
    }
    const char *table = "9 words (and the [CLS] before them: 10 positions) but the";
    const char *progs[][2] = {{"demo_order", ""}, {"encode", ""}, {"pe_plot", "--kind "
                              "attention --out x.png --sentence"}};
    for (size_t i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "--model %s/m.bin %s %s", dir, progs[i][1], nine);
        r = run(progs[i][0], args);
        ck_assert_msg(r.status == 2 && strstr(r.err, table), "%s: %s", progs[i][0], r.err);
        run_free(&r);
    }
    snprintf(args, sizeof args, "--model %s/m.bin '1 2 3'", dir);
    r = run("encode", args);
    ck_assert_msg(strstr(r.out, "hidden states ([CLS] and 3 words x 16 channels)") &&
                  strstr(r.out, "\n  1 [CLS]\n") && strstr(r.out, "pooled (the [CLS] row, row "
                                                            "1):"), "%s", r.out);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

/* Issue 25: options that change nothing, or leave one vector for every
 * sentence, are refused with the reason; demo_order, encode and pe_plot
 * refuse a model past --max-memory before making it (one of 16.9 GB took
 * 52 s); a default of pe_plot holds whatever other option is given. */
START_TEST(refusals_and_guards_before_running) {
    expect_exit("train", "--task agent --pool cls --causal", 2, "--pool cls with --causal: "
                "under the mask the [CLS] row, at position 0, attends to itself alone");
    expect_exit("demo_order", "--pe alibi --alibi-slopes asymmetric --heads 1", 2,
                "--alibi-slopes asymmetric with 1 head is the symmetric bias");
    expect_exit("train", "--task agent --pe alibi --alibi-slopes asymmetric --causal", 2,
                "--alibi-slopes asymmetric does nothing under --causal");
    const char *big = "--d-model 8192 --heads 1 --layers 16 --max-memory 1000";
    const char *progs[][2] = {{"demo_order", "--pe none"}, {"encode", "'the cat'"},
                              {"pe_plot", "--kind attention --out /tmp/posenc_never.png"}};
    for (size_t i = 0; i < 3; i++) {
        char args[256];
        snprintf(args, sizeof args, "%s %s", progs[i][1], big);
        expect_exit(progs[i][0], args, 2, "would need about 1");
        expect_exit(progs[i][0], args, 2, "more than --max-memory 1000 MiB; use a smaller model");
    }
    Run r = run("demo_order", "--pe none --csv --max-memory 1");
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    expect_exit("pe_plot", "--kind heatmap --max-memory 1 --out /tmp/posenc_never.png", 2,
                "--max-memory applies to --kind attention only");
    /* pe_report's time grows as positions^2 x channels: hours at the
     * options' largest */
    expect_exit("pe_report", "--pe none --d-model 32768 --positions 256", 2,
                "give --positions 181 or fewer, or a smaller --d-model");
    /* --kind decay draws rope whatever else is given: RoFormer's picture
     * with its own settings spelled out, another with two heads */
    char *dir = scratch(), args[512], cmp[512];
    snprintf(args, sizeof args, "--kind decay --heads 1 --base 10000 --d-model 128 --out "
             "%s/d.png", dir);
    r = run("pe_plot", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(cmp, sizeof cmp, "cmp -s %s/d.png docs/img/decay.png", dir);
    ck_assert_msg(system(cmp) == 0, "pe_plot %s does not draw docs/img/decay.png", args);
    snprintf(args, sizeof args, "--kind decay --heads 2 --out %s/d2.png", dir);
    r = run("pe_plot", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    expect_exit("pe_plot", "--kind decay --pe sinusoidal --out /tmp/posenc_never.png", 2,
                "(--pe rope), not sinusoidal");
    remove_dir(dir);
}
END_TEST

/* The experiments' pipeline on tiny settings: every table filled (a
 * variant whose name was cut once matched no row and printed nan), every
 * CSV and figure written. */
START_TEST(experiments_quick_fills_every_table) {
    char *dir = scratch(), args[512], path[256];
    snprintf(args, sizeof args, "--quick --cells %s/cells --out %s", dir, dir);
    Run r = run("experiments", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(path, sizeof path, "%s/results.md", dir);
    char *md = slurp(path);
    ck_assert_msg(strstr(md, "nan") == NULL, "results.md has nan: %s", strstr(md, "nan"));
    const char *rows[] = {"| interleaved, add, scaled | 0.", "| split, add | 0.", "| t5 | 0.",
                          "| rope | ", "### previous"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        ck_assert_msg(strstr(md, rows[i]) != NULL, "results.md lacks '%s'", rows[i]);
    free(md);
    const char *files[] = {"results/order.csv", "results/tasks.csv", "results/lengths.csv",
                           "results/random.csv", "results/variants.csv",
                           "img/results/lengths_sort.png", "img/results/random_reverse.png"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        ck_assert_msg(file_exists(path), "%s was not written", path);
    }
    remove_dir(dir);
}
END_TEST

START_TEST(bad_input_exits_2) {
    expect_exit("train", "", 2, "--task");
    expect_exit("train", "--task tetris", 2, "unknown task 'tetris'");
    expect_exit("train", "--task agent --data x.txt", 2, "not both");
    expect_exit("train", "--task agent --pe fourier", 2, "unknown scheme");
    expect_exit("train", "--task agent --heads 5", 2, "--heads");
    expect_exit("train", "--task agent --steps 0", 2, "--steps");
    expect_exit("train", "--task agent --lr -1", 2, "--lr");
    expect_exit("train", "--task reverse --min-len 9 --max-len 4", 2, "--max-len");
    expect_exit("train", "--data /nonexistent/data.txt", 2, "/nonexistent/data.txt");
    expect_exit("train", "--resume /nonexistent/m.bin", 2, "/nonexistent/m.bin");
    expect_exit("train", "--task agent --steps 1 --out /nonexistent/dir/m.bin", 2,
                "/nonexistent/dir/m.bin");
    expect_exit("evaluate", "--task agent", 2, "--model");
    expect_exit("evaluate", "--model /nonexistent/m.bin --task agent", 2, "cannot open");
    expect_exit("evaluate", "--model README.md --task agent", 2, "not a posenc checkpoint");
    expect_exit("encode", "", 2, "sentence");
    expect_exit("encode", "--pe learned --table-len 2 'a b c'", 2, "--table-len");
    expect_exit("encode", "--model /nonexistent/m.bin 'a b'", 2, "cannot open");
    expect_exit("compare_pe", "--schemes none,fourier", 2, "fourier");
    expect_exit("compare_pe", "--seeds 0", 2, "--seeds");
    expect_exit("compare_pe", "--task agent --out /nonexistent/dir/c.csv", 2, "/nonexistent");
    const char *progs[] = {"train", "evaluate", "encode", "compare_pe", "pe_plot", "pe_report"};
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
        Run r = run(progs[i], "--help");
        ck_assert_msg(r.status == 0 && strstr(r.out, "Usage: ") != NULL, "%s --help", progs[i]);
        run_free(&r);
    }
}
END_TEST

/* --quiet (docs/index.md, "Your working folder"): train and compare_pe
 * print no progress and the same results, and still every error, so a
 * page's command that fails says so. */
START_TEST(quiet_drops_the_progress_not_the_errors) {
    char *dir = scratch(), args[512], quiet[600];
    snprintf(args, sizeof args, "--task agent --steps 200 --d-model 16 --heads 2 --d-ff 32 "
             "--out %s/q.bin", dir);
    snprintf(quiet, sizeof quiet, "%s --quiet", args);
    Run loud = run("train", args), q = run("train", quiet);
    ck_assert_msg(loud.status == 0 && q.status == 0, "%s%s", loud.err, q.err);
    ck_assert_msg(strstr(loud.err, "step    200/200") != NULL, "%s", loud.err);
    ck_assert_msg(q.err[0] == '\0', "--quiet printed: %s", q.err);
    ck_assert_str_eq(q.out, loud.out);
    run_free(&loud);
    run_free(&q);
    snprintf(quiet, sizeof quiet, "--task agent --steps 10 --quiet --out %s/none/q.bin", dir);
    q = run("train", quiet);
    ck_assert_int_eq(q.status, 2);
    ck_assert_msg(strstr(q.err, "does not exist") != NULL, "%s", q.err);
    run_free(&q);
    snprintf(quiet, sizeof quiet, "--task agent --schemes none --seeds 1 --steps 20 --d-model 16 "
             "--heads 2 --d-ff 32 --quiet --out %s/c.csv", dir);
    q = run("compare_pe", quiet);
    ck_assert_msg(q.status == 0, "%s", q.err);
    ck_assert_msg(q.err[0] == '\0', "--quiet printed: %s", q.err);
    ck_assert_msg(strstr(q.out, "| none |") != NULL, "%s", q.out);
    run_free(&q);
    remove_dir(dir);
}
END_TEST

TCase *tcase_program_modes(void) {
    TCase *tc = tcase_create("program modes");
    tcase_add_test(tc, cls_pooling_end_to_end);
    tcase_add_test(tc, compare_pe_table_and_csv);
    tcase_add_test(tc, causal_mask_end_to_end);
    tcase_add_test(tc, cls_is_not_counted_as_a_word);
    tcase_add_test(tc, refusals_and_guards_before_running);
    tcase_add_test(tc, experiments_quick_fills_every_table);
    tcase_add_test(tc, bad_input_exits_2);
    tcase_add_test(tc, quiet_drops_the_progress_not_the_errors);
    tcase_set_timeout(tc, 900);
    tcase_set_tags(tc, "slow");
    return tc;
}
