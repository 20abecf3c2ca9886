#include "session.h"

#include "../core/options.h"
#include "session_data.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(DATA_MAX_WORDS == MAX_DIM, "a vocabulary built from data must fit a model");

static void session_zero(Session *s) { memset(s, 0, sizeof *s); }

void session_free(Session *s) {
    vocab_free(&s->vocab);
    labelset_free(&s->labels);
    dataset_free(&s->train);
    dataset_free(&s->valid);
    dataset_free(&s->test);
    model_free(&s->model);
    trainer_free(&s->trainer);
    acts_free(&s->acts);
    free(s->ids);
    free(s->batch_labels);
    free(s->lens);
    free(s->idx);
    free(s->pos);
    free(s->by_len);
    free(s->len_from);
    free(s->lengths);
    session_zero(s);
}

/* Random positions need a scheme that reads positions one by one, and
 * room for the longest training sentence and the [CLS] before it. */
int session_check_options(const TrainMeta *mt, const Config *c, size_t longest, Err *e) {
    if (train_draw_check(mt, e))
        return ERR_INPUT;
    if (train_layer_draws_check(mt, &c->pe, e))
        return ERR_INPUT;
    return session_check_positions(mt, c, longest, e);
}

int session_check_positions(const TrainMeta *mt, const Config *c, size_t longest, Err *e) {
    size_t N = mt->random_positions, need = longest + config_lead_tokens(c);
    const PeScheme *s = pe_find(c->pe.name);
    if (!N || !s)
        return 0;
    if ((!pe_in_input(s) && !pe_in_attention(s)) || s->ignores_positions)
        return err_set(e, ERR_INPUT, "--random-positions does nothing for %s, which %s; drop "
                       "it%s", s->name, s->ignores_positions ? "counts its positions from the "
                       "content, never from the tokens' own" : "has no positions",
                       options_if("--pe", " or choose another --pe"));
    if (s->length_dependent)
        return err_set(e, ERR_INPUT, "--random-positions does not apply to %s, whose code "
                       "depends on the sentence length, not on the position alone", s->name);
    char words[96];
    if (N < need)
        return err_set(e, ERR_INPUT, "--random-positions %zu is shorter than the longest "
                       "training sentence, %s: give at least %zu", N,
                       config_words(c, need, words, sizeof words), need);
    return 0;
}

double session_memory(const Config *c, size_t B, size_t T, size_t T_eval) {
    double params = (double)config_param_count(c) * 4.0; /* weights, gradients, m, v */
    double acts = (double)config_act_floats(c, B, T, true);
    double eval = T_eval ? (double)config_act_floats(c, 64, T_eval, false) : 0.0;
    return 4.0 * (params + acts + eval); /* floats of 4 bytes */
}

/* Refuses a run that would need more memory than meta.max_memory, before
 * it is allocated: a long sentence or a wide model can ask for gigabytes. */
static int check_memory(Session *s, const Config *c, Err *e) {
    size_t T = s->train.max_len, T_eval = s->valid.max_len > s->test.max_len
                                              ? s->valid.max_len : s->test.max_len;
    if (T_eval < T)
        T_eval = T;
    s->memory = session_memory(c, s->meta.batch, T, T_eval);
    double limit = s->meta.max_memory;
    char words[96];
    if (limit > 0.0 && s->memory > limit)
        return err_set(e, ERR_INPUT, "the run would need about %.0f MiB for the model, its "
                       "optimizer and the activations of %zu sentences of up to %s, "
                       "more than --max-memory %.0f MiB; use a smaller model, --batch or shorter "
                       "sentences, or raise --max-memory", s->memory / 1048576.0,
                       s->meta.batch, config_words(c, T_eval, words, sizeof words),
                       limit / 1048576.0);
    return 0;
}

/* --batches by-length: the training sentences grouped by length, in the
 * split's order within a length (a counting sort). */
static int group_by_length(Session *s, Err *e) {
    const Dataset *d = &s->train;
    size_t L = d->max_len;
    s->by_len = xmalloc((d->n ? d->n : 1) * sizeof *s->by_len, "the batches by length", e);
    s->len_from = xcalloc(L + 2, sizeof *s->len_from, "the batches by length", e);
    s->lengths = xmalloc((L + 1) * sizeof *s->lengths, "the batches by length", e);
    if (!s->by_len || !s->len_from || !s->lengths)
        return ERR_RUNTIME;
    for (size_t i = 0; i < d->n; i++)
        s->len_from[d->start[i + 1] - d->start[i] + 1]++;
    for (size_t t = 0; t <= L; t++) {
        if (s->len_from[t + 1])
            s->lengths[s->n_lengths++] = t;
        s->len_from[t + 1] += s->len_from[t];
    }
    /* len_from[t] is where length t starts: fill with a cursor per length */
    size_t *next = xmalloc((L + 1) * sizeof *next, "the batches by length", e);
    if (!next)
        return ERR_RUNTIME;
    memcpy(next, s->len_from, (L + 1) * sizeof *next);
    for (size_t i = 0; i < d->n; i++)
        s->by_len[next[d->start[i + 1] - d->start[i]]++] = i;
    free(next);
    return 0;
}

/* Batch buffers, activations and the optimizer. */
static int alloc_batches(Session *s, const OptConfig *opt, Err *e) {
    if (s->meta.batches == BATCHES_BY_LENGTH && group_by_length(s, e))
        return ERR_RUNTIME;
    size_t B = s->meta.batch, T = s->train.max_len;
    s->ids = xmalloc(B * T * sizeof *s->ids, "a batch", e);
    s->batch_labels = xmalloc(B * T * sizeof *s->batch_labels, "a batch", e);
    s->lens = xmalloc(B * sizeof *s->lens, "a batch", e);
    s->idx = xmalloc(B * sizeof *s->idx, "a batch", e);
    s->pos = xmalloc(B * T * sizeof *s->pos, "a batch", e);
    if (!s->ids || !s->batch_labels || !s->lens || !s->idx || !s->pos)
        return ERR_RUNTIME;
    int rc = acts_create(&s->acts, &s->model, B, s->train.max_len, e);
    if (!rc)
        rc = trainer_create(&s->trainer, &s->model, opt, B, s->train.max_len, e);
    return rc;
}

/* What a run of model c on the session's data needs, checked the same way
 * for a fresh run and a resumed one (whose data file may have changed
 * since): the options that depend on the scheme, positions for the
 * longest training sentence (a learned table has rows for so many), and
 * the memory. */
static int check_run(Session *s, const Config *c, const char *resumed, Err *e) {
    size_t lead = config_lead_tokens(c); /* s->train's lengths count the [CLS] */
    /* A checkpoint's options were checked when it was started (and again
     * as it loaded): what can fail on resuming is the data, and the advice
     * is about the data. The options alone (no sentence) failing are the
     * file's fault, said as they are. */
    Err own;
    if (resumed && session_check_options(&s->meta, c, 0, &own))
        return err_set(e, ERR_INPUT, "%s holds run options that do not go with its model, "
                       "which train would not have saved (%s): the file was damaged or "
                       "forged; train from scratch", resumed, own.msg);
    int rc = session_check_options(&s->meta, c, s->train.max_len - lead, e);
    PePlan plan;
    size_t need = s->meta.random_positions ? s->meta.random_positions : s->train.max_len;
    size_t rows = 0; /* the positions the run has, once known */
    if (!rc && !(rc = pe_plan(&plan, &c->pe, c->d_model, c->n_heads, c->max_len, e))) {
        rows = plan.max_positions;
        if (need > rows)
            rc = err_set(e, ERR_INPUT, "training needs positions 0..%zu but the %s table has "
                         "rows for 0..%zu only", need - 1, c->pe.name, rows - 1);
    }
    char words[96];
    if (rc && resumed && (s->meta.random_positions || rows))
        rc = err_set(e, ERR_INPUT, "%s cannot go on with this data: its longest training "
                     "sentence has %s, and the run has positions for %zu (%s); restore "
                     "the data it was started with, or train from scratch", resumed,
                     config_words(c, s->train.max_len, words, sizeof words),
                     s->meta.random_positions ? s->meta.random_positions : rows,
                     s->meta.random_positions ? "--random-positions" : "its learned table");
    /* after the advice above, which is about a table's rows: a factor of
     * the positions says what to change itself */
    size_t longest[3] = {s->train.max_len, s->valid.max_len, s->test.max_len};
    if (!rc)
        rc = positions_check_run(&plan, &c->pe, s->meta.random_positions, longest, e);
    return rc ? rc : check_memory(s, c, e);
}

/* A causal model reads no word after the one it labels: a task whose
 * labels need later words is refused, on the command line (resumed NULL)
 * and in a checkpoint alike. */
static int check_causal(const TrainMeta *mt, const Config *c, const char *resumed, Err *e) {
    if (!c->causal || !task_needs_future(mt->task))
        return 0;
    if (resumed)
        return err_set(e, ERR_INPUT, "%s is a causal model trained on %s, whose labels need "
                       "words that come later, which a causal reader never sees: the file "
                       "was damaged or forged; train from scratch", resumed, mt->task);
    return err_set(e, ERR_INPUT, "--causal: %s labels a word with words that may come after "
                   "it, which a causal reader never sees; train agent, direction, previous, "
                   "contains or first, or drop --causal", mt->task);
}

/* The rows a learned table of from has, or 0 (no model to start from, or
 * a scheme without a table read by position). */
static size_t table_rows(const Model *from) {
    return from && from->pe.max_positions != SIZE_MAX ? from->pe.max_positions : 0;
}

/* A learned table of rows rows asked for need: the advice names the
 * option that asks (--random-positions, a task's --max-train-len, or a
 * data file, which has no option for it). */
static int grow_refused(const TrainMeta *mt, size_t rows, size_t need, Err *e) {
    char advice[160];
    if (mt->random_positions)
        snprintf(advice, sizeof advice, "give --random-positions %zu or less", rows);
    else if (mt->task[0])
        snprintf(advice, sizeof advice, "train on sentences of at most %zu words "
                 "(--max-train-len %zu)", rows, rows);
    else
        snprintf(advice, sizeof advice, "train on a data file whose sentences have at most "
                 "%zu words", rows);
    return err_set(e, ERR_INPUT, "the model to start from has a learned table of %zu rows "
                   "(positions 0..%zu), and a table cannot grow: this run needs positions "
                   "0..%zu (%s); %s, or train a new model", rows, rows - 1, need - 1,
                   mt->random_positions ? "--random-positions" : "its longest training "
                   "sentence", advice);
}

/* session_create, fine-tuning from (when not NULL): its learned table
 * keeps its rows, as the model's other tensors keep their shapes. */
static int create(Session *s, const TrainMeta *meta, const Config *cfg, const OptConfig *opt,
                  const Model *from, Err *e) {
    session_zero(s);
    s->meta = *meta;
    if (s->meta.batch == 0)
        return err_set(e, ERR_INPUT, "the batch must hold at least one sentence");
    int rc = check_causal(&s->meta, cfg, NULL, e);
    if (!rc)
        rc = session_load_data(s, cfg->pool, e);
    if (!rc) {
        Config c = *cfg;
        c.vocab_size = s->vocab.n;
        c.n_classes = s->labels.n;
        c.per_token = s->train.kind == LABELS_TOKEN;
        /* A learned table gets a row for every position training can
         * teach, and no more: longer sentences are what it cannot encode. */
        c.max_len = s->meta.random_positions ? s->meta.random_positions : s->train.max_len;
        if (s->meta.table_len && s->meta.table_len < c.max_len)
            rc = err_set(e, ERR_INPUT, "--table-len %zu leaves no row for the positions "
                         "training uses, 0..%zu; give %zu or more", s->meta.table_len,
                         c.max_len - 1, c.max_len);
        else if (s->meta.table_len)
            c.max_len = s->meta.table_len;
        size_t rows = table_rows(from);
        if (!rc && rows && c.max_len > rows)
            rc = grow_refused(&s->meta, rows, c.max_len, e);
        else if (rows)
            c.max_len = rows;
        pe_fill_run(&c.pe, s->train.max_len);
        if (!rc)
            rc = check_run(s, &c, NULL, e);
        if (!rc)
            rc = model_create(&s->model, &c, e);
        /* the first draw's N(0,1) scaled: N(0, std^2) (a model to start
         * from brings its own) */
        for (size_t i = 0; !rc && !from && s->meta.embed_std > 0.0f &&
                           i < c.vocab_size * s->model.pe.E; i++)
            s->model.p.tok_emb[i] *= s->meta.embed_std;
    }
    rng_seed(&s->meta.rng, s->meta.seed);
    if (!rc)
        rc = alloc_batches(s, opt, e);
    if (rc)
        session_free(s);
    return rc;
}

int session_create(Session *s, const TrainMeta *meta, const Config *cfg, const OptConfig *opt,
                   Err *e) {
    return create(s, meta, cfg, opt, NULL, e);
}

/* The weights of a (with its words v and classes l) into s's model. The
 * vocabulary and the classes are numbered in order of first appearance
 * in the training data, which other data (other lengths, say) meets in
 * another order: the embedding's rows go word by word and the head's
 * class by class. */
static int copy_weights(Session *s, const Model *a, const Vocab *v, const LabelSet *l,
                        Err *e) {
    Model *m = &s->model;
    /* the embedding's rows and the head's are the words and classes: the
     * first one either side lacks names the cause */
    for (size_t i = 0; i < s->vocab.n || i < v->n; i++) {
        const char *w = i < s->vocab.n ? s->vocab.words[i] : NULL, *u = i < v->n ? v->words[i]
                                                                                  : NULL;
        if (w && vocab_find(v, w) < 0)
            return err_set(e, ERR_INPUT, "this run's training data has the word '%s', which the "
                           "model to start from does not know (it knows the %zu words of its own "
                           "training data): fine-tune on data of the same words, or train a new "
                           "model", w, v->n);
        if (u && vocab_find(&s->vocab, u) < 0)
            return err_set(e, ERR_INPUT, "the model to start from knows the word '%s', which "
                           "this run's training data lacks: its embedding has a row for each of "
                           "its %zu words; fine-tune on data with all of them (more --train-"
                           "examples), or train a new model", u, v->n);
    }
    for (size_t k = 0; k < s->labels.n || k < l->n; k++) {
        const char *c = k < s->labels.n ? s->labels.names[k] : NULL;
        const char *d = k < l->n ? l->names[k] : NULL;
        if ((c && labelset_find(l, c) < 0) || (d && labelset_find(&s->labels, d) < 0))
            return err_set(e, ERR_INPUT, "the model to start from has %zu classes and this run's "
                           "data %zu; the class '%s' is in one only: fine-tune on data of the "
                           "same classes, or train a new model", l->n, s->labels.n,
                           c && labelset_find(l, c) < 0 ? c : d);
    }
    if (m->n_params != a->n_params) /* the words, the classes and the table match */
        return err_set(e, ERR_RUNTIME, "the model to start from has %zu parameters and this "
                       "run's %zu", a->n_params, m->n_params);
    memcpy(m->mem, a->mem, a->n_params * sizeof *m->mem);
    size_t E = m->pe.E, C = m->cfg.d_model;
    for (size_t i = 0; i < s->vocab.n; i++) {
        size_t j = (size_t)vocab_find(v, s->vocab.words[i]); /* found: checked above */
        memcpy(m->p.tok_emb + i * E, a->p.tok_emb + j * E, E * sizeof *m->p.tok_emb);
    }
    for (size_t k = 0; k < s->labels.n; k++) {
        int j = labelset_find(l, s->labels.names[k]);
        memcpy(m->p.head_w + k * C, a->p.head_w + (size_t)j * C, C * sizeof *m->p.head_w);
        m->p.head_b[k] = a->p.head_b[j];
    }
    return 0;
}

int session_create_from(Session *s, const TrainMeta *meta, const Model *from,
                        const Vocab *words, const LabelSet *classes, const Config *cfg,
                        const OptConfig *opt, Err *e) {
    if (meta->embed_std > 0.0f) /* the weights are from's: no first draw to scale */
        return err_set(e, ERR_INPUT, "--embed-std sets the first draw of a new model's "
                       "embeddings, and --init starts from the weights of a trained one: drop "
                       "--embed-std");
    /* the model's options are its own, not the command line's: the
     * advice is about this run's draws (a model fine-tuned without them
     * would be saved with an option nothing read) */
    char text[64];
    const PeOption *unread = train_layer_draws_unread(meta, &cfg->pe, text, sizeof text);
    if (unread)
        return err_set(e, ERR_INPUT, "the model to start from was trained with %s %s, which "
                       "only the distances --random-draw ruoss draws in every layer reach, and "
                       "this run draws none: give --random-positions N --random-draw ruoss, "
                       "as it was trained, or train a new model", unread->flag, text);
    int rc = create(s, meta, cfg, opt, from, e);
    if (!rc && (rc = copy_weights(s, from, words, classes, e)))
        session_free(s);
    return rc;
}

int session_tune(Config *c, const PeConfig *given, Err *e) {
    /* the tunable options as given (those not given taken back), the rest
     * as trained */
    PeConfig pc = c->pe;
    for (size_t i = 0; i < pe_option_count(); i++) {
        const PeOption *o = pe_option_at(i);
        if (!o->tunable)
            continue;
        pe_unset(&pc, o);
        if (pe_given(given, o))
            pe_put(&pc, o, pe_get(given, o));
    }
    pe_fill_run(&pc, c->max_len);
    PePlan plan;
    int rc = pe_plan(&plan, &pc, c->d_model, c->n_heads, c->max_len, e);
    const PeOption *unread = rc ? NULL : pe_unused_option(&plan, &pc);
    if (unread)
        rc = err_set(e, ERR_INPUT, "%s stretches another scheme's positions; this model uses "
                     "%s, which does not read it", unread->flag, c->pe.name);
    if (!rc)
        c->pe = pc;
    return rc;
}

int session_resume(Session *s, const char *path, size_t steps, double max_memory, Err *e) {
    session_zero(s);
    Checkpoint ck;
    int rc = checkpoint_load(&ck, path, e);
    if (rc)
        return rc;
    if (!ck.has_train) {
        checkpoint_free(&ck);
        return err_set(e, ERR_INPUT, "%s holds a model but no training state, so it cannot be "
                       "resumed; train from scratch instead", path);
    }
    s->meta = ck.meta;
    if (steps && steps <= ck.step) {
        rc = err_set(e, ERR_INPUT, "%s is at step %zu already: give --steps more than %zu to "
                     "go on", path, ck.step, ck.step);
        checkpoint_free(&ck);
        return rc;
    }
    if (steps)
        s->meta.steps = steps;
    s->meta.max_memory = max_memory;
    rc = session_load_data(s, ck.model.cfg.pool, e);
    /* The data is made again from the saved options; it must give the
     * vocabulary and classes the model was trained with. */
    if (!rc && (s->vocab.n != ck.vocab.n || s->labels.n != ck.labels.n))
        rc = err_set(e, ERR_INPUT, "the training data no longer matches %s (its vocabulary or "
                     "classes differ); was the data file changed?", path);
    for (size_t i = 0; !rc && i < s->vocab.n; i++)
        if (strcmp(s->vocab.words[i], ck.vocab.words[i]) != 0)
            rc = err_set(e, ERR_INPUT, "the training data no longer matches %s: word %zu is "
                         "'%s', not '%s'", path, i, s->vocab.words[i], ck.vocab.words[i]);
    /* Same count, other names: swapped labels would train the model on a
     * meaning it was not trained with. */
    for (size_t i = 0; !rc && i < s->labels.n; i++)
        if (strcmp(s->labels.names[i], ck.labels.names[i]) != 0)
            rc = err_set(e, ERR_INPUT, "the training data no longer matches %s: class %zu is "
                         "'%s', not '%s' (labels in order of first appearance); was the data "
                         "file changed?", path, i, s->labels.names[i], ck.labels.names[i]);
    /* what a fresh run derives from its data and options, a checkpoint
     * states: both must agree */
    const Config *c = &ck.model.cfg;
    if (!rc && c->per_token != (s->train.kind == LABELS_TOKEN))
        rc = err_set(e, ERR_INPUT, "%s says its model labels %s, and its training data "
                     "labels %s: the file was damaged or forged; train from scratch", path,
                     c->per_token ? "every word" : "the sentence",
                     s->train.kind == LABELS_TOKEN ? "every word" : "the sentence");
    if (!rc && (c->n_classes != s->labels.n || c->vocab_size != s->vocab.n))
        rc = err_set(e, ERR_INPUT, "%s says its model has %zu words and %zu classes, and its "
                     "data gives %zu and %zu: the file was damaged or forged; train from "
                     "scratch", path, c->vocab_size, c->n_classes, s->vocab.n, s->labels.n);
    if (!rc)
        rc = check_causal(&s->meta, c, path, e);
    if (!rc)
        rc = check_run(s, &ck.model.cfg, path, e);
    if (!rc) {
        s->model = ck.model; /* the session takes the model over */
        memset(&ck.model, 0, sizeof ck.model);
        rc = alloc_batches(s, &ck.opt, e);
    }
    if (!rc)
        checkpoint_restore_trainer(&ck, &s->trainer);
    checkpoint_free(&ck);
    if (rc)
        session_free(s);
    return rc;
}

int session_step(Session *s, StepStats *st, Err *e) {
    size_t B = s->meta.batch, T = 0;
    bool by_length = s->meta.batches == BATCHES_BY_LENGTH;
    /* drawn with replacement: the generator's state is the whole position
     * in the data order, which is what a checkpoint saves */
    if (s->meta.train_draw == TRAIN_DRAW_FRESH) {
        int rc = session_fresh_batch(s, &T, e);
        if (rc)
            return rc;
    } else if (by_length) {
        T = s->lengths[rng_below(&s->meta.rng, s->n_lengths)];
        size_t from = s->len_from[T], n = s->len_from[T + 1] - from;
        for (size_t b = 0; b < B; b++)
            s->idx[b] = s->by_len[from + rng_below(&s->meta.rng, n)];
    } else {
        for (size_t b = 0; b < B; b++) {
            s->idx[b] = rng_below(&s->meta.rng, s->train.n);
            size_t len = s->train.start[s->idx[b] + 1] - s->train.start[s->idx[b]];
            T = len > T ? len : T;
        }
    }
    if (s->meta.train_draw != TRAIN_DRAW_FRESH)
        dataset_batch(&s->train, s->idx, B, T, s->ids, s->lens, s->batch_labels);
    size_t N = s->meta.random_positions;
    /* Ruoss et al.'s draw for a scheme that draws in every layer: the
     * layers' draws, and no positions at the input */
    bool by_layer = N && s->meta.random_draw == RANDOM_DRAW_RUOSS &&
                    s->model.pe.scheme->ruoss_draw != PE_DRAW_INPUT;
    if (by_layer)
        encoder_draw_layers(&s->model, &s->acts, &s->meta.rng, T, N);
    else if (N)
        session_draw_batch_positions(s->pos, &s->meta.rng, s->lens, B, T, N, by_length);
    return train_step(&s->trainer, &s->model, &s->acts, s->ids, s->lens,
                      N && !by_layer ? s->pos : NULL, s->batch_labels, B, T, st, e);
}

int session_advance(Session *s, Kept *k, size_t max_steps, StepWindow *w, Err *e) {
    w->evaluated = false;
    for (size_t i = 0; i < max_steps && s->trainer.step < s->meta.steps; i++) {
        StepStats st;
        int rc = session_step(s, &st, e);
        if (rc)
            return rc;
        w->loss_sum += st.loss;
        w->correct += st.correct;
        w->labelled += st.labelled;
        w->steps++;
        w->lr = st.lr;
        for (size_t b = 0; b < s->meta.batch; b++)
            w->tokens += s->lens[b];
        if (s->trainer.step % s->meta.eval_every == 0 || s->trainer.step == s->meta.steps) {
            w->valid = (EvalStats){0};
            if ((rc = evaluate_dataset(&s->model, &s->valid, 64, NULL, &w->valid, e)))
                return rc;
            w->kept_changed = kept_offer(k, s, &w->valid);
            w->evaluated = true;
            return 0;
        }
    }
    return 0;
}

int session_save(const Session *s, const char *path, Err *e) {
    return checkpoint_save(path, &s->model, &s->vocab, &s->labels, &s->trainer, &s->meta, e);
}

int kept_init(Kept *k, const Session *s, bool best, Err *e) {
    memset(k, 0, sizeof *k);
    k->best = best;
    if (best && !(k->params = xmalloc(s->model.n_params * sizeof *k->params, "the kept model",
                                      e)))
        return ERR_RUNTIME;
    return 0;
}

bool kept_offer(Kept *k, const Session *s, const EvalStats *valid) {
    double acc = eval_accuracy(valid);
    double loss = eval_loss(valid);
    if (k->best && k->step && (acc < k->acc || (acc == k->acc && loss >= k->loss)))
        return false;
    if (k->best)
        memcpy(k->params, s->model.mem, s->model.n_params * sizeof *k->params);
    k->step = s->trainer.step;
    k->acc = acc;
    k->loss = loss;
    return true;
}

void kept_restore(const Kept *k, Session *s) {
    if (k->best && k->step)
        memcpy(s->model.mem, k->params, s->model.n_params * sizeof *k->params);
}

void kept_free(Kept *k) {
    free(k->params);
    k->params = NULL;
}
