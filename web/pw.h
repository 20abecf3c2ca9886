/* What the page's two C files share (web/posenc_web.c, the pictures and
 * the order demo; web/posenc_train.c, training and the trained model): the
 * last error. The numbers typed into the page's boxes are read by
 * src/core/parse.h, as the programs read them. */
#ifndef POSENC_WEB_PW_H
#define POSENC_WEB_PW_H

#include "../src/core/err.h"
#include "../src/core/parse.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define EXPORT
#endif

/* The error of the last call that failed; pw_error() reads its message. */
extern Err pw_err;
const char *pw_error(void);

/* The entry points that read boxes of numbers, declared for the tests,
 * which call them natively as the page calls them (tests/test_cli.c). */
int pw_order(const char *s1, const char *s2, const char *scheme, const char *d_model,
             const char *heads, const char *layers, const char *d_ff, int pre_norm,
             const char *seed);
int pw_code(const char *scheme, const char *d_model, const char *heads, const char *base,
            int split, int combine, const char *positions, const char *seed);
int pw_rotation(const char *d_model, const char *base, int split, const char *t, const char *k);
/* build/train's options, one argument a line (web/posenc_form.c). */
int pw_train_begin(const char *args);

#endif
