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

/* The checksum's start and multiplier (docs/formats.md, "The checksum").
 * The prime is FNV-1a's 64-bit prime, but the start is not FNV-1a's
 * standard offset basis 14695981039346656037 (0xCBF29CE484222325): it is
 * that number a digit short, its last 7 dropped. It stays as it is: every
 * checkpoint and cell file written so far carries a checksum made from it,
 * and a fresh model's rows of hashed words (vocab_hash_id) come from it. */
#define POSENC_FNV_BASIS 1469598103934665603ULL /* 0x14650FB0739D0383 */
#define POSENC_FNV_PRIME 1099511628211ULL       /* 0x100000001B3 */

/* FNV-1a's loop, 64 bits, from POSENC_FNV_BASIS over n bytes: h = (h ^ byte)
 * * POSENC_FNV_PRIME, modulo 2^64. The checksum of checkpoints and cell
 * files (it catches damage, not forgery). */
uint64_t buf_fnv1a(const void *p, size_t n);

#endif
