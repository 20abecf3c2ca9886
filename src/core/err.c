#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int err_set(Err *e, int code, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

int err_open(Err *e, int errnum, const char *what, const char *path, int writing) {
    const char *advice, *sep = what && what[0] ? " " : "";
    int code = ERR_INPUT;
    switch (errnum) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ELOOP:
        advice = writing ? "check that its folder exists" : "check the path";
        break;
    case EACCES:
    case EPERM:
    case EROFS:
        advice = writing ? "choose a folder you may write to" : "check its permissions";
        break;
    case EISDIR:
        advice = "give a file, not a folder";
        break;
    default:
        /* out of descriptors or memory, an I/O error: not the path's fault */
        advice = "try again, or check the disk and the process's limits (ulimit -n)";
        code = ERR_RUNTIME;
    }
    return err_set(e, code, "cannot %s %s%s%s: %s; %s", writing ? "write" : "open",
                   what ? what : "", sep, path, strerror(errnum), advice);
}

void err_clear(Err *e) {
    if (e) {
        e->code = ERR_OK;
        e->msg[0] = '\0';
    }
}

void *xmalloc(size_t bytes, const char *what, Err *e) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        err_set(e, ERR_RUNTIME, "out of memory allocating %zu bytes for %s: the machine, or "
                "the process's limit (ulimit -v), has no more", bytes, what);
    return p;
}

void *xcalloc(size_t count, size_t size, const char *what, Err *e) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        err_set(e, ERR_RUNTIME, "out of memory allocating %zu x %zu bytes for %s: the machine, "
                "or the process's limit (ulimit -v), has no more", count, size, what);
    return p;
}

int size_mul(size_t *out, size_t a, size_t b, Err *e) {
    if (a != 0 && b > SIZE_MAX / a)
        return err_set(e, ERR_INPUT, "size %zu x %zu overflows; use smaller dimensions", a, b);
    *out = a * b;
    return 0;
}
