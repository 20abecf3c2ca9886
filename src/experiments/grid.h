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

/* One run's result, as the page reads it. */
typedef struct {
    ExpKind kind;
    char task[16];
    char name[40];   /* the scheme or variant */
    size_t seed;     /* 0-based */
    double value;    /* max_abs_diff for EXP_ORDER, else test accuracy */
    double *per_len; /* (max_len + 1) accuracy per test length (NaN: none or undefined) */
    size_t max_len;
} ExpRun;

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

/* What a cell found, as named result series: "main", the cell's own;
 * "at", EXP_RANDOM's tested at random positions too; each of rope's
 * scalings but the first (EXP_SCALING: "linear-x2", ..., "none-tuned",
 * ...). A new kind or series is a new name, not a new format. */
#define EXP_MAX_SERIES 16
#define EXP_SERIES_NAME 24
typedef struct {
    char name[EXP_SERIES_NAME];
    double value;      /* over every test sentence: accuracy, the order gap, the last R^2 */
    double exact;      /* the share of sentences with every label right; NaN where it
                        * means nothing (order, probe) */
    double *per_len;   /* n_per_len values: per test length (NaN: not tested, or past a
                        * learned table), or the probe's R^2 per layer */
    double *exact_len; /* n_exact_len values: the exact-match rate per test length */
} ExpSeries;

typedef struct {
    size_t n_per_len, n_exact_len; /* of every series */
    size_t n_series;
    ExpSeries series[EXP_MAX_SERIES];
} ExpCellResult;

/* Runs one cell into res (free it with exp_cell_result_free). */
int exp_cell_run(const ExpSettings *set, const ExpCell *cell, ExpCellResult *res, Err *e);
void exp_cell_result_free(ExpCellResult *res);

/* ---- cell files (exp_cellfile.c, docs/formats.md) ---- */

/* What a cell of this kind holds, from the settings alone: the result
 * names in order, the lengths per series, and the range of each number.
 * Entries of per_len and exact_len first..last hold numbers in range, the
 * others NaN (lengths not tested, or past a learned table's rows). */
typedef struct {
    size_t n_series;
    char names[EXP_MAX_SERIES][EXP_SERIES_NAME];
    size_t n_per_len, n_exact_len;
    size_t first, last;
    double lo, hi;   /* value and per_len: accuracy 0..1, the gap 0..inf, R^2 -inf..1 */
    bool has_exact;  /* exact and exact_len in 0..1; else exact is NaN */
} ExpCellShape;

void exp_cell_shape(ExpCellShape *sh, const ExpSettings *set, const ExpCell *cell);

/* A cell's result as a record of text lines, from its magic line to
 * "end" (checksummed): what a cell file holds and what `experiments
 * --cell ID --cells -` prints for another machine to store. source names
 * the sources the binary was built from, kernels OpenBLAS's. */
int exp_cell_format(Buf *b, const ExpSettings *set, const ExpCell *cell,
                    const ExpCellResult *res, const char *source, const char *kernels,
                    double seconds);

typedef struct {
    char id[96], kind[16], task[16], name[40], source[64], settings[512], kernels[64];
    size_t seed; /* 1-based, as in the id */
    double seconds;
    ExpCellResult res;
} ExpCellFile;

/* The longest record: a longer one is damaged (the full grid's longest,
 * a scaling cell, has about 12 KB). */
#define EXP_CELL_MAX ((size_t)1 << 20)

/* The magic line of the current format, and its start for every version. */
#define EXP_CELL_MAGIC "posenc cell 4"
#define EXP_CELL_MAGIC_ANY "posenc cell "

/* Parses the record at the start of text (n bytes): every line in its
 * place, numbers that parse, the checksum; *used is its length. ERR_INPUT
 * says what is wrong. A record of an older version is ERR_INPUT too, and
 * *old is set (it is no damage: made by older sources). */
int exp_cell_parse(const char *text, size_t n, size_t *used, ExpCellFile *f, bool *old,
                   Err *e);
void exp_cell_file_free(ExpCellFile *f);

typedef enum {
    CELL_DONE,           /* read, and made by these sources with these settings */
    CELL_MISSING,        /* no file */
    CELL_DAMAGED,        /* a file that is no sound cell record (e has why) */
    CELL_OTHER_SETTINGS, /* made for other settings */
    CELL_OTHER_SOURCE,   /* made by a build of other sources (or an older format) */
} ExpCellState;

/* Checks a parsed record against the cell it should be, field by field:
 * its id, kind, task, name and seed, then settings and source, then the
 * kind's shape (exp_cell_shape): result names, counts, every number in
 * range, NaN exactly where expected. CELL_DAMAGED with the reason in e. */
ExpCellState exp_cell_check(const ExpCellFile *f, const ExpSettings *set, const ExpCell *cell,
                            const char *source, Err *e);

/* Writes DIR/ID.cell, atomically. */
int exp_cell_save_text(const char *dir, const char *id, const char *text, size_t n, Err *e);

/* Reads DIR/ID.cell (a regular file only: a FIFO or device is damage,
 * never waited on), parses and checks it; f is filled when DONE (free it
 * with exp_cell_file_free). */
ExpCellState exp_cell_load(const char *dir, const ExpSettings *set, const ExpCell *cell,
                           const char *source, ExpCellFile *f, Err *e);

/* A cells folder holds one grid: DIR/grid.settings names its settings.
 * Refuses (ERR_INPUT, naming both grids and what to do) a folder of
 * other settings; with claim, writes the file into a folder without one. */
int exp_cells_dir_check(const char *dir, const ExpSettings *set, bool claim, Err *e);

/* ---- records from other machines (exp_records.c) ---- */

/* Records arriving as lines (what --store reads): exp_record_line takes
 * one line (with its newline, if any) and returns EXP_RECORD_DONE when a
 * record is complete (at its "end" line) in r->text, EXP_RECORD_BAD when
 * what came is no record or was cut short (e says why; lines that begin
 * no record are dropped up to the next magic line), EXP_RECORD_WAIT while
 * it waits for more. At the end of the input exp_record_end fails if a
 * record was cut short. The record itself is then exp_cell_parse's. */
enum { EXP_RECORD_BAD = -1, EXP_RECORD_WAIT = 0, EXP_RECORD_DONE = 1 };
typedef struct {
    Buf text;      /* the record so far */
    bool done;     /* text holds a complete record: the next line starts anew */
    bool skipping; /* after a line that begins no record: until the next magic line */
} ExpRecordReader;

int exp_record_line(ExpRecordReader *r, const char *line, size_t len, Err *e);
int exp_record_end(ExpRecordReader *r, Err *e);
void exp_record_reader_free(ExpRecordReader *r);

/* Checks a whole record (len bytes of text) as a cell file of this grid
 * made by source, and writes it as DIR/ID.cell; id gets the cell it names
 * ("?" if none). ERR_INPUT with the reason when it is refused: damaged,
 * no cell of this grid, made by other sources or settings. */
int exp_cell_store(const char *dir, const ExpSettings *set, const ExpCell *cells, size_t n,
                   const char *source, const char *text, size_t len, char *id, size_t cap,
                   Err *e);

#endif
