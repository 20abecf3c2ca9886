/* What a training run was asked for, and train's options that set it, as
 * data: one row per option (its flag, field, type, range), the one parser
 * behind train's command line and behind the checkpoint, which stores
 * these options by name as their command-line text, so that a resumed run
 * is the run that was started and a checkpoint's value meets the ranges
 * and messages of the command line. */
#ifndef POSENC_TRAIN_OPTIONS_H
#define POSENC_TRAIN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "../model/train.h"
#include "../text/tasks.h"
#include "positions.h"

/* The model a run keeps (train --keep): the one of the evaluation with the
 * best validation accuracy, or the last step's. */
typedef enum { KEEP_BEST = 0, KEEP_LAST = 1 } KeepWhich;

/* How a training batch is drawn (train --batches): B sentences of the
 * training split, each drawn on its own (mixed lengths, padded to the
 * longest), or a length drawn uniformly from those of the split and then
 * B sentences of that length, as Ruoss et al. (2023) and Deletang et al.
 * (2023) train: no padding, and with --random-positions one draw of
 * positions shared by the batch, as their code draws them. */
typedef enum { BATCHES_MIXED = 0, BATCHES_BY_LENGTH = 1 } BatchDraw;

/* Where a task's training sentences come from (train --train-draw): a pool
 * of --train-examples made once, each step drawing from it; or new ones
 * every step, from the data-order generator, as Delétang et al.'s and
 * Ruoss et al.'s code trains (the pool still gives the words and classes). */
typedef enum { TRAIN_DRAW_POOL = 0, TRAIN_DRAW_FRESH = 1 } TrainDraw;

/* What a training run was asked for (its data, batch, steps, evaluations
 * and kept model) and where its data order stands: with the model and the
 * optimizer, what a checkpoint needs to resume the run exactly where it
 * stopped. */
typedef struct {
    char task[32];        /* built-in task, e.g. "agent"; "" when trained on a file */
    char data[256];       /* the training file when task is "" */
    char valid[256];      /* the validation file, or "" */
    TaskOptions task_opt; /* the task's options, its seed included */
    size_t batch;         /* sentences per step, e.g. 32 */
    size_t steps;         /* steps the run was asked for, e.g. 2000 */
    size_t eval_every;    /* steps between evaluations, e.g. 100 */
    KeepWhich keep;       /* the model kept; last wherever there is no validation data */
    uint64_t seed;        /* seed of the data order */
    Rng rng;              /* the data-order generator as it stands after `step` steps */
    double seconds;       /* time spent training so far, resumed runs included */
    size_t random_positions; /* training positions drawn from 0..N-1, e.g. 64; 0 = off */
    BatchDraw batches;    /* mixed (the default) or by length */
    RandomDraw random_draw; /* what --random-positions draws: positions (the default) or as
                             * Ruoss et al.'s code */
    TrainDraw train_draw; /* a task's pool (the default) or fresh sentences every step */
    float embed_std;      /* std of the token embedding's first draw, 1e-6..100; 0 = not
                           * given: nn.Embedding's 1 */
    size_t table_len;     /* rows asked of a learned table, 0 = as training needs; not
                           * saved (the model's shape holds the answer) */
    double max_memory;    /* bytes the run may use, e.g. 8e9; 0 = no limit; not saved (a
                           * property of the machine, given again on --resume) */
    uint64_t data_hash;   /* FNV-1a of the --data file's bytes as trained on; 0 = a task */
    uint64_t valid_hash;  /* the same of the --valid file; 0 = none */
} TrainMeta;

/* The limits of train's options. */
#define TRAIN_MAX_BATCH 4096
#define TRAIN_MAX_STEPS 100000000

/* The options of a run that a checkpoint stores and a resume restores, in
 * the order a checkpoint writes them. VALID_EXAMPLES and TEST_EXAMPLES are
 * the sizes of a task's other splits, which no command line sets (evaluate's
 * --examples changes them for one evaluation): kept for a library caller
 * that chose them. */
enum {
    TRAIN_OPT_TASK,
    TRAIN_OPT_DATA,
    TRAIN_OPT_VALID,
    TRAIN_OPT_MIN_LEN,
    TRAIN_OPT_MAX_LEN,
    TRAIN_OPT_MAX_TRAIN_LEN,
    TRAIN_OPT_TRAIN_EXAMPLES,
    TRAIN_OPT_VALID_EXAMPLES,
    TRAIN_OPT_TEST_EXAMPLES,
    TRAIN_OPT_DATA_SEED,
    TRAIN_OPT_PAD_LOSS,
    TRAIN_OPT_STEPS,
    TRAIN_OPT_BATCH,
    TRAIN_OPT_EVAL_EVERY,
    TRAIN_OPT_RANDOM_POSITIONS,
    TRAIN_OPT_BATCHES,
    TRAIN_OPT_RANDOM_DRAW,
    TRAIN_OPT_TRAIN_DRAW,
    TRAIN_OPT_EMBED_STD,
    TRAIN_OPT_LR,
    TRAIN_OPT_WARMUP,
    TRAIN_OPT_SCHEDULE,
    TRAIN_OPT_WEIGHT_DECAY,
    TRAIN_OPT_CLIP,
    TRAIN_OPT_KEEP,
    /* no command line sets these: the contents of the files a run trained
     * on, which a resumed run checks its files against (a path names a
     * file; the same path from another folder names another) */
    TRAIN_OPT_DATA_HASH,
    TRAIN_OPT_VALID_HASH,
    TRAIN_OPT_COUNT
};

/* train's defaults: batch 32, 1500 steps, an evaluation every 100, --keep
 * best, the task's data seed 1; the optimizer's are opt_default's. */
void train_meta_default(TrainMeta *mt);

/* "--steps" for TRAIN_OPT_STEPS; NULL past the last. */
const char *train_option_name(size_t opt);
/* Name j (0 or 1) of an option that takes one of two names (--schedule,
 * --keep), for a form that offers them; NULL for another option or j. */
const char *train_option_choice(size_t opt, size_t j);
/* The option named name, with or without its dashes, or TRAIN_OPT_COUNT. */
size_t train_option_find(const char *name);
/* Sets option opt of a run (its fields in mt, or in o for the optimizer's)
 * from its command-line text: the whole text, in range (both ends
 * included), or ERR_INPUT naming the option, the range applied and the
 * text. */
int train_option_set(TrainMeta *mt, OptConfig *o, size_t opt, const char *text, Err *e);
/* Option opt as the command line writes it; train_option_set of that text
 * gives the value back exactly (a float's shortest text). */
void train_option_text(const TrainMeta *mt, const OptConfig *o, size_t opt, char *buf,
                       size_t cap);
/* Whether option opt holds a value to save: always, but for the options
 * whose 0 or "" means "not given" (a task's lengths, --random-positions,
 * --batches mixed, the task or the files not used): a checkpoint of a run
 * that leaves them is the one an older version wrote. */
bool train_option_given(const TrainMeta *mt, const OptConfig *o, size_t opt);

/* A scheme option read only at the distances --random-draw ruoss draws in
 * every layer (PeOption.layer_draws), set to another value than its
 * default where mt draws none: ERR_INPUT naming it (nothing would read
 * it). */
int train_layer_draws_check(const TrainMeta *mt, const PeConfig *pc, Err *e);
/* The option train_layer_draws_check refuses, with its value's text in
 * text (cap bytes), or NULL: for a message in the terms of a checkpoint
 * or of a model to start from rather than of a command line. */
const PeOption *train_layer_draws_unread(const TrainMeta *mt, const PeConfig *pc, char *text,
                                        size_t cap);
/* The rules of --random-draw and --train-draw: the first needs
 * --random-positions, the second a task. ERR_INPUT naming what to give. */
int train_draw_check(const TrainMeta *mt, Err *e);
/* Checks a run's options together, as train's own checks do (a task or a
 * file, not both; the task's options; step <= steps): what the options'
 * ranges, and a valid checksum, cannot vouch for. ERR_INPUT with the field
 * at fault. */
int train_meta_check(const TrainMeta *mt, size_t step, Err *e);

#endif
