/* Evaluating a model, by length (evaluation.h). */
#include "evaluation.h"
#include "positions.h"
#include "../model/encoder.h"

#include <stdlib.h>
#include <string.h>

double eval_accuracy(const EvalStats *s) {
    return s->labelled ? (double)s->correct / (double)s->labelled : 0.0;
}

double eval_loss(const EvalStats *s) {
    return s->in_loss ? s->loss_sum / (double)s->in_loss : 0.0;
}

double eval_accuracy_all(const EvalStats *s) {
    size_t all = s->labelled + s->missed;
    return all ? (double)s->correct / (double)all : 0.0;
}

static void add_stats(EvalStats *to, const EvalStats *from) {
    to->examples += from->examples;
    to->skipped += from->skipped;
    to->labelled += from->labelled;
    to->correct += from->correct;
    to->exact += from->exact;
    to->missed += from->missed;
    to->in_loss += from->in_loss;
    to->loss_sum += from->loss_sum;
}

/* Sentences of the batch whose every scored label is right (per-token
 * tasks): a slot trained on alone (label < -1, core/label.h) is not one. */
static size_t exact_matches(const Model *m, const Acts *a, const int *labels, size_t B,
                            size_t T) {
    size_t K = m->cfg.n_classes, n = 0;
    for (size_t b = 0; b < B; b++) {
        int all = 1;
        for (size_t t = 0; t < T && all; t++) {
            const float *z = a->logits + (b * T + t) * K;
            int want = labels[b * T + t];
            size_t arg = 0;
            for (size_t k = 1; k < K; k++)
                if (z[k] > z[arg])
                    arg = k;
            all = want < 0 || (int)arg == want;
        }
        n += (size_t)all;
    }
    return n;
}

int evaluate_dataset(const Model *m, const Dataset *d, size_t B, EvalStats *per_len,
                     EvalStats *total, Err *e) {
    return evaluate_dataset_at(m, d, B, 0, 1, false, RANDOM_DRAW_POSITIONS, 0, per_len, total, e);
}

int evaluate_dataset_at(const Model *m, const Dataset *d, size_t B, size_t N, size_t draws,
                        bool shared, RandomDraw how, uint64_t seed, EvalStats *per_len,
                        EvalStats *total, Err *e) {
    Acts room = {0};
    int rc = evaluate_dataset_in(&room, m, d, B, N, draws, shared, how, seed, per_len, total, e);
    acts_free(&room);
    return rc;
}

int eval_room_fit(Acts *room, const Model *m, size_t B, size_t T, Err *e) {
    if (room->mem && room->B >= B && room->T >= T)
        return 0;
    size_t b = room->B > B ? room->B : B, t = room->T > T ? room->T : T;
    acts_free(room);
    return acts_create_forward(room, m, b, t, e);
}

int evaluate_dataset_in(Acts *room, const Model *m, const Dataset *d, size_t B, size_t N,
                        size_t draws, bool shared, RandomDraw how, uint64_t seed,
                        EvalStats *per_len, EvalStats *total, Err *e) {
    memset(total, 0, sizeof *total);
    if (d->n == 0)
        return 0;
    size_t L = d->max_len, limit = model_max_positions(m);
    size_t first = config_lead_tokens(&m->cfg); /* tokens before the words */
    if (N && N < limit)
        limit = N; /* sorted distinct positions from 0..N-1: at most N tokens */
    if (!N || draws == 0)
        draws = 1;
    if (per_len)
        memset(per_len, 0, (L + 1) * sizeof *per_len);
    Rng rng;
    rng_seed(&rng, seed);
    bool by_layer = N && how == RANDOM_DRAW_RUOSS && m->pe.scheme->ruoss_draw != PE_DRAW_INPUT;
    size_t *idx = xmalloc(d->n * sizeof *idx, "evaluation", e);
    int *ids = xmalloc(B * L * sizeof *ids, "evaluation", e);
    int *labels = xmalloc(B * L * sizeof *labels, "evaluation", e);
    size_t *lens = xmalloc(B * sizeof *lens, "evaluation", e);
    size_t *pos = N ? xmalloc(B * L * sizeof *pos, "evaluation", e) : NULL;
    int rc = idx && ids && labels && lens && (pos || !N) ? eval_room_fit(room, m, B, L, e)
                                                         : ERR_RUNTIME;
    Acts *a = room;
    /* One length at a time: no padding, and the per-length table falls out. */
    for (size_t len = 1; len <= L && !rc; len++) {
        EvalStats st = {0};
        size_t n = 0;
        for (size_t i = 0; i < d->n; i++)
            if (d->start[i + 1] - d->start[i] == len)
                idx[n++] = i;
        st.examples = n;
        if (len > limit) {
            st.skipped = n;
            st.missed = d->kind == LABELS_TOKEN ? n * len : n;
        }
        /* each draw scores every sentence again: the counts add up over
         * draws, so the accuracy is their mean */
        for (size_t k = 0; k < draws && len <= limit && !rc; k++)
            for (size_t i = 0; i < n && !rc; i += B) {
                size_t b = n - i < B ? n - i : B;
                StepStats s;
                dataset_batch(d, idx + i, b, len, ids, lens, labels);
                if (by_layer)
                    encoder_draw_layers(m, a, &rng, len, N);
                else if (pos)
                    session_draw_batch_positions(pos, &rng, lens, b, len, N, shared);
                rc = eval_batch_at(m, a, ids, lens, by_layer ? NULL : pos, labels, b, len, &s, e);
                st.labelled += s.labelled;
                st.correct += s.correct;
                st.in_loss += s.in_loss;
                st.loss_sum += (double)s.loss * (double)s.in_loss;
                st.exact += d->kind == LABELS_TOKEN ? exact_matches(m, a, labels, b, len)
                                                    : s.correct;
            }
        /* by words: a [CLS] before them is not one */
        if (per_len && len > first)
            per_len[len - first] = st;
        add_stats(total, &st);
    }
    free(idx), free(ids), free(labels), free(lens), free(pos);
    return rc;
}

/* A task's split (which: "valid", "test"; its options r) whose labels the
 * model's classes hold; otherwise ERR_INPUT naming the cause, which no
 * data file given could be: another task's model, or a training split
 * whose lengths or size never showed the label (cycle_navigation's inputs
 * of one word reach 3 of its 5 places). */
static int task_labels_known(const TextData *d, const Checkpoint *ck, const char *task,
                             const char *which, const TaskOptions *r, Err *e) {
    const char *label = data_unknown_label(d, &ck->labels, NULL);
    if (!label)
        return 0;
    char known[160];
    labelset_list(&ck->labels, known, sizeof known);
    bool on_task = ck->has_train && ck->meta.task[0];
    const char *from = ck->has_train ? (on_task ? ck->meta.task : ck->meta.data) : "";
    TaskOptions t;
    if (on_task && strcmp(ck->meta.task, task) == 0 &&
        !task_options_resolve(&t, &ck->meta.task_opt, task, &(Err){0}))
        return err_set(e, ERR_INPUT, "the %s split of %s (inputs of %zu to %zu words) holds "
                       "the label '%s', which the model's training split (%zu examples of %zu "
                       "to %zu words) never showed: it knows %zu labels (%s) and cannot "
                       "predict another; evaluate it on inputs of its training lengths "
                       "(--max-len %zu), or train one on more or longer examples (train "
                       "--train-examples, train --max-train-len)", which, task, r->min_len,
                       r->max_len, label, t.n_train, t.min_len, t.max_train_len, ck->labels.n,
                       known, t.max_train_len);
    if (from[0])
        return err_set(e, ERR_INPUT, "the model was trained on %s, not %s: the label '%s' of "
                       "%s is none of its %zu (%s); evaluate it on its own %s (%s %s), or give "
                       "a model trained on %s", from, task, label, task, ck->labels.n, known,
                       on_task ? "task" : "data", on_task ? "--task" : "--data", from, task);
    return err_set(e, ERR_INPUT, "the label '%s' of %s is none of the model's %zu (%s): it was "
                   "trained on other data; give a model trained on %s", label, task,
                   ck->labels.n, known, task);
}

/* session_eval_data, with labels or (words_only) without: a position
 * probe needs the words alone, whatever the model's classes. */
static int eval_text(Dataset *out, const Checkpoint *ck, const char *task, const char *path,
                     const TaskOptions *overrides, const char *which, size_t *n_unknown,
                     bool words_only, Err *e) {
    memset(out, 0, sizeof *out);
    TextData txt[3];
    memset(txt, 0, sizeof txt);
    int rc;
    TaskOptions r = {0}; /* a task's, resolved */
    if (task) {
        /* the options the model was trained with, so "test" is the same
         * held-out split; then whatever the caller overrides */
        TaskOptions o = {0};
        if (ck->has_train && strcmp(ck->meta.task, task) == 0)
            o = ck->meta.task_opt;
        else
            o.seed = overrides->seed;
        if (overrides->min_len)
            o.min_len = overrides->min_len;
        if (overrides->max_len)
            o.max_len = overrides->max_len;
        if (overrides->n_test)
            o.n_test = overrides->n_test;
        if (overrides->n_valid)
            o.n_valid = overrides->n_valid;
        /* Only valid and test are read here; their lengths run from
         * min_len to max_len whatever the training split's were, so the
         * training lengths must not stand in the way of new ones. */
        o.max_train_len = 0;
        rc = task_options_resolve(&r, &o, task, e);
        if (!rc)
            rc = task_make(&txt[0], &txt[1], &txt[2], task, &r, e);
    } else {
        rc = data_read(&txt[2], path, e);
    }
    TextData *src = &txt[task && strcmp(which, "valid") == 0 ? 1 : 2];
    if (!rc && task && !words_only)
        rc = task_labels_known(src, ck, task, which, &r, e);
    if (!rc && ck->model.cfg.pool == POOL_CLS)
        rc = textdata_prepend(src, DATA_CLS, e);
    if (!rc)
        rc = data_encode(out, src, (Vocab *)&ck->vocab,
                         words_only ? NULL : (LabelSet *)&ck->labels, false, n_unknown, e);
    if (!rc && !words_only && (out->kind == LABELS_TOKEN) != ck->model.cfg.per_token)
        rc = err_set(e, ERR_INPUT, "the data has %s labels but the model predicts %s",
                     out->kind == LABELS_TOKEN ? "per-token" : "sentence",
                     ck->model.cfg.per_token ? "one label per token" : "one label per sentence");
    for (int i = 0; i < 3; i++)
        textdata_free(&txt[i]);
    if (rc)
        dataset_free(out);
    return rc;
}

int session_eval_data(Dataset *out, const Checkpoint *ck, const char *task, const char *path,
                      const TaskOptions *overrides, const char *which, size_t *n_unknown,
                      Err *e) {
    return eval_text(out, ck, task, path, overrides, which, n_unknown, false, e);
}

int session_words_data(Dataset *out, const Checkpoint *ck, const char *task, const char *path,
                       const TaskOptions *overrides, const char *which, Err *e) {
    int rc = eval_text(out, ck, task, path, overrides, which, NULL, true, e);
    if (rc || task)
        return rc;
    /* a file has one split: its first half fits, its second scores */
    size_t half = out->n / 2, lo = strcmp(which, "valid") == 0 ? 0 : half,
           hi = lo ? out->n : half;
    if (half == 0) {
        dataset_free(out);
        return err_set(e, ERR_INPUT, "%s has %zu sentence%s: a probe needs two or more (half "
                       "to fit, half to score)", path, out->n, out->n == 1 ? "" : "s");
    }
    size_t base = out->start[lo];
    memmove(out->ids, out->ids + base, (out->start[hi] - base) * sizeof *out->ids);
    out->max_len = 0;
    for (size_t i = lo; i <= hi; i++) {
        out->start[i - lo] = out->start[i] - base;
        if (i > lo && out->start[i - lo] - out->start[i - lo - 1] > out->max_len)
            out->max_len = out->start[i - lo] - out->start[i - lo - 1];
    }
    out->n = hi - lo;
    return 0;
}
