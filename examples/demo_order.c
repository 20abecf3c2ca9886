/* demo_order: self-attention without position is order-blind.
 *
 * Runs an untrained encoder on a sentence and on a reordering of its words,
 * once per position scheme, and measures whether the outputs are the same
 * rows, permuted (order-blind) or not (order-sensitive). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/checkpoint.h"
#include "../src/model/encoder.h"
#include "../src/model/order.h"
#include "../src/model/vocab.h"
#include "cli.h"

/* Longer sentences would only make the attention maps (T x T per head)
 * large; the symmetry shows at any length. */
#define MAX_WORDS 1024

#define SHOW_CHANNELS 3

static const char *const USAGE =
    "Usage: demo_order [options] [SENTENCE [PERMUTED]]\n"
    "\n"
    "Runs an untrained encoder on SENTENCE and on PERMUTED, the same words in\n"
    "another order, with each positional-encoding scheme, and shows whether the\n"
    "model can tell them apart. Without position it cannot: each word's output\n"
    "row is the same in both sentences, only moved, and the mean-pooled sentence\n"
    "vectors are equal. The symmetry holds for any weights, so none are trained.\n"
    "\n"
    "SENTENCE defaults to \"Rohan killed the lion\"; PERMUTED to \"lion killed the\n"
    "Rohan\", or to SENTENCE read backwards when only SENTENCE is given. Repeated\n"
    "words are matched in order of occurrence.\n"
    "\n"
    "Options:\n"
    "  --pe SCHEME|all       scheme to run (default all): none, integer, normalized,\n"
    "                        sine, sincos, sinusoidal, learned\n"
    "  --model MODEL         a model trained by train (agent task, say): its scheme\n"
    "                        alone, with what it predicts for each sentence\n"
    "  --csv                 print only scheme,max_abs_diff,pooled_cosine rows\n"
    "  --help                show this help\n"
    "\n" CLI_MODEL_HELP
    "\n"
    "Defaults here: --d-model 16 --heads 2 --layers 2 --d-ff 64 --norm post.\n"
    "\n"
    "Output: for each scheme, the first channels of every word's output row, the\n"
    "largest |difference| between a word's row in PERMUTED and the same word's row\n"
    "in SENTENCE (max_abs_diff), the cosine of the two pooled sentence vectors, and\n"
    "a verdict: order-blind when max_abs_diff <= 1e-4.\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options or sentences, 1 on failure.\n";

typedef struct {
    double max_diff;
    double cos;
} Result;

/* One line per position: the word of sentence 1 and its first channels,
 * the word of sentence 2 and its first channels, and how far sentence 2's
 * row is from the same word's row in sentence 1. */
static void print_rows(const Words *a, const float *ya, const Words *b, const float *yb,
                       const size_t *perm, size_t C) {
    size_t show = C < SHOW_CHANNELS ? C : SHOW_CHANNELS;
    int width = 4;
    for (size_t i = 0; i < a->n; i++)
        if ((int)strlen(a->w[i]) > width)
            width = (int)strlen(a->w[i]) > 12 ? 12 : (int)strlen(a->w[i]);
    int cell = 4 + width + 2 + 7 * (int)show + 2;
    printf("  %-*s%-*s%s\n", cell, "sentence 1", cell, "sentence 2",
           "same word in sentence 1");
    for (size_t i = 0; i < a->n; i++) {
        for (int s = 0; s < 2; s++) {
            const Words *w = s ? b : a;
            const float *row = (s ? yb : ya) + i * C;
            printf("  %2zu %-*.*s [", i + 1, width, width, w->w[i]);
            for (size_t c = 0; c < show; c++)
                printf("%7.3f", row[c]);
            printf("]");
        }
        size_t j = perm[i];
        printf("  word %zu, |diff| %.1e\n", j + 1, max_aligned_diff(ya, yb + i * C, &j, 1, C));
    }
}

static void print_note(const Model *m, const Result *r) {
    const PePlan *p = &m->pe;
    size_t C = m->cfg.d_model;
    if (p->w == 0)
        return;
    if (p->rows)
        printf("  an untrained table is small (std 0.02): the rows move a little; training "
               "grows them\n");
    if (p->combine == COMBINE_CONCAT) {
        if (p->w == 1)
            printf("  concat: the embedding fills channels 0..%zu, the code channel %zu\n",
                   p->E - 1, p->E);
        else
            printf("  concat: the embedding fills channels 0..%zu, the code channels %zu..%zu\n",
                   p->E - 1, p->E, C - 1);
    } else if (p->w == 1) {
        printf("  add: one number per word, added to all %zu channels (a constant shift)\n", C);
        if (r->max_diff <= ORDER_BLIND_TOL)
            printf("  LayerNorm subtracts each row's mean before attention reads it "
                   "(pre-norm), so the shift, and the order with it, is erased\n");
        else if (m->cfg.norm == NORM_POST)
            printf("  post-norm: attention reads the shifted rows before any LayerNorm, so "
                   "order leaks in through q and k; --norm pre lets LayerNorm erase it\n");
    } else if (p->w < C) {
        printf("  add: the %zu code channels repeat across the %zu channels (channel c gets "
               "code channel c mod %zu)\n", p->w, C, p->w);
    }
}

/* What a trained model predicts for sentence b (0 or 1) of the batch: the
 * class, and its probability; per-token heads give one label per word. */
static void print_prediction(const Model *m, const Acts *acts, const LabelSet *labels,
                             size_t b, size_t n) {
    size_t K = m->cfg.n_classes, rows = m->cfg.per_token ? n : 1;
    printf("  prediction for sentence %zu:", b + 1);
    for (size_t r = 0; r < rows; r++) {
        const float *z = acts->logits + (m->cfg.per_token ? b * n + r : b) * K;
        size_t arg = 0;
        double sum = 0.0;
        for (size_t k = 1; k < K; k++)
            if (z[k] > z[arg])
                arg = k;
        for (size_t k = 0; k < K; k++)
            sum += exp((double)z[k] - z[arg]);
        if (m->cfg.per_token)
            printf(" %s", labels->names[arg]);
        else
            printf(" %s (probability %.3f)", labels->names[arg], 1.0 / sum);
    }
    printf("\n");
}

/* Runs m on both sentences and reports; labels is NULL for a fresh model. */
static Result run_model(const Cli *cli, const Model *m, const LabelSet *labels,
                        const Vocab *v, const Words *a, const Words *b, const size_t *perm,
                        bool csv) {
    Err e;
    size_t n = a->n, C = m->cfg.d_model;
    int *ids = malloc(2 * n * sizeof *ids);
    size_t lens[2] = {n, n};
    if (!ids) {
        err_set(&e, ERR_RUNTIME, "out of memory");
        cli_fail(cli, &e);
    }
    for (size_t i = 0; i < n; i++) {
        int ia = vocab_find(v, a->w[i]), ib = vocab_find(v, b->w[i]);
        ids[i] = ia < 0 ? VOCAB_UNK : ia;
        ids[n + i] = ib < 0 ? VOCAB_UNK : ib;
    }
    Acts acts;
    if (acts_create(&acts, m, 2, n, &e) || encoder_forward(m, &acts, ids, lens, 2, n, &e))
        cli_fail(cli, &e);
    const float *ya = acts.hidden, *yb = acts.hidden + n * C;
    Result r = {
        .max_diff = max_aligned_diff(ya, yb, perm, n, C),
        .cos = cosine(acts.pooled, acts.pooled + C, C),
    };
    if (!csv) {
        printf("\n== %s (%s): %s ==\n", m->cfg.pe.name,
               m->pe.w == 0 ? "nothing added"
               : m->pe.combine == COMBINE_CONCAT ? "concatenated" : "added",
               m->pe.scheme->about);
        print_rows(a, ya, b, yb, perm, C);
        if (!labels)
            print_note(m, &r);
        printf("  largest |difference| of aligned rows %.2e, pooled cosine %.6f -> %s\n",
               r.max_diff, r.cos, r.max_diff <= ORDER_BLIND_TOL ? "order-blind" : "order-sensitive");
        if (labels && m->cfg.n_classes)
            for (size_t s = 0; s < 2; s++)
                print_prediction(m, &acts, labels, s, n);
    }
    acts_free(&acts);
    free(ids);
    return r;
}

static Result run_scheme(const Cli *cli, const Config *base, const char *scheme,
                         const Vocab *v, const Words *a, const Words *b, const size_t *perm,
                         bool csv) {
    Err e;
    Config c = *base;
    snprintf(c.pe.name, sizeof c.pe.name, "%s", scheme);
    if (strcmp(scheme, "none") == 0)
        c.pe.combine = COMBINE_DEFAULT;
    Model m;
    if (model_create(&m, &c, &e))
        cli_fail(cli, &e);
    Result r = run_model(cli, &m, NULL, v, a, b, perm, csv);
    model_free(&m);
    return r;
}

/* Splits the sentences (PERMUTED defaults to SENTENCE backwards) and
 * lines their words up; every problem is a usage error. */
static size_t *read_sentences(const Cli *cli, const char *const sent[2], size_t n_sent,
                              Words *a, Words *b) {
    Err e;
    if (words_split(a, sent[0], &e))
        cli_fail(cli, &e);
    if (a->n == 0)
        cli_usage_error(cli, "SENTENCE is empty: give at least two words, in quotes");
    if (a->n > MAX_WORDS)
        cli_usage_error(cli, "SENTENCE has %zu words; the demo takes at most %d", a->n,
                        MAX_WORDS);
    if (n_sent == 1) {
        char *rev = malloc(strlen(sent[0]) + a->n + 1);
        if (!rev)
            exit(1);
        rev[0] = '\0';
        for (size_t i = a->n; i-- > 0;)
            strcat(strcat(rev, a->w[i]), i ? " " : "");
        int rc = words_split(b, rev, &e);
        free(rev);
        if (rc)
            cli_fail(cli, &e);
    } else if (words_split(b, sent[1], &e)) {
        cli_fail(cli, &e);
    }
    size_t *perm = malloc(a->n * sizeof *perm);
    if (!perm)
        exit(1);
    if (align_permutation(perm, a, b, &e))
        cli_usage_error(cli, "PERMUTED is not a reordering of SENTENCE: %s", e.msg);
    return perm;
}

/* Checks every scheme's shape before any runs, so that a bad option fails
 * with nothing printed. */
static void check_schemes(const Cli *cli, const Config *cfg, const char *pe, size_t n) {
    Config probe = *cfg;
    Err e;
    for (size_t i = 0; i < pe_count(); i++) {
        const char *name = pe_at(i)->name;
        if (strcmp(pe, "all") != 0 && strcmp(pe, name) != 0)
            continue;
        snprintf(probe.pe.name, sizeof probe.pe.name, "%s", name);
        PePlan plan;
        if (config_check(&probe, &e) || pe_plan(&plan, &probe.pe, cfg->d_model, cfg->max_len, &e))
            cli_usage_error(cli, "%s", e.msg);
        if (plan.rows && n > plan.rows)
            cli_usage_error(cli, "the sentence has %zu words but the %s table has rows for "
                            "positions 0..%zu only; use --max-len %zu or more, or a shorter "
                            "sentence", n, name, plan.rows - 1, n);
    }
}

static void print_header(const Words *a, const Words *b, const Config *cfg, const char *model,
                         const Checkpoint *ck) {
    printf("The same words in another order:\n");
    for (int s = 0; s < 2; s++) {
        const Words *w = s ? b : a;
        printf("  sentence %d: ", s + 1);
        for (size_t i = 0; i < w->n; i++)
            printf("%s%s", w->w[i], i + 1 < w->n ? " " : "\n");
    }
    printf("%s encoder%s%s: d_model %zu, %zu heads, %zu layers, d_ff %zu, %s-norm, %s, "
           "seed %llu\n", model ? "Trained" : "Untrained", model ? " " : "", model ? model : "",
           cfg->d_model, cfg->n_heads, cfg->n_layers, cfg->d_ff,
           cfg->norm == NORM_PRE ? "pre" : "post", cfg->act == ACT_GELU ? "gelu" : "relu",
           (unsigned long long)cfg->seed);
    if (ck && ck->has_train && ck->meta.task[0])
        printf("It was trained on the %s task.\n", ck->meta.task);
}

static void print_summary(const char *const *names, const Result *res, size_t n) {
    printf("\nscheme       max_abs_diff  pooled_cosine  verdict\n");
    for (size_t i = 0; i < n; i++)
        printf("%-12s %12.2e  %13.6f  %s\n", names[i], res[i].max_diff, res[i].cos,
               res[i].max_diff <= ORDER_BLIND_TOL ? "order-blind" : "order-sensitive");
    printf("\nmax_abs_diff: largest |difference| between a word's output row in sentence 2\n"
           "and the same word's row in sentence 1; order-blind when <= %.0e.\n", ORDER_BLIND_TOL);
}

/* --model: the trained model's scheme only, with its predictions. */
static void run_trained(const Cli *cli, const char *path, const Words *a, const Words *b,
                        const size_t *perm, bool csv) {
    Checkpoint ck;
    Err e;
    if (checkpoint_load(&ck, path, &e))
        cli_fail(cli, &e);
    if (a->n > model_max_positions(&ck.model))
        cli_usage_error(cli, "the sentence has %zu words but the model's learned table has rows "
                        "for %zu positions; use a shorter sentence", a->n,
                        model_max_positions(&ck.model));
    for (size_t i = 0; i < a->n; i++)
        if (vocab_find(&ck.vocab, a->w[i]) < 0)
            fprintf(stderr, "warning: '%s' is not in the model's vocabulary; it becomes <unk>\n",
                    a->w[i]);
    if (csv)
        printf("scheme,max_abs_diff,pooled_cosine\n");
    else
        print_header(a, b, &ck.model.cfg, path, &ck);
    Result r = run_model(cli, &ck.model, &ck.labels, &ck.vocab, a, b, perm, csv);
    if (csv)
        printf("%s,%.6e,%.9f\n", ck.model.cfg.pe.name, r.max_diff, r.cos);
    else
        print_summary((const char *const[]){ck.model.cfg.pe.name}, &r, 1);
    checkpoint_free(&ck);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "demo_order");
    Config cfg;
    config_default(&cfg, 0, "none");
    cfg.d_model = 16;
    cfg.n_heads = 2;
    cfg.d_ff = 64;
    const char *pe = "all", *sent[2] = {"Rohan killed the lion", "lion killed the Rohan"};
    const char *model = NULL, *shaping = NULL;
    size_t n_sent = 0;
    bool csv = false;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_flag(&cli, "--csv")) {
            csv = true;
        } else if (cli_opt(&cli, "--model")) {
            model = cli.val;
        } else if (cli_opt(&cli, "--pe")) {
            pe = cli.val;
            shaping = arg;
        } else if (cli_model_option(&cli, &cfg)) {
            shaping = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_usage_error(&cli, "unknown option '%s'", arg);
        } else if (n_sent < 2) {
            sent[n_sent++] = arg;
        } else {
            cli_usage_error(&cli, "too many sentences: give SENTENCE and PERMUTED, each in quotes");
        }
    }
    if (strcmp(pe, "all") != 0 && !pe_find(pe))
        cli_usage_error(&cli, "unknown scheme '%s' for --pe: choose one of %s, or all", pe,
                        pe_names());
    if (model && shaping)
        cli_usage_error(&cli, "with --model the scheme and shape come from the model; drop %s",
                        shaping);
    Words a, b;
    size_t *perm = read_sentences(&cli, sent, n_sent, &a, &b);
    if (model) {
        run_trained(&cli, model, &a, &b, perm, csv);
    } else {
        Vocab v;
        Err e;
        if (vocab_init(&v, &e) || vocab_add_text(&v, sent[0], &e))
            cli_fail(&cli, &e);
        cfg.vocab_size = v.n;
        check_schemes(&cli, &cfg, pe, a.n);
        if (csv)
            printf("scheme,max_abs_diff,pooled_cosine\n");
        else
            print_header(&a, &b, &cfg, NULL, NULL);
        Result res[16];
        const char *names[16];
        size_t n_res = 0;
        for (size_t i = 0; i < pe_count(); i++) {
            const char *name = pe_at(i)->name;
            if (strcmp(pe, "all") != 0 && strcmp(pe, name) != 0)
                continue;
            names[n_res] = name;
            res[n_res] = run_scheme(&cli, &cfg, name, &v, &a, &b, perm, csv);
            if (csv)
                printf("%s,%.6e,%.9f\n", name, res[n_res].max_diff, res[n_res].cos);
            n_res++;
        }
        if (!csv)
            print_summary(names, res, n_res);
        vocab_free(&v);
    }
    free(perm);
    words_free(&a);
    words_free(&b);
    return 0;
}
