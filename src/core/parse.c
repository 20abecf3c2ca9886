#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether text is a whole number that fits in 64 bits, into *v. */
static bool whole(const char *text, uint64_t *v) {
    /* a digit first: strtoull would skip blanks and negate a '-' */
    if (!isdigit((unsigned char)*text))
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(text, &end, 10);
    *v = (uint64_t)x;
    return *end == '\0' && errno != ERANGE;
}

/* Whether text is a real number strtod reads whole, into *v. */
static bool real(const char *text, double *v) {
    if (*text == '\0' || isspace((unsigned char)*text))
        return false;
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return *end == '\0' && errno != ERANGE;
}

/* " (default DEF)", or "" without one. */
static void default_note(char *buf, size_t cap, const char *def) {
    if (def)
        snprintf(buf, cap, " (default %s)", def);
    else if (cap)
        buf[0] = '\0';
}

int parse_size_def(size_t *out, const char *opt, const char *text, size_t lo, size_t hi,
                   const char *def, Err *e) {
    uint64_t v;
    if (!whole(text, &v) || v < lo || v > hi) {
        char note[128];
        default_note(note, sizeof note, def);
        return err_set(e, ERR_INPUT, "%s wants a whole number from %zu to %zu%s, not '%s'", opt,
                       lo, hi, note, text);
    }
    *out = (size_t)v;
    return 0;
}

int parse_size(size_t *out, const char *opt, const char *text, size_t lo, size_t hi, Err *e) {
    return parse_size_def(out, opt, text, lo, hi, NULL, e);
}

int parse_u64(uint64_t *out, const char *opt, const char *text, Err *e) {
    uint64_t v;
    if (!whole(text, &v))
        return err_set(e, ERR_INPUT, "%s wants a whole number from 0 to 2^64-1, not '%s'", opt,
                       text);
    *out = v;
    return 0;
}

int parse_real_def(double *out, const char *opt, const char *text, double lo, double hi,
                   const char *def, Err *e) {
    double v;
    /* NaN fails both comparisons */
    if (!real(text, &v) || !(v >= lo && v <= hi)) {
        char a[32], b[32], note[128];
        real_text(a, sizeof a, lo, false);
        real_text(b, sizeof b, hi, false);
        default_note(note, sizeof note, def);
        return err_set(e, ERR_INPUT, "%s wants a number from %s to %s%s, not '%s'", opt, a, b,
                       note, text);
    }
    *out = v;
    return 0;
}

int parse_real(double *out, const char *opt, const char *text, double lo, double hi, Err *e) {
    return parse_real_def(out, opt, text, lo, hi, NULL, e);
}

int parse_float(float *out, const char *opt, const char *text, float lo, float hi, Err *e) {
    /* the bounds as they read ("0.95"), not as the float nearest them */
    char a[32], b[32];
    real_text(a, sizeof a, lo, true);
    real_text(b, sizeof b, hi, true);
    double v;
    int rc = parse_real(&v, opt, text, strtod(a, NULL), strtod(b, NULL), e);
    if (!rc)
        *out = (float)v;
    return rc;
}

void real_text(char *buf, size_t cap, double x, bool single) {
    /* no room, nothing to write; said outright, since GCC's sanitizer
     * build (-O3 -fsanitize=address,undefined) cannot prove buf non-null
     * and refuses the snprintf below (-Wformat-truncation) */
    if (!buf || !cap)
        return;
    /* %g's own 6 digits where they are enough (100, not 1e+02; 1e+06), more
     * where they are not: 9 always round-trip a float, 17 a double */
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, x);
        double back = strtod(buf, NULL);
        if (single ? (float)back == (float)x : back == x)
            return;
    }
}
