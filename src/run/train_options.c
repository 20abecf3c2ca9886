#include "train_options.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/parse.h"
#include "../model/model.h"
#include "../pe/pe.h"

/* How an option's text reads: a task's name, a path, a whole number (size
 * or 64-bit), a real number kept in a float, or one of two names (an enum,
 * value v named names[v]; a flag, a bool named the same way). */
typedef enum { RUN_TASK, RUN_PATH, RUN_SIZE, RUN_U64, RUN_FLOAT, RUN_NAME, RUN_FLAG } RunType;

_Static_assert(sizeof(Schedule) == sizeof(int) && sizeof(KeepWhich) == sizeof(int) &&
                   sizeof(BatchDraw) == sizeof(int) && sizeof(RandomDraw) == sizeof(int) &&
                   sizeof(TrainDraw) == sizeof(int),
               "the enums of a run are ints");

/* One row per option, in the order of TRAIN_OPT_: its flag, its field (in
 * TrainMeta, or in OptConfig with opt), its type and range (both ends
 * included) or names, and whether 0 or "" stands for "not given" (and is
 * not saved). */
static const struct {
    const char *flag;
    bool opt;
    size_t offset, cap;
    RunType type;
    double lo, hi;
    const char *names[2];
    bool zero_unset;
} ROWS[TRAIN_OPT_COUNT] = {
    {"--task", false, offsetof(TrainMeta, task), sizeof(((TrainMeta *)0)->task), RUN_TASK, 0, 0,
     {NULL, NULL}, true},
    {"--data", false, offsetof(TrainMeta, data), sizeof(((TrainMeta *)0)->data), RUN_PATH, 0, 0,
     {NULL, NULL}, true},
    {"--valid", false, offsetof(TrainMeta, valid), sizeof(((TrainMeta *)0)->valid), RUN_PATH, 0, 0,
     {NULL, NULL}, true},
    {"--min-len", false, offsetof(TrainMeta, task_opt.min_len), 0, RUN_SIZE, 1, TASK_MAX_LEN,
     {NULL, NULL}, true},
    {"--max-len", false, offsetof(TrainMeta, task_opt.max_len), 0, RUN_SIZE, 1, TASK_MAX_LEN,
     {NULL, NULL}, true},
    {"--max-train-len", false, offsetof(TrainMeta, task_opt.max_train_len), 0, RUN_SIZE, 1,
     TASK_MAX_LEN, {NULL, NULL}, true},
    {"--train-examples", false, offsetof(TrainMeta, task_opt.n_train), 0, RUN_SIZE, 1,
     TASK_MAX_EXAMPLES, {NULL, NULL}, true},
    {"--valid-examples", false, offsetof(TrainMeta, task_opt.n_valid), 0, RUN_SIZE, 1,
     TASK_MAX_EXAMPLES, {NULL, NULL}, true},
    {"--test-examples", false, offsetof(TrainMeta, task_opt.n_test), 0, RUN_SIZE, 1,
     TASK_MAX_EXAMPLES, {NULL, NULL}, true},
    {"--data-seed", false, offsetof(TrainMeta, task_opt.seed), 0, RUN_U64, 0, 0, {NULL, NULL},
     false},
    {"--pad-loss", false, offsetof(TrainMeta, task_opt.pad_loss), 0, RUN_FLAG, 0, 0,
     {"off", "on"}, true},
    {"--steps", false, offsetof(TrainMeta, steps), 0, RUN_SIZE, 1, TRAIN_MAX_STEPS,
     {NULL, NULL}, false},
    {"--batch", false, offsetof(TrainMeta, batch), 0, RUN_SIZE, 1, TRAIN_MAX_BATCH,
     {NULL, NULL}, false},
    {"--eval-every", false, offsetof(TrainMeta, eval_every), 0, RUN_SIZE, 1, TRAIN_MAX_STEPS,
     {NULL, NULL}, false},
    {"--random-positions", false, offsetof(TrainMeta, random_positions), 0, RUN_SIZE, 1,
     MAX_DIM, {NULL, NULL}, true},
    {"--batches", false, offsetof(TrainMeta, batches), 0, RUN_NAME, 0, 0, {"mixed", "by-length"},
     true},
    {"--random-draw", false, offsetof(TrainMeta, random_draw), 0, RUN_NAME, 0, 0,
     {"positions", "ruoss"}, true},
    {"--train-draw", false, offsetof(TrainMeta, train_draw), 0, RUN_NAME, 0, 0,
     {"pool", "fresh"}, true},
    {"--embed-std", false, offsetof(TrainMeta, embed_std), 0, RUN_FLOAT, 1e-6, 100.0,
     {NULL, NULL}, true},
    {"--lr", true, offsetof(OptConfig, lr), 0, RUN_FLOAT, 1e-8, 10.0, {NULL, NULL}, false},
    {"--warmup", true, offsetof(OptConfig, warmup), 0, RUN_SIZE, 0, TRAIN_MAX_STEPS,
     {NULL, NULL}, false},
    {"--schedule", true, offsetof(OptConfig, schedule), 0, RUN_NAME, 0, 0,
     {"constant", "noam"}, false},
    {"--weight-decay", true, offsetof(OptConfig, weight_decay), 0, RUN_FLOAT, 0.0, 10.0,
     {NULL, NULL}, false},
    {"--clip", true, offsetof(OptConfig, clip), 0, RUN_FLOAT, 0.0, 1e6, {NULL, NULL}, false},
    {"--keep", false, offsetof(TrainMeta, keep), 0, RUN_NAME, 0, 0, {"best", "last"}, false},
    {"--data-hash", false, offsetof(TrainMeta, data_hash), 0, RUN_U64, 0, 0, {NULL, NULL}, true},
    {"--valid-hash", false, offsetof(TrainMeta, valid_hash), 0, RUN_U64, 0, 0, {NULL, NULL},
     true},
};

void train_meta_default(TrainMeta *mt) {
    memset(mt, 0, sizeof *mt);
    mt->batch = 32;
    mt->steps = 1500;
    mt->eval_every = 100;
    mt->keep = KEEP_BEST;
    mt->task_opt.seed = 1;
}

const char *train_option_name(size_t opt) {
    return opt < TRAIN_OPT_COUNT ? ROWS[opt].flag : NULL;
}

const char *train_option_choice(size_t opt, size_t j) {
    return opt < TRAIN_OPT_COUNT && ROWS[opt].type == RUN_NAME && j < 2 ? ROWS[opt].names[j]
                                                                          : NULL;
}

size_t train_option_find(const char *name) {
    if (strncmp(name, "--", 2) == 0)
        name += 2;
    size_t i = 0;
    while (i < TRAIN_OPT_COUNT && strcmp(ROWS[i].flag + 2, name) != 0)
        i++;
    return i;
}

static void *field(TrainMeta *mt, OptConfig *o, size_t opt) {
    return (ROWS[opt].opt ? (char *)o : (char *)mt) + ROWS[opt].offset;
}

int train_option_set(TrainMeta *mt, OptConfig *o, size_t opt, const char *text, Err *e) {
    if (opt >= TRAIN_OPT_COUNT)
        return err_set(e, ERR_INPUT, "no option of a run has the number %zu", opt);
    const char *flag = ROWS[opt].flag;
    void *f = field(mt, o, opt);
    if (ROWS[opt].type == RUN_TASK && !task_exists(text))
        return err_set(e, ERR_INPUT, "unknown task '%s': choose one of %s", text, task_names());
    switch (ROWS[opt].type) {
    case RUN_TASK:
    case RUN_PATH:
        if (!*text || strlen(text) >= ROWS[opt].cap)
            return err_set(e, ERR_INPUT, "%s wants a path of 1 to %zu bytes, not '%s'", flag,
                           ROWS[opt].cap - 1, text);
        memcpy(f, text, strlen(text) + 1);
        return 0;
    case RUN_SIZE: {
        size_t v;
        if (parse_size(&v, flag, text, (size_t)ROWS[opt].lo, (size_t)ROWS[opt].hi, e))
            return ERR_INPUT;
        memcpy(f, &v, sizeof v);
        return 0;
    }
    case RUN_U64: {
        uint64_t v;
        if (parse_u64(&v, flag, text, e))
            return ERR_INPUT;
        memcpy(f, &v, sizeof v);
        return 0;
    }
    case RUN_FLOAT: {
        /* compared as it reads, before it is rounded to the float kept */
        double v;
        if (parse_real(&v, flag, text, ROWS[opt].lo, ROWS[opt].hi, e))
            return ERR_INPUT;
        float x = (float)v;
        memcpy(f, &x, sizeof x);
        return 0;
    }
    case RUN_NAME:
    case RUN_FLAG:
        for (int v = 0; v < 2; v++)
            if (strcmp(text, ROWS[opt].names[v]) == 0) {
                if (ROWS[opt].type == RUN_FLAG)
                    *(bool *)f = v;
                else
                    memcpy(f, &v, sizeof v);
                return 0;
            }
        return err_set(e, ERR_INPUT, "%s is %s or %s, not '%s'", flag, ROWS[opt].names[0],
                       ROWS[opt].names[1], text);
    }
    return err_set(e, ERR_INPUT, "%s has no type", flag);
}

void train_option_text(const TrainMeta *mt, const OptConfig *o, size_t opt, char *buf,
                       size_t cap) {
    if (opt >= TRAIN_OPT_COUNT) {
        snprintf(buf, cap, "?");
        return;
    }
    const void *f = field((TrainMeta *)mt, (OptConfig *)o, opt);
    switch (ROWS[opt].type) {
    case RUN_TASK:
    case RUN_PATH:
        snprintf(buf, cap, "%.*s", (int)ROWS[opt].cap, (const char *)f);
        return;
    case RUN_SIZE: {
        size_t s;
        memcpy(&s, f, sizeof s);
        snprintf(buf, cap, "%zu", s);
        return;
    }
    case RUN_U64: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        snprintf(buf, cap, "%llu", (unsigned long long)u);
        return;
    }
    case RUN_FLOAT: {
        float x;
        memcpy(&x, f, sizeof x);
        real_text(buf, cap, x, true);
        return;
    }
    case RUN_NAME: {
        int v;
        memcpy(&v, f, sizeof v);
        /* a value no name has is written so that it reads back as an error */
        snprintf(buf, cap, "%s", v == 0 || v == 1 ? ROWS[opt].names[v] : "?");
        return;
    }
    case RUN_FLAG:
        snprintf(buf, cap, "%s", ROWS[opt].names[*(const bool *)f]);
        return;
    }
}

bool train_option_given(const TrainMeta *mt, const OptConfig *o, size_t opt) {
    if (opt >= TRAIN_OPT_COUNT)
        return false;
    if (!ROWS[opt].zero_unset)
        return true;
    const unsigned char *f = field((TrainMeta *)mt, (OptConfig *)o, opt);
    if (ROWS[opt].type == RUN_TASK || ROWS[opt].type == RUN_PATH)
        return f[0] != '\0';
    if (ROWS[opt].type == RUN_NAME) {
        int v;
        memcpy(&v, f, sizeof v);
        return v != 0;
    }
    if (ROWS[opt].type == RUN_FLAG)
        return *(const bool *)f;
    if (ROWS[opt].type == RUN_FLOAT) {
        float x;
        memcpy(&x, f, sizeof x);
        return x != 0.0f;
    }
    size_t s;
    memcpy(&s, f, sizeof s);
    return s != 0;
}

int train_draw_check(const TrainMeta *mt, Err *e) {
    if (mt->random_draw == RANDOM_DRAW_RUOSS && !mt->random_positions)
        return err_set(e, ERR_INPUT, "--random-draw ruoss says how --random-positions N draws, "
                       "and no N is given: give --random-positions N, or drop --random-draw");
    if (mt->train_draw == TRAIN_DRAW_FRESH && !mt->task[0])
        return err_set(e, ERR_INPUT, "--train-draw fresh makes new sentences of a task every "
                       "step, and a data file has no more than it holds: give --task, or drop "
                       "--train-draw");
    return 0;
}

const PeOption *train_layer_draws_unread(const TrainMeta *mt, const PeConfig *pc, char *text,
                                        size_t cap) {
    const PeScheme *s = pe_find(pc->name);
    bool drawn = mt->random_positions && mt->random_draw == RANDOM_DRAW_RUOSS;
    for (size_t i = 0; s && s->options && s->options[i] && !drawn; i++) {
        const PeOption *o = s->options[i];
        double v = pe_get(pc, o);
        if (o->layer_draws && pe_given(pc, o) && v != o->def) {
            pe_option_format(o, v, text, cap);
            return o;
        }
    }
    return NULL;
}

int train_layer_draws_check(const TrainMeta *mt, const PeConfig *pc, Err *e) {
    char text[64];
    const PeOption *o = train_layer_draws_unread(mt, pc, text, sizeof text);
    if (o)
        return err_set(e, ERR_INPUT, "%s %s is read only at the distances --random-draw "
                       "ruoss draws in every layer, and this training draws none: give "
                       "--random-positions N --random-draw ruoss, or drop %s", o->flag,
                       text, o->flag);
    return 0;
}

int train_meta_check(const TrainMeta *mt, size_t step, Err *e) {
    /* every option as the command line takes it (the optimizer's are
     * opt_check's), then the rules between them */
    OptConfig o;
    opt_default(&o);
    for (size_t i = 0; i < TRAIN_OPT_COUNT; i++) {
        TrainMeta copy = *mt;
        char text[512];
        if (ROWS[i].opt || !train_option_given(mt, &o, i))
            continue;
        train_option_text(mt, &o, i, text, sizeof text);
        if (train_option_set(&copy, &o, i, text, e))
            return ERR_INPUT;
    }
    if (step > mt->steps)
        return err_set(e, ERR_INPUT, "the step %zu is past the %zu steps the run was asked for",
                       step, mt->steps);
    if (train_draw_check(mt, e))
        return ERR_INPUT;
    if (mt->task[0]) {
        TaskOptions t;
        if (mt->data[0] || mt->valid[0] || mt->data_hash || mt->valid_hash)
            return err_set(e, ERR_INPUT, "it names both a task and a data file");
        return task_options_resolve(&t, &mt->task_opt, mt->task, e);
    }
    if (!mt->data[0])
        return err_set(e, ERR_INPUT, "it names neither a task nor a data file");
    if (mt->valid_hash && !mt->valid[0])
        return err_set(e, ERR_INPUT, "it has the contents' hash of a validation file it does "
                       "not name");
    return 0;
}
