#define _POSIX_C_SOURCE 200809L /* fileno */
#include "npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The header is a Python dict literal padded with spaces so that the data
 * starts at a multiple of 64 bytes, ending in a newline. */
static int write_npy(const char *path, const char *descr, const void *x, size_t elem,
                     const size_t *shape, size_t ndim, Err *e) {
    char dict[256], dims[160] = "";
    size_t count = 1, used = 0;
    for (size_t i = 0; i < ndim; i++) {
        used += (size_t)snprintf(dims + used, sizeof dims - used, "%zu,%s", shape[i],
                                 ndim > 1 && i + 1 < ndim ? " " : "");
        count *= shape[i];
    }
    if (ndim > 1)
        dims[strlen(dims) - 1] = '\0'; /* (2, 3) has no trailing comma; (2,) keeps it */
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr, dims);
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f)
        return err_open(e, errno, "", path, 1);
    unsigned short hlen = (unsigned short)(n + pad + 1);
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                              (unsigned char)(hlen >> 8)};
    int ok = fwrite(head, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
    for (size_t i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(x, elem, count, f) == count;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        return err_set(e, ERR_RUNTIME, "error writing %s (disk full?)", path);
    return 0;
}

/* x86 and ARM Linux are little-endian, as '<f4' and '<i8' say. */
int npy_write_f32(const char *path, const float *x, const size_t *shape, size_t ndim, Err *e) {
    return write_npy(path, "<f4", x, sizeof *x, shape, ndim, e);
}

int npy_write_i64(const char *path, const int64_t *x, const size_t *shape, size_t ndim, Err *e) {
    return write_npy(path, "<i8", x, sizeof *x, shape, ndim, e);
}

int npy_read_f32(const char *path, float **x, size_t *shape, size_t *ndim, Err *e) {
    *x = NULL;
    *ndim = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_open(e, errno, "", path, 0);
    unsigned char head[10];
    char dict[1024];
    int rc = 0;
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0 || head[6] != 1) {
        rc = err_set(e, ERR_INPUT, "%s is not a version 1 .npy file", path);
        goto done;
    }
    size_t hlen = head[8] | (size_t)head[9] << 8;
    if (hlen >= sizeof dict || fread(dict, 1, hlen, f) != hlen) {
        rc = err_set(e, ERR_INPUT, "%s: bad .npy header", path);
        goto done;
    }
    dict[hlen] = '\0';
    const char *s = strstr(dict, "'shape': (");
    if (!strstr(dict, "'descr': '<f4'") || !strstr(dict, "'fortran_order': False") || !s) {
        rc = err_set(e, ERR_INPUT, "%s: want a C-order float32 array", path);
        goto done;
    }
    s += strlen("'shape': (");
    /* the data's real size bounds the allocation, whatever the header says */
    struct stat st;
    long here = ftell(f);
    size_t count = 1, avail = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && here >= 0 &&
                                      st.st_size >= here
                                  ? (size_t)(st.st_size - here) / sizeof **x : 0;
    while (*s && *s != ')') {
        char *end;
        errno = 0;
        unsigned long long d = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
        if (*s < '0' || *s > '9' || errno == ERANGE || *ndim == 4 || d > SIZE_MAX ||
            (d && count > SIZE_MAX / sizeof **x / (size_t)d)) {
            rc = err_set(e, ERR_INPUT, "%s: bad shape", path);
            goto done;
        }
        shape[(*ndim)++] = (size_t)d;
        count *= (size_t)d;
        s = end;
        while (*s == ',' || *s == ' ')
            s++;
    }
    if (count > avail) {
        rc = err_set(e, ERR_INPUT, "%s: the data is shorter than its shape", path);
        goto done;
    }
    *x = malloc((count ? count : 1) * sizeof **x);
    if (!*x || fread(*x, sizeof **x, count, f) != count) {
        free(*x);
        *x = NULL;
        rc = err_set(e, ERR_INPUT, "%s: the data is shorter than its shape", path);
    }
done:
    fclose(f);
    return rc;
}
