/* Data files, the built-in tasks, encoding and batching. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/text/data.h"
#include "suites.h"

static int parse(TextData *d, const char *text, Err *e) {
    return data_parse(d, text, strlen(text), "t.txt", e);
}

char *example_joined(const TextData *d, size_t i, bool labels) {
    size_t a = d->start[i], b = d->start[i + 1];
    char **v = d->word;
    if (labels) {
        v = d->label;
        if (d->kind == LABELS_SENTENCE)
            a = i, b = i + 1;
    }
    size_t len = 1;
    for (size_t j = a; j < b; j++)
        len += strlen(v[j]) + 1;
    char *s = calloc(len, 1);
    ck_assert_ptr_nonnull(s);
    for (size_t j = a; j < b; j++) {
        if (j > a)
            strcat(s, " ");
        strcat(s, v[j]);
    }
    return s;
}

static void assert_same(const TextData *a, const TextData *b) {
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert_uint_eq(a->start[i + 1], b->start[i + 1]);
        for (int lab = 0; lab < 2; lab++) {
            char *x = example_joined(a, i, lab), *y = example_joined(b, i, lab);
            ck_assert_str_eq(x, y);
            free(x);
            free(y);
        }
    }
}

/* Writes d, reads it back and compares. */
static void assert_round_trip(const TextData *d) {
    char *path = temp_file();
    Err e;
    TextData back;
    ck_assert_msg(data_write(d, path, &e) == 0, "%s", e.msg);
    ck_assert_msg(data_read(&back, path, &e) == 0, "%s", e.msg);
    assert_same(d, &back);
    textdata_free(&back);
    unlink(path);
}

START_TEST(example_files_parse) {
    TextData d;
    Err e;
    ck_assert_msg(data_read(&d, "data/agent_example.txt", &e) == 0, "%s", e.msg);
    ck_assert_int_eq(d.kind, LABELS_SENTENCE);
    ck_assert_uint_ge(d.n, 24);
    char *s = example_joined(&d, 0, false);
    ck_assert_str_eq(s, "Rohan killed the lion");
    free(s);
    ck_assert_str_eq(d.label[1], "lion");
    for (size_t i = 0; i < d.n; i++) {
        /* the label is the doer: the word two before "the" */
        size_t a = d.start[i], b = d.start[i + 1], k = a;
        while (k < b && strcmp(d.word[k], "the") != 0)
            k++;
        ck_assert_uint_lt(k, b);
        ck_assert_uint_ge(k, a + 2);
        ck_assert_str_eq(d.label[i], d.word[k - 2]);
    }
    assert_round_trip(&d);
    textdata_free(&d);

    ck_assert_msg(data_read(&d, "data/reverse_example.txt", &e) == 0, "%s", e.msg);
    ck_assert_int_eq(d.kind, LABELS_TOKEN);
    ck_assert_uint_ge(d.n, 24);
    for (size_t i = 0; i < d.n; i++) {
        size_t a = d.start[i], n = d.start[i + 1] - a;
        for (size_t k = 0; k < n; k++)
            ck_assert_str_eq(d.label[a + k], d.word[a + n - 1 - k]);
    }
    assert_round_trip(&d);
    textdata_free(&d);
}
END_TEST

/* [CLS] before every example (--pool cls): words shifted by one, the
 * per-token labels too with '_' for it, the file's lines kept, and the
 * result still a data file that reads back. */
START_TEST(cls_goes_before_every_example) {
    TextData d, orig;
    Err e;
    for (int k = 0; k < 2; k++) {
        const char *path = k ? "data/reverse_example.txt" : "data/agent_example.txt";
        ck_assert_msg(data_read(&d, path, &e) == 0, "%s", e.msg);
        ck_assert_msg(data_read(&orig, path, &e) == 0, "%s", e.msg);
        ck_assert_int_eq(textdata_prepend(&d, DATA_CLS, &e), 0);
        ck_assert_uint_eq(d.n, orig.n);
        for (size_t i = 0; i < d.n; i++) {
            size_t a = d.start[i], oa = orig.start[i];
            ck_assert_uint_eq(d.start[i + 1] - a, orig.start[i + 1] - oa + 1);
            ck_assert_str_eq(d.word[a], DATA_CLS);
            for (size_t w = 0; w < orig.start[i + 1] - oa; w++) {
                ck_assert_str_eq(d.word[a + 1 + w], orig.word[oa + w]);
                if (k)
                    ck_assert_str_eq(d.label[a + 1 + w], orig.label[oa + w]);
            }
            if (k)
                ck_assert_str_eq(d.label[a], DATA_NO_LABEL);
            else
                ck_assert_str_eq(d.label[i], orig.label[i]);
            ck_assert_uint_eq(d.line[i], orig.line[i]);
        }
        /* it grows like any other: one more example after it */
        const char *w[2] = {"a", "b"}, *l[2] = {"x", "y"};
        ck_assert_int_eq(textdata_add(&d, w, 2, l, &e), 0);
        assert_round_trip(&d);
        textdata_free(&d);
        textdata_free(&orig);
    }
    char *s = data_with_cls("the cat", &e);
    ck_assert_str_eq(s, "[CLS] the cat");
    free(s);
}
END_TEST

START_TEST(tolerated_layout) {
    TextData d;
    Err e;
    /* a byte-order mark, comments before the header, CRLF, blank lines of
     * spaces, runs of whitespace, no newline at the end */
    const char *text = "\xEF\xBB\xBF# made on Windows\r\n\r\nlabels:   token \r\n  \t \r\n"
                       "a  b\tB   A\r\n# between\r\n #x y\t1 2\r\nc\td";
    ck_assert_msg(parse(&d, text, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(d.kind, LABELS_TOKEN);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_str_eq(d.word[1], "b");
    ck_assert_str_eq(d.label[1], "A");
    ck_assert_str_eq(d.word[2], "#x"); /* '#' after a space is a word */
    ck_assert_str_eq(d.label[4], "d");
    ck_assert_uint_eq(d.start[3], 5);
    assert_round_trip(&d);
    textdata_free(&d);

    ck_assert_msg(parse(&d, "labels: sentence\n #tag\tcaf\xC3\xA9 \xE2\x82\xAC 9\n", &e) == 0,
                  "%s", e.msg);
    ck_assert_str_eq(d.label[0], "#tag");
    ck_assert_str_eq(d.word[1], "\xE2\x82\xAC");
    assert_round_trip(&d);
    textdata_free(&d);
}
END_TEST

/* Each malformed text fails with ERR_INPUT at the given line, names the
 * problem, and leaves the output empty. */
static void expect_bad(const char *text, size_t len, size_t line, const char *what) {
    TextData d;
    Err e;
    int rc = data_parse(&d, text, len, "t.txt", &e);
    ck_assert_msg(rc == ERR_INPUT, "rc %d for '%.40s'", rc, text);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t.txt:%zu: ", line);
    ck_assert_msg(strncmp(e.msg, prefix, strlen(prefix)) == 0, "want %s in: %s", prefix, e.msg);
    ck_assert_msg(strstr(e.msg, what) != NULL, "want '%s' in: %s", what, e.msg);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_ptr_null(d.start);
    textdata_free(&d);
}

START_TEST(malformed_lines) {
    static const struct {
        const char *text;
        size_t line;
        const char *what;
    } cases[] = {
        {"", 1, "no header"},
        {"# only a comment\n\n", 2, "no header"},
        {"label: sentence\nx\ty\n", 1, "'labels: sentence' or 'labels: token'"},
        {"labels: sentences\n", 1, "not 'labels: sentences'"},
        {"Rohan\tRohan killed the lion\n", 1, "first line must say"},
        {"labels: sentence\n\n# none\n", 3, "no examples"},
        {"labels: sentence\n# c\nRohan Rohan killed the lion\n", 3, "no tab"},
        {"labels: sentence\nRohan\t   \n", 2, "sentence is empty"},
        {"labels: sentence\n \tRohan killed\n", 2, "label before the tab is missing"},
        {"labels: sentence\nRohan killed the lion\tRohan\n", 2, "a label is one word"},
        {"labels: sentence\na\tb\tc\n", 2, "more than one tab"},
        {"labels: sentence\nlabels: token\n", 2, "no tab"},
        {"labels: sentence\n  # indented\n", 2, "first column"},
        {"labels: token\n1 2 3\t3 2\n", 2, "3 words but 2 labels"},
        {"labels: token\n1 2\t2 1\n1 2 3\n", 3, "no tab"},
        {"labels: token\r\n1 2\t2 1\r\n\r\n# c\r\n1 2 3\t1\r\n", 5, "3 words but 1 labels"},
        {"labels: token\n\t1\n", 2, "sentence is empty"},
        {"labels: sentence\nx\tbad \xFF word\n", 2, "not valid UTF-8"},
        {"labels: sentence\nx\tover\xC0\xAFlong\n", 2, "not valid UTF-8"},
        {"labels: sentence\nx\t\xED\xA0\x80 surrogate\n", 2, "not valid UTF-8"},
        {"labels: sentence\nx\tok\n\xF4\x90\x80\x80\ttoo high\n", 3, "not valid UTF-8"},
        {"labels: sentence\nx\tcut short \xE2\x82", 2, "not valid UTF-8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(cases[i].text, strlen(cases[i].text), cases[i].line, cases[i].what);

    const char nul[] = "labels: sentence\nok\tfine\nx\ty\0z\n";
    expect_bad(nul, sizeof nul - 1, 3, "NUL byte");
    const char nul_header[] = "labels:\0sentence\n";
    expect_bad(nul_header, sizeof nul_header - 1, 1, "NUL byte");

    /* a line one byte over the limit; at the limit it is only a long word */
    size_t n = DATA_MAX_LINE + 32;
    char *text = malloc(n + 1);
    ck_assert_ptr_nonnull(text);
    int head = snprintf(text, n + 1, "labels: sentence\nx\t");
    memset(text + head, 'a', n - (size_t)head);
    text[n] = '\0';
    size_t over = (size_t)head + DATA_MAX_LINE + 1 - strlen("x\t");
    text[over] = '\0';
    expect_bad(text, over, 2, "more than the 8192");
    expect_bad(text, over - 1, 2, "more than 256; shorten it");
    free(text);
}
END_TEST

START_TEST(adding_examples_checks_them) {
    TextData d;
    Err e;
    textdata_init(&d, LABELS_TOKEN);
    const char *w[] = {"a", "b c"}, *l[] = {"A", "B"};
    ck_assert_int_eq(textdata_add(&d, w, 1, l, &e), 0);
    ck_assert_int_eq(textdata_add(&d, w, 2, l, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "'b c' contains whitespace"));
    ck_assert_int_eq(textdata_add(&d, w, 0, l, &e), ERR_INPUT);
    const char *empty[] = {""};
    ck_assert_int_eq(textdata_add(&d, w, 1, empty, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "label is empty"));
    ck_assert_uint_eq(d.n, 1); /* the failed calls added nothing */
    ck_assert_uint_eq(d.start[1], 1);

    /* an example that would not fit on one line of a file */
    static char word[201];
    memset(word, 'w', 200);
    const char *many[50];
    for (size_t i = 0; i < 50; i++)
        many[i] = word;
    ck_assert_int_eq(textdata_add(&d, many, 50, many, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "bytes on a line"));
    ck_assert_int_eq(textdata_add(&d, many, 10, many, &e), 0);
    ck_assert_uint_eq(d.n, 2);
    assert_round_trip(&d);
    textdata_free(&d);
    ck_assert_ptr_null(d.start);

    TextData none;
    textdata_init(&none, LABELS_SENTENCE);
    ck_assert_int_eq(data_write(&none, "/tmp/never_written.txt", &e), ERR_INPUT);
    ck_assert_int_eq(access("/tmp/never_written.txt", F_OK), -1);
    ck_assert_int_eq(data_read(&none, "/nonexistent/data.txt", &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/data.txt"));
    ck_assert_int_eq(data_read(&none, "data", &e), ERR_INPUT); /* a directory */
    ck_assert_uint_eq(none.n, 0);
}
END_TEST

START_TEST(labels_and_encoding) {
    TextData train, eval;
    Err e;
    ck_assert_int_eq(parse(&train, "labels: sentence\nRohan\tRohan killed the lion\n"
                           "lion\tlion killed the Rohan\n", &e), 0);
    Vocab v;
    LabelSet s;
    Dataset d;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    labelset_init(&s);
    size_t unknown = 99;
    ck_assert_int_eq(data_encode(&d, &train, &v, &s, true, &unknown, &e), 0);
    ck_assert_uint_eq(unknown, 0);
    ck_assert_uint_eq(v.n, 6);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_str_eq(s.names[0], "Rohan"); /* in order of first appearance */
    ck_assert_int_eq(labelset_find(&s, "lion"), 1);
    ck_assert_int_eq(labelset_find(&s, "tiger"), -1);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_uint_eq(d.max_len, 4);
    const int ids[] = {2, 3, 4, 5, 5, 3, 4, 2};
    for (size_t j = 0; j < 8; j++)
        ck_assert_int_eq(d.ids[j], ids[j]);
    ck_assert_int_eq(d.labels[0], 0);
    ck_assert_int_eq(d.labels[1], 1);
    dataset_free(&d);

    /* evaluation data: unknown words become <unk>, the sets stay as they are */
    ck_assert_int_eq(parse(&eval, "labels: sentence\nlion\tlion ate the Rohan\n"
                           "Rohan\ttiger killed the Rohan today\n", &e), 0);
    ck_assert_int_eq(data_encode(&d, &eval, &v, &s, false, &unknown, &e), 0);
    ck_assert_uint_eq(unknown, 3);
    ck_assert_uint_eq(v.n, 6);
    ck_assert_int_eq(d.ids[1], VOCAB_UNK);
    ck_assert_int_eq(d.ids[4], VOCAB_UNK);
    ck_assert_int_eq(d.ids[7], 2);
    ck_assert_int_eq(d.labels[0], 1);
    ck_assert_uint_eq(d.max_len, 5);
    dataset_free(&d);
    ck_assert_int_eq(data_encode(&d, &eval, &v, &s, false, NULL, &e), 0);
    dataset_free(&d);
    textdata_free(&eval);

    ck_assert_int_eq(parse(&eval, "labels: sentence\nlion\tlion saw the Rohan\n"
                           "bear\tbear killed the Rohan\n", &e), 0);
    ck_assert_int_eq(data_encode(&d, &eval, &v, &s, false, NULL, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "'bear'"));
    ck_assert_msg(strstr(e.msg, "t.txt:3: ") == e.msg, "%s", e.msg); /* the file's line */
    ck_assert_ptr_nonnull(strstr(e.msg, "Rohan lion"));
    ck_assert_ptr_null(d.ids);
    ck_assert_uint_eq(s.n, 2);
    textdata_free(&eval);
    textdata_free(&train);

    /* "_" is no label: -1 for a word (not trained on, not scored), never
     * a class; a sentence must have a label of its own */
    ck_assert_int_eq(parse(&eval, "labels: token\n2 5 4\t_ 2 5\n", &e), 0);
    LabelSet tok;
    labelset_init(&tok);
    ck_assert_int_eq(data_encode(&d, &eval, &v, &tok, true, NULL, &e), 0);
    ck_assert_int_eq(d.labels[0], -1);
    ck_assert_int_eq(d.labels[1], 0);
    ck_assert_int_eq(labelset_find(&tok, "_"), -1);
    ck_assert_uint_eq(tok.n, 2);
    dataset_free(&d);
    labelset_free(&tok);
    textdata_free(&eval);
    ck_assert_int_eq(parse(&eval, "labels: sentence\n_\tlion saw the Rohan\n", &e), 0);
    ck_assert_int_eq(data_encode(&d, &eval, &v, &s, false, NULL, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "per-token"));
    textdata_free(&eval);

    /* the number of classes is bounded, so lookups stay short */
    char name[16];
    for (int i = 2; i < DATA_MAX_LABELS; i++) {
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_eq(labelset_add(&s, name, NULL, &e), 0);
    }
    int id = -1;
    ck_assert_int_eq(labelset_add(&s, "lion", &id, &e), 0);
    ck_assert_int_eq(id, 1);
    ck_assert_int_eq(labelset_add(&s, "c4096", &id, &e), ERR_INPUT);
    ck_assert_uint_eq(s.n, DATA_MAX_LABELS);
    labelset_free(&s);
    vocab_free(&v);
}
END_TEST

START_TEST(batches_are_padded) {
    TextData t;
    Err e;
    ck_assert_int_eq(parse(&t, "labels: token\na b c\tA B C\nd e f g h\tD E F G H\n", &e), 0);
    Vocab v;
    LabelSet s;
    Dataset d;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    labelset_init(&s);
    ck_assert_int_eq(data_encode(&d, &t, &v, &s, true, NULL, &e), 0);
    enum { B = 2, T = 6 };
    const size_t idx[B] = {1, 0};
    int ids[B * T], labels[B * T];
    size_t lens[B];
    dataset_batch(&d, idx, B, T, ids, lens, labels);
    const int want_ids[B * T] = {5, 6, 7, 8, 9, VOCAB_PAD, 2, 3, 4, VOCAB_PAD, VOCAB_PAD,
                                 VOCAB_PAD};
    const int want_labels[B * T] = {3, 4, 5, 6, 7, -1, 0, 1, 2, -1, -1, -1};
    for (size_t j = 0; j < B * T; j++) {
        ck_assert_int_eq(ids[j], want_ids[j]);
        ck_assert_int_eq(labels[j], want_labels[j]);
    }
    ck_assert_uint_eq(lens[0], 5);
    ck_assert_uint_eq(lens[1], 3);
    /* too small a T cuts, and writes nothing past B*T (ASan checks) */
    int *small = malloc(B * 4 * sizeof *small), *small_labels = malloc(B * 4 * sizeof *small);
    ck_assert_ptr_nonnull(small);
    ck_assert_ptr_nonnull(small_labels);
    dataset_batch(&d, idx, B, 4, small, lens, small_labels);
    ck_assert_uint_eq(lens[0], 4);
    ck_assert_int_eq(small[3], 8);
    ck_assert_int_eq(small_labels[7], -1);
    free(small);
    free(small_labels);
    dataset_free(&d);
    textdata_free(&t);

    ck_assert_int_eq(parse(&t, "labels: sentence\nx\ta b\ny\tc\n", &e), 0);
    ck_assert_int_eq(data_encode(&d, &t, &v, &s, true, NULL, &e), 0);
    int one_label[B];
    dataset_batch(&d, idx, B, 3, ids, lens, one_label);
    ck_assert_int_eq(one_label[0], labelset_find(&s, "y"));
    ck_assert_int_eq(one_label[1], labelset_find(&s, "x"));
    ck_assert_int_eq(ids[1], VOCAB_PAD);
    ck_assert_int_eq(ids[5], VOCAB_PAD);
    ck_assert_uint_eq(lens[1], 2);
    dataset_free(&d);
    textdata_free(&t);
    labelset_free(&s);
    vocab_free(&v);
}
END_TEST

/* Every input the fuzzer has been given to remember (hand-made seeds and
 * the inputs of crashes it found) parses or fails cleanly, and what parses
 * writes and reads back unchanged. */
static void parse_cleanly(const unsigned char *bytes, size_t n, const char *path) {
    TextData d;
    Err e;
    err_clear(&e);
    int rc = data_parse(&d, (const char *)bytes, n, path, &e);
    ck_assert_msg(rc == 0 || rc == ERR_INPUT, "%s: rc %d", path, rc);
    if (rc == 0)
        assert_round_trip(&d);
    else
        ck_assert_msg(strncmp(e.msg, path, strlen(path)) == 0, "%s", e.msg);
    textdata_free(&d);
}

START_TEST(fuzz_inputs_parse_cleanly) {
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_data", parse_cleanly), 0);
}
END_TEST

/* Edges, defect 9 (issue 9): data errors found after parsing still name FILE:LINE. */
START_TEST(data_errors_name_file_and_line) {
    char *dir = scratch(), data[256], valid[256], args[1024];
    snprintf(data, sizeof data, "%s/d.txt", dir);
    snprintf(valid, sizeof valid, "%s/v.txt", dir);
    write_text(data, "labels: sentence\nA\tx y\nB\ty x\n");
    /* the unknown label is example 2, on line 5 */
    write_text(valid, "labels: sentence\n# a comment\nA\tx y\n\nZ\ty y\n");
    snprintf(args, sizeof args, "--data %s --valid %s --steps 1 --d-model 8 --heads 2 "
             "--d-ff 16 --out %s/m.bin", data, valid, dir);
    char want[600];
    snprintf(want, sizeof want, "%s:5: the label 'Z'", valid);
    expect_exit("train", args, 2, want);
    snprintf(args, sizeof args, "--data %s --steps 1 --d-model 8 --heads 2 --d-ff 16 --out "
             "%s/m.bin", data, dir);
    Run r = run("train", args);
    ck_assert_msg(r.status == 0, "%s", r.err);
    run_free(&r);
    snprintf(args, sizeof args, "--model %s/m.bin --data %s", dir, valid);
    expect_exit("evaluate", args, 2, want);
    /* more labels than a label set holds: the 4097th is on line 4098 */
    FILE *f = fopen(data, "w");
    ck_assert_ptr_nonnull(f);
    fputs("labels: sentence\n", f);
    for (int i = 0; i <= DATA_MAX_LABELS; i++)
        fprintf(f, "L%d\tx\n", i);
    fclose(f);
    snprintf(args, sizeof args, "--data %s --steps 1", data);
    snprintf(want, sizeof want, "%s:%d: more than %d different labels", data,
             DATA_MAX_LABELS + 2, DATA_MAX_LABELS);
    expect_exit("train", args, 2, want);
    /* more words than a model holds: 1000 new words a line; word 32767 of
     * the file (32769 with <pad> and <unk>) is on line 2 + 32766 / 1000 */
    f = fopen(data, "w");
    ck_assert_ptr_nonnull(f);
    fputs("labels: sentence\n", f);
    for (int line = 0; line < 33; line++) {
        fputs(line % 2 ? "A\t" : "B\t", f);
        for (int k = 0; k < 1000; k++)
            fprintf(f, "%sw%d", k ? " " : "", line * 1000 + k);
        fputs("\n", f);
    }
    fclose(f);
    snprintf(want, sizeof want, "%s:34: the word 'w32766' would make the vocabulary larger "
             "than the 32768", data);
    expect_exit("train", args, 2, want);
    remove_dir(dir);
}
END_TEST

Suite *suite_data(void) {
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, example_files_parse);
    tcase_add_test(tc, tolerated_layout);
    tcase_add_test(tc, malformed_lines);
    tcase_add_test(tc, adding_examples_checks_them);
    tcase_add_test(tc, labels_and_encoding);
    tcase_add_test(tc, cls_goes_before_every_example);
    tcase_add_test(tc, batches_are_padded);
    tcase_add_test(tc, fuzz_inputs_parse_cleanly);
    tcase_add_test(tc, data_errors_name_file_and_line);
    suite_add_tcase(s, tc);
    return s;
}
