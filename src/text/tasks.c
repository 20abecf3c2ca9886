/* The built-in toy tasks; data/README.md describes each with examples.
 *
 * Each split draws from its own generator, seeded from TaskOptions.seed, so
 * changing the size of one split leaves the others as they were. */
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "tasks.h"

typedef enum { AGENT, DIRECTION, REVERSE, SORT, PREVIOUS, CONTAINS, FIRST, N_TASKS } TaskId;

static const struct {
    const char *name;
    LabelKind kind;
    const char *about;
} TASKS[N_TASKS] = {
    {"agent", LABELS_SENTENCE,
     "who did it: 'Rohan killed the lion' -> Rohan, 'lion killed the Rohan' -> lion; "
     "needs order"},
    {"direction", LABELS_SENTENCE,
     "digits -> yes if the first is greater than the last, else no; needs order"},
    {"reverse", LABELS_TOKEN, "digits -> the same digits reversed, one label per token; "
     "needs order"},
    {"sort", LABELS_TOKEN, "digits -> the same digits sorted, one label per token; "
     "needs order"},
    {"previous", LABELS_TOKEN, "digits -> each digit's label is the digit before it (the "
     "first has none, '_', and is not scored); needs only the order of neighbours, not "
     "where in the sentence"},
    {"contains", LABELS_SENTENCE,
     "digits -> yes if the sequence contains 7, else no; a control that needs no order"},
    {"first", LABELS_TOKEN, "digits -> each digit's label is the sentence's first digit (the "
     "first itself has none, '_', and is not scored); needs the start of the sentence, which "
     "a causal mask gives"},
};

/* The sequence tasks' tokens; a digit's label is the digit itself. */
#define N_DIGITS 10
#define CONTAINS_DIGIT 7
static const char *const DIGITS[N_DIGITS] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};

/* agent: 8 x 8 x 8 (name, verb, animal) triples, each said in 5 forms and
 * 2 orders. Whole triples are held out for test and valid, so a model
 * must learn the rule, not the sentences. */
static const char *const NAMES[] = {"Rohan", "Priya", "Anna", "Omar",
                                    "Mei", "Lucas", "Sara", "Kofi"};
static const char *const VERBS[] = {"killed", "saw", "chased", "fed",
                                    "found", "followed", "helped", "watched"};
static const char *const ANIMALS[] = {"lion", "tiger", "bear", "wolf",
                                      "snake", "eagle", "shark", "horse"};
static const char *const WHEN[] = {"yesterday", "today"};
#define N_WORDS 8
#define N_TRIPLES (N_WORDS * N_WORDS * N_WORDS)
#define TEST_TRIPLES 64
#define VALID_TRIPLES 32
#define N_FORMS 5 /* plain, a WHEN word first (2), a WHEN word last (2) */
#define AGENT_MIN_LEN 4
#define AGENT_MAX_LEN 5

bool task_needs_future(const char *name) {
    return name && (strcmp(name, "reverse") == 0 || strcmp(name, "sort") == 0);
}

static int task_id(const char *name) {
    for (int t = 0; t < N_TASKS; t++)
        if (name && strcmp(name, TASKS[t].name) == 0)
            return t;
    return -1;
}

const char *task_names(void) {
    static char buf[128];
    if (!buf[0])
        for (int t = 0; t < N_TASKS; t++) {
            if (t)
                strcat(buf, ", ");
            strcat(buf, TASKS[t].name);
        }
    return buf;
}

bool task_exists(const char *name) { return task_id(name) >= 0; }

const char *task_about(const char *name) {
    int t = task_id(name);
    return t < 0 ? NULL : TASKS[t].about;
}

static int unknown_task(const char *name, Err *e) {
    return err_set(e, ERR_INPUT, "unknown task '%s'; choose one of: %s", name ? name : "",
                   task_names());
}

static size_t or_default(size_t v, size_t dflt) { return v ? v : dflt; }

int task_options_resolve(TaskOptions *out, const TaskOptions *in, const char *task, Err *e) {
    int t = task_id(task);
    if (t < 0)
        return unknown_task(task, e);
    *out = *in;
    if (t == AGENT) {
        /* the sentences fix the lengths; report them for sizing a model */
        out->min_len = AGENT_MIN_LEN;
        out->max_len = out->max_train_len = AGENT_MAX_LEN;
        out->n_train = or_default(in->n_train, 4000);
        out->n_valid = or_default(in->n_valid, 300);
        out->n_test = or_default(in->n_test, 600);
        out->n_valid += out->n_valid % 2; /* each sentence with its mirror */
        out->n_test += out->n_test % 2;
    } else {
        out->max_len = or_default(in->max_len, 12);
        out->min_len = or_default(in->min_len, out->max_len < 4 ? out->max_len : 4);
        out->max_train_len = or_default(in->max_train_len, out->max_len);
        out->n_train = or_default(in->n_train, 8000);
        out->n_valid = or_default(in->n_valid, 500);
        out->n_test = or_default(in->n_test, 1000);
    }
    size_t least = t == DIRECTION ? 2 : 1;
    if (out->min_len < least)
        return err_set(e, ERR_INPUT, "%s needs min_len (--min-len) of at least %zu, not %zu",
                       task, least, out->min_len);
    if (out->max_len > TASK_MAX_LEN)
        return err_set(e, ERR_INPUT, "max_len (--max-len) is %zu; the tasks make sequences of "
                       "at most %d tokens", out->max_len, TASK_MAX_LEN);
    if (out->min_len > out->max_train_len || out->max_train_len > out->max_len)
        return err_set(e, ERR_INPUT, "the lengths must satisfy min_len <= max_train_len <= "
                       "max_len, not %zu, %zu, %zu; change --min-len, --max-train-len or "
                       "--max-len", out->min_len, out->max_train_len, out->max_len);
    const size_t n[3] = {out->n_train, out->n_valid, out->n_test};
    for (int i = 0; i < 3; i++)
        if (n[i] > TASK_MAX_EXAMPLES || n[i] * out->max_len > TASK_MAX_TOKENS)
            return err_set(e, ERR_INPUT, "a split of %zu examples of up to %zu tokens is more "
                           "than a toy task makes (%d examples, %d tokens); ask for fewer",
                           n[i], out->max_len, TASK_MAX_EXAMPLES, TASK_MAX_TOKENS);
    return 0;
}

/* n sequences of digits with lengths uniform in lo..hi, and their labels. */
static int make_sequences(TextData *d, int task, Rng *r, size_t n, size_t lo, size_t hi,
                          Err *e) {
    const char *w[TASK_MAX_LEN], *lab[TASK_MAX_LEN];
    size_t x[TASK_MAX_LEN];
    for (size_t i = 0; i < n; i++) {
        size_t len = lo + rng_below(r, hi - lo + 1);
        for (size_t k = 0; k < len; k++)
            x[k] = rng_below(r, N_DIGITS);
        if (task == DIRECTION) {
            /* first and last differ, so the label is never a tie */
            x[0] = rng_below(r, N_DIGITS);
            x[len - 1] = rng_below(r, N_DIGITS - 1);
            x[len - 1] += x[len - 1] >= x[0];
            lab[0] = x[0] > x[len - 1] ? "yes" : "no";
        } else if (task == CONTAINS) {
            /* half the examples hold the digit, so always answering one
             * way scores 50% */
            bool yes = rng_below(r, 2);
            for (size_t k = 0; k < len; k++)
                if (!yes && x[k] == CONTAINS_DIGIT)
                    x[k] = (x[k] + 1 + rng_below(r, N_DIGITS - 1)) % N_DIGITS;
            if (yes)
                x[rng_below(r, len)] = CONTAINS_DIGIT;
            lab[0] = yes ? "yes" : "no";
        } else if (task == REVERSE) {
            for (size_t k = 0; k < len; k++)
                lab[k] = DIGITS[x[len - 1 - k]];
        } else if (task == PREVIOUS) {
            lab[0] = DATA_NO_LABEL; /* a fixed '-' would be a free point per sentence */
            for (size_t k = 1; k < len; k++)
                lab[k] = DIGITS[x[k - 1]];
        } else if (task == FIRST) {
            lab[0] = DATA_NO_LABEL; /* its own digit: a free point, as previous's '_' */
            for (size_t k = 1; k < len; k++)
                lab[k] = DIGITS[x[0]];
        } else {
            size_t count[N_DIGITS] = {0}, k = 0;
            for (size_t j = 0; j < len; j++)
                count[x[j]]++;
            for (size_t v = 0; v < N_DIGITS; v++)
                for (size_t c = 0; c < count[v]; c++)
                    lab[k++] = DIGITS[v];
        }
        for (size_t k = 0; k < len; k++)
            w[k] = DIGITS[x[k]];
        int rc = textdata_add(d, w, len, lab, e);
        if (rc)
            return rc;
    }
    return 0;
}

/* Items drawn without replacement, reshuffled when all have been drawn, so
 * none repeats before every one has appeared. */
typedef struct {
    size_t *item;
    size_t n, next;
} Pool;

static int pool_init(Pool *p, size_t n, Rng *r, Err *e) {
    p->item = xmalloc(n * sizeof *p->item, "a pool of sentences", e);
    if (!p->item)
        return ERR_RUNTIME;
    for (size_t i = 0; i < n; i++)
        p->item[i] = i;
    rng_shuffle(r, p->item, n);
    p->n = n;
    p->next = 0;
    return 0;
}

static size_t pool_draw(Pool *p, Rng *r) {
    if (p->next == p->n) {
        rng_shuffle(r, p->item, p->n);
        p->next = 0;
    }
    return p->item[p->next++];
}

/* A sentence "[WHEN] DOER VERB the OTHER [WHEN]"; the label is the doer. */
static int agent_add(TextData *d, size_t triple, size_t form, bool name_first, Err *e) {
    const char *name = NAMES[triple / (N_WORDS * N_WORDS)];
    const char *verb = VERBS[triple / N_WORDS % N_WORDS];
    const char *animal = ANIMALS[triple % N_WORDS];
    const char *doer = name_first ? name : animal, *other = name_first ? animal : name;
    const char *w[AGENT_MAX_LEN];
    size_t n = 0;
    if (form == 1 || form == 2)
        w[n++] = WHEN[form - 1];
    w[n++] = doer;
    w[n++] = verb;
    w[n++] = "the";
    w[n++] = other;
    if (form == 3 || form == 4)
        w[n++] = WHEN[form - 3];
    return textdata_add(d, w, n, &doer, e);
}

/* Train draws (triple, form, order) items; valid and test draw (triple,
 * form) items and add both orders, so each is closed under the mirror. */
static int agent_split(TextData *d, const size_t *triples, size_t nt, size_t n, bool mirrored,
                       bool demo_first, Rng *r, Err *e) {
    size_t per = mirrored ? N_FORMS : 2 * N_FORMS;
    Pool pool;
    int rc = pool_init(&pool, nt * per, r, e);
    if (rc)
        return rc;
    if (demo_first) {
        /* the demo's sentence (Rohan, killed, lion; plain form; item 0 when
         * triples[0] is triple 0) comes first, so it is in every test set */
        for (size_t i = 0; i < pool.n; i++)
            if (pool.item[i] == 0) {
                pool.item[i] = pool.item[0];
                pool.item[0] = 0;
            }
    }
    for (size_t i = 0; !rc && i < (mirrored ? n / 2 : n); i++) {
        size_t it = pool_draw(&pool, r);
        size_t triple = triples[it / per], form = it % per % N_FORMS;
        bool name_first = mirrored || it % per < N_FORMS;
        rc = agent_add(d, triple, form, name_first, e);
        if (!rc && mirrored)
            rc = agent_add(d, triple, form, false, e);
    }
    free(pool.item);
    return rc;
}

static int make_agent(TextData *train, TextData *valid, TextData *test, const TaskOptions *o,
                      Rng *base, Rng *split, Err *e) {
    size_t perm[N_TRIPLES];
    for (size_t i = 0; i < N_TRIPLES; i++)
        perm[i] = i;
    rng_shuffle(base, perm, N_TRIPLES);
    /* triple 0 is (Rohan, killed, lion): always held out for test */
    for (size_t i = 0; i < N_TRIPLES; i++)
        if (perm[i] == 0) {
            perm[i] = perm[0];
            perm[0] = 0;
        }
    int rc = agent_split(test, perm, TEST_TRIPLES, o->n_test, true, true, &split[2], e);
    if (!rc)
        rc = agent_split(valid, perm + TEST_TRIPLES, VALID_TRIPLES, o->n_valid, true, false,
                         &split[1], e);
    if (!rc)
        rc = agent_split(train, perm + TEST_TRIPLES + VALID_TRIPLES,
                         N_TRIPLES - TEST_TRIPLES - VALID_TRIPLES, o->n_train, false, false,
                         &split[0], e);
    return rc;
}

int task_make(TextData *train, TextData *valid, TextData *test, const char *task,
              const TaskOptions *o, Err *e) {
    int t = task_id(task);
    LabelKind kind = t < 0 ? LABELS_SENTENCE : TASKS[t].kind;
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
    if (t == AGENT) {
        rc = make_agent(train, valid, test, &r, &base, split, e);
    } else {
        rc = make_sequences(train, t, &split[0], r.n_train, r.min_len, r.max_train_len, e);
        if (!rc)
            rc = make_sequences(valid, t, &split[1], r.n_valid, r.min_len, r.max_len, e);
        if (!rc)
            rc = make_sequences(test, t, &split[2], r.n_test, r.min_len, r.max_len, e);
    }
    if (rc) {
        textdata_free(train);
        textdata_free(valid);
        textdata_free(test);
    }
    return rc;
}
