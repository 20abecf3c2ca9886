/* The tokenizer and the alignment of a sentence with its permutation. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/text/order.h"
#include "../src/text/vocab.h"
#include "suites.h"

START_TEST(split_on_whitespace_keep_case) {
    Words w;
    Err e;
    ck_assert_int_eq(words_split(&w, "  Rohan\tkilled the\n lion  ", &e), 0);
    ck_assert_uint_eq(w.n, 4);
    ck_assert_str_eq(w.w[0], "Rohan");
    ck_assert_str_eq(w.w[3], "lion");
    words_free(&w);
    ck_assert_int_eq(words_split(&w, " \t ", &e), 0);
    ck_assert_uint_eq(w.n, 0);
    words_free(&w);
}
END_TEST

START_TEST(vocabulary_ids_and_unknown_words) {
    Vocab v;
    Err e;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    ck_assert_int_eq(vocab_find(&v, "<pad>"), VOCAB_PAD);
    ck_assert_int_eq(vocab_find(&v, "<unk>"), VOCAB_UNK);
    ck_assert_int_eq(vocab_add_text(&v, "Rohan killed the lion the", &e), 0);
    ck_assert_uint_eq(v.n, 6);
    ck_assert_int_eq(vocab_find(&v, "the"), 4);
    ck_assert_int_eq(vocab_find(&v, "rohan"), -1); /* case is kept */
    int *ids;
    size_t n;
    char warn[256] = {0};
    FILE *f = fmemopen(warn, sizeof warn, "w");
    ck_assert_int_eq(tokenize(&v, "the tiger killed Rohan", &ids, &n, f, &e), 0);
    fclose(f);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(ids[0], 4);
    ck_assert_int_eq(ids[1], VOCAB_UNK);
    ck_assert_int_eq(ids[3], 2);
    ck_assert_ptr_nonnull(strstr(warn, "'tiger'"));
    free(ids);
    ck_assert_int_eq(tokenize(&v, "   ", &ids, &n, NULL, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "empty"));
    /* many words: the hash table grows and keeps every id */
    char word[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(word, sizeof word, "w%d", i);
        ck_assert_int_eq(vocab_add(&v, word, NULL, &e), 0);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(word, sizeof word, "w%d", i);
        ck_assert_int_eq(vocab_find(&v, word), 6 + i);
    }
    vocab_free(&v);
}
END_TEST

/* encode's untrained vocabulary: a word's id is its own, whatever the
 * sentence; one row per id, shared rows and reserved names reported. */
START_TEST(hashed_vocabulary_keeps_a_word_s_id) {
    Words a, b;
    Vocab va, vb;
    Err e;
    size_t shared;
    ck_assert_int_eq(words_split(&a, "Rohan killed the lion", &e), 0);
    ck_assert_int_eq(words_split(&b, "cats eat the fresh fish Rohan", &e), 0);
    ck_assert_int_eq(vocab_hashed(&va, &a, VOCAB_HASH_ROWS, &shared, &e), 0);
    ck_assert_uint_eq(shared, a.n);
    ck_assert_int_eq(vocab_hashed(&vb, &b, VOCAB_HASH_ROWS, NULL, &e), 0);
    ck_assert_uint_eq(va.n, 2 + VOCAB_HASH_ROWS);
    ck_assert_uint_eq(vb.n, va.n);
    ck_assert_int_eq(vocab_find(&va, "Rohan"), vocab_hash_id("Rohan", VOCAB_HASH_ROWS));
    ck_assert_int_eq(vocab_find(&vb, "Rohan"), vocab_find(&va, "Rohan"));
    ck_assert_int_eq(vocab_find(&vb, "the"), vocab_find(&va, "the"));
    ck_assert_int_ne(vocab_find(&va, "lion"), vocab_find(&va, "Rohan"));
    int row = vocab_hash_id("cats", VOCAB_HASH_ROWS);
    char name[32];
    snprintf(name, sizeof name, "<row%d>", row);
    ck_assert_str_eq(va.words[row], name); /* a row no word of a has */
    vocab_free(&va);
    vocab_free(&vb);
    words_free(&a);
    words_free(&b);
    /* two rows: the third different word shares one */
    ck_assert_int_eq(words_split(&a, "a b c a", &e), 0);
    ck_assert_int_eq(vocab_hashed(&va, &a, 2, &shared, &e), 0);
    ck_assert_uint_lt(shared, 3);
    ck_assert_uint_eq(va.n, 4);
    vocab_free(&va);
    words_free(&a);
    ck_assert_int_eq(words_split(&a, "the <pad>", &e), 0);
    ck_assert_int_eq(vocab_hashed(&va, &a, VOCAB_HASH_ROWS, NULL, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "'<pad>'"));
    words_free(&a);
}
END_TEST

START_TEST(vocabulary_file_round_trip) {
    char *path = temp_file();
    Vocab v, w;
    Err e;
    ck_assert_int_eq(vocab_init(&v, &e), 0);
    ck_assert_int_eq(vocab_add_text(&v, "the cat sat on the mat", &e), 0);
    ck_assert_int_eq(vocab_save(&v, path, &e), 0);
    ck_assert_int_eq(vocab_load(&w, path, &e), 0);
    ck_assert_uint_eq(w.n, v.n);
    for (size_t i = 0; i < v.n; i++)
        ck_assert_str_eq(w.words[i], v.words[i]);
    vocab_free(&w);
    FILE *f = fopen(path, "w");
    fputs("cat\ndog\ncat\n", f);
    fclose(f);
    ck_assert_int_eq(vocab_load(&w, path, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, ":3:"));
    f = fopen(path, "w");
    fputs("cat\n\n", f);
    fclose(f);
    ck_assert_int_eq(vocab_load(&w, path, &e), ERR_INPUT);
    ck_assert_int_eq(vocab_load(&w, "/nonexistent/vocab.txt", &e), ERR_INPUT);
    vocab_free(&v);
    unlink(path);
}
END_TEST

static int align(const char *a, const char *b, size_t *perm, Err *e) {
    Words wa, wb;
    ck_assert_int_eq(words_split(&wa, a, e), 0);
    ck_assert_int_eq(words_split(&wb, b, e), 0);
    int rc = align_permutation(perm, &wa, &wb, e);
    words_free(&wa);
    words_free(&wb);
    return rc;
}

START_TEST(alignment_of_permutations) {
    size_t perm[8];
    Err e;
    ck_assert_int_eq(align("Rohan killed the lion", "lion killed the Rohan", perm, &e), 0);
    ck_assert(perm[0] == 3 && perm[1] == 1 && perm[2] == 2 && perm[3] == 0);
    /* repeated words, matched in order of occurrence */
    ck_assert_int_eq(align("the cat sat on the mat", "the mat sat on the cat", perm, &e), 0);
    const size_t want[6] = {0, 5, 2, 3, 4, 1};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(perm[i], want[i]);
    ck_assert_int_eq(align("a b c", "a b", perm, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "2 words"));
    ck_assert_int_eq(align("a b c", "a b d", perm, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "'d'"));
    ck_assert_int_eq(align("a a b", "a b b", perm, &e), ERR_INPUT);
    ck_assert_int_eq(align("a b", "a b", perm, &e), ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "same order"));
    ck_assert_int_eq(align("", "", perm, &e), ERR_INPUT);
    ck_assert_int_eq(align("Rohan lion", "rohan Lion", perm, &e), ERR_INPUT);
}
END_TEST

static void tokenize_cleanly(const unsigned char *bytes, size_t n, const char *path) {
    /* as tests/fuzz/fuzz_tokenizer.c splits its input */
    char *text = malloc(n + 1);
    ck_assert_ptr_nonnull(text);
    memcpy(text, bytes, n);
    text[n] = '\0';
    char *second = strchr(text, '\n');
    second = second ? (*second = '\0', second + 1) : text + strlen(text);
    Vocab v;
    Err e;
    int *ids;
    size_t len;
    ck_assert(vocab_init(&v, &e) == 0);
    int rc = vocab_add_text(&v, text, &e);
    if (rc == 0 && (rc = tokenize(&v, second, &ids, &len, NULL, &e)) == 0)
        free(ids);
    ck_assert_msg(rc == 0 || rc == ERR_INPUT, "%s: rc %d", path, rc);
    vocab_free(&v);
    free(text);
}

START_TEST(fuzz_inputs_tokenize_cleanly) {
    ck_assert_uint_gt(for_each_fuzz_input("fuzz_tokenizer", tokenize_cleanly), 0);
}
END_TEST

Suite *suite_vocab(void) {
    Suite *s = suite_create("vocab");
    TCase *tc = tcase_create("tokenizer");
    tcase_add_test(tc, split_on_whitespace_keep_case);
    tcase_add_test(tc, vocabulary_ids_and_unknown_words);
    tcase_add_test(tc, hashed_vocabulary_keeps_a_word_s_id);
    tcase_add_test(tc, vocabulary_file_round_trip);
    tcase_add_test(tc, alignment_of_permutations);
    tcase_add_test(tc, fuzz_inputs_tokenize_cleanly);
    suite_add_tcase(s, tc);
    return s;
}
