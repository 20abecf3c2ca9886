/* The checkpoint loader's cursor over a file's bytes (checkpoint_read.h),
 * which version 6 (checkpoint.c) and versions 1 to 5 (checkpoint_legacy.c)
 * read through. */
#include "checkpoint_read.h"

#include <stdio.h>
#include <string.h>

int ck_bad(Rd *r, const char *what) {
    if (!r->rc)
        r->rc = err_set(r->e, ERR_INPUT, "%s: bad checkpoint: %s (in the %s); it may come from "
                        "another program or be corrupted", r->name, what, r->section);
    return r->rc;
}

static const unsigned char *take_bytes(Rd *r, size_t n) {
    if (r->rc)
        return NULL;
    if (n > r->n - r->off) {
        ck_bad(r, "the file ends early");
        return NULL;
    }
    const unsigned char *p = r->p + r->off;
    r->off += n;
    return p;
}

uint64_t ck_u64(Rd *r) {
    const unsigned char *c = take_bytes(r, 8);
    uint64_t x = 0;
    for (int i = 0; c && i < 8; i++)
        x |= (uint64_t)c[i] << (8 * i);
    return x;
}

uint32_t ck_u32(Rd *r) {
    const unsigned char *c = take_bytes(r, 4);
    uint32_t x = 0;
    for (int i = 0; c && i < 4; i++)
        x |= (uint32_t)c[i] << (8 * i);
    return x;
}

float ck_f32(Rd *r) {
    uint32_t u = ck_u32(r);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

double ck_f64(Rd *r) {
    uint64_t u = ck_u64(r);
    double x;
    memcpy(&x, &u, 8);
    return x;
}

size_t ck_size(Rd *r, size_t lo, size_t hi, const char *what) {
    uint64_t x = ck_u64(r);
    if (!r->rc && (x < lo || x > hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s is %llu, outside %zu..%zu", what, (unsigned long long)x,
                 lo, hi);
        ck_bad(r, msg);
    }
    return (size_t)x;
}

uint32_t ck_enum(Rd *r, uint32_t count, const char *what) {
    uint32_t x = ck_u32(r);
    if (!r->rc && x >= count) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s has the unknown value %u", what, x);
        ck_bad(r, msg);
    }
    return x;
}

void ck_str(Rd *r, char *dst, size_t cap) {
    uint32_t n = ck_u32(r);
    if (!r->rc && n >= cap) {
        ck_bad(r, "a string is too long");
        return;
    }
    const unsigned char *c = take_bytes(r, n);
    if (!c)
        return;
    if (memchr(c, '\0', n)) {
        ck_bad(r, "a string holds a NUL byte");
        return;
    }
    memcpy(dst, c, n);
    dst[n] = '\0';
}
