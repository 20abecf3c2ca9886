/* The files a program writes, checked before any work is done: an output
 * must not be one of the inputs, must not replace something that is not a
 * regular file, and must be creatable; and two runs must not write the
 * same output at once (an advisory lock held for the run's life). */
#ifndef POSENC_OUTPUTS_H
#define POSENC_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../core/err.h"

/* Checks that path can be written as the output named opt ("--out"):
 * - with replaced set (the file is written elsewhere and renamed over
 *   path), an existing path must be a regular file, not a symbolic link,
 *   device, FIFO or directory; without it (written in place, as a log) it
 *   must not be a directory, and must be writable;
 * - path must not be the same file (device and inode) as any of the n
 *   inputs (NULL or "" entries are skipped), each named by in_opts[i];
 * - its directory must exist and be writable.
 * ERR_INPUT with a message naming opt and what to do. */
int output_check(const char *path, const char *opt, bool replaced, const char *const *inputs,
                 const char *const *in_opts, size_t n, Err *e);

/* An advisory lock (fcntl) on PATH.lock, held until output_unlock, so that
 * a second program writing the same output is refused with the pid of the
 * first. The lock file is removed by output_unlock; a killed run leaves
 * it behind, harmlessly (the lock dies with the process). */
typedef struct {
    int fd;
    char *path; /* of the lock file */
} OutputLock;

int output_lock(OutputLock *l, const char *path, const char *opt, Err *e);
void output_unlock(OutputLock *l);

/* Opens a log for writing in place, under a lock on the log itself:
 * appended to with append set, emptied otherwise (only once the lock is
 * held, so a refused second run leaves the first's log intact). *empty
 * tells whether it holds nothing yet (a header is due). */
int output_open_log(FILE **f, const char *path, bool append, bool *empty, Err *e);

#endif
