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
 * - its directory must exist and be writable.
 * ERR_INPUT with a message naming opt and what to do. */
int output_check(const char *path, const char *opt, bool replaced, Err *e);

/* A file a program's command line names, and what the program does to it. */
typedef enum {
    FILE_INPUT,     /* read */
    FILE_OUTPUT,    /* written (in place, or elsewhere and renamed over it) */
    FILE_DIRECTORY, /* a directory replaced whole, with the files in it */
} FileUse;

typedef struct {
    const char *path;    /* NULL or "": not given */
    const char *opt;     /* what names it: "--out", "a log"; "--out's lock file" */
    FileUse use;
    const char *may_be;  /* the opt of an input this output may be (train's --out may be the
                          * checkpoint it resumes, which it continues), or NULL */
} FileArg;

/* The rule that no output destroys an input or another output: no output
 * of files[0..n) is the same file as another file of the list, however
 * the two paths name it (./X, a symbolic link, a hard link: compared by
 * device and inode where the file exists, and by directory and name where
 * it is yet to be made, through symbolic links), and no input lies in a
 * directory that is replaced whole (or in a folder of it). ERR_INPUT naming
 * both. */
int outputs_distinct(const FileArg *files, size_t n, Err *e);

/* An advisory lock (fcntl), held until output_unlock, so that a second
 * program writing the same output is refused with the pid of the first.
 * With sidecar the lock is on PATH.lock, for a file that is replaced by a
 * rename (a checkpoint: a lock on the file itself would go with the old
 * inode); PATH.lock is removed by output_unlock, and a killed run leaves
 * it behind, harmlessly (the lock dies with the process). Without it the
 * lock is on PATH itself, created if missing but never emptied, for a
 * file written in place (a log); something not a regular file (/dev/full)
 * is not locked. */
typedef struct {
    int fd;
    char *path; /* of the lock file, to remove; NULL without sidecar */
} OutputLock;

int output_lock(OutputLock *l, const char *path, const char *opt, bool sidecar, Err *e);
/* The same for a folder its runs share (a grid's cells, make_data's
 * splits): the lock is DIR/NAME.lock, and a refusal names DIR, the folder
 * the user gave, not the lock file. */
int output_lock_folder(OutputLock *l, const char *dir, const char *name, const char *opt,
                       Err *e);
void output_unlock(OutputLock *l);

/* A set of files replaced as one (a page, its tables and its figures), so
 * that no reader, and no killed run, sees new files beside old ones:
 * publish_stage makes DIR/.NAME.new, the caller writes the whole set
 * there (in subfolders as it will stand in DIR), and publish_commit marks
 * it complete and moves every file into place. A run killed while moving
 * leaves the marked folder, which the next publish_stage or
 * publish_recover finishes moving; one killed while writing leaves an
 * unmarked folder, which they remove. staging gets the folder's path. */
int publish_stage(const char *dir, const char *name, char *staging, size_t cap, Err *e);
int publish_commit(const char *dir, const char *staging, Err *e);
/* Finishes or removes what a killed run left of DIR/.NAME.new. */
int publish_recover(const char *dir, const char *name, Err *e);
/* Removes a staging folder not yet marked complete, with what was written
 * into it: a writer that failed (a full disk) leaves neither its files
 * nor the space they hold. 0, or ERR_RUNTIME naming what could not be
 * removed. */
int publish_drop(const char *dir, const char *staging, Err *e);

#endif
