/* The experiments of docs/results.md (build/experiments): their settings,
 * the results of every run, and the page, tables and CSV files written
 * from them. The runs themselves are trials (trial.h). */
#ifndef POSENC_EXPERIMENT_H
#define POSENC_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/buf.h"
#include "../core/err.h"
#include "../model/model.h"

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
    size_t n_test;         /* test sentences of agent, direction and experiment 5 */
    size_t n_test_lengths; /* test sentences of experiments 3 and 4 */
} ExpSettings;

/* The most seeds per configuration (--seeds). */
#define EXP_MAX_SEEDS 20

/* The settings of the full run, or of --quick; seeds 0 keeps the default. */
void exp_settings(ExpSettings *s, bool quick, size_t seeds);

/* EXP_RANDOM_TEST has no cells of its own: it is the EXP_RANDOM runs
 * evaluated with random positions at test too (Ruoss et al.'s protocol).
 * EXP_SCALING: a rope model trained on L, then under each of rope's
 * scalings, with and without fine-tuning at 2L (one cell, its extras);
 * EXP_CAUSAL: the length runs with the causal mask, on the tasks a causal
 * reader can do; EXP_PROBE: the linear probe of position, layer by layer,
 * of models with no position, with and without the mask. */
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
    EXP_KINDS
} ExpKind;

/* Rope's scalings of EXP_SCALING, as its runs are named: "none",
 * "linear-x2", ... "yarn-x4"; each also as NAME-tuned, fine-tuned at 2L. */
#define EXP_SCALINGS 7
extern const char *const exp_scaling_names[EXP_SCALINGS];

/* The tasks and schemes of EXP_CAUSAL, and the models of EXP_PROBE. */
#define EXP_CAUSAL_TASKS 2
extern const char *const exp_causal_tasks[EXP_CAUSAL_TASKS];
#define EXP_CAUSAL_SCHEMES 6
extern const char *const exp_causal_schemes[EXP_CAUSAL_SCHEMES];
/* EXP_CAUSAL's control: none without the mask, on the same tasks */
#define EXP_NO_MASK "none, no mask"
#define EXP_PROBES 2
extern const char *const exp_probe_names[EXP_PROBES];

/* The schemes of sections 1 to 3: every scheme, then the forms of one that
 * an encoder would also use ("asymmetric alibi"). exp_scheme_at(i) for
 * i < exp_scheme_count(); exp_scheme_form sets up c (config_default'ed for
 * the form's scheme) for the form. */
size_t exp_scheme_count(void);
const char *exp_scheme_at(size_t i);
/* The scheme a name of exp_scheme_at runs: "alibi" for "asymmetric alibi". */
const PeScheme *exp_scheme_base(const char *name);
void exp_scheme_form(Config *c, const char *name);

/* The tasks of experiments 3 and 4. */
#define EXP_LENGTH_TASKS 3
extern const char *const exp_length_tasks[EXP_LENGTH_TASKS];

/* Experiment 5's variants of the sinusoid: the baseline (interleaved,
 * added), split layout, concatenated, embeddings scaled by sqrt(d_model). */
#define EXP_VARIANTS 4
extern const char *const exp_variant_names[EXP_VARIANTS];
void exp_variant_config(Config *c, size_t variant);

/* A cell's result beside its own value, recorded as a run of its own name
 * (EXP_SCALING: each scaling, tuned or not). */
#define EXP_MAX_EXTRA 16
typedef struct {
    char name[40];
    double value;
    double *per_len; /* (max_len + 1), the cell's max_len */
} ExpExtra;

/* One run's result. */
typedef struct {
    ExpKind kind;
    char task[16];
    char name[40];   /* the scheme or variant */
    size_t seed;     /* 0-based */
    double value;    /* max_abs_diff for EXP_ORDER, else test accuracy */
    double *per_len; /* (max_len + 1) accuracy per test length (NaN: none or undefined) */
    size_t max_len;
    /* EXP_RANDOM, from exp_cell_run: the same evaluated with random test
     * positions (value_at over every length, per_len_at per length) */
    double value_at;
    double *per_len_at;
    /* from exp_cell_run only */
    size_t n_extra;
    ExpExtra extra[EXP_MAX_EXTRA];
} ExpRun;

/* Frees what exp_cell_run allocated in run. */
void exp_run_free(ExpRun *run);

typedef struct {
    ExpSettings set;
    ExpRun *runs;
    size_t n, cap;
    bool failed;    /* a run could not be stored (out of memory) */
} ExpResults;

int exp_results_init(ExpResults *r, const ExpSettings *set, Err *e);
void exp_results_free(ExpResults *r);
/* Adds a run; per_len (max_len + 1 values) is copied, and may be NULL. A
 * failed allocation sets r->failed, which exp_write reports. */
void exp_record(ExpResults *r, ExpKind kind, const char *task, const char *name, size_t seed,
                double value, const double *per_len, size_t max_len);

/* Writes DIR/results.md, the CSV files in DIR/results and the figures in
 * DIR/img/results. */
int exp_write(const ExpResults *r, const char *dir, Err *e);

/* ---- the grid as cells (exp_cells.c) ---- */

/* One training of the grid (or, in section 1, one untrained model): the
 * unit that runs on its own, writes its own file, and is never run twice. */
typedef struct {
    ExpKind kind;
    char task[16];
    char name[40];  /* the scheme, or experiment 5's variant */
    size_t seed;    /* 0-based */
    size_t variant; /* experiment 5: which (exp_variant_names) */
    char id[96];    /* its name and file name, e.g. "lengths-reverse-rope-s2" */
    double cost;    /* a weight for the time left: about its training steps */
} ExpCell;

/* Every cell of the grid for set, in the page's order (allocated). */
int exp_cells(const ExpSettings *set, ExpCell **cells, size_t *n, Err *e);
const ExpCell *exp_cell_find(const ExpCell *cells, size_t n, const char *id);

/* The settings a cell's numbers depend on, as one line (the seed count is
 * not among them: a sixth seed reuses the first five). */
void exp_settings_key(char *buf, size_t cap, const ExpSettings *set);

/* Runs one cell into run (per_len allocated for the length runs). */
int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpRun *run, Err *e);

/* A cell's result as a record of text lines, from its magic line to
 * "end": what a cell file holds and what `experiments --cell ID --cells -`
 * prints for another machine to store. source names the sources the
 * binary was built from, kernels OpenBLAS's. */
int exp_cell_format(Buf *b, const ExpSettings *set, const ExpCell *cell, const ExpRun *run,
                    const char *source, const char *kernels, double seconds);

typedef struct {
    char id[96], source[64], settings[512], kernels[64];
    double value, seconds;
    double *per_len; /* max_len + 1 values, or NULL */
    size_t max_len;
    double value_at;    /* EXP_RANDOM: ExpRun's */
    double *per_len_at; /* max_len + 1 values, or NULL */
    size_t n_extra;     /* ExpRun's */
    ExpExtra extra[EXP_MAX_EXTRA];
} ExpCellFile;

/* Parses the record at the start of text (n bytes); *used is its length. */
int exp_cell_parse(const char *text, size_t n, size_t *used, ExpCellFile *f, Err *e);
void exp_cell_file_free(ExpCellFile *f);

/* Writes DIR/ID.cell, atomically. */
int exp_cell_save_text(const char *dir, const char *id, const char *text, size_t n, Err *e);

typedef enum {
    CELL_DONE,           /* read, and made by these sources with these settings */
    CELL_MISSING,        /* no file */
    CELL_DAMAGED,        /* a file that is no cell record (e has why) */
    CELL_OTHER_SETTINGS, /* made for other settings */
    CELL_OTHER_SOURCE,   /* made by a build of other sources */
} ExpCellState;

/* Reads DIR/ID.cell into f (free it with exp_cell_file_free when DONE). */
ExpCellState exp_cell_load(const char *dir, const ExpSettings *set, const ExpCell *cell,
                           const char *source, ExpCellFile *f, Err *e);

#endif
