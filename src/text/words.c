/* The rule for a word, or a label: what a data file may hold, and what a
 * sentence typed on a command line or in the page may (data.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "data.h"

/* The length of the UTF-8 character at s, or 0 if it is malformed.
 * Overlong forms, surrogates and code points past U+10FFFF count as
 * malformed, as in RFC 3629; a NUL inside a sequence stops it. */
static size_t utf8_char(const unsigned char *s) {
    unsigned c = s[0], cp, min;
    size_t n;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

int data_check_token(const char *s, const char *what, const char *of, const char *fix,
                     Err *e) {
    size_t len = strlen(s);
    if (len == 0)
        return err_set(e, ERR_INPUT, "a %s is empty; give it at least one character", what);
    if (len > VOCAB_MAX_WORD)
        return err_set(e, ERR_INPUT, "the %s '%.32s...'%s has %zu bytes, more than %d; shorten "
                       "it", what, s, of, len, VOCAB_MAX_WORD);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (isspace(*p))
            return err_set(e, ERR_INPUT, "the %s '%s' contains whitespace; words and labels "
                           "are split on whitespace", what, s);
        size_t k = utf8_char(p);
        if (!k)
            return err_set(e, ERR_INPUT, "the %s '%s'%s is not valid UTF-8 (at its byte %zu); "
                           "%s", what, s, of, (size_t)(p - (const unsigned char *)s) + 1, fix);
        p += k;
    }
    return 0;
}

int data_check_words(const Words *w, size_t lead, const char *what, Err *e) {
    if (w->n <= lead)
        return err_set(e, ERR_INPUT, "%s is empty: give at least one word", what);
    char of[80], fix[96];
    snprintf(of, sizeof of, " of %s", what);
    snprintf(fix, sizeof fix, "give %s as UTF-8 text", what);
    for (size_t i = 0; i < w->n; i++) {
        int rc = data_check_token(w->w[i], "word", of, fix, e);
        if (rc)
            return rc;
    }
    return 0;
}
