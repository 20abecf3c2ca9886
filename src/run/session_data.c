/* A session's data (session_data.h): the text of a task or of files, the
 * vocabulary and classes built from its training split, and the three
 * splits encoded by them. */
#include "session_data.h"

#include <stdio.h>
#include <string.h>

/* A run names its files by path, and keeps their contents' hash: a new
 * run takes it (*hash 0), a resumed one must find the same bytes (the
 * same path from another folder, or an edited file, is other data). */
static int same_contents(uint64_t *hash, const TextData *d, const char *opt, Err *e) {
    if (!*hash) {
        *hash = d->hash;
        return 0;
    }
    if (*hash == d->hash)
        return 0;
    return err_set(e, ERR_INPUT, "%s %s is not the file this run trained on: its contents "
                   "differ from those it was started with (a path given from another folder "
                   "names another file); resume from the folder the run was started in, or "
                   "restore the file", opt, d->name ? d->name : "?");
}

/* The three splits as text: a task's, or the files' (no test split). The
 * files' hashes go into mt, or are checked against it. */
static int load_text(TextData txt[3], TrainMeta *mt, Err *e) {
    int rc;
    if (mt->task[0]) {
        TaskOptions o;
        if ((rc = task_options_resolve(&o, &mt->task_opt, mt->task, e)))
            return rc;
        return task_make(&txt[0], &txt[1], &txt[2], mt->task, &o, e);
    }
    if (!mt->data[0])
        return err_set(e, ERR_INPUT, "give a task (--task) or a data file (--data)");
    if ((rc = data_read(&txt[0], mt->data, e)) ||
        (rc = same_contents(&mt->data_hash, &txt[0], "--data", e)))
        return rc;
    textdata_init(&txt[1], txt[0].kind);
    textdata_init(&txt[2], txt[0].kind);
    if (mt->valid[0] && ((rc = data_read(&txt[1], mt->valid, e)) ||
                         (rc = same_contents(&mt->valid_hash, &txt[1], "--valid", e))))
        return rc;
    if (txt[1].n && txt[1].kind != txt[0].kind)
        return err_set(e, ERR_INPUT, "%s has %s labels but %s has %s labels; give files of "
                       "one kind", mt->valid, txt[1].kind == LABELS_TOKEN ? "per-token" : "sentence",
                       mt->data, txt[0].kind == LABELS_TOKEN ? "per-token" : "sentence");
    return 0;
}

/* Split i (1 valid, 2 test) of txt holds only labels the training split
 * gave the classes; otherwise ERR_INPUT naming the cause where the run
 * knows it: a task's training split too small to show every class (no
 * data was given, so "use other data" would mislead), or a --valid file
 * with a label --data lacks. */
static int labels_seen(const TextData txt[3], int i, const TrainMeta *mt, const LabelSet *l,
                       Err *e) {
    size_t at;
    const char *label = data_unknown_label(&txt[i], l, &at);
    if (!label)
        return 0;
    char known[160];
    labelset_list(l, known, sizeof known);
    if (mt->task[0]) {
        const Task *t = task_find(mt->task);
        char more[96] = "";
        if (t && txt[0].n < t->n_train)
            snprintf(more, sizeof more, " (%s's default is %zu)", mt->task, t->n_train);
        return err_set(e, ERR_INPUT, "the training split of %s, %zu example%s, never shows the "
                       "label '%s' that its %s split holds (it shows %zu: %s), and a model "
                       "cannot learn a class it never sees; give more --train-examples%s",
                       mt->task, txt[0].n, txt[0].n == 1 ? "" : "s", label,
                       i == 1 ? "validation" : "test", l->n, known, more);
    }
    char where[320] = "";
    if (txt[i].name && txt[i].line)
        snprintf(where, sizeof where, "%s:%zu: ", txt[i].name, txt[i].line[at]);
    return err_set(e, ERR_INPUT, "%sthe label '%s' is not one of the %zu labels of --data %s "
                   "(%s), and a model cannot learn a class it never sees; give --valid "
                   "examples of those labels only, or add examples labelled '%s' to --data",
                   where, label, l->n, mt->data, known, label);
}

int session_load_data(Session *s, Pooling pool, Err *e) {
    TextData txt[3];
    memset(txt, 0, sizeof txt);
    int rc = load_text(txt, &s->meta, e);
    if (!rc && txt[0].n == 0)
        rc = err_set(e, ERR_INPUT, "the training data has no examples");
    for (int i = 0; i < 3 && !rc && pool == POOL_CLS; i++)
        rc = textdata_prepend(&txt[i], DATA_CLS, e);
    if (!rc)
        rc = vocab_init(&s->vocab, e);
    if (!rc) {
        labelset_init(&s->labels);
        rc = data_encode(&s->train, &txt[0], &s->vocab, &s->labels, true, NULL, e);
    }
    for (int i = 1; i < 3 && !rc; i++)
        if (!(rc = labels_seen(txt, i, &s->meta, &s->labels, e)))
            rc = data_encode(i == 1 ? &s->valid : &s->test, &txt[i], &s->vocab, &s->labels,
                             false, NULL, e);
    for (int i = 0; i < 3; i++)
        textdata_free(&txt[i]);
    if (!rc && s->labels.n < 2)
        rc = err_set(e, ERR_INPUT, "the training data has %zu class%s: a classifier needs at "
                     "least two labels", s->labels.n, s->labels.n == 1 ? "" : "es");
    return rc;
}
