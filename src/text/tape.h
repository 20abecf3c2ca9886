/* The tape of Delétang et al.'s tasks, as Ruoss et al.'s encoder reads it
 * (their experiments/utils.py, make_model_with_empty_targets): the input,
 * then one blank per output symbol, a single blank for a task with one
 * answer. The model is trained and scored at the blanks alone: the input's
 * words carry the label '_' (DATA_NO_LABEL), and so does a blank the
 * reference does not score (the padding after a termination token), which
 * TaskOptions.pad_loss labels TAPE_PAD_LOSS instead: in the loss, as the
 * reference trains it, and still unscored. */
#ifndef POSENC_TAPE_H
#define POSENC_TAPE_H

#include "tasks.h"

/* The blank's word: "the answer goes here". */
#define TAPE_BLANK "?"
/* The output symbol after the answer of stack_manipulation and the binary
 * tasks (the reference's termination token, 2). */
#define TAPE_END "$"
/* Their padding after TAPE_END with TaskOptions.pad_loss: the bit 0 in the
 * loss alone. The reference pads each output with its class 0 (binary_
 * addition.py:157, binary_multiplication.py:122, stack_manipulation.py:93:
 * `[0] * ...` one-hot encoded), which is the bit '0' in all three (their
 * output_size 3: 0, 1 and the termination 2). Its loss (experiments/
 * example.py:104-106, tasks/task.py:41-45) is jnp.mean over the batch and
 * every output position of the cross-entropy summed over classes: the
 * padding is in it, each position weighted as any other. Its accuracy
 * (example.py:108-110) counts only accuracy_mask's positions, up to and
 * including the termination (binary_addition.py:180-196,
 * binary_multiplication.py:145-161, stack_manipulation.py:120-136). */
#define TAPE_PAD_LOSS DATA_LOSS_ONLY "0"

typedef struct {
    const char **w, **lab; /* a task's example buffers, TASK_MAX_LEN each */
    size_t n;              /* words so far */
} Tape;

static inline Tape tape_start(const char **w, const char **lab) {
    return (Tape){.w = w, .lab = lab, .n = 0};
}

/* A word of the input: read, never scored. */
static inline void tape_in(Tape *t, const char *word) {
    t->w[t->n] = word;
    t->lab[t->n++] = DATA_NO_LABEL;
}

/* A blank whose label is the next output symbol (DATA_NO_LABEL: unscored). */
static inline void tape_out(Tape *t, const char *label) {
    t->w[t->n] = TAPE_BLANK;
    t->lab[t->n++] = label;
}

/* Blanks per input of n words (Task.blanks). */
static inline size_t one_blank(size_t n) { return (void)n, 1; }
static inline size_t n_blanks(size_t n) { return n; }
static inline size_t n_plus_one_blanks(size_t n) { return n + 1; }

/* A task of the benchmark: input lengths 1..12 by default (the reference
 * trains from length 1, where several tasks have their edge cases), 8000,
 * 500 and 1000 examples; NAME_example makes one. */
#define BENCH_TASK(NAME, LEVEL, BLANKS, ABOUT) BENCH_TASK_PAD(NAME, LEVEL, BLANKS, ABOUT, NULL)
/* The same for a task that pads its output after TAPE_END (PAD: TAPE_PAD_LOSS). */
#define BENCH_TASK_PAD(NAME, LEVEL, BLANKS, ABOUT, PAD)                                        \
    const Task task_##NAME = {.name = #NAME, .level = LEVEL, .kind = LABELS_TOKEN,              \
                              .about = ABOUT, .least_len = 1, .min_len = 1, .max_len = 12,     \
                              .n_train = 8000, .n_valid = 500, .n_test = 1000,                 \
                              .blanks = BLANKS, .pad_loss = PAD, .example = NAME##_example}

#endif
