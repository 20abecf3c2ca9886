/* What the page's two C files share (web/posenc_web.c, the pictures and
 * the order demo; web/posenc_train.c, training and the trained model): the
 * last error, and the parsing of the numbers typed into the page's boxes
 * with the programs' own messages. */
#ifndef POSENC_WEB_PW_H
#define POSENC_WEB_PW_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/err.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define EXPORT
#endif

/* The error of the last call that failed; pw_error() reads its message. */
extern Err pw_err;

/* A whole number from 0 to 2^64-1 in s, as the programs read --seed. */
int pw_parse_u64(uint64_t *out, const char *opt, const char *s, Err *e);
/* A whole number from lo to hi in s, with the programs' message for it. */
int pw_parse_size(size_t *out, const char *opt, const char *s, size_t lo, size_t hi, Err *e);

#endif
