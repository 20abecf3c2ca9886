#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int write_file_atomic(const char *path, const void *data, size_t n, Err *e) {
    size_t len = strlen(path);
    char *tmp = xmalloc(len + 32, "a file name", e);
    if (!tmp)
        return ERR_RUNTIME;
    /* O_EXCL: never write through someone else's file; the pid keeps two
     * programs writing the same path apart. */
    int fd = -1;
    for (int k = 0; k < 100 && fd < 0; k++) {
        snprintf(tmp, len + 32, "%s.%ld.%d.tmp", path, (long)getpid(), k);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int rc = err_set(e, ERR_INPUT, "cannot write %s: %s; choose a file in a directory that "
                         "exists and that you may write to", path, strerror(errno));
        free(tmp);
        return rc;
    }
    const char *p = data;
    size_t left = n;
    int err = 0;
    while (left && !err) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno != EINTR)
            err = errno;
        else if (w > 0)
            p += w, left -= (size_t)w;
    }
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    int rc = 0;
    if (err)
        rc = err_set(e, ERR_RUNTIME, "writing %s failed: %s (disk full?); the previous file, "
                     "if any, is unchanged", path, strerror(err));
    else if (rename(tmp, path) != 0)
        rc = err_set(e, ERR_INPUT, "cannot write %s: %s; give a file name, not a directory",
                     path, strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}
