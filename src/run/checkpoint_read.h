/* Reading a checkpoint's fields: a cursor over the file's bytes that
 * refuses to step past the end and reports the first bad field, shared by
 * versions 6 and 7 (checkpoint.c) and 1 to 5 (checkpoint_legacy.c). Not
 * part of the library's interface. */
#ifndef POSENC_CHECKPOINT_READ_H
#define POSENC_CHECKPOINT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

#define CK_MAX_STRING 4096

/* What a layout of one version holds beyond what its number says: every
 * layout a build has written, so that its files load. */
enum {
    CK_SECONDS = 1, /* the training time (from version 1's second layout on) */
    CK_DROPOUT = 2, /* dropout (from version 5's second layout on) */
    CK_POOL = 4,    /* the pooling (from version 5's third layout on) */
};

typedef struct {
    const unsigned char *p;
    size_t n, off;
    const char *name;    /* the file, for messages */
    const char *section; /* what is being read, for messages */
    uint32_t version;    /* of the file */
    unsigned layout;     /* CK_ bits, for versions 1 to 5 */
    Err *e;
    int rc;
} Rd;

/* Records "bad checkpoint: what (in the section)" unless an error is
 * recorded already; returns the error's code. */
int ck_bad(Rd *r, const char *what);
uint64_t ck_u64(Rd *r);
uint32_t ck_u32(Rd *r);
float ck_f32(Rd *r);
double ck_f64(Rd *r);
/* A size that must lie in [lo, hi]; an enum below count. */
size_t ck_size(Rd *r, size_t lo, size_t hi, const char *what);
uint32_t ck_enum(Rd *r, uint32_t count, const char *what);
/* A length-prefixed string into dst (cap bytes), without NUL bytes. */
void ck_str(Rd *r, char *dst, size_t cap);

#endif
