/* The numbers a user types, read strictly: the programs' options, the
 * schemes' and the runs' option texts (a checkpoint's among them), and the
 * web page's boxes all parse through here, so that one text gets one
 * answer and one message everywhere.
 *
 * A whole number is digits and nothing else: no blank, no sign, no
 * trailing text, no overflow (strtoull alone skips leading blanks and
 * takes " -1" as 2^64-1). A real is the whole text as strtod reads it,
 * with no leading blank, in range (NaN never is) and neither overflowing
 * nor underflowing. Each parser returns 0, or ERR_INPUT with the message
 * the programs print, naming the option and the range applied and quoting
 * the text:
 *   --layers wants a whole number from 1 to 16, not '0'
 *   --seed wants a whole number from 0 to 2^64-1, not ' -1'
 *   --lr wants a number from 1e-08 to 10, not 'abc'
 * The _def forms add the default after the range, "(default d_model/2)",
 * as the schemes' options say it. On an error *out is left as it was. */
#ifndef POSENC_PARSE_H
#define POSENC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* A whole number from lo to hi, both included. */
int parse_size(size_t *out, const char *opt, const char *text, size_t lo, size_t hi, Err *e);
int parse_size_def(size_t *out, const char *opt, const char *text, size_t lo, size_t hi,
                   const char *def, Err *e);
/* A whole number from 0 to 2^64-1: a seed. */
int parse_u64(uint64_t *out, const char *opt, const char *text, Err *e);
/* A real number from lo to hi, both included. */
int parse_real(double *out, const char *opt, const char *text, double lo, double hi, Err *e);
int parse_real_def(double *out, const char *opt, const char *text, double lo, double hi,
                   const char *def, Err *e);
/* parse_real for a value kept in a float, between float bounds taken as
 * the decimals they read as (0.95f, which is 0.949999988, as 0.95): the
 * text is compared before it is rounded, so both edges are accepted. */
int parse_float(float *out, const char *opt, const char *text, float lo, float hi, Err *e);

/* x as %g writes it, with more digits where its 6 do not read back as x
 * exactly (as a float, with single): how options' numbers and their
 * bounds are written, so that a message states the bound that is applied
 * ("1.000001", where %g says 1) and a saved value reads back as it was. */
void real_text(char *buf, size_t cap, double x, bool single);

#endif
