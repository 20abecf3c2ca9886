/* The experiments of docs/results.md and docs/benchmark.md
 * (build/experiments) as grids: their settings (ExpSettings, owned here:
 * the benchmark's --set is protocol.h's, a grid's folders and command
 * places.h's), the kinds of run and what each runs over (tasks, the
 * sinusoid's variants; the schemes, as the page's design chooses them,
 * design.h; the benchmark's columns), and the grid's cells, one training
 * each. Running a cell is cell.h's, its file cellfile.h's, the page
 * page/page.h's. */
#ifndef POSENC_GRID_H
#define POSENC_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/err.h"
#include "../model/model.h"
#include "../text/tasks.h"
#include "design.h"

/* Delétang et al.'s tasks, in the order of Ruoss et al.'s Table 1 (by
 * level of the Chomsky hierarchy, as their constants.py lists them). */
#define EXP_BENCH_ALL_TASKS 15
extern const char *const exp_bench_all_tasks[EXP_BENCH_ALL_TASKS];
/* The most learning rates of a sweep (--set lr=A/B/C). */
#define EXP_MAX_RATES 4

typedef struct {
    bool quick;            /* tiny settings: the pipeline, not the schemes */
    size_t d_model, heads, layers, d_ff, batch;
    size_t seeds;          /* per configuration, e.g. 3 */
    size_t variant_seeds;  /* for experiment 5, e.g. 5 */
    size_t task_steps;     /* agent and direction, e.g. 1000 */
    size_t length_steps;   /* reverse, sort, previous, e.g. 2000 */
    size_t tune_steps;     /* rope's scalings: fine-tuning at 2L, e.g. 400 */
    size_t probe_layers;   /* the causal probe's models, e.g. 4 */
    size_t min_len, L;     /* training lengths min_len..L; tests up to 4L */
    size_t random_range;   /* section 4's positions are drawn from 0..random_range-1 */
    size_t n_test;         /* test sentences of agent, direction and experiment 5 */
    size_t n_test_lengths; /* test sentences of experiments 3 and 4 */
    /* The benchmark (experiments --bench, docs/benchmark.md): Delétang et
     * al.'s tasks on Ruoss et al.'s protocol, a grid of its own. */
    bool bench;
    size_t bench_N, bench_M;  /* train on inputs of 1..N, test each length N+1..M */
    size_t bench_steps, bench_n_train;
    size_t bench_per_len;     /* test tapes per input length */
    size_t bench_test_batch;  /* ... scored in batches of this many (one draw each) */
    size_t bench_extra_seeds; /* the seeds of the columns past Ruoss et al.'s */
    size_t bench_columns;     /* the first exp_bench_column()s it runs */
    size_t bench_n_tasks;     /* its tasks, in exp_bench_all_tasks's order */
    const char *bench_task[EXP_BENCH_ALL_TASKS];
    size_t bench_n_lr;        /* its learning rates: one, or a sweep */
    double bench_lr[EXP_MAX_RATES];
    double bench_dropout;     /* the reference's 0.1 */
    /* 1: the reference code's forms where they decide numbers (its first
     * draws, no bias on attention's output projection, the loss over the
     * padding) and its columns as run ("random xl (as run)"); a size_t
     * as --set's rows are */
    size_t bench_reference;
} ExpSettings;

/* The most seeds per configuration (--seeds). */
#define EXP_MAX_SEEDS 20

/* The settings of the full run, or of --quick; seeds 0 keeps the default. */
void exp_settings(ExpSettings *s, bool quick, size_t seeds);
/* The same for the benchmark's grid (experiments --bench). */
void exp_settings_bench(ExpSettings *s, bool quick, size_t seeds);

/* The settings a grid's numbers depend on, as one line (the seed count is
 * not among them: a sixth seed reuses the first five); its folder's
 * grid.settings. */
void exp_settings_key(char *buf, size_t cap, const ExpSettings *set);

/* EXP_RANDOM_TEST has no cells of its own: it is the EXP_RANDOM runs
 * evaluated with random positions at test too (Ruoss et al.'s protocol).
 * EXP_SCALING: a rope model trained on L, then under each of rope's
 * scalings, with and without fine-tuning at 2L (the extras of the length
 * run of rope, which trains that model: exp_cell_holds_scaling);
 * EXP_CAUSAL: the length runs with the causal mask, on the tasks a causal
 * reader can do (its control without the mask is the length run of none,
 * on a length task); EXP_PROBE: the linear probe of position, layer by
 * layer, of models with no position, with and without the mask. */
typedef enum {
    EXP_ORDER,
    EXP_TASKS,
    EXP_LENGTHS,
    EXP_RANDOM,
    EXP_VARIANT,
    EXP_RANDOM_TEST,
    EXP_SCALING,
    EXP_CAUSAL,
    EXP_PROBE,
    EXP_BENCH,
    EXP_KINDS
} ExpKind;

/* The kinds' names, as in cells' ids and files ("lengths"). */
extern const char *const exp_kind_names[EXP_KINDS];

/* Its columns, from the registry (each scheme's bench_place,
 * ruoss_randomized and bench_as_run, pe.h): the standard run's in their
 * places, each randomized form ("random rope": --random-positions) beside
 * its plain one, none first as the floor, and with the reference's forms
 * (bench_reference) a randomized form as the reference's code runs it
 * beside ours ("random xl (as run)"); then, with --all-schemes, the
 * registry's other schemes in its order (not those that join the grids
 * later). exp_bench_column(s, i) is column i's name in s's grid (NULL past
 * the last); exp_bench_scheme gives the scheme a column runs and whether
 * it is randomized, exp_bench_column_options what else it sets (NULL for
 * nothing). The first exp_bench_paper() columns are Ruoss et al.'s, each
 * of the settings' seeds; the others (ours) enter no test of a claim and
 * have bench_extra_seeds. The standard run has the first
 * exp_bench_standard() (bench_columns), --all-schemes all exp_bench_all(),
 * at most EXP_BENCH_MAX. */
#define EXP_BENCH_MAX 64
const char *exp_bench_column(const ExpSettings *s, size_t i);
size_t exp_bench_paper(const ExpSettings *s);
size_t exp_bench_standard(const ExpSettings *s);
size_t exp_bench_all(const ExpSettings *s);
const char *exp_bench_scheme(const char *column, bool *randomized);
const char *exp_bench_column_options(const char *column);
/* The three at once: what a cell of the column trains (cell_bench.c). */
typedef struct {
    const char *scheme;  /* "xl" for "random xl (as run)" */
    bool randomized;     /* --random-positions */
    const char *options; /* what else it sets, as the command line writes it, or NULL */
} ExpBenchColumn;
ExpBenchColumn exp_bench_column_of(const char *column);
size_t exp_bench_seeds(const ExpSettings *set, size_t column);

/* The tasks of experiments 3 and 4. */
#define EXP_LENGTH_TASKS 3
extern const char *const exp_length_tasks[EXP_LENGTH_TASKS];


/* One training of the grid (or, in section 1, one untrained model): the
 * unit that runs on its own, writes its own file, and is never run twice. */
typedef struct {
    ExpKind kind;
    char task[32];
    char name[40];  /* the scheme, or experiment 5's variant */
    size_t seed;    /* 0-based */
    size_t variant; /* experiment 5: which (exp_variant_names) */
    char id[96];    /* its name and file name, e.g. "lengths-reverse-rope-s2" */
    double cost;    /* a weight for the time left: about its training steps */
    /* Of the page's list only: the cell whose training this one is too
     * (its id), whose file holds the results; "" for a cell of its own. */
    char held_by[96];
} ExpCell;

/* The settings a cell's numbers depend on (its file's settings line): the
 * grid's key, but a benchmark cell whose column draws no random positions
 * never reads their range, and its key does not name it, so that one file
 * serves the grids of every range (docs/formats.md). The benchmark's key
 * without the range is exp_settings_key_unranged (the results grid's key
 * is always whole). */
void exp_cell_key(char *buf, size_t cap, const ExpSettings *set, const ExpCell *cell);
void exp_settings_key_unranged(char *buf, size_t cap, const ExpSettings *set);
bool exp_cell_reads_range(const ExpSettings *set, const ExpCell *cell);

/* Every cell of the grid for set, in the page's order (allocated): each
 * training once. */
int exp_cells(const ExpSettings *set, ExpCell **cells, size_t *n, Err *e);
/* The page's list: the cells of exp_cells and, in their places, the ones
 * another cell holds (held_by): section 6's scaling-TASK-rope-sK, held by
 * lengths-TASK-rope-sK, and section 7's control without the mask on a
 * length task, held by lengths-TASK-none-sK. */
int exp_page_cells(const ExpSettings *set, ExpCell **cells, size_t *n, Err *e);
const ExpCell *exp_cell_find(const ExpCell *cells, size_t n, const char *id);
/* Whether the cell also runs section 6's scalings of its model (the
 * length runs of rope): its file has their series beside "main". */
bool exp_cell_holds_scaling(const ExpCell *cell);

#endif
