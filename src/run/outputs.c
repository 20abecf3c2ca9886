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

int output_check(const char *path, const char *opt, bool replaced, Err *e) {
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

/* Which file a path names: an existing one by device and inode; one yet
 * to be made by its directory's device and inode and its name. A symbolic
 * link is followed to what it points at, made or not. */
typedef struct {
    bool known, exists;
    dev_t dev;
    ino_t ino;
    char name[256];
} FileId;

static void file_id(const char *path, FileId *id, int depth) {
    memset(id, 0, sizeof *id);
    struct stat st;
    if (stat(path, &st) == 0) {
        id->known = id->exists = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return;
    }
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    char target[4096];
    ssize_t k;
    if (depth < 16 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
        (k = readlink(path, target, sizeof target - 1)) > 0) {
        /* a dangling link: writing it makes the file it names */
        target[k] = '\0';
        char next[8192];
        if (target[0] == '/')
            snprintf(next, sizeof next, "%s", target);
        else
            snprintf(next, sizeof next, "%s/%s", dir, target);
        file_id(next, id, depth + 1);
        return;
    }
    const char *slash = strrchr(path, '/');
    snprintf(id->name, sizeof id->name, "%s", slash ? slash + 1 : path);
    if (stat(dir, &st) == 0) {
        id->known = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
}

static bool same_file(const FileId *a, const FileId *b) {
    return a->known && b->known && a->exists == b->exists && a->dev == b->dev &&
           a->ino == b->ino && (a->exists || strcmp(a->name, b->name) == 0);
}

/* Whether the file at path lies in the directory dir or in a folder of
 * it (an export's params/): its parent's or grandparent's inode. */
static bool inside(const char *path, const FileId *dir) {
    char parent[4096], grand[4200];
    dir_of(path, parent, sizeof parent);
    snprintf(grand, sizeof grand, "%s/..", parent);
    const char *up[2] = {parent, grand};
    for (int k = 0; k < 2; k++) {
        struct stat st;
        if (dir->exists && stat(up[k], &st) == 0 && st.st_dev == dir->dev &&
            st.st_ino == dir->ino)
            return true;
    }
    return false;
}

int outputs_distinct(const FileArg *files, size_t n, Err *e) {
    for (size_t i = 0; i < n; i++) {
        const FileArg *o = &files[i];
        if (!o->path || !o->path[0] || o->use == FILE_INPUT)
            continue;
        FileId out;
        file_id(o->path, &out, 0);
        for (size_t j = 0; j < n; j++) {
            const FileArg *f = &files[j];
            if (j == i || !f->path || !f->path[0])
                continue;
            if (f->use == FILE_INPUT && o->may_be && strcmp(o->may_be, f->opt) == 0)
                continue;
            FileId other;
            file_id(f->path, &other, 0);
            if (same_file(&out, &other)) {
                if (f->use == FILE_INPUT)
                    return err_set(e, ERR_INPUT, "%s %s is the same file as %s %s: writing it "
                                   "would destroy it; give another path", o->opt, o->path,
                                   f->opt, f->path);
                return err_set(e, ERR_INPUT, "%s %s and %s %s are the same file: one would "
                               "overwrite the other; give two paths", o->opt, o->path, f->opt,
                               f->path);
            }
            if (o->use == FILE_DIRECTORY && f->use == FILE_INPUT && inside(f->path, &out))
                return err_set(e, ERR_INPUT, "%s %s holds %s %s, which replacing the directory "
                               "would destroy; give another directory", o->opt, o->path, f->opt,
                               f->path);
        }
    }
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

/* Opens lock_path, a file of its own (created), which output_unlock
 * removes. */
static int open_sidecar(OutputLock *l, const char *lock_path, Err *e) {
    if (!(l->path = xmalloc(strlen(lock_path) + 1, "a file name", e)))
        return ERR_RUNTIME;
    memcpy(l->path, lock_path, strlen(lock_path) + 1);
    l->fd = open(l->path, O_RDWR | O_CREAT, 0666);
    if (l->fd < 0) {
        int rc = err_set(e, ERR_INPUT, "cannot create the lock file %s: %s; choose a "
                         "directory you may write to", l->path, strerror(errno));
        free(l->path);
        l->path = NULL;
        return rc;
    }
    return 0;
}

static int take(OutputLock *l, const char *shown, const char *opt, Err *e) {
    int rc = lock_fd(l->fd, shown, opt, e);
    if (rc) {
        close(l->fd); /* not ours to remove: the other run holds it */
        free(l->path);
        l->fd = -1;
        l->path = NULL;
    }
    return rc;
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
        char lock[4096 + 8];
        snprintf(lock, sizeof lock, "%s.lock", path);
        int rc = open_sidecar(l, lock, e);
        if (rc)
            return rc;
    }
    return take(l, path, opt, e);
}

int output_lock_folder(OutputLock *l, const char *dir, const char *name, const char *opt,
                       Err *e) {
    l->fd = -1;
    l->path = NULL;
    char lock[4096 + 256];
    snprintf(lock, sizeof lock, "%s/%s.lock", dir, name);
    int rc = open_sidecar(l, lock, e);
    return rc ? rc : take(l, dir, opt, e);
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

/* What happens to one entry of a set being moved: its path in the staging
 * folder, its destination, its path relative to both, and its lstat. */
typedef int (*Visit)(const char *from, const char *to, const char *sub, const char *path,
                     const char *dst, const struct stat *st, bool move, Err *e);

/* visit on every entry of from/rel (the staging folder's COMPLETE mark
 * aside), in the folder's order, until one fails. */
static int each_entry(const char *from, const char *to, const char *rel, Visit visit, bool move,
                      Err *e) {
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
        struct stat st;
        if (!join(sub, sizeof sub, rel, ent->d_name) || !join(path, sizeof path, from, sub) ||
            !join(dst, sizeof dst, to, sub))
            rc = err_set(e, ERR_RUNTIME, "a path under %s is too long", from);
        else if (lstat(path, &st) != 0)
            rc = err_set(e, ERR_RUNTIME, "cannot read %s: %s", path, strerror(errno));
        else
            rc = visit(from, to, sub, path, dst, &st, move, e);
    }
    closedir(d);
    return rc;
}

static int walk(const char *from, const char *to, const char *rel, bool move, Err *e);

/* One entry moved into place (a folder made and walked), or removed. */
static int move_entry(const char *from, const char *to, const char *sub, const char *path,
                      const char *dst, const struct stat *st, bool move, Err *e) {
    if (S_ISDIR(st->st_mode)) {
        if (move && mkdir(dst, 0777) != 0 && errno != EEXIST)
            return err_set(e, ERR_RUNTIME, "cannot create the folder %s: %s", dst,
                           strerror(errno));
        return walk(from, to, sub, move, e);
    }
    if (move ? rename(path, dst) != 0 : unlink(path) != 0)
        return err_set(e, ERR_RUNTIME, "cannot %s %s: %s", move ? "move into place" : "remove",
                       path, strerror(errno));
    return 0;
}

/* Moves every file under from/rel to to/rel (making to's folders) and
 * removes from's folders on the way back up; with move false, removes
 * the files instead. */
static int walk(const char *from, const char *to, const char *rel, bool move, Err *e) {
    int rc = each_entry(from, to, rel, move_entry, move, e);
    char src[4096];
    if (!rc && rel[0] && join(src, sizeof src, from, rel) && rmdir(src) != 0)
        rc = err_set(e, ERR_RUNTIME, "cannot remove the folder %s: %s", src, strerror(errno));
    return rc;
}

/* Whether one entry can be moved without harm (see check_moves); a folder's
 * entries too. */
static int check_entry(const char *from, const char *to, const char *sub, const char *path,
                       const char *dst, const struct stat *st, bool move, Err *e) {
    (void)path;
    struct stat at;
    if (lstat(dst, &at) != 0) {
        if (errno != ENOENT)
            return err_set(e, ERR_INPUT, "cannot look at %s: %s", dst, strerror(errno));
    } else if (S_ISLNK(at.st_mode)) {
        return err_set(e, ERR_INPUT, "%s is a symbolic link: the page's files are not written "
                       "through links inside the folder they go to; remove the link, or give "
                       "the folder it points to as --out", dst);
    } else if (S_ISDIR(st->st_mode) != S_ISDIR(at.st_mode) ||
               (!S_ISDIR(st->st_mode) && !S_ISREG(at.st_mode))) {
        return err_set(e, ERR_INPUT, "%s is in the way (%s, where %s belongs); move it away and "
                       "run again: nothing was replaced", dst,
                       S_ISDIR(at.st_mode) ? "a folder" : S_ISREG(at.st_mode) ? "a file"
                                                                             : "not a file",
                       S_ISDIR(st->st_mode) ? "a folder" : "a file");
    }
    return S_ISDIR(st->st_mode) ? each_entry(from, to, sub, check_entry, move, e) : 0;
}

/* Whether every file under from/rel can be moved to to/rel without harm,
 * before anything moves: each destination is missing, or of the same kind
 * (a folder for a folder, a regular file for a file), and none is a
 * symbolic link (the user named to, not the links inside it: a link there
 * would send the set into some other folder). ERR_INPUT naming the first
 * path in the way. */
static int check_moves(const char *from, const char *to, const char *rel, Err *e) {
    return each_entry(from, to, rel, check_entry, false, e);
}

static int finish(const char *dir, const char *staging, bool complete, Err *e) {
    /* a set goes into place whole or not at all */
    if (complete) {
        int rc = check_moves(staging, dir, "", e);
        if (rc)
            return rc;
    }
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

int publish_drop(const char *dir, const char *staging, Err *e) {
    return finish(dir, staging, false, e);
}

int publish_commit(const char *dir, const char *staging, Err *e) {
    /* checked before the set is marked complete: a set that cannot go
     * into place is dropped (it is written again from its sources), never
     * left marked for every later run to fail on */
    int rc = check_moves(staging, dir, "", e);
    if (rc) {
        Err ignored;
        finish(dir, staging, false, &ignored);
        return rc;
    }
    char mark[4096 + 16];
    snprintf(mark, sizeof mark, "%s/" COMPLETE, staging);
    rc = write_file_atomic(mark, "", 0, e);
    if (rc) { /* unmarked: nothing moved, so the set is dropped as above */
        Err ignored;
        finish(dir, staging, false, &ignored);
        return rc;
    }
    return finish(dir, staging, true, e);
}
