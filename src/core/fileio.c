#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes the temporaries PATH.<pid>.<n>.tmp left by processes that no
 * longer exist (a save killed before its rename), so that they do not pile
 * up; a live process's are left alone. A pid reused since is taken for
 * alive: its file waits for a later save. */
static void remove_stale(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 0, blen = strlen(base);
    char dir[4096], name[4096 + 256];
    if (dlen >= sizeof dir)
        return;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)dlen, path);
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *ent; (ent = readdir(d));) {
        const char *n = ent->d_name;
        if (strncmp(n, base, blen) != 0 || n[blen] != '.')
            continue;
        char *end;
        long pid = strtol(n + blen + 1, &end, 10);
        if (end == n + blen + 1 || *end != '.' || pid <= 0 || pid == (long)getpid())
            continue;
        const char *k = end + 1;
        strtol(k, &end, 10);
        if (end == k || strcmp(end, ".tmp") != 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        snprintf(name, sizeof name, "%s/%s", dir, n);
        unlink(name);
    }
    closedir(d);
}

int write_file_atomic(const char *path, const void *data, size_t n, Err *e) {
    size_t len = strlen(path);
    char *tmp = xmalloc(len + 32, "a file name", e);
    if (!tmp)
        return ERR_RUNTIME;
    /* rename would replace a symbolic link, a device or a directory
     * entry with a file: refuse anything but a regular file */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(tmp);
        return err_set(e, ERR_INPUT, "cannot write %s: it exists and is not a regular file "
                       "(%s); give the path of a regular file", path,
                       S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode)
                           ? "a directory" : "a device, FIFO or socket");
    }
    remove_stale(path);
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
