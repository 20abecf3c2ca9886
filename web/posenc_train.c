/* posenc_train: the page's training section, 5 (web/train.js, run in a Web
 * Worker by web/train_worker.js), built into the same WebAssembly module
 * as web/posenc_web.c.
 *
 * Training is src/run/session.c's, as build/train runs it: the same
 * session, the same steps, the same evaluations every eval_every steps,
 * and the same model kept (Kept: the best validation accuracy). The page
 * calls pw_train_advance again and again, a few steps at a time, so that
 * the worker can report progress and hear Stop between calls.
 *
 * After training, the model is saved as a checkpoint in the module's
 * in-memory file system and loaded back, so that the model the page then
 * shows (attention, lengths, the order demo) is exactly the file it
 * downloads; "Open a checkpoint" puts the user's file there and loads it
 * the same way, through the programs' checkpoint loader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/clock.h"
#include "../src/run/orderdemo.h"
#include "../src/run/session.h"
#include "pw.h"
#include "pw_form.h"

/* The memory a run may take in a tab; the form bounds the model's size
 * and the steps (web/posenc_form.c). */
#define PW_TRAIN_MAX_MEMORY (512.0 * 1024 * 1024)
/* The length view tests up to this many words. */
#define PW_MAX_TEST_LEN 64

/* ---- 4a. Training ---- */

static struct {
    bool live;
    Session s;
    Kept k;
    double start, seconds;        /* when this run started; seconds spent in steps */
    double loss_sum;              /* over the last advance: the chart's points */
    size_t since, correct, labelled;
    double win_loss;              /* since the last evaluation: build/train's progress line */
    size_t win_since, win_correct, win_labelled;
    size_t tokens;                /* tokens trained on, the whole run */
    bool evaluated;               /* the last advance ended on an evaluation */
    double valid_acc, valid_loss; /* the last evaluation's */
    double first_valid;           /* the untrained model's, step 0: where the curve starts
                                   * (NaN without validation data) */
    bool kept_changed;
    /* at the end: the last step's accuracies, then the kept model's */
    double last_valid, last_test, kept_valid, kept_test;
} tr;

static void train_clear(void) {
    if (tr.live) {
        kept_free(&tr.k);
        session_free(&tr.s);
    }
    memset(&tr, 0, sizeof tr);
}

/* build/train with the options of args (the training form's command line,
 * web/posenc_form.c: one argument a line), checked as build/train checks
 * them: the same session build/train creates. */
EXPORT int pw_train_begin(const char *args) {
    Err *e = &pw_err;
    err_clear(e);
    train_clear();
    TrainMeta mt;
    OptConfig opt;
    Config cfg;
    int rc = pw_form_parse(&mt, &opt, &cfg, args, e);
    if (rc)
        return rc;
    mt.max_memory = PW_TRAIN_MAX_MEMORY;
    if ((rc = session_create(&tr.s, &mt, &cfg, &opt, e)))
        return rc;
    tr.live = true;
    /* as build/train: the best model where there is validation data */
    if ((rc = kept_init(&tr.k, &tr.s, mt.keep == KEEP_BEST && tr.s.valid.n > 0, e))) {
        train_clear();
        return rc;
    }
    /* the untrained model on the validation split: the chart's first
     * point, so that the climb shows (an evaluation at step 100 may
     * already be at 1.0) */
    tr.first_valid = NAN;
    if (tr.s.valid.n) {
        EvalStats v;
        if ((rc = evaluate_dataset(&tr.s.model, &tr.s.valid, 64, NULL, &v, e))) {
            train_clear();
            return rc;
        }
        tr.first_valid = eval_accuracy(&v);
    }
    tr.start = clock_seconds();
    return 0;
}

/* The untrained model's validation accuracy (NaN without validation data). */
EXPORT double pw_train_first_valid(void) { return tr.live ? tr.first_valid : NAN; }

/* Runs up to n steps, stopping early after an evaluation (every
 * eval_every steps and at the last step, as build/train evaluates). */
EXPORT int pw_train_advance(int n) {
    Err *e = &pw_err;
    err_clear(e);
    if (!tr.live)
        return err_set(e, ERR_INPUT, "no training run: press Train");
    if (tr.evaluated) { /* the line after an evaluation starts a new window, as in train */
        tr.win_loss = 0.0;
        tr.win_since = tr.win_correct = tr.win_labelled = 0;
    }
    tr.evaluated = false;
    tr.loss_sum = 0.0;
    tr.since = tr.correct = tr.labelled = 0;
    double t0 = clock_seconds();
    /* build/train's loop (session_advance), n steps at a time */
    StepWindow w = {0};
    int rc = session_advance(&tr.s, &tr.k, n > 0 ? (size_t)n : 0, &w, e);
    tr.seconds += clock_seconds() - t0;
    if (rc)
        return rc;
    tr.loss_sum += w.loss_sum;
    tr.correct += w.correct;
    tr.labelled += w.labelled;
    tr.since += w.steps;
    tr.win_loss += w.loss_sum;
    tr.win_correct += w.correct;
    tr.win_labelled += w.labelled;
    tr.win_since += w.steps;
    tr.tokens += w.tokens;
    if (w.evaluated) {
        tr.valid_acc = eval_accuracy(&w.valid);
        tr.valid_loss = eval_loss(&w.valid);
        tr.kept_changed = w.kept_changed;
        tr.evaluated = true;
    }
    return 0;
}

EXPORT int pw_train_step(void) { return tr.live ? (int)tr.s.trainer.step : 0; }
EXPORT int pw_train_steps(void) { return tr.live ? (int)tr.s.meta.steps : 0; }
EXPORT int pw_train_done(void) { return tr.live && tr.s.trainer.step >= tr.s.meta.steps; }
/* The mean loss and accuracy of the steps of the last advance. */
EXPORT double pw_train_loss(void) { return tr.since ? tr.loss_sum / (double)tr.since : 0.0; }
EXPORT double pw_train_accuracy(void) {
    return tr.labelled ? (double)tr.correct / (double)tr.labelled : 0.0;
}
/* The same since the last evaluation, as build/train's progress line. */
EXPORT double pw_train_window_loss(void) {
    return tr.win_since ? tr.win_loss / (double)tr.win_since : 0.0;
}
EXPORT double pw_train_window_accuracy(void) {
    return tr.win_labelled ? (double)tr.win_correct / (double)tr.win_labelled : 0.0;
}
EXPORT int pw_train_evaluated(void) { return tr.evaluated; }
EXPORT double pw_train_valid_accuracy(void) { return tr.valid_acc; }
EXPORT double pw_train_valid_loss(void) { return tr.valid_loss; }
EXPORT int pw_train_kept_changed(void) { return tr.kept_changed; }
EXPORT int pw_train_kept_step(void) { return (int)tr.k.step; }
EXPORT double pw_train_seconds(void) { return tr.seconds; }
EXPORT double pw_train_tokens_per_second(void) {
    return tr.seconds > 0.0 ? (double)tr.tokens / tr.seconds : 0.0;
}
EXPORT int pw_train_parameters(void) { return tr.live ? (int)tr.s.model.n_params : 0; }
EXPORT int pw_train_examples(void) { return tr.live ? (int)tr.s.train.n : 0; }

/* What build/train prints first: the task, scheme, model and data. */
EXPORT const char *pw_train_describe(void) {
    static char line[512];
    line[0] = '\0';
    if (!tr.live)
        return line;
    const Config *c = &tr.s.model.cfg;
    snprintf(line, sizeof line, "%s, %s (%s), d_model %zu, %zu heads, %zu layers, d_ff %zu, "
             "%s-norm, %zu parameters; %zu training, %zu validation examples; batch %zu",
             tr.s.meta.task, c->pe.name, pe_meets(&tr.s.model.pe), c->d_model, c->n_heads,
             c->n_layers, c->d_ff, c->norm == NORM_PRE ? "pre" : "post", tr.s.model.n_params,
             tr.s.train.n, tr.s.valid.n, tr.s.meta.batch);
    return line;
}

static int accuracies(const Session *s, double *valid, double *test, Err *e) {
    EvalStats v, t;
    int rc = evaluate_dataset(&s->model, &s->valid, 64, NULL, &v, e);
    if (!rc)
        rc = evaluate_dataset(&s->model, &s->test, 64, NULL, &t, e);
    if (!rc) {
        *valid = eval_accuracy_all(&v);
        *test = eval_accuracy_all(&t);
    }
    return rc;
}

static int model_open_file(const char *path, Err *e);

/* The end of a run, stopped or complete, as build/train ends it: the last
 * step's accuracies, the kept model put back, its accuracies; then the
 * model saved to path (the in-memory file the page downloads) and opened
 * for the views below. */
EXPORT int pw_train_finish(const char *path) {
    Err *e = &pw_err;
    err_clear(e);
    if (!tr.live)
        return err_set(e, ERR_INPUT, "no training run: press Train");
    if (tr.s.trainer.step == 0)
        return err_set(e, ERR_INPUT, "the run was stopped before its first step: nothing to "
                       "keep");
    int rc = accuracies(&tr.s, &tr.last_valid, &tr.last_test, e);
    if (rc)
        return rc;
    if (!tr.k.step) /* stopped before the first evaluation: the last step is kept */
        tr.k.step = tr.s.trainer.step;
    if (tr.k.step != tr.s.trainer.step)
        kept_restore(&tr.k, &tr.s);
    if ((rc = accuracies(&tr.s, &tr.kept_valid, &tr.kept_test, e)) ||
        (rc = session_save(&tr.s, path, e)))
        return rc;
    return model_open_file(path, e);
}

EXPORT double pw_train_last_valid(void) { return tr.last_valid; }
EXPORT double pw_train_last_test(void) { return tr.last_test; }
EXPORT double pw_train_kept_valid(void) { return tr.kept_valid; }
EXPORT double pw_train_kept_test(void) { return tr.kept_test; }
EXPORT void pw_train_reset(void) { train_clear(); }

/* ---- 4b. A model: the one trained, or a checkpoint opened ---- */

static struct {
    bool live;
    Checkpoint ck;
    char about[512];
    /* attention for one sentence */
    size_t n;         /* words */
    Words words;
    float *att;       /* (L,NH,n,n) */
    int *pred;        /* (n) per token, or (1) */
    size_t unknown;
    /* accuracy per length */
    size_t max_len, train_max;
    EvalStats *per;   /* (max_len + 1) */
    EvalStats total;
    /* the order demo */
    OrderPair pair;
    OrderResult order;
    int order_pred[2]; /* sentence tasks: the class of each sentence; else -1 */
} md;

static void attention_clear(void) {
    words_free(&md.words);
    free(md.att);
    free(md.pred);
    md.att = NULL;
    md.pred = NULL;
    md.n = md.unknown = 0;
}

static void model_clear(void) {
    attention_clear();
    free(md.per);
    order_pair_free(&md.pair);
    if (md.live)
        checkpoint_free(&md.ck);
    memset(&md, 0, sizeof md);
}

static int model_open_file(const char *path, Err *e) {
    model_clear();
    int rc = checkpoint_load(&md.ck, path, e);
    if (rc)
        return rc;
    md.live = true;
    const Checkpoint *ck = &md.ck;
    const Config *c = &ck->model.cfg;
    char trained[128] = "";
    if (ck->has_train)
        snprintf(trained, sizeof trained, "; trained on %s for %zu steps",
                 ck->meta.task[0] ? ck->meta.task : "a data file", ck->step);
    snprintf(md.about, sizeof md.about, "%s (%s), d_model %zu, %zu heads, %zu layers, d_ff "
             "%zu, %s-norm, %zu words, %zu classes%s", c->pe.name, pe_meets(&ck->model.pe),
             c->d_model, c->n_heads, c->n_layers, c->d_ff, c->norm == NORM_PRE ? "pre" : "post",
             ck->vocab.n, ck->labels.n, trained);
    return 0;
}

/* Opens the checkpoint at path (a file the page wrote into the module's
 * file system): the loader's message for a bad one. */
EXPORT int pw_model_open(const char *path) {
    err_clear(&pw_err);
    return model_open_file(path, &pw_err);
}

EXPORT int pw_model_live(void) { return md.live; }
EXPORT const char *pw_model_about(void) { return md.about; }
EXPORT const char *pw_model_task(void) {
    return md.live && md.ck.has_train ? md.ck.meta.task : "";
}
EXPORT int pw_model_layers(void) { return md.live ? (int)md.ck.model.cfg.n_layers : 0; }
EXPORT int pw_model_heads(void) { return md.live ? (int)md.ck.model.cfg.n_heads : 0; }
EXPORT int pw_model_per_token(void) { return md.live && md.ck.model.cfg.per_token; }

/* The class the model gives to slot 0 of a row of K logits. */
static int argmax(const float *logits, size_t K) {
    size_t best = 0;
    for (size_t k = 1; k < K; k++)
        if (logits[k] > logits[best])
            best = k;
    return (int)best;
}

/* Runs the model on one sentence and keeps every layer's and head's
 * attention weights and the model's answer. */
EXPORT int pw_model_attention(const char *sentence) {
    Err *e = &pw_err;
    err_clear(e);
    attention_clear();
    if (!md.live)
        return err_set(e, ERR_INPUT, "no model: train one or open a checkpoint");
    const Model *m = &md.ck.model;
    /* a model that pools by [CLS] reads it first: the map shows it */
    size_t lead = config_lead_tokens(&m->cfg);
    char *text = NULL;
    if (lead && !(sentence = text = data_with_cls(sentence, e)))
        return ERR_RUNTIME;
    int rc = words_split(&md.words, sentence, e);
    free(text);
    if (rc)
        return rc;
    size_t n = md.words.n, limit = model_max_positions(m);
    if (n <= lead)
        return err_set(e, ERR_INPUT, "type a sentence: the box is empty");
    /* the words of a data file's rule, as on the command line */
    if ((rc = data_check_words(&md.words, lead, "the sentence", e)))
        return rc;
    if (n > ORDER_MAX_WORDS || (limit && n > limit))
        return err_set(e, ERR_INPUT, "the sentence has %zu words; this model reads at most %zu",
                       n - lead, (limit && limit < ORDER_MAX_WORDS ? limit
                                                               : (size_t)ORDER_MAX_WORDS) - lead);
    const Config *c = &m->cfg;
    size_t L = c->n_layers, NH = c->n_heads;
    int *ids = malloc(n * sizeof *ids);
    md.att = malloc(L * NH * n * n * sizeof *md.att);
    md.pred = malloc(n * sizeof *md.pred);
    if (!ids || !md.att || !md.pred) {
        free(ids);
        attention_clear();
        return err_set(e, ERR_RUNTIME, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        int id = vocab_find(&md.ck.vocab, md.words.w[i]);
        md.unknown += id < 0;
        ids[i] = id < 0 ? VOCAB_UNK : id;
    }
    Acts a;
    if ((rc = acts_create(&a, m, 1, n, e)) || (rc = encoder_forward(m, &a, ids, &n, 1, n, e))) {
        free(ids);
        attention_clear();
        return rc;
    }
    for (size_t l = 0; l < L; l++)
        memcpy(md.att + l * NH * n * n, a.layer[l].att, NH * n * n * sizeof *md.att);
    size_t K = c->n_classes;
    for (size_t i = 0; i < (c->per_token ? n : 1); i++)
        md.pred[i] = a.logits ? argmax(a.logits + i * K, K) : -1;
    acts_free(&a);
    free(ids);
    md.n = n;
    return 0;
}

EXPORT int pw_attention_words(void) { return (int)md.n; }
EXPORT const char *pw_attention_word(int i) {
    return i >= 0 && (size_t)i < md.n ? md.words.w[i] : "";
}
EXPORT int pw_attention_unknown(void) { return (int)md.unknown; }
EXPORT const float *pw_attention_weights(void) { return md.att; }
/* The model's answer: its class for the sentence (i = 0) or for word i;
 * "" for a [CLS] before the words, which no label is for. */
EXPORT const char *pw_attention_answer(int i) {
    const Config *c = &md.ck.model.cfg;
    size_t slots = c->per_token ? md.n : (md.n ? 1 : 0);
    if (i < 0 || (size_t)i >= slots || md.pred[i] < 0 ||
        (c->per_token && (size_t)i < config_lead_tokens(c)))
        return "";
    return md.ck.labels.names[md.pred[i]];
}

/* evaluate --task TASK --max-len max_len: accuracy per length on the
 * task's test split with lengths up to max_len, those past the training
 * lengths included. */
EXPORT int pw_model_lengths(const char *max_len) {
    Err *e = &pw_err;
    err_clear(e);
    free(md.per);
    md.per = NULL;
    md.max_len = 0;
    if (!md.live)
        return err_set(e, ERR_INPUT, "no model: train one or open a checkpoint");
    const Checkpoint *ck = &md.ck;
    if (!ck->has_train || !ck->meta.task[0])
        return err_set(e, ERR_INPUT, "this model was trained on a data file, not on a task: "
                       "its lengths are the file's (build/evaluate --data FILE)");
    if (strcmp(ck->meta.task, "agent") == 0)
        return err_set(e, ERR_INPUT, "agent's sentences all have 4 or 5 words: there are no "
                       "longer ones to test; train a sequence task (reverse, sort, ...)");
    TaskOptions over = {0}, trained;
    int rc;
    if ((rc = parse_size(&over.max_len, "--max-len", max_len, 1, PW_MAX_TEST_LEN, e)) ||
        (rc = task_options_resolve(&trained, &ck->meta.task_opt, ck->meta.task, e)))
        return rc;
    if (over.max_len < trained.min_len)
        return err_set(e, ERR_INPUT, "--max-len %zu is below the task's shortest sentence (%zu)",
                       over.max_len, trained.min_len);
    Dataset d;
    if ((rc = session_eval_data(&d, ck, ck->meta.task, NULL, &over, "test", NULL, e)))
        return rc;
    md.per = calloc(d.max_len + 1, sizeof *md.per);
    if (!md.per) {
        dataset_free(&d);
        return err_set(e, ERR_RUNTIME, "out of memory");
    }
    rc = evaluate_dataset(&ck->model, &d, 64, md.per, &md.total, e);
    md.max_len = d.max_len;
    md.train_max = trained.max_train_len;
    dataset_free(&d);
    return rc;
}

EXPORT int pw_lengths_max(void) { return (int)md.max_len; }
EXPORT int pw_lengths_trained(void) { return (int)md.train_max; }
EXPORT int pw_lengths_examples(int len) {
    return md.per && len >= 0 && (size_t)len <= md.max_len ? (int)md.per[len].examples : 0;
}
/* -1 for a length the model cannot encode (past a learned table). */
EXPORT double pw_lengths_accuracy(int len) {
    if (!md.per || len < 0 || (size_t)len > md.max_len || !md.per[len].examples)
        return 0.0;
    return md.per[len].skipped ? -1.0 : eval_accuracy(&md.per[len]);
}
EXPORT double pw_lengths_total(void) { return eval_accuracy_all(&md.total); }

/* demo_order on this model: the two sentences' output rows and pooled
 * vectors compared, and, for a sentence task, the class given to each. */
EXPORT int pw_model_order(const char *s1, const char *s2) {
    Err *e = &pw_err;
    err_clear(e);
    order_pair_free(&md.pair);
    if (!md.live)
        return err_set(e, ERR_INPUT, "no model: train one or open a checkpoint");
    const Model *m = &md.ck.model;
    int rc = order_pair_init(&md.pair, s1, s2, e);
    if (!rc && m->cfg.pool == POOL_CLS && (rc = order_pair_prepend(&md.pair, DATA_CLS, e)))
        order_pair_free(&md.pair);
    if (rc)
        return rc;
    size_t limit = model_max_positions(m), lead = config_lead_tokens(&m->cfg);
    if (limit && md.pair.a.n > limit)
        return err_set(e, ERR_INPUT, "the sentence has %zu words; this model reads at most %zu",
                       md.pair.a.n - lead, limit - lead);
    Acts a;
    if ((rc = order_run(&md.order, &a, m, &md.ck.vocab, &md.pair.a, &md.pair.b, md.pair.perm,
                        e)))
        return rc;
    size_t K = m->cfg.n_classes;
    for (int i = 0; i < 2; i++)
        md.order_pred[i] = a.logits && !m->cfg.per_token ? argmax(a.logits + i * K, K) : -1;
    acts_free(&a);
    return 0;
}

EXPORT double pw_model_order_max_diff(void) { return md.order.max_diff; }
EXPORT double pw_model_order_cosine(void) { return md.order.cos; }
EXPORT const char *pw_model_order_verdict(void) { return order_verdict(md.order.max_diff); }
EXPORT const char *pw_model_order_answer(int i) {
    return i >= 0 && i < 2 && md.order_pred[i] >= 0 ? md.ck.labels.names[md.order_pred[i]] : "";
}

/* The tasks, "agent, direction, ...", and one's line, for the selector. */
EXPORT const char *pw_task_names(void) { return task_names(); }
EXPORT const char *pw_task_about(const char *name) {
    const char *a = task_about(name);
    return a ? a : "";
}
