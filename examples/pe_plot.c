/* pe_plot: one picture of positional encoding per call, as a PNG.
 *
 * Parses the options, asks src/plot/figures.h for the picture, and writes
 * it; the file appears only when it is complete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/figures/figures.h"
#include "../src/run/checkpoint.h"
#include "cli.h"

/* Pieces, each under the 4095 characters C guarantees for one literal. */
static const char *const USAGE[] = {
    "Usage: pe_plot --kind KIND --out FILE.png [options] [LOG.csv ...]\n"
    "\n"
    "Draws one picture. Every kind has defaults, so --kind and --out alone draw\n"
    "the reference picture; docs/pictures.md shows each one.\n"
    "\n"
    "Kinds:\n"
    "  heatmap    the code of a scheme, positions down and channels across\n"
    "             (default: sinusoidal, 50 positions x 128 channels)\n"
    "  lines      chosen channels over positions (default: the d2l.ai picture,\n"
    "             d_model 32, 60 positions, channels 6-9; the Annotated\n"
    "             Transformer's is --d-model 20 --positions 100 --channels 4-7)\n"
    "  dots       dot products of all pairs of positions, beside one position's\n"
    "             row (default: sinusoidal, d_model 128, 100 positions, position 50)\n"
    "  bits       the sign of the code beside the position in binary: the fast\n"
    "             channels flip like the low bits of a counter, the slow ones\n"
    "             like the high bits (default: sinusoidal, d_model 32, 64 positions)\n"
    "  naive      the notes' naive schemes failing: the count unbounded, pos/N\n"
    "             inconsistent across lengths, sin(pos) colliding (60 positions)\n"
    "  attention  the attention weights of every head of one layer of an\n"
    "             untrained model for a sentence (default: \"Rohan killed the\n"
    "             lion\", layer 0, sinusoidal)\n"
    "  curves     loss and accuracy against step from training logs (CSV files\n"
    "             with a header naming step, loss, accuracy, valid_loss,\n"
    "             valid_accuracy), one colour per log\n"
    "  decay      RoPE's long-term decay (RoFormer, section 3.4.3): the bound on\n"
    "             a head's logit by relative distance (default: rope, d_model 128\n"
    "             in 1 head, distances 0..255; --base, --heads, --positions)\n"
    "  wavelengths  rope's wavelength per pair of a head, as trained and under\n"
    "             --rope-scaling (default: linear, ntk and yarn, --rope-factor 4,\n"
    "             --rope-original-len 4096, d_model 128 in 1 head), L marked\n"
    "\n"
    "Options:\n"
    "  --kind KIND           the picture (required)\n"
    "  --out FILE.png        where to write it (required)\n"
    "  --pe SCHEME           one of the schemes below (default sinusoidal)\n"
    "  --positions N         positions drawn (heatmap, lines, dots, bits, naive), or\n"
    "                        relative distances (decay)\n"
    "  --channels LIST       lines: channels such as 6-9 or 4,5,10 (at most 10)\n"
    "  --position P          dots: the position compared with all others\n"
    "  --sentence TEXT       attention: the sentence, words split on spaces\n"
    "  --layer L             attention: the layer, 0 for the first (default 0)\n"
    "  --model MODEL         attention: a model saved by train instead of an\n"
    "                        untrained one (its scheme and vocabulary)\n"
    "  --labels A,B,...      curves: legend names, one per log (default: each\n"
    "                        file's name without .csv)\n"
    CLI_MEMORY_HELP
    "  --help                show this help\n"
    "\n"
    "Scheme options, for heatmap, lines, dots, bits and attention: --d-model\n"
    "(default 128 for heatmap and dots, 32 for lines and bits, 64 for attention),\n"
    "--heads (default 4; the schemes inside attention act per head), the scheme\n"
    "options and --seed, as below (naive and curves draw fixed things and refuse\n"
    "them). Attention takes all the model options:\n"
    "\n", CLI_MODEL_HELP, "\n", CLI_SCHEMES,
    "\n"
    "Exit status: 0 when the picture is written, 2 for bad options or input\n"
    "(nothing is written), 1 on failure.\n",
    NULL};

typedef enum {
    K_HEATMAP,
    K_LINES,
    K_DOTS,
    K_BITS,
    K_NAIVE,
    K_ATTENTION,
    K_CURVES,
    K_DECAY,
    K_WAVELENGTHS,
    K_COUNT
} Kind;

static const char *const KIND_NAMES[K_COUNT] = {"heatmap", "lines",     "dots",   "bits",
                                                "naive",   "attention", "curves", "decay",
                                                "wavelengths"};
/* Per kind: default positions and d_model (0: not used). d_model 32 for
 * bits: its pairs slow down by 10000^(2/32) = 1.78 each, close to the
 * factor 2 from one bit to the next. */
static const size_t DEF_T[K_COUNT] = {50, 60, 100, 64, 60, 0, 0, 256, 0};
static const size_t DEF_C[K_COUNT] = {128, 32, 128, 32, 0, 0, 0, 128, 128};

#define MAX_ITEMS 16

/* "6-9" or "4,5,10" or "4-5,10" into out; returns the count. */
static size_t parse_channels(const Cli *cli, const char *s, size_t *out) {
    char buf[256];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        size_t lo, hi;
        if (dash) {
            *dash = '\0';
            lo = cli_size(cli, "--channels", tok, 0, FIG_MAX_CHANNELS - 1);
            hi = cli_size(cli, "--channels", dash + 1, 0, FIG_MAX_CHANNELS - 1);
            if (hi < lo)
                cli_usage_error(cli, "--channels range %zu-%zu runs backwards", lo, hi);
        } else {
            lo = hi = cli_size(cli, "--channels", tok, 0, FIG_MAX_CHANNELS - 1);
        }
        for (size_t c = lo; c <= hi; c++) {
            if (n == 10)
                cli_usage_error(cli, "--channels lists more than 10 channels");
            out[n++] = c;
        }
    }
    if (n == 0)
        cli_usage_error(cli, "--channels is empty: give channels such as 6-9");
    return n;
}

/* "a,b,c" into pointers into a copy; returns the count. */
static size_t split_labels(const Cli *cli, const char *s, char *buf, size_t cap,
                           const char **out) {
    size_t n = 0;
    snprintf(buf, cap, "%s", s);
    for (char *p = buf;; p++) {
        if (n == MAX_ITEMS)
            cli_usage_error(cli, "--labels names more than %d logs", MAX_ITEMS);
        out[n++] = p;
        p += strcspn(p, ",");
        if (*p == '\0')
            return n;
        *p = '\0';
    }
}

static int draw_attention(const Cli *cli, Canvas *cv, Config *cfg, const char *model,
                          const char *sentence, size_t layer, double max_memory, Err *e) {
    if (model) {
        Checkpoint ck;
        int rc = checkpoint_load(&ck, model, e);
        if (rc)
            return rc;
        char about[320];
        snprintf(about, sizeof about, "trained%s%s, %s", ck.has_train ? " on " : "",
                 ck.has_train ? (ck.meta.task[0] ? ck.meta.task : ck.meta.data) : "",
                 ck.model.cfg.pe.name);
        rc = fig_attention(cv, NULL, &ck.model, &ck.vocab, sentence, layer, about, e);
        checkpoint_free(&ck);
        return rc;
    }
    Vocab v;
    Model m;
    int rc = vocab_init(&v, e);
    if (!rc && cfg->pool == POOL_CLS) /* fig_attention puts it before the words */
        rc = vocab_add(&v, DATA_CLS, NULL, e);
    if (rc || (rc = vocab_add_text(&v, sentence, e))) {
        if (!rc)
            vocab_free(&v);
        return rc;
    }
    cfg->vocab_size = v.n;
    char about[128];
    snprintf(about, sizeof about, "untrained, %s, seed %llu", cfg->pe.name,
             (unsigned long long)cfg->seed);
    Words w = {0};
    if (!(rc = config_check(cfg, e)) && !(rc = words_split(&w, sentence, e))) {
        char words[96], what[160];
        size_t n = w.n + config_lead_tokens(cfg);
        snprintf(what, sizeof what, "the model and the activations of a sentence of %s",
                 config_words(cfg, n, words, sizeof words));
        words_free(&w);
        cli_check_memory(cli, config_memory(cfg, 1, n), max_memory, what, CLI_SMALLER_MODEL);
    }
    if (!rc && !(rc = model_create(&m, cfg, e))) {
        rc = fig_attention(cv, NULL, &m, &v, sentence, layer, about, e);
        if (rc == ERR_INPUT && strstr(e->msg, "table has rows")) /* an untrained table grows */
            snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg),
                     ", or give --table-len");
        model_free(&m);
    }
    vocab_free(&v);
    return rc;
}

/* The command line, as given. */
typedef struct {
    Config cfg;
    size_t model_C; /* the model's default d_model, for the kinds without their own */
    const char *kind_s, *out, *model, *sentence, *labels_s;
    Kind kind;
    const char *model_opt, *scheme_opt, *memory_opt;
    const char *logs[MAX_ITEMS];
    size_t T, layer, ref, channels[10], n_ch, n_logs;
    bool ref_set, pe_list_given, heads_given;
    double max_memory;
} Args;

static void parse(Cli *cli, Args *a) {
    *a = (Args){.sentence = "Rohan killed the lion", .ref = 50, .channels = {6, 7, 8, 9},
                .n_ch = 4, .max_memory = cli_default_memory()};
    config_default(&a->cfg, 0, "sinusoidal");
    a->model_C = a->cfg.d_model;
    a->cfg.d_model = 0; /* 0: the kind's default */
    for (const char *arg; (arg = cli_next(cli));) {
        cli_help(cli, USAGE);
        if (cli_memory_option(cli, &a->max_memory)) {
            a->memory_opt = arg; /* the guard's limit, checked before a model is made */
        } else if (cli_opt(cli, "--kind")) {
            a->kind_s = cli->val;
        } else if (cli_opt(cli, "--out")) {
            a->out = cli->val;
        } else if (cli_pe(cli, &a->cfg.pe)) {
            a->scheme_opt = arg;
            a->pe_list_given = true;
        } else if (cli_opt(cli, "--model")) {
            a->model = cli->val;
        } else if (cli_opt(cli, "--positions")) {
            a->T = cli_size(cli, "--positions", cli->val, 1, FIG_MAX_POSITIONS);
        } else if (cli_opt(cli, "--channels")) {
            a->n_ch = parse_channels(cli, cli->val, a->channels);
        } else if (cli_opt(cli, "--position")) {
            a->ref = cli_size(cli, "--position", cli->val, 0, FIG_MAX_POSITIONS);
            a->ref_set = true;
        } else if (cli_opt(cli, "--sentence")) {
            a->sentence = cli->val;
        } else if (cli_opt(cli, "--layer")) {
            a->layer = cli_size(cli, "--layer", cli->val, 0, MAX_LAYERS - 1);
        } else if (cli_opt(cli, "--labels")) {
            a->labels_s = cli->val;
        } else if (cli_scheme_option(cli, &a->cfg)) {
            a->scheme_opt = arg;
            a->heads_given |= strncmp(arg, "--heads", 7) == 0;
        } else if (cli_model_option(cli, &a->cfg)) {
            a->model_opt = arg;
        } else if (arg[0] == '-' && arg[1] == '-') {
            cli_unknown(cli, arg);
        } else if (a->n_logs < MAX_ITEMS) {
            a->logs[a->n_logs++] = arg;
        } else {
            cli_usage_error(cli, "more than %d log files", MAX_ITEMS);
        }
    }
}

/* The kind, the files, and the options the kind takes. */
static void check(Cli *cli, Args *a) {
    if (!a->kind_s)
        cli_usage_error(cli, "--kind is required: heatmap, lines, dots, bits, naive, attention, "
                        "curves, decay or wavelengths");
    a->kind = K_COUNT;
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(a->kind_s, KIND_NAMES[k]) == 0)
            a->kind = (Kind)k;
    Kind kind = a->kind;
    if (kind == K_COUNT)
        cli_usage_error(cli, "unknown kind '%s': choose heatmap, lines, dots, bits, naive, "
                        "attention, curves, decay or wavelengths", a->kind_s);
    if (!a->out)
        cli_usage_error(cli, "--out FILE.png is required");
    size_t n_out = strlen(a->out);
    if (n_out < 5 || strcmp(a->out + n_out - 4, ".png") != 0)
        cli_usage_error(cli, "--out '%s' must name a .png file", a->out);
    /* the picture must not replace the model or a log it is drawn from */
    char lock[4096 + 8];
    snprintf(lock, sizeof lock, "%s.lock", a->out);
    FileArg files[MAX_ITEMS + 3] = {{a->out, "--out", FILE_OUTPUT, NULL},
                                    {lock, "--out's lock file", FILE_OUTPUT, NULL},
                                    {a->model, "--model", FILE_INPUT, NULL}};
    for (size_t i = 0; i < a->n_logs; i++)
        files[3 + i] = (FileArg){a->logs[i], "the log", FILE_INPUT, NULL};
    cli_check_files(cli, files, 3 + a->n_logs);
    if (a->model_opt && kind != K_ATTENTION)
        cli_usage_error(cli, "%s shapes a model: it applies to --kind attention only",
                        a->model_opt);
    if (a->scheme_opt && (kind == K_NAIVE || kind == K_CURVES))
        cli_usage_error(cli, "%s does not apply to --kind %s, which draws fixed things",
                        a->scheme_opt, a->kind_s);
    if (a->model && kind != K_ATTENTION)
        cli_usage_error(cli, "--model applies to --kind attention only");
    if (a->memory_opt && kind != K_ATTENTION)
        cli_usage_error(cli, "--max-memory applies to --kind attention only, the one kind that "
                        "builds a model; drop it");
    if (a->model && (a->model_opt || a->scheme_opt))
        cli_usage_error(cli, "with --model the scheme and shape come from the model; drop %s",
                        a->model_opt ? a->model_opt : a->scheme_opt);
    if (kind == K_CURVES ? a->n_logs == 0 : a->n_logs > 0)
        cli_usage_error(cli, kind == K_CURVES ? "curves needs one or more training logs (CSV "
                        "files) after the options" : "unexpected argument '%s': only --kind "
                        "curves takes files", a->logs[0]);
}

/* The kind's defaults where the options leave them open, then the scheme
 * options nothing reads refused. */
static void settle(Cli *cli, Args *a) {
    Config *cfg = &a->cfg;
    if (!a->T)
        a->T = DEF_T[a->kind];
    if (a->kind == K_WAVELENGTHS) {
        /* rope's picture whatever the scheme options: its scaling ones
         * are rope's alone; one head of the width, as for decay */
        const char *scaled = pe_tunable_scheme()->name;
        if (strcmp(cfg->pe.name, scaled) != 0 && a->pe_list_given)
            cli_usage_error(cli, "--kind wavelengths draws %s's frequencies, not %s", scaled,
                            cfg->pe.name);
        snprintf(cfg->pe.name, sizeof cfg->pe.name, "%s", scaled);
        if (!a->heads_given)
            cfg->n_heads = 1;
    }
    if (a->kind == K_DECAY && !a->pe_list_given) {
        /* RoPE's picture: rope, and one head of the whole width, as
         * RoFormer's figure (d = 128); each default holds whatever else
         * is given (--base, --heads, --d-model) */
        snprintf(cfg->pe.name, sizeof cfg->pe.name, "%s",
                 pe_tunable_scheme()->name);
        if (!a->heads_given)
            cfg->n_heads = 1;
    }
    if (!cfg->d_model)
        cfg->d_model = DEF_C[a->kind] ? DEF_C[a->kind] : a->model_C;
    if (!a->model && a->kind != K_NAIVE && a->kind != K_CURVES) {
        cli_refuse_unused(cli, cfg);
        cli_refuse_layer_draws(cli, &cfg->pe);
    }
    if (!a->ref_set && a->kind == K_DOTS && a->ref >= a->T)
        a->ref = a->T / 2;
}

static int draw(const Cli *cli, Args *a, Canvas *cv, Err *e) {
    Config *cfg = &a->cfg;
    size_t T = a->T;
    switch (a->kind) {
    case K_HEATMAP:
        return fig_heatmap(cv, NULL, cfg, T, e);
    case K_LINES:
        return fig_lines(cv, cfg, a->channels, a->n_ch, T, e);
    case K_DOTS:
        return fig_dots(cv, NULL, cfg, a->ref, T, e);
    case K_BITS:
        return fig_bits(cv, NULL, cfg, T, e);
    case K_NAIVE:
        return fig_naive(cv, T, e);
    case K_DECAY:
        return fig_decay(cv, cfg, T, e);
    case K_WAVELENGTHS:
        return fig_wavelengths(cv, cfg, e);
    case K_ATTENTION:
        return draw_attention(cli, cv, cfg, a->model, a->sentence, a->layer, a->max_memory, e);
    case K_CURVES: {
        char buf[1024];
        const char *labels[MAX_ITEMS];
        size_t n_labels =
            a->labels_s ? split_labels(cli, a->labels_s, buf, sizeof buf, labels) : 0;
        if (a->labels_s && n_labels != a->n_logs)
            cli_usage_error(cli, "--labels names %zu logs but %zu were given", n_labels,
                            a->n_logs);
        return fig_curves(cv, a->logs, a->labels_s ? labels : NULL, a->n_logs, e);
    }
    default:
        return 0;
    }
}

int main(int argc, char **argv) {
    Cli cli;
    cli_init(&cli, argc, argv, "pe_plot");
    Args a;
    parse(&cli, &a);
    check(&cli, &a);
    settle(&cli, &a);
    Err e;
    /* one writer per picture, refused before the drawing */
    if (output_check(a.out, "--out", true, &e) || cli_hold_output(a.out, "--out", true, &e))
        cli_error(&cli, &e);
    Canvas cv = {0, 0, NULL};
    int rc = draw(&cli, &a, &cv, &e);
    if (!rc)
        rc = canvas_write_png(&cv, a.out, &e);
    canvas_free(&cv);
    if (rc)
        cli_fail(&cli, &e);
    return 0;
}
