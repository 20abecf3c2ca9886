/* The docs test: every command the README and docs/ show in a ```console
 * block runs, and prints what the page says it prints.
 *
 * In a block, a line "$ cmd" is a command and the lines after it, up to
 * the next command or the end of the block, are its standard output. A
 * line "..." stands for any number of lines. Words must match exactly,
 * numbers to the digits shown (one unit in the last printed digit, or
 * 1e-5 for noise near zero), so a page shows real output of this code on
 * any CPU. "build/" in a command becomes $POSENC_BIN/ (the sanitizer build
 * runs the same pages); "make demo" runs the demo; other make commands are
 * not run here, since this test runs inside make. Trained models' numbers
 * depend on OpenBLAS's kernels and thread count, which `make test` pins
 * (the Makefile's BLAS_ENV); scripts/docs_regen.py rewrites the pages'
 * outputs after a change that moves them. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
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

START_TEST(docs_commands_print_what_the_pages_show) {
    find_pages();
    if ((size_t)_i >= n_pages)
        return;
    const char *page = pages[_i];
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

Suite *suite_docs(void) {
    Suite *s = suite_create("docs");
    TCase *tc = tcase_create("pages");
    /* one test per page; indices past the last page pass at once */
    tcase_add_loop_test(tc, docs_commands_print_what_the_pages_show, 0, MAX_PAGES);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}
