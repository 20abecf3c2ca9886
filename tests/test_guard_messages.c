/* Edge cases round four (issue 36), the programs' messages: each test
 * reproduces one defect as a user meets it and is named after what it
 * guards. See test_guards.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/run/npy.h"
#include "suites.h"

/* 12h: "cannot open" said nothing of why (a missing folder, a file where a
 * folder should be, a folder where a file should be): every failed open
 * carries its reason, and the advice follows the reason. */
START_TEST(cannot_open_says_why) {
    expect_exit("train", "--data /nonexistent/d.txt --steps 1", 2,
                "cannot open the data file /nonexistent/d.txt: No such file or directory; "
                "check the path");
    expect_exit("train", "--data /etc/passwd/d.txt --steps 1", 2,
                "/etc/passwd/d.txt: Not a directory");
    expect_exit("train", "--data /tmp --steps 1", 2, "cannot read /tmp: Is a directory");
    expect_exit("compare_pe", "--schemes none --steps 1 --out /nonexistent/r.csv", 2,
                "cannot write --out /nonexistent/r.csv: No such file or directory; check that "
                "its folder exists");
    float *x, one = 1.0f;
    size_t shape[4], nd;
    Err e;
    ck_assert_int_eq(npy_read_f32("/nonexistent/a.npy", &x, shape, &nd, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "a.npy: No such file or directory"), "%s", e.msg);
    ck_assert_int_eq(npy_write_f32("/nonexistent/a.npy", &one, (size_t[]){1}, 1, &e), ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "cannot write /nonexistent/a.npy: No such file"), "%s", e.msg);
}
END_TEST

/* 12i: encode "" told of a batch of 1 x length 0; a sentence of no words
 * (or of the [CLS] alone) is called empty, before any model is made. */
START_TEST(empty_sentence_is_called_empty) {
    const char *args[] = {"''", "'  '", "--pool cls ''", "--pe rope ' \t '"};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        expect_exit("encode", args[i], 2, "the sentence is empty: give at least one word");
    expect_exit("demo_order", "''", 2, "SENTENCE is empty");
    expect_exit("pe_plot", "--kind attention --sentence '' --out /tmp/never.png", 2,
                "the sentence has 0 words");
}
END_TEST

/* 12m: a word that is not UTF-8 was refused in a data file but taken by
 * encode, demo_order and pe_plot: one rule for words everywhere, in the
 * data files' words, exit 2. */
START_TEST(sentence_words_follow_the_data_files_rule) {
    char *dir = scratch(), data[256], args[512];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    write_text(data, "labels: sentence\nA\tbad \xFF word\nB\tgood word\n");
    snprintf(args, sizeof args, "--data %s --steps 1", data);
    expect_exit("train", args, 2, "the word '\xFF' is not valid UTF-8 (at its byte 1); save "
                "the file as UTF-8");
    const char *bad[][2] = {
        {"encode", "'bad \xFF word'"},
        {"encode", "--pool cls 'over\xC0\xAFlong'"},
        {"demo_order", "'bad \xFF word'"},
        {"demo_order", "'a \xED\xA0\x80' '\xED\xA0\x80 a'"},
        {"pe_plot", "--kind attention --sentence 'cut \xE2\x82' --out /tmp/never.png"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_exit(bad[i][0], bad[i][1], 2, "is not valid UTF-8 (at its byte");
    expect_exit("demo_order", "'a b' 'b \xFF'", 2, "the word '\xFF' of PERMUTED is not valid "
                "UTF-8 (at its byte 1); give PERMUTED as UTF-8 text");
    /* and the data files' limit on a word's bytes */
    char longword[300 + 3] = "'";
    memset(longword + 1, 'a', 300);
    strcpy(longword + 301, "'");
    expect_exit("encode", longword, 2, "has 300 bytes, more than 256");
    /* UTF-8 that is valid passes */
    Run r = run("encode", "'Rohan tötete den Löwen'");
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    remove_dir(dir);
}
END_TEST

TCase *tcase_guard_messages(void) {
    TCase *tc = tcase_create("messages");
    tcase_add_test(tc, cannot_open_says_why);
    tcase_add_test(tc, empty_sentence_is_called_empty);
    tcase_add_test(tc, sentence_words_follow_the_data_files_rule);
    return tc;
}
