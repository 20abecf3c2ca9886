#define _GNU_SOURCE /* O_TMPFILE, where Linux has it; linkat */
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

/* Writes all n bytes to fd and flushes them to disk; 0 or an errno. */
static int write_all(int fd, const void *data, size_t n) {
    const char *p = data;
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno != EINTR)
            return errno;
        if (w > 0)
            p += w, left -= (size_t)w;
    }
    return fsync(fd) != 0 ? errno : 0;
}

#if defined(__linux__) && defined(O_TMPFILE)
/* Linux: the bytes go to a file without a name in path's directory, which
 * gets its temporary name only once complete, just before the rename; a
 * process killed while writing leaves nothing behind. Returns 0 with tmp
 * named, an errno from writing, or -1 to fall back on a named temporary
 * (a file system or kernel without O_TMPFILE, no /proc). */
static int write_unnamed(const char *path, char *tmp, size_t cap, const void *data, size_t n) {
    if (!tmp || !cap)
        return -1; /* never: the caller allocated it; says so to gcc's -Wformat-truncation */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else
        return -1;
    int fd = open(dir, O_TMPFILE | O_WRONLY, 0666);
    if (fd < 0)
        return -1;
    int err = write_all(fd, data, n);
    if (!err) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        err = -1;
        for (int k = 0; k < 100 && err == -1; k++) {
            snprintf(tmp, cap, "%s.%ld.%d.tmp", path, (long)getpid(), k);
            if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
                err = 0;
            else if (errno != EEXIST)
                break;
        }
    }
    close(fd);
    return err;
}
#endif

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
    int err = -1;
#if defined(__linux__) && defined(O_TMPFILE)
    err = write_unnamed(path, tmp, len + 32, data, n);
#endif
    if (err == -1) {
        /* O_EXCL: never write through someone else's file; the pid keeps
         * two programs writing the same path apart. */
        int fd = -1;
        for (int k = 0; k < 100 && fd < 0; k++) {
            snprintf(tmp, len + 32, "%s.%ld.%d.tmp", path, (long)getpid(), k);
            fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
            if (fd < 0 && errno != EEXIST)
                break;
        }
        if (fd < 0) {
            int rc = err_set(e, ERR_INPUT, "cannot write %s: %s; choose a file in a directory "
                             "that exists and that you may write to", path, strerror(errno));
            free(tmp);
            return rc;
        }
        err = write_all(fd, data, n);
        if (close(fd) != 0 && !err)
            err = errno;
        if (err)
            unlink(tmp);
    }
    int rc = 0;
    if (err)
        rc = err_set(e, ERR_RUNTIME, "writing %s failed: %s (disk full?); the previous file, "
                     "if any, is unchanged", path, strerror(err));
    else if (rename(tmp, path) != 0) {
        rc = err_set(e, ERR_INPUT, "cannot write %s: %s; give a file name, not a directory",
                     path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int read_stream(FILE *f, const char *path, size_t limit, char **buf, size_t *n, Err *e) {
    size_t cap = limit < (1 << 16) ? (limit ? limit : 1) : 1 << 16, got = 0;
    int err = 0;
    char *b = xmalloc(cap, "a file being read", e);
    if (!b)
        return ERR_RUNTIME;
    while (got < limit) {
        if (got == cap) {
            cap = cap * 2 < limit ? cap * 2 : limit;
            char *more = realloc(b, cap);
            if (!more) {
                free(b);
                return err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
            }
            b = more;
        }
        errno = 0; /* what the failed read sets, not an older call's */
        size_t k = fread(b + got, 1, cap - got, f);
        got += k;
        if (k == 0) {
            err = errno;
            break;
        }
    }
    if (ferror(f)) {
        free(b);
        return err_set(e, ERR_INPUT, "cannot read %s: %s; give a readable file", path,
                       strerror(err ? err : EIO));
    }
    if (got == cap) { /* room for the NUL that ends the text */
        char *more = realloc(b, cap + 1);
        if (!more) {
            free(b);
            return err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
        }
        b = more;
    }
    b[got] = '\0';
    *buf = b;
    *n = got;
    return 0;
}

/* What a stat's mode says a thing is, in a message. */
static const char *kind(mode_t m) {
    return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a folder"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "something other than a folder";
}

int path_folder(const char *path, const char *opt, bool *exists, Err *e) {
    struct stat lst, st;
    *exists = false;
    if (lstat(path, &lst) != 0) {
        if (errno == ENOENT)
            return 0;
        return err_set(e, ERR_INPUT, "cannot look at %s %s: %s; check the path", opt, path,
                       strerror(errno));
    }
    *exists = true;
    bool link = S_ISLNK(lst.st_mode);
    int found = stat(path, &st) == 0 ? 0 : errno;
    if (!found && S_ISDIR(st.st_mode))
        return 0;
    if (!link)
        return err_set(e, ERR_INPUT, "%s %s is %s, not a folder; give a folder, or a new name",
                       opt, path, kind(lst.st_mode));
    char target[4096];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        snprintf(target, sizeof target, "a path it does not say (%s)", strerror(errno));
    else
        target[n] = '\0';
    if (found == ENOENT)
        return err_set(e, ERR_INPUT, "%s %s is a symbolic link to %s, which does not exist; "
                       "make that folder first, or give another %s", opt, path, target, opt);
    if (found)
        return err_set(e, ERR_INPUT, "%s %s is a symbolic link to %s, which cannot be reached "
                       "(%s); give another %s", opt, path, target, strerror(found), opt);
    return err_set(e, ERR_INPUT, "%s %s is a symbolic link to %s, %s, not a folder; give a "
                   "folder, or a new name", opt, path, target, kind(st.st_mode));
}

/* path's bytes, up to limit, if it is a regular file: 0, ENOENT when
 * missing, else an errno with e set (a FIFO is opened without waiting for
 * a writer, and refused). */
int read_regular(const char *path, size_t limit, char **text, size_t *n, Err *e) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        struct stat ln;
        /* ENOENT is said too: a caller that prints e learns why, and a
         * symbolic link to nothing is not called missing */
        if (err == ENOENT && lstat(path, &ln) == 0 && S_ISLNK(ln.st_mode))
            err_set(e, ERR_INPUT, "it is a symbolic link to a file that is not there");
        else if (err == ENOENT)
            err_set(e, ERR_INPUT, "it is not there");
        else
            err_set(e, ERR_INPUT, "cannot open it: %s", strerror(err));
        return err;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        err_set(e, ERR_INPUT, "it is not a regular file: remove it");
        return EINVAL;
    }
    FILE *in = fdopen(fd, "rb");
    if (!in) {
        close(fd);
        err_set(e, ERR_RUNTIME, "out of memory opening it");
        return ENOMEM;
    }
    int rc = read_stream(in, path, limit, text, n, e);
    fclose(in);
    return rc ? EIO : 0;
}

size_t text_lf(char *text, size_t n) {
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (!(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n'))
            text[out++] = text[i];
    text[out] = '\0';
    return out;
}
