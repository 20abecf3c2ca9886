/* Labelled examples: the built-in tasks (ours and Delétang et al.'s) and users'
 * own files.
 *
 * Two kinds of labels: one per sentence (agent, direction, contains) or
 * one per token (reverse, sort, previous). Examples exist first as text (TextData:
 * words and label strings, what a file holds or a task generates), then as
 * ids (Dataset: token ids through a Vocab, label ids through a LabelSet),
 * which is what the model trains on. The file format is in docs/formats.md. */
#ifndef POSENC_DATA_H
#define POSENC_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "vocab.h"

typedef enum { LABELS_SENTENCE = 0, LABELS_TOKEN = 1 } LabelKind;

/* Limits that keep any input, however wrong, to bounded memory and time. */
#define DATA_MAX_LINE 8192            /* bytes on one line of a data file */
#define DATA_MAX_FILE (64u << 20)     /* bytes in one data file */
#define DATA_MAX_LABELS 4096          /* classes in one LabelSet */
/* A per-token label that scores nothing: the word is neither trained on
 * nor counted in accuracy (CoNLL's empty field; PyTorch's ignore_index).
 * previous gives it to the first word, which has no word before it. */
#define DATA_NO_LABEL "_"
/* A per-token label "_=X" trains its word on the class X and scores it
 * nowhere: the padding after an end symbol that Ruoss et al.'s loss
 * trains on and their accuracy leaves out (train --pad-loss). Encoded as
 * label_unscored (core/label.h); X must be a label of its own. */
#define DATA_LOSS_ONLY "_="
/* The word a model that pools by [CLS] (--pool cls) reads first in every
 * sentence, as BERT does: the data layer puts it there, with no label. */
#define DATA_CLS "[CLS]"
#define DATA_MAX_WORDS 32768          /* words of a vocabulary built from training data,
                                       * <pad> and <unk> included: a model's MAX_DIM */

/* Examples as text. Example i has words word[start[i]] .. word[start[i+1]-1]
 * and labels label[i] (sentence kind) or label[start[i]] .. (token kind). */
typedef struct {
    LabelKind kind;
    size_t n;       /* examples */
    size_t *start;  /* (n+1) */
    char **word;    /* (start[n]) each a separate allocation */
    char **label;   /* (n) or (start[n]) */
    size_t cap_ex, cap_words, cap_labels; /* allocation bookkeeping */
    size_t *line;   /* (n) the line of each example in its file; NULL when generated */
    char *name;     /* the file, for messages; NULL when generated */
    size_t cap_line;
    uint64_t hash;  /* FNV-1a of the file's bytes (data_read); 0 when generated */
} TextData;

/* The classes a model predicts: label string <-> class id, in order of
 * first appearance in the training data. */
typedef struct {
    char **names;
    size_t n, cap;
} LabelSet;

/* Examples as ids, ready for batching. */
typedef struct {
    LabelKind kind;
    size_t n;         /* examples */
    size_t *start;    /* (n+1) into ids */
    int *ids;         /* (start[n]) token ids */
    int *labels;      /* (n) or (start[n]) class ids, as core/label.h writes them */
    size_t max_len;   /* longest example */
} Dataset;

void textdata_init(TextData *d, LabelKind kind);
void textdata_free(TextData *d);
/* Appends one example: n words and 1 (sentence) or n (token) labels.
 * Words and labels must be valid UTF-8 of 1..VOCAB_MAX_WORD bytes without
 * whitespace, and the example must fit on one line of a data file, so that
 * whatever is added can be written and read back; otherwise ERR_INPUT. */
int textdata_add(TextData *d, const char *const *words, size_t n, const char *const *labels,
                 Err *e);

/* Whether s can stand as one word or label (what: "word", "label"):
 * valid UTF-8 of 1..VOCAB_MAX_WORD bytes without whitespace; otherwise
 * ERR_INPUT saying where it stands (of: "" in a file, " of the sentence")
 * and how to fix its encoding there (fix: "save the file as UTF-8"). */
int data_check_token(const char *s, const char *what, const char *of, const char *fix,
                     Err *e);

/* The same rule for the words of a sentence a person types (encode's,
 * demo_order's, pe_plot's, the page's), after the lead words a model puts
 * first ([CLS]): at least one word, and each valid UTF-8 of
 * 1..VOCAB_MAX_WORD bytes, as in a data file; otherwise ERR_INPUT naming
 * what ("the sentence", "SENTENCE"). */
int data_check_words(const Words *w, size_t lead, const char *what, Err *e);

/* "[CLS] text", allocated (free it): a sentence as a model that pools by
 * [CLS] reads it. */
char *data_with_cls(const char *text, Err *e);

/* Puts word before the first word of every example of d, with the label
 * DATA_NO_LABEL on per-token data (the lines of a file stay as they were,
 * for messages). On failure d is unchanged. */
int textdata_prepend(TextData *d, const char *word, Err *e);

/* Reads a data file (docs/formats.md). A malformed line fails with
 * ERR_INPUT and a message "FILE:LINE: what is wrong". data_read and
 * data_parse initialize *out; on error it is left empty. */
int data_read(TextData *out, const char *path, Err *e);
/* The same parser on text in memory; name is used in messages. */
int data_parse(TextData *out, const char *text, size_t len, const char *name, Err *e);
/* Writes d in the file format (data_read reads it back unchanged), whole
 * or not at all (write_file_atomic); a TextData without examples is an
 * ERR_INPUT error, as a file without examples is. */
int data_write(const TextData *d, const char *path, Err *e);
/* Appends d in the file format to b (b->failed when memory ran out). */
void data_format(const TextData *d, Buf *b);

void labelset_init(LabelSet *s);
void labelset_free(LabelSet *s);
/* The id of name, or -1. */
int labelset_find(const LabelSet *s, const char *name);
int labelset_add(LabelSet *s, const char *name, int *id, Err *e);
/* s's names, blank-separated, into buf (cap bytes), cut with "..." when
 * they do not fit; returns buf. */
const char *labelset_list(const LabelSet *s, char *buf, size_t cap);

/* The first label of d that s lacks (DATA_NO_LABEL, which scores nothing,
 * aside; for "_=X" the class X), with its example's index in *at (at may
 * be NULL); NULL when s holds every label of d. A caller that knows where
 * d came from (a task's split, a file) names the cause before
 * data_encode's plain refusal. */
const char *data_unknown_label(const TextData *d, const LabelSet *s, size_t *at);

/* Maps text to ids. With grow set (training data) new words join v and new
 * labels join s; without it (evaluation data) unknown words become <unk>
 * (counted in *n_unknown if not NULL) and an unknown label is an ERR_INPUT
 * error naming it; with s NULL the labels are not read (all -1), for uses
 * that need the words alone. A label "_=X" stands for its class X (which
 * joins s as any label does) as label_unscored(X's id). Errors name
 * FILE:LINE when in came from a file; a vocabulary grown past
 * DATA_MAX_WORDS is an ERR_INPUT error. */
int data_encode(Dataset *out, const TextData *in, Vocab *v, LabelSet *s, bool grow,
                size_t *n_unknown, Err *e);
void dataset_free(Dataset *d);

/* Fills a batch of B examples idx[0..B) padded to T (>= their lengths):
 * ids (B,T) with VOCAB_PAD in padding, lens (B), labels (B) or (B,T) with
 * -1 in padding. An example longer than T is cut to T rather than written
 * past the buffers; size T from d->max_len. */
void dataset_batch(const Dataset *d, const size_t *idx, size_t B, size_t T, int *ids,
                   size_t *lens, int *labels);

#endif
