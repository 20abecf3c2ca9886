/* A growable byte buffer: a file built in memory before it is written in
 * one piece (checkpoints, PNGs), so that a half-built file never reaches
 * the disk. */
#ifndef POSENC_BUF_H
#define POSENC_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct {
    unsigned char *p;
    size_t n, cap;
    bool failed; /* an allocation failed: later appends do nothing */
} Buf;

/* Appends n bytes. Out of memory sets b->failed once and drops this and
 * every later append, so a writer checks once, at the end. */
void buf_put(Buf *b, const void *src, size_t n);

/* Little-endian integers and IEEE floats, as the checkpoint stores them. */
void buf_put_u32(Buf *b, uint32_t x);
void buf_put_u64(Buf *b, uint64_t x);

/* Appends printf-formatted text (without its terminating NUL). */
void buf_printf(Buf *b, const char *fmt, ...) POSENC_PRINTF(2, 3);

void buf_free(Buf *b);

/* FNV-1a, 64 bits, of n bytes: the checksum of checkpoints and cell files
 * (it catches damage, not forgery). */
uint64_t buf_fnv1a(const void *p, size_t n);

#endif
