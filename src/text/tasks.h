/* The built-in toy tasks (data/README.md describes each): labelled
 * examples generated from a seed, in the TextData of data.h. */
#ifndef POSENC_TASKS_H
#define POSENC_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"
#include "data.h"

/* Limits that keep any options, however large, to bounded memory and time. */
#define TASK_MAX_LEN 512              /* longest generated sequence */
#define TASK_MAX_EXAMPLES 1000000     /* examples in one generated split */
#define TASK_MAX_TOKENS 10000000      /* n x max_len in one generated split */

/* Options of the built-in tasks; 0 means the task's default (the seed
 * excepted: it is used as given, 0 included).
 *
 * Defaults of the sequence tasks (direction, reverse, sort, previous, contains,
 * first):
 * min_len 4, max_len 12, max_train_len = max_len, n_train 8000, n_valid
 * 500, n_test 1000; tokens are the digits 0..9. Lengths are uniform in
 * min_len..max_train_len in train and in min_len..max_len in valid and
 * test. direction needs min_len >= 2.
 *
 * agent ignores the three lengths (its sentences have 4 or 5 words); its
 * defaults are n_train 4000, n_valid 300, n_test 600, and n_valid and
 * n_test are rounded up to even numbers (each sentence comes with its
 * mirror). data/README.md describes every task. */
typedef struct {
    size_t min_len;       /* shortest sequence, e.g. 4 */
    size_t max_len;       /* longest sequence in valid and test, e.g. 12 */
    size_t max_train_len; /* longest in train (test lengths past it probe
                           * length generalization); 0 = max_len */
    size_t n_train, n_valid, n_test; /* examples per split */
    uint64_t seed;        /* the data's own seed, e.g. 1 */
} TaskOptions;

/* Task names: "agent, direction, reverse, sort, previous, contains, first". */
const char *task_names(void);
bool task_exists(const char *name);
/* True for the tasks whose labels depend on later words (a word's label
 * in reverse and sort is another word of the sentence, anywhere in it): a
 * causal reader, which sees only the words before, cannot learn them. The
 * sentence tasks are read from the last word, which sees them all,
 * previous needs only the word before, and first the first word. */
bool task_needs_future(const char *name);
/* A one-line description of the task, or NULL. */
const char *task_about(const char *name);
/* Copies in to out with every 0 replaced by the task's default, and checks
 * the result (ERR_INPUT naming the option to change). A program calls it
 * to learn the lengths, e.g. to size a learned position table. */
int task_options_resolve(TaskOptions *out, const TaskOptions *in, const char *task, Err *e);
/* Generates the three splits of a task, reproducibly from o->seed. The
 * three are initialized here; on error they are left empty. */
int task_make(TextData *train, TextData *valid, TextData *test, const char *task,
              const TaskOptions *o, Err *e);

#endif
