/* The registry of the built-in tasks, their options, and the generation
 * of their splits; each task is declared in its own file.
 *
 * Each split draws from its own generator, seeded from TaskOptions.seed, so
 * changing the size of one split leaves the others as they were. */
#include <stdlib.h>
#include <string.h>

#include "tape.h"

#include "../core/options.h"

extern const Task task_agent, task_direction, task_reverse, task_sort, task_previous,
    task_contains, task_first;
extern const Task task_even_pairs, task_parity_check, task_cycle_navigation,
    task_modular_arithmetic;
extern const Task task_reverse_string, task_stack_manipulation,
    task_modular_arithmetic_brackets, task_solve_equation;
extern const Task task_duplicate_string, task_missing_duplicate_string, task_odds_first,
    task_binary_addition, task_binary_multiplication, task_compute_sqrt, task_bucket_sort;

/* Our toy tasks first (their order is older than the benchmark), then
 * Delétang et al.'s by level, each level in their paper's order. */
static const Task *const TASKS[] = {
    &task_agent,
    &task_direction,
    &task_reverse,
    &task_sort,
    &task_previous,
    &task_contains,
    &task_first,
    &task_even_pairs,
    &task_modular_arithmetic,
    &task_parity_check,
    &task_cycle_navigation,
    &task_stack_manipulation,
    &task_reverse_string,
    &task_modular_arithmetic_brackets,
    &task_solve_equation,
    &task_duplicate_string,
    &task_missing_duplicate_string,
    &task_odds_first,
    &task_binary_addition,
    &task_binary_multiplication,
    &task_compute_sqrt,
    &task_bucket_sort,
};

size_t task_count(void) { return sizeof TASKS / sizeof TASKS[0]; }

const Task *task_at(size_t i) { return i < task_count() ? TASKS[i] : NULL; }

const Task *task_find(const char *name) {
    for (size_t i = 0; name && i < task_count(); i++)
        if (strcmp(name, TASKS[i]->name) == 0)
            return TASKS[i];
    return NULL;
}

const char *task_level_name(TaskLevel level) {
    static const char *const NAMES[] = {"toy", "regular", "dcf", "cs"};
    return level <= TASK_CS ? NAMES[level] : "?";
}

const char *task_names(void) {
    static char buf[512];
    if (!buf[0])
        for (size_t i = 0; i < task_count(); i++) {
            if (i)
                strcat(buf, ", ");
            strcat(buf, TASKS[i]->name);
        }
    return buf;
}

bool task_exists(const char *name) { return task_find(name) != NULL; }

bool task_needs_future(const char *name) {
    const Task *t = task_find(name);
    return t && t->needs_future;
}

const char *task_about(const char *name) {
    const Task *t = task_find(name);
    return t ? t->about : NULL;
}

static size_t or_default(size_t v, size_t dflt) { return v ? v : dflt; }

static size_t tape_len(const Task *t, size_t n) { return n + (t->blanks ? t->blanks(n) : 0); }

size_t task_longest(const Task *t, const TaskOptions *resolved) {
    return tape_len(t, resolved->max_len);
}

/* The input length whose tape is longest within TASK_MAX_LEN. */
static size_t longest_input(const Task *t) {
    size_t n = TASK_MAX_LEN;
    while (n > 1 && tape_len(t, n) > TASK_MAX_LEN)
        n--;
    return n;
}

int task_options_resolve(TaskOptions *out, const TaskOptions *in, const char *task, Err *e) {
    const Task *t = task_find(task);
    if (!t)
        return err_set(e, ERR_INPUT, "unknown task '%s'; choose one of: %s", task ? task : "",
                       task_names());
    *out = *in;
    out->max_len = or_default(in->max_len, t->max_len);
    out->min_len = or_default(in->min_len, out->max_len < t->min_len ? out->max_len
                                                                     : t->min_len);
    out->max_train_len = or_default(in->max_train_len, out->max_len);
    out->n_train = or_default(in->n_train, t->n_train);
    out->n_valid = or_default(in->n_valid, t->n_valid);
    out->n_test = or_default(in->n_test, t->n_test);
    if (t->settle)
        t->settle(out);
    if (in->pad_loss && !t->pad_loss) {
        char with[256] = "";
        for (size_t i = 0, n = 0; task_at(i); i++)
            if (task_at(i)->pad_loss)
                n += (size_t)snprintf(with + n, n < sizeof with ? sizeof with - n : 0, "%s%s",
                                      n ? ", " : "", task_at(i)->name);
        return err_set(e, ERR_INPUT, "--pad-loss trains on the padding after the end symbol, "
                       "and %s's tapes have none (the tasks that have: %s): drop --pad-loss",
                       task, with);
    }
    if (out->min_len < t->least_len)
        return err_set(e, ERR_INPUT, "%s needs min_len (--min-len) of at least %zu, not %zu",
                       task, t->least_len, out->min_len);
    if (!t->blanks && out->max_len > TASK_MAX_LEN)
        return err_set(e, ERR_INPUT, "max_len (--max-len) is %zu; the tasks make sequences of "
                       "at most %d tokens", out->max_len, TASK_MAX_LEN);
    /* a tape holds the input and its blanks: duplicate_string's is 3n long */
    if (t->blanks && (out->max_len > TASK_MAX_LEN || tape_len(t, out->max_len) > TASK_MAX_LEN))
        return err_set(e, ERR_INPUT, "max_len (--max-len) is %zu; %s's tape of the input and "
                       "its blanks would be %zu words, and the tasks make sequences of at most "
                       "%d: give --max-len %zu or less", out->max_len, task,
                       tape_len(t, out->max_len > TASK_MAX_LEN ? TASK_MAX_LEN : out->max_len),
                       TASK_MAX_LEN, longest_input(t));
    /* evaluate and probe take no --max-train-len: the hint names the
     * options of the program that prints it (options.h) */
    static const char *const lengths[] = {"--min-len", "--max-train-len", "--max-len", NULL};
    char change[64];
    if (out->min_len > out->max_train_len || out->max_train_len > out->max_len)
        return err_set(e, ERR_INPUT, "the lengths must satisfy min_len <= max_train_len <= "
                       "max_len, not %zu, %zu, %zu; change %s", out->min_len,
                       out->max_train_len, out->max_len,
                       *options_list(change, sizeof change, lengths) ? change : "them");
    const size_t n[3] = {out->n_train, out->n_valid, out->n_test};
    size_t longest = task_longest(t, out);
    static const char *const split[3] = {"training", "validation", "test"};
    /* evaluate and probe size the split they read by --examples */
    static const char *const sizes[3][4] = {{"--train-examples", "--max-len", NULL},
                                            {"--valid-examples", "--examples", "--max-len", NULL},
                                            {"--test-examples", "--examples", "--max-len", NULL}};
    for (int i = 0; i < 3; i++)
        if (n[i] > TASK_MAX_EXAMPLES || n[i] * longest > TASK_MAX_TOKENS)
            return err_set(e, ERR_INPUT, "the %s split of %s, %zu examples of up to %zu tokens "
                           "each, is more than one split of a task may hold (%d examples, %d "
                           "tokens counting each example at the longest); ask for fewer or "
                           "shorter examples%s%s", split[i], task, n[i], longest,
                           TASK_MAX_EXAMPLES, TASK_MAX_TOKENS,
                           *options_list(change, sizeof change, sizes[i]) ? ": change " : "",
                           change);
    return 0;
}

/* n examples with input lengths uniform in lo..hi; with pad_loss the
 * blanks labelled '_' (the padding) get the task's Task.pad_loss. */
static int make_split(TextData *d, const Task *t, Rng *r, size_t n, size_t lo, size_t hi,
                      bool pad_loss, Err *e) {
    const char *w[TASK_MAX_LEN], *lab[TASK_MAX_LEN];
    for (size_t i = 0; i < n; i++) {
        size_t len = lo + rng_below(r, hi - lo + 1);
        size_t words = t->example(r, len, w, lab);
        for (size_t j = 0; pad_loss && t->pad_loss && j < words; j++)
            if (strcmp(w[j], TAPE_BLANK) == 0 && strcmp(lab[j], DATA_NO_LABEL) == 0)
                lab[j] = t->pad_loss;
        int rc = textdata_add(d, w, words, lab, e);
        if (rc)
            return rc;
    }
    return 0;
}

int task_make(TextData *train, TextData *valid, TextData *test, const char *task,
              const TaskOptions *o, Err *e) {
    const Task *t = task_find(task);
    LabelKind kind = t ? t->kind : LABELS_SENTENCE;
    textdata_init(train, kind);
    textdata_init(valid, kind);
    textdata_init(test, kind);
    TaskOptions r;
    int rc = task_options_resolve(&r, o, task, e);
    if (rc)
        return rc;
    Rng base, split[3];
    rng_seed(&base, r.seed);
    for (int i = 0; i < 3; i++)
        rng_seed(&split[i], rng_u64(&base));
    if (t->make) {
        rc = t->make(train, valid, test, &r, &base, split, e);
    } else {
        rc = make_split(train, t, &split[0], r.n_train, r.min_len, r.max_train_len,
                        r.pad_loss, e);
        if (!rc)
            rc = make_split(valid, t, &split[1], r.n_valid, r.min_len, r.max_len, r.pad_loss,
                            e);
        if (!rc)
            rc = make_split(test, t, &split[2], r.n_test, r.min_len, r.max_len, r.pad_loss, e);
    }
    if (rc) {
        textdata_free(train);
        textdata_free(valid);
        textdata_free(test);
    }
    return rc;
}
