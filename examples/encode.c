/* encode: runs a model on one sentence and prints its hidden states; with
 * --npy it writes them, and every parameter, as NumPy files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/model/encoder.h"
#include "../src/run/checkpoint.h"
#include "../src/run/npy.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: encode [--model MODEL | model options] [--npy DIR] SENTENCE\n"
    "\n"
    "Runs an encoder on SENTENCE and prints each word's output row (the hidden\n"
    "state after the last layer; words numbered from 1, as demo_order numbers\n"
    "them, so word t is row t-1 of output.npy) and the mean-pooled sentence\n"
    "vector. The model is one saved by train, or a fresh one built from the\n"
    "options (as in demo_order, with one --pe scheme).\n"
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
    "  --pe SCHEME           scheme of a fresh model (default sinusoidal)\n"
    "  --npy DIR             write the NumPy files into DIR (created if missing)\n"
    "  --help                show this help\n"
    "\n", CLI_MODEL_HELP,
    "\n"
    "Exit status: 0 on success, 2 for bad options or input, 1 on failure.\n",
    NULL};

static void make_dir(const Cli *cli, const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        Err e;
        err_set(&e, ERR_INPUT, "cannot create the directory %s; check its parent exists and is "
                "writable", path);
        cli_fail(cli, &e);
    }
}

static void write_config(const Cli *cli, const char *dir, const Model *m) {
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    Err e;
    if (!f) {
        err_set(&e, ERR_INPUT, "cannot write %s", path);
        cli_fail(cli, &e);
    }
    const Config *c = &m->cfg;
    PeConfig pc = pe_resolved(&c->pe);
    fprintf(f, "{\n  \"vocab_size\": %zu,\n  \"d_model\": %zu,\n  \"nhead\": %zu,\n"
            "  \"num_layers\": %zu,\n  \"dim_feedforward\": %zu,\n  \"norm_first\": %s,\n"
            "  \"activation\": \"%s\",\n  \"layer_norm_eps\": 1e-05,\n  \"pe\": \"%s\",\n"
            "  \"pe_in_attention\": %s,\n  \"combine\": \"%s\",\n  \"pe_width\": %zu,\n"
            "  \"embedding_width\": %zu,\n  \"pe_layout\": \"%s\",\n  \"pe_base\": %.17g,\n"
            "  \"t5_buckets\": %zu,\n  \"t5_max_distance\": %zu,\n  \"scale_embed\": %s,\n"
            "  \"n_classes\": %zu,\n  \"per_token\": %s\n}\n",
            c->vocab_size, c->d_model, c->n_heads, c->n_layers, c->d_ff,
            c->norm == NORM_PRE ? "true" : "false", c->act == ACT_GELU ? "gelu" : "relu",
            pc.name, pe_in_attention(m->pe.scheme) ? "true" : "false",
            combine_name(m->pe.combine), m->pe.w, m->pe.E,
            pc.layout == LAYOUT_SPLIT ? "split" : "interleaved", pc.base, pc.buckets,
            pc.max_distance,
            c->scale_embed ? "true" : "false", c->n_classes, c->per_token ? "true" : "false");
    if (fclose(f) != 0) {
        err_set(&e, ERR_RUNTIME, "error writing %s", path);
        cli_fail(cli, &e);
    }
}

static void write_npy(const Cli *cli, const char *dir, const Model *m, const Vocab *v,
                      const int *ids, size_t T, const Acts *a) {
    char path[4096];
    Err e;
    size_t C = m->cfg.d_model;
    make_dir(cli, dir);
    snprintf(path, sizeof path, "%s/params", dir);
    make_dir(cli, path);
    int64_t *ids64 = cli_alloc(cli, T, sizeof *ids64, "the ids");
    for (size_t t = 0; t < T; t++)
        ids64[t] = ids[t];
    size_t s_ids[2] = {1, T}, s_out[3] = {1, T, C}, s_pool[2] = {1, C};
    snprintf(path, sizeof path, "%s/input_ids.npy", dir);
    int rc = npy_write_i64(path, ids64, s_ids, 2, &e);
    free(ids64);
    snprintf(path, sizeof path, "%s/input.npy", dir);
    rc = rc ? rc : npy_write_f32(path, a->x0, s_out, 3, &e);
    snprintf(path, sizeof path, "%s/output.npy", dir);
    rc = rc ? rc : npy_write_f32(path, a->hidden, s_out, 3, &e);
    snprintf(path, sizeof path, "%s/pooled.npy", dir);
    rc = rc ? rc : npy_write_f32(path, a->pooled, s_pool, 2, &e);
    for (size_t i = 0; i < m->n_specs && !rc; i++) {
        const ParamSpec *s = &m->specs[i];
        /* vectors are 1-D in torch's state_dict */
        size_t shape[2] = {s->rows, s->cols};
        snprintf(path, sizeof path, "%s/params/%s.npy", dir, s->name);
        rc = s->rows == 1 ? npy_write_f32(path, m->mem + s->offset, shape + 1, 1, &e)
                          : npy_write_f32(path, m->mem + s->offset, shape, 2, &e);
    }
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    rc = rc ? rc : vocab_save(v, path, &e);
    if (rc)
        cli_fail(cli, &e);
    write_config(cli, dir, m);
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "encode");
    Config cfg;
    config_default(&cfg, 0, "sinusoidal");
    const char *model = NULL, *npy = NULL, *sentence = NULL, *shaping = NULL;
    for (const char *arg; (arg = cli_next(&cli));) {
        cli_help(&cli, USAGE);
        if (cli_opt(&cli, "--model")) {
            model = cli.val;
        } else if (cli_opt(&cli, "--npy")) {
            npy = cli.val;
        } else if (cli_pe(&cli, &cfg.pe)) {
            shaping = arg;
        } else if (cli_model_option(&cli, &cfg)) {
            shaping = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_usage_error(&cli, "unknown option '%s'", arg);
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

    Err e;
    Checkpoint ck;
    memset(&ck, 0, sizeof ck);
    if (model) {
        if (checkpoint_load(&ck, model, &e))
            cli_fail(&cli, &e);
    } else {
        if (vocab_init(&ck.vocab, &e) || vocab_add_text(&ck.vocab, sentence, &e))
            cli_fail(&cli, &e);
        cfg.vocab_size = ck.vocab.n;
        if (model_create(&ck.model, &cfg, &e))
            cli_usage_error(&cli, "%s", e.msg);
    }
    int *ids;
    size_t T;
    if (tokenize(&ck.vocab, sentence, &ids, &T, stderr, &e))
        cli_usage_error(&cli, "%s", e.msg);
    const Model *m = &ck.model;
    Acts a;
    size_t lens[1] = {T};
    if (acts_create(&a, m, 1, T, &e) || encoder_forward(m, &a, ids, lens, 1, T, &e))
        cli_fail(&cli, &e);
    size_t C = m->cfg.d_model;
    printf("hidden states (%zu words x %zu channels), %s (%s):\n", T, C, m->cfg.pe.name,
           pe_meets(&m->pe));
    Words w;
    if (words_split(&w, sentence, &e))
        cli_fail(&cli, &e);
    for (size_t t = 0; t < T; t++) {
        printf("%3zu %s\n", t + 1, w.w[t]); /* words count from 1, as in demo_order */
        for (size_t c = 0; c < C; c++)
            printf("%s%9.5f%s", c % 8 ? "" : "   ", a.hidden[t * C + c],
                   c % 8 == 7 || c + 1 == C ? "\n" : "");
    }
    printf("pooled (mean over the words):\n");
    for (size_t c = 0; c < C; c++)
        printf("%s%9.5f%s", c % 8 ? "" : "   ", a.pooled[c], c % 8 == 7 || c + 1 == C ? "\n" : "");
    if (npy) {
        write_npy(&cli, npy, m, &ck.vocab, ids, T, &a);
        fprintf(stderr, "encode: wrote %s/\n", npy);
    }
    words_free(&w);
    free(ids);
    acts_free(&a);
    checkpoint_free(&ck);
    return 0;
}
