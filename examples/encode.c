/* encode: runs a model on one sentence and prints its hidden states; with
 * --npy it writes them, and every parameter, as NumPy files. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/model/encoder.h"
#include "../src/run/checkpoint.h"
#include "../src/run/export.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: encode [--model MODEL | model options] [--npy DIR] SENTENCE\n"
    "\n"
    "Runs an encoder on SENTENCE and prints each word's output row (the hidden\n"
    "state after the last layer; numbered from 1, as demo_order numbers words,\n"
    "so number t is row t-1 of output.npy) and the sentence vector: the mean of\n"
    "the words' rows, or with --pool cls the row of the [CLS] word put before\n"
    "the words (number 1). The model is one saved by train, or a fresh one\n"
    "built from the options (as in demo_order, with one --pe scheme).\n"
    "\n"
    "A fresh model has a fixed, untrained vocabulary of 4096 rows: a hash of a\n"
    "word's letters picks its row, so a word gets the same row, and the model\n"
    "the same weights, in every run. Two sentences of the same words in another\n"
    "order can then be compared across runs (the mean is the same without\n"
    "position). Two different words may share a row; encode says so.\n"
    "\n"
    "With --npy DIR it also writes NumPy files: DIR/input_ids.npy (1,T) int64,\n"
    "DIR/input.npy (1,T,C) the embedding with its position code, DIR/output.npy\n"
    "(1,T,C), DIR/pooled.npy (1,C), every parameter as DIR/params/NAME.npy under\n"
    "the names of PyTorch's nn.TransformerEncoder state_dict where the layer\n"
    "exists there (layers.0.self_attn.in_proj_weight, ...), DIR/vocab.txt and\n"
    "DIR/config.json. docs/formats.md lists the names; tests/reference/\n"
    "check_export.py loads a DIR into PyTorch and compares.\n"
    "\n"
    "Options:\n"
    "  --model MODEL         a model written by train --out\n"
    "  --pe SCHEME           scheme of a fresh model, one of those below (default\n"
    "                        sinusoidal)\n"
    "  --npy DIR             write the NumPy files into DIR: new, empty, or an earlier\n"
    "                        export, which is replaced whole once the new one is\n"
    "                        complete (a failed export leaves DIR as it was)\n"
    CLI_MEMORY_HELP
    "  --help                show this help\n"
    "\n", CLI_MODEL_HELP, "\n", CLI_SCHEMES,
    "\n"
    "Exit status: 0 on success, 2 for bad options or input, 1 on failure.\n",
    NULL};

/* What the command line asked for. */
typedef struct {
    const char *model, *npy, *sentence;
    const char *shaping; /* the last option that shapes a fresh model, or NULL */
    Config cfg;          /* a fresh model's */
    double max_memory;
} Args;

/* A model and one sentence, ready to run. */
typedef struct {
    Checkpoint ck; /* the model and its vocabulary, loaded or made here */
    Words w;       /* the sentence's words, [CLS] first for a model that pools by it */
    char *text;    /* the sentence with [CLS], or NULL */
    int *ids;      /* (T) */
    size_t T;
} Input;

static void parse(Cli *cli, Args *a) {
    config_default(&a->cfg, 0, "sinusoidal");
    a->max_memory = cli_default_memory();
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_memory_option(cli, &a->max_memory)) {
            /* the guard's limit, checked before the model is made */
        } else if (cli_opt(cli, "--model")) {
            a->model = cli->val;
        } else if (cli_opt(cli, "--npy")) {
            a->npy = cli->val;
        } else if (cli_pe(cli, &a->cfg.pe) || cli_model_option(cli, &a->cfg)) {
            a->shaping = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_unknown(cli, arg);
        } else if (!a->sentence) {
            a->sentence = arg;
        } else {
            cli_usage_error(cli, "give one sentence, in quotes");
        }
    }
    if (!a->sentence)
        cli_usage_error(cli, "give a sentence to encode, in quotes");
    if (a->model && a->shaping)
        cli_usage_error(cli, "with --model the shape comes from the model; drop %s", a->shaping);
    if (!a->model) {
        cli_refuse_unused(cli, &a->cfg);
        cli_refuse_layer_draws(cli, &a->cfg.pe);
    }
}

/* A fresh model of a's options, with the hashed vocabulary: a word's id
 * does not depend on the other words of the sentence. */
static void make_model(const Cli *cli, Args *a, Input *in, const char *what) {
    Err e;
    size_t shared;
    if (vocab_hashed(&in->ck.vocab, &in->w, VOCAB_HASH_ROWS, &shared, &e))
        cli_error(cli, &e);
    if (shared < in->w.n) {
        int id = vocab_hash_id(in->w.w[shared], VOCAB_HASH_ROWS);
        fprintf(stderr, "encode: warning: '%s' shares row %d of the untrained vocabulary with "
                "'%s', so the two get the same embedding; use another word to tell them "
                "apart\n", in->w.w[shared], id, in->ck.vocab.words[id]);
    }
    a->cfg.vocab_size = in->ck.vocab.n;
    if (config_check(&a->cfg, &e))
        cli_error(cli, &e);
    cli_check_memory(cli, config_memory(&a->cfg, 1, in->T), a->max_memory, what,
                     CLI_SMALLER_MODEL);
    if (model_create(&in->ck.model, &a->cfg, &e))
        cli_error(cli, &e);
    in->ids = cli_alloc(cli, in->T, sizeof *in->ids, "the token ids");
    for (size_t t = 0; t < in->T; t++)
        in->ids[t] = vocab_hash_id(in->w.w[t], VOCAB_HASH_ROWS);
}

/* Checks the files, loads or makes the model, and reads the sentence:
 * every refusal comes before anything runs. */
static void prepare(const Cli *cli, Args *a, Input *in) {
    Err e;
    memset(in, 0, sizeof *in);
    char target[4096] = "", lock[4096 + 8] = "";
    if (a->npy && (export_check(a->npy, &e) || export_target(a->npy, target, sizeof target, &e)))
        cli_fail(cli, &e);
    if (a->npy)
        snprintf(lock, sizeof lock, "%s.lock", target);
    /* the export replaces its directory whole: not with the model in it */
    const FileArg files[] = {{a->npy, "--npy", FILE_DIRECTORY, NULL},
                             {lock, "--npy's lock file", FILE_OUTPUT, NULL},
                             {a->model, "--model", FILE_INPUT, NULL}};
    cli_check_files(cli, files, 3);
    /* one export into a folder at a time, refused before the work */
    if (a->npy && cli_hold_output(target, "--npy", true, &e))
        cli_error(cli, &e);
    if (a->model && checkpoint_load(&in->ck, a->model, &e))
        cli_fail(cli, &e);
    const Config *mc = a->model ? &in->ck.model.cfg : &a->cfg;
    const char *sentence = a->sentence;
    if (mc->pool == POOL_CLS) { /* a model that pools by [CLS] reads it first */
        if (!(in->text = data_with_cls(sentence, &e)))
            cli_fail(cli, &e);
        sentence = in->text;
    }
    /* the rule of a data file's words, after the [CLS] the model puts first */
    if (words_split(&in->w, sentence, &e))
        cli_fail(cli, &e);
    if (data_check_words(&in->w, config_lead_tokens(mc), "the sentence", &e))
        cli_error(cli, &e);
    in->T = in->w.n;
    char words[96], what[160];
    snprintf(what, sizeof what, "the model and the activations of a sentence of %s",
             config_words(mc, in->T, words, sizeof words));
    if (a->model) {
        cli_check_memory(cli, config_memory(mc, 1, in->T), a->max_memory, what,
                         "use a shorter sentence");
        if (tokenize(&in->ck.vocab, sentence, &in->ids, &in->T, stderr, &e))
            cli_error(cli, &e);
    } else {
        make_model(cli, a, in, what);
    }
    const Model *m = &in->ck.model;
    if (in->T > model_max_positions(m))
        cli_usage_error(cli, "the sentence has %s but the %s table has rows for %zu positions; "
                        "use a shorter sentence%s", words, m->cfg.pe.name,
                        model_max_positions(m), a->model ? "" : ", or give --table-len");
}

/* C numbers in rows of 8 */
static void print_channels(const float *x, size_t C) {
    for (size_t c = 0; c < C; c++)
        printf("%s%9.5f%s", c % 8 ? "" : "   ", x[c], c % 8 == 7 || c + 1 == C ? "\n" : "");
}

static void print_states(const Model *m, const Words *w, const Acts *a, size_t T) {
    size_t C = m->cfg.d_model, lead = config_lead_tokens(&m->cfg);
    printf("hidden states (%s%zu word%s x %zu channels), %s (%s):\n", lead ? "[CLS] and " : "",
           T - lead, T - lead == 1 ? "" : "s", C, m->cfg.pe.name, pe_meets(&m->pe));
    for (size_t t = 0; t < T; t++) {
        printf("%3zu %s\n", t + 1, w->w[t]); /* counted from 1, as in demo_order */
        print_channels(a->hidden + t * C, C);
    }
    printf("pooled (%s):\n", m->cfg.pool == POOL_CLS ? "the [CLS] row, row 1"
                                                     : "mean over the words");
    print_channels(a->pooled, C);
}

static void run(const Cli *cli, const Args *a, const Input *in) {
    const Model *m = &in->ck.model;
    Acts acts;
    Err e;
    size_t lens[1] = {in->T};
    if (acts_create(&acts, m, 1, in->T, &e) ||
        encoder_forward(m, &acts, in->ids, lens, 1, in->T, &e))
        cli_fail(cli, &e);
    print_states(m, &in->w, &acts, in->T);
    if (a->npy) {
        if (export_npy(a->npy, m, &in->ck.vocab, in->ids, in->T, &acts, &e))
            cli_fail(cli, &e);
        fprintf(stderr, "encode: wrote %s/\n", a->npy);
    }
    acts_free(&acts);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "encode");
    Args a = {0};
    parse(&cli, &a);
    Input in;
    prepare(&cli, &a, &in);
    run(&cli, &a, &in);
    words_free(&in.w);
    free(in.ids);
    checkpoint_free(&in.ck);
    free(in.text);
    return 0;
}
