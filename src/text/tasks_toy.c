/* Our toy tasks: agent, and the digit tasks direction, reverse, sort,
 * previous, contains and first; data/README.md describes each with
 * examples. Small enough to learn in a minute on 2 cores, each chosen so
 * that its answer does (or, for contains, does not) depend on order. */
#include <stdlib.h>

#include "tasks.h"

/* The digit tasks' tokens; a digit's label is the digit itself. */
#define N_DIGITS 10
#define CONTAINS_DIGIT 7
static const char *const DIGITS[N_DIGITS] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};

/* The digit tasks' defaults: lengths 4..12, 8000, 500 and 1000 examples. */
#define DIGIT_TASK(NAME, KIND, FUTURE, LEAST, ABOUT)                                           \
    const Task task_##NAME = {.name = #NAME, .level = TASK_TOY, .kind = KIND, .about = ABOUT,   \
                              .needs_future = FUTURE, .least_len = LEAST, .min_len = 4,         \
                              .max_len = 12, .n_train = 8000, .n_valid = 500, .n_test = 1000,  \
                              .example = NAME##_example}

/* len uniform digits into x and w; every digit task draws them first. */
static void draw_digits(Rng *r, size_t len, size_t *x, const char **w) {
    for (size_t k = 0; k < len; k++)
        x[k] = rng_below(r, N_DIGITS);
    for (size_t k = 0; k < len; k++)
        w[k] = DIGITS[x[k]];
}

static size_t direction_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN];
    draw_digits(r, len, x, w);
    /* first and last differ, so the label is never a tie */
    x[0] = rng_below(r, N_DIGITS);
    x[len - 1] = rng_below(r, N_DIGITS - 1);
    x[len - 1] += x[len - 1] >= x[0];
    w[0] = DIGITS[x[0]];
    w[len - 1] = DIGITS[x[len - 1]];
    lab[0] = x[0] > x[len - 1] ? "yes" : "no";
    return len;
}

static size_t contains_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN];
    draw_digits(r, len, x, w);
    /* half the examples hold the digit, so always answering one way
     * scores 50% */
    bool yes = rng_below(r, 2);
    for (size_t k = 0; k < len; k++)
        if (!yes && x[k] == CONTAINS_DIGIT)
            x[k] = (x[k] + 1 + rng_below(r, N_DIGITS - 1)) % N_DIGITS;
    if (yes)
        x[rng_below(r, len)] = CONTAINS_DIGIT;
    for (size_t k = 0; k < len; k++)
        w[k] = DIGITS[x[k]];
    lab[0] = yes ? "yes" : "no";
    return len;
}

static size_t reverse_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN];
    draw_digits(r, len, x, w);
    for (size_t k = 0; k < len; k++)
        lab[k] = DIGITS[x[len - 1 - k]];
    return len;
}

static size_t sort_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN], count[N_DIGITS] = {0}, k = 0;
    draw_digits(r, len, x, w);
    for (size_t j = 0; j < len; j++)
        count[x[j]]++;
    for (size_t v = 0; v < N_DIGITS; v++)
        for (size_t c = 0; c < count[v]; c++)
            lab[k++] = DIGITS[v];
    return len;
}

static size_t previous_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN];
    draw_digits(r, len, x, w);
    lab[0] = DATA_NO_LABEL; /* a fixed '-' would be a free point per sentence */
    for (size_t k = 1; k < len; k++)
        lab[k] = DIGITS[x[k - 1]];
    return len;
}

static size_t first_example(Rng *r, size_t len, const char **w, const char **lab) {
    size_t x[TASK_MAX_LEN];
    draw_digits(r, len, x, w);
    lab[0] = DATA_NO_LABEL; /* its own digit: a free point, as previous's '_' */
    for (size_t k = 1; k < len; k++)
        lab[k] = DIGITS[x[0]];
    return len;
}

DIGIT_TASK(direction, LABELS_SENTENCE, false, 2,
           "digits -> yes if the first is greater than the last, else no; needs order");
DIGIT_TASK(reverse, LABELS_TOKEN, true, 1,
           "digits -> the same digits reversed, one label per token; needs order");
DIGIT_TASK(sort, LABELS_TOKEN, true, 1,
           "digits -> the same digits sorted, one label per token; needs order");
DIGIT_TASK(previous, LABELS_TOKEN, false, 1,
           "digits -> each digit's label is the digit before it (the first has none, '_', "
           "and is not scored); needs only the order of neighbours, not where in the sentence");
DIGIT_TASK(contains, LABELS_SENTENCE, false, 1,
           "digits -> yes if the sequence contains 7, else no; a control that needs no order");
DIGIT_TASK(first, LABELS_TOKEN, false, 1,
           "digits -> each digit's label is the sentence's first digit (the first itself has "
           "none, '_', and is not scored); needs the start of the sentence, which a causal "
           "mask gives");

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

static int agent_make(TextData *train, TextData *valid, TextData *test, const TaskOptions *o,
                      Rng *base, Rng split[3], Err *e) {
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

/* The sentences fix the lengths: reported for sizing a model. */
static void agent_settle(TaskOptions *o) {
    o->min_len = AGENT_MIN_LEN;
    o->max_len = o->max_train_len = AGENT_MAX_LEN;
    o->n_valid += o->n_valid % 2; /* each sentence with its mirror */
    o->n_test += o->n_test % 2;
}

const Task task_agent = {
    .name = "agent",
    .level = TASK_TOY,
    .kind = LABELS_SENTENCE,
    .about = "who did it: 'Rohan killed the lion' -> Rohan, 'lion killed the Rohan' -> lion; "
             "needs order",
    .least_len = AGENT_MIN_LEN,
    .min_len = AGENT_MIN_LEN,
    .max_len = AGENT_MAX_LEN,
    .n_train = 4000,
    .n_valid = 300,
    .n_test = 600,
    .make = agent_make,
    .settle = agent_settle,
};
