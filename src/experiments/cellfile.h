/* Cell files (docs/formats.md, "Cell files"): a cell's result as a
 * checksummed record of text, written, read and checked field by field
 * (cellfile.c); and records that arrive from other machines as lines
 * (records.c). */
#ifndef POSENC_CELLFILE_H
#define POSENC_CELLFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/buf.h"
#include "cell.h"

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
    /* Where value and exact are the means of per_len and exact_len over
     * the entries mean_from..mean_to (the benchmark's test lengths
     * N+1..M), summed in that order, so a reader recomputes them exactly;
     * mean_to 0 where a kind's summary is no such mean (a pooled
     * accuracy). */
    size_t mean_from, mean_to;
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
    char id[96], kind[16], task[32], name[40], source[64], settings[512], kernels[64];
    size_t seed; /* 1-based, as in the id */
    double seconds;
    ExpCellResult res;
} ExpCellFile;

/* The longest record: a longer one is damaged (the full grid's longest,
 * a length run of rope with its scalings, has about 12 KB). */
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
    CELL_OTHER_SOURCE,   /* made by a build of other sources */
    CELL_OLD_FORMAT,     /* a record of an older format: made by older sources */
} ExpCellState;

/* Checks a parsed record against the cell it should be, field by field:
 * its id, kind, task, name and seed, then settings and source (NULL: any),
 * then the
 * kind's shape (exp_cell_shape): result names, counts, every number in
 * range, NaN exactly where expected. CELL_DAMAGED with the reason in e. */
ExpCellState exp_cell_check(const ExpCellFile *f, const ExpSettings *set, const ExpCell *cell,
                            const char *source, Err *e);

/* Writes DIR/ID.cell, atomically. */
int exp_cell_save_text(const char *dir, const char *id, const char *text, size_t n, Err *e);

/* Reads DIR/ID.cell (a regular file only: a FIFO or device is damage,
 * never waited on), parses and checks it; f is filled when DONE (free it
 * with exp_cell_file_free). source NULL takes a cell of any sources (its
 * own stays in it, as provenance). */
ExpCellState exp_cell_load(const char *dir, const ExpSettings *set, const ExpCell *cell,
                           const char *source, ExpCellFile *f, Err *e);

/* A cells folder holds one grid: DIR/grid.settings names its settings.
 * Refuses (ERR_INPUT, naming both grids and what to do) a folder of
 * other settings; with claim, writes the file into a folder without one. */
int exp_cells_dir_check(const char *dir, const ExpSettings *set, bool claim, Err *e);

/* ---- records from other machines (records.c) ---- */

/* Records arriving as lines (what --store reads): exp_record_line takes
 * one line (with its newline, if any; a CRLF line end is read as LF, and
 * the checksum then judges the record; a record cut mid-line and the next
 * glued on are told apart at the next one's magic) and returns EXP_RECORD_DONE when a
 * record is complete (at its "end" line) in r->text, EXP_RECORD_BAD when
 * what came is no record or was cut short (e says why; lines that begin
 * no record are dropped up to the next magic line), EXP_RECORD_WAIT while
 * it waits for more. At the end of the input exp_record_end fails if a
 * record was cut short. The record itself is then exp_cell_parse's. */
enum { EXP_RECORD_BAD = -1, EXP_RECORD_WAIT = 0, EXP_RECORD_DONE = 1 };
typedef struct {
    Buf text;      /* the record so far */
    Buf line;      /* a line with its carriage return taken out (CRLF line ends) */
    bool done;     /* text holds a complete record: the next line starts anew */
    bool skipping; /* after a line that begins no record: until the next magic line */
} ExpRecordReader;

int exp_record_line(ExpRecordReader *r, const char *line, size_t len, Err *e);
int exp_record_end(ExpRecordReader *r, Err *e);
void exp_record_reader_free(ExpRecordReader *r);

/* Checks a whole record (len bytes of text) as a cell file of this grid
 * made by source, and writes it as DIR/ID.cell; id gets the cell it names
 * ("?" if none). ERR_INPUT with the reason when it is refused: damaged,
 * no cell of this grid, made by other sources or settings; ERR_RUNTIME
 * when the record is sound but could not be written. */
int exp_cell_store(const char *dir, const ExpSettings *set, const ExpCell *cells, size_t n,
                   const char *source, const char *text, size_t len, char *id, size_t cap,
                   Err *e);

#endif
