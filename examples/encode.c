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

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "encode");
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    const char *model = NULL, *npy = NULL, *sentence = NULL, *shaping = NULL;
    double max_memory = cli_default_memory();
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_memory_option(&cli, &max_memory)) {
            /* the guard's limit, checked before the model is made */
        } else if (cli_opt(&cli, "--model")) {
            model = cli.val;
        } else if (cli_opt(&cli, "--npy")) {
            npy = cli.val;
        } else if (cli_pe(&cli, &cfg.pe)) {
            shaping = arg;
        } else if (cli_model_option(&cli, &cfg)) {
            shaping = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_unknown(&cli, arg);
        } else if (!sentence) {
            sentence = arg;
        } else {
            cli_usage_error(&cli, "give one sentence, in quotes");
        }
    }
    if (!sentence)
        cli_usage_error(&cli, "give a sentence to encode, in quotes");
    if (model && shaping)
        cli_usage_error(&cli, "with --model the shape comes from the model; drop %s", shaping);
    if (!model)
        cli_refuse_unused(&cli, &cfg);

    Err e;
    if (npy && export_check(npy, &e))
        cli_fail(&cli, &e);
    /* the export replaces its directory whole: not with the model in it */
    const FileArg files[] = {{npy, "--npy", FILE_DIRECTORY, NULL},
                             {model, "--model", FILE_INPUT, NULL}};
    cli_check_files(&cli, files, 2);
    Checkpoint ck;
    memset(&ck, 0, sizeof ck);
    if (model && checkpoint_load(&ck, model, &e))
        cli_fail(&cli, &e);
    /* a model that pools by [CLS] reads it first */
    char *text = NULL;
    if ((model ? ck.model.cfg.pool : cfg.pool) == POOL_CLS) {
        if (!(text = data_with_cls(sentence, &e)))
            cli_fail(&cli, &e);
        sentence = text;
    }
    Words w;
    if (words_split(&w, sentence, &e))
        cli_fail(&cli, &e);
    const Config *mc = model ? &ck.model.cfg : &cfg;
    size_t T = w.n;
    char words[96], what[160];
    snprintf(what, sizeof what, "the model and the activations of a sentence of %s",
             config_words(mc, T, words, sizeof words));
    if (!model) {
        if (vocab_init(&ck.vocab, &e) || vocab_add_text(&ck.vocab, sentence, &e))
            cli_fail(&cli, &e);
        cfg.vocab_size = ck.vocab.n;
        if (config_check(&cfg, &e))
            cli_error(&cli, &e);
        cli_check_memory(&cli, config_memory(&cfg, 1, T), max_memory, what, CLI_SMALLER_MODEL);
        if (model_create(&ck.model, &cfg, &e))
            cli_error(&cli, &e);
    } else {
        cli_check_memory(&cli, config_memory(mc, 1, T), max_memory, what,
                         "use a shorter sentence");
    }
    const Model *m = &ck.model;
    if (T > model_max_positions(m))
        cli_usage_error(&cli, "the sentence has %s but the %s table has rows for %zu positions; "
                        "use a shorter sentence%s", words, m->cfg.pe.name,
                        model_max_positions(m), model ? "" : ", or give --table-len");
    int *ids;
    if (tokenize(&ck.vocab, sentence, &ids, &T, stderr, &e))
        cli_error(&cli, &e);
    Acts a;
    size_t lens[1] = {T};
    if (acts_create(&a, m, 1, T, &e) || encoder_forward(m, &a, ids, lens, 1, T, &e))
        cli_fail(&cli, &e);
    size_t C = m->cfg.d_model;
    size_t lead = config_lead_tokens(&m->cfg);
    printf("hidden states (%s%zu word%s x %zu channels), %s (%s):\n", lead ? "[CLS] and " : "",
           T - lead, T - lead == 1 ? "" : "s", C, m->cfg.pe.name, pe_meets(&m->pe));
    for (size_t t = 0; t < T; t++) {
        printf("%3zu %s\n", t + 1, w.w[t]); /* counted from 1, as in demo_order */
        for (size_t c = 0; c < C; c++)
            printf("%s%9.5f%s", c % 8 ? "" : "   ", a.hidden[t * C + c],
                   c % 8 == 7 || c + 1 == C ? "\n" : "");
    }
    printf("pooled (%s):\n", m->cfg.pool == POOL_CLS ? "the [CLS] row, row 1"
                                                      : "mean over the words");
    for (size_t c = 0; c < C; c++)
        printf("%s%9.5f%s", c % 8 ? "" : "   ", a.pooled[c], c % 8 == 7 || c + 1 == C ? "\n" : "");
    if (npy) {
        if (export_npy(npy, m, &ck.vocab, ids, T, &a, &e))
            cli_fail(&cli, &e);
        fprintf(stderr, "encode: wrote %s/\n", npy);
    }
    words_free(&w);
    free(ids);
    acts_free(&a);
    checkpoint_free(&ck);
    free(text);
    return 0;
}
