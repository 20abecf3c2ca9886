/* The docs test: every command the README and docs/ show in a ```console
 * block runs, and prints what the page says it prints; and every number
 * the prose quotes from such a block is the number the block shows.
 *
 * In a block, a line "$ cmd" is a command and the lines after it, up to
 * the next command or the end of the block, are its standard output. A
 * line "..." stands for any number of lines. Words must match exactly,
 * numbers to the digits shown (one unit in the last printed digit, or
 * 1e-5 for noise near zero), so a page shows real output of this code on
 * any CPU. "build/" in a command becomes $POSENC_BIN/ (the sanitizer build
 * runs the same pages); "make demo" runs the demo; other make commands are
 * not run here, since this test runs inside make. Trained models' numbers
 * depend on OpenBLAS's kernels (not on the thread count), which `make
 * test` pins (the Makefile's BLAS_ENV); scripts/docs_regen.py rewrites the
 * pages' outputs after a change that moves them.
 *
 * Numbers in prose. A block gets a name from an HTML comment on the line
 * just before its fence, and a paragraph that quotes its output ends with
 * a comment listing the numbers it quotes (comments do not render):
 *
 *     <!-- block: reverse-seeds -->
 *     ```console
 *     $ build/compare_pe --task reverse ...
 *      sinusoidal | add | 0.9945 | ...
 *     ```
 *     The sinusoid reaches 0.9945 on average, and 0.99 on every seed.
 *     <!-- from #reverse-seeds: 0.9945@sinusoidal 0.99@sinusoidal -->
 *
 * "from PAGE#NAME" names a block of another page, the path relative to
 * the page, as a Markdown link is (05-training.md#reverse-seeds). Each
 * number must appear in the paragraph above the comment (the lines up to
 * the previous blank line), and in the named block's output, on a line
 * that has the word WORD when "@WORD" is given (words split at spaces,
 * commas and table bars: @sinusoidal, @12; @rope@pre-norm asks for both),
 * rounded to the digits the prose shows (3.6e-7 stands for 3.58e-07;
 * 0.99 for 0.9945). Markers indented up to three spaces (under a list
 * item) count; four make a code block, as in docs/index.md. Only ```console
 * blocks can be named, so the output the prose is checked against is
 * itself checked against the program. The numbers are read from the
 * pages, not rerun: the check is instant, and a block that docs_regen.py
 * rewrote makes the stale prose fail here (docs_regen.py updates the
 * numbers it can map, and lists the rest). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

#define MAX_PAGES 64

static char pages[MAX_PAGES][256];
static size_t n_pages;

static void find_pages(void) {
    if (n_pages)
        return;
    snprintf(pages[n_pages++], sizeof pages[0], "README.md");
    DIR *d = opendir("docs");
    if (!d)
        return;
    for (struct dirent *ent; (ent = readdir(d)) && n_pages < MAX_PAGES;) {
        size_t len = strlen(ent->d_name);
        if (len > 3 && strcmp(ent->d_name + len - 3, ".md") == 0)
            snprintf(pages[n_pages++], sizeof pages[0], "docs/%s", ent->d_name);
    }
    closedir(d);
    /* readdir's order is the file system's; sort for stable loop indices */
    qsort(pages + 1, n_pages - 1, sizeof pages[0], (int (*)(const void *, const void *))strcmp);
}

static char *read_all(FILE *f) {
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            ck_assert_ptr_nonnull(buf);
        }
    }
    buf[n] = '\0';
    return buf;
}

/* Splits text into lines in place. */
static size_t split_lines(char *text, char ***lines) {
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (char *p = text; *p;) {
        if (n == cap) {
            v = realloc(v, (cap *= 2) * sizeof *v);
            ck_assert_ptr_nonnull(v);
        }
        v[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    *lines = v;
    return n;
}

/* Parses a whole token as a number, allowing trailing punctuation (which
 * must then match); sets *unit to one unit in its last printed digit. */
static int as_number(const char *tok, double *v, double *unit, char *tail) {
    char *end;
    *v = strtod(tok, &end);
    if (end == tok || strchr("0123456789", tok[0] == '-' ? tok[1] : tok[0]) == NULL)
        return 0;
    snprintf(tail, 16, "%s", end);
    if (strspn(end, ",;:)]%") != strlen(end))
        return 0;
    const char *dot = strchr(tok, '.');
    int decimals = 0;
    if (dot && dot < end)
        for (const char *p = dot + 1; p < end && *p >= '0' && *p <= '9'; p++)
            decimals++;
    const char *ex = strpbrk(tok, "eE");
    int exp10 = ex && ex < end ? atoi(ex + 1) : 0;
    *unit = pow(10.0, exp10 - decimals);
    return 1;
}

static int tokens_match(const char *want, const char *got) {
    double a, b, unit, unit_b;
    char ta[16], tb[16];
    if (as_number(want, &a, &unit, ta) && as_number(got, &b, &unit_b, tb))
        return strcmp(ta, tb) == 0 && (fabs(a - b) <= 1.01 * unit || fabs(a - b) <= 1e-5);
    return strcmp(want, got) == 0;
}

static int line_matches(const char *want, const char *got) {
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", want);
    snprintf(b, sizeof b, "%s", got);
    char *sa, *sb;
    /* commas separate too, so CSV numbers get the numeric comparison */
    char *x = strtok_r(a, " \t,", &sa), *y = strtok_r(b, " \t,", &sb);
    while (x && y) {
        if (!tokens_match(x, y))
            return 0;
        x = strtok_r(NULL, " \t,", &sa);
        y = strtok_r(NULL, " \t,", &sb);
    }
    return !x && !y;
}

/* Matches got[0..ng) against want[0..nw), where a want line "..." matches
 * any run of lines. Returns the index of the first want line that failed,
 * or -1. */
static long match_lines(char **want, size_t nw, char **got, size_t ng) {
    size_t i = 0, j = 0;
    while (i < nw) {
        if (strcmp(want[i], "...") == 0) {
            if (i + 1 == nw)
                return -1;
            while (j < ng && !line_matches(want[i + 1], got[j]))
                j++;
            if (j == ng)
                return (long)i + 1;
            i++;
            continue;
        }
        if (j >= ng || !line_matches(want[i], got[j]))
            return (long)i;
        i++;
        j++;
    }
    return j == ng ? -1 : (long)nw;
}

static void rewrite_command(char *out, size_t cap, const char *cmd, const char *bin) {
    if (strcmp(cmd, "make demo") == 0) {
        snprintf(out, cap, "%s/demo_order", bin);
        return;
    }
    size_t n = 0;
    for (const char *p = cmd; *p && n + 256 < cap;) {
        bool word_start = p == cmd || p[-1] == ' ' || p[-1] == '(' || p[-1] == '|';
        if (word_start && strncmp(p, "build/", 6) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s/", bin);
            p += 6;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
}

static void run_and_compare(const char *page, size_t lineno, const char *cmd, char **want,
                            size_t nw) {
    const char *bin = getenv("POSENC_BIN");
    char real[4096];
    rewrite_command(real, sizeof real, cmd, bin ? bin : "build");
    /* a learner's shell, not the runner's: a page that runs the tests
     * must neither inherit make check's choice of tests nor truncate its
     * log (this runs in the forked test, so the runner keeps them) */
    static const char *const RUNNER_ONLY[] = {"POSENC_TEST_LOG", "CK_INCLUDE_TAGS",
                                              "CK_EXCLUDE_TAGS", "CK_RUN_SUITE", "CK_RUN_CASE",
                                              "POSENC_SHARD", "POSENC_DOCS_PAGES",
                                              "POSENC_CLAIMS"};
    for (size_t k = 0; k < sizeof RUNNER_ONLY / sizeof *RUNNER_ONLY; k++)
        unsetenv(RUNNER_ONLY[k]);
    FILE *p = popen(real, "r");
    ck_assert_ptr_nonnull(p);
    char *out = read_all(p);
    int st = pclose(p);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s:%zu: '%s' exited with %d", page,
                  lineno, cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    char **got;
    size_t ng = split_lines(out, &got);
    if (ng && got[ng - 1][0] == '\0')
        ng--; /* the text ends with a newline */
    long bad = match_lines(want, nw, got, ng);
    if (bad >= 0) {
        fprintf(stderr, "%s:%zu: output of '%s' differs from the page:\n", page, lineno, cmd);
        for (size_t j = 0; j < ng; j++)
            fprintf(stderr, "  got | %s\n", got[j]);
    }
    ck_assert_msg(bad < 0, "%s:%zu: '%s': page line %ld '%s' does not match its output", page,
                  lineno, cmd, bad + 1, bad < (long)nw ? want[bad] : "(end: more output)");
    free(got);
    free(out);
}

/* Whether this runner takes page i: POSENC_DOCS_PAGES (the pages by path,
 * separated by spaces: `make sanitize` runs a sample), then, when several
 * runners share the pages (`make check`), the first to claim it in the
 * folder POSENC_CLAIMS (a file per page, made exclusively: a runner that
 * finishes early takes the next page, so the long pages spread
 * themselves), or else page i when i % N == K of POSENC_SHARD "K/N". */
static bool page_wanted(size_t i) {
    const char *only = getenv("POSENC_DOCS_PAGES");
    if (only && *only) {
        bool listed = false;
        size_t len = strlen(pages[i]);
        for (const char *p = only; *p && !listed; p += strcspn(p, " "), p += strspn(p, " "))
            listed = strcspn(p, " ") == len && strncmp(p, pages[i], len) == 0;
        if (!listed)
            return false;
    }
    const char *claims = getenv("POSENC_CLAIMS");
    if (claims && *claims) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%zu", claims, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0)
            return false;
        close(fd);
        return true;
    }
    size_t k, n;
    return !shard_of(&k, &n) || i % n == k;
}

/* The weight of a page's commands, for the order runners take them in:
 * a training counts as ten commands. */
static size_t page_weight(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    size_t w = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "$ ", 2) == 0)
            w += strstr(line, "train") || strstr(line, "compare_pe") || strstr(line, "probe")
                     ? 10 : 1;
    fclose(f);
    return w;
}

/* Loop index i runs the i-th heaviest page: runners that share the pages
 * start on the long ones, and the short ones fill in at the end. */
static size_t page_of(size_t i) {
    static size_t order[MAX_PAGES], weight[MAX_PAGES];
    static bool made;
    if (!made) {
        for (size_t k = 0; k < n_pages; k++)
            order[k] = k, weight[k] = page_weight(pages[k]);
        for (size_t a = 1; a < n_pages; a++) /* stable: ties keep the name order */
            for (size_t b = a; b > 0 && weight[order[b]] > weight[order[b - 1]]; b--) {
                size_t t = order[b];
                order[b] = order[b - 1], order[b - 1] = t;
            }
        made = true;
    }
    return order[i];
}

START_TEST(docs_commands_print_what_the_pages_show) {
    find_pages();
    if ((size_t)_i >= n_pages || !page_wanted(page_of((size_t)_i)))
        return;
    const char *page = pages[page_of((size_t)_i)];
    FILE *f = fopen(page, "r");
    ck_assert_msg(f != NULL, "cannot open %s (run the tests from the repository root)", page);
    char *text = read_all(f);
    fclose(f);
    char **lines;
    size_t n = split_lines(text, &lines), commands = 0;
    bool in_console = false;
    for (size_t i = 0; i < n; i++) {
        if (!in_console) {
            in_console = strcmp(lines[i], "```console") == 0;
            continue;
        }
        if (strncmp(lines[i], "```", 3) == 0) {
            in_console = false;
            continue;
        }
        if (strncmp(lines[i], "$ ", 2) != 0)
            continue;
        size_t start = i + 1, end = start;
        while (end < n && strncmp(lines[end], "$ ", 2) != 0 && strncmp(lines[end], "```", 3) != 0)
            end++;
        const char *cmd = lines[i] + 2;
        if (strncmp(cmd, "make", 4) != 0 || strcmp(cmd, "make demo") == 0) {
            run_and_compare(page, i + 1, cmd, lines + start, end - start);
            commands++;
        }
        i = end - 1;
    }
    if (strcmp(page, "README.md") == 0)
        ck_assert_msg(commands > 0, "README.md shows no console commands");
    free(lines);
    free(text);
}
END_TEST

/* Numbers in prose (the top of this file): the pages' lines, loaded once
 * per test process. */
static char **page_lines[MAX_PAGES];
static size_t page_n[MAX_PAGES];

static void load_pages(void) {
    find_pages();
    for (size_t i = 0; i < n_pages; i++) {
        if (page_lines[i])
            continue;
        FILE *f = fopen(pages[i], "r");
        ck_assert_msg(f != NULL, "cannot open %s (run the tests from the repository root)",
                      pages[i]);
        char *text = read_all(f); /* kept: the lines point into it */
        fclose(f);
        page_n[i] = split_lines(text, &page_lines[i]);
    }
}

/* The page a reference names: ref[0..len) is a path relative to page's
 * folder, as in a Markdown link; empty means the page itself. -1 if none. */
static long page_named(size_t page, const char *ref, size_t len) {
    if (len == 0)
        return (long)page;
    char path[512];
    const char *slash = strrchr(pages[page], '/');
    int dir = slash ? (int)(slash - pages[page] + 1) : 0;
    snprintf(path, sizeof path, "%.*s%.*s", dir, pages[page], (int)len, ref);
    const char *p = strncmp(path, "docs/../", 8) == 0 ? path + 8 : path;
    for (size_t i = 0; i < n_pages; i++)
        if (strcmp(pages[i], p) == 0)
            return (long)i;
    return -1;
}

/* The output lines [*start, *end) of the block page names `name`: 0, or
 * a reason it has none. */
static const char *find_block(size_t page, const char *name, size_t *start, size_t *end) {
    char label[160];
    snprintf(label, sizeof label, "<!-- block: %s -->", name);
    char **l = page_lines[page];
    for (size_t i = 0; i < page_n[page]; i++) {
        if (strcmp(l[i], label) != 0)
            continue;
        if (i + 1 == page_n[page] || strcmp(l[i + 1], "```console") != 0)
            return "is not a ```console block (only those run)";
        *start = i + 2;
        for (*end = *start; *end < page_n[page] && strncmp(l[*end], "```", 3) != 0; (*end)++)
            ;
        return NULL;
    }
    return "is not there";
}

/* Does line hold the number text num as a word of its own? */
static bool prose_has(const char *line, const char *num) {
    size_t n = strlen(num);
    for (const char *p = line; (p = strstr(p, num)); p++) {
        char before = p == line ? ' ' : p[-1], after = p[n];
        bool open = !isalnum((unsigned char)before) && !strchr("._", before) &&
                    (before != '-' || num[0] == '-');
        bool close = !isalnum((unsigned char)after) && after != '_' &&
                     !(after == '.' && isdigit((unsigned char)p[n + 1]));
        if (open && close)
            return true;
    }
    return false;
}

/* Does line have every one of words ("rope" or "rope@pre-norm") among
 * its words (split at spaces, commas and table bars)? */
static bool has_words(const char *line, const char *words) {
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, "@");
        char buf[4096], *save;
        bool found = false;
        snprintf(buf, sizeof buf, "%s", line);
        for (char *t = strtok_r(buf, " \t,|", &save); t && !found;
             t = strtok_r(NULL, " \t,|", &save))
            found = strlen(t) == n && strncmp(t, w, n) == 0;
        if (!found)
            return false;
        w += n + (w[n] == '@');
    }
    return true;
}

/* Does a line of out[start, end) with the word `word` (any line if NULL)
 * show a number that rounds to num at num's digits? Commands do not
 * count. */
static bool block_has(char **out, size_t start, size_t end, const char *num, const char *word) {
    double a, ua, b, ub;
    char tail[16];
    if (!as_number(num, &a, &ua, tail))
        return false;
    for (size_t i = start; i < end; i++) {
        if (strncmp(out[i], "$ ", 2) == 0 || (word && !has_words(out[i], word)))
            continue;
        char buf[4096], *save;
        snprintf(buf, sizeof buf, "%s", out[i]);
        for (char *t = strtok_r(buf, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
            t += strspn(t, "([|");
            /* both sides are rounded: the true value lies within half a
             * unit of each */
            if (as_number(t, &b, &ub, tail) && fabs(a - b) <= 0.5 * (ua + ub) * (1 + 1e-9))
                return true;
        }
    }
    return false;
}

/* Checks one "<!-- from REF#NAME: NUM[@WORD] ... -->" at line i of a page;
 * returns the number of failures, each printed. */
static size_t check_marker(size_t page, size_t i) {
    char **l = page_lines[page];
    const char *m = l[i] + strspn(l[i], " ") + strlen("<!-- from ");
    const char *hash = strchr(m, '#'), *colon = hash ? strchr(hash, ':') : NULL;
    size_t len = strlen(m);
    if (!hash || !colon || len < 4 || strcmp(m + len - 4, " -->") != 0) {
        fprintf(stderr, "%s:%zu: write the marker as <!-- from PAGE#BLOCK: NUMBER ... -->\n",
                pages[page], i + 1);
        return 1;
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - hash - 1), hash + 1);
    long src = page_named(page, m, (size_t)(hash - m));
    size_t start = 0, end = 0;
    const char *why = src < 0 ? "names no page in README.md or docs/"
                              : find_block((size_t)src, name, &start, &end);
    if (why) {
        fprintf(stderr, "%s:%zu: block '%.*s' %s\n", pages[page], i + 1, (int)(colon - m), m,
                why);
        return 1;
    }
    /* the paragraph: the lines above, up to a blank line or a fence */
    size_t top = i;
    while (top > 0 && l[top - 1][0] != '\0' && strncmp(l[top - 1], "```", 3) != 0)
        top--;
    char list[4096], *save;
    snprintf(list, sizeof list, "%.*s", (int)(len - 4 - (size_t)(colon + 1 - m)), colon + 1);
    size_t bad = 0, count = 0;
    for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save), count++) {
        char *at = strchr(t, '@');
        if (at)
            *at++ = '\0';
        bool in_prose = false;
        for (size_t k = top; k < i && !in_prose; k++)
            in_prose = strncmp(l[k] + strspn(l[k], " "), "<!--", 4) != 0 && prose_has(l[k], t);
        if (!in_prose) {
            fprintf(stderr, "%s:%zu: %s is not in the paragraph above the marker\n", pages[page],
                    i + 1, t);
            bad++;
        } else if (!block_has(page_lines[src], start, end, t, at)) {
            fprintf(stderr, "%s:%zu: %s is not what block '%s' of %s shows%s%s%s\n", pages[page],
                    i + 1, t, name, pages[src], at ? " on a line with '" : "", at ? at : "",
                    at ? "'" : "");
            bad++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "%s:%zu: the marker lists no numbers\n", pages[page], i + 1);
        bad++;
    }
    return bad;
}

START_TEST(prose_numbers_match_their_blocks) {
    load_pages();
    size_t bad = 0, checked = 0;
    for (size_t p = 0; p < n_pages; p++) {
        char **l = page_lines[p];
        for (size_t i = 0; i < page_n[p]; i++) {
            /* a marker may be indented under a list item; four spaces
             * or more make a code block, which shows one */
            size_t indent = strspn(l[i], " ");
            if (indent > 3)
                continue;
            const char *t = l[i] + indent;
            if (strncmp(t, "<!-- from ", 10) == 0) {
                bad += check_marker(p, i);
                checked++;
            } else if (strncmp(l[i], "<!-- block: ", 12) == 0) {
                /* a name is unique on its page and names a console block */
                for (size_t j = i + 1; j < page_n[p]; j++)
                    if (strcmp(l[i], l[j]) == 0) {
                        fprintf(stderr, "%s:%zu: %s is used again at line %zu\n", pages[p], i + 1,
                                l[i], j + 1);
                        bad++;
                    }
                if (i + 1 == page_n[p] || strcmp(l[i + 1], "```console") != 0) {
                    fprintf(stderr, "%s:%zu: a block name must stand just before a ```console "
                            "fence\n", pages[p], i + 1);
                    bad++;
                }
            } else if (strncmp(t, "<!-- from", 9) == 0 || strncmp(t, "<!-- block", 10) == 0) {
                fprintf(stderr, "%s:%zu: malformed marker '%s'\n", pages[p], i + 1, l[i]);
                bad++;
            }
        }
    }
    ck_assert_msg(bad == 0, "%zu prose numbers or markers are wrong (listed above); after "
                  "scripts/docs_regen.py, fix the prose the diff changed", bad);
    ck_assert_msg(checked > 0, "no page has a <!-- from ... --> marker");
}
END_TEST

/* The other kind of block (docs/index.md, "Conventions the pages share"):
 * a ```text block that shows a command, a line "$ ...", is output pasted
 * from one run, which this test does not rerun. The line just before its
 * fence marks it, <!-- illustration: WHY -->, so that no output goes
 * untested without a reason the page gives. */
START_TEST(pasted_output_is_marked_as_an_illustration) {
    load_pages();
    size_t bad = 0, marked = 0;
    for (size_t p = 0; p < n_pages; p++) {
        char **l = page_lines[p];
        for (size_t i = 0; i < page_n[p]; i++) {
            if (strcmp(l[i], "```text") != 0)
                continue;
            bool command = false, mark = i > 0 && strncmp(l[i - 1], "<!-- illustration: ", 19) == 0;
            size_t end = i + 1;
            for (; end < page_n[p] && strncmp(l[end], "```", 3) != 0; end++)
                command = command || strncmp(l[end], "$ ", 2) == 0;
            if (command && !mark) {
                fprintf(stderr, "%s:%zu: this ```text block shows a command and its output, "
                        "which the docs test does not run: make it a ```console block, or mark "
                        "it <!-- illustration: WHY --> on the line before the fence and say so "
                        "on the page\n", pages[p], i + 1);
                bad++;
            }
            marked += command && mark;
            i = end;
        }
    }
    ck_assert_msg(bad == 0, "%zu blocks of pasted output are not marked (listed above)", bad);
    ck_assert_msg(marked > 0, "no page has a marked illustration: is the check reading them?");
}
END_TEST

Suite *suite_docs(void) {
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("pages");
    /* one test per page; indices past the last page pass at once */
    tcase_add_loop_test(tc, docs_commands_print_what_the_pages_show, 0, MAX_PAGES);
    /* a page of trainings (5, 7, the answers) takes minutes on a busy machine */
    tcase_set_timeout(tc, 1500);
    /* about 2.5 minutes of both cores: make check, not make test */
    tcase_set_tags(tc, "slow");
    suite_add_tcase(s, tc);
    TCase *prose = tcase_create("prose");
    tcase_add_test(prose, prose_numbers_match_their_blocks);
    tcase_add_test(prose, pasted_output_is_marked_as_an_illustration);
    suite_add_tcase(s, prose);
    return s;
}
