/* make fixtures: what a scheme added to the registry (or a command changed
 * on a page) changes elsewhere, written from the registry and the
 * commands, so that adding a scheme is its file, its registry line and
 * its docs rows (docs/architecture.md, "Adding a scheme"):
 *
 * - tests/reference/first_draws.txt: the rows of every scheme of the
 *   registry in each shape (tests/first_draws.h). A scheme without rows
 *   gets them from this build; a row that is there is never rewritten:
 *   it pins the draws of the build that wrote it, and one that today's
 *   build no longer draws is an error here, as in the test;
 * - the pages' counts (tests/docs_count.h): a page's "commands that train
 *   N small models", each <!-- runs: N = COMMAND --> and <!-- schemes: N
 *   --> with the number in the paragraph above it.
 *
 * It prints each change; --check prints them and writes nothing, exiting
 * 1 if there are any. Run from the repository's top folder. Exit 2 for
 * bad usage, 1 when something cannot be written so (a changed draw, a
 * count the paragraph does not state). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/buf.h"
#include "../../src/core/fileio.h"
#include "../../src/pe/pe.h"
#include "../docs_count.h"
#include "../docs_pages.h"
#include "../first_draws.h"

static const char USAGE[] =
    "Usage: regen [--check]\n"
    "Writes from the registry and the pages' commands what a new scheme\n"
    "changes elsewhere: the rows of tests/reference/first_draws.txt (a\n"
    "scheme's that has none; a row there is never rewritten) and the counts\n"
    "of runs and schemes in README.md and docs/*.md (tests/docs_count.h).\n"
    "`make fixtures` runs it from the repository's top folder.\n"
    "  --check     print what would change, write nothing; exit 1 if anything would\n"
    "  --help      this text\n";

/* A text file as lines (the newlines taken out; the file ends with one). */
typedef struct {
    char **line;
    size_t n;
    char *text;
} Lines;

static void lines_free(Lines *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    free(l->text);
    memset(l, 0, sizeof *l);
}

static int lines_read(Lines *l, const char *path, Err *e) {
    memset(l, 0, sizeof *l);
    size_t n;
    int rc = read_regular(path, (size_t)1 << 26, &l->text, &n, e);
    if (rc == ENOENT)
        return err_set(e, ERR_INPUT, "no %s: run this from the repository's top folder", path);
    if (rc)
        return ERR_INPUT;
    for (size_t i = 0; i < n; i++)
        l->n += l->text[i] == '\n';
    l->n += n && l->text[n - 1] != '\n';
    l->line = calloc(l->n + 1, sizeof *l->line);
    if (!l->line)
        return err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
    const char *p = l->text;
    for (size_t i = 0; i < l->n; i++) {
        size_t len = strcspn(p, "\n");
        l->line[i] = malloc(len + 1);
        if (!l->line[i])
            return err_set(e, ERR_RUNTIME, "out of memory reading %s", path);
        memcpy(l->line[i], p, len);
        l->line[i][len] = '\0';
        p += len + (p[len] == '\n');
    }
    return 0;
}

/* Line i becomes text (a copy). */
static int lines_set(Lines *l, size_t i, const char *text, Err *e) {
    char *copy = malloc(strlen(text) + 1);
    if (!copy)
        return err_set(e, ERR_RUNTIME, "out of memory");
    strcpy(copy, text);
    free(l->line[i]);
    l->line[i] = copy;
    return 0;
}

/* Writes path from lines (unless check), when they differ from what it
 * holds. */
static int lines_write(const Lines *l, const char *path, bool check, Err *e) {
    Buf b = {0};
    for (size_t i = 0; i < l->n; i++)
        buf_printf(&b, "%s\n", l->line[i]);
    if (b.failed) {
        buf_free(&b);
        return err_set(e, ERR_RUNTIME, "out of memory writing %s", path);
    }
    int rc = 0;
    if (!check && (strlen(l->text) != b.n || memcmp(l->text, b.p, b.n) != 0))
        rc = write_file_atomic(path, b.p, b.n, e);
    buf_free(&b);
    return rc;
}

/* ---- tests/reference/first_draws.txt ---- */

/* The file's row of scheme name in shape which, or NULL. */
static const char *row_of(const Lines *l, const char *name, char which) {
    for (size_t i = 0; i < l->n; i++) {
        char got[PE_NAME_MAX], w;
        if (l->line[i][0] != '#' && sscanf(l->line[i], "%23s %c", got, &w) == 2 &&
            strcmp(got, name) == 0 && w == which)
            return l->line[i];
    }
    return NULL;
}

/* The file's comment, then each scheme's rows in the registry's order:
 * kept where they are, made by this build where they are not. *changes
 * counts what differs; *bad the rows this build no longer draws. */
static int first_draws(bool check, size_t *changes, size_t *bad, Err *e) {
    Lines old;
    if (lines_read(&old, FIRST_DRAWS_FILE, e))
        return ERR_INPUT;
    size_t shapes = strlen(FIRST_DRAWS_SHAPES), comment = 0;
    while (comment < old.n && old.line[comment][0] == '#')
        comment++;
    Lines now = {.line = calloc(comment + shapes * pe_count() + 1, sizeof *now.line),
                 .text = old.text};
    int rc = now.line ? 0 : err_set(e, ERR_RUNTIME, "out of memory");
    for (size_t i = 0; !rc && i < comment; i++)
        rc = lines_set(&now, now.n++, old.line[i], e);
    for (size_t s = 0; !rc && s < pe_count(); s++)
        for (size_t k = 0; !rc && k < shapes; k++) {
            const char *name = pe_at(s)->name, *was = row_of(&old, name, FIRST_DRAWS_SHAPES[k]);
            size_t n;
            uint64_t sum;
            char row[128];
            if ((rc = first_draws_row(&n, &sum, name, FIRST_DRAWS_SHAPES[k], e)))
                break;
            snprintf(row, sizeof row, "%s %c %zu %016llx", name, FIRST_DRAWS_SHAPES[k], n,
                     (unsigned long long)sum);
            if (was && strcmp(was, row) != 0) {
                printf("%s: %s, shape %c: this build draws '%s', the row holds '%s': the "
                       "draws changed, and a row is never rewritten\n", FIRST_DRAWS_FILE, name,
                       FIRST_DRAWS_SHAPES[k], row, was);
                (*bad)++;
            } else if (!was) {
                printf("%s: %s, shape %c: %s (new)\n", FIRST_DRAWS_FILE, name,
                       FIRST_DRAWS_SHAPES[k], row);
                (*changes)++;
            }
            rc = lines_set(&now, now.n++, was ? was : row, e);
        }
    /* rows of a scheme the registry no longer has go */
    for (size_t i = comment; !rc && i < old.n; i++) {
        char name[PE_NAME_MAX];
        if (sscanf(old.line[i], "%23s", name) == 1 && !pe_find(name)) {
            printf("%s: %s is no scheme of the registry: its row goes\n", FIRST_DRAWS_FILE,
                   old.line[i]);
            (*changes)++;
        }
    }
    if (!rc && !*bad)
        rc = lines_write(&now, FIRST_DRAWS_FILE, check, e);
    now.text = NULL; /* old's */
    lines_free(&now);
    lines_free(&old);
    return rc;
}

/* ---- the pages' counts ---- */

/* Writes num as want in line i of l (a marker's own number, or the
 * paragraph's): how many it changed. */
static size_t renumber(Lines *l, size_t i, const char *num, const char *want, Err *e) {
    size_t cap = strlen(l->line[i]) * 2 + 64;
    char *out = malloc(cap);
    size_t n = out ? docs_replace_number(out, cap, l->line[i], num, want) : 0;
    if (n && lines_set(l, i, out, e))
        n = 0;
    free(out);
    return n;
}

/* Each count marker of page l and the number in its paragraph. */
static void page_markers(Lines *l, const char *page, size_t *changes, size_t *bad, Err *e) {
    for (size_t i = 0; i < l->n; i++) {
        DocsCount m;
        DocsCountKind kind = docs_count_marker(l->line[i], &m);
        if (kind == DOCS_COUNT_NONE)
            continue;
        size_t want = kind == DOCS_COUNT_BAD ? DOCS_NO_COUNT : docs_count_want(&m);
        if (want == DOCS_NO_COUNT) {
            printf("%s:%zu: a marker this cannot count: %s\n", page, i + 1, l->line[i]);
            (*bad)++;
            continue;
        }
        char now[32];
        snprintf(now, sizeof now, "%zu", want);
        if (strcmp(now, m.num) == 0)
            continue;
        size_t top = docs_paragraph_top(l->line, i), in_prose = 0;
        for (size_t k = top; k < i; k++)
            if (strncmp(l->line[k] + strspn(l->line[k], " "), "<!--", 4) != 0)
                in_prose += renumber(l, k, m.num, now, e);
        if (!in_prose) {
            printf("%s:%zu: the paragraph above does not say %s, which the marker counts; "
                   "write %s there\n", page, i + 1, m.num, now);
            (*bad)++;
            continue;
        }
        /* the marker's own number: the first word of its kind's form */
        const char *at = strstr(l->line[i], m.num);
        char line[4400];
        snprintf(line, sizeof line, "%.*s%s%s", (int)(at - l->line[i]), l->line[i], now,
                 at + strlen(m.num));
        lines_set(l, i, line, e);
        printf("%s:%zu: %s -> %s (%s), in the paragraph %zu time%s\n", page, i + 1, m.num, now,
               kind == DOCS_COUNT_RUNS ? m.cmd : "the registry's schemes", in_prose,
               in_prose == 1 ? "" : "s");
        (*changes)++;
    }
}

/* A page's first lines: "commands that train N small models". */
static void page_header(Lines *l, const char *page, size_t *changes, size_t *bad, Err *e) {
    for (size_t i = 0; i < l->n && i < 5; i++) {
        long claimed = docs_models_claimed(l->line[i]);
        if (claimed < 0)
            continue;
        size_t counted = docs_page_trainings(l->line, l->n);
        if (counted == DOCS_NO_COUNT) {
            printf("%s: a command this cannot count\n", page);
            (*bad)++;
            return;
        }
        if ((size_t)claimed == counted)
            return;
        char was[64], now[64], line[4400];
        snprintf(was, sizeof was, "commands that train %ld small model", claimed);
        snprintf(now, sizeof now, "commands that train %zu small model", counted);
        const char *at = strstr(l->line[i], was);
        snprintf(line, sizeof line, "%.*s%s%s", (int)(at - l->line[i]), l->line[i], now,
                 at + strlen(was));
        lines_set(l, i, line, e);
        printf("%s:%zu: its commands train %zu small models (it said %ld)\n", page, i + 1,
               counted, claimed);
        (*changes)++;
        return;
    }
}

static int pages(bool check, size_t *changes, size_t *bad, Err *e) {
    docs_find_pages();
    for (size_t p = 0; p < docs_n_pages; p++) {
        Lines l;
        if (lines_read(&l, docs_pages[p], e))
            return ERR_INPUT;
        size_t before = *bad;
        page_markers(&l, docs_pages[p], changes, bad, e);
        page_header(&l, docs_pages[p], changes, bad, e);
        int rc = *bad == before ? lines_write(&l, docs_pages[p], check, e) : 0;
        lines_free(&l);
        if (rc)
            return rc;
    }
    return 0;
}

int main(int argc, char **argv) {
    bool check = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(argv[i], "--check") == 0) {
            check = true;
        } else {
            fprintf(stderr, "regen: unknown option '%s'\nTry 'regen --help'.\n", argv[i]);
            return 2;
        }
    }
    size_t changes = 0, bad = 0;
    Err e = {0};
    if (first_draws(check, &changes, &bad, &e) || pages(check, &changes, &bad, &e)) {
        fprintf(stderr, "regen: %s\n", e.msg);
        return 1;
    }
    if (bad) {
        fprintf(stderr, "regen: %zu thing%s above cannot be written from the registry and the "
                "commands; the files with them are left as they were\n", bad,
                bad == 1 ? "" : "s");
        return 1;
    }
    if (check && changes)
        fprintf(stderr, "regen: %zu change%s to make (make fixtures)\n", changes,
                changes == 1 ? "" : "s");
    else if (!changes)
        printf("regen: the rows and the counts are the registry's and the commands' already\n");
    return check && changes ? 1 : 0;
}
