/* Reading a training log: CSV with a header line, columns found by name.
 *
 *   step,loss,accuracy,valid_loss,valid_accuracy[,anything else]
 *   10,0.69,0.51,,
 *   20,0.55,0.72,0.58,0.70
 *
 * `step` is required, and at least one of the other four; columns may come
 * in any order, extra columns are ignored, and an empty field (validation
 * runs only now and then) reads as NaN. Fields are plain: no quoting. */
#ifndef POSENC_TRAINLOG_H
#define POSENC_TRAINLOG_H

#include <stddef.h>

#include "../core/err.h"

enum { LOG_LOSS, LOG_ACCURACY, LOG_VALID_LOSS, LOG_VALID_ACCURACY, LOG_N_COLS };

typedef struct {
    size_t n;                  /* rows */
    double *step;              /* (n) */
    double *col[LOG_N_COLS];   /* (n) each, NaN where empty or absent */
    int has[LOG_N_COLS];       /* the header named this column */
} TrainLog;

/* The column names, in the order of the enum. */
extern const char *const trainlog_names[LOG_N_COLS];

#define TRAINLOG_MAX_FILE (64 << 20) /* bytes of one log */

/* Reads path; a malformed file is ERR_INPUT with the file and line. */
int trainlog_read(TrainLog *log, const char *path, Err *e);
/* The same on len bytes of text in memory; path names it in messages. */
int trainlog_parse(TrainLog *log, const char *text, size_t len, const char *path, Err *e);
void trainlog_free(TrainLog *log);

/* The label of a log in a legend: the file name without its directory
 * and without ".csv", into buf. */
void trainlog_label(char *buf, size_t cap, const char *path);

#endif
