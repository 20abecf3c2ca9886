#include "vocab.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "../core/buf.h"

int words_split(Words *out, const char *text, Err *e) {
    memset(out, 0, sizeof *out);
    size_t len = strlen(text);
    out->buf = xmalloc(len + 1, "a sentence", e);
    /* at most one word per two bytes, plus one */
    out->w = xmalloc((len / 2 + 1) * sizeof *out->w, "a sentence", e);
    if (!out->buf || !out->w) {
        words_free(out);
        return ERR_RUNTIME;
    }
    memcpy(out->buf, text, len + 1);
    char *p = out->buf;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        out->w[out->n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    return 0;
}

void words_free(Words *w) {
    free(w->buf);
    free(w->w);
    memset(w, 0, sizeof *w);
}

int words_prepend(Words *w, const char *word, Err *e) {
    size_t len = strlen(word) + 1;
    for (size_t i = 0; i < w->n; i++)
        len += strlen(w->w[i]) + 1;
    char *text = xmalloc(len, "a sentence", e);
    if (!text)
        return ERR_RUNTIME;
    strcpy(text, word);
    for (size_t i = 0; i < w->n; i++)
        strcat(strcat(text, " "), w->w[i]);
    Words out;
    int rc = words_split(&out, text, e);
    free(text);
    if (!rc) {
        words_free(w);
        *w = out;
    }
    return rc;
}

/* The checksum's function (buf_fnv1a) over the word's bytes: it places
 * words in the lookup table, and picks a fresh model's row of a hashed
 * word (vocab_hash_id), so the outputs the docs show for untrained models
 * depend on it staying the same. */
static uint64_t hash_word(const char *s) { return buf_fnv1a(s, strlen(s)); }

static size_t find_slot(const Vocab *v, const char *word) {
    size_t mask = v->n_slots - 1;
    size_t i = (size_t)hash_word(word) & mask;
    while (v->slots[i] >= 0 && strcmp(v->words[v->slots[i]], word) != 0)
        i = (i + 1) & mask;
    return i;
}

static int rehash(Vocab *v, size_t n_slots, Err *e) {
    int *slots = xmalloc(n_slots * sizeof *slots, "the vocabulary", e);
    if (!slots)
        return ERR_RUNTIME;
    free(v->slots);
    v->slots = slots;
    v->n_slots = n_slots;
    for (size_t i = 0; i < n_slots; i++)
        slots[i] = -1;
    for (size_t id = 0; id < v->n; id++)
        slots[find_slot(v, v->words[id])] = (int)id;
    return 0;
}

int vocab_init(Vocab *v, Err *e) {
    memset(v, 0, sizeof *v);
    int rc = rehash(v, 64, e);
    if (!rc)
        rc = vocab_add(v, "<pad>", NULL, e);
    if (!rc)
        rc = vocab_add(v, "<unk>", NULL, e);
    if (rc)
        vocab_free(v);
    return rc;
}

void vocab_free(Vocab *v) {
    for (size_t i = 0; i < v->n; i++)
        free(v->words[i]);
    free(v->words);
    free(v->slots);
    memset(v, 0, sizeof *v);
}

int vocab_find(const Vocab *v, const char *word) {
    if (!v->n_slots)
        return -1;
    return v->slots[find_slot(v, word)];
}

int vocab_add(Vocab *v, const char *word, int *id, Err *e) {
    size_t len = strlen(word);
    if (len == 0 || len > VOCAB_MAX_WORD)
        return err_set(e, ERR_INPUT, "a word must have 1 to %d bytes, not %zu", VOCAB_MAX_WORD,
                       len);
    for (const char *p = word; *p; p++)
        if (isspace((unsigned char)*p))
            return err_set(e, ERR_INPUT, "the word '%s' contains a space: words are split on "
                           "whitespace", word);
    int found = vocab_find(v, word);
    if (found >= 0) {
        if (id)
            *id = found;
        return 0;
    }
    if (v->n >= (size_t)INT32_MAX / 2)
        return err_set(e, ERR_INPUT, "the vocabulary is full");
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        char **words = realloc(v->words, cap * sizeof *words);
        if (!words)
            return err_set(e, ERR_RUNTIME, "out of memory growing the vocabulary");
        v->words = words;
        v->cap = cap;
    }
    char *copy = xmalloc(len + 1, "a word", e);
    if (!copy)
        return ERR_RUNTIME;
    memcpy(copy, word, len + 1);
    v->words[v->n] = copy;
    v->slots[find_slot(v, word)] = (int)v->n;
    if (id)
        *id = (int)v->n;
    v->n++;
    if (2 * v->n > v->n_slots)
        return rehash(v, 2 * v->n_slots, e);
    return 0;
}

int vocab_add_text(Vocab *v, const char *text, Err *e) {
    Words w;
    int rc = words_split(&w, text, e);
    for (size_t i = 0; !rc && i < w.n; i++)
        rc = vocab_add(v, w.w[i], NULL, e);
    words_free(&w);
    return rc;
}

int vocab_hash_id(const char *word, size_t rows) {
    return 2 + (int)(hash_word(word) % rows);
}

int vocab_hashed(Vocab *v, const Words *w, size_t rows, size_t *shared, Err *e) {
    if (shared)
        *shared = w->n;
    const char **name = xcalloc(rows, sizeof *name, "the hashed vocabulary", e);
    if (!name)
        return ERR_RUNTIME;
    for (size_t i = 0; i < w->n; i++) {
        const char **row = &name[vocab_hash_id(w->w[i], rows) - 2];
        if (!*row)
            *row = w->w[i];
        else if (strcmp(*row, w->w[i]) != 0 && shared && *shared == w->n)
            *shared = i;
    }
    int rc = vocab_init(v, e);
    for (size_t k = 0; !rc && k < rows; k++) {
        char placeholder[32];
        snprintf(placeholder, sizeof placeholder, "<row%zu>", k + 2);
        const char *word = name[k] ? name[k] : placeholder;
        size_t before = v->n;
        rc = vocab_add(v, word, NULL, e);
        /* a name already there would leave the ids one short of the rows */
        if (!rc && v->n == before)
            rc = err_set(e, ERR_INPUT, "'%s' is a name the untrained vocabulary keeps for "
                         "itself (<pad>, <unk>, <rowN>); use another word", word);
    }
    free(name);
    if (rc && v->n_slots)
        vocab_free(v);
    return rc;
}

int vocab_load(Vocab *v, const char *path, Err *e) {
    int rc = vocab_init(v, e);
    if (rc)
        return rc;
    FILE *f = fopen(path, "r");
    if (!f) {
        vocab_free(v);
        return err_open(e, errno, "the vocabulary file", path, 0);
    }
    char line[VOCAB_MAX_WORD + 2];
    size_t lineno = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(f)) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: the line is longer than %d bytes", path, lineno,
                         VOCAB_MAX_WORD);
            break;
        }
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (len == 0) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: empty line; a vocabulary file has one word "
                         "per line", path, lineno);
            break;
        }
        size_t before = v->n;
        rc = vocab_add(v, line, NULL, e);
        if (rc && e) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e->msg);
            err_set(e, rc, "%s:%zu: %s", path, lineno, msg);
        } else if (v->n == before && strcmp(line, "<pad>") && strcmp(line, "<unk>")) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: '%s' is listed twice", path, lineno, line);
        }
    }
    fclose(f);
    if (rc)
        vocab_free(v);
    return rc;
}

int vocab_save(const Vocab *v, const char *path, Err *e) {
    FILE *f = fopen(path, "w");
    if (!f)
        return err_open(e, errno, "", path, 1);
    for (size_t i = 0; i < v->n; i++)
        fprintf(f, "%s\n", v->words[i]);
    if (fclose(f) != 0)
        return err_set(e, ERR_RUNTIME, "error writing %s (disk full?)", path);
    return 0;
}

int tokenize(const Vocab *v, const char *text, int **ids, size_t *n, FILE *warn, Err *e) {
    *ids = NULL;
    *n = 0;
    Words w;
    int rc = words_split(&w, text, e);
    if (rc)
        return rc;
    if (w.n == 0) {
        words_free(&w);
        return err_set(e, ERR_INPUT, "the sentence is empty: give at least one word");
    }
    int *out = xmalloc(w.n * sizeof *out, "token ids", e);
    if (!out) {
        words_free(&w);
        return ERR_RUNTIME;
    }
    for (size_t i = 0; i < w.n; i++) {
        int id = vocab_find(v, w.w[i]);
        if (id < 0) {
            id = VOCAB_UNK;
            if (warn)
                fprintf(warn, "warning: '%s' is not in the vocabulary; it becomes <unk>\n",
                        w.w[i]);
        }
        out[i] = id;
    }
    *ids = out;
    *n = w.n;
    words_free(&w);
    return 0;
}
