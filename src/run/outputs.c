#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/fileio.h"

static const char *kind_of(mode_t m) {
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* The directory part of path ("." for a bare name) into dir. */
static void dir_of(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

int output_check(const char *path, const char *opt, bool replaced, const char *const *inputs,
                 const char *const *in_opts, size_t n, Err *e) {
    if (!path[0])
        return err_set(e, ERR_INPUT, "%s is empty; give a file name", opt);
    struct stat ls, st;
    bool exists = lstat(path, &ls) == 0;
    if (exists && replaced && !S_ISREG(ls.st_mode))
        return err_set(e, ERR_INPUT, "%s %s is %s, which saving would replace with a file; give "
                       "the path of a regular file", opt, path, kind_of(ls.st_mode));
    if (exists && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return err_set(e, ERR_INPUT, "%s %s is a directory; give a file name", opt, path);
        for (size_t i = 0; i < n; i++) {
            struct stat in;
            /* by device and inode: another name (a link, ./d.txt) is the same file */
            if (inputs[i] && inputs[i][0] && stat(inputs[i], &in) == 0 &&
                in.st_dev == st.st_dev && in.st_ino == st.st_ino)
                return err_set(e, ERR_INPUT, "%s %s is the same file as %s %s: writing it would "
                               "destroy it; give another path", opt, path, in_opts[i],
                               inputs[i]);
        }
        if (!replaced && access(path, W_OK) != 0)
            return err_set(e, ERR_INPUT, "cannot write %s %s: %s; choose a file you may write "
                           "to", opt, path, strerror(errno));
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(e, ERR_INPUT, "cannot write %s %s: the directory %s does not exist; "
                       "create it or choose another path", opt, path, dir);
    /* a renamed file needs the directory writable even when path exists */
    if ((replaced || !exists) && access(dir, W_OK | X_OK) != 0)
        return err_set(e, ERR_INPUT, "cannot write %s %s: the directory %s is not writable (%s); "
                       "choose another path", opt, path, dir, strerror(errno));
    return 0;
}

/* Takes a write lock on fd without waiting; on refusal says who holds it. */
static int lock_fd(int fd, const char *what, const char *opt, Err *e) {
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) == 0)
        return 0;
    int err = errno;
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if ((err == EACCES || err == EAGAIN) && fcntl(fd, F_GETLK, &who) == 0 &&
        who.l_type != F_UNLCK)
        return err_set(e, ERR_INPUT, "%s %s is in use by another run (pid %ld); wait for it to "
                       "finish or choose another path", opt, what, (long)who.l_pid);
    if (err == EACCES || err == EAGAIN)
        return err_set(e, ERR_INPUT, "%s %s is in use by another run; wait for it to finish or "
                       "choose another path", opt, what);
    return err_set(e, ERR_RUNTIME, "cannot lock %s: %s", what, strerror(err));
}

int output_lock(OutputLock *l, const char *path, const char *opt, bool sidecar, Err *e) {
    l->fd = -1;
    l->path = NULL;
    if (!sidecar) {
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return 0;
        l->fd = open(path, O_WRONLY | O_CREAT, 0666);
        if (l->fd < 0)
            return err_set(e, ERR_INPUT, "cannot write %s %s: %s; check the directory", opt,
                           path, strerror(errno));
    } else {
        size_t n = strlen(path) + 6;
        if (!(l->path = xmalloc(n, "a file name", e)))
            return ERR_RUNTIME;
        snprintf(l->path, n, "%s.lock", path);
        l->fd = open(l->path, O_RDWR | O_CREAT, 0666);
        if (l->fd < 0) {
            int rc = err_set(e, ERR_INPUT, "cannot create the lock file %s: %s; choose a "
                             "directory you may write to", l->path, strerror(errno));
            free(l->path);
            l->path = NULL;
            return rc;
        }
    }
    int rc = lock_fd(l->fd, path, opt, e);
    if (rc) {
        close(l->fd); /* not ours to remove: the other run holds it */
        free(l->path);
        l->fd = -1;
        l->path = NULL;
    }
    return rc;
}

void output_unlock(OutputLock *l) {
    if (l->fd >= 0) {
        if (l->path)
            unlink(l->path); /* while still locked: no one can take it in between */
        close(l->fd);
    }
    free(l->path);
    l->fd = -1;
    l->path = NULL;
}

/* ---- a set of files replaced as one ---- */

#define COMPLETE "COMPLETE"

/* a/b into buf; false when it does not fit */
static bool join(char *buf, size_t cap, const char *a, const char *b) {
    int n = snprintf(buf, cap, "%s%s%s", a, a[0] && b[0] ? "/" : "", b);
    return n >= 0 && (size_t)n < cap;
}

/* Moves every file under from/rel to to/rel (making to's folders) and
 * removes from's folders on the way back up; with move false, removes
 * the files instead. */
static int walk(const char *from, const char *to, const char *rel, bool move, Err *e) {
    char src[4096];
    if (!join(src, sizeof src, from, rel))
        return err_set(e, ERR_RUNTIME, "a path under %s is too long", from);
    DIR *d = opendir(src);
    if (!d)
        return err_set(e, ERR_RUNTIME, "cannot read the folder %s: %s", src, strerror(errno));
    int rc = 0;
    for (struct dirent *ent; !rc && (ent = readdir(d));) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0 ||
            (!rel[0] && strcmp(ent->d_name, COMPLETE) == 0))
            continue;
        char sub[4096], path[4096], dst[4096];
        if (!join(sub, sizeof sub, rel, ent->d_name) || !join(path, sizeof path, from, sub) ||
            !join(dst, sizeof dst, to, sub)) {
            rc = err_set(e, ERR_RUNTIME, "a path under %s is too long", from);
            break;
        }
        struct stat st;
        if (lstat(path, &st) != 0)
            rc = err_set(e, ERR_RUNTIME, "cannot read %s: %s", path, strerror(errno));
        else if (S_ISDIR(st.st_mode)) {
            if (move && mkdir(dst, 0777) != 0 && errno != EEXIST)
                rc = err_set(e, ERR_RUNTIME, "cannot create the folder %s: %s", dst,
                             strerror(errno));
            if (!rc)
                rc = walk(from, to, sub, move, e);
        } else if (move ? rename(path, dst) != 0 : unlink(path) != 0) {
            rc = err_set(e, ERR_RUNTIME, "cannot %s %s: %s", move ? "move into place"
                         : "remove", path, strerror(errno));
        }
    }
    closedir(d);
    if (!rc && rel[0] && rmdir(src) != 0)
        rc = err_set(e, ERR_RUNTIME, "cannot remove the folder %s: %s", src, strerror(errno));
    return rc;
}

static int finish(const char *dir, const char *staging, bool complete, Err *e) {
    int rc = walk(staging, dir, "", complete, e);
    char mark[4096 + 16];
    snprintf(mark, sizeof mark, "%s/" COMPLETE, staging);
    if (!rc && complete && unlink(mark) != 0)
        rc = err_set(e, ERR_RUNTIME, "cannot remove %s: %s", mark, strerror(errno));
    if (!rc && rmdir(staging) != 0)
        rc = err_set(e, ERR_RUNTIME, "cannot remove the folder %s: %s", staging,
                     strerror(errno));
    return rc;
}

static void staging_path(char *buf, size_t cap, const char *dir, const char *name) {
    snprintf(buf, cap, "%s/.%s.new", dir, name);
}

int publish_recover(const char *dir, const char *name, Err *e) {
    char staging[4096], mark[4096 + 16];
    staging_path(staging, sizeof staging, dir, name);
    struct stat st;
    if (lstat(staging, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return err_set(e, ERR_INPUT, "%s is in the way (not a folder); remove it", staging);
    snprintf(mark, sizeof mark, "%s/" COMPLETE, staging);
    return finish(dir, staging, access(mark, F_OK) == 0, e);
}

int publish_stage(const char *dir, const char *name, char *staging, size_t cap, Err *e) {
    int rc = publish_recover(dir, name, e);
    if (rc)
        return rc;
    staging_path(staging, cap, dir, name);
    if (mkdir(staging, 0777) != 0)
        return err_set(e, ERR_INPUT, "cannot create the folder %s: %s; check %s is writable",
                       staging, strerror(errno), dir);
    return 0;
}

int publish_commit(const char *dir, const char *staging, Err *e) {
    char mark[4096 + 16];
    snprintf(mark, sizeof mark, "%s/" COMPLETE, staging);
    int rc = write_file_atomic(mark, "", 0, e);
    return rc ? rc : finish(dir, staging, true, e);
}
