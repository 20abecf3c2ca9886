/* The grids of docs/results.md and docs/benchmark.md: their settings
 * (this file owns ExpSettings: the defaults, and the keys that name them;
 * the benchmark's --set changes them through protocol.c, and a grid's
 * places follow from them, places.c), and the names they run over
 * (tasks, the benchmark's columns from the registry); their cells are
 * cells.c's. */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/parse.h"

const char *const exp_length_tasks[EXP_LENGTH_TASKS] = {"reverse", "sort", "previous"};

const char *const exp_bench_all_tasks[EXP_BENCH_ALL_TASKS] = {
    "even_pairs",          "modular_arithmetic",          "parity_check",
    "cycle_navigation",    "stack_manipulation",          "reverse_string",
    "modular_arithmetic_brackets", "solve_equation",      "duplicate_string",
    "missing_duplicate_string", "odds_first",             "binary_addition",
    "binary_multiplication", "compute_sqrt",              "bucket_sort"};

/* The columns as the registry declares them, made once; as_run marks the
 * columns of the reference's code as run, which a grid has with its
 * reference forms only (bench_reference). */
typedef struct {
    const char *name[EXP_BENCH_MAX];
    char random[EXP_BENCH_MAX][PE_NAME_MAX + 24]; /* "random NAME", "random NAME (as run)" */
    const char *scheme[EXP_BENCH_MAX];           /* the scheme each runs */
    const char *options[EXP_BENCH_MAX];          /* what an as-run column adds, or NULL */
    bool as_run[EXP_BENCH_MAX];
    size_t n, paper, standard;
} Columns;

static const char AS_RUN[] = " (as run)";

static void put_column(Columns *c, const PeScheme *s, bool randomized, const char *as_run) {
    if (c->n == EXP_BENCH_MAX)
        return; /* a test holds the registry below it */
    if (randomized) {
        snprintf(c->random[c->n], sizeof c->random[c->n], "random %s%s", s->name,
                 as_run ? AS_RUN : "");
        c->name[c->n] = c->random[c->n];
    } else {
        c->name[c->n] = s->name;
    }
    c->scheme[c->n] = s->name;
    c->options[c->n] = as_run;
    c->as_run[c->n] = as_run != NULL;
    c->n++;
}

static const Columns *columns(void) {
    static Columns c;
    if (c.n)
        return &c;
    unsigned last = 0;
    for (size_t i = 0; i < pe_count(); i++)
        last = pe_at(i)->bench_place > last ? pe_at(i)->bench_place : last;
    for (unsigned place = 1; place <= last; place++)
        for (size_t i = 0; i < pe_count(); i++) {
            const PeScheme *s = pe_at(i);
            if (s->bench_place != place || s->grids_later)
                continue;
            put_column(&c, s, false, NULL);
            if (s->ruoss_randomized)
                put_column(&c, s, true, NULL);
            if (s->ruoss_randomized && s->bench_as_run)
                put_column(&c, s, true, s->bench_as_run);
            if (s->ruoss_column)
                c.paper = c.n;
        }
    c.standard = c.n;
    for (size_t i = 0; i < pe_count(); i++)
        if (!pe_at(i)->bench_place && !pe_at(i)->grids_later)
            put_column(&c, pe_at(i), false, NULL);
    return &c;
}

/* The place in the registry's list of the grid's column i, or the list's
 * length past its last: without the reference forms, the as-run columns
 * are not the grid's. */
static size_t place_of(const ExpSettings *s, size_t i) {
    const Columns *c = columns();
    size_t k = 0;
    for (; k < c->n; k++)
        if (s->bench_reference || !c->as_run[k]) {
            if (i == 0)
                break;
            i--;
        }
    return k;
}

/* The grid's columns among the list's first k. */
static size_t count_below(const ExpSettings *s, size_t k) {
    const Columns *c = columns();
    size_t n = 0;
    for (size_t i = 0; i < k && i < c->n; i++)
        n += s->bench_reference || !c->as_run[i];
    return n;
}

const char *exp_bench_column(const ExpSettings *s, size_t i) {
    size_t k = place_of(s, i);
    return k < columns()->n ? columns()->name[k] : NULL;
}
size_t exp_bench_paper(const ExpSettings *s) { return count_below(s, columns()->paper); }
size_t exp_bench_standard(const ExpSettings *s) { return count_below(s, columns()->standard); }
size_t exp_bench_all(const ExpSettings *s) { return count_below(s, columns()->n); }

size_t exp_bench_seeds(const ExpSettings *set, size_t column) {
    return column < exp_bench_paper(set) ? set->seeds : set->bench_extra_seeds;
}

ExpBenchColumn exp_bench_column_of(const char *column) {
    static const char RANDOM[] = "random ";
    bool randomized = strncmp(column, RANDOM, sizeof RANDOM - 1) == 0;
    const Columns *c = columns();
    for (size_t k = 0; k < c->n; k++)
        if (strcmp(c->name[k], column) == 0) /* "random xl (as run)": xl */
            return (ExpBenchColumn){c->scheme[k], randomized, c->options[k]};
    return (ExpBenchColumn){randomized ? column + sizeof RANDOM - 1 : column, randomized, NULL};
}

const char *exp_bench_scheme(const char *column, bool *randomized) {
    ExpBenchColumn c = exp_bench_column_of(column);
    *randomized = c.randomized;
    return c.scheme;
}

const char *exp_bench_column_options(const char *column) {
    return exp_bench_column_of(column).options;
}

void exp_settings(ExpSettings *s, bool quick, size_t seeds) {
    memset(s, 0, sizeof *s);
    s->quick = quick;
    if (quick) {
        s->d_model = 16, s->heads = 2, s->layers = 1, s->d_ff = 32, s->batch = 16;
        s->seeds = 2, s->variant_seeds = 2;
        s->task_steps = 60, s->length_steps = 60, s->tune_steps = 10, s->probe_layers = 2;
        s->min_len = 2, s->L = 4;
        s->n_test = 100, s->n_test_lengths = 200;
    } else {
        s->d_model = 32, s->heads = 4, s->layers = 2, s->d_ff = 128, s->batch = 32;
        /* ten: with five against five the smallest exact two-sided p is
         * 2/252, which no correction over seven tests or more rejects */
        s->seeds = 10, s->variant_seeds = 10;
        s->task_steps = 1500, s->length_steps = 4000, s->tune_steps = 400, s->probe_layers = 4;
        s->min_len = 4, s->L = 8;
        s->n_test = 1000, s->n_test_lengths = 2000;
    }
    /* Ruoss et al. draw from 2048 positions for tests up to 500: the range
     * about four times the longest test */
    s->random_range = 4 * (4 * s->L);
    if (seeds)
        s->seeds = seeds, s->variant_seeds = seeds > s->variant_seeds ? seeds : s->variant_seeds;
}

/* Ruoss et al. train on 1..40 and test to 500 (their example script: to
 * 100, 10,000 steps of 128, width 64, 5 layers), drawing positions from
 * 2048. Ours keeps the paper's M/N = 12.5 at N = 10, on their model:
 * the differences are on docs/benchmark.md. */
void exp_settings_bench(ExpSettings *s, bool quick, size_t seeds) {
    memset(s, 0, sizeof *s);
    s->bench = true, s->quick = quick;
    s->batch = 32;
    s->bench_n_tasks = EXP_BENCH_ALL_TASKS;
    for (size_t t = 0; t < EXP_BENCH_ALL_TASKS; t++)
        s->bench_task[t] = exp_bench_all_tasks[t];
    s->bench_n_lr = 1, s->bench_lr[0] = 3e-4;
    /* the reference's example drops 0.1; the pilots learn faster without
     * (docs/benchmark/pilots.csv), and the page lists the difference */
    s->bench_dropout = 0.0;
    if (quick) {
        s->d_model = 16, s->heads = 2, s->layers = 1, s->d_ff = 32;
        s->seeds = 2;
        s->bench_N = 4, s->bench_M = 8, s->bench_steps = 60;
        s->bench_n_train = 500, s->bench_per_len = 16, s->bench_test_batch = 8;
        s->random_range = 64;
    } else {
        /* the paper's model (5 layers, width 64, 8 heads, d_ff 256) at the
         * cheapest recipe of the pilots under which the randomized forms
         * learn the training lengths (docs/benchmark/pilots.csv, the page's
         * "The recipe"): 6000 steps at 3e-4 */
        s->d_model = 64, s->heads = 8, s->layers = 5, s->d_ff = 256;
        /* three seeds of the paper's columns (the standard run: the
         * budget of docs/experiments.md), at most five of the others, and
         * 64 test tapes a length; the training sentences are new every
         * step, the pool only gives the words and classes */
        s->seeds = 3, s->bench_extra_seeds = 5;
        /* the paper's lengths: training on 1..10 and tests to 125, the
         * paper's M/N = 12.5 (its 40 and 500) */
        s->bench_N = 10, s->bench_M = 125, s->bench_steps = 6000;
        s->bench_n_train = 2000, s->bench_per_len = 64, s->bench_test_batch = 32;
        /* the paper's range: the longest test tape (duplicate_string, 3M =
         * 375 words) fits 5.5 times */
        s->random_range = 2048;
    }
    /* the reference code's forms where they decide numbers (its first
     * draws, no bias on the output projection, the loss over the padding)
     * and its random xl as run beside ours; reference=0 is the grid
     * before them */
    s->bench_reference = 1;
    s->bench_columns = exp_bench_standard(s);
    if (seeds)
        s->seeds = seeds;
    /* quick, every column has the seeds; else ours at most five */
    if (quick || s->seeds < s->bench_extra_seeds)
        s->bench_extra_seeds = s->seeds;
}

/* The benchmark's rates "1e-3/3e-4" and its tasks: "all", or the mask of
 * their places in exp_bench_all_tasks ("0x0021": the first and sixth). */
static void bench_lists(char *rates, size_t cap_rates, char *tasks, size_t cap_tasks,
                        const ExpSettings *s) {
    size_t used = 0;
    rates[0] = '\0';
    for (size_t i = 0; i < s->bench_n_lr && used < cap_rates; i++) {
        char one[32]; /* the shortest text that reads back as the rate: 3e-4, not 0.000299... */
        real_text(one, sizeof one, s->bench_lr[i], false);
        int n = snprintf(rates + used, cap_rates - used, "%s%s", i ? "/" : "", one);
        used += n > 0 ? (size_t)n : 0;
    }
    unsigned mask = 0;
    for (size_t t = 0; t < s->bench_n_tasks; t++)
        for (size_t k = 0; k < EXP_BENCH_ALL_TASKS; k++)
            if (strcmp(s->bench_task[t], exp_bench_all_tasks[k]) == 0)
                mask |= 1u << k;
    if (mask == (1u << EXP_BENCH_ALL_TASKS) - 1)
        snprintf(tasks, cap_tasks, "all");
    else
        snprintf(tasks, cap_tasks, "0x%04x", mask);
}

/* The key, with the range of the random positions or without it. */
static void settings_key(char *buf, size_t cap, const ExpSettings *s, bool range) {
    if (s->bench) {
        /* protocol=ruoss: fresh sentences, the reference's draws, forms,
         * optimizer and first scales (cell_bench.c) */
        char rates[128], tasks[16], dropout[32], ranged[48] = "";
        bench_lists(rates, sizeof rates, tasks, sizeof tasks, s);
        real_text(dropout, sizeof dropout, s->bench_dropout, false);
        if (range)
            snprintf(ranged, sizeof ranged, " random_range=%zu", s->random_range);
        snprintf(buf, cap, "bench protocol=ruoss quick=%d d_model=%zu heads=%zu layers=%zu "
                 "d_ff=%zu batch=%zu N=%zu M=%zu steps=%zu lr=%s dropout=%s n_train=%zu "
                 "per_len=%zu test_batch=%zu%s tasks=%s",
                 s->quick, s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->bench_N,
                 s->bench_M, s->bench_steps, rates, dropout, s->bench_n_train,
                 s->bench_per_len, s->bench_test_batch, ranged, tasks);
        if (s->bench_reference) /* named when set: the older cells' keys stay theirs */
            snprintf(buf + strlen(buf), cap - strlen(buf), " reference=1");
        return;
    }
    snprintf(buf, cap, "quick=%d d_model=%zu heads=%zu layers=%zu d_ff=%zu batch=%zu "
             "task_steps=%zu length_steps=%zu min_len=%zu L=%zu n_test=%zu n_test_lengths=%zu "
             "tune_steps=%zu probe_layers=%zu random_range=%zu",
             s->quick, s->d_model, s->heads, s->layers, s->d_ff, s->batch, s->task_steps,
             s->length_steps, s->min_len, s->L, s->n_test, s->n_test_lengths, s->tune_steps,
             s->probe_layers, s->random_range);
}

void exp_settings_key(char *buf, size_t cap, const ExpSettings *s) {
    settings_key(buf, cap, s, true);
}

void exp_settings_key_unranged(char *buf, size_t cap, const ExpSettings *s) {
    settings_key(buf, cap, s, !s->bench);
}

bool exp_cell_reads_range(const ExpSettings *s, const ExpCell *cell) {
    bool randomized = true;
    if (s->bench && cell->kind == EXP_BENCH)
        exp_bench_scheme(cell->name, &randomized);
    return randomized;
}

void exp_cell_key(char *buf, size_t cap, const ExpSettings *s, const ExpCell *cell) {
    settings_key(buf, cap, s, exp_cell_reads_range(s, cell));
}
