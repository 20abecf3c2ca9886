/* The counts the pages' prose states, and the rules they are counted by:
 * the docs test checks them (test_docs_read.c) and `make fixtures`
 * (tests/regen/regen.c) rewrites them to what the commands and the
 * registry give, with these same functions.
 *
 * Counts of trainings. A page's first lines say how many small models its
 * commands train ("commands that train 83 small models"), and a
 * paragraph that counts the runs of a command it names ends with
 *
 *     <!-- runs: 51 = build/compare_pe --task reverse -->
 *
 * Both are counted from the commands, not rerun: `build/train` is one
 * training (none with --resume, which continues one), `build/compare_pe`
 * one per scheme of --schemes (every scheme of the registry without it,
 * or with "all") and seed (--seeds, default 3), and a `for V in A B C; do
 * ... done` loop multiplies what it holds by its words; a command whose
 * output the page shows as the program's refusal trains none.
 *
 * Counts of schemes. A paragraph that says how many schemes the registry
 * has ("all 17 schemes") ends with <!-- schemes: 17 -->.
 *
 * A marker may be indented (under a list item, or in a code block that
 * shows one, as docs/index.md does); its number must stand in the
 * paragraph above it, as a word of its own. */
#ifndef POSENC_DOCS_COUNT_H
#define POSENC_DOCS_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a count that cannot be made is (a command with loops nested too
 * deep, or a 'done' without its loop). */
#define DOCS_NO_COUNT SIZE_MAX

/* The models a shell command trains, or DOCS_NO_COUNT. */
size_t docs_trainings_of(const char *cmd);
/* The models the ```console commands of a page's lines train (n lines),
 * or DOCS_NO_COUNT. */
size_t docs_page_trainings(char *const *lines, size_t n);
/* The N of "commands that train N small models" in line, or -1. */
long docs_models_claimed(const char *line);

/* Does line hold the number text num as a word of its own? */
bool docs_prose_has(const char *line, const char *num);
/* line into out (cap bytes) with each word of its own that is the
 * number text from (as docs_prose_has finds them) written as to: how
 * many, 0 (and out cut short) when out is too small. */
size_t docs_replace_number(char *out, size_t cap, const char *line, const char *from,
                           const char *to);

typedef enum {
    DOCS_COUNT_NONE,    /* no count marker */
    DOCS_COUNT_RUNS,    /* <!-- runs: N = COMMAND --> */
    DOCS_COUNT_SCHEMES, /* <!-- schemes: N --> */
    DOCS_COUNT_BAD      /* begins as one, but is not written as one */
} DocsCountKind;

typedef struct {
    DocsCountKind kind;
    char num[32];    /* N as the page writes it */
    char cmd[4096];  /* COMMAND of a runs marker */
} DocsCount;

/* The count marker of line (leading blanks allowed), into m. */
DocsCountKind docs_count_marker(const char *line, DocsCount *m);
/* What m's number should be: the runs of its command, or the schemes of
 * the registry (DOCS_NO_COUNT for a command that cannot be counted). */
size_t docs_count_want(const DocsCount *m);
/* The first line of the paragraph that ends above line i: up to a blank
 * line or a fence. */
size_t docs_paragraph_top(char *const *lines, size_t i);
/* Whether lines [top, end), comments aside, hold num as a word. */
bool docs_paragraph_has(char *const *lines, size_t top, size_t end, const char *num);

#endif
