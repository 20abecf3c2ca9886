/* The built-in tasks: reproducible, labelled right, split as promised. */
#include <stdlib.h>
#include <string.h>

#include "../src/core/buf.h"
#include "../src/text/tasks.h"
#include "suites.h"

static const char *const ALL[] = {"agent", "direction", "reverse", "sort", "contains"};
static const char *const SEQUENCE[] = {"direction", "reverse",  "sort",
                                       "contains",  "previous", "first"};

static void make(TextData s[3], const char *task, const TaskOptions *o) {
    Err e;
    ck_assert_msg(task_make(&s[0], &s[1], &s[2], task, o, &e) == 0, "%s: %s", task, e.msg);
}

static void free3(TextData s[3]) {
    for (int k = 0; k < 3; k++)
        textdata_free(&s[k]);
}

static bool same(const TextData *a, const TextData *b) {
    if (a->n != b->n || a->kind != b->kind)
        return false;
    bool eq = true;
    for (size_t i = 0; eq && i < a->n; i++)
        for (int lab = 0; eq && lab < 2; lab++) {
            char *x = example_joined(a, i, lab), *y = example_joined(b, i, lab);
            eq = strcmp(x, y) == 0;
            free(x);
            free(y);
        }
    return eq;
}

/* A sorted set of strings, for membership tests. */
typedef struct {
    char **s;
    size_t n;
} Set;

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void set_add(Set *set, char *s) {
    set->s = realloc(set->s, (set->n + 1) * sizeof *set->s);
    ck_assert_ptr_nonnull(set->s);
    set->s[set->n++] = s;
}

static bool set_has(const Set *set, const char *s) {
    return bsearch(&s, set->s, set->n, sizeof *set->s, cmp_str) != NULL;
}

static void set_free(Set *set) {
    for (size_t i = 0; i < set->n; i++)
        free(set->s[i]);
    free(set->s);
    memset(set, 0, sizeof *set);
}

static char *cat3(const char *a, const char *b, const char *c) {
    size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
    char *s = malloc(n);
    ck_assert_ptr_nonnull(s);
    snprintf(s, n, "%s|%s|%s", a, b, c);
    return s;
}

START_TEST(names_and_descriptions) {
    ck_assert_str_eq(task_names(), "agent, direction, reverse, sort, previous, contains, first, "
                     "even_pairs, modular_arithmetic, parity_check, cycle_navigation, "
                     "stack_manipulation, reverse_string, modular_arithmetic_brackets, "
                     "solve_equation, duplicate_string, missing_duplicate_string, odds_first, "
                     "binary_addition, binary_multiplication, compute_sqrt, bucket_sort");
    /* the registry is the one list: names, levels and the questions the
     * programs ask come from it */
    ck_assert_uint_eq(task_count(), 22);
    ck_assert_ptr_null(task_at(task_count()));
    size_t per_level[4] = {0};
    for (size_t i = 0; i < task_count(); i++) {
        const Task *t = task_at(i);
        ck_assert_ptr_eq(task_find(t->name), t);
        ck_assert_str_eq(task_about(t->name), t->about);
        ck_assert(task_needs_future(t->name) == t->needs_future);
        ck_assert_msg((t->example != NULL) != (t->make != NULL), "%s", t->name);
        per_level[t->level]++;
        /* the benchmark's tapes put every label after the whole input */
        if (t->level != TASK_TOY)
            ck_assert(t->kind == LABELS_TOKEN && !t->needs_future && t->blanks);
    }
    ck_assert(per_level[TASK_TOY] == 7 && per_level[TASK_REGULAR] == 4 &&
              per_level[TASK_DCF] == 4 && per_level[TASK_CS] == 7);
    ck_assert_str_eq(task_level_name(task_find("stack_manipulation")->level), "dcf");
    ck_assert(task_needs_future("reverse") && task_needs_future("sort"));
    ck_assert(!task_needs_future("reverse_string") && !task_needs_future("agent"));
    for (size_t t = 0; t < 5; t++) {
        ck_assert(task_exists(ALL[t]));
        ck_assert_ptr_nonnull(task_about(ALL[t]));
    }
    ck_assert(!task_exists("copy"));
    ck_assert(!task_exists(""));
    ck_assert_ptr_null(task_about("copy"));
    ck_assert_ptr_nonnull(strstr(task_about("contains"), "contains 7"));
}
END_TEST

START_TEST(defaults_and_bad_options) {
    TaskOptions o = {0}, r;
    Err e;
    ck_assert_int_eq(task_options_resolve(&r, &o, "reverse", &e), 0);
    ck_assert(r.min_len == 4 && r.max_len == 12 && r.max_train_len == 12);
    ck_assert(r.n_train == 8000 && r.n_valid == 500 && r.n_test == 1000 && r.seed == 0);
    o.n_test = 7;
    o.max_len = 40; /* agent reports its own lengths */
    ck_assert_int_eq(task_options_resolve(&r, &o, "agent", &e), 0);
    ck_assert(r.min_len == 4 && r.max_len == 5 && r.max_train_len == 5);
    ck_assert(r.n_train == 4000 && r.n_valid == 300 && r.n_test == 8);
    o = (TaskOptions){.max_len = 3};
    ck_assert_int_eq(task_options_resolve(&r, &o, "sort", &e), 0);
    ck_assert_uint_eq(r.min_len, 3);
    /* the benchmark's tasks start at length 1, where their edge cases are */
    o = (TaskOptions){0};
    ck_assert_int_eq(task_options_resolve(&r, &o, "binary_addition", &e), 0);
    ck_assert(r.min_len == 1 && r.max_len == 12 && r.max_train_len == 12);
    ck_assert(r.n_train == 8000 && r.n_valid == 500 && r.n_test == 1000);
    ck_assert_uint_eq(task_longest(task_find("binary_addition"), &r), 25);
    o = (TaskOptions){.max_len = 170};
    ck_assert_int_eq(task_options_resolve(&r, &o, "duplicate_string", &e), 0);
    ck_assert_uint_eq(task_longest(task_find("duplicate_string"), &r), 510);

    static const struct {
        const char *task;
        TaskOptions o;
        const char *what;
    } bad[] = {
        {"direction", {.min_len = 1}, "at least 2"},
        {"reverse", {.min_len = 8, .max_len = 6}, "min_len <= max_train_len <= max_len"},
        {"sort", {.max_train_len = 20, .max_len = 12}, "--max-train-len"},
        {"contains", {.max_len = TASK_MAX_LEN + 1}, "at most 512"},
        {"reverse", {.n_train = TASK_MAX_EXAMPLES + 1}, "ask for fewer"},
        {"reverse", {.n_valid = 100000, .max_len = 512}, "ask for fewer"},
        {"copy", {0}, "choose one of: agent, direction"},
        /* a tape holds the input and its blanks, 512 words in all */
        {"duplicate_string", {.max_len = 171}, "would be 513 words"},
        {"duplicate_string", {.max_len = 171}, "give --max-len 170 or less"},
        {"duplicate_string", {.max_len = 512}, "give --max-len 170 or less"},
        {"binary_addition", {.max_len = 256}, "give --max-len 255 or less"},
        {"compute_sqrt", {.max_len = 342}, "give --max-len 341 or less"},
        {"reverse_string", {.min_len = 300, .max_len = 300}, "give --max-len 256 or less"},
        {"duplicate_string", {.n_valid = 100000, .max_len = 100}, "up to 300 tokens"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(task_options_resolve(&r, &bad[i].o, bad[i].task, &e), ERR_INPUT);
        ck_assert_msg(strstr(e.msg, bad[i].what), "want '%s' in: %s", bad[i].what, e.msg);
        TextData s[3];
        ck_assert_int_eq(task_make(&s[0], &s[1], &s[2], bad[i].task, &bad[i].o, &e), ERR_INPUT);
        for (int k = 0; k < 3; k++)
            ck_assert(s[k].n == 0 && s[k].start == NULL);
        free3(s);
    }
}
END_TEST

START_TEST(same_seed_same_data) {
    for (size_t t = 0; t < 5; t++) {
        TaskOptions o = {.n_train = 300, .n_valid = 50, .n_test = 60, .seed = 5};
        TextData a[3], b[3], c[3];
        make(a, ALL[t], &o);
        make(b, ALL[t], &o);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(same(&a[k], &b[k]), "%s split %d", ALL[t], k);
        o.seed = 6;
        make(c, ALL[t], &o);
        ck_assert_msg(!same(&a[0], &c[0]) && !same(&a[2], &c[2]), "%s", ALL[t]);
        free3(c);
        /* each split has its own stream: another train size, the same test */
        o.seed = 5;
        o.n_train = 200;
        make(c, ALL[t], &o);
        ck_assert_uint_eq(c[0].n, 200);
        ck_assert_msg(same(&a[2], &c[2]) && same(&a[1], &c[1]), "%s", ALL[t]);
        free3(a);
        free3(b);
        free3(c);
    }
}
END_TEST

/* Recomputes the label of every example and checks lengths lo..hi; counts
 * the "yes" labels and records the longest example. */
static void check_sequences(const TextData *d, const char *task, size_t lo, size_t hi,
                            size_t *longest, size_t *yes) {
    /* ck_check: checks for each of some hundred thousand tokens */
    for (size_t i = 0; i < d->n; i++) {
        size_t a = d->start[i], n = d->start[i + 1] - a;
        ck_check(n >= lo && n <= hi, "%s: length %zu", task, n);
        if (n > *longest)
            *longest = n;
        int x[TASK_MAX_LEN], count[10] = {0};
        for (size_t k = 0; k < n; k++) {
            const char *w = d->word[a + k];
            ck_check(w[0] >= '0' && w[0] <= '9' && w[1] == '\0', "%s example %zu: word '%s'",
                     task, i, w);
            x[k] = w[0] - '0';
            count[x[k]]++;
        }
        const char *want = NULL; /* a sentence's label */
        if (strcmp(task, "direction") == 0) {
            ck_check(x[0] != x[n - 1], "direction example %zu: ends as it begins", i);
            want = x[0] > x[n - 1] ? "yes" : "no";
        } else if (strcmp(task, "contains") == 0) {
            want = count[7] ? "yes" : "no";
        } else if (strcmp(task, "reverse") == 0) {
            for (size_t k = 0; k < n; k++)
                ck_check(strcmp(d->label[a + k], d->word[a + n - 1 - k]) == 0,
                         "reverse example %zu, word %zu: label '%s'", i, k, d->label[a + k]);
        } else if (strcmp(task, "previous") == 0) {
            /* the first word has no word before it: no label, not scored */
            ck_check(strcmp(d->label[a], DATA_NO_LABEL) == 0,
                     "previous example %zu: the first word's label '%s'", i, d->label[a]);
            for (size_t k = 1; k < n; k++)
                ck_check(strcmp(d->label[a + k], d->word[a + k - 1]) == 0,
                         "previous example %zu, word %zu: label '%s'", i, k, d->label[a + k]);
        } else if (strcmp(task, "first") == 0) {
            /* the first word's label would be itself: none, not scored */
            ck_check(strcmp(d->label[a], DATA_NO_LABEL) == 0,
                     "first example %zu: the first word's label '%s'", i, d->label[a]);
            for (size_t k = 1; k < n; k++)
                ck_check(strcmp(d->label[a + k], d->word[a]) == 0,
                         "first example %zu, word %zu: label '%s'", i, k, d->label[a + k]);
        } else {
            for (size_t k = 0; k < n; k++) {
                const char *l = d->label[a + k];
                ck_check(l[0] >= '0' && l[0] <= '9' && l[1] == '\0',
                         "%s example %zu, word %zu: label '%s'", task, i, k, l);
                if (k)
                    ck_check(d->label[a + k - 1][0] <= l[0],
                             "%s example %zu, word %zu: '%s' after '%s'", task, i, k, l,
                             d->label[a + k - 1]);
                count[l[0] - '0']--;
            }
            for (int v = 0; v < 10; v++) /* the same digits */
                ck_check(count[v] == 0, "%s example %zu: the words hold %d more %ds than the "
                         "labels", task, i, count[v], v);
        }
        if (want)
            ck_check(strcmp(d->label[i], want) == 0, "%s example %zu: label '%s', want '%s'",
                     task, i, d->label[i], want);
        if (d->kind == LABELS_SENTENCE && strcmp(d->label[i], "yes") == 0)
            ++*yes;
    }
}

START_TEST(sequence_labels_and_lengths) {
    for (size_t t = 0; t < sizeof SEQUENCE / sizeof *SEQUENCE; t++) {
        const char *task = SEQUENCE[t];
        TaskOptions o = {.min_len = 3, .max_train_len = 6, .max_len = 10, .n_train = 2000,
                         .n_valid = 300, .n_test = 1000, .seed = 11};
        TextData s[3];
        make(s, task, &o);
        ck_assert_uint_eq(s[0].n, 2000);
        ck_assert_uint_eq(s[1].n, 300);
        ck_assert_uint_eq(s[2].n, 1000);
        ck_assert_int_eq(s[0].kind, strcmp(task, "reverse") && strcmp(task, "sort") &&
                                        strcmp(task, "previous") && strcmp(task, "first")
                                                                 ? LABELS_SENTENCE
                                                                 : LABELS_TOKEN);
        size_t longest[3] = {0}, yes = 0, ignored = 0;
        check_sequences(&s[0], task, 3, 6, &longest[0], &yes);
        check_sequences(&s[1], task, 3, 10, &longest[1], &ignored);
        check_sequences(&s[2], task, 3, 10, &longest[2], &ignored);
        ck_assert_uint_eq(longest[0], 6);
        ck_assert_uint_eq(longest[2], 10); /* test probes lengths past training */
        if (s[0].kind == LABELS_SENTENCE)
            ck_assert_msg(yes > 800 && yes < 1200, "%s: %zu of 2000 say yes", task, yes);
        free3(s);
    }
    TaskOptions o = {.seed = 2};
    TextData s[3];
    make(s, "direction", &o);
    ck_assert(s[0].n == 8000 && s[1].n == 500 && s[2].n == 1000);
    size_t longest = 0, yes = 0;
    for (int k = 0; k < 3; k++)
        check_sequences(&s[k], "direction", 4, 12, &longest, &yes);
    ck_assert_uint_eq(longest, 12);
    free3(s);
}
END_TEST

/* In an agent sentence "[when] DOER VERB the OTHER [when]", the index of
 * "the"; checks the shape and that the label is the doer. */
static size_t agent_the(const TextData *d, size_t i) {
    size_t a = d->start[i], n = d->start[i + 1] - a, k = 0;
    ck_assert(n == 4 || n == 5);
    while (k < n && strcmp(d->word[a + k], "the") != 0)
        k++;
    ck_assert(k == 2 || k == 3);
    ck_assert(k + 1 < n);
    ck_assert_str_eq(d->label[i], d->word[a + k - 2]);
    ck_assert_str_ne(d->word[a + k - 2], d->word[a + k + 1]);
    return a + k;
}

/* The (noun, noun, verb) triple of example i, nouns in sorted order. */
static char *agent_triple(const TextData *d, size_t i) {
    size_t the = agent_the(d, i);
    const char *x = d->word[the - 2], *y = d->word[the + 1];
    return strcmp(x, y) < 0 ? cat3(x, y, d->word[the - 1]) : cat3(y, x, d->word[the - 1]);
}

/* The example "label|sentence" and its mirror, nouns and label swapped. */
static void agent_keys(const TextData *d, size_t i, char **self, char **mirror) {
    size_t the = agent_the(d, i), a = d->start[i], b = d->start[i + 1];
    char *s = example_joined(d, i, false);
    *self = cat3(d->label[i], s, "");
    free(s);
    char *w[5];
    for (size_t k = a; k < b; k++)
        w[k - a] = d->word[k];
    w[the - 2 - a] = d->word[the + 1];
    w[the + 1 - a] = d->word[the - 2];
    TextData m;
    Err e;
    textdata_init(&m, LABELS_SENTENCE);
    ck_assert_int_eq(textdata_add(&m, (const char *const *)w, b - a,
                                  (const char *const *)&w[the - 2 - a], &e), 0);
    s = example_joined(&m, 0, false);
    *mirror = cat3(m.label[0], s, "");
    free(s);
    textdata_free(&m);
}

START_TEST(agent_splits) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
        TaskOptions o = {.seed = seed};
        TextData s[3];
        make(s, "agent", &o);
        ck_assert(s[0].n == 4000 && s[1].n == 300 && s[2].n == 600);
        char *first = example_joined(&s[2], 0, false), *second = example_joined(&s[2], 1, false);
        ck_assert_str_eq(first, "Rohan killed the lion"); /* demo_order's sentence */
        ck_assert_str_eq(second, "lion killed the Rohan");
        ck_assert_str_eq(s[2].label[1], "lion");
        free(first);
        free(second);

        Set triples[3] = {{0}}, labels = {0};
        for (int k = 0; k < 3; k++) {
            for (size_t i = 0; i < s[k].n; i++) {
                set_add(&triples[k], agent_triple(&s[k], i));
                if (k == 0)
                    set_add(&labels, cat3(s[k].label[i], "", ""));
            }
            qsort(triples[k].s, triples[k].n, sizeof *triples[k].s, cmp_str);
        }
        qsort(labels.s, labels.n, sizeof *labels.s, cmp_str);
        for (int k = 1; k < 3; k++) {
            Set self = {0}, blind = {0};
            for (size_t i = 0; i < s[k].n; i++) {
                char *key, *mirror;
                agent_keys(&s[k], i, &key, &mirror);
                set_add(&self, key);
                free(mirror);
                /* held-out triples: no train sentence shares the words */
                char *t = agent_triple(&s[k], i);
                ck_assert_msg(!set_has(&triples[0], t), "%s is in train", t);
                ck_assert(k == 2 || !set_has(&triples[2], t));
                free(t);
                /* every doer of the test was a doer in training */
                char *l = cat3(s[k].label[i], "", "");
                ck_assert_msg(set_has(&labels, l), "%s is never a label in train", l);
                free(l);
                /* the sentence as a bag of words, with its label */
                size_t a = s[k].start[i], n = s[k].start[i + 1] - a;
                char *w[5];
                memcpy(w, s[k].word + a, n * sizeof *w);
                qsort(w, n, sizeof *w, cmp_str);
                char bag[256] = "";
                for (size_t j = 0; j < n; j++)
                    strcat(strcat(bag, w[j]), " ");
                set_add(&blind, cat3(bag, s[k].label[i], ""));
            }
            qsort(self.s, self.n, sizeof *self.s, cmp_str);
            for (size_t i = 0; i < s[k].n; i++) {
                char *key, *mirror;
                agent_keys(&s[k], i, &key, &mirror);
                ck_assert_msg(set_has(&self, mirror), "the mirror of %s is missing", key);
                free(key);
                free(mirror);
            }
            /* a model blind to order sees one bag for a sentence and its
             * mirror; the best it can do is the commonest label per bag */
            qsort(blind.s, blind.n, sizeof *blind.s, cmp_str);
            size_t best = 0;
            for (size_t i = 0; i < blind.n;) {
                size_t bag_len = strchr(blind.s[i], '|') - blind.s[i], top = 0, j = i;
                while (j < blind.n && strncmp(blind.s[j], blind.s[i], bag_len + 1) == 0) {
                    size_t run = 1;
                    while (j + run < blind.n && strcmp(blind.s[j + run], blind.s[j]) == 0)
                        run++;
                    top = run > top ? run : top;
                    j += run;
                }
                best += top;
                i = j;
            }
            ck_assert_msg(2 * best <= s[k].n, "an order-blind model gets %zu of %zu", best,
                          s[k].n);
            set_free(&self);
            set_free(&blind);
        }
        for (int k = 0; k < 3; k++)
            set_free(&triples[k]);
        set_free(&labels);
        free3(s);
    }
}
END_TEST

/* FNV-1a's loop (64-bit, from the checksum's basis) over the three
 * splits, one line per example: words, tab, labels. */
static uint64_t splits_hash(const TextData s[3]) {
    uint64_t h = POSENC_FNV_BASIS;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < s[k].n; i++)
            for (int lab = 0; lab < 2; lab++) {
                char *x = example_joined(&s[k], i, lab);
                for (const char *c = x; *c; c++)
                    h = (h ^ (unsigned char)*c) * POSENC_FNV_PRIME;
                h = (h ^ (unsigned char)(lab ? '\n' : '\t')) * POSENC_FNV_PRIME;
                free(x);
            }
    return h;
}

/* The toy tasks' examples, byte for byte, as they were before the tasks
 * moved onto the registry (hashes taken from the code of commit e33dc93):
 * models, results and pages made before then stay reproducible. */
START_TEST(toy_tasks_unchanged) {
    static const char *const toy[] = {"agent", "direction", "reverse", "sort",
                                       "previous", "contains", "first"};
    static const TaskOptions opts[2] = {
        {.seed = 1},
        {.min_len = 2, .max_train_len = 7, .max_len = 15, .n_train = 500, .n_valid = 61,
         .n_test = 77, .seed = 0},
    };
    static const uint64_t want[7][2] = {
        {0xdf59db09a4914b40u, 0x040d09927e8c15e3u}, {0xe3aeffef2568f814u, 0x55db5011bf3ec74au},
        {0x5cc43b66cae92d3bu, 0x0f6516e7e2e844e7u}, {0x1f4ea809d6c86d5bu, 0x173044dce97be22fu},
        {0xc8e11819027c4b30u, 0x8b9051908bfd9261u}, {0xc87e1ec4157bf542u, 0x66040254511eff9cu},
        {0xb6a724d73b117a8fu, 0x9f57c7a7f987ccc4u},
    };
    for (size_t t = 0; t < 7; t++)
        for (int k = 0; k < 2; k++) {
            TextData s[3];
            make(s, toy[t], &opts[k]);
            uint64_t h = splits_hash(s);
            ck_assert_msg(h == want[t][k], "%s, options %d: hash 0x%016llx", toy[t], k,
                          (unsigned long long)h);
            free3(s);
        }
}
END_TEST

Suite *suite_tasks(void) {
    Suite *s = suite_create("tasks");
    TCase *tc = tcase_create("generators");
    tcase_add_test(tc, names_and_descriptions);
    tcase_add_test(tc, defaults_and_bad_options);
    tcase_add_test(tc, same_seed_same_data);
    tcase_add_test(tc, sequence_labels_and_lengths);
    tcase_add_test(tc, agent_splits);
    tcase_add_test(tc, toy_tasks_unchanged);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_chomsky());
    suite_add_tcase(s, tcase_make_data());
    return s;
}
