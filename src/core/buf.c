#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_put(Buf *b, const void *src, size_t n) {
    if (b->failed || n == 0)
        return;
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n) {
            if (cap > (size_t)-1 / 2) {
                b->failed = true;
                return;
            }
            cap *= 2;
        }
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

void buf_put_u32(Buf *b, uint32_t x) {
    unsigned char c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (unsigned char)(x >> (8 * i));
    buf_put(b, c, 4);
}

void buf_put_u64(Buf *b, uint64_t x) {
    unsigned char c[8];
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(x >> (8 * i));
    buf_put(b, c, 8);
}

void buf_printf(Buf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf_put(b, big, (size_t)n);
    free(big);
}

void buf_free(Buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

uint64_t buf_fnv1a(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = POSENC_FNV_BASIS;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * POSENC_FNV_PRIME;
    return h;
}
