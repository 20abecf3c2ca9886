/* The linear probe of position: it reads the position straight off an
 * input that carries it, cannot off one that does not, and the program
 * prints, draws and refuses what it should. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "../src/run/probe.h"
#include "../src/text/tasks.h"
#include "../src/text/vocab.h"
#include "suites.h"

/* The valid and test splits of the reverse task (lengths 4..12), as ids
 * of a vocabulary built from its training split; with cls, each sentence
 * begins with [CLS], as a model that pools by it reads them. */
static void reverse_data_as(Vocab *v, Dataset *fit, Dataset *test, bool cls) {
    TextData tr, va, te;
    TaskOptions o = {.n_train = 200, .n_valid = 300, .n_test = 300, .seed = 3}, r;
    Err e;
    LabelSet labels;
    labelset_init(&labels);
    ck_assert_int_eq(task_options_resolve(&r, &o, "reverse", &e), 0);
    ck_assert_msg(task_make(&tr, &va, &te, "reverse", &r, &e) == 0, "%s", e.msg);
    TextData *splits[3] = {&tr, &va, &te};
    for (int i = 0; i < 3 && cls; i++)
        ck_assert_int_eq(textdata_prepend(splits[i], DATA_CLS, &e), 0);
    ck_assert_int_eq(vocab_init(v, &e), 0);
    Dataset d;
    ck_assert_int_eq(data_encode(&d, &tr, v, &labels, true, NULL, &e), 0);
    dataset_free(&d);
    ck_assert_int_eq(data_encode(fit, &va, v, &labels, false, NULL, &e), 0);
    ck_assert_int_eq(data_encode(test, &te, v, &labels, false, NULL, &e), 0);
    labelset_free(&labels);
    textdata_free(&tr);
    textdata_free(&va);
    textdata_free(&te);
}

static void reverse_data(Vocab *v, Dataset *fit, Dataset *test) {
    reverse_data_as(v, fit, test, false);
}

START_TEST(probe_reads_a_code_and_not_its_absence) {
    Vocab v;
    Dataset fit, test;
    reverse_data(&v, &fit, &test);
    Err e;
    ProbeResult r;
    Model m;
    /* the sinusoid added to random word vectors: a linear map reads it */
    make_model(&m, v.n, 32, 4, 2, 64, NORM_POST, ACT_RELU, "sinusoidal", COMBINE_DEFAULT, 5);
    ck_assert_msg(probe_position(&r, &m, &fit, &test, 1e-3, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n_rows, 3);
    ck_assert_uint_eq(r.n_positions, 12);
    ck_assert_uint_eq(r.fit_sentences, 300);
    ck_assert_uint_eq(r.test_sentences, 300);
    ck_assert_msg(r.accuracy[0] > 0.99 && r.r2[0] > 0.99, "input: %g, R^2 %g", r.accuracy[0],
                  r.r2[0]);
    /* chance: every sentence has a word at position 0, the commonest */
    ck_assert_double_eq_tol(r.chance, 300.0 / (double)r.test_words, 1e-12);
    model_free(&m);
    /* without position the input is the word alone: no better than
     * guessing, at the input and (the encoder being permutation-
     * equivariant) at every layer */
    make_model(&m, v.n, 32, 4, 2, 64, NORM_PRE, ACT_RELU, "none", COMBINE_DEFAULT, 5);
    ck_assert_msg(probe_position(&r, &m, &fit, &test, 1e-3, &e) == 0, "%s", e.msg);
    for (size_t l = 0; l < r.n_rows; l++)
        ck_assert_msg(r.accuracy[l] <= r.chance + 0.03, "layer %zu: %g against chance %g", l,
                      r.accuracy[l], r.chance);
    ck_assert_msg(fabs(r.r2[0]) < 0.03, "input R^2 %g", r.r2[0]);
    ck_assert_int_eq(probe_position(&r, &m, &fit, &test, 0.0, &e), ERR_INPUT);
    model_free(&m);
    /* a learned table of 6 rows: longer sentences are left out, counted */
    Config c;
    config_default(&c, v.n, "learned");
    c.d_model = 32;
    c.d_ff = 64;
    c.max_len = 6;
    ck_assert_int_eq(model_create(&m, &c, &e), 0);
    ck_assert_msg(probe_position(&r, &m, &fit, &test, 1e-3, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n_positions, 6);
    ck_assert_uint_gt(r.skipped, 300);
    ck_assert_uint_eq(r.fit_sentences + r.test_sentences + r.skipped, 600);
    model_free(&m);
    dataset_free(&fit);
    dataset_free(&test);
    vocab_free(&v);
}
END_TEST

/* Issue 25: the probe counted the [CLS] row as a word, always at
 * position 0, and credited a model without position with it (sort, layer
 * 0 of none: 0.12 with mean pooling, 0.22 with cls). It reads the words:
 * their positions from 0, and without position no better than chance. */
START_TEST(probe_reads_the_words_not_the_cls) {
    Vocab v, vc;
    Dataset fit, test, fitc, testc;
    reverse_data(&v, &fit, &test);
    reverse_data_as(&vc, &fitc, &testc, true);
    Err e;
    ProbeResult r, rc;
    Model m;
    make_model(&m, v.n, 32, 4, 2, 64, NORM_POST, ACT_RELU, "none", COMBINE_DEFAULT, 5);
    ck_assert_msg(probe_position(&r, &m, &fit, &test, 1e-3, &e) == 0, "%s", e.msg);
    model_free(&m);
    Config c;
    config_default(&c, vc.n, "none");
    c.d_model = 32, c.d_ff = 64, c.seed = 5, c.pool = POOL_CLS;
    ck_assert_int_eq(model_create(&m, &c, &e), 0);
    ck_assert_msg(probe_position(&rc, &m, &fitc, &testc, 1e-3, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(rc.n_positions, 12);
    ck_assert_uint_eq(rc.test_words, r.test_words);
    ck_assert_uint_eq(rc.fit_words, r.fit_words);
    ck_assert_double_eq_tol(rc.chance, r.chance, 1e-12);
    for (size_t l = 0; l < rc.n_rows; l++)
        ck_assert_msg(rc.accuracy[l] <= rc.chance + 0.03, "layer %zu: %g against chance %g", l,
                      rc.accuracy[l], rc.chance);
    model_free(&m);
    dataset_free(&fit), dataset_free(&test), dataset_free(&fitc), dataset_free(&testc);
    vocab_free(&v), vocab_free(&vc);
}
END_TEST

START_TEST(probe_program_prints_and_draws) {
    char dir[] = "/tmp/posenc_probeXXXXXX", args[1024], model[128], png[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/m.bin", dir);
    snprintf(png, sizeof png, "%s/probe.png", dir);
    snprintf(args, sizeof args, "--task reverse --steps 20 --d-model 16 --heads 2 --d-ff 32 "
             "--out %s", model);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--plot %s %s %s", png, model, model);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "Fitted on 500 validation sentences"));
    ck_assert_ptr_nonnull(strstr(r.out, "sinusoidal, post-norm"));
    ck_assert_ptr_nonnull(strstr(r.out, "R^2"));
    run_free(&r);
    struct stat st;
    ck_assert_int_eq(stat(png, &st), 0);
    ck_assert_int_gt(st.st_size, 1000);
    /* a model without a code stays near chance: its accuracy gets a chart
     * of its own range between the two, and the picture a third panel */
    int w2, h2, w3, h3, comp;
    ck_assert(stbi_info(png, &w2, &h2, &comp));
    snprintf(args, sizeof args, "--task reverse --pe none --steps 20 --d-model 16 --heads 2 "
             "--d-ff 32 --out %s/none.bin", dir);
    r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--plot %s %s %s/none.bin", png, model, dir);
    r = run("probe", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    ck_assert(stbi_info(png, &w3, &h3, &comp));
    ck_assert_msg(h3 > h2 + 250, "%d pixels tall against %d without a model near chance", h3, h2);
    snprintf(args, sizeof args, "--csv %s", model);
    r = run("probe", args);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "model,scheme,norm,layer,accuracy,r2\n"));
    ck_assert_ptr_nonnull(strstr(r.out, ",sinusoidal,post,2,"));
    run_free(&r);
    expect_exit("probe", "", 2, "give one or more models");
    expect_exit("probe", "--ridge 0 m.bin", 2, "--ridge");
    snprintf(args, sizeof args, "--plot %s/x.jpg %s", dir, model);
    expect_exit("probe", args, 2, "must name a .png file");
    expect_exit("probe", "/nonexistent/m.bin", 2, "cannot open");
    unlink(png);
    unlink(model);
    snprintf(args, sizeof args, "%s/none.bin", dir);
    unlink(args);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *suite_probe(void) {
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("probe");
    tcase_add_test(tc, probe_reads_a_code_and_not_its_absence);
    tcase_add_test(tc, probe_reads_the_words_not_the_cls);
    tcase_add_test(tc, probe_program_prints_and_draws);
    suite_add_tcase(s, tc);
    return s;
}
