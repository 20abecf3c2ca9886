/* demo_order: self-attention without position is order-blind.
 *
 * Runs an untrained encoder on a sentence and on a reordering of its words,
 * once per position scheme, and measures whether the outputs are the same
 * rows, permuted (order-blind) or not (order-sensitive). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/encoder.h"
#include "../src/run/checkpoint.h"
#include "../src/run/orderdemo.h"
#include "../src/text/data.h"
#include "../src/text/order.h"
#include "../src/text/vocab.h"
#include "cli.h"

#define SHOW_CHANNELS 3

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
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
    "  --pe LIST|all         schemes to run, comma-separated (listed below), or all;\n"
    "                        default: the seven the tutorial opens with, none,\n"
    "                        integer, normalized, sinusoidal, learned, rope, alibi\n"
    "  --model MODEL         a model trained by train (agent task, say): its scheme\n"
    "                        alone, with what it predicts for each sentence\n"
    "  --csv                 print only scheme,max_abs_diff,pooled_cosine rows\n"
    CLI_MEMORY_HELP
    "  --help                show this help\n"
    "\n", CLI_MODEL_HELP, "\n", CLI_SCHEMES,
    "\n"
    "Defaults here: --d-model 16 --heads 2 --layers 2 --d-ff 64 --norm post.\n"
    "\n"
    "Output: for each scheme, the first channels of every word's output row, the\n"
    "largest |difference| between a word's row in PERMUTED and the same word's row\n"
    "in SENTENCE (max_abs_diff), the cosine of the two pooled sentence vectors, and\n"
    "a verdict: order-blind when max_abs_diff <= 1e-4.\n"
    "\n"
    "Exit status: 0 on success, 2 for bad options or sentences, 1 on failure.\n",
    NULL};

/* The running and the measuring are the library's (src/run/orderdemo.h),
 * shared with the web page; this program prints. */
typedef OrderResult Result;

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

/* text in lines of at most 88 columns, indented by two */
static void print_wrapped(const char *text) {
    const char *p = text;
    while (*p) {
        size_t n = strlen(p), cut = n;
        if (n > 86) {
            cut = 86;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = 86;
        }
        printf("  %.*s\n", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

static void print_note(const Model *m, const Result *r) {
    const PePlan *p = &m->pe;
    size_t C = m->cfg.d_model;
    if (p->scheme->note)
        print_wrapped(p->scheme->note);
    if (p->w == 0)
        return;
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
    Acts acts;
    Result r;
    if (order_run(&r, &acts, m, v, a, b, perm, &e))
        cli_fail(cli, &e);
    const float *ya = acts.hidden, *yb = acts.hidden + n * C;
    if (!csv) {
        printf("\n== %s (%s): %s ==\n", m->cfg.pe.name,
               pe_in_attention(m->pe.scheme) ? "inside attention"
               : m->pe.w == 0                ? "nothing added"
               : m->pe.combine == COMBINE_CONCAT ? "concatenated" : "added",
               m->pe.scheme->about);
        print_rows(a, ya, b, yb, perm, C);
        if (!labels)
            print_note(m, &r);
        printf("  largest |difference| of aligned rows %.2e, pooled cosine %.6f -> %s\n",
               r.max_diff, r.cos, order_verdict(r.max_diff));
        if (labels && m->cfg.n_classes)
            for (size_t s = 0; s < 2; s++)
                print_prediction(m, &acts, labels, s, n);
    }
    acts_free(&acts);
    return r;
}

static Result run_scheme(const Cli *cli, const Config *base, const char *scheme,
                         const Vocab *v, const Words *a, const Words *b, const size_t *perm,
                         bool csv) {
    Err e;
    Config c = *base;
    order_config_scheme(&c, scheme);
    Model m;
    if (model_create(&m, &c, &e))
        cli_fail(cli, &e);
    Result r = run_model(cli, &m, NULL, v, a, b, perm, csv);
    model_free(&m);
    return r;
}

/* Splits the sentences (PERMUTED defaults to SENTENCE backwards) and
 * lines their words up; every problem is a usage error. */
static void read_sentences(const Cli *cli, const char *const sent[2], size_t n_sent,
                           OrderPair *pair) {
    Err e;
    if (order_pair_init(pair, sent[0], n_sent == 1 ? NULL : sent[1], &e)) {
        if (e.code == ERR_INPUT)
            cli_error(cli, &e);
        cli_fail(cli, &e);
    }
}

/* A model that pools by [CLS] reads it before both sentences. */
static void add_cls(const Cli *cli, OrderPair *pair, Pooling pool) {
    Err e;
    if (pool == POOL_CLS && order_pair_prepend(pair, DATA_CLS, &e))
        cli_fail(cli, &e);
}

/* What `what` says of the two sentences of n tokens, for the guard. */
static const char *two_sentences(const Config *c, size_t n, char *buf, size_t cap) {
    char words[96];
    snprintf(buf, cap, "the model and the activations of two sentences of %s",
             config_words(c, n, words, sizeof words));
    return buf;
}

/* Checks every scheme's shape and memory before any runs, so that a bad
 * option fails with nothing printed; the schemes run one at a time, so
 * the largest is what must fit. */
static void check_schemes(const Cli *cli, const Config *cfg, const char *const *names,
                          size_t n_names, size_t n, double max_memory) {
    Err e;
    double most = 0.0;
    for (size_t i = 0; i < n_names; i++) {
        if (order_check_scheme(cfg, names[i], n, &e))
            cli_error(cli, &e);
        Config c = *cfg;
        order_config_scheme(&c, names[i]);
        double need = config_memory(&c, 2, n);
        most = need > most ? need : most;
    }
    char what[192];
    cli_check_memory(cli, most, max_memory, two_sentences(cfg, n, what, sizeof what),
                     CLI_SMALLER_MODEL);
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

static void print_summary(const char *const *names, const Result *res, size_t n, bool causal) {
    printf("\nscheme       max_abs_diff  pooled_cosine  verdict\n");
    for (size_t i = 0; i < n; i++)
        printf("%-12s %12.2e  %13.6f  %s\n", names[i], res[i].max_diff, res[i].cos,
               order_verdict(res[i].max_diff));
    printf("\nmax_abs_diff: largest |difference| between a word's output row in sentence 2\n"
           "and the same word's row in sentence 1; order-blind when <= %.0e.\n", ORDER_BLIND_TOL);
    if (causal)
        printf("causal: word i attends to words 0..i only, so its row depends on which words\n"
               "came before it; the mask itself carries order, and even none is not\n"
               "order-blind (Haviv et al. 2022).\n");
}

/* --model: the trained model's scheme only, with its predictions. */
static void run_trained(const Cli *cli, const char *path, OrderPair *pair, bool csv,
                        double max_memory) {
    Checkpoint ck;
    Err e;
    if (checkpoint_load(&ck, path, &e))
        cli_fail(cli, &e);
    add_cls(cli, pair, ck.model.cfg.pool);
    const Words *a = &pair->a, *b = &pair->b;
    const size_t *perm = pair->perm;
    char words[96], what[192];
    if (a->n > model_max_positions(&ck.model))
        cli_usage_error(cli, "the sentence has %s but the model's learned table has rows "
                        "for %zu positions; use a shorter sentence",
                        config_words(&ck.model.cfg, a->n, words, sizeof words),
                        model_max_positions(&ck.model));
    cli_check_memory(cli, config_memory(&ck.model.cfg, 2, a->n), max_memory,
                     two_sentences(&ck.model.cfg, a->n, what, sizeof what),
                     "use a shorter sentence");
    for (size_t i = 0; i < a->n; i++)
        if (vocab_find(&ck.vocab, a->w[i]) < 0)
            fprintf(stderr, "warning: '%s' is not in the model's vocabulary; it becomes <unk>\n",
                    a->w[i]);
    /* run once before printing anything: a model whose outputs are not
     * finite is refused with nothing half printed */
    Acts acts;
    Result first;
    if (order_run(&first, &acts, &ck.model, &ck.vocab, a, b, perm, &e))
        cli_fail(cli, &e);
    acts_free(&acts);
    if (csv)
        printf("scheme,max_abs_diff,pooled_cosine\n");
    else
        print_header(a, b, &ck.model.cfg, path, &ck);
    Result r = run_model(cli, &ck.model, &ck.labels, &ck.vocab, a, b, perm, csv);
    if (csv)
        printf("%s,%.6e,%.9f\n", ck.model.cfg.pe.name, r.max_diff, r.cos);
    else
        print_summary((const char *const[]){ck.model.cfg.pe.name}, &r, 1, ck.model.cfg.causal);
    checkpoint_free(&ck);
}

/* Each scheme of names on a fresh model of cfg: the pair's rows, a line
 * (or a CSV row) each, then the summary. */
static void run_untrained(const Cli *cli, Config *cfg, const char **names, size_t n_names,
                          const char *first, OrderPair *pair, bool csv, bool defaults,
                          double max_memory) {
    add_cls(cli, pair, cfg->pool);
    const Words *a = &pair->a, *b = &pair->b;
    const size_t *perm = pair->perm;
    Vocab v;
    Err e;
    if (vocab_init(&v, &e) || vocab_add_text(&v, first, &e) ||
        (cfg->pool == POOL_CLS && vocab_add(&v, DATA_CLS, NULL, &e)))
        cli_fail(cli, &e);
    cfg->vocab_size = v.n;
    check_schemes(cli, cfg, names, n_names, a->n, max_memory);
    if (csv)
        printf("scheme,max_abs_diff,pooled_cosine\n");
    else
        print_header(a, b, cfg, NULL, NULL);
    Result *res = cli_alloc(cli, n_names, sizeof *res, "the results");
    for (size_t i = 0; i < n_names; i++) {
        res[i] = run_scheme(cli, cfg, names[i], &v, a, b, perm, csv);
        if (csv)
            printf("%s,%.6e,%.9f\n", names[i], res[i].max_diff, res[i].cos);
    }
    if (!csv)
        print_summary(names, res, n_names, cfg->causal);
    if (!csv && defaults) /* the way to the rest, where a newcomer looks last */
        printf("\nThese are the %zu schemes the tutorial opens with; --pe all runs all %zu.\n",
               n_names, pe_count());
    free(res);
    vocab_free(&v);
}

/* The schemes run without --pe: the seven the tutorial opens with
 * (demo_default in the registry), in the registry's order, so that the
 * first screen a newcomer sees is one screen; --pe all runs every one. */
static size_t default_schemes(const Cli *cli, const char ***names) {
    const char **out = cli_alloc(cli, pe_count(), sizeof *out, "the list of schemes");
    size_t n = 0;
    for (size_t i = 0; i < pe_count(); i++)
        if (pe_at(i)->demo_default)
            out[n++] = pe_at(i)->name;
    *names = out;
    return n;
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "demo_order");
    Config cfg;
    order_config_default(&cfg);
    const char *pe = NULL, *sent[2] = {"Rohan killed the lion", "lion killed the Rohan"};
    const char *model = NULL, *shaping = NULL;
    size_t n_sent = 0;
    bool csv = false;
    double max_memory = cli_default_memory();
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_flag(&cli, "--csv")) {
            csv = true;
        } else if (cli_memory_option(&cli, &max_memory)) {
            /* the guard's limit, checked before any model is made */
        } else if (cli_opt(&cli, "--model")) {
            model = cli.val;
        } else if (cli_opt(&cli, "--pe")) {
            pe = cli.val;
            shaping = arg;
        } else if (cli_model_option(&cli, &cfg)) {
            shaping = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_unknown(&cli, arg);
        } else if (n_sent < 2) {
            sent[n_sent++] = arg;
        } else {
            cli_usage_error(&cli, "too many sentences: give SENTENCE and PERMUTED, each in quotes");
        }
    }
    const char **names;
    size_t n_names = pe ? cli_scheme_list(&cli, "--pe", pe, &names)
                        : default_schemes(&cli, &names);
    if (model && shaping)
        cli_usage_error(&cli, "with --model the scheme and shape come from the model; drop %s",
                        shaping);
    if (!model) { /* an option no chosen scheme reads would do nothing */
        cli_refuse_unread(&cli, &cfg.pe, names, n_names);
        cli_refuse_layer_draws(&cli, &cfg.pe);
    }
    OrderPair pair;
    read_sentences(&cli, sent, n_sent, &pair);
    if (model)
        run_trained(&cli, model, &pair, csv, max_memory);
    else
        run_untrained(&cli, &cfg, names, n_names, sent[0], &pair, csv, !pe, max_memory);
    free(names);
    order_pair_free(&pair);
    return 0;
}
