#include "trainlog.h"
#include "../core/fileio.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const trainlog_names[LOG_N_COLS] = {"loss", "accuracy", "valid_loss",
                                                "valid_accuracy"};

#define MAX_FIELDS 256
#define MAX_LINE 8192

/* Splits line in place at commas; returns the number of fields. */
static size_t split(char *line, char **f) {
    size_t n = 0;
    for (char *p = line;; p++) {
        if (n == MAX_FIELDS)
            return n + 1; /* too many: the caller reports it */
        f[n++] = p;
        p += strcspn(p, ",");
        if (*p == '\0')
            return n;
        *p = '\0';
    }
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

static int grow(TrainLog *log, size_t *cap, Err *e) {
    size_t nc = *cap ? 2 * *cap : 64;
    double *p = realloc(log->step, nc * sizeof *p);
    if (!p)
        return err_set(e, ERR_RUNTIME, "out of memory reading a training log");
    log->step = p;
    for (int c = 0; c < LOG_N_COLS; c++) {
        p = realloc(log->col[c], nc * sizeof *p);
        if (!p)
            return err_set(e, ERR_RUNTIME, "out of memory reading a training log");
        log->col[c] = p;
    }
    *cap = nc;
    return 0;
}

/* Parses one row into log row `row`; idx[k] is the field of column k
 * (step first), or -1. */
static int parse_row(TrainLog *log, char **f, size_t nf, const int *idx, const char *path,
                     size_t line, Err *e) {
    size_t row = log->n;
    for (int k = 0; k <= LOG_N_COLS; k++) {
        double v = NAN;
        if (idx[k] >= 0 && (size_t)idx[k] < nf) {
            char *s = trim(f[idx[k]]), *end;
            if (*s) {
                errno = 0;
                v = strtod(s, &end);
                /* an underflow (1e-320) is a number, tiny or 0; an overflow is not */
                if (errno == ERANGE && fabs(v) <= DBL_MIN)
                    errno = 0;
                if (*end != '\0' || errno == ERANGE || !isfinite(v))
                    return err_set(e, ERR_INPUT, "%s:%zu: column '%s' holds '%s', not a number",
                                   path, line, k ? trainlog_names[k - 1] : "step", s);
            }
        }
        if (k == 0)
            log->step[row] = v;
        else
            log->col[k - 1][row] = v;
    }
    if (isnan(log->step[row]))
        return err_set(e, ERR_INPUT, "%s:%zu: the step is empty; every row needs one", path, line);
    log->n++;
    return 0;
}

/* The lines of text, one at a time, through a buffer of MAX_LINE bytes. */
int trainlog_parse(TrainLog *log, const char *text, size_t len, const char *path, Err *e) {
    memset(log, 0, sizeof *log);
    char *line = malloc(MAX_LINE), *f[MAX_FIELDS + 1];
    if (!line)
        return err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
    int rc = 0, idx[LOG_N_COLS + 1];
    size_t nh = 0, lineno = 0, cap = 0, pos = 0;
    for (int k = 0; k <= LOG_N_COLS; k++)
        idx[k] = -1;
    while (!rc && pos < len) {
        const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        pos += n + (nl != NULL);
        lineno++;
        if (n > MAX_LINE - 2) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: line longer than %d characters", path, lineno,
                         MAX_LINE - 2);
            break;
        }
        if (memchr(p, '\0', n)) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: the line holds a NUL byte; a training log is "
                         "text (is this a binary file?)", path, lineno);
            break;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        line[strcspn(line, "\r")] = '\0';
        if (*trim(line) == '\0')
            continue;
        size_t nf = split(line, f);
        if (nf > MAX_FIELDS) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: more than %d columns", path, lineno, MAX_FIELDS);
        } else if (nh == 0) {
            nh = nf;
            for (size_t i = 0; i < nf; i++) {
                const char *name = trim(f[i]);
                if (strcmp(name, "step") == 0)
                    idx[0] = (int)i;
                for (int k = 0; k < LOG_N_COLS; k++)
                    if (strcmp(name, trainlog_names[k]) == 0)
                        idx[k + 1] = (int)i, log->has[k] = 1;
            }
            if (idx[0] < 0 || !(log->has[0] || log->has[1] || log->has[2] || log->has[3]))
                rc = err_set(e, ERR_INPUT, "%s: the header line needs a 'step' column and at "
                             "least one of loss, accuracy, valid_loss, valid_accuracy", path);
        } else if (nf > nh) {
            rc = err_set(e, ERR_INPUT, "%s:%zu: %zu fields but the header names %zu", path,
                         lineno, nf, nh);
        } else if (log->n < cap || !(rc = grow(log, &cap, e))) {
            rc = parse_row(log, f, nf, idx, path, lineno, e);
        }
    }
    if (!rc && nh == 0)
        rc = err_set(e, ERR_INPUT, "%s is empty: a training log starts with a header line", path);
    free(line);
    if (rc)
        trainlog_free(log);
    return rc;
}

int trainlog_read(TrainLog *log, const char *path, Err *e) {
    memset(log, 0, sizeof *log);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_set(e, ERR_INPUT, "cannot read the training log %s: %s", path,
                       strerror(errno));
    char *buf = NULL;
    size_t n = 0;
    int rc = read_stream(fp, path, (size_t)TRAINLOG_MAX_FILE + 1, &buf, &n, e);
    if (!rc && n > TRAINLOG_MAX_FILE)
        rc = err_set(e, ERR_INPUT, "%s is larger than %d MiB, more than a training log holds",
                     path, TRAINLOG_MAX_FILE >> 20);
    fclose(fp);
    if (!rc)
        rc = trainlog_parse(log, buf, n, path, e);
    free(buf);
    return rc;
}

void trainlog_free(TrainLog *log) {
    free(log->step);
    for (int c = 0; c < LOG_N_COLS; c++)
        free(log->col[c]);
    memset(log, 0, sizeof *log);
}

void trainlog_label(char *buf, size_t cap, const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".csv") == 0)
        n -= 4;
    snprintf(buf, cap, "%.*s", (int)n, base);
}
