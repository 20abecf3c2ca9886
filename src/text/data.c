/* Examples as text and as ids: the data-file parser and writer, the label
 * set, encoding through a vocabulary, and batching. The file format is in
 * docs/formats.md; the built-in tasks are in tasks.c. */
#include "data.h"
#include "../core/buf.h"
#include "../core/fileio.h"
#include "../core/label.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

static const char *kind_word(LabelKind k) { return k == LABELS_TOKEN ? "token" : "sentence"; }

void textdata_init(TextData *d, LabelKind kind) {
    memset(d, 0, sizeof *d);
    d->kind = kind;
}

/* start stays NULL until the first example, so an empty TextData needs no
 * allocation (and textdata_init cannot fail). */
static size_t text_words(const TextData *d) { return d->start ? d->start[d->n] : 0; }

static size_t text_labels(const TextData *d) {
    return d->kind == LABELS_TOKEN ? text_words(d) : d->n;
}

void textdata_free(TextData *d) {
    size_t nw = text_words(d), nl = text_labels(d);
    for (size_t i = 0; i < nw; i++)
        free(d->word[i]);
    for (size_t i = 0; i < nl; i++)
        free(d->label[i]);
    free(d->start);
    free(d->word);
    free(d->label);
    free(d->line);
    free(d->name);
    textdata_init(d, d->kind);
}

/* Grows *p (elements of elem bytes) to hold at least need, doubling. */
static int reserve(void **p, size_t *cap, size_t need, size_t elem, const char *what, Err *e) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            return err_set(e, ERR_RUNTIME, "too many %s to hold in memory", what);
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q)
        return err_set(e, ERR_RUNTIME, "out of memory growing the %s; use a smaller data set",
                       what);
    *p = q;
    *cap = c;
    return 0;
}

static char *dup_str(const char *s, Err *e) {
    size_t len = strlen(s);
    char *c = xmalloc(len + 1, "a word", e);
    if (c)
        memcpy(c, s, len + 1);
    return c;
}

/* dst (n + m): the m entries of each of the n runs from `at` (n + 1 run
 * starts over src) with a copy of first before each. */
static int insert_each(char ***dst, char **src, const size_t *at, size_t n, const char *first,
                       Err *e) {
    char **out = xmalloc((at[n] + n + 1) * sizeof *out, "the examples", e);
    if (!out)
        return ERR_RUNTIME;
    for (size_t i = 0, k = 0; i < n; i++) {
        if (!(out[k++] = dup_str(first, e))) {
            for (size_t j = 0; j < i; j++) /* the copies made so far; the rest are src's */
                free(out[at[j] + j]);
            free(out);
            return ERR_RUNTIME;
        }
        for (size_t w = at[i]; w < at[i + 1]; w++)
            out[k++] = src[w];
    }
    *dst = out;
    return 0;
}

char *data_with_cls(const char *text, Err *e) {
    size_t n = strlen(DATA_CLS) + 1 + strlen(text) + 1;
    char *s = xmalloc(n, "a sentence", e);
    if (s)
        snprintf(s, n, "%s %s", DATA_CLS, text);
    return s;
}

int textdata_prepend(TextData *d, const char *word, Err *e) {
    if (d->n == 0)
        return 0;
    size_t *start = xmalloc((d->n + 1) * sizeof *start, "the examples", e);
    char **words = NULL, **labels = NULL;
    int rc = start ? insert_each(&words, d->word, d->start, d->n, word, e) : ERR_RUNTIME;
    if (!rc && d->kind == LABELS_TOKEN &&
        (rc = insert_each(&labels, d->label, d->start, d->n, DATA_NO_LABEL, e))) {
        for (size_t i = 0; i < d->n; i++)
            free(words[d->start[i] + i]);
        free(words);
    }
    if (rc) {
        free(start);
        return rc;
    }
    for (size_t i = 0; i <= d->n; i++)
        start[i] = d->start[i] + i;
    free(d->start), free(d->word);
    d->start = start, d->word = words, d->cap_ex = d->n + 1;
    d->cap_words = start[d->n] + 1;
    if (labels) {
        free(d->label);
        d->label = labels, d->cap_labels = start[d->n] + 1;
    }
    return 0;
}

int textdata_add(TextData *d, const char *const *words, size_t n, const char *const *labels,
                 Err *e) {
    if (n == 0)
        return err_set(e, ERR_INPUT, "an example needs at least one word");
    size_t nl = d->kind == LABELS_TOKEN ? n : 1;
    /* the bytes data_write will put on the line: spaces, the tab, and a
     * space before a first word that starts with '#' */
    size_t line = n + nl - 1;
    for (size_t i = 0; i < n; i++) {
        int rc = data_check_token(words[i], "word", "", "save the file as UTF-8", e);
        if (rc)
            return rc;
        line += strlen(words[i]);
    }
    for (size_t i = 0; i < nl; i++) {
        int rc = data_check_token(labels[i], "label", "", "save the file as UTF-8", e);
        if (rc)
            return rc;
        line += strlen(labels[i]);
    }
    const char *first = d->kind == LABELS_TOKEN ? words[0] : labels[0];
    line += first[0] == '#';
    if (line > DATA_MAX_LINE)
        return err_set(e, ERR_INPUT, "the example takes %zu bytes on a line, more than the %d "
                       "a data file allows; use shorter sentences", line, DATA_MAX_LINE);

    size_t w0 = text_words(d), l0 = text_labels(d);
    int rc = reserve((void **)&d->start, &d->cap_ex, d->n + 2, sizeof *d->start, "examples", e);
    if (rc)
        return rc;
    if (d->n == 0)
        d->start[0] = 0;
    rc = reserve((void **)&d->word, &d->cap_words, w0 + n, sizeof *d->word, "words", e);
    if (!rc)
        rc = reserve((void **)&d->label, &d->cap_labels, l0 + nl, sizeof *d->label, "labels", e);
    if (rc)
        return rc;
    size_t nw_done = 0, nl_done = 0;
    for (; nw_done < n; nw_done++)
        if (!(d->word[w0 + nw_done] = dup_str(words[nw_done], e)))
            goto fail;
    for (; nl_done < nl; nl_done++)
        if (!(d->label[l0 + nl_done] = dup_str(labels[nl_done], e)))
            goto fail;
    d->start[d->n + 1] = w0 + n;
    d->n++;
    return 0;
fail:
    for (size_t i = 0; i < nw_done; i++)
        free(d->word[w0 + i]);
    for (size_t i = 0; i < nl_done; i++)
        free(d->label[l0 + i]);
    return ERR_RUNTIME;
}

/* An ERR_INPUT error at name:line. */
POSENC_PRINTF(4, 5)
static int bad_line(Err *e, const char *name, size_t line, const char *fmt, ...) {
    char msg[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(e, ERR_INPUT, "%s:%zu: %s", name, line, msg);
}

/* Puts name:line in front of the message already in e. */
static int at_line(Err *e, int rc, const char *name, size_t line) {
    if (e) {
        char msg[sizeof e->msg];
        memcpy(msg, e->msg, sizeof msg);
        err_set(e, rc, "%s:%zu: %s", name, line, msg);
    }
    return rc;
}

static int parse_header(TextData *out, const char *line, const char *name, size_t lineno,
                        Err *e) {
    Words w;
    int rc = words_split(&w, line, e);
    if (rc)
        return at_line(e, rc, name, lineno);
    bool ok = w.n == 2 && strcmp(w.w[0], "labels:") == 0;
    if (ok && strcmp(w.w[1], "sentence") == 0)
        out->kind = LABELS_SENTENCE;
    else if (ok && strcmp(w.w[1], "token") == 0)
        out->kind = LABELS_TOKEN;
    else
        rc = bad_line(e, name, lineno, "the first line must say which labels the file holds: "
                      "'labels: sentence' or 'labels: token', not '%.60s'", line);
    words_free(&w);
    return rc;
}

/* One example line: LABEL<TAB>SENTENCE or SENTENCE<TAB>LABELS. */
static int parse_example(TextData *out, char *line, const char *name, size_t lineno, Err *e) {
    bool token = out->kind == LABELS_TOKEN;
    const char *shape = token ? "SENTENCE<TAB>LABELS, one label per word"
                              : "LABEL<TAB>SENTENCE";
    char *tab = strchr(line, '\t');
    if (!tab) {
        const char *p = line + strspn(line, " ");
        return bad_line(e, name, lineno, "no tab: each line is %s%s", shape,
                        *p == '#' ? " (a comment has # in the first column)" : "");
    }
    if (strchr(tab + 1, '\t'))
        return bad_line(e, name, lineno, "more than one tab: each line is %s, with one tab",
                        shape);
    *tab = '\0';
    Words ws, wl;
    int rc = words_split(&ws, token ? line : tab + 1, e);
    if (rc)
        return at_line(e, rc, name, lineno);
    rc = words_split(&wl, token ? tab + 1 : line, e);
    if (rc) {
        words_free(&ws);
        return at_line(e, rc, name, lineno);
    }
    if (ws.n == 0)
        rc = bad_line(e, name, lineno, "the sentence is empty: each line is %s", shape);
    else if (!token && wl.n == 0)
        rc = bad_line(e, name, lineno, "the label before the tab is missing: each line is %s",
                      shape);
    else if (!token && wl.n > 1)
        rc = bad_line(e, name, lineno, "the label '%.60s' has %zu words, but a label is one "
                      "word; is the sentence on the wrong side of the tab?", line, wl.n);
    else if (token && wl.n != ws.n)
        rc = bad_line(e, name, lineno, "%zu words but %zu labels: give one label per word, "
                      "separated by spaces", ws.n, wl.n);
    else if ((rc = textdata_add(out, (const char *const *)ws.w, ws.n,
                                (const char *const *)wl.w, e)) != 0)
        at_line(e, rc, name, lineno);
    words_free(&ws);
    words_free(&wl);
    return rc;
}

static bool blank(const char *s) {
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

int data_parse(TextData *out, const char *text, size_t len, const char *name, Err *e) {
    textdata_init(out, LABELS_SENTENCE);
    if (!name)
        name = "(data)";
    /* one line at a time through a buffer of fixed size: memory stays
     * bounded by the line limit plus what the examples themselves hold */
    char *buf = xmalloc(DATA_MAX_LINE + 1, "a line of data", e);
    if (!buf)
        return ERR_RUNTIME;
    size_t pos = 0, lineno = 0;
    bool header = false;
    int rc = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        pos = 3; /* a byte-order mark, as some editors write */
    while (!rc && pos < len) {
        const char *p = text + pos;
        /* a line ends at \n, \r\n or a lone \r (old Mac files): a file of
         * \r endings is lines, not one long header */
        size_t n = 0;
        while (pos + n < len && p[n] != '\n' && p[n] != '\r')
            n++;
        pos += n;
        if (pos < len) /* past the ending: \r\n is one */
            pos += text[pos] == '\r' && pos + 1 < len && text[pos + 1] == '\n' ? 2 : 1;
        lineno++;
        if (n > DATA_MAX_LINE) {
            rc = bad_line(e, name, lineno, "the line has %zu bytes, more than the %d allowed; "
                          "use shorter sentences, one example per line", n, DATA_MAX_LINE);
            break;
        }
        if (memchr(p, '\0', n)) {
            rc = bad_line(e, name, lineno, "the line holds a NUL byte; a data file is UTF-8 "
                          "text (is this a binary file?)");
            break;
        }
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (buf[0] == '#' || blank(buf))
            continue;
        if (!header) {
            rc = parse_header(out, buf, name, lineno, e);
            header = true;
        } else {
            rc = parse_example(out, buf, name, lineno, e);
            /* remembered, so that errors found later (an unknown label in
             * evaluation data) can still say where */
            if (!rc && !(rc = reserve((void **)&out->line, &out->cap_line, out->n,
                                      sizeof *out->line, "line numbers", e)))
                out->line[out->n - 1] = lineno;
        }
    }
    if (!rc && !(out->name = dup_str(name, e)))
        rc = ERR_RUNTIME;
    if (!rc && !header)
        rc = bad_line(e, name, lineno ? lineno : 1, "no header: the file must start with "
                      "'labels: sentence' or 'labels: token', then one example per line");
    else if (!rc && out->n == 0)
        rc = bad_line(e, name, lineno, "no examples after the header; add lines of %s",
                      out->kind == LABELS_TOKEN ? "SENTENCE<TAB>LABELS" : "LABEL<TAB>SENTENCE");
    free(buf);
    if (rc)
        textdata_free(out);
    return rc;
}

int data_read(TextData *out, const char *path, Err *e) {
    textdata_init(out, LABELS_SENTENCE);
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_open(e, errno, "the data file", path, 0);
    char *buf = NULL;
    size_t n = 0;
    int rc = read_stream(f, path, (size_t)DATA_MAX_FILE + 1, &buf, &n, e);
    if (!rc && n > DATA_MAX_FILE)
        rc = err_set(e, ERR_INPUT, "%s is larger than %u MiB, more than a toy data set needs; "
                     "use a smaller file", path, (unsigned)(DATA_MAX_FILE >> 20));
    fclose(f);
    if (!rc)
        rc = data_parse(out, buf, n, path, e);
    if (!rc)
        out->hash = buf_fnv1a(buf, n);
    free(buf);
    return rc;
}

static void put_words(Buf *b, char *const *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_put(b, " ", 1);
        buf_put(b, w[i], strlen(w[i]));
    }
}

void data_format(const TextData *d, Buf *b) {
    buf_printf(b, "labels: %s\n", kind_word(d->kind));
    bool token = d->kind == LABELS_TOKEN;
    for (size_t i = 0; i < d->n; i++) {
        size_t a = d->start[i], n = d->start[i + 1] - a;
        const char *first = token ? d->word[a] : d->label[i];
        if (first[0] == '#')
            buf_put(b, " ", 1); /* '#' in the first column would make a comment */
        put_words(b, token ? d->word + a : d->label + i, token ? n : 1);
        buf_put(b, "\t", 1);
        put_words(b, token ? d->label + a : d->word + a, n);
        buf_put(b, "\n", 1);
    }
}

int data_write(const TextData *d, const char *path, Err *e) {
    if (d->n == 0)
        return err_set(e, ERR_INPUT, "no examples to write to %s; a data file holds at least "
                       "one", path);
    Buf b = {0};
    data_format(d, &b);
    int rc = b.failed ? err_set(e, ERR_RUNTIME, "out of memory writing %s", path)
                      : write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}

void labelset_init(LabelSet *s) { memset(s, 0, sizeof *s); }

void labelset_free(LabelSet *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    memset(s, 0, sizeof *s);
}

/* A linear search: DATA_MAX_LABELS keeps it short. */
int labelset_find(const LabelSet *s, const char *name) {
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return (int)i;
    return -1;
}

int labelset_add(LabelSet *s, const char *name, int *id, Err *e) {
    int found = labelset_find(s, name);
    if (found < 0) {
        if (name[0] == '\0')
            return err_set(e, ERR_INPUT, "a label is empty; give it at least one character");
        if (s->n >= DATA_MAX_LABELS)
            return err_set(e, ERR_INPUT, "more than %d different labels, too many classes for "
                           "a toy model; check that the labels are in the right column",
                           DATA_MAX_LABELS);
        int rc = reserve((void **)&s->names, &s->cap, s->n + 1, sizeof *s->names, "labels", e);
        if (rc)
            return rc;
        if (!(s->names[s->n] = dup_str(name, e)))
            return ERR_RUNTIME;
        found = (int)s->n++;
    }
    if (id)
        *id = found;
    return 0;
}

const char *labelset_list(const LabelSet *s, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && used + 1 < cap; i++) {
        int k = snprintf(buf + used, cap - used, "%s%s", i ? " " : "", s->names[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    if (cap > 4 && used >= cap - 1)
        memcpy(buf + cap - 4, "...", 4);
    return buf;
}

/* The class X of a label "_=X" (DATA_LOSS_ONLY), or NULL for another. */
static const char *loss_only_class(const char *label) {
    size_t n = strlen(DATA_LOSS_ONLY);
    return strncmp(label, DATA_LOSS_ONLY, n) == 0 ? label + n : NULL;
}

const char *data_unknown_label(const TextData *d, const LabelSet *s, size_t *at) {
    bool token = d->kind == LABELS_TOKEN;
    for (size_t i = 0; i < d->n; i++) {
        size_t la = token ? d->start[i] : i, lb = token ? d->start[i + 1] : i + 1;
        for (size_t j = la; j < lb; j++) {
            const char *c = token ? loss_only_class(d->label[j]) : NULL;
            const char *name = c ? c : d->label[j];
            if (strcmp(name, DATA_NO_LABEL) != 0 && labelset_find(s, name) < 0) {
                if (at)
                    *at = i;
                return name;
            }
        }
    }
    return NULL;
}

/* The class a label "_=X" trains on, checked: X a label of its own (not
 * empty, '_' or another "_=") on a word of per-token data; otherwise
 * ERR_INPUT. */
static int loss_only_check(const char *label, const char *c, bool token, Err *e) {
    if (!token)
        return err_set(e, ERR_INPUT, "the label '%s' (trained on, not scored) is for a word of "
                       "per-token data; a sentence needs a label of its own", label);
    if (!*c || strcmp(c, DATA_NO_LABEL) == 0 || loss_only_class(c))
        return err_set(e, ERR_INPUT, "the label '%s' names no class: '%sX' trains a word on "
                       "the class X without scoring it, and X is a label of its own",
                       label, DATA_LOSS_ONLY);
    return 0;
}

static int unknown_label(const LabelSet *s, const char *label, Err *e) {
    char known[160];
    return err_set(e, ERR_INPUT, "the label '%s' is not one of the %zu the model was trained "
                   "on (%s); use data with the training labels", label, s->n,
                   labelset_list(s, known, sizeof known));
}

/* Puts where example i is ("FILE:LINE" or "example N") in front of the
 * message in e. */
static int at_example(Err *e, int rc, const TextData *in, size_t i) {
    if (in->line && in->name)
        return at_line(e, rc, in->name, in->line[i]);
    if (e) {
        char msg[sizeof e->msg];
        memcpy(msg, e->msg, sizeof msg);
        err_set(e, rc, "example %zu: %s", i + 1, msg);
    }
    return rc;
}

/* A new word past the limit a model can hold, refused before it is added. */
static int vocab_room(const Vocab *v, const char *word, Err *e) {
    if (v->n < DATA_MAX_WORDS || vocab_find(v, word) >= 0)
        return 0;
    return err_set(e, ERR_INPUT, "the word '%s' would make the vocabulary larger than the %d "
                   "words a model holds (<pad> and <unk> included); use data with fewer "
                   "different words", word, DATA_MAX_WORDS);
}

int data_encode(Dataset *out, const TextData *in, Vocab *v, LabelSet *s, bool grow,
                size_t *n_unknown, Err *e) {
    memset(out, 0, sizeof *out);
    out->kind = in->kind;
    if (n_unknown)
        *n_unknown = 0;
    size_t nw = text_words(in), nl = text_labels(in);
    out->start = xmalloc((in->n + 1) * sizeof *out->start, "example offsets", e);
    out->ids = xmalloc(nw * sizeof *out->ids, "token ids", e);
    out->labels = xmalloc(nl * sizeof *out->labels, "labels", e);
    if (!out->start || !out->ids || !out->labels) {
        dataset_free(out);
        return ERR_RUNTIME;
    }
    out->n = in->n;
    out->start[0] = 0;
    int rc = 0;
    bool token = in->kind == LABELS_TOKEN;
    for (size_t i = 0; !rc && i < in->n; i++) {
        size_t a = in->start[i], b = in->start[i + 1];
        out->start[i + 1] = b;
        if (b - a > out->max_len)
            out->max_len = b - a;
        for (size_t j = a; !rc && j < b; j++) {
            int id = -1;
            if (grow && !(rc = vocab_room(v, in->word[j], e)))
                rc = vocab_add(v, in->word[j], &id, e);
            else if ((id = vocab_find(v, in->word[j])) < 0 && n_unknown)
                ++*n_unknown;
            out->ids[j] = id < 0 ? VOCAB_UNK : id;
        }
        size_t la = token ? a : i, lb = token ? b : i + 1;
        for (size_t j = la; !rc && j < lb; j++) {
            int id = -1;
            bool none = strcmp(in->label[j], DATA_NO_LABEL) == 0;
            /* "_=X": the class X, in the loss alone (label_unscored) */
            const char *only = s ? loss_only_class(in->label[j]) : NULL;
            const char *name = only ? only : in->label[j];
            if (!s) /* words only: the labels are not read */
                id = -1;
            else if (none && !token)
                rc = err_set(e, ERR_INPUT, "the label '%s' (no label) is for a word of "
                             "per-token data; a sentence needs a label of its own",
                             DATA_NO_LABEL);
            else if (none) /* scored by nothing: -1, as a padded slot */
                id = -1;
            else if (only && (rc = loss_only_check(in->label[j], only, token, e)))
                id = -1;
            else if (grow)
                rc = labelset_add(s, name, &id, e);
            else if ((id = labelset_find(s, name)) < 0)
                rc = unknown_label(s, name, e);
            out->labels[j] = only && id >= 0 ? label_unscored(id) : id;
        }
        if (rc)
            at_example(e, rc, in, i);
    }
    if (rc)
        dataset_free(out);
    return rc;
}

void dataset_free(Dataset *d) {
    free(d->start);
    free(d->ids);
    free(d->labels);
    memset(d, 0, sizeof *d);
}

void dataset_batch(const Dataset *d, const size_t *idx, size_t B, size_t T, int *ids,
                   size_t *lens, int *labels) {
    /* ids (B,T), lens (B), labels (B) or (B,T) */
    bool token = d->kind == LABELS_TOKEN;
    for (size_t b = 0; b < B; b++) {
        size_t i = idx[b], a = d->start[i], len = d->start[i + 1] - a;
        if (len > T)
            len = T;
        lens[b] = len;
        for (size_t t = 0; t < T; t++) {
            ids[b * T + t] = t < len ? d->ids[a + t] : VOCAB_PAD;
            if (token)
                labels[b * T + t] = t < len ? d->labels[a + t] : -1;
        }
        if (!token)
            labels[b] = d->labels[i];
    }
}
