/* The built-in tasks (data/README.md describes each): labelled examples
 * generated from a seed, in the TextData of data.h.
 *
 * Each task declares itself once, as a Task in its file (the toy tasks in
 * tasks_toy.c, Delétang et al.'s in tasks_chomsky.c and tasks_numbers.c),
 * and tasks.c lists them; the programs, the web page and the tests loop
 * over that list. */
#ifndef POSENC_TASKS_H
#define POSENC_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "data.h"

/* Limits that keep any options, however large, to bounded memory and time. */
#define TASK_MAX_LEN 512              /* longest generated sequence (a tape, blanks included) */
#define TASK_MAX_EXAMPLES 1000000     /* examples in one generated split */
#define TASK_MAX_TOKENS 10000000      /* n x longest sequence in one generated split */

/* Options of the built-in tasks; 0 means the task's default (the seed
 * excepted: it is used as given, 0 included).
 *
 * The lengths are those of a task's input: for the toy sequence tasks the
 * whole sentence, for the benchmark's tasks the input before the blanks
 * (data/README.md, the tape). A length is drawn uniformly from
 * min_len..max_train_len for each training example and from
 * min_len..max_len for each valid and test example; max_train_len
 * defaults to max_len. The other defaults are the task's (make_data
 * --list): min_len 4 for the toy tasks and 1 for the benchmark's, max_len
 * 12, n_train 8000, n_valid 500, n_test 1000. direction needs min_len >= 2.
 *
 * agent ignores the three lengths (its sentences have 4 or 5 words); its
 * defaults are n_train 4000, n_valid 300, n_test 600, and n_valid and
 * n_test are rounded up to even numbers (each sentence comes with its
 * mirror).
 *
 * pad_loss (train --pad-loss) labels the padding blanks after the end
 * symbol of binary_addition, binary_multiplication and stack_manipulation
 * "_=0" where they carry '_': trained on as the class 0, as Ruoss et al.'s
 * loss trains them, and scored nowhere, as their accuracy leaves them out
 * (Task.pad_loss); it changes nothing else, and nothing of a task
 * without padding. */
typedef struct {
    size_t min_len;       /* shortest input, e.g. 4 */
    size_t max_len;       /* longest input in valid and test, e.g. 12 */
    size_t max_train_len; /* longest in train (test lengths past it probe
                           * length generalization); 0 = max_len */
    size_t n_train, n_valid, n_test; /* examples per split */
    uint64_t seed;        /* the data's own seed, e.g. 1 */
    bool pad_loss;        /* the padding in the loss, not scored; false = '_' */
} TaskOptions;

/* Where a task stands: our toy tasks, or a level of the Chomsky hierarchy
 * as Delétang et al. (ICLR 2023) place their tasks. */
typedef enum { TASK_TOY, TASK_REGULAR, TASK_DCF, TASK_CS } TaskLevel;

typedef struct Task Task;
struct Task {
    const char *name;     /* e.g. "even_pairs" */
    TaskLevel level;
    LabelKind kind;       /* the benchmark's tasks are all LABELS_TOKEN (the tape) */
    const char *about;    /* one line, for --help, --list and the web page */
    /* The labels depend on later words, so a causal reader (each word sees
     * the words before it) cannot learn them: reverse and sort. On a tape
     * the labels sit on blanks after the whole input: never. */
    bool needs_future;
    size_t least_len;     /* the shortest input it makes, e.g. 2 for direction */
    size_t min_len, max_len;             /* default lengths */
    size_t n_train, n_valid, n_test;     /* default split sizes */
    /* Blanks on the tape after an input of n words (at most, over the
     * task's draws): 1 for a class, n for a string, 2n for duplicate_string;
     * NULL for a task without a tape. Bounds the tape by TASK_MAX_LEN. */
    size_t (*blanks)(size_t n);
    /* The label TaskOptions.pad_loss gives a blank labelled '_' (the
     * padding after the end symbol): "_=0", the reference's padding class
     * in the loss alone; NULL for a task without padding. */
    const char *pad_loss;
    /* One example with an input of n words, drawn from r: its words in
     * w[0..] and its labels in lab[0..] (one, or one per word), each at
     * most TASK_MAX_LEN; returns the number of words. */
    size_t (*example)(Rng *r, size_t n, const char **w, const char **lab);
    /* A task that makes its three splits together (agent: they share the
     * held-out triples) instead of example by example; base is seeded
     * from the seed, split[3] from base. */
    int (*make)(TextData *train, TextData *valid, TextData *test, const TaskOptions *o,
                Rng *base, Rng split[3], Err *e);
    /* Settles the resolved options, or NULL: agent reports its fixed
     * lengths and rounds valid and test to pairs. */
    void (*settle)(TaskOptions *o);
};

/* The tasks in order: the toy tasks, then the benchmark's by level. */
size_t task_count(void);
const Task *task_at(size_t i);  /* NULL past the end */
const Task *task_find(const char *name);
/* "toy", "regular", "dcf" or "cs". */
const char *task_level_name(TaskLevel level);

/* Task names, comma-separated: "agent, direction, ..., bucket_sort". */
const char *task_names(void);
bool task_exists(const char *name);
/* True for the tasks whose labels depend on later words (Task.needs_future). */
bool task_needs_future(const char *name);
/* A one-line description of the task, or NULL. */
const char *task_about(const char *name);
/* Copies in to out with every 0 replaced by the task's default, and checks
 * the result (ERR_INPUT naming the option to change). A program calls it
 * to learn the lengths, e.g. to size a learned position table. */
int task_options_resolve(TaskOptions *out, const TaskOptions *in, const char *task, Err *e);
/* The longest sequence the resolved options make: max_len plus its blanks. */
size_t task_longest(const Task *t, const TaskOptions *resolved);
/* Generates the three splits of a task, reproducibly from o->seed. The
 * three are initialized here; on error they are left empty. */
int task_make(TextData *train, TextData *valid, TextData *test, const char *task,
              const TaskOptions *o, Err *e);

#endif
