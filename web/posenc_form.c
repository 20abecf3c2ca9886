/* posenc_form: the page's training form as data, and the command line it
 * sends parsed and checked as build/train parses and checks its own.
 *
 * The form (web/train.js builds it from these entry points) has
 * build/train's options: the task's, the model's and the training's, one
 * row each below (the training's and the task's are train_options.h's
 * rows, parsed by train_option_set), and every scheme option of the
 * registry (pe_option_at, parsed by pe_set), each shown for the schemes
 * that read it. Nothing on the page names an option or a scheme: a new
 * scheme or option in src/pe appears in the form with no change here.
 * Files (--data, --valid, --out, --log, --resume, --init) and --max-memory
 * have no place on a page: its trainer keeps its files itself, and its
 * memory is the tab's.
 *
 * pw_form_parse takes the options in build/train's order of checks: each
 * option as it comes, by the parser the program uses (the model options'
 * messages are examples/cli.c's, written again here: those parsers exit),
 * then a task, then the scheme options the scheme reads (pe_check_read),
 * then the page's own bounds; session_create checks the rest, for both. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/parse.h"
#include "pw.h"
#include "pw_form.h"

/* build/train's scheme when --pe is not given (examples/train.c). */
#define PW_DEFAULT_SCHEME "sinusoidal"

/* What a row holds: a task, a scheme, a row of train_options.h, or a model
 * option kept in Config (or, with meta, in TrainMeta) at offset: a size, a
 * 64-bit seed, a float, one of two names (an enum: name i is value i), or
 * a flag (a bool). */
typedef enum { F_TASK, F_SCHEME, F_RUN, F_SIZE, F_U64, F_FLOAT, F_NAME, F_FLAG } Kind;

typedef struct {
    const char *flag;     /* NULL for F_RUN: train_option_name(run) */
    const char *group;    /* the form's heading it sits under */
    Kind kind;
    size_t run;           /* F_RUN: its TRAIN_OPT_ */
    size_t offset;        /* the model options: where the value goes */
    bool meta;            /* in TrainMeta, not Config */
    double lo, hi;        /* the model options' ranges, both ends in */
    size_t page_max;      /* the page's own bound on a size (one thread in a tab); 0: none */
    const char *names[3]; /* F_NAME, NULL-terminated */
    const char *initial;  /* what the page starts with; "" = not given */
    const char *def;      /* the program's default where it is no value: "the task's" */
    const char *help;
} Field;

#define CFG(field) offsetof(Config, field)

static const Field FIELDS[] = {
    {"--task", "task", F_TASK, .initial = "", .help = "a built-in task"},
    {NULL, "task", F_RUN, .run = TRAIN_OPT_MIN_LEN, .initial = "", .def = "the task's",
     .help = "shortest sequence"},
    {NULL, "task", F_RUN, .run = TRAIN_OPT_MAX_LEN, .initial = "", .def = "the task's",
     .help = "longest sequence in the valid and test splits"},
    {NULL, "task", F_RUN, .run = TRAIN_OPT_MAX_TRAIN_LEN, .initial = "", .def = "--max-len",
     .help = "longest sequence in the training split; longer test sequences probe length "
             "generalization"},
    {NULL, "task", F_RUN, .run = TRAIN_OPT_TRAIN_EXAMPLES, .initial = "", .def = "the task's",
     .help = "size of the training split"},
    {NULL, "task", F_RUN, .run = TRAIN_OPT_DATA_SEED, .initial = "", .help = "seed of the task's "
     "data"},
    {"--pad-loss", "task", F_FLAG, .offset = offsetof(TrainMeta, task_opt.pad_loss), .meta = true,
     .initial = "", .help = "binary_addition, binary_multiplication, stack_manipulation: the "
     "padding after '$' in the loss as the bit 0, as Ruoss et al.'s loss trains it; never "
     "scored"},
    {"--pe", "model", F_SCHEME, .initial = PW_DEFAULT_SCHEME, .help = "the position scheme"},
    {"--d-model", "model", F_SIZE, .offset = CFG(d_model), .lo = 1, .hi = MAX_DIM,
     .page_max = 128, .initial = "", .help = "model width"},
    {"--heads", "model", F_SIZE, .offset = CFG(n_heads), .lo = 1, .hi = MAX_DIM,
     .page_max = 128, .initial = "", .help = "attention heads (must divide d_model)"},
    {"--layers", "model", F_SIZE, .offset = CFG(n_layers), .lo = 1, .hi = MAX_LAYERS,
     .page_max = 4, .initial = "", .help = "encoder layers"},
    {"--d-ff", "model", F_SIZE, .offset = CFG(d_ff), .lo = 1, .hi = MAX_DIM, .page_max = 512,
     .initial = "", .help = "width of the feed-forward layer"},
    {"--norm", "model", F_NAME, .offset = CFG(norm), .names = {"post", "pre", NULL},
     .initial = "", .help = "LayerNorm after each sublayer (the paper) or before it"},
    {"--act", "model", F_NAME, .offset = CFG(act), .names = {"relu", "gelu", NULL},
     .initial = "", .help = "feed-forward activation"},
    {"--scale-embed", "model", F_FLAG, .offset = CFG(scale_embed), .initial = "",
     .help = "multiply embeddings by sqrt(d_model) (paper 3.4)"},
    {"--pool", "model", F_NAME, .offset = CFG(pool), .names = {"mean", "cls", NULL},
     .initial = "", .help = "the sentence vector: the mean of the words' rows, or the row of a "
     "[CLS] word put before every sentence (BERT's)"},
    {"--causal", "model", F_FLAG, .offset = CFG(causal), .initial = "",
     .help = "a decoder's mask: word i attends to words 0..i only"},
    {"--first-draws", "model", F_NAME, .offset = CFG(first_draws),
     .names = {"pytorch", "reference", NULL}, .initial = "", .help = "the linear layers' first "
     "weights: PyTorch's, or Ruoss et al.'s code's (a normal cut at 2 std, std 1/sqrt(fan_in), "
     "zero biases)"},
    {"--no-out-bias", "model", F_FLAG, .offset = CFG(no_out_bias), .initial = "",
     .help = "attention's output projection without its bias, as in Ruoss et al.'s code"},
    {"--dropout", "model", F_FLOAT, .offset = CFG(dropout), .lo = 0.0, .hi = MAX_DROPOUT,
     .initial = "", .help = "dropout while training, on the embedding + code, the attention "
     "weights, and after attention and the FFN's two layers"},
    {"--table-len", "model", F_SIZE, .offset = offsetof(TrainMeta, table_len), .meta = true,
     .lo = 1, .hi = MAX_DIM, .initial = "", .def = "the longest training sentence",
     .help = "rows of a learned table"},
    {"--seed", "model", F_U64, .offset = CFG(seed), .initial = "",
     .help = "seed of the weights and of the batches' order"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_STEPS, .page_max = 20000, .initial = "500",
     .help = "optimizer steps"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_BATCH, .page_max = 128, .initial = "",
     .help = "sentences per step"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_LR, .initial = "", .help = "peak learning rate "
     "of AdamW"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_WARMUP, .initial = "", .help = "steps of linear "
     "warm-up"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_SCHEDULE, .initial = "", .help = "constant after "
     "the warm-up, or the paper's inverse square root (5.3) peaking at --lr"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_WEIGHT_DECAY, .initial = "",
     .help = "AdamW's decoupled decay of weight matrices"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_CLIP, .initial = "", .help = "largest gradient "
     "norm, 0 for none"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_EVAL_EVERY, .initial = "", .help = "steps between "
     "evaluations"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_RANDOM_POSITIONS, .initial = "", .def = "off",
     .help = "give each training sentence sorted positions drawn from 0..N-1 (Ruoss et al. "
     "2023), so that positions past the training lengths are seen"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_BATCHES, .initial = "", .help = "each sentence "
     "of a batch drawn on its own (mixed lengths), or one length a batch, drawn uniformly, "
     "with one draw of random positions (Ruoss et al.'s batches)"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_RANDOM_DRAW, .initial = "", .help = "what "
     "random positions draws: positions at the input for every scheme, or what Ruoss et al.'s "
     "code draws (rope: positions in every layer; alibi and xl: a distance per offset in every "
     "layer)"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_TRAIN_DRAW, .initial = "", .help = "a task's "
     "training sentences: a pool made once, or new ones every step"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_EMBED_STD, .initial = "", .def = "1",
     .help = "std of the token embedding's first draw (Ruoss et al.'s code: 0.02)"},
    {NULL, "training", F_RUN, .run = TRAIN_OPT_KEEP, .initial = "", .help = "the model kept: "
     "the best validation accuracy's, or the last step's"},
};
#define N_FIELDS (sizeof FIELDS / sizeof FIELDS[0])


static const Field *field_at(int i) {
    return i >= 0 && (size_t)i < N_FIELDS ? &FIELDS[i] : NULL;
}

static const char *flag_of(const Field *f) {
    return f->kind == F_RUN ? train_option_name(f->run) : f->flag;
}

/* ---- the form, for train.js ---- */

EXPORT int pw_field_count(void) { return (int)N_FIELDS; }
EXPORT const char *pw_field_flag(int i) { return field_at(i) ? flag_of(field_at(i)) : ""; }
EXPORT const char *pw_field_group(int i) { return field_at(i) ? field_at(i)->group : ""; }
EXPORT const char *pw_field_help(int i) { return field_at(i) ? field_at(i)->help : ""; }
EXPORT const char *pw_field_initial(int i) { return field_at(i) ? field_at(i)->initial : ""; }

/* Choice j of a field that takes one of a list (a task, a scheme, a
 * name), "" past the last. */
EXPORT const char *pw_field_choice(int i, int j) {
    const Field *f = field_at(i);
    const char *c = NULL;
    if (!f || j < 0)
        return "";
    if (f->kind == F_TASK)
        c = task_at((size_t)j) ? task_at((size_t)j)->name : NULL;
    else if (f->kind == F_SCHEME)
        c = pe_at((size_t)j) ? pe_at((size_t)j)->name : NULL;
    else if (f->kind == F_NAME)
        c = j < 2 ? f->names[j] : NULL;
    else if (f->kind == F_RUN)
        c = train_option_choice(f->run, (size_t)j);
    return c ? c : "";
}

/* "task" or "scheme" (the lists of the registries, always given),
 * "choice" (one of a list, or not given), "flag" (on or off), or "text". */
EXPORT const char *pw_field_kind(int i) {
    const Field *f = field_at(i);
    if (!f)
        return "";
    if (f->kind == F_TASK || f->kind == F_SCHEME || f->kind == F_FLAG)
        return f->kind == F_TASK ? "task" : f->kind == F_SCHEME ? "scheme" : "flag";
    return pw_field_choice(i, 0)[0] ? "choice" : "text";
}

/* The program's default, as its help says it: the value of a default run
 * or model, or the row's words; "" for the task and the scheme, which the
 * page always gives. */
EXPORT const char *pw_field_default(int i) {
    static char text[64];
    const Field *f = field_at(i);
    if (!f || f->kind == F_TASK || f->kind == F_SCHEME)
        return "";
    if (f->def)
        return f->def;
    TrainMeta mt;
    OptConfig o;
    Config c;
    train_meta_default(&mt);
    opt_default(&o);
    config_default(&c, 0, PW_DEFAULT_SCHEME);
    const char *at = (const char *)&c + f->offset;
    size_t z;
    uint64_t u;
    float x;
    int v;
    switch (f->kind) {
    case F_RUN:
        train_option_text(&mt, &o, f->run, text, sizeof text);
        break;
    case F_SIZE:
        memcpy(&z, at, sizeof z);
        snprintf(text, sizeof text, "%zu", z);
        break;
    case F_U64:
        memcpy(&u, at, sizeof u);
        snprintf(text, sizeof text, "%llu", (unsigned long long)u);
        break;
    case F_FLOAT:
        memcpy(&x, at, sizeof x);
        real_text(text, sizeof text, x, true);
        break;
    case F_NAME:
        memcpy(&v, at, sizeof v);
        snprintf(text, sizeof text, "%s", v == 0 || v == 1 ? f->names[v] : "?");
        break;
    default:
        snprintf(text, sizeof text, "off");
    }
    return text;
}

/* The scheme options, from the registry: pe_option_at's fields. */
static const PeOption *option_at(int i) {
    return i >= 0 && (size_t)i < pe_option_count() ? pe_option_at((size_t)i) : NULL;
}
EXPORT int pw_option_count(void) { return (int)pe_option_count(); }
EXPORT const char *pw_option_flag(int i) { return option_at(i) ? option_at(i)->flag : ""; }
EXPORT const char *pw_option_help(int i) { return option_at(i) ? option_at(i)->help : ""; }
EXPORT const char *pw_option_default(int i) {
    return option_at(i) && option_at(i)->def_text ? option_at(i)->def_text : "";
}
EXPORT const char *pw_option_kind(int i) {
    const PeOption *o = option_at(i);
    return !o ? "" : o->type == PE_VALUE_NAME ? "choice" : "text";
}
EXPORT double pw_option_lo(int i) { return option_at(i) ? option_at(i)->lo : 0.0; }
EXPORT double pw_option_hi(int i) { return option_at(i) ? option_at(i)->hi : 0.0; }
EXPORT const char *pw_option_choice(int i, int j) {
    const PeOption *o = option_at(i);
    for (int k = 0; o && o->names && o->names[k]; k++)
        if (k == j)
            return o->names[k];
    return "";
}
/* The index of --combine, whose value decides what else a scheme reads. */
EXPORT int pw_option_combine(void) { return (int)pe_option_index(&pe_opt_combine); }

/* 1 when scheme s reads option i with --combine given as combine ("" for
 * not given), pe_reads's answer. */
EXPORT int pw_option_read(int s, int i, const char *combine) {
    PeConfig pc;
    pe_config_default(&pc, "");
    if (s < 0 || (size_t)s >= pe_count() || !option_at(i) ||
        (*combine && pe_set(&pc, &pe_opt_combine, combine, NULL)))
        return 0;
    return pe_reads(pe_at((size_t)s), pe_combine_given(&pc), option_at(i));
}

/* The schemes ticked for Compare at first, one of each kind: the
 * registry's first with no position at all (none), the default (added to
 * the input) and its first that turns q and k (rope). */
static bool first_of_kind(size_t s, bool (*kind)(const PeScheme *)) {
    for (size_t i = 0; i < s; i++)
        if (kind(pe_at(i)))
            return false;
    return kind(pe_at(s));
}
static bool no_position(const PeScheme *s) { return !pe_in_input(s) && !pe_in_attention(s); }
static bool turns(const PeScheme *s) { return s->rotate != NULL; }

EXPORT int pw_compare_ticked(int s) {
    if (s < 0 || (size_t)s >= pe_count())
        return 0;
    return strcmp(pe_at((size_t)s)->name, PW_DEFAULT_SCHEME) == 0 ||
           first_of_kind((size_t)s, no_position) || first_of_kind((size_t)s, turns);
}

/* ---- the command line ---- */

/* One model option of row f from its text, as cli_model_option parses it. */
static int parse_model(const Field *f, void *at, const char *s, Err *e) {
    switch (f->kind) {
    case F_SIZE:
        return parse_size(at, f->flag, s, (size_t)f->lo, (size_t)f->hi, e);
    case F_U64:
        return parse_u64(at, f->flag, s, e);
    case F_FLOAT:
        return parse_float(at, f->flag, s, (float)f->lo, (float)f->hi, e);
    case F_NAME:
        for (int v = 0; v < 2; v++)
            if (strcmp(s, f->names[v]) == 0) {
                memcpy(at, &v, sizeof v);
                return 0;
            }
        return err_set(e, ERR_INPUT, "%s is %s or %s, not '%s'", f->flag, f->names[0],
                       f->names[1], s);
    default:
        *(bool *)at = true;
        return 0;
    }
}

/* The row of flag, or NULL. */
static const Field *field_of(const char *flag) {
    for (size_t i = 0; i < N_FIELDS; i++)
        if (strcmp(flag_of(&FIELDS[i]), flag) == 0)
            return &FIELDS[i];
    return NULL;
}

/* One option and its value (NULL for a flag) into mt, opt and cfg. */
static int parse_one(TrainMeta *mt, OptConfig *opt, Config *cfg, const char *flag,
                     const char *val, Err *e) {
    const PeOption *o = pe_option_find(flag);
    if (o && strcmp(o->flag, flag) == 0)
        return pe_set(&cfg->pe, o, val, e);
    const Field *f = field_of(flag);
    if (!f)
        return err_set(e, ERR_INPUT, "unknown option '%s'", flag);
    switch (f->kind) {
    case F_TASK:
        if (!task_exists(val))
            return err_set(e, ERR_INPUT, "unknown task '%s': choose one of %s", val, task_names());
        snprintf(mt->task, sizeof mt->task, "%s", val);
        return 0;
    case F_SCHEME:
        if (!pe_find(val))
            return err_set(e, ERR_INPUT, "unknown scheme '%s' for --pe: choose one of %s", val,
                           pe_names());
        snprintf(cfg->pe.name, sizeof cfg->pe.name, "%s", val);
        return 0;
    case F_RUN:
        return train_option_set(mt, opt, f->run, val, e);
    default:
        return parse_model(f, (f->meta ? (char *)mt : (char *)cfg) + f->offset, val, e);
    }
}

/* The page's own bound on row f's value, past what the program takes. */
static int page_bound(const TrainMeta *mt, const OptConfig *opt, const Config *cfg,
                      const Field *f, Err *e) {
    char text[64];
    size_t v;
    if (!f->page_max)
        return 0;
    if (f->kind == F_RUN) {
        train_option_text(mt, opt, f->run, text, sizeof text);
        v = (size_t)strtoull(text, NULL, 10);
    } else {
        memcpy(&v, (f->meta ? (const char *)mt : (const char *)cfg) + f->offset, sizeof v);
    }
    if (v <= f->page_max)
        return 0;
    return err_set(e, ERR_INPUT, "%s %zu is more than this page trains (at most %zu: one thread "
                   "in a browser tab); give less, or run the build/train command below",
                   flag_of(f), v, f->page_max);
}

int pw_form_parse(TrainMeta *mt, OptConfig *opt, Config *cfg, const char *args, Err *e) {
    train_meta_default(mt);
    opt_default(opt);
    config_default(cfg, 0, PW_DEFAULT_SCHEME);
    size_t len = strlen(args);
    char *buf = xmalloc(len + 1, "the options", e);
    if (!buf)
        return ERR_RUNTIME;
    memcpy(buf, args, len + 1);
    int rc = 0;
    /* one argument a line: an option, then its value unless it is a flag */
    for (char *at = buf, *next; !rc && at < buf + len; at = next) {
        char *flag = at, *val = NULL;
        next = flag + strcspn(flag, "\n");
        *next++ = '\0';
        const Field *f = field_of(flag);
        if (!(f && f->kind == F_FLAG) && (pe_option_find(flag) || f)) {
            if (next > buf + len) {
                rc = err_set(e, ERR_INPUT, "option %s needs a value", flag);
                break;
            }
            val = next;
            next = val + strcspn(val, "\n");
            *next++ = '\0';
        }
        rc = parse_one(mt, opt, cfg, flag, val, e);
    }
    free(buf);
    if (rc)
        return rc;
    if (!mt->task[0])
        return err_set(e, ERR_INPUT, "give a task (--task agent) or a data file (--data FILE)");
    const char *name = cfg->pe.name;
    if ((rc = pe_check_read(&cfg->pe, &name, 1, e)))
        return rc;
    for (size_t i = 0; i < N_FIELDS && !rc; i++)
        rc = page_bound(mt, opt, cfg, &FIELDS[i], e);
    mt->seed = cfg->seed; /* as train: --seed sets the weights and the batches' order */
    return rc;
}
