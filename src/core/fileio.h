/* Writing a file so that it is never half-written. */
#ifndef POSENC_FILEIO_H
#define POSENC_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* Writes the n bytes at data to path through a temporary file beside it
 * (created exclusively, with mode 0666 less the umask), flushed to disk,
 * then renamed over path. On failure path is left as it was, the temporary
 * is removed, and the message says what to do: ERR_INPUT when the path
 * cannot be written (no such directory, no permission, a directory),
 * ERR_RUNTIME when writing fails (disk full). The temporary is named
 * PATH.<pid>.<n>.tmp (on Linux only once written: until then it is an
 * O_TMPFILE without a name, which a killed process cannot leave behind);
 * those of processes that no longer exist are removed first. An existing path that is
 * not a regular file (a symbolic link, a device) is refused, ERR_INPUT,
 * rather than replaced. */
int write_file_atomic(const char *path, const void *data, size_t n, Err *e);

/* Reads f (opened from path, for messages) to its end or to limit bytes,
 * whichever comes first, into *buf (malloc'ed; the caller frees it) and
 * *n, with a NUL after the n bytes (so a text can be read as a string; a
 * NUL inside the file ends it early). A reader that refuses files above
 * MAX passes limit MAX + 1: one byte past tells a file at the limit from
 * a larger one. ERR_INPUT when f cannot be read (a directory),
 * ERR_RUNTIME when memory runs out. */
int read_stream(FILE *f, const char *path, size_t limit, char **buf, size_t *n, Err *e);
/* path's bytes, up to limit, into *text (malloc'ed) if it is a regular
 * file: 0, ENOENT when it is missing (or a symbolic link to nothing), else
 * an errno; e says why whenever it is not 0 (a FIFO is opened without
 * waiting for a writer, and refused: never waited on). */
int read_regular(const char *path, size_t limit, char **text, size_t *n, Err *e);

/* Takes the carriage return out of every CRLF line end of text (n bytes,
 * NUL-terminated as read_stream leaves it), in place; returns the new
 * length. A checkout with git's core.autocrlf gives text files CRLF line
 * ends: a record checksummed over its LF form still checks after this. */
size_t text_lf(char *text, size_t n);

/* Whether path names a folder, following symbolic links: a link the user
 * names to a folder is that folder. 0 with *exists set when it is one,
 * or with *exists clear when nothing is there (not even a link); else
 * ERR_INPUT, "OPT PATH is a regular file, not a folder; ..." naming what is
 * there instead: a file, a FIFO, a device, a symbolic link to one of them
 * or to nothing (with its target), or a path that cannot be looked at. */
int path_folder(const char *path, const char *opt, bool *exists, Err *e);

#endif
