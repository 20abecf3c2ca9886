/* Word-level tokenizer: whitespace split, case kept, one id per distinct
 * word. Ids 0 and 1 are reserved for padding and unknown words. */
#ifndef POSENC_VOCAB_H
#define POSENC_VOCAB_H

#include <stddef.h>
#include <stdio.h>

#include "../core/err.h"

#define VOCAB_PAD 0 /* "<pad>": fills the slots after a short sentence */
#define VOCAB_UNK 1 /* "<unk>": any word the vocabulary lacks */
#define VOCAB_MAX_WORD 256

typedef struct {
    char **words;   /* id -> word */
    size_t n, cap;
    int *slots;     /* open-addressing hash of ids; -1 = empty */
    size_t n_slots; /* a power of two, at least twice n */
} Vocab;

/* A sentence split on whitespace; words point into buf. */
typedef struct {
    char *buf;
    char **w;
    size_t n;
} Words;

int words_split(Words *out, const char *text, Err *e);
void words_free(Words *w);
/* Puts word (no whitespace) before w's first word; on failure w is
 * unchanged. */
int words_prepend(Words *w, const char *word, Err *e);

/* An empty vocabulary holding <pad> and <unk>. */
int vocab_init(Vocab *v, Err *e);
void vocab_free(Vocab *v);
/* Adds word (if new) and stores its id in *id (may be NULL). */
int vocab_add(Vocab *v, const char *word, int *id, Err *e);
/* The id of word, or -1. */
int vocab_find(const Vocab *v, const char *word);
/* Adds every word of text. */
int vocab_add_text(Vocab *v, const char *text, Err *e);
/* The rows of the vocabulary of a model made without data (encode without
 * --model): enough that a sentence's words rarely share one. */
#define VOCAB_HASH_ROWS 4096

/* The id of word in a hashed vocabulary of `rows` rows: 2 + a hash of its
 * bytes modulo rows, the same in every run and whatever the sentence. */
int vocab_hash_id(const char *word, size_t rows);
/* A vocabulary that needs no data, for an untrained model: a word's id is
 * vocab_hash_id, so it keeps its embedding row from one sentence to the
 * next, and the model, whose random draws follow the vocabulary's size,
 * keeps its weights. Fills v with <pad>, <unk> and `rows` entries: each
 * word of w at its id and "<rowK>" at id K where no word of w is, so that
 * a vocabulary file lists one word per row. Two different words of w may
 * share an id; the first keeps the name, and *shared (may be NULL) is set
 * to the index in w of the first that did not, or to w->n. A word that
 * is one of these reserved names is an ERR_INPUT error. */
int vocab_hashed(Vocab *v, const Words *w, size_t rows, size_t *shared, Err *e);
/* Reads a vocabulary file: one word per line, in id order after <pad> and
 * <unk> (which the file may list first or leave out). */
int vocab_load(Vocab *v, const char *path, Err *e);
/* Writes the file vocab_load reads, <pad> and <unk> included. */
int vocab_save(const Vocab *v, const char *path, Err *e);

/* Splits text and maps each word to its id; unknown words become
 * VOCAB_UNK, each reported on warn (if not NULL). *ids is allocated
 * (free it); an empty text is an ERR_INPUT error. */
int tokenize(const Vocab *v, const char *text, int **ids, size_t *n, FILE *warn, Err *e);

#endif
