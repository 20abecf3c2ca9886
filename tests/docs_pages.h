/* What the docs tests share: test_docs.c runs the pages' commands,
 * test_docs_read.c checks the numbers their prose quotes from them, and
 * test_docs_pictures.c the pictures the commands draw. */
#ifndef POSENC_DOCS_PAGES_H
#define POSENC_DOCS_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MAX_PAGES 64

/* README.md, then the .md files of docs/ in name order (docs_find_pages fills them). */
extern char docs_pages[MAX_PAGES][256];
extern size_t docs_n_pages;
void docs_find_pages(void);
/* The rest of f, as one string (the caller frees it). */
char *docs_read_all(FILE *f);
/* Splits text into lines in place; *lines is an array the caller frees. */
size_t docs_split_lines(char *text, char ***lines);
/* Parses a whole token as a number, allowing trailing punctuation (which
 * must then match, copied to tail, 16 bytes); sets *unit to one unit in
 * its last printed digit. */
int docs_as_number(const char *tok, double *v, double *unit, char *tail);
/* Does the prose's number a (one unit in its last digit: ua) quote the
 * block's b (ub)? At the same digits, only b itself does (a unit off is
 * another number, not a rounding); at fewer, a number within half a unit
 * of each, both being rounded (test_docs_read.c). */
bool docs_quotes(double a, double ua, double b, double ub);

/* A picture a page shows from docs/img: its file, where it is shown, and
 * the work file its marker names as drawn by a command ("" if none). */
typedef struct {
    char img[256], work[256], page[256];
    size_t line;
} DocsPicture;
/* The pictures of every page, in page order (at most cap): how many. */
size_t docs_pictures(DocsPicture *out, size_t cap);
/* After cmd (page:lineno) ran in work: true if every page's picture it
 * drew is the committed file byte for byte, else false with why in msg. */
bool docs_check_pictures(const char *page, size_t lineno, const char *cmd, const char *work,
                         char *msg, size_t cap);

#endif
