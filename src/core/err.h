/* Errors the library returns instead of exiting.
 *
 * Every function that can fail takes an Err * last and returns 0 on success
 * or the error's code. The message says what was wrong and what to do; a
 * program prints it and exits with the code: 2 for bad usage or input (the
 * caller can fix it), 1 for a failure at run time (memory, files). */
#ifndef POSENC_ERR_H
#define POSENC_ERR_H

#include <stddef.h>
#include <stdio.h>

enum { ERR_OK = 0, ERR_RUNTIME = 1, ERR_INPUT = 2 };

typedef struct {
    int code;       /* ERR_OK, ERR_RUNTIME or ERR_INPUT */
    char msg[512];  /* one or two sentences, no trailing newline */
} Err;

#if defined(__GNUC__)
#define POSENC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define POSENC_PRINTF(f, a)
#endif

/* Records the error in e (which may be NULL) and returns code. */
int err_set(Err *e, int code, const char *fmt, ...) POSENC_PRINTF(3, 4);

/* A file that could not be opened: "cannot open WHAT PATH: REASON; ADVICE"
 * (what: "the data file"; writing: opened to write, "cannot write"), the
 * reason from errnum (errno of the failed fopen or open) and the advice
 * from the reason, so that a permission, a missing folder and a full table
 * of files are told apart. ERR_INPUT when the path is at fault (missing,
 * not permitted, a directory, too long), ERR_RUNTIME otherwise. */
int err_open(Err *e, int errnum, const char *what, const char *path, int writing);

/* Clears e to "no error". */
void err_clear(Err *e);

/* malloc/calloc that report an out-of-memory error naming what was being
 * allocated; they return NULL with e set. */
void *xmalloc(size_t bytes, const char *what, Err *e);
void *xcalloc(size_t count, size_t size, const char *what, Err *e);

/* Multiplies sizes, failing with ERR_INPUT if the product overflows. */
int size_mul(size_t *out, size_t a, size_t b, Err *e);

#endif
