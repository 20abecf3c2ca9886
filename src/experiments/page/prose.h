/* The pages' words, out of C: every sentence of docs/results.md and
 * docs/benchmark.md is in a template, a markdown file of
 * src/experiments/page/templates/ that a writer edits without a rebuild;
 * the code fills in the numbers and chooses between sentences (it names
 * the template, or passes a fragment it built).
 *
 * A template file holds templates, each under a line "@@ NAME" (the lines
 * before the first are the file's comment); a template's text is the
 * lines after its header, up to the next header, without the blank lines
 * at its end: the code puts the breaks between paragraphs. In the text,
 * {{name}} is a value the code gives: a text (a word, a fragment, a
 * table), or a count; {{name:FMT}} a number printed as FMT says: .2f (two
 * decimals), +.2f (with its sign), .2g, g, .1e (C's printf's f, g and e).
 * Braces alone are text; "{{" must close on its line with "}}".
 *
 * The filler is strict: a name the code does not give, a value the
 * template does not use, a format it does not know, a number without a
 * format, a stray "{{" or "}}", two templates of one name, or a template
 * the code asks for and no file holds are errors, each naming the
 * template's file and line. The first error stops the page (exp_page_end
 * reports it) and nothing is written.
 *
 * The folder is found at run time, so that an edit needs no rebuild:
 * $POSENC_TEMPLATES if set, else src/experiments/page/templates in the
 * source tree of the program (the program's folder or one of the three
 * above it: build/experiments finds it in build/..), else under the
 * current folder. A template file holds at most 1 MiB, UTF-8 text without
 * NULs; one longer, or of other bytes, is refused, named. */
#ifndef POSENC_PROSE_H
#define POSENC_PROSE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../core/buf.h"
#include "../../core/err.h"

typedef enum { PV_TEXT, PV_COUNT, PV_REAL, PV_TEMPLATE } ProseKind;

typedef struct {
    const char *name;
    ProseKind kind;
    const char *text; /* PV_TEXT: n bytes (a Buf's need no NUL); PV_TEMPLATE: its name */
    size_t n;
    size_t count;     /* PV_COUNT */
    double real;      /* PV_REAL */
} ProseVal;

/* The values a fill call gives, by kind. */
ProseVal pv_text(const char *name, const char *text);
ProseVal pv_buf(const char *name, const Buf *b);
ProseVal pv_count(const char *name, size_t n);
ProseVal pv_real(const char *name, double x);
/* Another template's text (one without values): the code's choice
 * between sentences, pv_tmpl("verdict", ahead ? "x.ahead" : "x.behind"). */
ProseVal pv_tmpl(const char *name, const char *template_name);

/* Appends template `name` filled with the n values to b. An error is
 * kept (the first of the page) and b is left as it was. */
void prose_fill(Buf *b, const char *name, const ProseVal *v, size_t n);
/* The same with the values as arguments: PROSE(b, "rules.seeds",
 * pv_count("seeds", 10), pv_real("p", 0.1)). */
#define PROSE(b, name, ...)                                                                  \
    prose_fill((b), (name), (const ProseVal[]){__VA_ARGS__},                                \
               sizeof((const ProseVal[]){__VA_ARGS__}) / sizeof(ProseVal))
/* A template without values. */
#define PROSE_TEXT(b, name) prose_fill((b), (name), NULL, 0)

/* A page begins: its first error is forgotten. prose_end returns that
 * error (ERR_INPUT, with the template's file and line) or 0. */
void prose_begin(void);
int prose_end(Err *e);

/* Reads and checks every template file now, as the first fill would:
 * ERR_INPUT naming the folder, or the file and line, when one cannot be
 * read or is malformed. A grid calls it before its first cell, so that a
 * missing or broken folder is named before hours of training, not after
 * them; the page is then filled from what was read here. */
int prose_load(Err *e);

/* The folder the templates are read from (after prose_fill's first
 * load; "" before), and the templates read again from it at the next
 * fill (a test that edits one in a copy). */
const char *prose_folder(void);
void prose_reload(void);

/* Checks a template text as the filler reads it (its placeholders, its
 * braces), naming file and line, without values: ERR_INPUT when it is
 * malformed. For tests. */
int prose_check_file(const char *path, Err *e);

/* The one rounding of every number the pages print from data and of
 * every CSV value (number.c): on v's exact binary value, a half of the
 * last digit printed away from zero (up, for the accuracies and shares,
 * none below 0), where printf rounds a half to even (0.4140625, 53 right
 * of 128 blanks, is 0.414063, not printf's 0.414062; 56.25 is 56.3). The
 * benchmark page says so (templates/bench-6-how.md).
 *
 * exp_half_away: v to hand printf for conversion conv ('f', 'e' or 'g')
 * at precision prec: v itself, or at a half the next double away from
 * zero, which printf rounds away. NaN and infinities pass unchanged. */
double exp_half_away(double v, char conv, int prec);
/* v with decimals digits after the point ("%.*f"), sign: "%+.*f". */
void exp_fixed(Buf *b, double v, int decimals, bool sign);
/* The same as a string, for a row of several numbers in one printf:
 * exp_num(v, 3, true).s lives to the end of the full expression. Room for
 * any double to 22 decimals. */
typedef struct {
    char s[336];
} ExpNum;
ExpNum exp_num(double v, int decimals, bool sign);
/* v to six decimals, as every CSV file beside a page gives its values. */
void exp_csv_value(Buf *b, double v);

#endif
